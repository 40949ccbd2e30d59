//! The AriGraph memory graph G = (Vs, Es, Ve, Ee) of paper section 2 (Figure 2A), as
//! data; its retrieval (Algorithms 1-2, Eq. 1) is in [`super::retrieval`].
//!
//! - Semantic vertices `Vs` are object names; semantic edges `Es` are triplets
//!   (subject, relation, object). A triplet has a stable id for the life of the graph:
//!   removing an outdated triplet marks it dead, and re-adding it revives the same id,
//!   so episodic edges keep pointing at the right facts.
//! - Episodic vertices `Ve` hold the raw observation of each step; the episodic edge of
//!   step t is the set of triplets extracted at step t (a hyperedge).
//! - Embeddings of triplets (as passages) and of vertices (as queries) are stored here,
//!   computed once when the triplet or vertex first appears, never per query.
//! - A step clock ([`AriGraph::set_step`]) dates each triplet's entry (`since`); with
//!   [`Retire::Close`] a retired triplet is kept in the [`History`] with its interval
//!   and what superseded it ([`super::temporal`], after AriadneMem).
//! - Thesis vertices ([`ThesisVertex`], `--thesis`; PersonalAI, arXiv:2506.17001,
//!   section III): complete statements from an observation, each a hyper-edge over the
//!   object vertices it mentions, linked to the episodic vertex of its step
//!   ([`super::thesis`]). Empty unless the option is on.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::names::{entity_key, fold};
use super::temporal::{History, Retire};
use super::vectors::TripletVectors;

/// A semantic edge: (subject, relation, object) in canonical form ([`super::names`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Triplet {
    /// Subject vertex.
    pub subject: String,
    /// Relation (short verb phrase).
    pub relation: String,
    /// Object vertex.
    pub object: String,
}

/// Words a small model writes when it has no object; a triplet with one says nothing.
const FILLER_WORDS: &[&str] = &["none", "nothing", "unknown", "n/a", "null", "nowhere"];

impl Triplet {
    /// Build a triplet from canonical names ([`entity_key`] for subject and object, the
    /// relation trimmed of punctuation after [`fold`]); `None` if a part is empty or a
    /// filler word ("none", "nothing", "unknown", "n/a"), or subject == object.
    pub fn new(subject: &str, relation: &str, object: &str) -> Option<Self> {
        let relation = fold(relation);
        let t = Self {
            subject: entity_key(subject),
            relation: relation
                .trim_matches(|c: char| matches!(c, '.' | ',' | '"' | '\''))
                .trim()
                .to_string(),
            object: entity_key(object),
        };
        let void = |s: &str| s.is_empty() || FILLER_WORDS.contains(&s);
        if void(&t.subject) || t.relation.is_empty() || void(&t.object) || t.subject == t.object {
            None
        } else {
            Some(t)
        }
    }

    /// The text embedded and shown to the LLM: `subject, relation, object`.
    pub fn text(&self) -> String {
        format!("{}, {}, {}", self.subject, self.relation, self.object)
    }
}

impl std::fmt::Display for Triplet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

pub use super::ids::{ThesisId, TripletId};

/// Where a triplet's embedding is kept.
#[derive(Debug, Clone, PartialEq)]
enum Embedding {
    None,
    /// In the contiguous matrix ([`TripletVectors`]), row = triplet id.
    Row,
    /// Apart: its length differs from the matrix's rows.
    Odd(Vec<f32>),
}

#[derive(Debug, Clone)]
struct TripletRecord {
    triplet: Triplet,
    alive: bool,
    embedding: Embedding,
    norm_sq: f32,
    /// The step at which it last became alive.
    since: u32,
    /// The step at which it was last stated (added, revived, or extracted again: a
    /// duplicate merged with its timestamp updated, AriadneMem's coarsening).
    stated: u32,
}

/// An episodic vertex with its episodic edge.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpisodicVertex {
    /// Step number (1-based) of the observation.
    pub step: u32,
    /// The raw observation.
    pub observation: String,
    /// Ids of the triplets extracted at this step (distinct).
    pub triplets: Vec<TripletId>,
    /// Ids of the thesis vertices taken from this observation (`--thesis`; empty
    /// otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub theses: Vec<ThesisId>,
}

/// A thesis vertex (PersonalAI, arXiv:2506.17001, section III: a complete atomic
/// statement expressed in the source text, e.g. "the recipe asks for a grilled red
/// pepper"). Its hyper-edge is the set of object vertices it links, fixed when it is
/// added: the entities the extractor wrote with it ([`super::PersonalAiForm::Paper`]) or
/// the known names it mentions ([`super::names::mentions`], the first adaptation). As
/// the paper runs it, a stale thesis is retired by the LLM's verdict (Appendix B); it is
/// not a triplet, so it takes no part in the world-model accuracy.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ThesisVertex {
    /// The statement, as the extractor wrote it (whitespace collapsed).
    pub text: String,
    /// The step of the observation it came from (its episodic vertex's step).
    pub step: u32,
    /// The object vertices it links (canonical names, sorted): its hyper-edge.
    pub vertices: Vec<String>,
    /// The step at which an outdated verdict retired it (out of retrieval since);
    /// `None` while it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired: Option<u32>,
}

#[derive(Debug, Clone)]
struct ThesisRecord {
    thesis: ThesisVertex,
    embedding: Option<Vec<f32>>,
    norm_sq: f32,
}

/// Take `id` out of the set under `key`, and the key out of `map` when its set empties.
fn unlink(map: &mut HashMap<String, BTreeSet<TripletId>>, key: &str, id: TripletId) {
    if let Some(set) = map.get_mut(key) {
        set.remove(&id);
        if set.is_empty() {
            map.remove(key);
        }
    }
}

/// The AriGraph memory.
#[derive(Debug, Clone, Default)]
pub struct AriGraph {
    triplets: Vec<TripletRecord>,
    index: HashMap<Triplet, TripletId>,
    incident: HashMap<String, BTreeSet<TripletId>>,
    /// relation -> alive triplets with it (for readers of a few relations, such as the
    /// spatial map, that would otherwise look at every triplet).
    by_relation: HashMap<String, BTreeSet<TripletId>>,
    vertex_embeddings: HashMap<String, Vec<f32>>,
    vectors: TripletVectors,
    /// Ids whose embedding is [`Embedding::Odd`].
    odd: BTreeSet<TripletId>,
    episodes: Vec<EpisodicVertex>,
    alive: usize,
    pinned: HashSet<TripletId>,
    /// The current step (1-based; 0 before any step).
    step: u32,
    history: History,
    theses: Vec<ThesisRecord>,
}

impl AriGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// The triplet with this id (alive or not).
    pub fn triplet(&self, id: TripletId) -> &Triplet {
        &self.triplets[id.0].triplet
    }

    /// The id of a triplet if it is in the graph now (alive).
    pub fn find(&self, t: &Triplet) -> Option<TripletId> {
        self.index
            .get(t)
            .copied()
            .filter(|&id| self.triplets[id.0].alive)
    }

    /// Ids of the triplets in the graph now, in insertion order.
    pub fn alive_ids(&self) -> impl Iterator<Item = TripletId> + '_ {
        (0..self.triplets.len())
            .filter(|&i| self.triplets[i].alive)
            .map(TripletId)
    }

    /// Number of semantic edges now (alive triplets).
    pub fn edge_count(&self) -> usize {
        self.alive
    }

    /// Number of semantic vertices now (with at least one alive edge).
    pub fn vertex_count(&self) -> usize {
        self.incident.values().filter(|s| !s.is_empty()).count()
    }

    /// The semantic vertices now (with at least one alive edge), sorted.
    pub fn vertices(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .incident
            .iter()
            .filter(|(_, s)| !s.is_empty())
            .map(|(k, _)| k.as_str())
            .collect();
        v.sort_unstable();
        v
    }

    /// Whether a triplet id is in the graph now.
    pub fn is_alive(&self, id: TripletId) -> bool {
        self.triplets.get(id.0).is_some_and(|r| r.alive)
    }

    /// The episodic vertices, oldest first.
    pub fn episodes(&self) -> &[EpisodicVertex] {
        &self.episodes
    }

    /// Add a triplet (or revive it); returns its id and whether it is new to the
    /// current graph (false for a duplicate of an alive triplet).
    pub fn add(&mut self, t: Triplet) -> (TripletId, bool) {
        if let Some(&id) = self.index.get(&t) {
            let was_alive = self.triplets[id.0].alive;
            self.triplets[id.0].alive = true;
            self.triplets[id.0].stated = self.step;
            if !was_alive {
                self.alive += 1;
                self.triplets[id.0].since = self.step;
                if self.triplets[id.0].embedding == Embedding::Row {
                    self.vectors.set_live(id.0, true);
                }
            }
            self.link(id);
            return (id, !was_alive);
        }
        let id = TripletId(self.triplets.len());
        self.index.insert(t.clone(), id);
        self.triplets.push(TripletRecord {
            triplet: t,
            alive: true,
            embedding: Embedding::None,
            norm_sq: 0.0,
            since: self.step,
            stated: self.step,
        });
        self.alive += 1;
        self.link(id);
        (id, true)
    }

    fn link(&mut self, id: TripletId) {
        let t = &self.triplets[id.0].triplet;
        let (s, r, o) = (t.subject.clone(), t.relation.clone(), t.object.clone());
        self.incident.entry(s).or_default().insert(id);
        self.incident.entry(o).or_default().insert(id);
        self.by_relation.entry(r).or_default().insert(id);
    }

    /// Ids of the alive triplets whose relation passes `keep`, in insertion order (as
    /// [`AriGraph::alive_ids`] would give them). `keep` is asked once per distinct
    /// relation, so a reader of a few relations does not look at every triplet.
    pub fn alive_ids_with_relation(&self, keep: impl Fn(&str) -> bool) -> Vec<TripletId> {
        let mut ids: Vec<TripletId> = self
            .by_relation
            .iter()
            .filter(|(r, _)| keep(r))
            .flat_map(|(_, set)| set.iter().copied())
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Remove an outdated triplet from the semantic layer (episodes keep their link).
    /// Returns false if it was not alive.
    pub fn remove(&mut self, id: TripletId) -> bool {
        let Some(rec) = self.triplets.get_mut(id.0) else {
            return false;
        };
        if !rec.alive {
            return false;
        }
        rec.alive = false;
        self.alive -= 1;
        self.vectors.set_live(id.0, false);
        self.pinned.remove(&id);
        let t = rec.triplet.clone();
        unlink(&mut self.incident, &t.subject, id);
        unlink(&mut self.incident, &t.object, id);
        unlink(&mut self.by_relation, &t.relation, id);
        true
    }

    /// Retire an alive triplet that `superseded_by` replaced: removed from the semantic
    /// layer ([`AriGraph::remove`]) and, with [`Retire::Close`], kept in the history with
    /// its interval `[since, current step)` and the link. Returns false if it was not
    /// alive (nothing is recorded).
    pub fn retire(&mut self, id: TripletId, mode: Retire, superseded_by: &[TripletId]) -> bool {
        if !self.remove(id) {
            return false;
        }
        if mode == Retire::Close {
            self.supersede(id, superseded_by);
        }
        true
    }

    /// Record in the history that the triplet `id`, already removed at this step, was
    /// superseded by `by` (for callers that add the replacements after the removal).
    pub fn supersede(&mut self, id: TripletId, by: &[TripletId]) {
        if let Some(r) = self.triplets.get(id.0) {
            self.history.close(id, r.since, self.step, by);
        }
    }

    /// The closed facts ([`Retire::Close`]; empty with [`Retire::Delete`]).
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Whether the graph keeps this triplet as a closed fact (it was retired under
    /// [`Retire::Close`] at some step).
    pub fn is_closed(&self, t: &Triplet) -> bool {
        self.index.get(t).is_some_and(|id| self.history.holds(*id))
    }

    /// Set the step clock: triplets added or revived from now on are dated `step`, and
    /// facts closed from now on end at `step`.
    pub fn set_step(&mut self, step: u32) {
        self.step = step;
    }

    /// The step clock.
    pub fn step(&self) -> u32 {
        self.step
    }

    /// The step at which a triplet was last stated (0 for an unknown id).
    pub fn stated(&self, id: TripletId) -> u32 {
        self.triplets.get(id.0).map_or(0, |r| r.stated)
    }

    /// The step at which a triplet last entered the graph (0 for an unknown id).
    pub fn since(&self, id: TripletId) -> u32 {
        self.triplets.get(id.0).map_or(0, |r| r.since)
    }

    /// Alive triplets incident to any of `vertices` (E_s^rel of section 2), sorted by id.
    pub fn incident_to<'a>(&self, vertices: impl IntoIterator<Item = &'a str>) -> Vec<TripletId> {
        let mut out = BTreeSet::new();
        for v in vertices {
            if let Some(set) = self.incident.get(v) {
                out.extend(set.iter().copied());
            }
        }
        out.into_iter().collect()
    }

    /// Add the episodic vertex of a step and its episodic edge.
    pub fn add_episode(&mut self, step: u32, observation: String, triplets: Vec<TripletId>) {
        let mut seen = HashSet::new();
        let triplets = triplets.into_iter().filter(|id| seen.insert(*id)).collect();
        self.episodes.push(EpisodicVertex {
            step,
            observation,
            triplets,
            theses: Vec::new(),
        });
    }

    /// Alive triplets that have no embedding yet: (id, text).
    pub fn triplets_missing_embeddings(&self) -> Vec<(TripletId, String)> {
        self.alive_ids()
            .filter(|&id| self.triplets[id.0].embedding == Embedding::None)
            .map(|id| (id, self.triplets[id.0].triplet.text()))
            .collect()
    }

    /// Vertices that have no embedding yet.
    pub fn vertices_missing_embeddings(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .incident
            .keys()
            .filter(|k| !self.vertex_embeddings.contains_key(*k))
            .cloned()
            .collect();
        v.sort();
        v
    }

    /// Store a triplet's embedding (unit length expected). Embeddings of the length of
    /// the first one go to the contiguous matrix that retrieval scans
    /// ([`AriGraph::triplet_vectors`]); any other length is kept apart
    /// ([`AriGraph::odd_embedded`]).
    pub fn set_triplet_embedding(&mut self, id: TripletId, v: Vec<f32>) {
        let Some(r) = self.triplets.get_mut(id.0) else {
            return;
        };
        r.norm_sq = super::similarity::dot(&v, &v);
        if self.vectors.set(id.0, &v, r.norm_sq) {
            r.embedding = Embedding::Row;
            self.odd.remove(&id);
            self.vectors.set_live(id.0, r.alive);
        } else {
            r.embedding = Embedding::Odd(v);
            self.odd.insert(id);
            self.vectors.set_live(id.0, false);
        }
    }

    /// The contiguous triplet embedding matrix (row = triplet id; only alive triplets'
    /// rows are live).
    pub fn triplet_vectors(&self) -> &TripletVectors {
        &self.vectors
    }

    /// Alive triplets whose embedding length differs from
    /// [`TripletVectors::dim`] (kept apart from the matrix), sorted by id.
    pub fn odd_embedded(&self) -> impl Iterator<Item = TripletId> + '_ {
        self.odd
            .iter()
            .copied()
            .filter(|&id| self.triplets[id.0].alive)
    }

    /// Store a vertex's embedding (unit length expected).
    pub fn set_vertex_embedding(&mut self, vertex: String, v: Vec<f32>) {
        self.vertex_embeddings.insert(vertex, v);
    }

    /// Pin an alive triplet: it is ground truth (a move actually made) and is never
    /// offered to the outdated check; only [`AriGraph::remove`] unpins it.
    pub fn pin(&mut self, id: TripletId) {
        if self.is_alive(id) {
            self.pinned.insert(id);
        }
    }

    /// Whether a triplet is pinned.
    pub fn is_pinned(&self, id: TripletId) -> bool {
        self.pinned.contains(&id)
    }

    /// Number of triplet slots (alive or not); ids are `0..triplet_slots()`.
    pub fn triplet_slots(&self) -> usize {
        self.triplets.len()
    }

    /// The embedding of an alive triplet with its squared norm.
    pub fn triplet_embedding(&self, id: TripletId) -> Option<(&[f32], f32)> {
        let r = self.triplets.get(id.0).filter(|r| r.alive)?;
        match &r.embedding {
            Embedding::None => None,
            Embedding::Row => Some(self.vectors.row(id.0)),
            Embedding::Odd(v) => Some((v.as_slice(), r.norm_sq)),
        }
    }

    /// The embedding of a vertex.
    pub fn vertex_embedding(&self, vertex: &str) -> Option<&[f32]> {
        self.vertex_embeddings.get(vertex).map(Vec::as_slice)
    }

    /// Ids of the alive triplets incident to a vertex, sorted.
    pub fn incident(&self, vertex: &str) -> Option<&BTreeSet<TripletId>> {
        self.incident.get(vertex)
    }
}

mod theses;
pub use theses::EdgeTheses;

#[cfg(test)]
mod tests;
