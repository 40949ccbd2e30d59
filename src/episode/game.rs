//! One game run with its run directory: the manifest, the trajectory writer, the
//! episode; for a design with trials (Reflexion, "RAG with Reflexion" in the paper),
//! up to `trials` episodes with a lesson written after each failed one.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::{Episode, EpisodeConfig, EpisodeResult};
use crate::cancel::CancellationToken;
use crate::env::pyenv::{self, PyEnv};
use crate::env::{EnvError, GameSpec};
use crate::llm::Llm;
use crate::llm::connect::Connection;
use crate::llm::prompts::Prompts;
use crate::memory::baselines::reflexion::{self, TrialReport};
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
    let backend = run.conn.backend_for(config.seed, explores)?;
    let described = described_for(&run.conn.described, explores);
    let mut lessons: Vec<String> = Vec::new();
    let mut total: Option<Summary> = None;
    let mut last_dir = PathBuf::new();
    for trial in 1..=trials {
        let run_id = if trials > 1 {
            format!("{}-trial-{trial}", run.run_id)
        } else {
            run.run_id.clone()
        };
        let mut m = manifest(config, &run.command, described.clone());
        if trials > 1 {
            m.trial = Some(trial);
            m.trials = Some(trials);
            m.lessons = lessons.clone();
        }
        let writer = RunWriter::create(&run.runs_dir, &run_id, &m)?;
        let dir = writer.dir().to_path_buf();
        if trials > 1 && run.announce {
            crate::report::out(format!("ariadne: Reflexion trial {trial} of {trials}"));
        }
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
            llm: Llm {
                backend: backend.clone(),
                prompts: Prompts::load(config.prompts.as_deref())?,
            },
            lessons: lessons.clone(),
            sinks,
            cancel: run.cancel.clone(),
            what_if: None,
        };
        let done: EpisodeResult = match super::run(episode).await {
            Ok(d) => d,
            Err(e) => {
                // No summary: the game never reset (it does not load); nothing to keep.
                let kept = dir.join("summary.json").exists();
                if !kept {
                    discard(&dir);
                }
                let user = e.chain().any(|c| {
                    c.downcast_ref::<crate::error::UserError>().is_some()
                        || c.downcast_ref::<EnvError>()
                            .is_some_and(EnvError::is_user_error)
                        || c.downcast_ref::<crate::llm::LlmError>()
                            .is_some_and(crate::llm::LlmError::is_user_error)
                });
                return Err(if user {
                    e
                } else if !kept {
                    e.context("the episode stopped before its first step (no run was kept)")
                } else {
                    e.context(format!(
                        "the episode stopped (finished steps are in {})",
                        dir.display()
                    ))
                });
            }
        };
        let mut this = done.summary.clone();
        let ended = matches!(this.outcome, Outcome::Won | Outcome::Interrupted);
        if trial < trials && !ended {
            let (steps, _) = trajectory::read_steps(&dir)?;
            let report = TrialReport {
                goal: done.agent.goal(),
                score: this.score,
                max_score: this.max_score,
                steps: this.steps,
                outcome: if this.outcome == Outcome::Lost {
                    "lost"
                } else {
                    "not won"
                },
                show_score: config.agent.show_score,
                trajectory: steps
                    .iter()
                    .map(|r| (r.step, r.action.clone(), r.feedback.clone()))
                    .collect(),
                reference: config.memory.revision().reference_prompts(),
            };
            let llm = Llm {
                backend: backend.clone(),
                prompts: Prompts::load(config.prompts.as_deref())?,
            };
            let (lesson, log) = reflexion::write_lesson(&llm, &report, &lessons).await?;
            this.lesson = lesson.clone();
            this.llm_failures += u64::from(log.failures);
            this.llm_trimmed += u64::from(log.trimmed);
            this.llm_retries += u64::from(log.retries);
            this.lesson_calls = log.calls;
            RunWriter::rewrite_summary(&dir, &this)?;
            if let Some(l) = lesson {
                if run.announce {
                    crate::report::out(format!("lesson for the next trial: {l}"));
                }
                lessons.push(l);
            }
        }
        // The cost of every trial counts (Table 3 compares what a design spends); the
        // outcome and score are the last trial's.
        total = Some(match total {
            None => this,
            Some(prev) => {
                let mut s = this.clone();
                s.steps += prev.steps;
                s.llm_calls += prev.llm_calls + prev.lesson_calls.len() as u64;
                s.llm_failures += prev.llm_failures;
                s.llm_repairs += prev.llm_repairs;
                s.llm_trimmed += prev.llm_trimmed;
                s.llm_refused += prev.llm_refused;
                s.llm_retries += prev.llm_retries;
                s.unfinished_calls += prev.unfinished_calls;
                s.fallback_actions += prev.fallback_actions;
                s.usage.add(prev.usage);
                prev.lesson_calls
                    .iter()
                    .for_each(|c| s.usage.add_call(c.usage));
                s.wall_s += prev.wall_s;
                // Every trial's step times and decisions, in order, like its tokens.
                s.step_ms = [prev.step_ms, s.step_ms].concat();
                s.decision_steps += prev.decision_steps;
                s.per_step();
                s
            }
        });
        last_dir = dir;
        if ended {
            break;
        }
    }
    let summary = total.context("no trial was played")?;
    Ok((summary, last_dir))
}
