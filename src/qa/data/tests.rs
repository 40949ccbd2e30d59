use super::*;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn both_formats_are_detected_and_read() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(
        dir.path(),
        "m.jsonl",
        r#"{"id": "q1", "question": "Who?", "answer": "Ann", "answer_aliases": ["Anne"], "answerable": true, "paragraphs": [{"idx": 0, "title": "A", "paragraph_text": "Ann lives here.", "is_supporting": true}, {"idx": 1, "title": "B", "paragraph_text": "Noise.", "is_supporting": false}]}"#,
    );
    let (f, qs) = load(&m).unwrap();
    assert_eq!(f, Format::Musique);
    assert_eq!(qs[0].answers, ["Ann", "Anne"]);
    assert_eq!(qs[0].supporting(), [0]);
    let h = write(
        dir.path(),
        "h.json",
        r#"[{"_id": "h1", "question": "Where?", "answer": "Oslo", "context": [["Noise", ["It rains.", " A lot."]], ["City", ["Oslo is big.", " It is cold."]]], "supporting_facts": [["City", 0]]}]"#,
    );
    let (f, qs) = load(&h).unwrap();
    assert_eq!(f, Format::Hotpotqa);
    assert_eq!(qs[0].paragraphs[0].text, "It rains. A lot.");
    assert_eq!(qs[0].supporting(), [1]);
}

#[test]
fn a_malformed_record_is_one_line_naming_record_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let m = write(
        dir.path(),
        "m.jsonl",
        "{\"id\": \"q1\", \"question\": \"Who?\", \"answer\": \"Ann\", \"paragraphs\": []}\n{\"id\": \"q2\", \"question\": \"Who?\", \"answer\": 3, \"paragraphs\": []}\n",
    );
    let e = load(&m).unwrap_err().to_string();
    assert!(
        e.contains("line 2 (id \"q2\"): field `answer` is not a string"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1);
    let h = write(
        dir.path(),
        "h.json",
        r#"[{"_id": "h1", "question": "Q", "answer": "A", "context": [["T", "not a list"]]}]"#,
    );
    let e = load(&h).unwrap_err().to_string();
    assert!(
        e.contains("record 1 (id \"h1\"): context[0] is not [title, [sentence, ...]]"),
        "{e}"
    );
    assert!(!e.contains(" at line "), "{e}");
    // Streamed: an array cut short is refused, not read in part.
    let cut = write(
        dir.path(),
        "cut.json",
        r#"[{"_id": "h1", "question": "Q", "answer": "A", "context": [["T", ["x."]]], "supporting_facts": [["T", 0]]}, {"_id": "h2", "quest"#,
    );
    let e = load(&cut).unwrap_err().to_string();
    assert!(
        e.contains("cut.json: not a JSON array of records: EOF"),
        "{e}"
    );
    let other = write(dir.path(), "x.txt", "hello");
    assert!(load(&other).unwrap_err().to_string().contains("neither"));
    let empty = write(dir.path(), "empty.json", "\u{feff}  \n");
    assert!(load(&empty).unwrap_err().to_string().contains("neither"));
}

/// Real files' variants: a byte-order mark, blank lines (errors name the line),
/// a line that is JSON but not an object, booleans given as strings, a supporting
/// title no paragraph has, 2WikiMultihopQA's sentences without leading spaces,
/// unanswerable questions, an id listed twice.
#[test]
fn real_files_variants_are_read_or_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let rec = |id: &str, extra: &str| {
        format!(
            r#"{{"id": "{id}", "question": "Who?", "answer": "Ann", "paragraphs": [{{"title": "A", "paragraph_text": "Ann.", "is_supporting": true}}]{extra}}}"#
        )
    };
    let m = write(
        dir.path(),
        "bom.jsonl",
        &format!(
            "\u{feff}{}\n{}\n",
            rec("q1", ""),
            rec("q2", r#", "answerable": false"#)
        ),
    );
    let (f, qs) = load(&m).unwrap();
    assert_eq!((f, qs.len()), (Format::Musique, 2));
    let (kept, left) = answerable(qs);
    assert_eq!((kept.len(), left, kept[0].id.as_str()), (1, 1, "q1"));
    let cases = [
        (
            format!("{}\n\n\n{{\"id\": \"x\"}}\n", rec("q1", "")),
            "line 4 (id \"x\"): field `answer` is missing",
        ),
        (
            format!("{}\n[1, 2]\n", rec("q1", "")),
            "line 2 is not a JSON object",
        ),
        (
            rec("q1", "").replace("\"is_supporting\": true", "\"is_supporting\": \"true\""),
            "paragraphs[0]: field `is_supporting` is not a boolean",
        ),
        (
            rec("q1", r#", "answerable": "yes""#),
            "field `answerable` is not a boolean",
        ),
    ];
    for (text, want) in cases {
        let p = write(dir.path(), "bad.jsonl", &text);
        let e = load(&p).unwrap_err().to_string();
        assert!(
            e.contains(want) && e.lines().count() == 1,
            "{e} should say {want}"
        );
    }
    let w = write(
        dir.path(),
        "wiki.json",
        r#"[{"_id": "w1", "question": "Q", "answer": "A", "context": [["T", ["It rains.", "A lot.", " Then sun."]]], "supporting_facts": [["T", 0]], "evidences": [], "type": "compositional"}]"#,
    );
    assert_eq!(
        load(&w).unwrap().1[0].paragraphs[0].text,
        "It rains. A lot. Then sun."
    );
    let h = write(
        dir.path(),
        "h.json",
        r#"[{"_id": "h1", "question": "Q", "answer": "A", "context": [["T", ["x."]]], "supporting_facts": [["Elsewhere", 0]]}]"#,
    );
    let e = load(&h).unwrap_err().to_string();
    assert!(e.contains("names the title \"Elsewhere\""), "{e}");
    let ids = write(dir.path(), "ids.txt", "q1\n# again\nq1\n");
    let (_, qs) = load(&m).unwrap();
    let e = select(qs, &ids).unwrap_err().to_string();
    assert!(e.contains("\"q1\" is listed twice"), "{e}");
}

#[test]
fn sampling_is_reproducible_and_independent_of_file_order() {
    let q = |id: &str| Question {
        id: id.into(),
        question: String::new(),
        answers: vec![String::new()],
        paragraphs: Vec::new(),
        answerable: None,
    };
    let all: Vec<Question> = (0..20).map(|i| q(&format!("q{i}"))).collect();
    let mut reversed = all.clone();
    reversed.reverse();
    let a: Vec<String> = sample(all.clone(), 5, 7)
        .into_iter()
        .map(|q| q.id)
        .collect();
    let b: Vec<String> = sample(reversed, 5, 7).into_iter().map(|q| q.id).collect();
    assert_eq!(a, b);
    let c: Vec<String> = sample(all, 5, 8).into_iter().map(|q| q.id).collect();
    assert_ne!(a, c);
}
