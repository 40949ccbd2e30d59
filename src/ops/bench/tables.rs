//! The bench's tables as Markdown and CSV, rendered from the cells of
//! [`crate::trajectory::bench`] (the record format and the statistics live there).

use crate::trajectory::bench::*;

use crate::rows::Variant;
use crate::trajectory::call_kinds::{CallKinds, merge, table};

/// The results as Markdown: Table 4's shape (rows: memories; columns: games; cells:
/// best-3 normalized score), Table 3's (tokens per step), and the details.
pub fn markdown(cells: &[Cell], games: &[String], variants: &[Variant], runs: u32) -> String {
    [
        score_table(cells, games, variants, runs),
        world_model_table(cells),
        levels_table(cells),
        tokens_table(cells, variants),
        speed_table(cells),
        call_kinds_table(cells, variants),
        details_table(cells),
        cut_prompts(cells, games, variants),
    ]
    .concat()
}

/// The cell of a game and a row.
fn cell_of<'c>(cells: &'c [Cell], g: &str, v: &str) -> Option<&'c Cell> {
    cells.iter().find(|c| c.game == g && c.memory == v)
}

/// Table 4's shape: rows memories, columns games, cells the best-3 normalized score.
fn score_table(cells: &[Cell], games: &[String], variants: &[Variant], runs: u32) -> String {
    let cell = |g: &str, v: &str| cell_of(cells, g, v);
    let mut md = format!(
        "# Ariadne bench\n\nNormalized score: mean of the best 3 of {runs} attempts (the paper's Table 4 rule).\n\n| memory |"
    );
    for g in games {
        md.push_str(&format!(" {g} |"));
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(games.len()));
    md.push('\n');
    for v in variants {
        md.push_str(&format!("| {} |", v.label()));
        for g in games {
            match cell(g, &v.name()) {
                Some(c) if c.episodes > 0 => md.push_str(&format!(" {:.2} |", c.best3)),
                _ => md.push_str(" - |"),
            }
        }
        md.push('\n');
    }
    md
}

/// The world model against the game's ground truth, where a cell measured it.
fn world_model_table(cells: &[Cell]) -> String {
    let mut md = String::new();
    if cells.iter().any(|c| c.wm_precision.is_some()) {
        md.push_str(&format!(
            "\nWorld model against the game's ground truth ({}; mean over episodes; precision and the recalls as means over steps; wrong deletions: true facts removed per episode).\n\n| game | memory | {} |\n|---|---|{}\n",
            judges_text(cells.iter().flat_map(|c| c.wm_judges.iter().copied())),
            WM_HEADER.join(" | "),
            "---|".repeat(WM_HEADER.len())
        ));
        for c in cells.iter().filter(|c| c.wm_precision.is_some()) {
            md.push_str(&format!(
                "| {} | {} | {} |\n",
                c.game,
                c.memory,
                wm_figures(c).join(" | ")
            ));
        }
    }
    md
}

/// NetHack's score, deepest level and progression (the paper's Table 1).
fn levels_table(cells: &[Cell]) -> String {
    let mut md = String::new();
    if cells.iter().any(|c| c.levels.is_some()) {
        md.push_str("\nScore, deepest dungeon level and progression (NetHack, the paper's Table 1: mean ± sample standard deviation over episodes; progression: BALROG's, the share of human games that reached the same dungeon or experience level and went on to win, mean).\n\n| game | memory | episodes | score | deepest level | progression |\n|---|---|---|---|---|---|\n");
        for c in cells {
            let Some(l) = &c.levels else { continue };
            md.push_str(&format!(
                "| {} | {} | {} | {:.1} ± {:.1} | {:.2} ± {:.2} | {:.2}% |\n",
                c.game,
                c.memory,
                c.episodes,
                l.score,
                l.score_std,
                l.depth,
                l.depth_std,
                100.0 * l.progression
            ));
        }
    }
    md
}

/// Tokens per step per row (the paper's Table 3).
fn tokens_table(cells: &[Cell], variants: &[Variant]) -> String {
    let mut md = String::new();
    md.push_str("\nTokens per step, prompt / completion (the paper's Table 3).\n\n| memory | tokens per step |\n|---|---|\n");
    for v in variants {
        let cs: Vec<&Cell> = cells
            .iter()
            .filter(|c| c.memory == v.name() && c.episodes > 0)
            .collect();
        if cs.is_empty() {
            md.push_str(&format!("| {} | - |\n", v.label()));
            continue;
        }
        let steps: f64 = cs.iter().map(|c| c.steps * c.episodes as f64).sum();
        let mean = |f: fn(&Cell) -> Option<f64>| -> String {
            let sum: Option<f64> = cs
                .iter()
                .map(|c| f(c).map(|x| x * c.steps * c.episodes as f64))
                .sum();
            show(sum.map(|x| if steps > 0.0 { x / steps } else { 0.0 }), 0)
        };
        md.push_str(&format!(
            "| {} | {} / {} |\n",
            v.label(),
            mean(|c| c.prompt_tokens_per_step),
            mean(|c| c.completion_tokens_per_step)
        ));
    }
    md
}

/// Time per step against its token bound, where the server reported its speeds.
fn speed_table(cells: &[Cell]) -> String {
    let mut md = String::new();
    if cells.iter().any(|c| c.speed.is_some()) {
        md.push_str("\nTime per step against the least its tokens allow (lower bound: uncached prompt tokens / prompt speed + completion tokens / generation speed, at the speeds the server reported in this bench).\n\n| game | memory | median s/step | mean s/step | prompt / completion tok/step | cached | calls per decision | prompt tok/s | gen tok/s | lower bound s/step | actual / bound |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        for c in cells {
            let Some(sp) = &c.speed else { continue };
            md.push_str(&format!(
                "| {} | {} | {:.1} | {:.1} | {} / {} | {:.0}% | {:.2} | {} | {} | {} | {} |\n",
                c.game,
                c.memory,
                sp.median_step_s,
                sp.mean_step_s,
                show(c.prompt_tokens_per_step, 0),
                show(c.completion_tokens_per_step, 0),
                sp.cached_share * 100.0,
                sp.calls_per_decision,
                show(sp.prompt_tokens_per_s, 1),
                show(sp.completion_tokens_per_s, 1),
                show(sp.lower_bound_s, 1),
                show(
                    sp.lower_bound_s
                        .filter(|b| *b > 0.0)
                        .map(|b| sp.mean_step_s / b),
                    2
                ),
            ));
        }
    }
    md
}

/// Where each row's time goes, per call kind, over its games (episodes that kept the
/// figures).
fn call_kinds_table(cells: &[Cell], variants: &[Variant]) -> String {
    let groups: Vec<(String, CallKinds, f64)> = variants
        .iter()
        .filter_map(|v| {
            let mut kinds = CallKinds::new();
            let mut decisions = 0;
            for (k, d) in cells
                .iter()
                .filter(|c| c.memory == v.name())
                .filter_map(|c| c.call_kinds.as_ref())
            {
                merge(&mut kinds, k);
                decisions += d;
            }
            (!kinds.is_empty()).then(|| (v.label(), kinds, decisions as f64))
        })
        .collect();
    table(&groups, "decision")
}

/// Every cell's figures.
fn details_table(cells: &[Cell]) -> String {
    let mut md = String::new();
    md.push_str("\nDetails.\n\n| game | memory | episodes | failed | best 3 | mean | std | win rate | steps | LLM calls | prompt tok/step | completion tok/step | wall s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for c in cells {
        if c.episodes == 0 {
            md.push_str(&format!(
                "| {} | {} | 0 | {} | - | - | - | - | - | - | - | - | - |\n",
                c.game, c.memory, c.failed
            ));
            continue;
        }
        md.push_str(&format!(
            "| {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} | {:.1} | {} | {} | {:.1} |\n",
            c.game, c.memory, c.episodes, c.failed, c.best3, c.mean, c.std, c.win_rate, c.steps, c.llm_calls,
            show(c.prompt_tokens_per_step, 0), show(c.completion_tokens_per_step, 0), c.wall_s
        ));
    }
    md
}

/// The rows whose prompts the endpoint probably cut, if any.
fn cut_prompts(cells: &[Cell], games: &[String], variants: &[Variant]) -> String {
    let cell = |g: &str, v: &str| cell_of(cells, g, v);
    let mut md = String::new();
    let cut: Vec<String> = variants
        .iter()
        .flat_map(|v| games.iter().map(move |g| (g, v)))
        .filter_map(|(g, v)| {
            let n = cell(g, &v.name())?.prompt_cuts;
            (n > 0).then(|| format!("{g} / {}: {n}", v.label()))
        })
        .collect();
    if !cut.is_empty() {
        md.push_str(&format!(
            "\nPrompts the endpoint probably cut to its context length (raise the server's context length; see the runs' warnings): {}.\n",
            cut.join(", ")
        ));
    }
    md
}

/// The results as CSV, one line per cell.
pub fn csv(cells: &[Cell]) -> String {
    let opt = |x: Option<f64>| x.map(|v| format!("{v:.4}")).unwrap_or_default();
    let mut out = csv::Writer::from_writer(Vec::new());
    for c in cells {
        let row = CsvRow {
            game: &c.game,
            memory: &c.memory,
            episodes: c.episodes,
            failed: c.failed,
            best3: format!("{:.4}", c.best3),
            mean: format!("{:.4}", c.mean),
            std: format!("{:.4}", c.std),
            win_rate: format!("{:.4}", c.win_rate),
            steps: format!("{:.2}", c.steps),
            llm_calls: format!("{:.2}", c.llm_calls),
            prompt_tokens_per_step: show(c.prompt_tokens_per_step, 1),
            completion_tokens_per_step: show(c.completion_tokens_per_step, 1),
            wall_s: format!("{:.2}", c.wall_s),
            wm_precision: opt(c.wm_precision),
            wm_recall: opt(c.wm_recall),
            wm_final_precision: opt(c.wm_final_precision),
            wm_final_recall: opt(c.wm_final_recall),
            wm_wrong_deletions: opt(c.wm_wrong_deletions),
            wm_stated_recall: opt(c.wm_stated_recall),
        };
        // Writing to memory cannot fail but for a row that does not serialize.
        if out.serialize(row).is_err() {
            continue;
        }
    }
    if cells.is_empty() {
        // The header alone: the first line of an empty row.
        let _ = out.serialize(CsvRow::default());
    }
    let text = out
        .into_inner()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    if cells.is_empty() {
        return text
            .lines()
            .next()
            .map(|h| format!("{h}\n"))
            .unwrap_or_default();
    }
    text
}

/// One line of `results.csv`: the header is the field names, in this order.
#[derive(serde::Serialize, Default)]
struct CsvRow<'a> {
    game: &'a str,
    memory: &'a str,
    episodes: usize,
    failed: usize,
    best3: String,
    mean: String,
    std: String,
    win_rate: String,
    steps: String,
    llm_calls: String,
    prompt_tokens_per_step: String,
    completion_tokens_per_step: String,
    wall_s: String,
    wm_precision: String,
    wm_recall: String,
    wm_final_precision: String,
    wm_final_recall: String,
    wm_wrong_deletions: String,
    wm_stated_recall: String,
}

/// The NetHack episodes per setting over the bench's seeds (the cells of
/// `plan::setting_cells`): the paper's Table 1 rows (Ariadne (Room obs): `arigraph` on
/// `nethack-room`; NetPlay (Room obs): `no-memory` there; NetPlay (Level obs):
/// `level-obs`), with score and deepest level as mean ± sample standard deviation over
/// the episodes, progression, the cost per step and the world model. Empty without
/// NetHack episodes.
pub fn nethack_settings(cells: &[Cell]) -> String {
    if cells.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "\nNetHack per setting, over every seed of the bench (the paper's Table 1: Ariadne (Room obs) is `arigraph` on `nethack-room`, NetPlay (Room obs) `no-memory` there, NetPlay (Level obs) `level-obs`; mean ± sample standard deviation over episodes; the world model as mean precision and named recall).\n\n| setting | memory | episodes | score | deepest level | progression | prompt / completion tokens per step | calls per step | precision | named recall |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for c in cells {
        let (score, depth, progression) = match &c.levels {
            Some(l) => (
                format!("{:.1} ± {:.1}", l.score, l.score_std),
                format!("{:.2} ± {:.2}", l.depth, l.depth_std),
                format!("{:.2}%", 100.0 * l.progression),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        let calls = if c.steps > 0.0 {
            format!("{:.1}", c.llm_calls / c.steps)
        } else {
            "-".into()
        };
        let [precision, recall, ..] = wm_figures(c);
        md.push_str(&format!(
            "| {} | {} | {}{} | {score} | {depth} | {progression} | {} / {} | {calls} | {precision} | {recall} |\n",
            c.game,
            c.memory,
            c.episodes,
            if c.failed > 0 {
                format!(" ({} failed)", c.failed)
            } else {
                String::new()
            },
            show(c.prompt_tokens_per_step, 0),
            show(c.completion_tokens_per_step, 0),
        ));
    }
    md
}

/// The world-model columns of a table ([`wm_figures`]).
pub const WM_HEADER: [&str; 6] = [
    "precision",
    "named recall",
    "stated recall",
    "final precision",
    "final named recall",
    "wrong deletions",
];

/// A cell's world-model figures, in [`WM_HEADER`]'s order ("-" where not measured).
pub fn wm_figures(c: &Cell) -> [String; 6] {
    let f = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.2}"));
    [
        f(c.wm_precision),
        f(c.wm_recall),
        f(c.wm_stated_recall),
        f(c.wm_final_precision),
        f(c.wm_final_recall),
        c.wm_wrong_deletions
            .map_or_else(|| "-".into(), |v| format!("{v:.1}")),
    ]
}

/// "judge N" (the runs' one judge, or the current [`crate::judge::JUDGE`] when
/// none is recorded), or the judges named with how to bring them to the current one.
pub fn judges_text(judges: impl Iterator<Item = u32>) -> String {
    let mut js: Vec<u32> = judges.collect();
    js.sort_unstable();
    js.dedup();
    match js.as_slice() {
        [] => format!("judge {}", crate::judge::JUDGE),
        [j] => format!("judge {j}"),
        _ => format!(
            "judges {}: figures of different judges are not comparable; `ariadne replay RUN --accuracy` recomputes a run under judge {}",
            js.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
            crate::judge::JUDGE
        ),
    }
}

/// A token figure with `decimals` decimals, or "?" when unknown.
pub fn show(x: Option<f64>, decimals: usize) -> String {
    x.map_or_else(|| "?".into(), |x| format!("{x:.decimals$}"))
}

#[cfg(test)]
mod tests;
