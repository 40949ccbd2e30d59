//! `ariadne replay`: re-execute a logged run through the real bridge with every LLM
//! answer (chat and embeddings) served from the log, rebuild the memory step by step,
//! and check each step against the log; inspect or export the graph at any step; hand
//! over to a live LLM from step N; recompute retrieval under other d, w, k (what-if);
//! report graph statistics over time (paper Figure 5).

mod inspect;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::term::TerminalView;
use crate::cancel;
use crate::cli::ReplayArgs;
use crate::env::pyenv::{self, Needs};
use crate::env::{GameSpec, resolve_game};
use crate::episode::{self, Episode, EpisodeConfig};
use crate::error::UserError;
use crate::llm::connect::{self, LlmSettings, Servers};
use crate::llm::prompts::Prompts;
use crate::llm::replay::{RecordedCall, ReplayBackend};
use crate::llm::{ChatBackend, Llm, LlmError, VectorRecord};
use crate::memory::MemorySettings;
use crate::settings::Resolver;
use crate::trajectory::diff::compare;
use crate::trajectory::{self, Manifest, Parent, RunWriter, StepRecord, StepSink, Summary};

/// Run `ariadne replay` from its arguments.
///
/// # Errors
/// See [`replay`].
pub async fn run(args: ReplayArgs) -> Result<ExitCode> {
    let what_if = (args.depth.is_some() || args.width.is_some() || args.episodes.is_some())
        .then_some((args.depth, args.width, args.episodes));
    let llm = match args.continue_from {
        Some(_) => Some(Resolver::load(args.llm.config.as_deref())?.llm(&args.llm)?),
        None => None,
    };
    let handover = match &args.profile {
        Some(name) => {
            let profile: crate::profile::Profile = name
                .parse()
                .map_err(|e: String| UserError::new(format!("--profile: {e}")))?;
            let without = crate::profile::parse_rules(args.without.as_deref())
                .map_err(|e| UserError::new(format!("--without: {e}")))?;
            Some(crate::profile::ProfileRecord::new(profile, &without))
        }
        None => None,
    };
    replay(ReplayOptions {
        run: args.run,
        step: args.step,
        export: args.export,
        out: args.out,
        continue_from: args.continue_from,
        max_steps: args.max_steps,
        what_if,
        stats: args.stats,
        csv: args.csv,
        accuracy: args.accuracy,
        quiet: args.quiet,
        handover,
        llm,
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}

/// The replay's check: each replayed step is compared with the recorded one (up to the
/// served steps) before anything else sees it.
struct Checker<'a> {
    recorded: &'a [StepRecord],
    served: usize,
    replayed: &'a mut Vec<StepRecord>,
}

impl StepSink for Checker<'_> {
    fn step(&mut self, r: &StepRecord) -> Result<()> {
        if (r.step as usize) <= self.served
            && let Some(orig) = self.recorded.iter().find(|s| s.step == r.step)
            && let Some((field, a, b)) = compare(orig, r)
        {
            // A divergence is the replay's finding, not bad input: exit 1, as a
            // divergence of the calls (damage to the record is exit 2).
            bail!(
                "replay diverged at step {}, field {field}: recorded {}, replayed {}",
                r.step,
                short(&a),
                short(&b)
            );
        }
        self.replayed.push(r.clone());
        Ok(())
    }
}

fn short(v: &Value) -> String {
    crate::text::with_ellipsis(&v.to_string(), 300)
}

/// What the user asked of a replay.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// The run directory.
    pub run: PathBuf,
    /// Stop after this step and show the memory as it stood.
    pub step: Option<u32>,
    /// Write the graph at `step` (or the end) in this format ("dot" or "json").
    pub export: Option<String>,
    /// Where the export goes (default: `<run>/graph-step-N.<ext>`).
    pub out: Option<PathBuf>,
    /// Replay steps 1..N, then hand over to the live LLM.
    pub continue_from: Option<u32>,
    /// Step cap of the continued run (default: the original's).
    pub max_steps: Option<u32>,
    /// What-if retrieval parameters (None: no what-if).
    pub what_if: Option<(Option<u32>, Option<usize>, Option<usize>)>,
    /// Print graph statistics per step.
    pub stats: bool,
    /// Write graph statistics (or the accuracy table) per step to this CSV file.
    pub csv: Option<PathBuf>,
    /// Print the world model's accuracy per step.
    pub accuracy: bool,
    /// One line per step.
    pub quiet: bool,
    /// The profile a continued run hands over to after its step (`--profile`).
    pub handover: Option<crate::profile::ProfileRecord>,
    /// LLM settings for `continue_from`.
    pub llm: Option<LlmSettings>,
}

/// A loaded run directory.
pub struct LoggedRun {
    /// `manifest.json`.
    pub manifest: Manifest,
    /// The complete steps.
    pub steps: Vec<StepRecord>,
    /// Whether a truncated last line was skipped.
    pub truncated: bool,
    /// `embeddings.jsonl`.
    pub vectors: Vec<VectorRecord>,
    /// What is wrong with `embeddings.jsonl` when it is missing or its last line is cut
    /// (named if a replay then lacks a vector: damage, not a divergence).
    pub vectors_damage: Option<String>,
    /// `summary.json`, if written.
    pub summary: Option<Summary>,
}

/// Read a run directory.
///
/// # Errors
/// A missing directory or manifest, a malformed line (other than a truncated last one).
pub fn load(dir: &Path) -> Result<LoggedRun> {
    let manifest = Manifest::read(dir)?;
    let (steps, truncated) =
        trajectory::read_steps(dir).map_err(|e| UserError::new(format!("{e:#}")))?;
    let vpath = dir.join("embeddings.jsonl");
    // A truncated last line is skipped like in steps.jsonl, and named if a vector is
    // then missing.
    let (vectors, vectors_damage) = if vpath.exists() {
        let (vectors, cut) = trajectory::read_jsonl::<VectorRecord>(&vpath)?;
        let damage = cut.then(|| format!("the last line of {} is cut", vpath.display()));
        (vectors, damage)
    } else {
        (Vec::new(), Some(format!("{} is missing", vpath.display())))
    };
    let summary = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    Ok(LoggedRun {
        manifest,
        steps,
        truncated,
        vectors,
        vectors_damage,
        summary,
    })
}

/// Run `ariadne replay`.
///
/// # Errors
/// A missing or malformed run, a missing game, a divergence (with step, field, recorded
/// and replayed values), and for `continue_from` the live endpoint's errors.
pub async fn replay(opts: ReplayOptions) -> Result<()> {
    let run = load(&opts.run)?;
    if run.truncated {
        eprintln!(
            "warning: the last line of {} is incomplete (the run was killed mid-write); it is ignored",
            opts.run.join("steps.jsonl").display()
        );
    }
    let m = &run.manifest;
    // The game as recorded: its absolute path, else the path as given (from the run's
    // working directory), else a bundled game of the same name; a TextWorld-Express game
    // and a game of the authors' suite as their specifications.
    let game = if m.game.path.starts_with(crate::env::twx::PREFIX)
        || m.game.path.starts_with(crate::env::harness::PREFIX)
        || m.game.path.starts_with(crate::env::scienceworld::PREFIX)
        || m.game.path.starts_with(crate::env::suite::SUITE)
        || crate::env::nethack::NetHackGame::is_spec(&m.game.path)
    {
        GameSpec::parse(&m.game.path)?
    } else {
        let given = m
            .game
            .path
            .strip_prefix(crate::env::jericho::PREFIX)
            .unwrap_or(&m.game.path);
        let path = [&m.game.abs_path, given, &m.game.name]
            .into_iter()
            .filter(|p| !p.is_empty())
            .map(resolve_game)
            .find(|p| p.is_file())
            .unwrap_or_else(|| PathBuf::from(given));
        if m.game.path.starts_with(crate::env::jericho::PREFIX) {
            GameSpec::Jericho(path)
        } else {
            GameSpec::of_file(path)
        }
    };
    game.check()?;
    if matches!(game, GameSpec::Harness(_)) && opts.continue_from.is_some() {
        bail!(UserError::new(
            "a harness run cannot be continued: its game ran in the harness; replay it whole or at --step"
        ));
    }
    let recorded_steps = run.steps.len() as u32;
    if recorded_steps == 0 {
        bail!(UserError::new(format!(
            "{} has no finished step to replay",
            opts.run.display()
        )));
    }
    if let (Some(n), Some(cap)) = (opts.continue_from, opts.max_steps)
        && cap <= n
    {
        bail!(UserError::new(format!(
            "--max-steps {cap} leaves nothing to play after step {n}; give a larger cap"
        )));
    }
    if let Some(n) = opts.step.or(opts.continue_from)
        && (n == 0 || n > recorded_steps)
    {
        bail!(UserError::new(format!(
            "the run has steps 1..{recorded_steps}; step {n} is not among them"
        )));
    }
    let live_llm = opts.llm.as_ref().filter(|_| opts.continue_from.is_some());
    let py = pyenv::ensure(
        Needs {
            local: live_llm
                .filter(|l| l.embedded_chat())
                .map(|l| l.local_model),
            embed: live_llm.is_some_and(|l| l.embed_base_url.is_none()),
            ..Needs::default()
        }
        .with_games([&game]),
    )
    .await?;

    let memory = m.memory.clone();
    let what_if = opts.what_if.map(|(d, w, k)| MemorySettings {
        depth: d.unwrap_or(memory.depth),
        width: w.unwrap_or(memory.width),
        episodes: k.unwrap_or(memory.episodes),
        ..memory.clone()
    });
    let calls = |steps: &[StepRecord]| -> Vec<RecordedCall> {
        steps
            .iter()
            .flat_map(|s| s.llm_calls.iter().map(move |c| (s.step, c.clone())))
            .collect()
    };

    // Continue: a live backend after step N, and a new run directory that names its parent.
    let mut servers = Servers::default();
    let (backend, writer, served_steps): (Arc<dyn ChatBackend>, Option<RunWriter>, usize) =
        match opts.continue_from {
            Some(n) => {
                let llm = opts
                    .llm
                    .clone()
                    .context("continue-from needs LLM settings")?;
                let runs_dir = opts
                    .run
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| PathBuf::from("runs"));
                let run_id = format!(
                    "{}-{}-from-{n}",
                    chrono::Local::now().format("%Y%m%d-%H%M%S"),
                    m.game.name
                );
                let mut manifest = m.clone();
                manifest.format_version = trajectory::FORMAT_VERSION;
                manifest.command = "replay --continue-from".into();
                manifest.created_at = chrono::Local::now().to_rfc3339();
                manifest.parent = Some(Parent {
                    run: opts.run.display().to_string(),
                    run_id: m.run_id.clone(),
                    step: n,
                });
                if let Some(cap) = opts.max_steps {
                    manifest.max_steps = cap;
                }
                if let Some(profile) = &opts.handover {
                    manifest.handover = Some(crate::profile::Handover {
                        step: n,
                        profile: profile.clone(),
                    });
                }
                let mut writer = RunWriter::create(&runs_dir, &run_id, &manifest)?;
                let conn = connect::connect(&llm, true, m.seed, &py, writer.dir()).await?;
                // The decision sampled as the run's agent samples it (at 1 without
                // exploration, as the reference does).
                let explores = m.memory_design.has_graph() && m.agent.exploration;
                let live = conn.backend_for(m.seed, explores)?;
                servers = conn.servers;
                manifest.llm = crate::episode::game::described_for(&conn.described, explores);
                writer.write_manifest(&manifest)?;
                let backend = ReplayBackend::new(
                    calls(&run.steps[..n as usize]),
                    run.vectors.clone(),
                    llm.model.clone(),
                    Some(live),
                )
                .with_damage(run.vectors_damage.clone());
                (Arc::new(backend), Some(writer), n as usize)
            }
            None => (
                Arc::new(
                    ReplayBackend::new(
                        calls(&run.steps),
                        run.vectors.clone(),
                        m.chat_model(),
                        None,
                    )
                    .with_damage(run.vectors_damage.clone()),
                ),
                None,
                run.steps.len(),
            ),
        };
    // The episode's cap counts what the recorded run counted: with a route as one step
    // (the reference's rule), the decisions, not the step lines its moves filled.
    let cap_of = |lines: &[StepRecord]| -> u32 {
        if m.agent.route_one_step {
            lines
                .iter()
                .filter(|s| s.action_source != crate::trajectory::ActionSource::Route)
                .count() as u32
        } else {
            lines.len() as u32
        }
    };
    let max_steps = match (opts.continue_from, opts.step) {
        (Some(_), _) => opts.max_steps.unwrap_or(m.max_steps),
        (None, Some(n)) => cap_of(&run.steps[..(n as usize).min(run.steps.len())]),
        (None, None) => cap_of(&run.steps),
    };
    let config = EpisodeConfig {
        game: game.clone(),
        max_steps,
        seed: m.seed,
        design: m.memory_design,
        memory: memory.clone(),
        agent: m.agent.clone(),
        trials: 1,
        prompts: m.prompts_dir(),
        goal: m.goal.clone(),
        // A continued run hands over to the live LLM; a replay plays the recorded
        // walkthrough (a game may give another one at each reset).
        walkthrough: m.walkthrough && opts.continue_from.is_none(),
        script: (!m.walkthrough_commands.is_empty()).then(|| m.walkthrough_commands.clone()),
        profile: m.profile.clone(),
        // A continued run of this replay hands over as asked; a run that was continued
        // so replays with its own handover.
        handover: match (opts.continue_from, &opts.handover) {
            (Some(step), Some(profile)) => Some(crate::profile::Handover {
                step,
                profile: profile.clone(),
            }),
            _ => m.handover.clone(),
        },
    };

    let recorded = run.steps.clone();
    let mut replayed: Vec<StepRecord> = Vec::new();
    // A plain replay writes nothing to the run: the bridge's log goes to a private
    // temporary directory, removed at the end.
    let scratch = tempfile::TempDir::with_prefix("ariadne-replay-")
        .context("cannot create a temporary directory")?;
    let log_dir = writer
        .as_ref()
        .map(|w| w.dir().to_path_buf())
        .unwrap_or_else(|| scratch.path().to_path_buf());
    let started = Instant::now();
    let mut view = TerminalView::new(opts.quiet, game.to_string(), log_dir.clone());
    view.banner = writer.is_some();
    let mut sinks: Vec<Box<dyn StepSink + '_>> = vec![Box::new(Checker {
        recorded: &recorded,
        served: served_steps,
        replayed: &mut replayed,
    })];
    if let Some(w) = writer {
        sinks.push(Box::new(w));
    }
    sinks.push(Box::new(view));
    let episode = Episode {
        config: &config,
        // A harness run is fed the lines its harness sent; any other game is played
        // again through its bridge.
        env: match &game {
            GameSpec::Harness(_) => Box::new(crate::env::harness::HarnessEnv::recorded(
                &crate::env::harness::record_in(&opts.run),
            )?),
            _ => {
                game.start(
                    &py,
                    &log_dir.join("bridge.log"),
                    crate::env::bridge::DEFAULT_STEP_TIMEOUT,
                )
                .await?
            }
        },
        llm: Llm {
            backend,
            prompts: Prompts::load(config.prompts.as_deref())?,
        },
        lessons: m.lessons.clone(),
        sinks,
        cancel: cancel::watch_ctrl_c(),
        what_if: what_if.clone(),
    };
    let result = episode::run(episode).await;
    servers.stop().await;
    let elapsed = started.elapsed().as_secs_f64();
    let done = result.map_err(|e| match e.downcast::<LlmError>() {
        Ok(l) if l.is_replay() => anyhow::Error::new(UserError::new(l.to_string())),
        Ok(l) => anyhow::Error::new(l),
        Err(e) => e,
    })?;

    inspect::report(
        &opts,
        &run,
        &recorded,
        &replayed,
        served_steps,
        elapsed,
        &done,
        &log_dir,
        what_if.as_ref(),
        &memory,
    )
}
