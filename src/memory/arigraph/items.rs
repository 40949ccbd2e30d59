//! Extraction items read one by one (memory rules 8): each item of an extraction
//! answer is read as the reference reads a triplet's text (`utils/utils.py:26-40`,
//! `process_triplets`), so a malformed item is refused alone, counted, and never joined
//! or split into a triplet by guess.

use serde::Deserialize;
use serde_json::Value;

use super::answers::{Extraction, RawTriplet};
use crate::llm::bounds::{self, Bounded};
use crate::llm::structured::kind_of;

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
            for read_as in read_item(item) {
                match read_as {
                    Item::Triplet(t) => triplets.push(t),
                    Item::Repaired(t) => {
                        read.repaired += 1;
                        triplets.push(t);
                    }
                    Item::Refused(why) => read.refused.push(format!("triplets[{i}]: {why}")),
                }
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
    /// Three parts in the only reading there is: a `subject, relation, object` string
    /// (the reference's own form), or a number or boolean written for a string.
    Repaired(RawTriplet),
    /// Not three parts: why.
    Refused(String),
}

/// A text split at each comma that is not between two digits (`14,200` is one
/// number), each part trimmed; empty parts kept (they refuse the triplet).
fn comma_parts(text: &str) -> Vec<String> {
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
    parts.into_iter().map(|p| p.trim().to_string()).collect()
}

/// A part written as JSON: a string as it is, a number or boolean as its text (with
/// whether it was converted); anything else is no part.
fn part_text(v: &Value) -> Option<(String, bool)> {
    match v {
        Value::String(s) => Some((s.clone(), false)),
        Value::Number(n) => Some((n.to_string(), true)),
        Value::Bool(b) => Some((b.to_string(), true)),
        _ => None,
    }
}

/// Three written parts as a triplet, or why not: each non-empty and holding no
/// separating comma (the reference's text form would read it as more parts).
fn three_parts(parts: Vec<(String, bool)>) -> Item {
    if parts.len() != 3 {
        return Item::Refused(format!(
            "{} parts, not subject, relation, object",
            parts.len()
        ));
    }
    let converted = parts.iter().any(|(_, c)| *c);
    let mut texts = Vec::with_capacity(3);
    for (text, _) in parts {
        match comma_parts(&text).as_slice() {
            [one] if !one.is_empty() => texts.push(one.clone()),
            [_] => return Item::Refused("an empty part".into()),
            many => {
                return Item::Refused(format!(
                    "the part {text:?} holds {} comma-separated parts",
                    many.len()
                ));
            }
        }
    }
    let [subject, relation, object]: [String; 3] = match texts.try_into() {
        Ok(t) => t,
        Err(_) => return Item::Refused("3 parts expected".into()),
    };
    let t = RawTriplet {
        subject,
        relation,
        object,
    };
    if converted {
        Item::Repaired(t)
    } else {
        Item::Triplet(t)
    }
}

/// Read one extraction item as the reference reads a triplet (`utils/utils.py:26-40`,
/// `process_triplets`: the answer split at `;`, each piece split at commas and kept
/// only with exactly three non-empty parts), a comma between two digits being no
/// separator. An array of three parts or the object form `{"subject", "relation",
/// "object"}` is a triplet when each part is non-empty text with no separating comma
/// (a number or boolean is read as its text: a repair); a string is the reference's
/// own form, `subject, relation, object`, several joined by `;`, each piece with
/// exactly three parts read as a triplet (a repair). Everything else is refused, so a
/// tuple of four parts is never joined into three, a part holding two never split
/// off, two parts never made three.
pub(super) fn read_item(item: &Value) -> Vec<Item> {
    let refused = |why: String| vec![Item::Refused(why)];
    match item {
        Value::Array(xs) => match xs.iter().map(part_text).collect::<Option<Vec<_>>>() {
            Some(parts) => vec![three_parts(parts)],
            None => refused("a part that is not text".into()),
        },
        Value::Object(o) => {
            let fields: Option<Vec<(String, bool)>> = ["subject", "relation", "object"]
                .iter()
                .map(|k| o.get(*k).and_then(part_text))
                .collect();
            match fields {
                Some(f) if o.len() == 3 => vec![three_parts(f)],
                _ => refused("an object other than {subject, relation, object}".into()),
            }
        }
        Value::String(s) => s
            .split(';')
            .filter(|piece| !piece.trim().is_empty())
            .map(|piece| {
                let parts = comma_parts(piece);
                match three_parts(parts.into_iter().map(|p| (p, false)).collect()) {
                    Item::Triplet(t) | Item::Repaired(t) => Item::Repaired(t),
                    Item::Refused(why) => Item::Refused(format!("{piece:?}: {why}")),
                }
            })
            .collect(),
        other => refused(format!("{}, not a triplet", kind_of(other))),
    }
}
