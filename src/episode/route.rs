//! A decision carried out: one command, or the moves of a `go to` route, each a step of
//! its own; and what a movement command tells the map (a move made, a route that
//! arrived elsewhere).

use std::time::Instant;

use anyhow::Result;

use super::RouteStep;
use super::{Flow, Run, record};
use crate::agent::{Decision, GO_TO};
use crate::env::GameState;
use crate::memory::names::entity_key;
use crate::nav::Direction;

impl Run<'_> {
    /// Carry out a decision: one command, or the moves of a `go to` route (each a step).
    pub(super) async fn act(&mut self, decision: Decision, started: Instant) -> Result<Flow> {
        let target = decision
            .action
            .strip_prefix(GO_TO)
            .filter(|t| decision.go_to_targets.iter().any(|g| g == t))
            .map(str::to_string);
        let Some(target) = target else {
            let command = decision.action.clone();
            return self.send(decision, command, None, None, started).await;
        };
        let from = self.state.room.clone().unwrap_or_default();
        let Some(route) = self.agent.route(&from, &target).filter(|r| !r.is_empty()) else {
            // Nothing is sent; the agent is told, as the game would tell it.
            let mut after = self.state.clone();
            after.observation = if self.config.agent.reference_routes() {
                crate::nav::no_route(&from, &target, self.agent.explorer.visited())
            } else {
                format!("There is no known route from {from} to {target}.")
            };
            after.reward = 0;
            let record = record::build(
                self.finished + 1,
                &self.state,
                decision,
                record::Played {
                    command: String::new(),
                    route: None,
                    after: &after,
                    moved: record::Moved::default(),
                },
                started,
                &self.agent,
            );
            self.finish(record, after)?;
            return Ok(Flow::Next);
        };
        let length = route.len();
        let mut decision = Some(decision);
        for (i, m) in route.into_iter().enumerate() {
            if i > 0 && !self.config.agent.route_one_step && self.finished >= self.config.max_steps
            {
                return Ok(Flow::Next);
            }
            let d = decision
                .take()
                .unwrap_or_else(|| record::continuation(&target));
            let route_step = RouteStep {
                target: target.clone(),
                index: i + 1,
                length,
            };
            let t0 = if i == 0 { started } else { Instant::now() };
            let flow = self
                .send(
                    d,
                    m.direction.command(),
                    Some(m.to.clone()),
                    Some(route_step),
                    t0,
                )
                .await?;
            match flow {
                Flow::Next => {}
                Flow::RouteStopped => return Ok(Flow::Next),
                Flow::End(_) => return Ok(flow),
            }
        }
        Ok(Flow::Next)
    }

    /// What a movement command sent from the current state tells the map: the move made
    /// is recorded (rule `checked-routes`, or any move not on a route); a route move that
    /// arrived elsewhere than `expected` stops the route, `after`'s observation saying
    /// where (returns true). The reference's routes record nothing and stop nowhere: every
    /// move is sent and its answer kept as the game gave it (`pipeline_arigraph.py:148-161`).
    pub(super) fn check_move(
        &mut self,
        command: &str,
        expected: Option<&str>,
        on_route: bool,
        after: &mut GameState,
        moved: &mut record::Moved,
    ) -> bool {
        let checked = !on_route || !self.config.agent.reference_routes();
        if checked
            && let (Some(dir), Some(from), Some(to)) = (
                Direction::of_command(command),
                self.state.room.clone(),
                after.room.clone(),
            )
        {
            let (added, removed) = self.agent.record_move(&from, dir, &to, expected);
            moved.added = added;
            moved.removed = removed;
            if let Some(exp) = expected
                && entity_key(exp) != entity_key(&to)
            {
                let went = if entity_key(&from) == entity_key(&to) {
                    "you did not move".to_string()
                } else {
                    format!("you arrived in {to}")
                };
                after.observation = format!(
                    "The route stopped: going {} from {from} was expected to reach {exp}, but {went}. The game said: {}",
                    dir.as_str(),
                    after.observation
                );
                return true;
            }
        }
        false
    }
}
