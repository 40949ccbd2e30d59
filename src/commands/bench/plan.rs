//! The episodes of a bench plan (and of one shard of it), and the results written for
//! its episodes.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::report::{Cell, EpisodeRow, aggregate, csv, markdown};
use super::{BenchPlan, charts};
use crate::env::GameSpec;
use crate::memory::Variant;

/// Write the bench's results for `rows` into `dir` (`results.md` with its charts,
/// `results.csv`, `results.json`) and print the Markdown.
///
/// # Errors
/// Files that cannot be written.
pub fn write_results(dir: &Path, plan: &BenchPlan, rows: &[EpisodeRow]) -> Result<()> {
    let games: Vec<String> = plan.games.iter().map(GameSpec::name).collect();
    let names: Vec<String> = plan.variants.iter().map(|v| v.name()).collect();
    let cells = aggregate(rows, &games, &names);
    let md = markdown(&cells, &games, &plan.variants, plan.runs);
    let drawn = charts::write(dir, rows, &games, &plan.variants).unwrap_or_else(|e| {
        eprintln!("warning: the bench charts were not drawn: {e:#}");
        Vec::new()
    });
    std::fs::write(
        dir.join("results.md"),
        md.clone() + &charts::markdown(&drawn),
    )?;
    std::fs::write(dir.join("results.csv"), csv(&cells))?;
    let by_cell: BTreeMap<String, &Cell> = cells
        .iter()
        .map(|c| (format!("{}/{}", c.game, c.memory), c))
        .collect();
    std::fs::write(
        dir.join("results.json"),
        serde_json::to_string_pretty(&json!({"cells": by_cell, "episodes": rows}))? + "\n",
    )?;
    println!("{md}");
    if !drawn.is_empty() {
        println!("{} charts in {}", drawn.len(), dir.join("charts").display());
    }
    Ok(())
}

/// Every episode of a plan, in order (game, then row, then attempt), and with a shard
/// only its slice: the episodes whose index i has i mod N = K - 1.
pub fn episodes(plan: &BenchPlan) -> Vec<(GameSpec, Variant, u32)> {
    let mut all = Vec::new();
    for g in &plan.games {
        for v in &plan.variants {
            for run in 1..=plan.runs {
                all.push((g.clone(), *v, run));
            }
        }
    }
    match plan.shard {
        Some(Shard { k, n }) => all
            .into_iter()
            .enumerate()
            .filter(|(i, _)| *i as u32 % n == k - 1)
            .map(|(_, e)| e)
            .collect(),
        None => all,
    }
}

/// One of N disjoint slices of a bench's episodes (`--shard K/N`, 1 <= K <= N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This slice, 1-based.
    pub k: u32,
    /// Slices in all.
    pub n: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?} is not K/N (for example 2/4)"))?;
        let (k, n): (u32, u32) = (
            k.trim()
                .parse()
                .map_err(|_| format!("{k:?} is not a number"))?,
            n.trim()
                .parse()
                .map_err(|_| format!("{n:?} is not a number"))?,
        );
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard {k}/{n}: K must be between 1 and N"));
        }
        Ok(Shard { k, n })
    }
}
