//! Which true facts the texts of an episode actually stated (stated recall, judge 2).
//!
//! Named recall counts every fact about a thing once its name has appeared: "a closed
//! wooden door" makes `locked(wooden door)` count although no text said so, and no
//! reader, however perfect, could reach 1. Stated recall counts a fact once a text has
//! stated it, read from the words of one text (an observation or an inventory):
//!
//! | fact | stated by a text that names |
//! |---|---|
//! | the player is in `r` | `r` |
//! | `x` is in, on or at `y` | `x` and `y` |
//! | the player carries `x` | `x` and one of "carrying", "take", "pick up", "holding" |
//! | `x` is `s` | `x` and `s` in one sentence (`closed` also by "locked") |
//! | `a` is `d` of `b` | `a`, `b` and `d`; or a move of the player between `b` and `a` |
//!
//! Names and words match as whole words after folding ([`crate::memory::names::fold`]).
//! A fact once stated stays stated (the reader learned it); it is counted while it is
//! true.

use std::collections::HashSet;

use super::mapping::Claim;
use crate::memory::names::{fold, occurs};

/// Words that say a thing was taken or is carried.
const CARRIED: &[&str] = &["carrying", "take", "pick up", "holding"];

/// The facts stated so far in one episode.
#[derive(Debug, Default)]
pub struct Stated {
    stated: HashSet<Claim>,
    /// The room the player was in at the previous step.
    room: Option<String>,
}

impl Stated {
    /// Read one step's texts against the true facts now (`facts`, with their entities:
    /// [`super::Truth::recall_facts`]).
    pub fn read(&mut self, facts: &[(Claim, &[String])], seen: &[&str]) {
        let texts: Vec<String> = seen.iter().map(|s| fold(s)).collect();
        let room = facts.iter().find_map(|(c, _)| match c {
            Claim::PlayerAt(r) => Some(r.clone()),
            _ => None,
        });
        let moved = match (&self.room, &room) {
            (Some(a), Some(b)) if a != b => Some((a.clone(), b.clone())),
            _ => None,
        };
        for (c, _) in facts {
            if self.stated.contains(c) {
                continue;
            }
            let walked = match (c, &moved) {
                (Claim::Dir(a, _, b), Some((from, to))) => {
                    (a == from && b == to) || (a == to && b == from)
                }
                _ => false,
            };
            if walked || texts.iter().any(|t| states(t, c)) {
                self.stated.insert(c.clone());
            }
        }
        if room.is_some() {
            self.room = room;
        }
    }

    /// Whether a fact has been stated.
    pub fn contains(&self, c: &Claim) -> bool {
        self.stated.contains(c)
    }
}

/// Whether one folded text states a claim (see the module documentation).
fn states(text: &str, c: &Claim) -> bool {
    let has = |w: &str| occurs(text, w);
    match c {
        Claim::PlayerAt(r) => has(r),
        Claim::At(x, y) => has(x) && has(y),
        Claim::Carried(x) => has(x) && CARRIED.iter().any(|w| has(w)),
        // A state word describes the things of its own sentence only ("You can make out
        // an antique trunk. There is a closed wooden door.": the door is closed).
        Claim::State(x, s) => text.split(['.', '!', '?', ';', '\n']).any(|sentence| {
            let has = |w: &str| occurs(sentence, w);
            has(x) && (has(s) || (s == "closed" && has("locked")))
        }),
        Claim::Dir(a, d, b) => has(a) && has(b) && has(d.as_str()),
        Claim::NotState(..) | Claim::HasExit(..) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::direction::Direction;

    fn at(x: &str, y: &str) -> Claim {
        Claim::At(x.into(), y.into())
    }

    fn state(x: &str, s: &str) -> Claim {
        Claim::State(x.into(), s.into())
    }

    /// Hand values on TextWorld's own sentences.
    #[test]
    fn a_text_states_what_it_names_together() {
        let t = fold(
            "-= Bedroom =- You see a closed antique trunk. You make out a chest drawer. There is a closed wooden door.",
        );
        assert!(states(&t, &Claim::PlayerAt("bedroom".into())));
        assert!(states(&t, &at("antique trunk", "bedroom")));
        assert!(states(&t, &state("antique trunk", "closed")));
        // "closed" is in the text, not in the drawer's sentence.
        assert!(!states(&t, &state("chest drawer", "closed")));
        // The door is locked: the text says closed, not locked.
        assert!(!states(&t, &state("wooden door", "locked")));
        assert!(states(&t, &state("wooden door", "closed")));
        // Whole words: "key" is not in "keyboard".
        assert!(!states(&fold("a keyboard on the desk"), &at("key", "desk")));
        let take = fold("You take the old key from the antique trunk.");
        assert!(states(&take, &Claim::Carried("old key".into())));
        assert!(!states(&t, &Claim::Carried("antique trunk".into())));
        // A locked thing is closed.
        assert!(states(
            &fold("The wooden door is locked."),
            &state("wooden door", "closed")
        ));
    }

    /// A connection is stated by walking it (either way), not by naming both rooms.
    #[test]
    fn a_connection_is_stated_by_a_move() {
        let east = Claim::Dir("kitchen".into(), Direction::East, "bedroom".into());
        let facts_in = |room: &str| -> Vec<(Claim, &[String])> {
            vec![
                (Claim::PlayerAt(room.into()), &[][..]),
                (east.clone(), &[][..]),
            ]
        };
        let mut s = Stated::default();
        s.read(
            &facts_in("bedroom"),
            &["-= Bedroom =- An exit to the east."],
        );
        assert!(!s.contains(&east));
        s.read(&facts_in("bedroom"), &["The kitchen is nice."]);
        assert!(!s.contains(&east));
        s.read(&facts_in("kitchen"), &["-= Kitchen =-"]);
        assert!(s.contains(&east));
        // Once stated, stays stated.
        s.read(&facts_in("kitchen"), &["nothing"]);
        assert!(s.contains(&east));
    }
}
