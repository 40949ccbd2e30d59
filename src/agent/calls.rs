//! The agent's own LLM calls (paper section 3): planning, the ReAct decision, the key
//! items that query memory and the exploration check, as the reference makes them
//! (agent revision 9) or in Ariadne's compact form (rule `compact-prompts`, and runs
//! of earlier revisions).

use crate::llm::bounds::answer_tokens;
use anyhow::Result;
use minijinja::context;

use super::answers::{self, ActionAnswer, PlanAnswer, action_schema, plan_schema};
use super::commands::{self, Forms, LISTED_COMMANDS, Speech};
use super::reference::answers::{
    ReferenceActionAnswer, ReferencePlanAnswer, reference_action_schema,
    reference_key_items_schema, reference_plan_schema,
};
use super::{ActionSource, Agent, AgentRevision, GO_TO, PlanHeader, has_words, match_admissible};
use crate::env::GameState;
use crate::llm::Ask;
use crate::memory::KeyItem;
use crate::text::clip;

impl Agent {
    /// The planning call (paper section 3): the plan revised against the working
    /// memory `wm`; a placeholder sub-goal is dropped as a repair (revision 7). A bad
    /// answer keeps the plan as it was.
    pub(super) async fn revise_plan(
        &mut self,
        wm: &minijinja::Value,
        revision: AgentRevision,
        plan_items: usize,
    ) -> Result<()> {
        let messages = self.llm.prompts.render(
            "plan",
            context! { plan => &self.plan, shared_prefix => revision.shares_prefix(), max_items => plan_items, ..wm.clone() },
        )?;
        let plan: Option<PlanAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                Ask::new(
                    "plan",
                    messages,
                    plan_schema(revision),
                    answer_tokens::PLAN_COMPACT,
                ),
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
    /// answer, or one with no sub-goal, keeps the plan as it was; from agent revision 11
    /// its text is shown back as the plan, as the reference shows any answer.
    pub(super) async fn revise_reference_plan(&mut self, wm: &minijinja::Value) -> Result<()> {
        let messages = self.llm.prompts.render("plan_reference", wm.clone())?;
        let answer: Option<ReferencePlanAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                Ask::new(
                    "plan",
                    messages,
                    reference_plan_schema(),
                    answer_tokens::PLAN,
                ),
                |p: &ReferencePlanAnswer| {
                    if p.sub_goals().iter().any(|g| has_words(&g.sub_goal)) {
                        Ok(())
                    } else {
                        Err("no step of plan_steps has a sub_goal that says what to do".into())
                    }
                },
            )
            .await?;
        if answer.is_none() && self.settings.reference_step() {
            // The reference takes the planner's text as the plan whatever it says
            // (`pipeline_arigraph.py:216-218`).
            self.plan_text = self
                .pending
                .calls
                .iter()
                .rev()
                .find(|c| c.purpose == "plan" && !c.answer.trim().is_empty())
                .map(|c| c.answer.clone());
        }
        if let Some(p) = answer {
            self.plan_text = None;
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
    /// back to a default action. In free text ([`Speech::FreeText`]) the action is a
    /// command for the game's parser ([`commands::free_command`]); only the `go to`
    /// shortcuts of `offered` are shown, and an answer equal to one of `offered` is taken
    /// as it.
    pub(super) async fn choose_action(
        &mut self,
        wm: minijinja::Value,
        offered: &[String],
        revision: AgentRevision,
        speech: Speech<'_>,
    ) -> Result<(String, String, ActionSource)> {
        let answer = self.ask_action(wm, offered, revision, speech).await?;
        let language = speech.language();
        let here = self.room_here();
        let refusals = self.settings.remembers_refusals().then_some(&self.commands);
        if speech.is_free_text()
            && let Some(a) = &answer
            && match_admissible(&a.action, offered).is_none()
            && let Ok((command, repaired)) =
                commands::free_command(&a.action, language, refusals, &here, revision)
        {
            let source = if repaired {
                self.pending.repairs += 1;
                ActionSource::Repaired
            } else {
                ActionSource::Llm
            };
            return Ok((command, a.rationale.clone(), source));
        }
        let matched = answer.and_then(|a| {
            match_admissible(&a.action, offered)
                .map(|(c, repaired)| (c.to_string(), a.rationale, repaired))
        });
        Ok(match (matched, language) {
            (Some((cmd, rationale, false)), _) => (cmd, rationale, ActionSource::Llm),
            (Some((cmd, rationale, true)), _) => (cmd, rationale, ActionSource::Repaired),
            (None, Some(l)) => match self.first_of_joined(l, revision) {
                Some(first) => (
                    first,
                    "no valid command from the LLM; the first command of its answer, which joined several".into(),
                    ActionSource::Fallback,
                ),
                None => (
                    self.commands.fallback(
                        l,
                        self.actions.last().map(String::as_str),
                        refusals.is_some(),
                    ),
                    "no valid command from the LLM; a way the observation names, else the game's look command".into(),
                    ActionSource::Fallback,
                ),
            },
            (None, None) => self.fallback(offered),
        })
    }

    /// From agent revision 11, the first command of the step's last action answer when
    /// that answer joined several (`take notebook put notebook in table`) and the first
    /// is a command of `language` the game has not refused here.
    fn first_of_joined(
        &self,
        language: &commands::Language,
        revision: AgentRevision,
    ) -> Option<String> {
        if !revision.reads_answers_whole() {
            return None;
        }
        let answer = self
            .pending
            .calls
            .iter()
            .rev()
            .find(|c| c.purpose == "action")?;
        let value: serde_json::Value = serde_json::from_str(answer.answer.trim()).ok()?;
        let action = value
            .get("action")
            .or_else(|| value.get("action_to_take"))?
            .as_str()?;
        let first = language.first_command(action)?;
        let refused =
            self.settings.remembers_refusals() && self.commands.refused_here(&first).is_some();
        (!refused).then_some(first)
    }

    /// The entity key of the room the agent is in: the game's, else the one its
    /// observations last named (empty when neither is known).
    fn room_here(&self) -> String {
        self.progress
            .here
            .clone()
            .unwrap_or_else(|| self.commands.named_room().to_string())
    }

    /// The decision's call: the profile's action prompt, its schema (the admissible
    /// list as an enum, or in free text a short string, held to the game's language's
    /// pattern under rule `game-commands`), asked again once with why an answer was
    /// refused.
    async fn ask_action(
        &mut self,
        wm: minijinja::Value,
        offered: &[String],
        revision: AgentRevision,
        speech: Speech<'_>,
    ) -> Result<Option<ActionAnswer>> {
        let admissible = offered;
        let shortcuts: Vec<&String> = offered.iter().filter(|a| a.starts_with(GO_TO)).collect();
        let reference = self.settings.reference_prompts();
        let (template, plan) = if reference {
            let plan = self.plan_shown();
            ("action_reference", minijinja::Value::from(plan))
        } else {
            ("action", minijinja::Value::from_serialize(&self.plan))
        };
        let forms = match speech {
            Speech::Admissible(Some(g)) if admissible.len() > LISTED_COMMANDS => {
                Some(Forms::of(g, admissible))
            }
            _ => None,
        };
        let messages = self.llm.prompts.render(
            template,
            context! {
                plan => plan, plan_json => plan, admissible => admissible, shortcuts => shortcuts,
                shared_prefix => revision.shares_prefix(),
                admissible_forms => forms.as_ref().map(|f| f.forms.clone()),
                admissible_things => forms.as_ref().map(|f| f.things.clone()),
                ..wm
            },
        )?;
        let free_text = speech.is_free_text();
        let mut schema = match (reference, free_text) {
            (true, true) => reference_action_schema(None),
            (true, false) => reference_action_schema(Some(admissible)),
            (false, true) => answers::free_action_schema(revision),
            (false, false) => action_schema(admissible, revision),
        };
        let language = speech.language();
        if let Some(l) = language {
            answers::hold_to_pattern(&mut schema, &l.pattern);
        }
        let here = self.room_here();
        let refusals = self.settings.remembers_refusals().then_some(&self.commands);
        let check = |a: &ActionAnswer| match match_admissible(&a.action, admissible) {
            Some(_) => Ok(()),
            None if free_text => {
                commands::free_command(&a.action, language, refusals, &here, revision).map(|_| ())
            }
            None => Err(format!(
                "\"{}\" is not one of the admissible actions",
                clip(&a.action, 100)
            )),
        };
        let ask = Ask::new("action", messages, schema, answer_tokens::ACTION);
        Ok(if reference {
            self.llm
                .ask(&mut self.pending, ask, |a: &ReferenceActionAnswer| {
                    check(&a.as_action())
                })
                .await?
                .map(|a| a.as_action())
        } else {
            self.llm.ask(&mut self.pending, ask, check).await?
        })
    }

    /// The key items of the observation and the current plan, each with its relevance
    /// (the reference's `item_processing_scores`); `None` when the call gave no usable
    /// answer or no item (the caller then searches the observation, goal and sub-goals).
    ///
    /// # Errors
    /// Transport errors.
    pub(super) async fn key_items(
        &mut self,
        step: u32,
        state: &GameState,
    ) -> Result<Option<Vec<KeyItem>>> {
        let reference = self.settings.rev().reference_prompts();
        let (template, schema) = if reference {
            ("key_items_reference", reference_key_items_schema())
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
                plan_json => self.plan_shown(),
            },
        )?;
        let answer: Option<answers::KeyItemsAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                Ask::new("key_items", messages, schema, answer_tokens::KEY_ITEMS),
                |_| Ok(()),
            )
            .await?;
        let mut items: Vec<KeyItem> = Vec::new();
        for it in answer.map(|a| a.items).unwrap_or_default() {
            // The reference lowercases them (`pipeline_arigraph.py:90`).
            let entity = if self.settings.reference_step() {
                it.entity.trim().to_lowercase()
            } else {
                it.entity.trim().to_string()
            };
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
    pub(super) async fn explore_needed(&mut self) -> Result<bool> {
        let template = if self.settings.rev().reference_prompts() {
            "explore_reference"
        } else {
            "explore"
        };
        let plan_json = self.plan_shown();
        let messages = self.llm.prompts.render(
            template,
            context! { plan => &self.plan, plan_json => plan_json },
        )?;
        let answer: Option<answers::ExploreAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                Ask::new(
                    "explore",
                    messages,
                    answers::explore_schema(),
                    answer_tokens::EXPLORE,
                ),
                |_| Ok(()),
            )
            .await?;
        // No usable answer: the reference finds no "True" in it and does not explore
        // (from agent revision 11); before, the exits were shown.
        let unusable = !self.settings.reference_step();
        Ok(answer.map_or(unusable, |a| a.explore))
    }

    /// No valid answer after the retry: take the first admissible command that differs
    /// from the last action ("look" when the list is empty).
    /// From agent revision 11 under the reference's prompts, `look`, as the reference
    /// plays for an answer it cannot read (`pipeline_arigraph.py:193-198`).
    pub(super) fn fallback(&self, admissible: &[String]) -> (String, String, ActionSource) {
        if self.settings.reference_step() {
            return (
                "look".into(),
                "no valid answer from the LLM; the reference's look".into(),
                ActionSource::Fallback,
            );
        }
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
