//! Frozen recorded runs, one per profile, agent revision and memory-rules version
//! (`tests/fixtures/runs/`), replayed by the current build: a change that alters what an
//! old revision does fails here. The runs were recorded against the scripted server by
//! `record_fixtures` (ignored; `cargo test --test fixtures -- --ignored` records them
//! again, `ARIADNE_FIXTURE_BIN` naming another build to record with, as
//! `before-profiles` was, by the build before profiles existed, and `paper-rules-4` and
//! `extended-rules-4` by the build before memory rules 5, 19e2f0c, `paper-rules-5` and
//! `extended-rules-5` by the build before memory rules 6, dc76b01, `paper-rules-6` and
//! `extended-rules-6` by the build before agent revision 9 and memory rules 7, 68db669,
//! `paper-rules-7` and `extended-rules-7` by the build before memory rules 8, c3d09a8,
//! `paper-agent-9` and `extended-agent-9` by the build before agent revision 10,
//! f9fb27d, `paper-agent-10` and `extended-agent-10` by the build before agent revision
//! 11, efd2413). `extended-free-text` plays the walk in free text: the decision held to
//! TextWorld's language, the commands whose answer is known held back.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Scripted, bin, game, play_command, run_dir, setup_bridge};
use serde_json::Value;

/// A walk of `simple` with a take/put cycle (loop breaking has something to do).
const WALK: &[&str] = &[
    "open antique trunk",
    "take old key from antique trunk",
    "put old key in antique trunk",
    "take old key from antique trunk",
    "put old key in antique trunk",
    "take old key from antique trunk",
    "unlock wooden door with old key",
    "open wooden door",
    "go east",
];

fn fixtures() -> PathBuf {
    common::root().join("tests/fixtures/runs")
}

/// Each fixture: its directory name and the flags it was recorded with.
fn specs() -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = vec![
        ("paper".into(), vec![]),
        (
            "extended".into(),
            vec!["--profile".into(), "extended".into()],
        ),
        (
            "extended-free-text".into(),
            vec!["--profile".into(), "extended".into(), "--free-text".into()],
        ),
    ];
    for r in 1..=8 {
        out.push((
            format!("agent-{r}"),
            vec![
                "--legacy-agent".into(),
                r.to_string(),
                "--legacy-memory".into(),
                "4".into(),
            ],
        ));
    }
    for m in 1..=3 {
        out.push((
            format!("memory-rules-{m}"),
            vec![
                "--legacy-agent".into(),
                "8".into(),
                "--legacy-memory".into(),
                m.to_string(),
            ],
        ));
    }
    out
}

/// Replay `dir` with no endpoint reachable.
fn replay(dir: &Path) -> std::process::Output {
    setup_bridge();
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let work = tempfile::tempdir().unwrap();
    Command::new(bin())
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{dead}/v1"))
        .env(
            "ARIADNE_EMBED_BASE_URL",
            format!("http://127.0.0.1:{dead}/v1"),
        )
        .args(["replay", dir.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap()
}

#[test]
fn every_frozen_run_replays_exactly() {
    let mut agents = std::collections::BTreeSet::new();
    let mut rules = std::collections::BTreeSet::new();
    let mut profiles = std::collections::BTreeSet::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("tests/fixtures/runs")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in &dirs {
        let out = replay(dir);
        assert!(
            out.status.success(),
            "{}: {}{}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let m: Value = common::read_json(dir.join("manifest.json"));
        agents.insert(m["agent"]["revision"].as_u64().unwrap());
        rules.insert(m["memory"]["rules"].as_u64().unwrap());
        if let Some(p) = m["profile"]["profile"].as_str() {
            profiles.insert(p.to_string());
        }
    }
    // Every revision and version this build knows, and both profiles, are held.
    assert_eq!(
        agents.into_iter().collect::<Vec<_>>(),
        (1..=u64::from(ariadne::agent::REVISION)).collect::<Vec<_>>()
    );
    assert_eq!(
        rules.into_iter().collect::<Vec<_>>(),
        (1..=u64::from(ariadne::memory::RULES)).collect::<Vec<_>>()
    );
    assert_eq!(
        profiles.into_iter().collect::<Vec<_>>(),
        ["extended", "paper"]
    );
}

/// A frozen run whose step log was changed no longer replays: the check can fail.
#[test]
fn a_tampered_frozen_run_is_refused() {
    let src = fixtures().join("paper");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("paper");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["manifest.json", "embeddings.jsonl", "summary.json"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let steps = std::fs::read_to_string(src.join("steps.jsonl")).unwrap();
    let mut lines: Vec<Value> = steps
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[1]["plan"][0]["sub_goal"] = Value::from("something else");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(dir.join("steps.jsonl"), text.join("\n") + "\n").unwrap();
    let out = replay(&dir);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("replay diverged at step 2"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Fixtures recorded by an older build (named with `ARIADNE_FIXTURE_ONLY` and that
/// build in `ARIADNE_FIXTURE_BIN`), with the flags they were recorded with.
fn recorded_by_older_builds() -> Vec<(String, Vec<String>)> {
    vec![
        ("before-profiles".into(), vec![]),
        ("paper-rules-4".into(), vec![]),
        (
            "extended-rules-4".into(),
            vec!["--profile".into(), "extended".into()],
        ),
        ("paper-rules-5".into(), vec![]),
        (
            "extended-rules-5".into(),
            vec!["--profile".into(), "extended".into()],
        ),
        ("paper-rules-6".into(), vec![]),
        (
            "extended-rules-6".into(),
            vec!["--profile".into(), "extended".into()],
        ),
        ("paper-rules-7".into(), vec![]),
        (
            "extended-rules-7".into(),
            vec!["--profile".into(), "extended".into()],
        ),
        ("paper-agent-9".into(), vec![]),
        (
            "extended-agent-9".into(),
            vec!["--profile".into(), "extended".into()],
        ),
        ("paper-agent-10".into(), vec![]),
        (
            "extended-agent-10".into(),
            vec!["--profile".into(), "extended".into()],
        ),
    ]
}

/// Record the fixtures again (`ARIADNE_FIXTURE_BIN`: another build to record with;
/// `ARIADNE_FIXTURE_ONLY`: one name, e.g. `before-profiles`).
#[test]
#[ignore]
fn record_fixtures() {
    let only = std::env::var("ARIADNE_FIXTURE_ONLY").ok();
    let older = recorded_by_older_builds();
    let mut specs = specs();
    specs.extend(older.iter().cloned());
    for (name, flags) in specs {
        let by_older_build = older.iter().any(|(n, _)| *n == name);
        if only.as_deref().is_some_and(|o| o != name) || (only.is_none() && by_older_build) {
            continue;
        }
        let server = Scripted::start(WALK);
        let work = tempfile::tempdir().unwrap();
        let g = game("simple.z8");
        let mut args: Vec<&str> = vec![&g, "--max-steps", "8", "--quiet"];
        args.extend(flags.iter().map(String::as_str));
        let mut cmd = play_command(work.path(), &server.base_url, &args);
        if let Ok(other) = std::env::var("ARIADNE_FIXTURE_BIN") {
            cmd = Command::new(other);
            cmd.current_dir(work.path())
                .env("OPENAI_BASE_URL", &server.base_url)
                .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
                .env("OPENAI_API_KEY", "sk-test-secret-key-123")
                .arg("play")
                .args(&args);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let from = run_dir(work.path());
        let to = fixtures().join(&name);
        let _ = std::fs::remove_dir_all(&to);
        std::fs::create_dir_all(&to).unwrap();
        for f in [
            "manifest.json",
            "steps.jsonl",
            "embeddings.jsonl",
            "summary.json",
        ] {
            std::fs::copy(from.join(f), to.join(f)).unwrap();
        }
    }
}

fn qa_fixtures() -> PathBuf {
    common::root().join("tests/fixtures/qa")
}

/// Frozen QA runs (`tests/fixtures/qa/`): `eq1-ranking`, recorded by the build before
/// the episode ranking was a choice (c3d09a8: AriGraph's paragraphs by Eq. 1 alone, no
/// `ranking` in its plan), and `reference-ranking`, by a build ranking as the reference
/// does. Each replays with no endpoint, from the repository (their plans name the data
/// file relative to it).
#[test]
fn every_frozen_qa_run_replays_exactly() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(qa_fixtures())
        .expect("tests/fixtures/qa")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let names: Vec<String> = dirs
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["eq1-ranking", "reference-ranking"]);
    for dir in &dirs {
        let dead = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let out = Command::new(bin())
            .current_dir(common::root())
            .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{dead}/v1"))
            .env(
                "ARIADNE_EMBED_BASE_URL",
                format!("http://127.0.0.1:{dead}/v1"),
            )
            .args(["qa", "--replay", dir.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", dir.display());
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("every prediction, metric and retrieval matches"),
            "{stdout}"
        );
    }
    let old: Value = common::read_json(qa_fixtures().join("eq1-ranking/qa.json"));
    assert!(old.get("ranking").is_none(), "recorded before the choice");
    let new: Value = common::read_json(qa_fixtures().join("reference-ranking/qa.json"));
    assert_eq!(new["ranking"], "reference");
    // The reference's ranking is recorded with each AriGraph answer.
    let records = common::read_jsonl(&qa_fixtures().join("reference-ranking/questions.jsonl"));
    assert!(
        records
            .iter()
            .filter(|r| r["memory"] == "arigraph")
            .all(|r| r["ranking"].as_array().is_some_and(|a| !a.is_empty()))
    );
}

/// Record the QA fixtures again (`ARIADNE_FIXTURE_BIN`: another build to record with;
/// `ARIADNE_FIXTURE_ONLY`: one name). Three questions of `tests/qa/musique.jsonl`, every
/// memory; the plan's data file is written relative to the repository.
#[test]
#[ignore]
fn record_qa_fixtures() {
    let only = std::env::var("ARIADNE_FIXTURE_ONLY").ok();
    let old_build = std::env::var_os("ARIADNE_FIXTURE_BIN").is_some();
    for name in ["eq1-ranking", "reference-ranking"] {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        // `eq1-ranking` is frozen as a build before the ranking choice recorded it (its
        // plan holds no `ranking`): only such a build records it again.
        if name == "eq1-ranking" && !old_build {
            eprintln!(
                "eq1-ranking is kept: record it with ARIADNE_FIXTURE_BIN=<a build before the ranking choice>"
            );
            continue;
        }
        let server = Scripted::start(&[]);
        {
            let mut s = server.script.lock().unwrap();
            s.paragraphs = true;
            s.qa_answers = vec![("founder of Brelmark Mills".into(), "Tavoria".into())];
        }
        let work = tempfile::tempdir().unwrap();
        let ids = work.path().join("ids.txt");
        std::fs::write(&ids, "m1\nm2\nm3\n").unwrap();
        let out_dir = work.path().join("run");
        let program = std::env::var("ARIADNE_FIXTURE_BIN")
            .map(PathBuf::from)
            .unwrap_or_else(|_| bin());
        let out = Command::new(program)
            .current_dir(common::root())
            .env("OPENAI_BASE_URL", &server.base_url)
            .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
            .env("OPENAI_API_KEY", "sk-test")
            .env_remove("ARIADNE_MODEL")
            .args(["qa", "--data", "tests/qa/musique.jsonl", "--quiet", "--ids"])
            .arg(&ids)
            .arg("--out")
            .arg(&out_dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let to = qa_fixtures().join(name);
        let _ = std::fs::remove_dir_all(&to);
        std::fs::create_dir_all(&to).unwrap();
        let mut plan: Value = common::read_json(out_dir.join("qa.json"));
        plan["data"] = Value::from("tests/qa/musique.jsonl");
        std::fs::write(
            to.join("qa.json"),
            serde_json::to_string_pretty(&plan).unwrap() + "\n",
        )
        .unwrap();
        std::fs::copy(out_dir.join("questions.jsonl"), to.join("questions.jsonl")).unwrap();
    }
}
