//! Multi-hop question answering over the same memory (paper sections 4.3 and 5.3).
//!
//! Per question, as the authors' `musique_test_big.py` does: a fresh AriGraph is built
//! from the question's paragraphs (each paragraph an episodic vertex with the triplets
//! extracted from it; no outdated-fact check, as the reference's
//! `update_without_retrieve`, unless the run asks for one: [`answer`]'s
//! `outdated_check`); the LLM names the key items of the question with a
//! relevance of 1 to 3 (`prompts/qa_key_items.md`, the reference's
//! `item_processing_scores_qa`); each is searched to the depth of its relevance, and the
//! top 2 episodic vertices are ranked against the question (the reference's
//! `topk_episodic = 2`); the answer prompt (`prompts/qa_answer.md`) asks for a short
//! chain of thought and one direct answer, "Unknown" allowed. The baselines answer from
//! the paragraphs instead: embedding top-3 (`rag`), BM25 top-3 (`bm25`), all of them
//! (`full-context`). Metrics: [`metrics`]. The command: `crate::commands::qa`.

pub mod data;
pub mod metrics;
pub mod run;

use std::time::Instant;

use anyhow::{Result, bail};
use minijinja::context;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::agent::{KeyItemsAnswer, key_items_schema_up_to};
use crate::error::UserError;
use crate::llm::bounds::{self, Bounded};
use crate::llm::{CallLog, EmbedKind, Llm, Usage};
use crate::memory::temporal::Change;
use crate::memory::{AriGraphMemory, KeyItem, MemoryModule, MemorySettings, Observed, Queries};
use data::{Format, Question};
use metrics::ReferenceCounts;

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

    /// The memory as the option check sees it ([`crate::memory::options::check`]): the
    /// AriGraph memory reads the retrieval and extraction options
    /// ([`crate::memory::options::qa_arigraph_reads`]), the check's scope and `--retire`
    /// acting only with `outdated_check`; RAG, BM25 and the full context read none
    /// (their [`TOP_PARAGRAPHS`] paragraphs are fixed).
    pub fn reading(self, outdated_check: bool) -> crate::memory::options::Row {
        use crate::memory::options::{Row, qa_arigraph_reads};
        let arigraph = self == QaMemory::Arigraph;
        Row {
            outdated_check,
            ..Row::reading(self.name().to_string(), |o| {
                arigraph && qa_arigraph_reads(o)
            })
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
            "paragraphs": self.paragraphs,
            "graph_triplets": self.graph_triplets,
        })
    }
}

#[derive(Debug, Deserialize)]
struct AnswerQa {
    chain_of_thoughts: String,
    direct_answer: String,
}

impl Bounded for AnswerQa {
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cut(
            &mut self.chain_of_thoughts,
            REASONING_CHARS,
            "chain_of_thoughts",
            &mut notes,
        );
        bounds::cut(
            &mut self.direct_answer,
            ANSWER_CHARS,
            "direct_answer",
            &mut notes,
        );
        notes
    }
}

fn answer_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "chain_of_thoughts": {"type": "string", "maxLength": REASONING_CHARS},
            "direct_answer": {"type": "string", "maxLength": ANSWER_CHARS}
        },
        "required": ["chain_of_thoughts", "direct_answer"],
        "additionalProperties": false
    })
}

/// Answer one question with one memory.
///
/// With `outdated_check` (`ariadne qa --outdated-check`; a departure from the
/// reference's `update_without_retrieve`), AriGraph runs the profile's outdated-fact
/// check on each paragraph in the file's order, asked as facts read from texts
/// (`prompts/qa_outdated.md`), so a fact a later paragraph changes is retired as
/// `settings.retire` says; with [`crate::memory::Retire::Close`] the temporal edges
/// into the retrieved facts reach the answer call ("How facts changed").
///
/// # Errors
/// Transport errors from the endpoints and prompt errors; a bad answer is an empty
/// prediction, counted in `llm_failures`.
pub async fn answer(
    llm: &Llm,
    memory: QaMemory,
    settings: &MemorySettings,
    outdated_check: bool,
    q: &Question,
    format: Format,
) -> Result<QaRecord> {
    let started = Instant::now();
    let mut log = CallLog::default();
    let mut key_items = Vec::new();
    let mut triplets = Vec::new();
    let mut theses: Vec<String> = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    let mut changes: Vec<Change> = Vec::new();
    let mut retired: Vec<String> = Vec::new();
    let mut graph_triplets = 0;
    let (texts, paragraphs): (Vec<String>, Vec<usize>) = match memory {
        QaMemory::Arigraph => {
            let mut graph = AriGraphMemory::new(MemorySettings {
                episodes: QA_EPISODES,
                outdated_check,
                ..settings.clone()
            });
            for (i, p) in q.paragraphs.iter().enumerate() {
                let seen = Observed {
                    step: i as u32 + 1,
                    observation: &p.text,
                    inventory: "",
                    room: "",
                    action: "",
                    goal: &q.question,
                    passage: true,
                    facts: None,
                    recent: "",
                    plan: "",
                };
                let report = graph.update(llm, &mut log, &seen).await?;
                retired.extend(report.removed.iter().map(|t| t.text()));
            }
            let messages = llm
                .prompts
                .render("qa_key_items", context! { question => &q.question })?;
            let items: Option<KeyItemsAnswer<MAX_RELEVANCE>> = llm
                .ask(
                    &mut log,
                    "qa_key_items",
                    messages,
                    key_items_schema_up_to(MAX_RELEVANCE),
                    300,
                    |_| Ok(()),
                )
                .await?;
            for it in items.map(|a| a.items).unwrap_or_default() {
                let entity = it.entity.trim().to_string();
                if !entity.is_empty() && !key_items.iter().any(|k: &KeyItem| k.entity == entity) {
                    key_items.push(KeyItem {
                        entity,
                        relevance: it.relevance,
                    });
                }
            }
            let queries = Queries {
                step: q.paragraphs.len() as u32 + 1,
                observation: &q.question,
                goal: &q.question,
                plan: &[],
                items: (!key_items.is_empty()).then_some(key_items.as_slice()),
                recent: 0,
            };
            let r = graph.retrieve(llm, &mut log, &queries).await?;
            triplets = r.triplets.iter().map(|t| t.triplet.clone()).collect();
            theses = r.theses.iter().map(|t| t.text.clone()).collect();
            paths = r.paths.clone();
            changes = r.changes.clone();
            graph_triplets = graph.graph().map(|g| g.alive_ids().count()).unwrap_or(0);
            r.episodes
                .iter()
                .map(|e| (e.observation.clone(), e.step.saturating_sub(1) as usize))
                .unzip()
        }
        QaMemory::FullContext => q
            .paragraphs
            .iter()
            .enumerate()
            .map(|(i, p)| (p.text.clone(), i))
            .unzip(),
        QaMemory::Bm25 => top_by_bm25(q)
            .into_iter()
            .map(|i| (q.paragraphs[i].text.clone(), i))
            .unzip(),
        QaMemory::Rag => {
            let vectors = llm
                .embed(&mut log, vec![q.question.clone()], EmbedKind::Query)
                .await?;
            let passages = llm
                .embed(
                    &mut log,
                    q.paragraphs.iter().map(|p| p.text.clone()).collect(),
                    EmbedKind::Passage,
                )
                .await?;
            let query = vectors.first().cloned().unwrap_or_default();
            let mut scored: Vec<(f32, usize)> = passages
                .iter()
                .enumerate()
                .map(|(i, v)| (v.iter().zip(&query).map(|(a, b)| a * b).sum(), i))
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            scored
                .into_iter()
                .take(TOP_PARAGRAPHS)
                .map(|(_, i)| (q.paragraphs[i].text.clone(), i))
                .unzip()
        }
    };
    let messages = llm.prompts.render(
        "qa_answer",
        context! { question => &q.question, facts => &triplets, theses => &theses, paths => &paths, changes => &changes, texts => &texts },
    )?;
    let answer: Option<AnswerQa> = llm
        .ask(
            &mut log,
            "qa_answer",
            messages,
            answer_schema(),
            600,
            |_| Ok(()),
        )
        .await?;
    let (reasoning, prediction) = answer
        .map(|a| (a.chain_of_thoughts, a.direct_answer.trim().to_string()))
        .unwrap_or_default();
    let (em, f1) = metrics::official(&prediction, &q.answers, format);
    let supporting = q.supporting();
    let supporting_recall = (!supporting.is_empty()).then(|| {
        supporting.iter().filter(|i| paragraphs.contains(i)).count() as f64
            / supporting.len() as f64
    });
    Ok(QaRecord {
        memory,
        id: q.id.clone(),
        question: q.question.clone(),
        answers: q.answers.clone(),
        reference: metrics::reference(&prediction, &q.answers[0]),
        prediction,
        reasoning,
        em,
        f1,
        key_items,
        triplets,
        theses,
        paths,
        changes,
        retired,
        paragraphs,
        supporting,
        supporting_recall,
        graph_triplets,
        llm_calls: log.calls.len() as u64,
        embedding_calls: log.embeds.len() as u64,
        usage: log.usage(),
        llm_failures: log.failures,
        llm_repairs: log.repairs,
        llm_trimmed: log.trimmed,
        seconds: started.elapsed().as_secs_f64(),
        calls: log.calls,
        vectors: log.vectors,
    })
}

/// The indices of the top [`TOP_PARAGRAPHS`] paragraphs by BM25 against the question
/// (English stemming and stop words; ties by the paragraph's order). Paragraphs that
/// share no word with the question score 0 and fill the places the others leave, in
/// their order, as a top-k retriever returns k documents (`rank_bm25`'s `get_top_n`).
pub fn top_by_bm25(q: &Question) -> Vec<usize> {
    use bm25::{Language, SearchEngineBuilder};
    let engine = SearchEngineBuilder::<u32>::with_corpus(
        Language::English,
        q.paragraphs.iter().map(|p| p.text.clone()),
    )
    .build();
    let mut hits: Vec<(f32, usize)> = engine
        .search(&q.question, None)
        .into_iter()
        .map(|r| (r.score, r.document.id as usize))
        .collect();
    let scored: std::collections::HashSet<usize> = hits.iter().map(|h| h.1).collect();
    hits.extend(
        (0..q.paragraphs.len())
            .filter(|i| !scored.contains(i))
            .map(|i| (0.0, i)),
    );
    hits.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    hits.into_iter()
        .take(TOP_PARAGRAPHS)
        .map(|(_, i)| i)
        .collect()
}

#[cfg(test)]
mod tests;
