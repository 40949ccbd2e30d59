//! Errors every layer may raise and the commands branch on. This module depends on
//! nothing else in the crate; `commands::exit_code` maps an error chain to the exit code.

/// An error with the exit code `ariadne` should end with.
///
/// Setup and input errors (bad flags, unreadable files) exit with
/// [`UserError::EXIT_CODE`]; anything else that escapes `run` exits with 1.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct UserError {
    /// One line that says what went wrong and how to fix it.
    pub message: String,
}

impl UserError {
    /// Exit code of a setup or input error (sysexits' EX_USAGE-like, distinct from panics).
    pub const EXIT_CODE: u8 = 2;

    /// Build a user-facing error from one line of text.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// The user pressed Ctrl-C; finished work was saved. Exits with 130.
#[derive(Debug, thiserror::Error)]
#[error("interrupted; finished episodes are saved")]
pub struct Interrupted;
