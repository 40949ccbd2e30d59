//! Test support: a scripted OpenAI-compatible server on loopback (axum), so end-to-end
//! tests exercise the real client path (async-openai over HTTP), and helpers to run the
//! `ariadne` binary on a bundled game through the real TextWorld bridge.
//!
//! The scripted "LLM" answers by rule, from what reaches it:
//! - `extract_triplets`: facts read from the observation with a few patterns (the room
//!   the player is in, closed/open things, exits, taken items);
//! - `outdated` (and QA's `qa_outdated`): old facts with the same subject and relation
//!   as a new fact but another object;
//! - `plan`: one sub-goal naming the next scripted action;
//! - `action`: the next scripted action when it is admissible, else the first one; in
//!   free-text mode (no list in the schema) the next scripted command as it is.
//!   Embeddings are hashed bags of words.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, Once};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

/// One scripted HTTP response: status, headers and raw body bytes (which need not be
/// JSON, nor UTF-8).
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status.
    pub status: u16,
    /// Extra headers (e.g. `retry-after`).
    pub headers: Vec<(&'static str, String)>,
    /// The body as sent.
    pub body: Vec<u8>,
}

impl Reply {
    /// A 200 JSON response.
    pub fn json(v: &Value) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type", "application/json".into())],
            body: v.to_string().into_bytes(),
        }
    }

    /// A plain-text response with a status (e.g. 429 "Too Many Requests").
    pub fn text(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: vec![("content-type", "text/plain".into())],
            body: body.as_bytes().to_vec(),
        }
    }

    /// The same response with another status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    /// The same response with a `Retry-After` header.
    pub fn retry_after(mut self, value: &str) -> Self {
        self.headers.push(("retry-after", value.into()));
        self
    }
}

/// A chat completion body: `content` (a string, or `null`), `finish_reason`, `usage`
/// (omitted when `None`), and extra fields merged into the message (e.g.
/// `reasoning_content`, `tool_calls`).
pub fn completion(
    content: Value,
    finish_reason: Option<&str>,
    usage: Option<(u64, u64)>,
    message_extra: Value,
) -> Value {
    let mut message = json!({"role": "assistant", "content": content});
    if let (Some(m), Some(extra)) = (message.as_object_mut(), message_extra.as_object()) {
        for (k, v) in extra {
            m.insert(k.clone(), v.clone());
        }
    }
    let mut body = json!({
        "id": "scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": message}],
    });
    if let Some((p, c)) = usage {
        body["usage"] = json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c});
    }
    body
}

/// A function that may replace a response: given the request body and what the rule
/// would answer (the chat content, or the embeddings response as JSON text).
pub type Hook = Box<dyn FnMut(&Value, &str) -> Option<Reply> + Send>;

/// What the scripted server was asked, and what it should answer.
#[derive(Default)]
pub struct Script {
    /// Actions to play in order (e.g. the game's walkthrough).
    pub actions: Vec<String>,
    /// Next action index.
    pub cursor: usize,
    /// Raw answers to send instead of the rule's answer, by chat call number (0-based).
    pub junk: Vec<(usize, String)>,
    /// Answer no chat call after this many (the server hangs instead), to test kills.
    pub hang_after: Option<usize>,
    /// Answer every chat call after this many with HTTP 500, to test failures.
    pub fail_after: Option<usize>,
    /// Delay each chat answer by this many milliseconds.
    pub delay_ms: u64,
    /// Behave like a batching engine: each chat answer takes this many milliseconds
    /// times the number of batches the requests in flight fill (flat up to the batch
    /// size, then growing): `(latency_ms, batch_size)`.
    pub batching: Option<(u64, usize)>,
    /// Hold each chat request until another one is in flight, up to this many
    /// milliseconds (makes concurrency observable without depending on timing).
    pub pair_wait_ms: u64,
    /// Chat requests being answered now.
    pub in_flight: usize,
    /// The most chat requests ever answered at once.
    pub max_in_flight: usize,
    /// Every chat request body answered (not those given a scripted error status).
    pub chats: Vec<Value>,
    /// Every embedding request body received.
    pub embeds: Vec<Value>,
    /// Chat requests received, answered or not.
    pub chat_requests: usize,
    /// The `Authorization` header of each chat request received (`None`: none sent).
    pub auth: Vec<Option<String>>,
    /// Responses served, one per chat request, before any answer (e.g. a run of 429s);
    /// these requests are not counted in `chats`.
    pub statuses: std::collections::VecDeque<Reply>,
    /// Full responses that replace the answer of chat call n (0-based, counted in
    /// `chats`): a cut-off answer, `content: null`, bytes that are not UTF-8...
    pub replies: Vec<(usize, Reply)>,
    /// Leave `usage` out of every chat answer.
    pub no_usage: bool,
    /// Responses served, one per embedding request, before any answer.
    pub embed_statuses: std::collections::VecDeque<Reply>,
    /// Full responses that replace embedding call n (0-based).
    pub embed_replies: Vec<(usize, Reply)>,
    /// May replace any chat response (fault injection); a non-200 reply is not counted
    /// as an answer.
    pub chat_hook: Option<Hook>,
    /// May replace any embeddings response.
    pub embed_hook: Option<Hook>,
    /// Question answering: extract triplets from encyclopedia-like paragraphs
    /// ([`extract_paragraph`]) instead of game text.
    pub paragraphs: bool,
    /// Question answering: the direct answer to give to a question containing the
    /// first string ("Unknown" for the others).
    pub qa_answers: Vec<(String, String)>,
}

/// A running scripted server.
pub struct Scripted {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    /// Shared script and request log.
    pub script: Arc<Mutex<Script>>,
    _rt: tokio::runtime::Runtime,
}

fn lines_after<'a>(text: &'a str, header: &str) -> Vec<&'a str> {
    let Some(start) = text.find(header) else {
        return Vec::new();
    };
    text[start + header.len()..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("Answer"))
        .collect()
}

/// The strings of a list as Python's `str(list)` writes it (`['a', "b's"]`), as the
/// reference's prompts show lists; the list is the first `[...]` after `header`.
pub fn py_list_after(text: &str, header: &str) -> Vec<String> {
    let Some(start) = text.find(header) else {
        return Vec::new();
    };
    let rest = &text[start + header.len()..];
    let Some(open) = rest.find('[') else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut chars = rest[open + 1..].chars();
    while let Some(c) = chars.next() {
        match c {
            ']' => break,
            '\'' | '"' => {
                let quote = c;
                let mut item = String::new();
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => match chars.next() {
                            Some('n') => item.push('\n'),
                            Some('t') => item.push('\t'),
                            Some(e) => item.push(e),
                            None => break,
                        },
                        d if d == quote => break,
                        d => item.push(d),
                    }
                }
                out.push(item);
            }
            _ => {}
        }
    }
    out
}

fn parse_fact(line: &str) -> Option<(String, String, String)> {
    let body =
        line.trim_start_matches(|c: char| c == '-' || c == '.' || c.is_ascii_digit() || c == ' ');
    let parts: Vec<&str> = body.split(", ").collect();
    (parts.len() == 3).then(|| {
        (
            parts[0].to_string(),
            parts[1].to_string(),
            parts[2].to_string(),
        )
    })
}

fn field<'a>(text: &'a str, name: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(name))
        .map(str::trim)
        .unwrap_or("")
}

/// `play` flags for the paper's agent with one rule of the extended profile,
/// `known-facts`: the extraction then uses Ariadne's prompt, whose `Location:` and `Last
/// action:` fields the rule-based extractor reads (tests whose hand values were worked
/// out from them use this).
pub const ARIADNE_EXTRACTION: [&str; 4] = [
    "--profile",
    "extended",
    "--without",
    "plan-progress,loop-breaking,repeat-warning,kept-note,verdict-guard,admitted-exits,move-overrides,short-history",
];

/// Runs of capitalized words ("Brelmark Mills", "Oskar Venn"), the first word of the
/// text left out unless it is followed by another capitalized word.
pub fn capitalized_runs(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let words: Vec<&str> = text.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-');
        if w.chars().next().is_some_and(char::is_uppercase) && !(i == 0 && w.len() <= 5) {
            run.push(w);
        } else if !run.is_empty() {
            out.push(run.join(" "));
            run.clear();
        }
    }
    if !run.is_empty() {
        out.push(run.join(" "));
    }
    out
}

/// The paragraph of an extraction prompt: the text after `Observation:`, up to the
/// closing instructions.
fn paragraph(user: &str) -> &str {
    user.split_once("Observation:")
        .map(|(_, rest)| {
            rest.split("\n\nRemember that triplets")
                .next()
                .unwrap_or(rest)
        })
        .unwrap_or("")
}

/// The rule-based extractor of question-answering paragraphs: each sentence links its
/// first capitalized name to every other one (`Oskar Venn, mentions, Tavoria`).
pub fn extract_paragraph(user: &str) -> Vec<Value> {
    let text = paragraph(user);
    let text = text.split_once('\n').map(|(_, t)| t).unwrap_or(text);
    let mut out = Vec::new();
    for sentence in text.split(". ") {
        let names = capitalized_runs(&format!("x {sentence}"));
        if let Some((first, rest)) = names.split_first() {
            for other in rest {
                out.push(json!({"subject": first, "relation": "mentions", "object": other}));
            }
        }
    }
    out
}

/// The theses of a question-answering paragraph: each sentence with two or more
/// capitalized names, linking them.
pub fn paragraph_theses(user: &str) -> Vec<Value> {
    paragraph(user)
        .split(". ")
        .filter_map(|sentence| {
            let names = capitalized_runs(&format!("x {sentence}"));
            (names.len() >= 2).then(|| json!({"text": sentence.trim(), "entities": names}))
        })
        .collect()
}

/// The rule-based triplet extractor. It reads both extraction prompts: Ariadne's
/// (`Location:`, `Last action:`, `Observation:`, `Inventory:` fields) and the
/// reference's (the observation alone: the room from its `-= Room =-` header, what was
/// opened or taken from the game's own feedback).
pub fn extract(user: &str) -> Vec<Value> {
    let obs = user
        .split_once("Observation:")
        .map(|(_, rest)| {
            rest.split("\nInventory:")
                .next()
                .unwrap_or(rest)
                .split("\n\nRemember that triplets")
                .next()
                .unwrap_or(rest)
        })
        .unwrap_or("")
        .to_lowercase();
    let mut room = field(user, "Location:").to_lowercase();
    if room.is_empty()
        && let Some((_, rest)) = obs.split_once("-= ")
        && let Some((name, _)) = rest.split_once(" =-")
    {
        room = name.trim().to_string();
    }
    let action = field(user, "Last action:").to_lowercase();
    let mut out = Vec::new();
    let mut push =
        |s: &str, r: &str, o: &str| out.push(json!({"subject": s, "relation": r, "object": o}));
    if !room.is_empty() && room != "unknown" {
        push("player", "is in", &room);
    }
    for dir in ["north", "south", "east", "west"] {
        if obs.contains(&format!("leading {dir}")) || obs.contains(&format!("exit to the {dir}")) {
            push(&room, "has exit", dir);
        }
    }
    for (marker, state) in [
        ("there is a closed ", "closed"),
        ("there is an open ", "open"),
    ] {
        if let Some(i) = obs.find(marker) {
            let rest = &obs[i + marker.len()..];
            if let Some(j) = rest.find(" leading") {
                push(&rest[..j], "is", state);
            }
        }
    }
    if let Some(thing) = action.strip_prefix("open ")
        && (obs.starts_with("you open") || obs.contains("you open"))
    {
        push(thing, "is", "open");
    } else if action.is_empty()
        && let Some((_, rest)) = obs.split_once("you open the ")
    {
        push(
            rest.split(['.', ',', '\n']).next().unwrap_or(rest).trim(),
            "is",
            "open",
        );
    }
    if let Some(rest) = action.strip_prefix("take ")
        && obs.contains("you take")
    {
        let item = rest.split(" from ").next().unwrap_or(rest);
        push(item, "is in", "inventory");
    } else if action.is_empty()
        && let Some((_, rest)) = obs.split_once("you take the ")
    {
        let item = rest.split(" from ").next().unwrap_or(rest);
        push(
            item.split(['.', '\n']).next().unwrap_or(item).trim(),
            "is in",
            "inventory",
        );
    }
    out
}

fn answer(script: &mut Script, body: &Value) -> String {
    let n = script.chats.len() - 1;
    if let Some((_, junk)) = script.junk.iter().find(|(i, _)| *i == n) {
        return junk.clone();
    }
    let purpose = body["response_format"]["json_schema"]["name"]
        .as_str()
        .unwrap_or("");
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let user = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string();
    match purpose {
        "extract_triplets" if script.paragraphs => {
            let triplets = extract_paragraph(&user);
            // `--thesis` as PersonalAI runs it: each sentence naming two or more
            // things is a thesis linking them.
            if body["response_format"]["json_schema"]["schema"]["properties"]["theses"]["items"]
                ["type"]
                == "object"
            {
                json!({"triplets": triplets, "theses": paragraph_theses(&user)}).to_string()
            } else {
                json!({"triplets": triplets}).to_string()
            }
        }
        "extract_triplets" => json!({"triplets": extract(&user)}).to_string(),
        // The capitalized words of the question, each with relevance 2.
        "qa_key_items" => {
            let problem = field(&user, "Problem:");
            let items: Vec<Value> = capitalized_runs(problem)
                .into_iter()
                .map(|e| json!({"entity": e, "relevance": 2}))
                .collect();
            json!({"items": items}).to_string()
        }
        "qa_answer" => {
            let answer = script
                .qa_answers
                .iter()
                .find(|(q, _)| user.contains(q.as_str()))
                .map(|(_, a)| a.clone())
                .unwrap_or_else(|| "Unknown".into());
            json!({"chain_of_thoughts": "scripted", "direct_answer": answer}).to_string()
        }
        // The reference's outdated check (memory rules 7): replacement pairs of the old
        // facts a new one gives another value.
        "outdated" if body["response_format"]["json_schema"]["schema"]["properties"]["replacing"].is_object() => {
            let new: Vec<String> = py_list_after(&user, "New triplets:");
            let old: Vec<String> = py_list_after(&user, "Existing triplets:");
            let pairs: Vec<Value> = old
                .iter()
                .filter_map(|o| {
                    let of = parse_fact(o)?;
                    new.iter()
                        .find(|n| parse_fact(n).is_some_and(|nf| nf.0 == of.0 && nf.1 == of.1 && nf.2 != of.2))
                        .map(|n| json!([o, n]))
                })
                .collect();
            json!({"replacing": pairs}).to_string()
        }
        "outdated" | "qa_outdated" => {
            let new: Vec<_> = lines_after(&user, "New facts:")
                .into_iter()
                .filter_map(parse_fact)
                .collect();
            let old: Vec<_> = lines_after(&user, "Old facts:")
                .into_iter()
                .filter_map(parse_fact)
                .collect();
            let outdated: Vec<usize> = old
                .iter()
                .enumerate()
                .filter(|(_, o)| new.iter().any(|n| n.0 == o.0 && n.1 == o.1 && n.2 != o.2))
                .map(|(i, _)| i + 1)
                .collect();
            json!({"outdated": outdated}).to_string()
        }
        "plan" => {
            let next = script
                .actions
                .get(script.cursor)
                .cloned()
                .unwrap_or_else(|| "explore".into());
            let sub_goal = format!("do: {next}");
            if body["response_format"]["json_schema"]["schema"]["properties"]["main_goal"].is_object() {
                json!({"main_goal": "scripted", "plan_steps": [{"sub_goal_1": sub_goal, "reason": "it is the next scripted step"}],
                       "your_emotion": {"your_current_emotion": "calm", "reason_behind_emotion": "scripted"}}).to_string()
            } else {
                json!({"plan": [{"sub_goal": sub_goal, "reason": "it is the next scripted step"}]}).to_string()
            }
        }
        "action" => {
            let allowed = schema_actions(body);
            // Free-text mode: no enum; the next scripted command is written as is.
            let properties = &body["response_format"]["json_schema"]["schema"]["properties"];
            let reference = properties["action_to_take"].is_object();
            let free = properties[if reference { "action_to_take" } else { "action" }]
                .get("enum")
                .is_none();
            let next = script.actions.get(script.cursor).cloned();
            let action = match next {
                Some(a) if free || allowed.contains(&a) => {
                    script.cursor += 1;
                    a
                }
                _ => allowed.first().cloned().unwrap_or_else(|| "look".into()),
            };
            if reference {
                json!({"reason_for_action": "scripted", "action_to_take": action}).to_string()
            } else {
                json!({"rationale": "scripted", "action": action}).to_string()
            }
        }
        "summary" => {
            let n = script
                .chats
                .iter()
                .filter(|c| c["response_format"]["json_schema"]["name"] == "summary")
                .count();
            json!({"summary": format!("summary #{n}")}).to_string()
        }
        // No key item: the agent falls back to the observation, goal and sub-goals.
        "key_items" => json!({"items": []}).to_string(),
        "explore" => json!({"explore": true}).to_string(),
        "importance" => json!({"importance": 9}).to_string(),
        "reflection" => json!({"insights": [{"insight": "the old key opens the wooden door", "importance": 10}]}).to_string(),
        "lesson" => json!({"lesson": "open the antique trunk first"}).to_string(),
        other => json!({"error": format!("unknown purpose {other}")}).to_string(),
    }
}

/// A deterministic 64-dimensional hashed bag-of-words embedding.
pub fn embed_text(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; 64];
    for word in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut h: u64 = 0xcbf29ce484222325;
        for b in word.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100000001b3);
        }
        v[(h % 64) as usize] += 1.0;
    }
    v
}

fn respond(reply: Reply) -> axum::response::Response {
    let mut resp = axum::response::Response::new(axum::body::Body::from(reply.body));
    *resp.status_mut() =
        axum::http::StatusCode::from_u16(reply.status).expect("a valid status code");
    for (k, v) in reply.headers {
        if let Ok(v) = axum::http::HeaderValue::from_str(&v) {
            resp.headers_mut().insert(k, v);
        }
    }
    resp
}

async fn chat(
    State(script): State<Arc<Mutex<Script>>>,
    headers: axum::http::HeaderMap,
    Json(body): Json<Value>,
) -> axum::response::Response {
    let (hang, fail, delay) = {
        let mut s = script.lock().expect("script lock");
        s.chat_requests += 1;
        s.auth.push(
            headers
                .get(axum::http::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
        );
        s.in_flight += 1;
        s.max_in_flight = s.max_in_flight.max(s.in_flight);
        (
            s.hang_after.is_some_and(|n| s.chats.len() >= n),
            s.fail_after.is_some_and(|n| s.chats.len() >= n),
            s.delay_ms
                + s.batching
                    .map(|(ms, b)| ms * s.in_flight.div_ceil(b.max(1)) as u64)
                    .unwrap_or(0),
        )
    };
    if hang {
        tokio::time::sleep(std::time::Duration::from_secs(120)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
    let pair_wait = script.lock().expect("script lock").pair_wait_ms;
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_millis(pair_wait) {
        if script.lock().expect("script lock").in_flight >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let mut s = script.lock().expect("script lock");
    s.in_flight -= 1;
    if fail {
        return respond(Reply::json(&json!({"error": {"message": "scripted failure", "type": "server_error", "param": null, "code": null}})).with_status(500));
    }
    if let Some(r) = s.statuses.pop_front() {
        return respond(r);
    }
    let cursor = s.cursor;
    s.chats.push(body.clone());
    let n = s.chats.len() - 1;
    if let Some((_, r)) = s.replies.iter().find(|(i, _)| *i == n) {
        return respond(r.clone());
    }
    let content = answer(&mut s, &body);
    if let Some(mut hook) = s.chat_hook.take() {
        let replaced = hook(&body, &content);
        s.chat_hook = Some(hook);
        if let Some(r) = replaced {
            if r.status != 200 {
                // Not an answer: the request will come again.
                s.chats.pop();
                s.cursor = cursor;
            }
            return respond(r);
        }
    }
    let usage =
        (!s.no_usage).then_some(((prompt_chars(&body) / 4) as u64, (content.len() / 4) as u64));
    respond(Reply::json(&completion(
        json!(content),
        Some("stop"),
        usage,
        json!({}),
    )))
}

/// The bytes of a chat request's messages (the scripted usage is a quarter of them).
pub fn prompt_chars(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .map(|x| x["content"].as_str().map_or(0, str::len))
                .sum()
        })
        .unwrap_or(0)
}

/// The embeddings the rule gives for a request body.
pub fn embeddings_for(body: &Value) -> Value {
    let inputs: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|x| x.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": embed_text(t)}))
        .collect();
    json!({"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": inputs.len(), "total_tokens": inputs.len()}})
}

async fn embeddings(
    State(script): State<Arc<Mutex<Script>>>,
    Json(body): Json<Value>,
) -> axum::response::Response {
    let mut s = script.lock().expect("script lock");
    if let Some(r) = s.embed_statuses.pop_front() {
        return respond(r);
    }
    s.embeds.push(body.clone());
    let n = s.embeds.len() - 1;
    if let Some((_, r)) = s.embed_replies.iter().find(|(i, _)| *i == n) {
        return respond(r.clone());
    }
    let normal = embeddings_for(&body);
    if let Some(mut hook) = s.embed_hook.take() {
        let replaced = hook(&body, &normal.to_string());
        s.embed_hook = Some(hook);
        if let Some(r) = replaced {
            return respond(r);
        }
    }
    respond(Reply::json(&normal))
}

impl Scripted {
    /// Start a scripted server that plays `actions`.
    pub fn start(actions: &[&str]) -> Self {
        let script = Arc::new(Mutex::new(Script {
            actions: actions.iter().map(|s| s.to_string()).collect(),
            ..Script::default()
        }));
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("tokio runtime");
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/embeddings", post(embeddings))
            .with_state(script.clone());
        let listener = rt
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind loopback");
        let port = listener.local_addr().expect("local addr").port();
        rt.spawn(async move {
            axum::serve(listener, app).await.expect("scripted server");
        });
        Self {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            script,
            _rt: rt,
        }
    }
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The path of a bundled game, as a string for the command line.
pub fn game(file: &str) -> String {
    root().join("games").join(file).display().to_string()
}

/// A logged triplet (`{subject, relation, object}`) as `subject, relation, object`.
pub fn triplet_text(t: &Value) -> String {
    format!(
        "{}, {}, {}",
        t["subject"].as_str().unwrap_or_default(),
        t["relation"].as_str().unwrap_or_default(),
        t["object"].as_str().unwrap_or_default()
    )
}

/// The built binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_ariadne"))
}

static SETUP: Once = Once::new();

/// Install TextWorld into the managed environment once per test binary (so parallel
/// tests do not race to create it).
pub fn setup_bridge() {
    SETUP.call_once(|| {
        let out = Command::new(bin())
            .args(["setup", "--games-only"])
            .output()
            .expect("run ariadne setup");
        assert!(
            out.status.success(),
            "ariadne setup failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

/// The `ariadne play` command against a scripted server, in `workdir`.
pub fn play_command(workdir: &Path, base_url: &str, args: &[&str]) -> Command {
    setup_bridge();
    let mut cmd = Command::new(bin());
    cmd.current_dir(workdir)
        .env("OPENAI_BASE_URL", base_url)
        .env("ARIADNE_EMBED_BASE_URL", base_url)
        .env("OPENAI_API_KEY", "sk-test-secret-key-123")
        .env_remove("ARIADNE_MODEL")
        .arg("play")
        .args(args);
    cmd
}

/// Run `ariadne play` against a scripted server, in `workdir`.
pub fn play(workdir: &Path, base_url: &str, args: &[&str]) -> Output {
    play_command(workdir, base_url, args)
        .output()
        .expect("run ariadne play")
}

/// Wait until `path` has at least `n` lines (up to 60 s).
pub fn wait_for_lines(path: &Path, n: usize) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let lines = std::fs::read_to_string(path)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= n {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} never reached {n} lines",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The single run directory under `workdir/runs`.
pub fn run_dir(workdir: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = std::fs::read_dir(workdir.join("runs"))
        .expect("runs dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(runs.len(), 1, "expected one run dir, got {runs:?}");
    runs[0].clone()
}

/// Read a JSONL file.
pub fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("read jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

/// A JSON file of a run or bench (manifest, summary, results) as a value.
pub fn read_json(path: impl AsRef<Path>) -> Value {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The admissible actions a decision request's JSON schema lists (its `action` enum;
/// empty in free-text mode).
pub fn schema_actions(body: &Value) -> Vec<String> {
    let properties = &body["response_format"]["json_schema"]["schema"]["properties"];
    let action = if properties["action_to_take"].is_object() {
        &properties["action_to_take"]
    } else {
        &properties["action"]
    };
    action["enum"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The memory module a chat request is for (its response schema's name).
pub fn purpose(body: &Value) -> &str {
    body["response_format"]["json_schema"]["name"]
        .as_str()
        .unwrap_or("")
}
