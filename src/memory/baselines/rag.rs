//! RAG (paper section 4.1): past observations embedded once, the top k by cosine
//! similarity to the observation and the plan. As in the reference code
//! (`pipeline_smartrag.py`), k is 5 ([`crate::memory::RAG_ENTRIES`]) and an entry shown
//! is the observation with the action taken from it
//! ([`MemorySettings::rag_with_action`]); runs recorded before those settings retrieved
//! `episodes` observations alone.

use anyhow::Result;

use super::{MEMORY_CHARS, embed_one, first_chars};
use crate::llm::{EmbedKind, Llm};
use crate::memory::similarity::cosine;
use crate::memory::{
    CallLog, MemoryDesign, MemoryModule, MemorySettings, Observed, Queries, Retrieval,
    RetrievedEpisode, UpdateReport,
};

/// RAG: past observations embedded once, retrieved by cosine similarity.
#[derive(Debug)]
pub struct Rag {
    settings: MemorySettings,
    entries: Vec<(u32, String, Vec<f32>)>,
}

impl Rag {
    /// An empty store; k is [`MemorySettings::rag_k`].
    pub fn new(settings: MemorySettings) -> Self {
        Self {
            settings,
            entries: Vec::new(),
        }
    }
}

#[async_trait::async_trait]
impl MemoryModule for Rag {
    fn design(&self) -> MemoryDesign {
        MemoryDesign::Rag
    }

    fn layout(&self) -> crate::memory::layout::Layout {
        crate::memory::layout::Layout::Ranked
    }

    async fn update(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        // Memory rules 7: the observation as the reference's ranked memory keeps it
        // (`Game step #N`, the observation, its inventory; whole).
        let text = if self.settings.revision().reference_prompts() {
            seen.as_reference()
        } else {
            first_chars(seen.observation, MEMORY_CHARS)
        };
        if let Some(v) = embed_one(llm, log, &text, EmbedKind::Passage).await? {
            self.entries.push((seen.step, text, v));
        }
        Ok(UpdateReport::default())
    }

    fn observe_result(&mut self, step: u32, action: &str, _feedback: &str) {
        if !self.settings.rag_with_action {
            return;
        }
        if let Some(entry) = self.entries.iter_mut().rev().find(|e| e.0 == step) {
            entry.1 = format!("{}\nAction taken: {action}", entry.1);
        }
    }

    async fn retrieve(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        q: &Queries<'_>,
    ) -> Result<Retrieval> {
        let query = q.joined(self.settings.query_chars);
        let Some(qv) = embed_one(llm, log, &query, EmbedKind::Query).await? else {
            return Ok(Retrieval::default());
        };
        let mut scored: Vec<(f64, &(u32, String, Vec<f32>))> = self
            .entries
            .iter()
            .filter(|e| e.0 < q.step)
            .map(|e| (f64::from(cosine(&qv, &e.2)), e))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.0.cmp(&a.1.0)));
        scored.truncate(self.settings.rag_k());
        Ok(Retrieval {
            queries: vec![query],
            episodes: scored
                .into_iter()
                .map(|(score, e)| RetrievedEpisode {
                    step: e.0,
                    score,
                    n: 0,
                    total: 0,
                    observation: e.1.clone(),
                })
                .collect(),
            ..Retrieval::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference's RAG: an entry is the observation and the action taken from it,
    /// and k is 5; runs recorded before it stored the observation alone and used
    /// `episodes`.
    #[test]
    fn an_entry_holds_the_action_taken_and_k_is_five() {
        let settings = MemorySettings::default();
        assert_eq!(settings.rag_k(), 5);
        let mut rag = Rag::new(settings);
        rag.entries
            .push((1, "You are in the hall.".into(), vec![1.0]));
        rag.observe_result(1, "go east", "You walk.");
        assert_eq!(
            rag.entries[0].1,
            "You are in the hall.\nAction taken: go east"
        );

        let legacy: MemorySettings = serde_json::from_value(serde_json::json!({
            "depth": 2, "width": 6, "episodes": 2, "max_triplets": 15, "query_chars": 600,
            "outdated_scope": "incident"
        }))
        .expect("old settings");
        assert_eq!(legacy.rag_k(), 2);
        assert!(!legacy.rag_with_action);
        assert_eq!(legacy.reflection_threshold, 40.0);
        assert_eq!(legacy.summary_words, Some(150));
        assert_eq!(legacy.cutoff, None);
        let mut rag = Rag::new(legacy);
        rag.entries
            .push((1, "You are in the hall.".into(), vec![1.0]));
        rag.observe_result(1, "go east", "You walk.");
        assert_eq!(rag.entries[0].1, "You are in the hall.");
    }

    /// Generative Agents' reflection threshold (150) under both profiles.
    #[test]
    fn the_reflection_threshold_is_generative_agents() {
        assert_eq!(MemorySettings::default().reflection_threshold, 150.0);
    }
}
