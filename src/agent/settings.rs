//! The agent's settings as a run records them ([`AgentSettings`], in the manifest) and
//! the agent revisions ([`AgentRevision`]): which behaviour of the extended profile's
//! loop breaking and plan progress a run recorded under an older revision replays with.

use serde::{Deserialize, Serialize};

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
    /// `agent::progress`; a departure, off in runs recorded before it existed).
    #[serde(default)]
    pub plan_progress: bool,
    /// Leave the actions of a detected cycle out of the admissible list for a few steps
    /// (see `agent::progress`; a departure, off in runs recorded before it existed).
    #[serde(default)]
    pub loop_breaking: bool,
    /// Keep the text of the latest note, recipe or book read in working memory (see
    /// [`super::progress::document_read`]; a departure, off in runs recorded before it existed).
    #[serde(default)]
    pub show_note: bool,
    /// The revision of the agent's prompts, loop detection, plan progress and plan checks
    /// ([`REVISION`] for new runs). 1 (runs recorded before this setting): each module
    /// has a system prompt of its own; cycles are detected on the chosen actions. 2: one
    /// system prompt for both modules, the
    /// working memory (past observations first) before each call's own part, so the
    /// action call reuses the plan call's cached prompt; compact answers (at most
    /// [`super::PLAN_ITEMS_COMPACT`] sub-goals with short reasons, a one-sentence rationale);
    /// cycles detected on the commands sent and blocked in the room they were sent from.
    /// 3: a cycle detected again is blocked for twice as long as the time before (3, 6,
    /// then 12 steps). 4: right after a command succeeded, the action that would put back
    /// exactly what it did is left out for one step ([`super::progress::reverses`]). 5: after
    /// [`super::progress::WANDER_DECISIONS`] decisions that walked into rooms already visited with
    /// nothing done in between, moves back into known rooms are left out until the agent
    /// acts (at most [`super::progress::HOLD_DECISIONS`] decisions); only moves towards
    /// unexplored exits stay ([`super::progress::Walk`]); a "find X" sub-goal is done once X is
    /// carried ([`super::progress::achieved`]). 6: a sub-goal to be in a room ("go to the
    /// bedroom") is done once the agent is there ([`super::progress::arrived`]). 7: a sub-goal
    /// without a letter ("...") is dropped from the planner's answer (counted as a
    /// repair), and an answer with no other sub-goal is rejected and asked again, with
    /// or without plan progress. 8: the room rule of 6 applies only at the front of the
    /// plan ("return to the kitchen" after "take the tomato" is a later visit) and never
    /// to a direction. 9: the plan, action, key-item and exploration calls carry the
    /// reference's prompts and answer fields, unless rule `compact-prompts` keeps the
    /// compact plan and action prompts of 2-8 ([`AgentSettings::reference_prompts`]).
    /// 10: rules `game-commands` and `remembered-refusals` take effect
    /// ([`AgentSettings::speaks_game_language`], [`AgentSettings::remembers_refusals`]).
    /// 11: the agent's steps count decisions (a `go to` route is one, its moves one
    /// entry of the recent history), and without rule `checked-routes` a route is played
    /// as the reference plays it ([`AgentSettings::reference_routes`]).
    #[serde(default = "first_revision")]
    pub revision: AgentRevision,
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
    /// Free-text actions (`--free-text`): the decision writes a command for the game's
    /// parser instead of choosing from the admissible list. Whatever this says, a game
    /// state that lists no admissible commands (`GameState::free_text`) is played so.
    /// Off in runs recorded before it.
    #[serde(default)]
    pub free_text: bool,
    /// Rule `compact-prompts`: from revision 9, the planning and action calls use
    /// Ariadne's compact prompts (`prompts/plan.md`, `prompts/action.md`) instead of the
    /// reference's (`prompts/plan_reference.md`, `prompts/action_reference.md`). Runs
    /// recorded before revision 9 render the compact prompts of their revision whatever
    /// this says.
    #[serde(default)]
    pub compact_prompts: bool,
    /// Rule `game-commands`: from revision 10, a free-text decision is written in the
    /// game family's language (`agent::commands`). Off in runs recorded before it.
    #[serde(default)]
    pub game_commands: bool,
    /// Rule `remembered-refusals`: from revision 10, the commands the game refused are
    /// kept, shown and not sent again in the same place (`agent::commands`). Off in
    /// runs recorded before it.
    #[serde(default)]
    pub remembered_refusals: bool,
    /// Rule `checked-routes`: from revision 11, a route stops at a move that arrives
    /// elsewhere than the map said and tells the agent so, rooms crossed mid-route count
    /// as visited, and routes run over every spatial fact. Off (the paper's profile
    /// from revision 11): the reference's routes ([`AgentSettings::reference_routes`]).
    /// Runs recorded before revision 11 check routes whatever this says.
    #[serde(default)]
    pub checked_routes: bool,
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
    /// The revision (an unknown number was refused when the settings were read).
    pub fn rev(&self) -> AgentRevision {
        self.revision
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
        settings.follow(rules);
        settings
    }

    /// Set what the profile's rules decide (history, warnings, plan progress, loop
    /// breaking and the kept note), leaving every other setting as it is.
    pub fn follow(&mut self, rules: &crate::profile::Rules) {
        (self.history, self.feedback_chars) = if rules.short_history {
            (SHORT_HISTORY, SHORT_HISTORY_CHARS)
        } else {
            (PAPER_HISTORY, 0)
        };
        self.repeat_warning = if rules.repeat_warning {
            REPEAT_WARNING
        } else {
            0
        };
        self.plan_progress = rules.plan_progress;
        self.loop_breaking = rules.loop_breaking;
        self.show_note = rules.kept_note;
        self.compact_prompts = rules.compact_prompts;
        self.game_commands = rules.game_commands;
        self.remembered_refusals = rules.remembered_refusals;
        self.checked_routes = rules.checked_routes;
    }

    /// A `go to` is routed and played as the reference does it
    /// (`pipeline_arigraph.py:141-161`, `graphs/parent_graph.py:131-203`): over the
    /// compass facts that join two rooms the agent decided in, every move of the route
    /// sent, the last answer the observation, no room of the route counted as visited:
    /// revision 11 or later without rule `checked-routes`.
    pub fn reference_routes(&self) -> bool {
        self.rev().counts_decisions() && !self.checked_routes
    }

    /// The reference's step around the calls of its prompts (`pipeline_arigraph.py`):
    /// its observation cleaning, lowercased key items, its reading of unexplored exits
    /// (`none` for a room with none): revision 11 or later under the reference's
    /// prompts.
    pub fn reference_step(&self) -> bool {
        self.rev().counts_decisions() && self.reference_prompts()
    }

    /// Free-text decisions are written in the game's language (rule `game-commands`,
    /// revision 10 or later).
    pub fn speaks_game_language(&self) -> bool {
        self.rev().learns_commands() && self.game_commands
    }

    /// The commands the game refused are remembered (rule `remembered-refusals`,
    /// revision 10 or later).
    pub fn remembers_refusals(&self) -> bool {
        self.rev().learns_commands() && self.remembered_refusals
    }

    /// The agent's own calls (plan, action, key items, exploration check) are the
    /// reference's (`prompts/system_prompts.py`, `agents/parent_agent.py`,
    /// `pipeline_arigraph.py`): revision 9 or later without rule `compact-prompts`
    /// (the key items and exploration check also under it).
    pub fn reference_prompts(&self) -> bool {
        self.rev().reference_prompts() && !self.compact_prompts
    }
}

/// The current revision of the agent (see [`AgentSettings::revision`]).
pub const REVISION: u32 = 11;

/// An agent revision ([`AgentSettings::revision`]), stored as its number
/// (`"revision": 9` in a manifest): a number this build does not know is refused when
/// the file is read ([`AgentRevision::from_number`]'s one line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
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
    /// The reference's prompts for the plan, action, key-item and exploration calls
    /// (Ariadne's compact plan and action prompts only under rule `compact-prompts`).
    R9,
    /// Free-text commands in the game's language and remembered refusals, under their
    /// rules (`game-commands`, `remembered-refusals`).
    R10,
    /// Steps count decisions (a route is one history entry); the reference's routes and
    /// step around its prompts under the paper's profile.
    R11,
}

impl TryFrom<u32> for AgentRevision {
    type Error = String;
    fn try_from(n: u32) -> Result<Self, String> {
        Self::from_number(n)
    }
}

impl From<AgentRevision> for u32 {
    fn from(r: AgentRevision) -> u32 {
        r.number()
    }
}

impl std::fmt::Display for AgentRevision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl AgentRevision {
    /// Every revision, oldest first.
    pub const ALL: [AgentRevision; 11] = {
        use AgentRevision::*;
        [R1, R2, R3, R4, R5, R6, R7, R8, R9, R10, R11]
    };

    /// The number a file records.
    pub fn number(self) -> u32 {
        Self::ALL
            .iter()
            .position(|r| *r == self)
            .map_or(0, |i| i as u32 + 1)
    }

    /// The revision new runs record.
    pub const CURRENT: AgentRevision = AgentRevision::R11;

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
    /// The agent's calls carry the reference's prompts and answer fields (from 9).
    pub fn reference_prompts(self) -> bool {
        self >= Self::R9
    }
    /// Free-text commands may be held to the game's language and refusals remembered,
    /// as the rules say (from 10).
    pub fn learns_commands(self) -> bool {
        self >= Self::R10
    }
    /// The agent's steps are its decisions: a `go to` route is one step of its memory and
    /// one entry of its recent history, as in the reference (from 11).
    pub fn counts_decisions(self) -> bool {
        self >= Self::R11
    }
    /// A free-text answer is read whole under rule `game-commands`: a trailing place that
    /// is the current room is dropped, and an answer that joins commands falls back to
    /// its first command (from 11).
    pub fn reads_answers_whole(self) -> bool {
        self >= Self::R11
    }

    /// The revision of a recorded number.
    ///
    /// # Errors
    /// A number this build does not know, in one line naming the revisions it knows.
    pub fn from_number(n: u32) -> Result<Self, String> {
        Self::ALL
            .get((n as usize).wrapping_sub(1))
            .copied()
            .ok_or_else(|| {
                format!(
                    "agent revision {n} is unknown to this build of Ariadne, which knows revisions 1 to {REVISION}; replay it with the build that recorded it"
                )
            })
    }
}

fn shown() -> bool {
    true
}

fn first_revision() -> AgentRevision {
    AgentRevision::R1
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
            revision: AgentRevision::CURRENT,
            route_one_step: true,
            key_items: true,
            explore_check: true,
            free_text: false,
            compact_prompts: false,
            game_commands: false,
            remembered_refusals: false,
            checked_routes: false,
        }
    }
}
