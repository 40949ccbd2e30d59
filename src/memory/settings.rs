//! The memory's settings as a run records them ([`MemorySettings`], in the manifest),
//! and the versions of the memory rules ([`MemoryRevision`]): which behaviour a run
//! recorded under an older version replays with.

use serde::{Deserialize, Serialize};

pub use super::forms::{AriadneMemForm, PersonalAiForm};
use super::{HopScope, Retire, Strategy, VertexKind, baselines, retrieval};

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
    /// rules it was recorded with ([`RULES`] is the current one). 1: the first rules.
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
    pub rules: u32,
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
    /// settings were loaded (`MemoryRevision::from_number`); an unknown one reads as the
    /// current version.
    pub fn revision(&self) -> MemoryRevision {
        MemoryRevision::from_number(self.rules).unwrap_or(MemoryRevision::CURRENT)
    }

    /// The depths d a user may set (`--depth`, config `depth`).
    pub const DEPTH: std::ops::RangeInclusive<usize> = 0..=16;
    /// The widths w a user may set (`--width`, config `width`).
    pub const WIDTH: std::ops::RangeInclusive<usize> = 1..=1000;
    /// The episode counts k a user may set (`--episodes`, config `episodes`).
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

/// The current revision of the memory rules (see [`MemorySettings::rules`]).
pub const RULES: u32 = 8;

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
    /// The verdict guard reads relations as functions of their subject: a new fact
    /// retires only an old fact giving the same function of the same subject another
    /// value ([`super::guard::Guard::Functional`]).
    V6,
    /// The reference's outdated check (`graphs/contriever_graph.py`, `update`): its
    /// prompt (`prompt_refining_items`) answered with replacement pairs, no candidate
    /// naming a direction or holding one of [`REFERENCE_EXCLUDED`], the named old facts
    /// deleted by exact match unless both ends are visited locations; Eq. 1's top k
    /// without the episodes of the last [`RECENT_OBSERVATIONS`] steps; the extraction
    /// prompt in the reference's messages.
    V7,
    /// Extraction items read one by one as the reference reads a triplet's text
    /// (`utils/utils.py:26-40`, `process_triplets`): an item that is not exactly three
    /// parts is refused alone and counted, a `subject, relation, object` string
    /// repaired ([`super::arigraph`]'s `read_item`); before, one item of another
    /// shape refused the whole answer and a part holding several was kept whole. The
    /// QA answer call's prompt is the reference's whole (`musique_test_big.py`,
    /// `get_answer`: its indentation, its closing `Your answer:`, lists as Python
    /// writes them).
    V8,
}

/// Words that keep a fact out of the outdated check's candidates under memory rules 7:
/// the reference's `words_to_exclude` (`graphs/contriever_graph.py`, `update`), matched
/// as substrings of the fact's text `subject, relation, object`.
pub const REFERENCE_EXCLUDED: [&str; 7] = [
    "west",
    "east",
    "south",
    "north",
    "associated with",
    "used for",
    "to be",
];

/// The recent observations whose episodes Eq. 1's top k leaves out under memory rules
/// 7: the reference's `n_prev = 5` (`pipeline_arigraph.py`; `graphs/contriever_graph.py`
/// drops from the top k the observations already in working memory).
pub const RECENT_OBSERVATIONS: u32 = 5;

impl MemoryRevision {
    /// The version new runs record.
    pub const CURRENT: MemoryRevision = MemoryRevision::V8;

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
            6 => Ok(Self::V6),
            7 => Ok(Self::V7),
            8 => Ok(Self::V8),
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
    /// The verdict guard reads relations as functions of their subject.
    pub fn functional_guard(self) -> bool {
        self >= Self::V6
    }
    /// The outdated check is the reference's: its prompt, its candidate filter
    /// ([`REFERENCE_EXCLUDED`]), exact replacement pairs, visited-location links kept.
    pub fn reference_outdated_check(self) -> bool {
        self >= Self::V7
    }
    /// The reference's extraction prompt is sent as the reference sends it: its
    /// instructions in the user message after the system prompt "You are a helpful
    /// assistant", ending with its cue `Extracted triplets:`.
    pub fn reference_messages(self) -> bool {
        self >= Self::V7
    }
    /// The baselines' calls carry the reference's prompts: the summary's
    /// (`pipeline_summary.py`), Simulacra's importance rating (`pipeline_smartrag.py`,
    /// `get_score`) and Reflexion's lesson (`prompts/prompts.py`, `reflex_prompt`).
    pub fn reference_prompts(self) -> bool {
        self >= Self::V7
    }
    /// Eq. 1's top k leaves out the episodes of the last [`RECENT_OBSERVATIONS`] steps.
    pub fn skips_recent_episodes(self) -> bool {
        self >= Self::V7
    }

    /// Extraction items are read one by one, each exactly three parts or refused
    /// (memory rules 8).
    pub fn reads_items_as_triplets(self) -> bool {
        self >= Self::V8
    }

    /// The QA answer prompt is the reference's whole (memory rules 8).
    pub fn reference_qa_answer(self) -> bool {
        self >= Self::V8
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
            personalai: PersonalAiForm::Paper,
            ariadnemem: AriadneMemForm::Paper,
        }
    }
}
