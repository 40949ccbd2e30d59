//! The AriGraph memory (paper section 2): the graph updated from each observation
//! (triplet extraction, outdated-edge detection and replacement, episodic vertex and
//! edge) and read by two-step retrieval (Algorithm 1: semantic search, then episodic
//! search). AriadneMem's options plug in here: closing retired facts
//! ([`super::temporal`]), gating repeated observations ([`super::gating`]) and bridge
//! discovery in retrieval ([`super::bridge_discovery`]); so do PersonalAI's thesis vertices and
//! traversal constraints ([`super::thesis`]).

use std::collections::{HashMap, HashSet};

use anyhow::Result;

mod answers;
mod items;
mod reference_text;
mod retrieve;
mod retrieve_variants;
mod stale;
mod update;

use super::gating::{self, Gate, Judgement};
use super::similarity;
use super::{
    AriGraph, MemoryDesign, MemoryModule, MemorySettings, Observed, Queries, Retire, Retrieval,
    UpdateReport,
};
use crate::llm::{CallLog, EmbedKind, Llm};
use answers::*;
use items::ExtractionItems;

/// One observation's extraction answer, asked ahead of its update
/// ([`AriGraphMemory::extract_ahead`]); `None` inside when no answer was accepted.
pub struct Extracted(Option<Extraction>);

/// The AriGraph memory with its settings and a cache of query embeddings.
#[derive(Debug, Default)]
pub struct AriGraphMemory {
    /// The graph.
    pub graph: AriGraph,
    /// Parameters.
    pub settings: MemorySettings,
    query_cache: HashMap<String, Vec<f32>>,
    /// Recent observations, for `--gating`.
    gate: Gate,
    /// The facts retrieved at the last step, as text: the reference's extraction
    /// example (`prev_subgraph` in `graphs/contriever_graph.py`).
    last_retrieved: Vec<String>,
    /// The rooms the agent has been in (their canonical names): under memory rules 7 a
    /// fact linking two of them is never deleted (the reference's `locations`).
    visited: HashSet<String>,
}

/// An accepted extraction answer read item by item (memory rules 8,
/// [`items::read_item`]): a repaired item counts the answer as repaired once, each
/// refused item is counted and noted on the call, and the parts' length cuts are noted
/// as the bounds' are.
fn read_items(log: &mut CallLog, items: ExtractionItems) -> Extraction {
    let (extraction, read) = items.read();
    log.repairs += u32::from(read.repaired > 0);
    log.refused += read.refused.len() as u32;
    log.trimmed += read.trimmed.len() as u32;
    if let Some(call) = log.calls.last_mut() {
        call.refused.extend(read.refused);
        call.trimmed.extend(read.trimmed);
    }
    extraction
}

impl AriGraphMemory {
    /// An empty memory.
    pub fn new(settings: MemorySettings) -> Self {
        Self {
            graph: AriGraph::new(),
            settings,
            ..Self::default()
        }
    }

    /// The observation as a retrieval query (cut to `query_chars`): the text whose
    /// embedding retrieval computes.
    fn query_text(&self, observation: &str) -> String {
        observation
            .chars()
            .take(self.settings.query_chars)
            .collect()
    }

    /// Entropy-aware gating ([`gating`]): whether this observation repeats recent memory
    /// and names no new entity. Embeds the observation (as retrieval would, cached for
    /// it) only when the texts alone cannot decide. Every observation joins recent memory.
    ///
    /// # Errors
    /// Transport errors while embedding the observation.
    async fn gated(&mut self, llm: &Llm, log: &mut CallLog, seen: &Observed<'_>) -> Result<bool> {
        let query = self.query_text(seen.observation);
        let gated = match self.gate.judge(seen.observation, seen.inventory) {
            Judgement::Pass => false,
            Judgement::Repeat(_) => true,
            Judgement::Compare(recent) => {
                if !query.trim().is_empty() && !self.query_cache.contains_key(&query) {
                    let v = llm
                        .embed(log, vec![query.clone()], EmbedKind::Query)
                        .await?;
                    if let Some(v) = v.into_iter().next() {
                        self.query_cache.insert(query.clone(), v);
                    }
                }
                match self.query_cache.get(&query) {
                    Some(now) => recent.iter().any(|(_, q)| {
                        self.query_cache
                            .get(q)
                            .is_some_and(|old| similarity::cosine(now, old) >= gating::THRESHOLD)
                    }),
                    None => false,
                }
            }
        };
        self.gate
            .remember(seen.step, seen.observation, seen.inventory, &query);
        Ok(gated)
    }

    /// Update the graph from one observation (paper section 2, "Constructing AriGraph"):
    /// extract triplets; gather the alive edges incident to their vertices; ask which of
    /// those are outdated (keep when in doubt) and remove them; merge the new triplets
    /// without duplicates; embed what is new; add the step's episodic vertex and edge.
    /// A bad LLM answer extracts nothing or removes nothing; it never fails the step.
    ///
    /// # Errors
    /// Transport errors from the endpoint ([`crate::llm::LlmError`]), prompt rendering errors.
    pub async fn update_graph(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        self.graph.set_step(seen.step);
        if self.settings.gating && self.gated(llm, log, seen).await? {
            self.embed_missing(llm, log).await?;
            self.graph
                .add_episode(seen.step, seen.observation.to_string(), Vec::new());
            return Ok(UpdateReport {
                gated: true,
                ..UpdateReport::default()
            });
        }
        self.note_room(seen);
        let extraction = self.extract(llm, log, seen).await?;
        self.integrate(llm, log, seen, extraction).await
    }

    /// Whether an observation's extraction depends on what earlier updates put in the
    /// graph: the outdated check (it asks about the graph's facts), gating (it compares
    /// with earlier observations) or the known facts in Ariadne's prompt. When it does
    /// not (the reference's QA reading: `update_without_retrieve` with no outdated
    /// check), observations' extractions can be asked ahead, concurrently
    /// ([`Self::extract_ahead`]), and applied in their order ([`Self::update_with`]) to
    /// the graph one update after another would build.
    pub fn extraction_reads_the_graph(&self) -> bool {
        self.settings.extraction_reads_the_graph().is_some()
    }

    /// Ask for the extraction of `seen` ahead of its update (see
    /// [`Self::extraction_reads_the_graph`]); the graph is not changed.
    ///
    /// # Errors
    /// Transport errors from the endpoint, prompt rendering errors.
    pub async fn extract_ahead(
        &self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<Extracted> {
        Ok(Extracted(self.extract(llm, log, seen).await?))
    }

    /// Update the graph from `seen` with its extraction asked ahead: what
    /// [`Self::update_graph`] does after its extraction call, for a memory whose
    /// extraction does not read the graph (no gating).
    ///
    /// # Errors
    /// Transport errors from the endpoint ([`crate::llm::LlmError`]), prompt rendering errors.
    pub async fn update_with(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
        extracted: Extracted,
    ) -> Result<UpdateReport> {
        self.graph.set_step(seen.step);
        self.note_room(seen);
        self.integrate(llm, log, seen, extracted.0).await
    }

    /// A room the player stands in is visited (its links to other visited rooms are
    /// never retired).
    fn note_room(&mut self, seen: &Observed<'_>) {
        if !seen.passage && !seen.room.is_empty() && seen.room != "unknown" {
            self.visited
                .insert(crate::memory::names::entity_key(seen.room));
        }
    }

    /// The update after the extraction call: its triplets kept, the outdated ones
    /// asked about and removed, the new ones merged and embedded, the step's episodic
    /// vertex added (see [`Self::update_graph`]).
    ///
    /// # Errors
    /// Transport errors from the endpoint, prompt rendering errors.
    async fn integrate(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
        extraction: Option<Extraction>,
    ) -> Result<UpdateReport> {
        let mut report = UpdateReport::default();
        let (raw_triplets, written) = self.read_extraction(log, &mut report, extraction);
        let seen_set = self.keep_triplets(&mut report, raw_triplets);
        let candidates = self.outdated_candidates(seen, &report.extracted, &seen_set);
        report.checked = candidates.len();
        let verdicts = self
            .outdated_verdicts(llm, log, seen, &report.extracted, &candidates)
            .await?;
        let retired = self.remove_outdated(&mut report, verdicts);
        let ids = self.merge_extracted(&mut report);
        if self.settings.retire == Retire::Close {
            self.close_retired(&report.extracted, &ids, retired);
        }
        let thesis_ids = self
            .add_theses(llm, log, seen.step, &mut report, &written)
            .await?;
        self.embed_missing(llm, log).await?;
        self.graph
            .add_episode(seen.step, seen.observation.to_string(), ids);
        self.graph.link_theses(&thesis_ids);
        Ok(report)
    }

    /// Most known facts shown to the extractor.
    const KNOWN_IN_VIEW: usize = 20;

    /// The alive triplets about the things the observation names (vertices whose name
    /// appears in it), oldest first, at most [`Self::KNOWN_IN_VIEW`]: the reference
    /// prompts give them to the extractor so names stay the same from step to step.
    pub fn known_in_view(&self, observation: &str) -> Vec<String> {
        let text = super::names::fold(observation);
        let mut ids = std::collections::BTreeSet::new();
        for v in self.graph.vertices() {
            if v.chars().count() >= 3 && text.contains(v) {
                ids.extend(self.graph.incident_to([v]));
            }
        }
        ids.into_iter()
            .take(Self::KNOWN_IN_VIEW)
            .map(|id| self.graph.triplet(id).text())
            .collect()
    }

    /// Embed every triplet and thesis vertex (as passages, in one batch: the triplets,
    /// then the theses) and vertex (as a query) that has no vector yet.
    ///
    /// # Errors
    /// Transport errors.
    pub async fn embed_missing(&mut self, llm: &Llm, log: &mut CallLog) -> Result<()> {
        let missing = self.graph.triplets_missing_embeddings();
        let theses = self.graph.theses_missing_embeddings();
        let texts: Vec<String> = missing
            .iter()
            .map(|(_, t)| t.clone())
            .chain(theses.iter().map(|(_, t)| t.clone()))
            .collect();
        let mut vectors = llm.embed(log, texts, EmbedKind::Passage).await?.into_iter();
        for ((id, _), v) in missing.into_iter().zip(vectors.by_ref()) {
            self.graph.set_triplet_embedding(id, v);
        }
        for ((id, _), v) in theses.into_iter().zip(vectors) {
            self.graph.set_thesis_embedding(id, v);
        }
        let vertices = self.graph.vertices_missing_embeddings();
        let vectors = llm.embed(log, vertices.clone(), EmbedKind::Query).await?;
        for (name, v) in vertices.into_iter().zip(vectors) {
            self.graph.set_vertex_embedding(name, v);
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl MemoryModule for AriGraphMemory {
    fn design(&self) -> MemoryDesign {
        if self.settings.episodes == 0 {
            MemoryDesign::ArigraphNoEpisodic
        } else {
            MemoryDesign::Arigraph
        }
    }

    async fn update(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        self.update_graph(llm, log, seen).await
    }

    async fn retrieve(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        queries: &Queries<'_>,
    ) -> Result<Retrieval> {
        let at = queries.with_depths(self.settings.depth);
        let mut out = self.retrieve_list_at(llm, log, &at, queries.step).await?;
        // Memory rules 7: the top k without the observations working memory already
        // shows (the reference's `top_episodic = [item for item in top_episodic if item
        // not in observations]`, after the top k is taken).
        if self.settings.revision().skips_recent_episodes() {
            out.episodes
                .retain(|e| e.step + queries.recent < queries.step);
        }
        Ok(out)
    }

    fn what_if(&self, queries: &Queries<'_>, settings: &MemorySettings) -> Option<Retrieval> {
        Some(self.retrieve_at(&queries.with_depths(settings.depth), queries.step, settings))
    }

    fn episodes_shown(&self) -> usize {
        self.settings.episodes
    }

    fn graph(&self) -> Option<&AriGraph> {
        Some(&self.graph)
    }

    fn hand_over(&mut self, rules: &crate::profile::Rules) {
        self.settings.follow(rules);
    }

    fn graph_mut(&mut self) -> Option<&mut AriGraph> {
        Some(&mut self.graph)
    }

    async fn sync(&mut self, llm: &Llm, log: &mut CallLog) -> Result<()> {
        self.embed_missing(llm, log).await
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod reference_tests;
