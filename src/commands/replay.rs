//! `ariadne replay`: re-execute a logged run through the real bridge with every LLM
//! answer (chat and embeddings) served from the log, rebuild the memory step by step,
//! and check each step against the log; inspect or export the graph at any step; hand
//! over to a live LLM from step N; recompute retrieval under other d, w, k (what-if);
//! report graph statistics over time (paper Figure 5).

mod inspect;

use std::process::ExitCode;

use anyhow::Result;

use super::term::TerminalView;
use crate::cli::ReplayArgs;
use crate::error::UserError;
use crate::ops::replay::{ReplayOptions, Shown, replay};
use crate::settings::Resolver;
use crate::trajectory::StepSink;

/// Run `ariadne replay` from its arguments: the replay operation with the terminal
/// view, then the report asked for (what-if table, accuracy, statistics, the memory at
/// a step, an export).
///
/// # Errors
/// See [`replay`].
pub async fn run(args: ReplayArgs) -> Result<ExitCode> {
    let what_if = (args.depth.is_some() || args.width.is_some() || args.episodic_k.is_some())
        .then_some((args.depth, args.width, args.episodic_k));
    let llm = match args.continue_from {
        Some(_) => Some(Resolver::load(args.llm.config.as_deref())?.llm(&args.llm)?),
        None => None,
    };
    let handover = match &args.profile {
        Some(name) => {
            let profile: crate::profile::Profile = name
                .parse()
                .map_err(|e: String| UserError::new(format!("--profile: {e}")))?;
            let without = crate::profile::parse_rules(args.without.as_deref())
                .map_err(|e| UserError::new(format!("--without: {e}")))?;
            Some(crate::profile::ProfileRecord::new(profile, &without))
        }
        None => None,
    };
    let opts = ReplayOptions {
        run: args.run,
        step: args.step,
        export: args.export,
        out: args.out,
        continue_from: args.continue_from,
        max_steps: args.max_steps,
        what_if,
        stats: args.stats,
        csv: args.csv,
        accuracy: args.accuracy,
        quiet: args.quiet,
        handover,
        llm,
    };
    let quiet = opts.quiet;
    let views = move |s: &Shown<'_>| -> Vec<Box<dyn StepSink>> {
        let mut view = TerminalView::new(quiet, s.game.clone(), s.dir.to_path_buf());
        view.banner = s.continued;
        vec![Box::new(view)]
    };
    let replayed = replay(&opts, &views).await?;
    let outcome = inspect::Outcome {
        run: &replayed.run,
        replayed: &replayed.steps,
        served_steps: replayed.served_steps,
        elapsed: replayed.elapsed,
        done: &replayed.done,
        dir: &replayed.dir,
        what_if: replayed.what_if.as_ref(),
    };
    inspect::report(&opts, &outcome)?;
    Ok(ExitCode::SUCCESS)
}
