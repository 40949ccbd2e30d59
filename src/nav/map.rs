//! The spatial map read from the semantic graph: rooms, directed moves, known exits;
//! `go to` routes by A* and reachability by one breadth-first search (`pathfinding`).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::{Direction, Move, UnexploredExit, relation_direction};
use crate::memory::AriGraph;

/// Relations whose triplets say a room has an exit (`room, has exit, north`).
const EXIT_RELATIONS: &[&str] = &["has exit", "has an exit", "has an unexplored exit", "exit"];

/// Rooms and directed moves between them, read from the graph.
#[derive(Debug, Clone, Default)]
pub struct SpatialMap {
    /// room -> direction -> room reached.
    edges: BTreeMap<String, BTreeMap<Direction, String>>,
    /// room -> directions with a known exit (from `has exit` triplets and the edges).
    exits: BTreeMap<String, BTreeSet<Direction>>,
    rooms: BTreeSet<String>,
}

impl SpatialMap {
    /// Build the map from the alive triplets of `graph`. `rooms` are the rooms the agent
    /// has been in (from the game's room header); rooms named by spatial triplets are
    /// added. `has exit` triplets count only for known rooms.
    pub fn from_graph(graph: &AriGraph, visited: &BTreeSet<String>) -> Self {
        Self::read(graph, visited, false)
    }

    /// The map the reference routes over (`graphs/parent_graph.py:131-154`,
    /// `compute_spatial_graph`): only the compass facts that join two rooms of
    /// `visited` (the rooms the agent decided in), no exit without its destination.
    pub fn between_visited(graph: &AriGraph, visited: &BTreeSet<String>) -> Self {
        Self::read(graph, visited, true)
    }

    fn read(graph: &AriGraph, visited: &BTreeSet<String>, between_visited: bool) -> Self {
        let mut map = SpatialMap {
            rooms: visited.clone(),
            ..SpatialMap::default()
        };
        let mut exits: Vec<(String, Direction)> = Vec::new();
        // Only the spatial relations are read (oldest triplet first, as before).
        let ids = graph.alive_ids_with_relation(|r| {
            relation_direction(r).is_some() || EXIT_RELATIONS.contains(&r)
        });
        for id in ids {
            let t = graph.triplet(id);
            let joins_visited = visited.contains(&t.subject) && visited.contains(&t.object);
            if between_visited && !joins_visited {
                continue;
            }
            if let Some(dir) = relation_direction(&t.relation) {
                // t.subject is `dir` of t.object: from object go dir -> subject.
                map.add_edge(&t.object, dir, &t.subject);
                map.add_edge(&t.subject, dir.opposite(), &t.object);
            } else if EXIT_RELATIONS.contains(&t.relation.as_str())
                && let Some(dir) = Direction::parse(&t.object)
            {
                exits.push((t.subject.clone(), dir));
            }
        }
        for (room, dir) in exits {
            if map.rooms.contains(&room) {
                map.exits.entry(room).or_default().insert(dir);
            }
        }
        map
    }

    fn add_edge(&mut self, from: &str, dir: Direction, to: &str) {
        self.rooms.insert(from.to_string());
        self.rooms.insert(to.to_string());
        // The first triplet read wins when two disagree (they are read oldest first).
        self.edges
            .entry(from.to_string())
            .or_default()
            .entry(dir)
            .or_insert_with(|| to.to_string());
        self.exits.entry(from.to_string()).or_default().insert(dir);
    }

    /// Every known room.
    pub fn rooms(&self) -> &BTreeSet<String> {
        &self.rooms
    }

    /// Where going `dir` from `room` leads, if known.
    pub fn destination(&self, room: &str, dir: Direction) -> Option<&str> {
        self.edges
            .get(room)
            .and_then(|m| m.get(&dir))
            .map(String::as_str)
    }

    /// The shortest route from `from` to `to` by A* with unit edge cost and a zero
    /// heuristic (there are no coordinates; zero is admissible). Empty when
    /// `from == to`; `None` when `to` cannot be reached over known moves.
    pub fn route(&self, from: &str, to: &str) -> Option<Vec<Move>> {
        let (path, _cost) = pathfinding::prelude::astar(
            &from.to_string(),
            |room| {
                self.edges
                    .get(room)
                    .map(|m| {
                        m.values()
                            .map(|next| (next.clone(), 1u32))
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            },
            |_| 0u32,
            |room| room == to,
        )?;
        let mut moves = Vec::new();
        for pair in path.windows(2) {
            let dir = self
                .edges
                .get(&pair[0])?
                .iter()
                .find(|(_, r)| **r == pair[1])
                .map(|(d, _)| *d)?;
            moves.push(Move {
                direction: dir,
                to: pair[1].clone(),
            });
        }
        Some(moves)
    }

    /// Rooms other than `current` that a route reaches, sorted: one breadth-first reach
    /// over the known moves.
    pub fn reachable_from(&self, current: &str) -> Vec<String> {
        let start = current.to_string();
        let mut out: Vec<String> = pathfinding::prelude::bfs_reach(start, |room| {
            self.edges
                .get(room)
                .map(|m| m.values().cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        })
        .filter(|r| r != current && self.rooms.contains(r))
        .collect();
        out.sort();
        out
    }

    /// Exits that the graph knows exist but that no move has taken (`explored`) and no
    /// triplet resolves, sorted by room then direction.
    pub fn unexplored(&self, explored: &HashSet<(String, Direction)>) -> Vec<UnexploredExit> {
        let mut out = Vec::new();
        for (room, dirs) in &self.exits {
            for dir in dirs {
                if explored.contains(&(room.clone(), *dir))
                    || self.destination(room, *dir).is_some()
                {
                    continue;
                }
                out.push(UnexploredExit {
                    room: room.clone(),
                    direction: *dir,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Triplet;
    use crate::nav::move_triplets;

    fn t(s: &str, r: &str, o: &str) -> Triplet {
        Triplet::new(s, r, o).unwrap()
    }

    fn rooms(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    /// hall - kitchen (east), kitchen - pantry (north), hall - garden (south),
    /// and a one-way slide from garden down to the cellar.
    fn house() -> AriGraph {
        let mut g = AriGraph::new();
        for tr in move_triplets("hall", Direction::East, "kitchen")
            .into_iter()
            .chain(move_triplets("kitchen", Direction::North, "pantry"))
            .chain(move_triplets("hall", Direction::South, "garden"))
        {
            g.add(tr);
        }
        g
    }

    #[test]
    fn directions_parse_and_reverse() {
        assert_eq!(Direction::of_command("go north"), Some(Direction::North));
        assert_eq!(Direction::of_command("NE"), Some(Direction::Northeast));
        assert_eq!(Direction::of_command("take key"), None);
        assert_eq!(relation_direction("is west of"), Some(Direction::West));
        assert_eq!(relation_direction("lies above"), Some(Direction::Up));
        assert_eq!(relation_direction("has exit"), None);
        // Containment is not a direction (a regression: "player, is in, bedroom" made
        // "player" a room reachable by going in).
        assert_eq!(relation_direction("is in"), None);
        assert_eq!(relation_direction("is inside"), None);
        assert_eq!(Direction::of_command("go in"), Some(Direction::In));
        for d in Direction::ALL {
            assert_eq!(d.opposite().opposite(), d);
            assert_eq!(Direction::parse(d.as_str()), Some(d));
        }
    }

    #[test]
    fn astar_finds_the_shortest_route() {
        let g = house();
        let map = SpatialMap::from_graph(&g, &rooms(&["hall"]));
        let route = map.route("garden", "pantry").unwrap();
        let dirs: Vec<Direction> = route.iter().map(|m| m.direction).collect();
        assert_eq!(
            dirs,
            vec![Direction::North, Direction::East, Direction::North]
        );
        assert_eq!(route.last().unwrap().to, "pantry");
        assert_eq!(map.route("hall", "hall"), Some(vec![]));
    }

    #[test]
    fn a_shortcut_is_preferred() {
        let mut g = house();
        // A direct door from the garden to the pantry.
        for tr in move_triplets("garden", Direction::West, "pantry") {
            g.add(tr);
        }
        let map = SpatialMap::from_graph(&g, &BTreeSet::new());
        assert_eq!(map.route("garden", "pantry").unwrap().len(), 1);
    }

    #[test]
    fn unreachable_room_has_no_route() {
        let mut g = house();
        g.add(t("attic", "has exit", "down"));
        let map = SpatialMap::from_graph(&g, &rooms(&["attic"]));
        assert_eq!(map.route("hall", "attic"), None);
        assert_eq!(map.route("hall", "nowhere"), None);
        assert!(!map.reachable_from("hall").contains(&"attic".to_string()));
    }

    #[test]
    fn one_way_edges_route_one_way() {
        // A spatial relation holds both ways by its meaning ("below" / "above")...
        let mut g = AriGraph::new();
        g.add(t("cellar", "is below", "garden"));
        let map = SpatialMap::from_graph(&g, &BTreeSet::new());
        assert_eq!(
            map.route("garden", "cellar").unwrap()[0].direction,
            Direction::Down
        );
        assert_eq!(
            map.route("cellar", "garden").unwrap()[0].direction,
            Direction::Up
        );
        // ...but a one-way edge (a slide) is routed one way only.
        let mut one_way = SpatialMap::default();
        one_way.add_edge("garden", Direction::Down, "cellar");
        assert!(one_way.route("garden", "cellar").is_some());
        assert!(one_way.route("cellar", "garden").is_none());
    }

    #[test]
    fn a_stale_edge_removed_by_replacement_is_not_routed() {
        let mut g = house();
        let stale = g.find(&t("kitchen", "is east of", "hall")).unwrap();
        let back = g.find(&t("hall", "is west of", "kitchen")).unwrap();
        g.remove(stale);
        g.remove(back);
        let map = SpatialMap::from_graph(&g, &rooms(&["hall", "kitchen"]));
        assert_eq!(map.route("hall", "pantry"), None);
        assert_eq!(map.route("kitchen", "pantry").map(|r| r.len()), Some(1));
    }

    #[test]
    fn unexplored_exits_shrink_as_moves_are_made() {
        let mut g = AriGraph::new();
        g.add(t("hall", "has exit", "east"));
        g.add(t("hall", "has exit", "north"));
        g.add(t("box", "has exit", "west")); // not a room: ignored
        let visited = rooms(&["hall"]);
        let explored = HashSet::new();
        let map = SpatialMap::from_graph(&g, &visited);
        let names: Vec<String> = map
            .unexplored(&explored)
            .iter()
            .map(|u| format!("{} {}", u.room, u.direction.as_str()))
            .collect();
        assert_eq!(names, vec!["hall north", "hall east"]);
        // Go east: recorded as a move; the east exit is explored, the kitchen's west exit
        // is known (it leads back).
        for tr in move_triplets("hall", Direction::East, "kitchen") {
            g.add(tr);
        }
        let explored: HashSet<(String, Direction)> = [("hall".to_string(), Direction::East)].into();
        let map = SpatialMap::from_graph(&g, &rooms(&["hall", "kitchen"]));
        let left: Vec<UnexploredExit> = map.unexplored(&explored);
        assert_eq!(
            left,
            vec![UnexploredExit {
                room: "hall".into(),
                direction: Direction::North
            }]
        );
    }
}
