//! The agent's memory update from an observation, on its own (a step whose action is
//! given) or as the first part of a full step.

use std::time::Instant;

use anyhow::Result;

use super::{ActionSource, Agent, Decision};
use crate::env::GameState;
use crate::llm::CallLog;
use crate::memory::{Observed, Retrieval, UpdateReport};

impl Agent {
    /// Update the memory from a step's observation (section 2) and record the room's
    /// exits the game admits (ground truth) in the graph.
    ///
    /// # Errors
    /// Transport errors from the endpoints.
    pub(super) async fn remember(
        &mut self,
        step: u32,
        state: &GameState,
        last_action: &str,
    ) -> Result<UpdateReport> {
        let room = state.room.clone().unwrap_or_else(|| "unknown".into());
        let recent = self.recent_as_reference();
        let plan = self.plan_shown();
        let seen = Observed {
            step,
            observation: &state.observation,
            inventory: &state.inventory,
            room: &room,
            action: last_action,
            goal: &self.goal,
            passage: false,
            facts: state.facts.as_deref(),
            recent: &recent,
            plan: &plan,
        };
        // The observation as the reference's working memory shows it.
        self.seen = seen.as_reference();
        // The graph's clock dates what this step adds and closes (moves included).
        if let Some(graph) = self.memory.graph_mut() {
            graph.set_step(step);
        }
        let mut update = self
            .memory
            .update(&self.llm, &mut self.pending, &seen)
            .await?;
        if state.room.is_some() {
            self.explorer.visit(&room);
            if let Some(graph) = self.memory.graph_mut() {
                update.added.extend(self.explorer.record_exits(
                    graph,
                    &room,
                    &state.admissible_commands,
                ));
            }
            if let Some(graph) = self.memory.graph_mut() {
                // Rule `move-overrides`: extracted spatial facts that disagree with a
                // move actually made are retired before they can route a `go to`.
                update.removed.extend(self.explorer.reconcile(graph));
            }
            self.memory.sync(&self.llm, &mut self.pending).await?;
        }
        Ok(update)
    }

    /// A step whose action is given (the game's walkthrough): the memory is updated as
    /// in [`Agent::step`], with no retrieval, plan or action call.
    ///
    /// # Errors
    /// Transport errors from the endpoints.
    pub async fn observe(
        &mut self,
        step: u32,
        state: &GameState,
        last_action: &str,
        command: &str,
    ) -> Result<Decision> {
        let started = Instant::now();
        self.pending = CallLog::default();
        let update = self.remember(step, state, last_action).await?;
        Ok(Decision {
            update,
            retrieval: Retrieval::default(),
            plan: Vec::new(),
            warnings: Vec::new(),
            blocked: Vec::new(),
            dropped: Vec::new(),
            rationale: "the game's walkthrough".into(),
            action: command.to_string(),
            action_source: ActionSource::Walkthrough,
            unexplored: Vec::new(),
            go_to_targets: Vec::new(),
            what_if: None,
            log: std::mem::take(&mut self.pending),
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }
}
