//! The spatial vocabulary shared by the memory and navigation: compass and vertical
//! directions ([`Direction`]) and the direction in a spatial relation
//! ([`relation_direction`]). A leaf module: it depends on nothing of Ariadne's.

use serde::{Deserialize, Serialize};

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
