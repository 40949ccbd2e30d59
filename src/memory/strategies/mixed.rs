//! `--retrieval mixed`: PersonalAI's mixed algorithm (arXiv:2506.17001, section III.D
//! "Mixed Algorithm"): the union of what A*, WaterCircles and BeamSearch retrieve, so a
//! fact one of them misses may come from another. The order is A*'s triplets, then
//! WaterCircles' new ones, then BeamSearch's new ones; each triplet once, with the depth
//! of the first strategy that found it.
//!
//! The paper's pairwise hybrids (section IV, "the hybrids WC + BS, A* + BS and A* + WC")
//! are unions of two in the order they are named (`--retrieval water-circles+beam`,
//! `astar+beam`, `astar+water-circles`); the paper gives no other rule for combining
//! them, so they combine as the mixed algorithm does. Each part runs with its own
//! parameters (Appendix E), and the union then passes the one triplet filter of
//! [`super::filter`].

use std::collections::HashSet;

use super::{Strategy, astar, beam, push_new, water_circles};
use crate::memory::graph::AriGraph;
use crate::memory::retrieval::Retrieved;

/// The union of [`astar::search`], [`water_circles::search`] (over `rings` rings) and
/// [`beam::search`] from the same `seeds`, with the paper's parameters.
pub fn search(g: &AriGraph, query: &[f32], seeds: &[&str], rings: u32) -> Vec<Retrieved> {
    union(
        g,
        query,
        seeds,
        rings,
        Strategy::Mixed.parts().unwrap_or(&[]),
    )
}

/// The union of the single strategies `parts` from the same `seeds`, in that order,
/// each with the paper's parameters (WaterCircles over `rings` rings); each triplet
/// once, with the depth of the first part that found it. A part that is itself a union
/// or `bfs` contributes nothing (the unions are of PersonalAI's traversals only).
pub fn union(
    g: &AriGraph,
    query: &[f32],
    seeds: &[&str],
    rings: u32,
    parts: &[Strategy],
) -> Vec<Retrieved> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for part in parts {
        let found = match part {
            Strategy::Astar => astar::search(g, query, seeds, &astar::Params::PAPER),
            Strategy::WaterCircles => {
                water_circles::search(g, query, seeds, rings, &water_circles::Params::PAPER)
            }
            Strategy::Beam => beam::search(g, query, seeds, &beam::Params::PAPER),
            _ => Vec::new(),
        };
        for r in found {
            push_new(&mut out, &mut seen, r);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::strategies::fixture::{house, texts};

    #[test]
    fn mixed_is_the_union_in_strategy_order() {
        let g = house();
        let q = [1.0, 0.0, 0.0];
        // A* from hall to bed: hall-bedroom, bedroom-bed. WaterCircles (one ring): the
        // circles of hall and bed do not meet; hall's gives kitchen-hall and key-hall
        // anew. BeamSearch from hall adds its paths hall-kitchen-counter-knife and
        // hall-kitchen-fridge-apple.
        let seeds = ["hall", "bed"];
        let got = search(&g, &q, &seeds, 1);
        assert_eq!(
            texts(&g, &got),
            [
                "bedroom, is north of, hall",
                "bed, is in, bedroom",
                "kitchen, is west of, hall",
                "key, is in, hall",
                "counter, is in, kitchen",
                "knife, is on, counter",
                "fridge, is in, kitchen",
                "apple, is in, fridge",
            ]
        );
        let mut union = Vec::new();
        let mut seen = HashSet::new();
        for part in [
            astar::search(&g, &q, &seeds, &astar::Params::PAPER),
            water_circles::search(&g, &q, &seeds, 1, &water_circles::Params::PAPER),
            beam::search(&g, &q, &seeds, &beam::Params::PAPER),
        ] {
            for r in part {
                push_new(&mut union, &mut seen, r);
            }
        }
        assert_eq!(got, union);
        assert_eq!(search(&g, &q, &seeds, 1), got, "deterministic");
    }

    /// The paper's pairwise hybrids are unions of two, in the order they are named.
    #[test]
    fn pairwise_hybrids_are_unions_in_name_order() {
        let g = house();
        let q = [1.0, 0.0, 0.0];
        let seeds = ["hall", "bed"];
        let run = |s: Strategy| texts(&g, &union(&g, &q, &seeds, 1, s.parts().unwrap()));
        // A* + WC: A*'s path hall-bedroom-bed, then the new triplets of hall's ring.
        assert_eq!(
            run(Strategy::AstarWaterCircles),
            [
                "bedroom, is north of, hall",
                "bed, is in, bedroom",
                "kitchen, is west of, hall",
                "key, is in, hall",
            ]
        );
        // A* + BS: A*'s path, then BeamSearch's paths from hall through the kitchen,
        // then bed's path on through the hall to the key (in the mixed union the key
        // came earlier, from WaterCircles).
        assert_eq!(
            run(Strategy::AstarBeam),
            [
                "bedroom, is north of, hall",
                "bed, is in, bedroom",
                "kitchen, is west of, hall",
                "counter, is in, kitchen",
                "knife, is on, counter",
                "fridge, is in, kitchen",
                "apple, is in, fridge",
                "key, is in, hall",
            ]
        );
        // WC + BS: WaterCircles first, so the key (on no beam path) comes before the
        // kitchen's contents, and A*'s order no longer leads.
        let wc_bs = run(Strategy::WaterCirclesBeam);
        let wc = texts(
            &g,
            &water_circles::search(&g, &q, &seeds, 1, &water_circles::Params::PAPER),
        );
        assert_eq!(wc_bs[..wc.len()], wc[..]);
        assert_eq!(
            wc_bs[wc.len()..],
            [
                "counter, is in, kitchen",
                "knife, is on, counter",
                "fridge, is in, kitchen",
                "apple, is in, fridge",
            ]
        );
        assert!(wc.contains(&"key, is in, hall".to_string()));
        // Every hybrid is a subset of the mixed algorithm's union.
        let mixed = texts(&g, &search(&g, &q, &seeds, 1));
        for s in [
            Strategy::WaterCirclesBeam,
            Strategy::AstarBeam,
            Strategy::AstarWaterCircles,
        ] {
            assert!(run(s).iter().all(|t| mixed.contains(t)), "{s}");
        }
    }
}
