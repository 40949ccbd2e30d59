//! PersonalAI's hyper-edges in traversal (Menschikov et al. 2025, arXiv:2506.17001,
//! section III.A: "thesis edges act as hyper-edges linking object vertices extracted
//! from the same source text"; "episodic vertices ... serve as hyper-edges linking
//! related vertices"; section IV.B: traversal constraints exclude episodic, thesis or
//! object vertices), as `--thesis` runs under [`super::PersonalAiForm::Paper`].
//!
//! After a strategy's semantic search, the walk starts at the *anchors* (the ends of the
//! retrieved triplets and the vertices matched to the queries) and goes `d` hops
//! (`--depth`) through hyper-edges: from a vertex to every thesis that holds and links
//! it, and to every episodic vertex whose observation produced a fact or a thesis about
//! it, then on to the other vertices those link. A thesis is retrieved at the hop it is first
//! reached; at each hop the triplets at the vertices first reached there, not retrieved
//! yet, are ranked by cosine to the nearest query and the best `w` (`--width`) kept,
//! under the similarity cut-off. A kind left out by `--exclude` is left out of the walk
//! itself: `thesis` walks no thesis (none retrieved), `episodic` no episodic vertex,
//! `object` adds no triplet (the walk then starts at the matched vertices alone).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::graph::{AriGraph, EdgeTheses, ThesisId, TripletId};
use super::retrieval::Retrieved;
use super::similarity::best_cosine;

/// Which kinds a walk may pass through (the complement of `--exclude`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Passable {
    /// Object vertices' triplets may be retrieved.
    pub objects: bool,
    /// Thesis hyper-edges may be walked (and theses retrieved).
    pub theses: bool,
    /// Episodic hyper-edges may be walked.
    pub episodes: bool,
}

/// A thesis the walk reached.
#[derive(Debug, Clone, PartialEq)]
pub struct ReachedThesis {
    /// The thesis vertex.
    pub id: ThesisId,
    /// The hop it was first reached at (1 = linking an anchor).
    pub hop: u32,
    /// Anchors its hyper-edge links.
    pub anchors: usize,
    /// Highest cosine of its embedding to a query (0.0 without one).
    pub similarity: f32,
}

/// What a walk found: theses (best first: nearest hop, then more anchors, then more
/// similar, then older, then by id; at most the walk's budget) and triplets reached
/// through hyper-edges (in hop order, each hop's best first), `depth` = their hop.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Walk {
    /// Theses reached.
    pub theses: Vec<ReachedThesis>,
    /// Triplets reached through hyper-edges.
    pub triplets: Vec<Retrieved>,
}

/// How far a walk goes and what it keeps: `depth` hops, `width` triplets kept per hop
/// whose cosine is at least `cutoff`, at most `theses` theses returned, through the
/// kinds `can` passes.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Hops walked.
    pub depth: u32,
    /// Triplets kept per hop.
    pub width: usize,
    /// The least cosine a kept triplet has.
    pub cutoff: Option<f32>,
    /// The most theses returned.
    pub theses: usize,
    /// The kinds the walk passes through.
    pub can: Passable,
}

/// Walk through hyper-edges from `anchors` within `bounds` (see the module).
/// `retrieved` are the triplets the search found already (not added again).
pub fn walk(
    g: &AriGraph,
    queries: &[&[f32]],
    anchors: &BTreeSet<&str>,
    retrieved: &HashSet<TripletId>,
    bounds: Bounds,
) -> Walk {
    let best = |e: Option<(&[f32], f32)>| best_cosine(queries, e);
    let episode_vertices = episode_edges(g, bounds.can);
    let mut visited: BTreeSet<&str> = anchors.clone();
    let mut frontier: BTreeSet<&str> = anchors.clone();
    let mut reached: BTreeMap<ThesisId, u32> = BTreeMap::new();
    let mut taken: HashSet<TripletId> = retrieved.clone();
    let mut out = Walk::default();
    for hop in 1..=bounds.depth {
        let mut next: BTreeSet<&str> = BTreeSet::new();
        for &v in &frontier {
            if bounds.can.theses {
                for id in g.theses_linking(v) {
                    reached.entry(id).or_insert(hop);
                    if let Some(t) = g.thesis(id) {
                        next.extend(
                            t.vertices
                                .iter()
                                .map(String::as_str)
                                .filter(|u| !visited.contains(u)),
                        );
                    }
                }
            }
            for e in episode_vertices.iter().filter(|e| e.contains(v)) {
                next.extend(e.iter().copied().filter(|u| !visited.contains(u)));
            }
        }
        if bounds.can.objects {
            let mut ranked: Vec<(TripletId, f32)> = g
                .incident_to(next.iter().copied())
                .into_iter()
                .filter(|id| !taken.contains(id))
                .map(|id| (id, best(g.triplet_embedding(id))))
                .filter(|(_, s)| bounds.cutoff.is_none_or(|c| *s >= c))
                .collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            for (id, similarity) in ranked.into_iter().take(bounds.width) {
                taken.insert(id);
                out.triplets.push(Retrieved {
                    id,
                    depth: hop,
                    similarity,
                });
            }
        }
        visited.extend(next.iter().copied());
        frontier = next;
        if frontier.is_empty() {
            break;
        }
    }
    out.theses = ranked_theses(g, queries, anchors, reached, bounds.theses);
    out
}

/// Each episode's hyper-edge: the ends of the facts its observation produced and the
/// entities of its theses that hold (when theses may be walked); none when episodes
/// may not be walked.
fn episode_edges(g: &AriGraph, can: Passable) -> Vec<BTreeSet<&str>> {
    if !can.episodes {
        return Vec::new();
    }
    let theses = if can.theses {
        EdgeTheses::Live
    } else {
        EdgeTheses::None
    };
    g.episodes()
        .iter()
        .map(|e| g.episode_edge(e, theses))
        .collect()
}

/// The theses `reached` (id -> the hop first reached), best first: nearest hop, then
/// more anchors, then more similar, then older, then by id; at most `budget`.
fn ranked_theses(
    g: &AriGraph,
    queries: &[&[f32]],
    anchors: &BTreeSet<&str>,
    reached: BTreeMap<ThesisId, u32>,
    budget: usize,
) -> Vec<ReachedThesis> {
    let mut theses: Vec<(ReachedThesis, u32)> = reached
        .into_iter()
        .filter_map(|(id, hop)| {
            let t = g.thesis(id)?;
            Some((
                ReachedThesis {
                    id,
                    hop,
                    anchors: t
                        .vertices
                        .iter()
                        .filter(|v| anchors.contains(v.as_str()))
                        .count(),
                    similarity: best_cosine(queries, g.thesis_embedding(id)),
                },
                t.step,
            ))
        })
        .collect();
    theses.sort_by(|(a, sa), (b, sb)| {
        a.hop
            .cmp(&b.hop)
            .then(b.anchors.cmp(&a.anchors))
            .then(b.similarity.total_cmp(&a.similarity))
            .then(sa.cmp(sb))
            .then(a.id.cmp(&b.id))
    });
    theses.into_iter().take(budget).map(|(t, _)| t).collect()
}

#[cfg(test)]
mod tests;
