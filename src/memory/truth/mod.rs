//! The agent's world model measured against the game's ground truth.
//!
//! The paper measures only the size of the learned graph (Figure 5): "direct measurement
//! of its correspondence to the true graph is extremely challenging". TextWorld knows the
//! true state of its games, so Ariadne measures it. At each step, with the true facts at
//! the start of the step (what the observation described; [`Fact`], from the bridge,
//! never shown to the LLM) and the things observed so far (entities and rooms named in
//! the observations and inventories up to that step):
//! - **precision**: the share of the graph's alive, verifiable triplets ([`mapping`])
//!   that are true;
//! - **recall**: the share of the true, observed facts ([`mapping::claim_of_fact`]) that
//!   the graph holds;
//! - **wrong deletions**: triplets removed this step (by replacement or navigation)
//!   that were still true;
//! - **recoverable**: of the wrong deletions, those the graph keeps as closed facts
//!   (`--retire close`, [`crate::memory::temporal`]): the history still holds them with
//!   their interval (always 0 under `--retire delete`);
//! - **stale**: alive triplets that were true at an earlier step and are false now.

pub mod mapping;

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

pub use crate::env::Fact;
use crate::memory::names::{entity_key, fold};
use crate::memory::{AriGraph, Triplet};
use mapping::{Claim, claim_of, claim_of_fact};

/// The true claims of one state.
#[derive(Debug, Default)]
pub struct Truth {
    claims: HashSet<Claim>,
    /// (claim, its entities) of every fact the memory could hold, one per fact.
    base: Vec<(Claim, Vec<String>)>,
}

impl Truth {
    /// The truth of a list of facts.
    pub fn new(facts: &[Fact]) -> Self {
        let mut t = Truth::default();
        for f in facts {
            let Some(c) = claim_of_fact(f) else { continue };
            if let Claim::Dir(a, d, b) = &c {
                t.claims
                    .insert(Claim::Dir(b.clone(), d.opposite(), a.clone()));
                t.claims.insert(Claim::HasExit(b.clone(), *d));
                t.claims.insert(Claim::HasExit(a.clone(), d.opposite()));
            }
            let entities = f
                .args
                .iter()
                .filter(|a| *a != "P" && *a != "I")
                .map(|a| entity_key(a))
                .collect();
            t.claims.insert(c.clone());
            t.base.push((c, entities));
        }
        t
    }

    /// Whether a claim is true.
    pub fn holds(&self, c: &Claim) -> bool {
        self.claims.contains(c)
    }

    /// Every entity the facts name.
    pub fn entities(&self) -> impl Iterator<Item = &String> {
        self.base.iter().flat_map(|(_, e)| e.iter())
    }
}

/// One step's accuracy of the world model (a reader tolerates missing counts).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Accuracy {
    /// True alive verifiable triplets / alive verifiable triplets (1 when there are none).
    pub precision: f64,
    /// True observed facts the graph holds / true observed facts (1 when there are none).
    pub recall: f64,
    /// Alive triplets that map to a claim.
    pub verifiable: usize,
    /// Alive triplets that map to no claim.
    pub unverifiable: usize,
    /// Of the verifiable, the true ones.
    pub true_triplets: usize,
    /// True observed facts.
    pub observed_facts: usize,
    /// Of those, the ones the graph holds.
    pub held_facts: usize,
    /// Triplets removed this step that were still true.
    pub wrong_deletions: usize,
    /// Of `wrong_deletions`, those kept as closed facts (`--retire close`).
    pub recoverable: usize,
    /// Alive triplets true at an earlier step and false now.
    pub stale: usize,
}

/// Follows one episode: the things observed so far and the claims once true.
#[derive(Debug, Default)]
pub struct Tracker {
    /// Every text seen so far, folded.
    observed_text: String,
    /// Entities named in a text seen so far.
    observed: HashSet<String>,
    /// Entities the facts have named so far.
    known: HashSet<String>,
    ever_true: HashSet<Claim>,
}

impl Tracker {
    /// Measure the graph after a step against `facts` (the state at the start of the
    /// step), given the texts the agent saw in the step and the triplets it removed.
    pub fn measure(
        &mut self,
        graph: &AriGraph,
        facts: &[Fact],
        seen: &[&str],
        removed: &[Triplet],
    ) -> Accuracy {
        let truth = Truth::new(facts);
        self.observe(&truth, seen);
        let mut a = Accuracy::default();
        let mut held: HashSet<Claim> = HashSet::new();
        for id in graph.alive_ids() {
            match claim_of(graph.triplet(id)) {
                None => a.unverifiable += 1,
                Some(c) => {
                    a.verifiable += 1;
                    if truth.holds(&c) {
                        a.true_triplets += 1;
                        self.ever_true.insert(c.clone());
                    } else if self.ever_true.contains(&c) {
                        a.stale += 1;
                    }
                    held.insert(c);
                }
            }
        }
        for (c, entities) in &truth.base {
            if entities.iter().all(|e| self.observed.contains(e)) {
                a.observed_facts += 1;
                let reverse = match c {
                    Claim::Dir(x, d, y) => Some(Claim::Dir(y.clone(), d.opposite(), x.clone())),
                    _ => None,
                };
                if held.contains(c) || reverse.is_some_and(|r| held.contains(&r)) {
                    a.held_facts += 1;
                }
            }
        }
        for t in removed {
            if claim_of(t).is_some_and(|c| truth.holds(&c)) {
                a.wrong_deletions += 1;
                if graph.is_closed(t) {
                    a.recoverable += 1;
                }
            }
        }
        a.precision = ratio(a.true_triplets, a.verifiable);
        a.recall = ratio(a.held_facts, a.observed_facts);
        a
    }

    /// Take in the texts of a step: an entity is observed once a text names it. Only
    /// the new texts are searched, except for an entity the facts name for the first
    /// time, which is looked for in everything seen so far.
    fn observe(&mut self, truth: &Truth, seen: &[&str]) {
        let new: Vec<String> = seen.iter().map(|s| fold(s)).collect();
        for e in truth.entities() {
            if self.observed.contains(e) {
                continue;
            }
            let first_time = self.known.insert(e.clone());
            if new.iter().any(|t| t.contains(e.as_str()))
                || (first_time && self.observed_text.contains(e.as_str()))
            {
                self.observed.insert(e.clone());
            }
        }
        for t in new {
            self.observed_text.push(' ');
            self.observed_text.push_str(&t);
        }
    }

    /// The true, observed facts as triplets (the oracle memory's semantic layer).
    pub fn observed_truth(&mut self, facts: &[Fact], seen: &[&str]) -> Vec<Triplet> {
        let truth = Truth::new(facts);
        self.observe(&truth, seen);
        truth
            .base
            .iter()
            .filter(|(_, es)| es.iter().all(|e| self.observed.contains(e)))
            .filter_map(|(c, _)| mapping::triplet_of(c))
            .collect()
    }
}

fn ratio(n: usize, d: usize) -> f64 {
    if d == 0 { 1.0 } else { n as f64 / d as f64 }
}

/// The world model over a whole episode, for the summary and the bench.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorldModelSummary {
    /// Steps measured.
    pub steps: u32,
    /// Mean precision over the steps.
    pub mean_precision: f64,
    /// Mean recall over the steps.
    pub mean_recall: f64,
    /// Precision at the last step.
    pub final_precision: f64,
    /// Recall at the last step.
    pub final_recall: f64,
    /// Wrong deletions, summed.
    pub wrong_deletions: u64,
    /// Of those, the ones kept as closed facts (`--retire close`), summed (0 in runs
    /// recorded before it was counted).
    #[serde(default)]
    pub recoverable: u64,
    /// Stale triplets at the last step.
    pub final_stale: usize,
}

impl WorldModelSummary {
    /// Add a step's accuracy.
    pub fn add(&mut self, a: &Accuracy) {
        let n = f64::from(self.steps);
        self.mean_precision = (self.mean_precision * n + a.precision) / (n + 1.0);
        self.mean_recall = (self.mean_recall * n + a.recall) / (n + 1.0);
        self.steps += 1;
        self.final_precision = a.precision;
        self.final_recall = a.recall;
        self.wrong_deletions += a.wrong_deletions as u64;
        self.recoverable += a.recoverable as u64;
        self.final_stale = a.stale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(p: &str, args: &[&str]) -> Fact {
        Fact {
            predicate: p.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn t(s: &str, r: &str, o: &str) -> Triplet {
        Triplet::new(s, r, o).unwrap()
    }

    /// Hand values: 3 verifiable triplets of which 2 true, 1 unverifiable; 4 observed
    /// true facts of which 2 held; one true triplet wrongly deleted; then a change of
    /// state makes a once-true triplet stale.
    #[test]
    fn precision_recall_wrong_deletions_and_stale_by_hand() {
        let facts = vec![
            f("at", &["P", "bedroom"]),
            f("at", &["antique trunk", "bedroom"]),
            f("closed", &["antique trunk"]),
            f("in", &["old key", "antique trunk"]),
            f("east_of", &["kitchen", "bedroom"]),
        ];
        let mut g = AriGraph::new();
        g.add(t("antique trunk", "is in", "bedroom")); // true
        g.add(t("antique trunk", "is", "closed")); // true
        g.add(t("antique trunk", "is", "open")); // false
        g.add(t("recipe", "requires", "apple")); // unverifiable
        let mut tracker = Tracker::default();
        let seen = ["-= Bedroom =- You see a closed antique trunk."];
        // "old key" and "kitchen" are not observed: 3 observed facts (player at bedroom,
        // trunk at bedroom, trunk closed), 2 held.
        let removed = vec![t("player", "is in", "bedroom")];
        let a = tracker.measure(&g, &facts, &seen, &removed);
        assert_eq!((a.verifiable, a.true_triplets, a.unverifiable), (3, 2, 1));
        assert!((a.precision - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!((a.observed_facts, a.held_facts), (3, 2));
        assert!((a.recall - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(a.wrong_deletions, 1);
        assert_eq!(a.recoverable, 0);
        assert_eq!(a.stale, 0);

        // The trunk is opened; the graph still says closed: stale.
        let facts2: Vec<Fact> = facts
            .iter()
            .map(|x| {
                if x.predicate == "closed" {
                    f("open", &["antique trunk"])
                } else {
                    x.clone()
                }
            })
            .collect();
        let b = tracker.measure(
            &g,
            &facts2,
            &["You open the antique trunk, revealing an old key."],
            &[],
        );
        assert_eq!(b.stale, 1);
        assert_eq!(b.true_triplets, 2); // in bedroom, open
        // The key is observed now: in(old key, trunk) is observed and not held.
        assert_eq!((b.observed_facts, b.held_facts), (4, 2));
    }

    #[test]
    fn facts_serialize_as_arrays() {
        let x = f("in", &["old key", "I"]);
        let v = serde_json::to_value(&x).unwrap();
        assert_eq!(v, serde_json::json!(["in", "old key", "I"]));
        assert_eq!(serde_json::from_value::<Fact>(v).unwrap(), x);
    }

    /// A true fact wrongly retired is a wrong deletion either way; closed
    /// (`--retire close`) it is also recoverable, deleted it is not.
    #[test]
    fn a_wrongly_closed_fact_is_recoverable() {
        use crate::memory::Retire;
        let facts = vec![
            f("at", &["P", "bedroom"]),
            f("at", &["antique trunk", "bedroom"]),
        ];
        let seen = ["-= Bedroom =- An antique trunk."];
        for (mode, recoverable) in [(Retire::Close, 1), (Retire::Delete, 0)] {
            let mut g = AriGraph::new();
            let (old, _) = g.add(t("antique trunk", "is in", "bedroom"));
            let (new, _) = g.add(t("antique trunk", "is in", "kitchen"));
            g.retire(old, mode, &[new]);
            let removed = vec![t("antique trunk", "is in", "bedroom")];
            let a = Tracker::default().measure(&g, &facts, &seen, &removed);
            assert_eq!(
                (a.wrong_deletions, a.recoverable),
                (1, recoverable),
                "{mode:?}"
            );
            let mut s = WorldModelSummary::default();
            s.add(&a);
            assert_eq!(s.recoverable, recoverable as u64);
        }
    }
}
