//! The Ariadne agent (paper section 3): working memory, planning (sub-goals with
//! reasons, revised every step), and a ReAct decision (a rationale, then exactly one
//! admissible action), with AriGraph as long-term memory.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::env::GameState;
use crate::llm::{CallLog, Llm};
use crate::memory::names::entity_key;
use crate::memory::{MemoryModule, Retrieval, Triplet, UpdateReport};
use crate::nav::{Direction, Explorer, Move, SpatialMap, UnexploredExit};
use crate::text::clip;

/// Where a step's action came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionSource {
    /// A valid answer of the action call.
    #[default]
    Llm,
    /// An answer equal to an admissible command up to case and spaces.
    Repaired,
    /// No valid answer after the retry: the fallback action.
    Fallback,
    /// A later move of a `go to` route (no LLM call).
    Route,
    /// The game's walkthrough (`play --walkthrough --memory ...`; no LLM call).
    Walkthrough,
}

impl ActionSource {
    /// The name written to files.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionSource::Llm => "llm",
            ActionSource::Repaired => "repaired",
            ActionSource::Fallback => "fallback",
            ActionSource::Route => "route",
            ActionSource::Walkthrough => "walkthrough",
        }
    }
}

/// A plan entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubGoal {
    /// What to achieve next.
    pub sub_goal: String,
    /// Why it serves the goal.
    pub reason: String,
}

/// Whether a sub-goal says anything: it has a letter (a model sampled at a temperature
/// above 0 sometimes writes "..." as a sub-goal).
fn has_words(s: &str) -> bool {
    s.chars().any(char::is_alphabetic)
}

/// Most sub-goals in a plan under revision 2.
pub const PLAN_ITEMS_COMPACT: usize = 3;

#[derive(Debug, Clone, Serialize)]
struct HistoryItem {
    step: u32,
    action: String,
    feedback: String,
    reward: i64,
    /// The observation the action was chosen on, as the reference's working memory
    /// shows it (`Game step #N`, the observation, `Inventory: ...`).
    seen: String,
}

/// What the agent decided at one step, with everything that led to it.
#[derive(Debug)]
pub struct Decision {
    /// The memory update from this step's observation.
    pub update: UpdateReport,
    /// What was retrieved.
    pub retrieval: Retrieval,
    /// The revised plan.
    pub plan: Vec<SubGoal>,
    /// Warnings shown to the planner.
    pub warnings: Vec<String>,
    /// Actions left out of the admissible list this step (a cycle was detected).
    pub blocked: Vec<String>,
    /// Sub-goals dropped from the plan as achieved.
    pub dropped: Vec<String>,
    /// The decision's rationale.
    pub rationale: String,
    /// The action, one of the admissible commands.
    pub action: String,
    /// Where the action came from.
    pub action_source: ActionSource,
    /// Unexplored exits shown in working memory.
    pub unexplored: Vec<UnexploredExit>,
    /// Rooms offered as `go to <room>`.
    pub go_to_targets: Vec<String>,
    /// Retrieval under the what-if settings, when asked for.
    pub what_if: Option<Retrieval>,
    /// The step's LLM activity.
    pub log: CallLog,
    /// Time spent in this call, milliseconds.
    pub elapsed_ms: u64,
}

/// The Ariadne agent for one episode.
pub struct Agent {
    llm: Llm,
    /// Long-term memory (AriGraph or a baseline).
    pub memory: Box<dyn MemoryModule>,
    /// Current plan.
    pub plan: Vec<SubGoal>,
    goal: String,
    settings: AgentSettings,
    history: VecDeque<HistoryItem>,
    actions: Vec<String>,
    last_gain_step: u32,
    /// Rooms visited and exits taken.
    pub explorer: Explorer,
    /// Also compute retrieval with these settings each step (replay's what-if), from the
    /// same cached vectors and graph; the result goes to [`Decision::what_if`].
    pub what_if: Option<crate::memory::MemorySettings>,
    /// The LLM activity of the step in progress: kept here, not in the step's future, so
    /// that the calls of a step that fails or is interrupted are still counted.
    pending: CallLog,
    /// What the extended profile's agent rules remember across steps.
    progress: progress::Progress,
    /// The planner's main goal and emotion from its last answer under the reference's
    /// prompts (shown back with the plan as the reference shows its `plan0`).
    plan_header: Option<PlanHeader>,
    /// The planner's last answer as text, when it could not be read as a plan: the
    /// reference shows it back as the plan (agent revision 11).
    plan_text: Option<String>,
    /// The observation of the step being decided, as the reference shows it.
    seen: String,
    /// A Cooking game under agent revision 9: its `cook` commands are offered as the
    /// reference offers them (`agent/cooking.rs`).
    pub cooking_verbs: bool,
    /// The commands the game accepted and refused (rules `game-commands`,
    /// `remembered-refusals`).
    commands: commands::GameCommands,
}

/// The fields of the reference planner's answer besides its steps.
#[derive(Debug, Clone)]
struct PlanHeader {
    main_goal: String,
    emotion: serde_json::Value,
}

/// Longest text of the latest note read shown in working memory, characters.
pub const NOTE_CHARS: usize = 800;

/// What the action guards left of a step's admissible list ([`Agent::filter_actions`]).
struct Filtered {
    /// The actions offered to the decision.
    offered: Vec<String>,
    /// The actions left out (as the step records them).
    blocked: Vec<String>,
    /// One warning per guard that left something out, with its reason.
    warnings: Vec<String>,
}

pub use crate::nav::GO_TO;

mod answers;
mod calls;
pub mod commands;
mod cooking;
mod guards;
mod observe;
pub mod progress;
mod reference;
mod settings;
mod step;

pub use settings::{
    AgentRevision, AgentSettings, PAPER_HISTORY, REPEAT_WARNING, REVISION, SHORT_HISTORY,
    SHORT_HISTORY_CHARS,
};

pub use answers::match_admissible;
pub(crate) use answers::{KeyItemsAnswer, key_items_schema_up_to};

impl Agent {
    /// A fresh agent for an episode with this goal.
    pub fn new(
        llm: Llm,
        memory: Box<dyn MemoryModule>,
        goal: String,
        settings: AgentSettings,
    ) -> Self {
        Self {
            llm,
            memory,
            plan: Vec::new(),
            goal,
            settings,
            history: VecDeque::new(),
            actions: Vec::new(),
            last_gain_step: 0,
            progress: progress::Progress::default(),
            plan_header: None,
            plan_text: None,
            seen: String::new(),
            cooking_verbs: false,
            commands: commands::GameCommands::default(),
            explorer: Explorer::default(),
            what_if: None,
            pending: CallLog::default(),
        }
    }

    /// The LLM activity of a step that did not finish (an error or an interrupt),
    /// taken out so the summary can count its calls, failures and tokens.
    pub fn take_unfinished(&mut self) -> CallLog {
        std::mem::take(&mut self.pending)
    }

    /// The episode's goal.
    pub fn goal(&self) -> &str {
        &self.goal
    }

    /// The spatial map as the graph holds it now.
    pub fn spatial_map(&self) -> SpatialMap {
        self.explorer.map(self.memory.graph())
    }

    /// The route of a `go to` from `from` (a room name as the game shows it).
    pub fn route(&self, from: &str, target: &str) -> Option<Vec<Move>> {
        self.explorer.route(self.memory.graph(), from, target)
    }

    /// Record a movement command's result in the graph (see [`Explorer::record_move`]).
    pub fn record_move(
        &mut self,
        from: &str,
        dir: Direction,
        to: &str,
        expected: Option<&str>,
    ) -> (Vec<Triplet>, Vec<Triplet>) {
        self.explorer
            .record_move(self.memory.graph_mut(), from, dir, to, expected)
    }

    /// Tell the agent what its last action did (feeds recent history and loop detection).
    /// `command` is what was sent to the game (a move of a `go to` route, or the action
    /// itself); loops are detected on commands, so "go to kitchen" and "go south" from
    /// the same room are one move.
    ///
    /// From agent revision 11 `step` numbers the decision: the later moves of a `go to`
    /// route (the same step again) update its one history entry with the game's last
    /// answer, as the reference keeps one entry per decision (`pipeline_arigraph.py:117-119`).
    pub fn observe_result(&mut self, step: u32, action: &str, command: &str, after: &GameState) {
        let feedback = if self.settings.feedback_chars == 0 {
            after.observation.clone()
        } else {
            clip(&after.observation, self.settings.feedback_chars)
        };
        let continued = self
            .history
            .back_mut()
            .filter(|h| self.settings.rev().counts_decisions() && h.step == step);
        if let Some(entry) = continued {
            entry.feedback = feedback;
            entry.reward += after.reward;
        } else {
            self.memory.observe_result(step, action, &after.observation);
            self.history.push_back(HistoryItem {
                step,
                action: action.to_string(),
                feedback,
                reward: after.reward,
                seen: self.seen.clone(),
            });
        }
        while self.history.len() > self.settings.history {
            self.history.pop_front();
        }
        self.actions.push(action.to_string());
        let sent = if command.is_empty() || !self.settings.rev().shares_prefix() {
            action
        } else {
            command
        };
        if self.settings.speaks_game_language() || self.settings.remembers_refusals() {
            self.commands.observe(sent, &after.observation);
        }
        self.progress
            .answers
            .push((sent.to_string(), after.observation.clone()));
        let from = self.progress.here.clone().unwrap_or_default();
        let to = after
            .room
            .as_deref()
            .map(entity_key)
            .unwrap_or(from.clone());
        self.progress.roaming.after_command(&progress::Sent {
            command: sent,
            from: &from,
            to: &to,
            reward: after.reward,
            feedback: &after.observation,
        });
        self.progress.sent_from.push(from);
        if let Some(room) = &after.room {
            self.progress.here = Some(entity_key(room));
        }
        if after.reward != 0 {
            self.last_gain_step = step;
        }
        if self.settings.show_note && progress::document_read(action, &after.observation) {
            self.progress.note = Some((step, action.to_string(), after.observation.clone()));
        }
    }

    /// Warnings about loops and stalls for the planner (small models at temperature 0
    /// repeat the same command).
    pub fn warnings(&self, step: u32) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(last) = self.actions.last() {
            let run = self.actions.iter().rev().take_while(|a| *a == last).count();
            if self.settings.repeat_warning > 0 && run >= self.settings.repeat_warning {
                out.push(format!(
                    "the last {run} actions were all \"{last}\" and they did not help; choose a different action"
                ));
            }
        }
        let stalled = step.saturating_sub(self.last_gain_step + 1);
        if self.settings.show_score && stalled as usize >= self.settings.stall_warning {
            out.push(format!(
                "no score gained in the last {stalled} steps; revise the plan, explore rooms and exits not yet visited"
            ));
        }
        out
    }

    /// Follow `rules` from now on (a profile handed over to mid-run): the agent's
    /// settings, its memory's and its explorer's.
    pub fn hand_over(&mut self, rules: &crate::profile::Rules) {
        self.settings.follow(rules);
        self.memory.hand_over(rules);
        self.explorer.hand_over(rules);
        self.explorer
            .route_as_reference(self.settings.reference_routes());
    }
}
