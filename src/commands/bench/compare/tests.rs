//! Tests of `compare`.

use super::*;
use crate::llm::Usage;
use crate::trajectory::Outcome;
use crate::trajectory::bench::EpisodeRow;
use crate::trajectory::bench::sample_row;
use serde_json::json;
use std::path::{Path, PathBuf};

fn timed(mut r: EpisodeRow, prompt_ms: u64, completion_ms: u64) -> EpisodeRow {
    r.usage = Some(Usage {
        prompt_tokens: 2_000,
        completion_tokens: 200,
        cached_tokens: 1_000,
        prompt_ms,
        completion_ms,
        timed_calls: if prompt_ms > 0 { 4 } else { 0 },
        ..Usage::default()
    });
    r.step_ms = vec![10_000, 30_000];
    r.decision_steps = 2;
    r
}

fn side(rows: Vec<EpisodeRow>) -> Side {
    Side {
        dir: PathBuf::from("b"),
        rows,
        settings: Settings::default(),
        notes: Vec::new(),
    }
}

/// The after bench read 1,000 uncached tokens in 10 s (100 tok/s) and generated 200
/// in 20 s (10 tok/s); the before bench reported no timings, so its bound is taken
/// at those speeds: (1,000 / 100 + 200 / 10) / 2 steps = 15 s, marked.
#[test]
fn a_bench_without_timings_gets_its_bound_at_the_other_benchs_speeds() {
    let before = side(vec![timed(
        sample_row("g", "arigraph", 1, 0.2, Outcome::StepCap),
        0,
        0,
    )]);
    let mut fast = timed(
        sample_row("g", "arigraph", 1, 0.4, Outcome::StepCap),
        10_000,
        20_000,
    );
    fast.step_ms = vec![5_000, 15_000];
    let after = side(vec![fast]);
    let md = markdown(&before, &after).expect("comparable");
    assert!(
        md.contains(
            "| g | arigraph | before | 20.0 |  | 20.0 | 2000 / 300 | 50% | 20.00 | 15.0* | 1.33 |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| g | arigraph | after | 10.0 | 0.50x | 10.0 | 2000 / 300 | 50% | 20.00 | 15.0 | 0.67 |"),
        "{md}"
    );
    assert!(md.contains("at the other bench's speeds"), "{md}");
    assert!(
        md.contains("| g | arigraph | 0.20 (2/10) | 0.40 (4/10) | +0.20 |"),
        "{md}"
    );
}

#[test]
fn several_attempts_show_each_score_and_the_spread() {
    let rows = |xs: &[f64]| {
        side(
            xs.iter()
                .enumerate()
                .map(|(i, x)| sample_row("g", "arigraph", i as u32 + 1, *x, Outcome::StepCap))
                .collect(),
        )
    };
    // The first attempt finished last.
    let mut finished_late = rows(&[0.0, 0.2, 0.2]);
    finished_late.rows.rotate_left(1);
    let md = markdown(&finished_late, &rows(&[0.0, 0.0, 0.2, 0.4])).expect("comparable");
    // The best 3 only where it is not all of them.
    assert!(
        md.contains("| 0.13 ± 0.12 over 3 (0/10, 2/10, 2/10) | 0.15 ± 0.19 over 4 (0/10, 0/10, 2/10, 4/10; best 3: 0.20) | +0.02 |"),
        "{md}"
    );
    assert!(
        md.contains("| attempts per game and design (most) | 3 | 4 |"),
        "{md}"
    );
    // Rows without sums: no time figures, shown as such.
    assert!(md.contains("| g | arigraph | before | - |  | - |"), "{md}");
}

#[test]
fn pairs_in_one_bench_only_are_named() {
    let b = side(vec![sample_row("g", "rag", 1, 0.5, Outcome::StepCap)]);
    let a = side(vec![
        sample_row("g", "rag", 1, 0.5, Outcome::StepCap),
        sample_row("h", "rag", 1, 0.5, Outcome::StepCap),
    ]);
    let md = markdown(&b, &a).expect("comparable");
    assert!(
        md.contains("In one bench only (not compared): h / rag (after only)."),
        "{md}"
    );
}

/// A failed attempt is counted beside the scores, never hidden; a pair whose only
/// attempt failed is still the same pair, not "one bench only".
#[test]
fn failed_attempts_are_counted_not_hidden() {
    let b = side(vec![
        sample_row("g", "rag", 1, 0.5, Outcome::StepCap),
        sample_row("h", "rag", 1, 0.0, Outcome::Failed),
    ]);
    let a = side(vec![
        sample_row("g", "rag", 1, 0.5, Outcome::StepCap),
        sample_row("g", "rag", 2, 0.0, Outcome::Failed),
        sample_row("h", "rag", 1, 0.3, Outcome::StepCap),
    ]);
    let md = markdown(&b, &a).expect("comparable");
    assert!(
        md.contains("| g | rag | 0.50 (5/10) | 0.50 (5/10; 1 failed) | +0.00 |"),
        "{md}"
    );
    assert!(
        md.contains("| h | rag | - (no finished attempt; 1 failed) | 0.30 (3/10) | - |"),
        "{md}"
    );
    assert!(!md.contains("one bench only"), "{md}");
}

/// Nothing in common, or nothing finished on one side: an error, not empty tables.
#[test]
fn nothing_comparable_is_an_error() {
    let b = side(vec![sample_row("g", "rag", 1, 0.5, Outcome::StepCap)]);
    let a = side(vec![sample_row("h", "rag", 1, 0.5, Outcome::StepCap)]);
    let e = markdown(&b, &a).expect_err("nothing in common");
    assert!(e.to_string().contains("nothing to compare"), "{e}");
    let a = side(vec![sample_row("g", "rag", 1, 0.0, Outcome::Failed)]);
    assert!(markdown(&b, &a).is_err());
}

/// Speeds that do not hold for the other bench (its bound comes out above the time
/// its steps took) are flagged, not passed off as a bound.
#[test]
fn a_borrowed_bound_above_the_time_taken_is_flagged() {
    let before = side(vec![timed(
        sample_row("g", "arigraph", 1, 0.2, Outcome::StepCap),
        0,
        0,
    )]);
    // 1,000 uncached tokens in 100 s and 200 generated in 200 s: 10 and 1 tok/s, a
    // bound of (100 + 200) / 2 = 150 s per step against 20 s taken.
    let after = side(vec![timed(
        sample_row("g", "arigraph", 1, 0.4, Outcome::StepCap),
        100_000,
        200_000,
    )]);
    let md = markdown(&before, &after).expect("comparable");
    assert!(md.contains("| 150.0*! | 0.13 |"), "{md}");
    assert!(md.contains("read that bound as unknown"), "{md}");
}

/// A TALES summary as TALES's `benchmark.py` writes it (its keys, of one episode).
fn tales_summary(dir: &Path, game: &str, seed: u64, high: i64, wins: u64, tokens: u64) {
    let d = dir.join(game);
    std::fs::create_dir_all(&d).unwrap();
    let v = serde_json::json!({
        "status": "finished", "env_name": game, "env_params": format!("a0_s{seed}_steps20"),
        "nb_steps": 20, "nb_moves": 20, "nb_invalid_actions": 3, "nb_losts": 0,
        "nb_wins": wins, "nb_resets": 0, "highscore": high, "max_score": 100,
        "norm_score": high as f64 / 100.0, "duration": 600.0,
        "total/Prompt Tokens": tokens, "total/Response Tokens": tokens / 10,
        "final/Highscore": high, "wandb_run_id": null, "wandb_url": null,
    });
    std::fs::write(d.join(format!("a0_s{seed}_steps20.json")), v.to_string()).unwrap();
    // The episode's rollout beside it is not read.
    std::fs::write(d.join(format!("a0_s{seed}_steps20.jsonl")), "{}\n").unwrap();
}

/// Two agents played inside TALES: TALES's own LLM agent and Ariadne's module. Each
/// log is a side; their one design each are compared on one row, scored as TALES
/// scores, with what TALES did not report (Ariadne's tokens) named.
#[test]
fn two_tales_logs_compare_as_tales_scored_them() {
    let logs = tempfile::tempdir().unwrap();
    let zero = logs
        .path()
        .join("tales_LLMAgent_qwen2.5-1.5b_s20241001_t0.0");
    let ours = logs.path().join("tales_Ariadne_paper_arigraph");
    tales_summary(&zero, "TWXCookingWorld", 20241001, 20, 0, 30_000);
    tales_summary(&zero, "TWXCookingWorld", 20241002, 40, 0, 30_000);
    tales_summary(&ours, "TWXCookingWorld", 20241001, 100, 1, 0);
    tales_summary(&ours, "TWXCookingWorld", 20241002, 50, 0, 0);
    // benchmark.py without --game-seed names its files `a0_sNone_steps20`.
    let unseeded = ours.join("ScienceWorldBoil");
    std::fs::create_dir_all(&unseeded).unwrap();
    std::fs::copy(
        ours.join("TWXCookingWorld/a0_s20241001_steps20.json"),
        unseeded.join("a0_sNone_steps20.json"),
    )
    .unwrap();
    let b = read_side(&zero).unwrap();
    let a = read_side(&ours).unwrap();
    assert_eq!(b.rows.len(), 2);
    assert_eq!(a.rows.len(), 3);
    assert!(a.rows.iter().any(|r| r.game == "ScienceWorldBoil"));
    assert_eq!(
        b.rows[0].memory,
        "tales:LLMAgent_qwen2.5-1.5b_s20241001_t0.0"
    );
    let twx: Vec<&EpisodeRow> = a
        .rows
        .iter()
        .filter(|r| r.game == "TWXCookingWorld")
        .collect();
    assert_eq!((twx[0].run, twx[1].run), (1, 2));
    assert_eq!(twx[0].outcome, Outcome::Won);
    assert_eq!(twx[1].outcome, Outcome::StepCap);
    assert_eq!(a.settings.profiles, ["paper"]);
    let md = markdown(&b, &a).expect("comparable");
    assert!(md.contains("| played by | TALES | TALES |"), "{md}");
    assert!(md.contains("| step cap | 20 | 20 |"), "{md}");
    assert!(
        md.contains("| TWXCookingWorld | tales:LLMAgent_qwen2.5-1.5b_s20241001_t0.0 / arigraph | 0.30 ± 0.14 over 2 (20/100, 40/100) | 0.75 ± 0.35 over 2 (100/100, 50/100) | +0.45 |"),
        "{md}"
    );
    assert!(md.contains("report no tokens"), "{md}");
    // A file that is not TALES's summary is one line naming it.
    std::fs::write(ours.join("TWXCookingWorld/a0_s1_steps20.json"), "{}").unwrap();
    let e = read_side(&ours).unwrap_err();
    assert!(e.downcast_ref::<UserError>().is_some(), "bad input: exit 2");
    let e = e.to_string();
    assert!(
        e.contains("a0_s1_steps20.json") && e.contains("`highscore` is missing"),
        "{e}"
    );
    // Neither a directory nor there: said so.
    let file = logs.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    for (dir, says) in [
        (file, "not a directory"),
        (logs.path().join("nope"), "is not there"),
    ] {
        let e = read_side(&dir).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
}

/// The embedded server's settings name its build when it is not the wheel; a manifest
/// written before the build was recorded counts as the wheel.
#[test]
fn the_embedded_servers_build_is_a_setting() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs/paper");
    let mut settings = Settings::default();
    for build in [
        serde_json::Value::Null,
        json!("wheel"),
        json!("native (AMD EPYC 9B14)"),
    ] {
        let mut m = crate::trajectory::Manifest::read(&fixture).expect("the fixture's manifest");
        m.llm["chat"]["local_model"] = json!({"threads": 2, "ctx": 16384, "build": build});
        settings.add(&m);
    }
    assert_eq!(
        settings.servers,
        [
            "2 threads, ctx 16384",
            "2 threads, ctx 16384, native (AMD EPYC 9B14)"
        ]
    );
}
