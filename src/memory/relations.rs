//! Kinds of relations, in one table. Outdated-edge replacement (paper section 2)
//! checks the LLM's verdicts against it: an old fact may only be retired by a new fact
//! that shares a vertex with it and whose relation is of the same kind (a trunk that is
//! now open says nothing about where the trunk is). The spatial vocabulary
//! ([`Direction`], [`relation_direction`]) lives here too: navigation reads the map
//! from these relations.

use serde::{Deserialize, Serialize};

use super::Triplet;

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

/// Relations that place their subject in their object.
pub const LOCATED: &[&str] = &[
    "is in",
    "in",
    "is inside",
    "inside",
    "is on",
    "on",
    "is under",
    "is at",
    "at",
    "is located in",
    "located in",
    "is located on",
    "is held by",
    "is carried by",
];

/// Relations that place their object in their subject.
pub const CONTAINS: &[&str] = &[
    "contains",
    "has",
    "holds",
    "carries",
    "has inside",
    "has on it",
];

/// What a relation is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelationKind {
    /// Where a thing is: `is in`, `is on`, `contains`, `has`, `carries`, ...
    Location,
    /// A thing's state: `is` (open, closed, locked, eaten, sliced, ...), `are`, `is not`.
    State,
    /// Exits and directions: `has exit`, `is north of`, `leads to`, ...
    Spatial,
    /// Anything else: retired only by a new fact with the very same relation.
    Other,
}

/// The relation table: relation (canonical form, see [`super::names::fold`]) and kind.
/// Directional relations (`is north of`, `lies above`, ...) are recognised by
/// [`relation_direction`] and are [`RelationKind::Spatial`].
pub const RELATIONS: &[(&str, RelationKind)] = &[
    ("is in", RelationKind::Location),
    ("in", RelationKind::Location),
    ("is inside", RelationKind::Location),
    ("inside", RelationKind::Location),
    ("is on", RelationKind::Location),
    ("on", RelationKind::Location),
    ("is under", RelationKind::Location),
    ("is at", RelationKind::Location),
    ("at", RelationKind::Location),
    ("is located in", RelationKind::Location),
    ("located in", RelationKind::Location),
    ("is held by", RelationKind::Location),
    ("is carried by", RelationKind::Location),
    ("contains", RelationKind::Location),
    ("has", RelationKind::Location),
    ("holds", RelationKind::Location),
    ("carries", RelationKind::Location),
    ("is", RelationKind::State),
    ("are", RelationKind::State),
    ("is not", RelationKind::State),
    ("has exit", RelationKind::Spatial),
    ("has an exit", RelationKind::Spatial),
    ("has an unexplored exit", RelationKind::Spatial),
    ("exit", RelationKind::Spatial),
    ("leads to", RelationKind::Spatial),
];

/// The kind of a triplet's relation.
pub fn kind(t: &Triplet) -> RelationKind {
    if relation_direction(&t.relation).is_some() {
        return RelationKind::Spatial;
    }
    RELATIONS
        .iter()
        .find(|(r, _)| *r == t.relation)
        .map(|(_, k)| *k)
        .unwrap_or(RelationKind::Other)
}

/// Whether `new` may retire `old`: they share a vertex and their relations are of the
/// same kind ([`RelationKind::Other`]: the same relation).
pub fn may_retire(new: &Triplet, old: &Triplet) -> bool {
    let shares = [&new.subject, &new.object]
        .iter()
        .any(|v| **v == old.subject || **v == old.object);
    if !shares {
        return false;
    }
    match (kind(new), kind(old)) {
        (RelationKind::Other, RelationKind::Other) => new.relation == old.relation,
        (a, b) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str, r: &str, o: &str) -> Triplet {
        Triplet::new(s, r, o).unwrap()
    }

    #[test]
    fn kinds_gate_retirement() {
        // The paper's Appendix E example: taking the broom retires where it was.
        assert!(may_retire(
            &t("broom", "is in", "inventory"),
            &t("kitchen", "contains", "broom")
        ));
        // A state says nothing about a location.
        assert!(!may_retire(
            &t("antique trunk", "is", "open"),
            &t("antique trunk", "is in", "bedroom")
        ));
        assert!(may_retire(
            &t("antique trunk", "is", "open"),
            &t("antique trunk", "is", "closed")
        ));
        // No shared vertex, no retirement.
        assert!(!may_retire(
            &t("key", "is in", "inventory"),
            &t("apple", "is in", "fridge")
        ));
        assert_eq!(
            kind(&t("kitchen", "is north of", "hall")),
            RelationKind::Spatial
        );
        assert!(!may_retire(
            &t("recipe", "requires", "apple"),
            &t("apple", "is used for", "pie")
        ));
    }
}
