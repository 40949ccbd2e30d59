//! `--retrieval astar`: PersonalAI's A* retrieval (arXiv:2506.17001, section III.D
//! "A*", Appendix E): for every pair of vertices matched to the query, the shortest path
//! between them found by A* (unit edge cost, the inner-product heuristic between vertex
//! embeddings), and the triplets along the paths, deduplicated.
//!
//! Departures: PersonalAI falls back to the path to the last vertex it expanded when the
//! end is not reached; here a pair without a path (another component, or beyond the
//! limits) contributes nothing. The search runs on `pathfinding`'s A*, whose costs are
//! integers: an edge costs [`STEP`], the heuristic is `(1 - cos) · STEP` rounded.

use std::cell::Cell;
use std::collections::{HashMap, HashSet, VecDeque};

use super::{found, neighbours, push_new, vertex_similarity};
use crate::memory::graph::{AriGraph, TripletId};
use crate::memory::retrieval::Retrieved;

/// The cost of one edge (the heuristic's unit: a heuristic of `STEP` is one hop).
pub const STEP: u64 = 1000;

/// A* limits (Appendix E).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// The search stays within this many hops of the start vertex (paper: 10).
    pub max_depth: u32,
    /// At most this many vertices are expanded per pair (paper: 150 passed nodes).
    pub max_passed: usize,
}

impl Params {
    /// The paper's values: depth 10, 150 passed nodes.
    pub const PAPER: Params = Params {
        max_depth: 10,
        max_passed: 150,
    };
}

/// The inner-product heuristic from `v` to `goal`: `(1 - cos(e_v, e_goal)) · STEP`,
/// clamped to `0..=2·STEP` (0 when a vertex has no vector). PersonalAI's `ip` metric;
/// e5 vectors are unit length, so the inner product is the cosine.
pub fn heuristic(g: &AriGraph, v: &str, goal: &str) -> u64 {
    if v == goal || g.vertex_embedding(v).is_none() || g.vertex_embedding(goal).is_none() {
        return 0;
    }
    let d = (1.0 - vertex_similarity(g, v, goal)).clamp(0.0, 2.0);
    (d * STEP as f32).round() as u64
}

/// Hop distances from `start`, up to `max_depth` hops.
fn ball<'g>(g: &'g AriGraph, start: &'g str, max_depth: u32) -> HashMap<&'g str, u32> {
    let mut dist = HashMap::from([(start, 0)]);
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        let d = dist[v];
        if d >= max_depth {
            continue;
        }
        for (_, n) in neighbours(g, v) {
            if !dist.contains_key(n) {
                dist.insert(n, d + 1);
                queue.push_back(n);
            }
        }
    }
    dist
}

/// The A* path from `from` to `to` (vertices, both ends included), or `None` when `to`
/// is not reached within the limits. Successors are visited by triplet id, so ties
/// are broken the same way every time.
pub fn path<'g>(g: &'g AriGraph, from: &'g str, to: &'g str, p: &Params) -> Option<Vec<&'g str>> {
    let within = ball(g, from, p.max_depth);
    if !within.contains_key(to) {
        return None;
    }
    let passed = Cell::new(0usize);
    let (path, _) = pathfinding::prelude::astar(
        &from,
        |v: &&'g str| {
            passed.set(passed.get() + 1);
            if passed.get() > p.max_passed {
                return Vec::new();
            }
            let mut next: Vec<(&'g str, u64)> = Vec::new();
            for (_, n) in neighbours(g, v) {
                if within.contains_key(n) && !next.iter().any(|(m, _)| *m == n) {
                    next.push((n, STEP));
                }
            }
            next
        },
        |v| heuristic(g, v, to),
        |v| *v == to,
    )?;
    Some(path)
}

/// The alive triplets between two vertices (either direction), by id.
fn between(g: &AriGraph, a: &str, b: &str) -> Vec<TripletId> {
    neighbours(g, a)
        .into_iter()
        .filter(|(_, n)| *n == b)
        .map(|(id, _)| id)
        .collect()
}

/// A* retrieval: for each pair of `seeds` (i < j, in seed order) the triplets along
/// the path from seed i to seed j, hop by hop (parallel triplets by id), each once.
/// A triplet's depth is its hop on the first path that holds it (0 = first hop), its
/// similarity the cosine of its embedding to `query`.
pub fn search(g: &AriGraph, query: &[f32], seeds: &[&str], p: &Params) -> Vec<Retrieved> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (i, &from) in seeds.iter().enumerate() {
        for &to in &seeds[i + 1..] {
            let Some(path) = path(g, from, to, p) else {
                continue;
            };
            for (hop, pair) in path.windows(2).enumerate() {
                for id in between(g, pair[0], pair[1]) {
                    push_new(&mut out, &mut seen, found(g, query, id, hop as u32));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::strategies::fixture::{graph, house, texts};

    /// A diamond a-c-d / a-b-d: both routes are two hops; c comes first by triplet id,
    /// b is the one whose embedding is near d's.
    fn diamond() -> AriGraph {
        graph(
            &[
                ("a", "leads to", "c"),
                ("c", "leads to", "d"),
                ("a", "leads to", "b"),
                ("b", "leads to", "d"),
                ("x", "leads to", "y"),
            ],
            &[
                ("a", [1.0, 0.0, 0.0]),
                ("b", [0.0, 0.2, 1.0]),
                ("c", [0.0, 1.0, 0.0]),
                ("d", [0.0, 0.0, 1.0]),
                ("x", [0.0, 0.0, 1.0]),
                ("y", [0.0, 0.0, 1.0]),
            ],
        )
    }

    #[test]
    fn the_heuristic_picks_the_route_whose_vertices_resemble_the_goal() {
        let g = diamond();
        assert_eq!(heuristic(&g, "c", "d"), STEP);
        assert_eq!(heuristic(&g, "b", "d"), 19); // 1 - 0.9806
        assert_eq!(path(&g, "a", "d", &Params::PAPER).unwrap(), ["a", "b", "d"]);
        let got = search(&g, &[1.0, 0.0, 0.0], &["a", "d"], &Params::PAPER);
        assert_eq!(
            texts(&g, &got),
            ["a, leads to, b", "b, leads to, d"],
            "{got:?}"
        );
        assert_eq!(got.iter().map(|r| r.depth).collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn pairs_without_a_path_or_beyond_the_limits_give_nothing() {
        let g = diamond();
        assert!(search(&g, &[1.0, 0.0, 0.0], &["a", "x"], &Params::PAPER).is_empty());
        let short = Params {
            max_depth: 1,
            ..Params::PAPER
        };
        assert!(path(&g, "a", "d", &short).is_none());
        let few = Params {
            max_passed: 1,
            ..Params::PAPER
        };
        assert!(path(&g, "a", "d", &few).is_none());
        assert!(
            path(
                &g,
                "a",
                "d",
                &Params {
                    max_passed: 2,
                    ..few
                }
            )
            .is_some()
        );
    }

    #[test]
    fn astar_on_the_house_unions_the_paths_between_all_matched_pairs() {
        let g = house();
        let q = [1.0, 0.0, 0.0];
        // kitchen-fridge, kitchen-counter-knife, fridge-kitchen-counter-knife (no news).
        let got = search(&g, &q, &["kitchen", "fridge", "knife"], &Params::PAPER);
        assert_eq!(
            texts(&g, &got),
            [
                "fridge, is in, kitchen",
                "counter, is in, kitchen",
                "knife, is on, counter"
            ]
        );
        assert_eq!(got.iter().map(|r| r.depth).collect::<Vec<_>>(), [0, 0, 1]);
        assert!((got[2].similarity - 1.0).abs() < 1e-6);
        // One seed has no pair.
        assert!(search(&g, &q, &["kitchen"], &Params::PAPER).is_empty());
    }
}
