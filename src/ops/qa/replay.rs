//! A QA run replayed: every answered question asked again with its recorded answers
//! and vectors, no LLM call, the outcome and the calls compared with the record.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::error::UserError;
use crate::llm::Llm;
use crate::llm::prompts::Prompts;
use crate::llm::replay::ReplayBackend;
use crate::qa::data;
use crate::qa::run::{read_plan, read_records};

/// What a replay found.
#[derive(Debug)]
pub enum Replayed {
    /// Every answered question replayed to its recorded outcome; how many.
    Matched(usize),
    /// The first record whose replay differs (1-based), with what it says.
    Diverged {
        /// The record's memory and question id.
        at: String,
        /// Its place in `questions.jsonl` (1-based).
        record: usize,
        /// The recorded outcome.
        recorded: String,
        /// The replayed outcome.
        replayed: String,
    },
}

/// Replay every answered question of the run in `dir` (a cut last line, as a killed
/// run leaves, and repeated records are noted and skipped).
///
/// # Errors
/// Not a QA run, no answered question, a question the data file no longer holds, a
/// replay that asks a call the record does not hold.
pub async fn replay(dir: &Path) -> Result<Replayed> {
    let plan = read_plan(dir)?;
    let (_, all) = data::load(&plan.data)?;
    let (records, read) = read_records(&dir.join("questions.jsonl"), false)?;
    if read.cut_last_line {
        crate::report::notice(format!(
            "ariadne qa: the last line of {}/questions.jsonl is cut (a killed run); the {} complete records are replayed",
            dir.display(),
            records.len()
        ));
    }
    if read.repeated > 0 {
        crate::report::notice(format!(
            "ariadne qa: {} lines of {}/questions.jsonl repeat a question already answered by the same memory; the first of each is replayed",
            read.repeated,
            dir.display()
        ));
    }
    if records.is_empty() {
        bail!(UserError::new(format!(
            "{} has no answered question to replay",
            dir.display()
        )));
    }
    for (n, rec) in records.iter().enumerate() {
        let Some(q) = all.iter().find(|q| q.id == rec.id) else {
            bail!(UserError::new(format!(
                "{} no longer holds the question {:?}",
                plan.data.display(),
                rec.id
            )));
        };
        let backend = ReplayBackend::new(
            rec.calls.iter().map(|c| (0, c.clone())).collect(),
            rec.vectors.clone(),
            String::new(),
            None,
        );
        let llm = Llm {
            backend: std::sync::Arc::new(backend),
            prompts: Prompts::load(plan.prompts.as_deref())?,
        };
        let again = crate::qa::answer(&llm, &plan, rec.memory, q)
            .await
            .with_context(|| format!("replaying {} {}", rec.memory.name(), rec.id))?;
        if again.outcome() != rec.outcome() || again.calls.len() != rec.calls.len() {
            return Ok(Replayed::Diverged {
                at: format!("{} {}", rec.memory.name(), rec.id),
                record: n + 1,
                recorded: rec.outcome().to_string(),
                replayed: again.outcome().to_string(),
            });
        }
    }
    Ok(Replayed::Matched(records.len()))
}
