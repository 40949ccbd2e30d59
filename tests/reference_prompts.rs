//! The `paper` profile's LLM calls are the reference's: for each call (and, for the
//! planning and action calls, each memory design's pipeline), the prompt Ariadne renders
//! carries every line of the reference's prompt, in the reference's order, and no line
//! that is neither the reference's nor a named form change.
//!
//! The fixture `tests/fixtures/reference_prompts.json` lists, per call, each line of the
//! reference's prompt with its file and line at the reference's commit (generated from a
//! checkout of AIRI-Institute/AriGraph by `scripts/reference_prompts.py`), and the form
//! changes with their reasons. Data the reference formats into a prompt is written `{}`
//! there; the test renders every variable as `{}` (a list as `['{}']`, which is what the
//! reference's `str(list)` makes of it) so that the two meet.

use std::path::PathBuf;

use ariadne::llm::prompts::Prompts;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize)]
struct Fixture {
    commit: String,
    calls: Vec<Call>,
}

#[derive(Deserialize)]
struct Call {
    call: String,
    template: String,
    design: String,
    source: String,
    /// `[file:line, text]` per line of the reference's prompt.
    lines: Vec<(String, String)>,
    /// `[text, reason]` per form change.
    form: Vec<(String, String)>,
    /// The whole user message the reference builds for this call, every variable a
    /// `{}` (lists `['{}']`), where the fixture has it: compared character for
    /// character, blank lines and spaces included.
    #[serde(default)]
    user: Option<String>,
    /// The reference's system prompt for this call, whole (absent where the reference
    /// runs no such call).
    #[serde(default)]
    system: Option<String>,
}

fn fixture() -> Fixture {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference_prompts.json");
    let text = std::fs::read_to_string(&path).expect("the fixture");
    serde_json::from_str(&text).expect("the fixture is JSON")
}

/// Every variable of the reference templates, as `{}`; the layout as the design's memory
/// names it (`memory::layout::Layout`: RAG's is `ranked`).
fn context(design: &str) -> Value {
    let marker = "{}";
    let layout = match design {
        "full-history" | "summary" => design,
        "rag" => "ranked",
        _ => "graph",
    };
    json!({
        "layout": layout,
        "graph": design == "arigraph",
        "past_relevant": design == "rag",
        "goal": marker, "history_len": marker, "recent": marker, "past": [marker],
        "current": marker, "summary": marker, "facts": [marker], "episodes_k": marker,
        "episodes": [marker], "plan_json": marker, "explore": true, "exits": marker,
        "free_text": false, "admissible": [marker], "shortcuts": [],
        "observation": marker, "inventory": marker, "step": marker,
        "example": [marker], "old": [marker], "new": [marker],
        "thesis": false, "entities": false, "passage": false, "as_reference": true,
        "for_reflex": marker, "memory": marker, "plan": marker,
        "question": marker, "texts": [marker], "theses": [], "paths": [], "changes": [],
    })
}

/// The rendered prompt (system, then user) as trimmed non-empty lines, with the
/// reference's own formatting of data folded into `{}`.
fn rendered_lines(prompts: &Prompts, call: &Call) -> Vec<String> {
    let messages = prompts
        .render(&call.template, context(&call.design))
        .unwrap_or_else(|e| panic!("{}: {e:#}", call.template));
    let text = messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n")
        .replace("['{}']", "{}")
        .replace("Game step #{}\n{}", "{}");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// Where the fixture has the reference's whole user message, the rendered one is the
/// same text (leading and trailing whitespace aside): the layout, not only the lines.
#[test]
fn the_working_memory_is_laid_out_character_for_character() {
    let fixture = fixture();
    let prompts = Prompts::load(None).expect("prompts");
    let mut checked = 0;
    for call in &fixture.calls {
        let Some(want) = &call.user else { continue };
        let messages = prompts
            .render(&call.template, context(&call.design))
            .expect("render");
        let got = messages[1].content.trim();
        assert_eq!(
            got,
            want.trim(),
            "{} ({}): the user message differs from the reference's",
            call.call,
            call.design
        );
        checked += 1;
    }
    assert_eq!(
        checked, 9,
        "plan and action for four designs, and the QA answer"
    );
}

/// The system message of each call is the reference's system prompt for it, whole.
#[test]
fn every_system_prompt_is_the_references() {
    let fixture = fixture();
    let prompts = Prompts::load(None).expect("prompts");
    let mut checked = 0;
    for call in &fixture.calls {
        let Some(want) = &call.system else { continue };
        let messages = prompts
            .render(&call.template, context(&call.design))
            .expect("render");
        assert_eq!(
            messages[0].content.trim(),
            want.trim(),
            "{} ({}): the system message differs from the reference's",
            call.call,
            call.design
        );
        checked += 1;
    }
    assert!(checked >= 14, "{checked}");
}

/// Each reference line is in the rendered prompt, in order; each rendered line is a
/// reference line or a named form change.
#[test]
fn every_paper_prompt_is_the_references_line_for_line() {
    let fixture = fixture();
    assert_eq!(fixture.commit, "e884b76");
    let prompts = Prompts::load(None).expect("prompts");
    let mut failures = Vec::new();
    for call in &fixture.calls {
        let name = format!("{} ({}; {})", call.call, call.design, call.source);
        let got = rendered_lines(&prompts, call);
        // In order: each reference line after the previous one's place.
        let mut at = 0;
        for (place, line) in &call.lines {
            match got[at..].iter().position(|g| g == line) {
                Some(i) => at += i + 1,
                None => failures.push(format!(
                    "{name}: the reference's line {place} is missing (or out of order): {line:?}"
                )),
            }
        }
        for line in &got {
            let known = call.lines.iter().any(|(_, l)| l == line)
                || call.form.iter().any(|(l, _)| l == line);
            if !known {
                failures.push(format!(
                    "{name}: a line the reference's prompt does not have and no form change names: {line:?}"
                ));
            }
        }
        for (line, reason) in &call.form {
            assert!(
                !reason.trim().is_empty(),
                "{name}: form change without a reason"
            );
            assert!(
                got.contains(line),
                "{name}: the named form change is not in the prompt: {line:?}"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every call the `paper` profile makes to play a game has an entry, and every
/// design the reference has a pipeline for has its planning and action entries.
#[test]
fn every_call_of_the_paper_profile_is_in_the_fixture() {
    let fixture = fixture();
    let has = |call: &str, design: &str| {
        fixture
            .calls
            .iter()
            .any(|c| c.call == call && c.design == design)
    };
    for call in ["extract_triplets", "outdated", "key_items", "explore"] {
        assert!(has(call, "arigraph"), "{call}");
    }
    assert!(has("summary", "summary"));
    assert!(has("importance", "rag"));
    assert!(has("lesson", "reflexion"));
    // Question answering (`ariadne qa`): the key items and the answer.
    assert!(has("qa_key_items", "arigraph") && has("qa_answer", "arigraph"));
    for design in ["arigraph", "full-history", "summary", "rag"] {
        assert!(has("plan", design) && has("action", design), "{design}");
    }
}
