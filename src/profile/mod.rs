//! Profiles: which agent a run is.
//!
//! - [`Profile::Paper`] (the default) is the agent of the AriGraph paper (Anokhin et al.,
//!   arXiv:2407.04363, sections 2-4), and where the paper is silent the authors'
//!   reference code (AIRI-Institute/AriGraph: `pipeline_arigraph.py`,
//!   `graphs/contriever_graph.py`, `utils/retriever_search_drafts.py`,
//!   `pipeline_smartrag.py`, `pipeline_summary.py`). What it cannot do as they do is
//!   named, with its reason, in the Fidelity table ([`crate::fidelity`]).
//! - [`Profile::Extended`] is `paper` plus Ariadne's own [`Rule`]s, each typed, named,
//!   switchable (`--without RULE`) and recorded in the manifest.
//!
//! A profile resolves once, in [`crate::settings`], to a [`Rules`] value; the engine reads
//! the rules by name (`settings.loop_breaking`), never a profile or a version number.
//! Runs recorded before profiles existed carry no profile: their agent switches are in
//! their manifest, and their memory rules resolve from their memory-rules version
//! ([`crate::memory::MemorySettings::rules`]).
//!
//! This module is a leaf: the engine's settings follow the rules
//! ([`crate::agent::AgentSettings::follow`], [`crate::memory::MemorySettings::follow`]),
//! and [`crate::fidelity`] prints, for a profile, what each element of the paper does and
//! where it comes from.

use serde::{Deserialize, Serialize};

/// Which agent a run is (`--profile`; config key `profile`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// The paper's agent, the reference code where the paper is silent (the default).
    #[default]
    Paper,
    /// `paper` plus every [`Rule`] (minus those turned off with `--without`).
    Extended,
}

impl Profile {
    /// Every profile, in the order tables list them.
    pub const ALL: [Profile; 2] = [Profile::Paper, Profile::Extended];

    /// The profile's name as flags and manifests spell it.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Paper => "paper",
            Profile::Extended => "extended",
        }
    }

    /// The rules of this profile with nothing turned off.
    pub fn rules(self) -> Rules {
        match self {
            Profile::Paper => Rules::NONE,
            Profile::Extended => Rules::ALL,
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == s.trim())
            .ok_or_else(|| format!("unknown profile {s:?}; use paper or extended"))
    }
}

/// One of Ariadne's own rules: a departure from the paper that the extended profile adds.
/// Each has a name (its switch is `--without NAME`), the reason it exists and its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Sub-goals the last action achieved are dropped, a first sub-goal kept too long is
    /// flagged (`agent::progress`).
    PlanProgress,
    /// The actions of a detected cycle, the exact reversal of the last accepted command
    /// and walks back into visited rooms are left out of the admissible list for a while.
    LoopBreaking,
    /// The same action three times in a row is named in a warning to the planner.
    RepeatWarning,
    /// The text of the latest note, recipe or book read stays in working memory.
    KeptNote,
    /// The outdated check is asked only about facts a new triplet may retire, and a
    /// verdict the guard does not allow is refused ([`crate::memory::guard`]).
    VerdictGuard,
    /// The extractor gets Ariadne's prompt with the known facts about the things in
    /// view, not the reference's prompt with the previous step's retrieved facts.
    KnownFacts,
    /// The exits the game admits are written into the graph as protected facts.
    AdmittedExits,
    /// A spatial fact the extractor read that a move actually made contradicts is
    /// retired, and so are the facts behind a route move the game refused.
    MoveOverrides,
    /// Four recent steps, each observation cut to 300 characters, instead of five whole.
    ShortHistory,
    /// Ariadne's compact planning and action prompts (one shared system prompt, the
    /// working memory first, short answers) instead of the reference's.
    CompactPrompts,
    /// In free text, the decision writes a command of the game family's language, held
    /// to it by a pattern the server enforces (`agent::commands`).
    GameCommands,
    /// A command the game refused, or answered as before, is kept in working memory
    /// and not sent again until something changed (`agent::commands`).
    RememberedRefusals,
    /// A `go to` route stops where a move arrives elsewhere than the map said, and the
    /// map routes over every spatial fact (`episode`, `nav::explorer`).
    CheckedRoutes,
}

impl Rule {
    /// Every rule, in the order tables list them.
    pub const ALL: [Rule; 13] = [
        Rule::PlanProgress,
        Rule::LoopBreaking,
        Rule::RepeatWarning,
        Rule::KeptNote,
        Rule::VerdictGuard,
        Rule::KnownFacts,
        Rule::AdmittedExits,
        Rule::MoveOverrides,
        Rule::ShortHistory,
        Rule::CompactPrompts,
        Rule::GameCommands,
        Rule::RememberedRefusals,
        Rule::CheckedRoutes,
    ];

    /// The rule's name (`--without NAME`, the manifest's `rules` list).
    pub fn name(self) -> &'static str {
        match self {
            Rule::PlanProgress => "plan-progress",
            Rule::LoopBreaking => "loop-breaking",
            Rule::RepeatWarning => "repeat-warning",
            Rule::KeptNote => "kept-note",
            Rule::VerdictGuard => "verdict-guard",
            Rule::KnownFacts => "known-facts",
            Rule::AdmittedExits => "admitted-exits",
            Rule::MoveOverrides => "move-overrides",
            Rule::ShortHistory => "short-history",
            Rule::CompactPrompts => "compact-prompts",
            Rule::GameCommands => "game-commands",
            Rule::RememberedRefusals => "remembered-refusals",
            Rule::CheckedRoutes => "checked-routes",
        }
    }

    /// What the rule does, in one line.
    pub fn what(self) -> &'static str {
        match self {
            Rule::PlanProgress => {
                "sub-goals the last action achieved (an item carried, a room reached) are dropped; a first sub-goal kept for many steps is flagged to the planner"
            }
            Rule::LoopBreaking => {
                "the commands of a detected cycle, the exact reversal of the last accepted command, and moves back into visited rooms after a walk with nothing done are left out of the admissible list for a few steps"
            }
            Rule::RepeatWarning => {
                "the planner is warned when the same action was chosen three times in a row"
            }
            Rule::KeptNote => {
                "the text of the latest note, recipe or book read stays in working memory"
            }
            Rule::VerdictGuard => {
                "the outdated check is asked only about facts a new triplet could retire, and a verdict is refused unless the new fact gives the same function of the same subject another value (where a thing is; open or closed; locked or unlocked; which room lies one way of a room); before memory rules 6, any fact of the same relation kind sharing a vertex"
            }
            Rule::KnownFacts => {
                "the extractor is given Ariadne's prompt (location, last action, observation, inventory, the paper's conventions with a worked example) and the known facts about the things in view, instead of the reference's prompt with the previous step's retrieved facts"
            }
            Rule::AdmittedExits => {
                "the movement commands the game admits in a room are written into the graph as `room, has exit, dir`, never offered for deletion"
            }
            Rule::MoveOverrides => {
                "an extracted spatial fact that a move actually made contradicts is retired, and a route move the game refused retires the unproven facts behind it"
            }
            Rule::ShortHistory => {
                "working memory shows the last 4 steps, each observation cut to 300 characters, instead of the last 5 whole"
            }
            Rule::CompactPrompts => {
                "the planning and action calls share one short system prompt with the working memory first (the action call reuses the plan call's cached prefix), ask for at most 3 sub-goals with short reasons and a one-sentence rationale, instead of the reference's `system_plan_agent` and `system_action_agent_sub_expl` with its numbered working memory"
            }
            Rule::GameCommands => {
                "in free text, working memory shows the game family's command templates and directions and the commands the game accepted before, and the decision's command is held to them by a pattern the server's grammar enforces (articles dropped where the family's parser does not read them, and from agent revision 11 a trailing `in <the current room>`; a command that joins two or states a purpose refused, and from revision 11 played as its first command when no other answer comes; a `go to` only to a known room other than the current one); with admissible commands, a list of more than 60 is shown as the family's forms and the things that fill them, the answer still held to the whole list"
            }
            Rule::RememberedRefusals => {
                "a command whose answer in the current state is known (the game refused it: \"Unknown action\", \"You can't see any such thing\", \"It is locked\"; or its answer repeats a text the game already showed in that state, as a `look` that repeats the room) is shown in working memory with the answer, and refused as an answer until the room, inventory or score changes or a command is answered with something new"
            }
            Rule::CheckedRoutes => {
                "a `go to` route stops at a move that arrives elsewhere than the map said, and the agent's next observation says where the route stopped and what the game answered; routes run over every spatial fact of the graph, unvisited rooms included, a room crossed mid-route counts as visited, a route's moves are written into the graph as moves made, and the `go to` targets are the rooms a route reaches now (the reference routes over compass facts joining two rooms it decided in, plays every move and shows the last answer)"
            }
        }
    }

    /// Why it exists: the measured failure it answers.
    pub fn reason(self) -> &'static str {
        match self {
            Rule::PlanProgress => {
                "the embedded 1.5B model kept a done sub-goal first for 10 steps and walked away from the goal"
            }
            Rule::LoopBreaking => {
                "small models at temperature 0 repeat the same command or walk between the same rooms (a 23-step north/south loop, 'examine kitchen island' 17 times)"
            }
            Rule::RepeatWarning => "small models repeat one command many times at temperature 0",
            Rule::KeptNote => {
                "the small model lost a recipe's directions once it left working memory and burned the ingredient"
            }
            Rule::VerdictGuard => {
                "the small model, given every incident fact, deleted every fact about a room on the second step; guarded by relation kinds only, it still deleted 10 to 12 true facts per episode through a shared vertex or a state that is not the opposite"
            }
            Rule::KnownFacts => {
                "without the facts already known about a thing, the small model named it differently from step to step (\"door\", \"wooden door\"), so its facts never met in the graph"
            }
            Rule::AdmittedExits => {
                "extracted exits are often missing or misnamed; the game's admissible moves are ground truth for exploration"
            }
            Rule::MoveOverrides => {
                "misread spatial facts routed `go to` through walls and the same wrong route was offered again"
            }
            Rule::ShortHistory => {
                "prompt size is the main cost of a step on the embedded model (about 85 prompt tokens/s)"
            }
            Rule::CompactPrompts => {
                "prompt and answer size are the main cost of a step on the embedded model: the reference's planning prompt alone is about 350 words of instructions, and its answers (a main goal, an emotion, indented JSON) about 200 completion tokens, at about 11 generated tokens/s"
            }
            Rule::GameCommands => {
                "inside TALES, in free text, the embedded 1.5B model wrote plan phrases and `go to` the room it stood in (`go to the kitchen`, `take the coin from the shower and put it into the box`), which no parser accepts: 0 on every game where a one-call agent on the same model scored; with admissible commands a ScienceWorld state lists hundreds, and the first action request (10,878 tokens) did not fit the embedded server's context"
            }
            Rule::RememberedRefusals => {
                "in 20 free-text steps of TWXCoinCollector all 20 commands were refused, the same ones up to 5 times in a row"
            }
            Rule::CheckedRoutes => {
                "a route built on a spatial fact the extractor misread sends every later move from a room the map did not expect; stopped, the agent learns where the map was wrong instead of walking on (Ariadne's design since its first release, not yet measured against the reference's routes)"
            }
        }
    }

    /// Where it comes from.
    pub fn source(self) -> &'static str {
        match self {
            Rule::CheckedRoutes => "Ariadne's design, not yet measured",
            _ => "Ariadne, measured on the embedded model",
        }
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Rule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let names: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
        Rule::ALL
            .into_iter()
            .find(|r| r.name() == s.trim())
            .ok_or_else(|| format!("unknown rule {s:?}; the rules are {}", names.join(", ")))
    }
}

/// Parse a comma-separated list of rule names (`--without`), sorted, without repeats.
///
/// # Errors
/// An unknown name, with the list of known ones.
pub fn parse_rules<'a>(items: impl IntoIterator<Item = &'a str>) -> Result<Vec<Rule>, String> {
    let mut out = Vec::new();
    for item in items {
        for name in item.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            out.push(name.parse::<Rule>()?);
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// The rule set a run follows: one named switch per [`Rule`], resolved once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rules {
    /// [`Rule::PlanProgress`].
    pub plan_progress: bool,
    /// [`Rule::LoopBreaking`].
    pub loop_breaking: bool,
    /// [`Rule::RepeatWarning`].
    pub repeat_warning: bool,
    /// [`Rule::KeptNote`].
    pub kept_note: bool,
    /// [`Rule::VerdictGuard`].
    pub verdict_guard: bool,
    /// [`Rule::KnownFacts`].
    pub known_facts: bool,
    /// [`Rule::AdmittedExits`].
    pub admitted_exits: bool,
    /// [`Rule::MoveOverrides`].
    pub move_overrides: bool,
    /// [`Rule::ShortHistory`].
    pub short_history: bool,
    /// [`Rule::CompactPrompts`].
    pub compact_prompts: bool,
    /// [`Rule::GameCommands`].
    pub game_commands: bool,
    /// [`Rule::RememberedRefusals`].
    pub remembered_refusals: bool,
    /// [`Rule::CheckedRoutes`].
    pub checked_routes: bool,
}

impl Rules {
    /// No rule: the paper's agent.
    pub const NONE: Rules = Rules {
        plan_progress: false,
        loop_breaking: false,
        repeat_warning: false,
        kept_note: false,
        verdict_guard: false,
        known_facts: false,
        admitted_exits: false,
        move_overrides: false,
        short_history: false,
        compact_prompts: false,
        game_commands: false,
        remembered_refusals: false,
        checked_routes: false,
    };

    /// Every rule.
    pub const ALL: Rules = Rules {
        plan_progress: true,
        loop_breaking: true,
        repeat_warning: true,
        kept_note: true,
        verdict_guard: true,
        known_facts: true,
        admitted_exits: true,
        move_overrides: true,
        short_history: true,
        compact_prompts: true,
        game_commands: true,
        remembered_refusals: true,
        checked_routes: true,
    };

    fn slot(&mut self, rule: Rule) -> &mut bool {
        match rule {
            Rule::PlanProgress => &mut self.plan_progress,
            Rule::LoopBreaking => &mut self.loop_breaking,
            Rule::RepeatWarning => &mut self.repeat_warning,
            Rule::KeptNote => &mut self.kept_note,
            Rule::VerdictGuard => &mut self.verdict_guard,
            Rule::KnownFacts => &mut self.known_facts,
            Rule::AdmittedExits => &mut self.admitted_exits,
            Rule::MoveOverrides => &mut self.move_overrides,
            Rule::ShortHistory => &mut self.short_history,
            Rule::CompactPrompts => &mut self.compact_prompts,
            Rule::GameCommands => &mut self.game_commands,
            Rule::RememberedRefusals => &mut self.remembered_refusals,
            Rule::CheckedRoutes => &mut self.checked_routes,
        }
    }

    /// Whether `rule` is on.
    pub fn has(&self, rule: Rule) -> bool {
        let mut copy = *self;
        *copy.slot(rule)
    }

    /// The same rules with `rule` off.
    pub fn without(mut self, rule: Rule) -> Self {
        *self.slot(rule) = false;
        self
    }

    /// The rules that are on, in [`Rule::ALL`]'s order.
    pub fn enabled(&self) -> Vec<Rule> {
        Rule::ALL.into_iter().filter(|r| self.has(*r)).collect()
    }

    /// The rules of `profile` with `off` turned off.
    pub fn resolve(profile: Profile, off: &[Rule]) -> Self {
        off.iter()
            .fold(profile.rules(), |rules, rule| rules.without(*rule))
    }
}

/// A profile handed over to mid-run (`replay --continue-from N --profile P`): steps
/// 1..=`step` follow the run's own profile, the later ones `profile`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handover {
    /// The last step under the run's own profile.
    pub step: u32,
    /// The profile from the next step on.
    pub profile: ProfileRecord,
}

/// The profile and the rules a run follows, as its manifest records them (absent in
/// runs recorded before profiles).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileRecord {
    /// The profile.
    pub profile: Profile,
    /// The profile's rules that are on.
    pub rules: Vec<Rule>,
    /// The profile's rules turned off with `--without`.
    pub without: Vec<Rule>,
}

impl ProfileRecord {
    /// The record of `profile` with `without` turned off.
    pub fn new(profile: Profile, without: &[Rule]) -> Self {
        let rules = Rules::resolve(profile, without);
        Self {
            profile,
            rules: rules.enabled(),
            without: without
                .iter()
                .copied()
                .filter(|r| profile.rules().has(*r))
                .collect(),
        }
    }

    /// The resolved rules.
    pub fn resolved(&self) -> Rules {
        Rules::resolve(self.profile, &self.without)
    }
}

#[cfg(test)]
mod tests;
