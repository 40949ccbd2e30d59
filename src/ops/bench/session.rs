//! The bench directory across sessions: opened new or for `--resume` (its plan read
//! back), each session's endpoints recorded in `bench.json`, and the run directories of
//! episodes about to be played again cleared.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::{BenchOptions, BenchPlan};
use crate::env::GameSpec;
use crate::error::UserError;
use crate::rows::Variant;

/// The bench directory and its plan: `--resume DIR`'s (read from its `bench.json`) or a
/// new one (`--out`, else `runs/bench-DATE-TIME`), checked: the games load, every row
/// can play every game ([`super::plan::check_rows`]), the prompts load, a new bench does not overwrite one, the directory is one.
///
/// # Errors
/// A directory that is no bench, a malformed `bench.json`, an existing bench, a file
/// in the way, an unloadable game or prompt.
pub(super) fn open(opts: &BenchOptions) -> Result<(PathBuf, BenchPlan)> {
    let (dir, plan) = match &opts.resume {
        Some(d) => {
            let text = std::fs::read_to_string(d.join("bench.json")).map_err(|e| {
                UserError::new(format!(
                    "not a bench directory: cannot read {}: {e}",
                    d.join("bench.json").display()
                ))
            })?;
            let v: serde_json::Value =
                serde_json::from_str(&text).context("bench.json is malformed")?;
            let plan: BenchPlan =
                serde_json::from_value(v["plan"].clone()).context("bench.json has no plan")?;
            (d.clone(), plan)
        }
        None => {
            let dir = opts.out.clone().unwrap_or_else(|| {
                PathBuf::from("runs").join(format!(
                    "bench-{}",
                    chrono::Local::now().format("%Y%m%d-%H%M%S")
                ))
            });
            (dir, opts.plan.clone())
        }
    };
    for g in &plan.games {
        g.check()?;
    }
    super::plan::check_rows(&plan)?;
    if let Some(shard) = plan.shard
        && super::episodes(&plan).is_empty()
    {
        let all = plan.games.len() * plan.variants.len() * plan.runs as usize;
        bail!(UserError::new(format!(
            "--shard {}/{}: this shard holds no episode (the plan has {all}); give at most {all} shards",
            shard.k, shard.n
        )));
    }
    crate::llm::prompts::Prompts::load_noting(plan.prompts.as_deref())?;
    if opts.resume.is_none() && dir.join("bench.json").exists() {
        bail!(UserError::new(format!(
            "{} already holds a bench; resume it with `ariadne bench --resume {}` or choose another --out",
            dir.display(),
            dir.display()
        )));
    }
    if dir.exists() && !dir.is_dir() {
        bail!(UserError::new(format!(
            "--out {} is a file, not a directory",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir.join("runs"))
        .with_context(|| format!("cannot create {}", dir.display()))?;
    Ok((dir, plan))
}

/// Write `bench.json` for a new bench, or add this session (its time, jobs and
/// endpoints) to a resumed one's `resumes`.
///
/// # Errors
/// An unreadable or unwritable `bench.json`.
pub(super) fn record(
    dir: &Path,
    plan: &BenchPlan,
    opts: &BenchOptions,
    described: &serde_json::Value,
) -> Result<()> {
    let bench_json = json!({
        "format_version": crate::trajectory::FORMAT_VERSION,
        "ariadne_version": env!("CARGO_PKG_VERSION"),
        "created_at": chrono::Local::now().to_rfc3339(),
        "plan": plan,
        "jobs": opts.jobs,
        "llm": described,
    });
    if opts.resume.is_none() || !dir.join("bench.json").exists() {
        std::fs::write(
            dir.join("bench.json"),
            serde_json::to_string_pretty(&bench_json)? + "\n",
        )?;
    } else {
        // A resume may play against other endpoints: each session is recorded (and each
        // episode row names its own).
        let path = dir.join("bench.json");
        let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)
            .context("bench.json is malformed")?;
        if !v["resumes"].is_array() {
            v["resumes"] = json!([]);
        }
        if let Some(list) = v["resumes"].as_array_mut() {
            list.push(json!({
                "at": chrono::Local::now().to_rfc3339(),
                "jobs": opts.jobs,
                "llm": described,
            }));
        }
        std::fs::write(&path, serde_json::to_string_pretty(&v)? + "\n")?;
    }
    Ok(())
}

/// Remove the run directories of the episodes about to be played (a restarted episode
/// starts from a clean directory).
pub(super) fn clear_restarted(dir: &Path, jobs: &[(GameSpec, Variant, u32)]) {
    for (g, v, run) in jobs {
        let prefix = format!("{}--{}--run{run}", g.name(), v.name());
        if let Ok(entries) = std::fs::read_dir(dir.join("runs")) {
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name == prefix || name.starts_with(&format!("{prefix}-")) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
}
