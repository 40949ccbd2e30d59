//! The bench's charts, SVG drawn with plotters, written to `charts/` in the bench
//! directory beside the tables and embedded by `results.md`. Per game:
//!
//! - the normalized score of every completed attempt of every design (dots), with the
//!   table's figure, the mean of the best 3, as a bar: the spread the paper's rule hides;
//! - tokens per step (prompt + completion) against normalized score, one dot per
//!   attempt, coloured by design: what each design pays for what it scores.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::rows::Variant;
use crate::trajectory::Outcome;
use crate::trajectory::bench::{EpisodeRow, best_k_mean};

/// One chart written.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// What it shows.
    pub title: String,
    /// Its path relative to the bench directory (`charts/...svg`).
    pub file: String,
    /// The game it is about.
    pub game: String,
}

/// Series colours, one per design in the bench's order.
const COLORS: [RGBColor; 8] = [
    RGBColor(47, 111, 214),
    RGBColor(31, 157, 58),
    RGBColor(212, 87, 42),
    RGBColor(109, 79, 194),
    RGBColor(199, 154, 27),
    RGBColor(34, 150, 160),
    RGBColor(200, 60, 120),
    RGBColor(90, 100, 114),
];

fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

/// A file-name-safe form of a game name.
fn slug(game: &str) -> String {
    let s: String = game
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    crate::text::first_chars(s.trim_matches('-'), 60)
}

fn plot_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("cannot draw the chart: {e:?}")
}

/// The completed episodes of one game and design, by attempt.
fn completed<'a>(rows: &'a [EpisodeRow], game: &str, v: &Variant) -> Vec<&'a EpisodeRow> {
    let mut out: Vec<&EpisodeRow> = rows
        .iter()
        .filter(|r| r.game == game && r.memory == v.name() && r.outcome != Outcome::Failed)
        .collect();
    out.sort_by_key(|r| r.run);
    out
}

/// Normalized score of every attempt, per design, with the best-3 mean as a bar.
pub fn scores_svg(game: &str, rows: &[EpisodeRow], variants: &[Variant]) -> Result<String> {
    let m = variants.len().max(1);
    let mut svg = String::new();
    {
        let width = (140 + 120 * m).clamp(420, 1200) as u32;
        let root = SVGBackend::with_string(&mut svg, (width, 320)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{game}: normalized score of every attempt"),
                ("sans-serif", 17),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(44)
            .build_cartesian_2d(-0.5f64..m as f64 - 0.5, 0f64..1.05f64)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .x_label_formatter(&|_| String::new())
            .y_desc("normalized score")
            .y_labels(6)
            .draw()
            .map_err(plot_err)?;
        // One label under each design's column (plotters' own ticks fall where they
        // fall on a numeric axis).
        let label_style = ("sans-serif", 13)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        for (i, v) in variants.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64, 0.0));
            root.draw(&Text::new(v.label(), (x, y + 8), label_style.clone()))
                .map_err(plot_err)?;
        }
        for (i, v) in variants.iter().enumerate() {
            let eps = completed(rows, game, v);
            let n = eps.len();
            let c = color(i);
            chart
                .draw_series(eps.iter().enumerate().map(|(j, r)| {
                    let off = if n > 1 {
                        (j as f64 / (n - 1) as f64 - 0.5) * 0.5
                    } else {
                        0.0
                    };
                    Circle::new((i as f64 + off, r.normalized_score), 5, c.filled())
                }))
                .map_err(plot_err)?;
            if n > 0 {
                let scores: Vec<f64> = eps.iter().map(|r| r.normalized_score).collect();
                let best = best_k_mean(&scores, 3);
                chart
                    .draw_series(LineSeries::new(
                        [(i as f64 - 0.35, best), (i as f64 + 0.35, best)],
                        c.stroke_width(3),
                    ))
                    .map_err(plot_err)?;
            }
        }
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// Tokens per step against normalized score, one dot per attempt, coloured by design.
pub fn tokens_svg(game: &str, rows: &[EpisodeRow], variants: &[Variant]) -> Result<String> {
    // Attempts whose endpoint reported no usage have no figure and no dot.
    let per_step = |r: &EpisodeRow| {
        Some((r.prompt_tokens? + r.completion_tokens?) as f64 / f64::from(r.steps.max(1)))
    };
    let max_x = variants
        .iter()
        .flat_map(|v| completed(rows, game, v))
        .filter_map(per_step)
        .fold(0.0, f64::max);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (560, 340)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{game}: tokens per step against score"),
                ("sans-serif", 17),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(44)
            .build_cartesian_2d(0f64..(max_x * 1.1).max(1.0), 0f64..1.05f64)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("tokens per step (prompt + completion)")
            .x_label_formatter(&|x: &f64| format!("{x:.0}"))
            .y_desc("normalized score")
            .x_labels(6)
            .y_labels(6)
            .draw()
            .map_err(plot_err)?;
        for (i, v) in variants.iter().enumerate() {
            let c = color(i);
            let points: Vec<(f64, f64)> = completed(rows, game, v)
                .into_iter()
                .filter_map(|r| Some((per_step(r)?, r.normalized_score)))
                .collect();
            chart
                .draw_series(points.iter().map(|p| Circle::new(*p, 5, c.filled())))
                .map_err(plot_err)?
                .label(v.label())
                .legend(move |(x, y)| Circle::new((x + 8, y), 5, c.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(200, 200, 200))
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// Draw both charts of every game into `dir/charts/`.
///
/// # Errors
/// A chart that cannot be drawn or written.
pub fn write(
    dir: &Path,
    rows: &[EpisodeRow],
    games: &[String],
    variants: &[Variant],
) -> Result<Vec<Chart>> {
    let out = dir.join("charts");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut charts = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let name = format!("{:02}-{}", i + 1, slug(game));
        for (kind, title, svg) in [
            (
                "scores",
                format!("{game}: normalized score of every attempt"),
                scores_svg(game, rows, variants)?,
            ),
            (
                "tokens",
                format!("{game}: tokens per step against score"),
                tokens_svg(game, rows, variants)?,
            ),
        ] {
            let file = format!("charts/{name}-{kind}.svg");
            let path = dir.join(&file);
            std::fs::write(&path, svg)
                .with_context(|| format!("cannot write {}", path.display()))?;
            charts.push(Chart {
                title,
                file,
                game: game.clone(),
            });
        }
    }
    Ok(charts)
}

/// The charts section of `results.md`.
pub fn markdown(charts: &[Chart]) -> String {
    if charts.is_empty() {
        return String::new();
    }
    let mut md = String::from(
        "\n## Charts\n\nPer game: the normalized score of every completed attempt (dots) with the mean of the best 3, the table's figure (bar); then tokens per step against score, one dot per attempt.\n",
    );
    let mut game = "";
    for c in charts {
        if c.game != game {
            game = &c.game;
            md.push_str(&format!("\n### {game}\n\n"));
        }
        md.push_str(&format!("![{}]({})\n", c.title, c.file));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test attempt whose tokens grow with the attempt number.
    fn row(game: &str, mem: &str, run: u32, score: f64, outcome: Outcome) -> EpisodeRow {
        EpisodeRow {
            prompt_tokens: Some(20_000 + u64::from(run) * 1000),
            ..crate::trajectory::bench::sample_row(game, mem, run, score, outcome)
        }
    }

    #[test]
    fn every_attempt_is_a_dot_and_results_md_embeds_the_charts() {
        let rows = vec![
            row("twx:coin?seed=1", "arigraph", 1, 1.0, Outcome::Won),
            row("twx:coin?seed=1", "arigraph", 2, 0.4, Outcome::StepCap),
            row("twx:coin?seed=1", "arigraph", 3, 0.0, Outcome::Failed),
            row("twx:coin?seed=1", "rag", 1, 0.2, Outcome::StepCap),
        ];
        let variants = [
            Variant::parse("arigraph").unwrap(),
            Variant::parse("rag").unwrap(),
        ];
        let game = "twx:coin?seed=1".to_string();
        let scores = scores_svg(&game, &rows, &variants).unwrap();
        assert!(scores.starts_with("<svg"), "{scores:.200}");
        // Three completed attempts are dots; the failed one is not drawn.
        assert_eq!(scores.matches("<circle").count(), 3, "{scores}");
        assert!(scores.contains("AriGraph") && scores.contains("RAG"));
        let tokens = tokens_svg(&game, &rows, &variants).unwrap();
        assert_eq!(
            tokens.matches("<circle").count(),
            3 + 2,
            "3 dots and 2 legend marks"
        );
        let dir = tempfile::tempdir().unwrap();
        let charts = write(dir.path(), &rows, &[game], &variants).unwrap();
        assert_eq!(charts.len(), 2);
        assert_eq!(charts[0].file, "charts/01-twx-coin-seed-1-scores.svg");
        for c in &charts {
            assert!(dir.path().join(&c.file).is_file());
        }
        let md = markdown(&charts);
        assert!(
            md.contains("![twx:coin?seed=1: normalized score of every attempt](charts/01-twx-coin-seed-1-scores.svg)"),
            "{md}"
        );
        assert!(markdown(&[]).is_empty());
    }
}
