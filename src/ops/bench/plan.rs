//! The episodes of a bench plan (and of one shard of it), and the results written for
//! its episodes.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use serde_json::json;

use super::tables::{csv, markdown, nethack_settings};
use super::{BenchPlan, Shard, charts};
use crate::env::GameSpec;
use crate::env::nethack::{NetHackGame, ObsMode};
use crate::error::UserError;
use crate::memory::MemoryDesign;
use crate::rows::{Variant, VariantOption};
use crate::trajectory::bench::{Cell, EpisodeRow, aggregate};

/// What [`write_results`] wrote, for the command to print.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// The results table (`results.md` without its charts).
    pub markdown: String,
    /// How many charts were drawn, in `charts_dir`.
    pub charts: usize,
    /// Where the charts are.
    pub charts_dir: std::path::PathBuf,
    /// Why the charts were not drawn, when they were not.
    pub chart_error: Option<String>,
}

/// Write the bench's results for `rows` into `dir` (`results.md` with its charts,
/// `results.csv`, `results.json`); returns what was written. Prints nothing.
///
/// # Errors
/// Files that cannot be written.
pub fn write_results(dir: &Path, plan: &BenchPlan, rows: &[EpisodeRow]) -> Result<Written> {
    let games: Vec<String> = plan.games.iter().map(GameSpec::name).collect();
    let names: Vec<String> = plan.variants.iter().map(|v| v.name()).collect();
    let cells = aggregate(rows, &games, &names);
    let mut md = markdown(&cells, &games, &plan.variants, plan.runs);
    md.push_str(&nethack_settings(&setting_cells(plan, rows)));
    let (drawn, chart_error) = match charts::write(dir, rows, &games, &plan.variants) {
        Ok(drawn) => (drawn, None),
        Err(e) => (Vec::new(), Some(format!("{e:#}"))),
    };
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
    Ok(Written {
        markdown: md,
        charts: drawn.len(),
        charts_dir: dir.join("charts"),
        chart_error,
    })
}

/// The game a row plays for a game of the bench: the game itself, or for the row
/// `level-obs` (the paper's NetPlay [Level obs], section 4.2) the NetHack game with Level
/// obs. The episode keeps the bench game's name, so its row stays in the game's column.
///
/// # Errors
/// `level-obs` on a game that is not NetHack.
pub fn played(game: &GameSpec, v: &Variant) -> Result<GameSpec, UserError> {
    match (v.option, game) {
        (VariantOption::LevelObs, GameSpec::NetHack(g)) => Ok(GameSpec::NetHack(NetHackGame {
            obs: ObsMode::Level,
            ..g.clone()
        })),
        (VariantOption::LevelObs, _) => Err(UserError::new(format!(
            "the row {} plays NetHack only (Level obs describes the explored dungeon level): {} is not a NetHack game; play it in a bench of its own",
            v.name(),
            game.name()
        ))),
        _ => Ok(game.clone()),
    }
}

/// Check that every row of the plan can play every game of it, that no two games share
/// a name (the table's column), and that no two cells of the table play the same
/// episodes: the same game as played ([`GameSpec::identity`]), the same design and the
/// same agent and memory settings once the flags and the row's profile apply
/// (`level-obs` beside `no-memory` on a game with `obs=level`; `arigraph` beside
/// `arigraph+beam` with `--retrieval beam`).
///
/// # Errors
/// The oracle on TextWorld-Express games (no true state), `level-obs` on a game that is
/// not NetHack ([`played`]), two games of one name, two cells that play the same
/// episodes.
pub fn check_rows(plan: &BenchPlan) -> Result<(), UserError> {
    if let Some(v) = plan.variants.iter().find(|v| v.design.needs_ground_truth())
        && plan.games.iter().any(|g| matches!(g, GameSpec::Twx(_)))
    {
        return Err(UserError::new(format!(
            "the {} memory needs the game's true state, which TextWorld-Express games do not expose; bench it on TextWorld games",
            v.name()
        )));
    }
    // A column per game name: two games of one name would share it.
    for (i, g) in plan.games.iter().enumerate() {
        if let Some(h) = plan.games[..i].iter().find(|h| h.name() == g.name()) {
            return Err(UserError::new(format!(
                "--games names two games {} ({h} and {g}); the table has a column per game name: give each game once, and rename a file that shares another's name",
                g.name()
            )));
        }
    }
    let mut cells: Vec<(serde_json::Value, String)> = Vec::new();
    for g in &plan.games {
        for v in &plan.variants {
            let game = played(g, v)?;
            // What the episode follows: the game as played, the design and the settings
            // its profile's rules resolved to (a profile with every rule off plays as
            // `paper`); AriGraph without episodic memory is AriGraph with k = 0.
            let (agent, mut memory, _) = super::row_settings(plan, v);
            let design = match v.design {
                MemoryDesign::ArigraphNoEpisodic => {
                    memory.episodes = 0;
                    MemoryDesign::Arigraph
                }
                d => d,
            };
            let key = json!([game.identity(), design, agent, memory]);
            let cell = format!("{} on {}", v.name(), g.name());
            if let Some((_, other)) = cells.iter().find(|(k, _)| *k == key) {
                return Err(UserError::new(format!(
                    "{other} and {cell} would play the same episodes ({game}, the same memory and settings once the flags and profiles apply); leave one out"
                )));
            }
            cells.push((key, cell));
        }
    }
    Ok(())
}

/// The cells of the NetHack episodes grouped by setting instead of game: the seed left
/// out and the observation the row played (`nethack-room`, `nethack-level`), so the
/// episodes over several seeds give the paper's Table 1 figures per agent (mean and
/// spread over runs). Other games' episodes are left out.
pub fn setting_cells(plan: &BenchPlan, rows: &[EpisodeRow]) -> Vec<Cell> {
    let setting = |r: &EpisodeRow| -> Option<String> {
        let game = plan.games.iter().find(|g| g.name() == r.game)?;
        let v = plan.variants.iter().find(|v| v.name() == r.memory)?;
        match played(game, v).ok()? {
            GameSpec::NetHack(g) => Some(g.setting_name()),
            _ => None,
        }
    };
    let mut settings: Vec<String> = Vec::new();
    let grouped: Vec<EpisodeRow> = rows
        .iter()
        .filter_map(|r| {
            let s = setting(r)?;
            if !settings.contains(&s) {
                settings.push(s.clone());
            }
            Some(EpisodeRow {
                game: s,
                ..r.clone()
            })
        })
        .collect();
    let names: Vec<String> = plan.variants.iter().map(|v| v.name()).collect();
    aggregate(&grouped, &settings, &names)
        .into_iter()
        .filter(|c| c.episodes + c.failed > 0)
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trajectory::Outcome;
    use crate::trajectory::bench::sample_row;

    fn plan(games: &[&str], rows: &[&str]) -> BenchPlan {
        BenchPlan {
            games: games.iter().map(|g| GameSpec::parse(g).unwrap()).collect(),
            variants: rows.iter().map(|r| Variant::parse(r).unwrap()).collect(),
            runs: 1,
            max_steps: None,
            seed: 0,
            trials: 1,
            memory: crate::memory::MemorySettings::default(),
            agent: crate::agent::AgentSettings::default(),
            prompts: None,
            goal: None,
            shard: None,
            without: Vec::new(),
            game_timeout_s: 60,
        }
    }

    /// The paper's three NetHack agents over two seeds, by hand: per setting and row,
    /// the mean and sample standard deviation over the seeds (scores 20 and 40: 30 ±
    /// 14.1; levels 1 and 3: 2 ± 1.41); `level-obs` plays the room games with Level
    /// obs, so its episodes form the `nethack-level` setting; a TextWorld game's
    /// episodes are left out.
    #[test]
    fn nethack_episodes_group_by_setting_over_seeds() {
        let p = plan(
            &["nethack?seed=1", "nethack?seed=2"],
            &["arigraph", "no-memory", "level-obs"],
        );
        let mut rows = Vec::new();
        for (memory, scores, depths) in [
            ("arigraph", [20, 40], [1, 3]),
            ("no-memory", [10, 30], [1, 1]),
            ("level-obs", [50, 70], [2, 2]),
        ] {
            for (i, game) in ["nethack-s1-room", "nethack-s2-room"].iter().enumerate() {
                let mut r = sample_row(game, memory, 1, 0.0, Outcome::StepCap);
                r.score = scores[i];
                r.max_depth = Some(depths[i]);
                r.progression = Some(0.0);
                rows.push(r);
            }
        }
        rows.push(sample_row("simple", "arigraph", 1, 0.5, Outcome::Done));
        let cells = setting_cells(&p, &rows);
        let keys: Vec<(&str, &str, usize)> = cells
            .iter()
            .map(|c| (c.game.as_str(), c.memory.as_str(), c.episodes))
            .collect();
        assert_eq!(
            keys,
            [
                ("nethack-room", "arigraph", 2),
                ("nethack-room", "no-memory", 2),
                ("nethack-level", "level-obs", 2)
            ]
        );
        let md = super::super::tables::nethack_settings(&cells);
        for line in [
            "| nethack-room | arigraph | 2 | 30.0 ± 14.1 | 2.00 ± 1.41 | 0.00% | 2000 / 300 | 4.0 | - | - |",
            "| nethack-room | no-memory | 2 | 20.0 ± 14.1 | 1.00 ± 0.00 |",
            "| nethack-level | level-obs | 2 | 60.0 ± 14.1 | 2.00 ± 0.00 |",
        ] {
            assert!(md.contains(line), "{line}\n{md}");
        }
        assert!(super::super::tables::nethack_settings(&[]).is_empty());
    }

    /// `level-obs` plays a NetHack game with Level obs, and nothing else: a bench of
    /// it on a TextWorld game is refused in one line, as is the row in `play`.
    #[test]
    fn level_obs_plays_nethack_with_level_obs_only() {
        let level = Variant::parse("level-obs").unwrap();
        let room = GameSpec::parse("nethack?seed=3").unwrap();
        assert_eq!(
            played(&room, &level).unwrap(),
            GameSpec::parse("nethack?seed=3&obs=level").unwrap()
        );
        let arigraph = Variant::parse("arigraph").unwrap();
        assert_eq!(played(&room, &arigraph).unwrap(), room);
        assert!(check_rows(&plan(&["nethack?seed=1"], &["arigraph", "level-obs"])).is_ok());
        // Two cells that would play the same episodes.
        for (games, rows, expected) in [
            (
                &["nethack?seed=1&obs=level"][..],
                &["no-memory", "level-obs"][..],
                "no-memory on nethack-s1-level and level-obs on nethack-s1-level would play the same episodes",
            ),
            (
                &["nethack?seed=1", "nethack?seed=1&obs=level"],
                &["level-obs"],
                "level-obs on nethack-s1-room and level-obs on nethack-s1-level would play the same episodes",
            ),
        ] {
            let e = check_rows(&plan(games, rows)).unwrap_err().to_string();
            assert!(e.contains(expected), "{e}");
        }
        // The same game spelt twice, and two games of one name.
        let coin = crate::env::games_dirs()
            .into_iter()
            .map(|d| d.join("coin.z8"))
            .find(|p| p.is_file())
            .expect("the bundled coin game");
        let e = check_rows(&plan(&["coin", coin.to_str().unwrap()], &["arigraph"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--games names two games coin"), "{e}");
        let e = check_rows(&plan(
            &["twx:coin", "twx:coin?seed=0&split=train"],
            &["arigraph"],
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("would play the same episodes"), "{e}");
        // AriGraph with k = 0 is AriGraph without episodic memory.
        let mut k0 = plan(&["simple"], &["arigraph", "arigraph-no-episodic"]);
        assert!(check_rows(&k0).is_ok());
        k0.memory.episodes = 0;
        assert!(check_rows(&k0).is_err());
        // The extended profile with every rule off plays as the paper's.
        use crate::profile::{Profile, Rule};
        let mut profiles = plan(&["simple"], &["arigraph"]);
        let arigraph = profiles.variants[0];
        profiles.variants = [Profile::Paper, Profile::Extended]
            .into_iter()
            .map(|p| Variant {
                profile: Some(p),
                ..arigraph
            })
            .collect();
        assert!(check_rows(&profiles).is_ok());
        profiles.without = Rule::ALL.to_vec();
        let e = check_rows(&profiles).unwrap_err().to_string();
        assert!(
            e.contains(
                "arigraph on simple and arigraph@extended on simple would play the same episodes"
            ),
            "{e}"
        );
        let mut beam = plan(&["simple"], &["arigraph", "arigraph+beam"]);
        assert!(check_rows(&beam).is_ok());
        beam.memory.retrieval = crate::memory::Strategy::Beam;
        let e = check_rows(&beam).unwrap_err().to_string();
        assert!(
            e.contains(
                "arigraph on simple and arigraph+beam on simple would play the same episodes"
            ),
            "{e}"
        );
        let e = check_rows(&plan(&["nethack?seed=1", "simple"], &["level-obs"]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the row level-obs plays NetHack only")
                && e.contains("simple is not a NetHack game"),
            "{e}"
        );
        let e = crate::rows::design("level-obs").unwrap_err().to_string();
        assert!(
            e.contains("use --memory no-memory on a NetHack game with obs=level"),
            "{e}"
        );
    }

    /// An environment of these variables only.
    fn env(pairs: &[(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        let pairs = pairs.to_vec();
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    /// `--shard auto`: each scheduler's variables give the slice; none, a missing
    /// count or an index outside it is one line.
    #[test]
    fn the_scheduler_hands_out_the_shard() {
        let slurm_from_1 = [
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ];
        assert_eq!(
            Shard::from_scheduler(env(&slurm_from_1)),
            Ok(Shard { k: 2, n: 4 })
        );
        let slurm_from_0 = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
        ];
        assert_eq!(
            Shard::from_scheduler(env(&slurm_from_0)),
            Ok(Shard { k: 1, n: 2 })
        );
        let k8s = [("JOB_COMPLETION_INDEX", "2"), ("ARIADNE_SHARDS", "3")];
        assert_eq!(Shard::from_scheduler(env(&k8s)), Ok(Shard { k: 3, n: 3 }));
        let cases: [(&[(&'static str, &'static str)], &str); 5] = [
            (&[], "no scheduler index in the environment"),
            (&[("JOB_COMPLETION_INDEX", "0")], "but not ARIADNE_SHARDS"),
            (
                &[("SLURM_ARRAY_TASK_ID", "1")],
                "but not SLURM_ARRAY_TASK_COUNT",
            ),
            (
                &[
                    ("SLURM_ARRAY_TASK_ID", "5"),
                    ("SLURM_ARRAY_TASK_COUNT", "3"),
                    ("SLURM_ARRAY_TASK_MIN", "1"),
                ],
                "an array with gaps",
            ),
            (
                &[("JOB_COMPLETION_INDEX", "x"), ("ARIADNE_SHARDS", "3")],
                "is not a whole number",
            ),
        ];
        for (pairs, says) in cases {
            let e = Shard::from_scheduler(env(pairs)).unwrap_err();
            assert!(e.contains(says) && !e.contains('\n'), "{e}");
        }
    }
}
