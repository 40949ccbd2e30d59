//! No long-term memory: the agent sees the current observation and the recent history
//! every design gets, and retrieves nothing. On NetHack this is the paper's NetPlay
//! baselines (section 5.2, Table 1): NetPlay's agent keeps no memory beyond what its
//! observation describes ("Room obs", or "Level obs", the memory oracle).

use anyhow::Result;

use crate::llm::Llm;
use crate::memory::{
    CallLog, MemoryDesign, MemoryModule, Observed, Queries, Retrieval, UpdateReport,
};

/// A memory that keeps nothing.
#[derive(Debug, Default)]
pub struct NoMemory;

#[async_trait::async_trait]
impl MemoryModule for NoMemory {
    fn design(&self) -> MemoryDesign {
        MemoryDesign::NoMemory
    }

    async fn update(
        &mut self,
        _llm: &Llm,
        _log: &mut CallLog,
        _seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        Ok(UpdateReport::default())
    }

    async fn retrieve(
        &mut self,
        _llm: &Llm,
        _log: &mut CallLog,
        _q: &Queries<'_>,
    ) -> Result<Retrieval> {
        Ok(Retrieval::default())
    }
}
