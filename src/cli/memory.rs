//! The agent, memory, navigation, goal and game options that `play` and `bench` share
//! (`ariadne qa` takes the agent and memory ones: [`MemoryArgs`]).

use std::path::PathBuf;

use clap::Args;

use std::ops::RangeInclusive;

use crate::memory::{HopScope, MemorySettings, OutdatedScope, Retire, Strategy};

use super::parse_from_str;

/// Profile, memory and prompt options shared by `play`, `bench` and `qa` (also
/// config-file keys).
#[derive(Debug, Clone, Args)]
pub struct MemoryArgs {
    /// The agent: paper (the default: the AriGraph paper's agent, the reference code
    /// where the paper is silent) or extended (paper plus Ariadne's own rules; see
    /// `ariadne profile show extended`). `bench` takes a comma-separated list, a row per
    /// profile and memory design.
    #[arg(long, value_name = "PROFILE", help_heading = "Agent")]
    pub profile: Option<String>,
    /// Rules of the extended profile to turn off, a comma-separated list (plan-progress,
    /// loop-breaking, repeat-warning, kept-note, verdict-guard, known-facts,
    /// admitted-exits, move-overrides, short-history, compact-prompts, game-commands,
    /// remembered-refusals, checked-routes).
    #[arg(long, value_name = "RULES", help_heading = "Agent")]
    pub without: Option<String>,
    /// The similarity cut-off of the semantic search (default 0.75, the reference
    /// code's; 0 turns it off).
    #[arg(long, allow_negative_numbers = true, help_heading = "Memory")]
    pub cutoff: Option<f32>,
    /// Semantic search depth d (Algorithm 2), 0-16: the depth of the queries when the
    /// key-items call gives none (the reference searches each key item to its
    /// relevance), and of the `--thesis` walk.
    #[arg(long, value_parser = depth, allow_negative_numbers = true, help_heading = "Memory")]
    pub depth: Option<u32>,
    /// Semantic search width w (Algorithm 2), 1-1000.
    #[arg(long, value_parser = width, allow_negative_numbers = true, help_heading = "Memory")]
    pub width: Option<usize>,
    /// Episodic vertices retrieved, k (Eq. 1), 0-100 (RAG's, Reflexion's and Simulacra's
    /// is the reference's 5). `--episodes`, its name before, is kept as an alias.
    #[arg(long = "episodic-k", alias = "episodes", value_parser = episodic_k, allow_negative_numbers = true, help_heading = "Memory")]
    pub episodic_k: Option<usize>,
    /// Which existing triplets the outdated-edge check considers: incident or subject
    /// (in `ariadne qa`, only with --outdated-check).
    #[arg(long, value_parser = parse_from_str::<OutdatedScope>, help_heading = "Memory")]
    pub outdated_scope: Option<OutdatedScope>,
    /// Which edges a BFS hop ranks: all (the paper's Algorithm 2) or incident.
    #[arg(long, value_parser = parse_from_str::<HopScope>, help_heading = "Memory")]
    pub hop_scope: Option<HopScope>,
    /// The semantic search strategy: bfs (AriGraph's Algorithm 2), or PersonalAI's
    /// astar, water-circles, beam or mixed, or the hybrids water-circles+beam, astar+beam,
    /// astar+water-circles (arXiv:2506.17001).
    #[arg(long, value_parser = parse_from_str::<Strategy>, help_heading = "Memory")]
    pub retrieval: Option<Strategy>,
    /// What a fact retired by a newer one becomes: close (kept with its steps and a
    /// temporal edge to its replacement, out of retrieval, the edge shown where the
    /// replacement is retrieved; AriadneMem) or delete (the paper; the default). In
    /// `ariadne qa`, only with --outdated-check.
    #[arg(long, value_parser = parse_from_str::<Retire>, help_heading = "Memory")]
    pub retire: Option<Retire>,
    /// Skip extraction and the outdated check (no LLM call) for an observation that
    /// repeats a recent one and names nothing new (AriadneMem's entropy-aware gating).
    #[arg(long, help_heading = "Memory")]
    pub gating: bool,
    /// Join disconnected parts of what a query retrieved through the vertex that best
    /// connects them in meaning within a time window, and show the reasoning paths of 2-3
    /// hops between the query's terminals (AriadneMem's bridge discovery, path mining).
    #[arg(long, help_heading = "Memory")]
    pub bridge: bool,
    /// Thesis vertices (PersonalAI, arXiv:2506.17001): the extraction call also asks for
    /// complete statements with the entities they link (up to 15; a recipe's needs, a
    /// note's instructions), walked as hyper-edges in retrieval, retired when stale, and
    /// shown as "Statements remembered".
    #[arg(long, help_heading = "Memory")]
    pub thesis: bool,
    /// Traversal constraints (PersonalAI): kinds of vertices left out of retrieval (with
    /// --thesis, out of the hyper-edge walk), a comma-separated list of object, thesis
    /// and episodic (not all three; object only with --thesis).
    #[arg(long, value_name = "KINDS", help_heading = "Memory")]
    pub exclude: Option<String>,
    /// `--without plan-progress`.
    #[arg(long, help_heading = "Agent")]
    pub no_plan_progress: bool,
    /// `--without loop-breaking`.
    #[arg(long, help_heading = "Agent")]
    pub no_loop_breaking: bool,
    /// `--without kept-note`.
    #[arg(long, help_heading = "Agent")]
    pub no_note: bool,
    /// Directory of edited prompt files (default: the built-in prompts/).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
}

/// Navigation, goal and game options of `play` and `bench`, which question answering
/// has no use for (all but the goal and the time-out also config-file keys).
#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    /// Reflexion: trials of the same game; a lesson is written after each failed one
    /// (default 3).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), help_heading = "Memory")]
    pub trials: Option<u32>,
    /// Do not show unexplored exits (the paper's "w/o exploration" ablation).
    #[arg(long, help_heading = "Navigation")]
    pub no_exploration: bool,
    /// Do not offer `go to <room>` (study the agent without the navigation module).
    #[arg(long, help_heading = "Navigation")]
    pub no_go_to: bool,
    /// The agent's goal, for games that carry no objective of their own (the paper gave
    /// its task text at step 1); overrides the game's objective.
    #[arg(long, conflicts_with = "goal_file", help_heading = "Goal")]
    pub goal: Option<String>,
    /// Read the goal from a file (see --goal).
    #[arg(long, help_heading = "Goal")]
    pub goal_file: Option<PathBuf>,
    /// Show the score to the LLM and warn after steps without score (a departure: the
    /// paper hides rewards from the agent).
    #[arg(long)]
    pub show_score: bool,
    /// Free-text actions: the agent writes each command for the game's parser instead of
    /// choosing one from the admissible list (as TALES reports agents both ways). On by
    /// itself for a game that lists no admissible commands.
    #[arg(long, help_heading = "Agent")]
    pub free_text: bool,
    /// Longest wait for the game's answer to one command, seconds (Jericho's valid-action
    /// detection included, up to about a minute a step on some games): a game that takes
    /// longer (a z-machine interpreter stuck in a loop) ends the episode with one line,
    /// its finished steps kept.
    #[arg(long, env = "ARIADNE_GAME_TIMEOUT", default_value_t = 180, value_parser = clap::value_parser!(u64).range(1..=86_400), help_heading = "Game")]
    pub game_timeout: u64,
}

impl GameArgs {
    /// Reflexion's trials of a game when `--trials` is not given.
    pub const TRIALS: u32 = 3;

    /// The trials of a game a Reflexion episode plays (`--trials`, else 3).
    pub fn trials(&self) -> u32 {
        self.trials.unwrap_or(Self::TRIALS)
    }
}

/// A whole number within `range` (the value of `--depth`, `--width`, `--episodic-k`).
fn within(s: &str, range: RangeInclusive<usize>) -> Result<usize, String> {
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|v| range.contains(v))
        .ok_or_else(|| {
            format!(
                "not a whole number between {} and {}",
                range.start(),
                range.end()
            )
        })
}

fn depth(s: &str) -> Result<u32, String> {
    within(s, MemorySettings::DEPTH).and_then(|v| u32::try_from(v).map_err(|e| e.to_string()))
}

fn width(s: &str) -> Result<usize, String> {
    within(s, MemorySettings::WIDTH)
}

fn episodic_k(s: &str) -> Result<usize, String> {
    within(s, MemorySettings::EPISODES)
}
