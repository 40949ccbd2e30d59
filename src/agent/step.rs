//! One step of the agent's loop (paper section 3): update the memory, retrieve, filter
//! the admissible actions through the guards, plan, act.

use std::time::Instant;

use anyhow::Result;
use minijinja::context;

use super::{
    Agent, Decision, Filtered, GO_TO, HistoryItem, NOTE_CHARS, PLAN_ITEMS_COMPACT, progress,
};
use super::{cooking, reference};
use crate::env::GameState;
use crate::llm::CallLog;
use crate::memory::Queries;
use crate::memory::names::entity_key;
use crate::nav::SpatialMap;
use crate::text::clip;

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
            recent: self.settings.history as u32,
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
        // A Cooking game: `cook X with stove` offered as `fry X with stove`, as the
        // reference offers it; the choice is sent as the game spells it.
        let cooking = (self.cooking_verbs && !state.free_text && !self.settings.free_text)
            .then(|| cooking::offered(&offered));
        let offered: Vec<String> = match &cooking {
            Some(pairs) => pairs.iter().map(|(o, _)| o.clone()).collect(),
            None => offered,
        };

        let free_text = self.settings.free_text || state.free_text;
        // Under the reference's prompts the working memory is laid out as it lays it out.
        let wm = if self.settings.reference_prompts() {
            let reported = state.skills.then_some(exits.as_slice());
            let exits = reference::exits_text(self.explorer.visited(), &unexplored, reported);
            let note = self.note.as_ref().map(|(step, action, text)| {
                format!(
                    "Latest note read (step {step}, \"{action}\"): {}",
                    clip(text, NOTE_CHARS)
                )
            });
            let extras = reference::extras(&retrieval, note, &warnings);
            let reference = self.reference_memory(&retrieval, exits, explore, extras);
            context! {
                free_text => free_text,
                show_score => self.settings.show_score,
                score => state.score,
                max_score => state.max_score,
                ..reference
            }
        } else {
            let history: Vec<&HistoryItem> = self.history.iter().collect();
            let facts: Vec<&str> = retrieval
                .triplets
                .iter()
                .map(|t| t.triplet.as_str())
                .collect();
            let note = self.note.as_ref().map(|(step, action, text)| {
                context! { step => step, action => action, text => clip(text, NOTE_CHARS) }
            });
            context! {
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
            }
        };
        let revision = self.settings.rev();
        let plan_items = if revision.shares_prefix() {
            PLAN_ITEMS_COMPACT
        } else {
            crate::llm::bounds::PLAN_ITEMS
        };
        if self.settings.reference_prompts() {
            self.revise_reference_plan(&wm).await?;
        } else {
            self.revise_plan(&wm, revision, plan_items).await?;
        }

        let mut dropped = dropped;
        dropped.extend(self.drop_achieved(state));
        let (action, rationale, source) = self
            .choose_action(wm, &offered, revision, free_text)
            .await?;
        let action = match &cooking {
            Some(pairs) => cooking::as_sent(&action, pairs),
            None => action,
        };
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
}
