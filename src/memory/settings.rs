//! The memory's settings as a run records them ([`MemorySettings`], in the manifest),
//! and the versions of the memory rules ([`MemoryRevision`]): which behaviour a run
//! recorded under an older version replays with.

use serde::{Deserialize, Serialize};

pub use super::forms::{AriadneMemForm, PersonalAiForm};
use super::{HopScope, MemoryRevision, Retire, Strategy, VertexKind, retrieval};

/// Importance accumulated since the last reflection that triggers the next one, as in
/// Generative Agents (Park et al. 2023, section 4.2: 150); runs recorded before
/// [`crate::memory::MemorySettings::reflection_threshold`] existed used 40.
pub const REFLECTION_THRESHOLD: f64 = 150.0;
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
    /// Whether an update asks which old facts a new one makes outdated (the paper's
    /// games: yes; its question answering, as the reference's `update_without_retrieve`:
    /// no). Absent in runs recorded before it: yes.
    #[serde(default = "checked", skip_serializing_if = "is_checked")]
    pub outdated_check: bool,
    /// Which edges a BFS hop ranks (runs recorded before this setting existed hopped over
    /// incident edges only).
    #[serde(default = "legacy_hop_scope")]
    pub hop_scope: HopScope,
    /// The semantic-search strategy ([`super::strategies`]): AriGraph's BFS (default; also for
    /// runs recorded before this setting existed) or one of PersonalAI's traversals.
    #[serde(default)]
    pub retrieval: Strategy,
    /// The revision of the memory rules a run follows, so every run replays under the
    /// rules it was recorded with ([`MemoryRevision::CURRENT`] is the current one). 1: the first rules.
    /// 2: spatial facts from moves actually made are pinned (never offered for
    /// deletion; a move overrides a contradicting older spatial fact), the LLM's outdated verdicts are checked against
    /// [`super::relations::may_retire`], the extractor is shown the known facts about the things
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
    pub rules: MemoryRevision,
    /// What a retired fact becomes ([`super::temporal`], AriadneMem's conflict-aware
    /// coarsening): deleted (the paper; the default, also for runs recorded before this
    /// setting) or closed (kept with its interval and a "superseded by" link;
    /// `--retire close`).
    #[serde(default = "legacy_retire")]
    pub retire: Retire,
    /// Skip extraction and the outdated check for an observation that repeats recent
    /// memory ([`super::gating`], AriadneMem's entropy-aware gating; off by default and in runs
    /// recorded before this setting).
    #[serde(default)]
    pub gating: bool,
    /// Join the disconnected parts of what a query retrieved through the vertex that
    /// best connects them in the full graph ([`super::bridge_discovery`], AriadneMem's bridge discovery;
    /// off by default and in runs recorded before this setting).
    #[serde(default)]
    pub bridge: bool,
    /// Thesis vertices ([`super::thesis`], `--thesis`; PersonalAI arXiv:2506.17001, section
    /// III): the extraction call also asks for up to [`super::thesis::MAX_THESES`] complete
    /// statements, stored as hyper-edges over the vertices they mention and retrieved
    /// after the semantic step (off by default and in runs recorded before this setting).
    #[serde(default)]
    pub thesis: bool,
    /// Traversal constraints ([`super::thesis`], `--exclude`): kinds of vertices left out of
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
    /// How PersonalAI's options run (`--thesis`, `--exclude`, `--retrieval
    /// water-circles`; [`PersonalAiForm`]): as its paper describes them in new runs, the
    /// first adaptation in runs recorded before this setting.
    #[serde(default)]
    pub personalai: PersonalAiForm,
    /// How AriadneMem's options run (`--retire close`, `--bridge`; [`AriadneMemForm`]):
    /// as its paper describes them in new runs, the first adaptation in runs recorded
    /// before this setting.
    #[serde(default)]
    pub ariadnemem: AriadneMemForm,
}

impl MemorySettings {
    /// Set what the profile's rules decide (the verdict guard, known facts, admitted
    /// exits and move overrides), leaving every other setting as it is.
    pub fn follow(&mut self, rules: &crate::profile::Rules) {
        self.verdict_guard = Some(rules.verdict_guard);
        self.known_facts = Some(rules.known_facts);
        self.admitted_exits = Some(rules.admitted_exits);
        self.move_overrides = Some(rules.move_overrides);
    }

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

    /// The verdict guard of the run, if it has one ([`super::guard::Guard::of`] its
    /// memory rules).
    pub fn guard(&self) -> Option<super::guard::Guard> {
        self.guards()
            .then(|| super::guard::Guard::of(self.revision()))
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

    /// Why an observation's extraction depends on what earlier updates put in the graph,
    /// if it does: the outdated check asks about the graph's facts, gating compares with
    /// earlier observations, Ariadne's prompt with the known facts shows them. `None`:
    /// extractions can be asked ahead and applied in order (the reference's QA reading).
    pub fn extraction_reads_the_graph(&self) -> Option<&'static str> {
        if self.outdated_check {
            Some("the outdated check asks about the facts earlier paragraphs added")
        } else if self.gating {
            Some("gating compares each observation with the earlier ones")
        } else if self.extraction_prompt() == (ExtractionPrompt::Ariadne { known: true }) {
            Some("the extraction prompt shows the known facts (rule known-facts)")
        } else {
            None
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

    /// The memory-rules version (an unknown number was refused when the settings were
    /// read).
    pub fn revision(&self) -> MemoryRevision {
        self.rules
    }

    /// The depths d a user may set (`--depth`, config `depth`).
    pub const DEPTH: std::ops::RangeInclusive<usize> = 0..=16;
    /// The widths w a user may set (`--width`, config `width`).
    pub const WIDTH: std::ops::RangeInclusive<usize> = 1..=1000;
    /// The episode counts k a user may set (`--episodic-k`, config `episodic_k`).
    pub const EPISODES: std::ops::RangeInclusive<usize> = 0..=100;

    /// Whether retrieval leaves this kind of vertex out (`--exclude`).
    pub fn excludes(&self, kind: VertexKind) -> bool {
        self.exclude.contains(&kind)
    }

    /// Whether Eq. 1 over the retrieved triplets ranks the episodes, as in the paper's
    /// AriGraph: episodic memory on (k > 0, not `--exclude episodic`), the object
    /// vertices kept (not `--exclude object`, which ranks by theses), and no strategy
    /// ranking them its own way (WaterCircles as PersonalAI's paper runs it).
    pub fn episodes_by_eq1(&self) -> bool {
        let own_ranking =
            self.retrieval == Strategy::WaterCircles && self.personalai.water_circles_items();
        let excluded = self.excludes(VertexKind::Episodic) || self.excludes(VertexKind::Object);
        self.episodes > 0 && !excluded && !own_ranking
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

/// RAG's entries retrieved per step under the reference code (`pipeline_smartrag.py`:
/// `n_retrieve = 5`).
pub const RAG_ENTRIES: usize = 5;

fn legacy_reflection_threshold() -> f64 {
    40.0
}

fn legacy_summary_words() -> Option<u32> {
    Some(150)
}

fn legacy_rules() -> MemoryRevision {
    MemoryRevision::V1
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
    /// guard ([`super::relations::may_retire`]) the 1.5B local model, given the paper's scope,
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

fn checked() -> bool {
    true
}

fn is_checked(b: &bool) -> bool {
    *b
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
            outdated_check: true,
            hop_scope: HopScope::All,
            retrieval: Strategy::Bfs,
            rules: MemoryRevision::CURRENT,
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
            reflection_threshold: REFLECTION_THRESHOLD,
            summary_words: None,
            personalai: PersonalAiForm::Paper,
            ariadnemem: AriadneMemForm::Paper,
        }
    }
}
