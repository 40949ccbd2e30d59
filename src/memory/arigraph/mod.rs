//! The AriGraph memory (paper section 2): the graph updated from each observation
//! (triplet extraction, outdated-edge detection and replacement, episodic vertex and
//! edge) and read by two-step retrieval (Algorithm 1: semantic search, then episodic
//! search). AriadneMem's options plug in here: closing retired facts
//! ([`super::temporal`]), gating repeated observations ([`super::gating`]) and bridge
//! discovery in retrieval ([`super::bridge_discovery`]); so do PersonalAI's thesis vertices and
//! traversal constraints ([`super::thesis`]).

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use minijinja::context;

mod answers;
mod items;
mod reference_text;
mod retrieve;
mod retrieve_variants;
mod stale;

use reference_text::reference_excluded;

use super::gating::{self, Gate, Judgement};
use super::guard::Guard;
use super::similarity;
use super::{
    AriGraph, ExtractionPrompt, MemoryDesign, MemoryModule, MemorySettings, Observed,
    OutdatedScope, Queries, Retire, Retrieval, ThesisId, Triplet, TripletId, UpdateReport,
};
use crate::llm::{CallLog, EmbedKind, Llm};
use answers::*;
use items::ExtractionItems;

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
        let mut report = UpdateReport::default();
        self.graph.set_step(seen.step);
        if self.settings.gating && self.gated(llm, log, seen).await? {
            report.gated = true;
            self.embed_missing(llm, log).await?;
            self.graph
                .add_episode(seen.step, seen.observation.to_string(), Vec::new());
            return Ok(report);
        }
        if !seen.passage && !seen.room.is_empty() && seen.room != "unknown" {
            self.visited
                .insert(crate::memory::names::entity_key(seen.room));
        }
        let rules = self.settings.rules;
        let thesis = self.settings.thesis;
        let form = self.settings.personalai;
        let entities = thesis && form.theses_with_entities();
        let messages = match self.settings.extraction_prompt() {
            ExtractionPrompt::Reference => llm.prompts.render(
                "extract_reference",
                context! { example => &self.last_retrieved, thesis => thesis, entities => entities, as_reference => self.settings.revision().reference_messages(), ..minijinja::Value::from_serialize(seen) },
            )?,
            ExtractionPrompt::Ariadne { known } => {
                let known = if known {
                    self.known_in_view(seen.observation)
                } else {
                    Vec::new()
                };
                llm.prompts.render(
                    "extract_triplets",
                    context! { known => known, compact_triplets => self.settings.revision().compact_triplets(), shows_known_facts => self.settings.revision().shows_known_facts(), thesis => thesis, entities => entities, ..minijinja::Value::from_serialize(seen) },
                )?
            }
        };
        let schema = extraction_schema(self.settings.max_triplets, rules, thesis.then_some(form));
        let extraction: Option<Extraction> = if self.settings.revision().reads_items_as_triplets() {
            let items: Option<ExtractionItems> = llm
                .ask(log, "extract_triplets", messages, schema, 500, |_| Ok(()))
                .await?;
            items.map(|items| read_items(log, items))
        } else {
            llm.ask(log, "extract_triplets", messages, schema, 500, |_| Ok(()))
                .await?
        };
        // Theses (`--thesis`): in an accepted answer, a missing or malformed field is no
        // thesis, counted as a repair (a rejected answer was counted already).
        // As the paper runs them, each thesis comes with the entities it links.
        let mut written: Vec<WrittenThesis> = Vec::new();
        let raw_triplets = match extraction {
            Some(e) => {
                if entities {
                    let (theses, repaired, trimmed) =
                        read_written_theses(e.theses.as_ref(), form.theses_per_step());
                    log.repairs += u32::from(repaired);
                    log.trimmed += trimmed;
                    // Noted on the extraction call, as its other cuts are.
                    if trimmed > 0
                        && let Some(call) = log.calls.last_mut()
                    {
                        call.trimmed.push(format!(
                            "theses: {trimmed} items or parts cut or dropped for length or count"
                        ));
                    }
                    report.theses = theses.iter().map(|t| t.text.clone()).collect();
                    written = theses;
                } else if thesis {
                    let (texts, repaired, trimmed) = read_theses(e.theses.as_ref());
                    log.repairs += u32::from(repaired);
                    log.trimmed += trimmed;
                    report.theses = texts;
                }
                e.triplets
            }
            None => Vec::new(),
        };
        let mut seen_set = HashSet::new();
        for raw in raw_triplets {
            if let Some(t) = Triplet::new(&raw.subject, &raw.relation, &raw.object)
                && seen_set.insert(t.clone())
                && report.extracted.len() < self.settings.max_triplets
            {
                report.extracted.push(t);
            }
        }

        // E_s^rel: alive edges incident to the new triplets' vertices (or, with the
        // subject scope, having a new triplet's subject as subject), minus the new ones.
        let subjects: HashSet<&str> = report
            .extracted
            .iter()
            .map(|t| t.subject.as_str())
            .collect();
        let vertices: Vec<&str> = report
            .extracted
            .iter()
            .flat_map(|t| [t.subject.as_str(), t.object.as_str()])
            .collect();
        let scope = self.settings.outdated_scope;
        let pins = self.settings.revision().grounds_moves();
        let prefilter = self.settings.prefilters();
        let guard = self.settings.guard();
        let matcher = Guard::of(self.settings.revision());
        let reference = self.settings.revision().reference_outdated_check();
        let candidates: Vec<TripletId> = self
            .graph
            .incident_to(vertices)
            .into_iter()
            .filter(|id| {
                let t = self.graph.triplet(*id);
                let pinned = pins && self.graph.is_pinned(*id);
                !seen_set.contains(t)
                    && !pinned
                    && (scope == OutdatedScope::Incident || subjects.contains(t.subject.as_str()))
                    // Memory rules 7: the reference never offers a fact naming a
                    // direction or holding "used for", "to be", "associated with".
                    && !(reference && !seen.passage && reference_excluded(&t.text()))
                    // Rule `verdict-guard` (from memory rules 3): a fact no new
                    // triplet may retire (see the guard below) is not asked about; its
                    // verdict could change nothing.
                    && (!prefilter
                        || report
                            .extracted
                            .iter()
                            .any(|n| matcher.may_retire(n, t)))
            })
            .collect();
        // Question answering builds its graph with no outdated check (the reference's
        // `update_without_retrieve`) unless asked for one (`ariadne qa
        // --outdated-check`), which asks about facts read from texts.
        let candidates = if self.settings.outdated_check {
            candidates
        } else {
            Vec::new()
        };
        report.checked = candidates.len();
        let mut retired: Vec<TripletId> = Vec::new();
        let verdicts: Vec<TripletId> = if candidates.is_empty() {
            Vec::new()
        } else if reference && !seen.passage {
            self.ask_replacing(llm, log, &report.extracted, &candidates)
                .await?
        } else {
            let new: Vec<String> = report.extracted.iter().map(Triplet::text).collect();
            let old: Vec<String> = candidates
                .iter()
                .map(|id| self.graph.triplet(*id).text())
                .collect();
            let purpose = if seen.passage {
                "qa_outdated"
            } else {
                "outdated"
            };
            self.ask_outdated(llm, log, purpose, new, old, "old fact")
                .await?
                .into_iter()
                .map(|i| candidates[i - 1])
                .collect()
        };
        for id in verdicts {
            if let Some(g) = guard
                && !report
                    .extracted
                    .iter()
                    .any(|n| g.may_retire(n, self.graph.triplet(id)))
            {
                report.rejected_verdicts += 1;
                continue;
            }
            if self.graph.remove(id) {
                report.removed.push(self.graph.triplet(id).clone());
                retired.push(id);
            }
        }

        let mut ids = Vec::new();
        for t in &report.extracted {
            let (id, fresh) = self.graph.add(t.clone());
            if fresh {
                report.added.push(t.clone());
            }
            ids.push(id);
        }
        // Closing (AriadneMem's conflict-aware coarsening): each retired fact keeps its
        // interval and a link to the new facts that may retire it (the verdict guard's
        // match; any new fact sharing a vertex with it when none is of its kind).
        if self.settings.retire == Retire::Close {
            for old in retired {
                let t = self.graph.triplet(old).clone();
                let of_kind: Vec<TripletId> = report
                    .extracted
                    .iter()
                    .zip(&ids)
                    .filter(|(n, _)| matcher.may_retire(n, &t))
                    .map(|(_, id)| *id)
                    .collect();
                let by = if of_kind.is_empty() {
                    report
                        .extracted
                        .iter()
                        .zip(&ids)
                        .filter(|(n, _)| {
                            [&n.subject, &n.object]
                                .iter()
                                .any(|v| **v == t.subject || **v == t.object)
                        })
                        .map(|(_, id)| *id)
                        .collect()
                } else {
                    of_kind
                };
                self.graph.supersede(old, &by);
            }
        }
        // Thesis vertices: added once this step's triplets are in (their hyper-edges
        // see the new vertices), embedded in the same batch, linked to the episode.
        let added: Vec<(ThesisId, bool)> = if entities {
            written
                .iter()
                .map(|t| {
                    self.graph
                        .add_thesis_linking(&t.text, seen.step, t.entities.as_deref())
                })
                .collect()
        } else {
            report
                .theses
                .iter()
                .map(|t| self.graph.add_thesis(t, seen.step))
                .collect()
        };
        let thesis_ids: Vec<ThesisId> = added.iter().map(|(id, _)| *id).collect();
        if thesis && form.retires_stale_theses() && self.settings.outdated_check {
            let fresh: Vec<ThesisId> = added
                .iter()
                .filter(|(_, f)| *f)
                .map(|(id, _)| *id)
                .collect();
            report.retired_theses = self
                .retire_stale_theses(llm, log, &fresh, &thesis_ids, seen.step)
                .await?;
        }
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
