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
//! ([`Summary::add_step`]). A bench whose server reported no timings has its lower
//! bound computed at the other bench's speeds for the same game and design, and marked
//! so.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::report::{
    EpisodeRow, WM_HEADER, judges_text, lower_bound, read_episodes_checked, show, wm_figures,
};
use crate::error::UserError;
use crate::llm::Usage;
use crate::trajectory::{Manifest, Outcome, Summary, read_steps};

mod figures;
pub mod tales;
use figures::{Figures, borrowed_bound, figures, score_text};

/// One bench of a comparison: its episodes (sums filled in from the run directories
/// where the rows lack them) and what played them.
#[derive(Debug, Clone)]
pub struct Side {
    /// The bench directory.
    pub dir: PathBuf,
    /// Its episodes, one per (game, design, attempt), failed ones included.
    pub rows: Vec<EpisodeRow>,
    /// Distinct settings of its episodes, read from their manifests and `bench.json`.
    pub settings: Settings,
    /// What the reader noticed: a cut last line, attempts without time figures.
    pub notes: Vec<String>,
}

/// What played a bench's episodes: each entry holds the distinct values over its
/// episodes, in order of first appearance (a resumed bench may have mixed some).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Ariadne versions.
    pub ariadne: Vec<String>,
    /// Agent revisions (`agent.revision` of the manifests; 1 for runs recorded before
    /// revisions were numbered).
    pub revisions: Vec<u32>,
    /// Profiles (`profile.profile` of the manifests; "before profiles" for runs
    /// recorded before they existed).
    pub profiles: Vec<String>,
    /// Chat models.
    pub models: Vec<String>,
    /// The embedded server's CPU threads and context ("2 threads, ctx 16384"), or
    /// "remote".
    pub servers: Vec<String>,
    /// Sampling temperatures.
    pub temperatures: Vec<String>,
    /// Step caps.
    pub max_steps: Vec<u32>,
    /// Episodes played at once (`--jobs` of the bench and of each resume).
    pub jobs: Vec<u64>,
    /// What ran the games: "Ariadne" (its own bridges, or a harness through `ariadne
    /// agent`) or "TALES" (a TALES log directory, scored by TALES).
    pub harnesses: Vec<String>,
}

fn push_new<T: PartialEq>(v: &mut Vec<T>, x: T) {
    if !v.contains(&x) {
        v.push(x);
    }
}

fn list<T: ToString>(v: &[T]) -> String {
    if v.is_empty() {
        return "?".into();
    }
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Fill in a row's token and time sums from its run directory when the row predates
/// them (no `usage` or no `step_ms`). Only when the directory's `steps.jsonl` holds
/// every step the row counts (not for a failed episode, a cut log, or a Reflexion row
/// whose directory is its last trial's): the chat calls are the row's own. Returns
/// whether the row has the sums.
pub fn backfill(row: &mut EpisodeRow, bench: &Path) -> bool {
    if row.usage.is_some() && !row.step_ms.is_empty() {
        return true;
    }
    if row.outcome == Outcome::Failed {
        return false;
    }
    let Ok((steps, _)) = read_steps(&bench.join(&row.dir)) else {
        return false;
    };
    if steps.is_empty() || steps.len() != row.steps as usize {
        return false;
    }
    let mut sum = Summary::default();
    for s in &steps {
        sum.add_step(s);
    }
    row.usage = Some(sum.usage);
    row.step_ms = sum.step_ms;
    row.decision_steps = sum.decision_steps;
    true
}

impl Side {
    /// Read the bench in `dir`, or a TALES agent's log directory (`tales_<uid>`,
    /// [`tales`]).
    ///
    /// # Errors
    /// A [`UserError`] when `dir` holds no `episodes.jsonl`, when a line of it before
    /// the last is malformed, or when it holds no episode.
    pub fn read(dir: &Path) -> Result<Side> {
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
        let file = dir.join("episodes.jsonl");
        if !file.is_file() {
            return Err(UserError::new(format!(
                "not a bench directory: {} is missing (give the --out of an `ariadne bench`)",
                file.display()
            ))
            .into());
        }
        let (mut rows, cut) = read_episodes_checked(dir)?;
        if rows.is_empty() {
            return Err(UserError::new(format!("{} holds no episode", file.display())).into());
        }
        let mut notes = Vec::new();
        if cut {
            notes.push(format!(
                "the last line of {} is cut (a bench still running or killed) and was skipped",
                file.display()
            ));
        }
        let mut settings = Settings {
            harnesses: vec!["Ariadne".into()],
            ..Settings::default()
        };
        let mut unfilled = 0;
        for r in &mut rows {
            if !backfill(r, dir) && r.outcome != Outcome::Failed {
                unfilled += 1;
            }
            let Ok(m) = Manifest::read(&dir.join(&r.dir)) else {
                continue;
            };
            push_new(&mut settings.ariadne, m.ariadne_version.clone());
            push_new(&mut settings.revisions, m.agent.revision.number());
            push_new(
                &mut settings.profiles,
                m.profile
                    .as_ref()
                    .map_or("before profiles".to_string(), |p| p.profile.to_string()),
            );
            push_new(&mut settings.models, m.chat_model());
            let local = &m.llm["chat"]["local_model"];
            push_new(
                &mut settings.servers,
                match (local["threads"].as_u64(), local["ctx"].as_u64()) {
                    (Some(t), Some(c)) => format!("{t} threads, ctx {c}"),
                    _ if local.is_null() => "remote".to_string(),
                    _ => "?".to_string(),
                },
            );
            if m.llm["chat"]["temperatures"].is_object() {
                // No --temperature: the reference's temperature per module.
                push_new(&mut settings.temperatures, "per module".to_string());
            } else if let Some(t) = m.llm["chat"]["temperature"].as_f64() {
                // Written from an f32: shown as one.
                push_new(&mut settings.temperatures, format!("{}", t as f32));
            }
            push_new(&mut settings.max_steps, m.max_steps);
        }
        if unfilled > 0 {
            notes.push(format!(
                "{unfilled} attempt(s) in {} have no time figures: the row predates them and its run directory does not hold every step",
                dir.display()
            ));
        }
        if let Ok(text) = std::fs::read_to_string(dir.join("bench.json"))
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
        {
            let resumes = v["resumes"].as_array().cloned().unwrap_or_default();
            for j in std::iter::once(&v["jobs"])
                .chain(resumes.iter().map(|r| &r["jobs"]))
                .filter_map(serde_json::Value::as_u64)
            {
                push_new(&mut settings.jobs, j);
            }
        }
        Ok(Side {
            dir: dir.to_path_buf(),
            rows,
            settings,
            notes,
        })
    }

    /// Games, then designs, in order of first appearance.
    fn keys(&self) -> (Vec<String>, Vec<String>) {
        let (mut games, mut designs) = (Vec::new(), Vec::new());
        for r in &self.rows {
            push_new(&mut games, r.game.clone());
            push_new(&mut designs, r.memory.clone());
        }
        (games, designs)
    }

    /// The finished (not failed) attempts of one game and design, in file order.
    fn finished<'a>(
        &'a self,
        game: &'a str,
        design: &'a str,
    ) -> impl Iterator<Item = &'a EpisodeRow> {
        self.rows
            .iter()
            .filter(move |r| r.game == game && r.memory == design && r.outcome != Outcome::Failed)
    }

    /// Attempts per (game, design): the most any pair has, failed ones included.
    fn attempts(&self) -> usize {
        let (games, designs) = self.keys();
        let mut most = 0;
        for g in &games {
            for d in &designs {
                most = most.max(
                    self.rows
                        .iter()
                        .filter(|r| &r.game == g && &r.memory == d)
                        .count(),
                );
            }
        }
        most
    }
}

/// The least a step of `rows` could take at `prompt` and `generation` tokens per
/// second: (uncached prompt tokens / prompt + completion tokens / generation) per
/// step, seconds; `None` without usable sums.
pub fn bound_at(rows: &[&EpisodeRow], prompt: f64, generation: f64) -> Option<f64> {
    if prompt <= 0.0 || generation <= 0.0 {
        return None;
    }
    let mut u = Usage::default();
    let mut steps = 0usize;
    for r in rows {
        let ru = r.usage.filter(|u| u.is_known())?;
        u.add(ru);
        steps += r.step_ms.len();
    }
    (steps > 0).then(|| lower_bound(&u, steps as f64, prompt, generation))
}

/// The comparison as Markdown: the settings of each bench, the scores, the cost per
/// step. Pairs present in only one bench are named at the end.
///
/// # Errors
/// See [`Side::read`]; a [`UserError`] when no game and design has a finished attempt
/// in both benches.
pub fn compare(before: &Path, after: &Path) -> Result<String> {
    let b = Side::read(before)?;
    let a = Side::read(after)?;
    markdown(&b, &a)
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

    md.push_str("\nNormalized score (score / max score): the mean and sample standard deviation over the finished attempts, each attempt's score, the paper's mean of the best 3 when there are more than 3, and failed attempts (left out of the scores).\n\n| game | memory | before | after | change in mean |\n|---|---|---|---|---|\n");
    for (g, d, fb, fa) in &pairs {
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
        for (g, d, fb, fa) in &pairs {
            for (name, f) in [("before", fb), ("after", fa)] {
                md.push_str(&format!(
                    "| {g} | {d} | {name} | {} |\n",
                    wm_figures(&f.cell).join(" | ")
                ));
            }
        }
    }

    let (mut borrowed, mut beyond) = (false, false);
    md.push_str("\nCost per step. The lower bound is the least a step could take for its tokens: uncached prompt tokens / prompt speed + completion tokens / generation speed, at the speeds the bench's server reported; actual / bound is the mean step over it.\n\n| game | memory | bench | median s/step | after / before | mean s/step | prompt / completion tok/step | cached | calls per decision | lower bound s/step | actual / bound |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (g, d, fb, fa) in &pairs {
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

#[cfg(test)]
mod tests;
