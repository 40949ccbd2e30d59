//! The invariants of the project's multi-hop sets with distractors
//! (`tests/qa/musique_distractors.jsonl`, `tests/qa/hotpot_distractors.json`, written by
//! `scripts/qa_sets.py`): enough questions, 2-4 hops, at least 10 paragraphs a question,
//! one supporting paragraph per hop, the answer in a supporting paragraph, ids and
//! titles unique, and a hard distractor in every question (a paragraph that is not
//! supporting but names a supporting paragraph's subject, shares its surname or a word
//! of its title, or states the same kind of fact). Each file is read by the loader
//! `ariadne qa` uses.

use std::collections::HashSet;
use std::path::PathBuf;

use ariadne::qa::data::{self, Format};
use serde_json::Value;

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/qa")
        .join(name)
}

/// The words a hard distractor may share with a supporting paragraph's title: each
/// capitalised word of four letters or more (a surname, a town, a company's name).
fn title_words(title: &str) -> Vec<String> {
    title
        .split_whitespace()
        .filter(|w| w.chars().count() >= 4)
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .map(str::to_string)
        .collect()
}

/// Whether `text` holds `word` as a whole word or phrase (not inside a longer name:
/// "Corlen" is not in "born in Corlendt"), case aside.
fn holds(text: &str, word: &str) -> bool {
    let (text, word) = (text.to_lowercase(), word.to_lowercase());
    text.match_indices(&word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The kind of fact a paragraph states first: the three words after its title, case
/// aside ("is a river", "is a stadium", "is a device").
fn kind_of_fact(title: &str, text: &str) -> Option<String> {
    let (title, text) = (title.to_lowercase(), text.to_lowercase());
    let after = &text[text.find(&title)? + title.len()..];
    let words: Vec<&str> = after.split_whitespace().take(3).collect();
    (words.len() == 3).then(|| words.join(" "))
}

/// Whether a distractor paragraph is hard for one of the supporting ones: it names a
/// supporting title, or shares a word of one, or its title does, or it states the
/// same kind of fact.
fn is_hard(distractor: (&str, &str), supporting: &[(&str, &str)]) -> bool {
    let (d_title, d_text) = distractor;
    supporting.iter().any(|(s_title, s_text)| {
        holds(d_text, s_title)
            || holds(s_text, d_title)
            || title_words(s_title)
                .iter()
                .any(|w| holds(d_title, w) || holds(d_text, w))
            || kind_of_fact(s_title, s_text)
                .is_some_and(|k| kind_of_fact(d_title, d_text) == Some(k))
    })
}

/// A question has a paragraph that is not among `support` and is a hard distractor
/// for one that is ([`is_hard`]).
fn assert_hard_distractor(id: &str, q: &ariadne::qa::data::Question, support: &[usize]) {
    let supporting: Vec<(&str, &str)> = support
        .iter()
        .map(|&i| {
            (
                q.paragraphs[i].title.as_str(),
                q.paragraphs[i].text.as_str(),
            )
        })
        .collect();
    assert!(
        q.paragraphs
            .iter()
            .enumerate()
            .filter(|(i, _)| !support.contains(i))
            .any(|(_, p)| is_hard((&p.title, &p.text), &supporting)),
        "{id}: no hard distractor"
    );
}

#[test]
fn the_musique_format_set_holds_its_invariants() {
    let p = path("musique_distractors.jsonl");
    let (format, questions) = data::load(&p).expect("the loader reads it");
    assert_eq!(format, Format::Musique);
    assert!(questions.len() >= 30, "{} questions", questions.len());
    let text = std::fs::read_to_string(&p).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut ids = HashSet::new();
    let mut hops_seen = HashSet::new();
    for (row, q) in rows.iter().zip(&questions) {
        let id = row["id"].as_str().unwrap();
        assert!(ids.insert(id.to_string()), "id {id} repeated");
        assert!(
            q.paragraphs.len() >= 10,
            "{id}: {} paragraphs",
            q.paragraphs.len()
        );
        let titles: HashSet<&str> = q.paragraphs.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles.len(), q.paragraphs.len(), "{id}: titles repeat");
        let hops = row["question_decomposition"].as_array().unwrap();
        assert!((2..=4).contains(&hops.len()), "{id}: {} hops", hops.len());
        assert!(
            id.starts_with(&format!("{}hop__", hops.len())),
            "{id}: its prefix does not name its {} hops",
            hops.len()
        );
        hops_seen.insert(hops.len());
        // One supporting paragraph per hop, each a different one, and no other.
        let support: Vec<usize> = hops
            .iter()
            .map(|h| h["paragraph_support_idx"].as_u64().unwrap() as usize)
            .collect();
        let distinct: HashSet<usize> = support.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            hops.len(),
            "{id}: a paragraph serves two hops"
        );
        let mut flagged = q.supporting();
        flagged.sort_unstable();
        let mut want: Vec<usize> = support.clone();
        want.sort_unstable();
        assert_eq!(
            flagged, want,
            "{id}: is_supporting against the decomposition"
        );
        // Each hop's answer in its paragraph; the last is the question's answer.
        for h in hops {
            let para = &q.paragraphs[h["paragraph_support_idx"].as_u64().unwrap() as usize];
            let answer = h["answer"].as_str().unwrap();
            assert!(
                holds(&para.text, answer),
                "{id}: {answer:?} not in {:?}",
                para.title
            );
        }
        assert_eq!(hops.last().unwrap()["answer"], row["answer"], "{id}");
        let last = &q.paragraphs[*support.last().unwrap()];
        assert!(
            q.answers.iter().any(|a| holds(&last.text, a)),
            "{id}: no answer in the last hop's paragraph"
        );
        assert_hard_distractor(id, q, &support);
    }
    assert_eq!(hops_seen.len(), 3, "2, 3 and 4 hops: {hops_seen:?}");
}

#[test]
fn the_hotpotqa_format_set_holds_its_invariants() {
    let p = path("hotpot_distractors.json");
    let (format, questions) = data::load(&p).expect("the loader reads it");
    assert_eq!(format, Format::Hotpotqa);
    assert!(questions.len() >= 20, "{} questions", questions.len());
    let rows: Vec<Value> = serde_json::from_str::<Value>(&std::fs::read_to_string(&p).unwrap())
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    let mut ids = HashSet::new();
    let mut kinds = HashSet::new();
    for (row, q) in rows.iter().zip(&questions) {
        let id = row["_id"].as_str().unwrap();
        assert!(ids.insert(id.to_string()), "id {id} repeated");
        kinds.insert(row["type"].as_str().unwrap().to_string());
        assert!(
            q.paragraphs.len() >= 10,
            "{id}: {} paragraphs",
            q.paragraphs.len()
        );
        let titles: HashSet<&str> = q.paragraphs.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles.len(), q.paragraphs.len(), "{id}: titles repeat");
        // One supporting paragraph per hop: each supporting fact in its own paragraph,
        // the sentence it names there.
        let facts = row["supporting_facts"].as_array().unwrap();
        assert!((2..=4).contains(&facts.len()), "{id}: {} hops", facts.len());
        let mut support = Vec::new();
        for f in facts {
            let title = f[0].as_str().unwrap();
            let sentence = f[1].as_u64().unwrap() as usize;
            let k = q
                .paragraphs
                .iter()
                .position(|p| p.title == title)
                .unwrap_or_else(|| panic!("{id}: no paragraph {title:?}"));
            let context = row["context"].as_array().unwrap();
            assert!(
                context[k][1].as_array().unwrap().len() > sentence,
                "{id}: no sentence {sentence} in {title:?}"
            );
            support.push(k);
        }
        let distinct: HashSet<usize> = support.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            facts.len(),
            "{id}: a paragraph serves two hops"
        );
        let mut flagged = q.supporting();
        flagged.sort_unstable();
        let mut want = support.clone();
        want.sort_unstable();
        assert_eq!(flagged, want, "{id}");
        assert!(
            support
                .iter()
                .any(|&i| holds(&q.paragraphs[i].text, &q.answers[0])),
            "{id}: the answer is in no supporting paragraph"
        );
        assert_hard_distractor(id, q, &support);
    }
    assert_eq!(kinds.len(), 2, "bridge and comparison: {kinds:?}");
}

/// The sets are what the generator writes: a hand edit that breaks the generator's
/// world shows here (skipped where no Python 3 is found).
#[test]
fn the_sets_are_the_generator_s() {
    let Ok(python) = which_python() else {
        eprintln!("no python3: skipped");
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(python)
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/qa_sets.py"))
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    for name in ["musique_distractors.jsonl", "hotpot_distractors.json"] {
        assert_eq!(
            std::fs::read_to_string(out.path().join(name)).unwrap(),
            std::fs::read_to_string(path(name)).unwrap(),
            "{name}: run `python3 scripts/qa_sets.py tests/qa`"
        );
    }
}

fn which_python() -> Result<&'static str, ()> {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .map(|_| "python3")
        .map_err(|_| ())
}

/// The checker's word match: a name inside a longer name is no match.
#[test]
fn a_name_inside_a_longer_name_is_no_match() {
    assert!(!holds("was a poet born in Corlendt.", "Corlen"));
    assert!(holds("was a poet born in Corlen.", "corlen"));
    assert!(holds("It holds 14,200 spectators.", "14,200"));
    assert!(!holds("It holds 114,200 spectators.", "14,200"));
}
