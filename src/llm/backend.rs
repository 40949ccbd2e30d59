//! The contract between the agent and a model: messages, a chat request and its answer,
//! token usage, embeddings, the errors callers branch on, and [`ChatBackend`], which a
//! live endpoint, a logged run and a test script each implement. A leaf of `llm`: the
//! client, the structured answers and the call records build on it.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Errors from an LLM or embedding endpoint that callers branch on.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The endpoint did not accept a connection and never had in this run.
    #[error(
        "cannot reach the {what} endpoint at {endpoint}: {detail}. Check --base-url / OPENAI_BASE_URL (or --embed-base-url), or unset them to use the embedded local model"
    )]
    Unreachable {
        /// "chat" or "embedding".
        what: &'static str,
        /// Base URL, never with a key.
        endpoint: String,
        /// The transport error.
        detail: String,
    },
    /// The endpoint answered what no retry can mend (a refused key, an unknown model, a
    /// URL that does not speak the OpenAI API: the table of
    /// [`crate::llm::http::classify`]).
    #[error("the {what} endpoint at {endpoint} {detail}")]
    Api {
        /// "chat" or "embedding".
        what: &'static str,
        /// Base URL, never with a key.
        endpoint: String,
        /// What it answered ("answered 401 Unauthorized: ..."), the server's message and
        /// what to change.
        detail: String,
        /// True when the user must change something (exit code 2).
        user: bool,
    },
    /// The request kept failing (429, 5xx, timeouts, dropped connections) until the
    /// retry budget was spent.
    #[error("the {what} endpoint at {endpoint} {detail}")]
    GaveUp {
        /// "chat" or "embedding".
        what: &'static str,
        /// Base URL, never with a key.
        endpoint: String,
        /// What the last try met (timed out, no body, status and body head), the
        /// retries made and the time spent, and which setting to raise.
        detail: String,
        /// Retries made before giving up.
        retries: u32,
    },
    /// A replay met a request that the log does not answer (the prompt differs from the
    /// recorded one, or the log has no more answers).
    #[error("{0}")]
    Replay(String),
    /// A replay's record is damaged (a file of the run missing or cut where the replay
    /// needs it): a set-up error, not a divergence.
    #[error("{0}")]
    Damaged(String),
    /// The endpoint's settings cannot be used (a key no HTTP header can carry, an HTTP
    /// client that cannot be built): a set-up error, before any request.
    #[error("the {what} endpoint at {endpoint} cannot be used: {detail}")]
    Setup {
        /// "chat" or "embedding".
        what: &'static str,
        /// Base URL, never with a key.
        endpoint: String,
        /// What is wrong and how to fix it.
        detail: String,
    },
    /// The answer could not be read as a chat completion or embedding list.
    #[error("the {what} endpoint at {endpoint} sent an unreadable response: {detail}")]
    BadResponse {
        /// "chat" or "embedding".
        what: &'static str,
        /// Base URL.
        endpoint: String,
        /// What was wrong, with the raw body where available.
        detail: String,
    },
}

/// How endpoints say a request is longer than their context window: llama.cpp's server
/// ("the request exceeds the available context size", `exceed_context_size_error`),
/// OpenAI's and vLLM's ("maximum context length", `context_length_exceeded`).
pub const CONTEXT_ERRORS: &[&str] = &[
    "exceeds the available context size",
    "exceed_context_size",
    "maximum context length",
    "context_length_exceeded",
];

impl LlmError {
    /// True for a replay whose recorded answers no longer fit the requests.
    pub fn is_replay(&self) -> bool {
        matches!(self, LlmError::Replay(_))
    }

    /// True when the error is a setup problem the user must fix (unreachable endpoint,
    /// a refused key, an unknown model, a URL that does not speak the OpenAI API), as
    /// opposed to a transient failure.
    pub fn is_user_error(&self) -> bool {
        match self {
            LlmError::Unreachable { .. } | LlmError::Setup { .. } | LlmError::Damaged(_) => true,
            LlmError::Api { user, .. } => *user,
            LlmError::BadResponse { .. } | LlmError::Replay(_) | LlmError::GaveUp { .. } => false,
        }
    }

    /// True when the endpoint refused the request as longer than its context window
    /// (`CONTEXT_ERRORS`): the same request would be refused again, so the call
    /// counts as failed and its caller's fallback plays, instead of ending the episode.
    pub fn prompt_too_long(&self) -> bool {
        match self {
            LlmError::Api { detail, .. } => {
                let d = detail.to_lowercase();
                CONTEXT_ERRORS.iter().any(|m| d.contains(m))
            }
            _ => false,
        }
    }

    /// Transport retries the failed request made before this error (0 for errors that
    /// are not retried).
    pub fn retries(&self) -> u32 {
        match self {
            LlmError::GaveUp { retries, .. } => *retries,
            _ => 0,
        }
    }
}

/// One chat message (OpenAI roles: "system", "user", "assistant").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// "system", "user" or "assistant".
    pub role: String,
    /// The text of the message.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: "system".into(),
            content: content.into(),
        }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: "user".into(),
            content: content.into(),
        }
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: "assistant".into(),
            content: content.into(),
        }
    }
}

/// Token counts: those the endpoint reported for one call, or a sum over calls.
///
/// A call whose endpoint sent no `usage` is recorded as `None` (unknown), never as 0
/// tokens; a sum counts such calls in `unknown_calls`, and is then a lower bound that
/// the summary and the bench tables show as unknown ("?").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt (input) tokens.
    pub prompt_tokens: u64,
    /// Completion (output) tokens.
    pub completion_tokens: u64,
    /// Prompt tokens served from the server's cache, where reported.
    #[serde(default)]
    pub cached_tokens: u64,
    /// Calls in this sum whose endpoint reported no usage (0 for one call's usage).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unknown_calls: u64,
    /// Server time spent reading the uncached prompt tokens, milliseconds, where the
    /// server reports it (llama.cpp's `timings.prompt_ms`; summed over `timed_calls`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub prompt_ms: u64,
    /// Server time spent generating the completion tokens, milliseconds (llama.cpp's
    /// `timings.predicted_ms`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub completion_ms: u64,
    /// Calls in this sum whose server reported its timings (1 for one timed call).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub timed_calls: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Add another sum (or one call's known usage).
    pub fn add(&mut self, other: Usage) {
        // Saturating: a sum never wraps into a small, plausible-looking figure.
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.cached_tokens = self.cached_tokens.saturating_add(other.cached_tokens);
        self.unknown_calls = self.unknown_calls.saturating_add(other.unknown_calls);
        self.prompt_ms = self.prompt_ms.saturating_add(other.prompt_ms);
        self.completion_ms = self.completion_ms.saturating_add(other.completion_ms);
        self.timed_calls = self.timed_calls.saturating_add(other.timed_calls);
    }

    /// Add one call's usage: its counts, or one unknown call.
    pub fn add_call(&mut self, call: Option<Usage>) {
        match call {
            Some(u) => self.add(u),
            None => self.unknown_calls += 1,
        }
    }

    /// The share of prompt tokens the server served from its cache, 0..1; `None`
    /// without prompt tokens.
    pub fn cached_share(&self) -> Option<f64> {
        (self.prompt_tokens > 0).then(|| self.cached_tokens as f64 / self.prompt_tokens as f64)
    }

    /// True when every call in the sum reported its tokens.
    pub fn is_known(&self) -> bool {
        self.unknown_calls == 0
    }

    /// `n` as text, or "?" when some call's usage is unknown.
    pub fn show(&self, n: u64) -> String {
        if self.is_known() {
            n.to_string()
        } else {
            "?".into()
        }
    }
}

/// How a chat request asks for structured output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsonMode {
    /// `response_format: {type: json_schema}` (OpenAI, llama.cpp, vLLM).
    Schema,
    /// `response_format: {type: json_object}` (any JSON; the schema goes in the prompt only).
    Object,
    /// No `response_format`; the answer is parsed tolerantly.
    None,
}

impl std::str::FromStr for JsonMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "schema" => Ok(JsonMode::Schema),
            "object" => Ok(JsonMode::Object),
            "none" => Ok(JsonMode::None),
            _ => Err(format!(
                "unknown JSON mode {s:?}; use schema, object or none"
            )),
        }
    }
}

/// A sampling temperature: a number from 0 to 2.
///
/// # Errors
/// A one-line reason.
pub fn check_temperature(t: f32) -> Result<f32, String> {
    if t.is_finite() && (0.0..=2.0).contains(&t) {
        Ok(t)
    } else {
        Err(format!("{t} is not between 0 and 2"))
    }
}

/// One chat request.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    /// What the call is for ("extract_triplets", "outdated", "plan", "action", ...).
    pub purpose: String,
    /// The conversation.
    pub messages: Vec<Message>,
    /// Name and JSON schema of the expected answer, if structured.
    pub schema: Option<(String, Value)>,
    /// Upper bound on completion tokens.
    pub max_tokens: u32,
}

/// A chat answer as the endpoint sent it, read but not yet judged.
#[derive(Debug, Clone, Default)]
pub struct ChatAnswer {
    /// `choices[0].message.content` ("" when there is none; reasoning blocks such as
    /// `<think>...</think>` are still in it: [`super::answer::split_reasoning`] removes them).
    pub content: String,
    /// A separate reasoning field (`reasoning_content` or `reasoning`), never parsed.
    pub reasoning: Option<String>,
    /// `choices[0].finish_reason` (`stop`, `length`, `tool_calls`, ...), when sent.
    pub finish_reason: Option<String>,
    /// What makes the response unusable before any parsing (no content, a tool call,
    /// bytes that are not UTF-8, a body that is not a chat completion); such an answer
    /// is rejected and counted like any bad answer.
    pub defect: Option<String>,
    /// Tokens reported by the endpoint; `None` when it sent no `usage`.
    pub usage: Option<Usage>,
    /// Wall time of the HTTP exchange that answered, milliseconds.
    pub latency_ms: u64,
    /// Transport retries before this answer (429, 5xx, dropped connections).
    pub retries: u32,
    /// Time spent before the try that answered (failed tries and the waits between
    /// retries), milliseconds: waiting, not the agent's work.
    pub waited_ms: u64,
    /// Why the endpoint probably cut the prompt ([`super::truncation`]), when it did.
    pub prompt_cut: Option<String>,
    /// The endpoint streamed this answer as server-sent events although the request
    /// asked for none; it was read from its chunks ([`super::answer::from_events`]), a repair
    /// the judge counts.
    pub from_events: bool,
}

/// Whether a text is embedded as a search query or as a stored passage (e5-style models
/// embed the two differently).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmbedKind {
    /// A search query (the observation, plan, goal, or a vertex in BFS).
    Query,
    /// A stored item (a triplet).
    Passage,
}

/// Embedding vectors for a batch of texts, in input order, L2-normalized.
#[derive(Debug, Clone)]
pub struct Embeddings {
    /// One vector per input text, all of the run's dimension.
    pub vectors: Vec<Vec<f32>>,
    /// Tokens reported by the endpoint; `None` when it sent no `usage`.
    pub usage: Option<Usage>,
    /// Wall time of the HTTP exchange, milliseconds.
    pub latency_ms: u64,
    /// Transport retries before this answer.
    pub retries: u32,
    /// Time spent before the try that answered, milliseconds (see
    /// [`ChatAnswer::waited_ms`]).
    pub waited_ms: u64,
}

/// A source of chat answers and embeddings: a live endpoint, or (later) a recorded
/// trajectory. Implementations must be safe to share across tasks.
#[async_trait]
pub trait ChatBackend: Send + Sync {
    /// Send one chat request. Transport failures are retried inside (429, 5xx, dropped
    /// connections, within the retry budget); a response that arrived but is unusable
    /// (no content, not UTF-8, not a completion) is an `Ok` answer with a `defect`.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatAnswer, LlmError>;
    /// Embed a batch of texts: one validated vector per text, in input order.
    async fn embed(&self, texts: &[String], kind: EmbedKind) -> Result<Embeddings, LlmError>;
    /// The chat model's name as recorded in the manifest.
    fn model_name(&self) -> String;
    /// The live endpoint answers come from (its base URL), named in warnings; `None`
    /// for answers that come from a log or a script.
    fn endpoint(&self) -> Option<String> {
        None
    }
}
