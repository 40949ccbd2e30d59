//! `ariadne agent`: one episode of a game a harness runs, over the JSON-lines protocol
//! of [`crate::env::harness`] (`docs/agent-protocol.md`). Stdout carries protocol lines
//! only: the harness's `command` and `error` lines from the environment, then one `end`
//! line (the run directory, the outcome, the steps), or one `error` line with `fatal`
//! set when the episode cannot be played. A line sent after `end` is answered with an
//! `error` line until the harness closes its input or falls silent
//! ([`harness::AFTER_END_IDLE`]). Notices go to stderr.

use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use super::play::request;
use crate::cli::{AgentArgs, PlayArgs};
use crate::env::GameSpec;
use crate::env::harness::{self, PROTOCOL};
use crate::error::UserError;
use crate::memory::MemoryDesign;

/// Run `ariadne agent`.
///
/// # Errors
/// Setup and input errors (after their `error` line on stdout); errors during the
/// episode after the finished steps were written. A harness that closes its input ends
/// the episode normally (outcome `stopped`).
pub async fn run(args: AgentArgs) -> Result<ExitCode> {
    crate::report::reserve_stdout();
    match play(args).await {
        Ok((end, record)) => {
            println!("{end}");
            let ended = format!(
                "outcome {} after step {}",
                end["outcome"].as_str().unwrap_or("?"),
                end["steps"]
            );
            harness::answer_after_end(&record, &ended).await?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let why = crate::report::one_line(&format!("{e:#}"));
            println!(
                "{}",
                json!({"protocol": PROTOCOL, "type": "error", "fatal": true, "error": why})
            );
            Err(e)
        }
    }
}

/// Play the episode; its `end` line and the run's record of the harness's lines.
async fn play(args: AgentArgs) -> Result<(serde_json::Value, std::path::PathBuf)> {
    if args.memory == Some(MemoryDesign::Reflexion) {
        return Err(UserError::new(
            "reflexion plays several trials of one game; a harness plays one episode per `ariadne agent`",
        )
        .into());
    }
    let game = GameSpec::Harness(harness::HarnessGame::parse(&args.name)?);
    let play = PlayArgs {
        game: game.to_string(),
        legacy_agent: None,
        legacy_memory: None,
        walkthrough: false,
        max_steps: args.max_steps,
        seed: args.seed,
        runs_dir: args.runs_dir,
        memory: args.memory,
        memory_args: args.memory_args,
        game_args: args.game_args,
        quiet: true,
        llm: args.llm,
    };
    let request = request(&game, &play, "agent")?;
    let played = crate::ops::play::play(&request, &|_: &std::path::Path| Vec::new()).await?;
    let (summary, dir) = (played.summary, played.dir);
    let end = json!({
        "protocol": PROTOCOL,
        "type": "end",
        "run": dir.display().to_string(),
        "outcome": summary.outcome.as_str(),
        "steps": summary.steps,
        "score": summary.score,
        // 0 is the engine's "no maximum known": the harness never sent one.
        "max_score": (summary.max_score > 0).then_some(summary.max_score),
    });
    Ok((end, harness::record_in(&dir)))
}
