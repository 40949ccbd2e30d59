//! The bench operation: the paper's evaluation protocol (section 4.1, Table 4) over
//! several games, several memory designs and N attempts each, with cost (steps, LLM
//! calls, tokens per step, wall time); episodes run concurrently up to `jobs`; an
//! interrupted bench resumes without losing a finished episode. Its data flows one way:
//! [`plan`] (the episodes, a shard of them), [`session`] (the directory across
//! sessions), [`bench()`] (play, each finished episode a row of `episodes.jsonl`),
//! [`tables`] and [`charts`] (the tables and charts of the rows); [`merge`] joins shards.

pub mod charts;
pub mod merge;
pub mod plan;
mod session;
mod settings;
mod shard;
pub mod tables;

pub use plan::{episodes, write_results};
pub use settings::{
    BenchOptions, BenchPlan, EMBEDDED_JOBS, REMOTE_JOBS, default_jobs, row_settings, step_cap,
};
pub use shard::Shard;

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use futures::StreamExt;

use crate::cancel;
use crate::env::GameSpec;
use crate::episode::EpisodeConfig;
use crate::episode::game::{GameRun, play_game};
use crate::llm::connect;
use crate::pyenv::{self, Needs};
use crate::rows::Variant;
use crate::trajectory::bench::{Attempt, Endpoint, EpisodeRow, read_episodes};
use crate::trajectory::{Outcome, StepSink};

/// What a bench will play, announced before it starts: the plan's size, what is left,
/// and what it may cost at the paper's tokens per step (Table 3).
#[derive(Debug, Clone)]
pub struct Announcement {
    /// Games, rows (memory and profile) and attempts of the plan.
    pub games: usize,
    /// Rows of the plan.
    pub rows: usize,
    /// Attempts per game and row.
    pub runs: u32,
    /// The slice played (`--shard K/N`).
    pub shard: Option<Shard>,
    /// Episodes of the plan (of the shard).
    pub total: usize,
    /// Episodes left to play.
    pub to_play: usize,
    /// The most steps the episodes left may take.
    pub steps_cap: u64,
    /// LLM calls those steps make at each design's calls per step.
    pub calls: u64,
    /// Prompt and completion tokens at the paper's tokens per step (Table 3).
    pub paper_tokens: (u64, u64),
    /// Episodes played at once.
    pub jobs: usize,
    /// The bench directory.
    pub dir: PathBuf,
}

/// How a bench shows its progress; the command draws bars, a library caller may show
/// nothing. Called from the bench's tasks (hence `Sync`).
pub trait BenchProgress: Sync {
    /// The bench starts, its episodes are known.
    fn announce(&self, what: &Announcement);
    /// An episode starts (`label`: game / row / run; `cap`: its step cap): what shows it.
    fn episode(&self, label: &str, cap: u32) -> Box<dyn EpisodeProgress>;
    /// Every episode is played (or the bench stopped).
    fn finish(&self);
}

/// How one episode of a bench shows its steps.
pub trait EpisodeProgress: Send + Sync {
    /// A sink for the episode's steps (asked once per run directory).
    fn sink(&self) -> Box<dyn StepSink>;
    /// The episode ended: its row, or `None` when the bench stopped before it ended.
    fn ended(&self, row: Option<&EpisodeRow>);
    /// What shows the episode's chat call in flight (a step can take minutes on the
    /// embedded model); `None`: nothing does.
    fn calls(&self) -> Option<std::sync::Arc<dyn crate::llm::watch::CallWatch>> {
        None
    }
}

/// What a played bench gives back.
#[derive(Debug)]
pub struct BenchOutcome {
    /// The bench directory (tables, charts, `episodes.jsonl`, the runs).
    pub dir: PathBuf,
    /// Every episode's row, the earlier sessions' too.
    pub rows: Vec<EpisodeRow>,
    /// Wall time of this session.
    pub elapsed: Duration,
    /// Ctrl-C stopped it (resume with `--resume`).
    pub interrupted: bool,
    /// The results written (the table to print, the charts drawn).
    pub results: plan::Written,
}

/// Play a bench: every episode of the plan not yet finished, then the tables and
/// charts of all rows.
///
/// # Errors
/// Bad games or designs, set-up failures, and a set-up or input error in an episode
/// (an unreachable endpoint, a bad key: it would fail every episode, so it stops the
/// bench); any other failing episode is recorded as a failed row, not raised.
pub async fn bench(opts: BenchOptions, progress: &dyn BenchProgress) -> Result<BenchOutcome> {
    let (dir, plan) = session::open(&opts)?;
    let jobs = left_to_play(&plan, &dir);
    let at_once = opts.jobs.max(1);
    progress.announce(&announcement(&plan, &jobs, &dir, at_once));
    let py = pyenv::ensure(
        Needs {
            local: opts.llm.embedded_chat().then_some(opts.llm.local_model),
            embed: opts.llm.embed_base_url.is_none(),
            ..Needs::default()
        }
        .with_games(&plan.games),
    )
    .await?;
    let conn = connect::connect(
        &opts.llm,
        true,
        opts.jobs.max(1) as u32,
        plan.seed,
        &py,
        &py.home.join("logs"),
    )
    .await?;
    session::record(&dir, &plan, &opts, &conn.described)?;
    session::clear_restarted(&dir, &jobs);
    let log = Mutex::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("episodes.jsonl"))
            .context("cannot open episodes.jsonl")?,
    );
    let cancel = cancel::watch_ctrl_c();
    let abort: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let started = Instant::now();
    let runs_dir = dir.join("runs");
    let shared = Shared {
        progress,
        log: &log,
        conn: &conn,
        py: &py,
        plan: &plan,
        runs_dir: &runs_dir,
        abort: &abort,
        cancel: &cancel,
    };
    futures::stream::iter(jobs)
        .map(|(game, variant, run)| play_episode(&shared, game, variant, run))
        .buffer_unordered(at_once)
        .collect::<Vec<()>>()
        .await;
    progress.finish();
    conn.servers.stop().await;
    if let Some(e) = abort.into_inner().ok().flatten() {
        return Err(e.context(format!(
            "the bench stopped (finished episodes are in {}; resume with `ariadne bench --resume {}`)",
            dir.display(),
            dir.display()
        )));
    }
    let rows = read_episodes(&dir);
    let results = write_results(&dir, &plan, &rows)?;
    Ok(BenchOutcome {
        dir,
        rows,
        elapsed: started.elapsed(),
        interrupted: cancel.is_cancelled(),
        results,
    })
}

/// Every episode of the plan whose row in `dir` is not a finished one.
fn left_to_play(plan: &BenchPlan, dir: &std::path::Path) -> Vec<(GameSpec, Variant, u32)> {
    let finished: HashSet<(String, String, u32)> = read_episodes(dir)
        .into_iter()
        .filter(|r| r.outcome != Outcome::Failed)
        .map(|r| (r.game, r.memory, r.run))
        .collect();
    episodes(plan)
        .into_iter()
        .filter(|(g, v, run)| !finished.contains(&(g.name(), v.name(), *run)))
        .collect()
}

/// What the bench will play and may cost at the paper's tokens per step (Table 3).
fn announcement(
    plan: &BenchPlan,
    jobs: &[(GameSpec, Variant, u32)],
    dir: &std::path::Path,
    at_once: usize,
) -> Announcement {
    let steps = |g: &GameSpec| u64::from(step_cap(plan, g));
    let paper_tokens = jobs.iter().fold((0, 0), |acc, (g, v, _)| {
        let (p, c) = v.paper_tokens_per_step();
        (acc.0 + p * steps(g), acc.1 + c * steps(g))
    });
    Announcement {
        games: plan.games.len(),
        rows: plan.variants.len(),
        runs: plan.runs,
        shard: plan.shard,
        total: episodes(plan).len(),
        to_play: jobs.len(),
        steps_cap: jobs.iter().map(|(g, _, _)| steps(g)).sum(),
        calls: jobs
            .iter()
            .map(|(g, v, _)| steps(g) * v.calls_per_step())
            .sum(),
        paper_tokens,
        jobs: at_once,
        dir: dir.to_path_buf(),
    }
}

/// What every episode of a bench shares: the progress, the row log, the connection and
/// Python environment, the plan, and the stop signals.
struct Shared<'a> {
    progress: &'a dyn BenchProgress,
    log: &'a Mutex<std::fs::File>,
    conn: &'a connect::Connection,
    py: &'a pyenv::PyEnv,
    plan: &'a BenchPlan,
    runs_dir: &'a PathBuf,
    abort: &'a Mutex<Option<anyhow::Error>>,
    cancel: &'a tokio_util::sync::CancellationToken,
}

/// The episode a bench row plays of a game: the plan's settings with the row's, the
/// seed of the attempt.
fn episode_config(plan: &BenchPlan, game: &GameSpec, variant: &Variant, run: u32) -> EpisodeConfig {
    let (agent, memory, profile) = row_settings(plan, variant);
    EpisodeConfig {
        // The game the row plays (`level-obs`: with Level obs); `bench` checked that
        // every row can play every game of the plan.
        game: plan::played(game, variant).unwrap_or_else(|_| game.clone()),
        max_steps: step_cap(plan, game),
        seed: plan.seed + u64::from(run),
        design: variant.design,
        memory,
        trials: plan.trials,
        agent,
        prompts: plan.prompts.clone(),
        goal: plan.goal.clone(),
        walkthrough: false,
        script: None,
        profile,
        handover: None,
    }
}

/// Play one episode of the bench and append its row to `episodes.jsonl` (nothing when
/// the bench was interrupted, or stopped by a set-up error, which it records in
/// `abort`).
async fn play_episode(s: &Shared<'_>, game: GameSpec, variant: Variant, run: u32) {
    if s.cancel.is_cancelled() || s.abort.lock().map(|a| a.is_some()).unwrap_or(true) {
        return;
    }
    let name = game.name();
    let shown = s.progress.episode(
        &format!("{name} / {} / run {run}", variant.name()),
        step_cap(s.plan, &game),
    );
    let config = episode_config(s.plan, &game, &variant, run);
    let sinks = |_: &std::path::Path| -> Vec<Box<dyn StepSink>> { vec![shown.sink()] };
    let game_run = GameRun {
        runs_dir: s.runs_dir.clone(),
        run_id: format!("{name}--{}--run{run}", variant.name()),
        command: "bench".into(),
        conn: s.conn,
        py: s.py,
        cancel: s.cancel.clone(),
        sinks: &sinks,
        announce: false,
        game_timeout: Duration::from_secs(s.plan.game_timeout_s),
        calls: shown.calls(),
    };
    let result = play_game(&config, &game_run).await;
    let endpoint = || Endpoint::from_described(&s.conn.described);
    let attempt = || Attempt {
        game: name.clone(),
        memory: variant.name(),
        run,
    };
    let row = match result {
        Ok((summary, _)) if summary.outcome == Outcome::Interrupted => None,
        Err(_) if s.cancel.is_cancelled() => None,
        Err(e) if super::is_user_error(&e) => {
            if let Ok(mut a) = s.abort.lock()
                && a.is_none()
            {
                *a = Some(e);
            }
            None
        }
        Ok((summary, d)) => Some(EpisodeRow::finished(
            attempt(),
            &summary,
            d,
            s.runs_dir.parent().unwrap_or(s.runs_dir),
            endpoint(),
        )),
        Err(e) => Some(EpisodeRow::failed(attempt(), format!("{e:#}"), endpoint())),
    };
    if let Some(row) = &row
        && let Ok(mut f) = s.log.lock()
        && let Ok(line) = serde_json::to_string(row)
    {
        let _ = writeln!(f, "{line}");
        let _ = f.flush();
    }
    shown.ended(row.as_ref());
}
