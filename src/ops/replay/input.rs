//! What a replay reads: the user's request and the logged run directory.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error::UserError;
use crate::llm::connect::LlmSettings;
use crate::llm::{EmbedKind, VectorRecord};
use crate::trajectory::{self, Manifest, StepRecord, Summary};

/// What the user asked of a replay.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// The run directory.
    pub run: PathBuf,
    /// Stop after this step and show the memory as it stood.
    pub step: Option<u32>,
    /// Write the graph at `step` (or the end) in this format ("dot" or "json").
    pub export: Option<String>,
    /// Where the export goes (default: `<run>/graph-step-N.<ext>`).
    pub out: Option<PathBuf>,
    /// Replay steps 1..N, then hand over to the live LLM.
    pub continue_from: Option<u32>,
    /// Step cap of the continued run (default: the original's).
    pub max_steps: Option<u32>,
    /// What-if retrieval parameters (None: no what-if).
    pub what_if: Option<(Option<u32>, Option<usize>, Option<usize>)>,
    /// Print graph statistics per step.
    pub stats: bool,
    /// Write graph statistics (or the accuracy table) per step to this CSV file.
    pub csv: Option<PathBuf>,
    /// Print the world model's accuracy per step.
    pub accuracy: bool,
    /// One line per step.
    pub quiet: bool,
    /// The profile a continued run hands over to after its step (`--profile`).
    pub handover: Option<crate::profile::ProfileRecord>,
    /// LLM settings for `continue_from`.
    pub llm: Option<LlmSettings>,
}

/// A loaded run directory.
pub struct LoggedRun {
    /// `manifest.json`.
    pub manifest: Manifest,
    /// The complete steps.
    pub steps: Vec<StepRecord>,
    /// Whether a truncated last line was skipped.
    pub truncated: bool,
    /// `embeddings.jsonl`.
    pub vectors: Vec<VectorRecord>,
    /// What is wrong with `embeddings.jsonl` when it is missing or its last line is cut
    /// (named if a replay then lacks a vector: damage, not a divergence).
    pub vectors_damage: Option<String>,
    /// `summary.json`, if written.
    pub summary: Option<Summary>,
}

/// What `embeddings.jsonl` (at `path`, holding `vectors`) lacks of what the complete
/// `steps` record embedding: lines lost whole leave no cut line behind, and the steps'
/// embedding calls name every text whose vector the run wrote.
fn lacking(steps: &[StepRecord], vectors: &[VectorRecord], path: &Path) -> Option<String> {
    let held: HashSet<(EmbedKind, &str)> =
        vectors.iter().map(|v| (v.kind, v.text.as_str())).collect();
    let recorded: Vec<(EmbedKind, &str)> = steps
        .iter()
        .flat_map(|s| &s.embedding_calls)
        .flat_map(|c| c.texts.iter().map(move |t| (c.kind, t.as_str())))
        .collect();
    let recorded: HashSet<_> = recorded.iter().collect();
    let missing = recorded.iter().filter(|r| !held.contains(r)).count();
    (missing > 0).then(|| {
        format!(
            "{} holds no vector for {missing} of the {} texts the steps record embedding",
            path.display(),
            recorded.len()
        )
    })
}

/// Read a run directory.
///
/// # Errors
/// A missing directory or manifest, a malformed line (other than a truncated last one).
pub fn load(dir: &Path) -> Result<LoggedRun> {
    let manifest = Manifest::read(dir)?;
    let (steps, truncated) =
        trajectory::read_steps(dir).map_err(|e| UserError::new(format!("{e:#}")))?;
    let vpath = dir.join("embeddings.jsonl");
    // A truncated last line is skipped like in steps.jsonl, and named if a vector is
    // then missing.
    let (vectors, vectors_damage) = if vpath.exists() {
        let (vectors, cut) = trajectory::read_jsonl::<VectorRecord>(&vpath)?;
        let damage = cut
            .then(|| format!("the last line of {} is cut", vpath.display()))
            .or_else(|| lacking(&steps, &vectors, &vpath));
        (vectors, damage)
    } else {
        (Vec::new(), Some(format!("{} is missing", vpath.display())))
    };
    let summary = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    Ok(LoggedRun {
        manifest,
        steps,
        truncated,
        vectors,
        vectors_damage,
        summary,
    })
}
