//! The chat call in flight, for a view that must show where a step of minutes stands
//! (a bench's episode bar): [`Watched`] wraps a [`ChatBackend`] and tells a
//! [`CallWatch`] when each chat call starts and ends. Answers pass through unchanged;
//! embeddings (milliseconds on the embedded server) are not watched.

use std::sync::Arc;

use async_trait::async_trait;

use super::{ChatAnswer, ChatBackend, ChatRequest, EmbedKind, Embeddings, LlmError};

/// What hears of each chat call: its purpose (the call kind: "extraction", "plan",
/// "action", ...) when it starts, and its end (an answer or an error).
pub trait CallWatch: Send + Sync {
    /// A call of `purpose` was sent.
    fn started(&self, purpose: &str);
    /// The call ended.
    fn ended(&self);
}

/// A backend whose chat calls are told to a [`CallWatch`].
pub struct Watched {
    inner: Arc<dyn ChatBackend>,
    watch: Arc<dyn CallWatch>,
}

impl Watched {
    /// `inner`, watched by `watch`.
    pub fn new(inner: Arc<dyn ChatBackend>, watch: Arc<dyn CallWatch>) -> Self {
        Self { inner, watch }
    }
}

/// Tells the watch that the call ended when dropped.
struct InFlight<'a>(&'a dyn CallWatch);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.ended();
    }
}

#[async_trait]
impl ChatBackend for Watched {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatAnswer, LlmError> {
        self.watch.started(&request.purpose);
        // Ended however the call ends: answered, failed, or dropped mid-flight.
        let _in_flight = InFlight(self.watch.as_ref());
        self.inner.chat(request).await
    }

    async fn embed(&self, texts: &[String], kind: EmbedKind) -> Result<Embeddings, LlmError> {
        self.inner.embed(texts, kind).await
    }

    fn model_name(&self) -> String {
        self.inner.model_name()
    }

    fn endpoint(&self) -> Option<String> {
        self.inner.endpoint()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::llm::scripted::Scripted;

    #[derive(Default)]
    struct Heard(Mutex<Vec<String>>);

    impl CallWatch for Heard {
        fn started(&self, purpose: &str) {
            self.0.lock().unwrap().push(format!("start {purpose}"));
        }
        fn ended(&self) {
            self.0.lock().unwrap().push("end".into());
        }
    }

    #[tokio::test]
    async fn each_chat_call_is_heard_from_start_to_end() {
        let heard = Arc::new(Heard::default());
        let inner: Arc<dyn ChatBackend> = Arc::new(
            Scripted::default()
                .answer("plan", &[r#"{"a": 1}"#])
                .answer("action", &[r#"{"a": 2}"#]),
        );
        let watched = Watched::new(inner, heard.clone());
        for (purpose, a) in [("plan", 1), ("action", 2)] {
            let request = ChatRequest {
                purpose: purpose.into(),
                messages: Vec::new(),
                schema: None,
                max_tokens: 10,
            };
            let answer = watched.chat(&request).await.unwrap();
            assert_eq!(answer.content, format!("{{\"a\": {a}}}"));
        }
        assert_eq!(
            *heard.0.lock().unwrap(),
            ["start plan", "end", "start action", "end"]
        );
    }
}
