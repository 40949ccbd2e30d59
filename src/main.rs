//! `ariadne` binary: parse the command line, run, turn an error into one line and an
//! exit code.

use std::process::ExitCode;

use clap::Parser;

use ariadne::bench::{self, BenchOptions, BenchPlan, Variant};
use ariadne::cli::{Cli, Command};
use ariadne::memory::MemorySettings;
use ariadne::replay::{self, ReplayOptions};
use ariadne::settings::{ConfigFile, LlmSettings, PlaySettings};
use ariadne::{error, play, pyenv};

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Play(args) => {
            let settings = PlaySettings::resolve(&args)?;
            let (summary, _) = play::play(settings).await?;
            Ok(if summary.outcome == "interrupted" {
                ExitCode::from(130)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Replay(args) => {
            let what_if = (args.depth.is_some() || args.width.is_some() || args.episodes.is_some())
                .then_some((args.depth, args.width, args.episodes));
            let llm = match args.continue_from {
                Some(_) => {
                    let cfg = ConfigFile::load(args.llm.config.as_deref())?;
                    Some(LlmSettings::resolve(&args.llm, &cfg)?)
                }
                None => None,
            };
            replay::replay(ReplayOptions {
                run: args.run,
                step: args.step,
                export: args.export,
                out: args.out,
                continue_from: args.continue_from,
                max_steps: args.max_steps,
                what_if,
                stats: args.stats,
                csv: args.csv,
                quiet: args.quiet,
                llm,
            })
            .await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(args) => {
            let cfg = ConfigFile::load(args.llm.config.as_deref())?;
            let mut llm = LlmSettings::resolve(&args.llm, &cfg)?;
            if args.llm.temperature.is_none() && cfg.temperature.is_none() && args.runs > 1 {
                // At temperature 0 a deterministic server plays N identical attempts.
                llm.temperature = 0.7;
            }
            let defaults = MemorySettings::default();
            let variants = args
                .memory
                .iter()
                .map(|m| Variant::parse(m.trim()))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let games = if args.resume.is_some() {
                Vec::new()
            } else {
                bench::expand_games(&args.games)?
            };
            let plan = BenchPlan {
                games,
                variants,
                runs: args.runs.max(1),
                max_steps: args.max_steps,
                seed: args.seed,
                trials: args.trials,
                memory: MemorySettings {
                    depth: args.depth.or(cfg.depth).unwrap_or(defaults.depth),
                    width: args.width.or(cfg.width).unwrap_or(defaults.width),
                    episodes: args.episodes.or(cfg.episodes).unwrap_or(defaults.episodes),
                    ..defaults
                },
                prompts: args.prompts.clone(),
            };
            bench::bench(BenchOptions {
                plan,
                jobs: args.jobs,
                out: args.out.clone(),
                resume: args.resume.clone(),
                llm,
            })
            .await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Setup(args) => {
            let model = match (&args.local_model, args.bridge_only) {
                (_, true) => None,
                (Some(name), false) => Some(pyenv::local_model(name)?),
                (None, false) => Some(&pyenv::LOCAL_MODELS[0]),
            };
            let env = pyenv::ensure(model, !args.bridge_only).await?;
            println!(
                "ariadne: Python environment ready in {}",
                env.home.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            error::exit_code(&err)
        }
    }
}
