//! The mapping between Ariadne's triplets and TextWorld's state predicates, in one place.
//!
//! A triplet maps to at most one [`Claim`]; a fact of the game maps to at most one claim.
//! A triplet whose claim is `None` is *unverifiable* (counted as such, never dropped).
//! Names on both sides go through [`entity_key`], so "the Antique Trunk" meets the
//! game's "antique trunk".
//!
//! | triplet | claim | TextWorld predicate |
//! |---|---|---|
//! | `x, is in / is on / is at / is inside / in / on, y` | `At(x, y)` | `in(x, y)`, `on(x, y)`, `at(x, y)` |
//! | `x, are in / am at / have / carry, y` | as `is in / is at / has / carries` ([`singular`]) | as above |
//! | `y, contains / has / holds, x` | `At(x, y)` | as above |
//! | `x, is in, inventory`; `player, has / carries, x` | `Carried(x)` | `in(x, I)` |
//! | `player, is in / is at, r` | `PlayerAt(r)` | `at(P, r)` |
//! | `x, is, s` for s in [`STATES`] (`opened`: open, `shut`: closed) | `State(x, s)` | `s(x)` (`open`, `closed`, `locked`, cooking states) |
//! | `x, is, unlocked` | `State(x, unlocked)` | some `open(x)`, `closed(x)` or `locked(x)`, and no `locked(x)` |
//! | `x, is not, s` | `NotState(x, s)` | `x` named by some fact, `State(x, s)` not true |
//! | `a, is <dir> of, b` | `Dir(a, dir, b)` (and `Dir(b, opposite, a)`) | `<dir>_of(a, b)` |
//! | `r, has exit, <dir>` | `HasExit(r, dir)` | some `<dir>_of(x, r)` |
//!
//! A Jericho game's facts come from its object tree and decide only the location
//! family (`["decides", "location"]`, [`Family`]): there, a state or a connection is
//! unverifiable, never false.

use std::borrow::Cow;

use super::Fact;
use crate::direction::{Direction, relation_direction};
use crate::memory::Triplet;
use crate::memory::names::{entity_key, is_player};
use crate::memory::relations::{CONTAINS, LOCATED};

/// A statement about the world that the game's facts can confirm or refute.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Claim {
    /// A thing is in, on or at a place (container, supporter or room).
    At(String, String),
    /// The player carries a thing.
    Carried(String),
    /// The player is in a room.
    PlayerAt(String),
    /// A thing has a state (open, closed, locked, unlocked, sliced, fried, ...).
    State(String, String),
    /// A thing does not have a state ("wooden door, is not, locked").
    NotState(String, String),
    /// `a` is `dir` of `b`: from `b`, going `dir` reaches `a`.
    Dir(String, Direction, String),
    /// A room has an exit that way.
    HasExit(String, Direction),
}

impl Claim {
    /// The family of facts the claim belongs to.
    pub fn family(&self) -> Family {
        match self {
            Claim::At(..) | Claim::Carried(_) | Claim::PlayerAt(_) => Family::Location,
            Claim::State(..) | Claim::NotState(..) => Family::State,
            Claim::Dir(..) | Claim::HasExit(..) => Family::Connection,
        }
    }
}

/// A family of claims a list of facts may decide (a fact `["decides", family, ...]`
/// limits the judge to those; without it, TextWorld's closed world decides all).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Where the player and things are, and what the player carries.
    Location,
    /// States of things (open, closed, locked, cooking states).
    State,
    /// Connections between rooms and their exits.
    Connection,
}

impl Family {
    /// The family a `decides` fact names (`location`, `state`, `connection`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "location" => Some(Family::Location),
            "state" => Some(Family::State),
            "connection" => Some(Family::Connection),
            _ => None,
        }
    }
}

/// The predicate of the fact that says which families a list of facts decides.
pub const DECIDES: &str = "decides";

/// States the games track as predicates of one argument.
pub const STATES: &[&str] = &[
    "open", "closed", "locked", "sliced", "diced", "chopped", "uncut", "fried", "roasted",
    "grilled", "raw", "burned", "cooked", "eaten",
];

/// A state a triplet may name that no game predicate names: true of a thing that has an
/// open, closed or locked state and is not locked ([`super::Truth`]).
pub const UNLOCKED: &str = "unlocked";

/// Other words for a state: (word, the state's predicate).
const STATE_SYNONYMS: &[(&str, &str)] = &[("opened", "open"), ("shut", "closed")];

/// The state a word names, if the games track it (`opened` is `open`).
fn state_word(word: &str) -> Option<&str> {
    if STATES.contains(&word) || word == UNLOCKED {
        return Some(word);
    }
    STATE_SYNONYMS
        .iter()
        .find(|(w, _)| *w == word)
        .map(|(_, s)| *s)
}

/// Words that name the inventory in triplets.
const INVENTORY: &[&str] = &["inventory", "your inventory", "player's inventory"];

/// Plural and first/second-person verb forms and the third-person singular form the
/// relation tables hold (judge 3): "you, are in, cellar" and "coins, are on, table"
/// claim what "is in" and "is on" claim.
const AGREEMENT: &[(&str, &str)] = &[
    ("have", "has"),
    ("hold", "holds"),
    ("carry", "carries"),
    ("contain", "contains"),
];

/// A relation in the third-person singular form of the relation tables: a leading
/// `are` or `am` becomes `is` (`are located in` is `is located in`; `are` alone and
/// `are not` are kept, the state relations name them), and a plural verb of
/// [`AGREEMENT`] its singular. Other relations are returned as they are.
pub fn singular(relation: &str) -> Cow<'_, str> {
    for person in ["are ", "am "] {
        if let Some(rest) = relation.strip_prefix(person)
            && rest != "not"
        {
            return Cow::Owned(format!("is {rest}"));
        }
    }
    match AGREEMENT.iter().find(|(plural, _)| *plural == relation) {
        Some((_, one)) => Cow::Borrowed(one),
        None => Cow::Borrowed(relation),
    }
}

/// The claim a triplet makes, if the game can check it.
pub fn claim_of(t: &Triplet) -> Option<Claim> {
    let relation = singular(&t.relation);
    let (s, r, o) = (
        entity_key(&t.subject),
        relation.as_ref(),
        entity_key(&t.object),
    );
    let player = |x: &str| is_player(x);
    let inventory = |x: &str| INVENTORY.contains(&x) || player(x);
    // "is under" places a thing where no game predicate does: unverifiable.
    if LOCATED.contains(&r) && r != "is under" {
        return Some(if INVENTORY.contains(&o.as_str()) || player(&o) {
            Claim::Carried(s)
        } else if player(&s) {
            Claim::PlayerAt(o)
        } else {
            Claim::At(s, o)
        });
    }
    if CONTAINS.contains(&r) {
        return Some(if inventory(&s) {
            Claim::Carried(o)
        } else {
            Claim::At(o, s)
        });
    }
    if matches!(r, "is" | "are")
        && let Some(state) = state_word(&o)
    {
        return Some(Claim::State(s, state.to_string()));
    }
    if matches!(r, "is not" | "are not")
        && let Some(state) = state_word(&o)
    {
        return Some(Claim::NotState(s, state.to_string()));
    }
    if let Some(d) = relation_direction(r) {
        return Some(Claim::Dir(s, d, o));
    }
    if matches!(r, "has exit" | "has an exit" | "exit") {
        return Direction::parse(&o).map(|d| Claim::HasExit(s, d));
    }
    None
}

/// The claim a fact of the game states, if it is one Ariadne's memory can hold.
pub fn claim_of_fact(f: &Fact) -> Option<Claim> {
    let arg = |i: usize| f.args.get(i).map(|a| entity_key(a));
    match (f.predicate.as_str(), f.args.len()) {
        ("at", 2) if f.args[0] == "P" => arg(1).map(Claim::PlayerAt),
        ("in", 2) if f.args[1] == "I" => arg(0).map(Claim::Carried),
        ("in" | "on" | "at", 2) => Some(Claim::At(arg(0)?, arg(1)?)),
        (p, 1) if STATES.contains(&p) => Some(Claim::State(arg(0)?, p.to_string())),
        (p, 2) => {
            let d = Direction::parse(p.strip_suffix("_of")?)?;
            Some(Claim::Dir(arg(0)?, d, arg(1)?))
        }
        _ => None,
    }
}

/// The triplet that states a claim (the oracle memory's facts).
pub fn triplet_of(c: &Claim) -> Option<Triplet> {
    match c {
        Claim::At(x, y) => Triplet::new(x, "is in", y),
        Claim::Carried(x) => Triplet::new(x, "is in", "inventory"),
        Claim::PlayerAt(r) => Triplet::new("player", "is in", r),
        Claim::State(x, s) => Triplet::new(x, "is", s),
        Claim::NotState(x, s) => Triplet::new(x, "is not", s),
        Claim::Dir(a, d, b) => Triplet::new(a, &format!("is {} of", d.as_str()), b),
        Claim::HasExit(r, d) => Triplet::new(r, "has exit", d.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str, r: &str, o: &str) -> Triplet {
        Triplet::new(s, r, o).unwrap()
    }

    fn f(p: &str, args: &[&str]) -> Fact {
        Fact {
            predicate: p.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    #[test]
    fn location_family() {
        let at = Some(Claim::At("apple".into(), "counter".into()));
        assert_eq!(claim_of(&t("apple", "is on", "counter")), at);
        assert_eq!(claim_of(&t("counter", "has", "the apple")), at);
        assert_eq!(claim_of_fact(&f("on", &["apple", "counter"])), at);
        assert_eq!(
            claim_of_fact(&f("at", &["sink", "bathroom"])),
            Some(Claim::At("sink".into(), "bathroom".into()))
        );
    }

    #[test]
    fn inventory_and_player_family() {
        let carried = Some(Claim::Carried("old key".into()));
        assert_eq!(claim_of(&t("old key", "is in", "inventory")), carried);
        assert_eq!(claim_of(&t("player", "carries", "old key")), carried);
        assert_eq!(claim_of_fact(&f("in", &["old key", "I"])), carried);
        let here = Some(Claim::PlayerAt("bedroom".into()));
        assert_eq!(claim_of(&t("player", "is in", "Bedroom")), here);
        assert_eq!(claim_of_fact(&f("at", &["P", "bedroom"])), here);
    }

    #[test]
    fn state_family() {
        let open = Some(Claim::State("antique trunk".into(), "open".into()));
        assert_eq!(claim_of(&t("the antique trunk", "is", "open")), open);
        assert_eq!(claim_of_fact(&f("open", &["antique trunk"])), open);
        assert_eq!(
            claim_of_fact(&f("sliced", &["red pepper"])),
            Some(Claim::State("red pepper".into(), "sliced".into()))
        );
        // Properties that never change are not states the memory is measured on.
        assert_eq!(claim_of_fact(&f("edible", &["apple"])), None);
        assert_eq!(claim_of(&t("apple", "is", "red")), None);
    }

    #[test]
    fn connection_family() {
        let d = Some(Claim::Dir(
            "kitchen".into(),
            Direction::East,
            "bedroom".into(),
        ));
        assert_eq!(claim_of(&t("kitchen", "is east of", "bedroom")), d);
        assert_eq!(claim_of_fact(&f("east_of", &["kitchen", "bedroom"])), d);
        assert_eq!(
            claim_of(&t("bedroom", "has exit", "east")),
            Some(Claim::HasExit("bedroom".into(), Direction::East))
        );
        assert_eq!(claim_of_fact(&f("link", &["a", "d", "b"])), None);
    }

    #[test]
    fn unverifiable_triplets_map_to_nothing() {
        assert_eq!(claim_of(&t("recipe", "requires", "red pepper")), None);
        assert_eq!(claim_of(&t("old key", "unlocks", "wooden door")), None);
    }

    #[test]
    fn claims_round_trip_through_triplets() {
        for c in [
            Claim::At("apple".into(), "counter".into()),
            Claim::Carried("key".into()),
            Claim::PlayerAt("hall".into()),
            Claim::State("door".into(), "locked".into()),
            Claim::Dir("kitchen".into(), Direction::North, "hall".into()),
        ] {
            assert_eq!(claim_of(&triplet_of(&c).unwrap()), Some(c));
        }
    }
}
