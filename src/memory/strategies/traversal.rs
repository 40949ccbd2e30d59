//! What every traversal strategy uses: the vertices matched to a query, a vertex's
//! neighbours, a triplet's or a vertex's similarity, a found triplet, PersonalAI's
//! triplet filter. A leaf of the strategies: they and the thesis constraints import it,
//! it imports none of them.

use crate::memory::graph::{AriGraph, TripletId};
use crate::memory::retrieval::Retrieved;
use crate::memory::similarity::{cosine, cosine_with_norms, dot};

pub use crate::memory::matched::{MATCHED_VERTICES, matched_vertices};

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
