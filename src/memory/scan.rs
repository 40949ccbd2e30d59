//! The scan kernels of semantic search: the top-w triplets of many queries at once over
//! the contiguous embedding matrix ([`super::vectors`]), exact (blocked f32 dot
//! products) or, past [`APPROX_THRESHOLD`] triplets, approximate (i8 codes,
//! [`super::int_dot`]) then re-ranked exactly. Algorithm 2 ([`super::retrieval`]) calls
//! them at every hop; every similarity is [`super::similarity`]'s, bit for bit.

use super::graph::{AriGraph, TripletId};
use super::int_dot::{self, Kernel, QueryCodes};
use super::similarity::{cosine_from_dot, cosine_with_norms, dot};
use super::vectors::TripletVectors;

/// The `w` best (id, similarity) pairs seen so far, best first; ties go to the older
/// triplet (smaller id).
pub(crate) struct TopW {
    w: usize,
    pub(crate) items: Vec<(TripletId, f32)>,
}

impl TopW {
    pub(crate) fn new(w: usize) -> Self {
        Self {
            w,
            items: Vec::with_capacity(w + 1),
        }
    }

    fn before(a: (TripletId, f32), b: (TripletId, f32)) -> bool {
        b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)) == std::cmp::Ordering::Less
    }

    pub(crate) fn offer(&mut self, id: TripletId, sim: f32) {
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
    let batch = Batch {
        queries,
        norms,
        blocked,
        single,
    };
    if approximate && w > 0 && dim <= int_dot::MAX_LEN {
        let candidates = prescan(vectors, &batch, w);
        rerank(vectors, &batch, candidates, &mut scored);
    } else {
        scan_exact(vectors, &batch, &mut scored);
    }
    scan_outside_kernels(g, &batch, &mut scored);
    scored.into_iter().map(|s| s.items).collect()
}

/// One scan's queries ([`top_w_all`]): the queries, their squared norms, and which of
/// them (by position in `queries`) go through the blocked kernels (`blocked`: as long
/// as the stored rows) or are scored one pair at a time (`single`).
struct Batch<'q> {
    /// The query vectors.
    queries: &'q [&'q [f32]],
    /// Each query's [`dot`] with itself.
    norms: Vec<f32>,
    /// The queries the kernels score.
    blocked: Vec<usize>,
    /// The queries of another length, scored pair by pair.
    single: Vec<usize>,
}

/// The approximate path's i8 pre-scan ([`Scan::Approximate`]): for each blocked query
/// (in the order of `batch.blocked`), its best [`CANDIDATES_PER_W`]` × w` alive rows by
/// the approximate cosine `(d × row factor) × query factor`, one tiled pass of
/// [`INT_TILE`] rows against blocks of [`INT_BLOCK`] queries ([`int_dot`]).
fn prescan(vectors: &TripletVectors, batch: &Batch<'_>, w: usize) -> Vec<TopW> {
    let (queries, norms, blocked) = (batch.queries, &batch.norms, &batch.blocked);
    let dim = vectors.dim();
    let rows = vectors.rows();
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
    candidates
}

/// The approximate path's exact re-ranking: each blocked query's pre-scan `candidates`
/// (in the order of `batch.blocked`) offered to its top-w in `scored` with their exact
/// cosine ([`cosine_with_norms`]).
fn rerank(vectors: &TripletVectors, batch: &Batch<'_>, candidates: Vec<TopW>, scored: &mut [TopW]) {
    let (queries, norms) = (batch.queries, &batch.norms);
    for (j, c) in candidates.into_iter().enumerate() {
        let k = batch.blocked[j];
        for (id, _) in c.items {
            let (e, ne) = vectors.row(id.0);
            scored[k].offer(id, cosine_with_norms(queries[k], e, norms[k], ne));
        }
    }
}

/// The exact path ([`Scan::Exact`]): every alive row offered to each blocked query's
/// top-w in `scored` with its cosine, one tiled pass of [`TILE`] rows against blocks of
/// [`BLOCK`] queries per load ([`dot_block`]).
fn scan_exact(vectors: &TripletVectors, batch: &Batch<'_>, scored: &mut [TopW]) {
    let (queries, norms) = (batch.queries, &batch.norms);
    let rows = vectors.rows();
    for start in (0..rows).step_by(TILE) {
        let tile = start..(start + TILE).min(rows);
        for_blocks(&batch.blocked, |b| {
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

/// Pairs outside the kernels, scored one at a time into `scored`: the queries of
/// another length against every alive row, and every query against the embeddings
/// kept apart from the matrix ([`AriGraph::odd_embedded`]).
fn scan_outside_kernels(g: &AriGraph, batch: &Batch<'_>, scored: &mut [TopW]) {
    let (queries, norms) = (batch.queries, &batch.norms);
    let vectors = g.triplet_vectors();
    for &k in &batch.single {
        for id in 0..vectors.rows() {
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
}
