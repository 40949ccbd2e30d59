//! End-to-end tests of `ariadne view` in a real browser: the page of a scripted run is
//! loaded in headless Chromium at `#step=N`, and the rendered DOM must show the
//! triplets alive at step N with the step's additions and removals highlighted; a
//! screenshot must not be blank; a synthetic 150-step run with 1,000 triplets must
//! give a page under 5 MB (its opening time is measured and printed). Chromium is
//! required: without it these tests fail and say how to install it.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use ariadne::agent::SubGoal;
use ariadne::llm::{CallRecord, EmbedKind, EmbedRecord, Message, Usage};
use ariadne::memory::{MemorySettings, Retrieval, RetrievedTriplet, Triplet, UpdateReport};
use ariadne::trajectory::{
    ActionSource, GameInfo, GraphStats, Manifest, Outcome, RunWriter, StepRecord, Summary, Timings,
    Versions,
};
use common::{Scripted, bin, game, play, read_jsonl, run_dir, triplet_text};
use serde_json::{Value, json};

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

/// The Chromium binary: `ARIADNE_CHROMIUM`, else the first of the usual names on PATH.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("ARIADNE_CHROMIUM") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!(
        "headless Chromium is required by the viewer tests and none was found on PATH \
         (chromium, chromium-browser, google-chrome) or in ARIADNE_CHROMIUM; \
         install it with `apt-get install chromium` (.ci/run does)"
    );
}

/// Run headless Chromium on `page` at `fragment` with `extra` flags.
fn headless(page: &Path, fragment: &str, extra: &[&str]) -> Output {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}{fragment}", page.display());
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--mute-audio",
            "--window-size=1400,900",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The DOM of `page` at `fragment` after its scripts ran.
fn dump_dom(page: &Path, fragment: &str) -> String {
    let out = headless(
        page,
        fragment,
        &["--dump-dom", "--virtual-time-budget=5000"],
    );
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        dom.contains("id=\"graph-edges\""),
        "no page in the DOM dump: {dom:.2000}"
    );
    dom
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The value of attribute `name` in the first tag that starts with `tag_start`.
fn attr(dom: &str, tag_start: &str, name: &str) -> Option<String> {
    let start = dom.find(tag_start)?;
    let tag = &dom[start..start + dom[start..].find('>')?];
    let key = format!(" {name}=\"");
    let from = tag.find(&key)? + key.len();
    let len = tag[from..].find('"')?;
    Some(unescape(&tag[from..from + len]))
}

/// The edges the graph draws, from the page's hidden list: (state, triplet text).
fn drawn_edges(dom: &str) -> Vec<(String, String)> {
    let Some(start) = dom.find("<ul id=\"graph-edges\"") else {
        return Vec::new();
    };
    let end = start + dom[start..].find("</ul>").unwrap_or(0);
    let list = &dom[start..end];
    let mut out = Vec::new();
    let mut rest = list;
    while let Some(i) = rest.find("<li ") {
        let li = &rest[i..];
        let close = li.find('>').unwrap();
        let tag = &li[..close];
        let state = tag
            .split("data-state=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or("")
            .to_string();
        let text_end = li.find("</li>").unwrap();
        out.push((state, unescape(&li[close + 1..text_end])));
        rest = &li[text_end..];
    }
    out
}

fn with_state(edges: &[(String, String)], state: &str) -> BTreeSet<String> {
    edges
        .iter()
        .filter(|(s, _)| s.split(' ').any(|w| w == state))
        .map(|(_, t)| t.clone())
        .collect()
}

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

#[test]
fn the_page_of_a_scripted_run_shows_the_graph_at_step_n_in_chromium() {
    let browser = chromium();
    let work = tempfile::tempdir().unwrap();
    let server = Scripted::start(WALK);
    let out = play(
        work.path(),
        &server.base_url,
        &[&game("simple.z8"), "--max-steps", "9", "--quiet"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = run_dir(work.path());
    let steps = read_jsonl(&dir.join("steps.jsonl"));
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
        assert!(dom.contains(&common_escape(l)), "{l}");
    }
    let action = step["action"].as_str().unwrap();
    assert!(
        dom.contains(&common_escape(action)),
        "the step panel shows the action"
    );
    for chart in ["score", "graph", "tokens", "seconds"] {
        assert!(
            dom.contains(&format!("data-chart=\"{chart}\"")),
            "chart {chart}"
        );
    }
    assert!(
        !dom.contains("data-chart=\"world-model\""),
        "no ground truth recorded"
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
        boxed.contains(&format!("<h3>{}</h3>", common_escape(&vertex))),
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
    assert!(dom.contains(&common_escape(step2["action"].as_str().unwrap())));
    assert!(dom.contains("data-chart=\"tokens\""));
}

/// Text as the DOM serializer writes it inside an element.
fn common_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Width, height and RGB bytes of a PNG.
fn decode_png(path: &Path) -> (usize, usize, Vec<u8>) {
    let file = std::fs::File::open(path).expect("the screenshot was written");
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb: Vec<u8> = buf[..info.buffer_size()]
        .chunks(channels)
        .flat_map(|p| [p[0], p[1 % channels], p[2 % channels]])
        .collect();
    (info.width as usize, info.height as usize, rgb)
}

/// Variance of the grey level over a rectangle (x, y, width, height).
fn variance(rgb: &[u8], w: usize, (x0, y0, rw, rh): (usize, usize, usize, usize)) -> f64 {
    let mut sum = 0.0;
    let mut sq = 0.0;
    let mut n = 0.0;
    for y in y0..y0 + rh {
        for x in x0..x0 + rw {
            let i = (y * w + x) * 3;
            let g = (f64::from(rgb[i]) + f64::from(rgb[i + 1]) + f64::from(rgb[i + 2])) / 3.0;
            sum += g;
            sq += g * g;
            n += 1.0;
        }
    }
    let mean = sum / n;
    sq / n - mean * mean
}

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
fn synthetic_run(runs: &Path, steps: u32, alive: usize) -> PathBuf {
    let manifest = Manifest {
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
                answer: prose(step as usize * 10 + i + 5, 300),
                usage: Usage {
                    prompt_tokens: [1000, 600, 1300, 1300][i],
                    completion_tokens: 80,
                    cached_tokens: 300,
                },
                latency_ms: 2000 + rng.below(8000) as u64,
                error: None,
            })
            .collect();
        let mut usage = Usage::default();
        for c in &calls {
            usage.add(c.usage);
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
            },
            retrieval: Retrieval {
                queries: vec![prose(step as usize, 600), "find the treasure".into()],
                triplets: retrieved,
                episodes: Vec::new(),
                notes: Vec::new(),
            },
            what_if: None,
            unexplored_exits: Vec::new(),
            go_to_targets: vec!["place 1".into()],
            plan: vec![SubGoal {
                sub_goal: "find the key".into(),
                reason: "it opens the locker".into(),
            }],
            warnings: Vec::new(),
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
                usage: Usage::default(),
                latency_ms: 30,
            }],
            vectors: Vec::new(),
            llm_failures: 0,
            llm_repairs: 0,
            usage,
            graph: GraphStats {
                semantic_vertices: vertices.len(),
                semantic_edges: graph.len(),
                episodic_vertices: step as usize,
            },
            timings: Timings {
                total_ms: 30_000,
                llm_ms: 28_000,
                env_ms: 10,
                agent_ms: 5,
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
}
