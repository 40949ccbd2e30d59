//! End-to-end tests of what a misbehaving endpoint costs (issue 63): each runs the real
//! binary on a bundled game against a scripted server on loopback that answers exactly
//! the case, and checks the message, the exit code, the number of tries and how long the
//! run took. What may pass by itself is retried within the budget; what the same
//! request would meet again ends the run at once with one line that says what the
//! endpoint answered and what to change (docs/reliability.md, the retry table).

mod common;

use std::io::{Read, Write};
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Reply, Scripted, game, read_json, run_dir};
use serde_json::json;

const WALKTHROUGH: &[&str] = &[
    "open antique trunk",
    "take old key from antique trunk",
    "unlock wooden door with old key",
];

/// Starting the binary and the game's bridge takes a few seconds, up to 20 on a loaded
/// 2-core machine: a run refused at once ends well within this; one retried for the
/// default budget (300 s) would not.
const AT_ONCE_S: u64 = 60;

/// `ariadne play simple` for `steps` steps, chat at `chat_base`, embeddings at the
/// scripted server; the output and the wall time, seconds.
fn run(server: &Scripted, chat_base: &str, steps: &str, extra: &[&str]) -> (Output, f64) {
    let work = tempfile::tempdir().unwrap();
    run_in(work.path(), server, chat_base, steps, extra)
}

fn run_in(
    work: &std::path::Path,
    server: &Scripted,
    chat_base: &str,
    steps: &str,
    extra: &[&str],
) -> (Output, f64) {
    let g = game("simple.z8");
    let mut args = vec![g.as_str(), "--max-steps", steps, "--quiet"];
    args.extend_from_slice(extra);
    let started = Instant::now();
    let out = common::play_command(work, chat_base, &args)
        .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
        .output()
        .unwrap();
    let secs = started.elapsed().as_secs_f64();
    // Shown with --nocapture: what each case cost.
    eprintln!("ran {secs:.1} s, exit {:?}", out.status.code());
    (out, secs)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The run's one `error:` line.
fn error_line(out: &Output) -> String {
    let err = stderr(out);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    // Shown with --nocapture, to read what a user reads.
    eprintln!("{err}");
    lines[0].to_string()
}

/// The retry notices of a run.
fn retries(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| l.contains("retry budget left"))
        .map(str::to_string)
        .collect()
}

/// A run whose first chat requests are answered with `replies` (one a request) ends
/// with exit `code` after `tries` requests, at once, with one error line naming the
/// endpoint; that line.
fn ends_at_once(replies: Vec<Reply>, code: i32, tries: usize) -> String {
    let server = Scripted::start(WALKTHROUGH);
    server.script.lock().unwrap().statuses = replies.into();
    let chat_base = server.base_url.clone();
    let (out, secs) = run(&server, &chat_base, "2", &[]);
    let line = error_line(&out);
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    assert_eq!(server.script.lock().unwrap().chat_requests, tries, "{line}");
    assert_eq!(retries(&out).len(), tries - 1, "{}", stderr(&out));
    assert!(secs < AT_ONCE_S as f64, "{secs} s: {line}");
    assert!(line.contains(&chat_base), "{line}");
    line
}

const PYTHON_501: &str = "<!DOCTYPE HTML>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error response</title>\n</head>\n<body>\n<h1>Error response</h1>\n<p>Error code: 501</p>\n<p>Message: Unsupported method ('POST').</p>\n</body>\n</html>\n";

#[test]
fn a_refused_key_or_request_names_what_to_change() {
    let line = ends_at_once(vec![Reply::text(401, "nope")], 2, 1);
    assert!(line.contains("answered 401 Unauthorized: nope"), "{line}");
    assert!(line.contains("OPENAI_API_KEY"), "{line}");
    assert!(!line.contains("ends in /v1"), "{line}");

    let body = json!({"error": {"message": "Project does not have access to model gpt-4o-mini"}});
    let line = ends_at_once(vec![Reply::json(&body).with_status(403)], 2, 1);
    assert!(
        line.contains("answered 403 Forbidden: Project does not have access"),
        "{line}"
    );
    assert!(
        line.contains("OPENAI_API_KEY") && line.contains("--model / ARIADNE_MODEL"),
        "{line}"
    );

    // A 400 about the response format names --json-mode; not retried, exit 1.
    let body =
        json!({"error": {"message": "'response_format.type' must be 'json_object' or 'text'"}});
    let line = ends_at_once(vec![Reply::json(&body).with_status(400)], 1, 1);
    assert!(
        line.contains("answered 400 Bad Request: 'response_format.type'"),
        "{line}"
    );
    assert!(line.contains("try --json-mode object (or none)"), "{line}");
}

#[test]
fn a_404_names_the_model_or_the_missing_v1_whichever_it_is() {
    let body =
        json!({"error": {"message": "The model `nope` does not exist", "code": "model_not_found"}});
    let line = ends_at_once(vec![Reply::json(&body).with_status(404)], 2, 1);
    assert!(
        line.contains("answered 404 Not Found: The model `nope` does not exist"),
        "{line}"
    );
    assert!(line.contains("--model / ARIADNE_MODEL"), "{line}");
    assert!(!line.contains("/v1:") && !line.contains("/v1?"), "{line}");

    // The base URL without /v1: the scripted server has no route there (404, empty).
    let server = Scripted::start(WALKTHROUGH);
    let base = server.base_url.trim_end_matches("/v1").to_string();
    let (out, secs) = run(&server, &base, "2", &[]);
    let line = error_line(&out);
    assert_eq!(out.status.code(), Some(2), "{line}");
    assert!(line.contains("answered 404 Not Found"), "{line}");
    assert!(line.contains(&format!("try {base}/v1")), "{line}");
    assert!(!line.contains("ARIADNE_MODEL"), "{line}");
    assert!(retries(&out).is_empty(), "{}", stderr(&out));
    assert!(secs < AT_ONCE_S as f64, "{secs}");

    // The URL of the route pasted whole: refused before any request, naming the base.
    let whole = format!("{}/chat/completions", server.base_url);
    let (out, _) = run(&server, &whole, "2", &[]);
    let line = error_line(&out);
    assert_eq!(out.status.code(), Some(2), "{line}");
    assert!(
        line.contains(&format!("give the base URL: {}", server.base_url)),
        "{line}"
    );
    assert_eq!(server.script.lock().unwrap().chat_requests, 0);
}

#[test]
fn a_url_that_does_not_speak_the_openai_api_is_named_at_once() {
    // 405 from a base URL with /v1: no /v1 hint.
    let line = ends_at_once(vec![Reply::text(405, "Method Not Allowed")], 2, 1);
    assert!(line.contains("answered 405 Method Not Allowed"), "{line}");
    assert!(
        line.contains("this URL does not speak the OpenAI API"),
        "{line}"
    );
    assert!(!line.contains("/v1?"), "{line}");

    // A redirect is not followed (the POST would go on as a GET, the key to another
    // host): the line names where it points.
    let mut moved = Reply::text(302, "");
    moved
        .headers
        .push(("location", "http://127.0.0.1:1/elsewhere/v1".into()));
    let line = ends_at_once(vec![moved], 2, 1);
    assert!(
        line.contains("answered 302 Found: a redirect to http://127.0.0.1:1/elsewhere/v1"),
        "{line}"
    );
    assert!(line.contains("does not follow redirects"), "{line}");

    // What `python3 -m http.server` answers to a POST.
    let line = ends_at_once(vec![Reply::text(501, PYTHON_501)], 2, 1);
    assert!(
        line.contains("answered 501 Not Implemented: an HTML page (Error response)"),
        "{line}"
    );
    assert!(
        line.contains("this URL does not speak the OpenAI API"),
        "{line}"
    );
    assert!(!line.contains("/v1?"), "{line}");

    // A 2xx that is a web page.
    let page = "<html><head><title>Welcome to nginx!</title></head><body></body></html>";
    let line = ends_at_once(vec![Reply::text(200, page)], 2, 1);
    assert!(
        line.contains("answered 200 OK with an HTML page (Welcome to nginx!)"),
        "{line}"
    );
    assert!(
        line.contains("this URL does not speak the OpenAI API"),
        "{line}"
    );
    assert!(!line.contains("JSON"), "{line}");

    // A 2xx that is text but no JSON (a web app's greeting).
    let line = ends_at_once(vec![Reply::text(200, "Hello from Flask!")], 2, 1);
    assert!(
        line.contains("answered 200 OK with text that is not JSON: Hello from Flask!"),
        "{line}"
    );
    assert!(
        line.contains("this URL does not speak the OpenAI API"),
        "{line}"
    );

    // An HTML 500 is tried once more, then read as the wrong URL.
    let page = "<html><head><title>500 Internal Server Error</title></head></html>";
    let line = ends_at_once(vec![Reply::text(500, page), Reply::text(500, page)], 2, 2);
    assert!(
        line.contains(
            "answered 500 Internal Server Error: an HTML page (500 Internal Server Error), again"
        ),
        "{line}"
    );
    assert!(
        line.contains("this URL does not speak the OpenAI API"),
        "{line}"
    );
}

/// A JSON 503 with `Retry-After` is waited out (each retry said as it is decided, the
/// wait what the server asked), counted, and its wait booked as waiting.
#[test]
fn a_json_503_with_retry_after_is_waited_out_and_booked_as_waiting() {
    let server = Scripted::start(WALKTHROUGH);
    let busy = Reply::json(&json!({"error": {"message": "loading model"}}))
        .with_status(503)
        .retry_after("2");
    server.script.lock().unwrap().statuses = vec![busy.clone(), busy].into();
    let work = tempfile::tempdir().unwrap();
    let (out, secs) = run_in(work.path(), &server, &server.base_url, "1", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let notices = retries(&out);
    assert_eq!(notices.len(), 2, "{}", stderr(&out));
    for (i, n) in notices.iter().enumerate() {
        assert!(
            n.contains("answered 503 Service Unavailable: loading model")
                && n.contains(&format!("retry {} in 2.0 s", i + 1)),
            "{n}"
        );
    }
    assert!(secs >= 4.0 && secs < AT_ONCE_S as f64, "{secs}");
    let dir = run_dir(work.path());
    let steps = common::read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps[0]["llm_retries"], 2);
    assert_eq!(steps[0]["llm_calls"][0]["retries"], 2);
    let t = &steps[0]["timings"];
    let wait = t["wait_ms"].as_u64().unwrap();
    assert!(wait >= 4000, "{t}");
    // The wait is not the agent's own work.
    assert!(t["agent_ms"].as_u64().unwrap() < 4000, "{t}");
}

/// `choices: []` is a bad answer, asked again; the early warning names the endpoint's
/// failure, neither the model's JSON nor a /v1 the base URL has.
#[test]
fn an_answer_without_choices_is_not_blamed_on_the_model() {
    let server = Scripted::start(WALKTHROUGH);
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    server.script.lock().unwrap().chat_hook = Some(Box::new(move |body, _| {
        (common::purpose(body) == "action").then(|| {
            counted.fetch_add(1, Ordering::Relaxed);
            Reply::json(&json!({"id": "x", "object": "chat.completion", "choices": []}))
        })
    }));
    let work = tempfile::tempdir().unwrap();
    let (out, secs) = run_in(work.path(), &server, &server.base_url, "3", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(secs < AT_ONCE_S as f64, "{secs}");
    let err = stderr(&out);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("ariadne: warning: the first 3 answers"))
        .collect();
    assert_eq!(warnings.len(), 1, "{err}");
    let w = warnings[0];
    assert!(w.contains("has no choices"), "{w}");
    assert!(w.contains("answers without a completion"), "{w}");
    assert!(
        !w.contains("JSON form") && !w.contains("ends in /v1"),
        "{w}"
    );
    // Each step asked twice (the answer, then once more), and played its fallback.
    assert_eq!(asked.load(Ordering::Relaxed), 6);
    assert!(retries(&out).is_empty(), "{err}");
    let s = read_json(run_dir(work.path()).join("summary.json"));
    assert!(s["llm_failures"].as_u64().unwrap() >= 6, "{s}");
}

/// A body cut mid-JSON (the server stopped, its length said it was whole) is retried
/// as a transport failure, counted, never judged as the model's JSON.
#[test]
fn a_body_cut_mid_json_is_retried_not_blamed_on_the_model() {
    let server = Scripted::start(WALKTHROUGH);
    let cut = r#"{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"act"#;
    let mut cut_reply = Reply::text(200, cut);
    cut_reply.headers = vec![("content-type", "application/json".into())];
    server.script.lock().unwrap().replies = vec![(0, cut_reply)];
    let work = tempfile::tempdir().unwrap();
    let (out, secs) = run_in(work.path(), &server, &server.base_url, "1", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(secs < AT_ONCE_S as f64, "{secs}");
    let notices = retries(&out);
    assert_eq!(notices.len(), 1, "{}", stderr(&out));
    assert!(
        notices[0].contains(&format!(
            "answered 200 OK with JSON cut off after {} bytes; retry 1 in",
            cut.len()
        )),
        "{}",
        notices[0]
    );
    let dir = run_dir(work.path());
    let s = read_json(dir.join("summary.json"));
    assert_eq!(s["llm_retries"], 1, "{s}");
    assert_eq!(s["llm_failures"], 0, "{s}");
    // The request was sent twice; the cut answer is no call record.
    assert_eq!(
        server.script.lock().unwrap().chats.len(),
        s["llm_calls"].as_u64().unwrap() as usize + 1
    );
}

/// A hang, at the time limit the budget gives when none is set (half of it): tried
/// again, each retry said, the call ended within the budget with a line naming the time
/// limit it hit.
#[test]
fn a_hang_is_retried_within_the_budget_at_the_limit_it_gives() {
    let server = Scripted::start(WALKTHROUGH);
    server.script.lock().unwrap().hang_after = Some(0);
    let work = tempfile::tempdir().unwrap();
    let (out, secs) = run_in(
        work.path(),
        &server,
        &server.base_url,
        "1",
        &["--retry-budget", "6"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let notices = retries(&out);
    assert_eq!(notices.len(), 1, "{}", stderr(&out));
    assert!(
        notices[0].contains("timed out: no answer within 3 s (--llm-timeout); retry 1 in"),
        "{}",
        notices[0]
    );
    let line = error_line(&out);
    assert!(line.contains("timed out: no answer within the"), "{line}");
    assert!(
        line.contains("left of the retry budget (--retry-budget)"),
        "{line}"
    );
    assert!(line.contains("gave up after 1 retry in "), "{line}");
    assert!(line.contains("does not answer"), "{line}");
    let spent: f64 = line
        .split("gave up after 1 retry in ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|x| x.parse().ok())
        .expect("the time spent");
    assert!((5.5..=7.0).contains(&spent), "{line}");
    assert_eq!(server.script.lock().unwrap().chat_requests, 2);
    assert!(secs < AT_ONCE_S as f64, "{secs}");
    let m = read_json(run_dir(work.path()).join("manifest.json"));
    assert_eq!(m["llm"]["chat"]["timeout_s"], 3, "{m}");
    assert_eq!(m["llm"]["chat"]["retry_budget_s"], 6, "{m}");

    // A time limit longer than the budget is refused before any request.
    let (out, _) = run(
        &server,
        &server.base_url,
        "1",
        &["--llm-timeout", "600", "--retry-budget", "300"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let line = error_line(&out);
    assert!(
        line.contains("--llm-timeout 600 is longer than --retry-budget 300"),
        "{line}"
    );
}

/// A server that sends the head of its answer and then stops (or closes the
/// connection) is counted as a timeout (or a dropped connection): retried within the
/// budget, the line saying it stopped mid-answer.
#[test]
fn a_server_that_stops_mid_answer_is_retried_like_a_hang() {
    let server = Scripted::start(WALKTHROUGH);
    for (close, says, tries) in [
        (false, "timed out: stopped sending mid-answer", 2..=2),
        (true, "closed the connection mid-answer", 2..=20),
    ] {
        let (base, seen) = stalling_server(close);
        let (out, secs) = run(&server, &base, "1", &["--retry-budget", "4"]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let line = error_line(&out);
        assert!(
            line.contains(says) && line.contains("gave up after"),
            "{line}"
        );
        let n = seen.load(Ordering::Relaxed);
        assert!(tries.contains(&n), "{n} tries: {line}");
        assert_eq!(retries(&out).len(), n - 1, "{}", stderr(&out));
        assert!(secs < AT_ONCE_S as f64, "{secs}");
    }
}

/// A raw HTTP server on loopback that answers every request with the head of a JSON
/// answer and then stalls (or closes the connection); its base URL and the number of
/// requests it got.
fn stalling_server(close: bool) -> (String, Arc<AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(AtomicUsize::new(0));
    let count = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            count.fetch_add(1, Ordering::Relaxed);
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                let _ = stream.read(&mut buf);
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n{\"choices\": [";
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.flush();
                if !close {
                    std::thread::sleep(Duration::from_secs(30));
                }
            });
        }
    });
    (format!("http://127.0.0.1:{port}/v1"), seen)
}
