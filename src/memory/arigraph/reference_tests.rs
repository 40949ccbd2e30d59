//! Hand-value tests of memory rules 7 and 8: the outdated check and Eq. 1's top k as the
//! reference runs them (`graphs/contriever_graph.py`, `update` and `delete_triplets`),
//! and extraction items read as the reference reads a triplet (`process_triplets`).

use std::sync::Arc;

use super::reference_text::{named_triplet, reference_excluded};
use super::*;
use crate::llm::prompts::Prompts;
use crate::llm::scripted::Scripted;
use crate::memory::{RECENT_OBSERVATIONS, REFERENCE_EXCLUDED, Triplet};
use serde_json::{Value, json};

fn extraction(triplets: &[(&str, &str, &str)]) -> String {
    let t: Vec<Value> = triplets.iter().map(|(s, r, o)| json!([s, r, o])).collect();
    json!({ "triplets": t }).to_string()
}

fn at<'a>(step: u32, room: &'a str, observation: &'a str) -> Observed<'a> {
    Observed {
        step,
        observation,
        inventory: "",
        room,
        action: "",
        goal: "",
        passage: false,
        facts: None,
        recent: "",
        plan: "",
    }
}

/// Two updates under `settings`, the second in `room` (see [`super::tests`]).
async fn two_updates(
    settings: MemorySettings,
    first: &[(&str, &str, &str)],
    second: &[(&str, &str, &str)],
    room: &str,
    verdict: &str,
) -> (AriGraphMemory, UpdateReport, Arc<Scripted>) {
    super::tests::two_steps_in(settings, first, second, room, verdict).await
}

fn outdated_prompt(script: &Scripted) -> String {
    script
        .requests()
        .iter()
        .find(|r| r.purpose == "outdated")
        .map(|r| r.messages[1].content.clone())
        .unwrap_or_default()
}

/// A candidate naming a direction or holding "used for", "to be" or "associated with"
/// is never offered (the reference's `words_to_exclude`); the rest are, as the
/// reference lists them, and the new triplets already known are not shown as new.
#[tokio::test]
async fn a_candidate_naming_a_direction_or_a_listed_relation_is_never_offered() {
    let (_, report, script) = two_updates(
        MemorySettings::default(),
        &[
            ("kitchen", "has exit", "north"),
            ("knife", "used for", "cutting"),
            ("apple", "to be", "sliced"),
            ("knife", "associated with", "chef"),
            ("knife", "is on", "table"),
        ],
        &[
            ("knife", "is in", "inventory"),
            ("apple", "is in", "kitchen"),
        ],
        "Bedroom",
        r#"{"replacing": []}"#,
    )
    .await;
    assert_eq!(report.checked, 1);
    let prompt = outdated_prompt(&script);
    assert!(
        prompt.contains("Existing triplets: ['knife, is on, table'].\nNew triplets: ['knife, is in, inventory', 'apple, is in, kitchen']."),
        "{prompt}"
    );
    for word in REFERENCE_EXCLUDED {
        assert!(reference_excluded(&format!("a, {word}, b")), "{word}");
    }
    // Memory rules 6 offered them all.
    let rules6 = MemorySettings {
        rules: crate::memory::MemoryRevision::V6,
        ..MemorySettings::default()
    };
    let (_, report, _) = two_updates(
        rules6,
        &[
            ("kitchen", "has exit", "north"),
            ("knife", "used for", "cutting"),
        ],
        &[
            ("knife", "is in", "inventory"),
            ("kitchen", "contains", "apple"),
        ],
        "Bedroom",
        r#"{"outdated": []}"#,
    )
    .await;
    assert_eq!(report.checked, 2);
}

/// A fact linking two rooms the agent has been in survives a verdict (the reference's
/// `delete_triplets` skips it); the same verdict deletes it while one end is a room not
/// yet visited.
#[tokio::test]
async fn a_link_between_two_visited_rooms_survives_a_verdict() {
    let link = Triplet::new("kitchen", "is next to", "bedroom").unwrap();
    let verdict =
        r#"{"replacing": [["kitchen, is next to, bedroom", "kitchen, contains, table"]]}"#;
    let first = [("kitchen", "is next to", "bedroom")];
    let second = [("kitchen", "contains", "table")];
    let (memory, report, _) = two_updates(
        MemorySettings::default(),
        &first,
        &second,
        "Kitchen",
        verdict,
    )
    .await;
    assert_eq!(report.checked, 1);
    assert!(report.removed.is_empty());
    assert!(memory.graph.find(&link).is_some());

    let (memory, report, _) = two_updates(
        MemorySettings::default(),
        &first,
        &second,
        "Bedroom",
        verdict,
    )
    .await;
    assert_eq!(report.removed, vec![link.clone()]);
    assert!(memory.graph.find(&link).is_none());
}

/// The named outdated triplet is matched exactly, as the reference parses it (three
/// comma-separated parts, quotes and spaces trimmed, case folded); a pair naming no fact
/// of the graph deletes nothing and is counted as a repair.
#[tokio::test]
async fn replacement_pairs_delete_exact_matches_only() {
    let first = [("antique trunk", "is", "closed")];
    let second = [("antique trunk", "is", "open")];
    let (memory, report, _) = two_updates(
        MemorySettings::default(),
        &first,
        &second,
        "Bedroom",
        r#"{"replacing": [["'Antique trunk, is , closed'", "antique trunk, is, open"]]}"#,
    )
    .await;
    let closed = Triplet::new("antique trunk", "is", "closed").unwrap();
    assert_eq!(report.removed, vec![closed.clone()]);
    assert!(memory.graph.find(&closed).is_none());

    let script = Arc::new(
        Scripted::default()
            .answer("extract_triplets", &[&extraction(&first), &extraction(&second)])
            .answer(
                "outdated",
                &[r#"{"replacing": [["antique trunk, is, shut", "antique trunk, is, open"], ["trunk is closed", "x"]]}"#],
            ),
    );
    let llm = Llm {
        backend: script.clone(),
        prompts: Prompts::load(None).expect("prompts"),
    };
    let mut memory = AriGraphMemory::new(MemorySettings::default());
    let mut log = CallLog::default();
    for (step, obs) in [(1, "-= Bedroom =-"), (2, "-= Bedroom =- open")] {
        memory
            .update_graph(&llm, &mut log, &at(step, "Bedroom", obs))
            .await
            .expect("update");
    }
    assert!(memory.graph.find(&closed).is_some());
    assert_eq!(log.repairs, 2);
    assert_eq!(named_triplet("a, b"), None);
    assert_eq!(
        named_triplet(" \"key, is in, locker\" "),
        Triplet::new("key", "is in", "locker")
    );
}

/// Eq. 1's top k leaves out the episodes of the last 5 steps (the reference drops from
/// its top k the observations already in working memory); memory rules 6 kept them.
#[tokio::test]
async fn an_episode_among_the_last_five_observations_is_not_in_the_top_k() {
    let retrieved_steps = |rules: crate::memory::MemoryRevision| async move {
        let answers: Vec<String> = (1..=7)
            .map(|i| {
                extraction(&[
                    ("antique trunk", "holds", &format!("coin {i}")),
                    ("antique trunk", "is in", "bedroom"),
                ])
            })
            .collect();
        let refs: Vec<&str> = answers.iter().map(String::as_str).collect();
        let script = Arc::new(
            Scripted::default()
                .answer("extract_triplets", &refs)
                .answer("outdated", &[r#"{"replacing": [], "outdated": []}"#; 7]),
        );
        let llm = Llm {
            backend: script.clone(),
            prompts: Prompts::load(None).expect("prompts"),
        };
        let mut memory = AriGraphMemory::new(MemorySettings {
            rules,
            episodes: 10,
            width: 20,
            cutoff: None,
            ..MemorySettings::default()
        });
        let mut log = CallLog::default();
        for step in 1..=7 {
            memory
                .update_graph(&llm, &mut log, &at(step, "Bedroom", "-= Bedroom =- trunk"))
                .await
                .expect("update");
        }
        let queries = Queries {
            step: 8,
            observation: "antique trunk",
            goal: "find the coins",
            plan: &[],
            items: None,
            recent: RECENT_OBSERVATIONS,
        };
        let got = MemoryModule::retrieve(&mut memory, &llm, &mut log, &queries)
            .await
            .expect("retrieve");
        let mut steps: Vec<u32> = got.episodes.iter().map(|e| e.step).collect();
        steps.sort_unstable();
        steps
    };
    let paper = retrieved_steps(crate::memory::MemoryRevision::CURRENT).await;
    assert!(!paper.is_empty(), "no episode retrieved");
    assert!(
        paper.iter().all(|s| s + RECENT_OBSERVATIONS < 8),
        "{paper:?}"
    );
    let before = retrieved_steps(crate::memory::MemoryRevision::V6).await;
    assert!(before.iter().any(|s| *s >= 3), "{before:?}");
}

/// Memory rules 8: each extraction item is read as the reference reads a triplet's text
/// (exactly three non-empty comma-separated parts; a comma between digits separates
/// nothing), with no regrouping.
#[test]
fn an_item_is_three_parts_or_refused() {
    let read = |v: Value| items::read_item(&v);
    let triplet = |s: &str, r: &str, o: &str| answers::RawTriplet {
        subject: s.into(),
        relation: r.into(),
        object: o.into(),
    };
    let one = |v: Value| -> items::Item {
        let mut all = read(v.clone());
        assert_eq!(all.len(), 1, "{v}");
        all.remove(0)
    };
    // As asked, in either form; a thousands separator stays inside its number.
    assert!(matches!(
        one(json!(["Brenholt Park", "has capacity", "14,200"])),
        items::Item::Triplet(t) if t == triplet("Brenholt Park", "has capacity", "14,200")
    ));
    assert!(matches!(
        one(json!({"subject": "a", "relation": "b", "object": "c"})),
        items::Item::Triplet(_)
    ));
    // Repaired where the reading is the only one: the reference's own `s, r, o` string,
    // a number or boolean for a string (in either form).
    for (item, want) in [
        (
            json!("Albert Voss, died in, 1891"),
            ("Albert Voss", "died in", "1891"),
        ),
        (
            json!(["Albert Voss", "died in", 1891]),
            ("Albert Voss", "died in", "1891"),
        ),
        (
            json!({"subject": "Voss Park", "relation": "holds", "object": 23100}),
            ("Voss Park", "holds", "23100"),
        ),
        (
            json!(["bridge", "is open", true]),
            ("bridge", "is open", "true"),
        ),
    ] {
        match one(item.clone()) {
            items::Item::Repaired(t) => assert_eq!(t, triplet(want.0, want.1, want.2), "{item}"),
            other => panic!("{item}: {other:?}"),
        }
    }
    // Several `s, r, o` joined by `;` are each read (the reference splits at `;` first).
    let both = read(json!(
        "Marta Voss, born in, Kelmouth; Marta Voss, died in, Bremen"
    ));
    assert_eq!(both.len(), 2);
    assert!(both.iter().all(|i| matches!(i, items::Item::Repaired(_))));
    // Refused: four parts (as four items, or packed into one part), two parts (also a
    // part holding a comma), an empty part, a part that is not text, an object with a
    // field too many, a string that is not `s, r, o`, a bare number.
    for item in [
        json!(["Marta Voss", "daughter of", "Albert Voss", "1927"]),
        json!(["Marta Voss", "died in", "Bremen, 1927"]),
        json!(["Albert Voss", "inventor"]),
        json!(["Paris, France", "capital of"]),
        json!(["Marta Voss", "", "Bremen, 1927"]),
        json!(["Marta Voss", "died in", "Bremen", ""]),
        json!({"subject": "Alice, Bob", "relation": "", "object": "x"}),
        json!("Albert Voss invented the harbour telegraph"),
        json!(["Albert Voss", "died in", null]),
        json!({"subject": "a", "relation": "b", "object": "c", "year": "1891"}),
        json!(7),
    ] {
        assert!(
            read(item.clone())
                .iter()
                .all(|i| matches!(i, items::Item::Refused(_))),
            "{item}"
        );
    }
}

/// One refused item leaves the answer's other triplets in the graph, and is counted
/// and noted on its call; before memory rules 8 the same answer was refused whole.
#[tokio::test]
async fn a_refused_item_is_counted_and_the_rest_are_kept() {
    let answer = json!({"triplets": [
        ["harbour telegraph", "invented by", "Albert Voss"],
        ["Marta Voss", "daughter of", "Albert Voss", "1927"],
        "Albert Voss, died in, 1891",
    ]})
    .to_string();
    for (rules, kept, refused, rejected) in [
        (crate::memory::MemoryRevision::CURRENT, 2, 1, false),
        (crate::memory::MemoryRevision::V7, 0, 0, true),
    ] {
        let script = Arc::new(Scripted::default().answer("extract_triplets", &[&answer]));
        let llm = Llm {
            backend: script.clone(),
            prompts: Prompts::load(None).expect("prompts"),
        };
        let mut memory = AriGraphMemory::new(MemorySettings {
            rules,
            ..MemorySettings::default()
        });
        let mut log = CallLog::default();
        let report = memory
            .update_graph(&llm, &mut log, &at(1, "", "A paragraph."))
            .await
            .expect("update");
        assert_eq!(report.extracted.len(), kept, "rules {rules}");
        assert_eq!(log.refused, refused, "rules {rules}");
        assert_eq!(log.failures > 0, rejected, "rules {rules}");
        if rules == crate::memory::MemoryRevision::CURRENT {
            assert_eq!(log.repairs, 1);
            assert_eq!(log.calls[0].refused.len(), 1);
            assert!(log.calls[0].refused[0].starts_with("triplets[1]: 4 parts"));
        }
    }
}
