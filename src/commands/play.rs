//! `ariadne play`: set up (Python environment, local servers), run one game with the
//! Ariadne agent, show each step live, log the trajectory, print a summary. With
//! `--walkthrough`, play the game's own walkthrough instead (no LLM).

use std::process::ExitCode;

use anyhow::Result;

use super::term::{TerminalView, play_exit};
use crate::cli::PlayArgs;
use crate::env::{GameSpec, games};
use crate::episode::EpisodeConfig;
use crate::error::UserError;
use crate::memory::MemoryDesign;
use crate::ops::{self, play::PlayRequest};
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
    let request = request(&game, &args, "play")?;
    let (quiet, label) = (args.quiet, game.to_string());
    let view = move |dir: &std::path::Path| -> Vec<Box<dyn StepSink>> {
        vec![Box::new(TerminalView::new(
            quiet,
            label.clone(),
            dir.to_path_buf(),
        ))]
    };
    let played = ops::play::play(&request, &view).await?;
    Ok(play_exit(played.summary.outcome))
}

/// The play operation's input from `play`'s arguments (`command`: `play`, or `agent`
/// for a harness's game): the settings resolved from flags, environment and config file.
///
/// # Errors
/// Bad options (one that changes nothing for the design is an error), a bad config file.
pub(super) fn request(game: &GameSpec, args: &PlayArgs, command: &str) -> Result<PlayRequest> {
    let driven = args.walkthrough && args.memory.is_some();
    let design = args.memory.unwrap_or(MemoryDesign::Arigraph);
    let resolver = Resolver::load(args.llm.config.as_deref())?;
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
        crate::report::notice(format!("ariadne: note: {note}"));
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
    Ok(PlayRequest {
        config,
        llm: resolver.llm(&args.llm)?,
        // A walkthrough-driven memory needs the chat model only when its update calls it.
        chat: !driven || design.chat_in_update(),
        runs_dir: args.runs_dir.clone(),
        run_id: format!(
            "{}-{}",
            chrono::Local::now().format("%Y%m%d-%H%M%S"),
            game.name()
        ),
        command: command.into(),
        announce: command == "play",
        quiet: args.quiet,
        game_timeout: std::time::Duration::from_secs(args.game_args.game_timeout),
    })
}
