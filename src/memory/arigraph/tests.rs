//! Tests of the AriGraph memory's update with a scripted backend.

use std::sync::Arc;

use super::*;
use crate::llm::prompts::Prompts;
use crate::llm::scripted::Scripted;

fn observed(step: u32) -> Observed<'static> {
    Observed {
        step,
        observation: "-= Bedroom =- There is an antique trunk here.",
        inventory: "",
        room: "Bedroom",
        action: "",
        goal: "",
        facts: None,
    }
}

fn extraction(triplets: &[(&str, &str, &str)]) -> String {
    let t: Vec<Value> = triplets
        .iter()
        .map(|(s, r, o)| json!({"subject": s, "relation": r, "object": o}))
        .collect();
    json!({ "triplets": t }).to_string()
}

async fn two_steps(
    first: &[(&str, &str, &str)],
    second: &[(&str, &str, &str)],
    verdict: &str,
) -> (AriGraphMemory, UpdateReport, Arc<Scripted>) {
    two_steps_with(MemorySettings::default(), first, second, verdict).await
}

async fn two_steps_with(
    settings: MemorySettings,
    first: &[(&str, &str, &str)],
    second: &[(&str, &str, &str)],
    verdict: &str,
) -> (AriGraphMemory, UpdateReport, Arc<Scripted>) {
    let script = Arc::new(
        Scripted::default()
            .answer(
                "extract_triplets",
                &[&extraction(first), &extraction(second)],
            )
            .answer("outdated", &[verdict]),
    );
    let llm = Llm {
        backend: script.clone(),
        prompts: Prompts::load(None).expect("prompts"),
    };
    let mut memory = AriGraphMemory::new(settings);
    let mut log = CallLog::default();
    memory
        .update_graph(&llm, &mut log, &observed(1))
        .await
        .expect("step 1");
    let report = memory
        .update_graph(&llm, &mut log, &observed(2))
        .await
        .expect("step 2");
    (memory, report, script)
}

/// A verdict that retires a fact of another kind is refused and counted (rules 2); from
/// rules 3 such a fact is not even asked about, and no outdated call is made.
#[tokio::test]
async fn a_verdict_across_relation_kinds_is_rejected() {
    let rules2 = MemorySettings {
        rules: 2,
        ..MemorySettings::default()
    };
    let (memory, report, _) = two_steps_with(
        rules2,
        &[("antique trunk", "is in", "bedroom")],
        &[("antique trunk", "is", "open")],
        r#"{"outdated": [1]}"#,
    )
    .await;
    assert_eq!(report.checked, 1);
    assert!(report.removed.is_empty());
    assert_eq!(report.rejected_verdicts, 1);
    let kept = Triplet::new("antique trunk", "is in", "bedroom").unwrap();
    assert!(memory.graph.find(&kept).is_some());

    let (memory, report, script) = two_steps(
        &[("antique trunk", "is in", "bedroom")],
        &[("antique trunk", "is", "open")],
        r#"{"outdated": [1]}"#,
    )
    .await;
    assert_eq!(report.checked, 0);
    assert_eq!(report.rejected_verdicts, 0);
    assert!(script.requests().iter().all(|r| r.purpose != "outdated"));
    assert!(memory.graph.find(&kept).is_some());
}

/// Rules 3: the extractor is asked for compact triplets (arrays of three strings) and
/// its answers are read in both forms.
#[tokio::test]
async fn compact_triplets_are_asked_for_and_read() {
    let script = Arc::new(Scripted::default().answer(
        "extract_triplets",
        &[
            r#"{"triplets":[["antique trunk","is in","bedroom"],["antique trunk","is","closed"]]}"#,
            r#"{"triplets":[{"subject":"old key","relation":"is in","object":"antique trunk"}]}"#,
        ],
    ));
    let llm = Llm {
        backend: script.clone(),
        prompts: Prompts::load(None).expect("prompts"),
    };
    let mut memory = AriGraphMemory::new(MemorySettings::default());
    let mut log = CallLog::default();
    let first = memory
        .update_graph(&llm, &mut log, &observed(1))
        .await
        .expect("step 1");
    let second = memory
        .update_graph(&llm, &mut log, &observed(2))
        .await
        .expect("step 2");
    assert_eq!(first.extracted.len(), 2);
    assert_eq!(
        second.extracted,
        vec![Triplet::new("old key", "is in", "antique trunk").unwrap()]
    );
    let request = &script.requests()[0];
    assert!(
        request.messages[0]
            .content
            .contains(r#"["fridge","is in","kitchen"]"#)
    );
    let schema = request.schema.as_ref().expect("schema").1.to_string();
    assert!(schema.contains(r#""minItems":3"#), "{schema}");
}

/// Surface forms of one entity meet in one vertex, so the old state is offered to
/// the outdated check and retired.
#[tokio::test]
async fn another_spelling_of_an_entity_reaches_its_old_facts() {
    let (memory, report, script) = two_steps(
        &[("Antique Trunk", "is", "closed")],
        &[("the antique trunk", "is", "open")],
        r#"{"outdated": [1]}"#,
    )
    .await;
    let outdated: Vec<String> = script
        .requests()
        .iter()
        .filter(|r| r.purpose == "outdated")
        .map(|r| r.messages[1].content.clone())
        .collect();
    assert_eq!(outdated.len(), 1);
    assert!(
        outdated[0].contains("antique trunk, is, closed"),
        "{outdated:?}"
    );
    assert_eq!(
        report.removed,
        vec![Triplet::new("antique trunk", "is", "closed").unwrap()]
    );
    assert_eq!(memory.graph.vertex_count(), 2);
}

/// The paper's scope (the default): a new fact about the broom may retire where the
/// kitchen said it was, though the broom is the old fact's object.
#[tokio::test]
async fn the_incident_scope_offers_facts_that_end_in_the_vertex() {
    let (_, report, _) = two_steps(
        &[("kitchen", "contains", "broom")],
        &[("broom", "is in", "inventory")],
        r#"{"outdated": [1]}"#,
    )
    .await;
    assert_eq!(report.checked, 1);
    assert_eq!(
        report.removed,
        vec![Triplet::new("kitchen", "contains", "broom").unwrap()]
    );
}

/// The extractor is shown what is known about the things in view.
#[tokio::test]
async fn the_extractor_sees_known_facts_about_things_in_view() {
    let (_, _, script) = two_steps(&[("antique trunk", "is in", "bedroom")], &[], "{}").await;
    let prompts: Vec<String> = script
        .requests()
        .iter()
        .filter(|r| r.purpose == "extract_triplets")
        .map(|r| r.messages[1].content.clone())
        .collect();
    assert!(!prompts[0].contains("Facts already known"));
    assert!(
        prompts[1].contains("Facts already known")
            && prompts[1].contains("- antique trunk, is in, bedroom"),
        "{}",
        prompts[1]
    );
    let system = &script.requests()[0].messages[0].content;
    assert!(system.contains("a note, a recipe or a book"));
}
