//! The AriGraph memory graph G = (Vs, Es, Ve, Ee) of paper section 2 (Figure 2A), and
//! its two-step retrieval (Algorithms 1-2, Eq. 1) as pure functions over it.
//!
//! - Semantic vertices `Vs` are object names; semantic edges `Es` are triplets
//!   (subject, relation, object). A triplet has a stable id for the life of the graph:
//!   removing an outdated triplet marks it dead, and re-adding it revives the same id,
//!   so episodic edges keep pointing at the right facts.
//! - Episodic vertices `Ve` hold the raw observation of each step; the episodic edge of
//!   step t is the set of triplets extracted at step t (a hyperedge).
//! - Embeddings of triplets (as passages) and of vertices (as queries) are stored here,
//!   computed once when the triplet or vertex first appears, never per query.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

/// A semantic edge: (subject, relation, object), each lowercased and whitespace-folded.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Triplet {
    /// Subject vertex.
    pub subject: String,
    /// Relation (short verb phrase).
    pub relation: String,
    /// Object vertex.
    pub object: String,
}

/// Words a small model writes when it has no object; a triplet with one says nothing.
const FILLER_WORDS: &[&str] = &["none", "nothing", "unknown", "n/a", "null", "nowhere"];

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_matches(|c: char| c == '.' || c == ',' || c == '"' || c == '\'')
        .to_lowercase()
}

impl Triplet {
    /// Normalize and build a triplet; `None` if a part is empty or a filler word
    /// ("none", "nothing", "unknown", "n/a"), or subject == object.
    pub fn new(subject: &str, relation: &str, object: &str) -> Option<Self> {
        let t = Self {
            subject: norm(subject),
            relation: norm(relation),
            object: norm(object),
        };
        let void = |s: &str| s.is_empty() || FILLER_WORDS.contains(&s);
        if void(&t.subject) || t.relation.is_empty() || void(&t.object) || t.subject == t.object {
            None
        } else {
            Some(t)
        }
    }

    /// The text embedded and shown to the LLM: `subject, relation, object`.
    pub fn text(&self) -> String {
        format!("{}, {}, {}", self.subject, self.relation, self.object)
    }
}

impl std::fmt::Display for Triplet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// Stable index of a triplet in the graph.
pub type TripletId = usize;

#[derive(Debug, Clone)]
struct TripletRecord {
    triplet: Triplet,
    alive: bool,
    embedding: Option<Vec<f32>>,
    norm_sq: f32,
}

/// The `w` best (id, similarity) pairs seen so far, best first; ties go to the older
/// triplet (smaller id), the order [`AriGraph::semantic_search`] documents.
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

/// Squared norm, computed as `cosine` computes it.
fn norm_sq(v: &[f32]) -> f32 {
    crate::llm::dot(v, v)
}

/// An episodic vertex with its episodic edge.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Episode {
    /// Step number (1-based) of the observation.
    pub step: u32,
    /// The raw observation.
    pub observation: String,
    /// Ids of the triplets extracted at this step (distinct).
    pub triplets: Vec<TripletId>,
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

/// The AriGraph memory.
#[derive(Debug, Clone, Default)]
pub struct AriGraph {
    triplets: Vec<TripletRecord>,
    index: HashMap<Triplet, TripletId>,
    incident: HashMap<String, BTreeSet<TripletId>>,
    vertex_embeddings: HashMap<String, Vec<f32>>,
    episodes: Vec<Episode>,
    alive: usize,
}

impl AriGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// The triplet with this id (alive or not).
    pub fn triplet(&self, id: TripletId) -> &Triplet {
        &self.triplets[id].triplet
    }

    /// The id of a triplet if it is in the graph now (alive).
    pub fn find(&self, t: &Triplet) -> Option<TripletId> {
        self.index
            .get(t)
            .copied()
            .filter(|&id| self.triplets[id].alive)
    }

    /// Ids of the triplets in the graph now, in insertion order.
    pub fn alive_ids(&self) -> impl Iterator<Item = TripletId> + '_ {
        (0..self.triplets.len()).filter(|&i| self.triplets[i].alive)
    }

    /// Number of semantic edges now (alive triplets).
    pub fn edge_count(&self) -> usize {
        self.alive
    }

    /// Number of semantic vertices now (with at least one alive edge).
    pub fn vertex_count(&self) -> usize {
        self.incident.values().filter(|s| !s.is_empty()).count()
    }

    /// The semantic vertices now (with at least one alive edge), sorted.
    pub fn vertices(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .incident
            .iter()
            .filter(|(_, s)| !s.is_empty())
            .map(|(k, _)| k.as_str())
            .collect();
        v.sort_unstable();
        v
    }

    /// Whether a triplet id is in the graph now.
    pub fn is_alive(&self, id: TripletId) -> bool {
        self.triplets.get(id).is_some_and(|r| r.alive)
    }

    /// The episodic vertices, oldest first.
    pub fn episodes(&self) -> &[Episode] {
        &self.episodes
    }

    /// Add a triplet (or revive it); returns its id and whether it is new to the
    /// current graph (false for a duplicate of an alive triplet).
    pub fn add(&mut self, t: Triplet) -> (TripletId, bool) {
        if let Some(&id) = self.index.get(&t) {
            let was_alive = self.triplets[id].alive;
            self.triplets[id].alive = true;
            if !was_alive {
                self.alive += 1;
            }
            self.link(id);
            return (id, !was_alive);
        }
        let id = self.triplets.len();
        self.index.insert(t.clone(), id);
        self.triplets.push(TripletRecord {
            triplet: t,
            alive: true,
            embedding: None,
            norm_sq: 0.0,
        });
        self.alive += 1;
        self.link(id);
        (id, true)
    }

    fn link(&mut self, id: TripletId) {
        let t = &self.triplets[id].triplet;
        let (s, o) = (t.subject.clone(), t.object.clone());
        self.incident.entry(s).or_default().insert(id);
        self.incident.entry(o).or_default().insert(id);
    }

    /// Remove an outdated triplet from the semantic layer (episodes keep their link).
    /// Returns false if it was not alive.
    pub fn remove(&mut self, id: TripletId) -> bool {
        let Some(rec) = self.triplets.get_mut(id) else {
            return false;
        };
        if !rec.alive {
            return false;
        }
        rec.alive = false;
        self.alive -= 1;
        let (s, o) = (rec.triplet.subject.clone(), rec.triplet.object.clone());
        for v in [s, o] {
            if let Some(set) = self.incident.get_mut(&v) {
                set.remove(&id);
                if set.is_empty() {
                    self.incident.remove(&v);
                }
            }
        }
        true
    }

    /// Alive triplets incident to any of `vertices` (E_s^rel of section 2), sorted by id.
    pub fn incident_to<'a>(&self, vertices: impl IntoIterator<Item = &'a str>) -> Vec<TripletId> {
        let mut out = BTreeSet::new();
        for v in vertices {
            if let Some(set) = self.incident.get(v) {
                out.extend(set.iter().copied());
            }
        }
        out.into_iter().collect()
    }

    /// Add the episodic vertex of a step and its episodic edge.
    pub fn add_episode(&mut self, step: u32, observation: String, triplets: Vec<TripletId>) {
        let mut seen = HashSet::new();
        let triplets = triplets.into_iter().filter(|id| seen.insert(*id)).collect();
        self.episodes.push(Episode {
            step,
            observation,
            triplets,
        });
    }

    /// Alive triplets that have no embedding yet: (id, text).
    pub fn triplets_missing_embeddings(&self) -> Vec<(TripletId, String)> {
        self.alive_ids()
            .filter(|&id| self.triplets[id].embedding.is_none())
            .map(|id| (id, self.triplets[id].triplet.text()))
            .collect()
    }

    /// Vertices that have no embedding yet.
    pub fn vertices_missing_embeddings(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .incident
            .keys()
            .filter(|k| !self.vertex_embeddings.contains_key(*k))
            .cloned()
            .collect();
        v.sort();
        v
    }

    /// Store a triplet's embedding (unit length expected).
    pub fn set_triplet_embedding(&mut self, id: TripletId, v: Vec<f32>) {
        if let Some(r) = self.triplets.get_mut(id) {
            r.norm_sq = norm_sq(&v);
            r.embedding = Some(v);
        }
    }

    /// Store a vertex's embedding (unit length expected).
    pub fn set_vertex_embedding(&mut self, vertex: String, v: Vec<f32>) {
        self.vertex_embeddings.insert(vertex, v);
    }

    fn top_w<I: Iterator<Item = TripletId>>(
        &self,
        candidates: I,
        query: &[f32],
        w: usize,
    ) -> Vec<(TripletId, f32)> {
        // Cosine similarity with the squared norms computed once (the query's here, each
        // triplet's when it was stored): bit-identical to `cosine`, at a third of the work.
        let qn = norm_sq(query);
        let scored: Vec<(TripletId, f32)> = candidates
            .filter_map(|id| {
                let r = &self.triplets[id];
                r.embedding
                    .as_ref()
                    .filter(|_| r.alive)
                    .map(|e| (id, crate::llm::cosine_with_norms(query, e, qn, r.norm_sq)))
            })
            .collect();
        Self::best(scored, w)
    }

    /// Semantic search, Algorithm 2: embedding-seeded BFS over the triplets.
    ///
    /// The query (depth 0) selects the top-`w` triplets among all triplets by cosine
    /// similarity; each vertex of a found triplet becomes a query one level deeper and
    /// selects the top-`w` triplets among those incident to it (by similarity to the
    /// vertex's embedding: the paper's "vertices ... used to recursively retrieve new
    /// edges from the graph"); no query at depth >= `d` is expanded. `d = 0` returns
    /// nothing. Each triplet appears once, with the smallest depth that found it.
    pub fn semantic_search(&self, query: &[f32], d: u32, w: usize) -> Vec<Retrieved> {
        self.semantic_search_many(&[query], d, w)
            .pop()
            .unwrap_or_default()
    }

    /// [`AriGraph::semantic_search`] for several queries at once: the depth-0 scan reads
    /// each triplet embedding once for all queries (the scan is memory-bound at 100,000
    /// triplets), then each query's BFS goes on alone. Results are those of one call per
    /// query, in query order.
    pub fn semantic_search_many(
        &self,
        queries: &[&[f32]],
        d: u32,
        w: usize,
    ) -> Vec<Vec<Retrieved>> {
        if d == 0 || queries.is_empty() {
            return vec![Vec::new(); queries.len()];
        }
        let seeds = self.top_w_many(queries, w);
        queries
            .iter()
            .zip(seeds)
            .map(|(_, hits)| self.bfs_from(hits, d, w))
            .collect()
    }

    /// Top-w triplets among all alive ones for each query, in one pass.
    fn top_w_many(&self, queries: &[&[f32]], w: usize) -> Vec<Vec<(TripletId, f32)>> {
        let norms: Vec<f32> = queries.iter().map(|q| norm_sq(q)).collect();
        let mut scored: Vec<TopW> = (0..queries.len()).map(|_| TopW::new(w)).collect();
        for id in 0..self.triplets.len() {
            let r = &self.triplets[id];
            let Some(e) = r.embedding.as_ref().filter(|_| r.alive) else {
                continue;
            };
            for (k, q) in queries.iter().enumerate() {
                scored[k].offer(id, crate::llm::cosine_with_norms(q, e, norms[k], r.norm_sq));
            }
        }
        scored.into_iter().map(|s| s.items).collect()
    }

    /// The `w` best of `scored`: highest similarity first, ties by the older triplet.
    fn best(mut scored: Vec<(TripletId, f32)>, w: usize) -> Vec<(TripletId, f32)> {
        let order =
            |a: &(TripletId, f32), b: &(TripletId, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if scored.len() > w && w > 0 {
            scored.select_nth_unstable_by(w - 1, order);
        }
        scored.truncate(w);
        scored.sort_by(order);
        scored
    }

    /// The BFS of Algorithm 2 from a query's depth-0 hits.
    fn bfs_from(&self, seed_hits: Vec<(TripletId, f32)>, d: u32, w: usize) -> Vec<Retrieved> {
        let mut found: Vec<Retrieved> = Vec::new();
        let mut seen_triplets: HashSet<TripletId> = HashSet::new();
        let mut seen_vertices: HashSet<&str> = HashSet::new();
        // Queue entries: (vertex or None for the query, depth).
        let mut queue: VecDeque<(Option<&str>, u32)> = VecDeque::from([(None, 0)]);
        let mut seed_hits = Some(seed_hits);
        while let Some((vertex, depth)) = queue.pop_front() {
            if depth >= d {
                continue;
            }
            let hits = match vertex {
                None => seed_hits.take().unwrap_or_default(),
                Some(v) => match (self.vertex_embeddings.get(v), self.incident.get(v)) {
                    (Some(e), Some(ids)) => self.top_w(ids.iter().copied(), e, w),
                    _ => Vec::new(),
                },
            };
            for (id, similarity) in hits {
                let t = &self.triplets[id].triplet;
                for v in [t.subject.as_str(), t.object.as_str()] {
                    if seen_vertices.insert(v) {
                        queue.push_back((Some(v), depth + 1));
                    }
                }
                if seen_triplets.insert(id) {
                    found.push(Retrieved {
                        id,
                        depth,
                        similarity,
                    });
                }
            }
        }
        found
    }

    /// Episodic search, Eq. 1: score every episodic vertex by the retrieved triplets in
    /// its edge and return the `k` best with a positive score (ties: the later step
    /// first). `exclude_step` leaves out the current step, whose observation the agent
    /// already has.
    pub fn episodic_search(
        &self,
        retrieved: &HashSet<TripletId>,
        k: usize,
        exclude_step: Option<u32>,
    ) -> Vec<ScoredEpisode> {
        let mut scored: Vec<ScoredEpisode> = self
            .episodes
            .iter()
            .enumerate()
            .filter(|(_, e)| Some(e.step) != exclude_step)
            .map(|(index, e)| {
                let n = e
                    .triplets
                    .iter()
                    .filter(|id| retrieved.contains(id))
                    .count();
                ScoredEpisode {
                    index,
                    step: e.step,
                    n,
                    total: e.triplets.len(),
                    score: episodic_relevance(n, e.triplets.len()),
                }
            })
            .filter(|s| s.score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.step.cmp(&a.step)));
        scored.truncate(k);
        scored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn triplets_are_normalized_and_deduplicated() {
        let mut g = AriGraph::new();
        let (a, new_a) = g.add(t("  Key ", "is in", "Locker."));
        let (b, new_b) = g.add(t("key", "IS  in", "locker"));
        assert_eq!(a, b);
        assert!(new_a && !new_b);
        assert_eq!(g.edge_count(), 1);
        assert_eq!(g.vertex_count(), 2);
        assert!(Triplet::new("key", "is", "key").is_none());
        assert!(Triplet::new("", "is", "key").is_none());
        assert!(Triplet::new("trunk", "has exit", "None").is_none());
        assert!(Triplet::new("nothing", "is in", "inventory").is_none());
    }

    #[test]
    fn replacement_keeps_episodes_and_revives_ids() {
        let mut g = AriGraph::new();
        let (old, _) = g.add(t("key", "is in", "locker"));
        g.add_episode(1, "You see a key in the locker.".into(), vec![old]);
        assert!(g.remove(old));
        assert!(!g.remove(old));
        let (new, _) = g.add(t("key", "is in", "inventory"));
        assert_eq!(g.find(&t("key", "is in", "locker")), None);
        assert_eq!(g.incident_to(["key"]), vec![new]);
        assert_eq!(g.incident_to(["locker"]), Vec::<TripletId>::new());
        assert_eq!(g.episodes()[0].triplets, vec![old]);
        let (again, fresh) = g.add(t("key", "is in", "locker"));
        assert_eq!(again, old);
        assert!(fresh);
    }

    /// Unit vector along axis `i` of a 4-d space, tilted slightly toward axis `j`.
    fn axis(i: usize, j: usize, tilt: f32) -> Vec<f32> {
        let mut v = vec![0.0; 4];
        v[i] = 1.0;
        v[j] += tilt;
        crate::llm::normalize(&mut v);
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
            g.semantic_search(&q, d, 1)
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
        let got: Vec<_> = g
            .semantic_search(&q, 1, 2)
            .into_iter()
            .map(|r| r.id)
            .collect();
        // The two most similar (smallest tilt away from the query), in order.
        assert_eq!(got, vec![ids[0], ids[1]]);
        let all: Vec<_> = g
            .semantic_search(&q, 1, 10)
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
        for r in g.semantic_search(&q, 1, 20) {
            let e = g.triplets[r.id].embedding.clone().unwrap();
            assert_eq!(r.similarity.to_bits(), crate::llm::cosine(&q, &e).to_bits());
        }
    }

    #[test]
    fn removed_triplets_are_not_retrieved() {
        let (mut g, ids) = chain();
        g.remove(ids[0]);
        let got: Vec<_> = g
            .semantic_search(&axis(0, 1, 0.0), 1, 1)
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
        let got = g.episodic_search(&retrieved, 5, None);
        let steps: Vec<u32> = got.iter().map(|s| s.step).collect();
        assert_eq!(steps, vec![3, 2]);
        assert!((got[0].score - 3.0 / 8.0 * 3.0).abs() < 1e-12);
        assert!((got[1].score - 1.0).abs() < 1e-12);
        assert_eq!(g.episodic_search(&retrieved, 1, None).len(), 1);
        assert_eq!(g.episodic_search(&retrieved, 5, Some(3))[0].step, 2);
    }
}
