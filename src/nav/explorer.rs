//! The explorer (paper Appendix B): what the agent learned by moving. It keeps the rooms
//! visited (from the game's room header) and the exits taken, writes the moves actually
//! made into the graph as spatial triplets (ground truth: going east from A arrived in
//! B), and offers unexplored exits and `go to` targets for working memory.

use std::collections::{BTreeSet, HashSet};

use super::{Direction, Move, SpatialMap, UnexploredExit, move_triplets};
use crate::memory::{AriGraph, Triplet};

/// A room name as the graph holds it (lowercase, single spaces).
pub fn room_key(room: &str) -> String {
    room.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Rooms visited and exits taken in one episode.
#[derive(Debug, Clone, Default)]
pub struct Explorer {
    visited: BTreeSet<String>,
    explored: HashSet<(String, Direction)>,
}

impl Explorer {
    /// The rooms the agent has been in.
    pub fn visited(&self) -> &BTreeSet<String> {
        &self.visited
    }

    /// The exits taken so far, as (room, direction).
    pub fn explored(&self) -> &HashSet<(String, Direction)> {
        &self.explored
    }

    /// The agent is in `room` now.
    pub fn visit(&mut self, room: &str) {
        self.visited.insert(room_key(room));
    }

    /// The spatial map as `graph` holds it now (an empty map without a graph).
    pub fn map(&self, graph: Option<&AriGraph>) -> SpatialMap {
        match graph {
            Some(g) => SpatialMap::from_graph(g, &self.visited),
            None => SpatialMap::from_graph(&AriGraph::new(), &BTreeSet::new()),
        }
    }

    /// The route of a `go to` from `from` (a room name as the game shows it).
    pub fn route(&self, graph: Option<&AriGraph>, from: &str, target: &str) -> Option<Vec<Move>> {
        self.map(graph).route(&room_key(from), &room_key(target))
    }

    /// Unexplored exits of the map.
    pub fn unexplored(&self, graph: Option<&AriGraph>) -> Vec<UnexploredExit> {
        self.map(graph).unexplored(&self.explored)
    }

    /// The admissible movement commands of `room` as `room, has exit, dir` triplets added
    /// to `graph` (they are ground truth about the room's exits); returns those new to it.
    pub fn record_exits(
        &mut self,
        graph: &mut AriGraph,
        room: &str,
        admissible: &[String],
    ) -> Vec<Triplet> {
        let here = room_key(room);
        let mut added = Vec::new();
        for cmd in admissible {
            if let Some(dir) = Direction::of_command(cmd)
                && let Some(t) = Triplet::new(&here, "has exit", dir.as_str())
                && graph.add(t.clone()).1
            {
                added.push(t);
            }
        }
        added
    }

    /// Record a movement command's result (ground truth, both ways): going `dir` from
    /// `from` reached `to`. When `expected` names another room, the triplets that
    /// promised it are removed as stale. A move that stayed in the same room (a closed
    /// door) records nothing. Returns the triplets added and removed.
    pub fn record_move(
        &mut self,
        graph: Option<&mut AriGraph>,
        from: &str,
        dir: Direction,
        to: &str,
        expected: Option<&str>,
    ) -> (Vec<Triplet>, Vec<Triplet>) {
        let (from, to) = (room_key(from), room_key(to));
        let mut added = Vec::new();
        let mut removed = Vec::new();
        if from == to || from.is_empty() || to.is_empty() {
            return (added, removed);
        }
        self.visited.insert(to.clone());
        self.explored.insert((from.clone(), dir));
        let Some(graph) = graph else {
            return (added, removed);
        };
        if let Some(exp) = expected.map(room_key).filter(|e| *e != to) {
            for stale in move_triplets(&from, dir, &exp) {
                if let Some(id) = graph.find(&stale)
                    && graph.remove(id)
                {
                    removed.push(stale);
                }
            }
        }
        for t in move_triplets(&from, dir, &to) {
            if graph.add(t.clone()).1 {
                added.push(t);
            }
        }
        (added, removed)
    }
}
