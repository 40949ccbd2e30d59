//! The trajectory log: one directory per run under `runs/`.
//!
//! - `manifest.json`: format version, game, seed, model and endpoint (never a key),
//!   every setting, versions; written when the run starts.
//! - `steps.jsonl`: one [`StepRecord`] per line, written and flushed when the step ends,
//!   so a killed run loses at most the step in flight.
//! - `embeddings.jsonl`: every vector computed ([`crate::llm::VectorRecord`]), appended
//!   with the step that computed it.
//! - `summary.json`: the [`Summary`], written at the end (also after Ctrl-C or an error).
//!
//! The format is versioned by [`FORMAT_VERSION`] and documented in `docs/trajectory-format.md`.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

pub mod bench;
pub mod call_kinds;
pub mod diff;
mod manifest;
mod writer;

pub use crate::agent::ActionSource;
use crate::agent::SubGoal;
use crate::env::GameState;
use crate::llm::{CallRecord, EmbedRecord, Usage, VectorRecord};
use crate::memory::{Retrieval, UpdateReport};
use crate::nav::UnexploredExit;
pub use manifest::{GameInfo, Manifest, Parent, Versions};
pub use writer::RunWriter;

/// Version of the on-disk format; bumped on any incompatible change.
///
/// - 1: the first format.
/// - 2: typed manifest; `game.path` may be a TextWorld-Express specification;
///   `memory.hop_scope`. Version 1 runs are read as they are (a missing `hop_scope`
///   means `incident`, the rule they were recorded with).
/// - 3: the game's true state per step (`ground_truth`) and the world model's accuracy
///   (`world_model` in steps and summary), `memory.rules`, the goal and its source, the
///   walkthrough flag, `memory.rejected_verdicts`. Older runs replay: the accuracy is
///   recomputed against the true state the bridge reports during the replay.
///   Added since, within version 3: `memory.retrieval` (missing: `bfs`,
///   the only strategy before it).
pub const FORMAT_VERSION: u32 = 3;

/// The oldest format version this Ariadne reads.
pub const OLDEST_READABLE: u32 = 1;

/// How an episode ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The game was won.
    Won,
    /// The game was lost.
    Lost,
    /// The game ended, neither won nor lost.
    Done,
    /// The step cap was reached.
    #[default]
    StepCap,
    /// The user interrupted the run (Ctrl-C).
    Interrupted,
    /// The harness ended the episode before the game did (`ariadne agent`: it closed
    /// its input, as a harness does at its own step cap).
    Stopped,
    /// An error stopped the episode (in `Summary::error`).
    Error,
    /// The episode could not be run at all (a bench row whose setup failed).
    Failed,
}

impl Outcome {
    /// The name written to files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Won => "won",
            Outcome::Lost => "lost",
            Outcome::Done => "done",
            Outcome::StepCap => "step_cap",
            Outcome::Interrupted => "interrupted",
            Outcome::Stopped => "stopped",
            Outcome::Error => "error",
            Outcome::Failed => "failed",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The goal the agent was given at step 1 and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Goal {
    /// The text shown to the LLM.
    pub text: String,
    /// "game" (the game's objective), "game+cooking-instructions" (the objective and the
    /// paper's cooking instructions, Appendix F), "flag" (`--goal`), "file:<path>"
    /// (`--goal-file`), "unknown" (the game states none), "first-observation" (runs under
    /// memory rules 1 without an objective).
    pub source: String,
}

/// What the sinks learn when the game was reset.
pub struct Start<'a> {
    /// The first game state.
    pub first: &'a GameState,
    /// At most this many steps follow.
    pub max_steps: u32,
    /// The agent's goal.
    pub goal: &'a Goal,
}

/// Where finished steps go: the trajectory writer, a replay's checker, the terminal
/// view, a progress bar. The engine calls every sink for every step, in order.
pub trait StepSink: Send {
    /// The game was reset (see [`Start`]).
    ///
    /// # Errors
    /// Whatever the sink cannot do.
    fn started(&mut self, _start: &Start<'_>) -> Result<()> {
        Ok(())
    }

    /// The agent starts thinking about step `step` (a terminal spinner shows it).
    fn thinking(&mut self, _step: u32) {}

    /// A step ended; an error stops the episode (a replay's divergence, a full disk).
    ///
    /// # Errors
    /// Whatever the sink cannot do.
    fn step(&mut self, record: &StepRecord) -> Result<()>;

    /// The episode ended with this summary.
    ///
    /// # Errors
    /// Whatever the sink cannot do.
    fn finish(&mut self, _summary: &Summary) -> Result<()> {
        Ok(())
    }
}

/// Counts of the memory graph after a step (paper Figure 5).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct GraphStats {
    /// Semantic vertices.
    pub semantic_vertices: usize,
    /// Semantic edges (triplets).
    pub semantic_edges: usize,
    /// Episodic vertices.
    pub episodic_vertices: usize,
    /// Thesis vertices (`--thesis`; absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub thesis_vertices: usize,
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Wall-time split of a step, milliseconds.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Timings {
    /// Whole step.
    pub total_ms: u64,
    /// Waiting for chat and embedding endpoints.
    pub llm_ms: u64,
    /// Bridge round trip of the action.
    pub env_ms: u64,
    /// The agent's own work: graph update, retrieval, prompt building (total - llm -
    /// env - wait).
    pub agent_ms: u64,
    /// Waiting on retries: the failed tries of the step's answered calls and the waits
    /// between them (0 in runs recorded before it was kept).
    #[serde(default)]
    pub wait_ms: u64,
}

/// A step that is one move of a `go to` route.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RouteInfo {
    /// The room the route goes to.
    pub target: String,
    /// This move's position in the route, 1-based.
    pub index: usize,
    /// Moves in the route.
    pub length: usize,
}

/// One step of an episode: what the agent saw, remembered, retrieved, planned and did,
/// and what the game answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepRecord {
    /// Step number, 1-based.
    pub step: u32,
    /// Room at the start of the step.
    pub room: Option<String>,
    /// Observation at the start of the step.
    pub observation: String,
    /// Inventory at the start of the step.
    pub inventory: String,
    /// Admissible commands at the start of the step.
    pub admissible_commands: Vec<String>,
    /// Memory update: triplets extracted, added, removed.
    pub memory: UpdateReport,
    /// Two-step retrieval results.
    pub retrieval: Retrieval,
    /// Retrieval under other d, w, k (only in a what-if replay; never in a play log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub what_if: Option<Retrieval>,
    /// Unexplored exits shown to the agent.
    #[serde(default)]
    pub unexplored_exits: Vec<UnexploredExit>,
    /// Rooms offered as `go to <room>`.
    #[serde(default)]
    pub go_to_targets: Vec<String>,
    /// Plan after this step's planning call (empty for the later moves of a route).
    pub plan: Vec<SubGoal>,
    /// Warnings shown to the planner (repeated actions, cycles, a stuck sub-goal).
    pub warnings: Vec<String>,
    /// Actions left out of the admissible list at this step (loop breaking).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<String>,
    /// Sub-goals dropped from the plan as achieved (plan progress).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// The decision's rationale.
    pub rationale: String,
    /// The action sent to the game.
    pub action: String,
    /// Where the action came from.
    pub action_source: ActionSource,
    /// The command sent to the game: the action, or a route's move ("go east"); empty
    /// when nothing was sent (a `go to` with no route).
    #[serde(default)]
    pub command: String,
    /// Set when the step is a move of a `go to` route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<RouteInfo>,
    /// The game's answer to the action.
    pub feedback: String,
    /// Score gained by the action.
    pub reward: i64,
    /// Cumulative score after the action.
    pub score: i64,
    /// Maximum score.
    pub max_score: i64,
    /// Episode over after the action.
    pub done: bool,
    /// Won after the action.
    pub won: bool,
    /// Lost after the action.
    pub lost: bool,
    /// Every chat call of the step.
    pub llm_calls: Vec<CallRecord>,
    /// Every embedding call of the step.
    pub embedding_calls: Vec<EmbedRecord>,
    /// Vectors computed this step (written to `embeddings.jsonl`, not to the step line).
    #[serde(skip)]
    pub vectors: Vec<VectorRecord>,
    /// Rejected LLM answers this step.
    pub llm_failures: u32,
    /// Accepted LLM answers that needed repair this step.
    pub llm_repairs: u32,
    /// Strings cut and list items dropped by the client-side bounds this step (0 in
    /// runs recorded before it was counted).
    #[serde(default)]
    pub llm_trimmed: u32,
    /// Items of accepted answers refused as not what was asked this step (an
    /// extraction item that is not three parts; memory rules 8).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub llm_refused: u32,
    /// Transport retries (429, 5xx, dropped connections) of the step's chat and
    /// embedding calls.
    #[serde(default)]
    pub llm_retries: u32,
    /// Chat calls of the step whose prompt the endpoint probably cut (see
    /// `llm_calls[].prompt_cut`).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub prompt_cuts: u32,
    /// Tokens of the step's chat calls; `usage.unknown_calls` counts the calls whose
    /// endpoint reported none.
    pub usage: Usage,
    /// Graph size after the step.
    pub graph: GraphStats,
    /// The game's true state at the start of the step (TextWorld games; never shown to
    /// the LLM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground_truth: Option<Vec<crate::env::Fact>>,
    /// The graph after the step measured against `ground_truth` (designs with a graph).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world_model: Option<crate::judge::Accuracy>,
    /// Time split.
    pub timings: Timings,
}

/// How an episode ended and what it cost.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Format version.
    pub format_version: u32,
    /// How the episode ended.
    pub outcome: Outcome,
    /// The error, when outcome is "error".
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// Final score.
    pub score: i64,
    /// Maximum score.
    pub max_score: i64,
    /// score / max_score (0 when max_score is 0).
    pub normalized_score: f64,
    /// Steps played.
    pub steps: u32,
    /// Chat calls made.
    pub llm_calls: u64,
    /// Rejected LLM answers.
    pub llm_failures: u64,
    /// Repaired LLM answers.
    pub llm_repairs: u64,
    /// Strings cut and list items dropped by the client-side bounds.
    #[serde(default)]
    pub llm_trimmed: u64,
    /// Items of accepted answers refused as not what was asked (memory rules 8).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub llm_refused: u64,
    /// Transport retries (429, 5xx, dropped connections).
    #[serde(default)]
    pub llm_retries: u64,
    /// Chat calls whose prompt the endpoint probably cut to its context length.
    #[serde(default)]
    pub prompt_cuts: u64,
    /// Chat calls of a step that did not finish (counted in `llm_calls` and `usage`
    /// too, though no step line holds them).
    #[serde(default)]
    pub unfinished_calls: u64,
    /// Actions chosen by fallback.
    pub fallback_actions: u64,
    /// Chat tokens; `usage.unknown_calls` counts calls whose endpoint reported none,
    /// and then the counts are a lower bound.
    pub usage: Usage,
    /// Prompt tokens per step (mean); `null` when some call's usage is unknown.
    #[serde(default)]
    pub prompt_tokens_per_step: Option<f64>,
    /// Completion tokens per step (mean); `null` when some call's usage is unknown.
    #[serde(default)]
    pub completion_tokens_per_step: Option<f64>,
    /// Wall time of the episode, seconds (setup excluded).
    pub wall_s: f64,
    /// Each finished step's whole time (`timings.total_ms`), milliseconds, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_ms: Vec<u64>,
    /// Steps whose action was decided by the agent (not the later moves of a `go to`
    /// route, not a walkthrough): the denominator of LLM calls per decision.
    #[serde(default)]
    pub decision_steps: u32,
    /// The last observation.
    pub final_observation: String,
    /// The deepest dungeon level the episode reached (NetHack: the paper's "levels"
    /// figure, Table 1); absent for games without levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<i64>,
    /// BALROG's progression reached (NetHack; 0.0 to 1.0); absent for other games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progression: Option<f64>,
    /// The world model over the episode (runs with ground truth and a graph).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world_model: Option<crate::judge::WorldModelSummary>,
    /// Reflexion: the lesson written after this failed trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson: Option<String>,
    /// Reflexion: the LLM call(s) that wrote the lesson.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lesson_calls: Vec<CallRecord>,
    /// Each call kind's calls, time and tokens (every trial's, the lesson calls too);
    /// empty in runs recorded before it was kept.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub call_kinds: call_kinds::CallKinds,
}

/// Read the steps of a run; a truncated last line (a run killed mid-write) is skipped
/// and reported in the second value.
///
/// # Errors
/// A missing file, or a line before the last that is not UTF-8 or not a step, named
/// with its line number (1-based).
pub fn read_steps(dir: &Path) -> Result<(Vec<StepRecord>, bool)> {
    let path = dir.join("steps.jsonl");
    let (rows, truncated) = read_jsonl::<StepRecord>(&path)?;
    Ok((rows, truncated))
}

/// Read a JSON-lines file of `T`, line by line as bytes: a line that is not UTF-8 or
/// not a `T` is an error naming the file and its line number, except the last line,
/// which a killed writer may have cut (it is skipped, and the second value says so; a
/// last line that is not the start of a JSON line is damage, [`is_cut`]).
/// Blank lines are ignored.
///
/// # Errors
/// An unreadable file; a malformed line before the last.
pub fn read_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Result<(Vec<T>, bool)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let lines: Vec<(usize, &[u8])> = bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    let mut out = Vec::new();
    let mut truncated = false;
    for (k, (i, line)) in lines.iter().enumerate() {
        let last = k + 1 == lines.len();
        let parsed = std::str::from_utf8(line)
            .map_err(|e| anyhow::anyhow!("byte {} is not UTF-8", e.valid_up_to() + 1))
            .and_then(|text| serde_json::from_str::<T>(text).map_err(anyhow::Error::from));
        match parsed {
            Ok(r) => out.push(r),
            Err(_) if last && is_cut(line) => truncated = true,
            Err(e) if last => {
                return Err(crate::error::UserError::new(format!(
                    "{} line {} is damaged, not cut by a kill (a cut line is the start of a JSON line): {e}",
                    path.display(),
                    i + 1
                ))
                .into());
            }
            Err(e) => {
                return Err(crate::error::UserError::new(format!(
                    "{} line {} is malformed: {e}",
                    path.display(),
                    i + 1
                ))
                .into());
            }
        }
    }
    Ok((out, truncated))
}

/// Whether a line is what a writer killed mid-write leaves: the start of a JSON value
/// cut short (its text, up to a UTF-8 sequence the cut split, reads as JSON until the
/// input ends), not text that is wrong before its end.
pub fn is_cut(line: &[u8]) -> bool {
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&line[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    let text = text.trim();
    text.starts_with(['{', '['])
        && matches!(serde_json::from_str::<serde_json::Value>(text), Err(e) if e.is_eof())
}
