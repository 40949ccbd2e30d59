//! Writing one run directory: the manifest at the start, each step as it ends (flushed,
//! so a killed run keeps every finished step), the vectors with their step, the summary
//! at the end.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::{Manifest, Start, StepRecord, StepSink, Summary};

/// Writes one run directory.
pub struct RunWriter {
    dir: PathBuf,
    /// The manifest as last written (the goal and the embedding dimension are added as
    /// they become known).
    manifest: Manifest,
    steps: BufWriter<File>,
    vectors: BufWriter<File>,
}

impl RunWriter {
    /// Create `runs_dir/<run_id>` (a numeric suffix is added if it exists) and write the
    /// manifest. Returns the writer; [`RunWriter::dir`] tells the directory.
    ///
    /// # Errors
    /// File system errors, with the path.
    pub fn create(runs_dir: &Path, run_id: &str, manifest: &Manifest) -> Result<Self> {
        std::fs::create_dir_all(runs_dir).map_err(|e| {
            crate::error::UserError::new(format!(
                "cannot create the runs directory {}: {e} (--runs-dir must name a writable directory)",
                runs_dir.display()
            ))
        })?;
        // The directory is claimed by creating it: two runs started in the same second
        // each get their own (`create_dir` fails for the one that comes second).
        let mut dir = runs_dir.join(run_id);
        let mut n = 1;
        loop {
            match std::fs::create_dir(&dir) {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    n += 1;
                    dir = runs_dir.join(format!("{run_id}-{n}"));
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot create {}", dir.display()));
                }
            }
        }
        let open = |name: &str| -> Result<BufWriter<File>> {
            let p = dir.join(name);
            Ok(BufWriter::new(File::create(&p).with_context(|| {
                format!("cannot create {}", p.display())
            })?))
        };
        let mut w = Self {
            steps: open("steps.jsonl")?,
            vectors: open("embeddings.jsonl")?,
            dir,
            manifest: manifest.clone(),
        };
        w.write_manifest(manifest)?;
        Ok(w)
    }

    /// (Re)write `manifest.json`, setting `run_id` to the directory name.
    ///
    /// # Errors
    /// File system errors.
    pub fn write_manifest(&mut self, manifest: &Manifest) -> Result<()> {
        let mut manifest = manifest.clone();
        manifest.run_id = self
            .dir
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.manifest = manifest.clone();
        let path = self.dir.join("manifest.json");
        std::fs::write(&path, serde_json::to_string_pretty(&manifest)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Append a step and its new vectors, then flush both files.
    ///
    /// # Errors
    /// File system errors.
    pub fn write_step(&mut self, record: &StepRecord) -> Result<()> {
        if self.manifest.embedding_dimension.is_none()
            && let Some(v) = record.vectors.first()
        {
            let mut m = self.manifest.clone();
            m.embedding_dimension = Some(v.vector.len());
            self.write_manifest(&m)?;
        }
        for v in &record.vectors {
            serde_json::to_writer(&mut self.vectors, v)?;
            self.vectors.write_all(b"\n")?;
        }
        self.vectors.flush()?;
        serde_json::to_writer(&mut self.steps, record)?;
        self.steps.write_all(b"\n")?;
        self.steps.flush().context("cannot write steps.jsonl")?;
        Ok(())
    }

    /// Rewrite the `summary.json` of a finished run (Reflexion adds its lesson).
    ///
    /// # Errors
    /// File system errors.
    pub fn rewrite_summary(dir: &Path, summary: &Summary) -> Result<()> {
        let path = dir.join("summary.json");
        std::fs::write(&path, serde_json::to_string_pretty(summary)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))
    }
}

impl StepSink for RunWriter {
    /// Records the goal (and a walkthrough-driven run's walkthrough) in the manifest.
    fn started(&mut self, start: &Start<'_>) -> Result<()> {
        let mut m = self.manifest.clone();
        m.goal = Some(start.goal.clone());
        if m.walkthrough && m.walkthrough_commands.is_empty() {
            m.walkthrough_commands = start.first.walkthrough.clone().unwrap_or_default();
        }
        self.write_manifest(&m)
    }

    fn step(&mut self, record: &StepRecord) -> Result<()> {
        self.write_step(record)
    }

    fn finish(&mut self, summary: &Summary) -> Result<()> {
        Self::rewrite_summary(&self.dir, summary)
    }
}
