//! The forms of the later seeds' options a run follows, resolved once at load: the first
//! adaptation (runs recorded before these settings) or the option as its paper
//! describes it (new runs). The engine asks their named predicates, never the variant.

use serde::{Deserialize, Serialize};

/// The form of PersonalAI's options (Menschikov et al. 2025, arXiv:2506.17001) a run
/// follows ([`super::MemorySettings::personalai`]), resolved once at load; the engine asks its
/// named predicates. Only runs with `--thesis`, `--exclude` or `--retrieval
/// water-circles` differ between the forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PersonalAiForm {
    /// The first adaptation (every run recorded before this setting): up to 3 theses a
    /// step whose entities are found by name matching, ranked after the search and
    /// never retired; WaterCircles ranks triplets only; a traversal constraint drops a
    /// whole retrieval stage.
    #[default]
    Adapted,
    /// As the paper describes them (sections III.B-D, IV.B, Appendices B and E): the
    /// extractor writes each thesis with the entities it links; theses and episodic
    /// vertices are hyper-edges a traversal walks through, and an excluded kind is left
    /// out of that walk; stale theses are detected by the LLM and retired; WaterCircles
    /// ranks theses and episodes by entity intersections with its budgets of 15
    /// hyper-triples, 15 episodic, 25 chained and 6 other.
    Paper,
}

impl PersonalAiForm {
    /// The extractor writes each thesis with its entities (its hyper-edge).
    pub fn theses_with_entities(self) -> bool {
        self == Self::Paper
    }
    /// Theses and episodic vertices are walked through as hyper-edges, and
    /// `--exclude` applies during that walk.
    pub fn walks_hyper_edges(self) -> bool {
        self == Self::Paper
    }
    /// Older theses a new thesis may make outdated are asked about (Appendix B).
    pub fn retires_stale_theses(self) -> bool {
        self == Self::Paper
    }
    /// WaterCircles ranks theses and episodes by entity intersections with its four
    /// budgets (Appendix E).
    pub fn water_circles_items(self) -> bool {
        self == Self::Paper
    }
    /// Most theses taken from one extraction and most retrieved in one step.
    pub fn theses_per_step(self) -> usize {
        match self {
            Self::Adapted => super::thesis::MAX_THESES,
            Self::Paper => super::thesis::PAPER_THESES,
        }
    }
}

/// The form of AriadneMem's options ("AriadneMem: Threading the Maze of Lifelong Memory
/// for LLM Agents") a run follows ([`super::MemorySettings::ariadnemem`]). Only runs
/// with `--retire close` or `--bridge` differ between the forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AriadneMemForm {
    /// The first adaptation (every run recorded before this setting): a closed fact is
    /// out of every prompt; the bridge vertex is chosen by hop counts and its triplets
    /// join the flat fact list.
    #[default]
    Adapted,
    /// As the paper describes them (Phase I, conflict-aware coarsening; Phase II,
    /// bridge discovery, multi-hop path mining, topology-aware synthesis): a fact stated
    /// again is merged with its timestamp updated; the temporal edge from a closed fact
    /// to its successor is shown to the LLM where the successor is retrieved; the bridge
    /// vertex maximizes semantic connectivity between the terminals within a time
    /// window; reasoning paths of up to 3 hops are mined by DFS and given to the LLM.
    Paper,
}

impl AriadneMemForm {
    /// The temporal edges (closed fact -> successor) of retrieved facts are shown.
    pub fn shows_temporal_edges(self) -> bool {
        self == Self::Paper
    }
    /// The bridge vertex maximizes semantic connectivity within a time window.
    pub fn bridges_by_similarity(self) -> bool {
        self == Self::Paper
    }
    /// Reasoning paths between the terminals are mined by DFS and shown.
    pub fn mines_paths(self) -> bool {
        self == Self::Paper
    }
}
