//! `--retrieval mixed`: PersonalAI's mixed algorithm (arXiv:2506.17001, section III.D
//! "Mixed Algorithm"): the union of what A*, WaterCircles and BeamSearch retrieve, so a
//! fact one of them misses may come from another. The order is A*'s triplets, then
//! WaterCircles' new ones, then BeamSearch's new ones; each triplet once, with the depth
//! of the first strategy that found it.

use std::collections::HashSet;

use super::{astar, beam, push_new, water_circles};
use crate::memory::graph::AriGraph;
use crate::memory::retrieval::Retrieved;

/// The union of [`astar::search`], [`water_circles::search`] (over `rings` rings) and
/// [`beam::search`] from the same `seeds`, with the paper's parameters.
pub fn search(g: &AriGraph, query: &[f32], seeds: &[&str], rings: u32) -> Vec<Retrieved> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let parts = [
        astar::search(g, query, seeds, &astar::Params::PAPER),
        water_circles::search(g, query, seeds, rings, &water_circles::Params::PAPER),
        beam::search(g, query, seeds, &beam::Params::PAPER),
    ];
    for r in parts.into_iter().flatten() {
        push_new(&mut out, &mut seen, r);
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
}
