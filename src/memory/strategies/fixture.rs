//! A small hand-made graph with 3-dimensional embeddings for the strategies' tests.
//!
//! ```text
//!   apple -7- fridge -0- kitchen -3- hall -5- bedroom -6- bed
//!                          |          |
//!                          2          4
//!                          |          |
//!           knife -1- counter        key
//! ```
//! Triplet ids are the numbers on the edges. Against the query `[1, 0, 0]` the nearest
//! vertices are kitchen (1.0), then fridge and knife (0.707 each), then apple (0.577).

use crate::memory::{AriGraph, Triplet, TripletId};

/// The triplets in id order, with their embeddings.
const TRIPLETS: &[(&str, &str, &str, [f32; 3])] = &[
    ("fridge", "is in", "kitchen", [1.0, 1.0, 0.0]),
    ("knife", "is on", "counter", [1.0, 0.0, 0.0]),
    ("counter", "is in", "kitchen", [1.0, 2.0, 0.0]),
    ("kitchen", "is west of", "hall", [1.0, 0.5, 0.0]),
    ("key", "is in", "hall", [0.0, 1.0, 0.0]),
    ("bedroom", "is north of", "hall", [1.0, 1.0, 1.0]),
    ("bed", "is in", "bedroom", [1.0, 0.0, 0.0]),
    ("apple", "is in", "fridge", [0.0, 0.0, 1.0]),
];

/// The vertices with their embeddings.
const VERTICES: &[(&str, [f32; 3])] = &[
    ("kitchen", [1.0, 0.0, 0.0]),
    ("fridge", [1.0, 1.0, 0.0]),
    ("knife", [1.0, -1.0, 0.0]),
    ("apple", [1.0, 1.0, 1.0]),
    ("counter", [0.0, 1.0, 0.0]),
    ("hall", [0.0, 0.0, 1.0]),
    ("key", [0.0, 1.0, 1.0]),
    ("bedroom", [-1.0, 0.0, 1.0]),
    ("bed", [-1.0, 1.0, 0.0]),
];

/// The house graph above.
pub fn house() -> AriGraph {
    let mut g = AriGraph::new();
    for (s, r, o, e) in TRIPLETS {
        let (id, _) = g.add(Triplet::new(s, r, o).unwrap());
        g.set_triplet_embedding(id, e.to_vec());
    }
    for (v, e) in VERTICES {
        g.set_vertex_embedding(v.to_string(), e.to_vec());
    }
    g
}

/// A graph from `(subject, relation, object)` triplets, every triplet embedded as
/// `[1, 0, 0]` and every vertex as given.
pub fn graph(triplets: &[(&str, &str, &str)], vertices: &[(&str, [f32; 3])]) -> AriGraph {
    let mut g = AriGraph::new();
    for (s, r, o) in triplets {
        let (id, _) = g.add(Triplet::new(s, r, o).unwrap());
        g.set_triplet_embedding(id, vec![1.0, 0.0, 0.0]);
    }
    for (v, e) in vertices {
        g.set_vertex_embedding(v.to_string(), e.to_vec());
    }
    g
}

/// The id of an alive triplet given as `subject, relation, object`.
pub fn id_of(g: &AriGraph, text: &str) -> TripletId {
    let parts: Vec<&str> = text.split(", ").collect();
    g.find(&Triplet::new(parts[0], parts[1], parts[2]).unwrap())
        .unwrap()
}

/// The texts of found triplets, in order.
pub fn texts(g: &AriGraph, found: &[crate::memory::Retrieved]) -> Vec<String> {
    found.iter().map(|r| g.triplet(r.id).text()).collect()
}
