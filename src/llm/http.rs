//! The HTTP transport of [`super::OpenAiBackend`], on the `async-openai` client: each
//! request is a BYOT call (`chat().create_byot`, `embeddings().create_byot`, any JSON
//! in), executed by a tower service of ours ([`RetryService`], installed with
//! `Client::with_http_service`) that retries rate limits (429), server errors (5xx),
//! timeouts and dropped connections with exponential backoff and jitter (the `backon`
//! crate), honouring `Retry-After` (seconds or a date) whatever the body, for a total
//! time budget per request. Each wait is a notice ([`crate::report`]); the number of
//! retries is returned so the caller can record it.
//!
//! The body of the answer is handed back as bytes, not as the client's parse of it:
//! reading it (UTF-8 or not, JSON or not) is the caller's business, so that a bad answer
//! is judged as an answer and not as a transport failure. The service keeps the bytes
//! of the successful try for the call that made it (a task-local slot) and gives the
//! client a `null` body to deserialize.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use backon::BackoffBuilder;
use serde_json::Value;

use super::LlmError;

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

/// The default retry budget, seconds (`--retry-budget`, config key `retry_budget`).
pub const DEFAULT_RETRY_BUDGET_S: u64 = 300;

/// A successful (2xx) response.
#[derive(Debug, Default)]
pub struct Response {
    /// The raw body.
    pub body: Vec<u8>,
    /// Wall time of the try that succeeded, milliseconds.
    pub latency_ms: u64,
    /// Retries made before it (0 when the first try succeeded).
    pub retries: u32,
}

tokio::task_local! {
    /// Where [`RetryService`] leaves the successful response of the current call.
    static EXCHANGE: Arc<Mutex<Option<Response>>>;
}

/// The tower service that executes every request of a [`Transport`]'s client: one try
/// after another within the [`RetryPolicy`], each wait reported, a final failure as
/// [`LlmError`] (boxed into the client's error and unboxed by [`Transport::post`]).
#[derive(Clone)]
pub struct RetryService {
    http: reqwest::Client,
    base: String,
    what: &'static str,
    policy: RetryPolicy,
    /// The longest one try may take (`--llm-timeout`).
    timeout: Duration,
    /// Set once the endpoint has answered: until then a refused connection is a wrong
    /// URL (reported at once), afterwards a transient drop (retried).
    reached: Arc<AtomicBool>,
}

/// Why one try did not give a usable response.
enum Failure {
    /// Worth another try: (what happened, the delay the server asked for).
    Retry(String, Option<Duration>),
    /// Final.
    Fatal(LlmError),
}

impl tower::Service<HttpRequestFactory> for RetryService {
    type Response = reqwest::Response;
    type Error = OpenAIError;
    type Future = Pin<Box<dyn Future<Output = Result<reqwest::Response, OpenAIError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), OpenAIError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, factory: HttpRequestFactory) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            match this.run(&factory).await {
                Ok(response) => {
                    let _ = EXCHANGE.try_with(|slot| {
                        if let Ok(mut s) = slot.lock() {
                            *s = Some(response);
                        }
                    });
                    Ok(reqwest::Response::from(http::Response::new("null")))
                }
                Err(e) => Err(OpenAIError::Boxed(Box::new(e))),
            }
        })
    }
}

impl RetryService {
    /// Try `factory`'s request until it succeeds, fails for good or outlasts the budget.
    async fn run(&self, factory: &HttpRequestFactory) -> Result<Response, LlmError> {
        let started = Instant::now();
        let mut delays = backon::ExponentialBuilder::default()
            .with_min_delay(self.policy.min_delay)
            .with_max_delay(self.policy.max_delay)
            .with_factor(2.0)
            .with_jitter()
            .without_max_times()
            .build();
        let mut retries = 0u32;
        loop {
            let t0 = Instant::now();
            // A retry runs within what is left of the budget (the first try has the
            // client's timeout, --llm-timeout): the budget bounds the whole call.
            let limit = (retries > 0).then(|| self.policy.budget.saturating_sub(started.elapsed()));
            let (why, asked) = match self.try_once(factory, limit).await {
                Ok(body) => {
                    return Ok(Response {
                        body,
                        latency_ms: t0.elapsed().as_millis() as u64,
                        retries,
                    });
                }
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry(why, asked)) => (why, asked),
            };
            let backoff = delays.next().unwrap_or(self.policy.max_delay);
            // Honour Retry-After as the least wait: a server asking for less than the
            // backoff ("Retry-After: 0" on every answer) gets the backoff, so a busy
            // server is never asked ten times a second.
            let delay = asked.map_or(backoff, |d| d.max(backoff));
            let spent = started.elapsed();
            if spent + delay > self.policy.budget {
                let retried = match retries {
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
                return Err(LlmError::GaveUp {
                    what: self.what,
                    endpoint: self.base.clone(),
                    detail: format!(
                        "{why}; gave up after {retried} in {:.1} s{asked_for} (the retry budget is {} s: raise --retry-budget to wait longer)",
                        spent.as_secs_f64(),
                        self.policy.budget.as_secs()
                    ),
                    retries,
                });
            }
            retries += 1;
            crate::report::notice(format!(
                "ariadne: the {} endpoint at {} {why}; retry {retries} in {:.1} s ({:.0} s of the {} s retry budget left)",
                self.what,
                self.base,
                delay.as_secs_f64(),
                (self.policy.budget - spent).as_secs_f64(),
                self.policy.budget.as_secs()
            ));
            tokio::time::sleep(delay).await;
        }
    }

    async fn try_once(
        &self,
        factory: &HttpRequestFactory,
        limit: Option<Duration>,
    ) -> Result<Vec<u8>, Failure> {
        let mut request = factory.build().await.map_err(|e| {
            Failure::Fatal(LlmError::BadResponse {
                what: self.what,
                endpoint: self.base.clone(),
                detail: format!("cannot build the request: {e}"),
            })
        })?;
        // No key: no Authorization header at all (the client would send "Bearer ").
        let auth = request.headers().get(reqwest::header::AUTHORIZATION);
        if auth.is_some_and(|v| v.as_bytes().trim_ascii() == b"Bearer") {
            request.headers_mut().remove(reqwest::header::AUTHORIZATION);
        }
        if let Some(limit) = limit {
            *request.timeout_mut() = Some(limit.min(self.timeout).max(Duration::from_millis(1)));
        }
        let resp = match self.http.execute(request).await {
            Ok(r) => r,
            Err(e) => return Err(self.transport_failure(&e)),
        };
        self.reached.store(true, Ordering::Relaxed);
        let status = resp.status();
        let asked = retry_after(resp.headers());
        let bytes = match resp.bytes().await {
            Ok(b) => b.to_vec(),
            Err(e) => return Err(self.transport_failure(&e)),
        };
        if status.is_success() {
            return Ok(bytes);
        }
        let message = error_message(&bytes);
        let code = status.as_u16();
        if code == 429 || status.is_server_error() {
            return Err(Failure::Retry(
                format!("answered {status}: {message}"),
                asked,
            ));
        }
        Err(Failure::Fatal(LlmError::Api {
            what: self.what,
            endpoint: self.base.clone(),
            detail: format!("{code} {message}"),
        }))
    }

    fn transport_failure(&self, e: &reqwest::Error) -> Failure {
        let cause = root_cause(e);
        if !e.is_connect() {
            // A connection was made (the server closed it, or timed out, before it
            // answered): the endpoint exists, so a later refusal is a retry within the
            // budget, counted, not "cannot reach".
            self.reached.store(true, Ordering::Relaxed);
        }
        if e.is_connect() && !self.reached.load(Ordering::Relaxed) {
            return Failure::Fatal(LlmError::Unreachable {
                what: self.what,
                endpoint: self.base.clone(),
                detail: cause,
            });
        }
        if e.is_timeout() {
            return Failure::Retry(
                "timed out (raise --llm-timeout for a slow model)".into(),
                None,
            );
        }
        Failure::Retry(format!("sent no answer: {cause}"), None)
    }
}

/// One endpoint (chat or embedding): an `async-openai` client whose requests run
/// through a [`RetryService`].
pub struct Transport {
    client: Client<OpenAIConfig>,
    base: String,
    what: &'static str,
}

impl Transport {
    /// A transport for `base` (e.g. `http://127.0.0.1:8080/v1`), `what` being "chat" or
    /// "embedding" (for messages).
    ///
    /// # Errors
    /// [`LlmError::Setup`] when the HTTP client cannot be built (TLS set-up) or the key
    /// cannot be sent.
    pub fn new(
        what: &'static str,
        base: &str,
        key: Option<&str>,
        timeout_s: u64,
        policy: RetryPolicy,
    ) -> Result<Self, LlmError> {
        let timeout = Duration::from_secs(timeout_s.max(1));
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| LlmError::Setup {
                what,
                endpoint: base.to_string(),
                detail: format!("cannot build the HTTP client: {e}"),
            })?;
        let base = base.trim_end_matches('/').to_string();
        let service = RetryService {
            http,
            base: base.clone(),
            what,
            policy,
            timeout,
            reached: Arc::new(AtomicBool::new(false)),
        };
        // The client writes the key into a header and cannot fail there: a key that no
        // header can carry (a newline pasted with it) is refused here, in one line.
        let key = key.unwrap_or_default();
        if reqwest::header::HeaderValue::from_str(&format!("Bearer {key}")).is_err() {
            return Err(LlmError::Setup {
                what,
                endpoint: base,
                detail: "the API key holds characters an HTTP header cannot carry (a newline or a control character?)".into(),
            });
        }
        // Only what Ariadne sets: no organization or project header from the environment.
        let config = OpenAIConfig::new()
            .with_api_base(&base)
            .with_api_key(key)
            .with_org_id("")
            .with_project_id("");
        let client = Client::with_config(config).with_http_service(service);
        Ok(Self { client, base, what })
    }

    /// The base URL (never with a key).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// POST `body` to `base + path` (`/chat/completions` or `/embeddings`) as a BYOT
    /// call; retry as the policy says.
    ///
    /// # Errors
    /// [`LlmError::Unreachable`] for an endpoint that never answered; [`LlmError::Api`]
    /// for a 4xx other than 429 (the detail starts with the status code), or for a
    /// retryable failure that outlasted the budget.
    pub async fn post(&self, path: &str, body: &Value) -> Result<Response, LlmError> {
        let slot = Arc::new(Mutex::new(None));
        let call = async {
            let _: serde::de::IgnoredAny = match path {
                "/embeddings" => self.client.embeddings().create_byot(body).await,
                _ => self.client.chat().create_byot(body).await,
            }?;
            Ok::<(), OpenAIError>(())
        };
        let done = EXCHANGE.scope(slot.clone(), call).await;
        match done {
            Ok(()) => {
                slot.lock()
                    .ok()
                    .and_then(|mut s| s.take())
                    .ok_or_else(|| LlmError::BadResponse {
                        what: self.what,
                        endpoint: self.base.clone(),
                        detail: "the response was lost between the client and its transport".into(),
                    })
            }
            Err(OpenAIError::Boxed(e)) => match e.downcast::<LlmError>() {
                Ok(e) => Err(*e),
                Err(e) => Err(self.client_error(e.to_string())),
            },
            Err(e) => Err(self.client_error(e.to_string())),
        }
    }

    fn client_error(&self, detail: String) -> LlmError {
        LlmError::BadResponse {
            what: self.what,
            endpoint: self.base.clone(),
            detail,
        }
    }
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

/// A short message from an error body: `error.message` of a JSON body, else the text
/// (lossily decoded, at most 300 characters).
fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let from_json = serde_json::from_str::<Value>(&text).ok().and_then(|v| {
        v["error"]["message"]
            .as_str()
            .or_else(|| v["error"].as_str())
            .or_else(|| v["message"].as_str())
            .map(str::to_string)
    });
    let msg = from_json.unwrap_or_else(|| text.trim().to_string());
    // One line, whatever the body held (a traceback, an HTML page).
    let msg: String = crate::report::one_line(&msg).chars().take(300).collect();
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
}
