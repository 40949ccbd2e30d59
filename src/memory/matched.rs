//! The vertices matched to a query: PersonalAI links one per question entity; here the
//! nearest by embedding. A leaf: the traversal strategies and the thesis walk both start
//! from it.

use crate::memory::graph::AriGraph;
use crate::memory::similarity::{cosine_with_norms, dot};

/// Vertices matched to one query (PersonalAI links one per question entity; here the
/// nearest by embedding; 3 is about the entities of a question or a sub-goal).
pub const MATCHED_VERTICES: usize = 3;

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
