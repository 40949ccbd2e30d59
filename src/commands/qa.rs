//! `ariadne qa`: multi-hop question answering with AriGraph and the baselines
//! ([`crate::qa`]), run like a bench: a run directory with the plan (`qa.json`), one JSON
//! line per answered question (`questions.jsonl`, written as each finishes, so a killed
//! run keeps them and `--resume` answers only the rest), and `results.md/.csv/.json`.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use futures::StreamExt;

use crate::cli::QaArgs;
use crate::env::pyenv::{self, Needs};
use crate::error::UserError;
use crate::llm::prompts::Prompts;
use crate::llm::{Llm, connect};
use crate::profile::ProfileRecord;
use crate::qa::data::{self, Question};
use crate::qa::run::{QaPlan, QaRow, read_plan, read_records, row, seconds_left};
use crate::qa::{QaMemory, QaRecord};
use crate::settings::Resolver;
use crate::settings::options;

/// The cells of a row, numbers with `digits` decimals (3 in the table, 4 in the CSV).
fn cells(r: &QaRow, digits: usize) -> Vec<String> {
    let d = digits;
    vec![
        r.memory.name().to_string(),
        r.questions.to_string(),
        format!("{:.d$}", r.em),
        format!("{:.d$}", r.f1),
        format!("{:.d$}", r.reference_em),
        format!("{:.d$}", r.reference_f1),
        r.supporting_recall
            .map(|x| format!("{x:.d$}"))
            .unwrap_or_else(|| "-".into()),
        format!("{:.1}", r.calls_per_question),
        format!("{:.0}", r.prompt_tokens_per_question),
        format!("{:.0}", r.completion_tokens_per_question),
        format!("{:.1}", r.seconds_per_question),
        r.no_answer.to_string(),
    ]
}

/// The columns of the results (Markdown headings, CSV names).
const COLUMNS: [(&str, &str); 12] = [
    ("memory", "memory"),
    ("questions", "questions"),
    ("EM", "em"),
    ("F1", "f1"),
    ("reference EM", "reference_em"),
    ("reference F1", "reference_f1"),
    ("support", "supporting_recall"),
    ("calls/q", "calls_per_question"),
    ("prompt tokens/q", "prompt_tokens_per_question"),
    ("completion tokens/q", "completion_tokens_per_question"),
    ("s/q", "seconds_per_question"),
    ("no answer", "no_answer"),
];

/// The results table as Markdown.
pub fn table(plan: &QaPlan, rows: &[QaRow]) -> String {
    let heads: Vec<&str> = COLUMNS.iter().map(|(h, _)| *h).collect();
    let mut s = format!(
        "# Question answering: {} ({}, {} questions)\n\nProfile `{}`{}; official EM and F1 are the best over the answer and its aliases (SQuAD normalization); the reference's columns are `musique_test_big.py`'s figures (micro-averaged F1 over unique words, aliases ignored); support: the supporting paragraphs among those the answer prompt saw.\n\n| {} |\n|{}\n",
        plan.data.display(),
        plan.format.as_str(),
        plan.ids.len(),
        plan.profile.profile.name(),
        if plan.outdated_check {
            ", with the outdated-fact check on each paragraph (`--outdated-check`)"
        } else {
            ""
        },
        heads.join(" | "),
        "---|".repeat(heads.len()),
    );
    for r in rows {
        s.push_str(&format!("| {} |\n", cells(r, 3).join(" | ")));
    }
    s
}

fn write_results(dir: &Path, plan: &QaPlan, records: &[QaRecord]) -> Result<Vec<QaRow>> {
    let planned: HashSet<&str> = plan.ids.iter().map(String::as_str).collect();
    let rows: Vec<QaRow> = plan
        .memories
        .iter()
        .map(|m| {
            let mine: Vec<&QaRecord> = records
                .iter()
                .filter(|r| r.memory == *m && planned.contains(r.id.as_str()))
                .collect();
            row(*m, &mine)
        })
        .collect();
    std::fs::write(dir.join("results.md"), table(plan, &rows))?;
    std::fs::write(
        dir.join("results.json"),
        serde_json::to_string_pretty(&rows)? + "\n",
    )?;
    let names: Vec<&str> = COLUMNS.iter().map(|(_, n)| *n).collect();
    let mut csv = names.join(",") + "\n";
    for r in &rows {
        let line: Vec<String> = cells(r, 4)
            .into_iter()
            .map(|c| if c == "-" { String::new() } else { c })
            .collect();
        csv.push_str(&(line.join(",") + "\n"));
    }
    std::fs::write(dir.join("results.csv"), csv)?;
    Ok(rows)
}

/// Replay every answered question of a run with its recorded answers and vectors.
async fn replay(dir: &Path, quiet: bool) -> Result<ExitCode> {
    use crate::llm::replay::ReplayBackend;
    let plan = read_plan(dir)?;
    let (_, all) = data::load(&plan.data)?;
    let (records, read) = read_records(&dir.join("questions.jsonl"), false)?;
    if read.cut_last_line {
        eprintln!(
            "ariadne qa: the last line of {}/questions.jsonl is cut (a killed run); the {} complete records are replayed",
            dir.display(),
            records.len()
        );
    }
    if read.repeated > 0 {
        eprintln!(
            "ariadne qa: {} lines of {}/questions.jsonl repeat a question already answered by the same memory; the first of each is replayed",
            read.repeated,
            dir.display()
        );
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
            eprintln!(
                "replay diverged at {} {} (record {}): recorded {}, replayed {}",
                rec.memory.name(),
                rec.id,
                n + 1,
                rec.outcome(),
                again.outcome()
            );
            return Ok(ExitCode::FAILURE);
        }
    }
    if !quiet {
        println!(
            "replayed {} answered questions of {} with no LLM call: every prediction, metric and retrieval matches",
            records.len(),
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Under `--resume` or `--replay` the run's own plan is followed: a note names the
/// memory options (flags and config keys) and the config keys choosing the agent given
/// beside it, which it ignores (`why` says which of the two; the agent's flags are
/// refused there).
fn note_ignored(resolver: &Resolver, args: &QaArgs, why: &str) {
    let ignored = resolver.ignored_beside_plan(&args.memory_args, None);
    if !ignored.is_empty() && !args.quiet {
        eprintln!("ariadne qa: note: {why}: {} ignored", ignored.join(", "));
    }
}

/// The memories `--memory` names by default: AriGraph and the paper's three baselines.
pub const DEFAULT_MEMORIES: &str = "arigraph,rag,bm25,full-context";

/// Run `ariadne qa`.
///
/// # Errors
/// Input errors as one line (a malformed data file, unknown ids or memories, an
/// unreadable run to resume); endpoint errors after the answered questions were written.
pub async fn run(args: QaArgs) -> Result<ExitCode> {
    let resolver = Resolver::load(args.llm.config.as_deref())?;
    if let Some(dir) = &args.replay {
        note_ignored(
            &resolver,
            &args,
            "--replay asks again under the run's own plan",
        );
        return replay(dir, args.quiet).await;
    }
    let llm_settings = resolver.llm(&args.llm)?;
    let (dir, mut plan, questions) = match &args.resume {
        Some(dir) => {
            let plan = read_plan(dir)?;
            note_ignored(
                &resolver,
                &args,
                "--resume answers under the run's own plan",
            );
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
            (dir.clone(), plan, questions)
        }
        None => {
            let path = args.data.clone().context("--data is required")?;
            let (format, all) = data::load(&path)?;
            let (all, unanswerable) = data::answerable(all);
            if unanswerable > 0 && !args.quiet {
                eprintln!(
                    "ariadne qa: {unanswerable} unanswerable questions (answerable: false) left out, as the paper's protocol asks the answerable set"
                );
            }
            if all.is_empty() {
                bail!(UserError::new(format!(
                    "{}: no answerable question in the file",
                    path.display()
                )));
            }
            let questions = match (&args.ids, args.sample) {
                (Some(ids), _) => data::select(all, ids)?,
                (None, Some(n)) => data::sample(all, n, args.seed),
                (None, None) => all,
            };
            let profile = ProfileRecord::new(
                resolver.profile(&args.memory_args)?,
                &resolver.without(&args.memory_args)?,
            );
            let rules = profile.resolved();
            let memories =
                QaMemory::parse_list(args.memory.as_deref().unwrap_or(DEFAULT_MEMORIES))?;
            let graphless: Vec<&str> = memories
                .iter()
                .filter(|m| **m != QaMemory::Arigraph)
                .map(|m| m.name())
                .collect();
            if args.outdated_check && graphless.len() == memories.len() {
                bail!(UserError::new(format!(
                    "--outdated-check changes nothing for --memory {}: only arigraph builds a graph to check",
                    graphless.join(",")
                )));
            }
            let rows: Vec<options::Row> = memories
                .iter()
                .map(|m| m.reading(args.outdated_check))
                .collect();
            let (memory, notes) = resolver.memory(&args.memory_args, None, &rules, &rows)?;
            if !args.quiet {
                for note in notes {
                    eprintln!("ariadne qa: note: {note}");
                }
                if args.outdated_check && !graphless.is_empty() {
                    eprintln!(
                        "ariadne qa: note: --outdated-check is ignored by the row{} {}: only arigraph builds a graph to check",
                        if graphless.len() == 1 { "" } else { "s" },
                        graphless.join(", ")
                    );
                }
            }
            let plan = QaPlan {
                data: std::path::absolute(&path).unwrap_or(path.clone()),
                format,
                ids: questions.iter().map(|q| q.id.clone()).collect(),
                sample: args.sample.map(|n| (n, args.seed)),
                memories,
                memory,
                outdated_check: args.outdated_check,
                ranking: args.episode_ranking,
                profile,
                prompts: resolver.prompts(&args.memory_args),
                seed: args.seed,
                llm: serde_json::Value::Null,
                created_at: chrono::Local::now().to_rfc3339(),
            };
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let dir = args.out.clone().unwrap_or_else(|| {
                PathBuf::from("runs").join(format!(
                    "qa-{}-{stem}",
                    chrono::Local::now().format("%Y%m%d-%H%M%S")
                ))
            });
            if dir.join("qa.json").exists() {
                bail!(UserError::new(format!(
                    "{} holds a QA run already; finish it with --resume {}",
                    dir.display(),
                    dir.display()
                )));
            }
            (dir, plan, questions)
        }
    };
    let prompts = crate::llm::prompts::Prompts::load_noting(plan.prompts.as_deref())?;
    let records_path = dir.join("questions.jsonl");
    let (mut records, _) = read_records(&records_path, true)?;
    let done: HashSet<(QaMemory, String)> =
        records.iter().map(|r| (r.memory, r.id.clone())).collect();
    let todo: Vec<(QaMemory, &Question)> = plan
        .memories
        .iter()
        .flat_map(|m| questions.iter().map(move |q| (*m, q)))
        .filter(|(m, q)| !done.contains(&(*m, q.id.clone())))
        .collect();
    std::fs::create_dir_all(&dir)
        .map_err(|e| UserError::new(format!("cannot create {}: {e}", dir.display())))?;
    let needs_chat = !todo.is_empty();
    let py = pyenv::ensure(Needs {
        local: (llm_settings.embedded_chat() && needs_chat).then_some(llm_settings.local_model),
        embed: llm_settings.embed_base_url.is_none() && needs_chat,
        ..Needs::default()
    })
    .await?;
    let conn = connect::connect(
        &llm_settings,
        needs_chat,
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
    let llm = Llm {
        backend: conn.backend(plan.seed)?,
        prompts,
    };
    let total = plan.memories.len() * questions.len();
    if !args.quiet {
        eprintln!(
            "ariadne qa: {} questions x {} memories from {} ({}); {} answered before, {} to answer; run directory {}",
            questions.len(),
            plan.memories.len(),
            plan.data.display(),
            plan.format.as_str(),
            done.len(),
            todo.len(),
            dir.display()
        );
    }
    let cancel = crate::cancel::watch_ctrl_c();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&records_path)
        .with_context(|| format!("cannot write {}", records_path.display()))?;
    let mut stream = futures::stream::iter(todo.iter().map(|(m, q)| {
        let (llm, plan) = (&llm, &plan);
        async move { crate::qa::answer(llm, plan, *m, q).await }
    }))
    .buffer_unordered(args.jobs as usize);
    let mut failure = None;
    let mut finished = 0usize;
    loop {
        let next = tokio::select! {
            n = stream.next() => n,
            _ = cancel.cancelled() => break,
        };
        let Some(result) = next else { break };
        match result {
            Ok(record) => {
                writeln!(file, "{}", serde_json::to_string(&record)?)?;
                file.flush()?;
                finished += 1;
                records.push(record);
                let record = records.last().expect("just pushed");
                if !args.quiet {
                    let left: Vec<QaMemory> = todo[finished..].iter().map(|(m, _)| *m).collect();
                    let times: Vec<(QaMemory, f64)> =
                        records.iter().map(|r| (r.memory, r.seconds)).collect();
                    let eta = seconds_left(&times, &left, args.jobs);
                    eprintln!(
                        "[{}/{total}] {} {}: EM {} F1 {:.2} ({:.1} s; about {:.0} s left) {:?}",
                        done.len() + finished,
                        record.memory.name(),
                        record.id,
                        u8::from(record.em),
                        record.f1,
                        record.seconds,
                        eta,
                        record.prediction
                    );
                }
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    drop(stream);
    conn.servers.stop().await;
    let rows = write_results(&dir, &plan, &records)?;
    if !args.quiet || failure.is_none() {
        println!("{}", table(&plan, &rows));
        println!("run directory: {}", dir.display());
    }
    if let Some(e) = failure {
        return Err(e.context(format!(
            "question answering stopped (the answered questions are in {}; finish with --resume)",
            dir.display()
        )));
    }
    if cancel.is_cancelled() {
        eprintln!(
            "ariadne qa: interrupted; finish with --resume {}",
            dir.display()
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
