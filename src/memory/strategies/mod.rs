//! Retrieval strategies for the semantic step of two-step retrieval (paper Algorithm 1):
//! which triplets a query reaches before the episodic step (Eq. 1) scores the episodes
//! that hold them. `bfs` is AriGraph's Algorithm 2 (the default); the others are the
//! graph traversals of PersonalAI (Menschikov et al. 2025, arXiv:2506.17001, section
//! III.D, hyperparameters from Appendix E), adapted to AriGraph's graph (object vertices
//! and triplets; no thesis vertices):
//!
//! - [`bfs`]: AriGraph's embedding-seeded BFS ([`super::retrieval::semantic_search_many`]);
//! - [`astar`]: the triplets along A* paths between the vertices matched to the query;
//! - [`water_circles`]: breadth-first rings from the matched vertices, triplets ranked by
//!   how many matched vertices' rings reach them;
//! - [`beam`]: semantically guided paths from each matched vertex (beam search);
//! - [`mixed`]: the union of the three, and the paper's pairwise hybrids WC + BS,
//!   A* + BS and A* + WC (its section IV: the traversal methods it evaluates).
//!
//! The PersonalAI strategies start from the *matched vertices* of a query
//! ([`matched_vertices`]): PersonalAI links each entity an LLM extracts from the question
//! to its nearest vertex; Ariadne makes no extra call and takes the
//! [`MATCHED_VERTICES`] vertices whose cached embeddings are nearest the query. Their
//! result then passes PersonalAI's triplet filter ([`filter`]): at most `w · d`
//! triplets per query (the `--width` and `--depth` settings), the most similar to the
//! query when more were found. Every ordering breaks ties by triplet id or vertex name,
//! so a replay recomputes the same list. No strategy embeds anything: they read the
//! triplet and vertex vectors the graph already holds.

pub mod astar;
pub mod beam;
pub mod bfs;
pub mod mixed;
mod strategy;
pub mod water_circles;

pub use strategy::Strategy;

use super::MemorySettings;
use super::graph::{AriGraph, TripletId};
use super::retrieval::Retrieved;
use super::similarity::{cosine, cosine_with_norms, dot};

/// Vertices matched to one query (PersonalAI links one per question entity; here the
/// nearest by embedding; 3 is about the entities of a question or a sub-goal).
pub const MATCHED_VERTICES: usize = 3;

/// Semantic search for several query vectors under `settings.retrieval` (results in
/// query order, each the triplets one query reached, in the strategy's order, each once).
///
/// `bfs` is [`super::retrieval::semantic_search_many`] unchanged (d, w, hop scope);
/// the other strategies match [`MATCHED_VERTICES`] vertices per query, traverse, and
/// [`filter`] to `w · d` triplets (so `d = 0` returns nothing, as for `bfs`).
pub fn search_many(
    g: &AriGraph,
    queries: &[&[f32]],
    settings: &MemorySettings,
) -> Vec<Vec<Retrieved>> {
    if settings.retrieval == Strategy::Bfs {
        return bfs::search_many(g, queries, settings);
    }
    queries
        .iter()
        .map(|q| search(g, q, settings.retrieval, settings))
        .collect()
}

/// Semantic search for one query vector under `strategy` (see [`search_many`]).
pub fn search(
    g: &AriGraph,
    query: &[f32],
    strategy: Strategy,
    settings: &MemorySettings,
) -> Vec<Retrieved> {
    let cap = settings.width * settings.depth as usize;
    if cap == 0 {
        return Vec::new();
    }
    let seeds = matched_vertices(g, query, MATCHED_VERTICES);
    let found = match strategy {
        Strategy::Bfs => return bfs::search_many(g, &[query], settings).remove(0),
        Strategy::Astar => astar::search(g, query, &seeds, &astar::Params::PAPER),
        Strategy::WaterCircles => water_circles::search(
            g,
            query,
            &seeds,
            settings.depth,
            &water_circles::Params::PAPER,
        ),
        Strategy::Beam => beam::search(g, query, &seeds, &beam::Params::PAPER),
        Strategy::Mixed
        | Strategy::WaterCirclesBeam
        | Strategy::AstarBeam
        | Strategy::AstarWaterCircles => mixed::union(
            g,
            query,
            &seeds,
            settings.depth,
            strategy.parts().unwrap_or(&[]),
        ),
    };
    filter(found, cap)
}

/// The `m` vertices whose embeddings are most similar (cosine) to `query`, best first;
/// ties go to the smaller name. Only vertices with an alive edge and a cached vector count.
pub fn matched_vertices<'g>(g: &'g AriGraph, query: &[f32], m: usize) -> Vec<&'g str> {
    let qn = dot(query, query);
    let mut scored: Vec<(&str, f32)> = g
        .vertices()
        .into_iter()
        .filter_map(|v| {
            g.vertex_embedding(v)
                .map(|e| (v, cosine_with_norms(query, e, qn, dot(e, e))))
        })
        .collect();
    // `vertices()` is sorted by name and the sort is stable: equal scores keep name order.
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.into_iter().take(m).map(|(v, _)| v).collect()
}

/// The alive triplets at a vertex with the vertex at their other end, by triplet id.
pub fn neighbours<'g>(g: &'g AriGraph, vertex: &str) -> Vec<(TripletId, &'g str)> {
    g.incident(vertex)
        .into_iter()
        .flatten()
        .map(|&id| {
            let t = g.triplet(id);
            let other = if t.subject == vertex {
                t.object.as_str()
            } else {
                t.subject.as_str()
            };
            (id, other)
        })
        .collect()
}

/// Cosine similarity of a triplet's embedding to the query (0.0 without a vector).
pub fn similarity(g: &AriGraph, query: &[f32], id: TripletId) -> f32 {
    g.triplet_embedding(id)
        .map(|(e, ne)| cosine_with_norms(query, e, dot(query, query), ne))
        .unwrap_or(0.0)
}

/// A found triplet as the strategies report it: `depth` is its hop or ring (0 = at a
/// matched vertex), `similarity` its cosine to the query.
pub fn found(g: &AriGraph, query: &[f32], id: TripletId, depth: u32) -> Retrieved {
    Retrieved {
        id,
        depth,
        similarity: similarity(g, query, id),
    }
}

/// Cosine similarity of two vertices' embeddings (0.0 when either has none).
pub fn vertex_similarity(g: &AriGraph, a: &str, b: &str) -> f32 {
    match (g.vertex_embedding(a), g.vertex_embedding(b)) {
        (Some(x), Some(y)) => cosine(x, y),
        _ => 0.0,
    }
}

/// PersonalAI's triplet filter (QA pipeline, section III.C): when more than `cap`
/// triplets were found, keep the `cap` most similar to the query (ties: smaller id),
/// in the order found.
pub fn filter(found: Vec<Retrieved>, cap: usize) -> Vec<Retrieved> {
    if found.len() <= cap {
        return found;
    }
    let mut ranked: Vec<(f32, TripletId)> = found.iter().map(|r| (r.similarity, r.id)).collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let keep: std::collections::HashSet<TripletId> =
        ranked.into_iter().take(cap).map(|(_, id)| id).collect();
    found.into_iter().filter(|r| keep.contains(&r.id)).collect()
}

/// Append `r` to `out` unless its triplet is already there.
pub(crate) fn push_new(
    out: &mut Vec<Retrieved>,
    seen: &mut std::collections::HashSet<TripletId>,
    r: Retrieved,
) {
    if seen.insert(r.id) {
        out.push(r);
    }
}

#[cfg(test)]
pub(crate) mod fixture;

#[cfg(test)]
mod tests {
    use super::*;
    use fixture::{house, id_of};

    #[test]
    fn names_round_trip() {
        for s in Strategy::ALL {
            assert_eq!(s.name().parse::<Strategy>().unwrap(), s);
            assert_eq!(
                serde_json::to_value(s).unwrap(),
                serde_json::Value::from(s.name())
            );
        }
        assert!("dfs".parse::<Strategy>().is_err());
        assert_eq!(Strategy::default(), Strategy::Bfs);
    }

    #[test]
    fn matching_takes_the_nearest_vertices_ties_by_name() {
        let g = house();
        // The query points at "kitchen"; "fridge" and "knife" are equally near next.
        let q = [1.0, 0.0, 0.0];
        assert_eq!(matched_vertices(&g, &q, 3), ["kitchen", "fridge", "knife"]);
        assert_eq!(matched_vertices(&g, &q, 1), ["kitchen"]);
    }

    #[test]
    fn the_filter_keeps_the_most_similar_in_the_order_found() {
        let g = house();
        let q = [1.0, 0.0, 0.0];
        let ids = [
            id_of(&g, "fridge, is in, kitchen"),
            id_of(&g, "knife, is on, counter"),
            id_of(&g, "counter, is in, kitchen"),
        ];
        let all: Vec<Retrieved> = ids.iter().map(|&id| found(&g, &q, id, 0)).collect();
        let kept: Vec<TripletId> = filter(all.clone(), 2).into_iter().map(|r| r.id).collect();
        // Cosines 0.707, 1.0, 0.447: the last is dropped, the others keep their order.
        assert_eq!(kept, [ids[0], ids[1]]);
        assert_eq!(filter(all.clone(), 3), all);
    }

    #[test]
    fn depth_zero_or_width_zero_returns_nothing() {
        let g = house();
        for s in Strategy::ALL {
            let settings = MemorySettings {
                retrieval: s,
                depth: 0,
                ..MemorySettings::default()
            };
            assert!(search(&g, &[1.0, 0.0, 0.0], s, &settings).is_empty(), "{s}");
        }
    }
}
