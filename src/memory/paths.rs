//! Multi-hop path mining, after AriadneMem (Phase II: "Depth-First Search on the
//! augmented graph to extract explicit reasoning paths (up to L = 3 hops)", then
//! topology-aware synthesis: "the extracted subgraph and explicit paths are serialized
//! into a compact context"), as `--bridge` runs under
//! [`super::AriadneMemForm::Paper`].
//!
//! The augmented graph is what retrieval returned (the semantic search's triplets and
//! the bridges' paths), read as undirected. From each terminal (a vertex of a triplet
//! the query matched directly) a depth-first search follows simple paths (no vertex
//! twice) of at most [`MAX_HOPS`] triplets; a path of 2 or more hops that ends at
//! another terminal is kept (a 1-hop path is a retrieved triplet already), once for
//! both directions. Paths are returned shortest first, then in text order, at most
//! [`MAX_PATHS`], each written as the triplets say it: `alice -[met]-> bob -[went
//! to]-> paris`, with `<-[r]-` where the path runs against a triplet.

use std::collections::{BTreeSet, HashSet};

use super::graph::{AriGraph, TripletId};

/// Longest path mined, in hops (AriadneMem: L = 3).
pub const MAX_HOPS: usize = 3;

/// Most paths given to the LLM (Ariadne's bound: AriadneMem gives none, and its compact
/// context averages 497 tokens).
pub const MAX_PATHS: usize = 10;

/// The reasoning paths between `terminals` over the triplets `sub` (see the module),
/// serialized.
pub fn mine(g: &AriGraph, sub: &BTreeSet<TripletId>, terminals: &[&str]) -> Vec<String> {
    let ends: BTreeSet<&str> = terminals.iter().copied().collect();
    let mut found: Vec<(usize, String)> = Vec::new();
    let mut seen: HashSet<Vec<TripletId>> = HashSet::new();
    for &start in &ends {
        let mut stack: Vec<(&str, Vec<TripletId>, Vec<&str>)> =
            vec![(start, Vec::new(), vec![start])];
        while let Some((at, path, visited)) = stack.pop() {
            if path.len() >= 2 && ends.contains(at) && at > start {
                let mut key = path.clone();
                key.sort_unstable();
                if seen.insert(key) {
                    found.push((path.len(), write(g, start, &path)));
                }
            }
            if path.len() == MAX_HOPS {
                continue;
            }
            for &id in g.incident(at).into_iter().flatten() {
                if !sub.contains(&id) {
                    continue;
                }
                let t = g.triplet(id);
                let next = if t.subject == at {
                    t.object.as_str()
                } else {
                    t.subject.as_str()
                };
                if visited.contains(&next) {
                    continue;
                }
                let mut p = path.clone();
                p.push(id);
                let mut v = visited.clone();
                v.push(next);
                stack.push((next, p, v));
            }
        }
    }
    found.sort();
    found.dedup();
    found.into_iter().take(MAX_PATHS).map(|(_, s)| s).collect()
}

/// A path from `start` along `path`, as the triplets state each hop.
fn write(g: &AriGraph, start: &str, path: &[TripletId]) -> String {
    let mut out = start.to_string();
    let mut at = start;
    for &id in path {
        let t = g.triplet(id);
        if t.subject == at {
            out.push_str(&format!(" -[{}]-> {}", t.relation, t.object));
            at = t.object.as_str();
        } else {
            out.push_str(&format!(" <-[{}]- {}", t.relation, t.subject));
            at = t.subject.as_str();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Triplet;

    fn add(g: &mut AriGraph, s: &str, r: &str, o: &str) -> TripletId {
        g.add(Triplet::new(s, r, o).unwrap()).0
    }

    /// A known graph: alice met bob, bob went to paris, paris is in france, carol met
    /// bob, and a 4-hop detour alice - x - y - z - paris.
    #[test]
    fn paths_of_two_and_three_hops_between_terminals_are_mined_once() {
        let mut g = AriGraph::new();
        let ids: Vec<TripletId> = [
            ("alice", "met", "bob"),
            ("bob", "went to", "paris"),
            ("paris", "is in", "france"),
            ("carol", "met", "bob"),
            ("alice", "knows", "x"),
            ("x", "knows", "y"),
            ("y", "knows", "z"),
            ("z", "visited", "paris"),
        ]
        .iter()
        .map(|(s, r, o)| add(&mut g, s, r, o))
        .collect();
        let sub: BTreeSet<TripletId> = ids.iter().copied().collect();
        assert_eq!(
            mine(&g, &sub, &["alice", "france", "paris", "carol"]),
            [
                // 2 hops, in text order ("-" before "<"); each pair once, from the
                // smaller name.
                "alice -[met]-> bob -[went to]-> paris",
                "alice -[met]-> bob <-[met]- carol",
                "carol -[met]-> bob -[went to]-> paris",
                // 3 hops; the 4-hop detour to paris is too long.
                "alice -[met]-> bob -[went to]-> paris -[is in]-> france",
                "carol -[met]-> bob -[went to]-> paris -[is in]-> france",
            ]
        );
        // Only the triplets retrieved are walked: without "bob, went to, paris" the
        // paths to paris and france are gone (the 4-hop detour is too long).
        let without: BTreeSet<TripletId> = sub.iter().copied().filter(|id| *id != ids[1]).collect();
        assert_eq!(
            mine(&g, &without, &["alice", "france", "paris", "carol"]),
            ["alice -[met]-> bob <-[met]- carol"]
        );
        // One terminal, or terminals one hop apart: no path.
        assert!(mine(&g, &sub, &["alice"]).is_empty());
        assert!(mine(&g, &sub, &["paris", "france"]).is_empty());
    }
}
