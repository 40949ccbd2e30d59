//! Bridge discovery, after AriadneMem (Phase II, "Algorithmic Bridge Discovery (Steiner
//! Tree Approximation)": terminal nodes matched by a query are often disconnected; an
//! intermediate node that connects them is found algorithmically instead of by the LLM,
//! reconstructing the missing path A -> B -> C).
//!
//! With `--bridge`, after the semantic search (Algorithm 2), for each query in turn:
//! - its **terminals** are the vertices of the triplets it matched directly (depth 0);
//! - the **retrieved subgraph** is every triplet retrieved so far (all queries, and the
//!   bridges already added), read as an undirected graph; when the terminals lie in two
//!   or more of its connected components, they are joined through the full graph:
//! - for each such component C, the distance `dist(C, v)` of every vertex v within
//!   [`LEG_HOPS`] hops in the full graph of alive triplets (Dijkstra with unit costs from
//!   C as one source, `pathfinding::directed::dijkstra::dijkstra_reach`);
//! - the **bridge vertex** is the v that reaches the most components, then with the
//!   smallest sum of distances, then the smallest longest leg, then first by name: the centre of a star Steiner tree
//!   over the components (the classic shortest-path approximation restricted to one
//!   Steiner vertex); its shortest path to each component it reaches is added (the
//!   triplets not already retrieved), those components merge, and the search repeats
//!   until the terminals are connected, no vertex joins two components, or the next
//!   bridge would exceed the budget of triplets (the retrieval width w per step).
//!
//! Attribute values are not passed through: a vertex that is an exit direction, or only
//! ever the object of a state relation ("closed", "open"), would otherwise put every
//! closed thing two hops from every other. Ties follow triplet ids and names, so a replay
//! finds the same bridges.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use pathfinding::directed::dijkstra::dijkstra_reach;
use serde::{Deserialize, Serialize};

use super::graph::{AriGraph, TripletId};
use super::relations::{self, RelationKind};
use crate::direction::Direction;

/// Most hops from a component to the bridge vertex (so at most twice this between two
/// components).
pub const LEG_HOPS: u32 = 2;

/// A bridge as found: the vertex, the components it joined (one terminal of each), the
/// triplets of its paths.
#[derive(Debug, Clone, PartialEq)]
pub struct Bridge {
    /// The bridge (Steiner) vertex.
    pub vertex: String,
    /// One terminal of each component joined, in component order.
    pub joins: Vec<String>,
    /// The path triplets added (not retrieved before), in path order.
    pub triplets: Vec<TripletId>,
}

/// A bridge as recorded in a step's `retrieval.bridges`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BridgeRecord {
    /// The query (its position in `retrieval.queries`) whose terminals were joined.
    pub query: usize,
    /// The bridge vertex.
    pub vertex: String,
    /// One terminal of each component joined.
    pub joins: Vec<String>,
    /// The triplets added, `subject, relation, object`.
    pub triplets: Vec<String>,
}

/// Whether a vertex is an attribute value that a bridge path must not pass through: an
/// exit direction, or a vertex whose every alive triplet has it as the object of a state
/// relation.
fn is_value(g: &AriGraph, v: &str) -> bool {
    if Direction::parse(v).is_some() {
        return true;
    }
    let mut ids = g.incident(v).into_iter().flatten().peekable();
    ids.peek().is_some()
        && ids.all(|&id| {
            let t = g.triplet(id);
            t.object == v && relations::kind(t) == RelationKind::State
        })
}

/// The alive triplet joining `a` and `b` (either way) that `choice` may walk, the oldest.
fn edge_between(g: &AriGraph, a: &str, b: &str, choice: &Choice) -> Option<TripletId> {
    g.incident(a)?.iter().copied().find(|&id| {
        let t = g.triplet(id);
        ((t.subject == a && t.object == b) || (t.subject == b && t.object == a))
            && choice.walks(g, id)
    })
}

/// How the bridge vertex is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Choice {
    /// By hop counts (the first adaptation; see the module).
    Hops,
    /// As AriadneMem describes it: the vertex that maximizes semantic connectivity
    /// between the terminals (the sum, over the components it reaches, of its best
    /// cosine to a terminal of each), then by hop counts; its paths walk only triplets
    /// last stated within the steps `window` (inclusive), the valid time interval.
    Similarity {
        /// The valid time interval, steps.
        window: (u32, u32),
    },
}

impl Choice {
    /// Whether a bridge path may walk this triplet.
    fn walks(&self, g: &AriGraph, id: TripletId) -> bool {
        match self {
            Choice::Hops => true,
            Choice::Similarity { window: (lo, hi) } => (*lo..=*hi).contains(&g.stated(id)),
        }
    }
}

/// Steps on either side of the terminals' facts that a bridge path may reach back or
/// forward (AriadneMem names a "valid time interval" but not its width; Ariadne's
/// choice: wide enough for a question's paragraphs and a game's recent rooms).
pub const WINDOW_STEPS: u32 = 20;

/// The valid time interval around the steps the terminals' facts were last stated:
/// from [`WINDOW_STEPS`] before the earliest to as many after the latest.
pub fn window(g: &AriGraph, terminal_facts: &[TripletId]) -> (u32, u32) {
    let steps = terminal_facts.iter().map(|id| g.stated(*id));
    let lo = steps.clone().min().unwrap_or(0);
    let hi = steps.max().unwrap_or(0);
    (
        lo.saturating_sub(WINDOW_STEPS),
        hi.saturating_add(WINDOW_STEPS),
    )
}

/// Connected components of the subgraph made of `ids`: vertex -> component number (the
/// smallest triplet id of the component: deterministic).
fn components(g: &AriGraph, ids: &BTreeSet<TripletId>) -> HashMap<String, TripletId> {
    fn find(parent: &HashMap<String, String>, v: &str) -> String {
        let mut root = v.to_string();
        while let Some(up) = parent.get(&root).filter(|u| **u != root) {
            root = up.clone();
        }
        root
    }
    let mut parent: HashMap<String, String> = HashMap::new();
    for &id in ids {
        let t = g.triplet(id);
        for v in [&t.subject, &t.object] {
            parent.entry(v.clone()).or_insert_with(|| v.clone());
        }
        let (a, b) = (find(&parent, &t.subject), find(&parent, &t.object));
        if a != b {
            let (low, high) = if a < b { (a, b) } else { (b, a) };
            parent.insert(high, low);
        }
    }
    let mut number: HashMap<String, TripletId> = HashMap::new();
    for &id in ids {
        number
            .entry(find(&parent, &g.triplet(id).subject))
            .or_insert(id);
    }
    parent
        .keys()
        .map(|v| (v.clone(), number[&find(&parent, v)]))
        .collect()
}

/// Join the terminals' components of the subgraph `retrieved` through bridge vertices of
/// the full graph (see the module documentation); at most `budget` triplets are added.
pub fn discover(
    g: &AriGraph,
    terminals: &[&str],
    retrieved: &BTreeSet<TripletId>,
    budget: usize,
) -> Vec<Bridge> {
    discover_by(g, terminals, retrieved, budget, &Choice::Hops)
}

/// [`discover`] with the bridge vertex chosen as `choice` says.
pub fn discover_by(
    g: &AriGraph,
    terminals: &[&str],
    retrieved: &BTreeSet<TripletId>,
    budget: usize,
    choice: &Choice,
) -> Vec<Bridge> {
    let mut sub = retrieved.clone();
    let mut out = Vec::new();
    let mut used = 0;
    loop {
        let round = Round::new(g, choice, terminals, &sub);
        if round.order.len() < 2 {
            return out;
        }
        // dist(C, v) and the parent of v on a shortest path, per component.
        let reach: Vec<Reach<'_>> = round.order.iter().map(|&c| round.reach(c)).collect();
        let Some((vertex, hits)) = round.bridge_vertex(&reach) else {
            return out;
        };
        let triplets = round.paths(&reach, vertex, &hits, &sub);
        if triplets.is_empty() || used + triplets.len() > budget {
            return out;
        }
        used += triplets.len();
        sub.extend(triplets.iter().copied());
        out.push(Bridge {
            vertex: vertex.to_string(),
            joins: hits
                .iter()
                .map(|&i| round.first[&round.order[i]].to_string())
                .collect(),
            triplets,
        });
    }
}

/// Each vertex within [`LEG_HOPS`] of one component: its distance (hops) and its
/// parent on a shortest path (`None` for the component's own vertices).
type Reach<'a> = HashMap<&'a str, (u32, Option<&'a str>)>;

/// One round of [`discover_by`] over the subgraph retrieved so far: its components and
/// the terminals' components, in order of their first terminal.
struct Round<'a> {
    g: &'a AriGraph,
    choice: &'a Choice,
    terminals: &'a [&'a str],
    /// Vertex -> component number ([`components`]).
    comp: HashMap<String, TripletId>,
    /// The terminals' components, in order of their first terminal.
    order: Vec<TripletId>,
    /// Each of those components' first terminal.
    first: BTreeMap<TripletId, &'a str>,
}

impl<'a> Round<'a> {
    /// The components of `sub` and the terminals' among them.
    fn new(
        g: &'a AriGraph,
        choice: &'a Choice,
        terminals: &'a [&'a str],
        sub: &BTreeSet<TripletId>,
    ) -> Self {
        let comp = components(g, sub);
        let mut order: Vec<TripletId> = Vec::new();
        let mut first: BTreeMap<TripletId, &str> = BTreeMap::new();
        for t in terminals {
            if let Some(&c) = comp.get(*t)
                && !order.contains(&c)
            {
                order.push(c);
                first.insert(c, t);
            }
        }
        Round {
            g,
            choice,
            terminals,
            comp,
            order,
            first,
        }
    }

    /// dist(C, v) and v's parent on a shortest path for component `c`: Dijkstra with
    /// unit costs from the component as one source, over the alive triplets `choice`
    /// walks, never through an attribute value ([`is_value`]), up to [`LEG_HOPS`].
    fn reach(&self, c: TripletId) -> Reach<'_> {
        let (g, choice) = (self.g, self.choice);
        let mut sources: Vec<&str> = self
            .comp
            .iter()
            .filter(|(_, n)| **n == c)
            .map(|(v, _)| v.as_str())
            .collect();
        sources.sort_unstable();
        let successors = |n: &Option<&str>| -> Vec<(Option<&str>, u32)> {
            match n {
                None => sources.iter().map(|v| (Some(*v), 0)).collect(),
                Some(u) => {
                    let mut next: Vec<(Option<&str>, u32)> = Vec::new();
                    for &id in g.incident(u).into_iter().flatten() {
                        if !choice.walks(g, id) {
                            continue;
                        }
                        let t = g.triplet(id);
                        let w = if t.subject == *u {
                            &t.object
                        } else {
                            &t.subject
                        };
                        if !is_value(g, w) && !next.iter().any(|(x, _)| *x == Some(w)) {
                            next.push((Some(w.as_str()), 1));
                        }
                    }
                    next
                }
            }
        };
        let mut found = HashMap::new();
        for item in dijkstra_reach(&None, successors) {
            if item.total_cost > LEG_HOPS {
                break;
            }
            if let Some(v) = item.node {
                found.insert(v, (item.total_cost, item.parent.flatten()));
            }
        }
        found
    }

    /// The bridge vertex and the components it reaches (indices into `order`): most
    /// components reached (at least 2), then (under [`Choice::Similarity`]) the most
    /// semantic connectivity, then the least total distance, then the most central (the
    /// shortest longest leg), then the first name.
    fn bridge_vertex<'r>(&self, reach: &[Reach<'r>]) -> Option<(&'r str, Vec<usize>)> {
        let mut candidates: BTreeSet<&str> = BTreeSet::new();
        for r in reach {
            candidates.extend(r.keys().copied());
        }
        let best = candidates
            .into_iter()
            .filter_map(|v| {
                let hits: Vec<usize> = (0..self.order.len())
                    .filter(|&i| reach[i].contains_key(v))
                    .collect();
                (hits.len() >= 2).then(|| {
                    let legs = hits.iter().map(|&i| reach[i][v].0);
                    let total: u32 = legs.clone().sum();
                    let longest = legs.max().unwrap_or(0);
                    let c = self.connectivity(v, &hits);
                    ((std::cmp::Reverse(hits.len()), c, total, longest, v), hits)
                })
            })
            .min_by(|a, b| {
                let (ha, ca, ta, la, va) = a.0;
                let (hb, cb, tb, lb, vb) = b.0;
                ha.cmp(&hb)
                    .then(cb.total_cmp(&ca))
                    .then(ta.cmp(&tb))
                    .then(la.cmp(&lb))
                    .then(va.cmp(vb))
            });
        best.map(|((_, _, _, _, vertex), hits)| (vertex, hits))
    }

    /// Under [`Choice::Similarity`], `v`'s semantic connectivity to the components it
    /// reaches (`hits`): the sum over them of its best cosine to one of their terminals;
    /// 0 under [`Choice::Hops`].
    fn connectivity(&self, v: &str, hits: &[usize]) -> f32 {
        if *self.choice == Choice::Hops {
            return 0.0;
        }
        hits.iter()
            .map(|&i| {
                self.terminals
                    .iter()
                    .filter(|t| self.comp.get(**t) == Some(&self.order[i]))
                    .map(|t| super::strategies::vertex_similarity(self.g, v, t))
                    .fold(0.0_f32, f32::max)
            })
            .sum()
    }

    /// The triplets of the shortest paths from `vertex` to each component it reaches
    /// (`hits`), walking the parents of `reach` back, each once, those already in `sub`
    /// left out.
    fn paths(
        &self,
        reach: &[Reach<'_>],
        vertex: &str,
        hits: &[usize],
        sub: &BTreeSet<TripletId>,
    ) -> Vec<TripletId> {
        let mut triplets: Vec<TripletId> = Vec::new();
        let mut seen: HashSet<TripletId> = HashSet::new();
        for &i in hits {
            let mut at = vertex;
            while let Some(&(cost, Some(up))) = reach[i].get(at) {
                if cost == 0 {
                    break;
                }
                if let Some(id) = edge_between(self.g, at, up, self.choice)
                    && !sub.contains(&id)
                    && seen.insert(id)
                {
                    triplets.push(id);
                }
                at = up;
            }
        }
        triplets
    }
}

#[cfg(test)]
mod tests;
