//! `manifest.json`: the typed description of a run (game, seed, every setting, the
//! endpoints without keys, versions), written when the run starts and read back by
//! replay, with its format version checked.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::{FORMAT_VERSION, OLDEST_READABLE};
use crate::agent::AgentSettings;
use crate::error::UserError;
use crate::memory::{MemoryDesign, MemorySettings};

/// The game of a run as the manifest records it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GameInfo {
    /// The game as given (a path, or a `twx:` specification).
    pub path: String,
    /// Its absolute path (TextWorld games).
    #[serde(default)]
    pub abs_path: String,
    /// Short name.
    pub name: String,
}

/// Versions of what played the run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Versions {
    /// Ariadne.
    pub ariadne: String,
    /// The TextWorld requirement.
    #[serde(default)]
    pub textworld: String,
    /// The TextWorld-Express requirement (its games only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub textworld_express: Option<String>,
}

/// The run a continued run was replayed from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Parent {
    /// Its directory.
    pub run: String,
    /// Its run id.
    pub run_id: String,
    /// The last step replayed from it.
    pub step: u32,
}

/// `manifest.json`: everything needed to understand and replay a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// Ariadne's version.
    #[serde(default)]
    pub ariadne_version: String,
    /// The directory name.
    #[serde(default)]
    pub run_id: String,
    /// The command that made it ("play", "bench", "replay --continue-from").
    #[serde(default)]
    pub command: String,
    /// RFC 3339 time of creation.
    #[serde(default)]
    pub created_at: String,
    /// The game.
    pub game: GameInfo,
    /// Chat seed.
    pub seed: u64,
    /// Step cap.
    pub max_steps: u32,
    /// Memory design.
    #[serde(default = "default_design")]
    pub memory_design: MemoryDesign,
    /// Memory parameters.
    pub memory: MemorySettings,
    /// Agent parameters.
    pub agent: AgentSettings,
    /// The endpoints (never a key).
    #[serde(default)]
    pub llm: serde_json::Value,
    /// Versions.
    #[serde(default)]
    pub versions: Versions,
    /// "built-in" or the prompt directory.
    #[serde(default = "builtin_prompts")]
    pub prompts: String,
    /// Reflexion: this trial, 1-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trial: Option<u32>,
    /// Reflexion: trials in all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<u32>,
    /// Reflexion: the lessons this trial was given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lessons: Vec<String>,
    /// The goal given at step 1 and its source (written when the game was reset; absent
    /// in runs recorded before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<super::Goal>,
    /// The actions were the game's walkthrough, not the LLM's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub walkthrough: bool,
    /// The walkthrough played (a game may give another one at each reset: replays use
    /// this one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub walkthrough_commands: Vec<String>,
    /// A continued run's parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<Parent>,
    /// The dimension of the run's embeddings, fixed by the first embedding answer and
    /// written when the first step that embedded anything ends (absent before, and in
    /// runs recorded before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedding_dimension: Option<usize>,
    /// The profile and its rules (absent in runs recorded before profiles: their `agent`
    /// and `memory` settings, resolved from their versions, say what they did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::profile::ProfileRecord>,
    /// A continued run's handover to another profile after its parent's step
    /// (`replay --continue-from N --profile P`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handover: Option<crate::profile::Handover>,
}

fn default_design() -> MemoryDesign {
    MemoryDesign::Arigraph
}

fn builtin_prompts() -> String {
    "built-in".into()
}

impl Manifest {
    /// The chat model recorded, or "replay".
    pub fn chat_model(&self) -> String {
        self.llm["chat"]["model"]
            .as_str()
            .unwrap_or("replay")
            .to_string()
    }

    /// The prompt directory, when not the built-in prompts.
    pub fn prompts_dir(&self) -> Option<PathBuf> {
        (self.prompts != "built-in").then(|| PathBuf::from(&self.prompts))
    }

    /// Read and check `dir/manifest.json`.
    ///
    /// # Errors
    /// A [`UserError`] for a missing or malformed file, or a format version this Ariadne
    /// cannot read (naming the version).
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            UserError::new(format!(
                "not a run directory: cannot read {}: {e}",
                path.display()
            ))
        })?;
        // A file that is not a run's manifest (no JSON object with a format version) is
        // no run directory, whatever else the folder holds.
        let not_a_run = |why: String| {
            UserError::new(format!(
                "not a run directory: {} is not a run's manifest ({why})",
                path.display()
            ))
        };
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| not_a_run(format!("not JSON: {e}")))?;
        let version = match v.get("format_version").and_then(serde_json::Value::as_u64) {
            Some(n) if n > 0 => n,
            _ => return Err(not_a_run("it has no format_version".into()).into()),
        };
        if !(u64::from(OLDEST_READABLE)..=u64::from(FORMAT_VERSION)).contains(&version) {
            return Err(UserError::new(format!(
                "{} has trajectory format version {version}; this Ariadne reads versions {OLDEST_READABLE} to {FORMAT_VERSION}",
                path.display()
            ))
            .into());
        }
        // The versions of the rules resolve here, once: a run of a newer build is
        // refused in one line, never played as the latest.
        let number =
            |x: &serde_json::Value| x.as_u64().map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        if let Some(n) = number(&v["memory"]["rules"]) {
            crate::memory::MemoryRevision::from_number(n)
                .map_err(|e| UserError::new(format!("{}: {e}", path.display())))?;
        }
        if let Some(n) = number(&v["agent"]["revision"]) {
            crate::agent::AgentRevision::from_number(n)
                .map_err(|e| UserError::new(format!("{}: {e}", path.display())))?;
        }
        let m: Manifest = serde_json::from_value(v).map_err(|e| {
            UserError::new(format!(
                "{} (format version {version}) does not have the expected fields: {e}",
                path.display()
            ))
        })?;
        Ok(m)
    }
}
