//! One side's figures for one game and memory design of a comparison: its cell, its
//! scores in attempt order, its lower bound (borrowed from the other side's speeds when
//! its server reported none) and the score column's text.

use super::side::{Side, bound_at};
use crate::trajectory::bench::{Cell, EpisodeRow, Speed, aggregate, mean_std};

/// One side's figures for one (game, design).
pub(super) struct Figures {
    pub(super) cell: Cell,
    pub(super) scores: Vec<f64>,
    pub(super) raw: Vec<(i64, i64)>,
    /// The lower bound and whether it was computed at the other bench's speeds.
    pub(super) bound: Option<(f64, bool)>,
}

/// The figures of one (game, design) of a side; `None` when the side has no attempt of
/// it, failed or not.
pub(super) fn figures(side: &Side, game: &str, design: &str) -> Option<Figures> {
    let cell = aggregate(&side.rows, &[game.to_string()], &[design.to_string()]).pop()?;
    if cell.episodes + cell.failed == 0 {
        return None;
    }
    let mut done: Vec<&EpisodeRow> = side.finished(game, design).collect();
    // In attempt order, not in the order they finished.
    done.sort_by_key(|r| r.run);
    let bound = cell
        .speed
        .as_ref()
        .and_then(|s| s.lower_bound_s)
        .map(|b| (b, false));
    Some(Figures {
        scores: done.iter().map(|r| r.normalized_score).collect(),
        raw: done.iter().map(|r| (r.score, r.max_score)).collect(),
        cell,
        bound,
    })
}

/// A bound at the other side's speeds, for a side whose server reported none.
pub(super) fn borrowed_bound(
    side: &Side,
    game: &str,
    design: &str,
    other: &Speed,
) -> Option<(f64, bool)> {
    let rows: Vec<&EpisodeRow> = side
        .finished(game, design)
        .filter(|r| r.usage.is_some() && !r.step_ms.is_empty())
        .collect();
    let (p, g) = other
        .prompt_tokens_per_s
        .zip(other.completion_tokens_per_s)?;
    bound_at(&rows, p, g).map(|b| (b, true))
}

pub(super) fn score_text(f: &Figures) -> String {
    let failed = match f.cell.failed {
        0 => String::new(),
        n => format!("; {n} failed"),
    };
    if f.scores.is_empty() {
        return format!("- (no finished attempt{failed})");
    }
    let (mean, std) = mean_std(&f.scores);
    if f.scores.len() == 1 {
        let (s, m) = f.raw[0];
        return format!("{mean:.2} ({s}/{m}{failed})");
    }
    let each: Vec<String> = f.raw.iter().map(|(s, m)| format!("{s}/{m}")).collect();
    // With 3 attempts or fewer the best 3 are all of them: the mean says it.
    let best = if f.scores.len() > 3 {
        format!("; best 3: {:.2}", f.cell.best3)
    } else {
        String::new()
    };
    format!(
        "{mean:.2} ± {std:.2} over {} ({}{best}{failed})",
        f.scores.len(),
        each.join(", "),
    )
}
