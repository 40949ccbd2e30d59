//! End-to-end tests of NetHack through the real NLE bridge (`python/nethack_bridge.py`,
//! `nle==1.3.0` installed into the managed environment by `ariadne setup --nethack`):
//! the agent plays a seeded dungeon by NetPlay-style skills against the scripted server,
//! descends a level, and the run replays exactly; the same seed gives the same game; the
//! level observation (the oracle) describes rooms the room observation leaves out; a bad
//! specification is one line.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Once;

use common::{Scripted, bin, play_command, read_json, read_jsonl, run_dir};
use serde_json::Value;

/// Skills that take seed 5's hero (a Samurai, with a jackal in the first room) from the
/// up staircase of level 1 to level 2: found by playing the bridge by hand.
const DESCENT: &[&str] = &[
    "fight jackal at (69, 16)",
    "explore level",
    "explore level",
    "explore level",
    "explore level",
    "go to stairs down",
    "go to stairs down",
    "go down",
];

static SETUP: Once = Once::new();

fn setup_nethack() {
    SETUP.call_once(|| {
        let out = Command::new(bin())
            .args(["setup", "--games-only", "--nethack"])
            .output()
            .expect("run ariadne setup");
        assert!(
            out.status.success(),
            "ariadne setup --nethack failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

fn play(work: &Path, server: &Scripted, args: &[&str]) -> Output {
    setup_nethack();
    play_command(work, &server.base_url, args)
        .output()
        .expect("run ariadne play")
}

/// A finished scripted run: its directory, steps and server (for the chats it got); the
/// work directory lives as long as `_work` (bind it when destructuring: a field left to
/// `..` is dropped at once, and the run's files with it).
struct Played {
    _work: tempfile::TempDir,
    server: Scripted,
    dir: PathBuf,
    steps: Vec<Value>,
}

/// Play `args` against a server scripted with `script`; the run must succeed.
fn played(script: &[&str], args: &[&str]) -> Played {
    let server = Scripted::start(script);
    let work = tempfile::tempdir().unwrap();
    let out = play(work.path(), &server, args);
    assert!(out.status.success(), "{}", text(&out));
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    Played {
        _work: work,
        server,
        dir,
        steps,
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn observations(steps: &[Value]) -> Vec<String> {
    steps
        .iter()
        .map(|s| s["observation"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Seed 5 played by the skills of [`DESCENT`]: every skill was admissible when chosen,
/// the hero reaches dungeon level 2 (NetHack scores 50 for it), the observations are
/// NetPlay's kind (regions, exits, monsters with positions and path lengths, status),
/// Ariadne's own `go to` routes stand down, and the run replays exactly.
#[test]
fn skills_explore_and_descend_and_the_run_replays() {
    let Played {
        dir,
        steps,
        server,
        _work,
        ..
    } = played(DESCENT, &["nethack?seed=5", "--max-steps", "8", "--quiet"]);
    let sent: Vec<&str> = steps.iter().filter_map(|s| s["action"].as_str()).collect();
    assert_eq!(sent, DESCENT, "every scripted skill was admissible");
    let obs = observations(&steps);
    // The first Room obs, written out by hand from the map NetHack draws for seed 5.
    assert_eq!(
        obs[0],
        "Message: Konnichi wa Agent, welcome to NetHack!  You are a lawful male human Samurai. \
There is a staircase up here.

You are in level 1 room 0 at (66, 17).

You are in level 1 room 0. It contains:
- no objects or features
- exit: closed door at (69, 15), 4 steps northeast, unexplored
- exit: doorway at (70, 17), 4 steps east, unexplored
- exit: doorway at (60, 18), 6 steps southwest, unexplored

Monsters in view:
- jackal at (69, 16), 3 steps northeast

Status: HP 15/15, dungeon level 1, experience level 1, satiated, gold 0, score 0, turn 1"
    );
    assert_eq!(
        steps[0]["inventory"],
        "You are carrying:\na: a +0 katana (weapon in hand)\nb: a blessed +0 wakizashi (alternate weapon; not wielded)\n\
c: a +0 yumi\nd: 35 +0 ya (in quiver)\ne: an uncursed rustproof +0 splint mail (being worn)"
    );
    // The ground truth of the first step, from the map NetHack shows: where the hero,
    // the exits and the monsters are, and what the hero carries by name.
    assert_eq!(
        steps[0]["ground_truth"],
        serde_json::json!([
            ["decides", "location"],
            ["at", "P", "level 1 room 0"],
            ["at", "closed door", "level 1 room 0"],
            ["at", "doorway", "level 1 room 0"],
            ["at", "jackal", "level 1 room 0"],
            ["at", "tame little dog called Hachi", "level 1 room 0"],
            ["in", "katana", "I"],
            ["in", "splint mail", "I"],
            ["in", "wakizashi", "I"],
            ["in", "ya", "I"],
            ["in", "yumi", "I"]
        ])
    );
    for s in &steps {
        let w = &s["world_model"];
        assert!(w["precision"].is_number() && w["recall"].is_number(), "{s}");
    }
    let found = steps.iter().any(|s| {
        s["ground_truth"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!([
                "at",
                "staircase down",
                "level 1 room 2"
            ]))
    });
    assert!(found, "the stairs found are in the truth");
    let first = steps[0]["admissible_commands"].as_array().unwrap();
    for skill in [
        "explore level",
        "search",
        "move north",
        "fight jackal at (69, 16)",
    ] {
        assert!(first.iter().any(|a| a == skill), "{skill} in {first:?}");
    }
    assert!(
        obs.iter().any(|o| o.contains("staircase down")),
        "the stairs were found"
    );
    let summary = read_json(dir.join("summary.json"));
    assert_eq!(summary["score"], 50, "{summary}");
    assert_eq!(summary["max_depth"], 2, "{summary}");
    // BALROG's table: dungeon level 2 is 1.54% (the hero is still experience level 1).
    assert_eq!(summary["progression"], 0.015392269075361172, "{summary}");
    let last = steps[steps.len() - 1]["observation"].as_str().unwrap();
    assert!(last.contains("dungeon level 1"), "{last}");
    for s in &steps {
        assert!(
            s["go_to_targets"].as_array().is_none_or(|a| a.is_empty()),
            "no Ariadne route in a game that travels by skills: {s}"
        );
    }
    // The bridge's unexplored exits are the exploration module's: in the first plan's
    // prompt, nearest first.
    let chats = server.script.lock().unwrap().chats.clone();
    let plan = chats
        .iter()
        .find(|c| common::purpose(c) == "plan")
        .expect("a plan call")["messages"]
        .to_string();
    assert!(
        plan.contains("Unexplored exits for level 1 room 0: [")
            && plan.contains("'doorway at (70, 17)', 'doorway at (60, 18)'"),
        "{plan}"
    );
    // A skill's moves are logged in what the game answered.
    assert!(
        obs.iter()
            .any(|o| o.contains("You explore, ") && o.contains(" steps (east,")),
        "{obs:?}"
    );
    let replay = Command::new(bin())
        .arg("replay")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", text(&replay));
}

/// The same seed gives the same dungeon; the level observation lists every region seen
/// (with how far it is), where the room observation keeps to the hero's own.
#[test]
fn seeds_repeat_and_level_obs_is_the_oracle() {
    let run = |spec: &str| {
        observations(&played(&DESCENT[..5], &[spec, "--max-steps", "5", "--quiet"]).steps)
    };
    let room_a = run("nethack?seed=5");
    let room_b = run("nethack?seed=5&obs=room");
    assert_eq!(room_a, room_b, "the same seed, the same game");
    let level = run("nethack?seed=5&obs=level");
    // One region is known at the start: both observations are the same text.
    assert_eq!(level[0], room_a[0]);
    let last_room = room_a.last().unwrap();
    let last_level = level.last().unwrap();
    assert!(!last_room.contains("reachable in"), "{last_room}");
    assert!(
        last_level.contains("level 1 room 2, reachable in 15 steps, contains:\n- staircase down"),
        "{last_level}"
    );
    assert!(!last_room.contains("level 1 room 2"), "{last_room}");
    let other = run("nethack?seed=6");
    assert_ne!(other[0], room_a[0], "another seed, another dungeon");
}

/// The paper's NetPlay baseline with the oracle observation: no long-term memory on
/// Level obs; nothing is extracted or retrieved, and the level is in the observation.
#[test]
fn no_memory_on_level_obs_plays_without_a_graph() {
    let Played {
        server,
        steps,
        _work,
        ..
    } = played(
        &DESCENT[..4],
        &[
            "nethack?seed=5&obs=level",
            "--memory",
            "no-memory",
            "--max-steps",
            "4",
            "--quiet",
        ],
    );
    let chats = server.script.lock().unwrap().chats.clone();
    let purposes: Vec<&str> = chats.iter().map(common::purpose).collect();
    assert!(
        purposes.iter().all(|p| *p == "plan" || *p == "action"),
        "{purposes:?}"
    );
    assert_eq!(steps.len(), 4);
    assert!(
        steps[3]["observation"]
            .as_str()
            .unwrap()
            .contains("level 1 corridor 1")
    );
}

/// The paper's NetPlay [Level obs] as a bench row: `level-obs` plays the bench's
/// NetHack game with Level obs (the run's manifest and its observations say so) under
/// the game's own column, the bench's per-setting table puts it in `nethack-level`, and
/// its run replays exactly; beside a TextWorld game the row is refused in one line.
#[test]
fn the_level_obs_row_plays_the_oracle_observation_in_a_bench() {
    setup_nethack();
    let server = Scripted::start(&DESCENT[..5]);
    let work = tempfile::tempdir().unwrap();
    let bench = |args: &[&str]| {
        Command::new(bin())
            .current_dir(work.path())
            .env("OPENAI_BASE_URL", &server.base_url)
            .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
            .env("ARIADNE_NO_PROGRESS", "1")
            .arg("bench")
            .args(args)
            .output()
            .expect("run ariadne bench")
    };
    let out = bench(&[
        "--games",
        "nethack?seed=5",
        "--memory",
        "level-obs",
        "--runs",
        "1",
        "--max-steps",
        "5",
        "--out",
        "b",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let rows = read_jsonl(&work.path().join("b/episodes.jsonl"));
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0]["game"], "nethack-s5-room",
        "the bench game's column"
    );
    assert_eq!(rows[0]["memory"], "level-obs");
    let dir = work.path().join("b").join(rows[0]["dir"].as_str().unwrap());
    let manifest = read_json(dir.join("manifest.json"));
    assert!(
        manifest
            .to_string()
            .contains("nethack?seed=5&character=@&obs=level"),
        "{manifest}"
    );
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    let last = observations(&steps).pop().unwrap();
    assert!(
        last.contains("level 1 room 2, reachable in 15 steps, contains:\n- staircase down"),
        "the level's other rooms are in view: {last}"
    );
    let md = std::fs::read_to_string(work.path().join("b/results.md")).unwrap();
    assert!(
        md.contains("NetHack per setting") && md.contains("| nethack-level | level-obs | 1 |"),
        "{md}"
    );
    let replay = Command::new(bin())
        .arg("replay")
        .arg(&dir)
        .output()
        .expect("run ariadne replay");
    assert!(replay.status.success(), "{}", text(&replay));
    let out = bench(&[
        "--games",
        &format!("nethack?seed=5,{}", common::game("simple.z8")),
        "--memory",
        "level-obs",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the row level-obs plays NetHack only") && err.trim().lines().count() == 1,
        "{err}"
    );
}

/// The oracle memory holds the level's ground truth: its world model is exact at every
/// step (precision and recall 1), so the judge reads NetHack's facts as the graph states
/// them; the graph holds the hero's region, the exits and what is carried.
#[test]
fn the_oracle_is_exact_on_the_level_facts() {
    let Played { steps, _work, .. } = played(
        &DESCENT[..4],
        &[
            "nethack?seed=5",
            "--memory",
            "oracle",
            "--max-steps",
            "4",
            "--quiet",
        ],
    );
    assert_eq!(steps.len(), 4);
    for s in &steps {
        let w = &s["world_model"];
        assert_eq!(w["precision"], 1.0, "step {}: {w}", s["step"]);
        assert_eq!(w["recall"], 1.0, "step {}: {w}", s["step"]);
        assert!(w["observed_facts"].as_u64().unwrap() >= 5, "{w}");
    }
}

/// A death ends the episode cleanly: seed 3's Tourist fights the sewer rats to the death
/// (found by playing the bridge with a fight-first policy). The outcome is `lost`, the
/// last status is the one the game ended on (NLE blanks it after the end), the last
/// observation says so, and the run replays.
#[test]
fn a_death_ends_the_episode_cleanly() {
    const FATAL: &[&str] = &[
        "fight newt at (11, 6)",
        "fight newt at (10, 7)",
        "explore level",
        "explore level",
        "fight sewer rat at (12, 7)",
        "fight sewer rat at (15, 7)",
        "fight sewer rat at (15, 7)",
        "fight sewer rat at (15, 7)",
    ];
    let Played { dir, _work, .. } = played(
        FATAL,
        &[
            "nethack?seed=3&character=tou-hum-neu-mal",
            "--memory",
            "no-memory",
            "--max-steps",
            "20",
            "--quiet",
        ],
    );
    let summary = read_json(dir.join("summary.json"));
    assert_eq!(summary["outcome"], "lost", "{summary}");
    assert_eq!(summary["steps"], 8, "{summary}");
    assert_eq!(summary["max_depth"], 1);
    let last = summary["final_observation"].as_str().unwrap();
    assert!(
        last.contains("The game is over: the hero died.")
            && last.contains("dungeon level 1")
            && !last.contains("turn 0"),
        "{last}"
    );
    let replay = Command::new(bin())
        .arg("replay")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", text(&replay));
}

/// The processes whose command line contains `needle` (read from `/proc`).
fn pids_with(needle: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
                .filter(|pid| {
                    std::fs::read(format!("/proc/{pid}/cmdline"))
                        .map(|c| String::from_utf8_lossy(&c).contains(needle))
                        .unwrap_or(false)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The bridge's failures are one line each, with the finished steps kept: the bridge
/// killed after the first step (a crash), or stopped (a hang, past `--game-timeout`).
#[test]
fn a_dead_or_hung_bridge_is_one_line_and_the_steps_are_kept() {
    setup_nethack();
    let shared = std::env::var_os("ARIADNE_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| dirs::cache_dir().expect("a cache folder").join("ariadne"));
    for (signal, says) in [
        (libc::SIGKILL, "the game bridge died"),
        (libc::SIGSTOP, "did not answer"),
    ] {
        // A home of its own (the managed environment linked in), so the bridge's command
        // line names it and only this test's bridge gets the signal.
        let home = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(shared.join("venv"), home.path().join("venv")).unwrap();
        let script = home.path().join("scripts").join("nethack_bridge.py");
        let script = script.display().to_string();
        let server = Scripted::start(DESCENT);
        let work = tempfile::tempdir().unwrap();
        let child = play_command(
            work.path(),
            &server.base_url,
            &[
                "nethack?seed=5",
                "--max-steps",
                "8",
                "--game-timeout",
                "5",
                "--quiet",
            ],
        )
        .env("ARIADNE_HOME", home.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run ariadne play");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let steps = loop {
            let found = std::fs::read_dir(work.path().join("runs"))
                .ok()
                .and_then(|mut d| d.next())
                .and_then(|e| e.ok())
                .map(|e| e.path().join("steps.jsonl"))
                .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.lines().count() >= 1));
            if let Some(p) = found {
                break p;
            }
            assert!(std::time::Instant::now() < deadline, "no step was played");
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let pids = pids_with(&script);
        assert!(!pids.is_empty(), "the bridge {script} is running");
        for pid in &pids {
            // SAFETY: a plain kill(2) of a process this test started.
            unsafe { libc::kill(*pid, signal) };
        }
        let out = child.wait_with_output().unwrap();
        for pid in pids_with(&script) {
            // SAFETY: as above; a stopped bridge that outlived its timeout is ended.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        let kept = read_jsonl(&steps);
        assert!(!kept.is_empty() && kept[0]["action"] == DESCENT[0]);
        let summary = read_json(steps.with_file_name("summary.json"));
        assert_eq!(summary["outcome"], "error", "{summary}");
    }
}

/// A malformed specification is refused in one line before anything starts.
#[test]
fn a_bad_specification_is_one_line() {
    let work = tempfile::tempdir().unwrap();
    let server = Scripted::start(&[]);
    for spec in ["nethack?obs=map", "nethack?seed=-1", "nethack?pet=kitten"] {
        let out = play(work.path(), &server, &[spec, "--max-steps", "1"]);
        assert_eq!(out.status.code(), Some(2), "{spec}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(spec), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}
