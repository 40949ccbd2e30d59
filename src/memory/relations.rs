//! Kinds of relations, in one table. Outdated-edge replacement (paper section 2)
//! checks the LLM's verdicts against it under memory rules 2 to 5: an old fact may only
//! be retired by a new fact that shares a vertex with it and whose relation is of the
//! same kind (a trunk that is now open says nothing about where the trunk is); from rules
//! 6, [`super::guard`]. The spatial vocabulary ([`crate::direction::Direction`], [`relation_direction`])
//! is the leaf module [`crate::direction`], shared with navigation.

use super::Triplet;
use crate::direction::relation_direction;

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
