//! The harness protocol over an in-memory pipe: messages in, commands and errors out.

use super::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A harness environment over a pipe, the test's ends of it, and the record file.
fn pipe() -> (
    HarnessEnv,
    tokio::io::DuplexStream,
    tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
    tempfile::NamedTempFile,
) {
    let (to_env, from_test) = tokio::io::duplex(1 << 16);
    let (to_test, from_env) = tokio::io::duplex(1 << 16);
    let record = tempfile::NamedTempFile::new().unwrap();
    let env = HarnessEnv::over(
        Box::new(BufReader::new(from_test)),
        Box::new(to_test),
        Some(record.reopen().unwrap()),
    );
    (env, to_env, BufReader::new(from_env).lines(), record)
}

async fn say(to: &mut tokio::io::DuplexStream, line: &str) {
    to.write_all(format!("{line}\n").as_bytes()).await.unwrap();
}

async fn heard(from: &mut tokio::io::Lines<BufReader<tokio::io::DuplexStream>>) -> Value {
    serde_json::from_str(&from.next_line().await.unwrap().unwrap()).unwrap()
}

#[tokio::test]
async fn a_reset_and_steps_become_game_states_and_commands() {
    let (mut env, mut to, mut from, record) = pipe();
    say(&mut to, r#"{"protocol": 1, "type": "reset", "observation": "A kitchen.", "goal": "Eat.", "admissible_commands": ["look", "eat apple", "look"], "score": 0, "max_score": 3}"#).await;
    let s = env.reset().await.unwrap();
    assert_eq!(s.observation, "A kitchen.");
    assert_eq!(s.objective, "Eat.");
    assert_eq!(s.admissible_commands, ["eat apple", "look"]);
    assert!(!s.free_text);
    assert_eq!((s.score, s.max_score, s.reward), (0, 3, 0));
    // A step: the command goes out, the answer comes back; the reward is the score's
    // change, the goal and the maximum carry over, no list means free text.
    say(
        &mut to,
        r#"{"protocol": 1, "type": "step", "observation": "Yum.", "score": 2, "done": false}"#,
    )
    .await;
    env.spent(120, 7);
    let s = env.step("eat apple").await.unwrap();
    let sent = heard(&mut from).await;
    assert_eq!(
        sent,
        json!({"protocol": 1, "type": "command", "step": 1, "command": "eat apple",
               "usage": {"prompt_tokens": 120, "completion_tokens": 7}})
    );
    assert_eq!((s.score, s.max_score, s.reward, s.moves), (2, 3, 2, 1));
    assert_eq!(s.objective, "Eat.");
    assert!(s.free_text);
    // A reward without a score adds to the last score; done ends the episode.
    say(&mut to, r#"{"protocol": 1, "type": "step", "observation": "Done.", "reward": 1, "done": true, "won": true, "info": {"moves": 2}}"#).await;
    let s = env.step("look").await.unwrap();
    assert_eq!((s.score, s.reward, s.done, s.won), (3, 1, true, true));
    assert!(matches!(env.step("look").await, Err(EnvError::EpisodeOver)));
    // Every line read is recorded, in order.
    let kept = std::fs::read_to_string(record.path()).unwrap();
    assert_eq!(kept.lines().count(), 3);
}

#[tokio::test]
async fn a_malformed_line_gets_one_error_line_and_the_next_is_read() {
    let (mut env, mut to, mut from, _record) = pipe();
    for bad in [
        "not json",
        r#"{"protocol": 2, "type": "reset", "observation": "x"}"#,
        r#"{"protocol": 1, "type": "step", "observation": "x"}"#,
        r#"{"protocol": 1, "type": "reset"}"#,
        r#"{"protocol": 1, "type": "reset", "observation": "x", "admissible": ["look"]}"#,
        r#"{"protocol": 1, "type": "reset", "observation": "x", "score": 0.5}"#,
        "[1, 2]",
    ] {
        say(&mut to, bad).await;
    }
    say(
        &mut to,
        r#"{"protocol": 1, "type": "reset", "observation": "A hall."}"#,
    )
    .await;
    let s = env.reset().await.unwrap();
    assert_eq!(s.observation, "A hall.");
    let mut errors = Vec::new();
    for line in 1..=7 {
        let e = heard(&mut from).await;
        assert_eq!(e["type"], "error");
        assert_eq!(e["line"], line);
        errors.push(e["error"].as_str().unwrap().to_string());
    }
    assert!(errors[0].starts_with("not JSON"), "{errors:?}");
    assert!(errors[1].contains("`protocol` must be 1"), "{errors:?}");
    assert!(
        errors[2].contains("expected a `reset` message"),
        "{errors:?}"
    );
    assert!(errors[3].contains("observation"), "{errors:?}");
    assert!(errors[4].contains("admissible"), "{errors:?}");
    assert!(errors[5].contains("whole number"), "{errors:?}");
    assert!(errors[6].starts_with("not a JSON object"), "{errors:?}");
}

#[tokio::test]
async fn a_closed_input_ends_the_episode_with_a_harness_error() {
    let (mut env, to, _from, _record) = pipe();
    drop(to);
    let e = env.reset().await.unwrap_err();
    assert!(matches!(e, EnvError::Harness(_)), "{e}");
    assert_eq!(e.to_string(), "the harness closed its input");
}

#[tokio::test]
async fn a_recorded_run_reads_the_same_lines_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(RECORD);
    std::fs::write(
        &path,
        "{\"protocol\": 1, \"type\": \"reset\", \"observation\": \"A.\"}\nbad\n{\"protocol\": 1, \"type\": \"step\", \"observation\": \"B.\", \"done\": true}\n",
    )
    .unwrap();
    let mut env = HarnessEnv::recorded(&path).unwrap();
    assert_eq!(env.reset().await.unwrap().observation, "A.");
    let s = env.step("go").await.unwrap();
    assert_eq!((s.observation.as_str(), s.done), ("B.", true));
    assert!(matches!(
        HarnessEnv::recorded(&dir.path().join("missing.jsonl")),
        Err(EnvError::MissingGame(_))
    ));
}

#[test]
fn names_are_checked() {
    assert_eq!(
        HarnessGame::parse("twx-cooking_1.2").unwrap().short_name(),
        "harness-twx-cooking_1.2"
    );
    assert!(HarnessGame::parse("").is_err());
    assert!(HarnessGame::parse("a/b").is_err());
}

/// The reset may name the game's language, by the names the documents give; a step may
/// not, and a name that is no grammar is refused with the names that are.
#[test]
fn the_grammar_is_named_at_the_reset_only() {
    let reset =
        r#"{"protocol": 1, "type": "reset", "observation": "x", "grammar": "scienceworld"}"#;
    let seen = read_message(reset, true).expect("a known grammar");
    assert_eq!(seen.grammar, Some(crate::env::CommandGrammar::ScienceWorld));
    let step = r#"{"protocol": 1, "type": "step", "observation": "x", "grammar": "textworld"}"#;
    let e = read_message(step, false).unwrap_err();
    assert!(e.contains("read at the reset only"), "{e}");
    let bad = r#"{"protocol": 1, "type": "reset", "observation": "x", "grammar": "zork"}"#;
    let e = read_message(bad, true).unwrap_err();
    assert!(
        e.contains("`grammar` must be one of textworld, textworld-express, scienceworld"),
        "{e}"
    );
}
