//! The AriGraph memory (paper section 2): the graph updated from each observation
//! (triplet extraction, outdated-edge detection and replacement, episodic vertex and
//! edge) and read by two-step retrieval (Algorithm 1: semantic search, then episodic
//! search). AriadneMem's options plug in here: closing retired facts
//! ([`super::temporal`]), gating repeated observations ([`super::gating`]) and bridge
//! discovery in retrieval ([`super::bridge_discovery`]); so do PersonalAI's thesis vertices and
//! traversal constraints ([`super::thesis`]).

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::Result;
use minijinja::context;
use serde::Deserialize;
use serde_json::{Value, json};

use super::bridge_discovery::{self, BridgeRecord};
use super::gating::{self, Gate, Judgement};
use super::relations;
use super::retrieval::{self, Retrieved};
use super::similarity;
use super::strategies;
use super::thesis::{self, VertexKind};
use super::{
    AriGraph, ExtractionPrompt, MemoryDesign, MemoryModule, MemorySettings, Observed,
    OutdatedScope, Queries, Retire, Retrieval, RetrievedEpisode, RetrievedThesis, RetrievedTriplet,
    ThesisId, Triplet, TripletId, UpdateReport,
};
use crate::llm::bounds::{self, Bounded};
use crate::llm::{CallLog, EmbedKind, Llm};

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
    /// The step of the last update and the triplets it extracted: left out of that
    /// step's retrieved facts from memory rules 5.
    fresh: (u32, HashSet<TripletId>),
}

/// One extracted triplet as the extractor writes it: `{"subject", "relation", "object"}`
/// (rules 1 and 2) or the compact `["subject", "relation", "object"]` (rules 3).
#[derive(Deserialize)]
#[serde(from = "TripletForm")]
struct RawTriplet {
    subject: String,
    relation: String,
    object: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum TripletForm {
    Array([String; 3]),
    Object {
        subject: String,
        relation: String,
        object: String,
    },
}

impl From<TripletForm> for RawTriplet {
    fn from(f: TripletForm) -> Self {
        let (subject, relation, object) = match f {
            TripletForm::Array([s, r, o]) => (s, r, o),
            TripletForm::Object {
                subject,
                relation,
                object,
            } => (subject, relation, object),
        };
        Self {
            subject,
            relation,
            object,
        }
    }
}

#[derive(Deserialize)]
struct Extraction {
    triplets: Vec<RawTriplet>,
    /// The statements asked for with `--thesis`, read leniently ([`read_theses`]);
    /// ignored without the option.
    #[serde(default)]
    theses: Option<Value>,
}

/// The theses of an extraction answer (`--thesis`): at most [`thesis::MAX_THESES`]
/// non-blank strings, each cut to [`thesis::THESIS_CHARS`]. Returns them with whether
/// the field needed repair (missing, not a list, or an item not a string: those are
/// dropped) and how many were cut or dropped for length or count.
fn read_theses(field: Option<&Value>) -> (Vec<String>, bool, u32) {
    let Some(Value::Array(items)) = field else {
        return (Vec::new(), true, 0);
    };
    let mut repaired = false;
    let mut trimmed = 0;
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let Some(text) = item.as_str() else {
            repaired = true;
            continue;
        };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            continue;
        }
        if out.len() == thesis::MAX_THESES {
            trimmed += 1;
            continue;
        }
        if text.chars().count() > thesis::THESIS_CHARS {
            trimmed += 1;
            out.push(text.chars().take(thesis::THESIS_CHARS).collect());
        } else {
            out.push(text);
        }
    }
    (out, repaired, trimmed)
}

impl Bounded for Extraction {
    /// A triplet with an over-long part is dropped (a cut name is another name).
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(&mut self.triplets, bounds::TRIPLETS, "triplets", &mut notes);
        let mut i = 0;
        self.triplets.retain(|t| {
            let what = format!("triplets[{i}]");
            i += 1;
            bounds::fits(
                &t.subject,
                bounds::ENTITY_CHARS,
                &format!("{what} (subject)"),
                &mut notes,
            ) && bounds::fits(
                &t.relation,
                bounds::RELATION_CHARS,
                &format!("{what} (relation)"),
                &mut notes,
            ) && bounds::fits(
                &t.object,
                bounds::ENTITY_CHARS,
                &format!("{what} (object)"),
                &mut notes,
            )
        });
        notes
    }
}

#[derive(Deserialize)]
struct Outdated {
    outdated: Vec<usize>,
}

impl Bounded for Outdated {
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(
            &mut self.outdated,
            bounds::OUTDATED_ITEMS,
            "outdated",
            &mut notes,
        );
        notes
    }
}

/// The extraction answer's schema: under rules 3 a triplet is an array of three short
/// strings (about half the completion tokens of the object form). With `--thesis` the
/// answer also has `theses`, up to [`thesis::MAX_THESES`] strings ([`with_theses`]).
fn extraction_schema(max: usize, rules: u32, theses: bool) -> Value {
    let schema = extraction_schema_triplets(max, rules);
    if theses { with_theses(schema) } else { schema }
}

/// The schema with the `theses` list added (and required).
fn with_theses(mut schema: Value) -> Value {
    schema["properties"]["theses"] = json!({
        "type": "array",
        "maxItems": thesis::MAX_THESES,
        "items": {"type": "string", "maxLength": thesis::THESIS_CHARS}
    });
    schema["required"] = json!(["triplets", "theses"]);
    schema
}

/// The extraction schema without theses (the schema of every run before `--thesis`).
fn extraction_schema_triplets(max: usize, rules: u32) -> Value {
    if crate::memory::MemoryRevision::from_number(rules).is_ok_and(|r| r.compact_triplets()) {
        return json!({
            "type": "object",
            "properties": {
                "triplets": {
                    "type": "array",
                    "maxItems": max,
                    "items": {
                        "type": "array",
                        "minItems": 3,
                        "maxItems": 3,
                        "items": {"type": "string", "maxLength": bounds::ENTITY_CHARS}
                    }
                }
            },
            "required": ["triplets"],
            "additionalProperties": false
        });
    }
    json!({
        "type": "object",
        "properties": {
            "triplets": {
                "type": "array",
                "maxItems": max,
                "items": {
                    "type": "object",
                    "properties": {
                        "subject": {"type": "string", "maxLength": bounds::ENTITY_CHARS},
                        "relation": {"type": "string", "maxLength": bounds::RELATION_CHARS},
                        "object": {"type": "string", "maxLength": bounds::ENTITY_CHARS}
                    },
                    "required": ["subject", "relation", "object"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["triplets"],
        "additionalProperties": false
    })
}

fn outdated_schema(n: usize) -> Value {
    json!({
        "type": "object",
        "properties": {
            "outdated": {
                "type": "array",
                "maxItems": n,
                "items": {"type": "integer", "minimum": 1, "maximum": n}
            }
        },
        "required": ["outdated"],
        "additionalProperties": false
    })
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
        let rules = self.settings.rules;
        let thesis = self.settings.thesis;
        let messages = match self.settings.extraction_prompt() {
            ExtractionPrompt::Reference => llm.prompts.render(
                "extract_reference",
                context! { example => &self.last_retrieved, thesis => thesis, ..minijinja::Value::from_serialize(seen) },
            )?,
            ExtractionPrompt::Ariadne { known } => {
                let known = if known {
                    self.known_in_view(seen.observation)
                } else {
                    Vec::new()
                };
                llm.prompts.render(
                    "extract_triplets",
                    context! { known => known, rules => rules, thesis => thesis, ..minijinja::Value::from_serialize(seen) },
                )?
            }
        };
        let extraction: Option<Extraction> = llm
            .ask(
                log,
                "extract_triplets",
                messages,
                extraction_schema(self.settings.max_triplets, rules, self.settings.thesis),
                500,
                |_: &Extraction| Ok(()),
            )
            .await?;
        // Theses (`--thesis`): in an accepted answer, a missing or malformed field is no
        // thesis, counted as a repair (a rejected answer was counted already).
        let raw_triplets = match extraction {
            Some(e) => {
                if self.settings.thesis {
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
        let guard = self.settings.guards();
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
                    // Rule `verdict-guard` (from memory rules 3): a fact no new
                    // triplet may retire (see the guard below) is not asked about; its
                    // verdict could change nothing.
                    && (!prefilter
                        || report
                            .extracted
                            .iter()
                            .any(|n| relations::may_retire(n, t)))
            })
            .collect();
        report.checked = candidates.len();
        let mut retired: Vec<TripletId> = Vec::new();
        if !candidates.is_empty() {
            let new: Vec<String> = report.extracted.iter().map(Triplet::text).collect();
            let old: Vec<String> = candidates
                .iter()
                .map(|id| self.graph.triplet(*id).text())
                .collect();
            let n = old.len();
            let messages = llm
                .prompts
                .render("outdated", context! { new => new, old => old })?;
            let outdated: Option<Outdated> = llm
                .ask(
                    log,
                    "outdated",
                    messages,
                    outdated_schema(n),
                    200,
                    |o: &Outdated| match o.outdated.iter().find(|&&i| i == 0 || i > n) {
                        Some(bad) => {
                            Err(format!("{bad} is not the number of an old fact (1..{n})"))
                        }
                        None => Ok(()),
                    },
                )
                .await?;
            let mut chosen: Vec<usize> = outdated.map(|o| o.outdated).unwrap_or_default();
            chosen.sort_unstable();
            chosen.dedup();
            for i in chosen {
                let id = candidates[i - 1];
                if guard
                    && !report
                        .extracted
                        .iter()
                        .any(|n| relations::may_retire(n, self.graph.triplet(id)))
                {
                    report.rejected_verdicts += 1;
                    continue;
                }
                if self.graph.remove(id) {
                    report.removed.push(self.graph.triplet(id).clone());
                    retired.push(id);
                }
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
        self.fresh = (seen.step, ids.iter().copied().collect());
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
                    .filter(|(n, _)| relations::may_retire(n, &t))
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
        let thesis_ids: Vec<ThesisId> = report
            .theses
            .iter()
            .map(|t| self.graph.add_thesis(t, seen.step).0)
            .collect();
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

    /// Two-step retrieval (Algorithm 1): semantic search for each query (by the
    /// strategy of [`MemorySettings::retrieval`]), union of the triplets, then episodic
    /// search over that union (excluding `current_step`).
    ///
    /// # Errors
    /// Transport errors while embedding the queries.
    pub async fn retrieve_list(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        queries: &[String],
        current_step: u32,
    ) -> Result<Retrieval> {
        let depth = self.settings.depth;
        let at: Vec<(String, u32)> = queries.iter().map(|q| (q.clone(), depth)).collect();
        self.retrieve_list_at(llm, log, &at, current_step).await
    }

    /// [`AriGraphMemory::retrieve_list`] with a search depth per query (the key items
    /// of the paper's profile, each at its relevance). The retrieved facts are kept as
    /// the next extraction's example (memory rules 5).
    ///
    /// # Errors
    /// Transport errors from the embedding endpoint.
    pub async fn retrieve_list_at(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        queries_at: &[(String, u32)],
        current_step: u32,
    ) -> Result<Retrieval> {
        let queries: Vec<String> = queries_at
            .iter()
            .map(|(q, _)| {
                q.chars()
                    .take(self.settings.query_chars)
                    .collect::<String>()
            })
            .filter(|q| !q.trim().is_empty())
            .collect();
        let missing: Vec<String> = {
            let mut m: Vec<String> = queries
                .iter()
                .filter(|q| !self.query_cache.contains_key(*q))
                .cloned()
                .collect();
            m.dedup();
            m
        };
        let vectors = llm.embed(log, missing.clone(), EmbedKind::Query).await?;
        for (q, v) in missing.into_iter().zip(vectors) {
            self.query_cache.insert(q, v);
        }
        let retrieval = self.retrieve_at(queries_at, current_step, &self.settings);
        self.last_retrieved = retrieval
            .triplets
            .iter()
            .map(|t| t.triplet.clone())
            .collect();
        Ok(retrieval)
    }

    /// The pure part of retrieval, over cached query vectors (queries without a vector
    /// are skipped).
    pub fn retrieve_with(&self, queries: &[String], current_step: u32) -> Retrieval {
        self.retrieve_with_settings(queries, current_step, &self.settings)
    }

    /// [`AriGraphMemory::retrieve_with`] under other d, w, k or strategy (no network:
    /// cached vectors only).
    pub fn retrieve_with_settings(
        &self,
        queries: &[String],
        current_step: u32,
        settings: &MemorySettings,
    ) -> Retrieval {
        let at: Vec<(String, u32)> = queries
            .iter()
            .map(|q| (q.clone(), settings.depth))
            .collect();
        self.retrieve_at(&at, current_step, settings)
    }

    /// [`AriGraphMemory::retrieve_with_settings`] with a search depth per query
    /// (cached vectors only). Queries of one depth are searched together, so with a
    /// single depth the result is that of one search over every query.
    pub fn retrieve_at(
        &self,
        queries_at: &[(String, u32)],
        current_step: u32,
        settings: &MemorySettings,
    ) -> Retrieval {
        let (queries, depths): (Vec<String>, Vec<u32>) = queries_at
            .iter()
            .map(|(q, d)| (q.chars().take(settings.query_chars).collect::<String>(), *d))
            .filter(|(q, _)| !q.trim().is_empty())
            .unzip();
        let mut best: Vec<Retrieved> = Vec::new();
        let mut pos: HashMap<TripletId, usize> = HashMap::new();
        // Queries without a vector are skipped; `asked` keeps each searched query's
        // position in `queries`.
        let (asked, vectors): (Vec<usize>, Vec<&[f32]>) = queries
            .iter()
            .enumerate()
            .filter_map(|(i, q)| self.query_cache.get(q).map(|v| (i, v.as_slice())))
            .unzip();
        // `--exclude object`: no semantic search (no triplet, no bridge).
        let objects = !settings.excludes(VertexKind::Object);
        let per_query = if objects {
            let mut per_query = vec![Vec::new(); vectors.len()];
            let mut levels: Vec<u32> = asked.iter().map(|&i| depths[i]).collect();
            levels.sort_unstable();
            levels.dedup();
            for depth in levels {
                let (slots, group): (Vec<usize>, Vec<&[f32]>) = vectors
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| depths[asked[*k]] == depth)
                    .map(|(k, v)| (k, *v))
                    .unzip();
                let at_depth = MemorySettings {
                    depth,
                    ..settings.clone()
                };
                let found = strategies::search_many(&self.graph, &group, &at_depth);
                for (k, r) in slots.into_iter().zip(found) {
                    per_query[k] = r;
                }
            }
            per_query
        } else {
            vec![Vec::new(); vectors.len()]
        };
        // Each query's terminals: the vertices of the triplets it matched directly.
        let terminals: Vec<Vec<TripletId>> = per_query
            .iter()
            .map(|rs| rs.iter().filter(|r| r.depth == 0).map(|r| r.id).collect())
            .collect();
        for results in per_query {
            for r in results {
                match pos.get(&r.id) {
                    Some(&i) => {
                        let b = &mut best[i];
                        b.depth = b.depth.min(r.depth);
                        b.similarity = b.similarity.max(r.similarity);
                    }
                    None => {
                        pos.insert(r.id, best.len());
                        best.push(r);
                    }
                }
            }
        }
        // From memory rules 5 the facts this step extracted are searched through but
        // not retrieved: the observation holding them is in working memory already
        // (the reference's `update` drops `new_triplets_str` from the subgraph).
        if settings.revision().drops_fresh_facts() && self.fresh.0 == current_step {
            best.retain(|r| !self.fresh.1.contains(&r.id));
        }
        let mut bridges: Vec<BridgeRecord> = Vec::new();
        let mut bridged: HashSet<TripletId> = HashSet::new();
        if settings.bridge && objects {
            let mut sub: BTreeSet<TripletId> = best.iter().map(|r| r.id).collect();
            let mut budget = settings.width;
            for (k, ids) in terminals.iter().enumerate() {
                let mut names: Vec<&str> = Vec::new();
                for &id in ids {
                    let t = self.graph.triplet(id);
                    for v in [t.subject.as_str(), t.object.as_str()] {
                        if !names.contains(&v) {
                            names.push(v);
                        }
                    }
                }
                for b in bridge_discovery::discover(&self.graph, &names, &sub, budget) {
                    budget -= b.triplets.len();
                    for &id in &b.triplets {
                        sub.insert(id);
                        bridged.insert(id);
                        best.push(Retrieved {
                            id,
                            depth: 0,
                            similarity: 0.0,
                        });
                    }
                    bridges.push(BridgeRecord {
                        query: asked[k],
                        vertex: b.vertex,
                        joins: b.joins,
                        triplets: b
                            .triplets
                            .iter()
                            .map(|id| self.graph.triplet(*id).text())
                            .collect(),
                    });
                }
            }
        }
        let ids: HashSet<TripletId> = best.iter().map(|r| r.id).collect();
        // Thesis vertices (`--thesis`): anchored on the retrieved triplets and matched
        // vertices, or by similarity alone without object vertices.
        let theses: Vec<thesis::Ranked> =
            if settings.thesis && !settings.excludes(VertexKind::Thesis) {
                let anchors = objects
                    .then(|| thesis::anchors(&self.graph, &vectors, best.iter().map(|r| r.id)));
                thesis::rank(&self.graph, &vectors, anchors.as_ref(), thesis::MAX_THESES)
            } else {
                Vec::new()
            };
        let scored = if settings.excludes(VertexKind::Episodic) {
            Vec::new()
        } else if objects {
            retrieval::episodic_search(&self.graph, &ids, settings.episodes, Some(current_step))
        } else {
            let found: HashSet<ThesisId> = theses.iter().map(|r| r.id).collect();
            retrieval::episodic_search_by_theses(
                &self.graph,
                &found,
                settings.episodes,
                Some(current_step),
            )
        };
        let episodes = scored
            .into_iter()
            .map(|s| RetrievedEpisode {
                step: s.step,
                score: s.score,
                n: s.n,
                total: s.total,
                observation: self.graph.episodes()[s.index].observation.clone(),
            })
            .collect();
        Retrieval {
            queries: queries.to_vec(),
            triplets: best
                .into_iter()
                .map(|r| RetrievedTriplet {
                    triplet: self.graph.triplet(r.id).text(),
                    depth: r.depth,
                    similarity: r.similarity,
                    bridge: bridged.contains(&r.id),
                })
                .collect(),
            episodes,
            notes: Vec::new(),
            key_items: Vec::new(),
            bridges,
            theses: theses
                .into_iter()
                .filter_map(|r| {
                    self.graph.thesis(r.id).map(|t| RetrievedThesis {
                        text: t.text.clone(),
                        step: t.step,
                        matched: r.matched,
                        similarity: r.similarity,
                    })
                })
                .collect(),
        }
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
        self.retrieve_list_at(llm, log, &at, queries.step).await
    }

    fn what_if(&self, queries: &Queries<'_>, settings: &MemorySettings) -> Option<Retrieval> {
        Some(self.retrieve_at(&queries.with_depths(settings.depth), queries.step, settings))
    }

    fn graph(&self) -> Option<&AriGraph> {
        Some(&self.graph)
    }

    fn hand_over(&mut self, rules: &crate::profile::Rules) {
        crate::profile::apply_memory(rules, &mut self.settings);
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
