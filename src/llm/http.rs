//! The HTTP transport of [`super::OpenAiBackend`]: the `async-openai` client, used as
//! designed. How one call flows:
//!
//! 1. [`Transport::post`] hands the JSON body to the client as a BYOT call
//!    (`chat().create_byot`, `embeddings().create_byot`) and asks for the answer as a
//!    [`RawValue`]: the answer's JSON text as the server sent it.
//! 2. The client builds the request, its URL and headers from [`ApiConfig`] (an
//!    `Authorization` header only when there is a key, nothing else from the
//!    environment), and runs it through the tower stack given to
//!    `Client::with_http_service`: tower's retry middleware with the call's
//!    [`budget::Budget`] policy, around [`tries::OneTry`].
//! 3. [`tries::OneTry`] makes one try: it sends the request, reads the body whole and
//!    judges what came back by the table of [`classify`]: a 2xx response with a body to
//!    judge goes up unchanged; a rate limit, a busy server, a timeout, a dropped
//!    connection or an answer cut off is worth another try; a refused key, an unknown
//!    model, a URL that does not speak the OpenAI API (an HTML page, 501, 405) is
//!    final, with what to change.
//! 4. [`budget::Budget`] retries with exponential backoff and jitter, never sooner than
//!    `Retry-After` (seconds or a date), within a total time budget per call (one try
//!    has half of it unless `--llm-timeout` is given: [`budget::time_limits`]); each
//!    retry is a notice ([`crate::report`]); a call that would outlast the budget ends
//!    as [`LlmError::GaveUp`].
//! 5. The client parses the 2xx body. A body that is JSON-like but not a completion
//!    (server-sent events, JSON that does not parse, bytes that are not UTF-8) comes
//!    back as the client's deserialization error, which carries its text: the caller
//!    judges it as a bad answer ([`super::answer`]), never as a transport failure.
//!
//! What only the stack sees of a call (its retries, the latency of the try that
//! succeeded, how many characters of the body were not UTF-8) it writes to the call's
//! own [`tries::Tries`]: the stack is built for each call, around the transport's shared
//! HTTP client.

pub mod budget;
pub mod classify;
pub mod tries;

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_openai::Client;
use async_openai::config::Config;
use async_openai::error::OpenAIError;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use secrecy::SecretString;
use serde_json::Value;
use serde_json::value::RawValue;

use super::LlmError;
use budget::Budget;
pub use budget::{DEFAULT_RETRY_BUDGET_S, RetryPolicy};
use tries::{OneTry, Tries, TryRequest};

/// A successful (2xx) answer of one call.
#[derive(Debug, Default)]
pub struct Response {
    /// The body as text.
    pub body: Body,
    /// Wall time of the try that succeeded, milliseconds.
    pub latency_ms: u64,
    /// Retries made before it (0 when the first try succeeded).
    pub retries: u32,
    /// Wall time before the try that succeeded (failed tries, waits between retries),
    /// milliseconds.
    pub waited_ms: u64,
}

/// The text of a response body, and whether it had to be decoded lossily.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Body {
    /// The body; where it held bytes that are not UTF-8, each invalid sequence is
    /// U+FFFD.
    pub text: String,
    /// How many invalid sequences were replaced (0 for a UTF-8 body).
    pub replaced: usize,
}

impl Body {
    /// The text of `bytes`, decoded lossily where they are not UTF-8.
    pub fn decode(bytes: &[u8]) -> Self {
        Self {
            text: String::from_utf8_lossy(bytes).into_owned(),
            replaced: tries::invalid_sequences(bytes),
        }
    }

    /// The defect of a body that was not UTF-8, for the answer's record.
    pub fn lossy(&self) -> Option<String> {
        (self.replaced > 0).then(|| {
            format!(
                "the response held bytes that are not UTF-8 (decoded lossily, {} replaced)",
                self.replaced
            )
        })
    }
}

/// Which API a transport posts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `POST /chat/completions`.
    Chat,
    /// `POST /embeddings`.
    Embeddings,
}

impl Route {
    /// The endpoint's name in messages: "chat" or "embedding".
    pub fn what(self) -> &'static str {
        match self {
            Route::Chat => "chat",
            Route::Embeddings => "embedding",
        }
    }
}

/// The client's configuration: the base URL and, when there is one, the key. Only what
/// Ariadne sets is sent: no organization or project header from the environment, and
/// no `Authorization` header without a key (`OpenAIConfig` would send "Bearer ").
#[derive(Debug, Clone)]
pub struct ApiConfig {
    base: String,
    key: SecretString,
    headers: HeaderMap,
}

impl ApiConfig {
    /// The configuration of `base` with `key`.
    ///
    /// # Errors
    /// A message when the key holds characters no HTTP header can carry.
    fn new(base: &str, key: Option<&str>) -> Result<Self, String> {
        let key = key.unwrap_or_default();
        let mut headers = HeaderMap::new();
        if !key.is_empty() {
            let value = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                "the API key holds characters an HTTP header cannot carry (a newline or a control character?)".to_string()
            })?;
            headers.insert(AUTHORIZATION, value);
        }
        Ok(Self {
            base: base.to_string(),
            key: SecretString::from(key),
            headers,
        })
    }
}

impl Config for ApiConfig {
    fn headers(&self) -> HeaderMap {
        self.headers.clone()
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn query(&self) -> Vec<(&str, &str)> {
        Vec::new()
    }

    fn api_base(&self) -> &str {
        &self.base
    }

    fn api_key(&self) -> &SecretString {
        &self.key
    }
}

/// One endpoint (chat or embedding): an `async-openai` client and what each call's
/// tower stack is built from.
pub struct Transport {
    client: Client<ApiConfig>,
    route: Route,
    base: String,
    http: reqwest::Client,
    policy: RetryPolicy,
    /// The longest one try may take (`--llm-timeout`).
    timeout: Duration,
    /// Whether the endpoint has answered yet (see [`tries::OneTry`]).
    reached: Arc<AtomicBool>,
}

impl Transport {
    /// A transport for `base` (e.g. `http://127.0.0.1:8080/v1`).
    ///
    /// # Errors
    /// [`LlmError::Setup`] when the HTTP client cannot be built (TLS set-up) or the key
    /// cannot be sent.
    pub fn new(
        route: Route,
        base: &str,
        key: Option<&str>,
        timeout_s: u64,
        policy: RetryPolicy,
    ) -> Result<Self, LlmError> {
        let what = route.what();
        let base = base.trim_end_matches('/').to_string();
        let setup = |detail: String| LlmError::Setup {
            what,
            endpoint: base.clone(),
            detail,
        };
        let timeout = Duration::from_secs(timeout_s.max(1));
        // Redirects are not followed: a POST would go on as a GET, and the key to
        // another host; a 3xx is answered as what it is (`classify::Kind::Redirect`).
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| setup(format!("cannot build the HTTP client: {e}")))?;
        let config = ApiConfig::new(&base, key).map_err(setup)?;
        Ok(Self {
            client: Client::build(http.clone(), config),
            route,
            base,
            http,
            policy,
            timeout,
            reached: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The base URL (never with a key).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// POST `body` to the transport's route as a BYOT call, retried as the policy says.
    ///
    /// # Errors
    /// [`LlmError::Unreachable`] for an endpoint that never answered; [`LlmError::Api`]
    /// for an answer no retry mends ([`classify`]); [`LlmError::GaveUp`] for a
    /// retryable failure that outlasted the budget.
    pub async fn post(&self, body: &Value) -> Result<Response, LlmError> {
        let started = std::time::Instant::now();
        let tries = Arc::new(Mutex::new(Tries::default()));
        let stack = tower::ServiceBuilder::new()
            .map_request(TryRequest::first)
            .layer(tower::retry::RetryLayer::new(Budget::new(
                self.policy,
                self.route.what(),
                &self.base,
                tries.clone(),
            )))
            .service(OneTry {
                http: self.http.clone(),
                base: self.base.clone(),
                what: self.route.what(),
                timeout: self.timeout,
                reached: self.reached.clone(),
                tries: tries.clone(),
            });
        let client = self.client.clone().with_http_service(stack);
        let answer: Result<Box<RawValue>, OpenAIError> = match self.route {
            Route::Chat => client.chat().create_byot(body).await,
            Route::Embeddings => client.embeddings().create_byot(body).await,
        };
        let text = match answer {
            Ok(raw) => String::from(Box::<str>::from(raw)),
            // The body is not JSON: it is an answer all the same, judged by the caller.
            Err(OpenAIError::JSONDeserialize(_, text)) => text,
            Err(e) => return Err(self.failure(e)),
        };
        let tries = tries.lock().map(|t| *t).unwrap_or_default();
        Ok(Response {
            body: Body {
                text,
                replaced: tries.replaced,
            },
            latency_ms: tries.latency_ms,
            retries: tries.retries,
            waited_ms: if tries.retries == 0 {
                0
            } else {
                (started.elapsed().as_millis() as u64).saturating_sub(tries.latency_ms)
            },
        })
    }

    /// The [`LlmError`] of a call the client ended with `e`.
    fn failure(&self, e: OpenAIError) -> LlmError {
        let detail = match e {
            OpenAIError::Boxed(e) => match e.downcast::<tries::TryError>() {
                Ok(e) => match *e {
                    tries::TryError::Fatal(e) => return e,
                    tries::TryError::Retry { why, .. } => why,
                },
                Err(e) => e.to_string(),
            },
            e => e.to_string(),
        };
        LlmError::BadResponse {
            what: self.route.what(),
            endpoint: self.base.clone(),
            detail,
        }
    }
}
