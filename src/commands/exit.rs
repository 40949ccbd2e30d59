//! How an error ends the process: the exit code of an error chain (130 after Ctrl-C, 2
//! for what the user must fix, 1 otherwise).

use std::process::ExitCode;

use crate::env::EnvError;
use crate::error::{Interrupted, UserError};
use crate::llm::LlmError;

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
