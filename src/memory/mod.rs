//! AriGraph memory (paper section 2): the graph ([`graph`]), its update from each
//! observation (triplet extraction, outdated-edge detection and replacement, episodic
//! vertex and edge) and two-step retrieval (semantic BFS, then episodic search).

//!
//! - [`graph`]: the graph as data; [`retrieval`]: its search as pure functions;
//! - [`strategies`]: the semantic-search strategies (`--retrieval`: AriGraph's BFS,
//!   PersonalAI's A*, WaterCircles, BeamSearch, mixed);
//! - [`arigraph`]: the AriGraph memory (update and two-step retrieval);
//! - [`baselines`]: the memories the paper compares (one file each);
//! - [`design`]: the designs and what each is (a bench's rows, with their labels and
//!   costs, are [`crate::rows`]'s; the options a user sets and which designs read them,
//!   [`crate::settings::options`]'s; the memory a design names is built by the episode);
//! - [`export`]: DOT and JSON views of a graph;
//! - [`temporal`], [`gating`], [`bridge_discovery`], [`paths`]: AriadneMem's conflict-aware
//!   coarsening, entropy-aware gating, bridge discovery and path mining, options of the
//!   AriGraph memory; [`forms`]: the forms of the later seeds' options;
//! - [`thesis`]: PersonalAI's thesis vertices and traversal constraints, options of the
//!   AriGraph memory; [`hyper`]: its walk through thesis and episodic hyper-edges.

pub mod arigraph;
pub mod baselines;
pub mod bridge_discovery;
pub mod design;
pub mod export;
pub mod forms;
pub mod gating;
pub mod graph;
pub mod guard;
pub mod hyper;
pub mod ids;
pub mod int_dot;
pub mod layout;
pub mod matched;
pub mod names;
pub mod paths;
pub mod relations;
pub mod retrieval;
pub mod revision;
pub mod scan;
pub mod settings;
pub mod similarity;
pub mod strategies;
pub mod strategy;
pub mod temporal;
pub mod thesis;
pub mod vectors;
pub mod vertex_kind;

use serde::{Deserialize, Serialize};

pub use arigraph::AriGraphMemory;
pub use design::MemoryDesign;
pub use graph::{AriGraph, EpisodicVertex, Triplet};
pub use ids::{ThesisId, TripletId};
pub use retrieval::{HopScope, Retrieved, ScoredEpisode};
pub use revision::{MemoryRevision, RECENT_OBSERVATIONS, REFERENCE_EXCLUDED, RULES};
pub use settings::{
    AriadneMemForm, ExtractionPrompt, MemorySettings, OutdatedScope, PersonalAiForm, RAG_ENTRIES,
};
pub use strategy::Strategy;
pub use temporal::Retire;
pub use vertex_kind::VertexKind;

use anyhow::Result;

use crate::llm::{CallLog, Llm};

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
    /// A passage of text rather than a game step (multi-hop QA): the reference's
    /// extraction prompt shows it as it is, with no `Game step #N` header
    /// (`graphs/contriever_graph.py`, `update_without_retrieve`).
    pub passage: bool,
    /// The game's true state (only the oracle memory reads it; never in a prompt).
    #[serde(skip)]
    pub facts: Option<&'a [crate::env::Fact]>,
    /// The last steps as the reference's working memory shows them (`Observation:
    /// ...\nAction taken: ...`, oldest first, one after another; "" at step 1 and for a
    /// passage): the summary baseline's prompt shows them (`pipeline_summary.py`).
    #[serde(skip)]
    pub recent: &'a str,
    /// The plan before this step's revision, as the reference shows it (its `plan0`);
    /// "" for a passage. Simulacra's importance and query read it
    /// (`pipeline_smartrag.py`).
    #[serde(skip)]
    pub plan: &'a str,
}

impl Observed<'_> {
    /// The observation as the reference's pipelines show it: `Game step #N`, the
    /// observation, `Inventory: ...` (`pipeline_arigraph.py`, `run`).
    pub fn as_reference(&self) -> String {
        format!(
            "Game step #{}\n{}\nInventory: {}",
            self.step, self.observation, self.inventory
        )
    }
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
    /// Outdated verdicts of the LLM refused by the guard ([`relations::may_retire`]):
    /// no new fact of the same kind shares a vertex with the old one.
    #[serde(default)]
    pub rejected_verdicts: usize,
    /// The observation added nothing new to recent memory ([`gating`], `--gating`):
    /// extraction and the outdated check were skipped, with no LLM call.
    #[serde(default, skip_serializing_if = "is_false")]
    pub gated: bool,
    /// The statements taken in as thesis vertices this step (`--thesis`; [`thesis`]),
    /// including ones already held.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub theses: Vec<String>,
    /// The older statements retired this step as stale (`--thesis` as the paper runs
    /// it; PersonalAI Appendix B).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retired_theses: Vec<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A retrieved triplet as recorded.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RetrievedTriplet {
    /// `subject, relation, object`.
    pub triplet: String,
    /// BFS depth that found it (0 for a bridge triplet).
    pub depth: u32,
    /// Similarity to the query or vertex that found it (0 for a bridge triplet).
    pub similarity: f32,
    /// Added by bridge discovery ([`bridge_discovery`], `--bridge`), not by the semantic search.
    #[serde(default, skip_serializing_if = "is_false")]
    pub bridge: bool,
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

/// A retrieved thesis vertex as recorded (`--thesis`; [`thesis::rank`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RetrievedThesis {
    /// The statement.
    pub text: String,
    /// The step of the observation it came from.
    pub step: u32,
    /// Anchors (retrieved-triplet or query-matched vertices) in its hyper-edge; 0 when
    /// ranked by similarity alone (`--exclude object`).
    pub matched: usize,
    /// Highest cosine similarity of its embedding to a query.
    pub similarity: f32,
    /// The hop of the hyper-edge walk that reached it ([`hyper`]; `None` when ranked
    /// without a walk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hop: Option<u32>,
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
    /// The bridges that joined disconnected parts of the retrieved subgraph
    /// ([`bridge_discovery`], `--bridge`); their triplets are also in `triplets`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bridges: Vec<bridge_discovery::BridgeRecord>,
    /// Retrieved thesis vertices, best first (`--thesis`; [`thesis`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub theses: Vec<RetrievedThesis>,
    /// The temporal edges into retrieved facts (`--retire close` as AriadneMem runs it;
    /// [`temporal::History::changes`]), shown to the LLM.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<temporal::Change>,
    /// Reasoning paths of 2 or 3 hops between a query's terminals (`--bridge` as
    /// AriadneMem runs it; [`paths`]), serialized, shown to the LLM.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// The key items searched, each at its relevance (the paper's profile; empty when
    /// the queries were the observation, goal and sub-goals).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_items: Vec<KeyItem>,
}

/// An entity the LLM named as key to the current observation and plan, with its
/// relevance (1 or 2 in games, 1 to 3 in QA: the reference's scales) used as its search depth (the reference code's
/// `item_processing_scores` in `agents/parent_agent.py`, searched by
/// `graphs/contriever_graph.py` with `max_depth = relevance`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyItem {
    /// The entity, as the LLM wrote it.
    pub entity: String,
    /// Its relevance (1 or 2 in games, 1 to 3 in QA): the depth of its semantic search.
    pub relevance: u32,
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
    /// The key items of the step (the paper's profile): when present, AriGraph searches
    /// each item to the depth of its relevance instead of the observation, goal and
    /// sub-goals to depth d.
    pub items: Option<&'a [KeyItem]>,
    /// The recent steps working memory shows whole (a game's agent: its history; 0
    /// outside games): from memory rules 7 their episodes are left out of Eq. 1's top
    /// k, as the reference leaves out the observations already in working memory.
    pub recent: u32,
}

impl Queries<'_> {
    /// AriGraph's query list with each query's depth: the key items at their
    /// relevance, else the observation, the goal and each sub-goal at `depth`.
    pub fn with_depths(&self, depth: u32) -> Vec<(String, u32)> {
        match self.items {
            Some(items) => items
                .iter()
                .map(|i| (i.entity.clone(), i.relevance))
                .collect(),
            None => self.list().into_iter().map(|q| (q, depth)).collect(),
        }
    }

    /// AriGraph's query list without key items: the observation, the goal, each
    /// sub-goal.
    pub fn list(&self) -> Vec<String> {
        let mut q = vec![self.observation.to_string(), self.goal.to_string()];
        q.extend(self.plan.iter().cloned());
        q
    }

    /// One query text: the observation and the plan (RAG, Simulacra).
    pub fn joined(&self, max_chars: usize) -> String {
        let mut q: String = crate::text::first_chars(self.observation, max_chars);
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

    /// Follow the memory rules of `rules` from now on (a profile handed over to
    /// mid-run); designs without such rules ignore it.
    fn hand_over(&mut self, _rules: &crate::profile::Rules) {}

    /// Retrieval under other settings from cached vectors only (AriGraph's what-if).
    fn what_if(&self, _queries: &Queries<'_>, _settings: &MemorySettings) -> Option<Retrieval> {
        None
    }

    /// The knowledge graph, for designs that have one.
    fn graph(&self) -> Option<&AriGraph> {
        None
    }

    /// How the reference's pipeline of this design lays out working memory
    /// ([`layout::Layout`]; the graph's by default).
    fn layout(&self) -> layout::Layout {
        layout::Layout::Graph
    }

    /// The past entries this design shows as item 2 of the reference's working memory,
    /// given this step's `retrieval` and the `recent` steps: for a ranked layout its
    /// retrieved entries with the recent steps ([`ranked_past`]); empty for a design
    /// that shows the recent steps themselves.
    fn past(&self, retrieval: &Retrieval, recent: &[layout::RecentStep<'_>]) -> Vec<String> {
        match self.layout() {
            layout::Layout::Ranked => ranked_past(retrieval, recent),
            _ => Vec::new(),
        }
    }

    /// How many episodic memories a step's retrieval returns at most (AriGraph's k of
    /// Eq. 1; the reference's working memory names the number); 0 for the others.
    fn episodes_shown(&self) -> usize {
        0
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

/// The ranked designs' past (`pipeline_smartrag.py:88`: `Observations: ...\nAction taken:
/// ...`): the retrieved notes first (reflections, lessons), then the retrieved episodes,
/// then the recent steps, each once.
fn ranked_past(retrieval: &Retrieval, recent: &[layout::RecentStep<'_>]) -> Vec<String> {
    let mut past: Vec<String> = retrieval.notes.clone();
    let last = recent
        .iter()
        .map(|h| format!("Observations: {}\nAction taken: {}", h.seen, h.action));
    for entry in retrieval
        .episodes
        .iter()
        .map(|e| format!("Observations: {}", e.observation))
        .chain(last)
    {
        if !past.contains(&entry) {
            past.push(entry);
        }
    }
    past
}
