//! The bench's statistics over its [`EpisodeRow`]s: the paper's best-3-of-N mean
//! (Table 4) beside the mean and spread of all N, one [`Cell`] per game and memory
//! design, the deepest levels and progression of NetHack rows, and the speed and its
//! lower bound from the tokens (Table 3's cost).

use serde::{Deserialize, Serialize};

use crate::judge::WorldModelSummary;
use crate::llm::Usage;
use crate::trajectory::call_kinds::{CallKinds, merge};

use super::EpisodeRow;
use crate::trajectory::Outcome;

/// Mean of the best `k` values (all of them when there are fewer than `k`); 0 for none.
/// The paper's rule with k = 3 of 5 attempts.
pub fn best_k_mean(scores: &[f64], k: usize) -> f64 {
    if scores.is_empty() {
        return 0.0;
    }
    let mut s = scores.to_vec();
    s.sort_by(|a, b| b.total_cmp(a));
    let top = &s[..k.min(s.len())];
    top.iter().sum::<f64>() / top.len() as f64
}

/// Mean and sample standard deviation (0 with fewer than 2 values).
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// Attempts per game and memory design in the paper's protocol (section 4.1: five
/// attempts; `bench --runs` defaults to it).
pub const PAPER_ATTEMPTS: u32 = 5;
/// The attempts whose normalized scores the paper averages: the best 3 (section 4.1).
pub const BEST_OF: usize = 3;

/// The aggregate of one game and row.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Cell {
    /// Game name.
    pub game: String,
    /// Row name.
    pub memory: String,
    /// Completed episodes.
    pub episodes: usize,
    /// Failed episodes (not in the scores).
    pub failed: usize,
    /// Mean normalized score of the best 3 (the paper's rule).
    pub best3: f64,
    /// Mean normalized score of all completed episodes.
    pub mean: f64,
    /// Sample standard deviation of the normalized scores.
    pub std: f64,
    /// Share of episodes won.
    pub win_rate: f64,
    /// Mean steps per episode.
    pub steps: f64,
    /// Mean chat calls per episode.
    pub llm_calls: f64,
    /// Prompt tokens per step; `None` when some episode's usage was unknown.
    pub prompt_tokens_per_step: Option<f64>,
    /// Completion tokens per step; `None` when some episode's usage was unknown.
    pub completion_tokens_per_step: Option<f64>,
    /// Mean wall time per episode, seconds.
    pub wall_s: f64,
    /// Mean over episodes of the mean world-model precision (None: not measured).
    pub wm_precision: Option<f64>,
    /// Mean over episodes of the mean world-model recall.
    pub wm_recall: Option<f64>,
    /// Mean over episodes of the final precision.
    pub wm_final_precision: Option<f64>,
    /// Mean over episodes of the final recall.
    pub wm_final_recall: Option<f64>,
    /// Mean wrong deletions per episode.
    pub wm_wrong_deletions: Option<f64>,
    /// Mean over episodes of the mean stated recall (episodes judged from judge 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wm_stated_recall: Option<f64>,
    /// The judges the episodes' figures were computed by, each once, ascending.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wm_judges: Vec<u32>,
    /// Chat calls whose prompt the endpoint probably cut, summed over the episodes.
    #[serde(default)]
    pub prompt_cuts: u64,
    /// Time and token figures per step (episodes that recorded them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// Score, deepest level and progression (games with dungeon levels: NetHack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<Levels>,
    /// Each call kind's calls, time and tokens over the completed episodes that kept
    /// them, with their decisions (the unit of calls per decision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_kinds: Option<(CallKinds, u64)>,
}

/// The paper's NetHack figures (Table 1) over a cell's completed episodes: the in-game
/// score and the deepest dungeon level (mean and sample standard deviation), and
/// BALROG's progression (mean).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Levels {
    /// Mean in-game score.
    pub score: f64,
    /// Its sample standard deviation.
    pub score_std: f64,
    /// Mean deepest dungeon level.
    pub depth: f64,
    /// Its sample standard deviation.
    pub depth_std: f64,
    /// Mean BALROG progression, 0 to 1.
    pub progression: f64,
}

impl Levels {
    fn of(done: &[&&EpisodeRow]) -> Option<Self> {
        let depths: Vec<f64> = done
            .iter()
            .filter_map(|r| r.max_depth)
            .map(|d| d as f64)
            .collect();
        if depths.is_empty() {
            return None;
        }
        let scores: Vec<f64> = done.iter().map(|r| r.score as f64).collect();
        let (score, score_std) = mean_std(&scores);
        let (depth, depth_std) = mean_std(&depths);
        let progress: Vec<f64> = done.iter().map(|r| r.progression.unwrap_or(0.0)).collect();
        Some(Self {
            score,
            score_std,
            depth,
            depth_std,
            progression: progress.iter().sum::<f64>() / progress.len() as f64,
        })
    }
}

/// What a step cost in time, against the least the endpoint could take for its tokens.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Speed {
    /// Median whole step time, seconds.
    pub median_step_s: f64,
    /// Mean whole step time, seconds.
    pub mean_step_s: f64,
    /// Share of prompt tokens the server served from its cache, 0..1.
    pub cached_share: f64,
    /// Chat calls per step the agent decided (route moves excluded).
    pub calls_per_decision: f64,
    /// Prompt tokens read per second of server time (uncached tokens only), when the
    /// server reports its timings.
    pub prompt_tokens_per_s: Option<f64>,
    /// Completion tokens generated per second of server time.
    pub completion_tokens_per_s: Option<f64>,
    /// The least a step could take for its tokens at those speeds, seconds: (uncached
    /// prompt tokens / prompt speed + completion tokens / generation speed) per step.
    pub lower_bound_s: Option<f64>,
}

/// The least `steps` steps with the token sums `u` could take per step at `prompt` and
/// `generation` tokens per second: (uncached prompt tokens / prompt + completion tokens
/// / generation) / steps, seconds. A prompt speed of 0 (no uncached token was read)
/// adds no prompt time.
pub fn lower_bound(u: &Usage, steps: f64, prompt: f64, generation: f64) -> f64 {
    let uncached = u.prompt_tokens.saturating_sub(u.cached_tokens) as f64;
    let p = if prompt > 0.0 { uncached / prompt } else { 0.0 };
    (p + u.completion_tokens as f64 / generation) / steps
}

impl Speed {
    /// The figures of `rows` (episodes with usage and step times); `None` without any.
    pub fn of(rows: &[&EpisodeRow]) -> Option<Speed> {
        let rows: Vec<&EpisodeRow> = rows
            .iter()
            .copied()
            .filter(|r| r.usage.is_some_and(|u| u.is_known()) && !r.step_ms.is_empty())
            .collect();
        if rows.is_empty() {
            return None;
        }
        let mut u = Usage::default();
        // The speeds come from the episodes whose server reported its timings (a resumed
        // bench may mix endpoints); the bound applies them to every episode's tokens.
        let mut timed = Usage::default();
        for r in &rows {
            let ru = r.usage.unwrap_or_default();
            u.add(ru);
            if ru.timed_calls > 0 && ru.prompt_ms > 0 && ru.completion_ms > 0 {
                timed.add(ru);
            }
        }
        let mut ms: Vec<u64> = rows
            .iter()
            .flat_map(|r| r.step_ms.iter().copied())
            .collect();
        ms.sort_unstable();
        let steps = ms.len() as f64;
        let median = if ms.len() % 2 == 1 {
            ms[ms.len() / 2] as f64
        } else {
            (ms[ms.len() / 2 - 1] + ms[ms.len() / 2]) as f64 / 2.0
        };
        let calls: u64 = rows.iter().map(|r| r.llm_calls).sum();
        let decisions: u32 = rows.iter().map(|r| r.decision_steps).sum();
        let has_timings = timed.timed_calls > 0;
        let prompt_speed = has_timings.then(|| {
            timed.prompt_tokens.saturating_sub(timed.cached_tokens) as f64
                / (timed.prompt_ms as f64 / 1000.0)
        });
        let completion_speed = has_timings
            .then(|| timed.completion_tokens as f64 / (timed.completion_ms as f64 / 1000.0));
        let lower_bound = prompt_speed
            .zip(completion_speed)
            .map(|(p, g)| lower_bound(&u, steps, p, g));
        Some(Speed {
            median_step_s: median / 1000.0,
            mean_step_s: ms.iter().sum::<u64>() as f64 / steps / 1000.0,
            cached_share: u.cached_share().unwrap_or(0.0),
            calls_per_decision: calls as f64 / f64::from(decisions.max(1)),
            prompt_tokens_per_s: prompt_speed,
            completion_tokens_per_s: completion_speed,
            lower_bound_s: lower_bound,
        })
    }
}

/// Aggregate episodes into one cell per (game, row), in the order of `games` and `rows`.
pub fn aggregate(rows: &[EpisodeRow], games: &[String], variants: &[String]) -> Vec<Cell> {
    let mut out = Vec::new();
    for g in games {
        for v in variants {
            let eps: Vec<&EpisodeRow> = rows
                .iter()
                .filter(|r| &r.game == g && &r.memory == v)
                .collect();
            let done: Vec<&&EpisodeRow> = eps
                .iter()
                .filter(|r| r.outcome != Outcome::Failed)
                .collect();
            let scores: Vec<f64> = done.iter().map(|r| r.normalized_score).collect();
            let (mean, std) = mean_std(&scores);
            let n = done.len().max(1) as f64;
            let steps: u64 = done.iter().map(|r| u64::from(r.steps)).sum();
            let per_step = |xs: Option<u64>| {
                xs.map(|x| {
                    if steps > 0 {
                        x as f64 / steps as f64
                    } else {
                        0.0
                    }
                })
            };
            let total = |f: fn(&EpisodeRow) -> Option<u64>| -> Option<u64> {
                done.iter().map(|r| f(r)).sum()
            };
            out.push(Cell {
                game: g.clone(),
                memory: v.clone(),
                episodes: done.len(),
                failed: eps.len() - done.len(),
                best3: best_k_mean(&scores, BEST_OF),
                mean,
                std,
                win_rate: done.iter().filter(|r| r.outcome == Outcome::Won).count() as f64 / n,
                steps: steps as f64 / n,
                llm_calls: done.iter().map(|r| r.llm_calls).sum::<u64>() as f64 / n,
                prompt_tokens_per_step: per_step(total(|r| r.prompt_tokens)),
                completion_tokens_per_step: per_step(total(|r| r.completion_tokens)),
                wall_s: done.iter().map(|r| r.wall_s).sum::<f64>() / n,
                wm_precision: wm_mean(&done, WorldModelSummary::precision),
                wm_recall: wm_mean(&done, |w| Some(w.mean_recall)),
                wm_final_precision: wm_mean(&done, |w| Some(w.final_precision)),
                wm_final_recall: wm_mean(&done, |w| Some(w.final_recall)),
                wm_wrong_deletions: wm_mean(&done, |w| Some(w.wrong_deletions as f64)),
                wm_stated_recall: wm_mean(&done, |w| w.mean_stated_recall),
                wm_judges: {
                    let mut j: Vec<u32> = done
                        .iter()
                        .filter_map(|r| r.world_model.as_ref().map(|w| w.judge))
                        .collect();
                    j.sort_unstable();
                    j.dedup();
                    j
                },
                prompt_cuts: eps.iter().map(|r| r.prompt_cuts).sum(),
                speed: Speed::of(&done.iter().map(|r| **r).collect::<Vec<_>>()),
                levels: Levels::of(&done),
                call_kinds: kinds_of(&done),
            });
        }
    }
    out
}

/// The call kinds of `done`'s episodes that kept them, and their decisions; `None`
/// when none did.
fn kinds_of(done: &[&&EpisodeRow]) -> Option<(CallKinds, u64)> {
    let kept: Vec<&&&EpisodeRow> = done.iter().filter(|r| !r.call_kinds.is_empty()).collect();
    if kept.is_empty() {
        return None;
    }
    let mut kinds = CallKinds::new();
    for r in &kept {
        merge(&mut kinds, &r.call_kinds);
    }
    Some((
        kinds,
        kept.iter().map(|r| u64::from(r.decision_steps)).sum(),
    ))
}

/// The mean of a world-model figure over the episodes that measured it (`f` gives
/// `None` for a figure an episode's judge did not compute).
fn wm_mean(rows: &[&&EpisodeRow], f: impl Fn(&WorldModelSummary) -> Option<f64>) -> Option<f64> {
    let xs: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.world_model.as_ref().and_then(&f))
        .collect();
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}
