//! Progress and loops (a departure from the paper, on by default, switched off with
//! `--no-plan-progress` and `--no-loop-breaking`): a small model at temperature 0 keeps
//! a sub-goal after it is done and repeats short cycles of actions (take / insert the
//! same key, north / south) while its warnings go unread. Deterministic checks act
//! instead of only warning:
//! - [`achieved`]: a sub-goal the last action achieved (the same action, and the game did
//!   not refuse it) or that the inventory shows done ("take X", and from agent revision 5
//!   "find X", with X carried) is dropped from the plan, before and after the planner
//!   revises it; so is, from revision 6, a sub-goal to be in the room the agent is in
//!   ([`arrived`]; from revision 8 only at the front of the plan);
//! - [`detect_cycle`]: a repeated action (A, A, A), an alternation (A, B, A, B) or an
//!   action undone and done again (A, undo A, A): the actions of the cycle are left out
//!   of the admissible list for a few steps, and the prompt says why;
//! - [`reverses`] (agent revision 4): right after an action succeeded, the action that
//!   puts back exactly what it did (put the key back where it was taken from, lock the
//!   door just unlocked) is left out for one step;
//! - [`Walk`] (agent revision 5): after [`WANDER_DECISIONS`] decisions that walked into
//!   rooms already visited with nothing done in between, while some exit the game
//!   offered is still a [`frontier`] one, only the moves towards the frontier stay until
//!   the agent acts on something (or gains score), for at most [`HOLD_DECISIONS`]
//!   decisions: the moves kept take a frontier exit from here, or, when here has none,
//!   lead to a room that has one. Entering a new room neither counts nor ends the hold,
//!   so the agent keeps going outwards while it finds nothing to do; a new room with
//!   something to act on keeps every move out for one decision. The
//!   alternation check above only sees cycles of two commands; a walk around three
//!   rooms is a longer cycle.

mod cycles;
mod plan;
mod roaming;
mod state;
mod text;

pub use cycles::*;
pub use plan::*;
pub use roaming::*;
pub use state::Progress;
pub use text::*;

use crate::env::GameState;

impl super::Agent {
    /// With plan progress on: drop from the plan the sub-goals the last action achieved,
    /// the inventory shows done, or (from revision 6) the current room shows done
    /// ([`arrived`]); returns them.
    pub(super) fn drop_achieved(&mut self, state: &GameState) -> Vec<String> {
        if !self.settings.plan_progress {
            return Vec::new();
        }
        let (action, feedback) = self
            .history
            .back()
            .map(|h| (h.action.clone(), h.feedback.clone()))
            .unwrap_or_default();
        let here = state
            .room
            .as_deref()
            .filter(|_| self.settings.rev().settles_arrivals());
        let mut dropped = Vec::new();
        // From revision 8, being in a room settles a sub-goal only at the front of the
        // plan: one further back ("return to the kitchen" after "take the tomato") is a
        // later visit. Revisions 6 and 7 settled it anywhere in the plan.
        let revision = self.settings.rev();
        let mut front = true;
        self.plan.retain(|p| {
            let done = achieved(&p.sub_goal, &action, &feedback, &state.inventory, revision)
                || ((front || !revision.arrivals_at_front_only())
                    && here.is_some_and(|room| arrived(&p.sub_goal, room, revision)));
            if done {
                dropped.push(p.sub_goal.clone());
            } else {
                front = false;
            }
            !done
        });
        dropped
    }

    /// With plan progress on: a warning when the same sub-goal has been first for
    /// [`STUCK_STEPS`] steps or more.
    pub(super) fn stuck_warning(&mut self, step: u32) -> Option<String> {
        if !self.settings.plan_progress {
            return None;
        }
        let first = self.plan.first()?;
        let gist = gist(&first.sub_goal);
        let since = match &self.progress.first_goal {
            Some((g, since)) if *g == gist => *since,
            _ => {
                self.progress.first_goal = Some((gist, step));
                step
            }
        };
        (step - since >= STUCK_STEPS).then(|| {
            format!(
                "the sub-goal \"{}\" has been first for {} steps without being achieved; replace it or reach it another way",
                first.sub_goal,
                step - since
            )
        })
    }

    /// With loop breaking on under revision 4: the `offered` actions that would put back
    /// exactly what the last command did ([`reverses`]), when the game accepted it and
    /// it was sent from room `here` (an entity key); they stay out for this step only.
    pub(super) fn reversals_now(&self, here: &str, offered: &[String]) -> Vec<String> {
        if !self.settings.loop_breaking || !self.settings.rev().leaves_out_reversals() {
            return Vec::new();
        }
        let (Some((last, answer)), Some(from)) =
            (self.progress.answers.last(), self.progress.sent_from.last())
        else {
            return Vec::new();
        };
        if from != here || !succeeded(answer) {
            return Vec::new();
        }
        offered
            .iter()
            .filter(|a| reverses(last, a))
            .cloned()
            .collect()
    }

    /// With loop breaking on: block the commands of a cycle the last commands close, each
    /// in the room it was sent from, and return the commands blocked in room `here` (an
    /// entity key) at `step`.
    pub(super) fn blocked_now(&mut self, step: u32, here: &str) -> Vec<String> {
        if !self.settings.loop_breaking {
            return Vec::new();
        }
        if let Some(cycle) = detect_cycle(&self.progress.answers) {
            for command in cycle {
                // Revision 1 blocked an action in every room.
                let from = if !self.settings.rev().shares_prefix() {
                    String::new()
                } else {
                    self.progress
                        .answers
                        .iter()
                        .rposition(|(c, _)| *c == command)
                        .and_then(|i| self.progress.sent_from.get(i))
                        .cloned()
                        .unwrap_or_default()
                };
                let active = self
                    .progress
                    .blocked
                    .iter()
                    .any(|(r, c, until)| *r == from && *c == command && *until >= step);
                let steps = if !self.settings.rev().blocks_longer() {
                    // Revisions 1 and 2: every detection (re)starts a block of 3 steps.
                    BLOCK_STEPS
                } else if active {
                    // The cycle's commands are still the last ones sent: the block
                    // that is running stands.
                    continue;
                } else {
                    let times = self
                        .progress
                        .block_counts
                        .entry((from.clone(), command.clone()))
                        .or_insert(0);
                    *times += 1;
                    block_steps(*times, self.settings.rev())
                };
                self.progress
                    .blocked
                    .retain(|(r, c, _)| !(*r == from && *c == command));
                self.progress
                    .blocked
                    .push((from, command, step + steps - 1));
            }
        }
        self.progress.blocked.retain(|(_, _, until)| *until >= step);
        self.progress
            .blocked
            .iter()
            .filter(|(r, _, _)| r.is_empty() || r == here)
            .map(|(_, c, _)| c.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests;
