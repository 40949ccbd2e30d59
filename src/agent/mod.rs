//! The Ariadne agent (paper section 3): working memory, planning (sub-goals with
//! reasons, revised every step), and a ReAct decision (a rationale, then exactly one
//! admissible action), with AriGraph as long-term memory.

use std::collections::VecDeque;
use std::time::Instant;

use anyhow::Result;
use minijinja::context;
use serde::{Deserialize, Serialize};

use crate::env::GameState;
use crate::llm::prompts::clip;
use crate::llm::{CallLog, Llm};
use crate::memory::names::entity_key;
use crate::memory::{KeyItem, MemoryModule, Queries, Retrieval, Triplet, UpdateReport};
use crate::nav::{Direction, Explorer, Move, SpatialMap, UnexploredExit};

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

/// Agent parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AgentSettings {
    /// Recent steps shown in working memory.
    pub history: usize,
    /// Longest feedback text per recent step, characters (0: whole).
    pub feedback_chars: usize,
    /// Same action this many times in a row triggers a warning (0: no warning).
    pub repeat_warning: usize,
    /// This many steps without a score change trigger a warning.
    pub stall_warning: usize,
    /// Show unexplored exits in working memory (off: the paper's "w/o exploration").
    pub exploration: bool,
    /// Offer `go to <room>` for known reachable rooms.
    pub go_to: bool,
    /// Show the score in working memory and warn after steps without score (a departure:
    /// paper section 2 keeps rewards hidden from the LLM). Runs recorded before this
    /// setting showed it.
    #[serde(default = "shown")]
    pub show_score: bool,
    /// Drop sub-goals the last action achieved and flag one stuck first (see
    /// [`progress`]; a departure, off in runs recorded before it existed).
    #[serde(default)]
    pub plan_progress: bool,
    /// Leave the actions of a detected cycle out of the admissible list for a few steps
    /// (see [`progress`]; a departure, off in runs recorded before it existed).
    #[serde(default)]
    pub loop_breaking: bool,
    /// Keep the text of the latest note, recipe or book read in working memory (see
    /// [`progress::document_read`]; a departure, off in runs recorded before it existed).
    #[serde(default)]
    pub show_note: bool,
    /// The revision of the agent's prompts, loop detection, plan progress and plan checks
    /// ([`REVISION`] for new runs). 1 (runs recorded before this setting): each module
    /// has a system prompt of its own; cycles are detected on the chosen actions. 2: one
    /// system prompt for both modules, the
    /// working memory (past observations first) before each call's own part, so the
    /// action call reuses the plan call's cached prompt; compact answers (at most
    /// [`PLAN_ITEMS_COMPACT`] sub-goals with short reasons, a one-sentence rationale);
    /// cycles detected on the commands sent and blocked in the room they were sent from.
    /// 3: a cycle detected again is blocked for twice as long as the time before (3, 6,
    /// then 12 steps). 4: right after a command succeeded, the action that would put back
    /// exactly what it did is left out for one step ([`progress::reverses`]). 5: after
    /// [`progress::WANDER_DECISIONS`] decisions that walked into rooms already visited with
    /// nothing done in between, moves back into known rooms are left out until the agent
    /// acts (at most [`progress::HOLD_DECISIONS`] decisions); only moves towards
    /// unexplored exits stay ([`progress::Walk`]); a "find X" sub-goal is done once X is
    /// carried ([`progress::achieved`]). 6: a sub-goal to be in a room ("go to the
    /// bedroom") is done once the agent is there ([`progress::arrived`]). 7: a sub-goal
    /// without a letter ("...") is dropped from the planner's answer (counted as a
    /// repair), and an answer with no other sub-goal is rejected and asked again, with
    /// or without plan progress. 8: the room rule of 6 applies only at the front of the
    /// plan ("return to the kitchen" after "take the tomato" is a later visit) and never
    /// to a direction.
    #[serde(default = "first_revision")]
    pub revision: u32,
    /// A `go to` route counts as one step against the step cap, as in the reference code
    /// (`pipeline_arigraph.py` runs the route inside one step); each move is still logged
    /// as a step record. Off in runs recorded before it: every move counted.
    #[serde(default)]
    pub route_one_step: bool,
    /// Retrieval queries are the key items the LLM names in the observation and plan,
    /// each searched to the depth of its relevance (1-2), as in the reference code
    /// (`agents/parent_agent.py`, `item_processing_scores`); a failed call falls back to
    /// the observation, goal and sub-goals. Off in runs recorded before it: those
    /// queries at depth d.
    #[serde(default)]
    pub key_items: bool,
    /// Unexplored exits are shown only when the LLM says the previous plan needs
    /// exploration, as in the reference code (`if_exp_prompt`, asked every step); off
    /// in runs recorded before it: shown every step.
    #[serde(default)]
    pub explore_check: bool,
}

/// Recent steps in working memory under the paper's profile (the reference code's
/// `n_prev = 5`), each observation whole.
pub const PAPER_HISTORY: usize = 5;
/// Recent steps in working memory under the rule `short-history`.
pub const SHORT_HISTORY: usize = 4;
/// Longest observation of a recent step under the rule `short-history`, characters.
pub const SHORT_HISTORY_CHARS: usize = 300;
/// Same action this many times in a row triggers a warning (rule `repeat-warning`).
pub const REPEAT_WARNING: usize = 3;

impl AgentSettings {
    /// The revision as its typed enum (checked when the settings were loaded; an
    /// unknown number reads as the current revision).
    pub fn rev(&self) -> AgentRevision {
        AgentRevision::from_number(self.revision).unwrap_or(AgentRevision::CURRENT)
    }

    /// The settings a run of agent revision `revision` recorded before profiles existed
    /// reads as (its manifest's fields; those added since take their defaults for old
    /// runs): for recording the replay fixtures of older revisions.
    ///
    /// # Errors
    /// A revision this build does not know.
    pub fn legacy(revision: u32) -> Result<Self, String> {
        AgentRevision::from_number(revision)?;
        serde_json::from_value(serde_json::json!({
            "history": 4, "feedback_chars": 300, "repeat_warning": 3, "stall_warning": 10,
            "exploration": true, "go_to": true, "show_score": false,
            "plan_progress": true, "loop_breaking": true, "show_note": true,
            "revision": revision
        }))
        .map_err(|e| e.to_string())
    }

    /// The agent settings of a profile's resolved rules (the switches `exploration`,
    /// `go_to` and `show_score` as the paper has them: on, on, off).
    pub fn with_rules(rules: &crate::profile::Rules) -> Self {
        let mut settings = Self::default();
        crate::profile::apply_agent(rules, &mut settings);
        settings
    }
}

/// The current revision of the agent (see [`AgentSettings::revision`]).
pub const REVISION: u32 = 8;

/// An agent revision ([`AgentSettings::revision`]), checked once when a manifest is
/// read: a number this build does not know is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AgentRevision {
    /// A system prompt per module; cycles detected on the actions chosen.
    R1,
    /// The shared prompt prefix, compact answers, cycles on the commands sent.
    R2,
    /// A cycle that comes back is blocked longer (3, 6, 12 steps).
    R3,
    /// The exact reversal of the last accepted command is left out for one step.
    R4,
    /// Walks back into visited rooms are held; "find X" is done once X is carried.
    R5,
    /// "go to X" is done once the agent is in X.
    R6,
    /// Placeholder sub-goals ("...") are dropped as a repair.
    R7,
    /// The room rule of 6 only at the front of the plan, never for a direction.
    R8,
}

impl AgentRevision {
    /// The revision new runs record.
    pub const CURRENT: AgentRevision = AgentRevision::R8;

    /// One system prompt for the plan and action calls with the working memory first
    /// (the action call reuses the plan call's cached prompt), compact answers, cycles
    /// detected on the commands sent and blocked in the room they were sent from, a
    /// `go to` blocked with the first move of its route (from 2).
    pub fn shares_prefix(self) -> bool {
        self >= Self::R2
    }
    /// A cycle detected again is blocked longer: 3, 6, then 12 steps (from 3).
    pub fn blocks_longer(self) -> bool {
        self >= Self::R3
    }
    /// The exact reversal of the last accepted command is left out for one step
    /// (from 4).
    pub fn leaves_out_reversals(self) -> bool {
        self >= Self::R4
    }
    /// Walks back into visited rooms are held, and "find X" is done once X is carried
    /// (from 5).
    pub fn holds_walks(self) -> bool {
        self >= Self::R5
    }
    /// A sub-goal to be in a room is done once the agent is there (from 6).
    pub fn settles_arrivals(self) -> bool {
        self >= Self::R6
    }
    /// A sub-goal without a letter is dropped as a repair (from 7).
    pub fn drops_placeholders(self) -> bool {
        self >= Self::R7
    }
    /// The room rule of 6 applies only at the front of the plan and never to a
    /// direction (from 8).
    pub fn arrivals_at_front_only(self) -> bool {
        self >= Self::R8
    }

    /// The revision of a recorded number.
    ///
    /// # Errors
    /// A number this build does not know, in one line naming the revisions it knows.
    pub fn from_number(n: u32) -> Result<Self, String> {
        use AgentRevision::*;
        [R1, R2, R3, R4, R5, R6, R7, R8]
            .get((n as usize).wrapping_sub(1))
            .copied()
            .ok_or_else(|| {
                format!(
                    "agent revision {n} is unknown to this build of Ariadne, which knows revisions 1 to {REVISION}; replay it with the build that recorded it"
                )
            })
    }
}

/// Whether a sub-goal says anything: it has a letter (a model sampled at a temperature
/// above 0 sometimes writes "..." as a sub-goal).
fn has_words(s: &str) -> bool {
    s.chars().any(char::is_alphabetic)
}

/// Most sub-goals in a plan under revision 2.
pub const PLAN_ITEMS_COMPACT: usize = 3;

fn shown() -> bool {
    true
}

fn first_revision() -> u32 {
    1
}

/// The paper's agent: no rule of the extended profile (see [`AgentSettings::with_rules`]).
impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            history: PAPER_HISTORY,
            feedback_chars: 0,
            repeat_warning: 0,
            stall_warning: 10,
            exploration: true,
            go_to: true,
            show_score: false,
            plan_progress: false,
            loop_breaking: false,
            show_note: false,
            revision: REVISION,
            route_one_step: true,
            key_items: true,
            explore_check: true,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
struct HistoryItem {
    step: u32,
    action: String,
    feedback: String,
    reward: i64,
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
    /// Every command sent with the game's answer to it, in order.
    answers: Vec<(String, String)>,
    /// The room (its entity key) each command of `answers` was sent from.
    sent_from: Vec<String>,
    /// The room (its entity key) the agent is in after the last command.
    here: Option<String>,
    /// Commands left out of the admissible list in a room (with the `go to` actions whose
    /// route starts with them): (room key, command, the last step they stay out).
    blocked: Vec<(String, String, u32)>,
    /// How many times each (room key, command) has been blocked (revision 3 blocks a
    /// cycle that comes back for longer each time).
    block_counts: std::collections::HashMap<(String, String), u32>,
    /// The first sub-goal (its gist) and the step it became first.
    first_goal: Option<(String, u32)>,
    /// The latest note, recipe or book read: (step, action, the game's text).
    note: Option<(u32, String, String)>,
    /// Walks, rooms and exits for revision 5's hold ([`progress::Roaming`]).
    roaming: progress::Roaming,
}

/// Longest text of the latest note read shown in working memory, characters.
pub const NOTE_CHARS: usize = 800;

/// The prefix of the navigation action.
pub const GO_TO: &str = "go to ";

mod answers;
mod observe;
pub mod progress;

pub use answers::match_admissible;
use answers::{ActionAnswer, PlanAnswer, action_schema, plan_schema};

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
            answers: Vec::new(),
            sent_from: Vec::new(),
            here: None,
            blocked: Vec::new(),
            block_counts: std::collections::HashMap::new(),
            first_goal: None,
            note: None,
            roaming: progress::Roaming::default(),
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
    pub fn observe_result(&mut self, step: u32, action: &str, command: &str, after: &GameState) {
        self.memory.observe_result(step, action, &after.observation);
        self.history.push_back(HistoryItem {
            step,
            action: action.to_string(),
            feedback: if self.settings.feedback_chars == 0 {
                after.observation.clone()
            } else {
                clip(&after.observation, self.settings.feedback_chars)
            },
            reward: after.reward,
        });
        while self.history.len() > self.settings.history {
            self.history.pop_front();
        }
        self.actions.push(action.to_string());
        let sent = if command.is_empty() || !self.settings.rev().shares_prefix() {
            action
        } else {
            command
        };
        self.answers
            .push((sent.to_string(), after.observation.clone()));
        let from = self.here.clone().unwrap_or_default();
        let to = after
            .room
            .as_deref()
            .map(entity_key)
            .unwrap_or(from.clone());
        self.roaming
            .after_command(sent, &from, &to, after.reward, &after.observation);
        self.sent_from.push(from);
        if let Some(room) = &after.room {
            self.here = Some(entity_key(room));
        }
        if after.reward != 0 {
            self.last_gain_step = step;
        }
        if self.settings.show_note && progress::document_read(action, &after.observation) {
            self.note = Some((step, action.to_string(), after.observation.clone()));
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
        let unexplored = if explore {
            map.unexplored(self.explorer.explored())
        } else {
            Vec::new()
        };
        let go_to_targets = if self.settings.go_to && state.room.is_some() {
            self.explorer.go_to_targets(&map, &here)
        } else {
            Vec::new()
        };
        let exits: Vec<String> = unexplored
            .iter()
            .map(|u| format!("{}: {}", u.room, u.direction.as_str()))
            .collect();

        // Queries: the observation, the goal, and each sub-goal of the current plan.
        // Under the paper's profile: the key items the LLM names, each at its relevance.
        let sub_goals: Vec<String> = self.plan.iter().map(|p| p.sub_goal.clone()).collect();
        let items = if self.settings.key_items && self.memory.graph().is_some() {
            self.key_items(state).await?
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
        let mut offered = state.admissible_commands.clone();
        offered.extend(go_to_targets.iter().map(|r| format!("{GO_TO}{r}")));
        let blocked_commands = self.blocked_now(step, &here);
        let by_route = self.settings.rev().shares_prefix();
        // A `go to` is routed (an A* search) only when some command is blocked.
        let route_check = by_route && !blocked_commands.is_empty();
        let reversals = self.reversals_now(&here, &offered);
        let mut blocked: Vec<String> = offered
            .iter()
            .filter(|a| {
                blocked_commands.contains(a)
                    || reversals.contains(a)
                    || route_check
                        && a.strip_prefix(GO_TO).is_some_and(|target| {
                            self.route(&room, target)
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
                .frontier(&map, self.explorer.explored(), self.explorer.visited())
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
            progress::held_while_wandering(&here, &map, &frontier, &available, arrived)
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

        let history: Vec<&HistoryItem> = self.history.iter().collect();
        let facts: Vec<&str> = retrieval
            .triplets
            .iter()
            .map(|t| t.triplet.as_str())
            .collect();
        let note = self.note.as_ref().map(|(step, action, text)| {
            context! { step => step, action => action, text => clip(text, NOTE_CHARS) }
        });
        let wm = context! {
            goal => &self.goal,
            note => note,
            facts => facts,
            episodes => &retrieval.episodes,
            notes => &retrieval.notes,
            theses => &retrieval.theses,
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
        let revision = self.settings.rev();
        let layout = self.settings.revision;
        let plan_items = if revision.shares_prefix() {
            PLAN_ITEMS_COMPACT
        } else {
            crate::llm::bounds::PLAN_ITEMS
        };
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

        let mut dropped = dropped;
        dropped.extend(self.drop_achieved(state));
        let admissible = &offered;
        let messages = self.llm.prompts.render(
            "action",
            context! { plan => &self.plan, admissible => admissible, layout => layout, ..wm },
        )?;
        let answer: Option<ActionAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                "action",
                messages,
                action_schema(admissible, revision),
                250,
                |a: &ActionAnswer| match match_admissible(&a.action, admissible) {
                    Some(_) => Ok(()),
                    None => Err(format!(
                        "\"{}\" is not one of the admissible actions",
                        clip(&a.action, 100)
                    )),
                },
            )
            .await?;
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

    /// Follow `rules` from now on (a profile handed over to mid-run): the agent's
    /// settings, its memory's and its explorer's.
    pub fn hand_over(&mut self, rules: &crate::profile::Rules) {
        crate::profile::apply_agent(rules, &mut self.settings);
        self.memory.hand_over(rules);
        self.explorer.hand_over(rules);
    }

    /// The key items of the observation and the current plan, each with its relevance
    /// (the reference's `item_processing_scores`); `None` when the call gave no usable
    /// answer or no item (the caller then searches the observation, goal and sub-goals).
    ///
    /// # Errors
    /// Transport errors.
    async fn key_items(&mut self, state: &GameState) -> Result<Option<Vec<KeyItem>>> {
        let messages = self.llm.prompts.render(
            "key_items",
            context! {
                observation => &state.observation,
                inventory => &state.inventory,
                goal => &self.goal,
                plan => &self.plan,
            },
        )?;
        let answer: Option<answers::KeyItemsAnswer> = self
            .llm
            .ask(
                &mut self.pending,
                "key_items",
                messages,
                answers::key_items_schema(),
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
        let messages = self
            .llm
            .prompts
            .render("explore", context! { plan => &self.plan })?;
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
