//! AriGraph memory (paper section 2): the graph ([`graph`]), its update from each
//! observation (triplet extraction, outdated-edge detection and replacement, episodic
//! vertex and edge) and two-step retrieval (semantic BFS, then episodic search).

//!
//! - [`graph`]: the graph as data; [`retrieval`]: its search as pure functions;
//! - [`strategies`]: the semantic-search strategies (`--retrieval`: AriGraph's BFS,
//!   PersonalAI's A*, WaterCircles, BeamSearch, mixed);
//! - [`arigraph`]: the AriGraph memory (update and two-step retrieval);
//! - [`baselines`]: the memories the paper compares (one file each);
//! - [`registry`]: every design's name, table label, cost and constructor;
//! - [`export`]: DOT and JSON views of a graph;
//! - [`temporal`], [`gating`], [`bridge_discovery`]: AriadneMem's conflict-aware coarsening,
//!   entropy-aware gating and bridge discovery, options of the AriGraph memory;
//! - [`thesis`]: PersonalAI's thesis vertices and traversal constraints, options of the
//!   AriGraph memory.

pub mod arigraph;
pub mod baselines;
pub mod bridge_discovery;
pub mod export;
pub mod gating;
pub mod graph;
pub mod ids;
pub mod int_dot;
pub mod names;
pub mod oracle;
pub mod registry;
pub mod relations;
pub mod retrieval;
pub mod scan;
pub mod similarity;
pub mod strategies;
pub mod temporal;
pub mod thesis;
pub mod truth;
pub mod vectors;

use serde::{Deserialize, Serialize};

pub use arigraph::AriGraphMemory;
pub use graph::{AriGraph, EpisodicVertex, Triplet};
pub use ids::{ThesisId, TripletId};
pub use registry::{MemoryDesign, Variant, VariantOption};
pub use retrieval::{HopScope, Retrieved, ScoredEpisode};
pub use strategies::Strategy;
pub use temporal::Retire;
pub use thesis::VertexKind;

use anyhow::Result;

use crate::llm::{CallLog, Llm};

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
    /// Which edges a BFS hop ranks (runs recorded before this setting existed hopped over
    /// incident edges only).
    #[serde(default = "legacy_hop_scope")]
    pub hop_scope: HopScope,
    /// The semantic-search strategy ([`strategies`]): AriGraph's BFS (default; also for
    /// runs recorded before this setting existed) or one of PersonalAI's traversals.
    #[serde(default)]
    pub retrieval: Strategy,
    /// The revision of the memory rules a run follows, so every run replays under the
    /// rules it was recorded with ([`RULES`] is the current one). 1: the first rules.
    /// 2: spatial facts from moves actually made are pinned (never offered for
    /// deletion; a move overrides a contradicting older spatial fact), the LLM's outdated verdicts are checked against
    /// [`relations::may_retire`], the extractor is shown the known facts about the things
    /// in view, and Simulacra's recency decays from a memory's last access. 3: the
    /// extractor answers with compact triplets (`["s", "r", "o"]`), and the outdated check
    /// is asked only about facts that the verdict guard would let a new triplet retire
    /// (no call when there is none). 4: a spatial fact not proven by a move is retired
    /// when it disagrees with one that is (same room and direction to another room, or
    /// the same two rooms joined by other directions), after every memory update and
    /// move; and a route move the game refused retires the unproven facts that sent
    /// the agent that way ([`crate::nav::Explorer::reconcile`]). 5: the reference's
    /// extraction prompt with the previous step's retrieved facts, and a step's own
    /// extracted facts left out of its retrieved facts ([`MemoryRevision::V5`]).
    #[serde(default = "legacy_rules")]
    pub rules: u32,
    /// What a retired fact becomes ([`temporal`], AriadneMem's conflict-aware
    /// coarsening): deleted (the paper; the default, also for runs recorded before this
    /// setting) or closed (kept with its interval and a "superseded by" link;
    /// `--retire close`).
    #[serde(default = "legacy_retire")]
    pub retire: Retire,
    /// Skip extraction and the outdated check for an observation that repeats recent
    /// memory ([`gating`], AriadneMem's entropy-aware gating; off by default and in runs
    /// recorded before this setting).
    #[serde(default)]
    pub gating: bool,
    /// Join the disconnected parts of what a query retrieved through the vertex that
    /// best connects them in the full graph ([`bridge_discovery`], AriadneMem's bridge discovery;
    /// off by default and in runs recorded before this setting).
    #[serde(default)]
    pub bridge: bool,
    /// Thesis vertices ([`thesis`], `--thesis`; PersonalAI arXiv:2506.17001, section
    /// III): the extraction call also asks for up to [`thesis::MAX_THESES`] complete
    /// statements, stored as hyper-edges over the vertices they mention and retrieved
    /// after the semantic step (off by default and in runs recorded before this setting).
    #[serde(default)]
    pub thesis: bool,
    /// Traversal constraints ([`thesis`], `--exclude`): kinds of vertices left out of
    /// retrieval, sorted, never all three (empty by default and in runs recorded before
    /// this setting).
    #[serde(default)]
    pub exclude: Vec<VertexKind>,
    /// The semantic search's similarity cut-off: a triplet whose cosine to its query is
    /// below it is neither kept nor expanded (the reference code's
    /// `post_retrieve_threshold`, [`retrieval::PAPER_CUTOFF`]); `None` in runs recorded
    /// before it (no cut-off) and with `--cutoff 0`.
    #[serde(default)]
    pub cutoff: Option<f32>,
    /// Rule `verdict-guard` ([`crate::profile::Rule::VerdictGuard`]); `None` in runs
    /// recorded before profiles: on from memory rules 2 (see [`MemorySettings::guards`]).
    #[serde(default)]
    pub verdict_guard: Option<bool>,
    /// Rule `known-facts`; `None` in runs recorded before it: the extractor sees the
    /// known facts from memory rules 2 (see [`MemorySettings::extraction_prompt`]).
    #[serde(default)]
    pub known_facts: Option<bool>,
    /// Rule `admitted-exits`; `None` in runs recorded before profiles: always on.
    #[serde(default)]
    pub admitted_exits: Option<bool>,
    /// Rule `move-overrides`; `None` in runs recorded before profiles: on from memory
    /// rules 4.
    #[serde(default)]
    pub move_overrides: Option<bool>,
    /// RAG's entries retrieved; `None` in runs recorded before it: `episodes`.
    #[serde(default)]
    pub rag_entries: Option<usize>,
    /// RAG's entries hold the observation and the action taken from it (the reference's
    /// `pipeline_smartrag.py`); off in runs recorded before it (the observation alone).
    #[serde(default)]
    pub rag_with_action: bool,
    /// Simulacra's reflection threshold: the importance accumulated since the last
    /// reflection that triggers the next (Generative Agents: 150; runs recorded before
    /// this setting: 40).
    #[serde(default = "legacy_reflection_threshold")]
    pub reflection_threshold: f64,
    /// The summary baseline's cap in words, said in its prompt (`None`: no cap, as the
    /// reference's `pipeline_summary.py`; runs recorded before this setting: 150).
    #[serde(default = "legacy_summary_words")]
    pub summary_words: Option<u32>,
}

impl MemorySettings {
    /// The settings a run of memory-rules version `rules` recorded before profiles
    /// existed reads as (for recording the replay fixtures of older versions).
    ///
    /// # Errors
    /// A version this build does not know.
    pub fn legacy(rules: u32) -> Result<Self, String> {
        MemoryRevision::from_number(rules)?;
        serde_json::from_value(serde_json::json!({
            "depth": 2, "width": 6, "episodes": 2, "max_triplets": 15, "query_chars": 600,
            "outdated_scope": "incident", "hop_scope": "all", "retrieval": "bfs",
            "rules": rules
        }))
        .map_err(|e| e.to_string())
    }

    /// Whether outdated verdicts are checked against relation kinds (rule
    /// `verdict-guard`; in runs recorded before profiles, from memory rules 2).
    pub fn guards(&self) -> bool {
        self.verdict_guard
            .unwrap_or_else(|| self.revision().guards_verdicts())
    }

    /// Whether the outdated check is asked only about facts the guard would let a new
    /// triplet retire (with the guard, from memory rules 3).
    pub fn prefilters(&self) -> bool {
        self.guards() && self.revision().prefilters_candidates()
    }

    /// Which extraction prompt a run uses: from memory rules 5 the reference's, unless
    /// rule `known-facts`; before, Ariadne's (with the known facts from rules 2).
    pub fn extraction_prompt(&self) -> ExtractionPrompt {
        let rev = self.revision();
        let known = self.known_facts.unwrap_or_else(|| rev.shows_known_facts());
        if rev.reference_extraction() && !known {
            ExtractionPrompt::Reference
        } else {
            ExtractionPrompt::Ariadne { known }
        }
    }

    /// Whether the exits the game admits are written into the graph (rule
    /// `admitted-exits`; in runs recorded before profiles, always).
    pub fn admits_exits(&self) -> bool {
        self.admitted_exits.unwrap_or(true)
    }

    /// Whether moves override contradicting extracted spatial facts (rule
    /// `move-overrides`; in runs recorded before profiles, from memory rules 4).
    pub fn overrides_moves(&self) -> bool {
        self.move_overrides
            .unwrap_or_else(|| self.revision().overrides_moves())
    }

    /// RAG's k: [`MemorySettings::rag_entries`], else `episodes`.
    pub fn rag_k(&self) -> usize {
        self.rag_entries.unwrap_or(self.episodes)
    }

    /// The memory-rules version as its typed enum. The number was checked when the
    /// settings were loaded ([`MemoryRevision::check`]); an unknown one reads as the
    /// current version.
    pub fn revision(&self) -> MemoryRevision {
        MemoryRevision::from_number(self.rules).unwrap_or(MemoryRevision::CURRENT)
    }

    /// Whether retrieval leaves this kind of vertex out (`--exclude`).
    pub fn excludes(&self, kind: VertexKind) -> bool {
        self.exclude.contains(&kind)
    }
}

/// The extraction prompt of a run ([`MemorySettings::extraction_prompt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtractionPrompt {
    /// The reference's `prompt_extraction_current` (`prompts/extract_reference.md`): the
    /// observation and the previous step's retrieved facts as the example.
    Reference,
    /// Ariadne's prompt (`prompts/extract_triplets.md`): location, last action,
    /// observation, inventory, and with `known` the known facts about things in view.
    Ariadne {
        /// Whether the known facts about the things in view are shown.
        known: bool,
    },
}

/// The current revision of the memory rules (see [`MemorySettings::rules`]).
pub const RULES: u32 = 5;

/// RAG's entries retrieved per step under the reference code (`pipeline_smartrag.py`:
/// `n_retrieve = 5`).
pub const RAG_ENTRIES: usize = 5;

/// A memory-rules version ([`MemorySettings::rules`]), resolved once at load; the
/// engine asks its named predicates, never the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MemoryRevision {
    /// The first rules.
    V1,
    /// Moves pinned, the verdict guard, known facts shown to the extractor, Simulacra's
    /// recency from last access, `go to` targets among visited rooms, the unknown goal.
    V2,
    /// Compact triplets; the outdated check asked only about facts the guard allows.
    V3,
    /// Moves override contradicting extracted spatial facts.
    V4,
    /// The reference's extraction: its prompt, with the previous step's retrieved facts
    /// as the example (Ariadne's prompt with the known facts in view only under rule
    /// `known-facts`); the facts extracted at a step are left out of that step's
    /// retrieved facts (`graphs/contriever_graph.py`, `update`).
    V5,
}

impl MemoryRevision {
    /// The version new runs record.
    pub const CURRENT: MemoryRevision = MemoryRevision::V5;

    /// The version of a recorded number.
    ///
    /// # Errors
    /// A number this build does not know, in one line naming the versions it knows.
    pub fn from_number(n: u32) -> Result<Self, String> {
        match n {
            1 => Ok(Self::V1),
            2 => Ok(Self::V2),
            3 => Ok(Self::V3),
            4 => Ok(Self::V4),
            5 => Ok(Self::V5),
            _ => Err(format!(
                "memory rules version {n} is unknown to this build of Ariadne, which knows versions 1 to {RULES}; replay it with the build that recorded it"
            )),
        }
    }

    /// Spatial facts of moves are pinned, `go to` targets are visited rooms.
    pub fn grounds_moves(self) -> bool {
        self >= Self::V2
    }
    /// Outdated verdicts are checked against relation kinds (before profiles).
    pub fn guards_verdicts(self) -> bool {
        self >= Self::V2
    }
    /// The extractor is shown the known facts about the things in view.
    pub fn shows_known_facts(self) -> bool {
        self >= Self::V2
    }
    /// Simulacra's recency decays from a memory's last access.
    pub fn recency_from_access(self) -> bool {
        self >= Self::V2
    }
    /// A game without an objective gets a goal said to be unknown (and Cooking games
    /// the paper's instructions), not the first observation.
    pub fn states_unknown_goal(self) -> bool {
        self >= Self::V2
    }
    /// Triplets are asked for as 3-string arrays.
    pub fn compact_triplets(self) -> bool {
        self >= Self::V3
    }
    /// With the guard, the outdated check is asked only about facts it allows.
    pub fn prefilters_candidates(self) -> bool {
        self >= Self::V3
    }
    /// Moves override contradicting extracted spatial facts (before profiles).
    pub fn overrides_moves(self) -> bool {
        self >= Self::V4
    }
    /// The extraction follows the reference (its prompt unless rule `known-facts`).
    pub fn reference_extraction(self) -> bool {
        self >= Self::V5
    }
    /// The facts extracted at a step are left out of that step's retrieved facts.
    pub fn drops_fresh_facts(self) -> bool {
        self >= Self::V5
    }
}

fn legacy_reflection_threshold() -> f64 {
    40.0
}

fn legacy_summary_words() -> Option<u32> {
    Some(150)
}

fn legacy_rules() -> u32 {
    1
}

fn legacy_retire() -> Retire {
    Retire::Delete
}

fn legacy_hop_scope() -> HopScope {
    HopScope::Incident
}

/// Which existing triplets the outdated-edge check considers (paper section 2 gathers
/// "all semantic edges incident to" the new triplets' vertices).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutdatedScope {
    /// Edges whose subject is the subject of a new triplet (a departure, conservative):
    /// a fact that only shares its object with a new fact ("bed, is in, bedroom" beside a
    /// new "bedroom, has exit, east") is never offered for deletion. Before the verdict
    /// guard ([`relations::may_retire`]) the 1.5B local model, given the paper's scope,
    /// deleted every fact about the room on the second step.
    Subject,
    /// Every edge incident to a vertex of a new triplet (the paper's E_s^rel; default).
    Incident,
}

impl std::str::FromStr for OutdatedScope {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "subject" => Ok(OutdatedScope::Subject),
            "incident" => Ok(OutdatedScope::Incident),
            _ => Err(format!(
                "unknown outdated scope {s:?}; use incident or subject"
            )),
        }
    }
}

impl Default for MemorySettings {
    fn default() -> Self {
        Self {
            depth: 2,
            width: 6,
            episodes: 2,
            max_triplets: crate::llm::bounds::TRIPLETS,
            query_chars: 600,
            outdated_scope: OutdatedScope::Incident,
            hop_scope: HopScope::All,
            retrieval: Strategy::Bfs,
            rules: RULES,
            retire: Retire::Delete,
            gating: false,
            bridge: false,
            thesis: false,
            exclude: Vec::new(),
            cutoff: Some(retrieval::PAPER_CUTOFF),
            verdict_guard: Some(false),
            known_facts: Some(false),
            admitted_exits: Some(false),
            move_overrides: Some(false),
            rag_entries: Some(RAG_ENTRIES),
            rag_with_action: true,
            reflection_threshold: baselines::simulacra::REFLECTION_THRESHOLD,
            summary_words: None,
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
    /// The game's true state (only the oracle memory reads it; never in a prompt).
    #[serde(skip)]
    pub facts: Option<&'a [crate::env::Fact]>,
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
    /// The key items searched, each at its relevance (the paper's profile; empty when
    /// the queries were the observation, goal and sub-goals).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_items: Vec<KeyItem>,
}

/// An entity the LLM named as key to the current observation and plan, with its
/// relevance (1 or 2) used as its search depth (the reference code's
/// `item_processing_scores` in `agents/parent_agent.py`, searched by
/// `graphs/contriever_graph.py` with `max_depth = relevance`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyItem {
    /// The entity, as the LLM wrote it.
    pub entity: String,
    /// Its relevance, 1 or 2: the depth of its semantic search.
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
