//! Conflict-aware coarsening, after AriadneMem ("AriadneMem: Threading the Maze of
//! Lifelong Memory for LLM Agents", Phase I, "Conflict-Aware Coarsening"): when a
//! new entry contradicts an old one, the old one is not overwritten; a directed temporal
//! edge (old -> new) keeps the state transition.
//!
//! In Ariadne a fact retired by outdated-edge replacement (paper section 2) or by a move
//! actually made ([`crate::nav::Explorer::record_move`]) is, with [`Retire::Close`],
//! *closed* instead of deleted: it leaves the semantic layer exactly as a deleted fact
//! does (retrieval, prompts, the spatial map and the outdated check read alive triplets
//! only), and the graph keeps a [`ClosedFact`]: its step interval `[since, until)` and a
//! "superseded by" link to the fact(s) that replaced it. `replay --step N` and
//! `replay --export` show that history, and the world-model accuracy counts a wrongly
//! retired fact kept this way as recoverable ([`crate::judge::Accuracy`]).
//! [`Retire::Delete`] keeps the AriGraph paper's deletion (and no history).

use serde::{Deserialize, Serialize};

use super::ids::TripletId;

/// What happens to a fact that a newer fact retires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Retire {
    /// Removed from the semantic layer, with no trace but the episodic edges that name
    /// it (the AriGraph paper; runs recorded before this setting).
    Delete,
    /// Removed from the semantic layer, and kept in the graph's history with its step
    /// interval and a link to its replacements (AriadneMem, `--retire close`; as first
    /// adapted the agent sees what [`Retire::Delete`] shows it; as the paper runs it the
    /// link is shown where the replacement is retrieved, [`History::changes`]).
    Close,
}

impl Retire {
    /// The name used by the flag and the manifest.
    pub fn as_str(self) -> &'static str {
        match self {
            Retire::Delete => "delete",
            Retire::Close => "close",
        }
    }
}

impl std::str::FromStr for Retire {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "close" => Ok(Retire::Close),
            "delete" => Ok(Retire::Delete),
            _ => Err(format!("unknown retire mode {s:?}; use close or delete")),
        }
    }
}

/// A fact no longer current: the steps it was alive, and what replaced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosedFact {
    /// The triplet (its id in the graph; a revived fact keeps its id, so one id may
    /// have several closed intervals).
    pub id: TripletId,
    /// The step at which it last entered the graph (first seen, or revived), 1-based.
    pub since: u32,
    /// The step at which it was retired: it was current in steps `since..until`
    /// (half-open; `since == until` when a fact came and went within one step).
    pub until: u32,
    /// The triplets that retired it (the directed "superseded by" link), sorted, distinct.
    pub superseded_by: Vec<TripletId>,
}

/// The closed facts of a graph, in the order they were closed.
#[derive(Debug, Clone, Default)]
pub struct History {
    closed: Vec<ClosedFact>,
}

impl History {
    /// Record that `id`, alive since step `since`, was retired at step `until` by
    /// `superseded_by`.
    pub fn close(&mut self, id: TripletId, since: u32, until: u32, superseded_by: &[TripletId]) {
        let mut by: Vec<TripletId> = superseded_by.iter().copied().filter(|b| *b != id).collect();
        by.sort_unstable();
        by.dedup();
        self.closed.push(ClosedFact {
            id,
            since,
            until,
            superseded_by: by,
        });
    }

    /// Every closed fact, oldest closure first.
    pub fn closed(&self) -> &[ClosedFact] {
        &self.closed
    }

    /// Whether `id` has ever been closed (its history is kept).
    pub fn holds(&self, id: TripletId) -> bool {
        self.closed.iter().any(|c| c.id == id)
    }

    /// Whether there is no closed fact.
    pub fn is_empty(&self) -> bool {
        self.closed.is_empty()
    }
}

/// A directed temporal edge as shown to the LLM: a closed fact and the retrieved fact
/// that superseded it (AriadneMem's "meeting at 2 PM -> meeting at 3 PM").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The closed fact, `subject, relation, object`.
    pub from: String,
    /// The fact that superseded it.
    pub to: String,
    /// The first step the closed fact held.
    pub since: u32,
    /// The step it was closed at (it held in `since..until`).
    pub until: u32,
}

impl History {
    /// The temporal edges into `retrieved` (in its order; for each fact its closed
    /// predecessors, the latest closure first), at most `max`; `text` writes a
    /// triplet as `subject, relation, object` (the graph's [`super::Triplet::text`]).
    pub fn changes(
        &self,
        retrieved: impl IntoIterator<Item = TripletId>,
        max: usize,
        text: impl Fn(TripletId) -> String,
    ) -> Vec<Change> {
        let mut out = Vec::new();
        for id in retrieved {
            for c in self.closed.iter().rev() {
                if out.len() == max {
                    return out;
                }
                if c.superseded_by.contains(&id) {
                    out.push(Change {
                        from: text(c.id),
                        to: text(id),
                        since: c.since,
                        until: c.until,
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{AriGraph, Triplet};

    fn t(s: &str, r: &str, o: &str) -> Triplet {
        Triplet::new(s, r, o).unwrap()
    }

    /// Hand values: a key seen in the locker at step 2 and taken at step 5 is closed
    /// with the interval [2, 5) and a link to "key, is in, inventory"; the semantic layer
    /// no longer has it; re-adding it at step 7 and closing it at step 9 gives a second
    /// interval.
    #[test]
    fn a_closed_fact_keeps_its_interval_and_link() {
        let mut g = AriGraph::new();
        g.set_step(2);
        let (old, _) = g.add(t("key", "is in", "locker"));
        g.set_step(5);
        let (new, _) = g.add(t("key", "is in", "inventory"));
        assert!(g.retire(old, Retire::Close, &[new]));
        assert!(!g.is_alive(old));
        assert_eq!(g.alive_ids().collect::<Vec<_>>(), vec![new]);
        assert_eq!(
            g.history().closed(),
            &[ClosedFact {
                id: old,
                since: 2,
                until: 5,
                superseded_by: vec![new],
            }]
        );
        assert!(g.is_closed(&t("key", "is in", "locker")));
        assert!(!g.is_closed(&t("key", "is in", "inventory")));
        assert_eq!(g.since(new), 5);

        g.set_step(7);
        let (again, fresh) = g.add(t("key", "is in", "locker"));
        assert_eq!((again, fresh), (old, true));
        assert_eq!(g.since(old), 7);
        g.set_step(9);
        assert!(g.retire(old, Retire::Close, &[new, new]));
        assert_eq!(g.history().closed().len(), 2);
        assert_eq!(
            (g.history().closed()[1].since, g.history().closed()[1].until),
            (7, 9)
        );
        // Retiring what is not alive does nothing.
        assert!(!g.retire(old, Retire::Close, &[new]));
        assert_eq!(g.history().closed().len(), 2);
    }

    /// `delete` is the paper's deletion: no history.
    #[test]
    fn delete_keeps_no_history() {
        let mut g = AriGraph::new();
        let (old, _) = g.add(t("key", "is in", "locker"));
        let (new, _) = g.add(t("key", "is in", "inventory"));
        assert!(g.retire(old, Retire::Delete, &[new]));
        assert!(g.history().is_empty());
        assert!(!g.is_closed(&t("key", "is in", "locker")));
    }

    /// A run recorded before these settings replays as it was, and a new run follows
    /// the paper unless asked: deletion, no gating, no bridges.
    #[test]
    fn old_runs_delete_and_new_runs_close() {
        let old: crate::memory::MemorySettings = serde_json::from_value(serde_json::json!({
            "depth": 2, "width": 6, "episodes": 2, "max_triplets": 15, "query_chars": 600,
            "outdated_scope": "incident", "hop_scope": "all", "rules": 3
        }))
        .unwrap();
        assert_eq!(
            (old.retire, old.gating, old.bridge),
            (Retire::Delete, false, false)
        );
        let new = crate::memory::MemorySettings::default();
        assert_eq!(
            (new.retire, new.gating, new.bridge),
            (Retire::Delete, false, false)
        );
    }

    #[test]
    fn modes_parse_and_print() {
        for m in [Retire::Close, Retire::Delete] {
            assert_eq!(m.as_str().parse::<Retire>(), Ok(m));
        }
        assert!("keep".parse::<Retire>().is_err());
        assert_eq!(serde_json::to_string(&Retire::Close).unwrap(), "\"close\"");
    }

    /// AriadneMem's merge: a fact stated again is one fact, its timestamp updated; the
    /// step it entered the graph stays.
    #[test]
    fn a_true_duplicate_is_merged_and_its_timestamp_updated() {
        let mut g = AriGraph::new();
        g.set_step(2);
        let (id, fresh) = g.add(t("key", "is in", "locker"));
        assert!(fresh);
        g.set_step(6);
        let (again, fresh) = g.add(t("Key", "is in", "the locker"));
        assert_eq!((again, fresh), (id, false));
        assert_eq!((g.since(id), g.stated(id)), (2, 6));
        assert_eq!(g.edge_count(), 1);
    }
}
