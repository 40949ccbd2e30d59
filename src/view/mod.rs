//! `ariadne view`: one self-contained HTML page of a run, to read a trajectory by
//! looking at it rather than through `steps.jsonl`.
//!
//! - [`timeline`]: the semantic graph at every step, rebuilt from the log's additions
//!   and removals;
//! - [`layout`]: one stable position per vertex for the whole run;
//! - [`data`]: what the page shows, built from the typed run directory;
//! - [`world_model`]: precision and recall against the ground truth, where recorded;
//! - [`page`]: the HTML file, with the vendored Cytoscape.js and the page's script
//!   (`src/view/assets/`) inline.
//!
//! The page's script honours `#step=N` in the URL, and keeps a hidden list of the edges
//! the graph shows (`#graph-edges`, one `li` per triplet with its `data-state`) so a
//! test can read the drawing from the DOM.

pub mod data;
pub mod layout;
pub mod page;
pub mod timeline;
pub mod world_model;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::error::UserError;
use crate::trajectory::{Manifest, Summary, read_steps};

/// What [`write()`] wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// The page.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: usize,
    /// Steps shown.
    pub steps: usize,
    /// Distinct triplets the run ever held.
    pub triplets: usize,
    /// Distinct semantic vertices the run ever held.
    pub vertices: usize,
    /// Whether the last line of `steps.jsonl` was cut off and skipped.
    pub truncated: bool,
}

/// A page built in memory.
#[derive(Debug, Clone)]
pub struct Page {
    /// The HTML.
    pub html: String,
    /// Steps shown.
    pub steps: usize,
    /// Distinct triplets the run ever held.
    pub triplets: usize,
    /// Distinct semantic vertices the run ever held.
    pub vertices: usize,
    /// Whether the last line of `steps.jsonl` was cut off and skipped.
    pub truncated: bool,
}

/// The page of the run in `dir`.
///
/// # Errors
/// A [`UserError`] when `dir` is not a readable run directory; serialization errors.
pub fn build_page(dir: &Path) -> Result<Page> {
    let manifest = Manifest::read(dir)?;
    let (records, truncated) = read_steps(dir).map_err(|e| {
        UserError::new(format!("cannot read the steps of {}: {e:#}", dir.display()))
    })?;
    let summary: Option<Summary> = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let scores = world_model::world_model_scores(dir);
    let data = data::build(&manifest, summary, &records, truncated, &scores);
    Ok(Page {
        html: page::render(&data)?,
        steps: data.steps.len(),
        triplets: data.triplets.len(),
        vertices: data.vertices.len(),
        truncated,
    })
}

/// Write the page of the run in `dir` to `out` (default `<dir>/view.html`).
///
/// # Errors
/// See [`build_page`]; a file that cannot be written.
pub fn write(dir: &Path, out: Option<&Path>) -> Result<Written> {
    let page = build_page(dir)?;
    let path = out.map_or_else(|| dir.join("view.html"), Path::to_path_buf);
    std::fs::write(&path, &page.html)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(Written {
        path,
        bytes: page.html.len(),
        steps: page.steps,
        triplets: page.triplets,
        vertices: page.vertices,
        truncated: page.truncated,
    })
}
