//! The retry policy of one call, for tower's retry middleware: a try that is worth
//! another ([`TryError::Retry`]: see the table of [`super::classify`]) is retried after
//! an exponential backoff with jitter ([`RetryPolicy::delay`]), never sooner than the
//! server's `Retry-After`, while the call's total time stays within its budget; a kind
//! retried once ends the call the second time. Each retry is a notice
//! ([`crate::report`]) as it is decided, and is counted in the call's
//! [`super::tries::Tries`]; a retry that would outlast the budget ends the call as
//! [`LlmError::GaveUp`], quoting what the last try met and what to change.
//!
//! The time limits agree ([`time_limits`]): one try never has longer than the whole
//! budget, and by default half of it, so a hung endpoint is tried again.

use std::time::{Duration, Instant};

use super::classify::{Kind, Retried};
use super::tries::{TriesRecord, TryError, TryRequest};
use crate::llm::LlmError;

/// The default retry budget, seconds, for a remote endpoint (`--retry-budget`, config
/// key `retry_budget`).
pub const DEFAULT_RETRY_BUDGET_S: u64 = 300;

/// The default retry budget, seconds, when the chat model is the embedded local one: a
/// CPU model may take minutes to answer a long prompt (its default time limit a try,
/// half of this, is 600 s).
pub const DEFAULT_LOCAL_RETRY_BUDGET_S: u64 = 1200;

/// One try's default time limit is the retry budget divided by this: a hang is tried
/// again once within the budget.
pub const TRIES_IN_BUDGET: u64 = 2;

/// The per-try time limit and the retry budget, seconds, from what was given
/// (`--llm-timeout`, `--retry-budget`, or their config keys) and whether the chat model
/// is the embedded one: the one not given follows from the other (a time limit is half
/// the budget; a budget at least twice the time limit), and neither given, the
/// defaults. A budget of 0 (no retries) leaves the one try the default time limit.
///
/// # Errors
/// A time limit longer than the budget: a hung try would spend the budget and never be
/// tried again.
pub fn time_limits(
    timeout: Option<u64>,
    budget: Option<u64>,
    embedded: bool,
) -> Result<(u64, u64), String> {
    let default_budget = if embedded {
        DEFAULT_LOCAL_RETRY_BUDGET_S
    } else {
        DEFAULT_RETRY_BUDGET_S
    };
    let half = |b: u64| (b / TRIES_IN_BUDGET).max(1);
    match (timeout, budget) {
        (None, None) => Ok((half(default_budget), default_budget)),
        (None, Some(0)) => Ok((half(default_budget), 0)),
        (None, Some(b)) => Ok((half(b), b)),
        (Some(t), None) => Ok((t, default_budget.max(t.saturating_mul(TRIES_IN_BUDGET)))),
        (Some(t), Some(b)) if b > 0 && t > b => Err(format!(
            "--llm-timeout {t} is longer than --retry-budget {b}: a try that hangs would spend the whole budget and never be tried again; give a time limit of at most {b} s, or leave it out (half the budget, {} s)",
            half(b)
        )),
        (Some(t), Some(b)) => Ok((t, b)),
    }
}

/// How long and how often a request is retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Total time one request may spend in retries (waits and tries), from its first
    /// try; 0 disables retries.
    pub budget: Duration,
    /// First backoff delay (doubled at each retry).
    pub min_delay: Duration,
    /// Longest backoff delay, jitter included (a `Retry-After` may ask for longer,
    /// within the budget).
    pub max_delay: Duration,
}

impl RetryPolicy {
    /// A policy with the given total budget, backoff from 0.5 s to 30 s.
    pub fn with_budget(budget: Duration) -> Self {
        Self {
            budget,
            min_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }

    /// The backoff before retry `n` (1 for the first): `min_delay` doubled `n - 1`
    /// times, at most `max_delay`, and of that a share drawn at random between half and
    /// all of it (`draw` in 0..1), so clients that failed together do not retry together.
    pub fn delay(&self, n: u32, draw: f64) -> Duration {
        let doubled = self
            .min_delay
            .saturating_mul(1u32 << n.saturating_sub(1).min(20))
            .min(self.max_delay);
        doubled.mul_f64(0.5 + 0.5 * draw.clamp(0.0, 1.0))
    }

    /// The backoff as `docs/reliability.md` words it.
    pub fn described(&self) -> String {
        format!(
            "{} s doubling up to {} s, each wait drawn at random between half of it and all of it",
            self.min_delay.as_secs_f64(),
            self.max_delay.as_secs_f64()
        )
    }
}

/// A number drawn at random in 0..1 (the jitter of a backoff; no cryptographic use).
fn draw() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// The policy of one call (see the module doc). A clone is a fresh call: its backoff
/// starts over.
pub struct Budget {
    policy: RetryPolicy,
    what: &'static str,
    base: String,
    /// When the call's first try started.
    started: Instant,
    retries: u32,
    /// Whether a kind retried once has been.
    once: bool,
    tries: TriesRecord,
}

impl Clone for Budget {
    fn clone(&self) -> Self {
        Self::new(self.policy, self.what, &self.base, self.tries.clone())
    }
}

impl Budget {
    /// The policy of a call that starts now, writing its retries to `tries`.
    pub fn new(policy: RetryPolicy, what: &'static str, base: &str, tries: TriesRecord) -> Self {
        Self {
            policy,
            what,
            base: base.to_string(),
            started: Instant::now(),
            retries: 0,
            once: false,
            tries,
        }
    }

    /// The call ends here: `why` met at the last try (of `kind`), `asked` its
    /// `Retry-After`.
    fn gave_up(&self, why: &str, kind: Kind, asked: Option<Duration>) -> LlmError {
        let retried = match self.retries {
            0 => "no retry".to_string(),
            1 => "1 retry".to_string(),
            n => format!("{n} retries"),
        };
        // A server that asked for a wait beyond the budget is quoted.
        let asked_for = asked
            .map(|d| {
                format!(
                    ", and it asked to wait {:.0} s (Retry-After)",
                    d.as_secs_f64()
                )
            })
            .unwrap_or_default();
        let budget = self.policy.budget.as_secs();
        let hint = match kind {
            _ if budget == 0 => "--retry-budget 0: no retry; the one try has --llm-timeout (half the default budget when it is not given): give --llm-timeout for a shorter try, or a budget to retry".to_string(),
            Kind::TimedOut => format!(
                "the retry budget is {budget} s: the endpoint accepts connections but does not answer; check that its server is up, or, for a slow model, raise --retry-budget, of which each try has half unless --llm-timeout is given"
            ),
            _ => format!("the retry budget is {budget} s: raise --retry-budget to wait longer"),
        };
        LlmError::GaveUp {
            what: self.what,
            endpoint: self.base.clone(),
            detail: format!(
                "{why}; gave up after {retried} in {:.1} s{asked_for} ({hint})",
                self.started.elapsed().as_secs_f64(),
            ),
            retries: self.retries,
        }
    }

    /// A call ended by a kind retried once, met again (or with no budget left for the
    /// retry): what it answered and what to change.
    fn refused(&self, why: &str, kind: Kind) -> LlmError {
        let again = if self.once { ", again" } else { "" };
        LlmError::Api {
            what: self.what,
            endpoint: self.base.clone(),
            detail: format!("{why}{again}; {}", kind.fix(self.what, &self.base)),
            user: kind.is_user_error(),
        }
    }
}

impl tower::retry::Policy<TryRequest, reqwest::Response, TryError> for Budget {
    type Future = tokio::time::Sleep;

    fn retry(
        &mut self,
        request: &mut TryRequest,
        result: &mut Result<reqwest::Response, TryError>,
    ) -> Option<Self::Future> {
        let Err(TryError::Retry { why, asked, kind }) = result else {
            return None;
        };
        let (why, asked, kind) = (why.clone(), *asked, *kind);
        let backoff = self.policy.delay(self.retries + 1, draw());
        // Honour Retry-After as the least wait: a server asking for less than the
        // backoff ("Retry-After: 0" on every answer) gets the backoff, so a busy server
        // is never asked ten times a second.
        let delay = asked.map_or(backoff, |d| d.max(backoff));
        let spent = self.started.elapsed();
        let once = kind.retried() == Retried::Once;
        if once && self.once {
            *result = Err(TryError::Fatal(self.refused(&why, kind)));
            return None;
        }
        if spent + delay > self.policy.budget {
            let end = if once {
                self.refused(&why, kind)
            } else {
                self.gave_up(&why, kind, asked)
            };
            *result = Err(TryError::Fatal(end));
            return None;
        }
        self.once |= once;
        self.retries += 1;
        if let Ok(mut tries) = self.tries.lock() {
            tries.retries = self.retries;
        }
        crate::report::notice(format!(
            "ariadne: the {} endpoint at {} {why}; retry {} in {:.1} s ({:.0} s of the {} s retry budget left)",
            self.what,
            self.base,
            self.retries,
            delay.as_secs_f64(),
            (self.policy.budget - spent).as_secs_f64(),
            self.policy.budget.as_secs()
        ));
        // A retry runs within what is left of the budget (the first try has the
        // client's timeout, --llm-timeout): the budget bounds the whole call.
        request.deadline = Some(self.started + self.policy.budget);
        Some(tokio::time::sleep(delay))
    }

    fn clone_request(&mut self, request: &TryRequest) -> Option<TryRequest> {
        Some(request.clone())
    }
}

#[cfg(test)]
mod tests;
