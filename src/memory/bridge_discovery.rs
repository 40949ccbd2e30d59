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
        let comp = components(g, &sub);
        // The terminals' components, in order of their first terminal.
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
        if order.len() < 2 {
            return out;
        }
        // dist(C, v) and the parent of v on a shortest path, per component.
        let mut reach: Vec<HashMap<&str, (u32, Option<&str>)>> = Vec::new();
        for &c in &order {
            let mut sources: Vec<&str> = comp
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
            reach.push(found);
        }
        // The bridge vertex: most components reached, then the least total distance,
        // then the most central (the shortest longest leg), then the first name.
        let mut candidates: BTreeSet<&str> = BTreeSet::new();
        for r in &reach {
            candidates.extend(r.keys().copied());
        }
        // Under `Choice::Similarity`, first the most semantic connectivity.
        let connectivity = |v: &str, hits: &[usize]| -> f32 {
            if *choice == Choice::Hops {
                return 0.0;
            }
            hits.iter()
                .map(|&i| {
                    terminals
                        .iter()
                        .filter(|t| comp.get(**t) == Some(&order[i]))
                        .map(|t| super::strategies::vertex_similarity(g, v, t))
                        .fold(0.0_f32, f32::max)
                })
                .sum()
        };
        let best = candidates
            .into_iter()
            .filter_map(|v| {
                let hits: Vec<usize> = (0..order.len())
                    .filter(|&i| reach[i].contains_key(v))
                    .collect();
                (hits.len() >= 2).then(|| {
                    let legs = hits.iter().map(|&i| reach[i][v].0);
                    let total: u32 = legs.clone().sum();
                    let longest = legs.max().unwrap_or(0);
                    let c = connectivity(v, &hits);
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
        let Some(((_, _, _, _, vertex), hits)) = best else {
            return out;
        };
        let mut triplets: Vec<TripletId> = Vec::new();
        let mut seen: HashSet<TripletId> = HashSet::new();
        for &i in &hits {
            let mut at = vertex;
            while let Some(&(cost, Some(up))) = reach[i].get(at) {
                if cost == 0 {
                    break;
                }
                if let Some(id) = edge_between(g, at, up, choice)
                    && !sub.contains(&id)
                    && seen.insert(id)
                {
                    triplets.push(id);
                }
                at = up;
            }
        }
        if triplets.is_empty() || used + triplets.len() > budget {
            return out;
        }
        used += triplets.len();
        sub.extend(triplets.iter().copied());
        out.push(Bridge {
            vertex: vertex.to_string(),
            joins: hits.iter().map(|&i| first[&order[i]].to_string()).collect(),
            triplets,
        });
    }
}

#[cfg(test)]
mod tests {
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
}
