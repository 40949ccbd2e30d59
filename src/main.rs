//! `ariadne` binary: parse the command line, run, turn an error into one line and an
//! exit code.

use std::process::ExitCode;

use clap::Parser;

use ariadne::cli::{Cli, Command};
use ariadne::settings::PlaySettings;
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
