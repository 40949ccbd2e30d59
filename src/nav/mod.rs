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
//! - [`explorer`]: what the agent learned by moving (rooms visited, exits taken), recorded
//!   in the graph as ground truth.

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
