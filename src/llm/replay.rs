//! The replay "cassette": a [`ChatBackend`] that serves the chat answers and embeddings
//! of a logged run in order, checks that each request is the one recorded, and after
//! the recorded answers run out hands over to a live backend (continue-from) or reports
//! the divergence.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::{
    CallRecord, ChatAnswer, ChatBackend, ChatRequest, EmbedKind, Embeddings, LlmError, Message,
    VectorRecord,
};

/// One recorded chat call with the step that made it.
pub type RecordedCall = (u32, CallRecord);

/// Serves chat answers and embeddings from a log; after the recorded calls run out,
/// hands over to `live` if there is one.
pub struct ReplayBackend {
    calls: Mutex<VecDeque<(u32, CallRecord)>>,
    vectors: HashMap<(EmbedKind, String), Vec<f32>>,
    live: Option<Arc<dyn ChatBackend>>,
    model: String,
    /// What is wrong with the recorded vectors' file, if anything ([`Self::with_damage`]).
    damage: Option<String>,
}

impl ReplayBackend {
    /// The same backend, told that the recorded vectors' file is damaged (`damage`:
    /// "embeddings.jsonl is missing", "its last line is cut"): a vector it then lacks
    /// is [`LlmError::Damaged`], not a divergence.
    pub fn with_damage(mut self, damage: Option<String>) -> Self {
        self.damage = damage;
        self
    }

    /// A backend that answers with `calls` in order and the `vectors`.
    pub fn new(
        calls: Vec<RecordedCall>,
        vectors: Vec<VectorRecord>,
        model: String,
        live: Option<Arc<dyn ChatBackend>>,
    ) -> Self {
        let calls = calls.into_iter().collect();
        let vectors = vectors
            .into_iter()
            .map(|v| ((v.kind, v.text), v.vector))
            .collect();
        Self {
            calls: Mutex::new(calls),
            vectors,
            live,
            model,
            damage: None,
        }
    }
}

/// The first line where two prompts differ, for a divergence report.
fn first_difference(recorded: &[Message], replayed: &[Message]) -> String {
    if recorded.len() != replayed.len() {
        return format!(
            "{} messages recorded, {} replayed",
            recorded.len(),
            replayed.len()
        );
    }
    for (i, (a, b)) in recorded.iter().zip(replayed).enumerate() {
        if a == b {
            continue;
        }
        let (la, lb): (Vec<&str>, Vec<&str>) =
            (a.content.lines().collect(), b.content.lines().collect());
        let n = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
        return format!(
            "message {i} ({}) line {}: recorded {:?}, replayed {:?}",
            a.role,
            n + 1,
            la.get(n).unwrap_or(&"<end>"),
            lb.get(n).unwrap_or(&"<end>")
        );
    }
    "identical".into()
}

#[async_trait]
impl ChatBackend for ReplayBackend {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatAnswer, LlmError> {
        let next = self
            .calls
            .lock()
            .map_err(|_| LlmError::Replay("replay state poisoned".into()))?
            .pop_front();
        match (next, &self.live) {
            (Some((step, rec)), _) => {
                if rec.purpose != request.purpose || rec.messages != request.messages {
                    return Err(LlmError::Replay(format!(
                        "replay diverged at step {step}, field llm_calls ({} call, attempt {}): the prompt differs from the log: {}",
                        rec.purpose,
                        rec.attempt,
                        if rec.purpose != request.purpose {
                            format!(
                                "recorded a {} call, replayed a {} call",
                                rec.purpose, request.purpose
                            )
                        } else {
                            first_difference(&rec.messages, &request.messages)
                        }
                    )));
                }
                if let Some(e) = rec
                    .error
                    .as_deref()
                    .filter(|e| e.starts_with("transport: "))
                {
                    return Err(LlmError::Replay(format!(
                        "the log ends with a failed {} call at step {step} ({e})",
                        rec.purpose
                    )));
                }
                Ok(ChatAnswer {
                    content: rec.answer,
                    reasoning: rec.reasoning,
                    finish_reason: rec.finish_reason,
                    defect: rec.defect,
                    usage: rec.usage,
                    latency_ms: 0,
                    retries: 0,
                    waited_ms: 0,
                    prompt_cut: rec.prompt_cut,
                    from_events: rec.from_events,
                })
            }
            (None, Some(live)) => live.chat(request).await,
            (None, None) => Err(LlmError::Replay(format!(
                "replay diverged: the log has no more recorded answers, but the agent made a {} call",
                request.purpose
            ))),
        }
    }

    async fn embed(&self, texts: &[String], kind: EmbedKind) -> Result<Embeddings, LlmError> {
        let found: Option<Vec<Vec<f32>>> = texts
            .iter()
            .map(|t| self.vectors.get(&(kind, t.clone())).cloned())
            .collect();
        match (found, &self.live) {
            (Some(vectors), _) => Ok(Embeddings {
                vectors,
                usage: None,
                latency_ms: 0,
                retries: 0,
                waited_ms: 0,
            }),
            (None, Some(live)) => live.embed(texts, kind).await,
            (None, None) => {
                let missing = texts
                    .iter()
                    .find(|t| !self.vectors.contains_key(&(kind, (*t).clone())));
                let missing =
                    crate::text::with_ellipsis(missing.map(|s| s.as_str()).unwrap_or(""), 80);
                Err(match &self.damage {
                    Some(d) => LlmError::Damaged(format!(
                        "the run cannot be replayed: {d}; the replay needs the {kind:?} embedding of {missing:?}, which it lacks (the record is damaged, the run did not diverge)"
                    )),
                    None => LlmError::Replay(format!(
                        "replay diverged: no recorded {kind:?} embedding for {missing:?}"
                    )),
                })
            }
        }
    }

    fn model_name(&self) -> String {
        self.model.clone()
    }
}
