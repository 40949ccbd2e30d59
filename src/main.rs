//! `ariadne` binary: parse the command line, run, turn an error into one line and an
//! exit code.

use std::process::ExitCode;

use clap::Parser;

use ariadne::cli::Cli;
use ariadne::commands;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    match commands::run(cli).await {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            commands::exit_code(&err)
        }
    }
}
