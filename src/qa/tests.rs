//! Tests of `qa`.

use super::*;
use data::Paragraph;

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
