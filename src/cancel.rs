//! Ctrl-C as a cancellation token. A command calls [`watch_ctrl_c`] once and hands the
//! token to the episode engine (and to every episode of a bench); the engine stops at
//! its next await point when the token is cancelled, saving every finished step. A
//! second Ctrl-C exits at once with 130. Tests cancel a token themselves, no signal
//! needed.

pub use tokio_util::sync::CancellationToken;

/// Start watching for Ctrl-C and return the token the first Ctrl-C cancels. Before this
/// call (during set-up) Ctrl-C keeps its default meaning.
pub fn watch_ctrl_c() -> CancellationToken {
    let token = CancellationToken::new();
    let cancel = token.clone();
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            if cancel.is_cancelled() {
                crate::report::notice("\ninterrupted twice: exiting now");
                std::process::exit(130);
            }
            crate::report::notice(
                "\ninterrupted: the step in flight is dropped; saving what is done (Ctrl-C again to exit now)",
            );
            cancel.cancel();
        }
    });
    token
}
