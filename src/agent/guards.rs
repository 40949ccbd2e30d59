//! The extended profile's action guards (rule `loop-breaking`): what a step's
//! admissible list keeps after the blocks on cycles, reversals and blocked routes, and
//! the hold on walks back into visited rooms.

use super::step::Surroundings;
use super::{Agent, Filtered, GO_TO, progress};
use crate::env::GameState;

/// The blocks' verdict on the offered actions.
struct Blocks {
    /// The actions left out, in the order offered.
    blocked: Vec<String>,
    /// The commands of a detected cycle.
    commands: Vec<String>,
    /// The exact reversals of the last command.
    reversals: Vec<String>,
}

impl Agent {
    /// The admissible list as this step offers it, through the extended profile's guards
    /// in order (rule `loop-breaking`): commands of a detected cycle, the exact reversal
    /// of the last command, a `go to` whose route starts with a blocked move, then the
    /// hold on walks back into visited rooms. Each guard's leavings are reported with its
    /// reason as a warning to the planner; a guard that would leave nothing stands down.
    pub(super) fn filter_actions(
        &mut self,
        step: u32,
        state: &GameState,
        around: &Surroundings,
    ) -> Filtered {
        let mut offered = state.admissible_commands.clone();
        offered.extend(around.go_to_targets.iter().map(|r| format!("{GO_TO}{r}")));
        let blocks = self.blocks(step, around, &offered);
        let (mut blocked, held, arrived) = self.hold(around, &offered, blocks.blocked.clone());
        if offered.iter().any(|a| !blocked.contains(a)) {
            offered.retain(|a| !blocked.contains(a));
        }
        // Revision 1 reported every blocked action, offered or not.
        if !self.settings.rev().shares_prefix() {
            blocked = blocks.commands.clone();
        }
        let warnings = self.guard_warnings(&blocks, &blocked, &held, arrived);
        Filtered {
            offered,
            blocked,
            warnings,
        }
    }

    /// The blocks: commands of a detected cycle, reversals of the last command, and
    /// (from revision 2) a `go to` whose route starts with a blocked command.
    fn blocks(&mut self, step: u32, around: &Surroundings, offered: &[String]) -> Blocks {
        let commands = self.blocked_now(step, &around.here);
        // A `go to` is routed (an A* search) only when some command is blocked.
        let route_check = self.settings.rev().shares_prefix() && !commands.is_empty();
        let reversals = self.reversals_now(&around.here, offered);
        let blocked = offered
            .iter()
            .filter(|a| {
                commands.contains(a)
                    || reversals.contains(a)
                    || route_check
                        && a.strip_prefix(GO_TO).is_some_and(|target| {
                            self.route(&around.room, target)
                                .and_then(|r| r.first().map(|m| m.direction.command()))
                                .is_some_and(|first| commands.contains(&first))
                        })
            })
            .cloned()
            .collect();
        Blocks {
            blocked,
            commands,
            reversals,
        }
    }

    /// Revision 5's hold, over what the blocks left: it steers towards exits the game
    /// itself offered, not towards a `has exit` the extractor may have misread; a room
    /// just found is looked at before it is left even when no exit is left to explore.
    /// Returns the actions left out with the held ones, the held ones (none when the
    /// hold would leave nothing), and whether the room was just entered.
    fn hold(
        &mut self,
        around: &Surroundings,
        offered: &[String],
        blocked: Vec<String>,
    ) -> (Vec<String>, Vec<String>, bool) {
        let hold_due = around.hold_due;
        let frontier = if self.settings.exploration && hold_due {
            self.progress.roaming.frontier(
                &around.map,
                self.explorer.explored(),
                self.explorer.visited(),
            )
        } else {
            Vec::new()
        };
        let available: Vec<String> = offered
            .iter()
            .filter(|a| !blocked.contains(a))
            .cloned()
            .collect();
        let arrived = self.progress.roaming.entered_new() && progress::offers_things(&available);
        let held = if self.settings.loop_breaking && hold_due && (!frontier.is_empty() || arrived) {
            progress::held_while_wandering(
                &around.here,
                &around.map,
                &frontier,
                &available,
                arrived,
            )
        } else {
            Vec::new()
        };
        // In the order offered; the hold stands only if it leaves some action.
        let with_held: Vec<String> = offered
            .iter()
            .filter(|a| blocked.contains(a) || held.contains(a))
            .cloned()
            .collect();
        if !offered.iter().any(|a| !with_held.contains(a)) {
            return (blocked, Vec::new(), arrived);
        }
        if !held.is_empty() {
            self.progress.roaming.held();
        }
        (with_held, held, arrived)
    }

    /// One warning per guard that left something out, with its reason; reversals of
    /// the last command (revision 4) are reported apart from cycles.
    fn guard_warnings(
        &self,
        blocks: &Blocks,
        blocked: &[String],
        held: &[String],
        arrived: bool,
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        let (undoing, cycling): (Vec<String>, Vec<String>) = blocked
            .iter()
            .filter(|a| !held.contains(a))
            .cloned()
            .partition(|a| blocks.reversals.contains(a) && !blocks.commands.contains(a));
        if !held.is_empty() {
            warnings.push(if arrived {
                "you have walked back into rooms you had already visited without doing anything there, and this room is new: act on something here before you leave it".to_string()
            } else {
                format!(
                    "you have walked back into rooms you had already visited {} times without doing anything there; until you act on something, only moves towards exits not yet explored are available (left out: {})",
                    self.progress.roaming.walked(),
                    held.join("; ")
                )
            });
        }
        if !cycling.is_empty() {
            warnings.push(format!(
                "these actions repeat a cycle that made no progress and are not available for now: {}",
                cycling.join("; ")
            ));
        }
        if !undoing.is_empty() {
            warnings.push(format!(
                "these actions would only undo your last action and are not available this step: {}",
                undoing.join("; ")
            ));
        }
        warnings
    }
}
