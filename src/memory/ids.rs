//! Typed stable indices of the graph's vertices and edges (petgraph's `NodeIndex`
//! idea): a triplet's id and a thesis vertex's id are different types, so one cannot
//! be passed where the other is meant. A leaf: it depends on nothing of the memory.
//! Both serialize as the bare number, as the plain `usize` they replace did.

use serde::{Deserialize, Serialize};

/// Stable index of a triplet (a semantic edge) in the graph: its position in
/// `AriGraph::triplets()`, never reused (a retired triplet keeps its id).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct TripletId(pub usize);

/// Stable index of a thesis vertex in the graph (`0..AriGraph::theses().len()`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct ThesisId(pub usize);

impl TripletId {
    /// The position in the graph's triplet list.
    pub fn index(self) -> usize {
        self.0
    }
}

impl ThesisId {
    /// The position in the graph's thesis list.
    pub fn index(self) -> usize {
        self.0
    }
}

impl std::fmt::Display for TripletId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::fmt::Display for ThesisId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
