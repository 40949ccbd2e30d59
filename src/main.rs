//! `ariadne` binary: parse the command line, run, turn an error into one line and an
//! exit code.

use std::process::ExitCode;

use clap::Parser;

use std::path::PathBuf;

use ariadne::bench::{self, BenchOptions, BenchPlan, Variant};
use ariadne::cli::GamesCommand;
use ariadne::cli::{Cli, Command};
use ariadne::games;
use ariadne::memory::MemorySettings;
use ariadne::replay::{self, ReplayOptions};
use ariadne::settings::{ConfigFile, LlmSettings, PlaySettings};
use ariadne::{error, play, pyenv};

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Play(args) if args.walkthrough => {
            let game = ariadne::settings::resolve_game(&args.game);
            let r = games::walkthrough(&game, args.quiet).await?;
            println!(
                "walkthrough of {}: {} commands, score {}/{}, {}",
                game.display(),
                r.steps,
                r.score,
                r.max_score,
                if r.won { "won" } else { "NOT won" }
            );
            Ok(if r.won && r.score == r.max_score {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Games(GamesCommand::Make {
            family,
            size,
            seed,
            out,
            force,
        }) => {
            let out = out.unwrap_or_else(|| {
                PathBuf::from("games").join(format!("{family}-{size}-{seed}.z8"))
            });
            if out.exists() && !force {
                return Err(ariadne::error::UserError::new(format!(
                    "{} exists; pass --force to replace it, or choose another --out",
                    out.display()
                ))
                .into());
            }
            let e = games::make(&family, &size, seed, &out).await?;
            println!(
                "made {} ({} {}, seed {}): {} rooms, max score {}, walkthrough {} commands",
                out.display(),
                e.family,
                e.size,
                e.seed,
                e.rooms,
                e.max_score,
                e.walkthrough.len()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Games(GamesCommand::List { dir }) => {
            // The default `games` falls back to the source tree's bundled games, as
            // `play <name>` does, when run from another directory.
            let dir = if dir == std::path::Path::new("games") && !dir.is_dir() {
                ariadne::settings::games_dirs()
                    .into_iter()
                    .find(|d| d.is_dir())
                    .unwrap_or(dir)
            } else {
                dir
            };
            let (entries, others) = games::list(&dir)?;
            println!(
                "{:<24} {:<18} {:<8} {:>5} {:>9} {:>5}  goal",
                "name", "family", "size", "rooms", "max score", "seed"
            );
            for e in &entries {
                println!(
                    "{:<24} {:<18} {:<8} {:>5} {:>9} {:>5}  {}",
                    e.name, e.family, e.size, e.rooms, e.max_score, e.seed, e.main_goal
                );
            }
            for o in &others {
                println!(
                    "{:<24} (not in {}/manifest.json)",
                    o.file_stem()
                        .map(|s| s.to_string_lossy())
                        .unwrap_or_default(),
                    dir.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
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
            if args.resume.is_some() && !args.games.is_empty() {
                eprintln!(
                    "warning: --resume plays the bench's own plan; --games, --memory, --runs and the step cap given here are ignored"
                );
            }
            bench::bench(BenchOptions {
                plan,
                jobs: usize::from(args.jobs),
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
