//! The agent's world model measured against the game's ground truth.
//!
//! The paper measures only the size of the learned graph (Figure 5): "direct measurement
//! of its correspondence to the true graph is extremely challenging". TextWorld knows the
//! true state of its games, so Ariadne measures it. At each step, with the true facts at
//! the start of the step (what the observation described; [`Fact`], from the bridge,
//! never shown to the LLM) and the texts seen so far:
//! - **precision**: the share of the graph's alive, verifiable triplets ([`mapping`])
//!   that are true (how a triplet is judged: [`Truth`]); 1.0 by convention on a graph
//!   with none, and such steps are left out of the episode's mean
//!   ([`WorldModelSummary::precision_steps`]);
//! - **recall** (named recall): the share of the true facts about things named in the
//!   texts so far ([`Truth::recall_facts`]) that the graph holds;
//! - **stated recall**: the share of the true facts the texts so far actually stated
//!   ([`stated`]) that the graph holds: a perfect reader reaches 1;
//! - **wrong deletions**: triplets removed this step (by replacement or navigation)
//!   that were still true;
//! - **recoverable**: of the wrong deletions, those the graph keeps as closed facts
//!   (`--retire close`, [`crate::memory::temporal`]): the history still holds them with
//!   their interval (always 0 under `--retire delete`);
//! - **stale**: alive triplets that were true at an earlier step and are false now.
//!
//! The judge is versioned ([`JUDGE`], recorded in the summary): 1, the game's facts
//! as they are (a locked door is not closed, `unlocked` unverifiable, a connection
//! counted in both directions, named recall only); 2, TextWorld's state implications,
//! negations, one count per connection, stated recall; 3, plural and person forms of
//! the relations (`are in`, `am at`, `have`: [`mapping::singular`]), which judge 2
//! counted as unverifiable.
//!
//! The judge is evaluation, not memory: it reads the graph a memory built and the facts
//! the game gives. The oracle memory ([`oracle`]) is the one memory design that reads the
//! judge's table, its semantic layer being the truth itself.

pub mod mapping;
pub mod oracle;
pub mod stated;

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

pub use crate::env::Fact;
use crate::memory::names::{entity_key, fold};
use crate::memory::{AriGraph, Triplet};
use mapping::{Claim, DECIDES, Family, UNLOCKED, claim_of, claim_of_fact};

/// The version of the judge new figures are computed by (see the module documentation).
pub const JUDGE: u32 = 3;

fn judge_before_versions() -> u32 {
    1
}

/// The true claims of one state.
///
/// A triplet's claim is judged in TextWorld's closed world:
/// - **true** when the game's facts state it, or imply it: a locked thing is closed; a
///   thing with an open, closed or locked state that is not locked is unlocked; `a` east
///   of `b` is `b` west of `a`, and both rooms have an exit that way;
/// - **true** for a negation (`x, is not, s`) when `x` is a thing the facts name and
///   `x, is, s` is not true;
/// - **false** otherwise (a state, place or connection the game does not hold);
/// - **unverifiable** when the triplet maps to no claim ([`mapping::claim_of`]), or
///   to a claim of a family the facts do not decide (a fact `["decides", "location"]`
///   leads a Jericho game's object tree: its states and connections are unknown).
#[derive(Debug, Default)]
pub struct Truth {
    claims: HashSet<Claim>,
    /// The families the facts decide; `None`: all (TextWorld's closed world).
    decided: Option<HashSet<Family>>,
    /// Every thing and room the facts name (entity keys).
    named: HashSet<String>,
    /// (claim, its entities) of every fact the memory could hold, one per fact.
    base: Vec<(Claim, Vec<String>)>,
}

impl Truth {
    /// The truth of a list of facts.
    pub fn new(facts: &[Fact]) -> Self {
        let mut t = Truth::default();
        let mut stateful: HashSet<String> = HashSet::new();
        for f in facts {
            if f.predicate == DECIDES {
                t.decided
                    .get_or_insert_with(HashSet::new)
                    .extend(f.args.iter().filter_map(|a| Family::parse(a)));
                continue;
            }
            let Some(c) = claim_of_fact(f) else { continue };
            // A fact no triplet can state (a thing in a room of its own name, as Zork's
            // altar in the Altar: a name-keyed graph has one vertex for both) is left
            // out, as a fact of no family the memory holds.
            if mapping::triplet_of(&c).is_none() {
                continue;
            }
            match &c {
                Claim::Dir(a, d, b) => {
                    t.claims
                        .insert(Claim::Dir(b.clone(), d.opposite(), a.clone()));
                    t.claims.insert(Claim::HasExit(b.clone(), *d));
                    t.claims.insert(Claim::HasExit(a.clone(), d.opposite()));
                }
                Claim::State(x, s) if matches!(s.as_str(), "open" | "closed" | "locked") => {
                    stateful.insert(x.clone());
                }
                _ => {}
            }
            let entities: Vec<String> = f
                .args
                .iter()
                .filter(|a| *a != "P" && *a != "I")
                .map(|a| entity_key(a))
                .collect();
            t.named.extend(entities.iter().cloned());
            t.claims.insert(c.clone());
            t.base.push((c, entities));
        }
        for x in stateful {
            if t.claims.contains(&Claim::State(x.clone(), "locked".into())) {
                t.claims.insert(Claim::State(x, "closed".into()));
            } else {
                t.claims.insert(Claim::State(x, UNLOCKED.into()));
            }
        }
        t
    }

    /// Whether the facts decide a claim's family (see [`Truth`]).
    pub fn decides(&self, c: &Claim) -> bool {
        self.decided
            .as_ref()
            .is_none_or(|families| families.contains(&c.family()))
    }

    /// Whether a claim is true (see [`Truth`]).
    pub fn holds(&self, c: &Claim) -> bool {
        match c {
            Claim::NotState(x, s) => {
                self.named.contains(x) && !self.claims.contains(&Claim::State(x.clone(), s.clone()))
            }
            _ => self.claims.contains(c),
        }
    }

    /// Every entity the facts name.
    pub fn entities(&self) -> impl Iterator<Item = &String> {
        self.base.iter().flat_map(|(_, e)| e.iter())
    }

    /// The facts recall is counted over, with their entities: one per game fact, a
    /// connection once (not again as its reverse), and a locked thing's implied
    /// `closed` beside its `locked`.
    pub fn recall_facts(&self) -> Vec<(Claim, &[String])> {
        let mut out: Vec<(Claim, &[String])> = Vec::new();
        let mut seen: HashSet<&Claim> = HashSet::new();
        for (c, es) in &self.base {
            if let Claim::Dir(a, d, b) = c
                && seen.contains(&Claim::Dir(b.clone(), d.opposite(), a.clone()))
            {
                continue;
            }
            if !seen.insert(c) {
                continue;
            }
            out.push((c.clone(), es));
            if let Claim::State(x, s) = c
                && s == "locked"
            {
                out.push((Claim::State(x.clone(), "closed".into()), es));
            }
        }
        out
    }
}

/// One step's accuracy of the world model (a reader tolerates missing counts).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Accuracy {
    /// True alive verifiable triplets / alive verifiable triplets (1 when there are none).
    pub precision: f64,
    /// Named recall: true facts about named things the graph holds / true facts about
    /// named things (1 when there are none).
    pub recall: f64,
    /// Stated recall: true facts the texts stated that the graph holds / true facts the
    /// texts stated (1 when there are none); absent in runs judged before judge 2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stated_recall: Option<f64>,
    /// Alive triplets that map to a claim.
    pub verifiable: usize,
    /// Alive triplets that map to no claim.
    pub unverifiable: usize,
    /// Of the verifiable, the true ones.
    pub true_triplets: usize,
    /// True facts about named things.
    pub observed_facts: usize,
    /// Of those, the ones the graph holds.
    pub held_facts: usize,
    /// True facts the texts stated.
    pub stated_facts: usize,
    /// Of those, the ones the graph holds.
    pub held_stated: usize,
    /// Triplets removed this step that were still true.
    pub wrong_deletions: usize,
    /// Of `wrong_deletions`, those kept as closed facts (`--retire close`).
    pub recoverable: usize,
    /// Alive triplets true at an earlier step and false now.
    pub stale: usize,
}

/// Follows one episode: the things observed so far, the facts stated so far and the
/// claims once true.
#[derive(Debug, Default)]
pub struct Tracker {
    /// Every text seen so far, folded.
    observed_text: String,
    /// Entities named in a text seen so far.
    observed: HashSet<String>,
    /// Entities the facts have named so far.
    known: HashSet<String>,
    ever_true: HashSet<Claim>,
    stated: stated::Stated,
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
        let recall_facts = truth.recall_facts();
        self.stated.read(&recall_facts, seen);
        let mut a = Accuracy::default();
        let mut held: HashSet<Claim> = HashSet::new();
        for id in graph.alive_ids() {
            match claim_of(graph.triplet(id)).filter(|c| truth.decides(c)) {
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
        // The graph holds a fact when it holds it, its reverse (a connection), or a
        // fact that implies it (a locked thing is closed).
        let holds = |c: &Claim| {
            let implied = match c {
                Claim::Dir(x, d, y) => Some(Claim::Dir(y.clone(), d.opposite(), x.clone())),
                Claim::State(x, s) if s == "closed" => {
                    Some(Claim::State(x.clone(), "locked".into()))
                }
                _ => None,
            };
            held.contains(c) || implied.is_some_and(|r| held.contains(&r))
        };
        for (c, entities) in &recall_facts {
            if entities.iter().all(|e| self.observed.contains(e)) {
                a.observed_facts += 1;
                if holds(c) {
                    a.held_facts += 1;
                }
            }
            if self.stated.contains(c) {
                a.stated_facts += 1;
                if holds(c) {
                    a.held_stated += 1;
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
        a.stated_recall = Some(ratio(a.held_stated, a.stated_facts));
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorldModelSummary {
    /// The judge's version ([`JUDGE`]; 1 in runs recorded before it was recorded).
    #[serde(default = "judge_before_versions")]
    pub judge: u32,
    /// Steps measured.
    pub steps: u32,
    /// Mean precision over the steps whose graph held a verifiable triplet (a step's
    /// precision is 1.0 by convention when there is none: nothing to be wrong about,
    /// and nothing to average); 0.0 when no step did ([`Self::precision_steps`]).
    pub mean_precision: f64,
    /// Steps whose graph held a verifiable triplet, over which the mean precision is
    /// taken. Absent in summaries written before it: every step was counted, the
    /// vacuous 1.0s too (`ariadne replay RUN --accuracy` recomputes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision_steps: Option<u32>,
    /// Mean named recall over the steps.
    pub mean_recall: f64,
    /// Mean stated recall over the steps (absent before judge 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_stated_recall: Option<f64>,
    /// Precision at the last step.
    pub final_precision: f64,
    /// Named recall at the last step.
    pub final_recall: f64,
    /// Stated recall at the last step (absent before judge 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_stated_recall: Option<f64>,
    /// Wrong deletions, summed.
    pub wrong_deletions: u64,
    /// Of those, the ones kept as closed facts (`--retire close`), summed (0 in runs
    /// recorded before it was counted).
    #[serde(default)]
    pub recoverable: u64,
    /// Stale triplets at the last step.
    pub final_stale: usize,
}

impl Default for WorldModelSummary {
    fn default() -> Self {
        Self {
            judge: JUDGE,
            steps: 0,
            mean_precision: 0.0,
            precision_steps: Some(0),
            mean_recall: 0.0,
            mean_stated_recall: None,
            final_precision: 0.0,
            final_recall: 0.0,
            final_stated_recall: None,
            wrong_deletions: 0,
            recoverable: 0,
            final_stale: 0,
        }
    }
}

impl WorldModelSummary {
    /// The mean precision, `None` when no step's graph held a verifiable triplet (so
    /// there was nothing to be precise about).
    pub fn precision(&self) -> Option<f64> {
        (self.precision_steps != Some(0)).then_some(self.mean_precision)
    }

    /// Add a step's accuracy.
    pub fn add(&mut self, a: &Accuracy) {
        let n = f64::from(self.steps);
        if a.verifiable > 0 {
            let k = self.precision_steps.unwrap_or(self.steps);
            self.mean_precision =
                (self.mean_precision * f64::from(k) + a.precision) / f64::from(k + 1);
            self.precision_steps = Some(k + 1);
        }
        self.mean_recall = (self.mean_recall * n + a.recall) / (n + 1.0);
        if let Some(r) = a.stated_recall {
            let m = self.mean_stated_recall.unwrap_or(0.0);
            self.mean_stated_recall = Some((m * n + r) / (n + 1.0));
        }
        self.steps += 1;
        self.final_precision = a.precision;
        self.final_recall = a.recall;
        self.final_stated_recall = a.stated_recall;
        self.wrong_deletions += a.wrong_deletions as u64;
        self.recoverable += a.recoverable as u64;
        self.final_stale = a.stale;
    }
}

#[cfg(test)]
mod tests;
