//! Full history (paper section 4.1): every past observation and action, unbounded.

use anyhow::Result;

use crate::llm::Llm;
use crate::memory::layout::{Layout, RecentStep};
use crate::memory::{
    CallLog, MemoryDesign, MemoryModule, Observed, Queries, Retrieval, RetrievedEpisode,
    UpdateReport,
};

/// Full history: every past observation with the action taken after it.
#[derive(Debug, Default)]
pub struct FullHistory {
    steps: Vec<(u32, String, String)>,
    /// The observation of the step in progress as the reference shows it.
    seen: String,
    /// Every finished step as the reference's full history shows it
    /// (`pipeline_fullhist.py`: `\nObservation: ...\nAction taken: ...`).
    shown: Vec<String>,
}

#[async_trait::async_trait]
impl MemoryModule for FullHistory {
    fn design(&self) -> MemoryDesign {
        MemoryDesign::FullHistory
    }

    async fn update(
        &mut self,
        _llm: &Llm,
        _log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        self.steps
            .push((seen.step, seen.observation.to_string(), String::new()));
        self.seen = seen.as_reference();
        Ok(UpdateReport::default())
    }

    fn observe_result(&mut self, step: u32, action: &str, _feedback: &str) {
        if let Some(s) = self.steps.iter_mut().rev().find(|s| s.0 == step) {
            s.2 = action.to_string();
        }
        self.shown.push(format!(
            "\nObservation: {}\nAction taken: {action}",
            self.seen
        ));
    }

    fn layout(&self) -> Layout {
        Layout::FullHistory
    }

    fn past(&self, _retrieval: &Retrieval, _recent: &[RecentStep<'_>]) -> Vec<String> {
        self.shown.clone()
    }

    async fn retrieve(
        &mut self,
        _llm: &Llm,
        _log: &mut CallLog,
        q: &Queries<'_>,
    ) -> Result<Retrieval> {
        Ok(Retrieval {
            episodes: self
                .steps
                .iter()
                .filter(|s| s.0 < q.step)
                .map(|(step, obs, action)| RetrievedEpisode {
                    step: *step,
                    score: 0.0,
                    n: 0,
                    total: 0,
                    observation: format!("{obs}\n  action taken: {action}"),
                })
                .collect(),
            ..Retrieval::default()
        })
    }
}
