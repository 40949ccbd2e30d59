//! The play operation: one game with the agent, the Python environment set up and the
//! endpoints started for it and stopped after it (`ariadne play`, `ariadne agent`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use crate::cancel;
use crate::episode::EpisodeConfig;
use crate::episode::game::{GameRun, play_game};
use crate::llm::connect::{self, LlmSettings};
use crate::pyenv::{self, Needs};
use crate::trajectory::{StepSink, Summary};

/// What shows a played game's steps as they finish: the sinks for its run directory
/// (the terminal view; none under `ariadne agent`, whose stdout is the protocol).
pub type Views = dyn Fn(&std::path::Path) -> Vec<Box<dyn StepSink>> + Sync;

/// One game to play: the episode, the endpoints, and where its run directory goes.
#[derive(Debug, Clone)]
pub struct PlayRequest {
    /// The episode (game, agent and memory settings, step cap, seed).
    pub config: EpisodeConfig,
    /// The endpoints (the embedded servers are started when they serve).
    pub llm: LlmSettings,
    /// Whether the chat model is needed (a walkthrough that drives a memory whose update
    /// makes no chat call needs none).
    pub chat: bool,
    /// Where the run directory is created.
    pub runs_dir: PathBuf,
    /// The run directory's name.
    pub run_id: String,
    /// The command the manifest records (`play`, `agent`).
    pub command: String,
    /// Tell the user about trials and lessons on stdout.
    pub announce: bool,
    /// Say nothing of the servers it starts (`--quiet`).
    pub quiet: bool,
    /// Longest wait for the game's answer to one command.
    pub game_timeout: Duration,
}

/// A played game: its summary and its run directory.
#[derive(Debug)]
pub struct Played {
    /// The episode's summary (score, steps, outcome, cost).
    pub summary: Summary,
    /// The run directory (manifest, steps, summary).
    pub dir: PathBuf,
}

/// Play the game of `request`, each finished step shown by the sinks `views` makes for
/// its run directory. The endpoints are started here and stopped after the game.
///
/// # Errors
/// Set-up and input errors as one clear line (a missing game, an unreachable endpoint, a
/// pip failure); errors during the episode after the finished steps were written and
/// the summary saved.
pub async fn play(request: &PlayRequest, views: &Views) -> Result<Played> {
    let PlayRequest {
        config, llm, chat, ..
    } = request;
    config.game.check()?;
    crate::llm::prompts::Prompts::load_noting(config.prompts.as_deref())?;
    let embedded = llm.embedded_chat() && *chat;
    let py = pyenv::ensure(
        Needs {
            local: embedded.then_some(llm.local_model),
            embed: llm.embed_base_url.is_none(),
            ..Needs::default()
        }
        .with_games([&config.game]),
    )
    .await?;
    if !request.quiet {
        crate::report::notice(format!(
            "ariadne: starting {}",
            match (embedded, llm.embed_base_url.is_none()) {
                (true, _) => "the embedded local model (this takes a few seconds)",
                (false, true) => "the local embedding server",
                (false, false) => "with remote endpoints",
            }
        ));
    }
    let conn = connect::connect(llm, *chat, 1, config.seed, &py, &py.home.join("logs")).await?;
    let sinks = |dir: &std::path::Path| -> Vec<Box<dyn StepSink + '_>> {
        views(dir)
            .into_iter()
            .map(|s| s as Box<dyn StepSink>)
            .collect()
    };
    let run = GameRun {
        runs_dir: request.runs_dir.clone(),
        run_id: request.run_id.clone(),
        command: request.command.clone(),
        conn: &conn,
        py: &py,
        cancel: cancel::watch_ctrl_c(),
        sinks: &sinks,
        announce: request.announce,
        game_timeout: request.game_timeout,
        calls: None,
    };
    let result = play_game(config, &run).await;
    conn.servers.stop().await;
    let (summary, dir) = result?;
    Ok(Played { summary, dir })
}
