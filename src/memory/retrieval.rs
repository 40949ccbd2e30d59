//! Two-step retrieval of paper section 2 (Algorithm 1) as pure functions over an
//! [`AriGraph`]: semantic search (Algorithm 2, embedding-seeded BFS with depth `d` and
//! width `w`), episodic search (Eq. 1), and the vector math they share.
//!
//! Similarities are cosines computed by [`dot`] in a fixed order, so a replay
//! recomputes every similarity bit for bit.

use std::collections::{HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::graph::{AriGraph, TripletId};

/// Dot product over the common length, accumulated in 8 independent lanes (so the
/// compiler can use SIMD) and summed in a fixed order: deterministic.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    let mut tail = 0.0f32;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
        + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
        + tail
}

/// Cosine similarity with squared norms `na = dot(a, a)` and `nb = dot(b, b)` given
/// (0.0 when either is zero).
pub fn cosine_with_norms(a: &[f32], b: &[f32], na: f32, nb: f32) -> f32 {
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot(a, b) / (na.sqrt() * nb.sqrt())
    }
}

/// Cosine similarity of two vectors of equal length (0.0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    cosine_with_norms(a, b, dot(a, a), dot(b, b))
}

/// Scale a vector to unit length in place (left as is when zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

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
        if self.items.len() == self.w && !Self::before((id, sim), self.items[self.w - 1]) {
            return;
        }
        let pos = self.items.partition_point(|x| Self::before(*x, (id, sim)));
        self.items.insert(pos, (id, sim));
        self.items.truncate(self.w);
    }
}

/// Top-w alive triplets for each query among all of them, in one pass over the stored
/// vectors (the scan is memory-bound at 100,000 triplets).
fn top_w_all(g: &AriGraph, queries: &[&[f32]], w: usize) -> Vec<Vec<(TripletId, f32)>> {
    let norms: Vec<f32> = queries.iter().map(|q| dot(q, q)).collect();
    let mut scored: Vec<TopW> = (0..queries.len()).map(|_| TopW::new(w)).collect();
    for id in 0..g.triplet_slots() {
        let Some((e, ne)) = g.triplet_embedding(id) else {
            continue;
        };
        for (k, q) in queries.iter().enumerate() {
            scored[k].offer(id, cosine_with_norms(q, e, norms[k], ne));
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
/// query vectors (results in query order, each as one call would give it).
///
/// The query (depth 0) selects the top-`w` alive triplets by cosine similarity; each
/// vertex of a found triplet is queued one level deeper and, by its own embedding,
/// selects the top-`w` triplets among all alive ones ([`HopScope::All`], the paper) or
/// among those incident to it ([`HopScope::Incident`]); no query at depth >= `d` is
/// expanded, so `d = 0` returns nothing. Each triplet appears once, with the smallest
/// depth that found it, in the order found; each vertex is queued once. Ties go to the
/// older triplet.
///
/// Cost: with [`HopScope::All`] every level is one pass over the stored vectors for all
/// queued vertices of all queries at once.
pub fn semantic_search_many<'g>(
    g: &'g AriGraph,
    queries: &[&[f32]],
    d: u32,
    w: usize,
    scope: HopScope,
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
    for (s, hits) in searches.iter_mut().zip(top_w_all(g, queries, w)) {
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
                let vectors: Vec<&[f32]> = levels
                    .iter()
                    .flatten()
                    .filter_map(|v| g.vertex_embedding(v))
                    .collect();
                let mut all = top_w_all(g, &vectors, w).into_iter();
                levels
                    .iter()
                    .map(|level| {
                        level
                            .iter()
                            .map(|v| match g.vertex_embedding(v) {
                                Some(_) => all.next().unwrap_or_default(),
                                None => Vec::new(),
                            })
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
    count: impl Fn(&super::graph::Episode) -> (usize, usize),
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
mod tests {
    use super::*;
    use crate::memory::Triplet;

    fn t(s: &str, r: &str, o: &str) -> Triplet {
        Triplet::new(s, r, o).unwrap()
    }

    #[test]
    fn eq1_on_hand_computed_values() {
        // N = 1 gives zero weight whatever n is.
        assert_eq!(episodic_relevance(1, 1), 0.0);
        assert_eq!(episodic_relevance(0, 0), 0.0);
        // n = 2 of N = 4: 2/4 * log2(4) = 1.0
        assert!((episodic_relevance(2, 4) - 1.0).abs() < 1e-12);
        // n = 4 of N = 8: 0.5 * 3 = 1.5
        assert!((episodic_relevance(4, 8) - 1.5).abs() < 1e-12);
        // n = 1 of N = 3: 1/3 * log2(3) = 0.528320...
        assert!((episodic_relevance(1, 3) - 0.528_320_833_573_719).abs() < 1e-12);
        // The information term favours the larger episode at equal precision.
        assert!(episodic_relevance(4, 8) > episodic_relevance(2, 4));
    }

    /// Unit vector along axis `i` of a 4-d space, tilted slightly toward axis `j`.
    fn axis(i: usize, j: usize, tilt: f32) -> Vec<f32> {
        let mut v = vec![0.0; 4];
        v[i] = 1.0;
        v[j] += tilt;
        normalize(&mut v);
        v
    }

    /// A chain a-b-c-d-e with embeddings chosen so the query only matches the first edge.
    fn chain() -> (AriGraph, Vec<TripletId>) {
        let mut g = AriGraph::new();
        let names = ["a", "b", "c", "d", "e"];
        let mut ids = Vec::new();
        for w in names.windows(2) {
            let (id, _) = g.add(t(w[0], "links", w[1]));
            ids.push(id);
        }
        g.set_triplet_embedding(ids[0], axis(0, 1, 0.0));
        g.set_triplet_embedding(ids[1], axis(1, 2, 0.1));
        g.set_triplet_embedding(ids[2], axis(2, 3, 0.1));
        g.set_triplet_embedding(ids[3], axis(3, 2, 0.1));
        for (k, v) in names.iter().enumerate() {
            g.set_vertex_embedding(v.to_string(), axis(k % 4, (k + 1) % 4, 0.3));
        }
        (g, ids)
    }

    #[test]
    fn bfs_depth_bounds_the_hops() {
        let (g, ids) = chain();
        let q = axis(0, 1, 0.0);
        let depth_of = |d| {
            semantic_search(&g, &q, d, 1, HopScope::Incident)
                .into_iter()
                .map(|r| (r.id, r.depth))
                .collect::<Vec<_>>()
        };
        assert!(depth_of(0).is_empty());
        // Depth 1: only the seed triplet a-b.
        assert_eq!(depth_of(1), vec![(ids[0], 0)]);
        // Depth 2: the vertices a and b are expanded; b reaches b-c.
        assert_eq!(depth_of(2), vec![(ids[0], 0), (ids[1], 1)]);
        // Depth 3: c is expanded and reaches c-d.
        assert_eq!(depth_of(3), vec![(ids[0], 0), (ids[1], 1), (ids[2], 2)]);
    }

    #[test]
    fn bfs_width_bounds_each_hop() {
        let mut g = AriGraph::new();
        let mut ids = Vec::new();
        for (k, o) in ["x", "y", "z"].iter().enumerate() {
            let (id, _) = g.add(t("hub", "has", o));
            g.set_triplet_embedding(id, axis(0, k + 1, 0.1 * (k as f32 + 1.0)));
            ids.push(id);
        }
        let q = axis(0, 1, 0.0);
        let got: Vec<_> = semantic_search(&g, &q, 1, 2, HopScope::Incident)
            .into_iter()
            .map(|r| r.id)
            .collect();
        // The two most similar (smallest tilt away from the query), in order.
        assert_eq!(got, vec![ids[0], ids[1]]);
        let all: Vec<_> = semantic_search(&g, &q, 1, 10, HopScope::Incident)
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(all.len(), 3);
    }

    #[test]
    fn search_similarities_equal_cosine_bit_for_bit() {
        // Replays compare similarities exactly: the search's precomputed-norm path must
        // give the very value `cosine` gives.
        let mut g = AriGraph::new();
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        for i in 0..20 {
            let (id, _) = g.add(t(&format!("a{i}"), "is", &format!("b{i}")));
            let v: Vec<f32> = (0..37).map(|_| next()).collect();
            g.set_triplet_embedding(id, v);
        }
        let q: Vec<f32> = (0..37).map(|_| next()).collect();
        for r in semantic_search(&g, &q, 1, 20, HopScope::Incident) {
            let e = g.triplet_embedding(r.id).unwrap().0.to_vec();
            assert_eq!(r.similarity.to_bits(), cosine(&q, &e).to_bits());
        }
    }

    #[test]
    fn removed_triplets_are_not_retrieved() {
        let (mut g, ids) = chain();
        g.remove(ids[0]);
        let got: Vec<_> = semantic_search(&g, &axis(0, 1, 0.0), 1, 1, HopScope::Incident)
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_ne!(got, vec![ids[0]]);
        assert!(!got.contains(&ids[0]));
    }

    #[test]
    fn episodic_search_ranks_by_eq1() {
        let mut g = AriGraph::new();
        let ids: Vec<TripletId> = (0..8)
            .map(|i| g.add(t(&format!("o{i}"), "is in", "room")).0)
            .collect();
        g.add_episode(1, "one".into(), vec![ids[0]]); // N=1 -> 0
        g.add_episode(2, "two".into(), ids[0..4].to_vec()); // n=2,N=4 -> 1.0
        g.add_episode(3, "three".into(), ids[0..8].to_vec()); // n=3,N=8 -> 1.125
        g.add_episode(4, "four".into(), vec![ids[5], ids[6]]); // n=0 -> 0
        let retrieved: HashSet<TripletId> = [ids[0], ids[1], ids[7]].into();
        let got = episodic_search(&g, &retrieved, 5, None);
        let steps: Vec<u32> = got.iter().map(|s| s.step).collect();
        assert_eq!(steps, vec![3, 2]);
        assert!((got[0].score - 3.0 / 8.0 * 3.0).abs() < 1e-12);
        assert!((got[1].score - 1.0).abs() < 1e-12);
        assert_eq!(episodic_search(&g, &retrieved, 1, None).len(), 1);
        assert_eq!(episodic_search(&g, &retrieved, 5, Some(3))[0].step, 2);
    }

    /// Issue example of Algorithm 2: each hop ranks all semantic edges, so "grilled"
    /// reaches "bbq, used for, grilling" with which it shares no vertex.
    #[test]
    fn every_hop_ranks_all_semantic_edges() {
        let mut g = AriGraph::new();
        let t0 = g.add(t("recipe", "requires", "red pepper")).0;
        let t1 = g.add(t("red pepper", "to be", "grilled")).0;
        let t2 = g.add(t("bbq", "used for", "grilling")).0;
        // Hand-set 4-d embeddings: the query is close to T0, the vertex "red pepper" to
        // T1, the vertex "grilled" to T2; every other vertex points away.
        g.set_triplet_embedding(t0, vec![1.0, 0.0, 0.0, 0.0]);
        g.set_triplet_embedding(t1, vec![0.0, 1.0, 0.0, 0.0]);
        g.set_triplet_embedding(t2, vec![0.0, 0.0, 1.0, 0.0]);
        g.set_vertex_embedding("recipe".into(), vec![0.0, 0.0, 0.0, 1.0]);
        g.set_vertex_embedding("red pepper".into(), vec![0.1, 1.0, 0.0, 0.0]);
        g.set_vertex_embedding("grilled".into(), vec![0.0, 0.1, 1.0, 0.0]);
        g.set_vertex_embedding("bbq".into(), vec![0.0, 0.0, 0.0, 1.0]);
        g.set_vertex_embedding("grilling".into(), vec![0.0, 0.0, 0.0, 1.0]);
        let query = [1.0, 0.1, 0.0, 0.0];
        let got: Vec<(TripletId, u32)> = semantic_search(&g, &query, 3, 1, HopScope::All)
            .into_iter()
            .map(|r| (r.id, r.depth))
            .collect();
        assert_eq!(got, vec![(t0, 0), (t1, 1), (t2, 2)]);
        // Hops over incident edges only never reach T2.
        let strict: Vec<TripletId> = semantic_search(&g, &query, 3, 1, HopScope::Incident)
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert!(!strict.contains(&t2), "{strict:?}");
    }

    #[test]
    fn batched_search_equals_one_call_per_query() {
        let (g, _) = chain();
        let qs = [axis(0, 1, 0.0), axis(2, 3, 0.2), axis(3, 1, 0.1)];
        let refs: Vec<&[f32]> = qs.iter().map(Vec::as_slice).collect();
        for scope in [HopScope::All, HopScope::Incident] {
            let many = semantic_search_many(&g, &refs, 3, 2, scope);
            for (q, got) in qs.iter().zip(many) {
                assert_eq!(got, semantic_search(&g, q, 3, 2, scope));
            }
        }
    }
}
