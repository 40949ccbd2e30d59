//! The verdict guard (rule `verdict-guard` of the extended profile): which old facts a
//! new fact may retire, whatever the LLM's outdated verdict says.
//!
//! The paper (section 2) retires every fact the LLM calls outdated among the edges
//! incident to the new triplets' vertices; the paper's profile keeps that unguarded
//! verdict. Measured against the game's truth, a small model's verdicts retire true
//! facts: a new "old key, is in, antique trunk" retired "antique trunk, is in, bedroom"
//! (another thing's location, through the shared vertex), "wooden door, is, unlocked"
//! retired "wooden door, is, closed" (a state that is not its opposite).
//!
//! Two guards, tied to the memory rules the run recorded ([`Guard::of`]):
//! - [`Guard::RelationKind`] (memory rules 2 to 5): the two facts share a vertex and
//!   their relations are of the same kind ([`relations::may_retire`]).
//! - [`Guard::Functional`] (from memory rules 6): a relation is read as a *function* of
//!   its subject ([`functions`]) and a new fact retires only an old fact that gives the
//!   same function of the same subject another value:
//!
//! | new fact | function | retires |
//! |---|---|---|
//! | `x, is in / is on / ..., y`; `y, contains / has / holds, x`; `x, is in, inventory` | where `x` is | another location of `x` |
//! | `x, is, open / closed` (`opened`, `shut`, `is not ...`) | whether `x` is open | its opposite |
//! | `x, is, locked / unlocked` (`is not ...`) | whether `x` is locked | its opposite |
//! | `x, is, uncut / sliced / diced / chopped` | how `x` is cut | another cut |
//! | `x, is, raw / fried / roasted / grilled` | how `x` is cooked | another cooking |
//! | `x, is, w` for another word `w` | whether `x` is `w` | `x, is not, w` and back |
//! | `a, is <dir> of, b` | what lies `dir` of `b`; what lies `opposite(dir)` of `a` | another room that way |
//! | `x, has exit, d` | none (a room has many exits) | nothing |
//! | any other relation `r` | `x`'s `r` | another `x, r, ...` |
//!
//! A thing "on a table in the kitchen" is both on the table and in the kitchen; the
//! guard lets one location retire the other and leaves the judgement to the LLM (the
//! world-model accuracy counts such a retirement as a wrong deletion).

use super::names::{entity_key, is_player};
use super::relations::{self, CONTAINS, LOCATED};
use super::{MemoryRevision, Triplet};
use crate::direction::{Direction, relation_direction};

/// Which verdicts of the outdated check are accepted (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// Share a vertex, relations of the same kind (memory rules 2 to 5).
    RelationKind,
    /// Same subject, same function (from memory rules 6).
    Functional,
}

impl Guard {
    /// The guard of a run's memory rules.
    pub fn of(revision: MemoryRevision) -> Guard {
        if revision.functional_guard() {
            Guard::Functional
        } else {
            Guard::RelationKind
        }
    }

    /// Whether `new` may retire `old`.
    pub fn may_retire(self, new: &Triplet, old: &Triplet) -> bool {
        match self {
            Guard::RelationKind => relations::may_retire(new, old),
            Guard::Functional => {
                new != old && {
                    let olds = functions(old);
                    functions(new).iter().any(|f| olds.contains(f))
                }
            }
        }
    }
}

/// A function a fact gives a value of: the subject it is about and what about it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Function {
    /// Where a thing is (room, container, supporter, the inventory).
    Location(String),
    /// A state of a thing, one of a family of mutually exclusive values.
    State(String, StateFamily),
    /// Whether a thing is described by a word of no known family (it and its negation).
    Word(String, String),
    /// The room reached by going a direction from a room.
    Exit(String, Direction),
    /// Any other relation of a subject.
    Relation(String, String),
}

/// Families of mutually exclusive states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StateFamily {
    /// open, closed.
    Openness,
    /// locked, unlocked.
    Lock,
    /// uncut, sliced, diced, chopped.
    Cut,
    /// raw, fried, roasted, grilled.
    Cooking,
}

/// State words and their family.
const FAMILIES: &[(&str, StateFamily)] = &[
    ("open", StateFamily::Openness),
    ("opened", StateFamily::Openness),
    ("closed", StateFamily::Openness),
    ("shut", StateFamily::Openness),
    ("locked", StateFamily::Lock),
    ("unlocked", StateFamily::Lock),
    ("uncut", StateFamily::Cut),
    ("sliced", StateFamily::Cut),
    ("diced", StateFamily::Cut),
    ("chopped", StateFamily::Cut),
    ("raw", StateFamily::Cooking),
    ("fried", StateFamily::Cooking),
    ("roasted", StateFamily::Cooking),
    ("grilled", StateFamily::Cooking),
];

/// Relations of exits that are not functions ("a room has many exits").
const EXITS: &[&str] = &["has exit", "has an exit", "has an unexplored exit", "exit"];

/// The functions a triplet gives a value of (none, one, or two for a connection).
pub fn functions(t: &Triplet) -> Vec<Function> {
    let key = |x: &str| {
        if is_player(x) {
            "player".to_string()
        } else {
            entity_key(x)
        }
    };
    let r = t.relation.as_str();
    if LOCATED.contains(&r) {
        return vec![Function::Location(key(&t.subject))];
    }
    if CONTAINS.contains(&r) {
        return vec![Function::Location(key(&t.object))];
    }
    if matches!(r, "is" | "are" | "is not" | "are not") {
        let word = entity_key(&t.object);
        let subject = key(&t.subject);
        return vec![match FAMILIES.iter().find(|(w, _)| *w == word) {
            Some((_, family)) => Function::State(subject, *family),
            None => Function::Word(subject, word),
        }];
    }
    if let Some(d) = relation_direction(r) {
        return vec![
            Function::Exit(key(&t.object), d),
            Function::Exit(key(&t.subject), d.opposite()),
        ];
    }
    if EXITS.contains(&r) {
        return Vec::new();
    }
    vec![Function::Relation(key(&t.subject), r.to_string())]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str, r: &str, o: &str) -> Triplet {
        Triplet::new(s, r, o).unwrap()
    }

    fn functional(new: Triplet, old: Triplet) -> bool {
        Guard::Functional.may_retire(&new, &old)
    }

    /// The two verdicts of the issue-18 bench the kind guard let through.
    #[test]
    fn verdicts_the_kind_guard_passed_are_refused() {
        let (new, old) = (
            t("old key", "is in", "antique trunk"),
            t("antique trunk", "is in", "bedroom"),
        );
        assert!(Guard::RelationKind.may_retire(&new, &old));
        assert!(!functional(new, old));
        let (new, old) = (
            t("wooden door", "is", "unlocked"),
            t("wooden door", "is", "closed"),
        );
        assert!(Guard::RelationKind.may_retire(&new, &old));
        assert!(!functional(new, old));
    }

    #[test]
    fn a_location_retires_another_location_of_the_same_thing() {
        // The paper's Appendix E example: taking the broom retires where it was.
        assert!(functional(
            t("broom", "is in", "inventory"),
            t("kitchen", "contains", "broom")
        ));
        assert!(functional(
            t("player", "is in", "kitchen"),
            t("you", "is in", "bedroom")
        ));
        assert!(functional(
            t("apple", "is on", "table"),
            t("the apple", "is in", "fridge")
        ));
        // Another thing's location, even through a shared vertex: no.
        assert!(!functional(
            t("fridge", "contains", "apple"),
            t("fridge", "is in", "kitchen")
        ));
        // A state says nothing about where a thing is.
        assert!(!functional(
            t("antique trunk", "is", "open"),
            t("antique trunk", "is in", "bedroom")
        ));
    }

    #[test]
    fn a_state_retires_only_its_opposite() {
        for (new, old, ok) in [
            ("open", "closed", true),
            ("closed", "opened", true),
            ("unlocked", "locked", true),
            ("locked", "unlocked", true),
            ("unlocked", "closed", false),
            ("open", "locked", false),
            ("sliced", "uncut", true),
            ("fried", "raw", true),
            ("fried", "sliced", false),
            ("red", "open", false),
        ] {
            assert_eq!(
                functional(t("door", "is", new), t("door", "is", old)),
                ok,
                "{new} retires {old}"
            );
        }
        // A negation retires its positive, and back.
        assert!(functional(
            t("door", "is not", "locked"),
            t("door", "is", "locked")
        ));
        assert!(functional(
            t("lamp", "is", "lit"),
            t("lamp", "is not", "lit")
        ));
        // Another thing's state: no.
        assert!(!functional(
            t("door", "is", "open"),
            t("chest", "is", "closed")
        ));
    }

    #[test]
    fn a_connection_retires_another_room_the_same_way() {
        // From the hall, north is the kitchen now, not the pantry.
        assert!(functional(
            t("kitchen", "is north of", "hall"),
            t("pantry", "is north of", "hall")
        ));
        // From the kitchen, south is the hall, not the cellar.
        assert!(functional(
            t("kitchen", "is north of", "hall"),
            t("kitchen", "is north of", "cellar")
        ));
        assert!(!functional(
            t("kitchen", "is north of", "hall"),
            t("kitchen", "is east of", "bedroom")
        ));
        // Exits are many: none retires another.
        assert!(!functional(
            t("hall", "has exit", "north"),
            t("hall", "has exit", "east")
        ));
    }

    #[test]
    fn other_relations_retire_the_same_relation_of_the_same_subject() {
        assert!(functional(
            t("stove", "temperature", "hot"),
            t("stove", "temperature", "cold")
        ));
        assert!(!functional(
            t("recipe", "requires", "apple"),
            t("apple", "requires", "knife")
        ));
        // A fact never retires itself.
        assert!(!functional(
            t("stove", "temperature", "hot"),
            t("stove", "temperature", "hot")
        ));
    }
}
