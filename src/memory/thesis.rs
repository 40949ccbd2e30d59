//! Thesis vertices and traversal constraints, after PersonalAI (Menschikov et al. 2025,
//! arXiv:2506.17001, section III): options of the AriGraph memory.
//!
//! **Thesis vertices** (`--thesis`). PersonalAI's semantic memory holds, beside the
//! object vertices joined by triplets, *thesis* vertices: complete atomic statements
//! expressed in the source text ("the recipe asks for a grilled red pepper"), each a
//! hyper-edge over the object vertices it mentions. Ariadne's adaptation:
//!
//! - the triplet extraction call also asks for up to [`MAX_THESES`] theses (the same
//!   call, a prompt branch and a schema variant used only with the option; no extra
//!   LLM call); each is stored with its step, its passage embedding (in the triplets'
//!   batch) and its hyper-edge, the known vertex names it mentions ([`super::names::mentions`]:
//!   whole-word occurrences after [`super::names::fold`]), and is linked to its episodic vertex;
//! - after the semantic step of retrieval (any `--retrieval` strategy) up to
//!   [`MAX_THESES`] theses are retrieved ([`rank`]): the candidates are the theses whose
//!   hyper-edge holds an *anchor* — a vertex of a retrieved triplet or a vertex matched
//!   to a query ([`super::matched::matched_vertices`]) — ranked, as WaterCircles
//!   ranks thesis and episodic items, by the number of anchors they hold, then by cosine
//!   similarity to the nearest query, then oldest first, then by id. They are shown in
//!   working memory as "Statements remembered" and recorded as `retrieval.theses`.
//!
//! **Traversal constraints** (`--exclude object,thesis,episodic`). PersonalAI's
//! traversals can be told to leave kinds of vertices out of the search
//! ([`super::VertexKind`]): `episodic` skips the episodic step (Eq. 1; no episode retrieved),
//! `thesis` retrieves no thesis (they are still extracted and stored), `object` skips
//! the semantic search (no triplet retrieved, no bridge). Without object vertices the
//! theses are ranked by cosine similarity to the queries alone (every thesis is a
//! candidate), and Eq. 1 scores an episode with n and N counted over its thesis
//! vertices (N: the theses linked to it; n: those retrieved) instead of its triplets.
//! Excluding all three kinds is an error.

use std::collections::BTreeSet;

use super::graph::{AriGraph, ThesisId, TripletId};
use super::matched::{MATCHED_VERTICES, matched_vertices};
use super::similarity::best_cosine;

/// Most theses asked for in one extraction and most retrieved for one step, in runs of
/// the first adaptation ([`super::PersonalAiForm::Adapted`]).
pub const MAX_THESES: usize = 3;

/// Most theses taken from one extraction and most retrieved for one step as the paper
/// runs them ([`super::PersonalAiForm::Paper`]): WaterCircles' budget of 15
/// hyper-triples (PersonalAI Appendix E), which the paper gives for no other strategy.
pub const PAPER_THESES: usize = 15;

/// Most entities a thesis's hyper-edge holds when the extractor writes them.
pub const THESIS_ENTITIES: usize = 10;

/// Longest thesis kept, characters (a longer one is cut and counted as trimmed).
pub const THESIS_CHARS: usize = 200;

/// The anchors of thesis retrieval: the vertices of the retrieved triplets and the
/// [`MATCHED_VERTICES`] vertices matched to each query vector.
pub fn anchors<'g>(
    g: &'g AriGraph,
    queries: &[&[f32]],
    triplets: impl IntoIterator<Item = TripletId>,
) -> BTreeSet<&'g str> {
    let mut out: BTreeSet<&str> = BTreeSet::new();
    for id in triplets {
        let t = g.triplet(id);
        out.insert(t.subject.as_str());
        out.insert(t.object.as_str());
    }
    for q in queries {
        out.extend(matched_vertices(g, q, MATCHED_VERTICES));
    }
    out
}

/// A retrieved thesis vertex with its ranking keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The thesis vertex.
    pub id: ThesisId,
    /// Anchors in its hyper-edge (0 when ranked by similarity alone).
    pub matched: usize,
    /// Highest cosine similarity of its embedding to a query vector (0.0 without one).
    pub similarity: f32,
    /// The hop of the hyper-edge walk that reached it ([`super::hyper`]); `None` when
    /// ranked without a walk.
    pub hop: Option<u32>,
}

/// Highest cosine of a thesis's embedding to the query vectors (0.0 without one).
pub fn similarity(g: &AriGraph, queries: &[&[f32]], id: ThesisId) -> f32 {
    best_cosine(queries, g.thesis_embedding(id))
}

/// Rank the thesis vertices of `g` for retrieval and keep the best `k` (see the module
/// documentation). With `anchors = Some(..)` the candidates are the theses whose
/// hyper-edge holds an anchor, ranked by anchors held, then similarity; with `None`
/// (object vertices excluded) every thesis is a candidate, ranked by similarity. Ties go
/// to the older thesis (smaller step, then smaller id), so a replay ranks the same.
pub fn rank(
    g: &AriGraph,
    queries: &[&[f32]],
    anchors: Option<&BTreeSet<&str>>,
    k: usize,
) -> Vec<Ranked> {
    let mut ranked: Vec<(Ranked, u32)> = g
        .theses()
        .into_iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let id = ThesisId(i);
            if t.retired.is_some() {
                return None;
            }
            let matched = match anchors {
                Some(a) => {
                    let n = t.vertices.iter().filter(|v| a.contains(v.as_str())).count();
                    if n == 0 {
                        return None;
                    }
                    n
                }
                None => 0,
            };
            let similarity = similarity(g, queries, id);
            Some((
                Ranked {
                    id,
                    matched,
                    similarity,
                    hop: None,
                },
                t.step,
            ))
        })
        .collect();
    ranked.sort_by(|(a, sa), (b, sb)| {
        b.matched
            .cmp(&a.matched)
            .then(b.similarity.total_cmp(&a.similarity))
            .then(sa.cmp(sb))
            .then(a.id.cmp(&b.id))
    });
    ranked.into_iter().take(k).map(|(r, _)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Triplet;
    use crate::memory::names::mentions;

    #[test]
    fn hyper_edges_are_whole_word_mentions_of_known_names() {
        let names = ["blue locker", "key", "locker", "red key", "pepper", "open"];
        assert_eq!(
            mentions("The Red  Key opens the blue locker.", &names),
            ["blue locker", "key", "locker", "red key"]
        );
        // Whole words only: "keyboard", "peppers" and "opened" are other words.
        assert!(mentions("A keyboard, peppers; it opened.", &names).is_empty());
        assert_eq!(mentions("key", &names), ["key"]);
        assert!(mentions("", &names).is_empty());
    }

    /// A small graph with hand-set 3-d embeddings: four theses over the vertices of a
    /// kitchen.
    fn kitchen() -> AriGraph {
        let mut g = AriGraph::new();
        for (s, r, o) in [
            ("recipe", "is in", "kitchen"),
            ("red pepper", "is in", "fridge"),
            ("knife", "is on", "counter"),
        ] {
            g.add(Triplet::new(s, r, o).unwrap());
        }
        for (v, e) in [
            ("recipe", [1.0, 0.0, 0.0]),
            ("kitchen", [0.0, 1.0, 0.0]),
            ("red pepper", [0.9, 0.1, 0.0]),
            ("fridge", [0.0, 0.0, 1.0]),
            ("knife", [0.0, 0.6, 0.8]),
            ("counter", [0.0, 0.8, 0.6]),
        ] {
            g.set_vertex_embedding(v.into(), e.to_vec());
        }
        for (step, text, e) in [
            // 0: recipe + red pepper (2 names); far from the query.
            (
                1,
                "The recipe asks for a grilled red pepper",
                [0.0, 0.0, 1.0],
            ),
            // 1: knife only; the nearest to the query.
            (2, "The knife is sharp enough to slice", [1.0, 0.0, 0.0]),
            // 2: recipe + red pepper too, nearer than 0 but newer.
            (
                3,
                "Grill the red pepper before the recipe's last step",
                [0.6, 0.8, 0.0],
            ),
            // 3: red pepper only, same direction as 2, newer still.
            (4, "The red pepper is in the fridge", [0.6, 0.8, 0.0]),
        ] {
            let (id, fresh) = g.add_thesis(text, step);
            assert!(fresh);
            g.set_thesis_embedding(id, e.to_vec());
        }
        g
    }

    #[test]
    fn theses_rank_by_anchors_held_then_similarity_then_age() {
        let g = kitchen();
        assert_eq!(
            g.thesis(ThesisId(0)).unwrap().vertices,
            ["recipe", "red pepper"]
        );
        assert_eq!(
            g.thesis(ThesisId(3)).unwrap().vertices,
            ["fridge", "red pepper"]
        );
        let q: &[f32] = &[1.0, 0.0, 0.0];
        let a: BTreeSet<&str> = ["recipe", "red pepper", "knife"].into();
        let r = rank(&g, &[q], Some(&a), 10);
        let order: Vec<usize> = r.iter().map(|r| r.id.0).collect();
        // Two anchors: 2 (cos 0.6) before 0 (cos 0); one anchor: 1 (cos 1.0), then 3
        // (cos 0.6).
        assert_eq!(order, [2, 0, 1, 3]);
        assert_eq!(r[0].matched, 2);
        assert!((r[0].similarity - 0.6).abs() < 1e-6);
        // At equal anchors and similarity the older thesis wins: 2 (step 3) before 3.
        let only_pepper: BTreeSet<&str> = ["red pepper"].into();
        let order: Vec<usize> = rank(&g, &[q], Some(&only_pepper), 2)
            .iter()
            .map(|r| r.id.0)
            .collect();
        assert_eq!(order, [2, 3]);
        // No anchor in a hyper-edge: not a candidate.
        let none: BTreeSet<&str> = ["counter"].into();
        assert!(rank(&g, &[q], Some(&none), 3).is_empty());
        // Object vertices excluded: similarity alone over every thesis, best of the
        // queries; ties (2 and 3) by age.
        let q2: &[f32] = &[0.0, 0.0, 1.0];
        let order: Vec<usize> = rank(&g, &[q, q2], None, 3).iter().map(|r| r.id.0).collect();
        assert_eq!(order, [0, 1, 2]);
    }

    #[test]
    fn anchors_are_retrieved_triplet_ends_and_matched_vertices() {
        let g = kitchen();
        let q: &[f32] = &[0.0, 0.0, 1.0];
        let a = anchors(&g, &[q], [TripletId(0)]);
        // recipe, kitchen (triplet 0); fridge, knife, counter (nearest three to q).
        assert_eq!(
            a.into_iter().collect::<Vec<_>>(),
            ["counter", "fridge", "kitchen", "knife", "recipe"]
        );
    }

    #[test]
    fn a_thesis_held_already_is_not_added_again() {
        let mut g = kitchen();
        let (id, fresh) = g.add_thesis("the recipe asks for a GRILLED red pepper", 9);
        assert_eq!((id, fresh), (ThesisId(0), false));
        assert_eq!(g.thesis_count(), 4);
    }
}
