//! End-to-end tests of what real endpoints send (issue 12): each test runs the real
//! binary on a bundled game against a scripted server on loopback that answers exactly
//! the case, and checks the trajectory and the exit code.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use common::{
    Reply, Scripted, bin, completion, game, play, read_jsonl, run_dir, setup_bridge, triplet_text,
};
use serde_json::{Value, json};

const WALKTHROUGH: &[&str] = &[
    "open antique trunk",
    "take old key from antique trunk",
    "unlock wooden door with old key",
    "open wooden door",
    "go east",
    "open screen door",
];

fn answer(content: &str, finish: &str) -> Reply {
    Reply::json(&completion(
        json!(content),
        Some(finish),
        Some((10, 5)),
        json!({}),
    ))
}

/// Replace the `nth` (0-based) answers to calls of `which` with `make(rule answer)`.
fn on_call(
    server: &Scripted,
    which: &'static str,
    nth: Vec<usize>,
    make: impl Fn(&str) -> Reply + Send + 'static,
) {
    on_calls(server, which, move |n, rule| {
        nth.contains(&(n - 1)).then(|| make(rule))
    });
}

/// Let `make(n, rule answer)` answer the `n`th (1-based) call of `which`, or leave it to
/// the rule with `None`.
fn on_calls(
    server: &Scripted,
    which: &'static str,
    make: impl Fn(usize, &str) -> Option<Reply> + Send + 'static,
) {
    let seen = Arc::new(Mutex::new(0usize));
    server.script.lock().unwrap().chat_hook = Some(Box::new(move |body, rule| {
        if common::purpose(body) != which {
            return None;
        }
        let mut n = seen.lock().unwrap();
        *n += 1;
        make(*n, rule)
    }));
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run_simple(server: &Scripted, work: &Path, steps: &str, extra: &[&str]) -> Output {
    let g = game("simple.z8");
    let mut args = vec![g.as_str(), "--max-steps", steps, "--quiet"];
    args.extend_from_slice(extra);
    play(work, &server.base_url, &args)
}

/// The one stderr line of a run that holds `says` (a warning given once).
fn one_warning(out: &Output, says: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains(says)).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    lines[0].to_string()
}

fn all_triplets(steps: &[Value], field: &str) -> Vec<String> {
    steps
        .iter()
        .flat_map(|s| s["memory"][field].as_array().cloned().unwrap_or_default())
        .map(|t| triplet_text(&t))
        .collect()
}

fn summary(dir: &Path) -> Value {
    common::read_json(dir.join("summary.json"))
}

/// Kind 1: reasoning blocks before the answer (closed, unterminated, holding brackets
/// or a draft answer, or in a separate field) are never parsed as the answer.
#[test]
fn reasoning_blocks_are_skipped_and_never_parsed() {
    let server = Scripted::start(WALKTHROUGH);
    let extract = Arc::new(Mutex::new(0usize));
    server.script.lock().unwrap().chat_hook = Some(Box::new(move |body, rule| {
        match common::purpose(body) {
            "extract_triplets" => {
                let mut n = extract.lock().unwrap();
                *n += 1;
                match *n {
                    // A draft answer inside the reasoning, the real one after it.
                    1 => Some(answer(
                        &format!(
                            "<think>The room has [an antique trunk]. Draft: {{\"triplets\":[{{\"subject\":\"draft\",\"relation\":\"is\",\"object\":\"wrong\"}}]}}</think>\n{rule}"
                        ),
                        "stop",
                    )),
                    // Unterminated reasoning: no answer at all (rejected, retried).
                    2 => Some(answer(
                        "<think>I see {\"triplets\": [{\"subject\":\"draft\",\"relation\":\"is\",\"object\":\"wrong\"}]",
                        "stop",
                    )),
                    _ => None,
                }
            }
            // The template opened the block; only its closing tag is in the answer.
            "plan" => Some(answer(
                &format!("so maybe [go north] {{\"plan\": []}}\n</think>\n{rule}"),
                "stop",
            )),
            // A separate reasoning field holding brackets and a draft.
            "action" => Some(Reply::json(&completion(
                json!(rule),
                Some("stop"),
                Some((10, 5)),
                json!({"reasoning_content": "{\"rationale\":\"x\",\"action\":\"fly\"} [a] {b"}),
            ))),
            _ => None,
        }
    }));
    // The issue's example: brackets in the reasoning, the answer after it (the fifth
    // call: step 1's action, after the extraction, exploration check, key items, plan).
    server.script.lock().unwrap().replies = vec![(
        4,
        answer(
            r#"<think>The room has [an antique trunk]</think>{"reason_for_action":"r","action_to_take":"open antique trunk"}"#,
            "stop",
        ),
    )];
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "2", &[]);
    ok(&out);
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps[0]["llm_failures"], 0, "{}", steps[0]["llm_calls"]);
    assert_eq!(steps[0]["action"], "open antique trunk");
    assert_eq!(steps[0]["action_source"], "llm");
    assert_eq!(steps[0]["rationale"], "r");
    assert!(
        !all_triplets(&steps, "extracted")
            .iter()
            .any(|t| t.contains("draft"))
    );
    assert!(
        all_triplets(&steps, "added").contains(&"player, is in, bedroom".to_string()),
        "{:?}",
        all_triplets(&steps, "added")
    );
    let action = steps[1]["llm_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["purpose"] == "action")
        .unwrap();
    assert!(action["reasoning"].as_str().unwrap().contains("fly"));
    assert!(action["error"].is_null());
    // Step 2: the unterminated block is one counted failure, then the retry.
    assert_eq!(steps[1]["llm_failures"], 1);
    let e = steps[1]["llm_calls"][0]["error"].as_str().unwrap();
    assert!(e.contains("unterminated"), "{e}");
    assert_eq!(summary(&dir)["llm_failures"], 1);
}

/// Kind 2: a cut-off answer (`finish_reason: length`) never changes memory: no
/// half-word triplet, no deletion from a half list; the retry has a larger budget, and
/// every call records its finish reason.
#[test]
fn cut_off_answers_never_change_memory() {
    let server = Scripted::start(WALKTHROUGH);
    let (extract, outdated) = (Arc::new(Mutex::new(0usize)), Arc::new(Mutex::new(0usize)));
    server.script.lock().unwrap().chat_hook =
        Some(Box::new(move |body, _| match common::purpose(body) {
            "extract_triplets" => {
                let mut n = extract.lock().unwrap();
                *n += 1;
                (*n <= 2).then(|| {
                    answer(
                        r#"{"triplets":[{"subject":"antique trunk","relation":"is","object":"op"#,
                        "length",
                    )
                })
            }
            "outdated" => {
                *outdated.lock().unwrap() += 1;
                Some(answer(r#"{"outdated": [1, 2"#, "length"))
            }
            _ => None,
        }));
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "6", &[]);
    ok(&out);
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert!(
        steps
            .iter()
            .all(|s| s["memory"]["extracted"] != json!(null))
    );
    assert!(
        !all_triplets(&steps, "extracted")
            .iter()
            .any(|t| t.ends_with(", op")),
        "a half word reached memory"
    );
    let first = steps[0]["llm_calls"].as_array().unwrap();
    assert_eq!(first[0]["finish_reason"], "length");
    assert_eq!(first[1]["attempt"], 2);
    assert_eq!(
        first[1]["max_tokens"].as_u64().unwrap(),
        2 * first[0]["max_tokens"].as_u64().unwrap(),
        "the retry asks with a larger budget"
    );
    assert!(first[0]["error"].as_str().unwrap().contains("cut off"));
    assert_eq!(steps[0]["memory"]["extracted"], json!([]));
    // The outdated check was asked and cut off every time: nothing was deleted by it.
    let checked: u64 = steps
        .iter()
        .map(|s| s["memory"]["checked"].as_u64().unwrap())
        .sum();
    assert!(checked > 0, "the outdated check never ran");
    let outdated_calls: Vec<&Value> = steps
        .iter()
        .flat_map(|s| s["llm_calls"].as_array().unwrap())
        .filter(|c| c["purpose"] == "outdated")
        .collect();
    assert!(outdated_calls.iter().all(|c| c["error"].is_string()));
    assert!(
        !all_triplets(&steps, "removed").contains(&"player, is in, bedroom".to_string()),
        "a deletion came from a cut-off list"
    );
    // Every call records its finish reason.
    for s in &steps {
        for c in s["llm_calls"].as_array().unwrap() {
            assert!(c["finish_reason"].is_string(), "{c}");
        }
    }
    let failures: u64 = steps
        .iter()
        .map(|s| s["llm_failures"].as_u64().unwrap())
        .sum();
    assert_eq!(failures, 2 + outdated_calls.len() as u64);
}

/// Kind 3: `content: null`, a tool call with no usable arguments, a missing content
/// key: bad answers like any other (counted, retried, fallback), never the end of the
/// episode; the summary holds every call and token.
#[test]
fn answers_without_content_are_bad_answers_not_the_end() {
    let server = Scripted::start(WALKTHROUGH);
    on_call(&server, "plan", vec![0, 1], |_| {
        Reply::json(&completion(
            json!(null),
            Some("tool_calls"),
            Some((10, 5)),
            json!({"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "plan", "arguments": "{}"}}]}),
        ))
    });
    server.script.lock().unwrap().replies = vec![(
        0,
        Reply::json(
            &json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant"}}], "usage": {"prompt_tokens": 7, "completion_tokens": 0}}),
        ),
    )];
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "3", &[]);
    ok(&out);
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps.len(), 3);
    let calls = steps[0]["llm_calls"].as_array().unwrap();
    assert!(
        calls[0]["defect"]
            .as_str()
            .unwrap()
            .contains("no content key")
    );
    let plans: Vec<&Value> = calls.iter().filter(|c| c["purpose"] == "plan").collect();
    assert_eq!(plans.len(), 2);
    // A tool call is read for its arguments (issue 29); empty ones are no answer.
    assert!(plans[0]["defect"].is_null());
    assert!(
        plans[0]["error"]
            .as_str()
            .unwrap()
            .contains("fits the required format"),
        "{}",
        plans[0]
    );
    assert_eq!(steps[0]["llm_failures"], 3);
    let s = summary(&dir);
    assert_eq!(s["outcome"], "step_cap");
    let calls: u64 = steps
        .iter()
        .map(|s| s["llm_calls"].as_array().unwrap().len() as u64)
        .sum();
    assert_eq!(s["llm_calls"].as_u64().unwrap(), calls);
    let prompt: u64 = steps
        .iter()
        .map(|s| s["usage"]["prompt_tokens"].as_u64().unwrap())
        .sum();
    assert!(prompt > 0);
    assert_eq!(s["usage"]["prompt_tokens"].as_u64().unwrap(), prompt);
}

/// Kind 4: bytes that are not UTF-8 in an answer are a counted bad answer.
#[test]
fn bytes_that_are_not_utf8_are_a_bad_answer() {
    let server = Scripted::start(WALKTHROUGH);
    on_call(&server, "action", vec![0], |rule| {
        let text = completion(json!(rule), Some("stop"), Some((10, 5)), json!({})).to_string();
        let cut = text.find("scripted").unwrap();
        let mut body = text.as_bytes()[..cut].to_vec();
        body.extend([0xff, 0xfe, 0xc3]);
        body.extend(&text.as_bytes()[cut..]);
        Reply {
            status: 200,
            headers: vec![("content-type", "application/json".into())],
            body,
        }
    });
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "2", &[]);
    ok(&out);
    let steps = read_jsonl(&run_dir(work.path()).join("steps.jsonl"));
    let calls = steps[0]["llm_calls"].as_array().unwrap();
    let action = calls.iter().find(|c| c["purpose"] == "action").unwrap();
    assert!(
        action["defect"].as_str().unwrap().contains("not UTF-8"),
        "{action}"
    );
    assert_eq!(steps[0]["llm_failures"], 1);
    assert_eq!(steps[0]["action_source"], "llm");
    assert_eq!(steps.len(), 2);
}

/// Kind 5: over-long strings and lists from a server that ignores the schema are cut
/// or dropped (counted), never passed on to memory or a later prompt.
#[test]
fn over_long_model_strings_are_bounded_before_memory_and_prompts() {
    let server = Scripted::start(WALKTHROUGH);
    let long_subject = "s".repeat(5000);
    let long_goal = "g".repeat(13_000);
    let (ls, lg) = (long_subject.clone(), long_goal.clone());
    let count = Arc::new(Mutex::new(0usize));
    server.script.lock().unwrap().chat_hook = Some(Box::new(move |body, rule| {
        let mut n = count.lock().unwrap();
        *n += 1;
        // Step 1's five calls (its exploration check and key items answered as usual).
        if *n > 5 {
            return None;
        }
        let text = match common::purpose(body) {
            "extract_triplets" => json!({"triplets": [
                {"subject": ls, "relation": "is", "object": "here"},
                {"subject": "antique trunk", "relation": "is in", "object": "bedroom"}
            ]})
            .to_string(),
            "plan" => {
                let steps: Vec<Value> = (1..=8)
                    .map(|n| json!({format!("sub_goal_{n}"): lg, "reason": "r".repeat(5000)}))
                    .collect();
                json!({"main_goal": "m".repeat(5000), "plan_steps": steps,
                       "your_emotion": {"your_current_emotion": "calm", "reason_behind_emotion": "r"}})
                .to_string()
            }
            "action" => {
                let mut a: Value = serde_json::from_str(rule).unwrap();
                a["reason_for_action"] = json!("w".repeat(5000));
                a.to_string()
            }
            _ => return None,
        };
        Some(answer(&text, "stop"))
    }));
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "2", &[]);
    ok(&out);
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    let s1 = &steps[0];
    let extracted = all_triplets(&steps, "extracted");
    assert!(extracted.contains(&"antique trunk, is in, bedroom".to_string()));
    assert!(extracted.iter().all(|t| t.len() < 200), "{extracted:?}");
    let plan = s1["plan"].as_array().unwrap();
    assert_eq!(plan.len(), 5);
    assert!(
        plan.iter()
            .all(|p| p["sub_goal"].as_str().unwrap().chars().count() == 120)
    );
    assert!(
        plan.iter()
            .all(|p| p["reason"].as_str().unwrap().chars().count() == 160)
    );
    assert_eq!(s1["rationale"].as_str().unwrap().chars().count(), 300);
    // 1 dropped triplet + 1 cut list + the main goal + 5 sub-goals + 5 reasons + 1
    // rationale.
    assert_eq!(s1["llm_trimmed"], 14, "{}", s1["llm_calls"]);
    assert_eq!(s1["llm_failures"], 0);
    assert_eq!(summary(&dir)["llm_trimmed"], 14);
    // No later prompt carries the long texts.
    let chats = server.script.lock().unwrap().chats.clone();
    for c in chats.iter().skip(3) {
        for m in c["messages"].as_array().unwrap() {
            let t = m["content"].as_str().unwrap();
            assert!(!t.contains(&"g".repeat(121)) && !t.contains(&"s".repeat(61)));
        }
    }
}

/// Kind 6: a server that sends no `usage` gives unknown token counts, never 0, in the
/// call records, the summary, the terminal line and the bench tables.
#[test]
fn unknown_usage_is_recorded_and_shown_as_unknown() {
    let server = Scripted::start(WALKTHROUGH);
    server.script.lock().unwrap().no_usage = true;
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "2", &[]);
    ok(&out);
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    for s in &steps {
        let calls = s["llm_calls"].as_array().unwrap();
        assert!(calls.iter().all(|c| c["usage"].is_null()));
        assert_eq!(
            s["usage"]["unknown_calls"].as_u64().unwrap(),
            calls.len() as u64
        );
    }
    let s = summary(&dir);
    assert!(s["prompt_tokens_per_step"].is_null(), "{s}");
    assert!(s["usage"]["unknown_calls"].as_u64().unwrap() > 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("tokens ?"), "{stdout}");

    setup_bridge();
    let out = Command::new(bin())
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", &server.base_url)
        .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
        .env("ARIADNE_NO_PROGRESS", "1")
        .args(["bench", "--games", &game("simple.z8"), "--runs", "1"])
        .args(["--max-steps", "1", "--out", "b"])
        .output()
        .unwrap();
    ok(&out);
    let row = &read_jsonl(&work.path().join("b/episodes.jsonl"))[0];
    assert!(row["prompt_tokens"].is_null(), "{row}");
    let md = std::fs::read_to_string(work.path().join("b/results.md")).unwrap();
    assert!(md.contains("| AriGraph | ? / ? |"), "{md}");
    assert!(!md.contains("| AriGraph | 0 / 0 |"), "{md}");
}

/// Kind 7: every embeddings answer is validated; anything malformed is one clear error
/// naming the endpoint and what was wrong (exit 1) once it stays unusable over 3 tries,
/// never a silent zero vector; a valid answer in another order is accepted and the
/// dimension is recorded.
#[test]
fn malformed_embeddings_are_one_clear_error() {
    let item = |i: usize, e: Value| json!({"object": "embedding", "index": i, "embedding": e});
    let cases: Vec<(usize, Value, &str)> = vec![
        (
            0,
            json!({"data": [item(0, json!([[0.1, 0.2], [0.3, 0.4]]))]}),
            "array of arrays",
        ),
        (
            0,
            json!({"data": [item(0, json!([0.1, null, 0.3]))]}),
            "not a number",
        ),
        (
            0,
            json!({"data": [item(1, json!([0.1, 0.2]))]}),
            "outside 0..",
        ),
        // A change after the first call and its confirmation (requests 0 and 1).
        (
            2,
            json!({"data": [item(0, json!([0.1, 0.2]))]}),
            "this run's embeddings have dimension 64",
        ),
    ];
    for (call, body, want) in cases {
        let server = Scripted::start(WALKTHROUGH);
        // Answer a 1-input call whatever it asked for.
        let b = body.clone();
        server.script.lock().unwrap().embed_hook = Some(Box::new({
            let seen = Arc::new(Mutex::new(0usize));
            move |req, _| {
                let mut n = seen.lock().unwrap();
                *n += 1;
                let inputs = req["input"].as_array().map_or(1, Vec::len);
                // The same defect on every try of that call: it stays unusable.
                (call..call + 3).contains(&(*n - 1)).then(|| {
                    let mut b = b.clone();
                    // Keep the case's defect but match the number of inputs asked.
                    if let Some(data) = b["data"].as_array_mut() {
                        let first = data[0].clone();
                        for i in 1..inputs {
                            let mut x = first.clone();
                            x["index"] = json!(i + first["index"].as_u64().unwrap() as usize);
                            data.push(x);
                        }
                    }
                    Reply::json(&b)
                })
            }
        }));
        let work = tempfile::tempdir().unwrap();
        let out = run_simple(&server, work.path(), "2", &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{want}: {stderr}");
        let line = stderr
            .lines()
            .find(|l| l.starts_with("error:"))
            .unwrap_or("");
        assert!(
            line.contains("embedding endpoint")
                && line.contains(&server.base_url)
                && line.contains(want)
                && line.contains("after 3 tries"),
            "{want}: {stderr}"
        );
        let s = summary(&run_dir(work.path()));
        assert_eq!(s["outcome"], "error");
        // The failed call's two retries are in the summary.
        assert!(s["llm_retries"].as_u64().unwrap() >= 2, "{want}: {s}");
    }

    // One bad first answer (another dimension) does not fix the run's dimension: the
    // first answer is confirmed by a second, and a third decides between them.
    let server = Scripted::start(WALKTHROUGH);
    server.script.lock().unwrap().embed_hook = Some(Box::new({
        let seen = Arc::new(Mutex::new(0usize));
        move |req, _| {
            let mut n = seen.lock().unwrap();
            *n += 1;
            let inputs = req["input"].as_array().map_or(1, Vec::len);
            (*n == 1).then(|| {
                let data: Vec<Value> = (0..inputs).map(|i| item(i, json!([0.3, 0.4]))).collect();
                Reply::json(&json!({ "data": data }))
            })
        }
    }));
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "2", &[]);
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("with dimensions 2 and 64; asking a third time"),
        "{stderr}"
    );
    assert!(
        summary(&run_dir(work.path()))["llm_retries"]
            .as_u64()
            .unwrap()
            >= 1
    );

    // Issue 29, kind 5: one unusable embedding answer (all zeros) is asked again within
    // the retry budget and counted; the episode goes on.
    let server = Scripted::start(WALKTHROUGH);
    server.script.lock().unwrap().embed_hook = Some(Box::new({
        let seen = Arc::new(Mutex::new(0usize));
        move |req, _| {
            let mut n = seen.lock().unwrap();
            *n += 1;
            let inputs = req["input"].as_array().map_or(1, Vec::len);
            // Request 3: the second call (the first is confirmed by request 2).
            (*n == 3).then(|| {
                let data: Vec<Value> = (0..inputs).map(|i| item(i, json!([0.0, 0.0]))).collect();
                Reply::json(&json!({ "data": data }))
            })
        }
    }));
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "2", &[]);
    ok(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sent an unusable answer") && stderr.contains("all zero"),
        "{stderr}"
    );
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    let embed_retries: u64 = steps
        .iter()
        .flat_map(|s| s["embedding_calls"].as_array().cloned().unwrap_or_default())
        .map(|c| c["retries"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(embed_retries, 1);

    // Any order of the indexes is fine; the dimension goes to the manifest.
    let server = Scripted::start(WALKTHROUGH);
    server.script.lock().unwrap().embed_hook = Some(Box::new(|_, normal| {
        let mut v: Value = serde_json::from_str(normal).unwrap();
        if let Some(d) = v["data"].as_array_mut() {
            d.reverse();
        }
        Some(Reply::json(&v))
    }));
    let work = tempfile::tempdir().unwrap();
    ok(&run_simple(&server, work.path(), "2", &[]));
    let dir = run_dir(work.path());
    let m: Value = common::read_json(dir.join("manifest.json"));
    assert_eq!(m["embedding_dimension"], 64);
}

/// Kind 8: rate limits (429, also with a plain-text body), 5xx and dropped connections
/// are retried with backoff, honouring Retry-After, within the retry budget; each wait
/// is logged; retries are counted in the step; a bench waits the same way.
#[test]
fn rate_limits_are_waited_out_within_the_budget() {
    let server = Scripted::start(WALKTHROUGH);
    {
        let mut s = server.script.lock().unwrap();
        s.statuses = vec![
            Reply::text(429, "Too Many Requests").retry_after("1"),
            Reply::text(429, "rate limited, slow down"),
            Reply::json(&json!({"error": {"message": "overloaded"}})).with_status(503),
        ]
        .into();
        s.embed_statuses = vec![Reply::text(502, "Bad Gateway")].into();
    }
    let work = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let out = run_simple(&server, work.path(), "2", &[]);
    ok(&out);
    assert!(
        started.elapsed().as_secs_f64() >= 1.0,
        "Retry-After: 1 was not honoured"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let waits: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("retry budget left"))
        .collect();
    assert_eq!(waits.len(), 4, "{stderr}");
    assert!(
        waits[0].contains("429") && waits[0].contains("retry 1 in 1.0 s"),
        "{stderr}"
    );
    assert!(
        waits.iter().any(|l| l.contains("rate limited, slow down")),
        "{stderr}"
    );
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps[0]["llm_calls"][0]["retries"], 3);
    assert_eq!(steps[0]["llm_retries"], 4);
    assert_eq!(steps[0]["llm_failures"], 0);
    assert_eq!(summary(&dir)["llm_retries"], 4);

    // A budget too small for the server's Retry-After: exit 1 at once, one clear line.
    let server = Scripted::start(WALKTHROUGH);
    server.script.lock().unwrap().statuses =
        vec![Reply::text(429, "Too Many Requests").retry_after("30")].into();
    let work = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let out = run_simple(&server, work.path(), "2", &["--retry-budget", "5"]);
    assert_eq!(out.status.code(), Some(1));
    // Waiting out the 30 s Retry-After would take 30 s or more; the start-up of the
    // binary and the bridge can take over 20 s on a loaded 2-core machine.
    assert!(started.elapsed().as_secs() < 30);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("raise --retry-budget"), "{stderr}");
    // The config key is checked like the flag.
    std::fs::write(work.path().join("ariadne.toml"), "retry_budget = 100000\n").unwrap();
    let out = run_simple(&server, work.path(), "2", &[]);
    assert_eq!(out.status.code(), Some(2));

    // A bench waits the same way rather than failing the episode.
    let server = Scripted::start(&[]);
    server.script.lock().unwrap().statuses =
        vec![Reply::text(429, "slow down"), Reply::text(429, "slow down")].into();
    let work = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", &server.base_url)
        .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
        .env("ARIADNE_NO_PROGRESS", "1")
        .args(["bench", "--games", &game("simple.z8"), "--runs", "2"])
        .args(["--max-steps", "1", "--out", "b"])
        .output()
        .unwrap();
    ok(&out);
    let rows = read_jsonl(&work.path().join("b/episodes.jsonl"));
    assert!(rows.iter().all(|r| r["outcome"] == "step_cap"), "{rows:?}");
}

/// Kind 10: bench rows name their endpoint (also after a resume against another one);
/// a game that fails to load leaves no run directory; a malformed byte in steps.jsonl
/// is reported with its line number.
#[test]
fn bench_endpoints_unloadable_games_and_malformed_lines() {
    setup_bridge();
    let bench = |work: &Path, url: &str, args: &[&str]| {
        Command::new(bin())
            .current_dir(work)
            .env("OPENAI_BASE_URL", url)
            .env("ARIADNE_EMBED_BASE_URL", url)
            .env("ARIADNE_NO_PROGRESS", "1")
            .arg("bench")
            .args(args)
            .output()
            .unwrap()
    };
    let a = Scripted::start(&[]);
    // Episode 1 (one step: 5 calls: extraction, exploration check, key items, plan,
    // action) finishes; episode 2 meets a dead endpoint.
    a.script.lock().unwrap().fail_after = Some(5);
    let work = tempfile::tempdir().unwrap();
    let g = game("simple.z8");
    let out = bench(
        work.path(),
        &a.base_url,
        &[
            "--games",
            &g,
            "--runs",
            "2",
            "--jobs",
            "1",
            "--max-steps",
            "1",
            "--out",
            "b",
            "--retry-budget",
            "0",
        ],
    );
    ok(&out);
    let b = Scripted::start(&[]);
    let out = bench(work.path(), &b.base_url, &["--resume", "b"]);
    ok(&out);
    let rows = common::read_jsonl(&work.path().join("b/episodes.jsonl"));
    let last: Vec<&Value> = rows.iter().rev().take(2).collect();
    assert_eq!(last[0]["run"], 2);
    assert_eq!(last[0]["outcome"], "step_cap");
    assert_eq!(last[0]["endpoint"]["chat"], b.base_url.as_str());
    assert_eq!(rows[0]["endpoint"]["chat"], a.base_url.as_str());
    let results: Value = common::read_json(work.path().join("b/results.json"));
    let endpoints: Vec<&str> = results["episodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["endpoint"]["chat"].as_str().unwrap())
        .collect();
    assert_eq!(endpoints, vec![a.base_url.as_str(), b.base_url.as_str()]);
    let bench_json: Value = common::read_json(work.path().join("b/bench.json"));
    assert_eq!(bench_json["llm"]["chat"]["base_url"], a.base_url.as_str());
    assert_eq!(
        bench_json["resumes"][0]["llm"]["chat"]["base_url"],
        b.base_url.as_str()
    );

    // A game that fails to load leaves no run: at most the bridge's log, kept where
    // the error says it is (an empty file, a story cut short).
    let simple = std::fs::read(game("simple.z8")).unwrap();
    let sidecar = std::fs::read(game("simple.json")).unwrap();
    for (bytes, sidecar) in [(&b""[..], &b"garbage"[..]), (&simple[..3000], &sidecar[..])] {
        let work = tempfile::tempdir().unwrap();
        std::fs::write(work.path().join("x.z8"), bytes).unwrap();
        std::fs::write(work.path().join("x.json"), sidecar).unwrap();
        let out = play(work.path(), &b.base_url, &["x.z8", "--quiet"]);
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let runs = work.path().join("runs");
        for dir in std::fs::read_dir(&runs).into_iter().flatten().flatten() {
            let files: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(files, ["bridge.log"], "an unloadable game left a run");
        }
        // The story cut short kills the interpreter, which says why in the log.
        assert!(bytes.is_empty() || stderr.contains("(log: "), "{stderr}");
        if let Some(at) = stderr.find("(log: ") {
            let cited = &stderr[at + 6..];
            let cited = &cited[..cited.find(')').unwrap()];
            assert!(
                work.path().join(cited).is_file(),
                "{cited} cited but gone: {stderr}"
            );
        }
    }

    // A malformed byte in steps.jsonl: replay names the line.
    let server = Scripted::start(WALKTHROUGH);
    let work = tempfile::tempdir().unwrap();
    ok(&run_simple(&server, work.path(), "3", &[]));
    let dir = run_dir(work.path());
    let path = dir.join("steps.jsonl");
    let mut bytes = std::fs::read(&path).unwrap();
    let second = bytes.iter().position(|b| *b == b'\n').unwrap() + 20;
    bytes[second] = 0xff;
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new(bin())
        .args(["replay", dir.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("steps.jsonl line 2 is malformed"),
        "{stderr}"
    );
}

/// The key goes into a header: one no header can carry (a newline pasted with it) is a
/// set-up error in one line (exit 2), never a panic or a retried request; a good key
/// reaches the server as a bearer token, and no key sends no Authorization header.
#[test]
fn api_keys_reach_the_server_or_are_refused_in_one_line() {
    let server = Scripted::start(WALKTHROUGH);
    let work = tempfile::tempdir().unwrap();
    let g = game("simple.z8");
    let out = common::play_command(
        work.path(),
        &server.base_url,
        &[&g, "--max-steps", "1", "--quiet"],
    )
    .env("OPENAI_API_KEY", "sk-test\n")
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the API key holds characters"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(server.script.lock().unwrap().chats.is_empty());

    let out = run_simple(&server, work.path(), "1", &[]);
    ok(&out);
    let auth = server.script.lock().unwrap().auth.clone();
    assert!(
        !auth.is_empty()
            && auth
                .iter()
                .all(|a| a.as_deref() == Some("Bearer sk-test-secret-key-123")),
        "{auth:?}"
    );

    server.script.lock().unwrap().auth.clear();
    let out = common::play_command(
        work.path(),
        &server.base_url,
        &[&g, "--max-steps", "1", "--quiet"],
    )
    .env_remove("OPENAI_API_KEY")
    .output()
    .unwrap();
    ok(&out);
    let auth = server.script.lock().unwrap().auth.clone();
    assert!(
        !auth.is_empty() && auth.iter().all(Option::is_none),
        "{auth:?}"
    );
}

/// Issue 29, kind 1 and 4: an answer is read by the schema, not by position. A JSON
/// list before the answer object (candidate actions in prose) is not the answer; a
/// bracketed prefix (`[JSON] {...}`) is skipped; two different objects that both fit
/// are refused and asked again, never guessed.
#[test]
fn a_repair_never_changes_the_meaning() {
    let server = Scripted::start(WALKTHROUGH);
    on_calls(&server, "action", move |n, rule| match n {
        1 => Some(answer(
            &format!(
                r#"I could play ["go east", "take old key from antique trunk"]. My answer: {rule}"#
            ),
            "stop",
        )),
        // A bracketed prefix holding an apostrophe, in terminal colours.
        2 => Some(answer(
            &format!("\u{1b}[32m[Assistant's answer] {rule}\u{1b}[0m"),
            "stop",
        )),
        // A draft, a bracket in the prose that reads as an open string, the real answer:
        // two answers, never the draft alone.
        3 => Some(answer(
            &format!(
                r#"Draft: {{"reason_for_action": "b", "action_to_take": "close antique trunk"}}
Hmm, but [that's wrong]. Final answer: {rule}"#
            ),
            "stop",
        )),
        4 => Some(answer(
            r#"{"reason_for_action": "retry", "action_to_take": "unlock wooden door with old key"}"#,
            "stop",
        )),
        // The key `action` twice: serde would keep the last (`look`); refused.
        5 => Some(answer(
            &format!(
                r#"{}, "action_to_take": "look"}}"#,
                rule.trim_end().trim_end_matches('}')
            ),
            "stop",
        )),
        // An answer that fits, with another one hidden under a key the schema does not
        // name: two answers, refused, never the outer one alone.
        7 => Some(answer(
            &format!(
                r#"{{"reason_for_action": "decoy", "action_to_take": "look", "answer": {rule}}}"#
            ),
            "stop",
        )),
        _ => None,
    });
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "5", &[]);
    ok(&out);
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    // The list filled nothing: the object's action and rationale were played.
    assert_eq!(steps[0]["action"], "open antique trunk");
    assert_eq!(steps[0]["rationale"], "scripted");
    assert_eq!(steps[0]["action_source"], "llm");
    assert_eq!(
        (&steps[0]["llm_repairs"], &steps[0]["llm_failures"]),
        (&json!(1), &json!(0))
    );
    assert_eq!(steps[1]["action"], "take old key from antique trunk");
    assert_eq!(steps[1]["llm_repairs"], 1);
    // Two different fitting answers: one counted failure, its reason logged, the retry
    // played.
    assert_eq!(steps[2]["llm_failures"], 1);
    let action_calls: Vec<&Value> = steps[2]["llm_calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["purpose"] == "action")
        .collect();
    let e = action_calls[0]["error"].as_str().unwrap();
    assert!(e.contains("2 different JSON values"), "{e}");
    assert_eq!(steps[2]["action"], "unlock wooden door with old key");
    assert_eq!(steps[2]["rationale"], "retry");
    for (step, says) in [
        (3, "twice with different values"),
        (4, "2 different JSON values"),
    ] {
        let calls: Vec<&Value> = steps[step]["llm_calls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["purpose"] == "action")
            .collect();
        let e = calls[0]["error"].as_str().unwrap_or_default();
        assert!(e.contains(says), "step {}: {e}", step + 1);
        assert_eq!(steps[step]["llm_failures"], 1);
        assert_ne!(steps[step]["action"], "look", "step {}", step + 1);
        assert_eq!(steps[step]["rationale"], "scripted");
    }
    let s = summary(&dir);
    assert_eq!(
        (&s["llm_repairs"], &s["llm_failures"]),
        (&json!(2), &json!(3))
    );
}

/// Issue 29, kind 6: the retry budget bounds the whole call, retries included (a retry
/// runs only for what is left of the budget, not for another whole --llm-timeout); the
/// failed call's retries are counted in its record and the summary; the error line
/// says what happened without saying the server answered.
#[test]
fn the_retry_budget_bounds_the_whole_call() {
    let server = Scripted::start(WALKTHROUGH);
    // Every chat request hangs: each try ends in a timeout.
    server.script.lock().unwrap().hang_after = Some(0);
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(
        &server,
        work.path(),
        "1",
        &["--llm-timeout", "5", "--retry-budget", "8"],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_default();
    assert!(
        line.contains("timed out") && line.contains("gave up after 1 retry in "),
        "{stderr}"
    );
    assert!(!line.contains("answered"), "{line}");
    // First try: 5 s; the retry gets the 3 s left (less its backoff), not 5 more.
    let spent: f64 = line
        .split("gave up after 1 retry in ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|x| x.parse().ok())
        .expect("the time spent");
    assert!((7.5..=9.0).contains(&spent), "{line}");
    let s = summary(&run_dir(work.path()));
    assert_eq!(s["llm_retries"], 1, "{s}");
    assert_eq!(s["outcome"], "error");
}

/// Issue 29, kind 3: an answer given as a tool call, as OpenAI `tool_calls` (arguments
/// as a JSON string) or as a `<tool_call>` block in the content (LM Studio, Hermes-style
/// templates), is its arguments: played, and counted as a repair.
#[test]
fn tool_call_answers_are_unwrapped() {
    let server = Scripted::start(WALKTHROUGH);
    on_calls(&server, "action", move |n, rule| match n {
        1 => Some(Reply::json(&completion(
            json!(null),
            Some("tool_calls"),
            Some((10, 5)),
            json!({"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "action", "arguments": rule}}]}),
        ))),
        2 => Some(answer(
            &format!("<tool_call>\n{{\"name\": \"action\", \"arguments\": {rule}}}\n</tool_call>"),
            "stop",
        )),
        // Prose beside the calls, a first call to another tool, `parameters`.
        3 => Some(Reply::json(&completion(
            json!("Let me think first."),
            Some("tool_calls"),
            Some((10, 5)),
            json!({"tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "think", "arguments": "{\"thought\": \"the door\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "action", "parameters": serde_json::from_str::<Value>(rule).unwrap()}}
            ]}),
        ))),
        // Two calls with different answers: ambiguous, asked again.
        4 => Some(Reply::json(&completion(
            json!(null),
            Some("tool_calls"),
            Some((10, 5)),
            json!({"tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "action", "arguments": "{\"reason_for_action\": \"b\", \"action_to_take\": \"close antique trunk\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "action", "arguments": rule}}
            ]}),
        ))),
        5 => Some(answer(
            r#"{"reason_for_action": "retry", "action_to_take": "open wooden door"}"#,
            "stop",
        )),
        _ => None,
    });
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "4", &[]);
    ok(&out);
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    for (i, want) in WALKTHROUGH[..3].iter().enumerate() {
        assert_eq!(steps[i]["action"], *want, "{}", steps[i]["llm_calls"]);
        assert_eq!(steps[i]["rationale"], "scripted");
        assert_eq!(
            (&steps[i]["llm_repairs"], &steps[i]["llm_failures"]),
            (&json!(1), &json!(0))
        );
    }
    assert_eq!(steps[3]["action"], WALKTHROUGH[3]);
    assert_eq!(steps[3]["rationale"], "retry");
    assert_eq!(steps[3]["llm_failures"], 1, "{}", steps[3]["llm_calls"]);
    let s = summary(&dir);
    assert_eq!(
        (&s["llm_repairs"], &s["fallback_actions"]),
        (&json!(3), &json!(0))
    );
}

/// Issue 29, kind 7: an answer padded with 200 KB of whitespace (or followed by 1 MB of
/// junk) is judged and logged trimmed (and cut at 262,144 characters), with the length
/// as sent recorded: the log does not grow with the padding.
#[test]
fn padded_answers_are_trimmed_before_they_are_logged() {
    let server = Scripted::start(WALKTHROUGH);
    on_calls(&server, "action", move |n, rule| {
        let pad = " \n".repeat(100_000);
        match n {
            1 => Some(answer(&format!("{pad}{rule}{pad}"), "stop")),
            2 => Some(answer(&format!("{rule}{}", "x".repeat(1_000_000)), "stop")),
            3 => Some(answer(&format!("{}{rule}", "x".repeat(300_000)), "stop")),
            _ => None,
        }
    });
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "3", &[]);
    ok(&out);
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    let action = |i: usize| -> Value {
        steps[i]["llm_calls"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["purpose"] == "action")
            .cloned()
            .unwrap()
    };
    assert_eq!(steps[0]["action"], WALKTHROUGH[0]);
    let first = action(0);
    assert!(first["answer"].as_str().unwrap().starts_with('{'));
    assert!(first["answer"].as_str().unwrap().len() < 200);
    assert_eq!(
        first["answer_chars"],
        400_000 + first["answer"].as_str().unwrap().len()
    );
    // The junk after the answer is cut at 262,144 characters; the answer is read.
    assert_eq!(steps[1]["action"], WALKTHROUGH[1]);
    let second = action(1);
    assert_eq!(second["answer"].as_str().unwrap().chars().count(), 262_144);
    assert!(second["answer_chars"].as_u64().unwrap() > 1_000_000);
    // An answer after 300,000 characters of junk is cut away: refused, saying it was cut.
    let third = action(2);
    let why = third["error"].as_str().unwrap();
    assert!(
        why.starts_with("the answer was 300")
            && why.contains("was cut at 262144 before it was read"),
        "{why}"
    );
    let size = std::fs::metadata(dir.join("steps.jsonl")).unwrap().len();
    // Two answers kept at the bound (262,144 characters each), not the 1.7 MB sent.
    assert!(
        size < 900_000,
        "the log grew with the padding: {size} bytes"
    );
}

/// Issue 29, kind 8: an invisible separator between two words (a zero-width space)
/// separates them in an entity's name, as a space would; invisible joiners join.
#[test]
fn invisible_separators_between_words_are_spaces() {
    let server = Scripted::start(WALKTHROUGH);
    on_calls(&server, "extract_triplets", move |n, _| {
        (n == 1).then(|| {
            answer(
                &json!({"triplets": [
                    ["antique\u{200b}trunk", "is in", "bed\u{200d}room"],
                    ["wooden\u{2063}door", "is", "closed"]
                ]})
                .to_string(),
                "stop",
            )
        })
    });
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "1", &[]);
    ok(&out);
    let steps = read_jsonl(&run_dir(work.path()).join("steps.jsonl"));
    let added = all_triplets(&steps, "added");
    assert!(
        added.contains(&"antique trunk, is in, bedroom".to_string())
            && added.contains(&"wooden door, is, closed".to_string()),
        "{added:?}"
    );
}

/// Issue 29, kind 2: an endpoint that cuts prompts to a small context and reports it
/// only through `usage.prompt_tokens` (Ollama at its default context length): one
/// warning line naming the cause and the fix, a flag on each call cut, counts in the
/// step, the summary and the closing line.
#[test]
fn truncated_prompts_are_noticed() {
    let server = Scripted::start(WALKTHROUGH);
    server.script.lock().unwrap().chat_hook = Some(Box::new(|body, rule| {
        let chars = common::prompt_chars(body);
        // A 256-token context: longer prompts are cut to it, and say so only here.
        let reported = ((chars / 4) as u64).min(256);
        Some(Reply::json(&completion(
            json!(rule),
            Some("stop"),
            Some((reported, 5)),
            json!({}),
        )))
    }));
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "2", &[]);
    ok(&out);
    let w = one_warning(&out, "probably cut the prompt");
    assert!(w.contains("num_ctx"), "{w}");
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    let flagged: u64 = steps
        .iter()
        .flat_map(|s| s["llm_calls"].as_array().cloned().unwrap_or_default())
        .filter(|c| c["prompt_cut"].is_string())
        .count() as u64;
    assert!(flagged > 0);
    let per_step: u64 = steps
        .iter()
        .map(|s| s["prompt_cuts"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(per_step, flagged);
    assert_eq!(summary(&dir)["prompt_cuts"], flagged);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{flagged} prompts cut by the endpoint")),
        "{stdout}"
    );
}

/// `ariadne replay DIR` with no reachable endpoint.
fn replay_offline(dir: &Path) -> Output {
    Command::new(bin())
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .env("ARIADNE_EMBED_BASE_URL", "http://127.0.0.1:9/v1")
        .args(["replay", dir.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap()
}

/// The answer `content` as server-sent events, as a streaming endpoint sends it: a role
/// chunk, the content in three pieces, the finish reason with the usage, `[DONE]`.
fn as_events(content: &str) -> Reply {
    let chars: Vec<char> = content.chars().collect();
    let third = chars.len().div_ceil(3).max(1);
    let mut body = String::from(": keep-alive\n\n");
    let chunk = |delta: Value, finish: Value, usage: Value| {
        json!({"id": "s", "object": "chat.completion.chunk", "model": "scripted",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
               "usage": usage})
    };
    body.push_str(&format!(
        "data: {}\n\n",
        chunk(json!({"role": "assistant"}), Value::Null, Value::Null)
    ));
    for piece in chars.chunks(third) {
        let piece: String = piece.iter().collect();
        body.push_str(&format!(
            "data: {}\n\n",
            chunk(json!({"content": piece}), Value::Null, Value::Null)
        ));
    }
    body.push_str(&format!(
        "data: {}\n\ndata: [DONE]\n\n",
        chunk(
            json!({}),
            json!("stop"),
            json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})
        )
    ));
    Reply {
        status: 200,
        headers: vec![("content-type", "text/event-stream".into())],
        body: body.into_bytes(),
    }
}

/// An endpoint that streams server-sent events although `stream` is false: each answer
/// is read from its chunks, counted as a repair, and the run replays exactly.
#[test]
fn server_sent_events_to_a_request_without_stream_are_read_and_counted() {
    let server = Scripted::start(WALKTHROUGH);
    server.script.lock().unwrap().chat_hook = Some(Box::new(|_, rule| Some(as_events(rule))));
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "2", &[]);
    ok(&out);
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    for s in &steps {
        assert_eq!(s["llm_failures"], 0, "{}", s["llm_calls"]);
        assert_eq!(s["action_source"], "llm");
        let calls = s["llm_calls"].as_array().unwrap();
        assert!(calls.iter().all(|c| c["from_events"] == true), "{calls:?}");
        assert_eq!(s["llm_repairs"].as_u64(), Some(calls.len() as u64));
        assert!(calls.iter().all(|c| c["usage"]["prompt_tokens"] == 10));
    }
    assert_eq!(steps[0]["command"], WALKTHROUGH[0]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("warning: the first"), "{stderr}");
    let replayed = replay_offline(&dir);
    assert!(
        replayed.status.success(),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
}

/// An endpoint whose every answer to one call kind is refused is named once, at the
/// third refusal, with the likely cause; the run goes on (fallbacks), exit 0.
#[test]
fn a_call_kind_whose_first_answers_are_all_refused_is_warned_about_once() {
    let server = Scripted::start(WALKTHROUGH);
    // A model that ignores the format (an HTML page is the wrong URL, which ends the run
    // at once: tests/endpoint_errors.rs).
    on_calls(&server, "action", |_, _| {
        Some(answer("I would open the antique trunk first.", "stop"))
    });
    let work = tempfile::tempdir().unwrap();
    let out = run_simple(&server, work.path(), "3", &[]);
    ok(&out);
    let w = one_warning(&out, "ariadne: warning: the first 3 answers");
    assert!(
        w.contains(&server.base_url) && w.contains("`action` call"),
        "{w}"
    );
    assert!(
        w.contains("does not answer in the JSON form asked for"),
        "{w}"
    );
    assert!(!w.contains("ends in /v1"), "{w}");
}
