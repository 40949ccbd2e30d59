//! The commands: thin orchestration over the engine ([`crate::episode`]), the memory,
//! the environment and the trajectory. [`run`] dispatches a parsed command line;
//! [`exit_code`] maps an error chain to the process exit code.

pub mod agent;
pub mod bench;
mod exit;
pub mod games;
pub mod play;
pub mod profile;
pub mod qa;
pub mod replay;
pub mod term;
pub mod view;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

pub use crate::ops::is_user_error;
pub use exit::exit_code;

/// Run a parsed command line.
///
/// # Errors
/// Whatever the command reports; [`exit_code`] tells how to exit.
pub async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Play(args) => play::run(*args).await,
        Command::Replay(args) => replay::run(*args).await,
        Command::Bench(args) => bench::run(*args).await,
        Command::Games(cmd) => games::run(cmd).await,
        Command::Setup(args) => games::setup(args).await,
        Command::View(args) => view::run(args).await,
        Command::Profile(cmd) => profile::run(cmd),
        Command::Qa(args) => qa::run(*args).await,
        Command::Agent(args) => agent::run(*args).await,
    }
}
