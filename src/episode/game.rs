//! One game run with its run directory: the manifest, the trajectory writer, the
//! episode; for a design with trials (Reflexion, "RAG with Reflexion" in the paper),
//! up to `trials` episodes with a lesson written after each failed one.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::{Episode, EpisodeConfig, EpisodeResult, trials};
use crate::cancel::CancellationToken;
use crate::env::{EnvError, GameSpec};
use crate::llm::Llm;
use crate::llm::connect::Connection;
use crate::llm::prompts::Prompts;
use crate::pyenv::{self, PyEnv};
use crate::trajectory::{
    self, GameInfo, Manifest, Outcome, RunWriter, StepSink, Summary, Versions,
};

/// Builds the extra sinks of an episode (terminal view or progress bar), given the run
/// directory.
pub type SinkFactory<'a> = dyn Fn(&std::path::Path) -> Vec<Box<dyn StepSink + 'a>> + 'a;

/// What one game run needs besides its configuration.
pub struct GameRun<'a> {
    /// Where the run directory is created.
    pub runs_dir: PathBuf,
    /// Its name (trials add `-trial-N`).
    pub run_id: String,
    /// The command recorded in the manifest.
    pub command: String,
    /// The endpoints.
    pub conn: &'a Connection,
    /// The Python environment (the game bridges).
    pub py: &'a PyEnv,
    /// Cancelled on Ctrl-C.
    pub cancel: CancellationToken,
    /// The terminal view or progress bar for each episode.
    pub sinks: &'a SinkFactory<'a>,
    /// Tell the user about trials and lessons on stdout.
    pub announce: bool,
    /// Longest wait for the game's answer to one command (a reset gets twice as long).
    pub game_timeout: std::time::Duration,
    /// What hears of each chat call in flight (a bench's episode bar), if anything.
    pub calls: Option<std::sync::Arc<dyn crate::llm::watch::CallWatch>>,
}

/// The endpoint description a run's manifest records: the connection's, with the
/// decision's temperature an agent without exploration samples at
/// ([`crate::llm::Temperatures::without_exploration`]).
pub fn described_for(described: &serde_json::Value, explores: bool) -> serde_json::Value {
    let mut out = described.clone();
    if !explores
        && let Some(t) = out
            .pointer_mut("/chat/temperatures")
            .filter(|t| t.is_object())
        && let Ok(parsed) = serde_json::from_value::<crate::llm::Temperatures>(t.clone())
        && let Ok(sampled) = serde_json::to_value(parsed.without_exploration())
    {
        *t = sampled;
    }
    out
}

/// The manifest of a new run of `config`.
pub fn manifest(config: &EpisodeConfig, command: &str, llm: serde_json::Value) -> Manifest {
    let game = &config.game;
    Manifest {
        format_version: trajectory::FORMAT_VERSION,
        ariadne_version: env!("CARGO_PKG_VERSION").into(),
        run_id: String::new(),
        command: command.into(),
        created_at: chrono::Local::now().to_rfc3339(),
        game: GameInfo {
            path: game.to_string(),
            abs_path: game
                .path()
                .map(|p| {
                    std::fs::canonicalize(p)
                        .unwrap_or_else(|_| p.to_path_buf())
                        .display()
                        .to_string()
                })
                .unwrap_or_default(),
            name: game.name(),
        },
        seed: config.seed,
        max_steps: config.max_steps,
        memory_design: config.design,
        memory: config.memory.clone(),
        agent: config.agent.clone(),
        profile: config.profile.clone(),
        handover: config.handover.clone(),
        llm,
        versions: Versions {
            ariadne: env!("CARGO_PKG_VERSION").into(),
            textworld: pyenv::TEXTWORLD_REQ.into(),
            textworld_express: matches!(game, GameSpec::Twx(_)).then(|| pyenv::TWX_REQ.into()),
        },
        prompts: config
            .prompts
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "built-in".into()),
        trial: None,
        trials: None,
        lessons: Vec::new(),
        goal: None,
        walkthrough: config.walkthrough,
        walkthrough_commands: config.script.clone().unwrap_or_default(),
        parent: None,
        embedding_dimension: None,
    }
}

/// Empty the run directory of a game that never started (it failed to load): an empty
/// run would only puzzle `replay`. The error says what went wrong and cites the
/// bridge's log, so a log with something in it is kept where the error says it is (the
/// directory then holds only `bridge.log`); otherwise the directory is removed.
fn discard(dir: &std::path::Path) {
    let log = dir.join("bridge.log");
    let said = std::fs::metadata(&log).is_ok_and(|m| m.len() > 0);
    let removed = if said {
        std::fs::read_dir(dir).and_then(|entries| {
            for e in entries.flatten().filter(|e| e.path() != log) {
                let p = e.path();
                if p.is_dir() {
                    std::fs::remove_dir_all(&p)?;
                } else {
                    std::fs::remove_file(&p)?;
                }
            }
            Ok(())
        })
    } else {
        std::fs::remove_dir_all(dir)
    };
    if let Err(e) = removed {
        crate::report::notice(format!(
            "warning: cannot remove the unused run directory {}: {e}",
            dir.display()
        ));
    }
}

/// Play one game: one episode, or for a design with trials up to `config.trials`
/// episodes. Returns the summary (the last trial's outcome and score, the cost of every
/// trial and lesson) and the last run directory.
///
/// # Errors
/// Setup errors, and the first error of an episode after its steps and summary were
/// written (with the run directory named).
pub async fn play_game(config: &EpisodeConfig, run: &GameRun<'_>) -> Result<(Summary, PathBuf)> {
    let trials = if config.design.has_trials() {
        config.trials.max(1)
    } else {
        1
    };
    // The reference samples the decision of an agent without exploration at 1.
    let explores = config.design.has_graph() && config.agent.exploration;
    let mut backend = run.conn.backend_for(config.seed, explores)?;
    if let Some(watch) = &run.calls {
        backend = std::sync::Arc::new(crate::llm::watch::Watched::new(backend, watch.clone()));
    }
    let described = described_for(&run.conn.described, explores);
    let mut lessons: Vec<String> = Vec::new();
    let mut total: Option<Summary> = None;
    let mut last_dir = PathBuf::new();
    for trial in 1..=trials {
        let at = Trial {
            n: trial,
            of: trials,
            lessons: &lessons,
        };
        let mut m = manifest(config, &run.command, described.clone());
        if trials > 1 {
            m.trial = Some(trial);
            m.trials = Some(trials);
            m.lessons = lessons.clone();
        }
        let writer = RunWriter::create(&run.runs_dir, &at.run_id(&run.run_id), &m)?;
        let dir = writer.dir().to_path_buf();
        if trials > 1 && run.announce {
            crate::report::out(format!("ariadne: Reflexion trial {trial} of {trials}"));
        }
        let llm = Llm {
            backend: backend.clone(),
            prompts: Prompts::load(config.prompts.as_deref())?,
        };
        let done = play_trial(config, run, &at, writer, llm).await?;
        let mut this = done.summary.clone();
        let ended = matches!(this.outcome, Outcome::Won | Outcome::Interrupted);
        if trial < trials && !ended {
            let llm = Llm {
                backend: backend.clone(),
                prompts: Prompts::load(config.prompts.as_deref())?,
            };
            if let Some(l) = trials::learn(config, &llm, &done, &dir, &mut this, &lessons).await? {
                if run.announce {
                    crate::report::out(format!("lesson for the next trial: {l}"));
                }
                lessons.push(l);
            }
        }
        total = Some(match total {
            None => this,
            Some(prev) => trials::add(prev, this),
        });
        last_dir = dir;
        if ended {
            break;
        }
    }
    let summary = total.context("no trial was played")?;
    Ok((summary, last_dir))
}

/// Which trial of a game is played, and the lessons written before it.
struct Trial<'a> {
    n: u32,
    of: u32,
    lessons: &'a [String],
}

impl Trial<'_> {
    /// The run directory's name: the game's, with `-trial-N` when there are several.
    fn run_id(&self, base: &str) -> String {
        if self.of > 1 {
            format!("{base}-trial-{}", self.n)
        } else {
            base.to_string()
        }
    }
}

/// Start the game and play one episode into the run directory `writer` holds.
///
/// # Errors
/// A game that does not start (its directory emptied, the bridge's log kept), and an
/// episode's error, said with where its finished steps are.
async fn play_trial(
    config: &EpisodeConfig,
    run: &GameRun<'_>,
    at: &Trial<'_>,
    writer: RunWriter,
    llm: Llm,
) -> Result<EpisodeResult> {
    let dir = writer.dir().to_path_buf();
    let env = match config
        .game
        .start(run.py, &dir.join("bridge.log"), run.game_timeout)
        .await
    {
        Ok(env) => env,
        Err(e) => {
            discard(&dir);
            return Err(e.into());
        }
    };
    let mut sinks: Vec<Box<dyn StepSink + '_>> = vec![Box::new(writer)];
    sinks.extend((run.sinks)(&dir));
    let episode = Episode {
        config,
        env,
        llm,
        lessons: at.lessons.to_vec(),
        sinks,
        cancel: run.cancel.clone(),
        what_if: None,
    };
    super::run(episode).await.map_err(|e| stopped(e, &dir))
}

/// The error of an episode that stopped: a user's error as it is; otherwise with where
/// its finished steps are, or, when the game never reset (no summary), that no run was
/// kept (its directory emptied).
fn stopped(e: anyhow::Error, dir: &std::path::Path) -> anyhow::Error {
    let kept = dir.join("summary.json").exists();
    if !kept {
        discard(dir);
    }
    if is_user_error(&e) {
        e
    } else if !kept {
        e.context("the episode stopped before its first step (no run was kept)")
    } else {
        e.context(format!(
            "the episode stopped (finished steps are in {})",
            dir.display()
        ))
    }
}

/// Whether an error is a setup or input error the user must fix (exit code 2): a
/// [`crate::error::UserError`], a missing or unloadable game, an unreachable endpoint,
/// a bad key.
pub fn is_user_error(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<crate::error::UserError>().is_some()
            || cause
                .downcast_ref::<EnvError>()
                .is_some_and(EnvError::is_user_error)
            || cause
                .downcast_ref::<crate::llm::LlmError>()
                .is_some_and(crate::llm::LlmError::is_user_error)
    })
}
