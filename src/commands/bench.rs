//! `ariadne bench`: the paper's evaluation protocol (section 4.1, Table 4) as one
//! command: several games, several memory designs, N attempts each, normalized score
//! as the mean of the best 3 (and the mean and spread of all N), with cost (steps, LLM
//! calls, tokens per step, wall time); episodes run concurrently up to `--jobs`; an
//! interrupted bench resumes without losing a finished episode.

pub mod charts;
pub mod compare;
pub mod merge;
pub mod plan;
pub mod report;
mod session;

pub use plan::{Shard, episodes, write_results};

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::StreamExt;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use super::term::ProgressSink;
use crate::agent::AgentSettings;
use crate::cancel;
use crate::cli::{BenchAction, BenchArgs};
use crate::env::GameSpec;
use crate::env::pyenv::{self, Needs};
use crate::episode::EpisodeConfig;
use crate::episode::game::{GameRun, play_game};
use crate::error::{Interrupted, UserError};
use crate::llm::connect::{self, LlmSettings};
use crate::memory::{MemorySettings, Variant};
use crate::profile::ProfileRecord;
use crate::settings::Resolver;
use crate::trajectory::{Goal, Outcome, StepSink};
use report::{Endpoint, EpisodeRow, read_episodes};

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

/// What `ariadne bench` was asked.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// The plan (ignored with `resume`, which reads it from the bench directory).
    pub plan: BenchPlan,
    /// Episodes at once.
    pub jobs: usize,
    /// Bench directory (default `runs/bench-<time>`).
    pub out: Option<PathBuf>,
    /// Resume this bench directory.
    pub resume: Option<PathBuf>,
    /// Endpoints.
    pub llm: LlmSettings,
}

/// Run `ariadne bench`. Returns the bench directory.
///
/// # Errors
/// Bad games or designs, setup failures; a failing episode is recorded, not raised.
pub async fn bench(opts: BenchOptions) -> Result<PathBuf> {
    let (dir, plan) = session::open(&opts)?;
    let done: Vec<EpisodeRow> = read_episodes(&dir)
        .into_iter()
        .filter(|r| r.outcome != Outcome::Failed)
        .collect();
    let finished: HashSet<(String, String, u32)> = done
        .iter()
        .map(|r| (r.game.clone(), r.memory.clone(), r.run))
        .collect();

    // Every episode of the plan that is not finished.
    let all = episodes(&plan);
    let total = all.len();
    let jobs: Vec<(GameSpec, Variant, u32)> = all
        .into_iter()
        .filter(|(g, v, run)| !finished.contains(&(g.name(), v.name(), *run)))
        .collect();
    announce(&plan, &jobs, total, &dir);

    let py = pyenv::ensure(
        Needs {
            local: opts.llm.embedded_chat().then_some(opts.llm.local_model),
            embed: opts.llm.embed_base_url.is_none(),
            ..Needs::default()
        }
        .with_games(&plan.games),
    )
    .await?;
    let conn = connect::connect(&opts.llm, true, plan.seed, &py, &py.home.join("logs")).await?;
    session::record(&dir, &plan, &opts, &conn.described)?;
    session::clear_restarted(&dir, &jobs);

    let multi = MultiProgress::new();
    if std::env::var_os("ARIADNE_NO_PROGRESS").is_some() {
        multi.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let overall = multi.add(ProgressBar::new(total as u64));
    overall.set_style(
        ProgressStyle::with_template(
            "episodes [{bar:30}] {pos}/{len} {msg} elapsed {elapsed} eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    overall.set_position((total - jobs.len()) as u64);
    overall.enable_steady_tick(Duration::from_millis(500));
    let log = Mutex::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("episodes.jsonl"))
            .context("cannot open episodes.jsonl")?,
    );
    let cancel = cancel::watch_ctrl_c();
    // A setup or input error (unreachable endpoint, bad key) would fail every episode:
    // it stops the bench instead, with one line and exit code 2.
    let abort: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let failures = Mutex::new(0usize);
    let started = Instant::now();
    let runs_dir = dir.join("runs");
    let shared = Shared {
        multi: &multi,
        overall: &overall,
        log: &log,
        failures: &failures,
        conn: &conn,
        py: &py,
        plan: &plan,
        runs_dir: &runs_dir,
        abort: &abort,
        cancel: &cancel,
    };
    futures::stream::iter(jobs)
        .map(|(game, variant, run)| play_episode(&shared, game, variant, run))
        .buffer_unordered(opts.jobs.max(1))
        .collect::<Vec<()>>()
        .await;
    overall.finish_and_clear();
    conn.servers.stop().await;
    if let Some(e) = abort.into_inner().ok().flatten() {
        return Err(e.context(format!(
            "the bench stopped (finished episodes are in {}; resume with `ariadne bench --resume {}`)",
            dir.display(),
            dir.display()
        )));
    }

    let rows = read_episodes(&dir);
    write_results(&dir, &plan, &rows)?;
    let failed = rows.iter().filter(|r| r.outcome == Outcome::Failed).count();
    let interrupted = cancel.is_cancelled();
    println!(
        "{} episodes recorded ({failed} failed) in {:.1}s; results in {}{}",
        rows.len(),
        started.elapsed().as_secs_f64(),
        dir.display(),
        if interrupted {
            format!(
                "; interrupted: resume with `ariadne bench --resume {}`",
                dir.display()
            )
        } else {
            String::new()
        }
    );
    for r in rows.iter().filter(|r| r.outcome == Outcome::Failed) {
        println!(
            "failed: {} / {} / run {}: {}",
            r.game,
            r.memory,
            r.run,
            r.error.as_deref().unwrap_or("?")
        );
    }
    if interrupted {
        return Err(anyhow::Error::new(Interrupted));
    }
    if !rows.is_empty() && failed == rows.len() {
        bail!(
            "every episode of the bench failed ({failed}); see the reasons above and in {}",
            dir.join("episodes.jsonl").display()
        );
    }
    Ok(dir)
}

/// Say what the bench will play: the plan's size, what is left, and what it may cost at
/// the paper's tokens per step (Table 3).
fn announce(plan: &BenchPlan, jobs: &[(GameSpec, Variant, u32)], total: usize, dir: &Path) {
    let steps_cap: u64 = jobs
        .iter()
        .map(|(g, _, _)| u64::from(step_cap(plan, g)))
        .sum();
    let calls: u64 = jobs
        .iter()
        .map(|(g, v, _)| u64::from(step_cap(plan, g)) * v.calls_per_step())
        .sum();
    let (pt, ct): (u64, u64) = jobs.iter().fold((0, 0), |acc, (g, v, _)| {
        let (p, c) = v.paper_tokens_per_step();
        let s = u64::from(step_cap(plan, g));
        (acc.0 + p * s, acc.1 + c * s)
    });
    println!(
        "ariadne bench: {} x {} (memory and profile) x {}{} = {total} episodes ({} already finished); to play: {} episodes, at most {steps_cap} steps, about {calls} LLM calls; at the paper's tokens per step (Table 3) up to {:.1}M prompt / {:.1}M completion tokens",
        count(plan.games.len(), "game"),
        count(plan.variants.len(), "row"),
        count(plan.runs as usize, "run"),
        plan.shard
            .map(|s| format!(", shard {} of {}", s.k, s.n))
            .unwrap_or_default(),
        total - jobs.len(),
        jobs.len(),
        pt as f64 / 1e6,
        ct as f64 / 1e6
    );
    println!("bench directory: {}", dir.display());
}

/// `1 game`, `2 games`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// What every episode of a bench shares: the progress bars, the row log, the
/// connection and Python environment, the plan, and the stop signals.
struct Shared<'a> {
    multi: &'a MultiProgress,
    overall: &'a ProgressBar,
    log: &'a Mutex<std::fs::File>,
    failures: &'a Mutex<usize>,
    conn: &'a connect::Connection,
    py: &'a pyenv::PyEnv,
    plan: &'a BenchPlan,
    runs_dir: &'a PathBuf,
    abort: &'a Mutex<Option<anyhow::Error>>,
    cancel: &'a tokio_util::sync::CancellationToken,
}

/// Play one episode of the bench and append its row to `episodes.jsonl` (nothing when
/// the bench was interrupted, or stopped by a set-up error, which it records in
/// `abort`).
async fn play_episode(s: &Shared<'_>, game: GameSpec, variant: Variant, run: u32) {
    let Shared {
        multi,
        overall,
        log,
        failures,
        conn,
        py,
        plan,
        runs_dir,
        abort,
        cancel,
    } = *s;
    if cancel.is_cancelled() || abort.lock().map(|a| a.is_some()).unwrap_or(true) {
        return;
    }
    let name = game.name();
    let cap = step_cap(plan, &game);
    let pb = multi.add(ProgressBar::new(u64::from(cap)));
    pb.set_style(
        ProgressStyle::with_template("  {prefix:40} [{bar:20}] step {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb.set_prefix(format!("{name} / {} / run {run}", variant.name()));
    let (agent, memory, profile) = row_settings(plan, &variant);
    let config = EpisodeConfig {
        // The game the row plays (`level-obs`: with Level obs); `bench` checked that
        // every row can play every game of the plan.
        game: plan::played(&game, &variant).unwrap_or_else(|_| game.clone()),
        max_steps: cap,
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
    };
    let bar = pb.clone();
    let sinks =
        move |_: &Path| -> Vec<Box<dyn StepSink>> { vec![Box::new(ProgressSink(bar.clone()))] };
    let game_run = GameRun {
        runs_dir: runs_dir.clone(),
        run_id: format!("{name}--{}--run{run}", variant.name()),
        command: "bench".into(),
        conn,
        py,
        cancel: cancel.clone(),
        sinks: &sinks,
        announce: false,
        game_timeout: std::time::Duration::from_secs(plan.game_timeout_s),
    };
    let result = play_game(&config, &game_run).await;
    pb.finish_and_clear();
    multi.remove(&pb);
    let row = match result {
        Ok((s, _)) if s.outcome == Outcome::Interrupted => return,
        Err(_) if cancel.is_cancelled() => return,
        Err(e) if super::is_user_error(&e) => {
            if let Ok(mut a) = abort.lock()
                && a.is_none()
            {
                *a = Some(e);
            }
            return;
        }
        Ok((s, d)) => EpisodeRow::finished(
            name,
            variant.name(),
            run,
            &s,
            d,
            runs_dir.parent().unwrap_or(runs_dir),
            Endpoint::from_described(&conn.described),
        ),
        Err(e) => {
            if let Ok(mut f) = failures.lock() {
                *f += 1;
            }
            EpisodeRow::failed(
                name,
                variant.name(),
                run,
                format!("{e:#}"),
                Endpoint::from_described(&conn.described),
            )
        }
    };
    if let Ok(mut f) = log.lock()
        && let Ok(line) = serde_json::to_string(&row)
    {
        let _ = writeln!(f, "{line}");
        let _ = f.flush();
    }
    overall.inc(1);
    overall.set_message(format!(
        "last: {} {} run {} {}",
        row.game, row.memory, row.run, row.outcome
    ));
}

/// Run `ariadne bench` from its arguments: resolve the settings (the same resolver as
/// `play`), then [`bench()`].
///
/// # Errors
/// See [`bench()`].
pub async fn run(args: BenchArgs) -> Result<ExitCode> {
    if let Some(BenchAction::Compare { before, after }) = &args.action {
        print!("{}", compare::compare(before, after)?);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(BenchAction::Merge { dirs, out }) = &args.action {
        let missing = merge::merge(dirs, out)?;
        println!("merged {} shard(s) into {}", dirs.len(), out.display());
        if !missing.is_empty() {
            eprintln!(
                "warning: {} episode(s) of the plan are in no shard: {}",
                missing.len(),
                missing.join(", ")
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let resolver = Resolver::load(args.llm.config.as_deref())?;
    // With no temperature given, calls are sampled at the reference code's temperature
    // per module (plan and action at 0.2), so N attempts differ.
    let llm = resolver.llm(&args.llm)?;
    // A row per profile and memory design, profiles outermost.
    let profiles = resolver.profiles(&args.memory_args)?;
    let designs = Variant::parse_list(&args.memory)?;
    let variants: Vec<Variant> = profiles
        .iter()
        .flat_map(|p| {
            designs.iter().map(|v| Variant {
                profile: Some(*p),
                ..*v
            })
        })
        .collect();
    // A resumed bench plays its own plan, rules included.
    let without = match args.resume {
        Some(_) => Vec::new(),
        None => resolver.without(&args.memory_args)?,
    };
    let games = if args.resume.is_some() {
        Vec::new()
    } else {
        crate::env::games::expand(&args.games)?
    };
    let memory = resolver.bench_memory(&args, &variants)?;
    let plan = BenchPlan {
        games,
        variants,
        runs: args.runs.max(1),
        max_steps: args.max_steps,
        seed: args.seed,
        trials: args.game_args.trials(),
        memory,
        agent: resolver.agent(&args.game_args, &crate::profile::Rules::NONE),
        without,
        prompts: resolver.prompts(&args.memory_args),
        goal: resolver.goal(&args.game_args)?,
        game_timeout_s: args.game_args.game_timeout,
        shard: args
            .shard
            .as_deref()
            .map(|s| {
                let shard = if s.trim() == "auto" {
                    Shard::from_scheduler(|name| std::env::var(name).ok())
                } else {
                    s.parse::<Shard>()
                };
                shard.map_err(|e| UserError::new(format!("--shard: {e}")))
            })
            .transpose()?,
    };
    bench(BenchOptions {
        plan,
        jobs: usize::from(args.jobs),
        out: args.out.clone(),
        resume: args.resume.clone(),
        llm,
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}
