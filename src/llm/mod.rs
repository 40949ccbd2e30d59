//! LLM access: one client for every OpenAI-compatible endpoint (chat and embeddings),
//! structured JSON answers with tolerant parsing and one retry, and a record of every
//! call (prompt, answer, tokens, latency) for the trajectory log.
//!
//! - [`client`]: [`ChatBackend`] for any OpenAI-compatible endpoint (OpenAI, vLLM,
//!   llama.cpp, Ollama), over [`http`] (retries with backoff) and [`answer`] (reading a
//!   completion: content, reasoning, finish reason, usage, defects).
//! - [`structured`]: JSON-schema answers, repair, retry, failure counting.
//! - [`bounds`]: the client-side bounds on every string and list a model writes.
//! - [`local`]: the embedded default (a llama.cpp server and an e5 embedding server).
//! - [`connect`]: endpoints from settings, local servers started as needed.
//! - [`replay`]: the "cassette" backend that serves a logged run's answers.
//! - [`prompts`]: the prompt templates, loaded once.
//! - [`models`]: a chat model per call kind (`--model-for`).
//! - [`embeddings`]: an embeddings response read and checked strictly.
//! - [`json_text`]: the JSON values of an answer's text, read tolerantly and within bounds.

pub mod answer;
mod backend;
pub mod bounds;
pub mod client;
pub mod connect;
pub mod embeddings;
pub mod http;
pub mod json_text;
pub mod local;
pub mod models;
pub mod prompts;
pub mod record;
pub mod replay;
#[cfg(test)]
pub mod scripted;
pub mod structured;
mod temperatures;
pub mod truncation;
pub mod watch;

use serde_json::Value;

pub use backend::{
    ChatAnswer, ChatBackend, ChatRequest, EmbedKind, Embeddings, JsonMode, LlmError, Message,
    Usage, check_temperature,
};
pub use client::{EmbedConfig, EndpointConfig, OpenAiBackend};
pub use models::{CallKind, ModelsPerCall};
pub use record::{CallLog, CallRecord, EmbedRecord, VectorRecord};
pub use temperatures::Temperatures;

/// One question for a structured answer ([`Llm::ask`]): what it is for (the call kind,
/// also the schema's name), the prompt, the answer's JSON schema, and the answer's
/// budget in tokens.
pub struct Ask<'a> {
    /// The call kind ("plan", "action", ...): the record's purpose and the schema's name.
    pub purpose: &'a str,
    /// The prompt.
    pub messages: Vec<Message>,
    /// The JSON schema the answer must follow.
    pub schema: Value,
    /// The most tokens the answer may take.
    pub max_tokens: u32,
}

impl<'a> Ask<'a> {
    /// A question of `purpose` with its prompt, schema and token budget.
    pub fn new(purpose: &'a str, messages: Vec<Message>, schema: Value, max_tokens: u32) -> Self {
        Self {
            purpose,
            messages,
            schema,
            max_tokens,
        }
    }
}

/// The LLM as the agent and memory use it: a backend plus the prompt templates.
pub struct Llm {
    /// Where answers come from.
    pub backend: std::sync::Arc<dyn ChatBackend>,
    /// The prompt templates.
    pub prompts: prompts::Prompts,
}

impl Llm {
    /// Ask a question ([`Ask`]) for a structured answer (see [`structured::ask`]), bound
    /// it (see [`bounds`]) and log the calls.
    ///
    /// # Errors
    /// Transport errors only (the failed call is still in `log`); bad answers give
    /// `Ok(None)` and are counted in `log`.
    pub async fn ask<T, F>(
        &self,
        log: &mut CallLog,
        question: Ask<'_>,
        validate: F,
    ) -> Result<Option<T>, LlmError>
    where
        T: serde::de::DeserializeOwned + bounds::Bounded,
        F: Fn(&T) -> Result<(), String>,
    {
        let Ask {
            purpose,
            messages,
            schema,
            max_tokens,
        } = question;
        let request = ChatRequest {
            purpose: purpose.to_string(),
            messages,
            schema: Some((purpose.to_string(), schema)),
            max_tokens,
        };
        structured::ask(self.backend.as_ref(), request, validate, log).await
    }

    /// Embed texts and log the call and the vectors. An empty batch makes no call.
    ///
    /// # Errors
    /// Transport errors and malformed embedding responses.
    pub async fn embed(
        &self,
        log: &mut CallLog,
        texts: Vec<String>,
        kind: EmbedKind,
    ) -> Result<Vec<Vec<f32>>, LlmError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let e = match self.backend.embed(&texts, kind).await {
            Ok(e) => e,
            Err(e) => {
                // The retries of a call that failed are counted like any other.
                log.retries += e.retries();
                return Err(e);
            }
        };
        for (text, vector) in texts.iter().zip(&e.vectors) {
            log.vectors.push(VectorRecord {
                kind,
                text: text.clone(),
                vector: vector.clone(),
            });
        }
        log.retries += e.retries;
        log.waited_ms += e.waited_ms;
        log.embeds.push(EmbedRecord {
            kind,
            texts,
            usage: e.usage,
            latency_ms: e.latency_ms,
            retries: e.retries,
        });
        Ok(e.vectors)
    }
}
