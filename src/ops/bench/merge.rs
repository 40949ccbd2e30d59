//! `ariadne bench merge DIR... --out DIR`: join the outputs of sharded benches (`bench
//! --shard K/N` on several machines) into the tables of one bench. The shards must have
//! been planned alike (games, designs, runs, step cap, seed, memory and agent settings,
//! prompts, goal); an episode played by two shards is refused; episodes no shard played
//! are reported.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::{BenchPlan, episodes, write_results};
use crate::error::UserError;
use crate::trajectory::bench::{EpisodeRow, read_episodes};

fn read_plan(dir: &Path) -> Result<BenchPlan> {
    let path = dir.join("bench.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        UserError::new(format!(
            "not a bench directory: cannot read {}: {e}",
            path.display()
        ))
    })?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| UserError::new(format!("{} is malformed: {e}", path.display())))?;
    serde_json::from_value(v["plan"].clone())
        .map_err(|e| UserError::new(format!("{} has no readable plan: {e}", path.display())).into())
}

/// The plan without its shard, as JSON, to compare shards.
fn unsharded(plan: &BenchPlan) -> Result<serde_json::Value> {
    let mut p = plan.clone();
    p.shard = None;
    Ok(serde_json::to_value(p)?)
}

/// Merge shard directories into `out`; returns the episodes that no shard played.
///
/// # Errors
/// A directory that is no bench, shards of different plans (one line naming the first
/// one that differs), an episode in two shards, an `out` that already holds a bench.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<(Vec<String>, super::plan::Written)> {
    let mut plans = Vec::new();
    for d in dirs {
        plans.push((d, read_plan(d)?));
    }
    let Some((first_dir, first)) = plans.first() else {
        bail!(UserError::new("give the shard directories to merge"));
    };
    let reference = unsharded(first)?;
    for (d, p) in &plans[1..] {
        if unsharded(p)? != reference {
            bail!(UserError::new(format!(
                "{} was planned with other settings than {} (games, designs, runs, step cap, seed, memory, agent, prompts or goal differ); only shards of one bench can be merged",
                d.display(),
                first_dir.display()
            )));
        }
    }
    if out.join("bench.json").exists() {
        bail!(UserError::new(format!(
            "{} already holds a bench; choose another --out",
            out.display()
        )));
    }
    let mut rows: Vec<EpisodeRow> = Vec::new();
    let mut owner: HashMap<(String, String, u32), &PathBuf> = HashMap::new();
    for (d, _) in &plans {
        for mut r in read_episodes(d) {
            let key = (r.game.clone(), r.memory.clone(), r.run);
            if let Some(other) = owner.insert(key, d) {
                bail!(UserError::new(format!(
                    "{} / {} / run {} was played by both {} and {}; merge shards of one bench (--shard K/N with the same N)",
                    r.game,
                    r.memory,
                    r.run,
                    other.display(),
                    d.display()
                )));
            }
            // Run directories stay in their shard: point at them from the merged bench.
            r.dir = d.join(&r.dir);
            rows.push(r);
        }
    }
    let mut plan = first.clone();
    plan.shard = None;
    let missing: Vec<String> = episodes(&plan)
        .into_iter()
        .filter(|(g, v, run)| !owner.contains_key(&(g.name(), v.name(), *run)))
        .map(|(g, v, run)| format!("{} / {} / run {run}", g.name(), v.name()))
        .collect();
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let shards: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    std::fs::write(
        out.join("bench.json"),
        serde_json::to_string_pretty(&json!({
            "format_version": crate::trajectory::FORMAT_VERSION,
            "ariadne_version": env!("CARGO_PKG_VERSION"),
            "created_at": chrono::Local::now().to_rfc3339(),
            "plan": plan,
            "merged_from": shards,
        }))? + "\n",
    )?;
    let mut lines = String::new();
    for r in &rows {
        lines.push_str(&serde_json::to_string(r)?);
        lines.push('\n');
    }
    std::fs::write(out.join("episodes.jsonl"), lines)?;
    let written = write_results(out, &plan, &rows)?;
    Ok((missing, written))
}
