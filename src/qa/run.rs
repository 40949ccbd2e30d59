//! A QA run's files, beside the answers they hold: the plan (`qa.json`, what
//! `--resume` and `--replay` read), one [`QaRecord`] per answered question and memory
//! (`questions.jsonl`, appended as each finishes), and a memory's row of the results.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::data::Format;
use super::{QaMemory, QaRecord, metrics};
use crate::error::UserError;
use crate::memory::MemorySettings;
use crate::profile::ProfileRecord;
use crate::qa::EpisodeRanking;

/// Extractions asked one after another: what runs recorded before
/// `--extractions-at-once` did.
fn one_at_a_time() -> u32 {
    1
}

/// What a QA run answers, saved as `qa.json` (what `--resume` reads).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QaPlan {
    /// The data file (absolute).
    pub data: PathBuf,
    /// Its format.
    pub format: Format,
    /// The questions' ids, in order.
    pub ids: Vec<String>,
    /// `--sample` and `--seed`, when sampled.
    pub sample: Option<(usize, u64)>,
    /// The memories, in order.
    pub memories: Vec<QaMemory>,
    /// The profile and its rules.
    pub profile: ProfileRecord,
    /// The memory settings of the profile.
    pub memory: MemorySettings,
    /// AriGraph runs the outdated-fact check on each paragraph (`--outdated-check`; runs
    /// recorded before the flag had none).
    #[serde(default)]
    pub outdated_check: bool,
    /// How AriGraph ranks its episodic vertices (`--episode-ranking`; runs recorded
    /// before the choice ranked by Eq. 1 alone).
    #[serde(default = "EpisodeRanking::recorded_before")]
    pub ranking: EpisodeRanking,
    /// Paragraph extractions of an `arigraph` question asked at once
    /// (`--extractions-at-once`; 1, one after another, in runs recorded before it).
    #[serde(default = "one_at_a_time")]
    pub extractions_at_once: u32,
    /// Prompt directory override.
    pub prompts: Option<PathBuf>,
    /// The chat seed.
    pub seed: u64,
    /// The endpoints (as a run's manifest describes them).
    pub llm: serde_json::Value,
    /// When the run began.
    pub created_at: String,
}

impl QaPlan {
    /// The settings each question's AriGraph memory is built with: the profile's memory
    /// settings, the fixed k of [`super::QA_EPISODES`], and the outdated check as asked.
    pub fn graph_settings(&self) -> MemorySettings {
        MemorySettings {
            episodes: super::QA_EPISODES,
            outdated_check: self.outdated_check,
            ..self.memory.clone()
        }
    }
}

/// One row of the results: a memory over the questions it answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QaRow {
    /// The memory.
    pub memory: QaMemory,
    /// Questions answered.
    pub questions: usize,
    /// Official exact match, mean.
    pub em: f64,
    /// Official F1, mean.
    pub f1: f64,
    /// The reference script's exact match.
    pub reference_em: f64,
    /// The reference script's micro-averaged F1.
    pub reference_f1: f64,
    /// Supporting paragraphs among those given to the answer prompt, mean over the
    /// questions that have some.
    pub supporting_recall: Option<f64>,
    /// Chat calls per question.
    pub calls_per_question: f64,
    /// Prompt tokens per question.
    pub prompt_tokens_per_question: f64,
    /// Completion tokens per question.
    pub completion_tokens_per_question: f64,
    /// Seconds per question.
    pub seconds_per_question: f64,
    /// Questions without a usable answer.
    pub no_answer: usize,
}

/// Aggregate the records of one memory.
pub fn row(memory: QaMemory, records: &[&QaRecord]) -> QaRow {
    let n = records.len().max(1) as f64;
    // A memory with nothing answered has means of 0 (an empty f64 sum is -0.0, which
    // would print as "-0.000").
    let mean = |f: &dyn Fn(&QaRecord) -> f64| {
        if records.is_empty() {
            0.0
        } else {
            records.iter().map(|r| f(r)).sum::<f64>() / n
        }
    };
    let counts: Vec<metrics::ReferenceCounts> = records.iter().map(|r| r.reference).collect();
    let (reference_em, reference_f1) = metrics::reference_aggregate(&counts);
    let with_support: Vec<f64> = records.iter().filter_map(|r| r.supporting_recall).collect();
    QaRow {
        memory,
        questions: records.len(),
        em: mean(&|r| f64::from(u8::from(r.em))),
        f1: mean(&|r| r.f1),
        reference_em,
        reference_f1,
        supporting_recall: (!with_support.is_empty())
            .then(|| with_support.iter().sum::<f64>() / with_support.len() as f64),
        calls_per_question: mean(&|r| r.llm_calls as f64),
        prompt_tokens_per_question: mean(&|r| r.usage.prompt_tokens as f64),
        completion_tokens_per_question: mean(&|r| r.usage.completion_tokens as f64),
        seconds_per_question: mean(&|r| r.seconds),
        no_answer: records.iter().filter(|r| r.prediction.is_empty()).count(),
    }
}

/// Read a run's plan.
///
/// # Errors
/// A [`UserError`] when the directory holds no `qa.json`; a malformed one.
pub fn read_plan(dir: &Path) -> Result<QaPlan> {
    let text = std::fs::read_to_string(dir.join("qa.json")).map_err(|e| {
        UserError::new(format!(
            "{} is not a QA run (no qa.json: {e})",
            dir.display()
        ))
    })?;
    serde_json::from_str(&text).with_context(|| format!("{}/qa.json is malformed", dir.display()))
}

/// What [`read_records`] found besides the records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordsRead {
    /// A last line cut by a kill (not a record).
    pub cut_last_line: bool,
    /// Lines that repeat a (memory, question) already read, left out.
    pub repeated: usize,
}

/// The records a run holds, each (memory, question) once (the first; a repeated line is
/// counted in [`RecordsRead::repeated`]). A last line cut by a kill is not a record;
/// with `repair` the file is rewritten without it (what `--resume` does before it
/// appends), else the file is left as it is (`--replay` never writes).
///
/// # Errors
/// An unreadable line before the last (one line naming it).
pub fn read_records(path: &Path, repair: bool) -> Result<(Vec<QaRecord>, RecordsRead)> {
    let mut read = RecordsRead::default();
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok((Vec::new(), read));
    };
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<QaRecord>(line) {
            Ok(r) => {
                if seen.insert((r.memory, r.id.clone())) {
                    out.push(r);
                } else {
                    read.repeated += 1;
                }
            }
            Err(_) if i + 1 == lines.len() => {
                read.cut_last_line = true;
                if repair {
                    let kept: String = lines[..i].iter().map(|l| format!("{l}\n")).collect();
                    std::fs::write(path, kept)?;
                }
            }
            Err(e) => bail!(UserError::new(format!(
                "{}: line {} is not a question record: {e}",
                path.display(),
                i + 1
            ))),
        }
    }
    Ok((out, read))
}

/// The seconds the questions `left` (by memory) will take at `jobs` at once, from the
/// `(memory, seconds)` of the questions answered: each at the mean time of the answered
/// questions of its memory, or of all answered ones where its memory has none yet (a
/// BM25 row costs seconds, an AriGraph row minutes).
pub fn seconds_left(answered: &[(QaMemory, f64)], left: &[QaMemory], jobs: u32) -> f64 {
    // Nothing left is 0 s (an empty float sum is -0.0, printed "-0").
    if left.is_empty() {
        return 0.0;
    }
    let mean = |of: &dyn Fn(QaMemory) -> bool| -> Option<f64> {
        let times: Vec<f64> = answered
            .iter()
            .filter(|(m, _)| of(*m))
            .map(|(_, s)| *s)
            .collect();
        (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64)
    };
    let overall = mean(&|_| true).unwrap_or(0.0);
    let total: f64 = left
        .iter()
        .map(|m| mean(&|r| r == *m).unwrap_or(overall))
        .sum();
    total / f64::from(jobs.max(1))
}
