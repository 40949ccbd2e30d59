//! Two-step retrieval of paper section 2 (Algorithm 1) as pure functions over an
//! [`AriGraph`]: semantic search (Algorithm 2, embedding-seeded BFS with depth `d` and
//! width `w`), and episodic search (Eq. 1). Similarities are cosines of
//! [`super::similarity`], computed in a fixed order, so a replay recomputes every
//! similarity bit for bit.

use std::collections::{HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::graph::{AriGraph, TripletId};
use super::int_dot::{self, Kernel, QueryCodes};
use super::similarity::{cosine_from_dot, cosine_with_norms, dot};

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

/// The `w` best (id, similarity) pairs seen so far, best first; ties go to the older
/// triplet (smaller id).
struct TopW {
    w: usize,
    items: Vec<(TripletId, f32)>,
}

impl TopW {
    fn new(w: usize) -> Self {
        Self {
            w,
            items: Vec::with_capacity(w + 1),
        }
    }

    fn before(a: (TripletId, f32), b: (TripletId, f32)) -> bool {
        b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)) == std::cmp::Ordering::Less
    }

    fn offer(&mut self, id: TripletId, sim: f32) {
        if self.w == 0 {
            return;
        }
        // A strictly lower similarity (IEEE `<`, which implies `total_cmp`'s Less) is
        // out at once: most offers of a scan end here.
        if self.items.len() == self.w
            && (sim < self.items[self.w - 1].1 || !Self::before((id, sim), self.items[self.w - 1]))
        {
            return;
        }
        let pos = self.items.partition_point(|x| Self::before(*x, (id, sim)));
        self.items.insert(pos, (id, sim));
        self.items.truncate(self.w);
    }
}

/// Graphs with at least this many alive triplets are scanned by the approximate path
/// of [`Scan::Auto`]: an i8 pre-scan, then exact re-ranking of the best
/// [`CANDIDATES_PER_W`]` × w` candidates. Below it every hop is the exact scan, bit for
/// bit what it has always been, so every recorded run (hundreds to a few thousand
/// triplets) replays exactly. Recall of the approximate path against the exact top-w is
/// printed by `cargo bench --bench memory`.
pub const APPROX_THRESHOLD: usize = 20_000;

/// Candidates kept per unit of `w` by the i8 pre-scan of the approximate path, to be
/// re-ranked exactly.
pub const CANDIDATES_PER_W: usize = 8;

/// Queries scored together per load of a stored vector.
const BLOCK: usize = 4;

/// Queries scored together per load of a row's i8 codes (each keeps one accumulator
/// register; 8 of them leave room for the row and the query in 16 AVX registers).
const INT_BLOCK: usize = 8;

/// Rows of i8 codes per tile of the approximate pre-scan (64 × 384 bytes = 24 KiB, in
/// the L1 cache while every block of queries runs over it).
const INT_TILE: usize = 64;

/// Stored rows per tile: the tile stays in cache while every block of queries runs
/// over it (rows × 384 × 4 bytes = 48 KiB at 32 rows).
const TILE: usize = 32;

/// How a hop ranks all alive triplets (paper Algorithm 2, `EmbedAndRetrieve(Es, q', w)`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Scan {
    /// [`Scan::Exact`] below [`APPROX_THRESHOLD`] alive triplets, [`Scan::Approximate`]
    /// from it on.
    #[default]
    Auto,
    /// Cosine of the query with every alive triplet, by [`dot`].
    Exact,
    /// Integer dot products of i8 codes ([`super::vectors::quantize`]) select
    /// [`CANDIDATES_PER_W`]` × w` candidates, which are re-ranked by their exact cosine.
    ///
    /// Why not an ANN crate: the graph-based indexes (`hnsw_rs`, `instant-distance`,
    /// `usearch`) either build once and cannot remove (`instant-distance`), build in
    /// parallel with a thread-dependent topology (`hnsw_rs`'s parallel insert), or
    /// compute their build distances with SIMD chosen at run time (FMA or not), so the
    /// graph, hence what a query finds, may differ between two x86_64 machines and a
    /// replay would not recompute the same triplets. The i8 pre-scan has none of this:
    /// integer sums are exact in any order, and everything else is elementwise IEEE
    /// arithmetic; insert and remove are a row write and a flag.
    Approximate,
}

/// `[dot(q[0], e), ..., dot(q[N-1], e)]` bit for bit, for queries as long as `e`: every
/// query keeps [`dot`]'s 8 lanes, chunk order, tail and final sum; only the loads of `e`
/// are shared.
#[inline]
fn dot_block<const N: usize>(q: &[&[f32]; N], e: &[f32]) -> [f32; N] {
    let mut lanes = [[0.0f32; 8]; N];
    let mut tails = [0.0f32; N];
    let n = e.len();
    let mut q: [&[f32]; N] = std::array::from_fn(|k| &q[k][..n]);
    let mut e = e;
    // Fixed-size chunks: no bounds checks in the inner loops.
    while let Some((x, rest)) = e.split_first_chunk::<8>() {
        for k in 0..N {
            if let Some((y, tail)) = q[k].split_first_chunk::<8>() {
                for i in 0..8 {
                    lanes[k][i] += y[i] * x[i];
                }
                q[k] = tail;
            }
        }
        e = rest;
    }
    for k in 0..N {
        for (y, x) in q[k].iter().zip(e) {
            tails[k] += y * x;
        }
    }
    std::array::from_fn(|k| {
        let l = &lanes[k];
        ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])) + tails[k]
    })
}

/// Run `f(block_of_query_indices)` over `idx` in blocks of [`BLOCK`] (the last may be
/// shorter), dispatching to the kernel of that width.
fn for_blocks(idx: &[usize], mut f: impl FnMut(&[usize])) {
    for b in idx.chunks(BLOCK) {
        f(b);
    }
}

/// Top-w alive triplets for each query among all of them (paper Algorithm 2's
/// `EmbedAndRetrieve(Es, q, w)`), best first as (id, cosine); ties go to the older
/// triplet. One tiled pass over the stored vectors for all queries: each tile of
/// [`TILE`] rows is scored against blocks of [`BLOCK`] queries per load.
///
/// With [`Scan::Exact`] (and [`Scan::Auto`] below [`APPROX_THRESHOLD`] alive
/// triplets) the result, similarities included, is bit for bit that of scoring every
/// alive triplet with [`cosine_with_norms`]. With [`Scan::Approximate`] the
/// similarities are still exact cosines, but a triplet outside the i8 pre-scan's
/// [`CANDIDATES_PER_W`]` × w` best may be missed.
pub fn top_w_all(
    g: &AriGraph,
    queries: &[&[f32]],
    w: usize,
    scan: Scan,
) -> Vec<Vec<(TripletId, f32)>> {
    let approximate = match scan {
        Scan::Auto => g.edge_count() >= APPROX_THRESHOLD,
        Scan::Exact => false,
        Scan::Approximate => true,
    };
    let norms: Vec<f32> = queries.iter().map(|q| dot(q, q)).collect();
    let mut scored: Vec<TopW> = (0..queries.len()).map(|_| TopW::new(w)).collect();
    let vectors = g.triplet_vectors();
    let dim = vectors.dim();
    // Queries as long as the stored rows go through the blocked kernels; any other
    // (never seen in practice) is scored one pair at a time.
    let (blocked, single): (Vec<usize>, Vec<usize>) =
        (0..queries.len()).partition(|&k| dim > 0 && queries[k].len() == dim);
    let rows = vectors.rows();
    if approximate && w > 0 && dim <= int_dot::MAX_LEN {
        let kernel = Kernel::detect();
        // Each query's codes, and the factor that turns an integer dot product into the
        // approximate cosine with the row's own factor: (d × row) × query.
        let codes: Vec<(QueryCodes, f32)> = blocked
            .iter()
            .map(|&k| {
                let mut c = vec![0i8; dim];
                let s = super::vectors::quantize(queries[k], &mut c);
                let root = norms[k].sqrt();
                (QueryCodes::new(c), if root == 0.0 { 0.0 } else { s / root })
            })
            .collect();
        let mut candidates: Vec<TopW> = blocked
            .iter()
            .map(|_| TopW::new(CANDIDATES_PER_W * w))
            .collect();
        let slot: Vec<usize> = (0..blocked.len()).collect();
        let mut sums = vec![0i32; INT_TILE * INT_BLOCK];
        for start in (0..rows).step_by(INT_TILE) {
            let tile = start..(start + INT_TILE).min(rows);
            let tile_codes = vectors.codes(tile.clone());
            for b in slot.chunks(INT_BLOCK) {
                macro_rules! run {
                    ($n:literal) => {{
                        let q: [&QueryCodes; $n] = std::array::from_fn(|j| &codes[b[j]].0);
                        kernel.tile(q, tile_codes, dim, &mut sums);
                        for (r, id) in tile.clone().enumerate() {
                            if !vectors.is_live(id) {
                                continue;
                            }
                            let row = vectors.code_factor(id);
                            for j in 0..$n {
                                let approx = (sums[r * $n + j] as f32 * row) * codes[b[j]].1;
                                candidates[b[j]].offer(TripletId(id), approx);
                            }
                        }
                    }};
                }
                match b.len() {
                    8 => run!(8),
                    7 => run!(7),
                    6 => run!(6),
                    5 => run!(5),
                    4 => run!(4),
                    3 => run!(3),
                    2 => run!(2),
                    _ => run!(1),
                }
            }
        }
        for (j, c) in candidates.into_iter().enumerate() {
            let k = blocked[j];
            for (id, _) in c.items {
                let (e, ne) = vectors.row(id.0);
                scored[k].offer(id, cosine_with_norms(queries[k], e, norms[k], ne));
            }
        }
    } else {
        for start in (0..rows).step_by(TILE) {
            let tile = start..(start + TILE).min(rows);
            for_blocks(&blocked, |b| {
                macro_rules! run {
                    ($n:literal) => {{
                        let q: [&[f32]; $n] = std::array::from_fn(|j| queries[b[j]]);
                        for id in tile.clone() {
                            if !vectors.is_live(id) {
                                continue;
                            }
                            let (e, ne) = vectors.row(id);
                            let d = dot_block(&q, e);
                            for j in 0..$n {
                                let k = b[j];
                                scored[k].offer(TripletId(id), cosine_from_dot(d[j], norms[k], ne));
                            }
                        }
                    }};
                }
                match b.len() {
                    4 => run!(4),
                    3 => run!(3),
                    2 => run!(2),
                    _ => run!(1),
                }
            });
        }
    }
    // Pairs outside the kernels: other query lengths, and embeddings kept apart.
    for &k in &single {
        for id in 0..rows {
            if vectors.is_live(id) {
                let (e, ne) = vectors.row(id);
                scored[k].offer(
                    TripletId(id),
                    cosine_with_norms(queries[k], e, norms[k], ne),
                );
            }
        }
    }
    for id in g.odd_embedded() {
        if let Some((e, ne)) = g.triplet_embedding(id) {
            for (k, q) in queries.iter().enumerate() {
                scored[k].offer(id, cosine_with_norms(q, e, norms[k], ne));
            }
        }
    }
    scored.into_iter().map(|s| s.items).collect()
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
    semantic_search_cut(g, queries, d, w, scope, scan, None)
}

/// The similarity cut-off of the reference code's semantic search
/// (`utils/retriever_search_drafts.py`, `graph_retr_search`, called with
/// `post_retrieve_threshold = 0.75` by `graphs/contriever_graph.py`).
pub const PAPER_CUTOFF: f32 = 0.75;

/// [`semantic_search_many_with`] with a similarity cut-off: a triplet among a query's
/// top `w` whose cosine to that query (or queued vertex) is below `cutoff` is neither
/// kept nor expanded, as in the reference code's `graph_retr_search`. `None` keeps
/// every triplet (Algorithm 2 as the paper states it).
pub fn semantic_search_cut<'g>(
    g: &'g AriGraph,
    queries: &[&[f32]],
    d: u32,
    w: usize,
    scope: HopScope,
    scan: Scan,
    cutoff: Option<f32>,
) -> Vec<Vec<Retrieved>> {
    if d == 0 || queries.is_empty() {
        return vec![Vec::new(); queries.len()];
    }
    struct Search<'g> {
        found: Vec<Retrieved>,
        seen_triplets: HashSet<TripletId>,
        seen_vertices: HashSet<&'g str>,
        level: VecDeque<&'g str>,
    }
    let mut searches: Vec<Search<'g>> = queries
        .iter()
        .map(|_| Search {
            found: Vec::new(),
            seen_triplets: HashSet::new(),
            seen_vertices: HashSet::new(),
            level: VecDeque::new(),
        })
        .collect();
    let take = |s: &mut Search<'g>, hits: Vec<(TripletId, f32)>, depth: u32| {
        for (id, similarity) in hits {
            if cutoff.is_some_and(|c| similarity < c) {
                continue;
            }
            let t = g.triplet(id);
            for v in [t.subject.as_str(), t.object.as_str()] {
                if s.seen_vertices.insert(v) {
                    s.level.push_back(v);
                }
            }
            if s.seen_triplets.insert(id) {
                s.found.push(Retrieved {
                    id,
                    depth,
                    similarity,
                });
            }
        }
    };
    // Depth 0: the queries themselves, in one pass.
    for (s, hits) in searches.iter_mut().zip(top_w_all(g, queries, w, scan)) {
        take(s, hits, 0);
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
            HopScope::All => {
                // Each distinct vertex with an embedding, scanned once.
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
            HopScope::Incident => levels
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
                .collect(),
        };
        for (s, per_vertex) in searches.iter_mut().zip(hits) {
            for h in per_vertex {
                take(s, h, depth);
            }
        }
    }
    searches.into_iter().map(|s| s.found).collect()
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
