//! A TALES log directory as one side of `bench compare`: what TALES's own
//! `benchmark.py` (microsoft/tale-suite) writes for one agent,
//! `LOG/tales_<agent uid>/<game>/a<0|1>_s<seed>_steps<cap>.json`, one summary per
//! episode (`status`, `env_name`, `nb_steps`, `highscore`, `max_score`, `norm_score`,
//! `nb_wins`, `nb_losts`, `duration` in seconds, `total/Prompt Tokens`,
//! `total/Response Tokens`). Each summary becomes a bench row scored as TALES scores it:
//! the highest score reached over the maximum. Ariadne's agent module (uid
//! `Ariadne_<profile>_<memory>`) gives rows of its memory design and profile; any other
//! agent a row `tales:<uid>`.

use std::path::Path;

use anyhow::{Context, Result};

use super::side::{Settings, Side};
use crate::error::UserError;
use crate::trajectory::Outcome;
use crate::trajectory::bench::EpisodeRow;

/// The rows of a TALES agent's log directory and what its name and file names say.
#[derive(Debug)]
pub struct TalesLog {
    /// One row per summary: the game is TALES's environment name, the attempts numbered
    /// in seed order from 1.
    pub rows: Vec<EpisodeRow>,
    /// Ariadne's profile, when the agent is Ariadne's module.
    pub profile: Option<String>,
    /// The step caps of the file names (`steps<cap>`).
    pub max_steps: Vec<u32>,
}

/// The row name of an agent uid (see the module documentation), and Ariadne's profile.
pub fn design_of(uid: &str) -> (String, Option<String>) {
    if let Some(rest) = uid.strip_prefix("Ariadne_")
        && let Some((profile, memory)) = rest.split_once('_')
        && !memory.is_empty()
    {
        return (memory.to_string(), Some(profile.to_string()));
    }
    (format!("tales:{uid}"), None)
}

/// Whether `dir` is a TALES agent's log directory: named `tales_<uid>`, with no
/// `episodes.jsonl`.
pub fn is_tales_log(dir: &Path) -> bool {
    !dir.join("episodes.jsonl").exists()
        && dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("tales_") && n.len() > "tales_".len())
}

/// `(seed, cap)` from a summary's file stem, `a0_s20241001_steps100`, or `a0_sNone_steps100`
/// when `benchmark.py` was given no `--game-seed` (its default).
fn stem_numbers(stem: &str) -> Option<(Option<i64>, u32)> {
    let mut parts = stem.split('_');
    let adm = parts.next()?;
    let seed = match parts.next()?.strip_prefix('s')? {
        "None" => None,
        n => Some(n.parse().ok()?),
    };
    let cap = parts.next()?.strip_prefix("steps")?.parse().ok()?;
    (adm.starts_with('a') && parts.next().is_none()).then_some((seed, cap))
}

/// Read a TALES agent's log directory (see the module documentation).
///
/// # Errors
/// An unreadable directory or summary, a summary that is not TALES's (one line naming
/// the file and the field).
pub fn read(dir: &Path) -> Result<TalesLog> {
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let (design, profile) = design_of(name.strip_prefix("tales_").unwrap_or(name));
    let mut found: Vec<(String, Option<i64>, u32, std::path::PathBuf)> = Vec::new();
    let games = std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for game in games.flatten().filter(|e| e.path().is_dir()) {
        for file in std::fs::read_dir(game.path())?.flatten() {
            let path = file.path();
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            if path.extension().is_some_and(|e| e == "json")
                && let Some((seed, cap)) = stem_numbers(stem)
            {
                let game = game.file_name().to_string_lossy().into_owned();
                found.push((game, seed, cap, path));
            }
        }
    }
    found.sort();
    let mut out = TalesLog {
        rows: Vec::new(),
        profile,
        max_steps: Vec::new(),
    };
    for (game, _, cap, path) in &found {
        let run = 1 + out.rows.iter().filter(|r| &r.game == game).count() as u32;
        out.rows.push(row(game, &design, run, path)?);
        if !out.max_steps.contains(cap) {
            out.max_steps.push(*cap);
        }
    }
    Ok(out)
}

/// One summary file as a row.
fn row(game: &str, design: &str, run: u32, path: &Path) -> Result<EpisodeRow> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UserError::new(format!("cannot read {}: {e}", path.display())))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        UserError::new(format!(
            "{} is not TALES's summary JSON: {e}",
            path.display()
        ))
    })?;
    let int = |key: &str| -> Result<i64> {
        v[key].as_f64().map(|x| x as i64).ok_or_else(|| {
            UserError::new(format!(
                "{}: `{key}` is missing (not a TALES summary)",
                path.display()
            ))
            .into()
        })
    };
    let (highscore, max_score, steps) = (int("highscore")?, int("max_score")?, int("nb_steps")?);
    let status = v["status"].as_str().unwrap_or("?");
    let outcome = if status != "finished" {
        Outcome::Failed
    } else if int("nb_wins").unwrap_or(0) > 0 {
        Outcome::Won
    } else if int("nb_losts").unwrap_or(0) > 0 {
        Outcome::Lost
    } else {
        Outcome::StepCap
    };
    // TALES counts 0 tokens for agents that report none (Ariadne's module among them).
    let tokens = |key: &str| v[key].as_f64().filter(|t| *t > 0.0).map(|t| t as u64);
    let nowhere = crate::trajectory::bench::Endpoint::from_described(&serde_json::Value::Null);
    let attempt = crate::trajectory::bench::Attempt {
        game: game.into(),
        memory: design.into(),
        run,
    };
    let mut r = EpisodeRow::failed(attempt, status.into(), nowhere);
    r.endpoint = None;
    r.error = (outcome == Outcome::Failed).then(|| format!("TALES status {status}"));
    r.outcome = outcome;
    r.score = highscore;
    r.max_score = max_score;
    r.normalized_score = v["norm_score"].as_f64().unwrap_or(0.0);
    r.steps = steps.max(0) as u32;
    r.decision_steps = r.steps;
    r.prompt_tokens = tokens("total/Prompt Tokens");
    r.completion_tokens = tokens("total/Response Tokens");
    r.wall_s = v["duration"].as_f64().unwrap_or(0.0);
    r.dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(r)
}

/// A TALES agent's log directory as a side of a comparison: its rows, the settings
/// its name and file names give, and what TALES does not report.
///
/// # Errors
/// See [`read`]; a directory with no summary.
pub fn side(dir: &Path) -> Result<Side> {
    let log = read(dir)?;
    if log.rows.is_empty() {
        return Err(UserError::new(format!(
            "{} holds no TALES summary (<game>/a<0|1>_s<seed>_steps<cap>.json)",
            dir.display()
        ))
        .into());
    }
    let settings = Settings {
        profiles: log.profile.into_iter().collect(),
        max_steps: log.max_steps,
        harnesses: vec!["TALES".into()],
        ..Settings::default()
    };
    let mut notes = vec![format!(
        "{} is a TALES log: scores are TALES's (the highest score reached over the maximum), times and tokens are whole episodes' (no per-step figures)",
        dir.display()
    )];
    if log.rows.iter().any(|r| r.prompt_tokens.is_none()) {
        notes.push(format!(
            "some TALES episodes in {} report no tokens (Ariadne's agent module reports none to TALES: its own run directories hold them)",
            dir.display()
        ));
    }
    Ok(Side {
        dir: dir.to_path_buf(),
        rows: log.rows,
        settings,
        notes,
    })
}
