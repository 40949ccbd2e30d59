//! Tests of plan progress, cycles, reversals and roaming.

use super::*;
use crate::agent::AgentRevision;

/// Agent revision `n`.
fn r(n: u32) -> AgentRevision {
    AgentRevision::from_number(n).unwrap()
}

fn v(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

/// Steps whose answers depend only on the action (no progress).
fn s(xs: &[&str]) -> Vec<(String, String)> {
    xs.iter()
        .map(|a| (a.to_string(), format!("answer to {a}")))
        .collect()
}

#[test]
fn an_exact_reversal_needs_the_same_thing_and_the_same_place() {
    assert!(reverses(
        "take old key from antique trunk",
        "insert old key into antique trunk"
    ));
    assert!(reverses("take key", "drop key"));
    assert!(reverses(
        "unlock wooden door with old key",
        "lock wooden door with old key"
    ));
    assert!(reverses("open the fridge", "close fridge"));
    assert!(!reverses("take key from box", "put key on table"));
    assert!(!reverses("take key from box", "drop key"));
    assert!(!reverses("take key from box", "take key from box"));
    assert!(!reverses("open fridge", "close oven"));
    assert!(!reverses("go east", "go west"));
}

#[test]
fn cycles_are_found() {
    assert_eq!(
        detect_cycle(&s(&[
            "look",
            "examine trunk",
            "examine trunk",
            "examine trunk"
        ])),
        Some(v(&["examine trunk"]))
    );
    assert_eq!(
        detect_cycle(&s(&["go north", "go south", "go north", "go south"])),
        Some(v(&["go north", "go south"]))
    );
    let take = "take old key from antique trunk";
    let insert = "insert old key into antique trunk";
    assert!(undoes(take, insert));
    assert!(undoes("open fridge", "close fridge"));
    assert!(!undoes("open fridge", "close door"));
    assert_eq!(
        detect_cycle(&s(&[take, insert, take])),
        Some(v(&[insert, take]))
    );
    assert_eq!(detect_cycle(&s(&["go east", "open door", "go east"])), None);
    assert_eq!(detect_cycle(&s(&["look"])), None);
    // East, east, east down a corridor: each answer is another room.
    let corridor: Vec<(String, String)> = (0..3)
        .map(|i| ("go east".to_string(), format!("-= Room {i} =-")))
        .collect();
    assert_eq!(detect_cycle(&corridor), None);
}

#[test]
fn a_cycle_that_comes_back_is_blocked_longer() {
    assert_eq!(
        (1..=5).map(|k| block_steps(k, r(3))).collect::<Vec<_>>(),
        [3, 6, 12, 12, 12]
    );
    assert_eq!(block_steps(4, r(2)), BLOCK_STEPS);
}

#[test]
fn notes_and_recipes_read_are_recognised() {
    let recipe = "You open the copy of \"Cooking: A Modern Approach (3rd Ed.)\" and start reading: Recipe #1 --------- Gather all following ingredients and follow the directions to prepare this tasty meal.";
    assert!(document_read("examine cookbook", recipe));
    assert!(document_read(
        "read the note",
        "The note says: the key to the blue locker is under the mat in the hall."
    ));
    // Taking the cookbook reads nothing; examining a bed is no document.
    assert!(!document_read("take cookbook", recipe));
    assert!(!document_read(
        "examine king-size bed",
        "The king-size bed is typical. It looks sturdy, well made and worth a closer look."
    ));
    // A refusal or a one-line reply is no text.
    assert!(!document_read(
        "examine note",
        "You can't see any such thing."
    ));
    assert!(!document_read("examine note", "It is a note."));
}

#[test]
fn done_sub_goals_are_recognised() {
    assert!(achieved(
        "Take the old key from the antique trunk.",
        "take old key from antique trunk",
        "You take the old key from the antique trunk.",
        "",
        r(5)
    ));
    // Refused: not done.
    assert!(!achieved(
        "unlock wooden door with old key",
        "unlock wooden door with old key",
        "You can't do that: you don't have the key.",
        "",
        r(5)
    ));
    // The inventory shows it done, whatever the last action was.
    assert!(achieved(
        "take the old key",
        "insert old key into antique trunk",
        "You put the old key into the antique trunk.",
        "You are carrying: an old key",
        r(5)
    ));
    assert!(!achieved(
        "open the wooden door",
        "look",
        "You are in a bedroom.",
        "",
        r(5)
    ));
    // "Find" is done once the thing is carried, from revision 5 on.
    let carried = "You are carrying: a steel key.";
    assert!(achieved("find the steel key", "look", "", carried, r(5)));
    assert!(!achieved("find the steel key", "look", "", carried, r(4)));
    assert!(!achieved(
        "find the golden locker",
        "look",
        "",
        carried,
        r(5)
    ));
    assert!(achieved(
        "find the steel key in the drawer",
        "look",
        "",
        carried,
        r(5)
    ));
    // Whole words from revision 5: a keycard is no key.
    let keycard = "You are carrying: a keycard.";
    assert!(!achieved("find the key", "look", "", keycard, r(5)));
    assert!(achieved("take the key", "look", "", keycard, r(4)));
}

#[test]
fn a_sub_goal_to_be_in_a_room_is_done_there() {
    assert!(arrived("go to bedroom", "Bedroom", r(8)));
    assert!(arrived("Go to the bedroom.", "bedroom", r(8)));
    assert!(arrived("return to the kitchen", "Kitchen", r(8)));
    assert!(arrived("go back into the cellar", "Cellar", r(8)));
    assert!(arrived("enter the master bedroom", "Master Bedroom", r(8)));
    // Another room, part of a name, a direction, another verb: not done.
    assert!(!arrived("go to bedroom", "Bathroom", r(8)));
    assert!(!arrived("go to bedroom", "Master Bedroom", r(8)));
    assert!(!arrived("go to master bedroom", "Bedroom", r(8)));
    assert!(!arrived("go east", "Bedroom", r(8)));
    assert!(!arrived("open the bedroom door", "Bedroom", r(8)));
    assert!(!arrived("explore the bedroom", "Bedroom", r(8)));
    assert!(!arrived("go to bedroom", "", r(8)));
    // A direction is no room, even where a room is named like one.
    assert!(!arrived("go east", "East", r(8)));
    assert!(!arrived("move north", "North", r(8)));
    assert!(arrived("go east", "East", r(7)));
}

#[test]
fn a_walk_counts_only_moves_into_rooms_already_visited() {
    let known = Walk::Nothing.then(
        &Sent {
            command: "go east",
            from: "hall",
            to: "kitchen",
            reward: 0,
            feedback: "-= Kitchen =-",
        },
        false,
    );
    assert_eq!(known, Walk::Known);
    // A route of two moves through known rooms is one walk.
    assert_eq!(
        known.then(
            &Sent {
                command: "go north",
                from: "kitchen",
                to: "pantry",
                reward: 0,
                feedback: "-= Pantry =-"
            },
            false
        ),
        Walk::Known
    );
    // A room never visited does not count; a score change or acting on something
    // ends the walk.
    assert_eq!(
        known.then(
            &Sent {
                command: "go north",
                from: "kitchen",
                to: "attic",
                reward: 0,
                feedback: "-= Attic =-"
            },
            true
        ),
        Walk::Known
    );
    assert_eq!(
        Walk::Nothing.then(
            &Sent {
                command: "go north",
                from: "kitchen",
                to: "attic",
                reward: 0,
                feedback: "-= Attic =-"
            },
            true
        ),
        Walk::Nothing
    );
    assert_eq!(
        known.then(
            &Sent {
                command: "go north",
                from: "kitchen",
                to: "pantry",
                reward: 1,
                feedback: "-= Pantry =-"
            },
            false
        ),
        Walk::Progress
    );
    assert_eq!(
        Walk::Nothing.then(
            &Sent {
                command: "take key",
                from: "hall",
                to: "hall",
                reward: 0,
                feedback: "Taken."
            },
            false
        ),
        Walk::Progress
    );
    // A refused action or dropping a thing does not end it.
    let refused = "You can't do that: you don't have the key.";
    assert_eq!(
        Walk::Known.then(
            &Sent {
                command: "unlock door with key",
                from: "hall",
                to: "hall",
                reward: 0,
                feedback: refused
            },
            false
        ),
        Walk::Known
    );
    assert_eq!(
        Walk::Known.then(
            &Sent {
                command: "drop lamp",
                from: "hall",
                to: "hall",
                reward: 0,
                feedback: "Dropped."
            },
            false
        ),
        Walk::Known
    );
    // Looking, examining and a refused move change nothing.
    for c in ["look", "inventory", "examine steel key"] {
        assert_eq!(
            Walk::Known.then(
                &Sent {
                    command: c,
                    from: "hall",
                    to: "hall",
                    reward: 0,
                    feedback: "It is a key."
                },
                false
            ),
            Walk::Known
        );
        assert_eq!(
            Walk::Nothing.then(
                &Sent {
                    command: c,
                    from: "hall",
                    to: "hall",
                    reward: 0,
                    feedback: "It is a key."
                },
                false
            ),
            Walk::Nothing
        );
    }
    assert_eq!(
        Walk::Nothing.then(
            &Sent {
                command: "go west",
                from: "hall",
                to: "hall",
                reward: 0,
                feedback: "You can't go that way."
            },
            false
        ),
        Walk::Nothing
    );
    // Reading a note is progress.
    let text = "The note says: the nickel key opens the blue locker in the attic, upstairs.";
    assert_eq!(
        Walk::Known.then(
            &Sent {
                command: "examine note",
                from: "hall",
                to: "hall",
                reward: 0,
                feedback: text
            },
            false
        ),
        Walk::Progress
    );
}

/// hall -east- kitchen -north- pantry, all visited; the hall also has a south exit
/// no move has taken.
fn walked_house() -> (
    crate::nav::SpatialMap,
    std::collections::HashSet<(String, crate::nav::Direction)>,
) {
    use crate::memory::{AriGraph, Triplet};
    use crate::nav::{Direction, SpatialMap, move_triplets};
    let mut g = AriGraph::new();
    for t in move_triplets("hall", Direction::East, "kitchen")
        .into_iter()
        .chain(move_triplets("kitchen", Direction::North, "pantry"))
    {
        g.add(t);
    }
    g.add(Triplet::new("hall", "has exit", "south").unwrap());
    let visited = ["hall", "kitchen", "pantry"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let explored = [
        ("hall".to_string(), Direction::East),
        ("kitchen".to_string(), Direction::West),
        ("kitchen".to_string(), Direction::North),
        ("pantry".to_string(), Direction::South),
    ]
    .into_iter()
    .collect();
    (SpatialMap::from_graph(&g, &visited), explored)
}

#[test]
fn a_wanderer_keeps_only_the_moves_towards_unexplored_exits() {
    use crate::nav::Direction;
    use std::collections::{BTreeSet, HashSet};
    let (map, explored) = walked_house();
    let visited: BTreeSet<String> = ["hall", "kitchen", "pantry"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let exit = |r: &str, d: Direction| (r.to_string(), d);
    // The game offered every exit below; the hall's south was never taken, the
    // kitchen's east was refused, and the pantry's west leads (the extractor says) to
    // the hall, a room visited.
    let offered_exits: HashSet<(String, Direction)> = explored
        .iter()
        .cloned()
        .chain([
            exit("hall", Direction::South),
            exit("kitchen", Direction::East),
        ])
        .collect();
    let refused: HashSet<(String, Direction)> =
        [exit("kitchen", Direction::East)].into_iter().collect();
    let frontier = frontier(&map, &offered_exits, &explored, &refused, &visited);
    assert_eq!(frontier, [exit("hall", Direction::South)]);
    // In the hall: only the frontier exit stays among the moves.
    let offered = v(&[
        "go east",
        "go south",
        "take key",
        "look",
        "go to kitchen",
        "go to pantry",
    ]);
    assert_eq!(
        held_while_wandering("hall", &map, &frontier, &offered, false),
        v(&["go east", "go to kitchen", "go to pantry"])
    );
    // In the pantry (no frontier exit): moves that lead to the hall stay.
    let offered = v(&["go south", "look", "go to hall", "go to kitchen"]);
    assert_eq!(
        held_while_wandering("pantry", &map, &frontier, &offered, false),
        v(&["go south", "go to kitchen"])
    );
    // The way to the frontier is blocked already (not available): nothing is held,
    // so the agent is never left without a move by the hold.
    let available = v(&["go south", "look", "go to kitchen"]);
    assert!(held_while_wandering("pantry", &map, &frontier, &available, false).is_empty());
    // Just arrived in a room with a thing to act on: every move waits a decision.
    let offered = v(&[
        "go east",
        "go south",
        "take key",
        "drop lamp",
        "go to pantry",
    ]);
    assert_eq!(
        held_while_wandering("hall", &map, &frontier, &offered, true),
        v(&["go east", "go south", "go to pantry"])
    );
    // Nothing to act on there (dropping, looking and examining do not count).
    let offered = v(&["go east", "go south", "drop lamp", "examine lamp", "look"]);
    assert!(!offers_things(&offered));
    assert_eq!(
        held_while_wandering("hall", &map, &frontier, &offered, true),
        v(&["go east"])
    );
    // A new room with a thing to act on holds its moves with no exit left to explore.
    let offered = v(&["go south", "take apple", "go to kitchen"]);
    assert_eq!(
        held_while_wandering("pantry", &map, &[], &offered, true),
        v(&["go south", "go to kitchen"])
    );
}

#[test]
fn the_hold_comes_after_four_walks_and_lasts_six_decisions() {
    let mut w = Wander::default();
    let due: Vec<bool> = [Walk::Known, Walk::Nothing, Walk::Known, Walk::Known]
        .into_iter()
        .map(|k| w.next(k))
        .collect();
    assert_eq!(due, [false, false, false, false]);
    assert!(w.next(Walk::Known));
    // Held for six decisions (new rooms and looks keep it), then released.
    for _ in 0..5 {
        w.held();
        assert!(w.next(Walk::Nothing));
    }
    w.held();
    assert!(!w.next(Walk::Nothing));
    assert_eq!(w.walked(), 0);
    // Acting on something ends the walk at once.
    for _ in 0..4 {
        w.next(Walk::Known);
    }
    assert!(w.next(Walk::Known));
    assert!(!w.next(Walk::Progress));
}
