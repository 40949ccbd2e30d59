//! `ariadne bench`: the paper's evaluation protocol (section 4.1, Table 4) as one
//! command: several games, several memory designs, N attempts each, normalized score
//! as the mean of the best 3 (and the mean and spread of all N), with cost (steps, LLM
//! calls, tokens per step, wall time); episodes run concurrently up to `--jobs`; an
//! interrupted bench resumes without losing a finished episode.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::StreamExt;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::agent::AgentSettings;
use crate::error::UserError;
use crate::memory::{MemoryDesign, MemorySettings};
use crate::play::{self, GameConfig, GameRun};
use crate::pyenv;
use crate::settings::{LlmSettings, games_dirs, resolve_game};

/// A row of the results: a memory design, possibly with the exploration switch off
/// (the paper's "w/o exploration").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Variant {
    /// The memory design.
    pub design: MemoryDesign,
    /// Unexplored exits shown.
    pub exploration: bool,
}

impl Variant {
    /// Parse a `--memory` entry: a design name, or `arigraph-no-exploration`.
    ///
    /// # Errors
    /// A [`UserError`] listing the names.
    pub fn parse(name: &str) -> Result<Self> {
        if name == "arigraph-no-exploration" {
            return Ok(Self {
                design: MemoryDesign::Arigraph,
                exploration: false,
            });
        }
        MemoryDesign::ALL
            .iter()
            .find(|d| d.name() == name)
            .map(|d| Self {
                design: *d,
                exploration: true,
            })
            .ok_or_else(|| {
                let mut names: Vec<&str> = MemoryDesign::ALL.iter().map(|d| d.name()).collect();
                names.push("arigraph-no-exploration");
                UserError::new(format!(
                    "unknown memory design {name:?}; known: {}",
                    names.join(", ")
                ))
                .into()
            })
    }

    /// The name on the command line and in files.
    pub fn name(self) -> String {
        if self.design == MemoryDesign::Arigraph && !self.exploration {
            "arigraph-no-exploration".into()
        } else {
            self.design.name().into()
        }
    }

    /// The row label of the paper's Table 4.
    pub fn label(self) -> &'static str {
        match (self.design, self.exploration) {
            (MemoryDesign::Arigraph, false) => "AriGraph w/o exploration",
            (MemoryDesign::Arigraph, true) => "AriGraph",
            (MemoryDesign::ArigraphNoEpisodic, _) => "AriGraph w/o episodic",
            (MemoryDesign::FullHistory, _) => "Full history",
            (MemoryDesign::Summary, _) => "Summary",
            (MemoryDesign::Rag, _) => "RAG",
            (MemoryDesign::Simulacra, _) => "Simulacra",
            (MemoryDesign::Reflexion, _) => "Reflexion",
        }
    }

    /// Prompt and completion tokens per step the paper reports for the design (Table 3),
    /// used for the cost estimate.
    pub fn paper_tokens_per_step(self) -> (u64, u64) {
        match self.design {
            MemoryDesign::Arigraph | MemoryDesign::ArigraphNoEpisodic => (6000, 500),
            MemoryDesign::Rag => (4000, 350),
            MemoryDesign::Summary => (3800, 350),
            MemoryDesign::FullHistory => (14000, 350),
            MemoryDesign::Simulacra => (7500, 400),
            MemoryDesign::Reflexion => (5800, 350),
        }
    }

    /// Chat calls per step, about (extraction, outdated check, plan, action for AriGraph).
    pub fn calls_per_step(self) -> u64 {
        match self.design {
            MemoryDesign::Arigraph | MemoryDesign::ArigraphNoEpisodic => 4,
            MemoryDesign::Summary | MemoryDesign::Simulacra => 3,
            MemoryDesign::FullHistory | MemoryDesign::Rag | MemoryDesign::Reflexion => 2,
        }
    }
}

/// The bench's settings, written to `bench.json` and read back by `--resume`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchPlan {
    /// Game files.
    pub games: Vec<PathBuf>,
    /// Rows.
    pub variants: Vec<Variant>,
    /// Attempts per game and row.
    pub runs: u32,
    /// Step cap; `None`: 60 for cooking games, 150 otherwise (the paper's caps).
    pub max_steps: Option<u32>,
    /// Base seed; attempt i uses seed + i.
    pub seed: u64,
    /// Reflexion trials.
    pub trials: u32,
    /// Memory parameters.
    pub memory: MemorySettings,
    /// Prompt directory override.
    pub prompts: Option<PathBuf>,
}

/// The step cap of a game: the plan's, or the paper's (Cooking 60, else 150).
pub fn step_cap(plan: &BenchPlan, game: &Path) -> u32 {
    plan.max_steps.unwrap_or_else(|| {
        let name = game
            .file_stem()
            .map(|s| s.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        if name.contains("cook") { 60 } else { 150 }
    })
}

/// One finished (or failed) episode, one line of `episodes.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpisodeRow {
    /// Game name.
    pub game: String,
    /// Row name.
    pub memory: String,
    /// Attempt, 1-based.
    pub run: u32,
    /// Summary outcome, or "failed".
    pub outcome: String,
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
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// The run directory relative to the bench directory (the last trial's for
    /// Reflexion).
    pub dir: PathBuf,
}

/// Mean of the best `k` values (all of them when there are fewer than `k`); 0 for none.
/// The paper's rule with k = 3 of 5 attempts.
pub fn best_k_mean(scores: &[f64], k: usize) -> f64 {
    if scores.is_empty() {
        return 0.0;
    }
    let mut s = scores.to_vec();
    s.sort_by(|a, b| b.total_cmp(a));
    let top = &s[..k.min(s.len())];
    top.iter().sum::<f64>() / top.len() as f64
}

/// Mean and sample standard deviation (0 with fewer than 2 values).
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// The aggregate of one game and row.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Cell {
    /// Game name.
    pub game: String,
    /// Row name.
    pub memory: String,
    /// Completed episodes.
    pub episodes: usize,
    /// Failed episodes (not in the scores).
    pub failed: usize,
    /// Mean normalized score of the best 3 (the paper's rule).
    pub best3: f64,
    /// Mean normalized score of all completed episodes.
    pub mean: f64,
    /// Sample standard deviation of the normalized scores.
    pub std: f64,
    /// Share of episodes won.
    pub win_rate: f64,
    /// Mean steps per episode.
    pub steps: f64,
    /// Mean chat calls per episode.
    pub llm_calls: f64,
    /// Prompt tokens per step.
    pub prompt_tokens_per_step: f64,
    /// Completion tokens per step.
    pub completion_tokens_per_step: f64,
    /// Mean wall time per episode, seconds.
    pub wall_s: f64,
}

/// Aggregate episodes into one cell per (game, row), in the order of `games` and `rows`.
pub fn aggregate(rows: &[EpisodeRow], games: &[String], variants: &[String]) -> Vec<Cell> {
    let mut out = Vec::new();
    for g in games {
        for v in variants {
            let eps: Vec<&EpisodeRow> = rows
                .iter()
                .filter(|r| &r.game == g && &r.memory == v)
                .collect();
            let done: Vec<&&EpisodeRow> = eps.iter().filter(|r| r.outcome != "failed").collect();
            let scores: Vec<f64> = done.iter().map(|r| r.normalized_score).collect();
            let (mean, std) = mean_std(&scores);
            let n = done.len().max(1) as f64;
            let steps: u64 = done.iter().map(|r| u64::from(r.steps)).sum();
            let per_step = |x: u64| {
                if steps > 0 {
                    x as f64 / steps as f64
                } else {
                    0.0
                }
            };
            out.push(Cell {
                game: g.clone(),
                memory: v.clone(),
                episodes: done.len(),
                failed: eps.len() - done.len(),
                best3: best_k_mean(&scores, 3),
                mean,
                std,
                win_rate: done.iter().filter(|r| r.outcome == "won").count() as f64 / n,
                steps: steps as f64 / n,
                llm_calls: done.iter().map(|r| r.llm_calls).sum::<u64>() as f64 / n,
                prompt_tokens_per_step: per_step(done.iter().map(|r| r.prompt_tokens).sum()),
                completion_tokens_per_step: per_step(
                    done.iter().map(|r| r.completion_tokens).sum(),
                ),
                wall_s: done.iter().map(|r| r.wall_s).sum::<f64>() / n,
            });
        }
    }
    out
}

/// The results as Markdown: Table 4's shape (rows: memories; columns: games; cells:
/// best-3 normalized score), Table 3's (tokens per step), and the details.
pub fn markdown(cells: &[Cell], games: &[String], variants: &[Variant], runs: u32) -> String {
    let cell = |g: &str, v: &str| cells.iter().find(|c| c.game == g && c.memory == v);
    let mut md = format!(
        "# Ariadne bench\n\nNormalized score: mean of the best 3 of {runs} attempts (the paper's Table 4 rule).\n\n| memory |"
    );
    for g in games {
        md.push_str(&format!(" {g} |"));
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(games.len()));
    md.push('\n');
    for v in variants {
        md.push_str(&format!("| {} |", v.label()));
        for g in games {
            match cell(g, &v.name()) {
                Some(c) if c.episodes > 0 => md.push_str(&format!(" {:.2} |", c.best3)),
                _ => md.push_str(" - |"),
            }
        }
        md.push('\n');
    }
    md.push_str("\nTokens per step, prompt / completion (the paper's Table 3).\n\n| memory | tokens per step |\n|---|---|\n");
    for v in variants {
        let cs: Vec<&Cell> = cells
            .iter()
            .filter(|c| c.memory == v.name() && c.episodes > 0)
            .collect();
        if cs.is_empty() {
            md.push_str(&format!("| {} | - |\n", v.label()));
            continue;
        }
        let steps: f64 = cs.iter().map(|c| c.steps * c.episodes as f64).sum();
        let p: f64 = cs
            .iter()
            .map(|c| c.prompt_tokens_per_step * c.steps * c.episodes as f64)
            .sum();
        let q: f64 = cs
            .iter()
            .map(|c| c.completion_tokens_per_step * c.steps * c.episodes as f64)
            .sum();
        let (p, q) = if steps > 0.0 {
            (p / steps, q / steps)
        } else {
            (0.0, 0.0)
        };
        md.push_str(&format!("| {} | {:.0} / {:.0} |\n", v.label(), p, q));
    }
    md.push_str("\nDetails.\n\n| game | memory | episodes | failed | best 3 | mean | std | win rate | steps | LLM calls | prompt tok/step | completion tok/step | wall s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for c in cells {
        if c.episodes == 0 {
            md.push_str(&format!(
                "| {} | {} | 0 | {} | - | - | - | - | - | - | - | - | - |\n",
                c.game, c.memory, c.failed
            ));
            continue;
        }
        md.push_str(&format!(
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} | {:.1} | {:.0} | {:.0} | {:.1} |\n",
            c.game, c.memory, c.episodes, c.failed, c.best3, c.mean, c.std, c.win_rate, c.steps, c.llm_calls,
            c.prompt_tokens_per_step, c.completion_tokens_per_step, c.wall_s
        ));
    }
    md
}

/// The results as CSV, one line per cell.
pub fn csv(cells: &[Cell]) -> String {
    let mut out = String::from(
        "game,memory,episodes,failed,best3,mean,std,win_rate,steps,llm_calls,prompt_tokens_per_step,completion_tokens_per_step,wall_s\n",
    );
    for c in cells {
        out.push_str(&format!(
            "{},{},{},{},{:.4},{:.4},{:.4},{:.4},{:.2},{:.2},{:.1},{:.1},{:.2}\n",
            c.game,
            c.memory,
            c.episodes,
            c.failed,
            c.best3,
            c.mean,
            c.std,
            c.win_rate,
            c.steps,
            c.llm_calls,
            c.prompt_tokens_per_step,
            c.completion_tokens_per_step,
            c.wall_s
        ));
    }
    out
}

/// Expand `--games` entries: a bundled name or a `.z8` path, else a directory of games,
/// a family of `games/manifest.json` (every game of it), or `all` (every bundled game).
///
/// # Errors
/// An entry that names no game, or a game without its sidecar.
pub fn expand_games(entries: &[String]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for e in entries
        .iter()
        .flat_map(|e| e.split(','))
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        let dir = if e == "all" {
            games_dirs().into_iter().find(|d| d.is_dir())
        } else {
            Some(PathBuf::from(e)).filter(|p| p.is_dir())
        };
        // A family named in a manifest: every game of that family.
        let family: Vec<PathBuf> = games_dirs()
            .into_iter()
            .filter(|d| d.is_dir())
            .take(1)
            .flat_map(|d| {
                crate::games::read_manifest(&d.join("manifest.json"))
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|g| g.family == e)
                    .map(move |g| d.join(&g.file))
                    .collect::<Vec<_>>()
            })
            .collect();
        // A bundled game's name wins over a family of the same name ("cooking").
        let named = resolve_game(e);
        if named.is_file() {
            out.push(named);
        } else if !family.is_empty() {
            out.extend(family);
        } else if let Some(d) = dir {
            let mut games: Vec<PathBuf> = std::fs::read_dir(&d)
                .with_context(|| format!("cannot read {}", d.display()))?
                .filter_map(|x| x.ok().map(|x| x.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "z8"))
                .collect();
            games.sort();
            out.extend(games);
        } else {
            out.push(resolve_game(e));
        }
    }
    if out.is_empty() {
        bail!(UserError::new(
            "no games: give --games NAME[,NAME...], a .z8 path, a directory, or all"
        ));
    }
    for g in &out {
        crate::env::check_game(g)?;
    }
    let mut seen = HashSet::new();
    out.retain(|g| seen.insert(g.clone()));
    Ok(out)
}

fn game_name(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
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

/// Read `episodes.jsonl` (a truncated last line is skipped). An episode played again
/// after a resume keeps only its last line.
pub fn read_episodes(dir: &Path) -> Vec<EpisodeRow> {
    let all: Vec<EpisodeRow> = std::fs::read_to_string(dir.join("episodes.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let mut out: Vec<EpisodeRow> = Vec::new();
    for r in all {
        out.retain(|o| (&o.game, &o.memory, o.run) != (&r.game, &r.memory, r.run));
        out.push(r);
    }
    out
}

/// Run `ariadne bench`. Returns the bench directory.
///
/// # Errors
/// Bad games or designs, setup failures; a failing episode is recorded, not raised.
pub async fn bench(opts: BenchOptions) -> Result<PathBuf> {
    let (dir, plan) = match &opts.resume {
        Some(d) => {
            let text = std::fs::read_to_string(d.join("bench.json")).map_err(|e| {
                UserError::new(format!(
                    "not a bench directory: cannot read {}: {e}",
                    d.join("bench.json").display()
                ))
            })?;
            let v: serde_json::Value =
                serde_json::from_str(&text).context("bench.json is malformed")?;
            let plan: BenchPlan =
                serde_json::from_value(v["plan"].clone()).context("bench.json has no plan")?;
            (d.clone(), plan)
        }
        None => {
            let dir = opts.out.clone().unwrap_or_else(|| {
                PathBuf::from("runs").join(format!(
                    "bench-{}",
                    chrono::Local::now().format("%Y%m%d-%H%M%S")
                ))
            });
            (dir, opts.plan.clone())
        }
    };
    for g in &plan.games {
        crate::env::check_game(g)?;
    }
    crate::prompts::Prompts::load(plan.prompts.as_deref())?;
    if opts.resume.is_none() && dir.join("bench.json").exists() {
        bail!(UserError::new(format!(
            "{} already holds a bench; resume it with `ariadne bench --resume {}` or choose another --out",
            dir.display(),
            dir.display()
        )));
    }
    if dir.exists() && !dir.is_dir() {
        bail!(UserError::new(format!(
            "--out {} is a file, not a directory",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir.join("runs"))
        .with_context(|| format!("cannot create {}", dir.display()))?;
    let done: Vec<EpisodeRow> = read_episodes(&dir)
        .into_iter()
        .filter(|r| r.outcome != "failed")
        .collect();
    let finished: HashSet<(String, String, u32)> = done
        .iter()
        .map(|r| (r.game.clone(), r.memory.clone(), r.run))
        .collect();

    // Every episode of the plan that is not finished.
    let mut jobs = Vec::new();
    for g in &plan.games {
        for v in &plan.variants {
            for run in 1..=plan.runs {
                if !finished.contains(&(game_name(g), v.name(), run)) {
                    jobs.push((g.clone(), *v, run));
                }
            }
        }
    }
    let total = plan.games.len() * plan.variants.len() * plan.runs as usize;
    let steps_cap: u64 = jobs
        .iter()
        .map(|(g, _, _)| u64::from(step_cap(&plan, g)))
        .sum();
    let calls: u64 = jobs
        .iter()
        .map(|(g, v, _)| u64::from(step_cap(&plan, g)) * v.calls_per_step())
        .sum();
    let (pt, ct): (u64, u64) = jobs.iter().fold((0, 0), |acc, (g, v, _)| {
        let (p, c) = v.paper_tokens_per_step();
        let s = u64::from(step_cap(&plan, g));
        (acc.0 + p * s, acc.1 + c * s)
    });
    println!(
        "ariadne bench: {} games x {} memories x {} runs = {total} episodes ({} already finished); to play: {} episodes, at most {steps_cap} steps, about {calls} LLM calls; at the paper's tokens per step (Table 3) up to {:.1}M prompt / {:.1}M completion tokens",
        plan.games.len(),
        plan.variants.len(),
        plan.runs,
        total - jobs.len(),
        jobs.len(),
        pt as f64 / 1e6,
        ct as f64 / 1e6
    );
    println!("bench directory: {}", dir.display());

    let py = pyenv::ensure(
        opts.llm.embedded_chat().then_some(opts.llm.local_model),
        opts.llm.embed_base_url.is_none(),
    )
    .await?;
    let conn = play::connect(&opts.llm, plan.seed, &py, &py.home.join("logs")).await?;
    let bench_json = json!({
        "format_version": crate::trajectory::FORMAT_VERSION,
        "ariadne_version": env!("CARGO_PKG_VERSION"),
        "created_at": chrono::Local::now().to_rfc3339(),
        "plan": plan,
        "jobs": opts.jobs,
        "llm": conn.described,
    });
    if opts.resume.is_none() || !dir.join("bench.json").exists() {
        std::fs::write(
            dir.join("bench.json"),
            serde_json::to_string_pretty(&bench_json)? + "\n",
        )?;
    }
    // A restarted episode starts from a clean directory.
    for (g, v, run) in &jobs {
        let prefix = format!("{}--{}--run{run}", game_name(g), v.name());
        if let Ok(entries) = std::fs::read_dir(dir.join("runs")) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name == prefix || name.starts_with(&format!("{prefix}-")) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }

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
    crate::interrupt::install();
    // A setup or input error (unreachable endpoint, bad key) would fail every episode:
    // it stops the bench instead, with one line and exit code 2.
    let abort: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let failures = Mutex::new(0usize);
    let started = Instant::now();
    let runs_dir = dir.join("runs");
    futures::stream::iter(jobs)
        .map(|(game, variant, run)| {
            let (multi, overall, log, failures, conn, py, plan, runs_dir, abort) = (
                &multi, &overall, &log, &failures, &conn, &py, &plan, &runs_dir, &abort,
            );
            async move {
                if crate::interrupt::is_set() || abort.lock().map(|a| a.is_some()).unwrap_or(true) {
                    return;
                }
                let name = game_name(&game);
                let cap = step_cap(plan, &game);
                let pb = multi.add(ProgressBar::new(u64::from(cap)));
                pb.set_style(
                    ProgressStyle::with_template("  {prefix:40} [{bar:20}] step {pos}/{len} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                pb.set_prefix(format!("{name} / {} / run {run}", variant.name()));
                let config = GameConfig {
                    game: game.clone(),
                    max_steps: cap,
                    seed: plan.seed + u64::from(run),
                    design: variant.design,
                    memory: plan.memory.clone(),
                    trials: plan.trials,
                    agent: AgentSettings {
                        exploration: variant.exploration,
                        ..AgentSettings::default()
                    },
                    prompts: plan.prompts.clone(),
                };
                let game_run = GameRun {
                    config,
                    runs_dir: runs_dir.clone(),
                    run_id: format!("{name}--{}--run{run}", variant.name()),
                    quiet: true,
                    progress: Some(pb.clone()),
                    command: "bench".into(),
                };
                let result = play::play_game(&game_run, conn, py).await;
                pb.finish_and_clear();
                multi.remove(&pb);
                let row = match result {
                    Ok((s, _)) if s.outcome == "interrupted" => return,
                    Err(_) if crate::interrupt::is_set() => return,
                    Err(e) if crate::error::is_user_error(&e) => {
                        if let Ok(mut a) = abort.lock()
                            && a.is_none()
                        {
                            *a = Some(e);
                        }
                        return;
                    }
                    Ok((s, d)) => EpisodeRow {
                        game: name,
                        memory: variant.name(),
                        run,
                        outcome: s.outcome.clone(),
                        error: None,
                        score: s.score,
                        max_score: s.max_score,
                        normalized_score: s.normalized_score,
                        steps: s.steps,
                        llm_calls: s.llm_calls,
                        prompt_tokens: s.usage.prompt_tokens,
                        completion_tokens: s.usage.completion_tokens,
                        wall_s: s.wall_s,
                        dir: d
                            .strip_prefix(runs_dir.parent().unwrap_or(runs_dir))
                            .map(Path::to_path_buf)
                            .unwrap_or(d),
                    },
                    Err(e) => {
                        if let Ok(mut f) = failures.lock() {
                            *f += 1;
                        }
                        EpisodeRow {
                            game: name.clone(),
                            memory: variant.name(),
                            run,
                            outcome: "failed".into(),
                            error: Some(format!("{e:#}")),
                            score: 0,
                            max_score: 0,
                            normalized_score: 0.0,
                            steps: 0,
                            llm_calls: 0,
                            prompt_tokens: 0,
                            completion_tokens: 0,
                            wall_s: 0.0,
                            dir: PathBuf::from("runs")
                                .join(format!("{name}--{}--run{run}", variant.name())),
                        }
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
        })
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
    let games: Vec<String> = plan.games.iter().map(|g| game_name(g)).collect();
    let names: Vec<String> = plan.variants.iter().map(|v| v.name()).collect();
    let cells = aggregate(&rows, &games, &names);
    let md = markdown(&cells, &games, &plan.variants, plan.runs);
    std::fs::write(dir.join("results.md"), &md)?;
    std::fs::write(dir.join("results.csv"), csv(&cells))?;
    let by_cell: BTreeMap<String, &Cell> = cells
        .iter()
        .map(|c| (format!("{}/{}", c.game, c.memory), c))
        .collect();
    std::fs::write(
        dir.join("results.json"),
        serde_json::to_string_pretty(&json!({"cells": by_cell, "episodes": rows}))? + "\n",
    )?;
    println!("{md}");
    let failed = rows.iter().filter(|r| r.outcome == "failed").count();
    let interrupted = crate::interrupt::is_set();
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
    for r in rows.iter().filter(|r| r.outcome == "failed") {
        println!(
            "failed: {} / {} / run {}: {}",
            r.game,
            r.memory,
            r.run,
            r.error.as_deref().unwrap_or("?")
        );
    }
    if interrupted {
        return Err(anyhow::Error::new(crate::error::Interrupted));
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(game: &str, mem: &str, run: u32, score: f64, outcome: &str) -> EpisodeRow {
        EpisodeRow {
            game: game.into(),
            memory: mem.into(),
            run,
            outcome: outcome.into(),
            error: None,
            score: (score * 10.0) as i64,
            max_score: 10,
            normalized_score: score,
            steps: 10,
            llm_calls: 40,
            prompt_tokens: 20_000,
            completion_tokens: 3_000,
            wall_s: 5.0,
            dir: PathBuf::new(),
        }
    }

    #[test]
    fn best_three_of_five() {
        assert!((best_k_mean(&[0.2, 1.0, 0.4, 0.8, 0.6], 3) - 0.8).abs() < 1e-12);
        // Ties count once each.
        assert!((best_k_mean(&[0.5, 0.5, 0.5, 0.1, 0.0], 3) - 0.5).abs() < 1e-12);
        assert!((best_k_mean(&[1.0, 1.0, 0.0, 0.0, 1.0], 3) - 1.0).abs() < 1e-12);
        // Fewer than 3 runs: the mean of what there is.
        assert!((best_k_mean(&[0.3, 0.9], 3) - 0.6).abs() < 1e-12);
        assert_eq!(best_k_mean(&[], 3), 0.0);
    }

    #[test]
    fn mean_and_sample_std() {
        let (m, s) = mean_std(&[0.0, 1.0]);
        assert!((m - 0.5).abs() < 1e-12);
        assert!((s - 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(mean_std(&[0.7]), (0.7, 0.0));
    }

    #[test]
    fn aggregation_excludes_failed_episodes_and_counts_them() {
        let rows = vec![
            row("simple", "arigraph", 1, 1.0, "won"),
            row("simple", "arigraph", 2, 0.4, "step_cap"),
            row("simple", "arigraph", 3, 0.0, "failed"),
            row("simple", "rag", 1, 0.2, "step_cap"),
        ];
        let cells = aggregate(
            &rows,
            &["simple".into()],
            &["arigraph".into(), "rag".into()],
        );
        let a = &cells[0];
        assert_eq!((a.episodes, a.failed), (2, 1));
        assert!((a.best3 - 0.7).abs() < 1e-12);
        assert!((a.win_rate - 0.5).abs() < 1e-12);
        assert!((a.prompt_tokens_per_step - 2000.0).abs() < 1e-9);
        assert!((a.completion_tokens_per_step - 300.0).abs() < 1e-9);
        assert!((cells[1].best3 - 0.2).abs() < 1e-12);
        let md = markdown(
            &cells,
            &["simple".into()],
            &[
                Variant::parse("arigraph").unwrap(),
                Variant::parse("rag").unwrap(),
            ],
            5,
        );
        assert!(md.contains("| memory | simple |"), "{md}");
        assert!(md.contains("| AriGraph | 0.70 |"), "{md}");
        assert!(md.contains("| RAG | 0.20 |"), "{md}");
        assert!(md.contains("| AriGraph | 2000 / 300 |"), "{md}");
    }

    #[test]
    fn variants_parse() {
        assert_eq!(
            Variant::parse("arigraph-no-exploration").unwrap().label(),
            "AriGraph w/o exploration"
        );
        assert_eq!(
            Variant::parse("simulacra").unwrap().design,
            MemoryDesign::Simulacra
        );
        assert!(Variant::parse("memgpt").is_err());
    }
}
