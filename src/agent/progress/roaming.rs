//! Roaming (rule `loop-breaking`, agent revision 5): walks back into visited rooms with
//! nothing done are counted ([`Wander`]) and, past [`WANDER_DECISIONS`], only the moves
//! towards a [`frontier`] exit stay for a while ([`Roaming`]).

use std::collections::HashSet;

use super::text::{document_read, gist, succeeded};
use crate::nav::Direction;
use crate::nav::GO_TO;

/// Decisions that walked into rooms already visited, with nothing done in between,
/// before the moves back into known rooms are left out (agent revision 5; see [`Walk`]).
pub const WANDER_DECISIONS: u32 = 4;

/// Most decisions the moves back into known rooms stay out; then the count of
/// [`WANDER_DECISIONS`] starts again.
pub const HOLD_DECISIONS: u32 = 6;

/// What the commands sent for one decision did (a `go to` route is one decision of
/// several commands), for the count of [`WANDER_DECISIONS`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Walk {
    /// Nothing that counts: only looking ([`idle`]), moves the game refused, or moves
    /// into rooms never visited.
    #[default]
    Nothing,
    /// Moved into a room visited before (and did nothing else).
    Known,
    /// Acted on something (the game did not refuse it; dropping a thing is no act),
    /// read a note, or gained score: the walk ends.
    Progress,
}

/// One command as it was sent and answered, for the walk count.
#[derive(Debug, Clone, Copy)]
pub struct Sent<'a> {
    /// The command.
    pub command: &'a str,
    /// The room it was sent from (an entity key; empty when unknown).
    pub from: &'a str,
    /// The room the agent is in after it (the same room when the game refused a move;
    /// empty when unknown).
    pub to: &'a str,
    /// The score change.
    pub reward: i64,
    /// The game's answer.
    pub feedback: &'a str,
}

impl Walk {
    /// This decision's walk after one more command `sent`, where `new_room` tells
    /// whether its `to` had never been visited.
    pub fn then(self, sent: &Sent<'_>, new_room: bool) -> Walk {
        let Sent {
            command,
            from,
            to,
            reward,
            feedback,
        } = *sent;
        let acted = !is_move(command)
            && !idle(command)
            && !gist(command).starts_with("drop ")
            && succeeded(feedback);
        if self == Walk::Progress || reward != 0 || acted || document_read(command, feedback) {
            return Walk::Progress;
        }
        if is_move(command) && from != to && !new_room {
            Walk::Known
        } else {
            self
        }
    }
}

/// The count behind the hold of agent revision 5 (see [`Walk`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wander {
    /// Decisions that walked into rooms already visited since the agent last acted.
    walked: u32,
    /// Decisions made under the hold.
    held_for: u32,
}

impl Wander {
    /// Count the last decision's walk and tell whether the hold is due for the next
    /// decision: [`WANDER_DECISIONS`] walks with nothing done in between, and fewer than
    /// [`HOLD_DECISIONS`] decisions held so far (after that the count starts again).
    pub fn next(&mut self, walk: Walk) -> bool {
        match walk {
            Walk::Known => self.walked += 1,
            Walk::Progress => *self = Wander::default(),
            Walk::Nothing => {}
        }
        if self.held_for >= HOLD_DECISIONS {
            *self = Wander::default();
        }
        self.walked >= WANDER_DECISIONS
    }

    /// The decision just made was held.
    pub fn held(&mut self) {
        self.held_for += 1;
    }

    /// Decisions that walked into rooms already visited since the agent last acted.
    pub fn walked(&self) -> u32 {
        self.walked
    }
}

/// What revision 5's hold keeps across steps: the walk since the last decision, the
/// count of walks, the rooms the agent has been in, and the exits the game offered in
/// them or refused.
#[derive(Debug, Clone, Default)]
pub struct Roaming {
    /// Every room (its entity key) the agent has been in.
    rooms_seen: HashSet<String>,
    /// What the commands since the last decision did.
    walk: Walk,
    /// Walks into rooms already visited since the agent last acted.
    wander: Wander,
    /// Every exit (room key, direction) the game has offered a movement command for, in
    /// the rooms where the agent decided: the exits known for certain, where an
    /// extracted `has exit` may be misread.
    exits_offered: HashSet<(String, Direction)>,
    /// Offered exits (room key, direction) the game refused when the agent took them.
    exits_refused: HashSet<(String, Direction)>,
    /// The last command entered a room never visited before.
    entered_new: bool,
}

impl Roaming {
    /// Record one command as it was sent and answered (see [`Sent`]). Called for every
    /// command, a `go to` route's moves included.
    pub fn after_command(&mut self, sent: &Sent<'_>) {
        let Sent {
            command, from, to, ..
        } = *sent;
        let new_room = !to.is_empty() && !self.rooms_seen.contains(to);
        self.entered_new = new_room && from != to;
        if let Some(d) = Direction::of_command(command)
            && from == to
            && !from.is_empty()
        {
            self.exits_refused.insert((from.to_string(), d));
        }
        self.walk = self.walk.then(sent, new_room);
        self.rooms_seen.extend(
            [from, to]
                .into_iter()
                .filter(|r| !r.is_empty())
                .map(str::to_string),
        );
    }

    /// At a decision in room `here` (an entity key, `None` when unknown) with the
    /// game's `admissible` commands: record the room and its offered exits and, when
    /// the hold applies (`revision_5`), count the last decision's walk ([`Wander::next`]);
    /// returns whether the hold is due.
    pub fn decide(&mut self, here: Option<&str>, admissible: &[String], revision_5: bool) -> bool {
        if let Some(here) = here {
            self.rooms_seen.insert(here.to_string());
            self.exits_offered.extend(
                admissible
                    .iter()
                    .filter_map(|c| Direction::of_command(c))
                    .map(|d| (here.to_string(), d)),
            );
        }
        revision_5 && {
            let walk = std::mem::take(&mut self.walk);
            self.wander.next(walk)
        }
    }

    /// The [`frontier`] of the exits offered and refused so far, given the spatial
    /// `map`, the exits taken (`explored`) and the rooms `visited`.
    pub fn frontier(
        &self,
        map: &crate::nav::SpatialMap,
        explored: &HashSet<(String, Direction)>,
        visited: &std::collections::BTreeSet<String>,
    ) -> Vec<(String, Direction)> {
        frontier(
            map,
            &self.exits_offered,
            explored,
            &self.exits_refused,
            visited,
        )
    }

    /// Whether the last command entered a room never visited before.
    pub fn entered_new(&self) -> bool {
        self.entered_new
    }

    /// The decision just made was held ([`Wander::held`]).
    pub fn held(&mut self) {
        self.wander.held();
    }

    /// Walks since the agent last acted ([`Wander::walked`]).
    pub fn walked(&self) -> u32 {
        self.wander.walked()
    }
}

/// Whether `command` is a movement command ("go east", "east", "e").
pub(super) fn is_move(command: &str) -> bool {
    Direction::of_command(command).is_some()
}

/// Commands that only look and change nothing in the game: "look", "inventory",
/// "examine <thing>" (reading a document is progress, see [`document_read`]).
pub fn idle(command: &str) -> bool {
    let g = gist(command);
    matches!(g.as_str(), "look" | "l" | "inventory" | "i")
        || g.starts_with("examine ")
        || g.starts_with("x ")
}

/// Whether `offered` holds an action on a thing: not a move, not [`idle`], not dropping
/// something carried (which every room offers).
pub fn offers_things(offered: &[String]) -> bool {
    offered
        .iter()
        .any(|a| !a.starts_with(GO_TO) && !is_move(a) && !idle(a) && !gist(a).starts_with("drop "))
}

/// The exits of the wander hold (revision 5): each exit (room key, direction) the game
/// offered a movement command for (`offered_exits`), unless a move took it
/// (`explored`), the game refused it (`refused`), or the map knows it leads to a room
/// visited (`visited`). An exit that only the extractor wrote (`has exit`), or whose
/// destination only the extractor named, is no frontier unless the game offered it.
/// Sorted.
pub fn frontier(
    map: &crate::nav::SpatialMap,
    offered_exits: &HashSet<(String, Direction)>,
    explored: &HashSet<(String, Direction)>,
    refused: &HashSet<(String, Direction)>,
    visited: &std::collections::BTreeSet<String>,
) -> Vec<(String, Direction)> {
    let mut out: Vec<(String, Direction)> = offered_exits
        .iter()
        .filter(|e| !explored.contains(*e) && !refused.contains(*e))
        .filter(|(room, d)| {
            map.destination(room, *d)
                .is_none_or(|r| !visited.contains(r))
        })
        .cloned()
        .collect();
    out.sort();
    out
}

/// The `available` actions to leave out while the agent wanders (revision 5, see
/// [`Walk`]), in room `here` (an entity key), with the spatial `map` and the
/// [`frontier`] exits: every move except those taking a frontier exit from here; or,
/// when here has none available, every move except those that lead (by `go to` or a
/// known exit) to a room with a frontier exit. When the agent has just entered `here`
/// for the first time (`arrived`) and the room [`offers_things`] to act on, every move:
/// a room found is looked at before it is left. `available` is what the other blocks
/// (cycles, reversals) left. Empty (nothing held) when no available move would be kept
/// and the room is not new.
pub fn held_while_wandering(
    here: &str,
    map: &crate::nav::SpatialMap,
    frontier: &[(String, Direction)],
    available: &[String],
    arrived: bool,
) -> Vec<String> {
    use crate::memory::names::entity_key;
    let is_move = |a: &str| a.starts_with(GO_TO) || is_move(a);
    if arrived && offers_things(available) {
        return available.iter().filter(|a| is_move(a)).cloned().collect();
    }
    let rooms: std::collections::BTreeSet<&str> =
        frontier.iter().map(|(r, _)| r.as_str()).collect();
    let opens = |a: &str| {
        Direction::of_command(a).is_some_and(|d| frontier.iter().any(|(r, e)| r == here && *e == d))
    };
    let towards = |a: &str| match a.strip_prefix(GO_TO) {
        Some(target) => rooms.contains(entity_key(target).as_str()),
        None => Direction::of_command(a)
            .and_then(|d| map.destination(here, d))
            .is_some_and(|r| rooms.contains(r)),
    };
    let keep: Vec<&String> = if available.iter().any(|a| opens(a)) {
        available.iter().filter(|a| opens(a)).collect()
    } else {
        available
            .iter()
            .filter(|a| is_move(a) && towards(a))
            .collect()
    };
    if keep.is_empty() {
        return Vec::new();
    }
    available
        .iter()
        .filter(|a| is_move(a) && !keep.contains(a))
        .cloned()
        .collect()
}
