//! A synthetic run for the viewer's size and speed test: a trajectory directory
//! written with the typed records (manifest, steps, summary), of any length and graph
//! size, with LLM calls of a real step's size, made without playing.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ariadne::agent::SubGoal;
use ariadne::llm::{CallRecord, EmbedKind, EmbedRecord, Message, Usage};
use ariadne::memory::{MemorySettings, Retrieval, RetrievedTriplet, Triplet, UpdateReport};
use ariadne::trajectory::{
    ActionSource, GameInfo, GraphStats, Manifest, Outcome, RunWriter, StepRecord, Summary, Timings,
    Versions,
};
use serde_json::json;

/// A deterministic pseudo-random sequence (a 64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// Words of a prompt-sized text, `chars` long, unique to `seed`.
fn prose(seed: usize, chars: usize) -> String {
    const WORDS: &[&str] = &[
        "the", "kitchen", "north", "you", "see", "a", "closed", "locker", "key", "is", "in",
        "room", "door", "open", "table", "on", "east", "west", "treasure", "note", "says",
    ];
    let mut rng = Lcg(seed as u64 * 7919 + 1);
    let mut out = format!("[{seed}] ");
    while out.len() < chars {
        out.push_str(WORDS[rng.below(WORDS.len())]);
        out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
    }
    out
}

/// A synthetic run written with the typed records: `steps` steps that end with `alive`
/// triplets in the graph (8 added a step, the rest removed as outdated), 4 LLM calls a
/// step with prompts of the size a real step sends (about 2,500 prompt tokens).
pub fn synthetic_run(runs: &Path, steps: u32, alive: usize) -> PathBuf {
    let manifest = Manifest {
        profile: None,
        handover: None,
        format_version: ariadne::trajectory::FORMAT_VERSION,
        ariadne_version: "test".into(),
        run_id: String::new(),
        command: "play".into(),
        created_at: "2026-01-01T00:00:00Z".into(),
        game: GameInfo {
            path: "games/synthetic.z8".into(),
            abs_path: String::new(),
            name: "synthetic".into(),
        },
        seed: 0,
        max_steps: steps,
        memory_design: ariadne::memory::MemoryDesign::Arigraph,
        memory: MemorySettings::default(),
        agent: ariadne::agent::AgentSettings::default(),
        llm: json!({"chat": {"model": "synthetic"}}),
        versions: Versions::default(),
        prompts: "built-in".into(),
        trial: None,
        trials: None,
        lessons: Vec::new(),
        embedding_dimension: None,
        goal: None,
        walkthrough: false,
        walkthrough_commands: Vec::new(),
        parent: None,
    };
    let mut writer = RunWriter::create(runs, "big", &manifest).unwrap();
    let per_step = 8;
    let total_added = per_step * steps as usize;
    let to_remove = total_added - alive;
    let mut rng = Lcg(42);
    let mut known = BTreeSet::new();
    let mut graph: Vec<Triplet> = Vec::new();
    let mut vertices = BTreeSet::new();
    let system: Vec<String> = (0..4).map(|i| prose(1_000_000 + i, 1500)).collect();
    let mut usage_total = Usage::default();
    let mut score = 0;
    let mut pending = 0usize;
    for step in 1..=steps {
        let mut added = Vec::new();
        while added.len() < per_step {
            // About as many vertices as triplets, as in a real graph of this size.
            let t = Triplet::new(
                &format!("thing {}", rng.below(alive / 2)),
                ["is in", "is on", "opens", "is east of", "has"][rng.below(5)],
                &format!("place {}", rng.below(alive / 2)),
            )
            .unwrap();
            if known.insert(t.text()) {
                added.push(t);
            }
        }
        // Remove evenly over the run so the end holds `alive` triplets.
        let due = to_remove * step as usize / steps as usize
            - to_remove * (step as usize - 1) / steps as usize;
        pending += due;
        let now = pending.min(graph.len());
        pending -= now;
        let mut removed = Vec::new();
        for _ in 0..now {
            removed.push(graph.remove(rng.below(graph.len())));
        }
        graph.extend(added.iter().cloned());
        for t in &graph {
            vertices.insert(t.subject.clone());
            vertices.insert(t.object.clone());
        }
        let retrieved: Vec<RetrievedTriplet> = (0..8)
            .map(|i| RetrievedTriplet {
                triplet: graph[rng.below(graph.len())].text(),
                depth: i % 3,
                similarity: 0.5,
                ..Default::default()
            })
            .collect();
        let calls: Vec<CallRecord> = ["extract_triplets", "outdated", "plan", "action"]
            .iter()
            .enumerate()
            .map(|(i, purpose)| CallRecord {
                purpose: purpose.to_string(),
                attempt: 1,
                messages: vec![
                    Message::system(system[i].clone()),
                    Message::user(prose(step as usize * 10 + i, [2500, 1000, 3500, 3500][i])),
                ],
                max_tokens: 500,
                answer: prose(step as usize * 10 + i + 5, 300),
                answer_chars: None,
                prompt_cut: None,
                reasoning: None,
                finish_reason: Some("stop".into()),
                defect: None,
                usage: Some(Usage {
                    prompt_tokens: [1000, 600, 1300, 1300][i],
                    completion_tokens: 80,
                    cached_tokens: 300,
                    ..Usage::default()
                }),
                latency_ms: 2000 + rng.below(8000) as u64,
                retries: 0,
                error: None,
                trimmed: Vec::new(),
                refused: Vec::new(),
                from_events: false,
            })
            .collect();
        let mut usage = Usage::default();
        for c in &calls {
            usage.add_call(c.usage);
        }
        usage_total.add(usage);
        if step % 15 == 0 {
            score += 1;
        }
        let record = StepRecord {
            step,
            room: Some(format!("place {}", step % 12)),
            observation: prose(step as usize, 600),
            inventory: "You are carrying: a key.".into(),
            admissible_commands: (0..25).map(|i| format!("take thing {i}")).collect(),
            memory: UpdateReport {
                extracted: added.clone(),
                added,
                removed,
                checked: 12,
                ..UpdateReport::default()
            },
            retrieval: Retrieval {
                queries: vec![prose(step as usize, 600), "find the treasure".into()],
                triplets: retrieved,
                episodes: Vec::new(),
                notes: Vec::new(),
                ..Default::default()
            },
            what_if: None,
            unexplored_exits: Vec::new(),
            go_to_targets: vec!["place 1".into()],
            plan: vec![SubGoal {
                sub_goal: "find the key".into(),
                reason: "it opens the locker".into(),
            }],
            warnings: Vec::new(),
            blocked: Vec::new(),
            dropped: Vec::new(),
            rationale: "the key is the next thing to find".into(),
            action: "take thing 1".into(),
            action_source: ActionSource::Llm,
            command: "take thing 1".into(),
            route: None,
            feedback: prose(step as usize + 1, 600),
            reward: i64::from(step % 15 == 0),
            score,
            max_score: 10,
            done: false,
            won: false,
            lost: false,
            llm_calls: calls,
            embedding_calls: vec![EmbedRecord {
                kind: EmbedKind::Passage,
                texts: vec!["thing".into(); 8],
                usage: None,
                latency_ms: 30,
                retries: 0,
            }],
            vectors: Vec::new(),
            llm_failures: 0,
            llm_repairs: 0,
            llm_trimmed: 0,
            llm_refused: 0,
            llm_retries: 0,
            prompt_cuts: 0,
            ground_truth: None,
            world_model: None,
            usage,
            graph: GraphStats {
                semantic_vertices: vertices.len(),
                semantic_edges: graph.len(),
                episodic_vertices: step as usize,
                ..Default::default()
            },
            timings: Timings {
                total_ms: 30_000,
                llm_ms: 28_000,
                env_ms: 10,
                agent_ms: 5,
                wait_ms: 0,
            },
        };
        writer.write_step(&record).unwrap();
    }
    assert_eq!(graph.len(), alive);
    let summary = Summary {
        format_version: ariadne::trajectory::FORMAT_VERSION,
        outcome: Outcome::StepCap,
        score,
        max_score: 10,
        normalized_score: score as f64 / 10.0,
        steps,
        llm_calls: u64::from(steps) * 4,
        usage: usage_total,
        wall_s: f64::from(steps) * 30.0,
        ..Summary::default()
    };
    RunWriter::rewrite_summary(writer.dir(), &summary).unwrap();
    writer.dir().to_path_buf()
}
