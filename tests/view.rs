//! End-to-end tests of `ariadne view` in a real browser: the page of a scripted run is
//! loaded in headless Chromium at `#step=N`, and the rendered DOM must show the
//! triplets alive at step N with the step's additions and removals highlighted; a
//! screenshot must not be blank; a synthetic 150-step run with 1,000 triplets must
//! give a page under 5 MB (its opening time is measured and printed). Chromium is
//! required: without it these tests fail and say how to install it.

mod browser;
mod common;
mod synthetic;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use browser::{
    Cdp, attr, chromium, decode_png, drawn_edges, dump_dom, headless, html_text, variance,
    with_state,
};
use common::{Scripted, bin, game, play, read_jsonl, run_dir, triplet_text};
use serde_json::{Value, json};
use synthetic::synthetic_run;

const WALK: &[&str] = &[
    "open antique trunk",
    "take old key from antique trunk",
    "unlock wooden door with old key",
    "open wooden door",
    "go east",
    "open screen door",
    "go east",
    "go south",
    "take half of a bag of chips",
];

/// `ariadne view` of `run` into `out`.
fn view(run: &Path, out: &Path) -> String {
    let o = Command::new(bin())
        .args([
            "view",
            run.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout
}

/// The triplets alive after each step, folded from the log (removals, then additions).
fn alive_sets(steps: &[Value]) -> Vec<BTreeSet<String>> {
    let mut alive = BTreeSet::new();
    let mut out = Vec::new();
    for s in steps {
        for t in s["memory"]["removed"].as_array().unwrap() {
            alive.remove(&triplet_text(t));
        }
        for t in s["memory"]["added"].as_array().unwrap() {
            alive.insert(triplet_text(t));
        }
        out.push(alive.clone());
    }
    out
}

fn texts(list: &Value) -> BTreeSet<String> {
    list.as_array().unwrap().iter().map(triplet_text).collect()
}

/// Play `steps` steps of the simple game with the scripted server; the run directory
/// and its step lines.
fn scripted_run(work: &Path, steps: u32) -> (std::path::PathBuf, Vec<Value>) {
    let server = Scripted::start(WALK);
    let out = play(
        work,
        &server.base_url,
        &[
            &game("simple.z8"),
            "--max-steps",
            &steps.to_string(),
            "--quiet",
            // Scripted embeddings carry no meaning: no similarity cut-off, so the
            // page has retrieved facts to show.
            "--cutoff",
            "0",
            common::ARIADNE_EXTRACTION[0],
            common::ARIADNE_EXTRACTION[1],
            common::ARIADNE_EXTRACTION[2],
            common::ARIADNE_EXTRACTION[3],
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = run_dir(work);
    let lines = read_jsonl(&dir.join("steps.jsonl"));
    (dir, lines)
}

#[test]
fn the_page_of_a_scripted_run_shows_the_graph_at_step_n_in_chromium() {
    let browser = chromium();
    let work = tempfile::tempdir().unwrap();
    let (dir, steps) = scripted_run(work.path(), 9);
    let alive = alive_sets(&steps);
    // The step to look at: the first that removed a triplet (an outdated fact).
    let n = steps
        .iter()
        .position(|s| !s["memory"]["removed"].as_array().unwrap().is_empty())
        .expect("the scripted run removes an outdated triplet");
    let step = &steps[n];
    let number = step["step"].as_u64().unwrap();
    assert!(
        number >= 2 && (number as usize) < steps.len(),
        "step {number}"
    );

    let page = work.path().join("page.html");
    let said = view(&dir, &page);
    assert!(
        said.contains("wrote") && said.contains("page.html"),
        "{said}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing is loaded from anywhere.
    for remote in ["src=\"http", "href=\"http", "<link", "import(", "fetch("] {
        assert!(!html.contains(remote), "the page loads something: {remote}");
    }

    let dom = dump_dom(&page, &format!("#step={number}"));
    // Where the time goes: a row per call kind, from the summary's `call_kinds`.
    assert!(
        dom.contains("<summary>where the time goes</summary>")
            && dom.contains("<td>extract_triplets</td><td>9</td>"),
        "{}",
        &dom[dom.find("run-info").unwrap_or(0)..][..2000.min(dom.len())]
    );
    assert_eq!(
        attr(&dom, "<body", "data-step").as_deref(),
        Some(&*number.to_string())
    );
    let edges = drawn_edges(&dom);
    let shown_alive = with_state(&edges, "alive");
    let recorded = step["graph"]["semantic_edges"].as_u64().unwrap() as usize;
    assert_eq!(
        shown_alive.len(),
        recorded,
        "alive triplets drawn at step {number}: {edges:?}"
    );
    assert_eq!(
        attr(&dom, "<ul id=\"graph-edges\"", "data-alive").as_deref(),
        Some(&*recorded.to_string())
    );
    assert_eq!(shown_alive, alive[n], "the graph at step {number}");
    assert_eq!(with_state(&edges, "added"), texts(&step["memory"]["added"]));
    assert_eq!(
        with_state(&edges, "removed"),
        texts(&step["memory"]["removed"])
    );
    assert!(!with_state(&edges, "removed").is_empty());
    let retrieved: BTreeSet<String> = step["retrieval"]["triplets"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["triplet"].as_str().map(String::from))
        .filter(|t| alive[n].contains(t))
        .collect();
    assert_eq!(with_state(&edges, "retrieved"), retrieved);
    assert!(!retrieved.is_empty(), "step {number} retrieved nothing");
    // A few labels by name, and the step panel and charts are there.
    let labels: Vec<&String> = shown_alive.iter().take(3).collect();
    println!(
        "step {number}: {} alive, e.g. {labels:?}",
        shown_alive.len()
    );
    for l in labels {
        assert!(dom.contains(&html_text(l)), "{l}");
    }
    let action = step["action"].as_str().unwrap();
    assert!(
        dom.contains(&html_text(action)),
        "the step panel shows the action"
    );
    for chart in ["score", "graph", "tokens", "seconds"] {
        assert!(
            dom.contains(&format!("data-chart=\"{chart}\"")),
            "chart {chart}"
        );
    }
    // TextWorld runs record the world model against the game's true state.
    assert!(
        dom.contains("data-chart=\"world-model\""),
        "the precision/recall chart of a run with ground truth"
    );
    // The address can also show the episodic vertices and open a vertex's box.
    let vertex = shown_alive
        .iter()
        .next()
        .and_then(|t| t.split(", ").next())
        .unwrap()
        .to_string();
    let fragment = format!(
        "#step={number}&episodes=1&vertex={}",
        vertex.replace(' ', "%20")
    );
    let dom = dump_dom(&page, &fragment);
    assert_eq!(
        attr(&dom, "<ul id=\"graph-edges\"", "data-episodes"),
        Some(step["graph"]["episodic_vertices"].to_string()),
        "episodic vertices drawn at step {number}"
    );
    let boxed = dom
        .split("<div id=\"vertex-info\"")
        .nth(1)
        .and_then(|d| d.split("<ul id=\"graph-edges\"").next())
        .unwrap();
    assert!(
        !boxed.starts_with(" hidden"),
        "the vertex box is open: {boxed:.300}"
    );
    assert!(
        boxed.contains(&format!("<h3>{}</h3>", html_text(&vertex))),
        "{boxed:.500}"
    );
    assert!(boxed.contains("mentioned at steps"), "{boxed:.500}");
    // Another step moves the picture: the first step has fewer triplets.
    let first = dump_dom(&page, "#step=1");
    assert_eq!(with_state(&drawn_edges(&first), "alive"), alive[0]);

    // A screenshot at step N is not blank, in the graph pane too.
    let shot = work.path().join("shot.png");
    headless(
        &page,
        &format!("#step={number}"),
        &[
            &format!("--screenshot={}", shot.display()),
            "--virtual-time-budget=5000",
        ],
    );
    let (w, h, rgb) = decode_png(&shot);
    assert_eq!((w, h), (1400, 900), "{}", browser.display());
    let whole = variance(&rgb, w, (0, 0, w, h));
    let graph = variance(&rgb, w, (20, 150, w / 2, h - 250));
    println!("screenshot variance: whole page {whole:.0}, graph pane {graph:.0}");
    assert!(whole > 100.0, "the screenshot is blank ({whole})");
    assert!(graph > 20.0, "the graph pane is blank ({graph})");
}

#[test]
fn keys_the_slider_and_the_address_move_the_page_and_redraw_the_graph() {
    chromium();
    let work = tempfile::tempdir().unwrap();
    let (dir, steps) = scripted_run(work.path(), 9);
    let alive = alive_sets(&steps);
    let last = steps.len();
    let page = work.path().join("page.html");
    view(&dir, &page);
    let mut cdp = Cdp::open(&format!("file://{}#step=5", page.display()));
    let check = |cdp: &mut Cdp, n: usize, how: &str| {
        let dom = cdp.dom();
        assert_eq!(
            attr(&dom, "<body", "data-step"),
            Some(n.to_string()),
            "{how}"
        );
        let edges = drawn_edges(&dom);
        let step = &steps[n - 1];
        assert_eq!(
            with_state(&edges, "alive"),
            alive[n - 1],
            "{how}: graph at step {n}"
        );
        assert_eq!(
            with_state(&edges, "added"),
            texts(&step["memory"]["added"]),
            "{how}: added at step {n}"
        );
        assert_eq!(
            with_state(&edges, "removed"),
            texts(&step["memory"]["removed"]),
            "{how}: removed at step {n}"
        );
        assert!(
            dom.contains(&format!("<h2>Step {n} ")),
            "{how}: the step panel"
        );
    };
    check(&mut cdp, 5, "opened at #step=5");
    let mut n = 5;
    for key in [
        "ArrowLeft",
        "ArrowLeft",
        "End",
        "Home",
        "ArrowRight",
        "PageDown",
        "PageUp",
    ] {
        n = match key {
            "ArrowLeft" => n - 1,
            "ArrowRight" => n + 1,
            "End" => last,
            "Home" => 1,
            "PageDown" => (n + 10).min(last),
            _ => n.saturating_sub(10).max(1),
        };
        cdp.key(key);
        check(&mut cdp, n, key);
        assert_eq!(
            cdp.eval("location.hash"),
            json!(format!("#step={n}")),
            "{key}"
        );
    }
    // The address moves the page (a hashchange), and so does the slider.
    cdp.eval("location.hash = '#step=6'");
    cdp.wait_for("document.body.dataset.step === '6'");
    check(&mut cdp, 6, "#step=6");
    cdp.eval(
        "(() => { const s = document.getElementById('slider'); s.value = '2'; \
         s.dispatchEvent(new Event('input')); })()",
    );
    check(&mut cdp, 3, "slider");
    // Episodic vertices on demand: one per step so far that made one.
    cdp.eval("document.getElementById('show-episodes').click()");
    let dom = cdp.dom();
    assert_eq!(
        attr(&dom, "<ul id=\"graph-edges\"", "data-episodes"),
        Some(steps[2]["graph"]["episodic_vertices"].to_string())
    );
    assert!(dom.contains("episodes=1"), "the address keeps it");
}

#[test]
fn pages_of_a_continued_run_and_of_a_design_without_a_graph() {
    chromium();
    let work = tempfile::tempdir().unwrap();
    // A run continued from step 2 by the live LLM: its page shows the parent and the
    // graph as rebuilt over the copied and the new steps.
    let first = Scripted::start(WALK);
    let out = play(
        work.path(),
        &first.base_url,
        &[&game("simple.z8"), "--max-steps", "3", "--quiet"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parent = run_dir(work.path());
    let live = Scripted::start(&WALK[2..]);
    let out = Command::new(bin())
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", &live.base_url)
        .env("ARIADNE_EMBED_BASE_URL", &live.base_url)
        .args(["replay", parent.to_str().unwrap(), "--continue-from", "2"])
        .args(["--max-steps", "5", "--quiet"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let continued = std::fs::read_dir(work.path().join("runs"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.is_dir() && *p != parent)
        .expect("the continued run");
    let steps = read_jsonl(&continued.join("steps.jsonl"));
    let page = work.path().join("continued.html");
    view(&continued, &page);
    for (i, s) in steps.iter().enumerate() {
        let n = s["step"].as_u64().unwrap();
        let dom = dump_dom(&page, &format!("#step={n}"));
        assert_eq!(
            attr(&dom, "<ul id=\"graph-edges\"", "data-alive"),
            Some(s["graph"]["semantic_edges"].to_string()),
            "step {n}"
        );
        assert_eq!(
            with_state(&drawn_edges(&dom), "alive"),
            alive_sets(&steps)[i]
        );
        if i + 1 == steps.len() {
            assert!(dom.contains("continued from"), "the parent is named");
        }
    }

    // RAG keeps no graph: the page says so, and still shows each step.
    let rag = tempfile::tempdir().unwrap();
    let server = Scripted::start(WALK);
    let out = play(
        rag.path(),
        &server.base_url,
        &[
            &game("simple.z8"),
            "--max-steps",
            "3",
            "--memory",
            "rag",
            "--quiet",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = run_dir(rag.path());
    // A run that records the world model's precision and recall gets their chart.
    let path = dir.join("steps.jsonl");
    let lines: Vec<String> = read_jsonl(&path)
        .into_iter()
        .map(|mut s| {
            s["world_model"] = json!({"precision": 0.8, "recall": 0.4});
            s.to_string()
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let page = rag.path().join("rag.html");
    view(&dir, &page);
    let dom = dump_dom(&page, "#step=2");
    assert!(
        dom.contains("data-chart=\"world-model\""),
        "the world-model chart"
    );
    assert!(dom.contains("keeps no knowledge graph"), "{dom:.3000}");
    assert!(drawn_edges(&dom).is_empty());
    let step2 = &read_jsonl(&dir.join("steps.jsonl"))[1];
    assert!(dom.contains(&html_text(step2["action"].as_str().unwrap())));
    assert!(dom.contains("data-chart=\"tokens\""));
}

#[test]
fn the_page_of_a_150_step_run_with_1000_triplets_is_small_and_opens_fast() {
    chromium();
    let work = tempfile::tempdir().unwrap();
    let dir = synthetic_run(&work.path().join("runs"), 150, 1000);
    let page = work.path().join("big.html");
    let t0 = Instant::now();
    let said = view(&dir, &page);
    let write_s = t0.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&page).unwrap().len();
    println!("{said}");
    assert!(bytes < 5_000_000, "the page is {bytes} bytes");

    // Chromium's own start-up, measured on an empty page, is not the page's.
    let empty = work.path().join("empty.html");
    std::fs::write(
        &empty,
        "<!DOCTYPE html><title>empty</title><ul id=\"graph-edges\"></ul>",
    )
    .unwrap();
    let t0 = Instant::now();
    dump_dom(&empty, "");
    let empty_s = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let out = headless(&page, "#step=150", &["--dump-dom"]);
    let wall_s = t0.elapsed().as_secs_f64();
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let ready = attr(&dom, "<body", "data-ready-ms").expect("the page finished its script");
    println!(
        "big run page: {:.2} MB, written in {write_s:.2} s; in headless Chromium its script was ready \
         {ready} ms after navigation started; Chromium took {wall_s:.2} s in all ({empty_s:.2} s for an empty page)",
        bytes as f64 / 1e6
    );
    assert_eq!(attr(&dom, "<body", "data-step").as_deref(), Some("150"));
    let edges = drawn_edges(&dom);
    assert_eq!(with_state(&edges, "alive").len(), 1000);
    assert_eq!(with_state(&edges, "added").len(), 8);
    assert_eq!(
        attr(&dom, "<ul id=\"graph-edges\"", "data-alive").as_deref(),
        Some("1000")
    );

    // Moving one step redraws only what changed.
    let mut cdp = Cdp::open(&format!("file://{}#step=150", page.display()));
    let mut moves = Vec::new();
    for key in ["ArrowLeft", "ArrowLeft", "ArrowRight", "Home", "End"] {
        let t0 = Instant::now();
        cdp.key(key);
        moves.push(format!(
            "{key} {:.0} ms",
            t0.elapsed().as_secs_f64() * 1000.0
        ));
    }
    println!(
        "big run page, one key press each (round trip): {}",
        moves.join(", ")
    );
    let dom = cdp.dom();
    assert_eq!(attr(&dom, "<body", "data-step").as_deref(), Some("150"));
    assert_eq!(with_state(&drawn_edges(&dom), "alive").len(), 1000);
}
