//! End-to-end tests of `ariadne bench` against the scripted loopback LLM: two bundled
//! games x 5 runs with 2 jobs, resume after an interruption, failed episodes recorded.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{Scripted, bin, read_jsonl, setup_bridge};
use serde_json::Value;

fn bench(work: &Path, server: &Scripted, args: &[&str]) -> Output {
    bench_command(work, server, args).output().unwrap()
}

fn bench_command(work: &Path, server: &Scripted, args: &[&str]) -> Command {
    setup_bridge();
    let mut cmd = Command::new(bin());
    cmd.current_dir(work)
        .env("OPENAI_BASE_URL", &server.base_url)
        .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
        .env("ARIADNE_NO_PROGRESS", "1")
        .arg("bench")
        .args(args);
    cmd
}

#[test]
fn two_games_five_runs_two_jobs() {
    let server = Scripted::start(&[]);
    server.script.lock().unwrap().pair_wait_ms = 5000;
    let work = tempfile::tempdir().unwrap();
    let games = format!(
        "{},{}",
        common::root().join("games/simple.z8").display(),
        common::root().join("games/cooking.z8").display()
    );
    let out = bench(
        work.path(),
        &server,
        &[
            "--games",
            &games,
            "--runs",
            "5",
            "--jobs",
            "2",
            "--max-steps",
            "2",
            "--out",
            "b",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("2 games x 1 row (memory and profile) x 5 runs = 10 episodes"),
        "{stdout}"
    );
    let dir = work.path().join("b");
    let rows = read_jsonl(&dir.join("episodes.jsonl"));
    assert_eq!(rows.len(), 10);
    assert!(
        rows.iter()
            .all(|r| r["outcome"] == "step_cap" && r["steps"] == 2)
    );
    // Each attempt has its own seed and run directory.
    let seeds: std::collections::HashSet<u64> = rows
        .iter()
        .map(|r| {
            let m: Value = serde_json::from_str(
                &std::fs::read_to_string(
                    dir.join(r["dir"].as_str().unwrap()).join("manifest.json"),
                )
                .unwrap(),
            )
            .unwrap();
            m["seed"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(seeds.len(), 5);
    // Two episodes were in flight at once.
    assert!(server.script.lock().unwrap().max_in_flight >= 2);
    // Table 4's shape: one row per memory, one column per game; Table 3's tokens.
    let md = std::fs::read_to_string(dir.join("results.md")).unwrap();
    assert!(md.contains("| memory | simple | cooking |"), "{md}");
    assert!(
        md.lines()
            .any(|l| l.starts_with("| AriGraph | ") && l.matches('|').count() == 4),
        "{md}"
    );
    assert!(md.contains("Tokens per step, prompt / completion"), "{md}");
    // Where the time goes: a line per call kind of the row, the extraction once a
    // decision.
    assert!(md.contains("Where the time goes, per call kind"), "{md}");
    for kind in ["extract_triplets", "plan", "action"] {
        assert!(
            md.lines()
                .any(|l| l.starts_with(&format!("| AriGraph | {kind} | "))),
            "{kind}: {md}"
        );
    }
    assert!(
        md.contains("| AriGraph | extract_triplets | 1.00 |"),
        "{md}"
    );
    // The charts beside the tables: every attempt's score, tokens per step against
    // score, per game; results.md embeds them.
    for (i, game) in ["simple", "cooking"].iter().enumerate() {
        for kind in ["scores", "tokens"] {
            let file = format!("charts/{:02}-{game}-{kind}.svg", i + 1);
            let svg = std::fs::read_to_string(dir.join(&file)).unwrap();
            assert!(svg.starts_with("<svg"), "{file}");
            assert!(md.contains(&format!("]({file})")), "{md}");
            if kind == "scores" {
                assert_eq!(svg.matches("<circle").count(), 5, "five attempts in {file}");
            }
        }
    }
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3);
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("simple,arigraph,5,0,"),
        "{csv}"
    );
    let json: Value = common::read_json(dir.join("results.json"));
    assert_eq!(json["cells"]["cooking/arigraph"]["episodes"], 5);
}

#[test]
fn an_interrupted_bench_resumes_without_losing_finished_episodes() {
    let game = common::root().join("games/simple.z8").display().to_string();
    let server = Scripted::start(&[]);
    // Episode 1 (2 steps: 5 + 6 chat calls) finishes; episode 2 hangs in its first step.
    server.script.lock().unwrap().hang_after = Some(12);
    let work = tempfile::tempdir().unwrap();
    let child = bench_command(
        work.path(),
        &server,
        &[
            "--games",
            &game,
            "--runs",
            "3",
            "--jobs",
            "1",
            "--max-steps",
            "2",
            "--out",
            "b",
        ],
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let dir = work.path().join("b");
    common::wait_for_lines(&dir.join("episodes.jsonl"), 1);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let first = read_jsonl(&dir.join("episodes.jsonl"));
    assert_eq!(first.len(), 1);
    let first_dir = dir.join(first[0]["dir"].as_str().unwrap());
    let first_steps = std::fs::read_to_string(Path::new(&first_dir).join("steps.jsonl")).unwrap();

    let server2 = Scripted::start(&[]);
    // The bench's own plan is followed: a row, runs or step cap given beside --resume
    // is refused, not silently dropped.
    for extra in [["--memory", "rag"], ["--runs", "2"], ["--max-steps", "3"]] {
        let mut args = vec!["--resume", "b"];
        args.extend(extra);
        let out = bench(work.path(), &server2, &args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("cannot be used with"),
            "{extra:?}"
        );
    }
    assert!(server2.script.lock().unwrap().chats.is_empty());
    let out = bench(work.path(), &server2, &["--resume", "b"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("(1 already finished)"), "{stdout}");
    let rows = read_jsonl(&dir.join("episodes.jsonl"));
    assert_eq!(rows.len(), 3);
    // The resume ran with the default two jobs: runs 2 and 3 may end in either order.
    let mut runs: Vec<u64> = rows.iter().map(|r| r["run"].as_u64().unwrap()).collect();
    runs.sort();
    assert_eq!(runs, vec![1, 2, 3]);
    // The finished episode was not played again.
    assert_eq!(
        std::fs::read_to_string(Path::new(&first_dir).join("steps.jsonl")).unwrap(),
        first_steps
    );
    // Two episodes of two steps: four action calls.
    let actions = server2
        .script
        .lock()
        .unwrap()
        .chats
        .iter()
        .filter(|c| c["response_format"]["json_schema"]["name"] == "action")
        .count();
    assert_eq!(actions, 4);
}

#[test]
fn a_failing_episode_is_recorded_and_the_bench_goes_on() {
    let game = common::root().join("games/simple.z8").display().to_string();
    let server = Scripted::start(&[]);
    // The first episode's 11 calls succeed (step 1: extraction, exploration check, key
    // items, plan, action; step 2: the same and the outdated check), then the endpoint
    // answers 500 for good.
    server.script.lock().unwrap().fail_after = Some(11);
    let work = tempfile::tempdir().unwrap();
    let out = bench(
        work.path(),
        &server,
        &[
            "--games",
            &game,
            "--runs",
            "2",
            "--jobs",
            "1",
            "--max-steps",
            "2",
            "--out",
            "b",
            "--retry-budget",
            "2",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = read_jsonl(&work.path().join("b/episodes.jsonl"));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["outcome"], "step_cap");
    assert_eq!(rows[1]["outcome"], "failed");
    assert!(
        rows[1]["error"].as_str().unwrap().contains("500"),
        "{}",
        rows[1]["error"]
    );
    assert!(
        stdout.contains("2 episodes recorded (1 failed)"),
        "{stdout}"
    );
    let md = std::fs::read_to_string(work.path().join("b/results.md")).unwrap();
    assert!(md.contains("| simple | arigraph | 1 | 1 |"), "{md}");
}

/// Regression: with an unreachable endpoint every episode failed and the bench exited 0.
#[test]
fn unreachable_endpoint_stops_the_bench_with_exit_2() {
    setup_bridge();
    let game = common::root().join("games/simple.z8").display().to_string();
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env("ARIADNE_EMBED_BASE_URL", "http://127.0.0.1:9/v1")
        .env("ARIADNE_NO_PROGRESS", "1")
        .args([
            "bench",
            "--games",
            &game,
            "--runs",
            "3",
            "--jobs",
            "1",
            "--max-steps",
            "2",
            "--out",
            "b",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("cannot reach the chat endpoint"),
        "{err}"
    );
}

/// Regression: `--out` on an existing bench replaced its bench.json and results.
#[test]
fn out_on_an_existing_bench_is_refused() {
    let game = common::root().join("games/simple.z8").display().to_string();
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let args = [
        "--games",
        &game,
        "--runs",
        "1",
        "--max-steps",
        "1",
        "--out",
        "b",
    ];
    assert!(bench(work.path(), &server, &args).status.success());
    let before = std::fs::read_to_string(work.path().join("b/bench.json")).unwrap();
    let again = bench(work.path(), &server, &args);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already holds a bench; resume it with")
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("b/bench.json")).unwrap(),
        before
    );
}

/// Regression: a Reflexion episode's row counted only its last trial's cost.
#[test]
fn reflexion_rows_count_every_trial() {
    let game = common::root().join("games/simple.z8").display().to_string();
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let out = bench(
        work.path(),
        &server,
        &[
            "--games",
            &game,
            "--runs",
            "1",
            "--memory",
            "reflexion",
            "--trials",
            "2",
            "--max-steps",
            "2",
            "--out",
            "b",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = work.path().join("b");
    let row = &read_jsonl(&dir.join("episodes.jsonl"))[0];
    let summary = |trial: u32| -> Value {
        let p = dir.join(format!(
            "runs/simple--reflexion--run1-trial-{trial}/summary.json"
        ));
        common::read_json(p)
    };
    let (s1, s2) = (summary(1), summary(2));
    assert_eq!(s1["lesson_calls"].as_array().unwrap().len(), 1);
    assert_eq!(row["steps"], 4);
    assert_eq!(
        row["llm_calls"].as_u64().unwrap(),
        s1["llm_calls"].as_u64().unwrap() + 1 + s2["llm_calls"].as_u64().unwrap()
    );
    assert_eq!(row["score"], s2["score"]);
    // Every trial's step times and decisions, like its calls and tokens.
    let times = |s: &Value| s["step_ms"].as_array().unwrap().clone();
    assert_eq!(
        row["step_ms"].as_array().unwrap(),
        &[times(&s1), times(&s2)].concat()
    );
    assert_eq!(row["step_ms"].as_array().unwrap().len(), 4);
    assert_eq!(
        row["decision_steps"].as_u64().unwrap(),
        s1["decision_steps"].as_u64().unwrap() + s2["decision_steps"].as_u64().unwrap()
    );
}

/// Regression: bench ignored memory keys of the config file. Every key `play` honours
/// reaches a bench episode's manifest through the one settings resolver; a row's option
/// (`arigraph+beam`) wins over the config's `retrieval`.
#[test]
fn config_file_keys_reach_a_bench_episode() {
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("ariadne.toml"),
        "outdated_scope = \"subject\"\nhop_scope = \"incident\"\ndepth = 3\nretrieval = \"water-circles\"\nexploration = false\nshow_score = true\n",
    )
    .unwrap();
    let game = common::root().join("games/simple.z8");
    let out = bench(
        work.path(),
        &server,
        &[
            "--games",
            game.to_str().unwrap(),
            "--runs",
            "1",
            "--max-steps",
            "1",
            "--out",
            "b",
            "--goal",
            "Find the chips.",
            "--memory",
            "arigraph,arigraph+beam",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut runs: Vec<_> = std::fs::read_dir(work.path().join("b/runs"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    runs.sort();
    assert_eq!(runs.len(), 2, "{runs:?}");
    let read = |dir: &Path| -> Value { common::read_json(dir.join("manifest.json")) };
    // simple--arigraph+beam--run1 sorts before simple--arigraph--run1.
    assert!(runs[0].ends_with("simple--arigraph+beam--run1"), "{runs:?}");
    assert_eq!(read(&runs[0])["memory"]["retrieval"], "beam");
    assert_eq!(read(&runs[0])["memory"]["depth"], 3);
    let manifest = read(&runs[1]);
    assert_eq!(manifest["memory"]["retrieval"], "water-circles");
    assert_eq!(manifest["memory"]["outdated_scope"], "subject");
    assert_eq!(manifest["memory"]["hop_scope"], "incident");
    assert_eq!(manifest["memory"]["depth"], 3);
    assert_eq!(manifest["agent"]["exploration"], false);
    assert_eq!(manifest["agent"]["show_score"], true);
    assert_eq!(manifest["goal"]["text"], "Find the chips.");
    assert_eq!(manifest["goal"]["source"], "flag");

    // The world model is measured and reported per design (issue: ground truth).
    let md = std::fs::read_to_string(work.path().join("b/results.md")).unwrap();
    assert!(
        md.contains("World model against the game's ground truth"),
        "{md}"
    );
    assert!(md.contains("AriGraph + BeamSearch"), "{md}");
    let csv = std::fs::read_to_string(work.path().join("b/results.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "wm_precision").unwrap();
    let p: f64 = row[col].parse().unwrap();
    assert!((0.0..=1.0).contains(&p), "{csv}");
}

/// The columns of results.csv that do not depend on timing.
fn table(dir: &Path) -> Vec<Vec<String>> {
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            l.split(',')
                .zip(&header)
                .filter(|(_, h)| **h != "wall_s")
                .map(|(v, _)| v.to_string())
                .collect()
        })
        .collect()
}

/// Three shards of a 2-game x 3-run bench, merged, give the table of the unsharded
/// bench with the same seeds; merge refuses shards of another plan and reports an
/// episode no shard played.
#[test]
fn sharded_benches_merge_into_the_unsharded_table() {
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let games = format!(
        "{},{}",
        common::root().join("games/simple.z8").display(),
        common::root().join("games/coin.z8").display()
    );
    let base = [
        "--games",
        &games,
        "--runs",
        "3",
        "--max-steps",
        "2",
        "--seed",
        "7",
    ];
    let run = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(extra);
        let out = bench(work.path(), &server, &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["--out", "whole"]);
    run(&["--shard", "1/3", "--out", "s1"]);
    // The other two as a scheduler hands them out (`--shard auto`): a Slurm array task
    // counted from 1, a Kubernetes Indexed Job's completion index counted from 0.
    let scheduled = |vars: &[(&str, &str)], out: &str| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(&["--shard", "auto", "--out", out]);
        let mut cmd = bench_command(work.path(), &server, &args);
        for name in [
            "SLURM_ARRAY_TASK_ID",
            "SLURM_ARRAY_TASK_COUNT",
            "SLURM_ARRAY_TASK_MIN",
            "JOB_COMPLETION_INDEX",
            "ARIADNE_SHARDS",
        ] {
            cmd.env_remove(name);
        }
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "3"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
    ];
    let k8s = [("JOB_COMPLETION_INDEX", "2"), ("ARIADNE_SHARDS", "3")];
    for (vars, out) in [(&slurm[..], "s2"), (&k8s[..], "s3")] {
        let o = scheduled(vars, out);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let plan = |dir: &str| {
        common::read_json(work.path().join(dir).join("bench.json"))["plan"]["shard"].clone()
    };
    assert_eq!(plan("s2"), serde_json::json!({"k": 2, "n": 3}));
    assert_eq!(plan("s3"), serde_json::json!({"k": 3, "n": 3}));
    // No scheduler: one line, exit 2.
    let o = scheduled(&[], "none");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--shard: auto: no scheduler index"),
        "{stderr}"
    );
    // More shards than episodes: the empty one says so, one line, exit 2.
    let mut args: Vec<&str> = base.to_vec();
    args.extend_from_slice(&["--shard", "7/7", "--out", "empty"]);
    let o = bench(work.path(), &server, &args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--shard 7/7: this shard holds no episode (the plan has 6)"),
        "{stderr}"
    );
    let merge = |dirs: &[&str], out: &str| {
        let mut args = vec!["merge"];
        args.extend_from_slice(dirs);
        args.extend_from_slice(&["--out", out]);
        bench(work.path(), &server, &args)
    };
    let m = merge(&["s1", "s2", "s3"], "merged");
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let shards: Vec<usize> = (1..=3)
        .map(|k| read_jsonl(&work.path().join(format!("s{k}/episodes.jsonl"))).len())
        .collect();
    assert_eq!(shards, vec![2, 2, 2]);
    assert_eq!(
        table(&work.path().join("merged")),
        table(&work.path().join("whole"))
    );

    // Two of the three shards: the missing episodes are named.
    let m = merge(&["s1", "s2"], "partial");
    assert!(m.status.success());
    let stderr = String::from_utf8_lossy(&m.stderr);
    assert!(
        stderr.contains("2 episodes of the plan are in no shard"),
        "{stderr}"
    );

    // A shard of another plan is refused with one line.
    run(&["--shard", "1/3", "--out", "other", "--width", "3"]);
    let m = merge(&["s1", "other"], "bad");
    assert_eq!(m.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&m.stderr);
    assert!(
        stderr.contains("was planned with other settings"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");

    // The same shard twice: an episode played twice is refused.
    let m = merge(&["s1", "s1"], "twice");
    assert_eq!(m.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&m.stderr).contains("was played by both"));
}

/// `bench compare` puts two benches side by side; a bench whose rows predate the token
/// and time sums is read from its run directories to the same figures; a directory
/// that is no bench is one clear line.
#[test]
fn compare_reads_old_and_new_benches_alike() {
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let simple = common::root().join("games/simple.z8");
    for (out, steps) in [("a", "2"), ("b", "3")] {
        let o = bench(
            work.path(),
            &server,
            &[
                "--games",
                &simple.display().to_string(),
                "--runs",
                "2",
                "--max-steps",
                steps,
                "--out",
                out,
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // No --jobs on an endpoint: 2 episodes at once.
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("completion tokens; 2 at a time"), "{out}");
    }
    let compare = || {
        let o = bench(work.path(), &server, &["compare", "a", "b"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let md = compare();
    assert!(md.contains("| step cap | 2 | 3 |"), "{md}");
    assert!(md.contains("| episodes at once (--jobs) | 2 | 2 |"), "{md}");
    assert!(
        md.contains("| attempts per game and design (most) | 2 | 2 |"),
        "{md}"
    );
    // Both benches measured the world model: one table of it, by one judge.
    let wm = md
        .split(&format!(
            "World model against the game's ground truth (judge {};",
            ariadne::judge::JUDGE
        ))
        .nth(1)
        .expect("a world-model table");
    assert!(
        wm.contains("| wrong deletions |") && wm.contains("| stated recall |"),
        "{md}"
    );
    let cost: Vec<&str> = md[md.find("Cost per step").expect("a cost table")..]
        .lines()
        .filter(|l| {
            l.starts_with("| simple | arigraph | before |")
                || l.starts_with("| simple | arigraph | after |")
        })
        .collect();
    assert_eq!(cost.len(), 2, "{md}");
    // The after row carries the ratio of the medians; no server timings, no bound.
    assert!(
        cost[1].split('|').nth(5).unwrap().trim().ends_with('x'),
        "{md}"
    );
    assert!(cost[1].trim_end().ends_with("| - | - |"), "{md}");

    // The same bench as an older Ariadne wrote it: rows without usage and step times.
    let file = work.path().join("a/episodes.jsonl");
    let old: String = read_jsonl(&file)
        .into_iter()
        .map(|mut r| {
            let o = r.as_object_mut().unwrap();
            for k in ["usage", "step_ms", "decision_steps"] {
                assert!(o.remove(k).is_some(), "{k} in {r}");
            }
            format!("{r}\n")
        })
        .collect();
    std::fs::write(&file, old).unwrap();
    assert_eq!(compare(), md);

    // A malformed line before the last is an error naming it, not a silent gap.
    let rows = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{{not json\n{rows}")).unwrap();
    let o = bench(work.path(), &server, &["compare", "a", "b"]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("line 1 is malformed"), "{stderr}");

    let o = bench(work.path(), &server, &["compare", "b", "nowhere"]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("not a bench directory"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

/// On a terminal, each episode's bar shows the chat call in flight and its seconds so
/// far (a step of the embedded model takes minutes): run under `script`, which gives the
/// bench a pseudo-terminal, against a server that takes 2.5 s an answer.
#[test]
fn an_episode_bar_shows_the_chat_call_in_flight() {
    setup_bridge();
    let server = Scripted::start(&[]);
    server.script.lock().unwrap().delay_ms = 2500;
    let work = tempfile::tempdir().unwrap();
    let line = format!(
        "{} bench --games {} --memory rag --runs 1 --max-steps 1 --jobs 1",
        bin().display(),
        common::root().join("games/simple.z8").display()
    );
    let out = Command::new("script")
        .args(["-qfec", &line, "/dev/null"])
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", &server.base_url)
        .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
        .env("TERM", "xterm")
        .env_remove("ARIADNE_NO_PROGRESS")
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("simple / rag / run 1") && shown.contains("call 1 s"),
        "{shown}"
    );
}
