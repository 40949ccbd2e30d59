//! The retry policy of one call, for tower's retry middleware: a try that is worth
//! another ([`TryError::Retry`]: 429, 5xx, a timeout, a dropped connection) is retried
//! after an exponential backoff with jitter (backon), never sooner than the server's
//! `Retry-After`, while the call's total time stays within its budget. Each wait is a
//! notice ([`crate::report`]) and is counted in the call's [`super::tries::Tries`]; a
//! retry that would outlast the budget ends the call as [`LlmError::GaveUp`], quoting
//! what the last try met and which setting to raise.

use std::time::{Duration, Instant};

use backon::BackoffBuilder;

use super::tries::{TriesRecord, TryError, TryRequest};
use crate::llm::LlmError;

/// How long and how often a request is retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Total time one request may spend in retries (waits and tries), from its first
    /// try; 0 disables retries.
    pub budget: Duration,
    /// First backoff delay (doubled at each retry, plus jitter).
    pub min_delay: Duration,
    /// Longest backoff delay (a `Retry-After` may ask for longer, within the budget).
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
}

/// The policy of one call (see the module doc). A clone is a fresh call: its backoff
/// starts over.
pub struct Budget {
    policy: RetryPolicy,
    what: &'static str,
    base: String,
    /// When the call's first try started.
    started: Instant,
    delays: backon::ExponentialBackoff,
    retries: u32,
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
        let delays = backon::ExponentialBuilder::default()
            .with_min_delay(policy.min_delay)
            .with_max_delay(policy.max_delay)
            .with_factor(2.0)
            .with_jitter()
            .without_max_times()
            .build();
        Self {
            policy,
            what,
            base: base.to_string(),
            started: Instant::now(),
            delays,
            retries: 0,
            tries,
        }
    }

    /// The call ends here: `why` met at the last try, `asked` its `Retry-After`.
    fn gave_up(&self, why: &str, asked: Option<Duration>) -> LlmError {
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
        LlmError::GaveUp {
            what: self.what,
            endpoint: self.base.clone(),
            detail: format!(
                "{why}; gave up after {retried} in {:.1} s{asked_for} (the retry budget is {} s: raise --retry-budget to wait longer)",
                self.started.elapsed().as_secs_f64(),
                self.policy.budget.as_secs()
            ),
            retries: self.retries,
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
        let Err(TryError::Retry { why, asked }) = result else {
            return None;
        };
        let (why, asked) = (why.clone(), *asked);
        let backoff = self.delays.next().unwrap_or(self.policy.max_delay);
        // Honour Retry-After as the least wait: a server asking for less than the
        // backoff ("Retry-After: 0" on every answer) gets the backoff, so a busy server
        // is never asked ten times a second.
        let delay = asked.map_or(backoff, |d| d.max(backoff));
        let spent = self.started.elapsed();
        if spent + delay > self.policy.budget {
            *result = Err(TryError::Fatal(self.gave_up(&why, asked)));
            return None;
        }
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
