//! Cleaning's reward as the reference computes it (`utils/win_cond.py`,
//! `utils/utils.py`): from the changes of the game's true state, since the game file's
//! own maximum score is 0.

use std::collections::BTreeSet;

use crate::env::Fact;

/// Cleaning's items out of place, as the reference takes them (`win_cond_clean_take`):
/// taking one is +1 unless it was where it belongs.
pub const CLEAN_PLACES: &[(&str, &str, &str)] = &[
    ("toothbrush", "bathroom sink", "on"),
    ("peace of raw meat", "refrigerator", "is"),
    ("dirty plate", "dishwasher", "in"),
    ("fantasy book", "bookcase", "on"),
    ("business suit", "wardrobe", "in"),
    ("sleeping lamp", "bedside table", "on"),
    ("wet towel", "towel rack", "on"),
    ("dumbbell", "dumbbell stand", "on"),
    ("swimming fins", "pool equipment rack", "on"),
    ("raw meat", "refrigerator", "in"),
    ("cheese", "refrigerator", "in"),
    ("milk", "refrigerator", "in"),
    ("evening dress", "wardrobe", "in"),
    ("yoga mat", "sport equipment locker", "in"),
    ("toy car", "toy storage cabinet", "in"),
    ("toy sword", "toy storage cabinet", "in"),
    ("jump rope", "sport equipment locker", "in"),
    ("elegant table runner", "dining table", "on"),
    ("toilet paper", "toilet", "on"),
    ("TV", "TV table", "on"),
    ("reading glasses", "reading table", "on"),
    ("salt and papper shakers", "dining table", "on"),
    ("decorative pillow", "sofa", "on"),
    ("felt tip pens", "study table", "on"),
    ("candles", "dining table", "on"),
    ("alarm clock", "bedside table", "on"),
    ("chlorine", "table for pool chemicals", "on"),
    ("swimming goggles", "pool equipment rack", "on"),
    ("life ring", "pool equipment rack", "on"),
    ("school notebooks", "study table", "on"),
    ("deodorant", "bathroom sink", "on"),
    ("detective book", "bookcase", "on"),
    ("gaming consol", "game consol cabinet", "on"),
    ("centerpiece", "dining table", "on"),
];

/// Cleaning's maximum: 11 items out of place in `clean_3x3_mess_2`, each +1 when taken
/// and +1 when put where it belongs (paper section 4.1).
pub const CLEAN_MAX_SCORE: i64 = 22;

/// One placement of the game's true state as the reference reads it
/// (`utils/textworld_adapter.py`, `graph_from_facts`): (first argument, second argument
/// or "itself", predicate).
type Edge = (String, String, String);

fn edges(facts: &[Fact]) -> BTreeSet<Edge> {
    facts
        .iter()
        .filter_map(|f| match f.args.as_slice() {
            [a] => Some((a.clone(), "itself".to_string(), f.predicate.clone())),
            [a, b] => Some((a.clone(), b.clone(), f.predicate.clone())),
            _ => None,
        })
        .collect()
}

fn placed(e: &Edge) -> bool {
    CLEAN_PLACES
        .iter()
        .any(|(item, place, rel)| e.0 == *item && e.1 == *place && e.2 == *rel)
}

/// Cleaning's reward for one command, from the game's true state before and after it
/// (`utils/utils.py`, `get_reward_for_changes`, with `win_cond_clean_place`): of the
/// facts that appeared and disappeared, the first of each (here in sorted order; the
/// reference takes Python's set order, the same when a command changes one placement,
/// as taking and putting do) decide: +1 when an item entered the inventory from a place
/// where it did not belong, or an item was put where it belongs; 0 when the player
/// moved or something was opened or closed, or nothing changed; -1 otherwise (an item
/// taken from its place, or put in a wrong one).
pub fn cleaning_reward(before: &[Fact], after: &[Fact]) -> i64 {
    let (b, a) = (edges(before), edges(after));
    let Some(new) = a.difference(&b).next() else {
        return 0;
    };
    let gone = b.difference(&a).next();
    let taken = new.1 == "I" && gone.is_none_or(|g| !placed(g));
    if taken || placed(new) {
        1
    } else if new.0 == "P"
        || ["examine", "open", "close", "look", "inventory"]
            .iter()
            .any(|s| new.2.contains(s))
    {
        0
    } else {
        -1
    }
}
