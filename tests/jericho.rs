//! End-to-end tests of human-written z-machine games through the real Jericho bridge
//! (`python/jericho_bridge.py`): a small Inform 6 game the tests compile themselves
//! (`tests/if/cellar.inf`, with Debian's `inform6-compiler`, which `scripts/test`
//! installs) is played in free-text mode against the scripted server, its object tree
//! read as ground truth, and the bridge's failures are each one line with the finished
//! steps kept. Games Jericho supports (the reference repository's `detective.z5` and
//! `zork1.z5`) are played by their walkthrough when `ARIADNE_JERICHO_GAMES` names a
//! folder holding them; the test says "skipped" otherwise.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Once;

use common::{Scripted, bin, play_command, read_json, read_jsonl, run_dir};
use serde_json::Value;

/// The walkthrough of `tests/if/cellar.inf`.
const CELLAR: &[&str] = &[
    "take key",
    "north",
    "unlock door with key",
    "open door",
    "east",
    "open box",
    "take coin",
    "west",
    "south",
    "put coin on table",
];

static SETUP: Once = Once::new();
static COMPILED: Once = Once::new();

fn setup_jericho() {
    SETUP.call_once(|| {
        let out = Command::new(bin())
            .args(["setup", "--games-only", "--jericho"])
            .output()
            .expect("run ariadne setup");
        assert!(
            out.status.success(),
            "ariadne setup --jericho failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

/// The compiled test game (built once per test binary, into the target folder).
fn cellar() -> PathBuf {
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("if");
    let story = out_dir.join("cellar.z5");
    COMPILED.call_once(|| {
        std::fs::create_dir_all(&out_dir).unwrap();
        let source = common::root().join("tests/if/cellar.inf");
        let library = std::env::var("ARIADNE_INFORM6_LIBRARY")
            .unwrap_or_else(|_| "/usr/share/inform6/library".into());
        let out = Command::new("inform6")
            .arg("-v5")
            .arg(format!("+{library}"))
            .arg(&source)
            .arg(&story)
            .output()
            .expect("run inform6 (install Debian's inform6-compiler; scripts/test does)");
        assert!(
            out.status.success() && story.is_file(),
            "inform6 failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    });
    story
}

/// `ariadne play` on a Jericho game against the scripted server.
fn play(work: &Path, server: &Scripted, args: &[&str]) -> Output {
    setup_jericho();
    play_command(work, &server.base_url, args)
        .output()
        .expect("run ariadne play")
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The agent plays the unsupported test game in free-text mode: each command is the
/// LLM's own text (no list in the schema or the prompt), the game is won, the object
/// tree is the ground truth of every step, and the run replays exactly.
#[test]
fn free_text_play_wins_the_inform_game_and_replays() {
    let story = cellar();
    // A meta-command first: refused by the agent (the scripted server then gives the
    // next command on the retry).
    let mut script = vec!["save"];
    script.extend_from_slice(CELLAR);
    let server = Scripted::start(&script);
    let work = tempfile::tempdir().unwrap();
    let g = story.display().to_string();
    let out = play(
        work.path(),
        &server,
        &[
            &g,
            "--max-steps",
            "12",
            "--goal",
            "Put the gold coin on the kitchen table.",
            "--quiet",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let dir = run_dir(work.path());
    let summary = read_json(dir.join("summary.json"));
    assert_eq!(summary["outcome"], "won", "{summary}");
    assert!(
        summary["llm_failures"].as_u64().unwrap() >= 1,
        "the save was refused"
    );
    assert_eq!(summary["score"], 2);
    assert_eq!(summary["max_score"], 2);
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    let sent: Vec<&str> = steps.iter().filter_map(|s| s["action"].as_str()).collect();
    assert_eq!(sent, CELLAR);
    for s in &steps {
        assert_eq!(s["action_source"], "llm", "{s}");
        assert!(s["admissible_commands"].as_array().unwrap().is_empty());
        let facts = s["ground_truth"].as_array().expect("object tree facts");
        assert_eq!(facts[0], serde_json::json!(["decides", "location"]));
        assert!(s["world_model"]["precision"].is_number(), "{s}");
    }
    // Where the player and the key are, as the tree says at the first step.
    let first = steps[0]["ground_truth"].as_array().unwrap();
    assert!(
        first.contains(&serde_json::json!(["at", "P", "Kitchen"])),
        "{first:?}"
    );
    assert!(first.contains(&serde_json::json!(["in", "brass key", "wooden table"])));
    // What the LLM was asked: a command, not a choice.
    let chats = server.script.lock().unwrap().chats.clone();
    let action = chats
        .iter()
        .find(|c| common::purpose(c) == "action")
        .expect("an action call");
    let schema = &action["response_format"]["json_schema"]["schema"]["properties"]["action"];
    assert!(schema.get("enum").is_none(), "{schema}");
    let prompt = action["messages"].to_string();
    assert!(prompt.contains("write"), "{prompt}");
    assert!(!prompt.contains("Admissible actions"), "{prompt}");
    let manifest = read_json(dir.join("manifest.json"));
    assert!(
        manifest["game"]["path"]
            .as_str()
            .unwrap()
            .starts_with("jericho:")
    );

    let replay = Command::new(bin())
        .current_dir(work.path())
        .args(["replay"])
        .arg(&dir)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", text(&replay));
}

/// The walkthrough (from the game's sidecar) drives the oracle memory: it wins, and
/// the oracle is exact on the facts the object tree decides.
#[test]
fn the_oracle_is_exact_on_the_object_tree() {
    let story = cellar();
    let work = tempfile::tempdir().unwrap();
    // A sidecar beside a copy of the game gives the walkthrough Jericho cannot.
    let copy = work.path().join("cellar.z5");
    std::fs::copy(&story, &copy).unwrap();
    // The walkthrough starts with a `save`, which the bridge refuses (no file written,
    // no turn).
    let mut walk = vec!["save"];
    walk.extend_from_slice(CELLAR);
    std::fs::write(
        work.path().join("cellar.json"),
        serde_json::json!({"walkthrough": walk, "objective": "Put the gold coin on the kitchen table."})
            .to_string(),
    )
    .unwrap();
    let server = Scripted::start(&[]);
    let g = copy.display().to_string();
    let out = play(
        work.path(),
        &server,
        &[&g, "--walkthrough", "--memory", "oracle", "--quiet"],
    );
    assert!(out.status.success(), "{}", text(&out));
    let dir = run_dir(work.path());
    let summary = read_json(dir.join("summary.json"));
    assert_eq!(summary["outcome"], "won", "{summary}");
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps.len(), CELLAR.len() + 1);
    assert!(
        steps[0]["feedback"]
            .as_str()
            .unwrap()
            .contains("is not played"),
        "{}",
        steps[0]
    );
    let files: Vec<String> = std::fs::read_dir(work.path())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    assert!(
        !files
            .iter()
            .any(|f| f.ends_with(".qzl") || f.ends_with(".sav")),
        "{files:?}"
    );
    for s in &steps {
        let w = &s["world_model"];
        assert_eq!(w["precision"], 1.0, "step {}: {w}", s["step"]);
        assert_eq!(w["recall"], 1.0, "step {}: {w}", s["step"]);
        assert!(w["observed_facts"].as_u64().unwrap() > 0, "{w}");
    }
}

/// Each failure of the bridge is one line, and the steps finished before it are kept.
#[test]
fn bridge_failures_are_one_line_with_the_steps_kept() {
    let story = cellar();
    let work = tempfile::tempdir().unwrap();
    let server = Scripted::start(&[]);

    // A missing file, and a file that is not a z-machine story.
    let missing = work.path().join("nowhere.z5");
    let out = play(
        work.path(),
        &server,
        &[missing.to_str().unwrap(), "--max-steps", "1"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("game not found") && err.trim().lines().count() == 1,
        "{err}"
    );
    let fake = work.path().join("notes.z5");
    std::fs::write(&fake, "these are notes, not a story file; ".repeat(4)).unwrap();
    let out = play(
        work.path(),
        &server,
        &[fake.to_str().unwrap(), "--max-steps", "1"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a z-machine story file") && err.trim().lines().count() == 1,
        "{err}"
    );

    // The interpreter halts on a runtime error (the game's `crash` verb), and hangs
    // (its `hang` verb) past --game-timeout: each ends the episode after step 2.
    for (verb, says) in [("crash", "interpreter halted"), ("hang", "did not answer")] {
        let w = tempfile::tempdir().unwrap();
        let server = Scripted::start(&["take key", verb]);
        let g = story.display().to_string();
        let out = play(
            w.path(),
            &server,
            &[&g, "--max-steps", "5", "--game-timeout", "5", "--quiet"],
        );
        assert!(!out.status.success(), "{verb}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{verb}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{verb}: {err}");
        let dir = run_dir(w.path());
        let steps = read_jsonl(&dir.join("steps.jsonl"));
        assert_eq!(steps.len(), 1, "{verb}: the finished step is kept");
        assert_eq!(steps[0]["action"], "take key");
        let summary = read_json(dir.join("summary.json"));
        assert_eq!(summary["outcome"], "error", "{verb}: {summary}");
    }
}

/// The reference repository's Jericho games, played by their walkthrough with the
/// oracle memory, when `ARIADNE_JERICHO_GAMES` names their folder.
#[test]
fn supported_games_win_by_walkthrough_when_a_games_folder_is_given() {
    let Some(dir) = std::env::var_os("ARIADNE_JERICHO_GAMES").map(PathBuf::from) else {
        eprintln!("skipped: set ARIADNE_JERICHO_GAMES to a folder with detective.z5 and zork1.z5");
        return;
    };
    for name in ["detective.z5", "zork1.z5"] {
        let g = dir.join(name);
        if !g.is_file() {
            eprintln!("skipped: {} is not there", g.display());
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        let server = Scripted::start(&[]);
        let gs = g.display().to_string();
        let out = play(
            work.path(),
            &server,
            &[
                &gs,
                "--walkthrough",
                "--memory",
                "oracle",
                "--quiet",
                "--max-steps",
                "500",
            ],
        );
        assert!(out.status.success(), "{name}: {}", text(&out));
        let run = run_dir(work.path());
        let summary: Value = read_json(run.join("summary.json"));
        assert_eq!(summary["outcome"], "won", "{name}: {summary}");
        let wm = &summary["world_model"];
        assert_eq!(wm["mean_precision"], 1.0, "{name}: {wm}");
        assert_eq!(wm["mean_recall"], 1.0, "{name}: {wm}");
    }
}
