//! `ariadne play`: set up (Python env, local servers), run one episode of the Ariadne
//! loop on a TextWorld game, show each step live, log the trajectory, print a summary.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use std::path::PathBuf;

use crate::agent::{Agent, AgentSettings, Decision, GO_TO, room_key};
use crate::env::{self, GameState, TextWorldEnv};
use crate::llm::local::{self, LocalOptions, LocalServer};
use crate::llm::{ChatBackend, EmbedConfig, EndpointConfig, Llm, OpenAiBackend, Usage};
use crate::memory::{self, MemoryDesign, MemorySettings};
use crate::nav::Direction;
use crate::prompts::Prompts;
use crate::pyenv;
use crate::settings::PlaySettings;
use crate::trajectory::{self, GraphStats, RunWriter, StepRecord, Summary, Timings};

/// Local servers started for a run; stopped by [`Servers::stop`] (or killed on drop).
#[derive(Default)]
pub struct Servers {
    llm: Option<LocalServer>,
    embed: Option<LocalServer>,
}

impl Servers {
    /// Stop every server.
    pub async fn stop(self) {
        if let Some(s) = self.llm {
            s.stop().await;
        }
        if let Some(s) = self.embed {
            s.stop().await;
        }
    }
}

/// Endpoints ready for use: the chat and embedding configurations, the local servers
/// started for them, and their description for the manifest (never a key).
pub struct Connection {
    /// Chat endpoint (its seed is set per backend).
    pub chat: EndpointConfig,
    /// Embedding endpoint.
    pub embed: EmbedConfig,
    /// Local servers to stop at the end.
    pub servers: Servers,
    /// The manifest's `llm` entry.
    pub described: serde_json::Value,
}

impl Connection {
    /// A backend whose chat requests carry `seed`.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn backend(&self, seed: u64) -> Result<Arc<dyn ChatBackend>> {
        let chat = EndpointConfig {
            seed: Some(seed),
            ..self.chat.clone()
        };
        Ok(Arc::new(OpenAiBackend::new(chat, self.embed.clone())?))
    }
}

/// Start the local servers the settings need (their logs go to `log_dir`) and describe
/// the endpoints.
///
/// # Errors
/// Setup failures (servers that exit or never become ready) as one clear line.
pub async fn connect(
    settings: &crate::settings::LlmSettings,
    seed: u64,
    py: &pyenv::PyEnv,
    log_dir: &std::path::Path,
) -> Result<Connection> {
    let mut servers = Servers::default();
    let threads = settings.threads.max(1);
    let (llm_srv, embed_srv) = tokio::join!(
        async {
            if settings.embedded_chat() {
                let opts = LocalOptions {
                    model_path: py.model_path(settings.local_model),
                    n_ctx: settings.ctx,
                    threads,
                    parallel: 4,
                    log_dir: log_dir.to_path_buf(),
                };
                local::start_llm(py, &opts).await.map(Some)
            } else {
                Ok(None)
            }
        },
        async {
            if settings.embed_base_url.is_none() {
                local::start_embed(py, threads, log_dir).await.map(Some)
            } else {
                Ok(None)
            }
        }
    );
    servers.llm = llm_srv?;
    servers.embed = embed_srv?;
    let chat = EndpointConfig {
        base_url: match &servers.llm {
            Some(s) => s.base_url.clone(),
            None => settings.base_url.clone().unwrap_or_default(),
        },
        api_key: settings.api_key.clone(),
        model: settings.model.clone(),
        json_mode: settings.json_mode,
        temperature: settings.temperature,
        timeout_s: settings.timeout_s,
        seed: Some(seed),
        length_limits: servers.llm.is_some() || settings.length_limits,
    };
    let embed = match (&servers.embed, &settings.embed_base_url) {
        (Some(s), _) => EmbedConfig {
            base_url: s.base_url.clone(),
            api_key: None,
            query_model: "e5-query".into(),
            passage_model: "e5-passage".into(),
            query_prefix: String::new(),
            passage_prefix: String::new(),
        },
        (None, url) => EmbedConfig {
            base_url: url.clone().unwrap_or_default(),
            api_key: settings.embed_api_key.clone(),
            query_model: settings.embed_model.clone(),
            passage_model: settings.embed_model.clone(),
            query_prefix: String::new(),
            passage_prefix: String::new(),
        },
    };
    let described = json!({
        "chat": {
            "base_url": chat.base_url,
            "embedded": servers.llm.is_some(),
            "model": chat.model,
            "local_model": servers.llm.as_ref().map(|_| json!({
                "name": settings.local_model.name,
                "file": settings.local_model.file,
                "sha256": settings.local_model.sha256,
                "runtime": pyenv::LLM_REQ,
                "ctx": settings.ctx,
                "threads": threads,
            })),
            "api_key_set": chat.api_key.is_some(),
            "json_mode": chat.json_mode,
            "temperature": chat.temperature,
            "timeout_s": chat.timeout_s,
            "length_limits": chat.length_limits,
        },
        "embedding": {
            "base_url": embed.base_url,
            "embedded": servers.embed.is_some(),
            "runtime": servers.embed.as_ref().map(|_| pyenv::EMBED_REQ),
            "query_model": embed.query_model,
            "passage_model": embed.passage_model,
            "api_key_set": embed.api_key.is_some(),
        },
    });
    Ok(Connection {
        chat,
        embed,
        servers,
        described,
    })
}

fn clip(s: &str, n: usize) -> String {
    let one = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() <= n {
        one
    } else {
        format!("{}...", one.chars().take(n).collect::<String>())
    }
}

fn show_step(quiet: bool, state: &GameState, r: &StepRecord, after: &GameState) {
    let room = state.room.as_deref().unwrap_or("?");
    let sent = if r.command.is_empty() || r.command == r.action {
        String::new()
    } else {
        format!(" [{}]", r.command)
    };
    if quiet {
        println!(
            "step {:>3} | {room} | +{} -{} triplets | {}{sent} | score {}/{}",
            r.step,
            r.memory.added.len(),
            r.memory.removed.len(),
            r.action,
            after.score,
            after.max_score
        );
        return;
    }
    println!(
        "\n== step {} | {room} | score {}/{} ==",
        r.step, state.score, state.max_score
    );
    if r.action_source == "route" {
        if let Some(route) = &r.route {
            println!(
                "> {} (move {} of {}){sent}",
                r.action, route.index, route.length
            );
        }
        for t in &r.memory.added {
            println!("  + {t}");
        }
        println!("{}", clip(&after.observation, 300));
        return;
    }
    println!("observation: {}", clip(&state.observation, 400));
    for t in &r.memory.added {
        println!("  + {t}");
    }
    for t in &r.memory.removed {
        println!("  - {t}");
    }
    if !r.retrieval.triplets.is_empty() {
        println!(
            "retrieved: {} triplets, episodes from steps {:?}",
            r.retrieval.triplets.len(),
            r.retrieval
                .episodes
                .iter()
                .map(|e| e.step)
                .collect::<Vec<_>>()
        );
    }
    if !r.unexplored_exits.is_empty() {
        let exits: Vec<String> = r
            .unexplored_exits
            .iter()
            .map(|u| format!("{} {}", u.room, u.direction.as_str()))
            .collect();
        println!("unexplored exits: {}", exits.join(", "));
    }
    for w in &r.warnings {
        println!("warning: {w}");
    }
    for (i, p) in r.plan.iter().enumerate() {
        println!("plan {}: {} ({})", i + 1, p.sub_goal, clip(&p.reason, 100));
    }
    let source = if r.action_source == "llm" {
        String::new()
    } else {
        format!(" [{}]", r.action_source)
    };
    println!(
        "> {}{source}{sent}  -- {}",
        r.action,
        clip(&r.rationale, 160)
    );
    let reward = if after.reward != 0 {
        format!(" ({:+})", after.reward)
    } else {
        String::new()
    };
    println!("{}{reward}", clip(&after.observation, 300));
}

fn spinner(quiet: bool, step: u32) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} step {msg}: updating memory, planning, acting [{elapsed}]",
        )
        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    pb.set_message(step.to_string());
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Run `ariadne play`. Returns the summary and the run directory.
///
/// # Errors
/// Setup and input errors as one clear line (missing game or sidecar, unreachable
/// endpoint, pip failure); errors during the episode after the finished steps were
/// written and the summary saved.
pub async fn play(s: PlaySettings) -> Result<(Summary, std::path::PathBuf)> {
    env::check_game(&s.game)?;
    Prompts::load(s.prompts.as_deref())?;
    let py = pyenv::ensure(
        s.llm.embedded_chat().then_some(s.llm.local_model),
        s.llm.embed_base_url.is_none(),
    )
    .await?;
    if !s.quiet {
        eprintln!(
            "ariadne: starting {}",
            match (s.llm.embedded_chat(), s.llm.embed_base_url.is_none()) {
                (true, _) => "the embedded local model (this takes a few seconds)",
                (false, true) => "the local embedding server",
                (false, false) => "with remote endpoints",
            }
        );
    }
    let conn = connect(&s.llm, s.seed, &py, &py.home.join("logs")).await?;
    let game_name = s
        .game
        .file_stem()
        .map(|x| x.to_string_lossy().into_owned())
        .unwrap_or_default();
    let run = GameRun {
        config: s.game_config(),
        runs_dir: s.runs_dir.clone(),
        run_id: format!(
            "{}-{game_name}",
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        ),
        quiet: s.quiet,
        progress: None,
        command: "play".into(),
    };
    let result = play_game(&run, &conn, &py).await;
    conn.servers.stop().await;
    result
}

/// What one game run needs besides the endpoints: the game and agent configuration,
/// where the run directory goes, and how to show progress.
pub struct GameRun {
    /// Game, step cap, seed, memory design and parameters, agent settings, prompts.
    pub config: GameConfig,
    /// Where the run directory is created.
    pub runs_dir: PathBuf,
    /// Its name (Reflexion's trials add `-trial-N`).
    pub run_id: String,
    /// One line per step.
    pub quiet: bool,
    /// Show progress on this bar instead of printing steps (bench).
    pub progress: Option<ProgressBar>,
    /// The command recorded in the manifest.
    pub command: String,
}

/// The game and agent configuration of a run.
#[derive(Debug, Clone)]
pub struct GameConfig {
    /// The game file.
    pub game: PathBuf,
    /// Step cap.
    pub max_steps: u32,
    /// Chat seed.
    pub seed: u64,
    /// Memory design.
    pub design: MemoryDesign,
    /// Memory parameters.
    pub memory: MemorySettings,
    /// Reflexion trials (1 for other designs).
    pub trials: u32,
    /// Agent settings.
    pub agent: AgentSettings,
    /// Prompt directory override.
    pub prompts: Option<PathBuf>,
}

/// Play one game: one episode, or for Reflexion up to `trials` episodes with a lesson
/// written after each failed one. Returns the last episode's summary and directory.
///
/// # Errors
/// Setup errors, and the episode's first error after its steps and summary were written.
pub async fn play_game(
    run: &GameRun,
    conn: &Connection,
    py: &pyenv::PyEnv,
) -> Result<(Summary, PathBuf)> {
    let c = &run.config;
    let game_name = c
        .game
        .file_stem()
        .map(|x| x.to_string_lossy().into_owned())
        .unwrap_or_default();
    let trials = if c.design == MemoryDesign::Reflexion {
        c.trials.max(1)
    } else {
        1
    };
    let backend = conn.backend(c.seed)?;
    let mut lessons: Vec<String> = Vec::new();
    let mut last = None;
    for trial in 1..=trials {
        let run_id = if trials > 1 {
            format!("{}-trial-{trial}", run.run_id)
        } else {
            run.run_id.clone()
        };
        let mut manifest = json!({
            "format_version": trajectory::FORMAT_VERSION,
            "ariadne_version": env!("CARGO_PKG_VERSION"),
            "command": run.command,
            "created_at": chrono::Local::now().to_rfc3339(),
            "game": {
                "path": c.game.display().to_string(),
                "abs_path": std::fs::canonicalize(&c.game).unwrap_or_else(|_| c.game.clone()).display().to_string(),
                "name": game_name,
            },
            "seed": c.seed,
            "max_steps": c.max_steps,
            "memory_design": c.design,
            "memory": c.memory,
            "agent": c.agent,
            "llm": conn.described,
            "versions": {"ariadne": env!("CARGO_PKG_VERSION"), "textworld": pyenv::TEXTWORLD_REQ},
            "prompts": c.prompts.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "built-in".into()),
        });
        if c.design == MemoryDesign::Reflexion {
            manifest["trial"] = json!(trial);
            manifest["trials"] = json!(trials);
            manifest["lessons"] = json!(lessons);
        }
        let writer = RunWriter::create(&run.runs_dir, &run_id, &manifest)?;
        if trials > 1 && run.progress.is_none() {
            println!("ariadne: Reflexion trial {trial} of {trials}");
        }
        let episode = Episode {
            game: c.game.clone(),
            max_steps: c.max_steps,
            memory: c.memory.clone(),
            design: c.design,
            lessons: lessons.clone(),
            agent: c.agent.clone(),
            quiet: run.quiet,
            progress: run.progress.clone(),
            py,
            backend: backend.clone(),
            prompts: Prompts::load(c.prompts.as_deref())?,
            log_dir: writer.dir().to_path_buf(),
            writer: Some(writer),
            check: None,
            what_if: None,
        };
        let done = run_episode(episode).await?;
        let won = done.summary.outcome == "won";
        let interrupted = done.summary.outcome == "interrupted";
        let mut this = done.summary.clone();
        if trial < trials && !won && !interrupted {
            let llm = Llm {
                backend: backend.clone(),
                prompts: Prompts::load(c.prompts.as_deref())?,
            };
            let (lesson, calls) = write_lesson(&llm, &done, &lessons).await?;
            this.lesson = lesson.clone();
            this.lesson_calls = calls;
            RunWriter::rewrite_summary(&done.dir, &this)?;
            if let Some(l) = lesson {
                if run.progress.is_none() {
                    println!("lesson for the next trial: {l}");
                }
                lessons.push(l);
            }
        }
        // The cost of every trial counts (Table 3 compares what a design spends); the
        // outcome and score are the last trial's.
        if let Some((prev, _)) = &last {
            let prev: &Summary = prev;
            let mut s = this.clone();
            s.steps += prev.steps;
            s.llm_calls += prev.llm_calls + prev.lesson_calls.len() as u64;
            s.llm_failures += prev.llm_failures;
            s.llm_repairs += prev.llm_repairs;
            s.fallback_actions += prev.fallback_actions;
            s.usage.add(prev.usage);
            prev.lesson_calls.iter().for_each(|c| s.usage.add(c.usage));
            s.wall_s += prev.wall_s;
            if s.steps > 0 {
                s.prompt_tokens_per_step = s.usage.prompt_tokens as f64 / f64::from(s.steps);
                s.completion_tokens_per_step =
                    s.usage.completion_tokens as f64 / f64::from(s.steps);
            }
            last = Some((s, done.dir));
        } else {
            last = Some((this, done.dir));
        }
        if won || interrupted {
            break;
        }
    }
    last.context("no trial was played")
}

#[derive(serde::Deserialize)]
struct LessonAnswer {
    lesson: String,
}

/// Reflexion's verbal lesson after a failed trial, from its trajectory (actions and
/// results, read back from the run directory) and the earlier lessons.
async fn write_lesson(
    llm: &Llm,
    done: &EpisodeResult,
    earlier: &[String],
) -> Result<(Option<String>, Vec<crate::llm::CallRecord>)> {
    let (steps, _) = trajectory::read_steps(&done.dir)?;
    let trajectory: Vec<serde_json::Value> = steps
        .iter()
        .map(|r| json!({"step": r.step, "action": r.action, "feedback": clip(&r.feedback, 160)}))
        .collect();
    let messages = llm.prompts.render(
        "lesson",
        minijinja::context! {
            goal => done.agent.goal(),
            score => done.summary.score,
            max_score => done.summary.max_score,
            steps => done.summary.steps,
            outcome => &done.summary.outcome,
            trajectory => trajectory,
            lessons => earlier,
        },
    )?;
    let schema = json!({
        "type": "object",
        "properties": {"lesson": {"type": "string", "maxLength": 600}},
        "required": ["lesson"],
        "additionalProperties": false
    });
    let mut log = crate::llm::CallLog::default();
    let answer: Option<LessonAnswer> = llm
        .ask(
            &mut log,
            "lesson",
            messages,
            schema,
            250,
            |_: &LessonAnswer| Ok(()),
        )
        .await?;
    Ok((answer.map(|a| a.lesson), log.calls))
}

/// Checks a step before it is written; an error stops the episode (replay uses it to
/// compare each replayed step with the log).
pub type StepCheck<'a> = Box<dyn FnMut(&StepRecord) -> Result<()> + 'a>;

/// One episode to run: the game, the agent's settings, where answers come from, and
/// what to do with each finished step.
pub struct Episode<'a> {
    /// The game file.
    pub game: PathBuf,
    /// Step cap.
    pub max_steps: u32,
    /// Memory parameters.
    pub memory: MemorySettings,
    /// Which memory.
    pub design: MemoryDesign,
    /// Reflexion's lessons from earlier trials.
    pub lessons: Vec<String>,
    /// Agent parameters.
    pub agent: AgentSettings,
    /// One line per step.
    pub quiet: bool,
    /// Show the step and score on this bar and print nothing (bench).
    pub progress: Option<ProgressBar>,
    /// The Python environment (bridge).
    pub py: &'a pyenv::PyEnv,
    /// Where chat answers and embeddings come from.
    pub backend: Arc<dyn ChatBackend>,
    /// Prompt templates.
    pub prompts: Prompts,
    /// Where steps are written (`None`: nowhere, as in a replay).
    pub writer: Option<RunWriter>,
    /// Where the bridge's log goes.
    pub log_dir: PathBuf,
    /// Called with each step before it is written.
    pub check: Option<StepCheck<'a>>,
    /// Also compute retrieval with these settings at every step (replay's what-if).
    pub what_if: Option<MemorySettings>,
}

/// What an episode left: its summary, the agent (memory, plan) as it ended, and the run
/// directory if one was written.
pub struct EpisodeResult {
    /// The summary.
    pub summary: Summary,
    /// The agent after the last step.
    pub agent: Agent,
    /// The run directory (empty when nothing was written).
    pub dir: PathBuf,
}

/// Where a step's command came from when it is part of a `go to` route.
#[derive(Debug, Clone)]
struct RouteStep {
    target: String,
    index: usize,
    length: usize,
}

/// What one command did: the record's game-side fields.
struct Executed {
    command: String,
    after: GameState,
    env_ms: u64,
    nav_added: Vec<crate::memory::Triplet>,
    nav_removed: Vec<crate::memory::Triplet>,
    /// The route stopped: the text the agent gets as its next observation.
    route_failure: Option<String>,
}

/// Send `command` to the game and record a movement in the graph. `expected` is the
/// room a route move should reach.
async fn execute(
    bridge: &mut TextWorldEnv,
    agent: &mut Agent,
    state: &GameState,
    command: &str,
    expected: Option<&str>,
) -> Result<Executed> {
    let started = Instant::now();
    let after = bridge.step(command).await?;
    let env_ms = started.elapsed().as_millis() as u64;
    let mut nav_added = Vec::new();
    let mut nav_removed = Vec::new();
    let mut route_failure = None;
    if let (Some(dir), Some(from), Some(to)) =
        (Direction::of_command(command), &state.room, &after.room)
    {
        let (a, r) = agent.record_move(from, dir, to, expected);
        nav_added = a;
        nav_removed = r;
        if let Some(exp) = expected
            && room_key(exp) != room_key(to)
        {
            let went = if room_key(from) == room_key(to) {
                "you did not move".to_string()
            } else {
                format!("you arrived in {to}")
            };
            route_failure = Some(format!(
                "The route stopped: going {} from {from} was expected to reach {exp}, but {went}. The game said: {}",
                dir.as_str(),
                after.observation
            ));
        }
    }
    Ok(Executed {
        command: command.to_string(),
        after,
        env_ms,
        nav_added,
        nav_removed,
        route_failure,
    })
}

/// Run one episode of the Ariadne loop: reset the game, then observe, update memory,
/// retrieve, plan and act until the game ends or `max_steps` steps are played; show
/// each step, check it, write it, and write the summary.
///
/// # Errors
/// The first error of the episode (bridge, endpoint, a failed check), after the
/// finished steps and the summary were written.
pub async fn run_episode(mut s: Episode<'_>) -> Result<EpisodeResult> {
    let dir = s
        .writer
        .as_ref()
        .map(|w| w.dir().to_path_buf())
        .unwrap_or_default();
    let py = s.py;
    let mut bridge = TextWorldEnv::start(
        &py.python,
        &py.bridge_script(),
        &s.log_dir.join("bridge.log"),
    )
    .await?;
    let started = Instant::now();
    let mut state = bridge.reset(&s.game).await?;
    let goal = if state.objective.trim().is_empty() {
        state.observation.clone()
    } else {
        state.objective.clone()
    };
    let llm = Llm {
        backend: s.backend.clone(),
        prompts: std::mem::replace(&mut s.prompts, Prompts::load(None)?),
    };
    let mut agent = Agent::new(
        llm,
        memory::build(s.design, s.memory.clone(), s.lessons.clone()),
        goal,
        s.agent.clone(),
    );
    agent.what_if = s.what_if.clone();
    if s.writer.is_some() && s.progress.is_none() {
        println!(
            "ariadne: playing {} (max score {}, step cap {}); trajectory in {}",
            s.game.display(),
            state.max_score,
            s.max_steps,
            dir.display()
        );
    }

    let mut summary = Summary {
        format_version: trajectory::FORMAT_VERSION,
        max_score: state.max_score,
        ..Summary::default()
    };
    let mut last_action = String::new();
    let mut outcome = "step_cap".to_string();
    let mut error: Option<anyhow::Error> = None;
    crate::interrupt::install();
    let mut step = 0u32;
    'episode: while step < s.max_steps {
        step += 1;
        let step_started = Instant::now();
        let pb = spinner(s.quiet || s.progress.is_some(), step);
        let decided = tokio::select! {
            d = agent.step(step, &state, &last_action) => Some(d),
            _ = crate::interrupt::wait() => None,
        };
        pb.finish_and_clear();
        let decision = match decided {
            None => {
                outcome = "interrupted".into();
                step -= 1;
                break;
            }
            Some(Err(e)) => {
                outcome = "error".into();
                error = Some(e);
                step -= 1;
                break;
            }
            Some(Ok(d)) => d,
        };

        // The commands this decision sends: one, or the moves of a `go to` route.
        let mut plan: Vec<(String, Option<String>, Option<RouteStep>)> = Vec::new();
        let mut no_route: Option<String> = None;
        match decision
            .action
            .strip_prefix(GO_TO)
            .filter(|t| decision.go_to_targets.iter().any(|g| g == t))
        {
            Some(target) => {
                let from = state.room.clone().unwrap_or_default();
                match agent.route(&from, target).filter(|r| !r.is_empty()) {
                    Some(route) => {
                        let length = route.len();
                        for (i, m) in route.into_iter().enumerate() {
                            plan.push((
                                m.direction.command(),
                                Some(m.to),
                                Some(RouteStep {
                                    target: target.to_string(),
                                    index: i + 1,
                                    length,
                                }),
                            ));
                        }
                    }
                    None => {
                        no_route = Some(format!("There is no known route from {from} to {target}."))
                    }
                }
            }
            None => plan.push((decision.action.clone(), None, None)),
        }

        let mut first = Some(decision);
        if let Some(msg) = no_route {
            let decision = first.take().expect("decision");
            let mut after = state.clone();
            after.observation = msg;
            after.reward = 0;
            let record = build_record(
                step,
                &state,
                decision,
                None,
                String::new(),
                &after,
                0,
                step_started,
                &agent,
                Vec::new(),
                Vec::new(),
            );
            if let Err(e) = finish_step(&mut s, &mut summary, &record, &state, &after, &mut agent) {
                outcome = "error".into();
                error = Some(e);
                step -= 1;
                break 'episode;
            }
            last_action = record.action.clone();
            state = after;
            continue;
        }
        for (k, (command, expected, route)) in plan.into_iter().enumerate() {
            if k > 0 {
                if step >= s.max_steps {
                    break 'episode;
                }
                step += 1;
            }
            let step_started = if k == 0 { step_started } else { Instant::now() };
            let executed = match execute(
                &mut bridge,
                &mut agent,
                &state,
                &command,
                expected.as_deref(),
            )
            .await
            {
                Ok(x) => x,
                Err(e) => {
                    outcome = "error".into();
                    error = Some(e);
                    step -= 1;
                    break 'episode;
                }
            };
            let decision = match first.take() {
                Some(d) => d,
                None => continuation(route.as_ref()),
            };
            let mut after = executed.after.clone();
            if let Some(msg) = &executed.route_failure {
                after.observation = msg.clone();
            }
            let record = build_record(
                step,
                &state,
                decision,
                route.as_ref(),
                executed.command.clone(),
                &after,
                executed.env_ms,
                step_started,
                &agent,
                executed.nav_added,
                executed.nav_removed,
            );
            if let Err(e) = finish_step(&mut s, &mut summary, &record, &state, &after, &mut agent) {
                outcome = "error".into();
                error = Some(e);
                step -= 1;
                break 'episode;
            }
            last_action = record.action.clone();
            state = after;
            if state.done {
                outcome = if state.won {
                    "won"
                } else if state.lost {
                    "lost"
                } else {
                    "done"
                }
                .into();
                break 'episode;
            }
            if executed.route_failure.is_some() {
                break;
            }
        }
    }
    summary.steps = step;
    summary.outcome = outcome;
    summary.error = error.as_ref().map(|e| format!("{e:#}"));
    summary.score = state.score;
    summary.max_score = state.max_score;
    summary.normalized_score = if state.max_score > 0 {
        state.score as f64 / state.max_score as f64
    } else {
        0.0
    };
    if summary.steps > 0 {
        summary.prompt_tokens_per_step =
            summary.usage.prompt_tokens as f64 / f64::from(summary.steps);
        summary.completion_tokens_per_step =
            summary.usage.completion_tokens as f64 / f64::from(summary.steps);
    }
    summary.wall_s = started.elapsed().as_secs_f64();
    summary.final_observation = state.observation.clone();
    bridge.close().await;
    if let Some(w) = s.writer.as_mut() {
        w.finish(&summary)?;
        if s.progress.is_none() {
            print_summary(&summary, &dir);
        }
    }
    if let Some(e) = error {
        if e.downcast_ref::<crate::error::UserError>().is_some() || s.writer.is_none() {
            return Err(e);
        }
        return Err(e.context(format!(
            "the episode stopped at step {} (finished steps are in {})",
            summary.steps + 1,
            dir.display()
        )));
    }
    Ok(EpisodeResult {
        summary,
        agent,
        dir,
    })
}

/// The decision carried by the later moves of a route: no LLM call was made.
fn continuation(route: Option<&RouteStep>) -> Decision {
    let target = route.map(|r| r.target.clone()).unwrap_or_default();
    Decision {
        update: Default::default(),
        retrieval: Default::default(),
        plan: Vec::new(),
        warnings: Vec::new(),
        rationale: format!("following the route to {target}"),
        action: format!("{GO_TO}{target}"),
        action_source: "route".into(),
        unexplored: Vec::new(),
        go_to_targets: Vec::new(),
        what_if: None,
        log: Default::default(),
        elapsed_ms: 0,
    }
}

#[allow(clippy::too_many_arguments)]
fn build_record(
    step: u32,
    state: &GameState,
    decision: Decision,
    route: Option<&RouteStep>,
    command: String,
    after: &GameState,
    env_ms: u64,
    step_started: Instant,
    agent: &Agent,
    nav_added: Vec<crate::memory::Triplet>,
    nav_removed: Vec<crate::memory::Triplet>,
) -> StepRecord {
    let mut usage = Usage::default();
    decision.log.calls.iter().for_each(|c| usage.add(c.usage));
    let llm_ms: u64 = decision.log.calls.iter().map(|c| c.latency_ms).sum::<u64>()
        + decision
            .log
            .embeds
            .iter()
            .map(|e| e.latency_ms)
            .sum::<u64>();
    let total_ms = step_started.elapsed().as_millis() as u64;
    let stats = agent.memory.graph().map(|g| GraphStats {
        semantic_vertices: g.vertex_count(),
        semantic_edges: g.edge_count(),
        episodic_vertices: g.episodes().len(),
    });
    let mut memory = decision.update;
    memory.added.extend(nav_added);
    memory.removed.extend(nav_removed);
    StepRecord {
        step,
        room: state.room.clone(),
        observation: state.observation.clone(),
        inventory: state.inventory.clone(),
        admissible_commands: state.admissible_commands.clone(),
        memory,
        retrieval: decision.retrieval,
        what_if: decision.what_if,
        unexplored_exits: decision.unexplored,
        go_to_targets: decision.go_to_targets,
        plan: decision.plan,
        warnings: decision.warnings,
        rationale: decision.rationale,
        action: decision.action,
        action_source: decision.action_source,
        command,
        route: route.map(|r| trajectory::RouteInfo {
            target: r.target.clone(),
            index: r.index,
            length: r.length,
        }),
        feedback: after.observation.clone(),
        reward: after.reward,
        score: after.score,
        max_score: after.max_score,
        done: after.done,
        won: after.won,
        lost: after.lost,
        llm_failures: decision.log.failures,
        llm_repairs: decision.log.repairs,
        llm_calls: decision.log.calls,
        embedding_calls: decision.log.embeds,
        vectors: decision.log.vectors,
        usage,
        graph: stats.unwrap_or_default(),
        timings: Timings {
            total_ms,
            llm_ms,
            env_ms,
            agent_ms: total_ms.saturating_sub(llm_ms + env_ms),
        },
    }
}

fn finish_step(
    s: &mut Episode<'_>,
    summary: &mut Summary,
    record: &StepRecord,
    state: &GameState,
    after: &GameState,
    agent: &mut Agent,
) -> Result<()> {
    match &s.progress {
        Some(pb) => {
            pb.set_position(u64::from(record.step));
            pb.set_message(format!("score {}/{}", after.score, after.max_score));
        }
        None => show_step(s.quiet, state, record, after),
    }
    if let Some(check) = s.check.as_mut() {
        check(record)?;
    }
    agent.observe_result(record.step, &record.action, after);
    if let Some(w) = s.writer.as_mut() {
        w.write_step(record)?;
    }
    summary.llm_calls += record.llm_calls.len() as u64;
    summary.llm_failures += u64::from(record.llm_failures);
    summary.llm_repairs += u64::from(record.llm_repairs);
    summary.fallback_actions += u64::from(record.action_source == "fallback");
    summary.usage.add(record.usage);
    Ok(())
}

fn print_summary(s: &Summary, dir: &std::path::Path) {
    println!(
        "\n{} | score {}/{} (normalized {:.2}) | {} steps | {} LLM calls ({} rejected, {} repaired, {} fallback actions) | tokens {} prompt / {} completion ({:.0}/{:.0} per step) | {:.1}s",
        s.outcome,
        s.score,
        s.max_score,
        s.normalized_score,
        s.steps,
        s.llm_calls,
        s.llm_failures,
        s.llm_repairs,
        s.fallback_actions,
        s.usage.prompt_tokens,
        s.usage.completion_tokens,
        s.prompt_tokens_per_step,
        s.completion_tokens_per_step,
        s.wall_s
    );
    println!("trajectory: {}", dir.display());
}
