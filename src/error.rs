//! Typed errors that callers branch on, and the exit codes they map to.

use std::process::ExitCode;

/// An error with the exit code `ariadne` should end with.
///
/// Setup and input errors (missing game, missing sidecar, unreachable endpoint) exit
/// with [`UserError::EXIT_CODE`]; anything else that escapes `run` exits with 1.
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

/// Whether an error is a setup or input error the user must fix (exit code 2).
pub fn is_user_error(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<UserError>().is_some()
            || cause
                .downcast_ref::<crate::env::BridgeError>()
                .is_some_and(|e| e.is_user_error())
            || cause
                .downcast_ref::<crate::llm::LlmError>()
                .is_some_and(|e| e.is_user_error())
    })
}

/// Map an error chain to the process exit code.
pub fn exit_code(err: &anyhow::Error) -> ExitCode {
    for cause in err.chain() {
        if cause.downcast_ref::<Interrupted>().is_some() {
            return ExitCode::from(130);
        }
        if cause.downcast_ref::<UserError>().is_some() {
            return ExitCode::from(UserError::EXIT_CODE);
        }
        if let Some(e) = cause.downcast_ref::<crate::env::BridgeError>()
            && e.is_user_error()
        {
            return ExitCode::from(UserError::EXIT_CODE);
        }
        if let Some(e) = cause.downcast_ref::<crate::llm::LlmError>()
            && e.is_user_error()
        {
            return ExitCode::from(UserError::EXIT_CODE);
        }
    }
    ExitCode::FAILURE
}
