//! The episode engine: the Ariadne loop (paper section 3) over any [`Environment`].
//!
//! Reset the game, then per step: the agent observes, updates its memory, retrieves,
//! plans and picks an action ([`crate::agent`]); a `go to <room>` action is expanded into
//! the moves of its A* route, each sent to the game and recorded as a step of its own;
//! every finished step goes to the [`StepSink`]s (trajectory writer, replay checker,
//! terminal view, progress bar) in order. The episode ends when the game is over, the
//! step cap is reached, the cancellation token fires (Ctrl-C), or an error stops it; the
//! summary is handed to every sink in each case.
//!
//! - [`record`]: a step's [`StepRecord`] from the decision and what the game answered;
//! - [`game`]: one game run with its run directory (Reflexion's trials included).

mod build;
pub mod game;
pub mod record;
mod route;
mod trials;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::agent::{Agent, AgentSettings, Decision};
use crate::cancel::CancellationToken;
use crate::env::{Environment, GameSpec, GameState};
use crate::llm::Llm;
use crate::memory::{MemoryDesign, MemorySettings};
use crate::trajectory::{self, Goal, Outcome, Start, StepRecord, StepSink, Summary};

pub use record::RouteStep;

/// Everything that defines an episode, resolved once from flags, environment and config
/// file (see [`crate::settings`]) and recorded in the manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpisodeConfig {
    /// The game.
    pub game: GameSpec,
    /// Step cap.
    pub max_steps: u32,
    /// Chat seed.
    pub seed: u64,
    /// Memory design.
    pub design: MemoryDesign,
    /// Memory parameters.
    pub memory: MemorySettings,
    /// Agent parameters.
    pub agent: AgentSettings,
    /// Reflexion's trials (1 for other designs).
    pub trials: u32,
    /// Prompt directory override.
    pub prompts: Option<PathBuf>,
    /// The goal given by the user (`--goal`, `--goal-file`) or recorded in a replayed
    /// run; `None`: from the game (see [`goal_for`]).
    #[serde(default)]
    pub goal: Option<Goal>,
    /// Play the game's walkthrough instead of asking the LLM for actions; the memory is
    /// updated (and measured) at every step as usual.
    #[serde(default)]
    pub walkthrough: bool,
    /// The walkthrough to play instead of the game's (a replay gives the recorded one).
    #[serde(default)]
    pub script: Option<Vec<String>>,
    /// The profile and its rules (`None` in runs recorded before profiles: their agent
    /// and memory settings say what they did).
    #[serde(default)]
    pub profile: Option<crate::profile::ProfileRecord>,
    /// A profile handed over to after a step (`replay --continue-from N --profile P`).
    #[serde(default)]
    pub handover: Option<crate::profile::Handover>,
}

/// The instructions the paper gave agents and human players of the Cooking games at
/// step 1 (section 4.1, Appendix F).
pub const COOKING_INSTRUCTIONS: &str = "Instructions: to cook, fry with the stove, roast with the oven, grill with the BBQ; cut (slice, dice, chop) with a knife in your inventory. Read the cookbook first: it lists the ingredients and how to prepare them. The meal is prepared in the kitchen, then eaten.";

/// What the agent gets as its goal at step 1: the configured goal; else the game's
/// objective (for a Cooking game, with [`COOKING_INSTRUCTIONS`]); else, under memory
/// rules 2, a goal said to be unknown; under rules 1, the first observation.
pub fn goal_for(config: &EpisodeConfig, first: &GameState) -> Goal {
    if let Some(g) = &config.goal {
        return g.clone();
    }
    let rules2 = config.memory.revision().states_unknown_goal();
    let objective = first.objective.trim();
    match (objective.is_empty(), rules2) {
        (false, true) if config.game.is_cooking() => Goal {
            text: format!("{objective}\n{COOKING_INSTRUCTIONS}"),
            source: "game+cooking-instructions".into(),
        },
        (false, _) => Goal {
            text: first.objective.clone(),
            source: "game".into(),
        },
        (true, true) => Goal {
            text: "Unknown: the game states no objective. Explore, read what you find, and work out what it asks of you.".into(),
            source: "unknown".into(),
        },
        (true, false) => Goal {
            text: first.observation.clone(),
            source: "first-observation".into(),
        },
    }
}

/// One episode to run: its configuration and the parts it runs on.
pub struct Episode<'a> {
    /// Step cap, memory design and parameters, agent settings.
    pub config: &'a EpisodeConfig,
    /// The game, not yet reset.
    pub env: Box<dyn Environment>,
    /// Where answers come from, and the prompts.
    pub llm: Llm,
    /// Reflexion's lessons from earlier trials.
    pub lessons: Vec<String>,
    /// Where each finished step goes, in order.
    pub sinks: Vec<Box<dyn StepSink + 'a>>,
    /// Fires on Ctrl-C: the step in flight is dropped, the finished ones are kept.
    pub cancel: CancellationToken,
    /// Also compute retrieval with these settings at every step (replay's what-if).
    pub what_if: Option<MemorySettings>,
}

/// What an episode left: its summary and the agent (memory, plan) as it ended.
pub struct EpisodeResult {
    /// The summary.
    pub summary: Summary,
    /// The agent after the last step.
    pub agent: Agent,
}

/// What the loop does after a step.
enum Flow {
    Next,
    /// A route move did not arrive where the map said: the rest of the route is dropped.
    RouteStopped,
    End(Outcome),
}

/// The state carried from step to step.
struct Run<'a> {
    config: &'a EpisodeConfig,
    env: Box<dyn Environment>,
    sinks: Vec<Box<dyn StepSink + 'a>>,
    cancel: CancellationToken,
    agent: Agent,
    state: GameState,
    last_action: String,
    /// The world model's accuracy so far.
    tracker: crate::judge::Tracker,
    /// Finished steps (one per command sent: a route's moves are steps of their own).
    finished: u32,
    /// Decisions made (a `go to` route is one); the step cap counts these under
    /// [`AgentSettings::route_one_step`].
    decisions: u32,
    /// The step number the agent knows the decision in flight by: the decision's number
    /// from agent revision 11 (the reference's `Game step #N`), else the step record's.
    agent_step: u32,
    summary: Summary,
}

/// Run one episode; see the module documentation.
///
/// # Errors
/// A game that cannot be reset; then the first error of the episode (environment,
/// endpoint, a sink's refusal), after every sink got the finished steps and the summary.
pub async fn run(ep: Episode<'_>) -> Result<EpisodeResult> {
    let Episode {
        config,
        mut env,
        llm,
        lessons,
        mut sinks,
        cancel,
        what_if,
    } = ep;
    let started = Instant::now();
    let state = env.reset().await?;
    let goal = goal_for(config, &state);
    let agent = new_agent(config, llm, lessons, goal.text.clone(), what_if);
    for s in sinks.iter_mut() {
        s.started(&Start {
            first: &state,
            max_steps: config.max_steps,
            goal: &goal,
        })?;
    }
    let summary = Summary {
        format_version: trajectory::FORMAT_VERSION,
        max_score: state.max_score,
        ..Summary::default()
    };
    let mut run = Run {
        config,
        env,
        sinks,
        cancel,
        agent,
        state,
        last_action: String::new(),
        tracker: Default::default(),
        finished: 0,
        decisions: 0,
        agent_step: 0,
        summary,
    };
    let (outcome, error) = match run.play().await {
        Ok(outcome) => (outcome, None),
        Err(e) => (Outcome::Error, Some(e)),
    };
    // A step cut short by an error or Ctrl-C made calls that cost tokens: count them.
    let unfinished = run.agent.take_unfinished();
    run.summary.add_unfinished(&unfinished);
    let Run {
        env,
        mut sinks,
        agent,
        state,
        finished,
        mut summary,
        ..
    } = run;
    summary.finish(outcome, finished, &state, started.elapsed().as_secs_f64());
    summary.error = error
        .as_ref()
        .map(|e| crate::report::one_line(&format!("{e:#}")));
    env.close().await;
    let mut sink_error = None;
    for s in sinks.iter_mut() {
        if let Err(e) = s.finish(&summary) {
            sink_error.get_or_insert(e);
        }
    }
    if let Some(e) = error.or(sink_error) {
        return Err(e);
    }
    Ok(EpisodeResult { summary, agent })
}

/// The agent of an episode under `config`, with its memory, goal and explorer.
fn new_agent(
    config: &EpisodeConfig,
    llm: crate::llm::Llm,
    lessons: Vec<String>,
    goal: String,
    what_if: Option<MemorySettings>,
) -> crate::agent::Agent {
    let mut agent = crate::agent::Agent::new(
        llm,
        build::memory(config.design, config.memory.clone(), lessons),
        goal,
        config.agent.clone(),
    );
    agent.what_if = what_if;
    agent.cooking_verbs = config.game.reference_cooking() && config.agent.rev().reference_prompts();
    agent.explorer = crate::nav::Explorer::new(&config.memory)
        .retiring(config.memory.retire)
        .routing_as_reference(config.agent.reference_routes());
    agent
}

impl Run<'_> {
    /// What the step cap counts: decisions when a route is one step (the reference
    /// code's), else the commands sent.
    fn counted(&self) -> u32 {
        if self.config.agent.route_one_step {
            self.decisions
        } else {
            self.finished
        }
    }

    /// The step loop; returns how the episode ended, or the error that stopped it.
    async fn play(&mut self) -> Result<Outcome> {
        let cancel = self.cancel.clone();
        let mut script: Option<std::collections::VecDeque<String>> = if self.config.walkthrough {
            let w = self
                .config
                .script
                .clone()
                .or_else(|| self.state.walkthrough.clone())
                .filter(|w| !w.is_empty())
                .ok_or_else(|| {
                    crate::error::UserError::new(format!("{} has no walkthrough", self.config.game))
                })?;
            Some(w.into())
        } else {
            None
        };
        while self.counted() < self.config.max_steps {
            let step = self.finished + 1;
            self.decisions += 1;
            self.agent_step = if self.config.agent.rev().counts_decisions() {
                self.decisions
            } else {
                step
            };
            let agent_step = self.agent_step;
            if let Some(h) = self.config.handover.as_ref().filter(|h| h.step + 1 == step) {
                self.agent.hand_over(&h.profile.resolved());
            }
            let started = Instant::now();
            for s in self.sinks.iter_mut() {
                s.thinking(step);
            }
            let given = match script.as_mut().map(|q| q.pop_front()) {
                Some(None) => return Ok(Outcome::StepCap),
                Some(Some(cmd)) => Some(cmd),
                None => None,
            };
            let think = async {
                match &given {
                    Some(cmd) => {
                        self.agent
                            .observe(agent_step, &self.state, &self.last_action, cmd)
                            .await
                    }
                    None => {
                        self.agent
                            .step(agent_step, &self.state, &self.last_action)
                            .await
                    }
                }
            };
            let decision = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Ok(Outcome::Interrupted),
                d = think => d?,
            };
            if let Flow::End(outcome) = self.act(decision, started).await? {
                return Ok(outcome);
            }
        }
        Ok(Outcome::StepCap)
    }

    /// Send one command, record the step, and tell whether the game is over.
    async fn send(
        &mut self,
        decision: Decision,
        command: String,
        expected: Option<String>,
        route: Option<RouteStep>,
        started: Instant,
    ) -> Result<Flow> {
        let t0 = Instant::now();
        let usage = decision.log.usage();
        self.env.spent(usage.prompt_tokens, usage.completion_tokens);
        let after = match self.env.step(&command).await {
            Ok(after) => after,
            // A harness that closes its input ends the episode, as at its own step cap.
            Err(crate::env::EnvError::Harness(_)) => return Ok(Flow::End(Outcome::Stopped)),
            Err(e) => return Err(e.into()),
        };
        let env_ms = t0.elapsed().as_millis() as u64;
        let mut moved = record::Moved {
            env_ms,
            ..Default::default()
        };
        let mut after = after;
        let stopped = self.check_move(
            &command,
            expected.as_deref(),
            route.is_some(),
            &mut after,
            &mut moved,
        );
        let record = record::build(
            self.finished + 1,
            &self.state,
            decision,
            record::Played {
                command,
                route: route.as_ref(),
                after: &after,
                moved,
            },
            started,
            &self.agent,
        );
        self.finish(record, after)?;
        if self.state.done {
            return Ok(Flow::End(if self.state.won {
                Outcome::Won
            } else if self.state.lost {
                Outcome::Lost
            } else {
                Outcome::Done
            }));
        }
        Ok(if stopped {
            Flow::RouteStopped
        } else {
            Flow::Next
        })
    }

    /// Hand a finished step to every sink, then to the agent's history.
    fn finish(&mut self, mut record: StepRecord, after: GameState) -> Result<()> {
        if let (Some(facts), Some(graph)) = (&record.ground_truth, self.agent.memory.graph()) {
            record.world_model = Some(self.tracker.measure(
                graph,
                facts,
                &[&record.observation, &record.inventory],
                &record.memory.removed,
            ));
        }
        for s in self.sinks.iter_mut() {
            s.step(&record)?;
        }
        let step = if self.config.agent.rev().counts_decisions() {
            self.agent_step
        } else {
            record.step
        };
        self.agent
            .observe_result(step, &record.action, &record.command, &after);
        self.summary.add_step(&record);
        self.summary.reach(&after);
        self.finished = record.step;
        self.last_action = record.action;
        self.state = after;
        Ok(())
    }
}

#[cfg(test)]
mod free_text_tests;
#[cfg(test)]
mod reference_tests;
#[cfg(test)]
mod tests;
