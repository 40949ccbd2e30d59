//! `ariadne bench`: its arguments resolved into a plan (the same resolver as `play`),
//! the bench operation ([`crate::ops::bench`]) played with progress bars, its result
//! rendered; `bench compare` and `bench merge`.

pub mod compare;

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use indicatif::{MultiProgress, ProgressBar, ProgressState, ProgressStyle};

use super::term::ProgressSink;
use crate::cli::{BenchAction, BenchArgs};
use crate::error::{Interrupted, UserError};
use crate::llm::watch::CallWatch;
use crate::ops::bench::{
    Announcement, BenchOptions, BenchOutcome, BenchPlan, BenchProgress, EpisodeProgress, Shard,
    bench, default_jobs, merge,
};
use crate::rows::Variant;
use crate::settings::Resolver;
use crate::trajectory::bench::EpisodeRow;
use crate::trajectory::{Outcome, StepSink};

/// Run `ariadne bench` from its arguments: `compare` and `merge`, or the settings
/// resolved into a plan (the same resolver as `play`), the bench played with progress
/// bars, its result rendered.
///
/// # Errors
/// See [`bench()`] and [`render`].
pub async fn run(args: BenchArgs) -> Result<ExitCode> {
    if let Some(action) = &args.action {
        return act(action);
    }
    let resolver = Resolver::load(args.llm.config.as_deref())?;
    // With no temperature given, calls are sampled at the reference code's temperature
    // per module (plan and action at 0.2), so N attempts differ.
    let llm = resolver.llm(&args.llm)?;
    let plan = plan(&args, &resolver)?;
    let outcome = bench(
        BenchOptions {
            plan,
            jobs: args.jobs.map_or_else(|| default_jobs(&llm), usize::from),
            out: args.out.clone(),
            resume: args.resume.clone(),
            llm,
        },
        &Bars::new(),
    )
    .await?;
    render(&outcome)?;
    Ok(ExitCode::SUCCESS)
}

/// The results table a bench wrote, and its charts (or why they were not drawn).
fn print_results(written: &crate::ops::bench::plan::Written) {
    if let Some(e) = &written.chart_error {
        eprintln!("warning: the bench charts were not drawn: {e}");
    }
    println!("{}", written.markdown);
    if written.charts > 0 {
        println!(
            "{} in {}",
            count(written.charts, "chart"),
            written.charts_dir.display()
        );
    }
}

/// `bench compare` and `bench merge`.
fn act(action: &BenchAction) -> Result<ExitCode> {
    match action {
        BenchAction::Compare { before, after } => print!("{}", compare::compare(before, after)?),
        BenchAction::Merge { dirs, out } => {
            let (missing, written) = merge::merge(dirs, out)?;
            print_results(&written);
            println!(
                "merged {} into {}",
                count(dirs.len(), "shard"),
                out.display()
            );
            if !missing.is_empty() {
                eprintln!(
                    "warning: {} of the plan {} in no shard: {}",
                    count(missing.len(), "episode"),
                    if missing.len() == 1 { "is" } else { "are" },
                    missing.join(", ")
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The plan `bench`'s arguments ask for: a row per profile and memory design (profiles
/// outermost), the games, attempts and settings; a resumed bench plays its own plan.
///
/// # Errors
/// Unknown games, designs or rules, options no row reads, a bad `--shard`.
fn plan(args: &BenchArgs, resolver: &Resolver) -> Result<BenchPlan> {
    let profiles = resolver.profiles(&args.memory_args)?;
    let designs = Variant::parse_list(&args.memory)?;
    let variants: Vec<Variant> = profiles
        .iter()
        .flat_map(|p| {
            designs.iter().map(|v| Variant {
                profile: Some(*p),
                ..*v
            })
        })
        .collect();
    // A resumed bench plays its own plan, rules included.
    let resumed = args.resume.is_some();
    let without = if resumed {
        Vec::new()
    } else {
        resolver.without(&args.memory_args)?
    };
    let games = if resumed {
        Vec::new()
    } else {
        crate::env::games::expand(&args.games)?
    };
    let memory = resolver.bench_memory(args, &variants)?;
    Ok(BenchPlan {
        games,
        variants,
        runs: args.runs.max(1),
        max_steps: args.max_steps,
        seed: args.seed,
        trials: args.game_args.trials(),
        memory,
        agent: resolver.agent(&args.game_args, &crate::profile::Rules::NONE),
        without,
        prompts: resolver.prompts(&args.memory_args),
        goal: resolver.goal(&args.game_args)?,
        game_timeout_s: args.game_args.game_timeout,
        shard: args.shard.as_deref().map(shard).transpose()?,
    })
}

/// `--shard K/N`, or `auto`: the slice the cluster scheduler hands this task.
fn shard(s: &str) -> Result<Shard, UserError> {
    let shard = if s.trim() == "auto" {
        Shard::from_scheduler(|name| std::env::var(name).ok())
    } else {
        s.parse::<Shard>()
    };
    shard.map_err(|e| UserError::new(format!("--shard: {e}")))
}

/// Say what a played bench gave: its rows, the failed ones with their reasons.
///
/// # Errors
/// [`Interrupted`] after Ctrl-C (exit 130); an error when every episode failed.
fn render(outcome: &BenchOutcome) -> Result<()> {
    let BenchOutcome {
        dir,
        rows,
        elapsed,
        interrupted,
        results,
    } = outcome;
    print_results(results);
    let failed = rows.iter().filter(|r| r.outcome == Outcome::Failed).count();
    println!(
        "{} recorded ({failed} failed) in {:.1}s; results in {}{}",
        count(rows.len(), "episode"),
        elapsed.as_secs_f64(),
        dir.display(),
        if *interrupted {
            format!(
                "; interrupted: resume with `ariadne bench --resume {}`",
                dir.display()
            )
        } else {
            String::new()
        }
    );
    for r in rows.iter().filter(|r| r.outcome == Outcome::Failed) {
        println!(
            "failed: {} / {} / run {}: {}",
            r.game,
            r.memory,
            r.run,
            r.error.as_deref().unwrap_or("?")
        );
    }
    if *interrupted {
        return Err(anyhow::Error::new(Interrupted));
    }
    if !rows.is_empty() && failed == rows.len() {
        bail!(
            "every episode of the bench failed ({failed}); see the reasons above and in {}",
            dir.join("episodes.jsonl").display()
        );
    }
    Ok(())
}

/// `1 game`, `2 games` ([`crate::text::count`]).
fn count(n: usize, what: &str) -> String {
    crate::text::count(n as u64, what)
}

/// The bench's progress on the terminal: a bar for the episodes, shown from the first
/// episode on (after the set-up's own lines), and one per episode playing (hidden with
/// `ARIADNE_NO_PROGRESS`).
struct Bars {
    multi: MultiProgress,
    overall: std::sync::OnceLock<ProgressBar>,
    /// Episodes of the plan, and those finished before this session.
    counts: std::sync::OnceLock<(u64, u64)>,
}

impl Bars {
    fn new() -> Self {
        let multi = MultiProgress::new();
        if std::env::var_os("ARIADNE_NO_PROGRESS").is_some() {
            multi.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        Bars {
            multi,
            overall: std::sync::OnceLock::new(),
            counts: std::sync::OnceLock::new(),
        }
    }

    /// The episodes' bar, made at its first use.
    fn overall(&self) -> &ProgressBar {
        self.overall.get_or_init(|| {
            let (total, done) = self.counts.get().copied().unwrap_or_default();
            let overall = self.multi.add(ProgressBar::new(total));
            overall.set_style(
                ProgressStyle::with_template(
                    "episodes [{bar:30}] {pos}/{len} {msg} elapsed {elapsed} eta {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            overall.set_position(done);
            overall.enable_steady_tick(Duration::from_millis(500));
            overall
        })
    }
}

impl BenchProgress for Bars {
    fn announce(&self, a: &Announcement) {
        let (pt, ct) = a.paper_tokens;
        println!(
            "ariadne bench: {} x {} (memory and profile) x {}{} = {} ({} already finished); to play: {}, at most {}, about {}; at the paper's tokens per step (Table 3) up to {} prompt / {} completion tokens; {} at a time",
            count(a.games, "game"),
            count(a.rows, "row"),
            count(a.runs as usize, "run"),
            a.shard
                .map(|s| format!(", shard {} of {}", s.k, s.n))
                .unwrap_or_default(),
            count(a.total, "episode"),
            a.total - a.to_play,
            count(a.to_play, "episode"),
            count(a.steps_cap as usize, "step"),
            count(a.calls as usize, "LLM call"),
            crate::text::amount(pt),
            crate::text::amount(ct),
            a.jobs
        );
        println!("bench directory: {}", a.dir.display());
        let _ = self
            .counts
            .set((a.total as u64, (a.total - a.to_play) as u64));
    }

    fn episode(&self, label: &str, cap: u32) -> Box<dyn EpisodeProgress> {
        let overall = self.overall().clone();
        let pb = self.multi.add(ProgressBar::new(u64::from(cap)));
        let call = Arc::new(CallLine::default());
        let shown = call.clone();
        pb.set_style(
            ProgressStyle::with_template("  {prefix:40} [{bar:20}] step {pos}/{len} {msg}{call}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .with_key(
                    "call",
                    move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&shown.text(Instant::now()));
                    },
                ),
        );
        pb.set_prefix(label.to_string());
        // Redrawn each second, so the call's time in flight counts up between steps.
        pb.enable_steady_tick(Duration::from_secs(1));
        Box::new(EpisodeBar {
            pb,
            multi: self.multi.clone(),
            overall,
            call,
        })
    }

    fn finish(&self) {
        if let Some(o) = self.overall.get() {
            o.finish_and_clear();
        }
    }
}

/// One episode's bar.
struct EpisodeBar {
    pb: ProgressBar,
    multi: MultiProgress,
    overall: ProgressBar,
    call: Arc<CallLine>,
}

/// The chat call an episode's bar shows in flight: its purpose and when it was sent.
#[derive(Default)]
struct CallLine(Mutex<Option<(String, Instant)>>);

impl CallLine {
    /// What the bar shows at `now`: " · plan call 42 s", or nothing between calls.
    fn text(&self, now: Instant) -> String {
        match self.0.lock().ok().and_then(|c| c.clone()) {
            Some((purpose, since)) => format!(
                " · {purpose} call {} s",
                now.saturating_duration_since(since).as_secs()
            ),
            None => String::new(),
        }
    }
}

impl CallWatch for CallLine {
    fn started(&self, purpose: &str) {
        if let Ok(mut c) = self.0.lock() {
            *c = Some((purpose.to_string(), Instant::now()));
        }
    }

    fn ended(&self) {
        if let Ok(mut c) = self.0.lock() {
            *c = None;
        }
    }
}

impl EpisodeProgress for EpisodeBar {
    fn sink(&self) -> Box<dyn StepSink> {
        Box::new(ProgressSink(self.pb.clone()))
    }

    fn ended(&self, row: Option<&EpisodeRow>) {
        self.pb.finish_and_clear();
        self.multi.remove(&self.pb);
        if let Some(row) = row {
            self.overall.inc(1);
            self.overall.set_message(format!(
                "last: {} {} run {} {}",
                row.game, row.memory, row.run, row.outcome
            ));
        }
    }

    fn calls(&self) -> Option<Arc<dyn CallWatch>> {
        Some(self.call.clone())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_call_in_flight_is_shown_with_its_time_until_it_ends() {
        use super::{CallLine, CallWatch};
        use std::time::{Duration, Instant};
        let line = CallLine::default();
        assert_eq!(line.text(Instant::now()), "");
        line.started("extract_triplets");
        let later = Instant::now() + Duration::from_secs(42);
        assert_eq!(line.text(later), " · extract_triplets call 42 s");
        line.ended();
        assert_eq!(line.text(later), "");
    }

    /// `--jobs` not given: 1 on the embedded model, 2 on an endpoint; given, as given.
    #[test]
    fn episodes_at_once_default_by_where_the_model_runs() {
        use clap::Parser;
        let args = |extra: &[&str]| {
            let mut argv = vec!["ariadne", "bench", "--games", "simple"];
            argv.extend_from_slice(extra);
            match crate::cli::Cli::parse_from(argv).command {
                crate::cli::Command::Bench(args) => args,
                _ => unreachable!("a bench command line"),
            }
        };
        let given = args(&["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]);
        let mut llm = super::Resolver::default()
            .llm(&given.llm)
            .expect("settings");
        assert_eq!(given.jobs, None);
        assert_eq!(super::default_jobs(&llm), 2);
        assert_eq!(crate::ops::bench::REMOTE_JOBS, 2);
        // The embedded model (no base URL, whatever the environment says).
        llm.base_url = None;
        assert_eq!(super::default_jobs(&llm), 1);
        assert_eq!(crate::ops::bench::EMBEDDED_JOBS, 1);
        assert_eq!(args(&["--jobs", "3"]).jobs, Some(3));
    }

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(super::count(1, "episode"), "1 episode");
        assert_eq!(super::count(0, "episode"), "0 episodes");
        assert_eq!(super::count(2, "game"), "2 games");
    }
}
