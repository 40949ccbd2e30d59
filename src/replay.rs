//! `ariadne replay`: re-execute a logged run through the real bridge with every LLM
//! answer (chat and embeddings) served from the log, rebuild the memory step by step,
//! and check each step against the log; inspect or export the graph at any step; hand
//! over to a live LLM from step N; recompute retrieval under other d, w, k (what-if);
//! report graph statistics over time (paper Figure 5).

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use async_trait::async_trait;
use serde_json::{Value, json};

use crate::agent::AgentSettings;
use crate::error::UserError;
use crate::llm::{
    CallRecord, ChatAnswer, ChatBackend, ChatRequest, EmbedKind, Embeddings, LlmError, VectorRecord,
};
use crate::memory::{MemoryDesign, MemorySettings, Retrieval, export};
use crate::play::{self, Episode};
use crate::prompts::Prompts;
use crate::pyenv;
use crate::settings::{LlmSettings, resolve_game};
use crate::trajectory::{self, RunWriter, StepRecord};

/// Serves chat answers and embeddings from a log; after the recorded calls run out,
/// hands over to `live` if there is one.
pub struct ReplayBackend {
    calls: Mutex<VecDeque<(u32, CallRecord)>>,
    vectors: HashMap<(EmbedKind, String), Vec<f32>>,
    live: Option<Arc<dyn ChatBackend>>,
    model: String,
}

impl ReplayBackend {
    /// A backend that answers with the calls of `steps` in order and the `vectors`.
    pub fn new(
        steps: &[StepRecord],
        vectors: Vec<VectorRecord>,
        model: String,
        live: Option<Arc<dyn ChatBackend>>,
    ) -> Self {
        let calls = steps
            .iter()
            .flat_map(|s| s.llm_calls.iter().map(move |c| (s.step, c.clone())))
            .collect();
        let vectors = vectors
            .into_iter()
            .map(|v| ((v.kind, v.text), v.vector))
            .collect();
        Self {
            calls: Mutex::new(calls),
            vectors,
            live,
            model,
        }
    }
}

/// The first line where two prompts differ, for a divergence report.
fn first_difference(recorded: &[crate::llm::Message], replayed: &[crate::llm::Message]) -> String {
    if recorded.len() != replayed.len() {
        return format!(
            "{} messages recorded, {} replayed",
            recorded.len(),
            replayed.len()
        );
    }
    for (i, (a, b)) in recorded.iter().zip(replayed).enumerate() {
        if a == b {
            continue;
        }
        let (la, lb): (Vec<&str>, Vec<&str>) =
            (a.content.lines().collect(), b.content.lines().collect());
        let n = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
        return format!(
            "message {i} ({}) line {}: recorded {:?}, replayed {:?}",
            a.role,
            n + 1,
            la.get(n).unwrap_or(&"<end>"),
            lb.get(n).unwrap_or(&"<end>")
        );
    }
    "identical".into()
}

#[async_trait]
impl ChatBackend for ReplayBackend {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatAnswer, LlmError> {
        let next = self
            .calls
            .lock()
            .map_err(|_| LlmError::Replay("replay state poisoned".into()))?
            .pop_front();
        match (next, &self.live) {
            (Some((step, rec)), _) => {
                if rec.purpose != request.purpose || rec.messages != request.messages {
                    return Err(LlmError::Replay(format!(
                        "replay diverged at step {step}, field llm_calls ({} call, attempt {}): the prompt differs from the log: {}",
                        rec.purpose,
                        rec.attempt,
                        if rec.purpose != request.purpose {
                            format!(
                                "recorded a {} call, replayed a {} call",
                                rec.purpose, request.purpose
                            )
                        } else {
                            first_difference(&rec.messages, &request.messages)
                        }
                    )));
                }
                Ok(ChatAnswer {
                    content: rec.answer,
                    usage: rec.usage,
                    latency_ms: 0,
                })
            }
            (None, Some(live)) => live.chat(request).await,
            (None, None) => Err(LlmError::Replay(format!(
                "replay diverged: the log has no more recorded answers, but the agent made a {} call",
                request.purpose
            ))),
        }
    }

    async fn embed(&self, texts: &[String], kind: EmbedKind) -> Result<Embeddings, LlmError> {
        let found: Option<Vec<Vec<f32>>> = texts
            .iter()
            .map(|t| self.vectors.get(&(kind, t.clone())).cloned())
            .collect();
        match (found, &self.live) {
            (Some(vectors), _) => Ok(Embeddings {
                vectors,
                usage: Default::default(),
                latency_ms: 0,
            }),
            (None, Some(live)) => live.embed(texts, kind).await,
            (None, None) => {
                let missing = texts
                    .iter()
                    .find(|t| !self.vectors.contains_key(&(kind, (*t).clone())));
                Err(LlmError::Replay(format!(
                    "replay diverged: no recorded {kind:?} embedding for {:?}",
                    missing.map(|s| s.as_str()).unwrap_or("")
                )))
            }
        }
    }

    fn model_name(&self) -> String {
        self.model.clone()
    }
}

/// Fields compared between a replayed and a recorded step, in the order reported.
pub const COMPARED: &[&str] = &[
    "room",
    "observation",
    "inventory",
    "admissible_commands",
    "memory",
    "retrieval",
    "unexplored_exits",
    "go_to_targets",
    "plan",
    "warnings",
    "rationale",
    "action",
    "action_source",
    "command",
    "route",
    "feedback",
    "reward",
    "score",
    "done",
    "won",
    "lost",
    "llm_failures",
    "llm_repairs",
];

/// The path of the first difference between two JSON values (`field.sub[2].x`), with
/// the two values there.
pub fn first_diff(path: &str, a: &Value, b: &Value) -> Option<(String, Value, Value)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                let vb = y.get(k).unwrap_or(&Value::Null);
                if let Some(d) = first_diff(&format!("{path}.{k}"), va, vb) {
                    return Some(d);
                }
            }
            y.iter()
                .find(|(k, _)| !x.contains_key(*k))
                .map(|(k, v)| (format!("{path}.{k}"), Value::Null, v.clone()))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_diff(&format!("{path}[{i}]"), va, vb)),
        _ if a == b => None,
        _ => Some((path.to_string(), a.clone(), b.clone())),
    }
}

/// The first field where a replayed step differs from the recorded one, as
/// `(field path, recorded, replayed)`.
pub fn compare(recorded: &StepRecord, replayed: &StepRecord) -> Option<(String, Value, Value)> {
    let a = serde_json::to_value(recorded).ok()?;
    let b = serde_json::to_value(replayed).ok()?;
    for f in COMPARED {
        let (va, vb) = (
            a.get(f).unwrap_or(&Value::Null),
            b.get(f).unwrap_or(&Value::Null),
        );
        if let Some(d) = first_diff(f, va, vb) {
            return Some(d);
        }
    }
    let answers = |r: &StepRecord| {
        r.llm_calls
            .iter()
            .map(|c| (c.purpose.clone(), c.answer.clone()))
            .collect::<Vec<_>>()
    };
    if answers(recorded) != answers(replayed) {
        return Some((
            "llm_calls".into(),
            json!(answers(recorded)),
            json!(answers(replayed)),
        ));
    }
    None
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 300 {
        format!("{}...", s.chars().take(300).collect::<String>())
    } else {
        s
    }
}

/// What the user asked of a replay.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// The run directory.
    pub run: PathBuf,
    /// Stop after this step and show the memory as it stood.
    pub step: Option<u32>,
    /// Write the graph at `step` (or the end) in this format ("dot" or "json").
    pub export: Option<String>,
    /// Where the export goes (default: `<run>/graph-step-N.<ext>`).
    pub out: Option<PathBuf>,
    /// Replay steps 1..N, then hand over to the live LLM.
    pub continue_from: Option<u32>,
    /// Step cap of the continued run (default: the original's).
    pub max_steps: Option<u32>,
    /// What-if retrieval parameters (None: no what-if).
    pub what_if: Option<(Option<u32>, Option<usize>, Option<usize>)>,
    /// Print graph statistics per step.
    pub stats: bool,
    /// Write graph statistics per step to this CSV file.
    pub csv: Option<PathBuf>,
    /// One line per step.
    pub quiet: bool,
    /// LLM settings for `continue_from`.
    pub llm: Option<LlmSettings>,
}

/// A loaded run directory.
pub struct LoggedRun {
    /// `manifest.json`.
    pub manifest: Value,
    /// The complete steps.
    pub steps: Vec<StepRecord>,
    /// Whether a truncated last line was skipped.
    pub truncated: bool,
    /// `embeddings.jsonl`.
    pub vectors: Vec<VectorRecord>,
    /// `summary.json`, if written.
    pub summary: Option<Value>,
}

/// Read a run directory.
///
/// # Errors
/// A missing directory or manifest, a malformed line (other than a truncated last one).
pub fn load(dir: &Path) -> Result<LoggedRun> {
    let mpath = dir.join("manifest.json");
    let text = std::fs::read_to_string(&mpath).map_err(|e| {
        UserError::new(format!(
            "not a run directory: cannot read {}: {e}",
            mpath.display()
        ))
    })?;
    let manifest: Value = serde_json::from_str(&text)
        .map_err(|e| UserError::new(format!("{} is malformed: {e}", mpath.display())))?;
    let version = manifest["format_version"].as_u64().unwrap_or(0);
    if version != u64::from(trajectory::FORMAT_VERSION) {
        bail!(UserError::new(format!(
            "{} has format version {version}; this Ariadne reads version {}",
            mpath.display(),
            trajectory::FORMAT_VERSION
        )));
    }
    let (steps, truncated) =
        trajectory::read_steps(dir).map_err(|e| UserError::new(format!("{e:#}")))?;
    let vpath = dir.join("embeddings.jsonl");
    let vtext = std::fs::read_to_string(&vpath).unwrap_or_default();
    let mut vectors = Vec::new();
    for line in vtext.lines().filter(|l| !l.trim().is_empty()) {
        // A truncated last line is skipped like in steps.jsonl.
        if let Ok(v) = serde_json::from_str::<VectorRecord>(line) {
            vectors.push(v);
        }
    }
    let summary = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    Ok(LoggedRun {
        manifest,
        steps,
        truncated,
        vectors,
        summary,
    })
}

/// Per-step graph statistics (paper Figure 5): step, semantic vertices, semantic edges,
/// episodic vertices, triplets added, triplets removed.
pub fn stats_rows(steps: &[StepRecord]) -> Vec<[u64; 6]> {
    steps
        .iter()
        .map(|s| {
            [
                u64::from(s.step),
                s.graph.semantic_vertices as u64,
                s.graph.semantic_edges as u64,
                s.graph.episodic_vertices as u64,
                s.memory.added.len() as u64,
                s.memory.removed.len() as u64,
            ]
        })
        .collect()
}

const STATS_HEADER: [&str; 6] = [
    "step",
    "semantic_vertices",
    "semantic_edges",
    "episodic_vertices",
    "added",
    "removed",
];

fn diff_retrieval(
    original: &Retrieval,
    alt: &Retrieval,
) -> (Vec<String>, Vec<String>, Vec<u32>, Vec<u32>) {
    let a: HashSet<&str> = original
        .triplets
        .iter()
        .map(|t| t.triplet.as_str())
        .collect();
    let b: HashSet<&str> = alt.triplets.iter().map(|t| t.triplet.as_str()).collect();
    let mut only_a: Vec<String> = a.difference(&b).map(|s| s.to_string()).collect();
    let mut only_b: Vec<String> = b.difference(&a).map(|s| s.to_string()).collect();
    only_a.sort();
    only_b.sort();
    let ea: Vec<u32> = original.episodes.iter().map(|e| e.step).collect();
    let eb: Vec<u32> = alt.episodes.iter().map(|e| e.step).collect();
    (only_a, only_b, ea, eb)
}

/// Run `ariadne replay`.
///
/// # Errors
/// A missing or malformed run, a missing game, a divergence (with step, field, recorded
/// and replayed values), and for `continue_from` the live endpoint's errors.
pub async fn replay(opts: ReplayOptions) -> Result<()> {
    let run = load(&opts.run)?;
    if run.truncated {
        eprintln!(
            "warning: the last line of {} is incomplete (the run was killed mid-write); it is ignored",
            opts.run.join("steps.jsonl").display()
        );
    }
    let m = &run.manifest;
    // The game as recorded: its absolute path, else the path as given (from the run's
    // working directory), else a bundled game of the same name.
    let game = [
        m["game"]["abs_path"].as_str(),
        m["game"]["path"].as_str(),
        m["game"]["name"].as_str(),
    ]
    .into_iter()
    .flatten()
    .map(resolve_game)
    .find(|p| p.is_file())
    .unwrap_or_else(|| PathBuf::from(m["game"]["path"].as_str().unwrap_or_default()));
    crate::env::check_game(&game)?;
    let memory: MemorySettings =
        serde_json::from_value(m["memory"].clone()).context("the manifest's memory settings")?;
    let design: MemoryDesign = match m.get("memory_design") {
        Some(v) => serde_json::from_value(v.clone()).context("the manifest's memory design")?,
        None => MemoryDesign::Arigraph,
    };
    let lessons: Vec<String> = serde_json::from_value(m["lessons"].clone()).unwrap_or_default();
    let agent: AgentSettings =
        serde_json::from_value(m["agent"].clone()).context("the manifest's agent settings")?;
    let prompts_dir = m["prompts"]
        .as_str()
        .filter(|p| *p != "built-in")
        .map(PathBuf::from);
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

    let py = pyenv::ensure(
        opts.llm
            .as_ref()
            .filter(|l| l.embedded_chat() && opts.continue_from.is_some())
            .map(|l| l.local_model),
        opts.continue_from.is_some()
            && opts
                .llm
                .as_ref()
                .is_some_and(|l| l.embed_base_url.is_none()),
    )
    .await?;

    let what_if = opts.what_if.map(|(d, w, k)| MemorySettings {
        depth: d.unwrap_or(memory.depth),
        width: w.unwrap_or(memory.width),
        episodes: k.unwrap_or(memory.episodes),
        ..memory.clone()
    });

    // Continue: a live backend after step N, and a new run directory that names its parent.
    let mut servers = play::Servers::default();
    let (backend, writer, served_steps): (Arc<dyn ChatBackend>, Option<RunWriter>, usize) =
        match opts.continue_from {
            Some(n) => {
                let llm = opts
                    .llm
                    .clone()
                    .context("continue-from needs LLM settings")?;
                let runs_dir = opts
                    .run
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| PathBuf::from("runs"));
                let name = m["game"]["name"].as_str().unwrap_or("game");
                let run_id = format!(
                    "{}-{name}-from-{n}",
                    chrono::Local::now().format("%Y%m%d-%H%M%S")
                );
                let mut manifest = m.clone();
                manifest["command"] = json!("replay --continue-from");
                manifest["created_at"] = json!(chrono::Local::now().to_rfc3339());
                manifest["parent"] = json!({"run": opts.run.display().to_string(), "run_id": m["run_id"], "step": n});
                if let Some(cap) = opts.max_steps {
                    manifest["max_steps"] = json!(cap);
                }
                let mut writer = RunWriter::create(&runs_dir, &run_id, &manifest)?;
                let seed = m["seed"].as_u64().unwrap_or(0);
                let conn = play::connect(&llm, seed, &py, writer.dir()).await?;
                let live = conn.backend(seed)?;
                servers = conn.servers;
                manifest["llm"] = conn.described;
                writer.write_manifest(&manifest)?;
                let backend = ReplayBackend::new(
                    &run.steps[..n as usize],
                    run.vectors.clone(),
                    llm.model.clone(),
                    Some(live),
                );
                (Arc::new(backend), Some(writer), n as usize)
            }
            None => {
                let model = m["llm"]["chat"]["model"]
                    .as_str()
                    .unwrap_or("replay")
                    .to_string();
                (
                    Arc::new(ReplayBackend::new(
                        &run.steps,
                        run.vectors.clone(),
                        model,
                        None,
                    )),
                    None,
                    run.steps.len(),
                )
            }
        };
    let max_steps = match (opts.continue_from, opts.step) {
        (Some(_), _) => opts
            .max_steps
            .unwrap_or_else(|| m["max_steps"].as_u64().unwrap_or(150) as u32),
        (None, Some(n)) => n,
        (None, None) => recorded_steps,
    };

    let recorded = run.steps.clone();
    let mut replayed: Vec<StepRecord> = Vec::new();
    // A plain replay writes nothing to the run: the bridge's log goes to a private
    // temporary directory, removed at the end.
    let scratch = tempfile::TempDir::with_prefix("ariadne-replay-")
        .context("cannot create a temporary directory")?;
    let log_dir = writer
        .as_ref()
        .map(|w| w.dir().to_path_buf())
        .unwrap_or_else(|| scratch.path().to_path_buf());
    let check = Box::new(|r: &StepRecord| -> Result<()> {
        if (r.step as usize) <= served_steps
            && let Some(orig) = recorded.iter().find(|s| s.step == r.step)
            && let Some((field, a, b)) = compare(orig, r)
        {
            bail!(UserError::new(format!(
                "replay diverged at step {}, field {field}: recorded {}, replayed {}",
                r.step,
                short(&a),
                short(&b)
            )));
        }
        replayed.push(r.clone());
        Ok(())
    });
    let started = Instant::now();
    let episode = Episode {
        game: game.clone(),
        max_steps,
        memory: memory.clone(),
        design,
        lessons,
        agent,
        quiet: opts.quiet,
        progress: None,
        py: &py,
        backend,
        prompts: Prompts::load(prompts_dir.as_deref())?,
        writer,
        log_dir,
        check: Some(check),
        what_if: what_if.clone(),
    };
    let result = play::run_episode(episode).await;
    servers.stop().await;
    let elapsed = started.elapsed().as_secs_f64();
    let done = result.map_err(|e| match e.downcast::<LlmError>() {
        Ok(l) if l.is_replay() => anyhow::Error::new(UserError::new(l.to_string())),
        Ok(l) => anyhow::Error::new(l),
        Err(e) => e,
    })?;

    let checked = replayed.len().min(served_steps);
    let original_s = run
        .summary
        .as_ref()
        .and_then(|s| s["wall_s"].as_f64())
        .unwrap_or_else(|| {
            recorded
                .iter()
                .map(|s| s.timings.total_ms as f64 / 1000.0)
                .sum()
        });
    let original_part: f64 = recorded
        .iter()
        .take(checked)
        .map(|s| s.timings.total_ms as f64 / 1000.0)
        .sum();
    if opts.continue_from.is_none() {
        println!(
            "replayed {checked} steps of {}: every step matches the log ({elapsed:.1}s; the original took {:.1}s for these steps, {:.1}s in all; ratio {:.3})",
            opts.run.display(),
            original_part,
            original_s,
            if original_part > 0.0 {
                elapsed / original_part
            } else {
                0.0
            }
        );
    } else {
        println!(
            "replayed steps 1..{checked} from the log, then played live to step {}; new run: {}",
            done.summary.steps,
            done.dir.display()
        );
    }

    if let Some(alt) = &what_if {
        println!(
            "\nwhat-if retrieval: d={} w={} k={} (recorded: d={} w={} k={})",
            alt.depth, alt.width, alt.episodes, memory.depth, memory.width, memory.episodes
        );
        println!(
            "step | triplets recorded -> what-if | only recorded | only what-if | episodes recorded -> what-if"
        );
        for r in &replayed {
            if let Some(w) = &r.what_if {
                let (only_a, only_b, ea, eb) = diff_retrieval(&r.retrieval, w);
                println!(
                    "{:>4} | {:>3} -> {:<3} | {} | {} | {:?} -> {:?}",
                    r.step,
                    r.retrieval.triplets.len(),
                    w.triplets.len(),
                    if only_a.is_empty() {
                        "-".into()
                    } else {
                        only_a.join("; ")
                    },
                    if only_b.is_empty() {
                        "-".into()
                    } else {
                        only_b.join("; ")
                    },
                    ea,
                    eb
                );
            }
        }
    }

    if opts.stats || opts.csv.is_some() {
        let rows = stats_rows(&replayed);
        if opts.stats {
            println!("\n{}", STATS_HEADER.join(" | "));
            for r in &rows {
                println!(
                    "{}",
                    r.iter().map(u64::to_string).collect::<Vec<_>>().join(" | ")
                );
            }
        }
        if let Some(path) = &opts.csv {
            let mut text = STATS_HEADER.join(",") + "\n";
            for r in &rows {
                text.push_str(&(r.iter().map(u64::to_string).collect::<Vec<_>>().join(",") + "\n"));
            }
            std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!("graph statistics written to {}", path.display());
        }
    }

    let at = opts.step.unwrap_or(done.summary.steps);
    let design = done.agent.memory.design();
    let empty = crate::memory::AriGraph::new();
    let graph = done.agent.memory.graph();
    if opts.step.is_some() {
        let g = graph.unwrap_or(&empty);
        println!("\nmemory after step {at} ({}):", design.name());
        if graph.is_none() {
            println!(
                "(the {} memory has no graph; its retrieval is in each step's `retrieval`)",
                design.name()
            );
        }
        println!("semantic triplets ({}):", g.edge_count());
        for id in g.alive_ids() {
            println!("  {}", g.triplet(id));
        }
        println!("episodic vertices ({}):", g.episodes().len());
        for e in g.episodes() {
            let triplets: Vec<String> = e
                .triplets
                .iter()
                .map(|id| {
                    let mark = if g.is_alive(*id) { "" } else { " (removed)" };
                    format!("{}{mark}", g.triplet(*id))
                })
                .collect();
            let obs: String = e
                .observation
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(120)
                .collect();
            println!("  step {}: {obs}", e.step);
            for t in triplets {
                println!("      {t}");
            }
        }
        println!("plan:");
        for (i, p) in done.agent.plan.iter().enumerate() {
            println!("  {}. {} ({})", i + 1, p.sub_goal, p.reason);
        }
        let exits = done.agent.spatial_map().unexplored(&done.agent.explored());
        println!(
            "unexplored exits: {}",
            exits
                .iter()
                .map(|u| format!("{} {}", u.room, u.direction.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(fmt) = &opts.export {
        let Some(g) = graph else {
            bail!(UserError::new(format!(
                "the {} memory has no graph to export",
                design.name()
            )));
        };
        let (text, ext) = match fmt.as_str() {
            "dot" => (export::to_dot(g), "dot"),
            "json" => {
                let mut v = export::to_json(g);
                v["format_version"] = json!(trajectory::FORMAT_VERSION);
                v["run_id"] = m["run_id"].clone();
                v["step"] = json!(at);
                v["plan"] = json!(done.agent.plan);
                v["unexplored_exits"] =
                    json!(done.agent.spatial_map().unexplored(&done.agent.explored()));
                (serde_json::to_string_pretty(&v)? + "\n", "json")
            }
            other => bail!(UserError::new(format!(
                "unknown export format {other:?}; use dot or json"
            ))),
        };
        let path = opts
            .out
            .clone()
            .unwrap_or_else(|| opts.run.join(format!("graph-step-{at}.{ext}")));
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        println!("graph at step {at} written to {}", path.display());
    }
    Ok(())
}
