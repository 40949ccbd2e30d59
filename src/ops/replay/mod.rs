//! The replay operation: re-execute a logged run through the real bridge with every
//! LLM answer (chat and embeddings) served from the log, rebuild the memory step by
//! step and check each step against the log; hand over to a live LLM from step N;
//! recompute retrieval under other d, w, k (what-if). [`input`] reads the request and
//! the run, [`setup`] what it plays and how it is served.

pub mod input;
mod setup;

pub use input::{LoggedRun, ReplayOptions, load};

use setup::{backend_for, check_request, episode_config, recorded_game, replay_env};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::cancel;
use crate::episode::{self, Episode, EpisodeResult};
use crate::error::UserError;
use crate::llm::prompts::Prompts;
use crate::llm::{Llm, LlmError};
use crate::memory::MemorySettings;
use crate::pyenv::{self, Needs};
use crate::trajectory::diff::compare;
use crate::trajectory::{StepRecord, StepSink};

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

/// Where replayed steps are shown: the game's name, the run directory (the continued
/// run's, or the replay's scratch directory), and whether the run continues live.
#[derive(Debug)]
pub struct Shown<'a> {
    /// The game, as the terminal view names it.
    pub game: String,
    /// The directory the steps' logs go to.
    pub dir: &'a Path,
    /// A new run is written (`continue_from`).
    pub continued: bool,
}

/// What shows the replayed steps (the terminal view).
pub type Views = dyn Fn(&Shown<'_>) -> Vec<Box<dyn StepSink>> + Sync;

/// What a replay did: the run it read, the steps it replayed (checked up to
/// `served_steps`), its time, the episode's end, where a continued run was written, and
/// the what-if settings.
pub struct Replayed {
    /// The run read.
    pub run: LoggedRun,
    /// The steps replayed (and played live after a hand-over).
    pub steps: Vec<StepRecord>,
    /// The steps served from the log.
    pub served_steps: usize,
    /// Seconds the replay took.
    pub elapsed: f64,
    /// The episode's end: its agent and summary.
    pub done: EpisodeResult,
    /// The continued run's directory (a plain replay's scratch directory, removed when
    /// this is dropped).
    pub dir: PathBuf,
    /// The what-if retrieval's settings.
    pub what_if: Option<MemorySettings>,
    /// Keeps a plain replay's scratch directory until the report is made.
    _scratch: tempfile::TempDir,
}

/// Replay a logged run: its steps through the real bridge with every answer served
/// from the log, each compared with the recorded one.
///
/// # Errors
/// A missing or malformed run, a missing game, a divergence (with step, field, recorded
/// and replayed values), and for `continue_from` the live endpoint's errors.
pub async fn replay(opts: &ReplayOptions, views: &Views) -> Result<Replayed> {
    let run = load(&opts.run)?;
    if run.truncated {
        crate::report::notice(format!(
            "warning: the last line of {} is incomplete (the run was killed mid-write); it is ignored",
            opts.run.join("steps.jsonl").display()
        ));
    }
    let m = &run.manifest;
    let game = recorded_game(m)?;
    check_request(opts, &run, &game)?;
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
    let what_if = what_if_settings(opts, &m.memory);
    let (backend, writer, servers, served_steps) = backend_for(opts, &run, &py).await?;
    let config = episode_config(opts, &run, game);
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
    let shown = views(&Shown {
        game: config.game.to_string(),
        dir: &log_dir,
        continued: writer.is_some(),
    });
    let mut sinks: Vec<Box<dyn StepSink + '_>> = vec![Box::new(Checker {
        recorded: &run.steps,
        served: served_steps,
        replayed: &mut replayed,
    })];
    if let Some(w) = writer {
        sinks.push(Box::new(w));
    }
    sinks.extend(shown.into_iter().map(|s| s as Box<dyn StepSink>));
    let episode = Episode {
        config: &config,
        env: replay_env(opts, &config.game, &py, &log_dir).await?,
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
    let done = result.map_err(damage_is_users)?;
    Ok(Replayed {
        run,
        steps: replayed,
        served_steps,
        elapsed,
        done,
        dir: log_dir,
        what_if,
        _scratch: scratch,
    })
}

/// A call the log does not hold is damage to the record (the user's to fix, exit 2);
/// any other error stays as it is.
fn damage_is_users(e: anyhow::Error) -> anyhow::Error {
    match e.downcast::<LlmError>() {
        Ok(l) if l.is_replay() => anyhow::Error::new(UserError::new(l.to_string())),
        Ok(l) => anyhow::Error::new(l),
        Err(e) => e,
    }
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
