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

pub use explorer::Explorer;
pub use map::SpatialMap;

/// A compass or vertical direction a game command can move in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// north
    North,
    /// south
    South,
    /// east
    East,
    /// west
    West,
    /// northeast
    Northeast,
    /// northwest
    Northwest,
    /// southeast
    Southeast,
    /// southwest
    Southwest,
    /// up
    Up,
    /// down
    Down,
    /// in
    In,
    /// out
    Out,
}

impl Direction {
    /// Every direction.
    pub const ALL: [Direction; 12] = [
        Direction::North,
        Direction::South,
        Direction::East,
        Direction::West,
        Direction::Northeast,
        Direction::Northwest,
        Direction::Southeast,
        Direction::Southwest,
        Direction::Up,
        Direction::Down,
        Direction::In,
        Direction::Out,
    ];

    /// The word the game uses ("north").
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::North => "north",
            Direction::South => "south",
            Direction::East => "east",
            Direction::West => "west",
            Direction::Northeast => "northeast",
            Direction::Northwest => "northwest",
            Direction::Southeast => "southeast",
            Direction::Southwest => "southwest",
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::In => "in",
            Direction::Out => "out",
        }
    }

    /// The way back.
    pub fn opposite(self) -> Direction {
        match self {
            Direction::North => Direction::South,
            Direction::South => Direction::North,
            Direction::East => Direction::West,
            Direction::West => Direction::East,
            Direction::Northeast => Direction::Southwest,
            Direction::Southwest => Direction::Northeast,
            Direction::Northwest => Direction::Southeast,
            Direction::Southeast => Direction::Northwest,
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::In => Direction::Out,
            Direction::Out => Direction::In,
        }
    }

    /// Parse a direction word, with the usual abbreviations ("n", "ne", "u") and
    /// "above"/"below"/"inside"/"outside".
    pub fn parse(word: &str) -> Option<Direction> {
        let w = word.trim();
        match Self::parse_lowercase(w) {
            Some(d) => Some(d),
            None if w.bytes().any(|b| b.is_ascii_uppercase()) => {
                Self::parse_lowercase(&w.to_ascii_lowercase())
            }
            None => None,
        }
    }

    fn parse_lowercase(w: &str) -> Option<Direction> {
        Some(match w {
            "north" | "n" => Direction::North,
            "south" | "s" => Direction::South,
            "east" | "e" => Direction::East,
            "west" | "w" => Direction::West,
            "northeast" | "north-east" | "ne" => Direction::Northeast,
            "northwest" | "north-west" | "nw" => Direction::Northwest,
            "southeast" | "south-east" | "se" => Direction::Southeast,
            "southwest" | "south-west" | "sw" => Direction::Southwest,
            "up" | "u" | "above" => Direction::Up,
            "down" | "d" | "below" => Direction::Down,
            "in" | "inside" => Direction::In,
            "out" | "outside" => Direction::Out,
            _ => return None,
        })
    }

    /// The direction of a movement command ("go east", "east", "e"), if it is one.
    pub fn of_command(command: &str) -> Option<Direction> {
        let c = command.trim().to_lowercase();
        let word = c.strip_prefix("go ").unwrap_or(&c);
        Direction::parse(word)
    }

    /// The command that moves this way.
    pub fn command(self) -> String {
        format!("go {}", self.as_str())
    }
}

/// The direction in a spatial relation: "is north of", "north of", "lies east of",
/// "is above" (-> up). "in"/"out" are not read from relations: "key, is in, box" is
/// containment, not a move.
pub fn relation_direction(relation: &str) -> Option<Direction> {
    // Relations in the graph are already lowercase (Triplet::new): no allocation here,
    // this runs over every triplet each step.
    let r = relation.trim();
    let r = r
        .strip_prefix("is ")
        .or_else(|| r.strip_prefix("lies "))
        .unwrap_or(r);
    let r = r.strip_suffix(" of").unwrap_or(r);
    Direction::parse(r).filter(|d| !matches!(d, Direction::In | Direction::Out))
}

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
