//! The data the page shows, built from a run directory: the run's description, the
//! graph over time with its layout, and every step as the page needs it. Long texts
//! (prompts, observations) go once into a shared table and steps refer to them by
//! index: the system prompts repeat in every call and a step's feedback is the next
//! step's observation, so this keeps the page small.

use serde::Serialize;
use std::collections::HashMap;

use super::layout;
use super::timeline::Timeline;
use super::world_model::WorldModel;
use crate::agent::SubGoal;
use crate::llm::Usage;
use crate::nav::UnexploredExit;
use crate::trajectory::{GraphStats, Manifest, Parent, RouteInfo, StepRecord, Summary, Timings};

/// Version of the page data layout, checked by the page's script.
pub const DATA_VERSION: u32 = 1;

/// Everything the page shows.
#[derive(Debug, Serialize)]
pub struct PageData {
    /// [`DATA_VERSION`].
    pub version: u32,
    /// The run.
    pub run: RunInfo,
    /// Whether the run's memory design keeps a knowledge graph.
    pub has_graph: bool,
    /// Every semantic vertex: `[name, x, y]`.
    pub vertices: Vec<(String, i64, i64)>,
    /// Every distinct triplet.
    pub triplets: Vec<TripletOut>,
    /// Episodic vertices.
    pub episodes: Vec<EpisodeOut>,
    /// Shared long texts, referred to by index.
    pub texts: Vec<String>,
    /// One entry per step.
    pub steps: Vec<StepOut>,
}

/// The run as the page header shows it.
#[derive(Debug, Serialize)]
pub struct RunInfo {
    /// Directory name.
    pub run_id: String,
    /// Game name.
    pub game: String,
    /// The game as given.
    pub game_path: String,
    /// Memory design.
    pub design: String,
    /// Chat model.
    pub model: String,
    /// The command that made the run.
    pub command: String,
    /// Creation time.
    pub created_at: String,
    /// Ariadne's version that played it.
    pub ariadne_version: String,
    /// Chat seed.
    pub seed: u64,
    /// Step cap.
    pub max_steps: u32,
    /// Memory settings as recorded.
    pub memory: serde_json::Value,
    /// A continued run's parent.
    pub parent: Option<Parent>,
    /// Reflexion trial, 1-based.
    pub trial: Option<u32>,
    /// Reflexion trials in all.
    pub trials: Option<u32>,
    /// Reflexion lessons this trial was given.
    pub lessons: Vec<String>,
    /// The summary, when the run wrote one.
    pub summary: Option<Summary>,
    /// Whether the last line of `steps.jsonl` was cut off (and skipped).
    pub truncated: bool,
}

/// One distinct triplet and the steps it was alive.
#[derive(Debug, Serialize)]
pub struct TripletOut {
    /// Subject vertex index.
    pub s: usize,
    /// Relation.
    pub r: String,
    /// Object vertex index.
    pub o: usize,
    /// `[from, until]` spans: alive after step `from` up to, not including, `until`
    /// (`null`: to the end).
    pub alive: Vec<(u32, Option<u32>)>,
}

/// An episodic vertex: the step that made it, where it is drawn, its triplets.
#[derive(Debug, Serialize)]
pub struct EpisodeOut {
    /// The step.
    pub step: u32,
    /// Position.
    pub x: i64,
    /// Position.
    pub y: i64,
    /// Triplet indices in its episodic edge.
    pub triplets: Vec<usize>,
}

/// A retrieved triplet as recorded.
#[derive(Debug, Serialize)]
pub struct RetrievedOut {
    /// `subject, relation, object`.
    pub text: String,
    /// BFS depth.
    pub depth: u32,
    /// Similarity.
    pub similarity: f32,
}

/// A retrieved episode.
#[derive(Debug, Serialize)]
pub struct EpisodeHit {
    /// Its step.
    pub step: u32,
    /// Its score.
    pub score: f64,
    /// n_i.
    pub n: usize,
    /// N_i.
    pub total: usize,
    /// The observation (index into the texts).
    pub observation: usize,
}

/// One chat call.
#[derive(Debug, Serialize)]
pub struct CallOut {
    /// What it was for.
    pub purpose: String,
    /// 1, or 2 for the retry.
    pub attempt: u32,
    /// `[role, text index]` per message.
    pub messages: Vec<(String, usize)>,
    /// The answer (text index).
    pub answer: usize,
    /// Tokens (`None` when the endpoint reported none).
    pub usage: Option<Usage>,
    /// Wall time, milliseconds.
    pub latency_ms: u64,
    /// Why the answer was rejected.
    pub error: Option<String>,
}

/// The embedding calls of a step, summed.
#[derive(Debug, Default, Serialize)]
pub struct EmbedSum {
    /// Calls.
    pub calls: usize,
    /// Texts embedded.
    pub texts: usize,
    /// Wall time, milliseconds.
    pub latency_ms: u64,
}

/// One step as the page shows it.
#[derive(Debug, Serialize)]
pub struct StepOut {
    /// Step number.
    pub step: u32,
    /// Room.
    pub room: Option<String>,
    /// Observation (text index).
    pub observation: usize,
    /// Inventory (text index).
    pub inventory: usize,
    /// Admissible commands.
    pub admissible: Vec<String>,
    /// The game's answer (text index).
    pub feedback: usize,
    /// Plan.
    pub plan: Vec<SubGoal>,
    /// Warnings.
    pub warnings: Vec<String>,
    /// Rationale.
    pub rationale: String,
    /// Action.
    pub action: String,
    /// Where the action came from.
    pub action_source: String,
    /// The command sent.
    pub command: String,
    /// Route move.
    pub route: Option<RouteInfo>,
    /// Reward.
    pub reward: i64,
    /// Score after the step.
    pub score: i64,
    /// Maximum score.
    pub max_score: i64,
    /// Game over.
    pub done: bool,
    /// Won.
    pub won: bool,
    /// Lost.
    pub lost: bool,
    /// Triplets extracted (count).
    pub extracted: usize,
    /// Old triplets shown to the outdated check.
    pub checked: usize,
    /// Triplets added (indices).
    pub added: Vec<usize>,
    /// Triplets removed (indices).
    pub removed: Vec<usize>,
    /// Triplets retrieved that are in the graph (indices).
    pub retrieved: Vec<usize>,
    /// Retrieval as recorded.
    pub retrieval: Vec<RetrievedOut>,
    /// Retrieved episodes.
    pub episodes: Vec<EpisodeHit>,
    /// Retrieval queries (text indices).
    pub queries: Vec<usize>,
    /// Free-text memory (summary, reflections, lessons).
    pub notes: Vec<String>,
    /// Unexplored exits shown.
    pub unexplored: Vec<UnexploredExit>,
    /// `go to` targets offered.
    pub go_to: Vec<String>,
    /// Triplets alive after the step, as rebuilt from the log.
    pub alive: usize,
    /// Graph size recorded by the run.
    pub graph: GraphStats,
    /// Chat calls.
    pub calls: Vec<CallOut>,
    /// Embedding calls.
    pub embeds: EmbedSum,
    /// Tokens.
    pub usage: Usage,
    /// Time split.
    pub timings: Timings,
    /// Rejected answers.
    pub failures: u32,
    /// Repaired answers.
    pub repairs: u32,
    /// World-model precision and recall, where recorded.
    pub world_model: Option<WorldModel>,
}

/// The shared text table.
#[derive(Default)]
struct Texts {
    list: Vec<String>,
    index: HashMap<String, usize>,
}

impl Texts {
    fn id(&mut self, s: &str) -> usize {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len();
        self.list.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

/// Build the page data of a run from its typed records.
pub fn build(
    manifest: &Manifest,
    summary: Option<Summary>,
    records: &[StepRecord],
    truncated: bool,
    world_model: &HashMap<u32, WorldModel>,
) -> PageData {
    let timeline = Timeline::build(records);
    let positions = layout::layout(timeline.vertices.len(), &timeline.vertex_pairs());
    let mut texts = Texts::default();
    let mut episodes = Vec::new();
    let mut steps = Vec::with_capacity(records.len());
    for (r, changes) in records.iter().zip(&timeline.steps) {
        if let Some(ids) = &changes.episode {
            let anchors: Vec<(f64, f64)> = ids
                .iter()
                .flat_map(|&t| {
                    let tr = &timeline.triplets[t];
                    [positions[tr.subject], positions[tr.object]]
                })
                .collect();
            let (x, y) = layout::beside(&anchors, episodes.len());
            episodes.push(EpisodeOut {
                step: r.step,
                x: x.round() as i64,
                y: y.round() as i64,
                triplets: ids.clone(),
            });
        }
        steps.push(step_out(r, changes, &mut texts, world_model));
    }
    PageData {
        version: DATA_VERSION,
        run: RunInfo {
            run_id: manifest.run_id.clone(),
            game: manifest.game.name.clone(),
            game_path: manifest.game.path.clone(),
            design: manifest.memory_design.name().to_string(),
            model: manifest.chat_model(),
            command: manifest.command.clone(),
            created_at: manifest.created_at.clone(),
            ariadne_version: manifest.ariadne_version.clone(),
            seed: manifest.seed,
            max_steps: manifest.max_steps,
            memory: serde_json::to_value(&manifest.memory).unwrap_or_default(),
            parent: manifest.parent.clone(),
            trial: manifest.trial,
            trials: manifest.trials,
            lessons: manifest.lessons.clone(),
            summary,
            truncated,
        },
        has_graph: manifest.memory_design.has_graph() || !timeline.triplets.is_empty(),
        vertices: timeline
            .vertices
            .iter()
            .zip(&positions)
            .map(|(v, p)| (v.clone(), p.0.round() as i64, p.1.round() as i64))
            .collect(),
        triplets: timeline
            .triplets
            .into_iter()
            .map(|t| TripletOut {
                s: t.subject,
                r: t.relation,
                o: t.object,
                alive: t.alive,
            })
            .collect(),
        episodes,
        texts: texts.list,
        steps,
    }
}

/// One step as the page shows it: its record `r` with what it changed in the graph
/// (`changes`, triplet indices) and its world-model figures. Its long texts go into
/// `texts` in a fixed order (the calls' messages and answers, the observation, the
/// inventory, the feedback, the episodes' observations, the queries), so the indices
/// are the same from run to run.
fn step_out(
    r: &StepRecord,
    changes: &super::timeline::StepChanges,
    texts: &mut Texts,
    world_model: &HashMap<u32, WorldModel>,
) -> StepOut {
    let calls = calls_out(r, texts);
    StepOut {
        step: r.step,
        room: r.room.clone(),
        observation: texts.id(&r.observation),
        inventory: texts.id(&r.inventory),
        admissible: r.admissible_commands.clone(),
        feedback: texts.id(&r.feedback),
        plan: r.plan.clone(),
        warnings: r.warnings.clone(),
        rationale: r.rationale.clone(),
        action: r.action.clone(),
        action_source: r.action_source.as_str().to_string(),
        command: r.command.clone(),
        route: r.route.clone(),
        reward: r.reward,
        score: r.score,
        max_score: r.max_score,
        done: r.done,
        won: r.won,
        lost: r.lost,
        extracted: r.memory.extracted.len(),
        checked: r.memory.checked,
        added: changes.added.clone(),
        removed: changes.removed.clone(),
        retrieved: changes.retrieved.clone(),
        retrieval: retrieval_out(r),
        episodes: episode_hits(r, texts),
        queries: r.retrieval.queries.iter().map(|q| texts.id(q)).collect(),
        notes: r.retrieval.notes.clone(),
        unexplored: r.unexplored_exits.clone(),
        go_to: r.go_to_targets.clone(),
        alive: changes.alive,
        graph: r.graph,
        calls,
        embeds: embed_sum(r),
        usage: r.usage,
        timings: r.timings,
        failures: r.llm_failures,
        repairs: r.llm_repairs,
        world_model: world_model.get(&r.step).copied(),
    }
}

/// The step's chat calls, in order; each message's text, then the answer, into `texts`.
fn calls_out(r: &StepRecord, texts: &mut Texts) -> Vec<CallOut> {
    r.llm_calls
        .iter()
        .map(|c| CallOut {
            purpose: c.purpose.clone(),
            attempt: c.attempt,
            messages: c
                .messages
                .iter()
                .map(|m| (m.role.clone(), texts.id(&m.content)))
                .collect(),
            answer: texts.id(&c.answer),
            usage: c.usage,
            latency_ms: c.latency_ms,
            error: c.error.clone(),
        })
        .collect()
}

/// The triplets the step retrieved, as recorded (text, BFS depth, similarity).
fn retrieval_out(r: &StepRecord) -> Vec<RetrievedOut> {
    r.retrieval
        .triplets
        .iter()
        .map(|t| RetrievedOut {
            text: t.triplet.clone(),
            depth: t.depth,
            similarity: t.similarity,
        })
        .collect()
}

/// The episodes the step retrieved (score, n_i, N_i); each observation into `texts`.
fn episode_hits(r: &StepRecord, texts: &mut Texts) -> Vec<EpisodeHit> {
    r.retrieval
        .episodes
        .iter()
        .map(|e| EpisodeHit {
            step: e.step,
            score: e.score,
            n: e.n,
            total: e.total,
            observation: texts.id(&e.observation),
        })
        .collect()
}

/// The step's embedding calls summed: calls, texts embedded, wall time (milliseconds).
fn embed_sum(r: &StepRecord) -> EmbedSum {
    EmbedSum {
        calls: r.embedding_calls.len(),
        texts: r.embedding_calls.iter().map(|e| e.texts.len()).sum(),
        latency_ms: r.embedding_calls.iter().map(|e| e.latency_ms).sum(),
    }
}
