//! Multi-hop question-answering data sets in their official formats, detected from the
//! content (paper section 4.3):
//! - **MuSiQue** (`*.jsonl`, one object per line): `id`, `question`, `answer`,
//!   `answer_aliases`, `answerable`, `paragraphs` (`title`, `paragraph_text`,
//!   `is_supporting`);
//! - **HotpotQA** and **2WikiMultihopQA** (`*.json`, one array): `_id`, `question`,
//!   `answer`, `context` (`[title, [sentence, ...]]`), `supporting_facts`
//!   (`[title, sentence index]`).
//!
//! A malformed file is one line naming the record (MuSiQue: its line) and the field
//! ([`UserError`]). A UTF-8 byte-order mark at the start is skipped. MuSiQue's
//! unanswerable questions (`answerable: false`, in its full sets) are kept here and left
//! out by [`answerable`], as the paper's protocol answers the answerable set
//! (`musique_ans`).

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
/// shape, JSON objects one per line are MuSiQue's. The file is streamed: one record at
/// a time becomes a [`Question`], so a run holds the questions, not the file's text and
/// its parsed records beside them.
///
/// # Errors
/// An unreadable file, or one line naming the record and field that is malformed.
pub fn load(path: &Path) -> Result<(Format, Vec<Question>)> {
    let cannot = |e: std::io::Error| {
        UserError::new(format!("cannot read the data file {}: {e}", path.display()))
    };
    let mut reader = std::io::BufReader::new(std::fs::File::open(path).map_err(cannot)?);
    let name = path.display().to_string();
    let first = first_char(&mut reader).map_err(cannot)?;
    let (format, questions) = match first {
        Some(b'[') => (Format::Hotpotqa, hotpot_records(reader, &name)?),
        Some(b'{') => (Format::Musique, musique_lines(reader, &name)?),
        _ => bail!(UserError::new(format!(
            "{name}: neither MuSiQue's JSON lines nor HotpotQA's JSON array"
        ))),
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

/// Skip a UTF-8 byte-order mark and leading whitespace; the first byte after them
/// (left unread), or `None` for an empty file.
fn first_char(reader: &mut impl std::io::BufRead) -> std::io::Result<Option<u8>> {
    let mut at_start = true;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        if at_start && buf.starts_with(b"\xef\xbb\xbf") {
            reader.consume(3);
            at_start = false;
            continue;
        }
        at_start = false;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let b = buf[i];
                reader.consume(i);
                return Ok(Some(b));
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
}

/// MuSiQue's lines, each a [`Question`] as it is read.
fn musique_lines(reader: impl std::io::BufRead, name: &str) -> Result<Vec<Question>> {
    let mut qs = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| UserError::new(format!("{name}: line {}: {e}", i + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let r: Value = serde_json::from_str(&line)
            .ok()
            .filter(Value::is_object)
            .ok_or_else(|| {
                let why = serde_json::from_str::<Value>(&line)
                    .err()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default();
                UserError::new(format!("{name}: line {} is not a JSON object{why}", i + 1))
            })?;
        qs.push(musique(&r).map_err(|f| bad(name, &format!("line {}", i + 1), &r, &f))?);
    }
    Ok(qs)
}

/// HotpotQA's array, each record a [`Question`] as it is read (one record in memory at
/// a time).
fn hotpot_records(reader: impl std::io::Read, name: &str) -> Result<Vec<Question>> {
    struct Records<'a>(&'a str);
    impl<'de> serde::de::Visitor<'de> for Records<'_> {
        type Value = Vec<Question>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON array of records")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut qs = Vec::new();
            while let Some(r) = seq.next_element::<Value>()? {
                let place = format!("record {}", qs.len() + 1);
                let q = hotpot(&r).map_err(|f| {
                    serde::de::Error::custom(format!("{:#}", bad(self.0, &place, &r, &f)))
                })?;
                qs.push(q);
            }
            Ok(qs)
        }
    }
    let mut de = serde_json::Deserializer::from_reader(reader);
    let qs = serde::Deserializer::deserialize_seq(&mut de, Records(name))
        .and_then(|qs| de.end().map(|()| qs))
        .map_err(|e| {
            let text = e.to_string();
            if text.starts_with(name) {
                // A record's field: the message [`bad`] wrote, without serde's position.
                let text = text
                    .rsplit_once(" at line ")
                    .map_or(text.as_str(), |(m, _)| m);
                UserError::new(text.to_string())
            } else {
                UserError::new(format!("{name}: not a JSON array of records: {e}"))
            }
        })?;
    Ok(qs)
}

fn bad(file: &str, place: &str, record: &Value, field: &str) -> anyhow::Error {
    let id = ["id", "_id"]
        .iter()
        .find_map(|k| record.get(*k).and_then(Value::as_str))
        .map(|id| format!(" (id {id:?})"))
        .unwrap_or_default();
    UserError::new(format!("{file}: {place}{id}: {field}")).into()
}

/// An optional boolean field: absent is `None`; anything but `true`/`false` is an error
/// (a string "true" would otherwise read as false).
fn boolean(r: &Value, key: &str) -> Result<Option<bool>, String> {
    match r.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(format!("field `{key}` is not a boolean")),
    }
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
            supporting: boolean(p, "is_supporting")
                .map_err(|e| format!("paragraphs[{i}]: {e}"))?
                .unwrap_or(false),
        });
    }
    Ok(Question {
        id: string(r, "id")?,
        question: string(r, "question")?,
        answers,
        paragraphs,
        answerable: boolean(r, "answerable")?,
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
        let sentences = sentences
            .iter()
            .map(|s| {
                s.as_str()
                    .ok_or(format!("context[{i}] holds a non-string sentence"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let text = join_sentences(&sentences);
        paragraphs.push(Paragraph {
            title: title.to_string(),
            text: text.trim().to_string(),
            supporting: supporting.contains(title),
        });
    }
    if let Some(t) = supporting
        .iter()
        .find(|t| !paragraphs.iter().any(|p| &p.title == *t))
    {
        return Err(format!(
            "`supporting_facts` names the title {t:?}, which no context paragraph has"
        ));
    }
    Ok(Question {
        id: string(r, "_id")?,
        question: string(r, "question")?,
        answers: vec![string(r, "answer")?],
        paragraphs,
        answerable: None,
    })
}

/// A paragraph's sentences as one text: HotpotQA's sentences carry their own leading
/// space (`["It rains.", " A lot."]`) and are joined as they are; 2WikiMultihopQA's do
/// not (`["It rains.", "A lot."]`), so a space goes between two sentences that meet
/// with no whitespace (the reference joins with a space).
fn join_sentences(sentences: &[&str]) -> String {
    let mut text = String::new();
    for s in sentences {
        let meets = !text.is_empty()
            && !text.ends_with(char::is_whitespace)
            && !s.starts_with(char::is_whitespace);
        if meets {
            text.push(' ');
        }
        text.push_str(s);
    }
    text.trim().to_string()
}

/// The answerable questions, and how many were left out: MuSiQue's full sets pair each
/// answerable question with an unanswerable one (`answerable: false`), which the paper's
/// protocol (the answerable set, `musique_ans`) does not ask.
pub fn answerable(questions: Vec<Question>) -> (Vec<Question>, usize) {
    let n = questions.len();
    let kept: Vec<Question> = questions
        .into_iter()
        .filter(|q| q.answerable != Some(false))
        .collect();
    let left = n - kept.len();
    (kept, left)
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
    let mut listed = HashSet::new();
    for id in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        if !listed.insert(id) {
            bail!(UserError::new(format!(
                "{}: the id {id:?} is listed twice (a question is answered once)",
                ids_file.display()
            )));
        }
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
mod tests;
