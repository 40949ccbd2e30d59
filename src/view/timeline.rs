//! The semantic graph of a run, step by step, rebuilt from the trajectory alone: every
//! triplet that was ever in the graph, with the steps it was alive, and for each step
//! the triplets added, removed and retrieved there, and the episodic vertex it made.
//!
//! A step's `memory.added` lists triplets that were new to the graph when added, and
//! `memory.removed` triplets that were in it when removed (the outdated check first,
//! then navigation's stale moves). A triplet in both lists of one step therefore
//! alternated: alive before and listed in both, it was removed and added back; not
//! alive before, it was added and then removed. Every mention flips its state, so the
//! state after the step is the state before, flipped once per mention.

use std::collections::HashMap;

use crate::memory::Triplet;
use crate::trajectory::StepRecord;

/// One distinct triplet of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineTriplet {
    /// Index of the subject in [`Timeline::vertices`].
    pub subject: usize,
    /// The relation.
    pub relation: String,
    /// Index of the object in [`Timeline::vertices`].
    pub object: usize,
    /// `subject, relation, object`.
    pub text: String,
    /// Steps it was alive: `(from, until)`, alive after step `from` up to, not
    /// including, step `until` (`None`: still alive at the end).
    pub alive: Vec<(u32, Option<u32>)>,
}

impl TimelineTriplet {
    /// Whether it was in the graph after step `step`.
    pub fn alive_at(&self, step: u32) -> bool {
        self.alive
            .iter()
            .any(|&(from, until)| from <= step && until.is_none_or(|u| step < u))
    }
}

/// What one step did to the graph, as indices into [`Timeline::triplets`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepChanges {
    /// The step number.
    pub step: u32,
    /// Triplets added at this step (and alive after it).
    pub added: Vec<usize>,
    /// Triplets removed at this step (and not alive after it).
    pub removed: Vec<usize>,
    /// Retrieved triplets found in the graph.
    pub retrieved: Vec<usize>,
    /// Retrieved triplets whose text names no triplet of the run (kept as text).
    pub unresolved: Vec<String>,
    /// Triplets alive after the step, as rebuilt.
    pub alive: usize,
    /// The episodic vertex the step added: the triplets extracted at it.
    pub episode: Option<Vec<usize>>,
}

/// The run's graph over time.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Every semantic vertex that was ever in the graph, in order of first appearance.
    pub vertices: Vec<String>,
    /// Every distinct triplet, in order of first appearance.
    pub triplets: Vec<TimelineTriplet>,
    /// One entry per step record, in order.
    pub steps: Vec<StepChanges>,
}

/// Interning of vertices and triplets while the timeline is built.
#[derive(Default)]
struct Builder {
    timeline: Timeline,
    vertex_ids: HashMap<String, usize>,
    triplet_ids: HashMap<String, usize>,
}

impl Builder {
    fn vertex(&mut self, name: &str) -> usize {
        if let Some(&id) = self.vertex_ids.get(name) {
            return id;
        }
        let id = self.timeline.vertices.len();
        self.timeline.vertices.push(name.to_string());
        self.vertex_ids.insert(name.to_string(), id);
        id
    }

    fn triplet(&mut self, t: &Triplet) -> usize {
        let text = t.text();
        if let Some(&id) = self.triplet_ids.get(&text) {
            return id;
        }
        let subject = self.vertex(&t.subject);
        let object = self.vertex(&t.object);
        let id = self.timeline.triplets.len();
        self.timeline.triplets.push(TimelineTriplet {
            subject,
            relation: t.relation.clone(),
            object,
            text: text.clone(),
            alive: Vec::new(),
        });
        self.triplet_ids.insert(text, id);
        id
    }
}

impl Timeline {
    /// Rebuild the graph of a run from its step records.
    pub fn build(records: &[StepRecord]) -> Self {
        let mut b = Builder::default();
        let mut alive: Vec<bool> = Vec::new();
        let mut alive_count = 0usize;
        let mut episodes_before = 0usize;
        for r in records {
            let mut mentions: Vec<(usize, u32)> = Vec::new();
            for t in r.memory.removed.iter().chain(&r.memory.added) {
                let id = b.triplet(t);
                match mentions.iter_mut().find(|(m, _)| *m == id) {
                    Some((_, n)) => *n += 1,
                    None => mentions.push((id, 1)),
                }
            }
            alive.resize(b.timeline.triplets.len(), false);
            let mut changes = StepChanges {
                step: r.step,
                ..StepChanges::default()
            };
            let added_texts: Vec<String> = r.memory.added.iter().map(Triplet::text).collect();
            for (id, n) in mentions {
                let before = alive[id];
                let after = before ^ (n % 2 == 1);
                let in_added = added_texts.contains(&b.timeline.triplets[id].text);
                let spans = &mut b.timeline.triplets[id].alive;
                match (before, after) {
                    (false, true) => {
                        spans.push((r.step, None));
                        alive_count += 1;
                    }
                    (true, false) => {
                        if let Some(last) = spans.last_mut() {
                            last.1 = Some(r.step);
                        }
                        alive_count -= 1;
                    }
                    _ => {}
                }
                alive[id] = after;
                if after && in_added {
                    changes.added.push(id);
                } else if !after {
                    changes.removed.push(id);
                }
            }
            for rt in &r.retrieval.triplets {
                match b.triplet_ids.get(&rt.triplet) {
                    Some(&id) if !changes.retrieved.contains(&id) => changes.retrieved.push(id),
                    Some(_) => {}
                    None => changes.unresolved.push(rt.triplet.clone()),
                }
            }
            changes.alive = alive_count;
            if r.graph.episodic_vertices > episodes_before {
                changes.episode = Some(
                    r.memory
                        .extracted
                        .iter()
                        .filter_map(|t| b.triplet_ids.get(&t.text()).copied())
                        .collect(),
                );
            }
            episodes_before = r.graph.episodic_vertices;
            b.timeline.steps.push(changes);
        }
        b.timeline
    }

    /// Indices of the triplets alive after step `step`.
    pub fn alive_at(&self, step: u32) -> Vec<usize> {
        (0..self.triplets.len())
            .filter(|&i| self.triplets[i].alive_at(step))
            .collect()
    }

    /// Unique undirected vertex pairs joined by a triplet (self-loops left out).
    pub fn vertex_pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs: Vec<(usize, usize)> = self
            .triplets
            .iter()
            .filter(|t| t.subject != t.object)
            .map(|t| (t.subject.min(t.object), t.subject.max(t.object)))
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{RetrievedTriplet, UpdateReport};
    use crate::trajectory::GraphStats;

    fn t(s: &str, r: &str, o: &str) -> Triplet {
        Triplet {
            subject: s.into(),
            relation: r.into(),
            object: o.into(),
        }
    }

    fn record(
        step: u32,
        added: Vec<Triplet>,
        removed: Vec<Triplet>,
        episodes: usize,
    ) -> StepRecord {
        let line = serde_json::json!({
            "step": step, "room": null, "observation": "", "inventory": "",
            "admissible_commands": [], "memory": {"extracted": [], "added": [], "removed": [], "checked": 0},
            "retrieval": {"queries": [], "triplets": [], "episodes": []}, "plan": [],
            "warnings": [], "rationale": "", "action": "", "action_source": "llm",
            "feedback": "", "reward": 0, "score": 0, "max_score": 1, "done": false,
            "won": false, "lost": false, "llm_calls": [], "embedding_calls": [],
            "llm_failures": 0, "llm_repairs": 0,
            "usage": {"prompt_tokens": 0, "completion_tokens": 0},
            "graph": {"semantic_vertices": 0, "semantic_edges": 0, "episodic_vertices": 0},
            "timings": {"total_ms": 0, "llm_ms": 0, "env_ms": 0, "agent_ms": 0}
        });
        let mut r: StepRecord = serde_json::from_value(line).expect("a valid step line");
        r.memory = UpdateReport {
            extracted: added.clone(),
            added,
            removed,
            ..UpdateReport::default()
        };
        r.graph = GraphStats {
            episodic_vertices: episodes,
            ..GraphStats::default()
        };
        r
    }

    #[test]
    fn alive_spans_follow_additions_and_removals() {
        let closed = t("door", "is", "closed");
        let open = t("door", "is", "open");
        let key = t("key", "is in", "inventory");
        let mut r3 = record(3, vec![], vec![], 2);
        r3.retrieval.triplets = vec![
            RetrievedTriplet {
                triplet: "door, is, open".into(),
                depth: 0,
                similarity: 0.9,
                ..Default::default()
            },
            RetrievedTriplet {
                triplet: "ghost, is, nowhere".into(),
                depth: 1,
                similarity: 0.1,
                ..Default::default()
            },
        ];
        let records = vec![
            record(1, vec![closed.clone(), key.clone()], vec![], 1),
            record(2, vec![open.clone()], vec![closed.clone()], 2),
            r3,
        ];
        let tl = Timeline::build(&records);
        assert_eq!(tl.vertices, ["door", "closed", "key", "inventory", "open"]);
        assert_eq!(tl.triplets[0].alive, vec![(1, Some(2))]);
        assert_eq!(tl.alive_at(1), vec![0, 1]);
        assert_eq!(tl.alive_at(2), vec![1, 2]);
        assert_eq!(tl.steps[1].added, vec![2]);
        assert_eq!(tl.steps[1].removed, vec![0]);
        assert_eq!(tl.steps[1].alive, 2);
        assert_eq!(tl.steps[2].retrieved, vec![2]);
        assert_eq!(
            tl.steps[2].unresolved,
            vec!["ghost, is, nowhere".to_string()]
        );
        assert_eq!(tl.steps[0].episode, Some(vec![0, 1]));
        assert_eq!(
            tl.steps[2].episode, None,
            "no episodic vertex was added at step 3"
        );
        assert_eq!(tl.vertex_pairs(), vec![(0, 1), (0, 4), (2, 3)]);
    }

    #[test]
    fn a_triplet_in_both_lists_of_a_step_flips_twice() {
        let a = t("kitchen", "is east of", "hall");
        // Step 2 removes it as outdated and navigation adds it back; step 3 adds
        // another one that navigation then removes as stale.
        let b = t("garden", "is north of", "hall");
        let records = vec![
            record(1, vec![a.clone()], vec![], 0),
            record(2, vec![a.clone()], vec![a.clone()], 0),
            record(3, vec![b.clone()], vec![b.clone()], 0),
        ];
        let tl = Timeline::build(&records);
        assert!(tl.triplets[0].alive_at(2), "removed and added back: alive");
        assert_eq!(tl.steps[1].added, vec![0]);
        assert!(!tl.triplets[1].alive_at(3), "added then removed: dead");
        assert_eq!(tl.steps[2].removed, vec![1]);
        assert_eq!(tl.steps[2].alive, 1);
    }
}
