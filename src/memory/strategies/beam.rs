//! `--retrieval beam`: PersonalAI's BeamSearch (arXiv:2506.17001, section III.D
//! "BeamSearch", Appendix E): from every vertex matched to the query, paths grown one
//! triplet at a time, keeping the best-scored few at each depth, so the paths follow the
//! triplets most similar to the query.
//!
//! A triplet costs `-ln(cos)` (cos: its embedding's cosine to the query, floored at
//! 1e-6; PersonalAI's `-ln(1 - distance)`); a path's accumulated cost decides which
//! paths stay in the beam; a finished path is scored `cost / hops^alpha` (the mean with
//! alpha = 0.75 favours longer paths a little). Paths that can grow no further end
//! early; at the end the ended and still growing paths are sorted together (the paper's
//! "mixed" final sorting) and the best [`Params::paths`] give their triplets, in path
//! order, each once. Ties break by the paths' triplet ids.

use std::collections::HashSet;

use super::{found, neighbours, push_new, similarity};
use crate::memory::graph::{AriGraph, TripletId};
use crate::memory::retrieval::Retrieved;

/// BeamSearch limits (Appendix E).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Triplets per path at most (paper: depth 5).
    pub depth: usize,
    /// Paths kept in the beam and returned (the beam width; paper: 10).
    pub paths: usize,
    /// A path may come back to a vertex it already holds (never to the one it just left).
    pub revisits: bool,
    /// Paths may share vertices and triplets with the other paths of the beam (paper:
    /// path-intersection restrictions off).
    pub overlap: bool,
    /// The exponent of the path length in the final score (paper: mean alpha 0.75).
    pub alpha: f64,
}

impl Params {
    /// The paper's values: depth 5, 10 paths, alpha 0.75, paths may overlap; a path does
    /// not revisit its own vertices (our reading of the restrictions left on).
    pub const PAPER: Params = Params {
        depth: 5,
        paths: 10,
        revisits: false,
        overlap: true,
        alpha: 0.75,
    };
}

/// A path from a matched vertex.
#[derive(Debug, Clone)]
struct Path<'g> {
    vertices: Vec<&'g str>,
    triplets: Vec<TripletId>,
    cost: f64,
}

impl Path<'_> {
    fn score(&self, alpha: f64) -> f64 {
        self.cost / (self.triplets.len() as f64).powf(alpha)
    }
}

/// The cost of a triplet for `query`: `-ln(max(cos, 1e-6))`.
pub fn cost(g: &AriGraph, query: &[f32], id: TripletId) -> f64 {
    -f64::from(similarity(g, query, id)).max(1e-6).ln()
}

/// The best paths from one vertex, best first.
fn paths_from<'g>(g: &'g AriGraph, query: &[f32], seed: &'g str, p: &Params) -> Vec<Path<'g>> {
    let mut beam = vec![Path {
        vertices: vec![seed],
        triplets: Vec::new(),
        cost: 0.0,
    }];
    let mut ended: Vec<Path<'g>> = Vec::new();
    for _ in 0..p.depth {
        if beam.is_empty() {
            break;
        }
        let mut candidates: Vec<Path<'g>> = Vec::new();
        for (i, path) in beam.iter().enumerate() {
            let tail = path.vertices[path.vertices.len() - 1];
            let prev = path.vertices.len().checked_sub(2).map(|k| path.vertices[k]);
            let others = || beam.iter().enumerate().filter(move |(j, _)| *j != i);
            let options: Vec<(TripletId, &'g str)> = neighbours(g, tail)
                .into_iter()
                .filter(|(id, n)| {
                    Some(*n) != prev
                        && !path.triplets.contains(id)
                        && (p.revisits || !path.vertices.contains(n))
                        && (p.overlap
                            || others()
                                .all(|(_, o)| !o.vertices.contains(n) && !o.triplets.contains(id)))
                })
                .collect();
            if options.is_empty() {
                ended.push(path.clone());
                continue;
            }
            for (id, n) in options {
                let mut next = path.clone();
                next.vertices.push(n);
                next.triplets.push(id);
                next.cost += cost(g, query, id);
                candidates.push(next);
            }
        }
        candidates.sort_by(|a, b| a.cost.total_cmp(&b.cost).then(a.triplets.cmp(&b.triplets)));
        candidates.truncate(p.paths);
        beam = candidates;
    }
    let mut all: Vec<Path<'g>> = beam
        .into_iter()
        .chain(ended)
        .filter(|path| !path.triplets.is_empty())
        .collect();
    all.sort_by(|a, b| {
        a.score(p.alpha)
            .total_cmp(&b.score(p.alpha))
            .then(a.triplets.cmp(&b.triplets))
    });
    all.truncate(p.paths);
    all
}

/// BeamSearch retrieval from each of `seeds` in turn: the triplets of its best paths, in
/// path order, each once. A triplet's depth is its position on the first path that
/// holds it (0 = at the matched vertex).
pub fn search(g: &AriGraph, query: &[f32], seeds: &[&str], p: &Params) -> Vec<Retrieved> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for &seed in seeds {
        for path in paths_from(g, query, seed, p) {
            for (hop, &id) in path.triplets.iter().enumerate() {
                push_new(&mut out, &mut seen, found(g, query, id, hop as u32));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::strategies::fixture::{graph, house, texts};

    const Q: [f32; 3] = [1.0, 0.0, 0.0];

    fn params(depth: usize, paths: usize) -> Params {
        Params {
            depth,
            paths,
            ..Params::PAPER
        }
    }

    #[test]
    fn the_beam_follows_the_triplets_nearest_the_query() {
        let g = house();
        // From kitchen: hall (cost 0.11) and fridge (0.35) stay, counter (0.80) drops;
        // then hall-bedroom (0.55) and hall-key (13.8) beat fridge-apple (13.8 + 0.35);
        // at depth 3 key's path has ended, bedroom's goes on to bed (cost 0).
        let got = search(&g, &Q, &["kitchen"], &params(3, 2));
        assert_eq!(
            texts(&g, &got),
            [
                "kitchen, is west of, hall",
                "bedroom, is north of, hall",
                "bed, is in, bedroom",
                "key, is in, hall",
            ]
        );
        assert_eq!(
            got.iter().map(|r| r.depth).collect::<Vec<_>>(),
            [0, 1, 2, 1]
        );
        // One path: the single best chain.
        let narrow = search(&g, &Q, &["kitchen"], &params(3, 1));
        assert_eq!(
            texts(&g, &narrow),
            [
                "kitchen, is west of, hall",
                "bedroom, is north of, hall",
                "bed, is in, bedroom",
            ]
        );
        // Depth bounds the path.
        assert_eq!(search(&g, &Q, &["kitchen"], &params(1, 1)).len(), 1);
    }

    fn triangle() -> AriGraph {
        graph(
            &[("a", "r", "b"), ("b", "r", "c"), ("c", "r", "a")],
            &[
                ("a", [1.0, 0.0, 0.0]),
                ("b", [1.0, 0.0, 0.0]),
                ("c", [1.0, 0.0, 0.0]),
            ],
        )
    }

    #[test]
    fn revisits_are_off_unless_allowed() {
        let g = triangle();
        // Every triplet costs 0: ties go to the smaller triplet ids, a-b first.
        let once = search(&g, &Q, &["a"], &params(3, 1));
        assert_eq!(texts(&g, &once), ["a, r, b", "b, r, c"]);
        let again = search(
            &g,
            &Q,
            &["a"],
            &Params {
                revisits: true,
                ..params(3, 1)
            },
        );
        assert_eq!(texts(&g, &again), ["a, r, b", "b, r, c", "c, r, a"]);
    }

    #[test]
    fn overlap_between_paths_is_allowed_unless_forbidden() {
        let g = triangle();
        // Two paths a-b-c and a-c-b share every vertex.
        let shared = search(&g, &Q, &["a"], &params(2, 2));
        assert_eq!(texts(&g, &shared), ["a, r, b", "b, r, c", "c, r, a"]);
        assert_eq!(
            shared.iter().map(|r| r.depth).collect::<Vec<_>>(),
            [0, 1, 0]
        );
        // Without overlap each path stops where the other one already is.
        let apart = search(
            &g,
            &Q,
            &["a"],
            &Params {
                overlap: false,
                ..params(2, 2)
            },
        );
        assert_eq!(texts(&g, &apart), ["a, r, b", "c, r, a"]);
    }
}
