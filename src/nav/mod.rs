//! Navigation and exploration (paper section 3 and Appendices A-B): a spatial map read
//! from the semantic graph, `go to <room>` routed with A* (`pathfinding`), and the
//! unexplored exits that go into working memory.
//!
//! The map's edges come from alive triplets only:
//! - `X, is <dir> of, Y`: from Y, going `<dir>` reaches X (and from X, the opposite way
//!   reaches Y);
//! - the moves the agent made, recorded by [`move_triplets`] as such triplets both ways
//!   (ground truth: going east from A arrived in B);
//! - `room, has exit, <dir>`: an exit exists (its destination may be unknown).
//!
//! A triplet removed as outdated is gone from the map, so A* never routes over it.
//!
//! - [`map`]: the [`SpatialMap`], A* routes and breadth-first reachability;
//! - [`exits`]: the unexplored exits as the reference reads them from the facts;
//! - [`explorer`]: what the agent learned by moving (rooms visited, exits taken), recorded
//!   in the graph as ground truth.

pub mod exits;
pub mod explorer;
pub mod map;

use serde::{Deserialize, Serialize};

use crate::memory::Triplet;

pub use crate::direction::{Direction, relation_direction};
pub use explorer::Explorer;
pub use map::SpatialMap;

/// The prefix of the navigation action (`go to <room>`, routed with A* over the map).
pub const GO_TO: &str = "go to ";

/// The two triplets that record a move actually made: going `dir` from `from` reached
/// `to`, so `to, is <dir> of, from` and `from, is <opposite> of, to`.
pub fn move_triplets(from: &str, dir: Direction, to: &str) -> Vec<Triplet> {
    [
        Triplet::new(to, &format!("is {} of", dir.as_str()), from),
        Triplet::new(from, &format!("is {} of", dir.opposite().as_str()), to),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// An exit the graph knows of but no move has taken and no triplet resolves.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct UnexploredExit {
    /// The room it belongs to.
    pub room: String,
    /// The direction.
    pub direction: Direction,
}

/// One move of a route.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    /// Direction to go.
    pub direction: Direction,
    /// Room expected on arrival.
    pub to: String,
}

/// What the reference answers a `go to` it cannot route (`graphs/parent_graph.py:157-168`,
/// `:190-191`, `find_path`), from `from` to `target`, with `visited` the rooms the agent
/// decided in (entity keys): the agent is there already, a room it has not been in, or
/// no known way.
pub fn no_route(from: &str, target: &str, visited: &std::collections::BTreeSet<String>) -> String {
    use crate::memory::names::entity_key;
    let (a, b) = (entity_key(from), entity_key(target));
    if a == b {
        return "You are already there".into();
    }
    if !visited.contains(&a) || !visited.contains(&b) {
        let rooms: Vec<String> = visited
            .iter()
            .map(|r| crate::llm::prompts::py_repr(r))
            .collect();
        return format!(
            "Destination is unknown. Please, choose another destination or explore new paths and locations. Available locations: [{}]. Your choice: from {a} to {b}",
            rooms.join(", ")
        );
    }
    "Destination isn't available according to had knowledges. Please, choose another destination or explore new paths and locations.".into()
}
