//! End-to-end tests of the second environment family behind the `Environment` seam:
//! TextWorld-Express games through the real bridge (`python/twx_bridge.py`), played by
//! their gold path and by the agent against a scripted OpenAI-compatible server.

mod common;

use std::process::Command;
use std::sync::Once;

use common::{Scripted, bin, play, read_jsonl, run_dir};

static SETUP: Once = Once::new();

fn setup_twx() {
    SETUP.call_once(|| {
        let out = Command::new(bin())
            .args(["setup", "--games-only", "--twx"])
            .output()
            .expect("run ariadne setup");
        assert!(
            out.status.success(),
            "ariadne setup --twx failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

/// Play a game's gold path with `play --walkthrough`; returns the commands sent.
fn walkthrough(game: &str) -> Vec<String> {
    setup_twx();
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .current_dir(work.path())
        .args(["play", game, "--walkthrough"])
        .output()
        .expect("run ariadne play --walkthrough");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{game}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(", won"), "{stdout}");
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("> "))
        .map(|l| l.split(" (").next().unwrap_or(l).trim().to_string())
        .collect()
}

#[test]
fn gold_paths_win_on_three_families() {
    for game in [
        "twx:cookingworld?seed=1",
        "twx:coin?seed=3",
        "twx:twc?seed=2",
    ] {
        let commands = walkthrough(game);
        assert!(!commands.is_empty(), "{game}");
    }
}

#[test]
fn the_agent_plays_a_twx_game_against_the_scripted_server() {
    let game = "twx:coin?seed=3";
    let commands = walkthrough(game);
    let refs: Vec<&str> = commands.iter().map(String::as_str).collect();
    let server = Scripted::start(&refs);
    let work = tempfile::tempdir().unwrap();
    let out = play(
        work.path(),
        &server.base_url,
        &[game, "--max-steps", "30", "--quiet"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("won | score"), "{stdout}");
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    let actions: Vec<&str> = steps
        .iter()
        .map(|s| s["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, refs);
    let manifest: serde_json::Value = common::read_json(dir.join("manifest.json"));
    assert_eq!(manifest["game"]["path"], "twx:coin?seed=3");
    assert!(manifest["versions"]["textworld_express"].is_string());

    // The run replays exactly, like a TextWorld run.
    let replay = Command::new(bin())
        .current_dir(work.path())
        .args(["replay"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}

#[test]
fn an_unknown_twx_game_is_one_clear_line() {
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .current_dir(work.path())
        .args(["play", "twx:zork", "--walkthrough"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown TextWorld-Express game"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// Regression: a TextWorld-Express game may give another walkthrough at each reset
/// (Coin Collector's gold path varies from process to process); a walkthrough-driven
/// run records the one it played, and its replay plays that one.
#[test]
fn a_walkthrough_driven_run_replays_its_recorded_walkthrough() {
    setup_twx();
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let out = play(
        work.path(),
        &server.base_url,
        &[
            "twx:coin?seed=2",
            "--walkthrough",
            "--memory",
            "full-history",
            "--quiet",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = run_dir(work.path());
    let manifest: serde_json::Value = common::read_json(dir.join("manifest.json"));
    let recorded = manifest["walkthrough_commands"].as_array().unwrap().len();
    assert!(recorded > 0);
    assert_eq!(read_jsonl(&dir.join("steps.jsonl")).len(), recorded);
    for _ in 0..3 {
        let replay = Command::new(bin())
            .current_dir(work.path())
            .args(["replay", "--quiet"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            replay.status.success(),
            "{}",
            String::from_utf8_lossy(&replay.stderr)
        );
    }
}
