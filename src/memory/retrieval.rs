//! Two-step retrieval of paper section 2 (Algorithm 1) as pure functions over an
//! [`AriGraph`]: semantic search (Algorithm 2, embedding-seeded BFS with depth `d` and
//! width `w`), and episodic search (Eq. 1). Similarities are cosines of
//! [`super::similarity`], computed in a fixed order, so a replay recomputes every
//! similarity bit for bit.

use std::collections::{HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::graph::{AriGraph, TripletId};
use super::scan::TopW;
pub use super::scan::{APPROX_THRESHOLD, CANDIDATES_PER_W, Scan, top_w_all};
use super::similarity::{cosine_with_norms, dot};

/// Which semantic edges a BFS hop from a vertex ranks (Algorithm 2's
/// `EmbedAndRetrieve(Es, q', w)`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HopScope {
    /// Every alive semantic edge, as the paper states it: what lets a recipe that says
    /// "grilled" reach "bbq, used for, grilling" though the two share no vertex.
    #[default]
    All,
    /// Only the edges incident to the vertex (a departure: a strict graph walk).
    Incident,
}

impl std::str::FromStr for HopScope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "all" => Ok(HopScope::All),
            "incident" => Ok(HopScope::Incident),
            _ => Err(format!("unknown hop scope {s:?}; use all or incident")),
        }
    }
}

/// A retrieved triplet with the BFS depth at which it was found (0 = seeded by the query).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Retrieved {
    /// The triplet's id.
    pub id: TripletId,
    /// BFS depth.
    pub depth: u32,
    /// Cosine similarity to the query or vertex that found it.
    pub similarity: f32,
}

/// A scored episodic vertex (Eq. 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredEpisode {
    /// Index into [`AriGraph::episodes`].
    pub index: usize,
    /// Step of the episode.
    pub step: u32,
    /// n_i: retrieved triplets in its edge.
    pub n: usize,
    /// N_i: all triplets in its edge.
    pub total: usize,
    /// rel_i = n_i / max(N_i,1) * log2(max(N_i,1)).
    pub score: f64,
}

/// Eq. 1 of the paper: relevance of an episodic vertex whose edge holds `total` (N_i)
/// triplets, `n` of which were retrieved: `n / max(N,1) * log2(max(N,1))`. Zero when
/// N <= 1 (a one-triplet observation adds nothing beyond the triplet).
pub fn episodic_relevance(n: usize, total: usize) -> f64 {
    let big_n = total.max(1) as f64;
    (n as f64 / big_n) * big_n.log2()
}

/// Top-w alive triplets among those incident to `vertex`.
fn top_w_incident(g: &AriGraph, vertex: &str, query: &[f32], w: usize) -> Vec<(TripletId, f32)> {
    let qn = dot(query, query);
    let mut top = TopW::new(w);
    for &id in g.incident(vertex).into_iter().flatten() {
        if let Some((e, ne)) = g.triplet_embedding(id) {
            top.offer(id, cosine_with_norms(query, e, qn, ne));
        }
    }
    top.items
}

/// Semantic search, Algorithm 2, for one query vector: see [`semantic_search_many`].
pub fn semantic_search(
    g: &AriGraph,
    query: &[f32],
    d: u32,
    w: usize,
    scope: HopScope,
) -> Vec<Retrieved> {
    semantic_search_many(g, &[query], d, w, scope)
        .pop()
        .unwrap_or_default()
}

/// Semantic search, Algorithm 2: embedding-seeded BFS over the triplets, for several
/// query vectors (results in query order, each as one call would give it), with
/// [`Scan::Auto`]: see [`semantic_search_many_with`].
pub fn semantic_search_many(
    g: &AriGraph,
    queries: &[&[f32]],
    d: u32,
    w: usize,
    scope: HopScope,
) -> Vec<Vec<Retrieved>> {
    semantic_search_many_with(g, queries, d, w, scope, Scan::Auto)
}

/// Semantic search, Algorithm 2: embedding-seeded BFS over the triplets, for several
/// query vectors (results in query order, each as one call would give it).
///
/// The query (depth 0) selects the top-`w` alive triplets by cosine similarity; each
/// vertex of a found triplet is queued one level deeper and, by its own embedding,
/// selects the top-`w` triplets among all alive ones ([`HopScope::All`], the paper) or
/// among those incident to it ([`HopScope::Incident`]); no query at depth >= `d` is
/// expanded, so `d = 0` returns nothing. Each triplet appears once, with the smallest
/// depth that found it, in the order found; each vertex is queued once. Ties go to the
/// older triplet. `scan` says how the all-edge rankings are computed ([`top_w_all`]);
/// the queries themselves (depth 0) use it too.
///
/// Cost: with [`HopScope::All`] every level is one pass over the stored vectors for the
/// distinct queued vertices of all queries at once (a vertex queued by several searches
/// is scored once).
pub fn semantic_search_many_with(
    g: &AriGraph,
    queries: &[&[f32]],
    d: u32,
    w: usize,
    scope: HopScope,
    scan: Scan,
) -> Vec<Vec<Retrieved>> {
    let bounds = SearchBounds {
        d,
        w,
        scope,
        scan,
        cutoff: None,
    };
    semantic_search_cut(g, queries, bounds)
}

/// The similarity cut-off of the reference code's semantic search
/// (`utils/retriever_search_drafts.py`, `graph_retr_search`, called with
/// `post_retrieve_threshold = 0.75` by `graphs/contriever_graph.py`).
pub const PAPER_CUTOFF: f32 = 0.75;

/// Algorithm 2's bounds for [`semantic_search_cut`]: depth `d`, width `w`, the hop
/// scope, how the all-edge rankings are computed ([`top_w_all`]) and the similarity
/// cut-off (`None`: every triplet kept).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchBounds {
    /// Depth: no query at depth >= `d` is expanded.
    pub d: u32,
    /// Width: triplets ranked per query or queued vertex.
    pub w: usize,
    /// Which semantic edges a hop from a vertex ranks.
    pub scope: HopScope,
    /// How the all-edge rankings are computed.
    pub scan: Scan,
    /// The least cosine a kept (and expanded) triplet has.
    pub cutoff: Option<f32>,
}

/// [`semantic_search_many_with`] with a similarity cut-off: a triplet among a query's
/// top `w` whose cosine to that query (or queued vertex) is below `bounds.cutoff` is
/// neither kept nor expanded, as in the reference code's `graph_retr_search`. `None`
/// keeps every triplet (Algorithm 2 as the paper states it).
pub fn semantic_search_cut<'g>(
    g: &'g AriGraph,
    queries: &[&[f32]],
    bounds: SearchBounds,
) -> Vec<Vec<Retrieved>> {
    let SearchBounds {
        d,
        w,
        scope,
        scan,
        cutoff,
    } = bounds;
    if d == 0 || queries.is_empty() {
        return vec![Vec::new(); queries.len()];
    }
    let mut searches: Vec<Frontier<'g>> = queries
        .iter()
        .map(|_| Frontier {
            found: Vec::new(),
            seen_triplets: HashSet::new(),
            seen_vertices: HashSet::new(),
            level: VecDeque::new(),
        })
        .collect();
    // Depth 0: the queries themselves, in one pass.
    for (s, hits) in searches.iter_mut().zip(top_w_all(g, queries, w, scan)) {
        s.take(g, hits, 0, cutoff);
    }
    for depth in 1..d {
        // The vertices queued at this depth, per search, in queue order.
        let levels: Vec<Vec<&str>> = searches
            .iter_mut()
            .map(|s| s.level.drain(..).collect())
            .collect();
        if levels.iter().all(Vec::is_empty) {
            break;
        }
        let hits: Vec<Vec<Vec<(TripletId, f32)>>> = match scope {
            HopScope::All => hop_all(g, &levels, w, scan),
            HopScope::Incident => hop_incident(g, &levels, w),
        };
        for (s, per_vertex) in searches.iter_mut().zip(hits) {
            for h in per_vertex {
                s.take(g, h, depth, cutoff);
            }
        }
    }
    searches.into_iter().map(|s| s.found).collect()
}

/// One query's breadth-first search in [`semantic_search_cut`]: the triplets found (in
/// the order found), the triplets and vertices seen, and the vertices queued for the
/// next depth.
struct Frontier<'g> {
    found: Vec<Retrieved>,
    seen_triplets: HashSet<TripletId>,
    seen_vertices: HashSet<&'g str>,
    level: VecDeque<&'g str>,
}

impl<'g> Frontier<'g> {
    /// Take one ranking's `hits` at `depth`: a hit below `cutoff` is skipped; the
    /// others' vertices not seen yet are queued, and their triplets not found yet are
    /// kept with that depth and similarity.
    fn take(
        &mut self,
        g: &'g AriGraph,
        hits: Vec<(TripletId, f32)>,
        depth: u32,
        cutoff: Option<f32>,
    ) {
        for (id, similarity) in hits {
            if cutoff.is_some_and(|c| similarity < c) {
                continue;
            }
            let t = g.triplet(id);
            for v in [t.subject.as_str(), t.object.as_str()] {
                if self.seen_vertices.insert(v) {
                    self.level.push_back(v);
                }
            }
            if self.seen_triplets.insert(id) {
                self.found.push(Retrieved {
                    id,
                    depth,
                    similarity,
                });
            }
        }
    }
}

/// One hop with [`HopScope::All`]: for each search's queued vertices (`levels`), each
/// vertex's top-`w` among all alive triplets (none without an embedding); each
/// distinct vertex with an embedding is scanned once, all in one [`top_w_all`] pass.
fn hop_all(
    g: &AriGraph,
    levels: &[Vec<&str>],
    w: usize,
    scan: Scan,
) -> Vec<Vec<Vec<(TripletId, f32)>>> {
    let mut slot: HashMap<&str, usize> = HashMap::new();
    let mut vectors: Vec<&[f32]> = Vec::new();
    for &v in levels.iter().flatten() {
        if let (false, Some(e)) = (slot.contains_key(v), g.vertex_embedding(v)) {
            slot.insert(v, vectors.len());
            vectors.push(e);
        }
    }
    let all = top_w_all(g, &vectors, w, scan);
    levels
        .iter()
        .map(|level| {
            level
                .iter()
                .map(|v| slot.get(v).map(|&i| all[i].clone()).unwrap_or_default())
                .collect()
        })
        .collect()
}

/// One hop with [`HopScope::Incident`]: for each search's queued vertices (`levels`),
/// each vertex's top-`w` among the triplets incident to it (none without an
/// embedding).
fn hop_incident(g: &AriGraph, levels: &[Vec<&str>], w: usize) -> Vec<Vec<Vec<(TripletId, f32)>>> {
    levels
        .iter()
        .map(|level| {
            level
                .iter()
                .map(|v| match g.vertex_embedding(v) {
                    Some(e) => top_w_incident(g, v, e, w),
                    None => Vec::new(),
                })
                .collect()
        })
        .collect()
}

/// Episodic search, Eq. 1: score every episodic vertex by the retrieved triplets in its
/// edge and return the `k` best with a positive score (ties: the later step first).
/// `exclude_step` leaves out the current step, whose observation the agent already has.
pub fn episodic_search(
    g: &AriGraph,
    retrieved: &HashSet<TripletId>,
    k: usize,
    exclude_step: Option<u32>,
) -> Vec<ScoredEpisode> {
    episodic_search_by(g, k, exclude_step, |e| {
        let n = e
            .triplets
            .iter()
            .filter(|id| retrieved.contains(id))
            .count();
        (n, e.triplets.len())
    })
}

/// Eq. 1 over the thesis vertices of each episode instead of its triplets (`--thesis`
/// with `--exclude object`; [`super::thesis`]): n counts the episode's theses among
/// `retrieved`, N all its theses.
pub fn episodic_search_by_theses(
    g: &AriGraph,
    retrieved: &HashSet<super::graph::ThesisId>,
    k: usize,
    exclude_step: Option<u32>,
) -> Vec<ScoredEpisode> {
    episodic_search_by(g, k, exclude_step, |e| {
        let n = e.theses.iter().filter(|id| retrieved.contains(id)).count();
        (n, e.theses.len())
    })
}

/// Eq. 1 with `count` giving an episode's (n, N); see [`episodic_search`].
fn episodic_search_by(
    g: &AriGraph,
    k: usize,
    exclude_step: Option<u32>,
    count: impl Fn(&super::graph::EpisodicVertex) -> (usize, usize),
) -> Vec<ScoredEpisode> {
    let mut scored: Vec<ScoredEpisode> = g
        .episodes()
        .iter()
        .enumerate()
        .filter(|(_, e)| Some(e.step) != exclude_step)
        .map(|(index, e)| {
            let (n, total) = count(e);
            ScoredEpisode {
                index,
                step: e.step,
                n,
                total,
                score: episodic_relevance(n, total),
            }
        })
        .filter(|s| s.score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.step.cmp(&a.step)));
    scored.truncate(k);
    scored
}

#[cfg(test)]
mod tests;
