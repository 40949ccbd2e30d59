//! Endpoints from settings: start the embedded local servers a run needs, build the
//! chat and embedding configurations, and describe them for the manifest (never a key).

use std::sync::Arc;

use anyhow::Result;
use serde_json::json;

use super::local::{self, LocalOptions, LocalServer};
use super::{ChatBackend, EmbedConfig, EndpointConfig, OpenAiBackend};
use serde::Serialize;

use super::JsonMode;
use crate::pyenv::{LocalModel, PyEnv};

/// Resolved LLM settings.
#[derive(Debug, Clone, Serialize)]
pub struct LlmSettings {
    /// Remote chat base URL; `None` means the embedded local model.
    pub base_url: Option<String>,
    /// Chat model name (the local model's name when embedded).
    pub model: String,
    /// A model per call kind (`--model-for`), for those that have their own.
    pub models: crate::llm::ModelsPerCall,
    /// API key from `OPENAI_API_KEY` (never serialized).
    #[serde(skip)]
    pub api_key: Option<String>,
    /// Remote embedding base URL; `None` means the embedded e5 server.
    pub embed_base_url: Option<String>,
    /// Remote embedding model.
    pub embed_model: String,
    /// API key for embeddings (`ARIADNE_EMBED_API_KEY`, else `OPENAI_API_KEY`).
    #[serde(skip)]
    pub embed_api_key: Option<String>,
    /// The embedded local model (used when `base_url` is `None`).
    #[serde(skip)]
    pub local_model: &'static LocalModel,
    /// Structured output mode.
    pub json_mode: JsonMode,
    /// Sampling temperature of every call (`--temperature`), when `temperatures` is
    /// `None`.
    pub temperature: f32,
    /// A temperature per module ([`crate::llm::Temperatures::REFERENCE`]) when no
    /// temperature was given.
    pub temperatures: Option<crate::llm::Temperatures>,
    /// Request timeout, seconds.
    pub timeout_s: u64,
    /// Local context window, tokens.
    pub ctx: u32,
    /// Local server threads.
    pub threads: u32,
    /// Keep `maxLength` in schemas sent to a remote endpoint (always kept locally).
    pub length_limits: bool,
    /// Total time one request may spend retrying 429, 5xx and dropped connections,
    /// seconds (`--retry-budget`; 0: no retries).
    pub retry_budget_s: u64,
}

impl LlmSettings {
    /// True when the chat model is the embedded local one.
    pub fn embedded_chat(&self) -> bool {
        self.base_url.is_none()
    }
}

/// Local servers started for a run; stopped by [`Servers::stop`] (or killed on drop).
#[derive(Default)]
pub struct Servers {
    llm: Option<LocalServer>,
    embed: Option<LocalServer>,
}

impl Servers {
    /// Stop every server.
    pub async fn stop(self) {
        if let Some(s) = self.llm {
            s.stop().await;
        }
        if let Some(s) = self.embed {
            s.stop().await;
        }
    }
}

/// Endpoints ready for use: the chat and embedding configurations, the local servers
/// started for them, and their description for the manifest (never a key).
pub struct Connection {
    /// Chat endpoint (its seed is set per backend).
    pub chat: EndpointConfig,
    /// Embedding endpoint.
    pub embed: EmbedConfig,
    /// Local servers to stop at the end.
    pub servers: Servers,
    /// The manifest's `llm` entry.
    pub described: serde_json::Value,
}

impl Connection {
    /// A backend whose chat requests carry `seed`.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn backend(&self, seed: u64) -> Result<Arc<dyn ChatBackend>> {
        // The temperatures as configured: an agent's backend is `backend_for`.
        self.backend_for(seed, true)
    }

    /// A backend whose chat requests carry `seed`, for an agent that explores or not:
    /// without exploration the per-module temperatures sample the decision as the
    /// reference does ([`crate::llm::Temperatures::without_exploration`]); `--temperature`
    /// still sets every call.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn backend_for(&self, seed: u64, explores: bool) -> Result<Arc<dyn ChatBackend>> {
        let chat = EndpointConfig {
            seed: Some(seed),
            temperatures: self
                .chat
                .temperatures
                .map(|t| if explores { t } else { t.without_exploration() }),
            ..self.chat.clone()
        };
        Ok(Arc::new(OpenAiBackend::new(chat, self.embed.clone())?))
    }
}

/// Start the local servers the settings need (their logs go to `log_dir`) and describe
/// the endpoints. Without `chat` (a walkthrough drives the agent) the embedded chat
/// model is not started; with it, the embedded server has `slots` sequences (the
/// requests the caller sends at once), each with the whole context the settings give
/// (`ctx` tokens: llama.cpp divides its context among its slots, so it is given
/// `ctx × slots`).
///
/// # Errors
/// Setup failures (servers that exit or never become ready) as one clear line.
pub async fn connect(
    settings: &LlmSettings,
    chat: bool,
    slots: u32,
    seed: u64,
    py: &PyEnv,
    log_dir: &std::path::Path,
) -> Result<Connection> {
    let slots = slots.max(1);
    let servers = start_servers(settings, chat.then_some(slots), py, log_dir).await?;
    let chat = chat_config(settings, &servers, seed);
    let embed = embed_config(settings, &servers);
    let described = describe(settings, &servers, &chat, &embed);
    Ok(Connection {
        chat,
        embed,
        servers,
        described,
    })
}

/// Start, side by side, the embedded chat model with `chat` slots (when wanted and no
/// remote chat endpoint is set) and the embedded e5 server (when no remote embedding
/// endpoint is set); their logs go to `log_dir`.
///
/// # Errors
/// A server that exits or never becomes ready (the other one is then stopped).
async fn start_servers(
    settings: &LlmSettings,
    chat: Option<u32>,
    py: &PyEnv,
    log_dir: &std::path::Path,
) -> Result<Servers> {
    let mut servers = Servers::default();
    let threads = settings.threads.max(1);
    let (llm_srv, embed_srv) = tokio::join!(
        async {
            if let Some(slots) = chat.filter(|_| settings.embedded_chat()) {
                let opts = LocalOptions {
                    model_path: py.model_path(settings.local_model),
                    n_ctx: settings.ctx.saturating_mul(slots),
                    threads,
                    parallel: slots,
                    log_dir: log_dir.to_path_buf(),
                };
                local::start_llm(py, &opts).await.map(Some)
            } else {
                Ok(None)
            }
        },
        async {
            if settings.embed_base_url.is_none() {
                local::start_embed(py, threads, log_dir).await.map(Some)
            } else {
                Ok(None)
            }
        }
    );
    servers.llm = llm_srv?;
    servers.embed = embed_srv?;
    Ok(servers)
}

/// The chat endpoint: the embedded server's when it runs, else the settings' URL;
/// requests carry `seed`; `maxLength` bounds are kept for the embedded server.
fn chat_config(settings: &LlmSettings, servers: &Servers, seed: u64) -> EndpointConfig {
    EndpointConfig {
        base_url: match &servers.llm {
            Some(s) => s.base_url.clone(),
            None => settings.base_url.clone().unwrap_or_default(),
        },
        api_key: settings.api_key.clone(),
        model: settings.model.clone(),
        models: settings.models.clone(),
        json_mode: settings.json_mode,
        temperature: settings.temperature,
        temperatures: settings.temperatures,
        timeout_s: settings.timeout_s,
        seed: Some(seed),
        length_limits: servers.llm.is_some() || settings.length_limits,
        retry_budget_s: settings.retry_budget_s,
    }
}

/// The embedding endpoint: the embedded e5 server's (its query and passage models,
/// no key) when it runs, else the settings' URL, model and key.
fn embed_config(settings: &LlmSettings, servers: &Servers) -> EmbedConfig {
    match (&servers.embed, &settings.embed_base_url) {
        (Some(s), _) => EmbedConfig {
            base_url: s.base_url.clone(),
            api_key: None,
            query_model: "e5-query".into(),
            passage_model: "e5-passage".into(),
            query_prefix: String::new(),
            passage_prefix: String::new(),
        },
        (None, url) => EmbedConfig {
            base_url: url.clone().unwrap_or_default(),
            api_key: settings.embed_api_key.clone(),
            query_model: settings.embed_model.clone(),
            passage_model: settings.embed_model.clone(),
            query_prefix: String::new(),
            passage_prefix: String::new(),
        },
    }
}

/// The manifest's `llm` entry: the chat and embedding endpoints as configured, whether
/// each is embedded (with the local model, the runtime and its build), whether a key was
/// set (never the key).
fn describe(
    settings: &LlmSettings,
    servers: &Servers,
    chat: &EndpointConfig,
    embed: &EmbedConfig,
) -> serde_json::Value {
    let threads = settings.threads.max(1);
    json!({
        "chat": {
            "base_url": chat.base_url,
            "embedded": servers.llm.is_some(),
            "model": chat.model,
            "models": (!chat.models.is_empty()).then_some(&chat.models),
            "local_model": servers.llm.as_ref().map(|server| json!({
                "name": settings.local_model.name,
                "file": settings.local_model.file,
                "sha256": settings.local_model.sha256,
                "runtime": crate::pyenv::LLM_REQ,
                "build": server.build.as_ref().map(crate::pyenv::llm_build::describe),
                "ctx": settings.ctx,
                "threads": threads,
            })),
            "api_key_set": chat.api_key.is_some(),
            "json_mode": chat.json_mode,
            "temperature": crate::llm::temperatures::as_decimal(chat.temperature),
            "temperatures": chat.temperatures,
            "timeout_s": chat.timeout_s,
            "length_limits": chat.length_limits,
            "retry_budget_s": chat.retry_budget_s,
        },
        "embedding": {
            "base_url": embed.base_url,
            "embedded": servers.embed.is_some(),
            "runtime": servers.embed.as_ref().map(|_| crate::pyenv::EMBED_REQ),
            "query_model": embed.query_model,
            "passage_model": embed.passage_model,
            "api_key_set": embed.api_key.is_some(),
        },
    })
}
