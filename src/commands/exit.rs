//! How an error ends the process: the exit code of an error chain (130 after Ctrl-C, 2
//! for what the user must fix, 1 otherwise).

use std::process::ExitCode;

use crate::error::{Interrupted, UserError};
use crate::ops::is_user_error;

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
