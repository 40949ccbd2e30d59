//! `ariadne replay`: re-execute a logged run through the real bridge with every LLM
//! answer (chat and embeddings) served from the log, rebuild the memory step by step,
//! and check each step against the log; inspect or export the graph at any step; hand
//! over to a live LLM from step N; recompute retrieval under other d, w, k (what-if);
//! report graph statistics over time (paper Figure 5).

mod input;
mod inspect;
mod setup;

pub use input::{LoggedRun, ReplayOptions, load};

use setup::{backend_for, check_request, episode_config, recorded_game, replay_env};

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::term::TerminalView;
use crate::cancel;
use crate::cli::ReplayArgs;
use crate::env::pyenv::{self, Needs};
use crate::episode::{self, Episode};
use crate::error::UserError;
use crate::llm::prompts::Prompts;
use crate::llm::{Llm, LlmError};
use crate::memory::MemorySettings;
use crate::settings::Resolver;
use crate::trajectory::diff::compare;
use crate::trajectory::{StepRecord, StepSink};

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
    let game = recorded_game(m)?;
    check_request(&opts, &run, &game)?;
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
    let what_if = what_if_settings(&opts, &m.memory);
    let (backend, writer, servers, served_steps) = backend_for(&opts, &run, &py).await?;
    let config = episode_config(&opts, &run, game);
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
    let mut view = TerminalView::new(opts.quiet, config.game.to_string(), log_dir.clone());
    view.banner = writer.is_some();
    let mut sinks: Vec<Box<dyn StepSink + '_>> = vec![Box::new(Checker {
        recorded: &run.steps,
        served: served_steps,
        replayed: &mut replayed,
    })];
    if let Some(w) = writer {
        sinks.push(Box::new(w));
    }
    sinks.push(Box::new(view));
    let episode = Episode {
        config: &config,
        env: replay_env(&opts, &config.game, &py, &log_dir).await?,
        llm: Llm {
            backend: Arc::new(backend),
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
    let outcome = inspect::Outcome {
        run: &run,
        replayed: &replayed,
        served_steps,
        elapsed,
        done: &done,
        dir: &log_dir,
        what_if: what_if.as_ref(),
    };
    inspect::report(&opts, &outcome)
}

/// The what-if retrieval's settings: the recorded ones with the d, w and k asked for.
fn what_if_settings(opts: &ReplayOptions, memory: &MemorySettings) -> Option<MemorySettings> {
    opts.what_if.map(|(d, w, k)| MemorySettings {
        depth: d.unwrap_or(memory.depth),
        width: w.unwrap_or(memory.width),
        episodes: k.unwrap_or(memory.episodes),
        ..memory.clone()
    })
}
