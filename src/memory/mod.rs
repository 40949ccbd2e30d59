//! AriGraph memory (paper section 2): the graph ([`graph`]), its update from each
//! observation (triplet extraction, outdated-edge detection and replacement, episodic
//! vertex and edge) and two-step retrieval (semantic BFS, then episodic search).

pub mod baselines;
pub mod export;
pub mod graph;

use std::collections::{HashMap, HashSet};

use minijinja::context;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use graph::{AriGraph, Episode, Retrieved, ScoredEpisode, Triplet, TripletId};

use anyhow::Result;

use crate::llm::{CallLog, EmbedKind, Llm};

/// Retrieval and extraction parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MemorySettings {
    /// Semantic search depth d (BFS levels; paper Algorithm 2).
    pub depth: u32,
    /// Semantic search width w (triplets per query per level).
    pub width: usize,
    /// Episodic vertices returned, k (Eq. 1 ranking).
    pub episodes: usize,
    /// Most triplets accepted from one extraction.
    pub max_triplets: usize,
    /// Longest observation text used as a retrieval query, characters.
    pub query_chars: usize,
    /// Which existing triplets are checked for being outdated by a new one.
    pub outdated_scope: OutdatedScope,
}

/// Which existing triplets the outdated-edge check considers (paper section 2 gathers
/// "all semantic edges incident to" the new triplets' vertices).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum OutdatedScope {
    /// Edges whose subject is the subject of a new triplet (default, conservative): a
    /// fact that only shares its object with a new fact ("bed, is in, bedroom" beside a
    /// new "bedroom, has exit, east") is about another thing and is never offered for
    /// deletion. Measured on the 1.5B local model: the paper's scope let it delete every
    /// fact about the room on the second step.
    Subject,
    /// Every edge incident to a vertex of a new triplet (the paper's E_s^rel).
    Incident,
}

impl Default for MemorySettings {
    fn default() -> Self {
        Self {
            depth: 2,
            width: 6,
            episodes: 2,
            max_triplets: 15,
            query_chars: 600,
            outdated_scope: OutdatedScope::Subject,
        }
    }
}

/// What the agent saw at a step, as the extraction prompt needs it.
#[derive(Debug, Clone, Serialize)]
pub struct Observed<'a> {
    /// Step number (1-based).
    pub step: u32,
    /// The observation text.
    pub observation: &'a str,
    /// The inventory text.
    pub inventory: &'a str,
    /// Current room, if known.
    pub room: &'a str,
    /// The action that led here ("" at step 1).
    pub action: &'a str,
    /// The episode's goal.
    pub goal: &'a str,
}

/// What one update did (recorded per step in the trajectory).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct UpdateReport {
    /// Triplets the LLM extracted (normalized, distinct).
    pub extracted: Vec<Triplet>,
    /// Triplets new to the graph.
    pub added: Vec<Triplet>,
    /// Triplets removed as outdated.
    pub removed: Vec<Triplet>,
    /// How many existing triplets were checked for being outdated.
    pub checked: usize,
}

/// A retrieved triplet as recorded.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RetrievedTriplet {
    /// `subject, relation, object`.
    pub triplet: String,
    /// BFS depth that found it.
    pub depth: u32,
    /// Similarity to the query or vertex that found it.
    pub similarity: f32,
}

/// A retrieved episode (a past observation) as recorded.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RetrievedEpisode {
    /// Its step.
    pub step: u32,
    /// Its score: Eq. 1 for AriGraph, cosine for RAG, the summed normalized score for
    /// Simulacra, 0 for full history.
    pub score: f64,
    /// n_i (AriGraph; 0 otherwise).
    #[serde(default)]
    pub n: usize,
    /// N_i (AriGraph; 0 otherwise).
    #[serde(default)]
    pub total: usize,
    /// The observation.
    pub observation: String,
}

/// The result of two-step retrieval.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Retrieval {
    /// The queries used.
    pub queries: Vec<String>,
    /// Semantic search result (union over queries), in order found.
    pub triplets: Vec<RetrievedTriplet>,
    /// Episodic search result, best first.
    pub episodes: Vec<RetrievedEpisode>,
    /// Free-text memory for working memory: the running summary, Simulacra's
    /// reflections, Reflexion's lessons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The memory designs the paper compares (section 4.1, Table 4), selected by `--memory`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryDesign {
    /// AriGraph: semantic triplets + episodic vertices, two-step retrieval (section 2).
    Arigraph,
    /// AriGraph without episodic search (the paper's "w/o episodic" ablation).
    ArigraphNoEpisodic,
    /// Every past observation and action, unbounded ("Full history").
    FullHistory,
    /// An LLM-maintained running summary plus the last few steps ("Summary").
    Summary,
    /// Top-k past observations by embedding similarity to observation + plan ("RAG").
    Rag,
    /// Generative Agents' memory stream: recency + importance + relevance, with
    /// reflections (Park et al. 2023; "Simulacra").
    Simulacra,
    /// Several trials; after a failed one the LLM writes a lesson for the next
    /// (Shinn et al. 2023; "Reflexion").
    Reflexion,
}

impl MemoryDesign {
    /// Every design, in the order of the paper's Table 4.
    pub const ALL: [MemoryDesign; 7] = [
        MemoryDesign::FullHistory,
        MemoryDesign::Summary,
        MemoryDesign::Rag,
        MemoryDesign::Reflexion,
        MemoryDesign::Simulacra,
        MemoryDesign::Arigraph,
        MemoryDesign::ArigraphNoEpisodic,
    ];

    /// The name used on the command line and in logs.
    pub fn name(self) -> &'static str {
        match self {
            MemoryDesign::Arigraph => "arigraph",
            MemoryDesign::ArigraphNoEpisodic => "arigraph-no-episodic",
            MemoryDesign::FullHistory => "full-history",
            MemoryDesign::Summary => "summary",
            MemoryDesign::Rag => "rag",
            MemoryDesign::Simulacra => "simulacra",
            MemoryDesign::Reflexion => "reflexion",
        }
    }

    /// Whether the design has the knowledge graph that navigation and exploration use.
    pub fn has_graph(self) -> bool {
        matches!(
            self,
            MemoryDesign::Arigraph | MemoryDesign::ArigraphNoEpisodic
        )
    }
}

/// What a memory is asked with at a step.
#[derive(Debug, Clone, Copy)]
pub struct Queries<'a> {
    /// Step number.
    pub step: u32,
    /// The current observation.
    pub observation: &'a str,
    /// The goal.
    pub goal: &'a str,
    /// The current plan's sub-goals.
    pub plan: &'a [String],
}

impl Queries<'_> {
    /// AriGraph's query list: the observation, the goal, each sub-goal.
    pub fn list(&self) -> Vec<String> {
        let mut q = vec![self.observation.to_string(), self.goal.to_string()];
        q.extend(self.plan.iter().cloned());
        q
    }

    /// One query text: the observation and the plan (RAG, Simulacra).
    pub fn joined(&self, max_chars: usize) -> String {
        let mut q: String = self.observation.chars().take(max_chars).collect();
        if !self.plan.is_empty() {
            q.push_str("\nPlan: ");
            q.push_str(&self.plan.join("; "));
        }
        q
    }
}

/// A long-term memory the agent loop calls: update with each observation, retrieve
/// working-memory content for the plan and action prompts. Every implementation logs
/// its LLM calls in the step's [`CallLog`], so designs are compared on equal terms.
#[async_trait::async_trait]
pub trait MemoryModule: Send + Sync {
    /// Which design this is.
    fn design(&self) -> MemoryDesign;

    /// Take in the observation of a step.
    ///
    /// # Errors
    /// Transport errors (bad LLM answers are counted, not raised).
    async fn update(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport>;

    /// Retrieve what goes into working memory for this step.
    ///
    /// # Errors
    /// Transport errors.
    async fn retrieve(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        queries: &Queries<'_>,
    ) -> Result<Retrieval>;

    /// The game's answer to the step's action (full history keeps it).
    fn observe_result(&mut self, _step: u32, _action: &str, _feedback: &str) {}

    /// Retrieval under other settings from cached vectors only (AriGraph's what-if).
    fn what_if(&self, _queries: &Queries<'_>, _settings: &MemorySettings) -> Option<Retrieval> {
        None
    }

    /// The knowledge graph, for designs that have one.
    fn graph(&self) -> Option<&AriGraph> {
        None
    }

    /// The knowledge graph, mutable (navigation records moves and exits in it).
    fn graph_mut(&mut self) -> Option<&mut AriGraph> {
        None
    }

    /// Embed whatever was added outside [`MemoryModule::update`] (navigation's triplets).
    ///
    /// # Errors
    /// Transport errors.
    async fn sync(&mut self, _llm: &Llm, _log: &mut CallLog) -> Result<()> {
        Ok(())
    }
}

/// Build the memory of a design. `lessons` are Reflexion's lessons from earlier trials.
pub fn build(
    design: MemoryDesign,
    settings: MemorySettings,
    lessons: Vec<String>,
) -> Box<dyn MemoryModule> {
    match design {
        MemoryDesign::Arigraph => Box::new(AriGraphMemory::new(settings)),
        MemoryDesign::ArigraphNoEpisodic => Box::new(AriGraphMemory::new(MemorySettings {
            episodes: 0,
            ..settings
        })),
        MemoryDesign::FullHistory => Box::new(baselines::FullHistory::default()),
        MemoryDesign::Summary => Box::new(baselines::Summary::default()),
        MemoryDesign::Rag => Box::new(baselines::Rag::new(settings)),
        MemoryDesign::Simulacra => Box::new(baselines::Simulacra::new(settings)),
        MemoryDesign::Reflexion => Box::new(baselines::Reflexion::new(lessons)),
    }
}

/// The AriGraph memory with its settings and a cache of query embeddings.
#[derive(Debug, Default)]
pub struct AriGraphMemory {
    /// The graph.
    pub graph: AriGraph,
    /// Parameters.
    pub settings: MemorySettings,
    query_cache: HashMap<String, Vec<f32>>,
}

#[derive(Deserialize)]
struct RawTriplet {
    subject: String,
    relation: String,
    object: String,
}

#[derive(Deserialize)]
struct Extraction {
    triplets: Vec<RawTriplet>,
}

#[derive(Deserialize)]
struct Outdated {
    outdated: Vec<usize>,
}

fn extraction_schema(max: usize) -> Value {
    json!({
        "type": "object",
        "properties": {
            "triplets": {
                "type": "array",
                "maxItems": max,
                "items": {
                    "type": "object",
                    "properties": {
                        "subject": {"type": "string", "maxLength": 60},
                        "relation": {"type": "string", "maxLength": 40},
                        "object": {"type": "string", "maxLength": 60}
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
            query_cache: HashMap::new(),
        }
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
        let messages = llm.prompts.render("extract_triplets", seen)?;
        let extraction: Option<Extraction> = llm
            .ask(
                log,
                "extract_triplets",
                messages,
                extraction_schema(self.settings.max_triplets),
                500,
                |_: &Extraction| Ok(()),
            )
            .await?;
        let mut seen_set = HashSet::new();
        for raw in extraction.map(|e| e.triplets).unwrap_or_default() {
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
        let candidates: Vec<TripletId> = self
            .graph
            .incident_to(vertices)
            .into_iter()
            .filter(|id| {
                let t = self.graph.triplet(*id);
                !seen_set.contains(t)
                    && (scope == OutdatedScope::Incident || subjects.contains(t.subject.as_str()))
            })
            .collect();
        report.checked = candidates.len();
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
                if self.graph.remove(id) {
                    report.removed.push(self.graph.triplet(id).clone());
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
        self.embed_missing(llm, log).await?;
        self.graph
            .add_episode(seen.step, seen.observation.to_string(), ids);
        Ok(report)
    }

    /// Embed every triplet (as a passage) and vertex (as a query) that has no vector yet.
    ///
    /// # Errors
    /// Transport errors.
    pub async fn embed_missing(&mut self, llm: &Llm, log: &mut CallLog) -> Result<()> {
        let missing = self.graph.triplets_missing_embeddings();
        let vectors = llm
            .embed(
                log,
                missing.iter().map(|(_, t)| t.clone()).collect(),
                EmbedKind::Passage,
            )
            .await?;
        for ((id, _), v) in missing.into_iter().zip(vectors) {
            self.graph.set_triplet_embedding(id, v);
        }
        let vertices = self.graph.vertices_missing_embeddings();
        let vectors = llm.embed(log, vertices.clone(), EmbedKind::Query).await?;
        for (name, v) in vertices.into_iter().zip(vectors) {
            self.graph.set_vertex_embedding(name, v);
        }
        Ok(())
    }

    /// Two-step retrieval (Algorithm 1): semantic search for each query, union of the
    /// triplets, then episodic search over that union (excluding `current_step`).
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
        let queries: Vec<String> = queries
            .iter()
            .map(|q| {
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
        Ok(self.retrieve_with(&queries, current_step))
    }

    /// The pure part of retrieval, over cached query vectors (queries without a vector
    /// are skipped).
    pub fn retrieve_with(&self, queries: &[String], current_step: u32) -> Retrieval {
        self.retrieve_with_settings(queries, current_step, &self.settings)
    }

    /// [`AriGraphMemory::retrieve_with`] under other d, w, k (no network: cached vectors only).
    pub fn retrieve_with_settings(
        &self,
        queries: &[String],
        current_step: u32,
        settings: &MemorySettings,
    ) -> Retrieval {
        let queries: Vec<String> = queries
            .iter()
            .map(|q| q.chars().take(settings.query_chars).collect::<String>())
            .filter(|q| !q.trim().is_empty())
            .collect();
        let mut best: Vec<Retrieved> = Vec::new();
        let mut pos: HashMap<TripletId, usize> = HashMap::new();
        let vectors: Vec<&[f32]> = queries
            .iter()
            .filter_map(|q| self.query_cache.get(q).map(Vec::as_slice))
            .collect();
        for results in self
            .graph
            .semantic_search_many(&vectors, settings.depth, settings.width)
        {
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
        let ids: HashSet<TripletId> = best.iter().map(|r| r.id).collect();
        let episodes = self
            .graph
            .episodic_search(&ids, settings.episodes, Some(current_step))
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
                })
                .collect(),
            episodes,
            notes: Vec::new(),
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
        self.retrieve_list(llm, log, &queries.list(), queries.step)
            .await
    }

    fn what_if(&self, queries: &Queries<'_>, settings: &MemorySettings) -> Option<Retrieval> {
        Some(self.retrieve_with_settings(&queries.list(), queries.step, settings))
    }

    fn graph(&self) -> Option<&AriGraph> {
        Some(&self.graph)
    }

    fn graph_mut(&mut self) -> Option<&mut AriGraph> {
        Some(&mut self.graph)
    }

    async fn sync(&mut self, llm: &Llm, log: &mut CallLog) -> Result<()> {
        self.embed_missing(llm, log).await
    }
}
