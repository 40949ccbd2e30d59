//! Ctrl-C handling shared by every running episode. [`install`] starts one watcher
//! task; from then on the first Ctrl-C sets a flag that each episode sees at its next
//! await point (even one that was starting its bridge when the signal came), and a second
//! Ctrl-C exits at once with 130. Before [`install`] (during set-up) Ctrl-C keeps its
//! default meaning.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

static FLAG: AtomicBool = AtomicBool::new(false);
static NOTIFY: OnceLock<Notify> = OnceLock::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);

fn notify() -> &'static Notify {
    NOTIFY.get_or_init(Notify::new)
}

/// Start watching for Ctrl-C (once per process; later calls do nothing).
pub fn install() {
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    tokio::spawn(async {
        while tokio::signal::ctrl_c().await.is_ok() {
            if FLAG.swap(true, Ordering::SeqCst) {
                eprintln!("\ninterrupted twice: exiting now");
                std::process::exit(130);
            }
            eprintln!(
                "\ninterrupted: finishing the step in flight is skipped; saving what is done (Ctrl-C again to exit now)"
            );
            notify().notify_waiters();
        }
    });
}

/// Whether Ctrl-C was pressed.
pub fn is_set() -> bool {
    FLAG.load(Ordering::SeqCst)
}

/// Resolves once Ctrl-C was pressed (at once if it already was).
pub async fn wait() {
    loop {
        let notified = notify().notified();
        if is_set() {
            return;
        }
        notified.await;
    }
}
