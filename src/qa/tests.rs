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

/// A question of minutes says where it stands: the paragraphs' extractions done so far,
/// the paragraphs added to the graph, then the retrieval and answer; read one after
/// another (the default), each paragraph in flight.
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
    let llm = Llm {
        backend: std::sync::Arc::new(Scripted::default()),
        prompts: Prompts::load(None).expect("prompts"),
    };
    // Only this question's (other tests of this binary read paragraphs too).
    let shown = |id: &str| -> Vec<String> {
        SHOWN
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.starts_with(&format!("{id}:")))
            .cloned()
            .collect()
    };
    let one_by_one = Question {
        id: "2hop__w".into(),
        ..q.clone()
    };
    let plan = run::QaPlan {
        extractions_at_once: 1,
        ..test_plan(&one_by_one)
    };
    answer(&llm, &plan, QaMemory::Arigraph, &one_by_one)
        .await
        .expect("answered");
    assert_eq!(
        shown("2hop__w"),
        [
            "2hop__w: reading paragraph 1 of 3 into the graph",
            "2hop__w: reading paragraph 2 of 3 into the graph",
            "2hop__w: reading paragraph 3 of 3 into the graph",
            "2hop__w: 3 paragraphs read; retrieving and answering",
        ]
    );
    let plan = test_plan(&q);
    answer(&llm, &plan, QaMemory::Arigraph, &q)
        .await
        .expect("answered");
    assert_eq!(
        shown("2hop__x"),
        [
            "2hop__x: extracting the paragraphs' triplets, 0 of 3 done (4 at once)",
            "2hop__x: extracting the paragraphs' triplets, 1 of 3 done (4 at once)",
            "2hop__x: extracting the paragraphs' triplets, 2 of 3 done (4 at once)",
            "2hop__x: adding 3 paragraphs to the graph",
            "2hop__x: 3 paragraphs read; retrieving and answering",
        ]
    );
}

/// Answers each paragraph's extraction from the paragraph it names, later paragraphs
/// sooner ("Paragraph 1" waits longest): concurrent extractions come back out of order.
struct OutOfOrder(crate::llm::scripted::Scripted);

#[async_trait::async_trait]
impl crate::llm::ChatBackend for OutOfOrder {
    async fn chat(
        &self,
        request: &crate::llm::ChatRequest,
    ) -> Result<crate::llm::ChatAnswer, crate::llm::LlmError> {
        if request.purpose != "extract_triplets" {
            return self.0.chat(request).await;
        }
        let text = request
            .messages
            .last()
            .map(|m| m.content.as_str())
            .unwrap_or("");
        let n: u64 = (1..=4)
            .find(|i| text.contains(&format!("Paragraph {i} ")))
            .expect("a paragraph");
        tokio::time::sleep(std::time::Duration::from_millis(20 * (5 - n))).await;
        // Paragraphs 2 and 4 repeat paragraph 1's fact: the graph keeps it once, under
        // the id the first paragraph gave it.
        let content = serde_json::json!({"triplets": [
            {"subject": "bell", "relation": "made in", "object": "kelmouth"},
            {"subject": format!("maker {n}"), "relation": "born in", "object": format!("town {n}")},
        ]})
        .to_string();
        Ok(crate::llm::ChatAnswer {
            content,
            finish_reason: Some("stop".into()),
            ..crate::llm::ChatAnswer::default()
        })
    }

    async fn embed(
        &self,
        texts: &[String],
        kind: crate::llm::EmbedKind,
    ) -> Result<crate::llm::Embeddings, crate::llm::LlmError> {
        self.0.embed(texts, kind).await
    }

    fn model_name(&self) -> String {
        "out-of-order".into()
    }
}

/// Extractions asked concurrently and answered out of order build the graph, and the
/// record of calls, that reading the paragraphs one after another builds.
#[tokio::test]
async fn concurrent_extraction_builds_the_sequential_graph() {
    use crate::llm::{CallLog, Llm, prompts::Prompts};
    use crate::memory::{AriGraphMemory, MemoryModule};
    let q = Question {
        id: "2hop__y".into(),
        question: "Where was the maker of the bell born?".into(),
        answers: vec!["town 1".into()],
        paragraphs: (1..=4)
            .map(|i| Paragraph {
                title: format!("P{i}"),
                text: format!("Paragraph {i} about the bell."),
                supporting: i == 1,
            })
            .collect(),
        answerable: None,
    };
    let plan = test_plan(&q);
    let llm = Llm {
        backend: std::sync::Arc::new(OutOfOrder(crate::llm::scripted::Scripted::default())),
        prompts: Prompts::load(None).expect("prompts"),
    };
    let mut log = CallLog::default();
    let (graph, _) = context::read_paragraphs(&llm, &mut log, &plan, &q)
        .await
        .expect("read");
    assert!(!graph.extraction_reads_the_graph());
    // The same paragraphs read one after another.
    let mut sequential = AriGraphMemory::new(crate::memory::MemorySettings {
        episodes: QA_EPISODES,
        ..plan.memory.clone()
    });
    let mut seq_log = CallLog::default();
    for (i, p) in q.paragraphs.iter().enumerate() {
        let seen = context::paragraph_seen(i, &p.text, &q);
        sequential
            .update(&llm, &mut seq_log, &seen)
            .await
            .expect("update");
    }
    let facts = |g: &AriGraphMemory| -> Vec<(u32, String, Vec<String>)> {
        g.graph
            .episodes()
            .iter()
            .map(|e| {
                let ids = e.triplets.iter().map(|id| format!("{id:?}")).collect();
                (e.step, e.observation.clone(), ids)
            })
            .collect()
    };
    assert_eq!(facts(&graph), facts(&sequential));
    let texts = |g: &AriGraphMemory| -> Vec<String> {
        g.graph
            .alive_ids()
            .map(|id| g.graph.triplet(id).text())
            .collect()
    };
    assert_eq!(texts(&graph), texts(&sequential));
    assert_eq!(texts(&graph).len(), 5, "{:?}", texts(&graph));
    let calls = |l: &CallLog| -> Vec<String> {
        l.calls
            .iter()
            .map(|c| format!("{}: {}", c.purpose, c.messages.last().unwrap().content))
            .collect()
    };
    assert_eq!(calls(&log), calls(&seq_log));
    let embeds =
        |l: &CallLog| -> Vec<Vec<String>> { l.embeds.iter().map(|e| e.texts.clone()).collect() };
    assert_eq!(embeds(&log), embeds(&seq_log));
}

/// The plan of a one-question AriGraph run under `paper` (no outdated check), 4
/// extractions at once.
fn test_plan(q: &Question) -> run::QaPlan {
    run::QaPlan {
        data: "x.jsonl".into(),
        format: data::Format::Musique,
        ids: vec![q.id.clone()],
        sample: None,
        memories: vec![QaMemory::Arigraph],
        profile: crate::profile::ProfileRecord::new(crate::profile::Profile::Paper, &[]),
        memory: crate::memory::MemorySettings::default(),
        outdated_check: false,
        ranking: ranking::EpisodeRanking::Reference,
        extractions_at_once: 4,
        prompts: None,
        seed: 0,
        llm: serde_json::Value::Null,
        created_at: String::new(),
    }
}
