//! `--retrieval water-circles`: PersonalAI's WaterCircles (arXiv:2506.17001, section
//! III.D "WaterCircles", Appendix E): a breadth-first search started at every vertex
//! matched to the query, spreading ring by ring like circles on water; what the circles
//! of several matched vertices reach is ranked by how many of them it touches.
//!
//! For AriGraph's graph (no thesis vertices; episodes are scored afterwards by Eq. 1)
//! the items are triplets: a triplet lies in the circle of matched vertex s at ring k
//! when one of its ends is k - 1 hops from s (k = 1..d, d = `--depth`). Under the
//! paper's strict filter, the triplets where circles meet (in two or more circles; on
//! the chains that link matched entities) are returned, ranked by the number of circles,
//! then by the sum of their rings (nearer first), then by id, at most
//! [`Params::chain_triplets`]; only when no circles meet, each circle gives its
//! [`Params::other_triplets`] first triplets (by ring, then similarity to the query).

use std::collections::{HashMap, HashSet, VecDeque};

use super::{found, neighbours, push_new, similarity};
use crate::memory::graph::{AriGraph, TripletId};
use crate::memory::retrieval::Retrieved;

/// WaterCircles budgets (Appendix E, strict filter).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Triplets where circles meet, at most (paper: 25 chain triplets).
    pub chain_triplets: usize,
    /// Triplets per circle when no circles meet (paper: 6 other triplets).
    pub other_triplets: usize,
}

impl Params {
    /// The paper's values: 25 chain triplets, 6 other triplets.
    pub const PAPER: Params = Params {
        chain_triplets: 25,
        other_triplets: 6,
    };
}

/// The circle of `seed` over `rings` rings: each triplet reached with its ring (1 =
/// incident to the seed), in the order the breadth-first search found them (vertices in
/// queue order, their triplets by id).
pub fn circle(g: &AriGraph, seed: &str, rings: u32) -> Vec<(TripletId, u32)> {
    let mut out = Vec::new();
    let mut taken = HashSet::new();
    let mut dist: HashMap<&str, u32> = HashMap::from([(seed, 0)]);
    let mut queue = VecDeque::from([seed]);
    while let Some(v) = queue.pop_front() {
        let d = dist[v];
        if d >= rings {
            continue;
        }
        for (id, n) in neighbours(g, v) {
            if taken.insert(id) {
                out.push((id, d + 1));
            }
            if !dist.contains_key(n) {
                dist.insert(n, d + 1);
                queue.push_back(n);
            }
        }
    }
    out
}

/// WaterCircles retrieval from `seeds` over `rings` rings (see the module). A
/// triplet's depth is its nearest ring minus one (0 = at a matched vertex).
pub fn search(
    g: &AriGraph,
    query: &[f32],
    seeds: &[&str],
    rings: u32,
    p: &Params,
) -> Vec<Retrieved> {
    let circles: Vec<Vec<(TripletId, u32)>> = seeds.iter().map(|s| circle(g, s, rings)).collect();
    // Per triplet: circles touched, sum of rings, nearest ring.
    let mut touch: HashMap<TripletId, (usize, u32, u32)> = HashMap::new();
    for c in &circles {
        for &(id, ring) in c {
            let e = touch.entry(id).or_insert((0, 0, ring));
            e.0 += 1;
            e.1 += ring;
            e.2 = e.2.min(ring);
        }
    }
    let mut meet: Vec<(TripletId, (usize, u32, u32))> = touch
        .iter()
        .filter(|(_, t)| t.0 >= 2)
        .map(|(&id, &t)| (id, t))
        .collect();
    let mut out = Vec::new();
    if !meet.is_empty() {
        meet.sort_by(|a, b| {
            b.1.0
                .cmp(&a.1.0)
                .then(a.1.1.cmp(&b.1.1))
                .then(a.0.cmp(&b.0))
        });
        for (id, (_, _, ring)) in meet.into_iter().take(p.chain_triplets) {
            out.push(found(g, query, id, ring - 1));
        }
        return out;
    }
    let mut seen = HashSet::new();
    for c in circles {
        let mut ranked: Vec<(TripletId, u32, f32)> = c
            .into_iter()
            .map(|(id, ring)| (id, ring, similarity(g, query, id)))
            .collect();
        ranked.sort_by(|a, b| a.1.cmp(&b.1).then(b.2.total_cmp(&a.2)).then(a.0.cmp(&b.0)));
        for (id, ring, _) in ranked.into_iter().take(p.other_triplets) {
            push_new(&mut out, &mut seen, found(g, query, id, ring - 1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::strategies::fixture::{house, texts};

    const Q: [f32; 3] = [1.0, 0.0, 0.0];

    #[test]
    fn circles_spread_ring_by_ring() {
        let g = house();
        let rings = |d| -> Vec<(usize, u32)> {
            circle(&g, "kitchen", d)
                .into_iter()
                .map(|(id, r)| (id.0, r))
                .collect()
        };
        assert_eq!(rings(1), [(0, 1), (2, 1), (3, 1)]);
        assert_eq!(
            rings(2),
            [(0, 1), (2, 1), (3, 1), (7, 2), (1, 2), (4, 2), (5, 2)]
        );
        assert!(circle(&g, "kitchen", 0).is_empty());
    }

    #[test]
    fn where_circles_meet_ranks_first_by_matched_vertices_touched() {
        let g = house();
        let seeds = ["kitchen", "fridge", "knife"];
        // One ring: only "fridge, is in, kitchen" is in two circles.
        let one = search(&g, &Q, &seeds, 1, &Params::PAPER);
        assert_eq!(texts(&g, &one), ["fridge, is in, kitchen"]);
        // Two rings: counter-kitchen is in all three circles (rings 1 + 2 + 2); then
        // the triplets in two: fridge-kitchen (rings 1 + 1), then the ring sums of 3
        // by id.
        let two = search(&g, &Q, &seeds, 2, &Params::PAPER);
        assert_eq!(
            texts(&g, &two),
            [
                "counter, is in, kitchen",
                "fridge, is in, kitchen",
                "knife, is on, counter",
                "kitchen, is west of, hall",
                "apple, is in, fridge",
            ]
        );
        assert!(two.iter().all(|r| r.depth == 0));
        let capped = search(
            &g,
            &Q,
            &seeds,
            2,
            &Params {
                chain_triplets: 2,
                ..Params::PAPER
            },
        );
        assert_eq!(capped.len(), 2);
    }

    #[test]
    fn circles_that_do_not_meet_give_their_nearest_triplets() {
        let g = house();
        // bed and key are three hops apart: one ring each does not meet.
        let apart = search(&g, &Q, &["bed", "key"], 1, &Params::PAPER);
        assert_eq!(
            texts(&g, &apart),
            ["bed, is in, bedroom", "key, is in, hall"]
        );
        // Two rings meet on "bedroom, is north of, hall".
        let met = search(&g, &Q, &["bed", "key"], 2, &Params::PAPER);
        assert_eq!(texts(&g, &met), ["bedroom, is north of, hall"]);
        assert_eq!(met[0].depth, 1);
        // The per-circle budget, ring first, then similarity to the query.
        let one = search(
            &g,
            &Q,
            &["hall"],
            2,
            &Params {
                other_triplets: 2,
                ..Params::PAPER
            },
        );
        // Ring 1 of hall: kitchen-hall (cos 0.894), bedroom-hall (0.577), key-hall (0).
        assert_eq!(
            texts(&g, &one),
            ["kitchen, is west of, hall", "bedroom, is north of, hall"]
        );
    }
}
