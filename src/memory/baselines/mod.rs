//! The memories the paper compares AriGraph with (section 4.1, Table 4), behind the same
//! [`super::MemoryModule`] interface and the same planning and decision modules:
//!
//! - [`FullHistory`]: every past observation and action, unbounded.
//! - [`Summary`]: an LLM-maintained running summary, updated every step.
//! - [`Rag`]: top-k past observations by embedding similarity to observation + plan.
//! - [`Simulacra`]: Generative Agents' memory stream (Park et al. 2023): score =
//!   recency (0.995^steps since) + importance (LLM, 1-10, asked once per memory) +
//!   relevance (cosine), each min-max normalized, weights 1; top-k; reflections when the
//!   importance accumulated since the last one passes a threshold.
//! - [`Reflexion`]: RAG with Reflexion, as the paper ran it: the [`Rag`] memory over
//!   several trials, plus the verbal lessons (Shinn et al. 2023) written after each
//!   failed trial.
//! - [`NoMemory`]: nothing beyond the observation and the recent history (the paper's
//!   NetPlay baselines on NetHack).
//!
//! Every one keeps the last few steps through the agent's recent history, as in the paper.

pub mod full_history;
pub mod no_memory;
pub mod rag;
pub mod reflexion;
pub mod scores;
pub mod simulacra;
pub mod smart_rag;
pub mod summary;

use anyhow::Result;

pub use full_history::FullHistory;
pub use no_memory::NoMemory;
pub use rag::Rag;
pub use reflexion::Reflexion;
pub use simulacra::Simulacra;
pub use summary::Summary;

use crate::llm::{CallLog, EmbedKind, Llm};

/// Longest observation kept as a memory's text, characters.
pub(crate) const MEMORY_CHARS: usize = 1200;

pub(crate) use crate::text::first_chars;

/// Embed one text (logged like every embedding call); `None` if no vector came back.
pub(crate) async fn embed_one(
    llm: &Llm,
    log: &mut CallLog,
    text: &str,
    kind: EmbedKind,
) -> Result<Option<Vec<f32>>> {
    Ok(llm
        .embed(log, vec![text.to_string()], kind)
        .await?
        .into_iter()
        .next())
}
