//! The QA operation (paper section 4.3): a question set answered by each memory, run
//! like a bench: a run directory with the plan (`qa.json`), one JSON line per answered
//! question (`questions.jsonl`, written as each finishes, so a killed run keeps them and
//! a resumed run answers only the rest), and the results ([`results`]); [`replay`]
//! asks every answered question again with no LLM call.

pub mod replay;
pub mod results;

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use futures::StreamExt;

use crate::error::UserError;
use crate::llm::connect::{self, Connection, LlmSettings};
use crate::llm::{Llm, prompts::Prompts};
use crate::pyenv::{self, Needs};
use crate::qa::data::{self, Question};
use crate::qa::run::{QaPlan, QaRow, read_plan, read_records, seconds_left};
use crate::qa::{QaMemory, QaRecord};

/// A QA run to answer: its directory, its plan and the plan's questions.
#[derive(Debug, Clone)]
pub struct QaRun {
    /// The run directory (created if missing).
    pub dir: PathBuf,
    /// What it answers (its `llm` is filled in from the endpoints when null).
    pub plan: QaPlan,
    /// The plan's questions, in its order.
    pub questions: Vec<Question>,
}

/// The run in `dir`, to finish under its own plan (`--resume`).
///
/// # Errors
/// Not a QA run; a data file that no longer holds every question of the run.
pub fn resume(dir: &Path) -> Result<QaRun> {
    let plan = read_plan(dir)?;
    let (_, all) = data::load(&plan.data)?;
    let questions: Vec<Question> = plan
        .ids
        .iter()
        .filter_map(|id| all.iter().find(|q| &q.id == id).cloned())
        .collect();
    if questions.len() != plan.ids.len() {
        bail!(UserError::new(format!(
            "{} no longer holds every question of the run",
            plan.data.display()
        )));
    }
    Ok(QaRun {
        dir: dir.to_path_buf(),
        plan,
        questions,
    })
}

/// What a QA run will answer, announced before the first question.
#[derive(Debug)]
pub struct QaStart<'a> {
    /// The run.
    pub run: &'a QaRun,
    /// Questions answered before (by an earlier session).
    pub answered_before: usize,
    /// Questions left to answer (a question per memory).
    pub to_answer: usize,
}

/// How a QA run shows its progress (the command prints a line per answer).
pub trait QaProgress: Sync {
    /// The run starts.
    fn start(&self, start: &QaStart<'_>);
    /// A question was answered: its record, `n` of `total` answered so far, and the
    /// seconds the rest should take at each memory's mean so far.
    fn answered(&self, record: &QaRecord, n: usize, total: usize, seconds_left: f64);
}

/// What an answered run gives back.
#[derive(Debug)]
pub struct QaOutcome {
    /// The run directory.
    pub dir: PathBuf,
    /// The plan followed.
    pub plan: QaPlan,
    /// A row per memory over every answered question.
    pub rows: Vec<QaRow>,
    /// The error that stopped it (the answered questions are kept).
    pub failure: Option<anyhow::Error>,
    /// Ctrl-C stopped it.
    pub interrupted: bool,
}

/// Answer every question of `run` not yet answered by each memory, `jobs` at once,
/// each record appended as it finishes; then the results of all records.
///
/// # Errors
/// Set-up failures (endpoints, the Python environment), an unwritable run directory;
/// an endpoint error while answering ends the run with [`QaOutcome::failure`] set.
pub async fn answer_all(
    mut run: QaRun,
    llm: &LlmSettings,
    jobs: u32,
    progress: &dyn QaProgress,
) -> Result<QaOutcome> {
    let prompts = Prompts::load_noting(run.plan.prompts.as_deref())?;
    let records_path = run.dir.join("questions.jsonl");
    let (mut records, _) = read_records(&records_path, true)?;
    let (todo, answered_before) = left_to_answer(&run, &records);
    std::fs::create_dir_all(&run.dir)
        .map_err(|e| UserError::new(format!("cannot create {}: {e}", run.dir.display())))?;
    let conn = connect_for(llm, !todo.is_empty(), &mut run.plan, &run.dir).await?;
    let llm = Llm {
        backend: conn.backend(run.plan.seed)?,
        prompts,
    };
    progress.start(&QaStart {
        run: &run,
        answered_before,
        to_answer: todo.len(),
    });
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&records_path)
        .with_context(|| format!("cannot write {}", records_path.display()))?;
    let cancel = crate::cancel::watch_ctrl_c();
    let answering = Answering {
        llm: &llm,
        plan: &run.plan,
        jobs,
        total: run.plan.memories.len() * run.questions.len(),
        answered_before,
        progress,
        cancel: &cancel,
    };
    let failure = answering.answer(&todo, &mut records, file).await?;
    conn.servers.stop().await;
    let rows = results::write_results(&run.dir, &run.plan, &records)?;
    Ok(QaOutcome {
        dir: run.dir,
        plan: run.plan,
        rows,
        failure,
        interrupted: cancel.is_cancelled(),
    })
}

/// The questions of the run a memory has not answered yet, a pair per memory, memories
/// outermost; and how many pairs were answered.
fn left_to_answer(run: &QaRun, records: &[QaRecord]) -> (Vec<(QaMemory, Question)>, usize) {
    let done: HashSet<(QaMemory, &str)> =
        records.iter().map(|r| (r.memory, r.id.as_str())).collect();
    let todo = run
        .plan
        .memories
        .iter()
        .flat_map(|m| run.questions.iter().map(move |q| (*m, q)))
        .filter(|(m, q)| !done.contains(&(*m, q.id.as_str())))
        .map(|(m, q)| (m, q.clone()))
        .collect();
    (todo, done.len())
}

/// The endpoints of the run (none started when nothing is left to answer), recorded in
/// the plan, which is then written as `qa.json`.
async fn connect_for(
    llm: &LlmSettings,
    needs_chat: bool,
    plan: &mut QaPlan,
    dir: &Path,
) -> Result<Connection> {
    let py = pyenv::ensure(Needs {
        local: (llm.embedded_chat() && needs_chat).then_some(llm.local_model),
        embed: llm.embed_base_url.is_none() && needs_chat,
        ..Needs::default()
    })
    .await?;
    let conn = connect::connect(
        llm,
        needs_chat,
        plan.extractions_at_once.max(1),
        plan.seed,
        &py,
        &py.home.join("logs"),
    )
    .await?;
    if plan.llm.is_null() {
        plan.llm = conn.described.clone();
    }
    std::fs::write(
        dir.join("qa.json"),
        serde_json::to_string_pretty(&plan)? + "\n",
    )?;
    Ok(conn)
}

/// What answering the questions shares.
struct Answering<'a> {
    llm: &'a Llm,
    plan: &'a QaPlan,
    jobs: u32,
    total: usize,
    answered_before: usize,
    progress: &'a dyn QaProgress,
    cancel: &'a tokio_util::sync::CancellationToken,
}

impl Answering<'_> {
    /// Answer `todo`, `jobs` at once, each record appended to `file` and `records` as it
    /// finishes, until all are answered, one fails (returned) or Ctrl-C.
    ///
    /// # Errors
    /// A record that cannot be written.
    async fn answer(
        &self,
        todo: &[(QaMemory, Question)],
        records: &mut Vec<QaRecord>,
        mut file: std::fs::File,
    ) -> Result<Option<anyhow::Error>> {
        let mut stream = futures::stream::iter(todo.iter().map(|(m, q)| {
            let (llm, plan) = (self.llm, self.plan);
            async move { crate::qa::answer(llm, plan, *m, q).await }
        }))
        .buffer_unordered(self.jobs as usize);
        let mut finished = 0usize;
        loop {
            let next = tokio::select! {
                n = stream.next() => n,
                _ = self.cancel.cancelled() => return Ok(None),
            };
            let record = match next {
                None => return Ok(None),
                Some(Err(e)) => return Ok(Some(e)),
                Some(Ok(record)) => record,
            };
            writeln!(file, "{}", serde_json::to_string(&record)?)?;
            file.flush()?;
            finished += 1;
            let left: Vec<QaMemory> = todo[finished..].iter().map(|(m, _)| *m).collect();
            records.push(record);
            let times: Vec<(QaMemory, f64)> =
                records.iter().map(|r| (r.memory, r.seconds)).collect();
            let eta = seconds_left(&times, &left, self.jobs);
            let record = records.last().expect("just pushed");
            self.progress
                .answered(record, self.answered_before + finished, self.total, eta);
        }
    }
}
