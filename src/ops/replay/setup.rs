//! What a replay plays and is served: the recorded game, the checks on the request,
//! the recorded answers (and the live endpoint after a hand-over), the episode's
//! settings and its environment.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::input::{LoggedRun, ReplayOptions};
use crate::env::{GameSpec, resolve_game};
use crate::episode::EpisodeConfig;
use crate::error::UserError;
use crate::llm::connect::{self, Servers};
use crate::llm::replay::{RecordedCall, ReplayBackend};
use crate::pyenv;
use crate::trajectory::{self, Manifest, Parent, RunWriter, StepRecord};

/// The game as recorded: its absolute path, else the path as given (from the run's
/// working directory), else a bundled game of the same name; a TextWorld-Express game,
/// a harness's, ScienceWorld's, NetHack's and a game of the authors' suite as their
/// specifications.
///
/// # Errors
/// A specification that no longer parses.
pub(super) fn recorded_game(m: &Manifest) -> Result<GameSpec> {
    let path = &m.game.path;
    if path.starts_with(crate::env::twx::PREFIX)
        || path.starts_with(crate::env::harness::PREFIX)
        || path.starts_with(crate::env::scienceworld::PREFIX)
        || path.starts_with(crate::env::suite::SUITE)
        || crate::env::nethack::NetHackGame::is_spec(path)
    {
        return Ok(GameSpec::parse(path)?);
    }
    let given = path
        .strip_prefix(crate::env::jericho::PREFIX)
        .unwrap_or(path);
    let file = [&m.game.abs_path, given, &m.game.name]
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(resolve_game)
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(given));
    Ok(if path.starts_with(crate::env::jericho::PREFIX) {
        GameSpec::Jericho(file)
    } else {
        GameSpec::of_file(file)
    })
}

/// What the request asks is possible on this run: its game is there, a harness run is
/// not continued, the run has a finished step, the step asked for is one of its steps,
/// and a continued run's cap leaves something to play.
///
/// # Errors
/// A [`UserError`] naming what is not possible.
pub(super) fn check_request(opts: &ReplayOptions, run: &LoggedRun, game: &GameSpec) -> Result<()> {
    game.check()?;
    if matches!(game, GameSpec::Harness(_)) && opts.continue_from.is_some() {
        bail!(UserError::new(
            "a harness run cannot be continued: its game ran in the harness; replay it whole or at --step"
        ));
    }
    let recorded_steps = run.steps.len() as u32;
    if recorded_steps == 0 {
        bail!(UserError::new(format!(
            "{} has no finished step to replay",
            opts.run.display()
        )));
    }
    if let (Some(n), Some(cap)) = (opts.continue_from, opts.max_steps)
        && cap <= n
    {
        bail!(UserError::new(format!(
            "--max-steps {cap} leaves nothing to play after step {n}; give a larger cap"
        )));
    }
    if let Some(n) = opts.step.or(opts.continue_from)
        && (n == 0 || n > recorded_steps)
    {
        bail!(UserError::new(format!(
            "the run has steps 1..{recorded_steps}; step {n} is not among them"
        )));
    }
    Ok(())
}

/// The answers a replay is served: the log's, then after a hand-over the live
/// endpoint's (with the continued run's writer and servers); and the steps served from
/// the log.
///
/// # Errors
/// See [`continuation`].
pub(super) async fn backend_for(
    opts: &ReplayOptions,
    run: &LoggedRun,
    py: &pyenv::PyEnv,
) -> Result<(ReplayBackend, Option<RunWriter>, Servers, usize)> {
    if let Some(n) = opts.continue_from {
        let (backend, writer, servers) = continuation(opts, run, n, py).await?;
        return Ok((backend, Some(writer), servers, n as usize));
    }
    let backend = ReplayBackend::new(
        recorded_calls(&run.steps),
        run.vectors.clone(),
        run.manifest.chat_model(),
        None,
    )
    .with_damage(run.vectors_damage.clone());
    Ok((backend, None, Servers::default(), run.steps.len()))
}

/// Every recorded chat call of `steps`, with its step.
pub(super) fn recorded_calls(steps: &[StepRecord]) -> Vec<RecordedCall> {
    steps
        .iter()
        .flat_map(|s| s.llm_calls.iter().map(move |c| (s.step, c.clone())))
        .collect()
}

/// A continued run: the log's answers up to step `n`, then the live endpoint, and a new
/// run directory beside the original whose manifest names its parent.
///
/// # Errors
/// The run directory cannot be written; the endpoint cannot be reached.
pub(super) async fn continuation(
    opts: &ReplayOptions,
    run: &LoggedRun,
    n: u32,
    py: &pyenv::PyEnv,
) -> Result<(ReplayBackend, RunWriter, Servers)> {
    let m = &run.manifest;
    let llm = opts
        .llm
        .clone()
        .context("continue-from needs LLM settings")?;
    let runs_dir = opts
        .run
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("runs"));
    let run_id = format!(
        "{}-{}-from-{n}",
        chrono::Local::now().format("%Y%m%d-%H%M%S"),
        m.game.name
    );
    let mut manifest = m.clone();
    manifest.format_version = trajectory::FORMAT_VERSION;
    manifest.command = "replay --continue-from".into();
    manifest.created_at = chrono::Local::now().to_rfc3339();
    manifest.parent = Some(Parent {
        run: opts.run.display().to_string(),
        run_id: m.run_id.clone(),
        step: n,
    });
    if let Some(cap) = opts.max_steps {
        manifest.max_steps = cap;
    }
    if let Some(profile) = &opts.handover {
        manifest.handover = Some(crate::profile::Handover {
            step: n,
            profile: profile.clone(),
        });
    }
    let mut writer = RunWriter::create(&runs_dir, &run_id, &manifest)?;
    let conn = connect::connect(&llm, true, 1, m.seed, py, writer.dir()).await?;
    // The decision sampled as the run's agent samples it (at 1 without exploration, as
    // the reference does).
    let explores = m.memory_design.has_graph() && m.agent.exploration;
    let live = conn.backend_for(m.seed, explores)?;
    manifest.llm = crate::episode::game::described_for(&conn.described, explores);
    writer.write_manifest(&manifest)?;
    let backend = ReplayBackend::new(
        recorded_calls(&run.steps[..n as usize]),
        run.vectors.clone(),
        llm.model.clone(),
        Some(live),
    )
    .with_damage(run.vectors_damage.clone());
    Ok((backend, writer, conn.servers))
}

/// The episode a replay plays: the recorded settings, capped where the request stops.
/// The cap counts what the recorded run counted: with a route as one step (the
/// reference's rule), the decisions, not the step lines its moves filled.
pub(super) fn episode_config(
    opts: &ReplayOptions,
    run: &LoggedRun,
    game: GameSpec,
) -> EpisodeConfig {
    let m = &run.manifest;
    let cap_of = |lines: &[StepRecord]| -> u32 {
        if m.agent.route_one_step {
            lines
                .iter()
                .filter(|s| s.action_source != crate::trajectory::ActionSource::Route)
                .count() as u32
        } else {
            lines.len() as u32
        }
    };
    let max_steps = match (opts.continue_from, opts.step) {
        (Some(_), _) => opts.max_steps.unwrap_or(m.max_steps),
        (None, Some(n)) => cap_of(&run.steps[..(n as usize).min(run.steps.len())]),
        (None, None) => cap_of(&run.steps),
    };
    EpisodeConfig {
        game,
        max_steps,
        seed: m.seed,
        design: m.memory_design,
        memory: m.memory.clone(),
        agent: m.agent.clone(),
        trials: 1,
        prompts: m.prompts_dir(),
        goal: m.goal.clone(),
        // A continued run hands over to the live LLM; a replay plays the recorded
        // walkthrough (a game may give another one at each reset).
        walkthrough: m.walkthrough && opts.continue_from.is_none(),
        script: (!m.walkthrough_commands.is_empty()).then(|| m.walkthrough_commands.clone()),
        profile: m.profile.clone(),
        // A continued run of this replay hands over as asked; a run that was continued
        // so replays with its own handover.
        handover: match (opts.continue_from, &opts.handover) {
            (Some(step), Some(profile)) => Some(crate::profile::Handover {
                step,
                profile: profile.clone(),
            }),
            _ => m.handover.clone(),
        },
    }
}

/// The game a replay plays: a harness run is fed the lines its harness sent; any other
/// game is played again through its bridge (its log in `log_dir`).
///
/// # Errors
/// The harness record cannot be read; the bridge does not start.
pub(super) async fn replay_env(
    opts: &ReplayOptions,
    game: &GameSpec,
    py: &pyenv::PyEnv,
    log_dir: &Path,
) -> Result<Box<dyn crate::env::Environment>> {
    Ok(match game {
        GameSpec::Harness(_) => {
            let mut env = crate::env::harness::HarnessEnv::recorded(
                &crate::env::harness::record_in(&opts.run),
            )?;
            env.grammar = game.grammar();
            Box::new(env)
        }
        _ => {
            game.start(
                py,
                &log_dir.join("bridge.log"),
                crate::env::bridge::DEFAULT_STEP_TIMEOUT,
            )
            .await?
        }
    })
}
