//! One step of the agent's loop (paper section 3): update the memory, retrieve, filter
//! the admissible actions through the guards, plan, act.

use std::time::Instant;

use anyhow::Result;
use minijinja::context;

use super::commands::{self, Language, Speech};
use super::{Agent, Decision, HistoryItem, NOTE_CHARS, PLAN_ITEMS_COMPACT};
use super::{cooking, reference};
use crate::env::{CommandGrammar, GameState};
use crate::llm::CallLog;
use crate::memory::names::entity_key;
use crate::memory::{Queries, Retrieval};
use crate::nav::{SpatialMap, UnexploredExit};
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
        let as_seen = self.as_seen(state);
        let state = as_seen.as_ref();
        let update = self.remember(step, state, last_action).await?;
        let around = self.surroundings(state).await?;
        let (retrieval, what_if) = self.retrieve_for(step, state).await?;
        let mut warnings = self.warnings(step);
        let mut dropped = self.drop_achieved(state);
        if let Some(w) = self.stuck_warning(step) {
            warnings.push(w);
        }
        let filtered = self.filter_actions(step, state, &around);
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
        let language = self.language(state, free_text, &around);
        let seen = Seen {
            step,
            state,
            around: &around,
            retrieval: &retrieval,
            warnings: &warnings,
            free_text,
            language: language.as_ref(),
        };
        let wm = if self.settings.reference_prompts() {
            self.reference_working_memory(&seen)
        } else {
            self.compact_working_memory(&seen)
        };
        let revision = self.settings.rev();
        let speech = self.speech(state, free_text, language.as_ref());
        self.revise_any_plan(&wm).await?;
        dropped.extend(self.drop_achieved(state));
        let (action, rationale, source) =
            self.choose_action(wm, &offered, revision, speech).await?;
        let action = match &cooking {
            Some(pairs) => cooking::as_sent(&action, pairs),
            None => action,
        };
        let Surroundings {
            unexplored,
            go_to_targets,
            ..
        } = around;
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

    /// The language a free-text command is written in this step (rule `game-commands`:
    /// the game family's, an unknown family's commands as a story's), after noting where
    /// the agent is for the refusals it remembers.
    fn language(
        &mut self,
        state: &GameState,
        free_text: bool,
        around: &Surroundings,
    ) -> Option<Language> {
        if self.settings.speaks_game_language() || self.settings.remembers_refusals() {
            self.commands.set_place(
                state.room.as_deref(),
                &state.inventory,
                state.score,
                &state.observation,
            );
        }
        let targets: Vec<String> = around
            .go_to_targets
            .iter()
            .filter(|t| entity_key(t) != around.here)
            .cloned()
            .collect();
        (free_text && self.settings.speaks_game_language()).then(|| {
            let grammar = state.grammar.unwrap_or(CommandGrammar::InteractiveFiction);
            Language::new(grammar, &targets, &state.observation)
        })
    }

    /// The room working memory names: the game's, or under rule `game-commands` the
    /// one its observations last named when its states name none (a harness's game).
    fn shown_room<'a>(&'a self, state: &GameState, room: &'a str) -> &'a str {
        let named = self.commands.named_room();
        if state.room.is_none() && self.settings.speaks_game_language() && !named.is_empty() {
            named
        } else {
            room
        }
    }

    /// How this step's command is written: free text (in `language` when there is one),
    /// or one of the admissible commands (shown as the game's forms when the list is
    /// long, under rule `game-commands`).
    fn speech<'a>(
        &self,
        state: &GameState,
        free_text: bool,
        language: Option<&'a Language>,
    ) -> Speech<'a> {
        if free_text {
            Speech::FreeText(language)
        } else {
            let grammar = state
                .grammar
                .filter(|_| self.settings.speaks_game_language());
            Speech::Admissible(grammar)
        }
    }

    /// What working memory shows of the game's language and refusals (rules
    /// `game-commands`, `remembered-refusals`), or nothing.
    fn commands_shown(&self, language: Option<&Language>) -> Option<commands::Shown> {
        let refusals = self.settings.remembers_refusals();
        if language.is_none() && !refusals {
            return None;
        }
        Some(commands::Shown::new(language, &self.commands, refusals))
    }

    /// Revise the plan with the profile's planning call: the reference's, or Ariadne's
    /// compact one with its bound on sub-goals.
    async fn revise_any_plan(&mut self, wm: &minijinja::Value) -> Result<()> {
        let revision = self.settings.rev();
        if self.settings.reference_prompts() {
            return self.revise_reference_plan(wm).await;
        }
        let plan_items = if revision.shares_prefix() {
            PLAN_ITEMS_COMPACT
        } else {
            crate::llm::bounds::PLAN_ITEMS
        };
        self.revise_plan(wm, revision, plan_items).await
    }

    /// Where the agent is and what it can reach this step ([`Surroundings`]); asks the
    /// reference's exploration question when the profile does.
    async fn surroundings(&mut self, state: &GameState) -> Result<Surroundings> {
        let room = state.room.clone().unwrap_or_else(|| "unknown".into());
        let here = entity_key(&room);
        if state.room.is_some() {
            self.progress.here = Some(here.clone());
        }
        let hold_due = self.progress.roaming.decide(
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
            match self.memory.graph() {
                Some(graph) if self.settings.reference_step() => {
                    crate::nav::exits::unexplored(graph, self.explorer.visited())
                }
                _ => map.unexplored(self.explorer.explored()),
            }
        } else {
            Vec::new()
        };
        // Only a design with a graph has a map to route over (the reference's baselines
        // offer no `go to`).
        let routable = self.memory.graph().is_some() && state.room.is_some() && !state.skills;
        let go_to_targets = if self.settings.go_to && routable {
            self.explorer.go_to_targets(&map, &here)
        } else {
            Vec::new()
        };
        let exits: Vec<String> = match (state.skills, explore) {
            (true, true) => state.unexplored.clone(),
            (true, false) => Vec::new(),
            (false, _) => unexplored
                .iter()
                .map(|u| format!("{}: {}", u.room, u.direction.as_str()))
                .collect(),
        };
        Ok(Surroundings {
            room,
            here,
            hold_due,
            map,
            explore,
            unexplored,
            go_to_targets,
            exits,
        })
    }

    /// The retrieval of this step and, with a what-if setting, the other retrieval.
    /// Queries: the observation, the goal, and each sub-goal of the current plan; under
    /// the paper's profile, the key items the LLM names, each at its relevance.
    async fn retrieve_for(
        &mut self,
        step: u32,
        state: &GameState,
    ) -> Result<(Retrieval, Option<Retrieval>)> {
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
        Ok((retrieval, what_if))
    }

    /// The working memory as the reference lays it out (`pipeline_arigraph.py` and
    /// the other pipelines), with Ariadne's extras where the profile adds them.
    fn reference_working_memory(&self, seen: &Seen<'_>) -> minijinja::Value {
        let (state, around) = (seen.state, seen.around);
        let reported = state.skills.then_some(around.exits.as_slice());
        let exits = reference::exits_text(
            self.explorer.visited(),
            &around.unexplored,
            reported,
            self.settings.reference_step(),
        );
        let note = self.progress.note.as_ref().map(|(step, action, text)| {
            format!(
                "Latest note read (step {step}, \"{action}\"): {}",
                clip(text, NOTE_CHARS)
            )
        });
        let shown = self.commands_shown(seen.language);
        let note = match (note, shown.as_ref().map(commands::Shown::text)) {
            (Some(n), Some(c)) => Some(format!("{n}\n\n{c}")),
            (n, c) => n.or(c),
        };
        let extras = reference::extras(seen.retrieval, note, seen.warnings);
        let reference = self.reference_memory(seen.retrieval, exits, around.explore, extras);
        context! {
            free_text => seen.free_text,
            show_score => self.settings.show_score,
            score => state.score,
            max_score => state.max_score,
            ..reference
        }
    }

    /// Ariadne's compact working memory (`prompts/working_memory.md`).
    fn compact_working_memory(&self, seen: &Seen<'_>) -> minijinja::Value {
        let (state, around, retrieval) = (seen.state, seen.around, seen.retrieval);
        let history: Vec<&HistoryItem> = self.history.iter().collect();
        let facts: Vec<&str> = retrieval
            .triplets
            .iter()
            .map(|t| t.triplet.as_str())
            .collect();
        let note = self.progress.note.as_ref().map(|(step, action, text)| {
            context! { step => step, action => action, text => clip(text, NOTE_CHARS) }
        });
        context! {
            free_text => seen.free_text,
            commands => self.commands_shown(seen.language).map(|s| s.text()),
            game_language => seen.language.is_some(),
            goal => &self.goal,
            note => note,
            facts => facts,
            episodes => &retrieval.episodes,
            notes => &retrieval.notes,
            theses => &retrieval.theses,
            changes => &retrieval.changes,
            paths => &retrieval.paths,
            history => history,
            warnings => seen.warnings,
            step => seen.step,
            show_score => self.settings.show_score,
            score => state.score,
            max_score => state.max_score,
            room => self.shown_room(state, &around.room),
            inventory => clip(&state.inventory, 400),
            observation => &state.observation,
            unexplored => &around.exits,
            go_to_targets => &around.go_to_targets,
        }
    }
}

/// Where the agent is this step and what it can reach.
pub(super) struct Surroundings {
    /// The room as the game names it (`unknown` without one).
    pub room: String,
    /// Its entity key.
    pub here: String,
    /// Whether the hold on walks back into visited rooms is due (rule `loop-breaking`).
    pub hold_due: bool,
    /// The spatial map the graph holds.
    pub map: SpatialMap,
    /// Whether this step explores (the reference's question, or always).
    pub explore: bool,
    /// The exits not yet explored, from the map.
    pub unexplored: Vec<UnexploredExit>,
    /// The rooms a `go to` reaches.
    pub go_to_targets: Vec<String>,
    /// The unexplored exits as shown (`room: direction`, or as the game reports them).
    pub exits: Vec<String>,
}

/// What the working memory of a step is built from.
struct Seen<'a> {
    step: u32,
    state: &'a GameState,
    around: &'a Surroundings,
    retrieval: &'a Retrieval,
    warnings: &'a [String],
    free_text: bool,
    language: Option<&'a Language>,
}
