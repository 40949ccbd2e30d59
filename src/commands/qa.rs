//! `ariadne qa`: multi-hop question answering with AriGraph and the baselines
//! ([`crate::qa`]): the arguments resolved into a run (a new one, or `--resume`), the
//! QA operation ([`crate::ops::qa`]) answering it with a line per answer, the results
//! table rendered; `--replay` asks a run's questions again with no LLM call.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use crate::cli::QaArgs;
use crate::error::UserError;
use crate::ops::qa::replay::Replayed;
use crate::ops::qa::results::table;
use crate::ops::qa::{QaOutcome, QaProgress, QaRun, QaStart, answer_all, replay, resume};
use crate::profile::ProfileRecord;
use crate::qa::data::{self, Format, Question};
use crate::qa::run::QaPlan;
use crate::qa::{QaMemory, QaRecord};
use crate::settings::Resolver;
use crate::settings::options;
use crate::text::{count, count_as};

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
        return replayed(dir, args.quiet).await;
    }
    let llm = resolver.llm(&args.llm)?;
    let run = match &args.resume {
        Some(dir) => {
            let run = resume(dir)?;
            note_ignored(
                &resolver,
                &args,
                "--resume answers under the run's own plan",
            );
            run
        }
        None => new_run(&args, &resolver)?,
    };
    let outcome = answer_all(run, &llm, args.jobs, &Lines { quiet: args.quiet }).await?;
    render(outcome, args.quiet)
}

/// Replay a run and say what it found.
async fn replayed(dir: &Path, quiet: bool) -> Result<ExitCode> {
    match replay::replay(dir).await? {
        Replayed::Matched(n) => {
            if !quiet {
                println!(
                    "replayed {n} answered questions of {} with no LLM call: every prediction, metric and retrieval matches",
                    dir.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Replayed::Diverged {
            at,
            record,
            recorded,
            replayed,
        } => {
            eprintln!(
                "replay diverged at {at} (record {record}): recorded {recorded}, replayed {replayed}"
            );
            Ok(ExitCode::FAILURE)
        }
    }
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

/// A new run from the arguments: the questions of the data file, the plan, the run
/// directory (which must not hold a run already).
///
/// # Errors
/// A malformed data file, no answerable question, unknown ids or memories, options no
/// memory reads, a directory holding a run.
fn new_run(args: &QaArgs, resolver: &Resolver) -> Result<QaRun> {
    let path = args.data.clone().context("--data is required")?;
    let (format, questions) = questions(args, &path)?;
    let plan = plan(args, resolver, &path, format, &questions)?;
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
    Ok(QaRun {
        dir,
        plan,
        questions,
    })
}

/// The answerable questions of the data file at `path`, those `--ids` names or a
/// `--sample` of them.
///
/// # Errors
/// A malformed file, no answerable question, unknown ids.
fn questions(args: &QaArgs, path: &Path) -> Result<(Format, Vec<Question>)> {
    let (format, all) = data::load(path)?;
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
    Ok((format, questions))
}

/// The plan of a new run: the memories, their settings under the profile, and what
/// the run directory records.
///
/// # Errors
/// Unknown memories or rules, an option no memory reads (`--outdated-check` with no
/// graph to check).
fn plan(
    args: &QaArgs,
    resolver: &Resolver,
    path: &Path,
    format: Format,
    questions: &[Question],
) -> Result<QaPlan> {
    let profile = ProfileRecord::new(
        resolver.profile(&args.memory_args)?,
        &resolver.without(&args.memory_args)?,
    );
    let rules = profile.resolved();
    let memories = QaMemory::parse_list(args.memory.as_deref().unwrap_or(DEFAULT_MEMORIES))?;
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
    let plan = QaPlan {
        data: std::path::absolute(path).unwrap_or(path.to_path_buf()),
        format,
        ids: questions.iter().map(|q| q.id.clone()).collect(),
        sample: args.sample.map(|n| (n, args.seed)),
        memories,
        memory,
        outdated_check: args.outdated_check,
        ranking: args.episode_ranking,
        extractions_at_once: args.extractions_at_once,
        profile,
        prompts: resolver.prompts(&args.memory_args),
        seed: args.seed,
        llm: serde_json::Value::Null,
        created_at: chrono::Local::now().to_rfc3339(),
    };
    refuse_idle_switches(&plan, &graphless)?;
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
    Ok(plan)
}

/// Refuse `--extractions-at-once` and `--episode-ranking` where they change nothing
/// (as every option that changes nothing is refused): no `arigraph` row, or extractions
/// that read the graph earlier paragraphs built.
///
/// # Errors
/// A [`UserError`] naming the option and why.
fn refuse_idle_switches(plan: &QaPlan, graphless: &[&str]) -> Result<()> {
    let only_graphless = graphless.len() == plan.memories.len();
    if plan.extractions_at_once > 1 {
        if only_graphless {
            bail!(UserError::new(format!(
                "--extractions-at-once changes nothing for --memory {}: only arigraph extracts triplets from the paragraphs",
                graphless.join(",")
            )));
        }
        if let Some(why) = plan.graph_settings().extraction_reads_the_graph() {
            bail!(UserError::new(format!(
                "--extractions-at-once changes nothing here: {why}, so each paragraph is read after the one before"
            )));
        }
    }
    if plan.ranking == crate::qa::EpisodeRanking::Eq1 && only_graphless {
        bail!(UserError::new(format!(
            "--episode-ranking changes nothing for --memory {}: only arigraph ranks its episodic vertices",
            graphless.join(",")
        )));
    }
    Ok(())
}

/// A line on stderr when the run starts and per answer (nothing with `--quiet`).
struct Lines {
    quiet: bool,
}

impl QaProgress for Lines {
    fn start(&self, s: &QaStart<'_>) {
        if self.quiet {
            return;
        }
        let QaRun {
            dir,
            plan,
            questions,
        } = s.run;
        eprintln!(
            "ariadne qa: {} x {} from {} ({}); {} answered before, {} to answer; run directory {}",
            count(questions.len() as u64, "question"),
            count_as(plan.memories.len() as u64, "memory", "memories"),
            plan.data.display(),
            plan.format.as_str(),
            s.answered_before,
            s.to_answer,
            dir.display()
        );
    }

    fn answered(&self, record: &QaRecord, n: usize, total: usize, seconds_left: f64) {
        if self.quiet {
            return;
        }
        eprintln!(
            "[{n}/{total}] {} {}: EM {} F1 {:.2} ({:.1} s; about {seconds_left:.0} s left) {:?}",
            record.memory.name(),
            record.id,
            u8::from(record.em),
            record.f1,
            record.seconds,
            record.prediction
        );
    }
}

/// The results table and the run directory, then how the run ended.
///
/// # Errors
/// The error that stopped the run, with where its answered questions are.
fn render(outcome: QaOutcome, quiet: bool) -> Result<ExitCode> {
    let QaOutcome {
        dir,
        plan,
        rows,
        failure,
        interrupted,
    } = outcome;
    if !quiet || failure.is_none() {
        println!("{}", table(&plan, &rows));
        println!("run directory: {}", dir.display());
    }
    if let Some(e) = failure {
        return Err(e.context(format!(
            "question answering stopped (the answered questions are in {}; finish with --resume)",
            dir.display()
        )));
    }
    if interrupted {
        eprintln!(
            "ariadne qa: interrupted; finish with --resume {}",
            dir.display()
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
