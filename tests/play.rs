//! End-to-end tests of `ariadne play`: the real binary, the real TextWorld bridge on a
//! bundled game, and a scripted OpenAI-compatible server on loopback.

mod common;

use common::{Scripted, game, play, read_jsonl, root, run_dir, triplet_text};
use serde_json::Value;

const SIMPLE_WALKTHROUGH: &[&str] = &[
    "open antique trunk",
    "take old key from antique trunk",
    "unlock wooden door with old key",
    "open wooden door",
    "go east",
    "open screen door",
    "go east",
    "go south",
    "take half of a bag of chips",
    "go north",
    "go west",
    "put half of a bag of chips on stove",
];

#[test]
fn play_wins_simple_game_and_logs_every_step() {
    let server = Scripted::start(SIMPLE_WALKTHROUGH);
    let work = tempfile::tempdir().unwrap();
    let out = play(
        work.path(),
        &server.base_url,
        // The scripted embeddings carry no meaning: no similarity cut-off, so that
        // retrieval reaching the prompts is what is tested.
        &[
            &game("simple.z8"),
            "--max-steps",
            "20",
            "--quiet",
            "--cutoff",
            "0",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("won | score 10/10"), "{stdout}");

    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps.len(), SIMPLE_WALKTHROUGH.len());
    let actions: Vec<&str> = steps
        .iter()
        .map(|s| s["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, SIMPLE_WALKTHROUGH);
    let last = steps.last().unwrap();
    assert_eq!(last["won"], true);
    assert_eq!(last["score"], 10);
    assert_eq!(
        steps
            .iter()
            .map(|s| s["reward"].as_i64().unwrap())
            .sum::<i64>(),
        10
    );

    // Every step records the observation, the admissible commands, and its LLM calls.
    for s in &steps {
        assert!(!s["observation"].as_str().unwrap().is_empty());
        assert!(
            s["admissible_commands"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a == &s["action"])
        );
        let purposes: Vec<&str> = s["llm_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["purpose"].as_str().unwrap())
            .collect();
        assert_eq!(purposes.first(), Some(&"extract_triplets"));
        assert!(purposes.ends_with(&["plan", "action"]), "{purposes:?}");
        for c in s["llm_calls"].as_array().unwrap() {
            assert!(c["usage"]["prompt_tokens"].as_u64().unwrap() > 0);
            assert!(!c["messages"].as_array().unwrap().is_empty());
        }
        assert_eq!(s["action_source"], "llm");
    }

    // The banner is stripped; the room header gives the room.
    assert!(!steps[0]["observation"].as_str().unwrap().contains("$$"));
    assert_eq!(steps[0]["room"], "Bedroom");

    // Outdated-edge replacement: after "go east" the player is no longer in the bedroom.
    let removed: Vec<String> = steps
        .iter()
        .flat_map(|s| s["memory"]["removed"].as_array().unwrap().iter())
        .map(triplet_text)
        .collect();
    assert!(
        removed.contains(&"player, is in, bedroom".to_string()),
        "{removed:?}"
    );
    assert!(
        removed.contains(&"wooden door, is, closed".to_string()),
        "{removed:?}"
    );
    let added_at_5: Vec<&Value> = steps[5]["memory"]["added"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert!(
        added_at_5.iter().any(|t| t["object"] == "kitchen"),
        "{added_at_5:?}"
    );

    // Retrieval reaches the prompts: the action prompt holds retrieved facts.
    let chats = server.script.lock().unwrap().chats.clone();
    let action_prompt = chats
        .iter()
        .rev()
        .find(|c| c["response_format"]["json_schema"]["name"] == "action")
        .unwrap()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let facts = &last["retrieval"]["triplets"];
    assert!(!facts.as_array().unwrap().is_empty());
    assert!(
        action_prompt.contains(facts[0]["triplet"].as_str().unwrap()),
        "{action_prompt}"
    );
    // The action is constrained by an enum of the admissible commands.
    assert!(chats.iter().any(|c| {
        c["response_format"]["json_schema"]["schema"]["properties"]["action_to_take"]["enum"]
            .is_array()
    }));

    // Embeddings: triplets once each, as passages.
    let vectors = read_jsonl(&dir.join("embeddings.jsonl"));
    let passages: Vec<&str> = vectors
        .iter()
        .filter(|v| v["kind"] == "passage")
        .map(|v| v["text"].as_str().unwrap())
        .collect();
    let mut unique = passages.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(passages.len(), unique.len(), "a triplet was embedded twice");

    // Manifest and summary; the key never reaches the disk.
    let manifest: Value = common::read_json(dir.join("manifest.json"));
    assert_eq!(manifest["format_version"], 3);
    assert_eq!(manifest["memory"]["hop_scope"], "all");
    assert_eq!(
        manifest["llm"]["chat"]["base_url"],
        server.base_url.as_str()
    );
    assert_eq!(manifest["llm"]["chat"]["api_key_set"], true);
    assert_eq!(manifest["memory"]["depth"], 2);
    let summary: Value = common::read_json(dir.join("summary.json"));
    assert_eq!(summary["outcome"], "won");
    assert_eq!(summary["steps"], 12);
    assert_eq!(summary["normalized_score"], 1.0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        assert!(
            !text.contains("sk-test-secret-key-123"),
            "the API key reached the run directory"
        );
    }
}

#[test]
fn junk_answers_are_retried_repaired_and_counted() {
    let server = Scripted::start(SIMPLE_WALKTHROUGH);
    {
        let mut s = server.script.lock().unwrap();
        // Call 0: extraction answers prose (retried as call 1); calls 2 and 3 are the
        // exploration check and the key items; call 4: plan in a code fence
        // (repaired); calls 5 and 6: the action twice invalid (fallback).
        s.junk = vec![
            (0, "I see a bedroom.".into()),
            (4, "```json\n{\"main_goal\": \"g\", \"plan_steps\": [{\"sub_goal_1\": \"open the trunk\", \"reason\": \"key\"}], \"your_emotion\": {\"your_current_emotion\": \"calm\", \"reason_behind_emotion\": \"r\"},}\n```".into()),
            (5, "{\"reason_for_action\": \"x\", \"action_to_take\": \"fly away\"}".into()),
            (6, "not json at all".into()),
        ];
    }
    let work = tempfile::tempdir().unwrap();
    let out = play(
        work.path(),
        &server.base_url,
        &[&game("simple.z8"), "--max-steps", "2", "--quiet"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps = read_jsonl(&run_dir(work.path()).join("steps.jsonl"));
    assert_eq!(steps.len(), 2);
    let first = &steps[0];
    assert_eq!(first["llm_failures"], 3);
    assert_eq!(first["llm_repairs"], 1);
    assert_eq!(first["action_source"], "fallback");
    assert_eq!(first["plan"][0]["sub_goal"], "open the trunk");
    let calls = first["llm_calls"].as_array().unwrap();
    assert_eq!(
        calls[0]["error"]
            .as_str()
            .map(|e| e.contains("no JSON object")),
        Some(true)
    );
    assert_eq!(calls[1]["attempt"], 2);
    assert!(
        first["admissible_commands"]
            .as_array()
            .unwrap()
            .contains(&first["action"])
    );
}

#[test]
fn missing_game_is_one_clear_line() {
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let out = play(work.path(), &server.base_url, &["no-such-game"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("game not found: no-such-game"), "{stderr}");
}

/// A game of the authors' suite named without its folder, where the default folder
/// does not hold it: the line says where the suite is read from and how to give it.
#[test]
fn a_suite_game_outside_its_folder_says_how_to_give_the_folder() {
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let out = play(work.path(), &server.base_url, &["arigraph-paper:hunt"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    for says in [
        "game not found:",
        "hunt.z8",
        "arigraph-paper:hunt@DIR",
        "ARIADNE_ARIGRAPH_ENVS",
    ] {
        assert!(stderr.contains(says), "{says}: {stderr}");
    }
}

#[test]
fn missing_sidecar_is_one_clear_line() {
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let z8 = work.path().join("lonely.z8");
    std::fs::copy(root().join("games/simple.z8"), &z8).unwrap();
    let out = play(work.path(), &server.base_url, &[z8.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("sidecar is missing") && stderr.contains("lonely.json"),
        "{stderr}"
    );
}

#[test]
fn unreachable_endpoint_is_one_clear_line() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let work = tempfile::tempdir().unwrap();
    let out = play(work.path(), &url, &[&game("simple.z8"), "--max-steps", "3"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].contains("cannot reach the") && errors[0].contains(&url),
        "{stderr}"
    );
    // The run directory exists with its manifest and a summary that says why.
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(run_dir(work.path()).join("summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(summary["outcome"], "error");
}

/// Chat calls per step when the scripted run follows the walkthrough from step 1:
/// extract, exploration check, key items, plan, action (step 1 has nothing to check
/// for outdated facts).
const CALLS_STEP_1: usize = 5;

fn started_run(
    work: &std::path::Path,
    server: &Scripted,
) -> (std::process::Child, std::path::PathBuf) {
    let child = common::play_command(
        work,
        &server.base_url,
        &[&game("simple.z8"), "--max-steps", "20", "--quiet"],
    )
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !work.join("runs").exists()
        || std::fs::read_dir(work.join("runs"))
            .unwrap()
            .next()
            .is_none()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no run directory appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let dir = run_dir(work);
    (child, dir)
}

#[test]
fn killed_run_keeps_every_finished_step() {
    let server = Scripted::start(SIMPLE_WALKTHROUGH);
    // Hang inside step 2 (after step 1's calls and step 2's extraction).
    server.script.lock().unwrap().hang_after = Some(CALLS_STEP_1 + 1);
    let work = tempfile::tempdir().unwrap();
    let (mut child, dir) = started_run(work.path(), &server);
    common::wait_for_lines(&dir.join("steps.jsonl"), 1);
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0]["action"], SIMPLE_WALKTHROUGH[0]);
    assert!(dir.join("manifest.json").is_file());
    let (records, truncated) = ariadne::trajectory::read_steps(&dir).unwrap();
    assert_eq!((records.len(), truncated), (1, false));
}

#[test]
fn ctrl_c_writes_the_summary_and_exits_130() {
    let server = Scripted::start(SIMPLE_WALKTHROUGH);
    server.script.lock().unwrap().hang_after = Some(CALLS_STEP_1 + 1);
    let work = tempfile::tempdir().unwrap();
    let (child, dir) = started_run(work.path(), &server);
    common::wait_for_lines(&dir.join("steps.jsonl"), 1);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let summary: Value = common::read_json(dir.join("summary.json"));
    assert_eq!(summary["outcome"], "interrupted");
    assert_eq!(summary["steps"], 1);
    assert_eq!(summary["score"], 1);
}

#[test]
fn truncated_last_line_is_skipped_when_reading() {
    let dir = tempfile::tempdir().unwrap();
    let server = Scripted::start(SIMPLE_WALKTHROUGH);
    let work = tempfile::tempdir().unwrap();
    let out = play(
        work.path(),
        &server.base_url,
        &[&game("simple.z8"), "--max-steps", "2", "--quiet"],
    );
    assert!(out.status.success());
    let run = run_dir(work.path());
    let text = std::fs::read_to_string(run.join("steps.jsonl")).unwrap();
    let cut = &text[..text.len() - 40];
    std::fs::write(dir.path().join("steps.jsonl"), cut).unwrap();
    let (records, truncated) = ariadne::trajectory::read_steps(dir.path()).unwrap();
    assert_eq!(records.len(), 1);
    assert!(truncated);
}

/// Regression: an unloadable game (empty .z8, garbage sidecar) exited 1 with a bare
/// JSONDecodeError.
#[test]
fn unloadable_game_is_one_clear_line_with_exit_2() {
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("x.z8"), b"").unwrap();
    std::fs::write(work.path().join("x.json"), b"garbage").unwrap();
    let out = play(work.path(), &server.base_url, &["x.z8", "--quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot load the game x.z8"), "{stderr}");
    let out = play(work.path(), &server.base_url, &["x.z8", "--max-steps", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let out = play(work.path(), "not-a-url", &[&game("simple.z8")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an http(s) URL"));
}

/// Paper section 2: rewards "are not visible to the LLM agent". No prompt of any design
/// shows the score or a score-derived warning unless `--show-score` asks for it.
#[test]
fn the_score_reaches_no_prompt_unless_asked() {
    let prompts_of = |design: &str, extra: &[&str]| -> (Vec<String>, Value) {
        let server = Scripted::start(SIMPLE_WALKTHROUGH);
        let work = tempfile::tempdir().unwrap();
        let mut args = vec![
            game("simple.z8"),
            "--max-steps".into(),
            "4".into(),
            "--quiet".into(),
            "--memory".into(),
            design.into(),
        ];
        // Only Reflexion plays trials (another design refuses `--trials`).
        if design == "reflexion" {
            args.extend(["--trials".into(), "2".into()]);
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = play(work.path(), &server.base_url, &refs);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let chats = server.script.lock().unwrap().chats.clone();
        let texts = chats
            .iter()
            .flat_map(|c| c["messages"].as_array().cloned().unwrap_or_default())
            .map(|m| m["content"].as_str().unwrap_or("").to_string())
            .collect();
        // Reflexion's trials are several run directories; any one has the settings.
        let dir = std::fs::read_dir(work.path().join("runs"))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.is_dir())
            .unwrap();
        let manifest: Value = common::read_json(dir.join("manifest.json"));
        (texts, manifest)
    };
    for design in [
        "arigraph",
        "full-history",
        "summary",
        "rag",
        "simulacra",
        "reflexion",
    ] {
        let (texts, manifest) = prompts_of(design, &[]);
        assert_eq!(manifest["agent"]["show_score"], false);
        for t in &texts {
            assert!(
                !t.contains("Score ") && !t.contains(" of 10") && !t.contains("no score gained"),
                "{design}: the score reached a prompt:\n{t}"
            );
        }
    }
    let (texts, manifest) = prompts_of("arigraph", &["--show-score"]);
    assert_eq!(manifest["agent"]["show_score"], true);
    assert!(
        texts.iter().any(|t| t.contains("Score 1 of 10")),
        "{texts:?}"
    );
}

/// `--free-text` is a switch for every environment: on a TextWorld game the agent
/// writes its commands (no list in the schema or the prompt), they reach the game as
/// written, and the manifest records the mode.
#[test]
fn free_text_mode_plays_a_textworld_game() {
    let script = ["open antique trunk", "take old key from antique trunk"];
    let server = Scripted::start(&script);
    let work = tempfile::tempdir().unwrap();
    let g = game("simple.z8");
    let out = play(
        work.path(),
        &server.base_url,
        &[&g, "--max-steps", "2", "--free-text", "--quiet"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    let sent: Vec<&str> = steps.iter().filter_map(|s| s["action"].as_str()).collect();
    assert_eq!(sent, script);
    assert!(
        steps[1]["observation"]
            .as_str()
            .unwrap()
            .contains("old key")
    );
    assert!(steps.iter().all(|s| s["action_source"] == "llm"));
    let manifest = common::read_json(dir.join("manifest.json"));
    assert_eq!(manifest["agent"]["free_text"], true);
    let chats = server.script.lock().unwrap().chats.clone();
    let action = chats
        .iter()
        .find(|c| common::purpose(c) == "action")
        .unwrap();
    assert!(
        action["response_format"]["json_schema"]["schema"]["properties"]["action_to_take"]
            .get("enum")
            .is_none()
    );
    assert!(
        !action["messages"]
            .to_string()
            .contains("Admissible actions")
    );
}
