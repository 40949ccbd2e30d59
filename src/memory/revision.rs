//! The memory-rules versions ([`super::MemorySettings::rules`]): each a variant with
//! what it changed, asked through named predicates; a run replays under its own.

/// The current revision of the memory rules (see [`super::MemorySettings::rules`]).
pub const RULES: u32 = 8;

/// A memory-rules version ([`super::MemorySettings::rules`]), resolved once at load; the
/// engine asks its named predicates, never the number.
///
/// Stored as its number (`"rules": 8` in a manifest); a number this build does not know
/// is refused when the file is read ([`MemoryRevision::from_number`]'s one line).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "u32", into = "u32")]
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

impl TryFrom<u32> for MemoryRevision {
    type Error = String;
    fn try_from(n: u32) -> Result<Self, String> {
        Self::from_number(n)
    }
}

impl From<MemoryRevision> for u32 {
    fn from(r: MemoryRevision) -> u32 {
        r.number()
    }
}

impl std::fmt::Display for MemoryRevision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl MemoryRevision {
    /// Every version, oldest first.
    pub const ALL: [MemoryRevision; 8] = [
        Self::V1,
        Self::V2,
        Self::V3,
        Self::V4,
        Self::V5,
        Self::V6,
        Self::V7,
        Self::V8,
    ];

    /// The number a file records.
    pub fn number(self) -> u32 {
        match self {
            Self::V1 => 1,
            Self::V2 => 2,
            Self::V3 => 3,
            Self::V4 => 4,
            Self::V5 => 5,
            Self::V6 => 6,
            Self::V7 => 7,
            Self::V8 => 8,
        }
    }

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
