//! Answering one question with one memory: gather its context, ask the answer call,
//! score the prediction.

use crate::llm::bounds::answer_tokens;
use std::time::Instant;

use anyhow::Result;
use minijinja::context;
use serde::Deserialize;
use serde_json::{Value, json};

use super::context::{self as qa_context, AnswerContext};
use super::data::Question;
use super::metrics;
use super::run::QaPlan;
use super::{ANSWER_CHARS, QaMemory, QaRecord, REASONING_CHARS};
use crate::llm::bounds::{self, Bounded};
use crate::llm::{Ask, CallLog, Llm};

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

/// Answer one question with one memory, under the run's plan: its memory settings,
/// its episode ranking ([`QaPlan::ranking`]) and its outdated check.
///
/// With `plan.outdated_check` (`ariadne qa --outdated-check`; a departure from the
/// reference's `update_without_retrieve`), AriGraph runs the profile's outdated-fact
/// check on each paragraph in the file's order, asked as facts read from texts
/// (`prompts/qa_outdated.md`), so a fact a later paragraph changes is retired as
/// the settings' `retire` says; with [`crate::memory::Retire::Close`] the temporal edges
/// into the retrieved facts reach the answer call ("How facts changed").
///
/// # Errors
/// Transport errors from the endpoints and prompt errors; a bad answer is an empty
/// prediction, counted in `llm_failures`.
pub async fn answer(llm: &Llm, plan: &QaPlan, memory: QaMemory, q: &Question) -> Result<QaRecord> {
    let started = Instant::now();
    let mut log = CallLog::default();
    let graph = qa_context::gather(llm, &mut log, plan, memory, q).await?;
    let AnswerContext {
        key_items,
        triplets,
        theses,
        paths,
        changes,
        retired,
        graph_triplets,
        ranking,
        texts,
        paragraphs,
    } = graph;
    let format = plan.format;
    let messages = llm.prompts.render(
        "qa_answer",
        context! { as_reference => plan.memory.revision().reference_qa_answer(), question => &q.question, facts => &triplets, theses => &theses, paths => &paths, changes => &changes, texts => &texts },
    )?;
    let answer: Option<AnswerQa> = llm
        .ask(
            &mut log,
            Ask::new(
                "qa_answer",
                messages,
                answer_schema(),
                answer_tokens::QA_ANSWER,
            ),
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
        ranking,
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
        llm_refused: log.refused,
        seconds: started.elapsed().as_secs_f64(),
        calls: log.calls,
        vectors: log.vectors,
    })
}
