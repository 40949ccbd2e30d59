//! `ariadne games make|list` and `ariadne setup`: the game families and the managed
//! Python environment.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{GamesCommand, SetupArgs};
use crate::env::games;
use crate::error::UserError;
use crate::pyenv::{self, Needs};

/// Run `ariadne games make` or `ariadne games list`.
///
/// # Errors
/// Bad family or size, an existing file without `--force`, generator failures.
pub async fn run(cmd: GamesCommand) -> Result<ExitCode> {
    match cmd {
        GamesCommand::Make {
            family,
            size,
            seed,
            out,
            force,
        } => {
            let out = out.unwrap_or_else(|| {
                PathBuf::from("games").join(format!("{family}-{size}-{seed}.z8"))
            });
            if out.exists() && !force {
                return Err(UserError::new(format!(
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
        GamesCommand::List { dir } => {
            // The default `games` falls back to the source tree's bundled games, as
            // `play <name>` does, when run from another directory.
            let dir = if dir == Path::new("games") && !dir.is_dir() {
                crate::env::games_dirs()
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
            println!("\nOther families: how to name a game, and what it needs installed");
            for (family, name, needs, which) in other_families() {
                println!("  {family:<22} {name}");
                println!("  {:<22} needs: {needs}", "");
                if !which.is_empty() {
                    println!("  {:<22} {which}", "");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Run `ariadne setup`: install the managed Python environment without playing.
///
/// # Errors
/// An unknown model name, pip failures.
pub async fn setup(args: SetupArgs) -> Result<ExitCode> {
    let local = match (&args.local_model, args.games_only) {
        (_, true) => None,
        (Some(name), false) => Some(pyenv::local_model(name)?),
        (None, false) => Some(&pyenv::LOCAL_MODELS[0]),
    };
    let env = pyenv::ensure(Needs {
        local,
        llm_build: args.llm_build,
        embed: !args.games_only,
        twx: args.twx,
        jericho: args.jericho,
        nethack: args.nethack,
        tales: args.tales,
        scienceworld: args.scienceworld,
    })
    .await?;
    println!(
        "ariadne: Python environment ready in {}",
        env.home.display()
    );
    if let Some(installed) = local.and_then(|_| pyenv::llm_build::installed(&env.venv())) {
        println!(
            "ariadne: the local LLM server is {}, {}",
            installed.req,
            pyenv::llm_build::in_words(&installed)
        );
    }
    if args.tales {
        println!(
            "ariadne: TALES's benchmark.py plays Ariadne with: {} benchmark.py --agent {} ariadne --envs TWXCoinCollector",
            env.python.display(),
            env.tales_agent().display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Every family Ariadne plays beyond the bundled games: (family, how to name a game,
/// what it needs installed, which games there are).
fn other_families() -> Vec<(&'static str, String, &'static str, String)> {
    use crate::env::{nethack, scienceworld, suite, twx};
    let suite_names: Vec<&str> = suite::SuiteGame::ALL.iter().map(|g| g.name()).collect();
    vec![
        (
            "TextWorld (your own)",
            "PATH.z8, with its PATH.json sidecar (`ariadne games make`, tw-make)".into(),
            "nothing more (TextWorld comes with the first play)",
            String::new(),
        ),
        (
            "the authors' games",
            format!(
                "{}:NAME[@DIR], or {} for all (DIR: the reference repository's envs/, default ${} or ./envs)",
                suite::SUITE,
                suite::SUITE,
                suite::ENVS_VAR
            ),
            "the reference repository's envs/ folder; `setup --jericho` for detective",
            format!("games: {}", suite_names.join(", ")),
        ),
        (
            "TextWorld-Express",
            format!("{}<game>[?seed=N&key=value...]", twx::PREFIX),
            "`ariadne setup --twx` and a Java runtime",
            format!("games: {}", twx::GAMES.join(", ")),
        ),
        (
            "ScienceWorld",
            format!(
                "{}<task>[?variation=N&simplification=easy|none|...]",
                scienceworld::PREFIX
            ),
            "`ariadne setup --scienceworld` and a Java runtime",
            format!("tasks: {}", scienceworld::TASKS.join(", ")),
        ),
        (
            "Jericho stories",
            "PATH.z3 ... PATH.z8, human-written story files (jericho:PATH for a .z8 that is not TextWorld's)".into(),
            "`ariadne setup --jericho` (builds with the system's C compiler)",
            String::new(),
        ),
        (
            "NetHack (NLE)",
            format!(
                "{}[?seed=S&character=C&obs=room|level]",
                nethack::PREFIX
            ),
            "`ariadne setup --nethack`",
            String::new(),
        ),
        (
            "a harness's game",
            "played by the harness: `ariadne agent --name NAME` (docs/agent-protocol.md)".into(),
            "the harness (TALES: `ariadne setup --tales`)",
            String::new(),
        ),
    ]
}
