//! A scripted [`ChatBackend`] for in-process tests of the engine and the memories: answers
//! come from per-purpose queues (then a default per purpose), every request is kept, and
//! a chosen call can fail or hang. End-to-end tests use the scripted HTTP server of
//! `tests/common` instead, so the real client path keeps its own tests.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::json;

use super::{ChatAnswer, ChatBackend, ChatRequest, EmbedKind, Embeddings, LlmError, Usage};

/// Answers by purpose; see the module documentation.
#[derive(Default)]
pub struct Scripted {
    queues: Mutex<HashMap<String, VecDeque<String>>>,
    requests: Mutex<Vec<ChatRequest>>,
    /// Chat call number (1-based) that fails with an HTTP 500.
    pub fail_at: Option<usize>,
    /// Chat call number (1-based) that never answers.
    pub hang_at: Option<usize>,
    /// A purpose whose calls are refused as longer than the context (llama.cpp's 400).
    pub too_long_for: Option<String>,
}

impl Scripted {
    /// Queue answers (raw texts) for a purpose, in order.
    pub fn answer(self, purpose: &str, answers: &[&str]) -> Self {
        if let Ok(mut q) = self.queues.lock() {
            q.entry(purpose.to_string())
                .or_default()
                .extend(answers.iter().map(|s| s.to_string()));
        }
        self
    }

    /// Queue the `action` answers that play `actions` in order (in both forms:
    /// Ariadne's fields and the reference's).
    pub fn actions(self, actions: &[&str]) -> Self {
        let answers: Vec<String> = actions
            .iter()
            .map(|a| {
                json!({"rationale": "scripted", "action": a, "reason_for_action": "scripted", "action_to_take": a})
                    .to_string()
            })
            .collect();
        let refs: Vec<&str> = answers.iter().map(String::as_str).collect();
        self.answer("action", &refs)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    fn default_answer(purpose: &str) -> String {
        match purpose {
            "extract_triplets" => json!({"triplets": []}),
            // Both forms of each answer: Ariadne's and the reference's (agent revision 9,
            // memory rules 7); each reader ignores the other's fields.
            "outdated" => json!({"outdated": [], "replacing": []}),
            "plan" => json!({
                "plan": [{"sub_goal": "explore", "reason": "scripted"}],
                "main_goal": "scripted",
                "plan_steps": [{"sub_goal_1": "explore", "reason": "scripted"}],
                "your_emotion": {"your_current_emotion": "calm", "reason_behind_emotion": "scripted"}
            }),
            "action" => json!({"rationale": "scripted", "action": "look", "reason_for_action": "scripted", "action_to_take": "look"}),
            "key_items" => json!({"items": []}),
            "explore" => json!({"explore": true}),
            other => json!({"error": other}),
        }
        .to_string()
    }
}

#[async_trait]
impl ChatBackend for Scripted {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatAnswer, LlmError> {
        let n = {
            let mut r = self
                .requests
                .lock()
                .map_err(|_| LlmError::Replay("scripted state poisoned".into()))?;
            r.push(request.clone());
            r.len()
        };
        if self.fail_at == Some(n) {
            return Err(LlmError::Api {
                what: "chat",
                endpoint: "scripted".into(),
                detail: "answered 500 Internal Server Error: scripted failure".into(),
                user: false,
            });
        }
        if self.too_long_for.as_deref() == Some(request.purpose.as_str()) {
            return Err(LlmError::Api {
                what: "chat",
                endpoint: "scripted".into(),
                detail: "answered 400 Bad Request: the request exceeds the available context size, try increasing it"
                    .into(),
                user: false,
            });
        }
        if self.hang_at == Some(n) {
            std::future::pending::<()>().await;
        }
        let queued = self
            .queues
            .lock()
            .ok()
            .and_then(|mut q| q.get_mut(&request.purpose).and_then(VecDeque::pop_front));
        Ok(ChatAnswer {
            content: queued.unwrap_or_else(|| Self::default_answer(&request.purpose)),
            finish_reason: Some("stop".into()),
            usage: Some(Usage {
                prompt_tokens: 10,
                completion_tokens: 2,
                ..Usage::default()
            }),
            ..ChatAnswer::default()
        })
    }

    async fn embed(&self, texts: &[String], _kind: EmbedKind) -> Result<Embeddings, LlmError> {
        Ok(Embeddings {
            vectors: texts
                .iter()
                .map(|t| vec![t.len() as f32, 1.0, (t.len() % 7) as f32])
                .collect(),
            usage: None,
            latency_ms: 0,
            retries: 0,
            waited_ms: 0,
        })
    }

    fn model_name(&self) -> String {
        "scripted".into()
    }
}
