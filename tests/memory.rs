//! End-to-end tests of the memory designs behind `--memory`: each plays a bundled game
//! through the real bridge against the scripted loopback LLM, and what reaches the
//! prompts is checked against the design's rule.

mod common;

use common::{Scripted, embed_text, game, play, read_jsonl, run_dir};
use serde_json::Value;

const WALK: &[&str] = &[
    "open antique trunk",
    "take old key from antique trunk",
    "unlock wooden door with old key",
    "open wooden door",
    "go east",
    "open screen door",
];

/// Run a design for `steps` steps; return the steps and the scripted server's chats.
fn run(design: &str, steps: u32, extra: &[&str]) -> (Vec<Value>, Vec<Value>, tempfile::TempDir) {
    let server = Scripted::start(WALK);
    let work = tempfile::tempdir().unwrap();
    let mut args = vec![
        game("simple.z8"),
        "--max-steps".into(),
        steps.to_string(),
        "--quiet".into(),
        "--memory".into(),
        design.to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = play(work.path(), &server.base_url, &args);
    assert!(
        out.status.success(),
        "{design}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let chats = server.script.lock().unwrap().chats.clone();
    let steps = if design == "reflexion" {
        Vec::new()
    } else {
        read_jsonl(&run_dir(work.path()).join("steps.jsonl"))
    };
    (steps, chats, work)
}

fn prompts_of(chats: &[Value], purpose: &str) -> Vec<String> {
    chats
        .iter()
        .filter(|c| c["response_format"]["json_schema"]["name"] == purpose)
        .map(|c| c["messages"][1]["content"].as_str().unwrap().to_string())
        .collect()
}

fn purposes(step: &Value) -> Vec<String> {
    step["llm_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["purpose"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn full_history_shows_every_past_observation_and_action() {
    let (steps, chats, _w) = run("full-history", 4, &[]);
    // As `pipeline_fullhist.py` shows it: item 2 lists every past step, in Python's
    // list form (newlines written `\n`).
    let plan4 = &prompts_of(&chats, "plan")[3];
    assert!(plan4.contains("2. History of your game: ["), "{plan4}");
    for s in &steps[..3] {
        assert!(
            plan4.contains(&format!("\\nObservation: Game step #{}\\n", s["step"])),
            "{plan4}"
        );
        assert!(
            plan4.contains(&format!(
                "\\nAction taken: {}",
                s["action"].as_str().unwrap()
            )),
            "{plan4}"
        );
    }
    // No graph: no triplet extraction, no navigation.
    assert!(
        steps
            .iter()
            .all(|s| !purposes(s).contains(&"extract_triplets".to_string()))
    );
    assert!(
        steps
            .iter()
            .all(|s| s["go_to_targets"].as_array().unwrap().is_empty())
    );
    // The history grows: step 4's prompts are longer than step 2's.
    assert!(
        steps[3]["usage"]["prompt_tokens"].as_u64().unwrap()
            > steps[1]["usage"]["prompt_tokens"].as_u64().unwrap()
    );
}

#[test]
fn summary_is_rewritten_every_step_and_shown() {
    let (steps, chats, _w) = run("summary", 3, &[]);
    for (i, s) in steps.iter().enumerate() {
        assert_eq!(purposes(s), vec!["summary", "plan", "action"]);
        assert_eq!(s["retrieval"]["notes"][0], format!("summary #{}", i + 1));
    }
    // As `pipeline_summary.py` shows it: the summary is item 4 of the working memory,
    // and each summary call revises the previous one, from "Yet nothing".
    let plan3 = &prompts_of(&chats, "plan")[2];
    assert!(
        plan3.contains("\n4. Your summary about current situation: summary #3\n"),
        "{plan3}"
    );
    let summaries = prompts_of(&chats, "summary");
    assert!(
        summaries[0].contains("4. Your previous summary: Yet nothing\nYour summary:"),
        "{}",
        summaries[0]
    );
    assert!(
        summaries[1].contains("4. Your previous summary: summary #1\n"),
        "{}",
        summaries[1]
    );
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    f64::from(dot / (na * nb))
}

#[test]
fn rag_retrieves_the_most_similar_past_observations() {
    // The reference's RAG: the top 5 entries, each the observation and the action taken.
    let (steps, chats, _w) = run("rag", 7, &[]);
    for s in &steps[2..] {
        let query = s["retrieval"]["queries"][0].as_str().unwrap();
        let qv = embed_text(query);
        let step = s["step"].as_u64().unwrap();
        // Rank the earlier observations by cosine with the same embedding the server uses.
        let mut ranked: Vec<(f64, u64)> = steps
            .iter()
            .filter(|p| p["step"].as_u64().unwrap() < step)
            .map(|p| {
                // An entry is the observation as the reference keeps it.
                let text = format!(
                    "Game step #{}\n{}\nInventory: {}",
                    p["step"],
                    p["observation"].as_str().unwrap(),
                    p["inventory"].as_str().unwrap()
                );
                (cosine(&qv, &embed_text(&text)), p["step"].as_u64().unwrap())
            })
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        let want: Vec<u64> = ranked.iter().take(5).map(|r| r.1).collect();
        let got: Vec<u64> = s["retrieval"]["episodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["step"].as_u64().unwrap())
            .collect();
        assert_eq!(got, want, "step {step}");
        // And they reach the prompt.
        let plan = &prompts_of(&chats, "plan")[step as usize - 1];
        assert!(
            plan.contains(&format!("Observations: Game step #{}\\n", want[0])),
            "{plan}"
        );
        let action = steps[want[0] as usize - 1]["action"].as_str().unwrap();
        assert!(
            plan.contains(&format!("\\nAction taken: {action}")),
            "{plan}"
        );
    }
}

#[test]
fn simulacra_asks_importance_once_per_memory_and_reflects() {
    // As the reference's ranked memory (`pipeline_smartrag.py`): a step's observation is
    // rated once, at the next step, under the plan its step made.
    let (steps, chats, _w) = run("simulacra", 19, &[]);
    assert_eq!(purposes(&steps[0]), ["plan", "action"]);
    for s in &steps[1..] {
        let p = purposes(s);
        assert_eq!(p.iter().filter(|x| *x == "importance").count(), 1, "{p:?}");
    }
    let rated = prompts_of(&chats, "importance");
    assert!(rated[0].contains("Memory: Game step #1\n"), "{}", rated[0]);
    assert!(rated[0].contains("Current plan: {"), "{}", rated[0]);
    // Importance 9 each step from step 2: 9 * 17 = 153 >= 150 (Generative Agents'
    // threshold), so step 18 writes the first reflection; 9 * 16 = 144 did not.
    assert!(purposes(&steps[17]).contains(&"reflection".to_string()));
    assert!(
        steps[..17]
            .iter()
            .all(|s| !purposes(s).contains(&"reflection".to_string()))
    );
    // The reflection is a memory: the most important (10 against 9) and as recent as the
    // newest observation, it ranks among the best and reaches the next step's prompt.
    assert_eq!(
        steps[18]["retrieval"]["notes"][0],
        "the old key opens the wooden door"
    );
    let plan19 = &prompts_of(&chats, "plan")[18];
    assert!(
        plan19.contains(
            "2. Most relevant previous observations: ['the old key opens the wooden door'"
        ),
        "{plan19}"
    );
    // Scores are the sum of three normalized terms: within [0, 3]; at most 5 retrieved.
    for s in &steps {
        let episodes = s["retrieval"]["episodes"].as_array().unwrap();
        assert!(episodes.len() <= 5);
        for e in episodes {
            let score = e["score"].as_f64().unwrap();
            assert!((0.0..=3.0).contains(&score), "{score}");
        }
    }
}

#[test]
fn arigraph_without_episodic_memory_retrieves_no_episodes() {
    // The scripted embeddings have no meaning: no cut-off, so the retrieval mechanics
    // alone are under test.
    let (steps, _chats, _w) = run("arigraph-no-episodic", 5, &["--cutoff", "0"]);
    assert!(
        steps
            .iter()
            .all(|s| s["retrieval"]["episodes"].as_array().unwrap().is_empty())
    );
    assert!(steps[4]["retrieval"]["triplets"].as_array().unwrap().len() > 1);
}

#[test]
fn reflexion_lesson_from_trial_one_reaches_trial_two() {
    // Two steps cannot win: trial 1 fails, a lesson is written, trial 2 sees it.
    let (_, chats, work) = run("reflexion", 2, &["--trials", "2"]);
    let lessons = prompts_of(&chats, "lesson");
    assert_eq!(
        lessons.len(),
        1,
        "one lesson, after the failed first trial only"
    );
    assert!(
        lessons[0].contains("1. open antique trunk ->"),
        "{}",
        lessons[0]
    );
    let plans = prompts_of(&chats, "plan");
    assert_eq!(plans.len(), 4);
    assert!(!plans[1].contains("Lesson from attempt"));
    assert!(
        plans[2].contains("Lesson from attempt 1: open the antique trunk first"),
        "{}",
        plans[2]
    );
    let mut runs: Vec<_> = std::fs::read_dir(work.path().join("runs"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    runs.sort();
    assert_eq!(runs.len(), 2);
    let s1: Value = common::read_json(runs[0].join("summary.json"));
    assert_eq!(s1["lesson"], "open the antique trunk first");
    let m2: Value = common::read_json(runs[1].join("manifest.json"));
    assert_eq!(m2["trial"], 2);
    assert_eq!(m2["lessons"][0], "open the antique trunk first");
    assert_eq!(m2["memory_design"], "reflexion");

    // Reflexion as the paper ran it, "RAG with Reflexion": at step 2 of trial 2 the
    // retrieval holds the top-k past observations by cosine (RAG) and the lesson.
    let steps = read_jsonl(&runs[1].join("steps.jsonl"));
    let r = &steps[1]["retrieval"];
    let episodes = r["episodes"].as_array().unwrap();
    assert_eq!(episodes.len(), 1, "{r}");
    assert_eq!(episodes[0]["step"], 1);
    assert!(
        episodes[0]["score"].as_f64().unwrap() > 0.0,
        "a cosine: {r}"
    );
    assert_eq!(
        r["notes"][0],
        "Lesson from attempt 1: open the antique trunk first"
    );
}

#[test]
fn every_design_replays_identically() {
    for design in ["full-history", "summary", "rag", "simulacra"] {
        let (_, _, work) = run(design, 5, &[]);
        let dir = run_dir(work.path());
        let out = std::process::Command::new(common::bin())
            .current_dir(work.path())
            .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
            .env("ARIADNE_EMBED_BASE_URL", "http://127.0.0.1:9/v1")
            .args(["replay", dir.to_str().unwrap(), "--quiet"])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{design}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("every step matches the log"),
            "{design}: {stdout}"
        );
    }
}

/// The reference samples the decision of an agent without exploration at 1 (every
/// baseline's `choose_action`, and AriGraph's when exploration is off) and AriGraph's
/// otherwise at 0.2; the plan at 0.2 in every design. The manifest records what was sent.
#[test]
fn a_baselines_action_call_samples_at_one() {
    let temperatures = |design: &str, extra: &[&str]| {
        let (_, chats, work) = run(design, 2, extra);
        let of = |purpose: &str| -> Vec<f64> {
            chats
                .iter()
                .filter(|c| c["response_format"]["json_schema"]["name"] == purpose)
                .map(|c| c["temperature"].as_f64().unwrap())
                .collect()
        };
        let manifest = common::read_json(run_dir(work.path()).join("manifest.json"));
        let recorded = manifest["llm"]["chat"]["temperatures"]["action"]
            .as_f64()
            .unwrap();
        (of("action"), of("plan"), recorded)
    };
    for (design, extra, action) in [
        ("rag", &[][..], 1.0),
        ("full-history", &[][..], 1.0),
        ("summary", &[][..], 1.0),
        ("arigraph", &["--no-exploration"][..], 1.0),
        ("arigraph", &[][..], 0.2),
    ] {
        let (actions, plans, recorded) = temperatures(design, extra);
        assert!(!actions.is_empty(), "{design}");
        // Exactly as written: 0.2, not the f32's widening 0.20000000298023224.
        for t in actions {
            assert_eq!(t, action, "{design} {extra:?}: action at {t}");
        }
        for t in plans {
            assert_eq!(t, 0.2, "{design}: plan at {t}");
        }
        assert_eq!(recorded, action, "{design}: manifest {recorded}");
    }
}
