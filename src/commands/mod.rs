//! The commands: thin orchestration over the engine ([`crate::episode`]), the memory,
//! the environment and the trajectory. [`run`] dispatches a parsed command line;
//! [`exit_code`] maps an error chain to the process exit code.

pub mod agent;
pub mod bench;
pub mod games;
pub mod play;
pub mod profile;
pub mod qa;
pub mod replay;
pub mod term;
pub mod view;

use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::env::EnvError;
use crate::error::{Interrupted, UserError};
use crate::llm::LlmError;

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

/// Whether an error is a setup or input error the user must fix (exit code 2): a
/// [`UserError`], a missing or unloadable game, an unreachable endpoint, a bad key.
pub fn is_user_error(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<UserError>().is_some()
            || cause
                .downcast_ref::<EnvError>()
                .is_some_and(EnvError::is_user_error)
            || cause
                .downcast_ref::<LlmError>()
                .is_some_and(LlmError::is_user_error)
    })
}

/// Map an error chain to the process exit code: 130 after Ctrl-C, 2 for a setup or
/// input error ([`is_user_error`]), 1 otherwise.
pub fn exit_code(err: &anyhow::Error) -> ExitCode {
    if err
        .chain()
        .any(|c| c.downcast_ref::<Interrupted>().is_some())
    {
        return ExitCode::from(130);
    }
    if is_user_error(err) {
        return ExitCode::from(UserError::EXIT_CODE);
    }
    ExitCode::FAILURE
}

/// Load the prompts of a run (`--prompts DIR`, or the compiled-in ones) and say on stderr
/// which files the folder lacks, taken from the compiled-in prompts
/// ([`crate::llm::prompts::Prompts::load`]).
///
/// # Errors
/// An unreadable prompt file or a template error.
pub fn load_prompts(dir: Option<&std::path::Path>) -> anyhow::Result<crate::llm::prompts::Prompts> {
    let prompts = crate::llm::prompts::Prompts::load(dir)?;
    if let (Some(d), false) = (dir, prompts.missing().is_empty()) {
        eprintln!(
            "ariadne: note: {} has no {}: the built-in prompts are used for them",
            d.display(),
            prompts.missing().join(", ")
        );
    }
    Ok(prompts)
}
