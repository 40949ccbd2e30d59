//! Tests of `retrieval`.

use super::*;
use crate::memory::Triplet;
use crate::memory::similarity::{cosine, normalize};

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

/// The reference's cut-off: of the query's top 2, the triplet at cosine 0.8 is kept
/// and expanded, the one at 0.6 neither kept nor expanded.
#[test]
fn the_cutoff_drops_a_triplet_below_it_and_does_not_expand_it() {
    let mut g = AriGraph::new();
    let (near, _) = g.add(t("apple", "is in", "fridge"));
    let (far, _) = g.add(t("key", "is in", "box"));
    let (via_key, _) = g.add(t("key", "opens", "door"));
    // Query along axis 0; `near` at cosine 0.8, `far` at 0.6.
    g.set_triplet_embedding(near, vec![0.8, 0.6, 0.0, 0.0]);
    g.set_triplet_embedding(far, vec![0.6, 0.8, 0.0, 0.0]);
    g.set_triplet_embedding(via_key, vec![0.0, 0.0, 0.0, 1.0]);
    for v in ["apple", "fridge", "box", "door"] {
        g.set_vertex_embedding(v.to_string(), vec![0.0, 0.0, 1.0, 0.0]);
    }
    // The vertex "key" matches only `via_key`: reached only if `far` is expanded.
    g.set_vertex_embedding("key".to_string(), vec![0.0, 0.0, 0.0, 1.0]);
    let q: &[f32] = &[1.0, 0.0, 0.0, 0.0];
    let found = |cutoff| -> Vec<TripletId> {
        let bounds = SearchBounds {
            d: 2,
            w: 2,
            scope: HopScope::All,
            scan: Scan::Exact,
            cutoff,
        };
        semantic_search_cut(&g, &[q], bounds)
            .remove(0)
            .into_iter()
            .map(|r| r.id)
            .collect()
    };
    let without = found(None);
    assert!(
        without.contains(&far) && without.contains(&via_key),
        "{without:?}"
    );
    let with = found(Some(PAPER_CUTOFF));
    assert!(with.contains(&near), "{with:?}");
    assert!(!with.contains(&far), "{with:?}");
    assert!(!with.contains(&via_key), "{with:?}");
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

/// A graph of `n` triplets over `n / 3` vertices with random `dim`-long embeddings
/// (uniform in [-1, 1), not normalised), every 7th triplet removed, and, when
/// `odd`, a few embeddings of another length.
fn random_graph(n: usize, dim: usize, odd: bool, seed: u64) -> (AriGraph, Vec<Vec<f32>>) {
    let mut state = seed;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let vector = |len: usize, next: &mut dyn FnMut() -> u64| -> Vec<f32> {
        (0..len)
            .map(|_| (next() % 2001) as f32 / 1000.0 - 1.0)
            .collect()
    };
    let mut g = AriGraph::new();
    let vertices = (n / 3).max(4);
    while g.edge_count() < n {
        let (s, o) = (next() as usize % vertices, next() as usize % vertices);
        if let Some(tr) = Triplet::new(&format!("v{s}"), "r", &format!("v{o}")) {
            g.add(tr);
        }
    }
    for (id, _) in g.triplets_missing_embeddings() {
        let len = if odd && id.0 % 50 == 3 { dim + 5 } else { dim };
        g.set_triplet_embedding(id, vector(len, &mut next));
    }
    for v in g.vertices_missing_embeddings() {
        g.set_vertex_embedding(v, vector(dim, &mut next));
    }
    for id in (0..g.triplet_slots()).step_by(7) {
        g.remove(TripletId(id));
    }
    let queries = (0..9).map(|_| vector(dim, &mut next)).collect();
    (g, queries)
}

/// The straightforward top-w: every alive triplet scored by `cosine_with_norms`.
fn reference_top_w(g: &AriGraph, q: &[f32], w: usize) -> Vec<(TripletId, f32)> {
    let mut top = TopW::new(w);
    for id in (0..g.triplet_slots()).map(TripletId) {
        if let Some((e, ne)) = g.triplet_embedding(id) {
            top.offer(id, cosine_with_norms(q, e, dot(q, q), ne));
        }
    }
    top.items
}

/// Algorithm 2 with hops over all edges, one query at a time, on `reference_top_w`.
fn reference_search(g: &AriGraph, q: &[f32], d: u32, w: usize) -> Vec<Retrieved> {
    let mut found: Vec<Retrieved> = Vec::new();
    let mut seen_v = HashSet::new();
    let mut level: Vec<String> = Vec::new();
    let mut take = |hits: Vec<(TripletId, f32)>, depth, next: &mut Vec<String>| {
        for (id, similarity) in hits {
            let t = g.triplet(id);
            for v in [&t.subject, &t.object] {
                if seen_v.insert(v.clone()) {
                    next.push(v.clone());
                }
            }
            if !found.iter().any(|r| r.id == id) {
                found.push(Retrieved {
                    id,
                    depth,
                    similarity,
                });
            }
        }
    };
    if d == 0 {
        return Vec::new();
    }
    take(reference_top_w(g, q, w), 0, &mut level);
    for depth in 1..d {
        let mut next = Vec::new();
        for v in std::mem::take(&mut level) {
            if let Some(e) = g.vertex_embedding(&v) {
                take(reference_top_w(g, e, w), depth, &mut next);
            }
        }
        level = next;
    }
    found
}

fn bits(v: &[(TripletId, f32)]) -> Vec<(TripletId, u32)> {
    v.iter().map(|&(id, s)| (id, s.to_bits())).collect()
}

#[test]
fn blocked_scan_is_bit_identical_to_the_reference_below_the_threshold() {
    // Lengths with and without a tail past the 8 lanes; odd-length embeddings too.
    for (dim, odd) in [(37, true), (64, false), (8, true)] {
        let (g, queries) = random_graph(600, dim, odd, 0x5eed ^ dim as u64);
        assert!(g.edge_count() < APPROX_THRESHOLD);
        for count in 1..=queries.len() {
            let refs: Vec<&[f32]> = queries[..count].iter().map(Vec::as_slice).collect();
            for w in [0, 1, 6, 40] {
                let got = top_w_all(&g, &refs, w, Scan::Auto);
                for (q, got) in refs.iter().zip(&got) {
                    assert_eq!(bits(got), bits(&reference_top_w(&g, q, w)));
                }
            }
        }
        let refs: Vec<&[f32]> = queries[..4].iter().map(Vec::as_slice).collect();
        let many = semantic_search_many(&g, &refs, 3, 6, HopScope::All);
        for (q, got) in refs.iter().zip(many) {
            let want = reference_search(&g, q, 3, 6);
            let key = |v: &[Retrieved]| {
                v.iter()
                    .map(|r| (r.id, r.depth, r.similarity.to_bits()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(key(&got), key(&want));
        }
    }
}

/// The floor the approximate scan must keep on random (structureless, hence hard)
/// embeddings; the benchmark prints the figure at 100,000 triplets.
const RECALL_FLOOR: f64 = 0.95;

#[test]
fn approximate_scan_recall_is_above_the_floor() {
    let (g, queries) = random_graph(3_000, 96, false, 0xa11);
    let refs: Vec<&[f32]> = queries.iter().map(Vec::as_slice).collect();
    let w = 6;
    let exact = top_w_all(&g, &refs, w, Scan::Exact);
    let approx = top_w_all(&g, &refs, w, Scan::Approximate);
    let mut hits = 0;
    for (k, (a, b)) in exact.iter().zip(&approx).enumerate() {
        assert_eq!(b.len(), w);
        for (id, sim) in b {
            // Similarities stay exact cosines.
            let (e, ne) = g.triplet_embedding(*id).unwrap();
            let q = refs[k];
            assert_eq!(
                sim.to_bits(),
                cosine_with_norms(q, e, dot(q, q), ne).to_bits()
            );
            hits += usize::from(a.iter().any(|x| x.0 == *id));
        }
    }
    let recall = hits as f64 / (w * refs.len()) as f64;
    assert!(recall >= RECALL_FLOOR, "recall {recall}");
    // Deterministic: the same call gives the same bits.
    let again = top_w_all(&g, &refs, w, Scan::Approximate);
    for (a, b) in approx.iter().zip(&again) {
        assert_eq!(bits(a), bits(b));
    }
}
