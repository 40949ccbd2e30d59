//! A step's [`StepRecord`] from the agent's decision and the game's answer, and the
//! episode [`Summary`] kept up to date step by step.

use std::time::Instant;

use crate::agent::{Agent, Decision, GO_TO};
use crate::env::GameState;
use crate::llm::CallLog;
use crate::memory::Triplet;
use crate::trajectory::call_kinds;
use crate::trajectory::{
    ActionSource, GraphStats, Outcome, RouteInfo, StepRecord, Summary, Timings,
};

/// Where a step's command came from when it is part of a `go to` route.
#[derive(Debug, Clone)]
pub struct RouteStep {
    /// The room the route goes to.
    pub target: String,
    /// This move's position, 1-based.
    pub index: usize,
    /// Moves in the route.
    pub length: usize,
}

/// What sending the command did besides the game's answer: the bridge round trip and
/// the spatial triplets a movement added or removed.
#[derive(Debug, Default)]
pub struct Moved {
    /// Round trip to the game, milliseconds.
    pub env_ms: u64,
    /// Triplets the move added (navigation).
    pub added: Vec<Triplet>,
    /// Triplets the move removed as stale (navigation).
    pub removed: Vec<Triplet>,
}

/// The decision carried by the later moves of a route: no LLM call was made.
pub fn continuation(target: &str) -> Decision {
    Decision {
        update: Default::default(),
        retrieval: Default::default(),
        plan: Vec::new(),
        warnings: Vec::new(),
        blocked: Vec::new(),
        dropped: Vec::new(),
        rationale: format!("following the route to {target}"),
        action: format!("{GO_TO}{target}"),
        action_source: ActionSource::Route,
        unexplored: Vec::new(),
        go_to_targets: Vec::new(),
        what_if: None,
        log: Default::default(),
        elapsed_ms: 0,
    }
}

/// What a step did in the game: the command sent (empty when none was), the route step
/// it followed, the game's answer and what the move changed in the graph.
pub struct Played<'a> {
    /// The command sent to the game.
    pub command: String,
    /// The `go to` route step it followed, if any.
    pub route: Option<&'a RouteStep>,
    /// The game's state after it.
    pub after: &'a GameState,
    /// The move's additions and removals, and the game's time.
    pub moved: Moved,
}

/// Build the record of step `step`: the state it started from, the decision, and what
/// it did in the game ([`Played`]).
pub fn build(
    step: u32,
    state: &GameState,
    decision: Decision,
    played: Played<'_>,
    step_started: Instant,
    agent: &Agent,
) -> StepRecord {
    let Played {
        command,
        route,
        after,
        moved,
    } = played;
    let usage = decision.log.usage();
    let timings = timings(&decision.log, step_started, moved.env_ms);
    let stats = agent.memory.graph().map(|g| GraphStats {
        semantic_vertices: g.vertex_count(),
        semantic_edges: g.edge_count(),
        episodic_vertices: g.episodes().len(),
        thesis_vertices: g.thesis_count(),
    });
    let mut memory = decision.update;
    memory.added.extend(moved.added);
    memory.removed.extend(moved.removed);
    StepRecord {
        step,
        room: state.room.clone(),
        observation: state.observation.clone(),
        inventory: state.inventory.clone(),
        admissible_commands: state.admissible_commands.clone(),
        memory,
        retrieval: decision.retrieval,
        what_if: decision.what_if,
        unexplored_exits: decision.unexplored,
        go_to_targets: decision.go_to_targets,
        plan: decision.plan,
        warnings: decision.warnings,
        blocked: decision.blocked,
        dropped: decision.dropped,
        rationale: decision.rationale,
        action: decision.action,
        action_source: decision.action_source,
        command,
        route: route.map(|r| RouteInfo {
            target: r.target.clone(),
            index: r.index,
            length: r.length,
        }),
        feedback: after.observation.clone(),
        reward: after.reward,
        score: after.score,
        max_score: after.max_score,
        done: after.done,
        won: after.won,
        lost: after.lost,
        llm_failures: decision.log.failures,
        llm_repairs: decision.log.repairs,
        llm_trimmed: decision.log.trimmed,
        llm_refused: decision.log.refused,
        llm_retries: decision.log.retries,
        prompt_cuts: decision.log.prompt_cuts(),
        llm_calls: decision.log.calls,
        embedding_calls: decision.log.embeds,
        vectors: decision.log.vectors,
        usage,
        graph: stats.unwrap_or_default(),
        ground_truth: state.facts.clone(),
        world_model: None,
        timings,
    }
}

/// A step's time: the whole step since `started`, the LLM's share (its calls' and
/// embeddings' latencies), the game's `env_ms`, the time spent waiting on retries, and
/// the agent's own work (the rest).
fn timings(log: &CallLog, started: Instant, env_ms: u64) -> Timings {
    let llm_ms: u64 = log.calls.iter().map(|c| c.latency_ms).sum::<u64>()
        + log.embeds.iter().map(|e| e.latency_ms).sum::<u64>();
    let total_ms = started.elapsed().as_millis() as u64;
    Timings {
        total_ms,
        llm_ms,
        env_ms,
        agent_ms: total_ms.saturating_sub(llm_ms + env_ms + log.waited_ms),
        wait_ms: log.waited_ms,
    }
}

impl Summary {
    /// Count a finished step's calls, failures, repairs, trims, retries, fallbacks and
    /// tokens.
    pub fn add_step(&mut self, record: &StepRecord) {
        self.llm_calls += record.llm_calls.len() as u64;
        call_kinds::add_calls(&mut self.call_kinds, &record.llm_calls);
        self.llm_failures += u64::from(record.llm_failures);
        self.llm_repairs += u64::from(record.llm_repairs);
        self.llm_trimmed += u64::from(record.llm_trimmed);
        self.llm_refused += u64::from(record.llm_refused);
        self.llm_retries += u64::from(record.llm_retries);
        self.prompt_cuts += u64::from(record.prompt_cuts);
        self.fallback_actions += u64::from(record.action_source == ActionSource::Fallback);
        self.usage.add(record.usage);
        self.step_ms.push(record.timings.total_ms);
        if !matches!(
            record.action_source,
            ActionSource::Route | ActionSource::Walkthrough
        ) {
            self.decision_steps += 1;
        }
        if let Some(a) = &record.world_model {
            self.world_model.get_or_insert_with(Default::default).add(a);
        }
    }

    /// Count the LLM activity of a step that did not finish (an error or an interrupt
    /// stopped it): its calls were made and cost tokens, so they count like any other.
    pub fn add_unfinished(&mut self, log: &CallLog) {
        self.llm_calls += log.calls.len() as u64;
        call_kinds::add_calls(&mut self.call_kinds, &log.calls);
        self.unfinished_calls += log.calls.len() as u64;
        self.llm_failures += u64::from(log.failures);
        self.llm_repairs += u64::from(log.repairs);
        self.llm_trimmed += u64::from(log.trimmed);
        self.llm_refused += u64::from(log.refused);
        self.llm_retries += u64::from(log.retries);
        self.prompt_cuts += u64::from(log.prompt_cuts());
        self.usage.add(log.usage());
    }

    /// Note the dungeon level and progression of a state (the largest are kept in
    /// `max_depth` and `progression`).
    pub fn reach(&mut self, state: &GameState) {
        if let Some(d) = state.depth {
            self.max_depth = Some(self.max_depth.map_or(d, |m| m.max(d)));
        }
        if let Some(p) = state.progression {
            self.progression = Some(self.progression.map_or(p, |m| m.max(p)));
        }
    }

    /// Close the summary: outcome, steps, final score (normalized: score / max_score, 0
    /// when the maximum is 0), tokens per step, wall time in seconds.
    pub fn finish(&mut self, outcome: Outcome, steps: u32, last: &GameState, wall_s: f64) {
        self.outcome = outcome;
        self.steps = steps;
        self.score = last.score;
        self.max_score = last.max_score;
        self.normalized_score = if last.max_score > 0 {
            last.score as f64 / last.max_score as f64
        } else {
            0.0
        };
        self.per_step();
        self.wall_s = wall_s;
        self.final_observation = last.observation.clone();
        self.reach(last);
    }

    /// Recompute the tokens per step from the totals (`None` when some call's usage is
    /// unknown).
    pub fn per_step(&mut self) {
        let per = |n: u64| {
            (self.usage.is_known() && self.steps > 0).then(|| n as f64 / f64::from(self.steps))
        };
        (self.prompt_tokens_per_step, self.completion_tokens_per_step) = if self.steps == 0 {
            let z = self.usage.is_known().then_some(0.0);
            (z, z)
        } else {
            (
                per(self.usage.prompt_tokens),
                per(self.usage.completion_tokens),
            )
        };
    }
}
