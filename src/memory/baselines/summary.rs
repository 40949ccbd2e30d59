//! Summary (paper section 4.1): an LLM-maintained running summary, rewritten every step.

use crate::llm::bounds::answer_tokens;
use anyhow::Result;
use minijinja::context;
use serde::Deserialize;
use serde_json::json;

use crate::llm::bounds::{self, Bounded};
use crate::llm::{Ask, Llm};
use crate::memory::{
    CallLog, MemoryDesign, MemoryModule, Observed, Queries, Retrieval, UpdateReport,
};

/// Summary: one running summary, rewritten by the LLM each step.
#[derive(Debug, Default)]
pub struct Summary {
    summary: String,
    /// The cap in words said in the prompt (`MemorySettings::summary_words`).
    words: Option<u32>,
    /// The reference's prompt (`pipeline_summary.py`, `get_summary`, with
    /// `summary_prompt`), from memory rules 7; Ariadne's before.
    reference: bool,
}

/// The reference's summary before the first step (`pipeline_summary.py`).
pub const FIRST_SUMMARY: &str = "Yet nothing";

impl Summary {
    /// An empty summary whose prompt asks for at most `words` words (`None`: no cap);
    /// with `reference`, the reference's prompt, which starts from [`FIRST_SUMMARY`].
    pub fn new(words: Option<u32>, reference: bool) -> Self {
        Self {
            summary: if reference {
                FIRST_SUMMARY.to_string()
            } else {
                String::new()
            },
            words,
            reference,
        }
    }
}

#[derive(Deserialize)]
struct SummaryAnswer {
    summary: String,
}

impl Bounded for SummaryAnswer {
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cut(
            &mut self.summary,
            bounds::SUMMARY_CHARS,
            "summary",
            &mut notes,
        );
        notes
    }
}

#[async_trait::async_trait]
impl MemoryModule for Summary {
    fn design(&self) -> MemoryDesign {
        MemoryDesign::Summary
    }

    fn layout(&self) -> crate::memory::layout::Layout {
        crate::memory::layout::Layout::Summary
    }

    async fn update(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        let messages = if self.reference {
            llm.prompts.render(
                "summary_reference",
                context! { goal => seen.goal, history_len => crate::memory::RECENT_OBSERVATIONS, recent => seen.recent,
                           current => seen.as_reference(), summary => &self.summary },
            )?
        } else {
            llm.prompts.render(
                "summary",
                context! { summary_words => self.words, goal => seen.goal, summary => &self.summary, step => seen.step, room => seen.room,
                           action => seen.action, observation => seen.observation, inventory => seen.inventory },
            )?
        };
        let schema = json!({
            "type": "object",
            "properties": {"summary": {"type": "string", "maxLength": bounds::SUMMARY_CHARS}},
            "required": ["summary"],
            "additionalProperties": false
        });
        let answer: Option<SummaryAnswer> = llm
            .ask(
                log,
                Ask::new("summary", messages, schema, answer_tokens::SUMMARY),
                |_: &SummaryAnswer| Ok(()),
            )
            .await?;
        if let Some(a) = answer {
            self.summary = a.summary;
        }
        Ok(UpdateReport::default())
    }

    async fn retrieve(
        &mut self,
        _llm: &Llm,
        _log: &mut CallLog,
        _q: &Queries<'_>,
    ) -> Result<Retrieval> {
        Ok(Retrieval {
            notes: if self.summary.is_empty() {
                Vec::new()
            } else {
                vec![self.summary.clone()]
            },
            ..Retrieval::default()
        })
    }
}
