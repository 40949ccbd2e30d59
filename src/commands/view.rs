//! `ariadne view`: write one self-contained HTML page of a run ([`crate::view`]).

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ViewArgs;

/// Write the page of `args.run` and say where it is.
///
/// # Errors
/// A user error for a directory that is not a run; a page that cannot be written.
pub async fn run(args: ViewArgs) -> Result<ExitCode> {
    let written = crate::view::write(&args.run, args.out.as_deref())?;
    if written.truncated {
        eprintln!(
            "warning: the last line of steps.jsonl was cut off (a killed run); the page leaves it out"
        );
    }
    println!(
        "wrote {} ({}, {}, {}, {:.1} MB): open it in a browser; #step=N in the address opens step N",
        written.path.display(),
        crate::text::count(written.steps as u64, "step"),
        crate::text::count(written.triplets as u64, "triplet"),
        crate::text::count_as(written.vertices as u64, "vertex", "vertices"),
        written.bytes as f64 / 1e6
    );
    Ok(ExitCode::SUCCESS)
}
