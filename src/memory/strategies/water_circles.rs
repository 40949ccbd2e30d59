//! `--retrieval water-circles`: PersonalAI's WaterCircles (arXiv:2506.17001, section
//! III.D "WaterCircles", Appendix E): a breadth-first search started at every vertex
//! matched to the query, spreading ring by ring like circles on water; what the circles
//! of several matched vertices reach is ranked by how many of them it touches.
//!
//! For AriGraph's graph (no thesis vertices; episodes are scored afterwards by Eq. 1)
//! the items are triplets: a triplet lies in the circle of matched vertex s at ring k
//! when one of its ends is k - 1 hops from s (k = 1..d, d = `--depth`). Under the
//! paper's strict filter, the triplets where circles meet (in two or more circles; on
//! the chains that link matched entities) are returned, ranked by the number of circles,
//! then by the sum of their rings (nearer first), then by id, at most
//! [`Params::chain_triplets`]; only when no circles meet, each circle gives its
//! [`Params::other_triplets`] first triplets (by ring, then similarity to the query).

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use super::{found, neighbours, push_new, similarity};
use crate::memory::graph::{AriGraph, EdgeTheses, ThesisId, TripletId};
use crate::memory::retrieval::Retrieved;
use crate::memory::thesis::Ranked;

/// WaterCircles budgets (Appendix E, strict filter).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Triplets where circles meet, at most (paper: 25 chain triplets).
    pub chain_triplets: usize,
    /// Triplets per circle when no circles meet (paper: 6 other triplets).
    pub other_triplets: usize,
    /// Thesis vertices ranked by entity intersections, at most (paper: 15
    /// hyper-triples; [`items`]).
    pub hyper_triples: usize,
    /// Episodic vertices ranked by entity intersections, at most (paper: 15 episodic
    /// triples; [`items`]).
    pub episodic_triples: usize,
}

impl Params {
    /// The paper's values: 25 chain triplets, 6 other triplets, 15 hyper-triples, 15
    /// episodic triples.
    pub const PAPER: Params = Params {
        chain_triplets: 25,
        other_triplets: 6,
        hyper_triples: 15,
        episodic_triples: 15,
    };
}

/// The thesis and episodic items WaterCircles ranks (PersonalAI section III.D: it
/// "counts entities in text fragments, and ranks thesis and episodic triples by entity
/// intersections"), as the paper runs it ([`crate::memory::PersonalAiForm::Paper`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Items {
    /// Theses, best first, each with the entities of its hyper-edge the circles reached
    /// (`matched`) and its similarity to the queries (the tie-break; `hop` is `None`).
    pub theses: Vec<Ranked>,
    /// Episodes, best first: (index in [`AriGraph::episodes`], entities the circles
    /// reached, entities it holds).
    pub episodes: Vec<(usize, usize, usize)>,
}

/// The vertices the circles of `seeds` reach over `rings` rings: the seeds and the ends
/// of every triplet in a circle.
pub fn reached<'g>(g: &'g AriGraph, seeds: &[&'g str], rings: u32) -> BTreeSet<&'g str> {
    let mut out: BTreeSet<&str> = seeds.iter().copied().collect();
    for s in seeds {
        for (id, _) in circle(g, s, rings) {
            let t = g.triplet(id);
            out.insert(t.subject.as_str());
            out.insert(t.object.as_str());
        }
    }
    out
}

/// Which items [`items`] ranks: the kinds not left out (`--exclude`), and the step
/// whose episode is left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemKinds {
    /// Rank thesis items (false: none of them).
    pub theses: bool,
    /// Rank episodic items (false: none of them).
    pub episodes: bool,
    /// The step whose episode is not ranked (the current step's), if any.
    pub exclude_step: Option<u32>,
}

/// Rank thesis and episodic items by their entities among `reached` (see [`Items`]): a
/// thesis's entities are its hyper-edge, an episode's the ends of the facts its
/// observation produced and its theses' entities. Items with none reached are left
/// out; ties go to the thesis more similar to a query (`queries`), then the older,
/// and to the later episode; at most [`Params::hyper_triples`] theses and
/// [`Params::episodic_triples`] episodes. `kinds.theses` or `kinds.episodes` false ranks
/// none of that kind (`--exclude`); `kinds.exclude_step` leaves out that step's episode.
pub fn items(
    g: &AriGraph,
    queries: &[&[f32]],
    reached: &BTreeSet<&str>,
    p: &Params,
    kinds: ItemKinds,
) -> Items {
    let mut out = Items::default();
    if kinds.theses {
        out.theses = rank_theses(g, queries, reached, p);
    }
    if kinds.episodes {
        out.episodes = rank_episodes(g, reached, p, kinds.exclude_step);
    }
    out
}

/// The live theses with entities among `reached`, best first: by entities reached,
/// then similarity to `queries`, then the older, then id; at most
/// [`Params::hyper_triples`].
fn rank_theses(
    g: &AriGraph,
    queries: &[&[f32]],
    reached: &BTreeSet<&str>,
    p: &Params,
) -> Vec<Ranked> {
    let mut ranked: Vec<(ThesisId, usize, f32, u32)> = g
        .theses()
        .into_iter()
        .enumerate()
        .filter(|(_, t)| t.retired.is_none())
        .filter_map(|(i, t)| {
            let n = t
                .vertices
                .iter()
                .filter(|v| reached.contains(v.as_str()))
                .count();
            let id = ThesisId(i);
            let sim = crate::memory::thesis::similarity(g, queries, id);
            (n > 0).then_some((id, n, sim, t.step))
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(b.2.total_cmp(&a.2))
            .then(a.3.cmp(&b.3))
            .then(a.0.cmp(&b.0))
    });
    ranked
        .into_iter()
        .take(p.hyper_triples)
        .map(|(id, matched, similarity, _)| Ranked {
            id,
            matched,
            similarity,
            hop: None,
        })
        .collect()
}

/// The episodes (not `exclude_step`'s) with entities among `reached`, best first: by
/// entities reached, then the later; at most [`Params::episodic_triples`]. Each as
/// (index in [`AriGraph::episodes`], entities reached, entities it holds).
fn rank_episodes(
    g: &AriGraph,
    reached: &BTreeSet<&str>,
    p: &Params,
    exclude_step: Option<u32>,
) -> Vec<(usize, usize, usize)> {
    let mut ranked: Vec<(usize, usize, usize, u32)> = g
        .episodes()
        .iter()
        .enumerate()
        .filter(|(_, e)| Some(e.step) != exclude_step)
        .filter_map(|(i, e)| {
            let held = g.episode_edge(e, EdgeTheses::All);
            let n = held.iter().filter(|v| reached.contains(*v)).count();
            (n > 0).then_some((i, n, held.len(), e.step))
        })
        .collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(b.3.cmp(&a.3)));
    ranked
        .into_iter()
        .take(p.episodic_triples)
        .map(|(i, n, total, _)| (i, n, total))
        .collect()
}

/// The circle of `seed` over `rings` rings: each triplet reached with its ring (1 =
/// incident to the seed), in the order the breadth-first search found them (vertices in
/// queue order, their triplets by id).
pub fn circle(g: &AriGraph, seed: &str, rings: u32) -> Vec<(TripletId, u32)> {
    let mut out = Vec::new();
    let mut taken = HashSet::new();
    let mut dist: HashMap<&str, u32> = HashMap::from([(seed, 0)]);
    let mut queue = VecDeque::from([seed]);
    while let Some(v) = queue.pop_front() {
        let d = dist[v];
        if d >= rings {
            continue;
        }
        for (id, n) in neighbours(g, v) {
            if taken.insert(id) {
                out.push((id, d + 1));
            }
            if !dist.contains_key(n) {
                dist.insert(n, d + 1);
                queue.push_back(n);
            }
        }
    }
    out
}

/// WaterCircles retrieval from `seeds` over `rings` rings (see the module). A
/// triplet's depth is its nearest ring minus one (0 = at a matched vertex).
pub fn search(
    g: &AriGraph,
    query: &[f32],
    seeds: &[&str],
    rings: u32,
    p: &Params,
) -> Vec<Retrieved> {
    let circles: Vec<Vec<(TripletId, u32)>> = seeds.iter().map(|s| circle(g, s, rings)).collect();
    // Per triplet: circles touched, sum of rings, nearest ring.
    let mut touch: HashMap<TripletId, (usize, u32, u32)> = HashMap::new();
    for c in &circles {
        for &(id, ring) in c {
            let e = touch.entry(id).or_insert((0, 0, ring));
            e.0 += 1;
            e.1 += ring;
            e.2 = e.2.min(ring);
        }
    }
    let mut meet: Vec<(TripletId, (usize, u32, u32))> = touch
        .iter()
        .filter(|(_, t)| t.0 >= 2)
        .map(|(&id, &t)| (id, t))
        .collect();
    let mut out = Vec::new();
    if !meet.is_empty() {
        meet.sort_by(|a, b| {
            b.1.0
                .cmp(&a.1.0)
                .then(a.1.1.cmp(&b.1.1))
                .then(a.0.cmp(&b.0))
        });
        for (id, (_, _, ring)) in meet.into_iter().take(p.chain_triplets) {
            out.push(found(g, query, id, ring - 1));
        }
        return out;
    }
    let mut seen = HashSet::new();
    for c in circles {
        let mut ranked: Vec<(TripletId, u32, f32)> = c
            .into_iter()
            .map(|(id, ring)| (id, ring, similarity(g, query, id)))
            .collect();
        ranked.sort_by(|a, b| a.1.cmp(&b.1).then(b.2.total_cmp(&a.2)).then(a.0.cmp(&b.0)));
        for (id, ring, _) in ranked.into_iter().take(p.other_triplets) {
            push_new(&mut out, &mut seen, found(g, query, id, ring - 1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::strategies::fixture::{house, texts};

    const Q: [f32; 3] = [1.0, 0.0, 0.0];

    #[test]
    fn circles_spread_ring_by_ring() {
        let g = house();
        let rings = |d| -> Vec<(usize, u32)> {
            circle(&g, "kitchen", d)
                .into_iter()
                .map(|(id, r)| (id.0, r))
                .collect()
        };
        assert_eq!(rings(1), [(0, 1), (2, 1), (3, 1)]);
        assert_eq!(
            rings(2),
            [(0, 1), (2, 1), (3, 1), (7, 2), (1, 2), (4, 2), (5, 2)]
        );
        assert!(circle(&g, "kitchen", 0).is_empty());
    }

    #[test]
    fn where_circles_meet_ranks_first_by_matched_vertices_touched() {
        let g = house();
        let seeds = ["kitchen", "fridge", "knife"];
        // One ring: only "fridge, is in, kitchen" is in two circles.
        let one = search(&g, &Q, &seeds, 1, &Params::PAPER);
        assert_eq!(texts(&g, &one), ["fridge, is in, kitchen"]);
        // Two rings: counter-kitchen is in all three circles (rings 1 + 2 + 2); then
        // the triplets in two: fridge-kitchen (rings 1 + 1), then the ring sums of 3
        // by id.
        let two = search(&g, &Q, &seeds, 2, &Params::PAPER);
        assert_eq!(
            texts(&g, &two),
            [
                "counter, is in, kitchen",
                "fridge, is in, kitchen",
                "knife, is on, counter",
                "kitchen, is west of, hall",
                "apple, is in, fridge",
            ]
        );
        assert!(two.iter().all(|r| r.depth == 0));
        let capped = search(
            &g,
            &Q,
            &seeds,
            2,
            &Params {
                chain_triplets: 2,
                ..Params::PAPER
            },
        );
        assert_eq!(capped.len(), 2);
    }

    #[test]
    fn circles_that_do_not_meet_give_their_nearest_triplets() {
        let g = house();
        // bed and key are three hops apart: one ring each does not meet.
        let apart = search(&g, &Q, &["bed", "key"], 1, &Params::PAPER);
        assert_eq!(
            texts(&g, &apart),
            ["bed, is in, bedroom", "key, is in, hall"]
        );
        // Two rings meet on "bedroom, is north of, hall".
        let met = search(&g, &Q, &["bed", "key"], 2, &Params::PAPER);
        assert_eq!(texts(&g, &met), ["bedroom, is north of, hall"]);
        assert_eq!(met[0].depth, 1);
        // The per-circle budget, ring first, then similarity to the query.
        let one = search(
            &g,
            &Q,
            &["hall"],
            2,
            &Params {
                other_triplets: 2,
                ..Params::PAPER
            },
        );
        // Ring 1 of hall: kitchen-hall (cos 0.894), bedroom-hall (0.577), key-hall (0).
        assert_eq!(
            texts(&g, &one),
            ["kitchen, is west of, hall", "bedroom, is north of, hall"]
        );
    }

    #[test]
    fn theses_and_episodes_rank_by_entities_reached_within_their_budgets() {
        let mut g = house();
        // One ring from kitchen reaches kitchen, fridge, counter and hall.
        let owned: Vec<String> = reached(&g, &["kitchen"], 1)
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(owned, ["counter", "fridge", "hall", "kitchen"]);
        let r: BTreeSet<&str> = owned.iter().map(String::as_str).collect();
        let ids: Vec<TripletId> = (0..8).map(TripletId).collect();
        // Episode 1: the kitchen's facts (fridge, kitchen, knife, counter: 3 reached);
        // episode 2: the bedroom's (bedroom, hall, bed: 1 reached); episode 3: the
        // apple's (apple, fridge), and the theses below, linked to it.
        g.add_episode(1, "kitchen".into(), vec![ids[0], ids[1], ids[2]]);
        g.add_episode(2, "bedroom".into(), vec![ids[5], ids[6]]);
        g.add_episode(3, "apple".into(), vec![ids[7]]);
        for (text, names) in [
            (
                "the fridge and the counter are in the kitchen",
                vec!["fridge", "counter", "kitchen"],
            ),
            ("the bed is soft", vec!["bed"]),
            ("the hall is cold", vec!["hall"]),
            ("the counter is by the hall", vec!["counter", "hall"]),
        ] {
            let names: Vec<String> = names.into_iter().map(String::from).collect();
            let (t, _) = g.add_thesis_linking(text, 4, Some(&names));
            g.link_theses(&[t]);
        }
        let ranked = |got: &Items| -> Vec<(ThesisId, usize)> {
            got.theses.iter().map(|t| (t.id, t.matched)).collect()
        };
        let got = items(
            &g,
            &[&Q],
            &r,
            &Params::PAPER,
            ItemKinds {
                theses: true,
                episodes: true,
                exclude_step: None,
            },
        );
        // Theses by entities reached: 3, 2, 1; the bed's none.
        assert_eq!(
            ranked(&got),
            [(ThesisId(0), 3), (ThesisId(3), 2), (ThesisId(2), 1)]
        );
        // Episodes (episode 3 now also holds the four theses' entities: fridge,
        // counter, kitchen, bed, hall): 3 holds 4 reached of 6; 1 holds 3 of 4; 2
        // holds 1 of 3.
        assert_eq!(got.episodes, [(2, 4, 6), (0, 3, 4), (1, 1, 3)]);
        // The budgets, and a kind left out.
        let small = Params {
            hyper_triples: 1,
            episodic_triples: 2,
            ..Params::PAPER
        };
        let got = items(
            &g,
            &[&Q],
            &r,
            &small,
            ItemKinds {
                theses: false,
                episodes: true,
                exclude_step: Some(3),
            },
        );
        assert!(got.theses.is_empty());
        assert_eq!(got.episodes, [(0, 3, 4), (1, 1, 3)]);
        let got = items(
            &g,
            &[&Q],
            &r,
            &small,
            ItemKinds {
                theses: true,
                episodes: false,
                exclude_step: None,
            },
        );
        assert_eq!(ranked(&got), [(ThesisId(0), 3)]);
        assert!(got.episodes.is_empty());
        // A retired thesis is not ranked.
        g.retire_thesis(ThesisId(0), 5);
        let got = items(
            &g,
            &[&Q],
            &r,
            &Params::PAPER,
            ItemKinds {
                theses: true,
                episodes: false,
                exclude_step: None,
            },
        );
        assert_eq!(ranked(&got)[0], (ThesisId(3), 2));
    }
}
