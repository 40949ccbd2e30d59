//! ScienceWorld as a game family, through the real bridge (`python/scienceworld_bridge.py`,
//! the `scienceworld` package with its Java server): a task played to completion by its
//! gold path, three steps of every memory design against the scripted server, each run
//! replayed exactly; the oracle exact on the object tree's facts; a task or variation
//! that does not exist is one line.

mod common;

use std::process::Command;
use std::sync::Once;

use common::{Scripted, bin, play, read_jsonl, run_dir};

static SETUP: Once = Once::new();

fn setup_scienceworld() {
    SETUP.call_once(|| {
        let out = Command::new(bin())
            .args(["setup", "--games-only", "--scienceworld"])
            .output()
            .expect("run ariadne setup");
        assert!(
            out.status.success(),
            "ariadne setup --scienceworld failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

/// The shortest task of ScienceWorld 1.2.3 by its gold path (5 commands, variation 0).
const TASK: &str = "scienceworld:find-non-living-thing?variation=0";

#[test]
fn a_task_is_won_by_its_gold_path() {
    setup_scienceworld();
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .current_dir(work.path())
        .args(["play", TASK, "--walkthrough"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("score 100/100, won"), "{stdout}");
}

#[test]
fn every_memory_design_plays_three_steps_and_replays_exactly() {
    setup_scienceworld();
    for design in [
        "arigraph",
        "arigraph-no-episodic",
        "full-history",
        "no-memory",
        "summary",
        "rag",
        "simulacra",
        "reflexion",
    ] {
        let server = Scripted::start(&[]);
        let work = tempfile::tempdir().unwrap();
        let mut args = vec![TASK, "--max-steps", "3", "--quiet", "--memory", design];
        if design == "reflexion" {
            args.extend(["--trials", "1"]);
        }
        let out = play(work.path(), &server.base_url, &args);
        assert!(
            out.status.success(),
            "{design}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = run_dir(work.path());
        let steps = read_jsonl(&dir.join("steps.jsonl"));
        assert_eq!(steps.len(), 3, "{design}");
        // The task description is the goal; the room is read from the look text.
        let manifest = common::read_json(dir.join("manifest.json"));
        assert!(
            manifest["goal"]["text"]
                .as_str()
                .unwrap_or_default()
                .contains("Your task is to find a(n) non-living thing"),
            "{design}: {}",
            manifest["goal"]
        );
        assert!(steps[0]["room"].is_string(), "{design}");
        let replay = Command::new(bin())
            .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
            .env("ARIADNE_EMBED_BASE_URL", "http://127.0.0.1:9/v1")
            .args(["replay", dir.to_str().unwrap(), "--quiet"])
            .output()
            .unwrap();
        assert!(
            replay.status.success(),
            "{design}: {}",
            String::from_utf8_lossy(&replay.stderr)
        );
    }
}

#[test]
fn a_task_or_variation_that_does_not_exist_is_one_line() {
    setup_scienceworld();
    for (game, says) in [
        ("scienceworld:bake", "unknown ScienceWorld task"),
        (
            "scienceworld:boil?variation=99",
            "error: bad game specification scienceworld:boil?variation=99: task 'boil' has variations 0 to 29, not 99",
        ),
        ("scienceworld:boil?seed=1", "unknown parameter"),
    ] {
        let work = tempfile::tempdir().unwrap();
        let out = Command::new(bin())
            .current_dir(work.path())
            .args(["play", game, "--walkthrough"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{game}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{game}: {stderr}");
        assert!(stderr.contains(says), "{game}: {stderr}");
    }
}

/// The gold path drives the oracle memory: the object tree's facts (where things are)
/// are the ground truth, and the oracle, which holds them, is exact on them.
#[test]
fn the_oracle_is_exact_on_the_object_tree() {
    setup_scienceworld();
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let out = play(
        work.path(),
        &server.base_url,
        &[TASK, "--walkthrough", "--memory", "oracle", "--quiet"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = run_dir(work.path());
    assert_eq!(
        common::read_json(dir.join("summary.json"))["outcome"],
        "won"
    );
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps.len(), 5);
    for s in &steps {
        let w = &s["world_model"];
        assert_eq!(w["precision"], 1.0, "step {}: {w}", s["step"]);
        assert_eq!(w["recall"], 1.0, "step {}: {w}", s["step"]);
        assert!(w["observed_facts"].as_u64().unwrap() > 0, "{w}");
    }
    // The facts: the agent's room, what it carries (variation 0 starts with an orange),
    // and the things of every room visited so far (the hallway's stay known).
    let facts = |i: usize| steps[i]["ground_truth"].as_array().unwrap().clone();
    let has = |i: usize, f: serde_json::Value| facts(i).contains(&f);
    assert!(has(0, serde_json::json!(["decides", "location"])));
    assert!(
        has(0, serde_json::json!(["at", "P", "hallway"])),
        "{:?}",
        facts(0)
    );
    assert!(
        has(0, serde_json::json!(["in", "orange", "I"])),
        "{:?}",
        facts(0)
    );
    assert!(
        has(2, serde_json::json!(["at", "P", "kitchen"])),
        "{:?}",
        facts(2)
    );
    assert!(
        has(2, serde_json::json!(["at", "picture", "hallway"])),
        "{:?}",
        facts(2)
    );
    // Electrical terminals are parts, not things.
    assert!(
        !steps
            .iter()
            .any(|s| s["ground_truth"].to_string().contains("terminal"))
    );
}
