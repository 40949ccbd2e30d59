//! The outdated checks' call ([`AriGraphMemory::ask_outdated`]), and PersonalAI's check
//! for stale theses (arXiv:2506.17001, Appendix B), as `--thesis` runs under
//! [`crate::memory::PersonalAiForm::Paper`].

use crate::llm::bounds::answer_tokens;
use std::collections::HashSet;

use anyhow::Result;
use minijinja::context;

use super::AriGraphMemory;
use super::answers::{Outdated, Replacing, outdated_schema, replacing_schema};
use super::reference_text::named_triplet;
use crate::llm::{Ask, CallLog, Llm};
use crate::memory::names::entity_key;
use crate::memory::{ThesisId, Triplet, TripletId};

/// Most older theses shown to one stale check (the newest; Ariadne's bound, as for the
/// known facts shown to the extractor: the paper gives none).
pub(super) const STALE_CANDIDATES: usize = 20;

/// One outdated check's question ([`AriGraphMemory::ask_outdated`]): the prompt (and
/// call purpose) asking it, the new items, the numbered old ones and what an old one is
/// called in the refusal of a bad number.
pub(super) struct OutdatedQuestion<'a> {
    /// The prompt's name, also the call's purpose in the log.
    pub purpose: &'a str,
    /// The new items, as text.
    pub new: Vec<String>,
    /// The old items, as text, numbered from 1 in the prompt.
    pub old: Vec<String>,
    /// What an old item is called ("old fact", "older statement").
    pub what: &'a str,
}

impl AriGraphMemory {
    /// PersonalAI's check for stale theses (Appendix B): the older theses that hold and
    /// share an entity with a `fresh` one (not among this step's `ids`; the newest
    /// [`STALE_CANDIDATES`]) are shown with
    /// the fresh ones, and those the LLM marks outdated are retired at `step`. No call
    /// when there is no such older thesis; a bad answer retires nothing. Returns the
    /// retired statements.
    ///
    /// # Errors
    /// Transport errors from the endpoint, prompt rendering errors.
    pub(super) async fn retire_stale_theses(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        fresh: &[ThesisId],
        ids: &[ThesisId],
        step: u32,
    ) -> Result<Vec<String>> {
        let linked: HashSet<&str> = fresh
            .iter()
            .filter_map(|id| self.graph.thesis(*id))
            .flat_map(|t| t.vertices.iter().map(String::as_str))
            .collect();
        let mut old: Vec<ThesisId> = linked
            .iter()
            .flat_map(|v| self.graph.theses_linking(v))
            .filter(|id| !ids.contains(id))
            .collect();
        old.sort_unstable();
        old.dedup();
        // The most recent ones only, so the prompt stays bounded over a long episode.
        if old.len() > STALE_CANDIDATES {
            old.drain(..old.len() - STALE_CANDIDATES);
        }
        if old.is_empty() {
            return Ok(Vec::new());
        }
        let text = |id: &ThesisId| {
            self.graph
                .thesis(*id)
                .map(|t| t.text.clone())
                .unwrap_or_default()
        };
        let new: Vec<String> = fresh.iter().map(text).collect();
        let old_texts: Vec<String> = old.iter().map(text).collect();
        let chosen = self
            .ask_outdated(
                llm,
                log,
                OutdatedQuestion {
                    purpose: "outdated_theses",
                    new,
                    old: old_texts.clone(),
                    what: "older statement",
                },
            )
            .await?;
        let mut retired = Vec::new();
        for i in chosen {
            if self.graph.retire_thesis(old[i - 1], step) {
                retired.push(old_texts[i - 1].clone());
            }
        }
        Ok(retired)
    }

    /// The reference's outdated check (memory rules 7; `graphs/contriever_graph.py`,
    /// `update`, with `prompt_refining_items`): the `candidates` are shown as existing
    /// triplets and the `extracted` ones not yet in the graph as new triplets; the LLM
    /// answers replacement pairs `[outdated, actual]`. Each outdated triplet is read as
    /// the reference reads it ([`named_triplet`]) and matched exactly to an alive fact
    /// of the graph (the reference deletes any exact match, offered or not); a fact
    /// whose two ends are rooms the agent has been in is kept (`delete_triplets`).
    /// Returns the facts to delete, each once, in the answer's order; a bad answer
    /// deletes nothing. A pair naming no alive fact is counted as a repair (dropped).
    ///
    /// # Errors
    /// Transport errors from the endpoint, prompt rendering errors.
    pub(super) async fn ask_replacing(
        &self,
        llm: &Llm,
        log: &mut CallLog,
        extracted: &[Triplet],
        candidates: &[TripletId],
    ) -> Result<Vec<TripletId>> {
        let new: Vec<String> = extracted
            .iter()
            .filter(|t| self.graph.find(t).is_none())
            .map(Triplet::text)
            .collect();
        let old: Vec<String> = candidates
            .iter()
            .map(|id| self.graph.triplet(*id).text())
            .collect();
        let messages = llm
            .prompts
            .render("outdated_reference", context! { new => new, old => old })?;
        let answer: Option<Replacing> = llm
            .ask(
                log,
                Ask::new(
                    "outdated",
                    messages,
                    replacing_schema(),
                    answer_tokens::OUTDATED,
                ),
                |_| Ok(()),
            )
            .await?;
        let mut out: Vec<TripletId> = Vec::new();
        for [outdated, _actual] in answer.map(|a| a.replacing).unwrap_or_default() {
            let Some(id) = named_triplet(&outdated).and_then(|t| self.graph.find(&t)) else {
                log.repairs += 1;
                continue;
            };
            let t = self.graph.triplet(id);
            let linked_rooms = self.visited.contains(&entity_key(&t.subject))
                && self.visited.contains(&entity_key(&t.object));
            if self.graph.is_alive(id) && !linked_rooms && !out.contains(&id) {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// One outdated check (paper section 2; PersonalAI Appendix B for theses): the
    /// prompt and schema `question.purpose` show the `new` items and the numbered `old`
    /// ones; the numbers the LLM marks, sorted, each once, all within `1..=old.len()`
    /// (an answer naming another is refused as not "the number of an `what`" and asked
    /// again; a bad answer marks nothing).
    ///
    /// # Errors
    /// Transport errors from the endpoint, prompt rendering errors.
    pub(super) async fn ask_outdated(
        &self,
        llm: &Llm,
        log: &mut CallLog,
        question: OutdatedQuestion<'_>,
    ) -> Result<Vec<usize>> {
        let OutdatedQuestion {
            purpose,
            new,
            old,
            what,
        } = question;
        let n = old.len();
        let messages = llm
            .prompts
            .render(purpose, context! { new => new, old => old })?;
        let outdated: Option<Outdated> = llm
            .ask(
                log,
                Ask::new(
                    purpose,
                    messages,
                    outdated_schema(n),
                    answer_tokens::OUTDATED_NUMBERED,
                ),
                |o: &Outdated| match o.outdated.iter().find(|&&i| i == 0 || i > n) {
                    Some(bad) => Err(format!("{bad} is not the number of an {what} (1..{n})")),
                    None => Ok(()),
                },
            )
            .await?;
        let mut chosen: Vec<usize> = outdated.map(|o| o.outdated).unwrap_or_default();
        chosen.sort_unstable();
        chosen.dedup();
        Ok(chosen)
    }
}
