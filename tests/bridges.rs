//! The bridge protocol shared by every Python bridge (`python/ariadne_bridge.py`):
//! malformed requests are refused with the same kind by both bridges, and the protocol
//! stays alive after each refusal.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use common::setup_bridge;
use serde_json::Value;

fn home() -> PathBuf {
    std::env::var_os("ARIADNE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| dirs::cache_dir().expect("a cache folder").join("ariadne"))
}

/// Send `lines` to the TextWorld bridge; its replies, one per request.
fn exchange(lines: &[&str]) -> Vec<Value> {
    setup_bridge();
    let home = home();
    let mut child = Command::new(home.join("venv/bin/python"))
        .arg(home.join("scripts/textworld_bridge.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the bridge");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for l in lines {
            writeln!(stdin, "{l}").expect("write a request");
        }
    }
    let out = child.wait_with_output().expect("the bridge ends");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is a JSON reply"))
        .collect()
}

#[test]
fn malformed_requests_are_refused_and_the_bridge_goes_on() {
    let replies = exchange(&[
        "not json",
        "[1, 2]",
        r#"{"cmd": "fly"}"#,
        r#"{"cmd": "step", "action": "look"}"#,
        r#"{"cmd": "reset"}"#,
        r#"{"cmd": "reset", "game": "/no/such/game.z8"}"#,
        r#"{"cmd": "quit"}"#,
        r#"{"cmd": "step", "action": "never read"}"#,
    ]);
    let kinds: Vec<&str> = replies
        .iter()
        .map(|r| r["kind"].as_str().unwrap_or("ok"))
        .collect();
    assert_eq!(
        kinds,
        [
            "bad_request",
            "bad_request",
            "bad_request",
            "bad_request",
            "bad_request",
            "missing_game",
            "ok"
        ],
        "{replies:?}"
    );
    assert!(replies[0]["error"].as_str().unwrap().contains("bad JSON"));
}
