//! `ariadne bench compare BEFORE AFTER`: two benches side by side, for the question a
//! change to the agent raises: at what score, and at what cost per step. Per game and
//! memory design present in both: the normalized scores (mean and sample standard
//! deviation over the attempts, each attempt listed, and the paper's best 3 of N), then
//! the median and mean time per step with the ratio after / before, tokens per step,
//! the share of prompt tokens served from the server's cache, chat calls per decided
//! step, and the least a step could take for its tokens.
//!
//! Benches written before a row recorded its token and time sums are read from their
//! run directories (`steps.jsonl`), with the same sums as a live bench
//! ([`crate::trajectory::Summary::add_step`]). A bench whose server reported no timings has its lower
//! bound computed at the other bench's speeds for the same game and design, and marked
//! so.

use std::path::Path;

use anyhow::Result;

use crate::error::UserError;
use crate::ops::bench::tables::{WM_HEADER, judges_text, show, wm_figures};

mod figures;
mod side;
pub mod tales;
use figures::{Figures, borrowed_bound, figures, score_text};
pub use side::{Settings, Side, backfill, bound_at};
use side::{list, push_new};

/// The comparison as Markdown: the settings of each bench, the scores, the cost per
/// step. Pairs present in only one bench are named at the end.
///
/// # Errors
/// See [`read_side`]; a [`UserError`] when no game and design has a finished attempt
/// in both benches.
pub fn compare(before: &Path, after: &Path) -> Result<String> {
    let b = read_side(before)?;
    let a = read_side(after)?;
    markdown(&b, &a)
}

/// Read one side: the bench in `dir`, or a TALES agent's log directory (`tales_<uid>`,
/// [`tales`]).
///
/// # Errors
/// A [`UserError`] when `dir` is not a directory; see [`Side::read`] and
/// [`tales::side`].
pub fn read_side(dir: &Path) -> Result<Side> {
    if !dir.is_dir() {
        return Err(UserError::new(format!(
            "not a bench directory: {} is {} (give the --out of an `ariadne bench`, or a TALES log directory logs/tales_<agent>)",
            dir.display(),
            if dir.exists() {
                "not a directory"
            } else {
                "not there"
            }
        ))
        .into());
    }
    if tales::is_tales_log(dir) {
        return tales::side(dir);
    }
    Side::read(dir)
}

/// Two benches of one design each, of different names (a TALES agent beside
/// Ariadne, `arigraph` beside `rag`), compared as one row named `before / after`; other
/// benches as they are.
fn paired_alone(b: &Side, a: &Side) -> (Side, Side) {
    let (mut b, mut a) = (b.clone(), a.clone());
    let (bd, ad) = (b.keys().1, a.keys().1);
    if let ([x], [y]) = (bd.as_slice(), ad.as_slice())
        && x != y
    {
        let name = format!("{x} / {y}");
        for r in b.rows.iter_mut().chain(a.rows.iter_mut()) {
            r.memory = name.clone();
        }
    }
    (b, a)
}

/// See [`compare`]. Designs are matched by name, except that two benches of one design
/// each are compared on it ([`paired_alone`]).
///
/// # Errors
/// A [`UserError`] when no game and design has a finished attempt in both benches.
pub fn markdown(b: &Side, a: &Side) -> Result<String> {
    let (b, a) = &paired_alone(b, a);
    let (pairs, alone) = pairs(b, a);
    if !pairs
        .iter()
        .any(|(_, _, fb, fa)| fb.cell.episodes > 0 && fa.cell.episodes > 0)
    {
        return Err(UserError::new(format!(
            "nothing to compare: no game and memory design has a finished attempt in both {} and {}",
            b.dir.display(),
            a.dir.display()
        ))
        .into());
    }
    let mut md = settings_table(b, a);
    md.push_str(&scores_table(&pairs));
    md.push_str(&world_model_table(&pairs));
    md.push_str(&cost_table(&pairs));
    if !alone.is_empty() {
        md.push_str(&format!(
            "\nIn one bench only (not compared): {}.\n",
            alone.join(", ")
        ));
    }
    for n in b.notes.iter().chain(&a.notes) {
        md.push_str(&format!("\nNote: {n}.\n"));
    }
    Ok(md)
}

/// A game and memory design both benches played: its figures before and after.
type Pair = (String, String, Figures, Figures);

/// The settings of both benches, side by side.
fn settings_table(b: &Side, a: &Side) -> String {
    let mut md = String::from("# Before and after\n\n| | before | after |\n|---|---|---|\n");
    let (bs, as_) = (&b.settings, &a.settings);
    let settings = [
        (
            "bench",
            b.dir.display().to_string(),
            a.dir.display().to_string(),
        ),
        ("Ariadne", list(&bs.ariadne), list(&as_.ariadne)),
        ("agent revision", list(&bs.revisions), list(&as_.revisions)),
        ("profile", list(&bs.profiles), list(&as_.profiles)),
        ("chat model", list(&bs.models), list(&as_.models)),
        ("embedded server", list(&bs.servers), list(&as_.servers)),
        (
            "temperature",
            list(&bs.temperatures),
            list(&as_.temperatures),
        ),
        ("played by", list(&bs.harnesses), list(&as_.harnesses)),
        ("step cap", list(&bs.max_steps), list(&as_.max_steps)),
        ("episodes at once (--jobs)", list(&bs.jobs), list(&as_.jobs)),
        (
            "attempts per game and design (most)",
            b.attempts().to_string(),
            a.attempts().to_string(),
        ),
    ];
    for (name, x, y) in settings {
        md.push_str(&format!("| {name} | {x} | {y} |\n"));
    }
    md
}

/// The games and designs both benches played, each side's lower bound borrowed from
/// the other's speeds where its server reported none; and those only one played.
fn pairs(b: &Side, a: &Side) -> (Vec<Pair>, Vec<String>) {
    let (ag, ad) = a.keys();
    let (bg, bd) = b.keys();
    let mut games = ag.clone();
    for g in &bg {
        push_new(&mut games, g.clone());
    }
    let mut designs = ad.clone();
    for d in &bd {
        push_new(&mut designs, d.clone());
    }
    let mut pairs = Vec::new();
    let mut alone = Vec::new();
    for g in &games {
        for d in &designs {
            match (figures(b, g, d), figures(a, g, d)) {
                (Some(mut fb), Some(mut fa)) => {
                    let speed = |f: &Figures| f.cell.speed.clone();
                    if fb.bound.is_none()
                        && let Some(s) = speed(&fa)
                    {
                        fb.bound = borrowed_bound(b, g, d, &s);
                    }
                    if fa.bound.is_none()
                        && let Some(s) = speed(&fb)
                    {
                        fa.bound = borrowed_bound(a, g, d, &s);
                    }
                    pairs.push((g.clone(), d.clone(), fb, fa));
                }
                (Some(_), None) => alone.push(format!("{g} / {d} (before only)")),
                (None, Some(_)) => alone.push(format!("{g} / {d} (after only)")),
                (None, None) => {}
            }
        }
    }
    (pairs, alone)
}

/// The normalized scores before and after, with the change in mean.
fn scores_table(pairs: &[Pair]) -> String {
    let mut md = String::new();
    md.push_str("\nNormalized score (score / max score): the mean and sample standard deviation over the finished attempts, each attempt's score, the paper's mean of the best 3 when there are more than 3, and failed attempts (left out of the scores).\n\n| game | memory | before | after | change in mean |\n|---|---|---|---|---|\n");
    for (g, d, fb, fa) in pairs {
        let change = if fb.scores.is_empty() || fa.scores.is_empty() {
            "-".to_string()
        } else {
            format!("{:+.2}", fa.cell.mean - fb.cell.mean)
        };
        md.push_str(&format!(
            "| {g} | {d} | {} | {} | {change} |\n",
            score_text(fb),
            score_text(fa),
        ));
    }
    md
}

/// The world model against the game's ground truth, where either bench measured it.
fn world_model_table(pairs: &[Pair]) -> String {
    let mut md = String::new();
    if pairs
        .iter()
        .any(|(_, _, fb, fa)| fb.cell.wm_precision.is_some() || fa.cell.wm_precision.is_some())
    {
        let judges = pairs
            .iter()
            .flat_map(|(_, _, fb, fa)| fb.cell.wm_judges.iter().chain(&fa.cell.wm_judges))
            .copied();
        md.push_str(&format!(
            "\nWorld model against the game's ground truth ({}; means over episodes; wrong deletions: true facts removed per episode).\n\n| game | memory | bench | {} |\n|---|---|---|{}\n",
            judges_text(judges),
            WM_HEADER.join(" | "),
            "---|".repeat(WM_HEADER.len())
        ));
        for (g, d, fb, fa) in pairs {
            for (name, f) in [("before", fb), ("after", fa)] {
                md.push_str(&format!(
                    "| {g} | {d} | {name} | {} |\n",
                    wm_figures(&f.cell).join(" | ")
                ));
            }
        }
    }
    md
}

/// The cost per step, with the token bound and the footnotes on borrowed speeds.
fn cost_table(pairs: &[Pair]) -> String {
    let mut md = String::new();
    let (mut borrowed, mut beyond) = (false, false);
    md.push_str("\nCost per step. The lower bound is the least a step could take for its tokens: uncached prompt tokens / prompt speed + completion tokens / generation speed, at the speeds the bench's server reported; actual / bound is the mean step over it.\n\n| game | memory | bench | median s/step | after / before | mean s/step | prompt / completion tok/step | cached | calls per decision | lower bound s/step | actual / bound |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (g, d, fb, fa) in pairs {
        for (name, f) in [("before", fb), ("after", fa)] {
            let sp = f.cell.speed.as_ref();
            let ratio = match (name, sp, fb.cell.speed.as_ref()) {
                ("after", Some(x), Some(y)) if y.median_step_s > 0.0 => {
                    format!("{:.2}x", x.median_step_s / y.median_step_s)
                }
                _ => String::new(),
            };
            let actual = f
                .bound
                .zip(sp)
                .filter(|((v, _), _)| *v > 0.0)
                .map(|((v, _), s)| s.mean_step_s / v);
            let bound = f.bound.map(|(v, lent)| {
                borrowed |= lent;
                // A bound above the time taken: the lent speeds do not hold here.
                let over = lent && actual.is_some_and(|x| x < 1.0);
                beyond |= over;
                format!(
                    "{v:.1}{}",
                    if over {
                        "*!"
                    } else if lent {
                        "*"
                    } else {
                        ""
                    }
                )
            });
            let dash = || "-".to_string();
            md.push_str(&format!(
                "| {g} | {d} | {name} | {} | {ratio} | {} | {} / {} | {} | {} | {} | {} |\n",
                sp.map_or_else(dash, |s| format!("{:.1}", s.median_step_s)),
                sp.map_or_else(dash, |s| format!("{:.1}", s.mean_step_s)),
                show(f.cell.prompt_tokens_per_step, 0),
                show(f.cell.completion_tokens_per_step, 0),
                sp.map_or_else(dash, |s| format!("{:.0}%", s.cached_share * 100.0)),
                sp.map_or_else(dash, |s| format!("{:.2}", s.calls_per_decision)),
                bound.unwrap_or_else(dash),
                actual.map_or_else(dash, |x| format!("{x:.2}")),
            ));
        }
    }
    if borrowed {
        md.push_str("\n\\* at the other bench's speeds for the same game and design: this bench's server reported no timings.\n");
    }
    if beyond {
        md.push_str("\n\\*! above the time the steps took: the other bench's speeds do not hold for this one (another machine, more episodes at once, other threads); read that bound as unknown.\n");
    }
    md
}

#[cfg(test)]
mod tests;
