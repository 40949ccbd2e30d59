//! The later seeds' options in the Fidelity table: per switch, the paper it comes from,
//! what Ariadne does, and where it keeps an adaptation, the adaptation named with its
//! reason. These are switches on either profile (off unless asked for), so both
//! profiles' tables hold the same rows. PersonalAI is Menschikov et al. 2025
//! (arXiv:2506.17001); AriadneMem is "Threading the Maze of Lifelong Memory for LLM
//! Agents".

use crate::memory::bridge_discovery::WINDOW_STEPS;
use crate::memory::gating::{THRESHOLD, WINDOW};
use crate::memory::paths::{MAX_HOPS, MAX_PATHS};
use crate::memory::strategies::water_circles::Params as Circles;
use crate::memory::thesis::{MAX_THESES, PAPER_THESES};

/// One later seed's option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaterOption {
    /// The switch (`--retrieval beam`).
    pub switch: &'static str,
    /// The paper and the part of it.
    pub source: &'static str,
    /// What Ariadne does.
    pub does: String,
    /// The adaptations kept, each with its reason ("" when it is the paper's).
    pub adaptations: String,
}

/// Every option, in the order of `--help`.
pub fn later_options() -> Vec<LaterOption> {
    vec![
        LaterOption {
            switch: "`--retrieval astar`",
            source: "PersonalAI (arXiv:2506.17001) section III.D, Appendix E",
            does: "the triplets along A* paths between every pair of matched vertices (unit edge cost, heuristic 1 - cosine of the vertex embeddings; depth 10, 150 vertices expanded per pair)".into(),
            adaptations: "the vertices matched to a query are its nearest by embedding (`MATCHED_VERTICES`, 3), not the entities an LLM extracts from it (no extra call per query); a pair with no path gives nothing (PersonalAI falls back to the path to the last vertex expanded)".into(),
        },
        LaterOption {
            switch: "`--retrieval water-circles`",
            source: "PersonalAI section III.D, Appendix E",
            does: format!(
                "breadth-first rings from the matched vertices; triplets where circles meet ranked by how many meet ({} chained), else each circle's nearest ({} other); thesis and episodic vertices ranked by how many of their entities the circles reach ({} hyper-triples, {} episodic; these episodes replace Eq. 1)",
                Circles::PAPER.chain_triplets,
                Circles::PAPER.other_triplets,
                Circles::PAPER.hyper_triples,
                Circles::PAPER.episodic_triples
            ),
            adaptations: "the rings spread over triplets, and theses and episodes are ranked by the entities the rings reach, not spread through (the paper does not say whether its rings pass through hyper-edges); the hybrids with WaterCircles rank theses and episodes as the other strategies do (the hyper-edge walk and Eq. 1): the paper gives no rule for them; runs recorded before this form ranked triplets only".into(),
        },
        LaterOption {
            switch: "`--retrieval beam`",
            source: "PersonalAI section III.D, Appendix E",
            does: "the best paths from each matched vertex by summed -ln(cosine) to the query (depth 5, 10 paths, no revisits, overlap allowed, mean alpha 0.75)".into(),
            adaptations: "matched vertices as for `astar`".into(),
        },
        LaterOption {
            switch: "`--retrieval mixed`, `water-circles+beam`, `astar+beam`, `astar+water-circles`",
            source: "PersonalAI section III.D (mixed), section IV.B (the hybrids WC + BS, A* + BS, A* + WC)",
            does: "the union of the strategies' triplets in the order named, each once, then PersonalAI's filter (at most w x d triplets, the most similar first)".into(),
            adaptations: "the paper names the hybrids but gives no rule for combining them: they combine as the mixed algorithm does".into(),
        },
        LaterOption {
            switch: "`--thesis`",
            source: "PersonalAI section III.A-B (thesis vertices, hyper-edges), Appendix B (stale theses)",
            does: format!("the extraction call also writes theses, each with the entities it links (its hyper-edge; up to {PAPER_THESES} a step); after the search a walk goes d hops through thesis and episodic hyper-edges from the retrieved and matched vertices, adding the facts it reaches (w a hop, under the cut-off) and up to {PAPER_THESES} theses, shown as \"Statements remembered\" (and to `ariadne qa`'s answer call); when a new thesis shares an entity with older ones, one call asks which of them it makes outdated, and those are retired"),
            adaptations: "theses come from the triplet extraction call, not a call of their own, and the prompts are Ariadne's wording of the paper's tasks (its Appendix A and B tables are not in the reference code); the budget of 15 theses is WaterCircles' 15 hyper-triples, which the paper gives for no other strategy; the stale-thesis check runs where AriGraph's outdated check runs (games, and `ariadne qa --outdated-check`; PersonalAI's own experiments disabled deletion); runs recorded before this form replay the first adaptation (3 theses a step found by name matching, ranked after the search, never retired)".into(),
        },
        LaterOption {
            switch: "`--exclude object,thesis,episodic`",
            source: "PersonalAI section IV.B (traversal constraints)",
            does: "with `--thesis`, a kind is left out of the hyper-edge walk itself: `thesis` walks and retrieves no thesis, `episodic` walks no episode (and retrieves none), `object` retrieves no triplet (no semantic search: the walk starts at the matched vertices and goes through hyper-edges only)".into(),
            adaptations: format!("without `--thesis` there is no walk, and a kind drops its retrieval stage (`object` the semantic search, `episodic` Eq. 1): Ariadne's strategies walk object vertices only; runs recorded before this form dropped stages with `--thesis` too (and took at most {MAX_THESES} theses)"),
        },
        LaterOption {
            switch: "`--retire close`",
            source: "AriadneMem Phase I (conflict-aware coarsening: merge and link)",
            does: "a fact an outdated verdict retires is kept with its steps and a directed temporal edge to the fact that replaced it, instead of deleted; out of retrieval, but where the replacing fact is retrieved the edge is shown to the LLM (\"Changes remembered: key, is in, locker -> key, is in, inventory (changed at step 5)\"; in `ariadne qa --outdated-check`, \"How facts changed\" with the number of the paragraph that changed it); a fact stated again is merged, its timestamp updated".into(),
            adaptations: "\"semantics align but details differ\" is AriGraph's outdated verdict (with the extended profile's guard), not a similarity test; at most w edges a step; in `ariadne qa` only with `--outdated-check` (the reference's QA path has no outdated check, so nothing would be retired), which reads the paragraphs in the file's order as time; runs recorded before this form replay the first adaptation (the closed fact out of every prompt)".into(),
        },
        LaterOption {
            switch: "`--gating`",
            source: "AriadneMem Phase I (entropy-aware gating)",
            does: format!("no extraction or outdated check (no LLM call) for an observation that repeats one of the last {WINDOW} (same text, or cosine at least {THRESHOLD}, with the same inventory) and names no new word"),
            adaptations: "redundancy is measured by text and embedding similarity to the last observations and new words, not by an entropy estimate".into(),
        },
        LaterOption {
            switch: "`--bridge`",
            source: "AriadneMem Phase II (algorithmic bridge discovery, multi-hop path mining, topology-aware synthesis)",
            does: format!("retrieved triplets in disconnected parts are joined through the vertex that reaches the most parts within 2 hops and maximizes semantic connectivity (the sum of its best cosine to a terminal of each part), over facts last stated within {WINDOW_STEPS} steps of the terminals' facts; its paths are added; then reasoning paths of 2 to {MAX_HOPS} hops between the terminals are mined by DFS over what was retrieved and shown to the LLM (at most {MAX_PATHS}, as `alice -[met]-> bob -[went to]-> paris`)"),
            adaptations: format!("the valid time interval's width ({WINDOW_STEPS} steps either side) and the {MAX_PATHS}-path bound are Ariadne's (the paper names neither); the bridge is one Steiner vertex per join (a star), within 2 hops of each part; runs recorded before this form replay the first adaptation (the bridge chosen by hop counts, no paths)"),
        },
    ]
}

/// The later seeds' options as Markdown.
pub fn later_table() -> String {
    let mut out = format!(
        "\n{LATER_HEADING}\n\n| switch | source | what it does | adaptations kept, with their reasons |\n|---|---|---|---|\n"
    );
    for o in later_options() {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            o.switch,
            o.source,
            o.does,
            super::or_none(&o.adaptations)
        ));
    }
    out
}

/// The line that introduces the later seeds' options in both forms of the table.
pub const LATER_HEADING: &str =
    "The later seeds' options (switches on either profile, off unless asked for):";
