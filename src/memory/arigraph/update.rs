//! The phases of the AriGraph update from one observation (paper section 2,
//! "Constructing AriGraph"; [`super::AriGraphMemory::update_graph`] runs them in order):
//! triplet and thesis extraction, the outdated-edge candidates and verdicts, merging the
//! new triplets, closing retired facts (AriadneMem) and thesis vertices (PersonalAI).

use crate::llm::bounds::answer_tokens;
use std::collections::HashSet;

use anyhow::Result;
use minijinja::context;

use super::answers::*;
use super::items::ExtractionItems;
use super::reference_text::reference_excluded;
use super::stale::OutdatedQuestion;
use super::{AriGraphMemory, read_items};
use crate::llm::{Ask, CallLog, Llm, Message};
use crate::memory::guard::Guard;
use crate::memory::{
    ExtractionPrompt, Observed, OutdatedScope, ThesisId, Triplet, TripletId, UpdateReport,
};

impl AriGraphMemory {
    /// The extraction prompt for `seen`: the reference's (with the facts retrieved last
    /// step as its example) or Ariadne's (with the known facts in view when asked for),
    /// asking for theses under `--thesis` (with their entities as PersonalAI runs).
    ///
    /// # Errors
    /// Prompt rendering errors.
    fn extraction_messages(&self, llm: &Llm, seen: &Observed<'_>) -> Result<Vec<Message>> {
        let thesis = self.settings.thesis;
        let entities = thesis && self.settings.personalai.theses_with_entities();
        Ok(match self.settings.extraction_prompt() {
            ExtractionPrompt::Reference => llm.prompts.render(
                "extract_reference",
                context! { example => &self.last_retrieved, thesis => thesis, entities => entities, as_reference => self.settings.revision().reference_messages(), ..minijinja::Value::from_serialize(seen) },
            )?,
            ExtractionPrompt::Ariadne { known } => {
                let known = if known {
                    self.known_in_view(seen.observation)
                } else {
                    Vec::new()
                };
                llm.prompts.render(
                    "extract_triplets",
                    context! { known => known, compact_triplets => self.settings.revision().compact_triplets(), shows_known_facts => self.settings.revision().shows_known_facts(), thesis => thesis, entities => entities, ..minijinja::Value::from_serialize(seen) },
                )?
            }
        })
    }

    /// Ask the LLM for the triplets (and theses) of `seen` (one `extract_triplets`
    /// call): `None` when no answer was accepted. Under the revisions that read items
    /// as triplets, the answer is read item by item ([`read_items`]).
    ///
    /// # Errors
    /// Transport errors from the endpoint, prompt rendering errors.
    pub(super) async fn extract(
        &self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<Option<Extraction>> {
        let messages = self.extraction_messages(llm, seen)?;
        let settings = &self.settings;
        let form = settings.thesis.then_some(settings.personalai);
        let schema = extraction_schema(settings.max_triplets, settings.rules, form);
        Ok(if settings.revision().reads_items_as_triplets() {
            let items: Option<ExtractionItems> = llm
                .ask(
                    log,
                    Ask::new(
                        "extract_triplets",
                        messages,
                        schema,
                        answer_tokens::EXTRACTION,
                    ),
                    |_| Ok(()),
                )
                .await?;
            items.map(|items| read_items(log, items))
        } else {
            llm.ask(
                log,
                Ask::new(
                    "extract_triplets",
                    messages,
                    schema,
                    answer_tokens::EXTRACTION,
                ),
                |_| Ok(()),
            )
            .await?
        })
    }

    /// Read an extraction's theses (`--thesis`) into `report.theses` and return its raw
    /// triplets with the theses as written (with their entities, as the paper runs
    /// them; empty otherwise). In an accepted answer, a missing or malformed field is
    /// no thesis, counted as a repair (a rejected answer was counted already).
    pub(super) fn read_extraction(
        &self,
        log: &mut CallLog,
        report: &mut UpdateReport,
        extraction: Option<Extraction>,
    ) -> (Vec<RawTriplet>, Vec<WrittenThesis>) {
        let thesis = self.settings.thesis;
        let form = self.settings.personalai;
        let Some(e) = extraction else {
            return (Vec::new(), Vec::new());
        };
        let mut written: Vec<WrittenThesis> = Vec::new();
        if thesis && form.theses_with_entities() {
            let (theses, repaired, trimmed) =
                read_written_theses(e.theses.as_ref(), form.theses_per_step());
            log.repairs += u32::from(repaired);
            log.trimmed += trimmed;
            // Noted on the extraction call, as its other cuts are.
            if trimmed > 0
                && let Some(call) = log.calls.last_mut()
            {
                call.trimmed.push(format!(
                    "theses: {trimmed} items or parts cut or dropped for length or count"
                ));
            }
            report.theses = theses.iter().map(|t| t.text.clone()).collect();
            written = theses;
        } else if thesis {
            let (texts, repaired, trimmed) = read_theses(e.theses.as_ref());
            log.repairs += u32::from(repaired);
            log.trimmed += trimmed;
            report.theses = texts;
        }
        (e.triplets, written)
    }

    /// The valid triplets of `raw`, each once, into `report.extracted` (at most
    /// [`crate::memory::MemorySettings::max_triplets`]); returns every valid triplet
    /// read, kept or not.
    pub(super) fn keep_triplets(
        &self,
        report: &mut UpdateReport,
        raw: Vec<RawTriplet>,
    ) -> HashSet<Triplet> {
        let mut seen_set = HashSet::new();
        for raw in raw {
            if let Some(t) = Triplet::new(&raw.subject, &raw.relation, &raw.object)
                && seen_set.insert(t.clone())
                && report.extracted.len() < self.settings.max_triplets
            {
                report.extracted.push(t);
            }
        }
        seen_set
    }

    /// E_s^rel: the alive edges incident to the `extracted` triplets' vertices (or, with
    /// the subject scope, having a new triplet's subject as subject), minus the new ones
    /// (`seen_set`) and the pinned moves; none without the outdated check.
    pub(super) fn outdated_candidates(
        &self,
        seen: &Observed<'_>,
        extracted: &[Triplet],
        seen_set: &HashSet<Triplet>,
    ) -> Vec<TripletId> {
        let subjects: HashSet<&str> = extracted.iter().map(|t| t.subject.as_str()).collect();
        let vertices: Vec<&str> = extracted
            .iter()
            .flat_map(|t| [t.subject.as_str(), t.object.as_str()])
            .collect();
        let scope = self.settings.outdated_scope;
        let pins = self.settings.revision().grounds_moves();
        let prefilter = self.settings.prefilters();
        let matcher = Guard::of(self.settings.revision());
        let reference = self.settings.revision().reference_outdated_check();
        let candidates: Vec<TripletId> = self
            .graph
            .incident_to(vertices)
            .into_iter()
            .filter(|id| {
                let t = self.graph.triplet(*id);
                let pinned = pins && self.graph.is_pinned(*id);
                !seen_set.contains(t)
                    && !pinned
                    && (scope == OutdatedScope::Incident || subjects.contains(t.subject.as_str()))
                    // Memory rules 7: the reference never offers a fact naming a
                    // direction or holding "used for", "to be", "associated with".
                    && !(reference && !seen.passage && reference_excluded(&t.text()))
                    // Rule `verdict-guard` (from memory rules 3): a fact no new
                    // triplet may retire (see the guard below) is not asked about; its
                    // verdict could change nothing.
                    && (!prefilter || extracted.iter().any(|n| matcher.may_retire(n, t)))
            })
            .collect();
        // Question answering builds its graph with no outdated check (the reference's
        // `update_without_retrieve`) unless asked for one (`ariadne qa
        // --outdated-check`), which asks about facts read from texts.
        if self.settings.outdated_check {
            candidates
        } else {
            Vec::new()
        }
    }

    /// The `candidates` the LLM finds outdated given the `extracted` triplets: asked as
    /// the reference asks (replacing facts) in a game, else as an `outdated` (or
    /// `qa_outdated` for a passage) question over numbered facts; none without
    /// candidates.
    ///
    /// # Errors
    /// Transport errors from the endpoint, prompt rendering errors.
    pub(super) async fn outdated_verdicts(
        &self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
        extracted: &[Triplet],
        candidates: &[TripletId],
    ) -> Result<Vec<TripletId>> {
        let reference = self.settings.revision().reference_outdated_check();
        Ok(if candidates.is_empty() {
            Vec::new()
        } else if reference && !seen.passage {
            self.ask_replacing(llm, log, extracted, candidates).await?
        } else {
            let new: Vec<String> = extracted.iter().map(Triplet::text).collect();
            let old: Vec<String> = candidates
                .iter()
                .map(|id| self.graph.triplet(*id).text())
                .collect();
            let purpose = if seen.passage {
                "qa_outdated"
            } else {
                "outdated"
            };
            let question = OutdatedQuestion {
                purpose,
                new,
                old,
                what: "old fact",
            };
            self.ask_outdated(llm, log, question)
                .await?
                .into_iter()
                .map(|i| candidates[i - 1])
                .collect()
        })
    }

    /// Remove the facts found outdated (`verdicts`) into `report.removed`, but those no
    /// extracted triplet may retire under the verdict guard (counted as rejected);
    /// returns the ids removed.
    pub(super) fn remove_outdated(
        &mut self,
        report: &mut UpdateReport,
        verdicts: Vec<TripletId>,
    ) -> Vec<TripletId> {
        let guard = self.settings.guard();
        let mut retired: Vec<TripletId> = Vec::new();
        for id in verdicts {
            if let Some(g) = guard
                && !report
                    .extracted
                    .iter()
                    .any(|n| g.may_retire(n, self.graph.triplet(id)))
            {
                report.rejected_verdicts += 1;
                continue;
            }
            if self.graph.remove(id) {
                report.removed.push(self.graph.triplet(id).clone());
                retired.push(id);
            }
        }
        retired
    }

    /// Merge the extracted triplets into the graph without duplicates (the new ones into
    /// `report.added`); returns their ids, in the order of `report.extracted`.
    pub(super) fn merge_extracted(&mut self, report: &mut UpdateReport) -> Vec<TripletId> {
        let mut ids = Vec::new();
        for t in &report.extracted {
            let (id, fresh) = self.graph.add(t.clone());
            if fresh {
                report.added.push(t.clone());
            }
            ids.push(id);
        }
        ids
    }

    /// Closing (AriadneMem's conflict-aware coarsening): each `retired` fact keeps its
    /// interval and a link to the new facts (`extracted`, with their `ids`) that may
    /// retire it (the verdict guard's match; any new fact sharing a vertex with it when
    /// none is of its kind).
    pub(super) fn close_retired(
        &mut self,
        extracted: &[Triplet],
        ids: &[TripletId],
        retired: Vec<TripletId>,
    ) {
        let matcher = Guard::of(self.settings.revision());
        for old in retired {
            let t = self.graph.triplet(old).clone();
            let of_kind: Vec<TripletId> = extracted
                .iter()
                .zip(ids)
                .filter(|(n, _)| matcher.may_retire(n, &t))
                .map(|(_, id)| *id)
                .collect();
            let by = if of_kind.is_empty() {
                extracted
                    .iter()
                    .zip(ids)
                    .filter(|(n, _)| {
                        [&n.subject, &n.object]
                            .iter()
                            .any(|v| **v == t.subject || **v == t.object)
                    })
                    .map(|(_, id)| *id)
                    .collect()
            } else {
                of_kind
            };
            self.graph.supersede(old, &by);
        }
    }

    /// Thesis vertices: added once this step's triplets are in (their hyper-edges see
    /// the new vertices), the `written` ones with their entities as PersonalAI runs,
    /// else `report.theses`; the stale theses retired into `report.retired_theses` when
    /// the form retires them. Returns the step's thesis ids, to link to its episode.
    ///
    /// # Errors
    /// Transport errors from the endpoint, prompt rendering errors.
    pub(super) async fn add_theses(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        step: u32,
        report: &mut UpdateReport,
        written: &[WrittenThesis],
    ) -> Result<Vec<ThesisId>> {
        let thesis = self.settings.thesis;
        let form = self.settings.personalai;
        let added: Vec<(ThesisId, bool)> = if thesis && form.theses_with_entities() {
            written
                .iter()
                .map(|t| {
                    self.graph
                        .add_thesis_linking(&t.text, step, t.entities.as_deref())
                })
                .collect()
        } else {
            report
                .theses
                .iter()
                .map(|t| self.graph.add_thesis(t, step))
                .collect()
        };
        let thesis_ids: Vec<ThesisId> = added.iter().map(|(id, _)| *id).collect();
        if thesis && form.retires_stale_theses() && self.settings.outdated_check {
            let fresh: Vec<ThesisId> = added
                .iter()
                .filter(|(_, f)| *f)
                .map(|(id, _)| *id)
                .collect();
            report.retired_theses = self
                .retire_stale_theses(llm, log, &fresh, &thesis_ids, step)
                .await?;
        }
        Ok(thesis_ids)
    }
}
