//! Multi-hop question answering over the same memory (paper sections 4.3 and 5.3).
//!
//! Per question, as the authors' `musique_test_big.py` does: a fresh AriGraph is built
//! from the question's paragraphs (each paragraph an episodic vertex with the triplets
//! extracted from it; no outdated-fact check, as the reference's
//! `update_without_retrieve`, unless the run asks for one: [`run::QaPlan`]'s
//! `outdated_check`); the LLM names the key items of the question with a relevance of 1
//! to 3 (`prompts/qa_key_items.md`, the reference's `item_processing_scores_qa`); each is
//! searched to the depth of its relevance; then every paragraph is ranked as the run's
//! plan says ([`EpisodeRanking`]): by default as the reference ranks them, Eq. 1's
//! score over the retrieved triplets plus the question's embedding similarity to the
//! paragraph, each divided by its largest over the paragraphs ([`ranking`]), or by
//! Eq. 1 alone (options that rank episodes their own way keep theirs); at most the top 2
//! go to the answer prompt (the reference's `topk_episodic = 2`). The answer prompt (`prompts/qa_answer.md`, the reference's
//! `get_answer`) asks for a short chain of thought and one direct answer, "Unknown"
//! allowed. The baselines answer from the paragraphs instead: embedding top-3 (`rag`),
//! BM25 top-3 (`bm25`), all of them (`full-context`) (`context.rs`).
//! Metrics: [`metrics`]. The command: `crate::commands::qa`.

mod answer;
mod context;
pub mod data;
pub mod metrics;
pub mod ranking;
pub mod run;

use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::UserError;
use crate::llm::Usage;
use crate::memory::KeyItem;
use crate::memory::temporal::Change;
pub use answer::answer;
pub use context::top_by_bm25;
use metrics::ReferenceCounts;
pub use ranking::{EpisodeRanking, RankedParagraph};

/// Paragraphs the retrieval baselines give the answer prompt (the paper's top-3).
pub const TOP_PARAGRAPHS: usize = 3;
/// Episodic vertices AriGraph gives the answer prompt (the reference's `topk_episodic`).
pub const QA_EPISODES: usize = 2;
/// Highest relevance of a key item (the reference's QA prompt scores 1 to 3).
pub const MAX_RELEVANCE: u32 = 3;
/// Longest direct answer kept, characters.
pub const ANSWER_CHARS: usize = 200;
/// Longest chain of thought kept, characters.
pub const REASONING_CHARS: usize = 1500;

/// The memories `ariadne qa` compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QaMemory {
    /// AriGraph built from the paragraphs; semantic then episodic search.
    Arigraph,
    /// The top 3 paragraphs by embedding similarity to the question.
    Rag,
    /// The top 3 paragraphs by BM25 against the question.
    Bm25,
    /// Every paragraph.
    FullContext,
}

impl QaMemory {
    /// Every memory, in table order.
    pub const ALL: [QaMemory; 4] = [
        QaMemory::Arigraph,
        QaMemory::Rag,
        QaMemory::Bm25,
        QaMemory::FullContext,
    ];

    /// The name on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            QaMemory::Arigraph => "arigraph",
            QaMemory::Rag => "rag",
            QaMemory::Bm25 => "bm25",
            QaMemory::FullContext => "full-context",
        }
    }

    /// Parse a comma-separated list.
    ///
    /// # Errors
    /// An unknown name, with the known ones.
    pub fn parse_list(s: &str) -> Result<Vec<QaMemory>> {
        let mut out = Vec::new();
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let Some(m) = QaMemory::ALL.into_iter().find(|m| m.name() == name) else {
                bail!(UserError::new(format!(
                    "unknown QA memory {name:?}; known: arigraph, rag, bm25, full-context"
                )));
            };
            if !out.contains(&m) {
                out.push(m);
            }
        }
        if out.is_empty() {
            bail!(UserError::new("--memory names no memory"));
        }
        Ok(out)
    }
}

/// What one question gave, one JSON line of `questions.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QaRecord {
    /// The memory.
    pub memory: QaMemory,
    /// The question's id.
    pub id: String,
    /// The question.
    pub question: String,
    /// The gold answer, then its aliases.
    pub answers: Vec<String>,
    /// The direct answer ("" when the LLM gave no usable answer).
    pub prediction: String,
    /// The chain of thought before it.
    pub reasoning: String,
    /// Official exact match (best over the aliases).
    pub em: bool,
    /// Official F1 (best over the aliases).
    pub f1: f64,
    /// The reference script's counts (aliases ignored).
    pub reference: ReferenceCounts,
    /// Key items named by the LLM (AriGraph).
    #[serde(default)]
    pub key_items: Vec<KeyItem>,
    /// Triplets retrieved (AriGraph).
    #[serde(default)]
    pub triplets: Vec<String>,
    /// Thesis vertices retrieved (AriGraph with `--thesis`), shown to the answer call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub theses: Vec<String>,
    /// Reasoning paths mined (AriGraph with `--bridge`), shown to the answer call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Temporal edges into the retrieved facts (AriGraph with `--outdated-check
    /// --retire close`), shown to the answer call; their steps are paragraph numbers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Change>,
    /// Facts the outdated check retired while the graph was built (AriGraph with
    /// `--outdated-check`), `subject, relation, object`, in the order retired.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retired: Vec<String>,
    /// Every paragraph as the reference's ranking scored it, best first (AriGraph
    /// under [`EpisodeRanking::Reference`]; empty under Eq. 1 and for the baselines).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranking: Vec<RankedParagraph>,
    /// Indices of the paragraphs given to the answer prompt.
    pub paragraphs: Vec<usize>,
    /// Indices of the supporting paragraphs.
    pub supporting: Vec<usize>,
    /// Share of the supporting paragraphs among those given (`None` without any).
    pub supporting_recall: Option<f64>,
    /// Triplets in the graph (AriGraph).
    #[serde(default)]
    pub graph_triplets: usize,
    /// Chat calls.
    pub llm_calls: u64,
    /// Embedding calls.
    pub embedding_calls: u64,
    /// Tokens of the chat calls.
    pub usage: Usage,
    /// Rejected answers.
    pub llm_failures: u32,
    /// Answers repaired (read after a fix that kept their meaning).
    #[serde(default)]
    pub llm_repairs: u32,
    /// Items or parts of answers cut or dropped for length or count.
    #[serde(default)]
    pub llm_trimmed: u32,
    /// Items of accepted answers refused as not what was asked (an extraction item
    /// that is not three parts; memory rules 8).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub llm_refused: u32,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Every chat call (prompt, answer, tokens).
    pub calls: Vec<crate::llm::record::CallRecord>,
    /// Every vector embedded (what exact replay serves).
    #[serde(default)]
    pub vectors: Vec<crate::llm::record::VectorRecord>,
}

impl QaRecord {
    /// What exact replay must reproduce: the prediction, both metrics, what was
    /// retrieved and the supporting paragraphs it held (not the timings).
    pub fn outcome(&self) -> serde_json::Value {
        json!({
            "prediction": self.prediction,
            "answers": self.answers,
            "em": self.em,
            "f1": self.f1,
            "reference": self.reference,
            "supporting": self.supporting,
            "supporting_recall": self.supporting_recall,
            "key_items": self.key_items,
            "triplets": self.triplets,
            "theses": self.theses,
            "paths": self.paths,
            "changes": self.changes,
            "retired": self.retired,
            "ranking": self.ranking,
            "paragraphs": self.paragraphs,
            "graph_triplets": self.graph_triplets,
            "llm_refused": self.llm_refused,
        })
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests;
