//! One side of a comparison: a bench directory (or a TALES agent's log directory)
//! read, its rows' sums filled in from their run directories where they lack them.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error::UserError;
use crate::llm::Usage;
use crate::trajectory::bench::{EpisodeRow, lower_bound, read_episodes_checked};
use crate::trajectory::{Manifest, Outcome, Summary, read_steps};

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
    /// The embedded server's CPU threads and context, and its build when it is not the
    /// wheel ("2 threads, ctx 16384", "2 threads, ctx 16384, native (AMD EPYC 9B14)"),
    /// or "remote". Manifests written before the build was recorded ran the wheel.
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

pub(super) fn push_new<T: PartialEq>(v: &mut Vec<T>, x: T) {
    if !v.contains(&x) {
        v.push(x);
    }
}

pub(super) fn list<T: ToString>(v: &[T]) -> String {
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

impl Settings {
    /// The values a run's manifest records: Ariadne's version, the agent revision, the
    /// profile, the chat model, the embedded server, the temperature, the step cap.
    pub(super) fn add(&mut self, m: &Manifest) {
        push_new(&mut self.ariadne, m.ariadne_version.clone());
        push_new(&mut self.revisions, m.agent.revision.number());
        push_new(
            &mut self.profiles,
            m.profile
                .as_ref()
                .map_or("before profiles".to_string(), |p| p.profile.to_string()),
        );
        push_new(&mut self.models, m.chat_model());
        let local = &m.llm["chat"]["local_model"];
        push_new(
            &mut self.servers,
            match (local["threads"].as_u64(), local["ctx"].as_u64()) {
                (Some(t), Some(c)) => match local["build"].as_str() {
                    None | Some("wheel") => format!("{t} threads, ctx {c}"),
                    Some(build) => format!("{t} threads, ctx {c}, {build}"),
                },
                _ if local.is_null() => "remote".to_string(),
                _ => "?".to_string(),
            },
        );
        if m.llm["chat"]["temperatures"].is_object() {
            // No --temperature: the reference's temperature per module.
            push_new(&mut self.temperatures, "per module".to_string());
        } else if let Some(t) = m.llm["chat"]["temperature"].as_f64() {
            // Written from an f32: shown as one.
            push_new(&mut self.temperatures, format!("{}", t as f32));
        }
        push_new(&mut self.max_steps, m.max_steps);
    }

    /// The episodes at once of the bench and of each resume (`bench.json`).
    fn add_jobs(&mut self, dir: &Path) {
        if let Ok(text) = std::fs::read_to_string(dir.join("bench.json"))
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
        {
            let resumes = v["resumes"].as_array().cloned().unwrap_or_default();
            for j in std::iter::once(&v["jobs"])
                .chain(resumes.iter().map(|r| &r["jobs"]))
                .filter_map(serde_json::Value::as_u64)
            {
                push_new(&mut self.jobs, j);
            }
        }
    }
}

impl Side {
    /// Read the bench in `dir` (a directory; [`super::read_side`] tells a bench from a
    /// TALES log).
    ///
    /// # Errors
    /// A [`UserError`] when `dir` holds no `episodes.jsonl`, when a line of it before
    /// the last is malformed, or when it holds no episode.
    pub fn read(dir: &Path) -> Result<Side> {
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
            settings.add(&m);
        }
        if unfilled > 0 {
            notes.push(format!(
                "{} in {} {} no time figures: the row predates them and its run directory does not hold every step",
                crate::text::count(unfilled as u64, "attempt"),
                dir.display(),
                if unfilled == 1 { "has" } else { "have" }
            ));
        }
        settings.add_jobs(dir);
        Ok(Side {
            dir: dir.to_path_buf(),
            rows,
            settings,
            notes,
        })
    }

    /// Games, then designs, in order of first appearance.
    pub(super) fn keys(&self) -> (Vec<String>, Vec<String>) {
        let (mut games, mut designs) = (Vec::new(), Vec::new());
        for r in &self.rows {
            push_new(&mut games, r.game.clone());
            push_new(&mut designs, r.memory.clone());
        }
        (games, designs)
    }

    /// The finished (not failed) attempts of one game and design, in file order.
    pub(super) fn finished<'a>(
        &'a self,
        game: &'a str,
        design: &'a str,
    ) -> impl Iterator<Item = &'a EpisodeRow> {
        self.rows
            .iter()
            .filter(move |r| r.game == game && r.memory == design && r.outcome != Outcome::Failed)
    }

    /// Attempts per (game, design): the most any pair has, failed ones included.
    pub(super) fn attempts(&self) -> usize {
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
