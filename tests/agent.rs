//! `ariadne agent` over a pipe, the harness written here: a two-room game it runs
//! itself, its observations sent as JSON lines, Ariadne's commands read back (the LLM
//! is the scripted server). A malformed line gets one `error` line and the process
//! stays usable; the game's end gives an `end` line naming the run directory, which
//! `ariadne replay` reproduces with no harness and no endpoint; a harness that closes
//! its input ends the episode with its steps kept.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use common::{Scripted, bin, read_jsonl};
use serde_json::{Value, json};

/// The harness's game: a hall, a kitchen to the north with an apple; taking it wins.
#[derive(Default)]
struct Game {
    kitchen: bool,
    score: i64,
}

impl Game {
    fn observation(&self) -> &'static str {
        if self.kitchen {
            "-= Kitchen =-\nYou are in a kitchen. There is an apple on the table. An exit leads south."
        } else {
            "-= Hall =-\nYou are in a hall. An exit leads north."
        }
    }

    fn admissible(&self) -> Vec<&'static str> {
        if self.kitchen {
            vec!["go south", "take apple", "look"]
        } else {
            vec!["go north", "look"]
        }
    }

    /// The game's answer to a command, as a `step` message.
    fn step(&mut self, command: &str) -> Value {
        let (text, done) = match (command, self.kitchen) {
            ("go north", false) => {
                self.kitchen = true;
                (self.observation().to_string(), false)
            }
            ("go south", true) => {
                self.kitchen = false;
                (self.observation().to_string(), false)
            }
            ("take apple", true) => {
                self.score = 1;
                ("You take the apple. You won!".to_string(), true)
            }
            _ => (self.observation().to_string(), false),
        };
        json!({"protocol": 1, "type": "step", "observation": text, "score": self.score,
               "done": done, "won": done, "admissible_commands": self.admissible(),
               "info": {"harness": "test"}})
    }
}

/// `ariadne agent` started against the scripted server, its stdout read on a thread.
struct Agent {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
}

impl Agent {
    fn start(work: &Path, server: &Scripted) -> Self {
        Self::start_with(work, server, &["--name", "two-rooms", "--max-steps", "6"])
    }

    fn start_with(work: &Path, server: &Scripted, args: &[&str]) -> Self {
        common::setup_bridge();
        let mut child = Command::new(bin())
            .current_dir(work)
            .env("OPENAI_BASE_URL", &server.base_url)
            .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
            .env("OPENAI_API_KEY", "sk-test")
            .env_remove("ARIADNE_MODEL")
            .arg("agent")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start ariadne agent");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                // Every stdout line is a protocol line.
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not a protocol line ({e}): {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            lines: rx,
        }
    }

    fn say(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn heard(&self) -> Value {
        self.lines
            .recv_timeout(Duration::from_secs(120))
            .expect("a protocol line within 120 s")
    }

    fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let out = self.child.wait_with_output().unwrap();
        (
            out.status,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

fn reset(game: &Game) -> String {
    json!({"protocol": 1, "type": "reset", "observation": game.observation(),
           "goal": "Take the apple.", "admissible_commands": game.admissible(),
           "score": 0, "max_score": 1})
    .to_string()
}

/// `dir` replays exactly with no endpoint reachable.
fn assert_replays(dir: &Path) {
    let out = replay(dir);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `ariadne replay` of `dir` with no endpoint reachable.
fn replay(dir: &Path) -> std::process::Output {
    let dead = "http://127.0.0.1:9/v1";
    Command::new(bin())
        .env("OPENAI_BASE_URL", dead)
        .env("ARIADNE_EMBED_BASE_URL", dead)
        .args(["replay", dir.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap()
}

#[test]
fn a_harness_plays_ariadne_to_the_end_and_the_run_replays() {
    let server = Scripted::start(&["go north", "take apple"]);
    let work = tempfile::tempdir().unwrap();
    let mut agent = Agent::start(work.path(), &server);
    let mut game = Game::default();
    agent.say(&reset(&game));
    let mut commands = Vec::new();
    let end = loop {
        let line = agent.heard();
        match line["type"].as_str() {
            Some("command") => {
                let command = line["command"].as_str().unwrap().to_string();
                assert_eq!(line["step"], commands.len() + 1);
                if commands.is_empty() {
                    // A malformed line first: one error line, and the process waits on.
                    agent.say("{\"protocol\": 1, \"type\": \"step\"");
                    let e = agent.heard();
                    assert_eq!(e["type"], "error", "{e}");
                    assert!(e["error"].as_str().unwrap().starts_with("not JSON"), "{e}");
                    assert!(e.get("fatal").is_none());
                    // A field of the wrong type: named, with what it must be.
                    let mut wrong = game.step(&command);
                    wrong["score"] = json!("high");
                    agent.say(&wrong.to_string());
                    let e = agent.heard();
                    assert_eq!(e["type"], "error", "{e}");
                    assert_eq!(e["error"], "`score` must be a number, got \"high\"", "{e}");
                    assert!(e.get("fatal").is_none());
                }
                commands.push(command.clone());
                agent.say(&game.step(&command).to_string());
            }
            Some("end") => break line,
            other => panic!("unexpected line {other:?}: {line}"),
        }
    };
    assert_eq!(commands, ["go north", "take apple"]);
    assert_eq!(end["outcome"], "won");
    assert_eq!(end["steps"], 2);
    assert_eq!(
        (end["score"].as_i64(), end["max_score"].as_i64()),
        (Some(1), Some(1))
    );
    // An observation after `done`: one error line naming the end, nothing played.
    agent.say(&game.step("look").to_string());
    let e = agent.heard();
    assert_eq!(e["type"], "error", "{e}");
    assert_eq!(e["line"], 6, "{e}");
    let why = e["error"].as_str().unwrap();
    assert!(
        why.contains("the episode is over (outcome won after step 2)"),
        "{why}"
    );
    assert!(e.get("fatal").is_none());
    let (status, stderr) = agent.finish();
    assert!(status.success(), "{stderr}");
    let dir = PathBuf::from(end["run"].as_str().unwrap());
    let dir = if dir.is_absolute() {
        dir
    } else {
        work.path().join(dir)
    };
    assert!(
        dir.file_name()
            .unwrap()
            .to_string_lossy()
            .ends_with("harness-two-rooms")
    );
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps.len(), 2);
    assert_eq!(
        steps[0]["observation"].as_str().unwrap(),
        Game::default().observation()
    );
    let manifest = common::read_json(dir.join("manifest.json"));
    assert_eq!(manifest["game"]["path"], "harness:two-rooms");
    assert_eq!(manifest["command"], "agent");
    // Every line the harness sent, the two refused ones and the one after `done` too.
    let sent = std::fs::read_to_string(dir.join("harness.jsonl")).unwrap();
    assert_eq!(sent.lines().count(), 6);
    assert_replays(&dir);
    // The replay reads the recorded lines: another observation there is a divergence.
    std::fs::write(
        dir.join("harness.jsonl"),
        sent.replace("There is an apple on the table.", "The table is bare."),
    )
    .unwrap();
    let out = replay(&dir);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("diverged"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_harness_that_closes_its_input_ends_the_episode_with_its_steps_kept() {
    let server = Scripted::start(&["go north", "go south", "go north"]);
    let work = tempfile::tempdir().unwrap();
    let mut agent = Agent::start(work.path(), &server);
    let mut game = Game::default();
    // A harness that knows no maximum score: the reset sends none.
    let mut first_line: Value = serde_json::from_str(&reset(&game)).unwrap();
    first_line.as_object_mut().unwrap().remove("max_score");
    agent.say(&first_line.to_string());
    let first = agent.heard();
    assert_eq!(first["type"], "command", "{first}");
    agent.say(&game.step(first["command"].as_str().unwrap()).to_string());
    let second = agent.heard();
    assert_eq!(second["type"], "command", "{second}");
    // The harness stops here, as at its own step cap.
    drop(agent.stdin.take());
    let end = agent.heard();
    assert_eq!(end["type"], "end", "{end}");
    assert_eq!(end["outcome"], "stopped");
    assert_eq!(end["steps"], 1);
    // No maximum was ever sent: none is reported (not 0 under a score).
    assert!(end["max_score"].is_null(), "{end}");
    let (status, stderr) = agent.finish();
    assert!(status.success(), "{stderr}");
    let dir = PathBuf::from(end["run"].as_str().unwrap());
    let dir = if dir.is_absolute() {
        dir
    } else {
        work.path().join(dir)
    };
    assert_eq!(read_jsonl(&dir.join("steps.jsonl")).len(), 1);
    assert_replays(&dir);
}

#[test]
fn a_setup_error_is_one_fatal_json_line() {
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    // A bad name, and options the command line refuses (a value out of range, a
    // negative number): each one fatal line on stdout, exit 2.
    for (args, says) in [
        (&["--name", "bad/name"][..], "bad/name"),
        (
            &["--name", "x", "--depth", "99"][..],
            "not a whole number between 0 and 16",
        ),
        (
            &["--name", "x", "--max-steps", "-1"][..],
            "no option of Ariadne takes a negative number",
        ),
    ] {
        let out = Command::new(bin())
            .current_dir(work.path())
            .env("OPENAI_BASE_URL", &server.base_url)
            .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
            .arg("agent")
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 1, "{stdout}");
        assert_eq!(lines[0]["type"], "error");
        assert_eq!(lines[0]["fatal"], true);
        assert!(
            lines[0]["error"].as_str().unwrap().contains(says),
            "{stdout}"
        );
    }
}

/// A TALES game in free text under the extended profile: the language comes from the
/// game's name (`TWXCoinCollector`), the model's `Take the Coin.` is sent as the game
/// reads it, a refusal is not sent again, and the run replays with the same language.
#[test]
fn a_free_text_game_named_by_tales_is_played_in_its_language_and_replays() {
    let server = Scripted::start(&["take the coin and leave the kitchen", "Take the Coin."]);
    let work = tempfile::tempdir().unwrap();
    let args = [
        "--name",
        "TWXCoinCollector",
        "--max-steps",
        "4",
        "--profile",
        "extended",
    ];
    let mut agent = Agent::start_with(work.path(), &server, &args);
    let seen = "You are in the kitchen. There is also a coin.";
    agent.say(
        &json!({"protocol": 1, "type": "reset", "observation": seen, "score": 0, "max_score": 100})
            .to_string(),
    );
    let first = agent.heard();
    assert_eq!(first["command"], "take coin", "{first}");
    assert!(
        first["usage"]["prompt_tokens"].as_u64().unwrap() > 0,
        "{first}"
    );
    agent.say(
        &json!({"protocol": 1, "type": "step", "observation": "You take the coin.", "score": 100,
                "done": true, "won": true})
        .to_string(),
    );
    let end = agent.heard();
    assert_eq!(end["outcome"], "won", "{end}");
    let (status, stderr) = agent.finish();
    assert!(status.success(), "{stderr}");
    let dir = work.path().join(end["run"].as_str().unwrap());
    assert_replays(&dir);
}
