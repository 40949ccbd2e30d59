//! The thesis vertices of the graph (PersonalAI's hyper-edges, `--thesis`): added from
//! an observation, linked to its episodic vertex, embedded, read.

use std::collections::BTreeSet;

use super::{AriGraph, EpisodicVertex, ThesisId, ThesisRecord, ThesisVertex};
use crate::memory::names::{entity_key, fold};

/// Which of an episode's theses lend their entities to its hyper-edge
/// ([`AriGraph::episode_edge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeTheses {
    /// None: thesis vertices are not walked (`--exclude thesis`, or none written).
    None,
    /// Those not retired: the hyper-edge walk ([`crate::memory::hyper::walk`]) passes
    /// through what still holds.
    Live,
    /// Every one the observation produced, retired or not: WaterCircles counts the
    /// entities an observation named ([`crate::memory::strategies::water_circles::items`],
    /// as its runs were recorded).
    All,
}

impl AriGraph {
    /// Add a thesis vertex from the observation of `step`; its hyper-edge is the known
    /// object vertices (alive now, so including this step's new triplets) that its text
    /// mentions ([`crate::memory::names::mentions`]). A statement already held (same text after
    /// [`fold`]) is not added again: its existing id is returned with `false`.
    pub fn add_thesis(&mut self, text: &str, step: u32) -> (ThesisId, bool) {
        self.add_thesis_linking(text, step, None)
    }

    /// [`AriGraph::add_thesis`] with the hyper-edge written by the extractor
    /// (`entities`, PersonalAI section III.B): each entity's canonical name
    /// ([`entity_key`]), blank ones dropped, sorted, each once; `None` finds them by
    /// name matching. A statement already held keeps its hyper-edge and is not added
    /// again (`false`); one that was retired holds again and counts as new (`true`: it
    /// was stated anew, so the stale check sees it).
    pub fn add_thesis_linking(
        &mut self,
        text: &str,
        step: u32,
        entities: Option<&[String]>,
    ) -> (ThesisId, bool) {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let key = fold(&text);
        if let Some(id) = self.theses.iter().position(|r| fold(&r.thesis.text) == key) {
            let revived = self.theses[id].thesis.retired.take().is_some();
            return (ThesisId(id), revived);
        }
        let vertices = match entities {
            Some(names) => {
                let mut v: Vec<String> = names
                    .iter()
                    .map(|n| entity_key(n))
                    .filter(|n| !n.is_empty())
                    .collect();
                v.sort();
                v.dedup();
                v
            }
            None => crate::memory::names::mentions(&text, &self.vertices()),
        };
        self.theses.push(ThesisRecord {
            thesis: ThesisVertex {
                text,
                step,
                vertices,
                retired: None,
            },
            embedding: None,
            norm_sq: 0.0,
        });
        (ThesisId(self.theses.len() - 1), true)
    }

    /// Retire a thesis vertex at `step` (an outdated verdict, PersonalAI Appendix B):
    /// it stays in the graph, out of retrieval. Returns whether it held until now.
    pub fn retire_thesis(&mut self, id: ThesisId, step: u32) -> bool {
        match self.theses.get_mut(id.0) {
            Some(r) if r.thesis.retired.is_none() => {
                r.thesis.retired = Some(step);
                true
            }
            _ => false,
        }
    }

    /// The theses that hold (not retired) whose hyper-edge links `vertex`, by id.
    pub fn theses_linking(&self, vertex: &str) -> Vec<ThesisId> {
        self.theses
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.thesis.retired.is_none() && r.thesis.vertices.iter().any(|v| v == vertex)
            })
            .map(|(i, _)| ThesisId(i))
            .collect()
    }

    /// Link thesis vertices to the latest episodic vertex (the observation they came
    /// from); unknown ids are ignored.
    pub fn link_theses(&mut self, ids: &[ThesisId]) {
        let n = self.theses.len();
        if let Some(e) = self.episodes.last_mut() {
            for &id in ids {
                if id.0 < n && !e.theses.contains(&id) {
                    e.theses.push(id);
                }
            }
        }
    }

    /// The thesis vertices, oldest first (index = [`ThesisId`]).
    pub fn theses(&self) -> Vec<&ThesisVertex> {
        self.theses.iter().map(|r| &r.thesis).collect()
    }

    /// The thesis vertex with this id.
    pub fn thesis(&self, id: ThesisId) -> Option<&ThesisVertex> {
        self.theses.get(id.0).map(|r| &r.thesis)
    }

    /// An episodic vertex's hyper-edge (PersonalAI section III.A: an episodic vertex
    /// links the vertices extracted from its observation): the ends of the facts its
    /// observation produced, and the entities of its theses as `theses` says.
    pub fn episode_edge(&self, e: &EpisodicVertex, theses: EdgeTheses) -> BTreeSet<&str> {
        let mut v: BTreeSet<&str> = BTreeSet::new();
        for id in &e.triplets {
            let t = self.triplet(*id);
            v.insert(t.subject.as_str());
            v.insert(t.object.as_str());
        }
        if theses != EdgeTheses::None {
            for t in e.theses.iter().filter_map(|id| self.thesis(*id)) {
                if theses == EdgeTheses::All || t.retired.is_none() {
                    v.extend(t.vertices.iter().map(String::as_str));
                }
            }
        }
        v
    }

    /// Number of thesis vertices.
    pub fn thesis_count(&self) -> usize {
        self.theses.len()
    }

    /// Thesis vertices that have no embedding yet: (id, text).
    pub fn theses_missing_embeddings(&self) -> Vec<(ThesisId, String)> {
        self.theses
            .iter()
            .enumerate()
            .filter(|(_, r)| r.embedding.is_none())
            .map(|(id, r)| (ThesisId(id), r.thesis.text.clone()))
            .collect()
    }

    /// Store a thesis vertex's embedding (a passage vector, unit length expected).
    pub fn set_thesis_embedding(&mut self, id: ThesisId, v: Vec<f32>) {
        if let Some(r) = self.theses.get_mut(id.0) {
            r.norm_sq = crate::memory::similarity::dot(&v, &v);
            r.embedding = Some(v);
        }
    }

    /// The embedding of a thesis vertex with its squared norm.
    pub fn thesis_embedding(&self, id: ThesisId) -> Option<(&[f32], f32)> {
        let r = self.theses.get(id.0)?;
        r.embedding.as_deref().map(|e| (e, r.norm_sq))
    }
}
