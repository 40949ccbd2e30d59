//! Extraction items read one by one (memory rules 8): each item of an extraction
//! answer is read as the reference reads a triplet's text (`utils/utils.py:26-40`,
//! `process_triplets`), so a malformed item is refused alone, counted, and never joined
//! or split into a triplet by guess.

use serde::Deserialize;
use serde_json::Value;

use super::answers::{Extraction, RawTriplet};
use crate::llm::bounds::{self, Bounded};

/// An extraction answer read item by item (memory rules 8): each item of `triplets` is
/// kept as the JSON value it is and read by [`read_item`], so one malformed item is
/// refused alone instead of the whole answer.
#[derive(Deserialize)]
pub(super) struct ExtractionItems {
    triplets: Vec<Value>,
    #[serde(default)]
    theses: Option<Value>,
}

impl Bounded for ExtractionItems {
    /// Only the count: the parts' lengths are bounded once the items are read
    /// ([`ExtractionItems::read`]).
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(&mut self.triplets, bounds::TRIPLETS, "triplets", &mut notes);
        notes
    }
}

/// What became of an answer's items: the triplets read, how many needed repair, and a
/// note per item refused.
#[derive(Debug, Default)]
pub(super) struct ItemsRead {
    pub(super) repaired: u32,
    pub(super) refused: Vec<String>,
    pub(super) trimmed: Vec<String>,
}

impl ExtractionItems {
    /// The answer as an [`Extraction`]: each item read by [`read_item`], then the parts'
    /// lengths bounded as [`Extraction`]'s are.
    pub(super) fn read(self) -> (Extraction, ItemsRead) {
        let mut read = ItemsRead::default();
        let mut triplets = Vec::new();
        for (i, item) in self.triplets.iter().enumerate() {
            match read_item(item) {
                Item::Triplet(t) => triplets.push(t),
                Item::Repaired(t) => {
                    read.repaired += 1;
                    triplets.push(t);
                }
                Item::Refused(why) => read.refused.push(format!("triplets[{i}]: {why}")),
            }
        }
        let mut e = Extraction {
            triplets,
            theses: self.theses,
        };
        read.trimmed = e.bound();
        (e, read)
    }
}

/// One extraction item as read under memory rules 8 ([`read_item`]).
#[derive(Debug)]
pub(super) enum Item {
    /// Three parts as asked.
    Triplet(RawTriplet),
    /// Three parts once the item was read as the reference reads a triplet's text (a
    /// `subject, relation, object` string, a part holding two of them, a number for a
    /// string, an empty part dropped).
    Repaired(RawTriplet),
    /// Not three parts in any one reading: why.
    Refused(String),
}

/// The parts of one part of a triplet: split at each comma that is not between two
/// digits (`14,200` is one number), trimmed, empty parts dropped.
fn parts_of(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut parts = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let between_digits = i > 0
            && chars[i - 1].is_ascii_digit()
            && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c == ',' && !between_digits {
            parts.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Read one extraction item as the reference reads a triplet (`utils/utils.py:26-40`,
/// `process_triplets`: its text `subject, relation, object` split at commas, kept only
/// with exactly three parts), except that a comma between two digits is no separator.
/// An array of strings (numbers read as their text), one string, or the object form
/// `{"subject", "relation", "object"}`: its parts, each split at its commas, must come
/// to exactly three non-empty parts. Three parts as written is a triplet; three once
/// split, joined or emptied is a repair (the reading is the only one); any other count,
/// or an item of another shape, is refused: a tuple of four parts is never joined into
/// three, nor two split into three by guess.
pub(super) fn read_item(item: &Value) -> Item {
    let (written, converted): (Vec<String>, bool) = match item {
        Value::Array(xs) => {
            let mut out = Vec::new();
            let mut converted = false;
            for x in xs {
                match x {
                    Value::String(s) => out.push(s.clone()),
                    Value::Number(n) => {
                        converted = true;
                        out.push(n.to_string());
                    }
                    other => {
                        return Item::Refused(format!(
                            "a part is {}, not a string",
                            kind_of(other)
                        ));
                    }
                }
            }
            (out, converted)
        }
        Value::String(s) => (vec![s.clone()], true),
        Value::Object(o) => {
            let fields: Option<Vec<String>> = ["subject", "relation", "object"]
                .iter()
                .map(|k| o.get(*k).and_then(Value::as_str).map(str::to_string))
                .collect();
            match fields {
                Some(f) if o.len() == 3 => (f, false),
                _ => {
                    return Item::Refused(
                        "an object other than {subject, relation, object}".into(),
                    );
                }
            }
        }
        other => return Item::Refused(format!("{}, not a triplet", kind_of(other))),
    };
    let parts: Vec<String> = written.iter().flat_map(|p| parts_of(p)).collect();
    let [subject, relation, object] = match <[String; 3]>::try_from(parts) {
        Ok(three) => three,
        Err(parts) => {
            return Item::Refused(format!(
                "{} parts ({}), not subject, relation, object",
                parts.len(),
                parts
                    .iter()
                    .map(|p| format!("{p:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    };
    let as_written = !converted
        && written.len() == 3
        && written
            .iter()
            .zip([&subject, &relation, &object])
            .all(|(w, p)| w.trim() == p.as_str());
    let t = RawTriplet {
        subject,
        relation,
        object,
    };
    if as_written {
        Item::Triplet(t)
    } else {
        Item::Repaired(t)
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
    }
}
