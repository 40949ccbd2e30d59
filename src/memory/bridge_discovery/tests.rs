//! Tests of `bridge_discovery`.

use super::*;
use crate::memory::Triplet;

fn add(g: &mut AriGraph, s: &str, r: &str, o: &str) -> TripletId {
    g.add(Triplet::new(s, r, o).unwrap()).0
}

/// Hand-made graph: the query matched "alice, lives in, london" and "paris, is in,
/// france" (two components of what was retrieved); the full graph joins them through
/// bob (alice - bob - paris). Alice, bob and paris all have total distance 2; bob is
/// the most central (legs 1 and 1), so bob is the bridge vertex and the two path
/// triplets are added.
#[test]
fn a_bridge_vertex_joins_two_components() {
    let mut g = AriGraph::new();
    let met = add(&mut g, "alice", "met", "bob");
    let went = add(&mut g, "bob", "went to", "paris");
    let lives = add(&mut g, "alice", "lives in", "london");
    let country = add(&mut g, "paris", "is in", "france");
    add(&mut g, "london", "is near", "oxford");
    let retrieved: BTreeSet<TripletId> = [lives, country].into();
    let terminals = ["alice", "london", "paris", "france"];
    let bridges = discover(&g, &terminals, &retrieved, 6);
    assert_eq!(
        bridges,
        vec![Bridge {
            vertex: "bob".into(),
            joins: vec!["alice".into(), "paris".into()],
            triplets: vec![met, went],
        }]
    );
    // Connected terminals need no bridge; a budget too small adds none.
    let all: BTreeSet<TripletId> = [lives, country, met, went].into();
    assert!(discover(&g, &terminals, &all, 6).is_empty());
    assert!(discover(&g, &terminals, &retrieved, 1).is_empty());
}

/// As AriadneMem chooses: two vertices join alice's and paris's components; bob is
/// nearer (legs 1 and 1) but unrelated in meaning, eve is a hop further (legs 1 and
/// 2) and close to both terminals: by hops bob bridges, by semantic connectivity eve.
/// A path through a fact stated outside the valid time interval is not walked.
#[test]
fn the_bridge_is_chosen_by_similarity_over_hop_count_within_the_window() {
    let mut g = AriGraph::new();
    g.set_step(1);
    let lives = add(&mut g, "alice", "lives in", "london");
    let country = add(&mut g, "paris", "is in", "france");
    let met = add(&mut g, "alice", "met", "bob");
    let went = add(&mut g, "bob", "went to", "paris");
    let called = add(&mut g, "alice", "called", "eve");
    let booked = add(&mut g, "eve", "booked", "hotel");
    g.set_step(3);
    let near = add(&mut g, "hotel", "is near", "paris");
    for (v, e) in [
        ("alice", [1.0, 0.0, 0.0]),
        ("paris", [0.0, 1.0, 0.0]),
        ("bob", [0.0, 0.0, 1.0]),
        ("eve", [1.0, 1.0, 0.0]),
        ("hotel", [0.0, 1.0, 1.0]),
        ("london", [1.0, -1.0, 0.0]),
        ("france", [-1.0, 1.0, 0.0]),
    ] {
        g.set_vertex_embedding(v.into(), e.to_vec());
    }
    let retrieved: BTreeSet<TripletId> = [lives, country].into();
    let terminals = ["alice", "london", "paris", "france"];
    assert_eq!(discover(&g, &terminals, &retrieved, 6)[0].vertex, "bob");
    let w = window(&g, &[lives, country]);
    assert_eq!(w, (0, 21));
    let by = Choice::Similarity { window: w };
    let found = discover_by(&g, &terminals, &retrieved, 6, &by);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].vertex, "eve");
    assert_eq!(found[0].triplets, vec![called, booked, near]);
    // "hotel, is near, paris" stated at step 3, outside a window of steps 0-2:
    // eve no longer reaches paris; of the vertices left, the terminal alice is the
    // most connected (1.0, bob 0.0), joined to paris through bob.
    let narrow = Choice::Similarity { window: (0, 2) };
    let found = discover_by(&g, &terminals, &retrieved, 6, &narrow);
    assert_eq!(found[0].vertex, "alice");
    assert_eq!(found[0].triplets, vec![met, went]);
}

/// Three components around one hub: one bridge joins them all (a star).
#[test]
fn one_hub_joins_three_components() {
    let mut g = AriGraph::new();
    let a = add(&mut g, "key", "opens", "chest");
    let b = add(&mut g, "coin", "is in", "purse");
    let c = add(&mut g, "map", "shows", "island");
    let ka = add(&mut g, "pirate", "owns", "key");
    let kb = add(&mut g, "pirate", "owns", "coin");
    let kc = add(&mut g, "pirate", "owns", "map");
    let retrieved: BTreeSet<TripletId> = [a, b, c].into();
    let bridges = discover(&g, &["key", "coin", "map"], &retrieved, 6);
    assert_eq!(bridges.len(), 1);
    assert_eq!(bridges[0].vertex, "pirate");
    assert_eq!(bridges[0].joins, vec!["key", "coin", "map"]);
    assert_eq!(bridges[0].triplets, vec![ka, kb, kc]);
}

/// Attribute values do not bridge, and paths longer than two legs are not looked for.
#[test]
fn values_and_far_vertices_do_not_bridge() {
    let mut g = AriGraph::new();
    let trunk = add(&mut g, "trunk", "is in", "bedroom");
    let door = add(&mut g, "door", "is in", "hall");
    add(&mut g, "trunk", "is", "closed");
    add(&mut g, "door", "is", "closed");
    add(&mut g, "bedroom", "has exit", "north");
    add(&mut g, "hall", "has exit", "north");
    let retrieved: BTreeSet<TripletId> = [trunk, door].into();
    assert!(discover(&g, &["trunk", "door"], &retrieved, 6).is_empty());
    // bedroom - a - b - c - d - hall: 5 hops, more than 2 legs of 2.
    for w in ["bedroom", "a", "b", "c", "d", "hall"].windows(2) {
        add(&mut g, w[0], "leads to", w[1]);
    }
    assert!(discover(&g, &["trunk", "door"], &retrieved, 6).is_empty());
    // One hop fewer (bedroom - a - b - hall... 3 hops) is bridged.
    add(&mut g, "b", "leads to", "hall");
    let found = discover(&g, &["trunk", "door"], &retrieved, 6);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].triplets.len(), 3);
}
