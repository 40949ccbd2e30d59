//! Running a set-up command quietly: its output is shown only when it fails.

use anyhow::{Context, Result, bail};
use std::process::Stdio;
use tokio::process::Command;

use crate::error::UserError;

/// The command the environment variable `var` names (`ARIADNE_PYTHON`, `CXX`), or
/// `default` when it is unset or empty: `CXX=` names no compiler, so it is read as
/// unset.
pub(super) fn command_named(var: &str, default: &str) -> String {
    command_or(std::env::var(var).ok(), default)
}

/// `value`, trimmed, or `default` when it is absent or empty.
fn command_or(value: Option<String>, default: &str) -> String {
    value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.to_string())
}

/// `python -m pip install -q --disable-pip-version-check`, with `python` a venv's
/// interpreter; the caller adds options and requirements.
pub(super) fn pip_install(python: &std::path::Path) -> Command {
    let mut cmd = Command::new(python);
    cmd.args(["-m", "pip", "install", "-q", "--disable-pip-version-check"]);
    cmd
}

/// Run `cmd` with no input; on failure, a [`UserError`] naming `what` with the last 15
/// lines of its standard error.
///
/// # Errors
/// The command cannot start, or it exits unsuccessfully.
pub(super) async fn run_quiet(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .await
        .with_context(|| format!("cannot run {what}"))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        bail!(UserError::new(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail.join("\n")
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// `CXX=` (empty, or white space) names no compiler: the default is used.
    #[test]
    fn an_empty_variable_is_unset() {
        use super::command_or;
        assert_eq!(command_or(None, "c++"), "c++");
        assert_eq!(command_or(Some(String::new()), "c++"), "c++");
        assert_eq!(command_or(Some("  ".into()), "c++"), "c++");
        assert_eq!(command_or(Some(" clang++ ".into()), "c++"), "clang++");
    }
}
