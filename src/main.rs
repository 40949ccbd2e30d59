//! `ariadne` binary: parse the command line, run, turn an error into one line and an
//! exit code.

use std::process::ExitCode;

use clap::Parser;

use ariadne::cli::Cli;
use ariadne::commands;

#[tokio::main]
async fn main() -> ExitCode {
    // Output piped into a program that stops reading (`ariadne ... | head`) ends the
    // process quietly, as for any Unix tool, instead of a panic on the broken pipe.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default before any thread prints.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    ariadne::report::install();
    ariadne::report::install_tasks(ariadne::commands::term::spinner_task);
    let cli = Cli::parse();
    match commands::run(cli).await {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            commands::exit_code(&err)
        }
    }
}
