//! One step of the agent's loop (paper section 3): update the memory, retrieve, filter
//! the admissible actions through the guards, plan, act.

use std::time::Instant;

use anyhow::Result;
use minijinja::context;

use super::answers::{
    self, ActionAnswer, PlanAnswer, ReferenceActionAnswer, ReferencePlanAnswer, action_schema,
    plan_schema, reference_action_schema, reference_plan_schema,
};
use super::reference::{self, plan_json};
use super::{
    ActionSource, Agent, AgentRevision, Decision, Filtered, GO_TO, HistoryItem, NOTE_CHARS,
    PLAN_ITEMS_COMPACT, PlanHeader, has_words, match_admissible, progress,
};
use crate::env::GameState;
use crate::llm::CallLog;
use crate::llm::prompts::clip;
use crate::memory::names::entity_key;
use crate::memory::{KeyItem, Queries};
use crate::nav::SpatialMap;

impl Agent {
    /// One step of the loop: update memory from the observation, retrieve, plan, act.
    ///
    /// # Errors
    /// Transport errors from the endpoints (bad answers are repaired, retried, counted).
    pub async fn step(
        &mut self,
        step: u32,
        state: &GameState,
        last_action: &str,
    ) -> Result<Decision> {
        let started = Instant::now();
        self.pending = CallLog::default();
        self.seen = reference::seen_at(step, state);
        let update = self.remember(step, state, last_action).await?;
        let room = state.room.clone().unwrap_or_else(|| "unknown".into());
        let here = entity_key(&room);
        if state.room.is_some() {
            self.here = Some(here.clone());
        }
        let hold_due = self.roaming.decide(
            state.room.is_some().then_some(here.as_str()),
            &state.admissible_commands,
            self.settings.rev().holds_walks(),
        );
        let map = self.spatial_map();
        // The reference asks, from the previous plan, whether exploring is needed.
        let explore = self.settings.exploration
            && (!self.settings.explore_check
                || self.memory.graph().is_none()
                || self.explore_needed().await?);
        // A game that travels by its own skills (NetHack) reports its unexplored exits
        // itself; Ariadne's compass map has none to give and no route to walk.
        let unexplored = if explore && !state.skills {
            map.unexplored(self.explorer.explored())
        } else {
            Vec::new()
        };
        let go_to_targets = if self.settings.go_to && state.room.is_some() && !state.skills {
            self.explorer.go_to_targets(&map, &here)
        } else {
            Vec::new()
        };
        let exits: Vec<String> = if state.skills {
            if explore {
                state.unexplored.clone()
            } else {
                Vec::new()
            }
        } else {
            unexplored
                .iter()
                .map(|u| format!("{}: {}", u.room, u.direction.as_str()))
                .collect()
        };

        // Queries: the observation, the goal, and each sub-goal of the current plan.
        // Under the paper's profile: the key items the LLM names, each at its relevance.
        let sub_goals: Vec<String> = self.plan.iter().map(|p| p.sub_goal.clone()).collect();
        let items = if self.settings.key_items && self.memory.graph().is_some() {
            self.key_items(step, state).await?
        } else {
            None
        };
        let queries = Queries {
            step,
            observation: &state.observation,
            goal: &self.goal,
            plan: &sub_goals,
            items: items.as_deref(),
        };
        let mut retrieval = self
            .memory
            .retrieve(&self.llm, &mut self.pending, &queries)
            .await?;
        retrieval.key_items = items.clone().unwrap_or_default();
        let what_if = self
            .what_if
            .as_ref()
            .and_then(|alt| self.memory.what_if(&queries, alt));
        let mut warnings = self.warnings(step);
        let dropped = self.drop_achieved(state);
        if let Some(w) = self.stuck_warning(step) {
            warnings.push(w);
        }
        let filtered =
            self.filter_actions(step, state, &here, &room, &map, hold_due, &go_to_targets);
        warnings.extend(filtered.warnings);
        let (offered, blocked) = (filtered.offered, filtered.blocked);

        let history: Vec<&HistoryItem> = self.history.iter().collect();
        let facts: Vec<&str> = retrieval
            .triplets
            .iter()
            .map(|t| t.triplet.as_str())
            .collect();
        let note = self.note.as_ref().map(|(step, action, text)| {
            context! { step => step, action => action, text => clip(text, NOTE_CHARS) }
        });
        let free_text = self.settings.free_text || state.free_text;
        let wm = context! {
            free_text => free_text,
            goal => &self.goal,
            note => note,
            facts => facts,
            episodes => &retrieval.episodes,
            notes => &retrieval.notes,
            theses => &retrieval.theses,
            changes => &retrieval.changes,
            paths => &retrieval.paths,
            history => history,
            warnings => &warnings,
            step => step,
            show_score => self.settings.show_score,
            score => state.score,
            max_score => state.max_score,
            room => &room,
            inventory => clip(&state.inventory, 400),
            observation => &state.observation,
            unexplored => exits,
            go_to_targets => &go_to_targets,
        };
        // Under the reference's prompts the working memory is laid out as it lays it out.
        let wm = if self.settings.reference_prompts() {
            let reported = if state.skills {
                exits.clone()
            } else {
                Vec::new()
            };
            let exits = reference::exits_text(self.explorer.visited(), &unexplored, &reported);
            let reference = self.reference_memory(&retrieval, exits, explore);
            context! { free_text => free_text, ..reference }
        } else {
            wm
        };
        let revision = self.settings.rev();
        let layout = self.settings.revision;
        let plan_items = if revision.shares_prefix() {
            PLAN_ITEMS_COMPACT
        } else {
            crate::llm::bounds::PLAN_ITEMS
        };
        if self.settings.reference_prompts() {
            self.revise_reference_plan(&wm).await?;
        } else {
            self.revise_plan(&wm, revision, layout, plan_items).await?;
        }

        let mut dropped = dropped;
        dropped.extend(self.drop_achieved(state));
        let (action, rationale, source) = self
            .choose_action(wm, &offered, revision, layout, free_text)
            .await?;
        Ok(Decision {
            update,
            retrieval,
            plan: self.plan.clone(),
            warnings,
            blocked,
            dropped,
            rationale,
            action,
            action_source: source,
            unexplored,
            go_to_targets,
            what_if,
            log: std::mem::take(&mut self.pending),
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }

    /// The admissible list as this step offers it, through the extended profile's guards
    /// in order (rule `loop-breaking`): commands of a detected cycle, the exact reversal
    /// of the last command, a `go to` whose route starts with a blocked move, then the
    /// hold on walks back into visited rooms. Each guard's leavings are reported with its
    /// reason as a warning to the planner; a guard that would leave nothing stands down.
    #[allow(clippy::too_many_arguments)]
    fn filter_actions(
        &mut self,
        step: u32,
        state: &GameState,
        here: &str,
        room: &str,
        map: &SpatialMap,
        hold_due: bool,
        go_to_targets: &[String],
    ) -> Filtered {
        let mut warnings = Vec::new();
        let mut offered = state.admissible_commands.clone();
        offered.extend(go_to_targets.iter().map(|r| format!("{GO_TO}{r}")));
        let blocked_commands = self.blocked_now(step, here);
        let by_route = self.settings.rev().shares_prefix();
        // A `go to` is routed (an A* search) only when some command is blocked.
        let route_check = by_route && !blocked_commands.is_empty();
        let reversals = self.reversals_now(here, &offered);
        let mut blocked: Vec<String> = offered
            .iter()
            .filter(|a| {
                blocked_commands.contains(a)
                    || reversals.contains(a)
                    || route_check
                        && a.strip_prefix(GO_TO).is_some_and(|target| {
                            self.route(room, target)
                                .and_then(|r| r.first().map(|m| m.direction.command()))
                                .is_some_and(|first| blocked_commands.contains(&first))
                        })
            })
            .cloned()
            .collect();
        // Revision 5's hold, over what the blocks above left: it steers towards exits
        // the game itself offered, not towards a `has exit` the extractor may have
        // misread; a room just found is looked at before it is left even when no exit
        // is left to explore.
        let frontier = if self.settings.exploration && hold_due {
            self.roaming
                .frontier(map, self.explorer.explored(), self.explorer.visited())
        } else {
            Vec::new()
        };
        let available: Vec<String> = offered
            .iter()
            .filter(|a| !blocked.contains(a))
            .cloned()
            .collect();
        let arrived = self.roaming.entered_new() && progress::offers_things(&available);
        let held = if self.settings.loop_breaking && hold_due && (!frontier.is_empty() || arrived) {
            progress::held_while_wandering(here, map, &frontier, &available, arrived)
        } else {
            Vec::new()
        };
        // In the order offered; the hold stands only if it leaves some action.
        let with_held: Vec<String> = offered
            .iter()
            .filter(|a| blocked.contains(a) || held.contains(a))
            .cloned()
            .collect();
        let held = if offered.iter().any(|a| !with_held.contains(a)) {
            blocked = with_held;
            held
        } else {
            Vec::new()
        };
        if !held.is_empty() {
            self.roaming.held();
        }
        if offered.iter().any(|a| !blocked.contains(a)) {
            offered.retain(|a| !blocked.contains(a));
        }
        // Revision 1 reported every blocked action, offered or not.
        let blocked = if by_route {
            blocked
        } else {
            blocked_commands.clone()
        };
        // Reversals of the last command (revision 4) are reported apart from cycles.
        let (undoing, cycling): (Vec<String>, Vec<String>) = blocked
            .iter()
            .filter(|a| !held.contains(a))
            .cloned()
            .partition(|a| reversals.contains(a) && !blocked_commands.contains(a));
        if !held.is_empty() {
            warnings.push(if arrived {
                "you have walked back into rooms you had already visited without doing anything there, and this room is new: act on something here before you leave it".to_string()
            } else {
                format!(
                    "you have walked back into rooms you had already visited {} times without doing anything there; until you act on something, only moves towards exits not yet explored are available (left out: {})",
                    self.roaming.walked(),
                    held.join("; ")
                )
            });
        }
        if !cycling.is_empty() {
            warnings.push(format!(
                "these actions repeat a cycle that made no progress and are not available for now: {}",
                cycling.join("; ")
            ));
        }
        if !undoing.is_empty() {
            warnings.push(format!(
                "these actions would only undo your last action and are not available this step: {}",
                undoing.join("; ")
            ));
        }

        Filtered {
            offered,
            blocked,
            warnings,
        }
    }

    /// The planning call (paper section 3): the plan revised against the working
    /// memory `wm`; a placeholder sub-goal is dropped as a repair (revision 7). A bad
    /// answer keeps the plan as it was.
    async fn revise_plan(
        &mut self,
        wm: &minijinja::Value,
        revision: AgentRevision,
        layout: u32,
        plan_items: usize,
    ) -> Result<()> {
        let messages = self.llm.prompts.render(
            "plan",
            context! { plan => &self.plan, layout => layout, max_items => plan_items, ..wm.clone() },
        )?;
        let plan: Option<PlanAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                "plan",
                messages,
                plan_schema(revision),
                400,
                |p: &PlanAnswer| {
                    if p.plan.is_empty() {
                        Err("the plan is empty".into())
                    } else if revision.drops_placeholders()
                        && !p.plan.iter().any(|g| has_words(&g.sub_goal))
                    {
                        Err("no sub-goal says what to do (placeholders such as \"...\")".into())
                    } else {
                        Ok(())
                    }
                },
            )
            .await?;
        if let Some(mut p) = plan {
            if revision.drops_placeholders() {
                // Placeholder sub-goals ("...") beside real ones: dropped, a repair.
                let before = p.plan.len();
                p.plan.retain(|g| has_words(&g.sub_goal));
                if p.plan.len() < before {
                    self.pending.repairs += 1;
                }
            }
            self.plan = p.plan;
        }

        Ok(())
    }

    /// The planning call as the reference makes it (`system_plan_agent`; agent revision
    /// 9 without rule `compact-prompts`): the answer's steps become the plan, its main
    /// goal and emotion are kept to show the plan back as the reference does. A bad
    /// answer, or one with no sub-goal, keeps the plan as it was.
    async fn revise_reference_plan(&mut self, wm: &minijinja::Value) -> Result<()> {
        let messages = self.llm.prompts.render("plan_reference", wm.clone())?;
        let answer: Option<ReferencePlanAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                "plan",
                messages,
                reference_plan_schema(),
                600,
                |p: &ReferencePlanAnswer| {
                    if p.sub_goals().iter().any(|g| has_words(&g.sub_goal)) {
                        Ok(())
                    } else {
                        Err("no step of plan_steps has a sub_goal that says what to do".into())
                    }
                },
            )
            .await?;
        if let Some(p) = answer {
            let sub_goals = p.sub_goals();
            let kept: Vec<_> = sub_goals
                .iter()
                .filter(|g| has_words(&g.sub_goal))
                .cloned()
                .collect();
            if kept.len() < p.plan_steps.len() {
                self.pending.repairs += 1;
            }
            self.plan = kept;
            self.plan_header = Some(PlanHeader {
                main_goal: p.main_goal,
                emotion: p.your_emotion,
            });
        }
        Ok(())
    }

    /// The ReAct decision (paper section 3): a rationale and one action of `offered`
    /// (matched to the admissible list, a repair when only close); a bad answer falls
    /// back to a default action. In free-text mode (`free_text`) the action is a command
    /// for the game's parser ([`answers::free_command`]); only the `go to` shortcuts of
    /// `offered` are shown, and an answer equal to one of `offered` is taken as it.
    async fn choose_action(
        &mut self,
        wm: minijinja::Value,
        offered: &[String],
        revision: AgentRevision,
        layout: u32,
        free_text: bool,
    ) -> Result<(String, String, ActionSource)> {
        let admissible = offered;
        let shortcuts: Vec<&String> = offered.iter().filter(|a| a.starts_with(GO_TO)).collect();
        let reference = self.settings.reference_prompts();
        let (template, plan) = if reference {
            let plan = plan_json(&self.goal, &self.plan, self.plan_header.as_ref());
            ("action_reference", minijinja::Value::from(plan))
        } else {
            ("action", minijinja::Value::from_serialize(&self.plan))
        };
        let messages = self.llm.prompts.render(
            template,
            context! { plan => plan, plan_json => plan, admissible => admissible, shortcuts => shortcuts, layout => layout, ..wm },
        )?;
        let schema = match (reference, free_text) {
            (true, true) => reference_action_schema(None),
            (true, false) => reference_action_schema(Some(admissible)),
            (false, true) => answers::free_action_schema(revision),
            (false, false) => action_schema(admissible, revision),
        };
        let check = |a: &ActionAnswer| match match_admissible(&a.action, admissible) {
            Some(_) => Ok(()),
            None if free_text => answers::free_command(&a.action).map(|_| ()),
            None => Err(format!(
                "\"{}\" is not one of the admissible actions",
                clip(&a.action, 100)
            )),
        };
        let answer: Option<ActionAnswer> = if reference {
            self.llm
                .ask(
                    &mut self.pending,
                    "action",
                    messages,
                    schema,
                    250,
                    |a: &ReferenceActionAnswer| check(&a.as_action()),
                )
                .await?
                .map(|a| a.as_action())
        } else {
            self.llm
                .ask(&mut self.pending, "action", messages, schema, 250, check)
                .await?
        };
        if free_text
            && let Some(a) = &answer
            && match_admissible(&a.action, admissible).is_none()
            && let Ok(command) = answers::free_command(&a.action)
        {
            return Ok((command, a.rationale.clone(), ActionSource::Llm));
        }
        let (action, rationale, source) = match answer {
            Some(a) => match match_admissible(&a.action, admissible) {
                Some((cmd, repaired)) => (
                    cmd.to_string(),
                    a.rationale,
                    if repaired {
                        ActionSource::Repaired
                    } else {
                        ActionSource::Llm
                    },
                ),
                None => self.fallback(admissible),
            },
            None => self.fallback(admissible),
        };
        Ok((action, rationale, source))
    }

    /// The key items of the observation and the current plan, each with its relevance
    /// (the reference's `item_processing_scores`); `None` when the call gave no usable
    /// answer or no item (the caller then searches the observation, goal and sub-goals).
    ///
    /// # Errors
    /// Transport errors.
    async fn key_items(&mut self, step: u32, state: &GameState) -> Result<Option<Vec<KeyItem>>> {
        let reference = self.settings.rev().reference_prompts();
        let (template, schema) = if reference {
            ("key_items_reference", answers::reference_key_items_schema())
        } else {
            ("key_items", answers::key_items_schema())
        };
        let messages = self.llm.prompts.render(
            template,
            context! {
                observation => if reference {
                    format!("Game step #{step}\n{}", state.observation)
                } else {
                    state.observation.clone()
                },
                inventory => &state.inventory,
                goal => &self.goal,
                plan => &self.plan,
                plan_json => plan_json(&self.goal, &self.plan, self.plan_header.as_ref()),
            },
        )?;
        let answer: Option<answers::KeyItemsAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                "key_items",
                messages,
                schema,
                300,
                |_| Ok(()),
            )
            .await?;
        let mut items: Vec<KeyItem> = Vec::new();
        for it in answer.map(|a| a.items).unwrap_or_default() {
            let entity = it.entity.trim().to_string();
            if !entity.is_empty() && !items.iter().any(|k| k.entity == entity) {
                items.push(KeyItem {
                    entity,
                    relevance: it.relevance,
                });
            }
        }
        Ok((!items.is_empty()).then_some(items))
    }

    /// Whether the current (previous step's) plan needs exploration (the reference's
    /// `if_exp_prompt`); a call with no usable answer counts as yes (exits shown).
    ///
    /// # Errors
    /// Transport errors.
    async fn explore_needed(&mut self) -> Result<bool> {
        let template = if self.settings.rev().reference_prompts() {
            "explore_reference"
        } else {
            "explore"
        };
        let plan_json = plan_json(&self.goal, &self.plan, self.plan_header.as_ref());
        let messages = self.llm.prompts.render(
            template,
            context! { plan => &self.plan, plan_json => plan_json },
        )?;
        let answer: Option<answers::ExploreAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                "explore",
                messages,
                answers::explore_schema(),
                20,
                |_| Ok(()),
            )
            .await?;
        Ok(answer.is_none_or(|a| a.explore))
    }

    /// No valid answer after the retry: take the first admissible command that differs
    /// from the last action ("look" when the list is empty).
    fn fallback(&self, admissible: &[String]) -> (String, String, ActionSource) {
        let last = self.actions.last();
        let action = admissible
            .iter()
            .find(|a| Some(*a) != last)
            .or(admissible.first())
            .cloned()
            .unwrap_or_else(|| "look".into());
        (
            action,
            "no valid answer from the LLM; fallback action".into(),
            ActionSource::Fallback,
        )
    }
}
