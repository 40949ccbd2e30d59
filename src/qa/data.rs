//! Multi-hop question-answering data sets in their official formats, detected from the
//! content (paper section 4.3):
//! - **MuSiQue** (`*.jsonl`, one object per line): `id`, `question`, `answer`,
//!   `answer_aliases`, `answerable`, `paragraphs` (`title`, `paragraph_text`,
//!   `is_supporting`);
//! - **HotpotQA** and **2WikiMultihopQA** (`*.json`, one array): `_id`, `question`,
//!   `answer`, `context` (`[title, [sentence, ...]]`), `supporting_facts`
//!   (`[title, sentence index]`).
//!
//! A malformed file is one line naming the record and the field ([`UserError`]).

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::UserError;

/// The format a file was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// MuSiQue's JSON lines.
    Musique,
    /// HotpotQA's (and 2WikiMultihopQA's) JSON array.
    Hotpotqa,
}

impl Format {
    /// The name in tables and files.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Musique => "musique",
            Format::Hotpotqa => "hotpotqa",
        }
    }
}

/// One paragraph of a question's context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paragraph {
    /// Its title (a Wikipedia page's, in the official sets).
    pub title: String,
    /// Its text.
    pub text: String,
    /// One of the paragraphs the answer needs (MuSiQue's `is_supporting`; HotpotQA's
    /// titles named in `supporting_facts`).
    pub supporting: bool,
}

/// One question with its context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// The record's id (`id`, `_id`).
    pub id: String,
    /// The question.
    pub question: String,
    /// The gold answer first, then its aliases (MuSiQue's `answer_aliases`).
    pub answers: Vec<String>,
    /// The context paragraphs, in the file's order.
    pub paragraphs: Vec<Paragraph>,
    /// MuSiQue's `answerable` (absent elsewhere).
    pub answerable: Option<bool>,
}

impl Question {
    /// Indices of the supporting paragraphs.
    pub fn supporting(&self) -> Vec<usize> {
        (0..self.paragraphs.len())
            .filter(|&i| self.paragraphs[i].supporting)
            .collect()
    }
}

/// Read a data set, its format detected from the content: a JSON array is HotpotQA's
/// shape, JSON objects one per line are MuSiQue's.
///
/// # Errors
/// An unreadable file, or one line naming the record and field that is malformed.
pub fn load(path: &Path) -> Result<(Format, Vec<Question>)> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        UserError::new(format!("cannot read the data file {}: {e}", path.display()))
    })?;
    let name = path.display().to_string();
    let trimmed = text.trim_start();
    let (format, questions) = if trimmed.starts_with('[') {
        let records: Vec<Value> = serde_json::from_str(trimmed)
            .map_err(|e| UserError::new(format!("{name}: not a JSON array of records: {e}")))?;
        let qs = records
            .iter()
            .enumerate()
            .map(|(i, r)| hotpot(r).map_err(|f| bad(&name, i + 1, r, &f)))
            .collect::<Result<Vec<_>>>()?;
        (Format::Hotpotqa, qs)
    } else if trimmed.starts_with('{') {
        let mut qs = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let r: Value = serde_json::from_str(line).map_err(|e| {
                UserError::new(format!("{name}: line {} is not a JSON object: {e}", i + 1))
            })?;
            qs.push(musique(&r).map_err(|f| bad(&name, i + 1, &r, &f))?);
        }
        (Format::Musique, qs)
    } else {
        bail!(UserError::new(format!(
            "{name}: neither MuSiQue's JSON lines nor HotpotQA's JSON array"
        )));
    };
    if questions.is_empty() {
        bail!(UserError::new(format!("{name}: no question in the file")));
    }
    let mut ids = HashSet::new();
    if let Some(q) = questions.iter().find(|q| !ids.insert(q.id.as_str())) {
        bail!(UserError::new(format!(
            "{name}: the id {:?} is given to two records",
            q.id
        )));
    }
    Ok((format, questions))
}

fn bad(file: &str, n: usize, record: &Value, field: &str) -> anyhow::Error {
    let id = ["id", "_id"]
        .iter()
        .find_map(|k| record.get(*k).and_then(Value::as_str))
        .map(|id| format!(" (id {id:?})"))
        .unwrap_or_default();
    UserError::new(format!("{file}: record {n}{id}: {field}")).into()
}

fn string(r: &Value, key: &str) -> Result<String, String> {
    match r.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(format!("field `{key}` is not a string")),
        None => Err(format!("field `{key}` is missing")),
    }
}

/// One MuSiQue record.
fn musique(r: &Value) -> Result<Question, String> {
    let mut answers = vec![string(r, "answer")?];
    if let Some(aliases) = r.get("answer_aliases") {
        let list = aliases
            .as_array()
            .ok_or("field `answer_aliases` is not a list")?;
        for a in list {
            answers.push(
                a.as_str()
                    .ok_or("field `answer_aliases` holds a non-string")?
                    .to_string(),
            );
        }
    }
    let list = r
        .get("paragraphs")
        .ok_or("field `paragraphs` is missing")?
        .as_array()
        .ok_or("field `paragraphs` is not a list")?;
    let mut paragraphs = Vec::new();
    for (i, p) in list.iter().enumerate() {
        let text = string(p, "paragraph_text").map_err(|e| format!("paragraphs[{i}]: {e}"))?;
        paragraphs.push(Paragraph {
            title: string(p, "title").unwrap_or_default(),
            text,
            supporting: p
                .get("is_supporting")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        });
    }
    Ok(Question {
        id: string(r, "id")?,
        question: string(r, "question")?,
        answers,
        paragraphs,
        answerable: r.get("answerable").and_then(Value::as_bool),
    })
}

/// One HotpotQA (or 2WikiMultihopQA) record.
fn hotpot(r: &Value) -> Result<Question, String> {
    let supporting: HashSet<String> = match r.get("supporting_facts") {
        None => HashSet::new(),
        Some(v) => v
            .as_array()
            .ok_or("field `supporting_facts` is not a list")?
            .iter()
            .filter_map(|f| f.get(0).and_then(Value::as_str).map(str::to_string))
            .collect(),
    };
    let context = r
        .get("context")
        .ok_or("field `context` is missing")?
        .as_array()
        .ok_or("field `context` is not a list")?;
    let mut paragraphs = Vec::new();
    for (i, c) in context.iter().enumerate() {
        let (Some(title), Some(sentences)) = (
            c.get(0).and_then(Value::as_str),
            c.get(1).and_then(Value::as_array),
        ) else {
            return Err(format!("context[{i}] is not [title, [sentence, ...]]"));
        };
        let text: String = sentences
            .iter()
            .map(|s| {
                s.as_str()
                    .ok_or(format!("context[{i}] holds a non-string sentence"))
            })
            .collect::<Result<Vec<_>, _>>()?
            .concat();
        paragraphs.push(Paragraph {
            title: title.to_string(),
            text: text.trim().to_string(),
            supporting: supporting.contains(title),
        });
    }
    Ok(Question {
        id: string(r, "_id")?,
        question: string(r, "question")?,
        answers: vec![string(r, "answer")?],
        paragraphs,
        answerable: None,
    })
}

/// `n` questions picked reproducibly by `seed`: those whose SHA-256 of `seed:id` is
/// smallest, in that order (the same questions whatever the file's order).
pub fn sample(questions: Vec<Question>, n: usize, seed: u64) -> Vec<Question> {
    let mut keyed: Vec<([u8; 32], Question)> = questions
        .into_iter()
        .map(|q| {
            let key: [u8; 32] = Sha256::digest(format!("{seed}:{}", q.id)).into();
            (key, q)
        })
        .collect();
    keyed.sort_by_key(|a| a.0);
    keyed.into_iter().take(n).map(|(_, q)| q).collect()
}

/// The questions named in `ids` (one id per line, `#` comments), in that order.
///
/// # Errors
/// An unreadable file, an id the data set does not have, or no id at all.
pub fn select(questions: Vec<Question>, ids_file: &Path) -> Result<Vec<Question>> {
    let text = std::fs::read_to_string(ids_file).map_err(|e| {
        UserError::new(format!(
            "cannot read the ids file {}: {e}",
            ids_file.display()
        ))
    })?;
    let mut out = Vec::new();
    for id in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        match questions.iter().find(|q| q.id == id) {
            Some(q) => out.push(q.clone()),
            None => bail!(UserError::new(format!(
                "{}: the id {id:?} is not in the data set",
                ids_file.display()
            ))),
        }
    }
    if out.is_empty() {
        bail!(UserError::new(format!(
            "{}: no id in the file",
            ids_file.display()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
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
            e.contains("record 2 (id \"q2\"): field `answer` is not a string"),
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
        let other = write(dir.path(), "x.txt", "hello");
        assert!(load(&other).unwrap_err().to_string().contains("neither"));
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
}
