//! What a bench is asked: its plan (games, rows, attempts, settings; written to
//! `bench.json` and read back by `--resume`), the settings of a row, a game's step cap,
//! and the options of one session.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Shard;
use crate::agent::AgentSettings;
use crate::env::GameSpec;
use crate::llm::connect::LlmSettings;
use crate::memory::MemorySettings;
use crate::profile::ProfileRecord;
use crate::rows::Variant;
use crate::trajectory::Goal;

/// The bench's settings, written to `bench.json` and read back by `--resume`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchPlan {
    /// Games.
    pub games: Vec<GameSpec>,
    /// Rows.
    pub variants: Vec<Variant>,
    /// Attempts per game and row.
    pub runs: u32,
    /// Step cap; `None`: the reference code's 150 for every game.
    pub max_steps: Option<u32>,
    /// Base seed; attempt i uses seed + i.
    pub seed: u64,
    /// Reflexion trials.
    pub trials: u32,
    /// Memory parameters.
    pub memory: MemorySettings,
    /// Agent parameters (a row's exploration switch applies on top).
    #[serde(default)]
    pub agent: AgentSettings,
    /// Prompt directory override.
    pub prompts: Option<PathBuf>,
    /// The goal given with `--goal` / `--goal-file` (the same for every game).
    #[serde(default)]
    pub goal: Option<Goal>,
    /// The slice of the episodes this bench plays (`--shard K/N`); `None`: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Rules of the extended profile turned off (`--without`) in every row of that
    /// profile (empty in benches planned before profiles).
    #[serde(default)]
    pub without: Vec<crate::profile::Rule>,
    /// Longest wait for the game's answer to one command, seconds (`--game-timeout`).
    #[serde(default = "crate::env::bridge::default_step_timeout_s")]
    pub game_timeout_s: u64,
}

/// The agent and memory settings and the profile record of a row: the plan's, with the
/// row's exploration switch and, for a row with a profile, that profile's rules (rows of
/// benches planned before profiles keep the plan's settings as recorded).
pub fn row_settings(
    plan: &BenchPlan,
    variant: &Variant,
) -> (AgentSettings, MemorySettings, Option<ProfileRecord>) {
    let mut agent = AgentSettings {
        exploration: variant.exploration && plan.agent.exploration,
        ..plan.agent.clone()
    };
    let mut memory = variant.memory_settings(&plan.memory);
    let record = variant
        .profile
        .map(|p| ProfileRecord::new(p, &plan.without));
    if let Some(r) = &record {
        let rules = r.resolved();
        agent.follow(&rules);
        memory.follow(&rules);
    }
    (agent, memory, record)
}

/// The step cap of a game: the plan's, or the reference code's (150).
pub fn step_cap(plan: &BenchPlan, game: &GameSpec) -> u32 {
    plan.max_steps.unwrap_or_else(|| game.default_step_cap())
}

/// Episodes a bench plays at once on the embedded model when `--jobs` is not given.
/// Measured on 2 cores (docs/results.md, "Episodes at once on the embedded model"): 2
/// and 4 at once did no more work per second than 1 (the server's 4 slots share the
/// same cores), each step took 2-3 times as long, and batched decoding changed the
/// temperature-0 answers, so the attempts of one game no longer played alike.
pub const EMBEDDED_JOBS: usize = 1;

/// Episodes a bench plays at once on a remote endpoint when `--jobs` is not given: an
/// endpoint that serves calls in parallel gains nearly linearly (docs/benchmark.md's
/// scripted measurement), and 2 stays well inside common rate limits.
pub const REMOTE_JOBS: usize = 2;

/// The episodes at once when `--jobs` is not given: [`EMBEDDED_JOBS`] when the chat
/// model is the embedded one, [`REMOTE_JOBS`] for an endpoint.
pub fn default_jobs(llm: &LlmSettings) -> usize {
    if llm.embedded_chat() {
        EMBEDDED_JOBS
    } else {
        REMOTE_JOBS
    }
}

/// What `ariadne bench` was asked.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// The plan (ignored with `resume`, which reads it from the bench directory).
    pub plan: BenchPlan,
    /// Episodes at once (`--jobs`; [`default_jobs`] when not given).
    pub jobs: usize,
    /// Bench directory (default `runs/bench-<time>`).
    pub out: Option<PathBuf>,
    /// Resume this bench directory.
    pub resume: Option<PathBuf>,
    /// Endpoints.
    pub llm: LlmSettings,
}
