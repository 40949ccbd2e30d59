//! The bench's record and statistics, beside the trajectory it summarizes: one
//! [`EpisodeRow`] per episode (a line of a bench's `episodes.jsonl`), aggregated into one
//! [`Cell`] per game and memory design; the paper's rule (mean normalized score of the
//! best 3 of N attempts, Table 4) beside the mean and spread of all N, and the cost
//! (Table 3). The bench operation renders them (`ops::bench::tables`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::judge::WorldModelSummary;
use crate::llm::Usage;
use crate::trajectory::Outcome;

mod stats;
pub use stats::{
    BEST_OF, Cell, Levels, PAPER_ATTEMPTS, Speed, aggregate, best_k_mean, lower_bound, mean_std,
};

/// One finished (or failed) episode, one line of `episodes.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpisodeRow {
    /// Game name.
    pub game: String,
    /// Row name.
    pub memory: String,
    /// Attempt, 1-based.
    pub run: u32,
    /// Summary outcome, or [`Outcome::Failed`] when the episode could not be run.
    pub outcome: Outcome,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Score.
    pub score: i64,
    /// Maximum score.
    pub max_score: i64,
    /// score / max_score.
    pub normalized_score: f64,
    /// Steps.
    pub steps: u32,
    /// Chat calls.
    pub llm_calls: u64,
    /// Prompt tokens; `None` when some call's usage was unknown (shown as "?").
    pub prompt_tokens: Option<u64>,
    /// Completion tokens; `None` when some call's usage was unknown.
    pub completion_tokens: Option<u64>,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// The world model against the game's ground truth (designs with a graph, games
    /// with ground truth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world_model: Option<WorldModelSummary>,
    /// The run directory relative to the bench directory (the last trial's for
    /// Reflexion).
    pub dir: PathBuf,
    /// The endpoints this attempt played against (a resumed bench may use others);
    /// absent in rows written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<Endpoint>,
    /// The episode's token and server-time sums (absent in rows written before they
    /// were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Each step's whole time, milliseconds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step_ms: Vec<u64>,
    /// Steps the agent decided (route moves and walkthrough steps excluded).
    #[serde(default)]
    pub decision_steps: u32,
    /// Chat calls whose prompt the endpoint probably cut to its context length.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub prompt_cuts: u64,
    /// The deepest dungeon level reached (NetHack; absent for other games).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<i64>,
    /// BALROG's progression reached (NetHack; 0 to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progression: Option<f64>,
    /// Each call kind's calls, time and tokens (absent in rows written before it was
    /// kept).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub call_kinds: crate::trajectory::call_kinds::CallKinds,
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// The endpoints of one attempt (never a key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Endpoint {
    /// Chat base URL.
    pub chat: String,
    /// Chat model.
    pub model: String,
    /// Embedding base URL.
    pub embedding: String,
}

impl Endpoint {
    /// From a manifest's `llm` description (see `llm::connect`).
    pub fn from_described(llm: &serde_json::Value) -> Self {
        let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
        Self {
            chat: s(&llm["chat"]["base_url"]),
            model: s(&llm["chat"]["model"]),
            embedding: s(&llm["embedding"]["base_url"]),
        }
    }
}

/// Which attempt a row is: the game, the bench row (memory design and profile) and the
/// attempt's number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// The game's name.
    pub game: String,
    /// The bench row's name (`arigraph`, `rag@extended`).
    pub memory: String,
    /// The attempt, 1-based.
    pub run: u32,
}

impl EpisodeRow {
    /// The row of an episode that ran to its end (or step cap): `summary` is its run's
    /// summary, `dir` its run directory, written relative to the bench directory
    /// `bench_dir` when inside it.
    pub fn finished(
        attempt: Attempt,
        summary: &crate::trajectory::Summary,
        dir: PathBuf,
        bench_dir: &Path,
        endpoint: Endpoint,
    ) -> Self {
        let s = summary;
        let Attempt { game, memory, run } = attempt;
        Self {
            game,
            memory,
            run,
            outcome: s.outcome,
            error: None,
            score: s.score,
            max_score: s.max_score,
            normalized_score: s.normalized_score,
            steps: s.steps,
            llm_calls: s.llm_calls,
            prompt_tokens: s.usage.is_known().then_some(s.usage.prompt_tokens),
            completion_tokens: s.usage.is_known().then_some(s.usage.completion_tokens),
            wall_s: s.wall_s,
            world_model: s.world_model.clone(),
            dir: dir
                .strip_prefix(bench_dir)
                .map(Path::to_path_buf)
                .unwrap_or(dir),
            endpoint: Some(endpoint),
            usage: Some(s.usage),
            step_ms: s.step_ms.clone(),
            decision_steps: s.decision_steps,
            prompt_cuts: s.prompt_cuts,
            max_depth: s.max_depth,
            progression: s.progression,
            call_kinds: s.call_kinds.clone(),
        }
    }

    /// The row of an episode that failed with `error` (its run directory is named by
    /// convention, `runs/GAME--DESIGN--runN`).
    pub fn failed(attempt: Attempt, error: String, endpoint: Endpoint) -> Self {
        let Attempt { game, memory, run } = attempt;
        let dir = PathBuf::from("runs").join(format!("{game}--{memory}--run{run}"));
        Self {
            game,
            memory,
            run,
            outcome: Outcome::Failed,
            error: Some(error),
            score: 0,
            max_score: 0,
            normalized_score: 0.0,
            steps: 0,
            llm_calls: 0,
            prompt_tokens: None,
            completion_tokens: None,
            wall_s: 0.0,
            world_model: None,
            dir,
            endpoint: Some(endpoint),
            usage: None,
            step_ms: Vec::new(),
            decision_steps: 0,
            prompt_cuts: 0,
            max_depth: None,
            progression: None,
            call_kinds: Default::default(),
        }
    }
}

/// Read `episodes.jsonl` leniently (unreadable lines are skipped, so an episode whose
/// line is lost is played again on `--resume`). An episode played again after a resume
/// keeps only its last line.
pub fn read_episodes(dir: &Path) -> Vec<EpisodeRow> {
    let all: Vec<EpisodeRow> = std::fs::read_to_string(dir.join("episodes.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    latest(all)
}

/// Read `episodes.jsonl` strictly, for reports on a finished bench: a malformed line
/// before the last is an error; a cut last line is skipped (the second value says so).
/// An episode played again after a resume keeps only its last line.
///
/// # Errors
/// An unreadable file; a malformed line before the last (naming it).
pub fn read_episodes_checked(dir: &Path) -> anyhow::Result<(Vec<EpisodeRow>, bool)> {
    let (all, cut) = crate::trajectory::read_jsonl(&dir.join("episodes.jsonl"))?;
    Ok((latest(all), cut))
}

/// The last row of each (game, design, attempt), in order.
fn latest(all: Vec<EpisodeRow>) -> Vec<EpisodeRow> {
    let mut out: Vec<EpisodeRow> = Vec::new();
    for r in all {
        out.retain(|o| (&o.game, &o.memory, o.run) != (&r.game, &r.memory, r.run));
        out.push(r);
    }
    out
}

/// A finished attempt for tests: 10 steps, 40 calls, 20,000 / 3,000 tokens, 5 s.
#[cfg(test)]
pub fn sample_row(game: &str, mem: &str, run: u32, score: f64, outcome: Outcome) -> EpisodeRow {
    EpisodeRow {
        game: game.into(),
        memory: mem.into(),
        run,
        outcome,
        error: None,
        score: (score * 10.0) as i64,
        max_score: 10,
        normalized_score: score,
        steps: 10,
        llm_calls: 40,
        prompt_tokens: Some(20_000),
        completion_tokens: Some(3_000),
        wall_s: 5.0,
        world_model: None,
        dir: PathBuf::new(),
        endpoint: None,
        usage: None,
        step_ms: Vec::new(),
        decision_steps: 10,
        prompt_cuts: 0,
        max_depth: None,
        progression: None,
        call_kinds: Default::default(),
    }
}
