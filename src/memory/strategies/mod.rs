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
mod traversal;
pub mod water_circles;

pub use crate::memory::strategy::Strategy;
pub(crate) use traversal::push_new;
pub use traversal::{
    MATCHED_VERTICES, filter, found, matched_vertices, neighbours, similarity, vertex_similarity,
};

use super::MemorySettings;
use super::graph::AriGraph;
use super::retrieval::Retrieved;

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

#[cfg(test)]
pub(crate) mod fixture;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::TripletId;
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
