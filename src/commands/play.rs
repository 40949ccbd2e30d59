//! `ariadne play`: set up (Python environment, local servers), run one game with the
//! Ariadne agent, show each step live, log the trajectory, print a summary. With
//! `--walkthrough`, play the game's own walkthrough instead (no LLM).

use std::process::ExitCode;

use anyhow::Result;

use super::term::{TerminalView, play_exit};
use crate::cancel;
use crate::cli::PlayArgs;
use crate::env::pyenv::{self, Needs};
use crate::env::{GameSpec, games};
use crate::episode::EpisodeConfig;
use crate::episode::game::{GameRun, play_game};
use crate::error::UserError;
use crate::llm::connect;
use crate::memory::MemoryDesign;
use crate::profile::ProfileRecord;
use crate::settings::Resolver;
use crate::settings::options;
use crate::trajectory::StepSink;

/// Run `ariadne play`.
///
/// # Errors
/// Setup and input errors as one clear line (missing game or sidecar, unreachable
/// endpoint, pip failure); errors during the episode after the finished steps were
/// written and the summary saved.
pub async fn run(args: PlayArgs) -> Result<ExitCode> {
    let game = GameSpec::parse(&args.game)?;
    // `--walkthrough` alone checks the game; with `--memory` the walkthrough drives the
    // agent's memory (and its world-model accuracy) with no chat call.
    let driven = args.walkthrough && args.memory.is_some();
    let design = args.memory.unwrap_or(MemoryDesign::Arigraph);
    if design.needs_ground_truth() && matches!(game, GameSpec::Twx(_)) {
        return Err(crate::error::UserError::new(format!(
            "the {} memory needs the game's true state, which TextWorld-Express games do not expose; use a TextWorld, Jericho or ScienceWorld game",
            design.name()
        ))
        .into());
    }
    if args.walkthrough && !driven {
        let timeout = std::time::Duration::from_secs(args.game_args.game_timeout);
        let r = games::walkthrough(&game, args.quiet, timeout).await?;
        println!(
            "walkthrough of {game}: {} commands, score {}/{}, {}",
            r.steps,
            r.score,
            r.max_score,
            if r.won { "won" } else { "NOT won" }
        );
        return Ok(if r.won && r.score == r.max_score {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    let (summary, _) = play_one(&game, &args, Shown::Terminal).await?;
    Ok(play_exit(summary.outcome))
}

/// Where a played game is shown as it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shown {
    /// The terminal view on stdout (one line a step with `--quiet`).
    Terminal,
    /// Nowhere: stdout carries a protocol (`ariadne agent`).
    Nowhere,
}

/// Play `game` with the agent as `args` set it up (the endpoints started and stopped
/// here), shown as `shown` says. Returns the summary and the run directory.
///
/// # Errors
/// Setup and input errors as one clear line; errors during the episode after the
/// finished steps were written and the summary saved.
pub(super) async fn play_one(
    game: &GameSpec,
    args: &PlayArgs,
    shown: Shown,
) -> Result<(crate::trajectory::Summary, std::path::PathBuf)> {
    let driven = args.walkthrough && args.memory.is_some();
    let design = args.memory.unwrap_or(MemoryDesign::Arigraph);
    // A walkthrough-driven memory needs the chat model only when its update calls it.
    let chat = !driven || design.chat_in_update();
    let resolver = Resolver::load(args.llm.config.as_deref())?;
    let llm = resolver.llm(&args.llm)?;
    let profile = ProfileRecord::new(
        resolver.profile(&args.memory_args)?,
        &resolver.without(&args.memory_args)?,
    );
    let rules = profile.resolved();
    // One row: a flag it ignores is an error; a config key it ignores, a note.
    let (memory, notes) = resolver.memory(
        &args.memory_args,
        Some(&args.game_args),
        &rules,
        &[options::Row::of(design)],
    )?;
    for note in notes {
        eprintln!("ariadne: note: {note}");
    }
    let mut config = EpisodeConfig {
        game: game.clone(),
        max_steps: args.max_steps,
        seed: args.seed,
        design,
        memory,
        agent: resolver.agent(&args.game_args, &rules),
        trials: args.game_args.trials(),
        prompts: resolver.prompts(&args.memory_args),
        goal: resolver.goal(&args.game_args)?,
        walkthrough: driven,
        script: None,
        profile: Some(profile),
        handover: None,
    };
    // An older revision, as runs recorded before profiles were (replay fixtures).
    if let Some(r) = args.legacy_agent {
        config.agent = crate::agent::AgentSettings::legacy(r).map_err(UserError::new)?;
        config.profile = None;
    }
    if let Some(m) = args.legacy_memory {
        config.memory = crate::memory::MemorySettings::legacy(m).map_err(UserError::new)?;
        config.profile = None;
    }
    game.check()?;
    crate::llm::prompts::Prompts::load_noting(config.prompts.as_deref())?;
    let py = pyenv::ensure(
        Needs {
            local: (llm.embedded_chat() && chat).then_some(llm.local_model),
            embed: llm.embed_base_url.is_none(),
            ..Needs::default()
        }
        .with_games([game]),
    )
    .await?;
    if !args.quiet {
        eprintln!(
            "ariadne: starting {}",
            match (llm.embedded_chat() && chat, llm.embed_base_url.is_none()) {
                (true, _) => "the embedded local model (this takes a few seconds)",
                (false, true) => "the local embedding server",
                (false, false) => "with remote endpoints",
            }
        );
    }
    let conn = connect::connect(&llm, chat, args.seed, &py, &py.home.join("logs")).await?;
    let quiet = args.quiet;
    let label = game.to_string();
    let sinks = move |dir: &std::path::Path| -> Vec<Box<dyn StepSink>> {
        match shown {
            Shown::Terminal => vec![Box::new(TerminalView::new(
                quiet,
                label.clone(),
                dir.to_path_buf(),
            ))],
            Shown::Nowhere => Vec::new(),
        }
    };
    let run = GameRun {
        runs_dir: args.runs_dir.clone(),
        run_id: format!(
            "{}-{}",
            chrono::Local::now().format("%Y%m%d-%H%M%S"),
            game.name()
        ),
        command: match shown {
            Shown::Terminal => "play",
            Shown::Nowhere => "agent",
        }
        .into(),
        conn: &conn,
        py: &py,
        cancel: cancel::watch_ctrl_c(),
        sinks: &sinks,
        announce: shown == Shown::Terminal,
        game_timeout: std::time::Duration::from_secs(args.game_args.game_timeout),
    };
    let result = play_game(&config, &run).await;
    conn.servers.stop().await;
    result
}
