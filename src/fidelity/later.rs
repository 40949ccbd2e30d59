//! The later seeds' options in the Fidelity table: per switch, the paper it comes from,
//! what Ariadne does, and where it keeps an adaptation, the adaptation named with its
//! reason. These are switches on either profile (off unless asked for), so both
//! profiles' tables hold the same rows. PersonalAI is Menschikov et al. 2025
//! (arXiv:2506.17001); AriadneMem is "Threading the Maze of Lifelong Memory for LLM
//! Agents".

use crate::memory::gating::{THRESHOLD, WINDOW};
use crate::memory::thesis::MAX_THESES;

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
    pub adaptations: &'static str,
}

/// Every option, in the order of `--help`.
pub fn later_options() -> Vec<LaterOption> {
    vec![
        LaterOption {
            switch: "`--retrieval astar`",
            source: "PersonalAI (arXiv:2506.17001) section III.D, Appendix E",
            does: "the triplets along A* paths between every pair of matched vertices (unit edge cost, heuristic 1 - cosine of the vertex embeddings; depth 10, 150 vertices expanded per pair)".into(),
            adaptations: "the vertices matched to a query are its nearest by embedding (`MATCHED_VERTICES`, 3), not the entities an LLM extracts from it (no extra call per query); a pair with no path gives nothing (PersonalAI falls back to the path to the last vertex expanded)",
        },
        LaterOption {
            switch: "`--retrieval water-circles`",
            source: "PersonalAI section III.D, Appendix E",
            does: "breadth-first rings from the matched vertices; triplets where circles meet ranked by how many meet (25 chained), else each circle's nearest (6 other)".into(),
            adaptations: "the paper's budgets of 15 thesis and 15 episodic triples are not applied inside the traversal: theses and episodes are not walked through (they are ranked after the search, by `--thesis` and Eq. 1)",
        },
        LaterOption {
            switch: "`--retrieval beam`",
            source: "PersonalAI section III.D, Appendix E",
            does: "the best paths from each matched vertex by summed -ln(cosine) to the query (depth 5, 10 paths, no revisits, overlap allowed, mean alpha 0.75)".into(),
            adaptations: "matched vertices as for `astar`",
        },
        LaterOption {
            switch: "`--retrieval mixed`, `water-circles+beam`, `astar+beam`, `astar+water-circles`",
            source: "PersonalAI section III.D (mixed), section IV.B (the hybrids WC + BS, A* + BS, A* + WC)",
            does: "the union of the strategies' triplets in the order named, each once, then PersonalAI's filter (at most w x d triplets, the most similar first)".into(),
            adaptations: "the paper names the hybrids but gives no rule for combining them: they combine as the mixed algorithm does",
        },
        LaterOption {
            switch: "`--thesis`",
            source: "PersonalAI section III.B (thesis vertices, hyper-edges)",
            does: format!("the extraction call also writes up to {MAX_THESES} theses a step, each a hyper-edge over the known vertices it names; after the search, up to {MAX_THESES} theses holding a retrieved or matched vertex are shown as \"Statements remembered\""),
            adaptations: "a thesis's entities are found by name matching, not written by the LLM (no extra call); theses are ranked after the search, not traversed as hyper-edges; stale theses are never retired (the paper's Appendix B prompt is not run)",
        },
        LaterOption {
            switch: "`--exclude object,thesis,episodic`",
            source: "PersonalAI section IV.B (traversal constraints)",
            does: "leaves kinds of vertices out of retrieval: `object` the semantic search, `thesis` the theses, `episodic` Eq. 1".into(),
            adaptations: "a kind is dropped as a whole retrieval stage, not skipped during a traversal (Ariadne's traversals walk object vertices only)",
        },
        LaterOption {
            switch: "`--retire close`",
            source: "AriadneMem Phase I (conflict-aware coarsening)",
            does: "a fact an outdated verdict retires is kept with its steps and a \"superseded by\" link instead of deleted, out of retrieval and prompts".into(),
            adaptations: "the closed fact is not shown to the LLM (AriadneMem keeps the temporal edge for reasoning), and a repeated fact is not merged with an updated timestamp",
        },
        LaterOption {
            switch: "`--gating`",
            source: "AriadneMem Phase I (entropy-aware gating)",
            does: format!("no extraction or outdated check (no LLM call) for an observation that repeats one of the last {WINDOW} (same text, or cosine at least {THRESHOLD}, with the same inventory) and names no new word"),
            adaptations: "redundancy is measured by text and embedding similarity to the last observations and new words, not by an entropy estimate",
        },
        LaterOption {
            switch: "`--bridge`",
            source: "AriadneMem Phase II (algorithmic bridge discovery)",
            does: "retrieved triplets in disconnected parts are joined through the vertex that reaches the most parts in the fewest hops (a star Steiner tree), its paths added".into(),
            adaptations: "the bridge is chosen by hop counts, not by semantic connectivity within a time window; its triplets join the flat fact list (no DFS path mining, no paths given to the LLM as structure)",
        },
    ]
}

/// The later seeds' options as Markdown.
pub fn later_table() -> String {
    let mut out = String::from(
        "\nThe later seeds' options (switches on either profile, off unless asked for):\n\n| switch | source | what it does | adaptations kept, with their reasons |\n|---|---|---|---|\n",
    );
    for o in later_options() {
        let adaptations = if o.adaptations.is_empty() {
            "none"
        } else {
            o.adaptations
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            o.switch, o.source, o.does, adaptations
        ));
    }
    out
}
