//! One reporting seam. The engine never prints: what it has to tell the person at the
//! terminal (a retry and its wait, a set-up step done, a Reflexion trial starting, a
//! walkthrough's transcript) is a `tracing` event, and the binary decides how it is
//! shown ([`install`], called by `main`): events of target [`OUT`] go to stdout, every
//! other event to stderr, each as its message alone. A library user (or a test) that
//! installs no subscriber sees nothing. A long step (an install, a download) is a
//! [`Task`], shown while it runs the way the binary chose ([`install_tasks`]: a
//! spinner); nothing by default.

use std::sync::OnceLock;

use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The target of events that are a command's output (stdout).
pub const OUT: &str = "ariadne::out";

/// The target of notices (stderr): retries, set-up, warnings.
pub const NOTICE: &str = "ariadne::notice";

/// A notice for stderr, one line (a retry, a set-up step, a warning): line breaks in
/// what it quotes (a server's body, a traceback) are read as spaces ([`one_line`]).
pub fn notice(line: impl std::fmt::Display) {
    tracing::warn!(target: NOTICE, "{}", one_line(&line.to_string()));
}

/// `text` on one line: every run of whitespace that holds a line break, and every other
/// control character, becomes one space (a server's error body or a Python traceback
/// quoted in a message must not break the one-line rule of notices and errors).
pub fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.chars() {
        if c.is_control() || (gap && c.is_whitespace()) {
            gap = true;
            continue;
        }
        if gap {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
        }
        out.push(c);
    }
    out.trim_end().to_string()
}

/// A line of a command's output for stdout (a walkthrough's transcript, a trial begun).
pub fn out(line: impl std::fmt::Display) {
    tracing::info!(target: OUT, "{line}");
}

/// Render the events as the terminal shows them: [`OUT`] to stdout, the rest to
/// stderr, message only (no time, level or target). Called once by the binary; a
/// second call does nothing.
pub fn install() {
    let stdout = tracing_subscriber::fmt::layer()
        .without_time()
        .with_level(false)
        .with_target(false)
        .with_ansi(false)
        .with_writer(std::io::stdout)
        .with_filter(filter_fn(|m| m.target() == OUT && !stdout_reserved()));
    let stderr = tracing_subscriber::fmt::layer()
        .without_time()
        .with_level(false)
        .with_target(false)
        .with_ansi(false)
        .with_writer(std::io::stderr)
        .with_filter(filter_fn(|m| {
            (m.target() != OUT || stdout_reserved()) && m.target().starts_with("ariadne")
        }));
    let _ = tracing_subscriber::registry()
        .with(stdout)
        .with(stderr)
        .try_init();
}

static STDOUT_RESERVED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Keep stdout for a protocol (`ariadne agent`): from now on a command's output
/// ([`out`]) goes to stderr with the notices.
pub fn reserve_stdout() {
    STDOUT_RESERVED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Whether [`reserve_stdout`] was called.
pub fn stdout_reserved() -> bool {
    STDOUT_RESERVED.load(std::sync::atomic::Ordering::SeqCst)
}

/// A long step in progress, shown until it is dropped (or [`Task::done`]).
pub struct Task(Option<Box<dyn FnOnce() + Send>>);

impl Task {
    /// A task shown by the binary: `finish` is called once when it ends.
    pub fn new(finish: impl FnOnce() + Send + 'static) -> Self {
        Task(Some(Box::new(finish)))
    }

    /// End the task (as dropping it does).
    pub fn done(self) {}
}

impl Drop for Task {
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f();
        }
    }
}

static TASKS: OnceLock<fn(String) -> Task> = OnceLock::new();

/// How the binary shows a long step (e.g. a spinner with the message and the time
/// elapsed). Called once; a second call does nothing.
pub fn install_tasks(show: fn(String) -> Task) {
    let _ = TASKS.set(show);
}

/// Begin a long step described by `message` (shown as [`install_tasks`] chose, else
/// not at all); it ends when the returned [`Task`] is dropped.
pub fn task(message: impl Into<String>) -> Task {
    match TASKS.get() {
        Some(show) => show(message.into()),
        None => Task(None),
    }
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn quoted_bodies_stay_on_one_line() {
        assert_eq!(one_line("plain text"), "plain text");
        assert_eq!(
            one_line("500: Internal Server Error\nTraceback:\n  File x\r\n"),
            "500: Internal Server Error Traceback: File x"
        );
        assert_eq!(one_line("a\tb \n\n c"), "a b c");
    }
}
