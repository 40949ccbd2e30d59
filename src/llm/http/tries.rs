//! One try of a request: the innermost service of a call's tower stack
//! ([`super::Transport`]). It sends the request the client built, reads the body whole
//! and says what the try came to: a 2xx response with a body to judge goes up as the
//! response it is (the body it read, status and headers unchanged), anything else is a
//! [`TryError`] of its kind ([`super::classify`]) that [`super::budget::Budget`]
//! retries or ends the call with.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use serde_json::Value;

use super::classify::{Kind, Retried, Shape};
use crate::llm::LlmError;

/// What the service and the retry policy see of one call and the caller cannot: filled
/// as the call runs, read by [`super::Transport::post`] when it ends.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tries {
    /// Retries made (0 when the first try succeeded).
    pub retries: u32,
    /// Wall time of the try that succeeded, milliseconds.
    pub latency_ms: u64,
    /// Characters of the successful body that were not UTF-8 (each invalid sequence one,
    /// as a lossy decoding replaces them); 0 for a UTF-8 body.
    pub replaced: usize,
}

/// The shared record of one call's [`Tries`].
pub type TriesRecord = Arc<Mutex<Tries>>;

/// Why a try gave no usable response: the error type of a call's stack.
#[derive(Debug, thiserror::Error)]
pub enum TryError {
    /// Worth another try (within the budget, or once, as its kind says): what happened,
    /// and the delay the server asked for (`Retry-After`).
    #[error("{why}")]
    Retry {
        /// What the try met, as a clause ("answered 503 Service Unavailable: busy").
        why: String,
        /// The server's `Retry-After`, when it sent one.
        asked: Option<Duration>,
        /// Its kind.
        kind: Kind,
    },
    /// Final: no retry can help.
    #[error(transparent)]
    Fatal(LlmError),
}

impl From<TryError> for OpenAIError {
    /// Carried through the client boxed; [`super::Transport::post`] unboxes it. A
    /// retryable failure reaches the client only after the policy turned it into
    /// [`LlmError::GaveUp`], so `Retry` here is a defect of the stack, kept readable.
    fn from(e: TryError) -> Self {
        OpenAIError::Boxed(Box::new(e))
    }
}

/// The service that makes one try (see the module doc).
#[derive(Clone)]
pub struct OneTry {
    /// The HTTP client (its timeout is `--llm-timeout`).
    pub http: reqwest::Client,
    /// The endpoint's base URL, for messages.
    pub base: String,
    /// "chat" or "embedding", for messages.
    pub what: &'static str,
    /// The longest one try may take (`--llm-timeout`).
    pub timeout: Duration,
    /// Set once the endpoint has answered: until then a refused connection is a wrong
    /// URL (final at once), afterwards a transient drop (retried). Shared by every call
    /// of the transport.
    pub reached: Arc<AtomicBool>,
    /// This call's record.
    pub tries: TriesRecord,
}

/// The request of one try: the client's replayable request, and when the try must end
/// at the latest (set by the policy for a retry: the end of the call's budget; the first
/// try has the client's timeout alone).
#[derive(Clone)]
pub struct TryRequest {
    /// Builds a fresh request for each try.
    pub factory: HttpRequestFactory,
    /// The latest end of this try.
    pub deadline: Option<Instant>,
}

impl TryRequest {
    /// The first try of the client's request.
    pub fn first(factory: HttpRequestFactory) -> Self {
        Self {
            factory,
            deadline: None,
        }
    }
}

impl tower::Service<TryRequest> for OneTry {
    type Response = reqwest::Response;
    type Error = TryError;
    type Future = Pin<Box<dyn Future<Output = Result<reqwest::Response, TryError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), TryError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: TryRequest) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { this.run(request).await })
    }
}

impl OneTry {
    /// Send the request once and judge what came back.
    async fn run(&self, request: TryRequest) -> Result<reqwest::Response, TryError> {
        let mut built = request.factory.build().await.map_err(|e| {
            TryError::Fatal(LlmError::BadResponse {
                what: self.what,
                endpoint: self.base.clone(),
                detail: format!("cannot build the request: {e}"),
            })
        })?;
        // The try's time limit: --llm-timeout, or what is left of the budget for a retry.
        let mut limit = Limit::Timeout(self.timeout);
        if let Some(deadline) = request.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left < self.timeout {
                limit = Limit::Budget(left.max(Duration::from_millis(1)));
            }
            *built.timeout_mut() = Some(limit.duration());
        }
        let t0 = Instant::now();
        let resp = self
            .http
            .execute(built)
            .await
            .map_err(|e| self.transport_failure(&e, limit, false))?;
        self.reached.store(true, Ordering::Relaxed);
        let status = resp.status();
        let headers = resp.headers().clone();
        let version = resp.version();
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| self.transport_failure(&e, limit, true))?;
        if status.is_success() {
            if let Some(kind) = Kind::of_success(&bytes) {
                return Err(self.no_answer(kind, status, &bytes));
            }
            if let Ok(mut tries) = self.tries.lock() {
                tries.latency_ms = t0.elapsed().as_millis() as u64;
                tries.replaced = invalid_sequences(&bytes);
            }
            let mut rebuilt = http::Response::new(bytes);
            *rebuilt.status_mut() = status;
            *rebuilt.headers_mut() = headers;
            *rebuilt.version_mut() = version;
            return Ok(reqwest::Response::from(rebuilt));
        }
        Err(self.refusal(status, &headers, &bytes))
    }

    /// A non-2xx answer, as its kind says ([`Kind::of_status`]): retried (honouring
    /// `Retry-After`), or final with the server's message and what to change.
    fn refusal(
        &self,
        status: reqwest::StatusCode,
        headers: &reqwest::header::HeaderMap,
        body: &[u8],
    ) -> TryError {
        let kind = Kind::of_status(status.as_u16(), body, &self.base);
        let message = match headers.get(reqwest::header::LOCATION) {
            Some(to) if kind == Kind::Redirect => {
                format!("a redirect to {}", String::from_utf8_lossy(to.as_bytes()))
            }
            _ => error_message(body),
        };
        // A 400 about the response format: the endpoint takes no JSON schema.
        let lower = message.to_lowercase();
        let format_hint = if kind == Kind::BadRequest
            && (lower.contains("response_format") || lower.contains("json_schema"))
        {
            "; it may not take a JSON schema: try --json-mode object (or none)"
        } else {
            ""
        };
        self.judged(
            kind,
            format!("answered {status}: {message}{format_hint}"),
            retry_after(headers),
        )
    }

    /// A 2xx answer of `kind` whose body is no answer to judge.
    fn no_answer(&self, kind: Kind, status: reqwest::StatusCode, body: &[u8]) -> TryError {
        let why = match kind {
            Kind::CutAnswer if Shape::of(body) == Shape::Empty => {
                format!("answered {status} with an empty body")
            }
            Kind::CutAnswer => format!(
                "answered {status} with JSON cut off after {} bytes",
                body.len()
            ),
            Kind::TextAnswer => format!(
                "answered {status} with text that is not JSON: {}",
                error_message(body)
            ),
            _ => format!("answered {status} with {}", error_message(body)),
        };
        self.judged(kind, why, None)
    }

    /// The try's error for what it met (`why`) of `kind`: retried, or final with what to
    /// change.
    fn judged(&self, kind: Kind, why: String, asked: Option<Duration>) -> TryError {
        if kind.retried() != Retried::Never {
            return TryError::Retry { why, asked, kind };
        }
        let fix = kind.fix(self.what, &self.base);
        TryError::Fatal(LlmError::Api {
            what: self.what,
            endpoint: self.base.clone(),
            detail: if fix.is_empty() {
                why
            } else {
                format!("{why}; {fix}")
            },
            user: kind.is_user_error(),
        })
    }

    /// A try that got no whole answer (`body`: the status came, the body did not): a
    /// refused connection before the endpoint ever answered is a wrong URL (final); a
    /// timeout (the try's `limit` named) or a dropped connection is retried.
    fn transport_failure(&self, e: &reqwest::Error, limit: Limit, body: bool) -> TryError {
        let cause = root_cause(e);
        if !e.is_connect() {
            // A connection was made (the server closed it, or timed out, before it
            // answered): the endpoint exists, so a later refusal is a retry within the
            // budget, counted, not "cannot reach".
            self.reached.store(true, Ordering::Relaxed);
        }
        if e.is_connect() && !self.reached.load(Ordering::Relaxed) {
            return TryError::Fatal(LlmError::Unreachable {
                what: self.what,
                endpoint: self.base.clone(),
                detail: cause,
            });
        }
        let (why, kind) = match (e.is_timeout(), body) {
            (true, false) => (
                format!("timed out: no answer within {}", limit.named()),
                Kind::TimedOut,
            ),
            (true, true) => (
                format!(
                    "timed out: stopped sending mid-answer, not whole within {}",
                    limit.named()
                ),
                Kind::TimedOut,
            ),
            (false, false) => (format!("sent no answer: {cause}"), Kind::Dropped),
            (false, true) => (
                format!("closed the connection mid-answer: {cause}"),
                Kind::Dropped,
            ),
        };
        TryError::Retry {
            why,
            asked: None,
            kind,
        }
    }
}

/// The time limit of one try.
#[derive(Debug, Clone, Copy)]
enum Limit {
    /// `--llm-timeout` (or its default, half the retry budget).
    Timeout(Duration),
    /// What was left of the retry budget, shorter than the timeout.
    Budget(Duration),
}

impl Limit {
    fn duration(self) -> Duration {
        match self {
            Limit::Timeout(d) | Limit::Budget(d) => d,
        }
    }

    /// The limit as the line names it.
    fn named(self) -> String {
        match self {
            Limit::Timeout(d) => format!("{} s (--llm-timeout)", d.as_secs_f64()),
            Limit::Budget(d) => format!(
                "the {:.1} s left of the retry budget (--retry-budget)",
                d.as_secs_f64()
            ),
        }
    }
}

/// How many invalid UTF-8 sequences `bytes` holds (each one character of a lossy
/// decoding).
pub fn invalid_sequences(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .filter(|c| !c.invalid().is_empty())
        .count()
}

/// The delay a `Retry-After` header asks for: seconds (integer or decimal) or an HTTP
/// date; `None` when absent or unreadable.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(s) = v.parse::<f64>() {
        return (s.is_finite() && s >= 0.0).then(|| Duration::from_secs_f64(s.min(86_400.0)));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let secs = (when.timestamp_millis() - chrono::Utc::now().timestamp_millis()).max(0);
    Some(Duration::from_millis(secs as u64))
}

/// A short message from an error body: `error.message` of a JSON body, "an HTML page"
/// with its title, else the text (lossily decoded, at most 300 characters).
fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if Shape::of(body) == Shape::Html {
        return match super::classify::html_title(&text) {
            Some(title) => format!("an HTML page ({title})"),
            None => "an HTML page".into(),
        };
    }
    let from_json = serde_json::from_str::<Value>(&text).ok().and_then(|v| {
        v["error"]["message"]
            .as_str()
            .or_else(|| v["error"].as_str())
            .or_else(|| v["message"].as_str())
            .map(str::to_string)
    });
    let msg = from_json.unwrap_or_else(|| text.trim().to_string());
    // One line, whatever the body held (a traceback, an HTML page).
    let msg: String = crate::text::first_chars(&crate::report::one_line(&msg), 300);
    if msg.is_empty() {
        "(empty body)".into()
    } else {
        msg
    }
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    crate::report::one_line(&cur.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(RETRY_AFTER, HeaderValue::from_static("0.5"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(500)));
        h.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn error_messages_come_from_json_or_plain_text() {
        assert_eq!(
            error_message(br#"{"error":{"message":"slow down"}}"#),
            "slow down"
        );
        assert_eq!(error_message(b"Too Many Requests\n"), "Too Many Requests");
        assert_eq!(error_message(b""), "(empty body)");
        assert_eq!(
            error_message(
                b"Internal Server Error\nTraceback (most recent call last):\n  File x\r\n"
            ),
            "Internal Server Error Traceback (most recent call last): File x"
        );
        assert_eq!(
            error_message(br#"{"error":{"message":"3000 tokens.\nPlease reduce"}}"#),
            "3000 tokens. Please reduce"
        );
    }

    #[test]
    fn invalid_sequences_count_as_a_lossy_decoding_replaces() {
        assert_eq!(invalid_sequences(b"plain"), 0);
        let bytes = b"a\xff\xfe\xc3b";
        let lossy = String::from_utf8_lossy(bytes);
        assert_eq!(
            invalid_sequences(bytes),
            lossy.chars().filter(|c| *c == '\u{FFFD}').count()
        );
    }
}
