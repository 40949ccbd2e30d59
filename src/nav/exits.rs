//! The unexplored exits as the reference reads them (`pipeline_arigraph.py:221-227`,
//! `get_unexpl_exits`; `utils/utils.py:316-359`, `find_unexplored_exits`): per room the
//! agent decided in, the facts that touch the room (one step of the graph) name its
//! exits, and the facts that lead back into the room mark them explored.

use std::collections::BTreeSet;

use super::{Direction, UnexploredExit};
use crate::memory::AriGraph;

/// The four compass words the reference looks for.
const COMPASS: [Direction; 4] = [
    Direction::North,
    Direction::South,
    Direction::East,
    Direction::West,
];

/// Words of a relation that make it an exit's relation when it also names a compass
/// word (`utils/utils.py:324`: `['exit', 'lead', 'entr', 'path']`).
const EXIT_WORDS: [&str; 4] = ["exit", "lead", "entr", "path"];

/// The compass words `text` holds, as the reference finds them (inside words too).
fn compass_in(text: &str) -> Vec<Direction> {
    COMPASS
        .into_iter()
        .filter(|d| text.contains(d.as_str()))
        .collect()
}

/// The exits of `room` (an entity key) that the facts of `graph` name and none leads back
/// through, in compass order:
/// - an exit: `room, has exit, DIR`; or a relation holding exit, lead, entr or path
///   together with compass words in the relation (`room, has entrance to north, ...`)
///   or, failing that, in the object (`room, has entrance to, north`);
/// - explored: a fact `X, REL, room` whose relation's second word is that direction
///   (`kitchen, is north of, room` explores the room's north).
pub fn unexplored_of(graph: &AriGraph, room: &str) -> Vec<Direction> {
    let touching: Vec<_> = graph
        .alive_ids_with_relation(|_| true)
        .into_iter()
        .map(|id| graph.triplet(id))
        .filter(|t| t.subject == room || t.object == room)
        .collect();
    let mut exits = BTreeSet::new();
    for t in touching.iter().filter(|t| t.subject == room) {
        let exit_relation = EXIT_WORDS.iter().any(|w| t.relation.contains(w));
        if t.relation.contains("has exit") {
            exits.extend(Direction::parse(&t.object).filter(|d| COMPASS.contains(d)));
        } else if exit_relation && !compass_in(&t.relation).is_empty() {
            exits.extend(compass_in(&t.relation));
        } else if exit_relation {
            exits.extend(compass_in(&t.object));
        }
    }
    for t in touching.iter().filter(|t| t.object == room) {
        let second = t.relation.split(' ').nth(1);
        if let Some(d) = second.and_then(Direction::parse) {
            exits.remove(&d);
        }
    }
    exits.into_iter().collect()
}

/// [`unexplored_of`] for each room of `visited`, in its order.
pub fn unexplored(graph: &AriGraph, visited: &BTreeSet<String>) -> Vec<UnexploredExit> {
    visited
        .iter()
        .flat_map(|room| {
            unexplored_of(graph, room)
                .into_iter()
                .map(|direction| UnexploredExit {
                    room: room.clone(),
                    direction,
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Triplet;

    fn graph(facts: &[(&str, &str, &str)]) -> AriGraph {
        let mut g = AriGraph::new();
        for (s, r, o) in facts {
            g.add(Triplet::new(s, r, o).expect("triplet"));
        }
        g
    }

    #[test]
    fn exits_are_read_as_the_reference_reads_them() {
        let g = graph(&[
            ("room k", "has entrance to", "north"),
            ("room k", "has exit", "west"),
            ("room k", "path leads east", "garden"),
            ("room k", "is next to", "south"),
            ("hall", "is west of", "room k"),
        ]);
        // north (entrance, compass word in the object), east (path, compass word in the
        // relation); west is explored by `hall, is west of, room k`; `is next to` names
        // no exit.
        assert_eq!(
            unexplored_of(&g, "room k"),
            [Direction::North, Direction::East]
        );
        assert!(unexplored_of(&g, "hall").is_empty());
        let visited: BTreeSet<String> = ["hall".to_string(), "room k".to_string()].into();
        assert_eq!(unexplored(&g, &visited).len(), 2);
    }
}
