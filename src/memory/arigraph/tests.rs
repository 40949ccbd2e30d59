//! Tests of the AriGraph memory's update with a scripted backend.

use std::sync::Arc;

use super::*;
use crate::llm::prompts::Prompts;
use crate::llm::scripted::Scripted;
use crate::memory::bridge_discovery::BridgeRecord;
use crate::memory::{PersonalAiForm, Strategy, ThesisId, Triplet};
use serde_json::{Value, json};

fn observed(step: u32) -> Observed<'static> {
    Observed {
        step,
        observation: "-= Bedroom =- There is an antique trunk here.",
        inventory: "",
        room: "Bedroom",
        action: "",
        goal: "",
        passage: false,
        facts: None,
        recent: "",
        plan: "",
    }
}

/// A verdict in both forms (numbered, and the reference's replacement pairs of memory
/// rules 7): the trunk is open now, not closed.
const CLOSED_BY_OPEN: &str =
    r#"{"outdated": [1], "replacing": [["antique trunk, is, closed", "antique trunk, is, open"]]}"#;

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
    two_steps_with(guarded(), first, second, verdict).await
}

/// The memory settings of the extended profile (the verdict guard on).
fn guarded() -> MemorySettings {
    MemorySettings {
        verdict_guard: Some(true),
        ..MemorySettings::default()
    }
}

async fn two_steps_with(
    settings: MemorySettings,
    first: &[(&str, &str, &str)],
    second: &[(&str, &str, &str)],
    verdict: &str,
) -> (AriGraphMemory, UpdateReport, Arc<Scripted>) {
    two_steps_in(settings, first, second, "Bedroom", verdict).await
}

/// Two updates under `settings` (step 1 in the bedroom, step 2 in `room`) extracting
/// `first` then `second`, with `verdict` as the outdated check's answer; the memory,
/// the second report and the script.
pub(super) async fn two_steps_in(
    settings: MemorySettings,
    first: &[(&str, &str, &str)],
    second: &[(&str, &str, &str)],
    room: &str,
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
        .update_graph(
            &llm,
            &mut log,
            &Observed {
                room,
                ..observed(2)
            },
        )
        .await
        .expect("step 2");
    (memory, report, script)
}

/// A verdict that retires a fact of another kind is refused and counted (rules 2); from
/// rules 3 such a fact is not even asked about, and no outdated call is made.
#[tokio::test]
async fn a_verdict_across_relation_kinds_is_rejected() {
    // A run recorded before profiles: its memory-rules version decides the guard.
    let rules2 = MemorySettings {
        rules: crate::memory::MemoryRevision::V2,
        verdict_guard: None,
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

/// The two verdicts the relation-kind guard (memory rules 2 to 5) let through and the
/// functional guard (rules 6) refuses: another thing's location through a shared vertex,
/// and a state that is not the opposite. Under rules 6 the old fact is not even asked
/// about.
#[tokio::test]
async fn the_functional_guard_keeps_what_the_kind_guard_lost() {
    let cases = [
        (
            ("antique trunk", "is in", "bedroom"),
            ("old key", "is in", "antique trunk"),
        ),
        (
            ("wooden door", "is", "closed"),
            ("wooden door", "is", "unlocked"),
        ),
    ];
    for (old, new) in cases {
        let kept = Triplet::new(old.0, old.1, old.2).unwrap();
        let rules5 = MemorySettings {
            rules: crate::memory::MemoryRevision::V5,
            ..guarded()
        };
        let (memory, report, _) =
            two_steps_with(rules5, &[old], &[new], r#"{"outdated": [1]}"#).await;
        assert_eq!(report.removed, vec![kept.clone()], "{old:?} by {new:?}");
        assert!(memory.graph.find(&kept).is_none());

        let (memory, report, script) = two_steps(&[old], &[new], r#"{"outdated": [1]}"#).await;
        assert_eq!(report.checked, 0, "{old:?} by {new:?}");
        assert!(report.removed.is_empty());
        assert!(script.requests().iter().all(|r| r.purpose != "outdated"));
        assert!(memory.graph.find(&kept).is_some());
    }
    // What it may retire it still retires: the trunk is open now, not closed.
    let (_, report, _) = two_steps(
        &[("antique trunk", "is", "closed")],
        &[("antique trunk", "is", "open")],
        CLOSED_BY_OPEN,
    )
    .await;
    assert_eq!(
        report.removed,
        vec![Triplet::new("antique trunk", "is", "closed").unwrap()]
    );
}

/// The paper's profile has no verdict guard: every incident fact is asked about and
/// the LLM's verdict is carried out, even across relation kinds (section 2).
#[tokio::test]
async fn under_the_paper_profile_the_llm_verdict_stands() {
    let (memory, report, script) = two_steps_with(
        MemorySettings::default(),
        &[("antique trunk", "is in", "bedroom")],
        &[("antique trunk", "is", "open")],
        r#"{"outdated": [1], "replacing": [["antique trunk, is in, bedroom", "antique trunk, is, open"]]}"#,
    )
    .await;
    assert_eq!(report.checked, 1);
    assert_eq!(report.rejected_verdicts, 0);
    let gone = Triplet::new("antique trunk", "is in", "bedroom").unwrap();
    assert_eq!(report.removed, vec![gone.clone()]);
    assert!(memory.graph.find(&gone).is_none());
    assert_eq!(
        script
            .requests()
            .iter()
            .filter(|r| r.purpose == "outdated")
            .count(),
        1
    );
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
        request.messages[1]
            .content
            .contains(r#"[["subject_1", "relation_1", "object_1"]"#),
        "{}",
        request.messages[1].content
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
        CLOSED_BY_OPEN,
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
        r#"{"outdated": [1], "replacing": [["kitchen, contains, broom", "broom, is in, inventory"]]}"#,
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
    let known = MemorySettings {
        known_facts: Some(true),
        ..MemorySettings::default()
    };
    let (_, _, script) =
        two_steps_with(known, &[("antique trunk", "is in", "bedroom")], &[], "{}").await;
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

/// Memory rules 5 (the paper's profile): the extractor gets the reference's prompt with
/// the facts retrieved at the previous step as its example (`prev_subgraph`), and a
/// step's own extracted facts are searched through but not retrieved at that step.
#[tokio::test]
async fn the_paper_extraction_shows_the_last_retrieval_and_fresh_facts_are_not_retrieved() {
    let script = Arc::new(Scripted::default().answer(
        "extract_triplets",
        &[
            r#"{"triplets":[["antique trunk","is in","bedroom"],["antique trunk","is","closed"]]}"#,
            r#"{"triplets":[["old key","is in","antique trunk"]]}"#,
            r#"{"triplets":[]}"#,
        ],
    ));
    let llm = Llm {
        backend: script.clone(),
        prompts: Prompts::load(None).expect("prompts"),
    };
    let mut memory = AriGraphMemory::new(MemorySettings {
        cutoff: None,
        ..MemorySettings::default()
    });
    let mut log = CallLog::default();
    let queries = vec!["antique trunk".to_string(), "old key".to_string()];
    let mut retrieved = Vec::new();
    for step in 1..=3 {
        memory
            .update_graph(&llm, &mut log, &observed(step))
            .await
            .expect("update");
        let r = memory
            .retrieve_list(&llm, &mut log, &queries, step)
            .await
            .expect("retrieve");
        let mut texts: Vec<String> = r.triplets.into_iter().map(|t| t.triplet).collect();
        texts.sort();
        retrieved.push(texts);
    }
    // Step 1 extracted every fact there is: nothing is retrieved. Step 2 retrieves the
    // trunk's facts but not the key's, extracted at step 2; step 3 retrieves all three.
    assert!(retrieved[0].is_empty(), "{:?}", retrieved[0]);
    assert_eq!(
        retrieved[1],
        ["antique trunk, is in, bedroom", "antique trunk, is, closed"]
    );
    assert_eq!(retrieved[2].len(), 3, "{:?}", retrieved[2]);
    let users: Vec<String> = script
        .requests()
        .iter()
        .filter(|r| r.purpose == "extract_triplets")
        .map(|r| r.messages[1].content.clone())
        .collect();
    assert!(users[0].contains("extracted before: []"), "{}", users[0]);
    assert!(
        users[0].contains("Game step #1\n-= Bedroom =-"),
        "{}",
        users[0]
    );
    assert!(
        users[2].contains("'antique trunk, is in, bedroom'")
            && users[2].contains("'antique trunk, is, closed'")
            && !users[2].contains("old key"),
        "{}",
        users[2]
    );
    // Memory rules 7: the reference's system prompt, its instructions in the user message.
    let system = &script.requests()[0].messages[0].content;
    assert_eq!(system, "You are a helpful assistant");
    assert!(users[0].contains("meticulously gather information from game observations"));
    assert!(users[0].trim_end().ends_with("Extracted triplets:"));
    assert!(!users[1].contains("Facts already known"));
}

/// The semantic step follows `retrieval`; the episodic step (Eq. 1) scores the
/// episodes by the triplets the strategy returned.
#[test]
fn retrieval_follows_the_strategy_setting() {
    use crate::memory::Strategy;
    use crate::memory::strategies::{self, fixture};
    let mut memory = AriGraphMemory::new(MemorySettings::default());
    memory.graph = fixture::house();
    let id = |t: &str| fixture::id_of(&memory.graph, t);
    let kitchen = vec![
        id("fridge, is in, kitchen"),
        id("counter, is in, kitchen"),
        id("knife, is on, counter"),
    ];
    let bedroom = vec![id("bedroom, is north of, hall"), id("bed, is in, bedroom")];
    memory.graph.add_episode(1, "the kitchen".into(), kitchen);
    memory.graph.add_episode(2, "the bedroom".into(), bedroom);
    let q = vec![1.0, 0.0, 0.0];
    memory
        .query_cache
        .insert("where is the knife".into(), q.clone());
    let mut seen = Vec::new();
    for s in Strategy::ALL {
        // Eq. 1 for every strategy: as the paper runs it, WaterCircles ranks episodes
        // itself (`the_paper_form_walks_theses_and_water_circles_ranks_items`).
        let personalai = if s == Strategy::WaterCircles {
            PersonalAiForm::Adapted
        } else {
            PersonalAiForm::Paper
        };
        let settings = MemorySettings {
            retrieval: s,
            personalai,
            ..MemorySettings::default()
        };
        let got = memory.retrieve_with_settings(&["where is the knife".into()], 3, &settings);
        let want: Vec<String> = strategies::search(&memory.graph, &q, s, &settings)
            .iter()
            .map(|r| memory.graph.triplet(r.id).text())
            .collect();
        let texts: Vec<String> = got.triplets.iter().map(|t| t.triplet.clone()).collect();
        assert_eq!(texts, want, "{s}");
        assert!(!texts.is_empty(), "{s}");
        // Eq. 1 over the strategy's triplets: the kitchen episode holds 3 facts.
        let n = |step: u32| {
            got.episodes
                .iter()
                .find(|e| e.step == step)
                .map_or(0, |e| e.n)
        };
        let held = |facts: &[&str]| {
            facts
                .iter()
                .filter(|f| texts.contains(&f.to_string()))
                .count()
        };
        assert_eq!(
            n(1),
            held(&[
                "fridge, is in, kitchen",
                "counter, is in, kitchen",
                "knife, is on, counter"
            ]),
            "{s}"
        );
        seen.push(texts);
    }
    // Not all strategies retrieve the same facts.
    seen.dedup();
    assert!(seen.len() > 1, "{seen:?}");
}

fn llm_of(script: &Arc<Scripted>) -> Llm {
    Llm {
        backend: script.clone(),
        prompts: Prompts::load(None).expect("prompts"),
    }
}

fn seen_at<'a>(step: u32, observation: &'a str) -> Observed<'a> {
    Observed {
        observation,
        ..observed(step)
    }
}

/// `--retire close`: the retired state is kept with its interval [1, 2) and a link to
/// the state that replaced it, and neither retrieval nor the extractor's known facts
/// see it.
#[tokio::test]
async fn a_closed_fact_keeps_its_interval_and_link_and_is_not_retrieved() {
    let close = MemorySettings {
        retire: Retire::Close,
        width: 10,
        ..MemorySettings::default()
    };
    let (mut memory, report, _) = two_steps_with(
        close,
        &[
            ("antique trunk", "is", "closed"),
            ("antique trunk", "is in", "bedroom"),
        ],
        &[("antique trunk", "is", "open")],
        CLOSED_BY_OPEN,
    )
    .await;
    let closed_t = Triplet::new("antique trunk", "is", "closed").unwrap();
    let open_t = Triplet::new("antique trunk", "is", "open").unwrap();
    assert_eq!(report.removed, vec![closed_t.clone()]);
    let history = memory.graph.history().closed().to_vec();
    assert_eq!(history.len(), 1);
    let c = &history[0];
    assert_eq!(memory.graph.triplet(c.id), &closed_t);
    assert_eq!((c.since, c.until), (1, 2));
    let open_id = memory.graph.find(&open_t).unwrap();
    assert_eq!(c.superseded_by, vec![open_id]);
    assert!(memory.graph.is_closed(&closed_t));

    let script = Arc::new(Scripted::default());
    let llm = llm_of(&script);
    let mut log = CallLog::default();
    let got = memory
        .retrieve_list(&llm, &mut log, &["antique trunk closed".to_string()], 3)
        .await
        .unwrap();
    let texts: Vec<&str> = got.triplets.iter().map(|t| t.triplet.as_str()).collect();
    assert!(texts.contains(&"antique trunk, is, open"), "{texts:?}");
    assert!(!texts.contains(&"antique trunk, is, closed"), "{texts:?}");
    let known = memory.known_in_view("The antique trunk is here.");
    assert!(!known.iter().any(|k| k.contains("closed")), "{known:?}");
    // As AriadneMem runs it, the temporal edge into the retrieved "open" is kept for
    // reasoning: it reaches the working-memory prompt, compactly.
    assert_eq!(
        got.changes,
        [crate::memory::temporal::Change {
            from: "antique trunk, is, closed".into(),
            to: "antique trunk, is, open".into(),
            since: 1,
            until: 2,
        }]
    );
    let prompt = llm
        .prompts
        .render(
            "working_memory",
            minijinja::context! { changes => &got.changes, paths => &got.paths },
        )
        .unwrap();
    let text: String = prompt.iter().map(|m| m.content.clone()).collect();
    assert!(
        text.contains("- antique trunk, is, closed -> antique trunk, is, open (changed at step 2)"),
        "{text}"
    );
    // As first adapted (runs recorded before the form), the closed fact is out of
    // every prompt.
    memory.settings.ariadnemem = crate::memory::AriadneMemForm::Adapted;
    let adapted = memory.retrieve_with(&["antique trunk closed".to_string()], 3);
    assert!(adapted.changes.is_empty());
    assert_eq!(adapted.triplets, got.triplets);

    // The paper's deletion: the same steps keep no history.
    let delete = MemorySettings {
        retire: Retire::Delete,
        ..MemorySettings::default()
    };
    let (memory, report, _) = two_steps_with(
        delete,
        &[("antique trunk", "is", "closed")],
        &[("antique trunk", "is", "open")],
        CLOSED_BY_OPEN,
    )
    .await;
    assert_eq!(report.removed, vec![closed_t]);
    assert!(memory.graph.history().is_empty());
}

/// `--gating`: a repeated refusal is gated (no chat call, no embedding), a new room is
/// not; an observation of known words close to a recent one (the scripted embedding of
/// two texts of one length is the same direction) is gated after one embedding, which
/// retrieval then reuses.
#[tokio::test]
async fn a_repeated_refusal_is_gated_and_a_new_room_is_not() {
    let script = Arc::new(Scripted::default().answer(
        "extract_triplets",
        &[
            &extraction(&[("antique trunk", "is in", "bedroom")]),
            &extraction(&[]),
            &extraction(&[("fridge", "is in", "kitchen")]),
        ],
    ));
    let llm = llm_of(&script);
    let mut memory = AriGraphMemory::new(MemorySettings {
        gating: true,
        ..MemorySettings::default()
    });
    let refusal = "That's not something you can do.";
    let steps = [
        "-= Bedroom =- There is an antique trunk here.",
        refusal,
        refusal,
        "-= Kitchen =- There is a fridge here.",
    ];
    let mut reports = Vec::new();
    let mut logs = Vec::new();
    for (i, obs) in steps.iter().enumerate() {
        let mut log = CallLog::default();
        let r = memory
            .update_graph(&llm, &mut log, &seen_at(i as u32 + 1, obs))
            .await
            .unwrap();
        reports.push(r);
        logs.push(log);
    }
    let gated: Vec<bool> = reports.iter().map(|r| r.gated).collect();
    assert_eq!(gated, vec![false, false, true, false]);
    assert!(logs[2].calls.is_empty() && logs[2].embeds.is_empty());
    assert!(reports[2].extracted.is_empty() && reports[2].checked == 0);
    let extractions = script
        .requests()
        .iter()
        .filter(|r| r.purpose == "extract_triplets")
        .count();
    assert_eq!(extractions, 3);
    // Every step keeps its episodic vertex; the gated one has an empty edge.
    assert_eq!(memory.graph.episodes().len(), 4);
    assert!(memory.graph.episodes()[2].triplets.is_empty());
    assert!(
        memory
            .graph
            .find(&Triplet::new("fridge", "is in", "kitchen").unwrap())
            .is_some()
    );
    // The gated step is recorded only when true.
    let json = serde_json::to_value(&reports[2]).unwrap();
    assert_eq!(json["gated"], true);
    assert!(
        serde_json::to_value(&reports[1])
            .unwrap()
            .get("gated")
            .is_none()
    );

    // Known words, another text of the same length as the refusal: compared by
    // embedding, with the one request retrieval would have made.
    let mut log = CallLog::default();
    memory
        .retrieve_list(&llm, &mut log, &[refusal.to_string()], 3)
        .await
        .unwrap();
    let shuffled = "That's not something can you do.";
    assert_eq!(shuffled.len(), refusal.len());
    let mut log = CallLog::default();
    let r = memory
        .update_graph(&llm, &mut log, &seen_at(5, shuffled))
        .await
        .unwrap();
    assert!(r.gated);
    assert!(log.calls.is_empty());
    assert_eq!(log.embeds.len(), 1);
    assert_eq!(log.embeds[0].texts, vec![shuffled.to_string()]);
    let mut log = CallLog::default();
    memory
        .retrieve_list(&llm, &mut log, &[shuffled.to_string()], 5)
        .await
        .unwrap();
    assert!(log.embeds.is_empty(), "{:?}", log.embeds);
}

/// `--bridge` in retrieval: the query matches two facts in two components; bob joins
/// them, and the path's triplets are added to the retrieved facts and recorded.
#[test]
fn retrieval_adds_the_bridge_path() {
    let mut memory = AriGraphMemory::new(MemorySettings {
        bridge: true,
        depth: 1,
        width: 2,
        ..MemorySettings::default()
    });
    let g = &mut memory.graph;
    let lives = g
        .add(Triplet::new("alice", "lives in", "london").unwrap())
        .0;
    let country = g.add(Triplet::new("paris", "is in", "france").unwrap()).0;
    let met = g.add(Triplet::new("alice", "met", "bob").unwrap()).0;
    let went = g.add(Triplet::new("bob", "went to", "paris").unwrap()).0;
    g.set_triplet_embedding(lives, vec![1.0, 0.0, 0.0]);
    g.set_triplet_embedding(country, vec![0.9, 0.1, 0.0]);
    g.set_triplet_embedding(met, vec![0.0, 1.0, 0.0]);
    g.set_triplet_embedding(went, vec![0.0, 0.0, 1.0]);
    memory
        .query_cache
        .insert("where is alice".into(), vec![1.0, 0.05, 0.0]);
    let got = memory.retrieve_with(&["where is alice".to_string()], 1);
    let found: Vec<(&str, bool)> = got
        .triplets
        .iter()
        .map(|t| (t.triplet.as_str(), t.bridge))
        .collect();
    assert_eq!(
        found,
        vec![
            ("alice, lives in, london", false),
            ("paris, is in, france", false),
            ("alice, met, bob", true),
            ("bob, went to, paris", true),
        ]
    );
    assert_eq!(
        got.bridges,
        vec![BridgeRecord {
            query: 0,
            vertex: "bob".into(),
            joins: vec!["alice".into(), "paris".into()],
            triplets: vec!["alice, met, bob".into(), "bob, went to, paris".into()],
        }]
    );
    // Without --bridge the same retrieval stays as it was.
    memory.settings.bridge = false;
    let plain = memory.retrieve_with(&["where is alice".to_string()], 1);
    assert_eq!(plain.triplets.len(), 2);
    assert!(plain.bridges.is_empty());
}

/// `--thesis`: the same extraction call asks for theses (prompt and schema), they are
/// stored with their hyper-edge, embedding (in the triplets' batch) and episode; an item
/// that is not a string or a missing field is a repair. Without the option nothing of it
/// is asked or read.
#[tokio::test]
async fn theses_come_from_the_extraction_call_and_a_bad_field_is_a_repair() {
    let answers = [
        r#"{"triplets":[["antique trunk","is in","bedroom"]],"theses":["The antique  trunk in the Bedroom may hold the key", 7]}"#,
        r#"{"triplets":[["antique trunk","is","closed"]]}"#,
    ];
    let on = MemorySettings {
        thesis: true,
        personalai: PersonalAiForm::Adapted,
        ..MemorySettings::default()
    };
    let script = Arc::new(Scripted::default().answer("extract_triplets", &answers));
    let llm = llm_of(&script);
    let mut memory = AriGraphMemory::new(on);
    let mut log = CallLog::default();
    let first = memory
        .update_graph(&llm, &mut log, &observed(1))
        .await
        .expect("step 1");
    let text = "The antique trunk in the Bedroom may hold the key";
    assert_eq!(first.theses, [text]);
    assert_eq!(log.repairs, 1);
    let t = memory.graph.thesis(ThesisId(0)).expect("a thesis vertex");
    assert_eq!(
        (t.step, t.vertices.clone()),
        (1, vec!["antique trunk".to_string(), "bedroom".into()])
    );
    assert_eq!(memory.graph.episodes()[0].theses, [ThesisId(0)]);
    assert!(memory.graph.thesis_embedding(ThesisId(0)).is_some());
    let passages = &log.embeds[0];
    assert_eq!(passages.kind, EmbedKind::Passage);
    assert_eq!(passages.texts.last().map(String::as_str), Some(text));
    let second = memory
        .update_graph(&llm, &mut log, &observed(2))
        .await
        .expect("step 2");
    assert!(second.theses.is_empty());
    assert_eq!(log.repairs, 2);
    let request = &script.requests()[0];
    assert!(
        request.messages[1]
            .content
            .contains("Also write up to 3 theses")
    );
    let schema = request.schema.as_ref().expect("schema").1.clone();
    assert_eq!(schema["required"], json!(["triplets", "theses"]));

    // Off (the default): the same answers, no thesis asked, read or counted.
    let script = Arc::new(Scripted::default().answer("extract_triplets", &answers));
    let llm = llm_of(&script);
    let mut memory = AriGraphMemory::new(MemorySettings::default());
    let mut log = CallLog::default();
    let first = memory
        .update_graph(&llm, &mut log, &observed(1))
        .await
        .expect("step 1");
    assert!(first.theses.is_empty());
    assert_eq!((memory.graph.thesis_count(), log.repairs), (0, 0));
    let request = &script.requests()[0];
    assert!(!request.messages[0].content.contains("theses"));
    let schema = request.schema.as_ref().expect("schema").1.to_string();
    assert!(!schema.contains("theses"), "{schema}");
}

/// Thesis retrieval after the semantic step, and the traversal constraints, as first
/// adapted (runs recorded before PersonalAI's paper form): without
/// object vertices no triplet is retrieved, theses are ranked by similarity alone and
/// Eq. 1 counts an episode's theses; `episodic` and `thesis` leave theirs out.
#[test]
fn theses_are_retrieved_and_exclusions_leave_kinds_out() {
    use crate::memory::VertexKind;
    use crate::memory::strategies::fixture;
    let mut memory = AriGraphMemory::new(MemorySettings::default());
    memory.graph = fixture::house();
    let id = |t: &str| fixture::id_of(&memory.graph, t);
    let kitchen = vec![id("fridge, is in, kitchen"), id("knife, is on, counter")];
    memory.graph.add_episode(1, "the kitchen".into(), kitchen);
    for (text, e) in [
        ("the knife on the counter is sharp", [1.0, 0.0, 0.0]),
        ("the fridge keeps the apple cold", [0.0, 0.0, 1.0]),
    ] {
        let (t, _) = memory.graph.add_thesis(text, 1);
        memory.graph.set_thesis_embedding(t, e.to_vec());
        memory.graph.link_theses(&[t]);
    }
    memory.graph.add_episode(2, "the hall".into(), Vec::new());
    let (t, _) = memory
        .graph
        .add_thesis("the key in the hall opens the bedroom", 2);
    memory.graph.set_thesis_embedding(t, vec![1.0, 1.0, 0.0]);
    memory.graph.link_theses(&[t]);
    let q = "where is the knife".to_string();
    memory.query_cache.insert(q.clone(), vec![1.0, 0.0, 0.0]);
    let queries = [q];
    let with = |thesis: bool, exclude: &[VertexKind]| {
        let settings = MemorySettings {
            thesis,
            exclude: exclude.to_vec(),
            personalai: PersonalAiForm::Adapted,
            ..MemorySettings::default()
        };
        memory.retrieve_with_settings(&queries, 3, &settings)
    };
    let texts =
        |r: &Retrieval| -> Vec<String> { r.theses.iter().map(|t| t.text.clone()).collect() };

    let plain = with(false, &[]);
    assert!(plain.theses.is_empty() && !plain.triplets.is_empty());
    // On: the same triplets and episodes; theses anchored on the kitchen's vertices.
    let on = with(true, &[]);
    assert_eq!(
        (&on.triplets, &on.episodes),
        (&plain.triplets, &plain.episodes)
    );
    assert!(!on.theses.is_empty() && on.theses.iter().all(|t| t.matched > 0));
    // Most anchors first (WaterCircles' rule).
    assert!(on.theses.windows(2).all(|w| w[0].matched >= w[1].matched));
    // No object vertices: no triplet; theses by similarity; Eq. 1 over theses (step 1
    // holds 2 of 2 retrieved: 1.0; step 2 holds one, and N = 1 weighs 0).
    let objectless = with(true, &[VertexKind::Object]);
    assert!(objectless.triplets.is_empty());
    assert_eq!(
        texts(&objectless),
        [
            "the knife on the counter is sharp",
            "the key in the hall opens the bedroom",
            "the fridge keeps the apple cold"
        ]
    );
    assert!(objectless.theses.iter().all(|t| t.matched == 0));
    let episodes: Vec<(u32, usize, usize)> = objectless
        .episodes
        .iter()
        .map(|e| (e.step, e.n, e.total))
        .collect();
    assert_eq!(episodes, [(1, 2, 2)]);
    assert!((objectless.episodes[0].score - 1.0).abs() < 1e-12);
    // No episodes; no theses.
    let no_episodes = with(true, &[VertexKind::Episodic]);
    assert!(no_episodes.episodes.is_empty());
    assert_eq!(no_episodes.triplets, on.triplets);
    assert!(with(true, &[VertexKind::Thesis]).theses.is_empty());
}

/// `--thesis` as the paper runs it: the extractor writes each thesis with its entities
/// (prompt and schema ask for them; a bare string is a repair and its entities are found
/// by name); an older thesis sharing an entity with a new one is asked about in one
/// call (Appendix B) and retired on the verdict; a bad number retires nothing; no call
/// without such an older thesis, and none when the graph is built without the
/// outdated check (question answering).
#[tokio::test]
async fn written_theses_link_their_entities_and_stale_ones_are_retired() {
    let answers = [
        r#"{"triplets":[["antique trunk","is in","bedroom"]],"theses":[{"text":"The trunk needs the brass key","entities":["antique trunk","the Brass Key"]},"A bare statement about the bedroom"]}"#,
        r#"{"triplets":[["antique trunk","is","open"]],"theses":[{"text":"The trunk is open now and needs no key","entities":["antique trunk"]}]}"#,
        r#"{"triplets":[],"theses":[{"text":"The window faces north","entities":["window"]}]}"#,
    ];
    let settings = MemorySettings {
        thesis: true,
        ..MemorySettings::default()
    };
    assert_eq!(settings.personalai, PersonalAiForm::Paper);
    let script = Arc::new(
        Scripted::default()
            .answer("extract_triplets", &answers)
            .answer("outdated", &[r#"{"outdated": [], "replacing": []}"#])
            .answer("outdated_theses", &[r#"{"outdated": [1]}"#]),
    );
    let llm = llm_of(&script);
    let mut memory = AriGraphMemory::new(settings.clone());
    let mut log = CallLog::default();
    let first = memory
        .update_graph(&llm, &mut log, &observed(1))
        .await
        .expect("step 1");
    assert_eq!(first.theses.len(), 2);
    assert_eq!(log.repairs, 1, "the bare string");
    let t0 = memory.graph.thesis(ThesisId(0)).expect("thesis 0");
    assert_eq!(t0.vertices, ["antique trunk", "brass key"]);
    // The bare string: its entities by name ("bedroom" is a vertex now).
    assert_eq!(
        memory.graph.thesis(ThesisId(1)).unwrap().vertices,
        ["bedroom"]
    );
    let request = &script.requests()[0];
    assert!(
        request.messages[1]
            .content
            .contains("with the entities it links")
    );
    let schema = request.schema.as_ref().expect("schema").1.clone();
    assert_eq!(
        schema["properties"]["theses"]["items"]["required"],
        json!(["text", "entities"])
    );
    assert_eq!(schema["properties"]["theses"]["maxItems"], json!(15));
    // Step 2: the new thesis links the trunk, as thesis 0 does (thesis 1 does not).
    let second = memory
        .update_graph(&llm, &mut log, &observed(2))
        .await
        .expect("step 2");
    assert_eq!(second.retired_theses, ["The trunk needs the brass key"]);
    assert_eq!(memory.graph.thesis(ThesisId(0)).unwrap().retired, Some(2));
    assert_eq!(memory.graph.thesis(ThesisId(1)).unwrap().retired, None);
    let requests = script.requests();
    let asked: Vec<_> = requests
        .iter()
        .filter(|r| r.purpose == "outdated_theses")
        .collect();
    assert_eq!(asked.len(), 1);
    let user = &asked[0].messages.last().unwrap().content;
    assert!(
        user.contains("- The trunk is open now and needs no key")
            && user.contains("1. The trunk needs the brass key")
            && !user.contains("bare statement"),
        "{user}"
    );
    // Step 3: a thesis that shares no entity with an older one: no call.
    let third = memory
        .update_graph(&llm, &mut log, &observed(3))
        .await
        .expect("step 3");
    assert!(third.retired_theses.is_empty());
    let calls = script
        .requests()
        .iter()
        .filter(|r| r.purpose == "outdated_theses")
        .count();
    assert_eq!(calls, 1);

    // A number out of range is refused (retried, then nothing retired); without the
    // outdated check nothing is asked.
    for (check, verdicts) in [
        (true, r#"{"outdated": [5]}"#),
        (false, r#"{"outdated": [1]}"#),
    ] {
        let script = Arc::new(
            Scripted::default()
                .answer("extract_triplets", &answers[..2])
                .answer("outdated", &[r#"{"outdated": [], "replacing": []}"#])
                .answer("outdated_theses", &[verdicts]),
        );
        let llm = llm_of(&script);
        let mut memory = AriGraphMemory::new(MemorySettings {
            outdated_check: check,
            ..settings.clone()
        });
        let mut log = CallLog::default();
        for step in 1..=2 {
            memory
                .update_graph(&llm, &mut log, &observed(step))
                .await
                .expect("step");
        }
        assert_eq!(memory.graph.thesis(ThesisId(0)).unwrap().retired, None);
        let asked = script
            .requests()
            .iter()
            .any(|r| r.purpose == "outdated_theses");
        assert_eq!(asked, check);
    }
}

/// The paper form's retrieval: with `--thesis` the walk through hyper-edges adds what
/// no triplet reaches, and with `--retrieval water-circles` theses and episodes are
/// ranked by entity intersections (15 each at most) instead of Eq. 1.
#[test]
fn the_paper_form_walks_theses_and_water_circles_ranks_items() {
    use crate::memory::strategies::fixture;
    let mut memory = AriGraphMemory::new(MemorySettings::default());
    memory.graph = fixture::house();
    let id = |t: &str| fixture::id_of(&memory.graph, t);
    let kitchen = vec![id("fridge, is in, kitchen"), id("knife, is on, counter")];
    let bedroom = vec![id("bed, is in, bedroom")];
    memory.graph.add_episode(1, "the kitchen".into(), kitchen);
    memory.graph.add_episode(2, "the bedroom".into(), bedroom);
    // A thesis joining the kitchen's knife to the hall's key.
    let (t, _) = memory.graph.add_thesis_linking(
        "the key was hidden with the knife",
        2,
        Some(&["knife".into(), "key".into()]),
    );
    memory.graph.set_thesis_embedding(t, vec![1.0, 0.0, 0.0]);
    memory.graph.link_theses(&[t]);
    let q = "where is the knife".to_string();
    memory.query_cache.insert(q.clone(), vec![1.0, 0.0, 0.0]);
    let queries = [q];
    let at = |settings: MemorySettings| memory.retrieve_with_settings(&queries, 3, &settings);
    let paper = MemorySettings {
        thesis: true,
        depth: 1,
        width: 2,
        cutoff: None,
        ..MemorySettings::default()
    };
    let adapted = MemorySettings {
        personalai: PersonalAiForm::Adapted,
        ..paper.clone()
    };
    let triplets =
        |r: &Retrieval| -> Vec<String> { r.triplets.iter().map(|t| t.triplet.clone()).collect() };
    let walked = at(paper.clone());
    let first = at(adapted);
    assert!(!triplets(&first).contains(&"key, is in, hall".to_string()));
    assert!(
        triplets(&walked).contains(&"key, is in, hall".to_string()),
        "{:?}",
        triplets(&walked)
    );
    assert_eq!(walked.theses.len(), 1);
    assert_eq!(walked.theses[0].hop, Some(1));
    // WaterCircles, one ring from the matched kitchen, fridge and knife, reaches
    // kitchen, fridge, knife, counter, hall and apple: the thesis links one of them
    // (knife); episode 1 holds four of its four entities, episode 2 one (knife) of four
    // (bed, bedroom, and its thesis's knife and key).
    let circles = at(MemorySettings {
        retrieval: Strategy::WaterCircles,
        ..paper.clone()
    });
    assert_eq!(circles.theses.len(), 1);
    assert_eq!(circles.theses[0].matched, 1);
    let episodes: Vec<(u32, usize, usize)> = circles
        .episodes
        .iter()
        .map(|e| (e.step, e.n, e.total))
        .collect();
    assert_eq!(episodes, [(1, 4, 4), (2, 1, 4)]);
}

/// The paper form's thesis answers read as a new user's trial sent them: a missing,
/// null or non-list `entities` falls back to name matching (a repair); spellings of one
/// entity count once against the limit of 10; a statement written twice is one thesis;
/// an item past the limit is dropped whole (one cut, not one per part); the schema is
/// strict-mode ready (every object closed).
#[test]
fn written_theses_are_read_as_meant() {
    use super::answers::{read_written_theses, with_written_theses};
    let field = json!([
        {"text": "Door thing", "entities": null},
        {"text": "No entities field"},
        {"text": "The door and the key", "entities": ["door", "Door", "DOOR", "the door", " door ", "doors", "a door", "DOOR.", "door!", "the Door", "door?", "key"]},
        {"text": "the  KEY opens the door", "entities": ["key"]},
        {"text": "The key opens the door", "entities": ["key"]},
    ]);
    let (got, repaired, trimmed) = read_written_theses(Some(&field), 4);
    assert!(repaired);
    let texts: Vec<&str> = got.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Door thing",
            "No entities field",
            "The door and the key",
            "the KEY opens the door"
        ]
    );
    assert_eq!(
        (got[0].entities.clone(), got[1].entities.clone()),
        (None, None)
    );
    // "doors" is another word; the ten other spellings are one entity.
    assert_eq!(
        got[2].entities.as_deref().unwrap(),
        ["door", "doors", "key"]
    );
    assert_eq!(trimmed, 0, "the repeated statement is not a cut");
    let many: Vec<Value> = (0..6)
        .map(|i| json!({"text": format!("statement {i}"), "entities": ["x".repeat(500), "y"]}))
        .collect();
    let (got, _, trimmed) = read_written_theses(Some(&Value::Array(many)), 4);
    // 4 kept, each with its over-long entity dropped (4 cuts), 2 dropped whole (2 cuts).
    assert_eq!((got.len(), trimmed), (4, 6));
    let schema = with_written_theses(json!({"type": "object", "properties": {}}), 15);
    assert_eq!(
        schema["properties"]["theses"]["items"]["additionalProperties"],
        json!(false)
    );
}

/// A retired thesis written again is stated anew: the stale check sees it (and may
/// retire what contradicts it), so two contradictory statements are not shown together
/// unchecked. WaterCircles with k = 0 (the "w/o episodic" ablation) shows no episode.
#[tokio::test]
async fn a_restated_thesis_is_checked_and_k_zero_shows_no_episode() {
    let answers = [
        r#"{"triplets":[["key","is in","hall"]],"theses":[{"text":"The key opens the door","entities":["key","door"]}]}"#,
        r#"{"triplets":[],"theses":[{"text":"The key is lost","entities":["key"]}]}"#,
        r#"{"triplets":[],"theses":[{"text":"The key opens the door","entities":["key","door"]}]}"#,
    ];
    let script = Arc::new(
        Scripted::default()
            .answer("extract_triplets", &answers)
            .answer("outdated", &[r#"{"outdated": [], "replacing": []}"#])
            .answer(
                "outdated_theses",
                &[r#"{"outdated": [1]}"#, r#"{"outdated": [1]}"#],
            ),
    );
    let llm = llm_of(&script);
    let mut memory = AriGraphMemory::new(MemorySettings {
        thesis: true,
        ..MemorySettings::default()
    });
    let mut log = CallLog::default();
    for step in 1..=3 {
        memory
            .update_graph(&llm, &mut log, &observed(step))
            .await
            .expect("step");
    }
    // Step 2 retired "opens"; step 3 restated it, and the check retired "is lost".
    let held: Vec<(&str, Option<u32>)> = memory
        .graph
        .theses()
        .into_iter()
        .map(|t| (t.text.as_str(), t.retired))
        .collect();
    assert_eq!(
        held,
        [
            ("The key opens the door", None),
            ("The key is lost", Some(3))
        ]
    );
    let checks = script
        .requests()
        .iter()
        .filter(|r| r.purpose == "outdated_theses")
        .count();
    assert_eq!(checks, 2);

    use crate::memory::strategies::fixture;
    let mut memory = AriGraphMemory::new(MemorySettings::default());
    memory.graph = fixture::house();
    let kitchen = vec![fixture::id_of(&memory.graph, "fridge, is in, kitchen")];
    memory.graph.add_episode(1, "the kitchen".into(), kitchen);
    let q = "where is the knife".to_string();
    memory.query_cache.insert(q.clone(), vec![1.0, 0.0, 0.0]);
    for (k, shown) in [(2, 1), (0, 0)] {
        let settings = MemorySettings {
            retrieval: Strategy::WaterCircles,
            episodes: k,
            ..MemorySettings::default()
        };
        let got = memory.retrieve_with_settings(std::slice::from_ref(&q), 3, &settings);
        assert_eq!(got.episodes.len(), shown, "k = {k}");
    }
}
