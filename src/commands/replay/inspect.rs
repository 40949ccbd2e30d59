//! What a replay prints and writes after the steps were checked: the timing line,
//! the what-if comparison, graph statistics per step (paper Figure 5), the memory at a
//! step, and the graph export (DOT or JSON).

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::episode::EpisodeResult;
use crate::error::UserError;
use crate::memory::{AriGraph, MemorySettings, Retrieval, export};
use crate::ops::replay::{LoggedRun, ReplayOptions};
use crate::trajectory::{self, StepRecord};

/// Per-step graph statistics (paper Figure 5): step, semantic vertices, semantic edges,
/// episodic vertices, triplets added, triplets removed.
pub fn stats_rows(steps: &[StepRecord]) -> Vec<[u64; 6]> {
    steps
        .iter()
        .map(|s| {
            [
                u64::from(s.step),
                s.graph.semantic_vertices as u64,
                s.graph.semantic_edges as u64,
                s.graph.episodic_vertices as u64,
                s.memory.added.len() as u64,
                s.memory.removed.len() as u64,
            ]
        })
        .collect()
}

const STATS_HEADER: [&str; 6] = [
    "step",
    "semantic_vertices",
    "semantic_edges",
    "episodic_vertices",
    "added",
    "removed",
];

fn diff_retrieval(
    original: &Retrieval,
    alt: &Retrieval,
) -> (Vec<String>, Vec<String>, Vec<u32>, Vec<u32>) {
    let a: HashSet<&str> = original
        .triplets
        .iter()
        .map(|t| t.triplet.as_str())
        .collect();
    let b: HashSet<&str> = alt.triplets.iter().map(|t| t.triplet.as_str()).collect();
    let mut only_a: Vec<String> = a.difference(&b).map(|s| s.to_string()).collect();
    let mut only_b: Vec<String> = b.difference(&a).map(|s| s.to_string()).collect();
    only_a.sort();
    only_b.sort();
    let ea: Vec<u32> = original.episodes.iter().map(|e| e.step).collect();
    let eb: Vec<u32> = alt.episodes.iter().map(|e| e.step).collect();
    (only_a, only_b, ea, eb)
}

const ACCURACY_HEADER: [&str; 14] = [
    "step",
    "precision",
    "recall",
    "stated_recall",
    "verifiable",
    "unverifiable",
    "true",
    "observed_facts",
    "held_facts",
    "stated_facts",
    "held_stated",
    "wrong_deletions",
    "stale",
    "recoverable",
];

/// The world model's accuracy per step (recomputed during the replay against the
/// game's true state by the current judge, [`crate::judge::JUDGE`]), printed
/// as a table with a summary; with `csv`, also written.
fn accuracy_report(
    replayed: &[StepRecord],
    done: &EpisodeResult,
    csv: Option<&Path>,
) -> Result<()> {
    let rows: Vec<[String; 14]> = replayed
        .iter()
        .filter_map(|r| {
            r.world_model.as_ref().map(|a| {
                [
                    r.step.to_string(),
                    format!("{:.3}", a.precision),
                    format!("{:.3}", a.recall),
                    a.stated_recall
                        .map_or_else(String::new, |x| format!("{x:.3}")),
                    a.verifiable.to_string(),
                    a.unverifiable.to_string(),
                    a.true_triplets.to_string(),
                    a.observed_facts.to_string(),
                    a.held_facts.to_string(),
                    a.stated_facts.to_string(),
                    a.held_stated.to_string(),
                    a.wrong_deletions.to_string(),
                    a.stale.to_string(),
                    a.recoverable.to_string(),
                ]
            })
        })
        .collect();
    if rows.is_empty() {
        println!(
            "
world-model accuracy: no ground truth (the game exposes no state facts, or the {} memory has no graph)",
            done.agent.memory.design().name()
        );
        return Ok(());
    }
    println!(
        "
world-model accuracy against the game's true state (judge {}; recall: of the facts about things named so far; stated_recall: of the facts the texts stated)",
        crate::judge::JUDGE
    );
    println!("{}", ACCURACY_HEADER.join(" | "));
    for r in &rows {
        println!("{}", r.join(" | "));
    }
    if let Some(s) = &done.summary.world_model {
        println!(
            "summary (judge {}): {}, mean precision {}, mean recall {:.3}, mean stated recall {}, final precision {:.3}, final recall {:.3}, final stated recall {}, wrong deletions {} (recoverable {}), stale at the end {}",
            s.judge,
            crate::text::count(s.steps, "step"),
            s.precision()
                .map_or_else(|| "- (nothing verifiable)".into(), |x| format!("{x:.3}")),
            s.mean_recall,
            s.mean_stated_recall
                .map_or_else(|| "-".into(), |x| format!("{x:.3}")),
            s.final_precision,
            s.final_recall,
            s.final_stated_recall
                .map_or_else(|| "-".into(), |x| format!("{x:.3}")),
            s.wrong_deletions,
            s.recoverable,
            s.final_stale
        );
    }
    if let Some(path) = csv {
        let mut text = ACCURACY_HEADER.join(",") + "\n";
        for r in &rows {
            text.push_str(&(r.join(",") + "\n"));
        }
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
        println!("world-model accuracy written to {}", path.display());
    }
    Ok(())
}

/// What a replay did: the run it read, the steps it replayed (checked up to
/// `served_steps`), its time, the episode's end, where a continued run was written, and
/// the what-if settings.
pub(super) struct Outcome<'a> {
    /// The run read.
    pub run: &'a LoggedRun,
    /// The steps replayed (and played live after a hand-over).
    pub replayed: &'a [StepRecord],
    /// The steps served from the log.
    pub served_steps: usize,
    /// Seconds the replay took.
    pub elapsed: f64,
    /// The episode's end: its agent and summary.
    pub done: &'a EpisodeResult,
    /// The continued run's directory (a plain replay's scratch directory).
    pub dir: &'a Path,
    /// The what-if retrieval's settings.
    pub what_if: Option<&'a MemorySettings>,
}

/// Print and write what the user asked of a replay.
///
/// # Errors
/// An export or CSV file that cannot be written; an export of a memory without a graph.
pub(super) fn report(opts: &ReplayOptions, out: &Outcome<'_>) -> Result<()> {
    println!("{}", timing_line(opts, out));
    if let Some(alt) = out.what_if {
        what_if_table(out.replayed, alt, &out.run.manifest.memory);
    }
    if opts.accuracy {
        accuracy_report(out.replayed, out.done, opts.csv.as_deref())?;
    } else if opts.stats || opts.csv.is_some() {
        graph_statistics(opts, out.replayed)?;
    }
    let at = opts.step.unwrap_or(out.done.summary.steps);
    if opts.step.is_some() {
        memory_at(at, out.done);
    }
    if let Some(fmt) = &opts.export {
        export_graph(opts, out, fmt, at)?;
    }
    Ok(())
}

/// The first line: every step matched (with the time against the original's), or the
/// hand-over to the live LLM.
fn timing_line(opts: &ReplayOptions, out: &Outcome<'_>) -> String {
    let (run, elapsed) = (out.run, out.elapsed);
    let checked = out.replayed.len().min(out.served_steps);
    if opts.continue_from.is_some() {
        return format!(
            "replayed steps 1..{checked} from the log, then played live to step {}; new run: {}",
            out.done.summary.steps,
            out.dir.display()
        );
    }
    let seconds = |s: &StepRecord| s.timings.total_ms as f64 / 1000.0;
    let original_s = run
        .summary
        .as_ref()
        .map(|s| s.wall_s)
        .unwrap_or_else(|| run.steps.iter().map(seconds).sum());
    let original_part: f64 = run.steps.iter().take(checked).map(seconds).sum();
    format!(
        "replayed {} of {}: every step matches the log ({elapsed:.1}s; the original took {:.1}s for these steps, {:.1}s in all; ratio {:.3})",
        crate::text::count(checked as u64, "step"),
        opts.run.display(),
        original_part,
        original_s,
        if original_part > 0.0 {
            elapsed / original_part
        } else {
            0.0
        }
    )
}

/// The what-if retrieval beside the recorded one, step by step.
fn what_if_table(replayed: &[StepRecord], alt: &MemorySettings, memory: &MemorySettings) {
    println!(
        "\nwhat-if retrieval: d={} w={} k={} (recorded: d={} w={} k={})",
        alt.depth, alt.width, alt.episodes, memory.depth, memory.width, memory.episodes
    );
    println!(
        "step | triplets recorded -> what-if | only recorded | only what-if | episodes recorded -> what-if"
    );
    let listed = |v: Vec<String>| {
        if v.is_empty() {
            "-".to_string()
        } else {
            v.join("; ")
        }
    };
    for r in replayed {
        if let Some(w) = &r.what_if {
            let (only_a, only_b, ea, eb) = diff_retrieval(&r.retrieval, w);
            println!(
                "{:>4} | {:>3} -> {:<3} | {} | {} | {:?} -> {:?}",
                r.step,
                r.retrieval.triplets.len(),
                w.triplets.len(),
                listed(only_a),
                listed(only_b),
                ea,
                eb
            );
        }
    }
}

/// Graph statistics per step (paper Figure 5), printed and/or written as CSV.
fn graph_statistics(opts: &ReplayOptions, replayed: &[StepRecord]) -> Result<()> {
    let rows = stats_rows(replayed);
    let joined =
        |r: &[u64; 6], sep: &str| r.iter().map(u64::to_string).collect::<Vec<_>>().join(sep);
    if opts.stats {
        println!("\n{}", STATS_HEADER.join(" | "));
        for r in &rows {
            println!("{}", joined(r, " | "));
        }
    }
    if let Some(path) = &opts.csv {
        let mut text = STATS_HEADER.join(",") + "\n";
        for r in &rows {
            text.push_str(&(joined(r, ",") + "\n"));
        }
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
        println!("graph statistics written to {}", path.display());
    }
    Ok(())
}

/// The memory as it stood after step `at`: the graph, the plan, the unexplored exits.
fn memory_at(at: u32, done: &EpisodeResult) {
    let design = done.agent.memory.design();
    let empty = AriGraph::new();
    let graph = done.agent.memory.graph();
    println!("\nmemory after step {at} ({}):", design.name());
    if graph.is_none() {
        println!(
            "(the {} memory has no graph; its retrieval is in each step's `retrieval`)",
            design.name()
        );
    }
    let g = graph.unwrap_or(&empty);
    print_semantic(g);
    print_episodic(g);
    println!("plan:");
    for (i, p) in done.agent.plan.iter().enumerate() {
        println!("  {}. {} ({})", i + 1, p.sub_goal, p.reason);
    }
    let exits = done
        .agent
        .spatial_map()
        .unexplored(done.agent.explorer.explored());
    println!(
        "unexplored exits: {}",
        exits
            .iter()
            .map(|u| format!("{} {}", u.room, u.direction.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// The alive triplets, then the closed facts with what superseded them.
fn print_semantic(g: &AriGraph) {
    println!("semantic triplets ({}):", g.edge_count());
    for id in g.alive_ids() {
        println!("  {}", g.triplet(id));
    }
    let closed = g.history().closed();
    if closed.is_empty() {
        return;
    }
    println!(
        "closed facts ({}; current in steps [since, until)):",
        closed.len()
    );
    for c in closed {
        let by: Vec<String> = c
            .superseded_by
            .iter()
            .map(|id| g.triplet(*id).to_string())
            .collect();
        println!(
            "  {} [{}, {}) superseded by: {}",
            g.triplet(c.id),
            c.since,
            c.until,
            if by.is_empty() {
                "-".to_string()
            } else {
                by.join("; ")
            }
        );
    }
}

/// The episodic vertices with their triplets and theses, then the thesis vertices.
fn print_episodic(g: &AriGraph) {
    println!("episodic vertices ({}):", g.episodes().len());
    for e in g.episodes() {
        let obs: String = e
            .observation
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(120)
            .collect();
        println!("  step {}: {obs}", e.step);
        for id in &e.triplets {
            let mark = if g.is_alive(*id) { "" } else { " (removed)" };
            println!("      {}{mark}", g.triplet(*id));
        }
        for id in &e.theses {
            if let Some(t) = g.thesis(*id) {
                println!("      thesis: {}", t.text);
            }
        }
    }
    if g.thesis_count() == 0 {
        return;
    }
    println!("thesis vertices ({}):", g.thesis_count());
    for t in g.theses() {
        let retired = t
            .retired
            .map(|s| format!(" (retired at step {s})"))
            .unwrap_or_default();
        println!(
            "  step {}: {} [{}]{retired}",
            t.step,
            t.text,
            t.vertices.join(", ")
        );
    }
}

/// Write the graph at step `at` as DOT or JSON (`--export`).
///
/// # Errors
/// A memory without a graph, an unknown format, a file that cannot be written.
fn export_graph(opts: &ReplayOptions, out: &Outcome<'_>, fmt: &str, at: u32) -> Result<()> {
    let done = out.done;
    let design = done.agent.memory.design();
    let Some(g) = done.agent.memory.graph() else {
        bail!(UserError::new(format!(
            "the {} memory has no graph to export",
            design.name()
        )));
    };
    let (text, ext) = match fmt {
        "dot" => (export::to_dot(g), "dot"),
        "json" => {
            let mut v = export::to_json(g);
            v["format_version"] = json!(trajectory::FORMAT_VERSION);
            v["run_id"] = json!(out.run.manifest.run_id);
            v["step"] = json!(at);
            v["plan"] = json!(done.agent.plan);
            v["unexplored_exits"] = json!(
                done.agent
                    .spatial_map()
                    .unexplored(done.agent.explorer.explored())
            );
            (serde_json::to_string_pretty(&v)? + "\n", "json")
        }
        other => bail!(UserError::new(format!(
            "unknown export format {other:?}; use dot or json"
        ))),
    };
    let path = opts
        .out
        .clone()
        .unwrap_or_else(|| opts.run.join(format!("graph-step-{at}.{ext}")));
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    println!("graph at step {at} written to {}", path.display());
    Ok(())
}
