//! End-to-end tests of `ariadne replay`: a scripted run replayed with no LLM server,
//! a tampered log, a truncated log, continue-from, inspection, export, what-if, stats.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{Scripted, bin, game, play, read_jsonl, run_dir};
use serde_json::Value;

const WALK: &[&str] = &[
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

/// Play `steps` steps of the simple game with the scripted server; return the run dir.
fn scripted_run(work: &Path, steps: u32) -> std::path::PathBuf {
    scripted_run_with(work, steps, &[])
}

/// [`scripted_run`] with more `play` options.
fn scripted_run_with(work: &Path, steps: u32, extra: &[&str]) -> std::path::PathBuf {
    let server = Scripted::start(WALK);
    let steps = steps.to_string();
    let mut args = vec![game("simple.z8")];
    args.extend(["--max-steps", &steps, "--quiet"].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = play(work, &server.base_url, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    run_dir(work)
}

/// `ariadne replay` with no reachable LLM: any network call would fail the test.
fn replay(work: &Path, args: &[&str]) -> Output {
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    Command::new(bin())
        .current_dir(work)
        .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{dead}/v1"))
        .env(
            "ARIADNE_EMBED_BASE_URL",
            format!("http://127.0.0.1:{dead}/v1"),
        )
        .arg("replay")
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn replay_of_an_unmodified_run_matches_every_step_without_network() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run(work.path(), 20);
    let out = replay(work.path(), &[dir.to_str().unwrap(), "--quiet"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("replayed 12 steps of") && stdout.contains("every step matches the log"),
        "{stdout}"
    );
}

/// `--model-for` sends each call kind to its model (the server sees the names), records
/// the split in the manifest, and the run replays exactly.
#[test]
fn a_model_per_call_kind_reaches_the_endpoint_and_replays() {
    let work = tempfile::tempdir().unwrap();
    let server = Scripted::start(WALK);
    let args = [
        game("simple.z8"),
        "--max-steps".into(),
        "3".into(),
        "--quiet".into(),
        "--model".into(),
        "D".into(),
        "--model-for".into(),
        "plan=A,action=A,extraction=B".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = play(work.path(), &server.base_url, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let chats = server.script.lock().unwrap().chats.clone();
    let mut seen = std::collections::BTreeMap::new();
    for body in &chats {
        let name = common::purpose(body).to_string();
        seen.entry(name)
            .or_insert_with(std::collections::BTreeSet::new)
            .insert(body["model"].as_str().unwrap_or("").to_string());
    }
    let one = |m: &str| std::collections::BTreeSet::from([m.to_string()]);
    assert_eq!(seen["plan"], one("A"), "{seen:?}");
    assert_eq!(seen["action"], one("A"), "{seen:?}");
    assert_eq!(seen["extract_triplets"], one("B"), "{seen:?}");
    assert_eq!(seen["key_items"], one("D"), "{seen:?}");
    let dir = run_dir(work.path());
    let manifest: Value = common::read_json(dir.join("manifest.json"));
    assert_eq!(
        manifest["llm"]["chat"]["models"],
        serde_json::json!({"extraction": "B", "plan": "A", "action": "A"})
    );
    let out = replay(work.path(), &[dir.to_str().unwrap(), "--quiet"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("every step matches the log"), "{stdout}");
}

/// Runs started in the same second each get a directory of their own (the name gets a
/// suffix), none fails on a name another has just taken.
#[test]
fn runs_started_at_once_get_a_directory_each() {
    let work = tempfile::tempdir().unwrap();
    let server = Scripted::start(WALK);
    let g = game("simple.z8");
    let children: Vec<_> = (0..4)
        .map(|_| {
            common::play_command(
                work.path(),
                &server.base_url,
                &[&g, "--max-steps", "1", "--quiet"],
            )
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let runs = std::fs::read_dir(work.path().join("runs")).unwrap().count();
    assert_eq!(runs, 4);
}

/// A run with one of PersonalAI's strategies records it in its manifest and replays
/// exactly (the strategy reads only recorded vectors; no new embedding is asked).
#[test]
fn a_run_with_beam_retrieval_records_it_and_replays_exactly() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run_with(work.path(), 6, &["--retrieval", "beam"]);
    let manifest: Value = common::read_json(dir.join("manifest.json"));
    assert_eq!(manifest["memory"]["retrieval"], "beam");
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert!(
        steps
            .iter()
            .any(|s| !s["retrieval"]["triplets"].as_array().unwrap().is_empty()),
        "beam retrieved nothing in 6 steps"
    );
    let out = replay(work.path(), &[dir.to_str().unwrap(), "--quiet"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("replayed 6 steps of") && stdout.contains("every step matches the log"),
        "{stdout}"
    );
}

#[test]
fn tampered_trajectory_reports_the_first_divergence() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run(work.path(), 6);
    let path = dir.join("steps.jsonl");
    let mut steps = read_jsonl(&path);
    steps[2]["action"] = Value::String("go north".into());
    let lines: Vec<String> = steps.iter().map(|s| s.to_string()).collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = replay(work.path(), &[dir.to_str().unwrap(), "--quiet"]);
    let (stdout, stderr) = text(&out);
    // A divergence is exit 1; damage to the record is exit 2.
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("replay diverged at step 3, field action: recorded \"go north\", replayed \"unlock wooden door with old key\""),
        "{stderr}"
    );
}

#[test]
fn tampered_prompt_is_caught_by_the_llm_check() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run(work.path(), 4);
    let path = dir.join("steps.jsonl");
    let mut steps = read_jsonl(&path);
    // The recorded plan prompt of step 2 no longer matches what the agent asks.
    let plan = steps[1]["llm_calls"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["purpose"] == "plan")
        .unwrap();
    let content = steps[1]["llm_calls"][plan]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .replace("Main goal:", "Aim:");
    assert!(content.contains("Aim:"));
    steps[1]["llm_calls"][plan]["messages"][1]["content"] = Value::String(content);
    let lines: Vec<String> = steps.iter().map(|s| s.to_string()).collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = replay(work.path(), &[dir.to_str().unwrap(), "--quiet"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("replay diverged at step 2, field llm_calls"),
        "{stderr}"
    );
    assert!(stderr.contains("recorded \"1. Aim:"), "{stderr}");
}

#[test]
fn truncated_trajectory_is_replayed_up_to_the_partial_line_with_a_warning() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run(work.path(), 5);
    let path = dir.join("steps.jsonl");
    let text_all = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, &text_all[..text_all.len() - 100]).unwrap();
    let out = replay(work.path(), &[dir.to_str().unwrap(), "--quiet"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("warning: the last line of") && stderr.contains("incomplete"),
        "{stderr}"
    );
    assert!(stdout.contains("replayed 4 steps"), "{stdout}");
}

/// Damage is told from divergence: a last line that is not the start of a JSON line is
/// damage with its line number (exit 2), never taken for a kill; a missing or cut
/// `embeddings.jsonl`, or one that lost whole lines, is named as such (exit 2), not as a
/// divergence.
#[test]
fn damaged_run_files_are_named_as_damage_not_divergence() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run(work.path(), 3);
    let steps = dir.join("steps.jsonl");
    let original = std::fs::read_to_string(&steps).unwrap();
    let n = original.lines().count();
    for garbage in ["garbage!!", "{\"step\": 3} trailing", "]]", "{\"step\": 3}"] {
        std::fs::write(&steps, format!("{original}{garbage}\n")).unwrap();
        let out = replay(work.path(), &[dir.to_str().unwrap(), "--quiet"]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{garbage}: {stdout}{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!("line {} is damaged, not cut by a kill", n + 1)),
            "{garbage}: {stderr}"
        );
    }
    std::fs::write(&steps, &original).unwrap();
    let vectors = dir.join("embeddings.jsonl");
    let kept = std::fs::read_to_string(&vectors).unwrap();
    assert!(kept.lines().count() > 1);
    // Cut inside its last line, as a kill leaves it, then missing.
    let cut = &kept[..kept.trim_end().rfind('\n').unwrap() + 40];
    // Whole lines lost (the first vector's line): every line left is intact.
    let short: String = kept.lines().skip(1).map(|l| format!("{l}\n")).collect();
    for (state, says) in [
        (Some(cut), "is cut"),
        (None, "is missing"),
        (Some(short.as_str()), "holds no vector for 1 of the"),
    ] {
        match state {
            Some(text) => std::fs::write(&vectors, text).unwrap(),
            None => std::fs::remove_file(&vectors).unwrap(),
        }
        let out = replay(work.path(), &[dir.to_str().unwrap(), "--quiet"]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{says}: {stdout}{stderr}");
        assert!(
            stderr.contains("embeddings.jsonl") && stderr.contains(says),
            "{stderr}"
        );
        assert!(stderr.contains("the record is damaged"), "{stderr}");
        assert!(!stderr.contains("diverged"), "{stderr}");
    }
}

/// Continue the scripted run `dir` from step 2 to step 6 against `live` (with `extra`
/// flags); the continued run's directory.
fn continue_run(work: &Path, dir: &Path, live: &Scripted, extra: &[&str]) -> std::path::PathBuf {
    let out = Command::new(bin())
        .current_dir(work)
        .env("OPENAI_BASE_URL", &live.base_url)
        .env("ARIADNE_EMBED_BASE_URL", &live.base_url)
        .args([
            "replay",
            dir.to_str().unwrap(),
            "--continue-from",
            "2",
            "--max-steps",
            "6",
            "--quiet",
        ])
        .args(extra)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let runs: Vec<_> = std::fs::read_dir(work.join("runs"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && *p != dir)
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0].clone()
}

#[test]
fn continue_from_hands_over_to_the_live_llm_and_records_the_parent() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run(work.path(), 3);
    // The live LLM picks up the walkthrough where step 2 left it.
    let live = Scripted::start(&WALK[2..]);
    let child = &continue_run(work.path(), &dir, &live, &[]);
    let manifest: Value = common::read_json(child.join("manifest.json"));
    assert_eq!(manifest["parent"]["step"], 2);
    assert_eq!(manifest["parent"]["run"], dir.to_str().unwrap());
    let steps = read_jsonl(&child.join("steps.jsonl"));
    assert_eq!(steps.len(), 6);
    let actions: Vec<&str> = steps
        .iter()
        .map(|s| s["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, &WALK[..6]);
    // Steps 1-2 came from the log: the live server answered only from step 3 on.
    let parent = read_jsonl(&dir.join("steps.jsonl"));
    let calls = |s: &Value| -> Vec<(Value, Value)> {
        s["llm_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["messages"].clone(), c["answer"].clone()))
            .collect()
    };
    assert_eq!(calls(&steps[0]), calls(&parent[0]));
    assert_eq!(calls(&steps[1]), calls(&parent[1]));
    let live_calls = live.script.lock().unwrap().chats.len();
    let logged_after_2: usize = steps[2..]
        .iter()
        .map(|s| s["llm_calls"].as_array().unwrap().len())
        .sum();
    assert_eq!(live_calls, logged_after_2);
}

#[test]
fn inspect_export_what_if_and_stats() {
    let work = tempfile::tempdir().unwrap();
    // Scripted embeddings carry no meaning: no similarity cut-off, so the what-if
    // below has retrieved facts to compare.
    let dir = scripted_run_with(work.path(), 8, &["--cutoff", "0"]);
    let d = dir.to_str().unwrap();

    let out = replay(
        work.path(),
        &[d, "--quiet", "--step", "6", "--export", "json"],
    );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("memory after step 6 (arigraph):"),
        "{stdout}"
    );
    assert!(stdout.contains("player, is in, kitchen"), "{stdout}");
    assert!(
        stdout.contains("player, is in, bedroom (removed)"),
        "{stdout}"
    );
    let graph: Value = common::read_json(dir.join("graph-step-6.json"));
    assert_eq!(graph["step"], 6);
    assert_eq!(graph["episodic_vertices"].as_array().unwrap().len(), 6);
    let edges = graph["semantic_edges"].as_array().unwrap();
    assert!(
        edges
            .iter()
            .any(|e| e["subject"] == "player" && e["object"] == "kitchen")
    );
    assert!(
        !edges
            .iter()
            .any(|e| e["subject"] == "player" && e["object"] == "bedroom")
    );

    let dot_path = work.path().join("g.dot");
    let out = replay(
        work.path(),
        &[
            d,
            "--quiet",
            "--step",
            "3",
            "--export",
            "dot",
            "--out",
            dot_path.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let dot = std::fs::read_to_string(&dot_path).unwrap();
    assert!(
        dot.starts_with("digraph arigraph {") && dot.contains("\"step 3\""),
        "{dot}"
    );

    let out = replay(work.path(), &[d, "--quiet", "--width", "1", "--depth", "1"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("what-if retrieval: d=1 w=1 k=2 (recorded: d=2 w=6 k=2)"),
        "{stdout}"
    );
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(" -> ") && l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(rows.len(), 8, "{stdout}");
    // With w=1, d=1 each query finds at most one triplet: steps lose triplets, and no
    // step gains any.
    let cols: Vec<Vec<&str>> = rows
        .iter()
        .map(|r| r.split(" | ").map(str::trim).collect())
        .collect();
    assert!(
        cols.iter().any(|c| c[2] != "-"),
        "some step must lose triplets: {stdout}"
    );
    assert!(
        cols.iter().all(|c| c[3] == "-"),
        "no step may gain triplets: {stdout}"
    );

    let csv = work.path().join("stats.csv");
    let out = replay(
        work.path(),
        &[d, "--quiet", "--stats", "--csv", csv.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", text(&out).1);
    let table = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[0],
        "step,semantic_vertices,semantic_edges,episodic_vertices,added,removed"
    );
    assert_eq!(lines.len(), 9);
    assert!(lines[8].starts_with("8,"));
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    let last_edges = steps[7]["graph"]["semantic_edges"].as_u64().unwrap();
    assert_eq!(
        lines[8].split(',').nth(2).unwrap().parse::<u64>().unwrap(),
        last_edges
    );
}

#[test]
fn replay_of_a_missing_run_is_one_clear_line() {
    let work = tempfile::tempdir().unwrap();
    let out = replay(work.path(), &["runs/nope"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("not a run directory"), "{stderr}");

    // A folder whose manifest.json is another tool's, or not JSON, and a file: not a
    // run directory, for replay and view alike (never "format version 0").
    let other = work.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let file = work.path().join("notes.txt");
    std::fs::write(&file, "notes").unwrap();
    for manifest in [r#"{"name": "a web app", "version": "1.0"}"#, "not json"] {
        std::fs::write(other.join("manifest.json"), manifest).unwrap();
        for target in [&other, &file] {
            for command in ["replay", "view"] {
                let out = Command::new(bin())
                    .current_dir(work.path())
                    .args([command, target.to_str().unwrap()])
                    .output()
                    .unwrap();
                let (_, stderr) = text(&out);
                assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
                assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
                assert!(stderr.contains("not a run directory"), "{stderr}");
                assert!(!stderr.contains("format version"), "{stderr}");
            }
        }
    }
}

/// A run recorded by a newer build (a memory-rules version or agent revision this
/// build does not know) is refused in one line, never replayed as the current one.
#[test]
fn a_run_of_an_unknown_version_is_refused_in_one_line() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run(work.path(), 1);
    let manifest = dir.join("manifest.json");
    let original = std::fs::read_to_string(&manifest).unwrap();
    let v: serde_json::Value = serde_json::from_str(&original).unwrap();
    for (section, field, number, says) in [
        ("memory", "rules", 99, "memory rules version 99 is unknown"),
        ("agent", "revision", 42, "agent revision 42 is unknown"),
    ] {
        let mut newer = v.clone();
        newer[section][field] = number.into();
        std::fs::write(&manifest, newer.to_string()).unwrap();
        let out = replay(work.path(), &[dir.to_str().unwrap(), "--quiet"]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
    }
}

/// Regression: the manifest held a relative game path, so a replay only worked from the
/// directory the run was played in.
#[test]
fn replay_works_from_another_directory() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run(work.path(), 3);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = replay(elsewhere.path(), &[dir.to_str().unwrap(), "--quiet"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("every step matches the log"), "{stdout}");
}

/// AriadneMem's options (`--retire close --gating --bridge`): a scripted run with
/// repeated `look` and `inventory` answers (gated steps) replays exactly, and its
/// manifest, steps and export hold what the options did. The extractor also places the
/// doors and the trunk in the bedroom, so that with w = 2 and d = 1 a query can match
/// facts that only the bedroom joins (a bridge).
#[test]
fn ariadnemem_options_replay_exactly() {
    let work = tempfile::tempdir().unwrap();
    let mut walk = vec!["look", "look", "inventory", "inventory"];
    walk.extend_from_slice(WALK);
    let server = Scripted::start(&walk);
    server.script.lock().unwrap().chat_hook = Some(Box::new(|body, rule| {
        if body["response_format"]["json_schema"]["name"] != "extract_triplets" {
            return None;
        }
        let mut answer: Value = serde_json::from_str(rule).ok()?;
        let user = body["messages"].to_string().to_lowercase();
        for thing in ["wooden door", "antique trunk"] {
            // The bedroom's own observation (either extraction prompt: Ariadne's
            // "Observation: -= Bedroom =-", the reference's "Game step #N\n-= Bedroom =-").
            if (user.contains("observation: -= bedroom =-") || user.contains("\\n-= bedroom =-"))
                && user.contains(thing)
            {
                answer["triplets"].as_array_mut()?.push(
                    serde_json::json!({"subject": thing, "relation": "is in", "object": "bedroom"}),
                );
            }
        }
        Some(common::Reply::json(&common::completion(
            Value::String(answer.to_string()),
            Some("stop"),
            Some((10, 2)),
            serde_json::json!({}),
        )))
    }));
    let out = play(
        work.path(),
        &server.base_url,
        &[
            &game("simple.z8"),
            "--max-steps",
            "12",
            "--quiet",
            "--retire",
            "close",
            "--gating",
            "--bridge",
            "--width",
            "2",
            "--depth",
            "1",
            // Scripted embeddings carry no meaning: no similarity cut-off.
            "--cutoff",
            "0",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = run_dir(work.path());
    let manifest: Value = common::read_json(dir.join("manifest.json"));
    assert_eq!(manifest["memory"]["retire"], "close");
    assert_eq!(manifest["memory"]["gating"], true);
    assert_eq!(manifest["memory"]["bridge"], true);
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    // look, look: the second answer repeats the first; inventory, inventory likewise.
    let gated: Vec<u64> = steps
        .iter()
        .filter(|s| s["memory"]["gated"] == true)
        .map(|s| s["step"].as_u64().unwrap())
        .collect();
    assert_eq!(gated, vec![3, 5]);
    for s in steps.iter().filter(|s| s["memory"]["gated"] == true) {
        let purposes: Vec<&str> = s["llm_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["purpose"].as_str().unwrap())
            .collect();
        // No extraction and no outdated check: only the agent's own calls.
        assert_eq!(purposes, vec!["explore", "key_items", "plan", "action"]);
    }
    let bridges: Vec<&Value> = steps
        .iter()
        .flat_map(|s| s["retrieval"]["bridges"].as_array().into_iter().flatten())
        .collect();
    assert!(!bridges.is_empty(), "no bridge was found");
    for b in &bridges {
        for t in b["triplets"].as_array().unwrap() {
            assert!(steps.iter().any(|s| {
                s["retrieval"]["triplets"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| r["triplet"] == *t && r["bridge"] == true)
            }));
        }
    }

    let d = dir.to_str().unwrap();
    let out = replay(work.path(), &[d, "--quiet", "--export", "json"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("replayed 12 steps of") && stdout.contains("every step matches the log"),
        "{stdout}"
    );
    let graph: Value = common::read_json(dir.join("graph-step-12.json"));
    let closed = graph["closed_edges"].as_array().unwrap();
    assert!(
        closed.iter().any(|c| c["subject"] == "player"
            && c["object"] == "bedroom"
            && c["until"].as_u64() > c["since"].as_u64()
            && !c["superseded_by"].as_array().unwrap().is_empty()),
        "{closed:?}"
    );
    let out = replay(work.path(), &[d, "--quiet", "--step", "10"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("closed facts (")
            && stdout.contains("player, is in, bedroom [1, ")
            && stdout.contains("superseded by: player, is in, kitchen"),
        "{stdout}"
    );
}

/// PersonalAI's thesis vertices and a traversal constraint: the extraction call's schema
/// asks for theses only under `--thesis`, they are stored (hyper-edges in the export),
/// retrieved and shown as "Statements remembered"; `--exclude episodic` retrieves no
/// episode; both are in the manifest and the run replays exactly.
#[test]
fn thesis_vertices_with_excluded_episodes_replay_exactly() {
    let work = tempfile::tempdir().unwrap();
    let server = Scripted::start(WALK);
    server.script.lock().unwrap().chat_hook = Some(Box::new(|body, rule| {
        if body["response_format"]["json_schema"]["name"] != "extract_triplets" {
            return None;
        }
        let schema = &body["response_format"]["json_schema"]["schema"];
        if schema["properties"]["theses"].is_null() {
            return None;
        }
        let mut answer: Value = serde_json::from_str(rule).ok()?;
        // One statement built from the first fact the rule found; no field at all when
        // it found none (a repair).
        let first = answer["triplets"].as_array()?.first().cloned();
        if let Some(t) = first {
            let s = |k: &str| t[k].as_str().unwrap_or("").to_string();
            answer["theses"] = serde_json::json!([format!(
                "Remember that the {} {} the {}",
                s("subject"),
                s("relation"),
                s("object")
            )]);
        }
        Some(common::Reply::json(&common::completion(
            Value::String(answer.to_string()),
            Some("stop"),
            Some((10, 2)),
            serde_json::json!({}),
        )))
    }));
    let out = play(
        work.path(),
        &server.base_url,
        &[
            &game("simple.z8"),
            "--max-steps",
            "6",
            "--quiet",
            "--thesis",
            "--exclude",
            "episodic",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The schema asked for theses on every extraction.
    let chats = server.script.lock().unwrap().chats.clone();
    assert!(chats.iter().any(|c| {
        c["response_format"]["json_schema"]["name"] == "extract_triplets"
            && c["response_format"]["json_schema"]["schema"]["required"]
                == serde_json::json!(["triplets", "theses"])
    }));
    let dir = run_dir(work.path());
    let manifest: Value = common::read_json(dir.join("manifest.json"));
    assert_eq!(manifest["memory"]["thesis"], true);
    assert_eq!(
        manifest["memory"]["exclude"],
        serde_json::json!(["episodic"])
    );
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert!(
        steps[0]["memory"]["theses"][0]
            .as_str()
            .is_some_and(|t| t.starts_with("Remember that the player is in the ")),
        "{}",
        steps[0]["memory"]
    );
    assert!(
        steps
            .iter()
            .all(|s| s["retrieval"]["episodes"].as_array().unwrap().is_empty())
    );
    assert!(steps.last().unwrap()["graph"]["thesis_vertices"].as_u64() > Some(0));
    let retrieved: Vec<&Value> = steps
        .iter()
        .flat_map(|s| s["retrieval"]["theses"].as_array().into_iter().flatten())
        .collect();
    assert!(!retrieved.is_empty(), "no thesis was retrieved");
    assert!(retrieved.iter().all(|t| t["matched"].as_u64() > Some(0)));
    // Shown to the planner and the actor.
    let shown = steps.iter().any(|s| {
        s["llm_calls"].as_array().unwrap().iter().any(|c| {
            c["purpose"] == "plan"
                && c["messages"]
                    .to_string()
                    .contains("Relevant statements from your memory:")
                && c["messages"]
                    .to_string()
                    .contains("'Remember that the player is in the ")
        })
    });
    assert!(shown, "no thesis in a plan prompt");

    let d = dir.to_str().unwrap();
    let out = replay(work.path(), &[d, "--quiet", "--export", "json"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("replayed 6 steps of") && stdout.contains("every step matches the log"),
        "{stdout}"
    );
    let graph: Value = common::read_json(dir.join("graph-step-6.json"));
    let theses = graph["thesis_vertices"].as_array().unwrap();
    assert!(
        theses.iter().any(|t| t["vertices"]
            .as_array()
            .unwrap()
            .contains(&Value::from("player"))),
        "{theses:?}"
    );
    assert!(
        graph["episodic_vertices"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["theses"].is_array())
    );
}

/// Traversal constraints refuse unknown kinds, excluding everything, and excluding the
/// object vertices without theses, in one line.
#[test]
fn exclude_errors_are_one_clear_line() {
    let work = tempfile::tempdir().unwrap();
    for (list, expected) in [
        ("objects", "use object, thesis or episodic"),
        ("object,thesis,episodic", "all at once"),
        // Without theses, excluding objects leaves nothing to find episodes by.
        (
            "object",
            "--exclude: object needs thesis vertices (--thesis)",
        ),
        (
            "thesis",
            "--exclude: thesis changes nothing without thesis vertices",
        ),
    ] {
        let out = play(
            work.path(),
            "http://127.0.0.1:9/v1",
            &[&game("simple.z8"), "--max-steps", "1", "--exclude", list],
        );
        let (_, stderr) = text(&out);
        assert!(!out.status.success());
        assert!(stderr.contains(expected), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

/// A memory option the design does not read is refused in one line naming where it
/// came from (a flag or a config key), before any game or endpoint starts.
#[test]
fn options_the_design_does_not_read_are_refused_naming_their_source() {
    let work = tempfile::tempdir().unwrap();
    let simple = game("simple.z8");
    for (args, expected) in [
        (
            &["--memory", "no-memory", "--retrieval", "astar"][..],
            "--retrieval changes nothing for --memory no-memory: it sets AriGraph's semantic search",
        ),
        (
            &["--memory", "rag", "--episodes", "4"],
            "--episodic-k changes nothing for --memory rag",
        ),
        (
            &["--memory", "oracle", "--gating"],
            "--gating changes nothing for --memory oracle",
        ),
        // Options the settings leave nothing to act on.
        (
            &["--retrieval", "astar", "--hop-scope", "incident"],
            "--hop-scope changes nothing for --memory arigraph: only the BFS search (--retrieval bfs) reads it",
        ),
        (
            &["--exclude", "episodic", "--episodes", "3"],
            "--episodic-k changes nothing for --memory arigraph: --exclude episodic retrieves no episode",
        ),
        (
            &["--thesis", "--exclude", "object", "--bridge"],
            "--bridge changes nothing for --memory arigraph: --thesis with --exclude object has no semantic search",
        ),
        (
            &["--exclude", ","],
            "--exclude changes nothing for --memory arigraph",
        ),
        // The extended profile's rules mean nothing to the paper's.
        (
            &["--without", "known-facts"],
            "--without: known-facts changes nothing under --profile paper: it is a rule of the extended profile",
        ),
        (
            &["--no-note"],
            "--no-note: kept-note changes nothing under --profile paper",
        ),
        (
            &["--memory", "rag", "--trials", "2"],
            "--trials changes nothing for --memory rag: it sets Reflexion's trials",
        ),
        // Navigation is the knowledge graph's.
        (
            &["--memory", "rag", "--no-exploration"],
            "--no-exploration changes nothing for --memory rag: it sets navigation over the knowledge graph",
        ),
    ] {
        let mut all = vec![simple.as_str(), "--max-steps", "1"];
        all.extend_from_slice(args);
        let out = play(work.path(), "http://127.0.0.1:9/v1", &all);
        let (_, stderr) = text(&out);
        assert!(!out.status.success());
        assert!(stderr.contains(expected), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
    // A value out of range names its flag and the range (clap's error: the line, and
    // its pointer to --help).
    for (args, expected) in [
        (
            ["--depth", "17"],
            "--depth <DEPTH>': not a whole number between 0 and 16",
        ),
        (
            ["--width", "-1"],
            "--width <WIDTH>': not a whole number between 1 and 1000",
        ),
    ] {
        let mut all = vec![simple.as_str(), "--max-steps", "1"];
        all.extend_from_slice(&args);
        let out = play(work.path(), "http://127.0.0.1:9/v1", &all);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr.lines().next().unwrap_or("").contains(expected),
            "{stderr}"
        );
        // clap's refusals are one line too, its tips kept.
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.trim().ends_with("(see --help)"), "{stderr}");
    }
    // A negative number where none is taken, and an unknown option: what is wrong, in
    // one line, without clap's tip to write `-- -1`.
    for (args, expected) in [
        (
            &["--max-steps", "-1"][..],
            "error: --max-steps -1: no option of Ariadne takes a negative number",
        ),
        (
            &["--bogus-flag"][..],
            "error: unexpected argument '--bogus-flag' found",
        ),
    ] {
        let mut all = vec![simple.as_str()];
        all.extend_from_slice(args);
        let out = play(work.path(), "http://127.0.0.1:9/v1", &all);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with(expected), "{stderr}");
        assert!(!stderr.contains("'-- "), "{stderr}");
    }
    // From the config file, an error names the key, not a flag never given; a key the
    // run does not read is a note (the file serves every run). (config, memory, the
    // run fails, expected.)
    for (config, memory, fails, expected) in [
        (
            "exclude = [\"object\"]",
            "arigraph",
            true,
            "the config key exclude: object needs thesis vertices",
        ),
        (
            "depth = 1",
            "summary",
            false,
            "note: the config key depth is ignored by the row summary",
        ),
        (
            "episodic_k = 101",
            "arigraph",
            false,
            "the config key episodic_k: 101 is not between 0 and 100",
        ),
        // The key's name before is read as the same key.
        (
            "episodes = 101",
            "arigraph",
            false,
            "the config key episodic_k: 101 is not between 0 and 100",
        ),
        (
            "without = [\"bogus\"]",
            "arigraph",
            false,
            "the config key without: unknown rule",
        ),
        (
            "profile = 3",
            "arigraph",
            true,
            "ariadne.toml (line 1, key profile): a profile name or a list of names",
        ),
        (
            "depth = \"two\"",
            "arigraph",
            true,
            "ariadne.toml (line 1, key depth): invalid type: string \"two\"",
        ),
        (
            "go_to = false",
            "summary",
            false,
            "note: the config key go_to is ignored by the row summary",
        ),
    ] {
        std::fs::write(work.path().join("ariadne.toml"), format!("{config}\n")).unwrap();
        let out = play(
            work.path(),
            "http://127.0.0.1:9/v1",
            &[&simple, "--max-steps", "1", "--memory", memory],
        );
        let (_, stderr) = text(&out);
        if fails {
            assert!(!out.status.success());
        }
        assert!(stderr.contains(expected), "{config}: {stderr}");
    }
    // `ariadne qa` has no game: its options are not even flags there.
    let out = Command::new(bin())
        .current_dir(work.path())
        .args(["qa", "--data", "x.jsonl", "--goal", "win"])
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("unexpected argument '--goal'"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    // In a bench, --exclude thesis is a note for the rows without theses when another
    // row has them (the run stops at the missing prompts, after the checks).
    let out = Command::new(bin())
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env("ARIADNE_EMBED_BASE_URL", "http://127.0.0.1:9/v1")
        .args([
            "bench",
            "--games",
            &simple,
            "--memory",
            "arigraph+thesis,arigraph",
        ])
        .args(["--exclude", "thesis", "--prompts", "no-such-prompts"])
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(
        stderr
            .contains("note: --exclude thesis is ignored by the row arigraph: no thesis vertices"),
        "{stderr}"
    );
    assert!(stderr.contains("cannot read prompt"), "{stderr}");
    // A bench row that sets an option itself ignores the flag: one note for a mixed
    // list, an error when no row reads it.
    std::fs::remove_file(work.path().join("ariadne.toml")).unwrap();
    let out = Command::new(bin())
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env("ARIADNE_EMBED_BASE_URL", "http://127.0.0.1:9/v1")
        .args(["bench", "--games", &simple, "--memory", "arigraph+beam"])
        .args(["--retrieval", "astar"])
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains(
            "--retrieval changes nothing for --memory arigraph+beam: the row sets --retrieval beam itself"
        ),
        "{stderr}"
    );
}

/// `--continue-from N --profile extended`: steps 1..N are the paper run's, the later
/// ones follow the extended rules (working memory shows 4 recent steps, not the paper's
/// 5), the handover is in the manifest, and the continued run replays exactly with it.
#[test]
fn continue_from_hands_over_to_another_profile_and_replays_with_it() {
    let work = tempfile::tempdir().unwrap();
    let dir = scripted_run(work.path(), 3);
    let live = Scripted::start(&WALK[2..]);
    let child = continue_run(work.path(), &dir, &live, &["--profile", "extended"]);
    let manifest: Value = common::read_json(child.join("manifest.json"));
    assert_eq!(manifest["profile"]["profile"], "paper");
    assert_eq!(manifest["handover"]["step"], 2);
    assert_eq!(manifest["handover"]["profile"]["profile"], "extended");
    let steps = read_jsonl(&child.join("steps.jsonl"));
    assert_eq!(steps.len(), 6);
    // Step 6's plan prompt: the extended rule short-history shows steps 2-5 only.
    let plan = steps[5]["llm_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["purpose"] == "plan")
        .unwrap()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let recent = plan.split("Recent steps (oldest first):").nth(1).unwrap();
    let shown: Vec<&str> = recent.lines().filter(|l| l.starts_with("step ")).collect();
    assert_eq!(shown.len(), 4, "{recent}");
    assert!(shown[0].starts_with("step 2:"), "{shown:?}");
    let out = replay(work.path(), &[child.to_str().unwrap(), "--quiet"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
}
