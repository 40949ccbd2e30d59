//! What each memory gives the answer prompt of `ariadne qa`: AriGraph built from the
//! question's paragraphs and searched from its key items, or the paragraphs the
//! baselines pick.

use anyhow::Result;
use minijinja::context;

use super::data::Question;
use super::ranking::{self, EpisodeRanking, RankedParagraph};
use super::run::QaPlan;
use super::{MAX_RELEVANCE, QA_EPISODES, QaMemory, TOP_PARAGRAPHS};
use crate::agent::{KeyItemsAnswer, key_items_schema_up_to};
use crate::llm::{Ask, CallLog, EmbedKind, Llm};
use crate::memory::arigraph::Extracted;
use crate::memory::temporal::Change;
use crate::memory::{AriGraphMemory, KeyItem, MemoryModule, Observed, Queries};

/// What a memory gives the answer prompt for one question, and how it got there (the
/// key items, facts, theses, paths, changes and ranking are AriGraph's).
#[derive(Default)]
pub(super) struct AnswerContext {
    pub(super) key_items: Vec<KeyItem>,
    pub(super) triplets: Vec<String>,
    pub(super) theses: Vec<String>,
    pub(super) paths: Vec<String>,
    pub(super) changes: Vec<Change>,
    pub(super) retired: Vec<String>,
    pub(super) graph_triplets: usize,
    /// Every paragraph as [`EpisodeRanking::Reference`] scored it (empty under Eq. 1).
    pub(super) ranking: Vec<RankedParagraph>,
    pub(super) texts: Vec<String>,
    pub(super) paragraphs: Vec<usize>,
}

/// Build AriGraph from the question's paragraphs (one episodic vertex each, in the
/// file's order), name the question's key items, search each to the depth of its
/// relevance, and give the top [`QA_EPISODES`] paragraphs as `plan.ranking` ranks them.
async fn graph_context(
    llm: &Llm,
    log: &mut CallLog,
    plan: &QaPlan,
    q: &Question,
) -> Result<AnswerContext> {
    let (mut graph, retired) = read_paragraphs(llm, log, plan, q).await?;
    let n = q.paragraphs.len();
    let as_reference = plan.memory.revision().reference_qa_answer();
    let _shown = crate::report::task(format!(
        "{}: {} read; retrieving and answering",
        q.id,
        crate::text::count(n as u64, "paragraph")
    ));
    let key_items = ask_key_items(llm, log, &q.question, as_reference).await?;
    let queries = Queries {
        step: q.paragraphs.len() as u32 + 1,
        observation: &q.question,
        goal: &q.question,
        plan: &[],
        items: (!key_items.is_empty()).then_some(key_items.as_slice()),
        recent: 0,
    };
    let r = graph.retrieve(llm, log, &queries).await?;
    let triplets: Vec<String> = r.triplets.iter().map(|t| t.triplet.clone()).collect();
    // The reference's ranking takes Eq. 1's place; an option that ranks the episodes
    // its own way (or leaves them out) keeps its ranking.
    let by_reference =
        plan.ranking == EpisodeRanking::Reference && graph.settings.episodes_by_eq1();
    let (ranking, chosen): (Vec<RankedParagraph>, Vec<usize>) = if by_reference {
        let counts = graph.paragraph_counts(q.paragraphs.len(), &triplets);
        let similarities: Vec<f64> = question_similarities(llm, log, q)
            .await?
            .into_iter()
            .map(f64::from)
            .collect();
        let ranking = ranking::reference_ranking(&counts, &similarities);
        let chosen = ranking
            .iter()
            .take(QA_EPISODES)
            .map(|p| p.paragraph)
            .collect();
        (ranking, chosen)
    } else {
        let chosen = r
            .episodes
            .iter()
            .map(|e| e.step.saturating_sub(1) as usize)
            .collect();
        (Vec::new(), chosen)
    };
    Ok(AnswerContext {
        key_items,
        theses: r.theses.iter().map(|t| t.text.clone()).collect(),
        paths: r.paths.clone(),
        changes: r.changes.clone(),
        retired,
        graph_triplets: graph.graph().map(|g| g.alive_ids().count()).unwrap_or(0),
        ranking,
        texts: chosen
            .iter()
            .map(|&i| q.paragraphs[i].text.clone())
            .collect(),
        paragraphs: chosen,
        triplets,
    })
}

/// A fresh AriGraph holding the question's paragraphs, one episodic vertex each in the
/// file's order, and the facts its outdated check retired (with `--outdated-check`).
/// With `--extractions-at-once` above 1, where no extraction reads what earlier
/// paragraphs put in the graph (the reference's reading: no outdated check), every
/// extraction is asked first, that many at a time, and the paragraphs are then added in
/// the file's order: the graph and the calls' record are the ones reading them one after
/// another gives, for the same answers. Otherwise each paragraph is read after the one
/// before.
///
/// # Errors
/// An endpoint error.
pub(super) async fn read_paragraphs(
    llm: &Llm,
    log: &mut CallLog,
    plan: &QaPlan,
    q: &Question,
) -> Result<(AriGraphMemory, Vec<String>)> {
    let mut graph = AriGraphMemory::new(plan.graph_settings());
    let seen: Vec<Observed<'_>> = q
        .paragraphs
        .iter()
        .enumerate()
        .map(|(i, p)| paragraph_seen(i, &p.text, q))
        .collect();
    let n = seen.len();
    let mut retired = Vec::new();
    let at_once = plan.extractions_at_once as usize;
    if at_once <= 1 || graph.extraction_reads_the_graph() {
        for (i, s) in seen.iter().enumerate() {
            // On a terminal, where a question of minutes stands: its paragraph in flight.
            let _shown = crate::report::task(format!(
                "{}: reading paragraph {} of {n} into the graph",
                q.id,
                i + 1
            ));
            let report = graph.update(llm, log, s).await?;
            retired.extend(report.removed.iter().map(|t| t.text()));
        }
    } else {
        let extracted = extract_ahead(llm, &graph, &q.id, &seen, at_once).await?;
        let _shown = crate::report::task(format!(
            "{}: adding {} to the graph",
            q.id,
            crate::text::count(n as u64, "paragraph")
        ));
        for (s, (calls, e)) in seen.iter().zip(extracted) {
            log.append(calls);
            let report = graph.update_with(llm, log, s, e).await?;
            retired.extend(report.removed.iter().map(|t| t.text()));
        }
    }
    Ok((graph, retired))
}

/// Paragraph `i` of `q` as the memory observes it.
pub(super) fn paragraph_seen<'a>(i: usize, text: &'a str, q: &'a Question) -> Observed<'a> {
    Observed {
        step: i as u32 + 1,
        observation: text,
        inventory: "",
        room: "",
        action: "",
        goal: &q.question,
        passage: true,
        facts: None,
        recent: "",
        plan: "",
    }
}

/// Every paragraph's extraction, `at_once` at a time, in the paragraphs' order, each
/// with the log of its call; on a terminal, how many are done.
///
/// # Errors
/// An endpoint error.
async fn extract_ahead(
    llm: &Llm,
    graph: &AriGraphMemory,
    id: &str,
    seen: &[Observed<'_>],
    at_once: usize,
) -> Result<Vec<(CallLog, Extracted)>> {
    use futures::StreamExt;
    let n = seen.len();
    let asks = seen.iter().map(|s| async move {
        let mut calls = CallLog::default();
        let e = graph.extract_ahead(llm, &mut calls, s).await?;
        anyhow::Ok((calls, e))
    });
    let mut answers = futures::stream::iter(asks).buffered(at_once);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let _shown = crate::report::task(format!(
            "{id}: extracting the paragraphs' triplets, {} of {n} done ({at_once} at once)",
            out.len()
        ));
        match answers.next().await {
            Some(answer) => out.push(answer?),
            None => break,
        }
    }
    Ok(out)
}

/// The question's key items with their relevance, 1 to [`MAX_RELEVANCE`]
/// (`prompts/qa_key_items.md`, the reference's `item_processing_scores_qa`): each
/// entity once, blank ones dropped; none when the answer was unusable. `as_reference`:
/// the reference's system prompt to the letter (memory rules 8).
async fn ask_key_items(
    llm: &Llm,
    log: &mut CallLog,
    question: &str,
    as_reference: bool,
) -> Result<Vec<KeyItem>> {
    let messages = llm.prompts.render(
        "qa_key_items",
        context! { question => question, as_reference => as_reference },
    )?;
    let items: Option<KeyItemsAnswer<MAX_RELEVANCE>> = llm
        .ask(
            log,
            Ask::new(
                "qa_key_items",
                messages,
                key_items_schema_up_to(MAX_RELEVANCE),
                crate::llm::bounds::answer_tokens::KEY_ITEMS,
            ),
            |_| Ok(()),
        )
        .await?;
    let mut key_items: Vec<KeyItem> = Vec::new();
    for it in items.map(|a| a.items).unwrap_or_default() {
        let entity = it.entity.trim().to_string();
        if !entity.is_empty() && !key_items.iter().any(|k| k.entity == entity) {
            key_items.push(KeyItem {
                entity,
                relevance: it.relevance,
            });
        }
    }
    Ok(key_items)
}

/// The question's inner product with each paragraph's vector (the question embedded as
/// a query, the paragraphs as passages), in the paragraphs' order, summed in `f32` as
/// the RAG row always has.
async fn question_similarities(llm: &Llm, log: &mut CallLog, q: &Question) -> Result<Vec<f32>> {
    let query = llm
        .embed(log, vec![q.question.clone()], EmbedKind::Query)
        .await?
        .into_iter()
        .next()
        .unwrap_or_default();
    let passages = llm
        .embed(
            log,
            q.paragraphs.iter().map(|p| p.text.clone()).collect(),
            EmbedKind::Passage,
        )
        .await?;
    Ok(passages
        .iter()
        .map(|v| v.iter().zip(&query).map(|(a, b)| a * b).sum())
        .collect())
}

/// What `memory` gives the answer prompt for `q`: AriGraph's retrieval
/// ([`graph_context`]), every paragraph (`full-context`), or the top [`TOP_PARAGRAPHS`]
/// by BM25 or by the question's embedding similarity (`bm25`, `rag`).
///
/// # Errors
/// Transport errors from the endpoints and prompt errors.
pub(super) async fn gather(
    llm: &Llm,
    log: &mut CallLog,
    plan: &QaPlan,
    memory: QaMemory,
    q: &Question,
) -> Result<AnswerContext> {
    let texts = |top: &[usize]| top.iter().map(|&i| q.paragraphs[i].text.clone()).collect();
    Ok(match memory {
        QaMemory::Arigraph => graph_context(llm, log, plan, q).await?,
        QaMemory::FullContext => AnswerContext {
            texts: q.paragraphs.iter().map(|p| p.text.clone()).collect(),
            paragraphs: (0..q.paragraphs.len()).collect(),
            ..AnswerContext::default()
        },
        QaMemory::Bm25 => {
            let top = top_by_bm25(q);
            AnswerContext {
                texts: texts(&top),
                paragraphs: top,
                ..AnswerContext::default()
            }
        }
        QaMemory::Rag => {
            let similarities = question_similarities(llm, log, q).await?;
            let mut scored: Vec<(f32, usize)> = similarities.into_iter().zip(0..).collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let top: Vec<usize> = scored
                .into_iter()
                .take(TOP_PARAGRAPHS)
                .map(|(_, i)| i)
                .collect();
            AnswerContext {
                texts: texts(&top),
                paragraphs: top,
                ..AnswerContext::default()
            }
        }
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
