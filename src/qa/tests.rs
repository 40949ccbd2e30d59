//! Tests of `qa`.

use super::*;
use data::{Paragraph, Question};

#[test]
fn bm25_ranks_the_paragraphs_that_share_the_question_words() {
    let p = |t: &str| Paragraph {
        title: String::new(),
        text: t.into(),
        supporting: false,
    };
    let q = Question {
        id: "q".into(),
        question: "Which river flows through the city of Varnholm?".into(),
        answers: vec!["Ossel".into()],
        paragraphs: vec![
            p("The lighthouse keeper painted boats."),
            p("Varnholm is a city on the river Ossel."),
            p("Bread is baked at dawn."),
            p("The Ossel river flows north."),
        ],
        answerable: None,
    };
    let top = top_by_bm25(&q);
    // The two that share words first, then the first of the rest (score 0).
    assert_eq!(top[0], 1);
    assert_eq!(top[1..], [3, 0], "{top:?}");
    let none = Question {
        question: "Who was she?".into(),
        ..q.clone()
    };
    assert_eq!(
        top_by_bm25(&none),
        [0, 1, 2],
        "no shared word: the first three"
    );
    assert_eq!(
        QaMemory::parse_list("rag, bm25,rag").unwrap(),
        [QaMemory::Rag, QaMemory::Bm25]
    );
    assert!(QaMemory::parse_list("graphrag").is_err());
}

/// The time left is each memory's own mean: 3 AriGraph rows at 100 s and 3 BM25 rows
/// at 2 s left after one of each, not 6 at the overall mean; a memory with no answer
/// yet counts at the overall mean; two at once halve it.
#[test]
fn the_time_left_counts_each_memory_at_its_own_pace() {
    use run::seconds_left;
    let answered = [(QaMemory::Arigraph, 100.0), (QaMemory::Bm25, 2.0)];
    let left = [
        QaMemory::Arigraph,
        QaMemory::Arigraph,
        QaMemory::Arigraph,
        QaMemory::Bm25,
        QaMemory::Bm25,
        QaMemory::Bm25,
    ];
    assert_eq!(seconds_left(&answered, &left, 1), 306.0);
    assert_eq!(seconds_left(&answered, &[QaMemory::Rag], 1), 51.0);
    assert_eq!(seconds_left(&answered, &left, 2), 153.0);
    assert_eq!(seconds_left(&[], &left, 1), 0.0);
    // The last question answered: "about 0 s left", not "-0".
    assert_eq!(format!("{:.0}", seconds_left(&answered, &[], 1)), "0");
}

/// Messages of the long steps shown, in order (the recorder [`report::install_tasks`]
/// is given in this test binary; nothing else installs one).
static SHOWN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn record_task(message: String) -> crate::report::Task {
    if let Ok(mut shown) = SHOWN.lock() {
        shown.push(message);
    }
    crate::report::Task::new(|| {})
}

/// A question of minutes says where it stands: each paragraph as it is read into the
/// graph, then the retrieval and answer.
#[tokio::test]
async fn a_question_shows_its_paragraph_in_flight() {
    use crate::llm::{Llm, prompts::Prompts, scripted::Scripted};
    crate::report::install_tasks(record_task);
    let q = Question {
        id: "2hop__x".into(),
        question: "Where was the maker of the harbour bell born?".into(),
        answers: vec!["Kelmouth".into()],
        paragraphs: (1..=3)
            .map(|i| Paragraph {
                title: format!("P{i}"),
                text: format!("Paragraph {i} about a bell."),
                supporting: i == 1,
            })
            .collect(),
        answerable: None,
    };
    let plan = run::QaPlan {
        data: "x.jsonl".into(),
        format: data::Format::Musique,
        ids: vec![q.id.clone()],
        sample: None,
        memories: vec![QaMemory::Arigraph],
        profile: crate::profile::ProfileRecord::new(crate::profile::Profile::Paper, &[]),
        memory: crate::memory::MemorySettings::default(),
        outdated_check: false,
        ranking: ranking::EpisodeRanking::Reference,
        prompts: None,
        seed: 0,
        llm: serde_json::Value::Null,
        created_at: String::new(),
    };
    let llm = Llm {
        backend: std::sync::Arc::new(Scripted::default()),
        prompts: Prompts::load(None).expect("prompts"),
    };
    answer(&llm, &plan, QaMemory::Arigraph, &q)
        .await
        .expect("answered");
    let shown = SHOWN.lock().unwrap().clone();
    assert_eq!(
        shown,
        [
            "2hop__x: reading paragraph 1 of 3 into the graph",
            "2hop__x: reading paragraph 2 of 3 into the graph",
            "2hop__x: reading paragraph 3 of 3 into the graph",
            "2hop__x: 3 paragraphs read; retrieving and answering",
        ]
    );
}
