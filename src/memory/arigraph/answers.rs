//! The answers of the AriGraph memory's LLM calls: extraction (triplets, and theses with
//! `--thesis`) and the outdated check, their JSON schemas and their bounds.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::llm::bounds::{self, Bounded};
use crate::memory::{MemoryRevision, PersonalAiForm, thesis};

/// One extracted triplet as the extractor writes it: `{"subject", "relation", "object"}`
/// (rules 1 and 2) or the compact `["subject", "relation", "object"]` (rules 3).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(from = "TripletForm")]
pub(super) struct RawTriplet {
    pub(super) subject: String,
    pub(super) relation: String,
    pub(super) object: String,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum TripletForm {
    Array([String; 3]),
    Object {
        subject: String,
        relation: String,
        object: String,
    },
}

impl From<TripletForm> for RawTriplet {
    fn from(f: TripletForm) -> Self {
        let (subject, relation, object) = match f {
            TripletForm::Array([s, r, o]) => (s, r, o),
            TripletForm::Object {
                subject,
                relation,
                object,
            } => (subject, relation, object),
        };
        Self {
            subject,
            relation,
            object,
        }
    }
}

#[derive(Deserialize)]
pub(super) struct Extraction {
    pub(super) triplets: Vec<RawTriplet>,
    /// The statements asked for with `--thesis`, read leniently ([`read_theses`]);
    /// ignored without the option.
    #[serde(default)]
    pub(super) theses: Option<Value>,
}

/// The theses of an extraction answer (`--thesis`): at most [`thesis::MAX_THESES`]
/// non-blank strings, each cut to [`thesis::THESIS_CHARS`]. Returns them with whether
/// the field needed repair (missing, not a list, or an item not a string: those are
/// dropped) and how many were cut or dropped for length or count.
pub(super) fn read_theses(field: Option<&Value>) -> (Vec<String>, bool, u32) {
    let Some(Value::Array(items)) = field else {
        return (Vec::new(), true, 0);
    };
    let mut repaired = false;
    let mut trimmed = 0;
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let Some(text) = item.as_str() else {
            repaired = true;
            continue;
        };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            continue;
        }
        if out.len() == thesis::MAX_THESES {
            trimmed += 1;
            continue;
        }
        if text.chars().count() > thesis::THESIS_CHARS {
            trimmed += 1;
            out.push(crate::text::first_chars(&text, thesis::THESIS_CHARS));
        } else {
            out.push(text);
        }
    }
    (out, repaired, trimmed)
}

/// A thesis as the paper's extractor writes it: the statement and the entities it
/// links (its hyper-edge; PersonalAI section III.B).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct WrittenThesis {
    pub(super) text: String,
    /// `None` when the answer gave none (a bare string, repaired): found by name.
    pub(super) entities: Option<Vec<String>>,
}

/// The theses of an extraction answer under [`crate::memory::PersonalAiForm::Paper`]:
/// at most `max` items `{"text": .., "entities": [..]}` with a non-blank text, the
/// text cut to [`thesis::THESIS_CHARS`], at most [`thesis::THESIS_ENTITIES`] entities
/// of at most [`bounds::ENTITY_CHARS`] characters (longer ones dropped: a cut name is
/// another name; spellings of one entity count once). A bare string, or an item whose
/// `entities` is missing or not a list, is a thesis whose entities are found by name,
/// counted as a repair, as is a missing field or an item of another shape (dropped).
/// A statement written twice (after folding) is taken once, and an item past `max` is
/// dropped whole. Returns the theses, whether a repair was needed, and how many items or
/// parts were cut or dropped for length or count.
pub(super) fn read_written_theses(
    field: Option<&Value>,
    max: usize,
) -> (Vec<WrittenThesis>, bool, u32) {
    let Some(Value::Array(items)) = field else {
        return (Vec::new(), true, 0);
    };
    let mut repaired = false;
    let mut trimmed = 0;
    let mut out: Vec<WrittenThesis> = Vec::new();
    let mut held: Vec<String> = Vec::new();
    for item in items {
        let (text, names) = match item {
            Value::String(t) => {
                repaired = true;
                (t.as_str(), None)
            }
            Value::Object(o) => match o.get("text").and_then(Value::as_str) {
                Some(t) => (t, Some(o.get("entities"))),
                None => {
                    repaired = true;
                    continue;
                }
            },
            _ => {
                repaired = true;
                continue;
            }
        };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        // One statement written twice (another spelling) is one thesis.
        let key = crate::memory::names::fold(&text);
        if text.is_empty() || held.contains(&key) {
            continue;
        }
        if out.len() == max {
            trimmed += 1;
            continue;
        }
        held.push(key);
        // Missing, null or not a list: the entities are found by name, as for a bare
        // string (a repair).
        let entities = match names {
            None => None,
            Some(Some(Value::Array(es))) => Some(written_entities(es, &mut repaired, &mut trimmed)),
            Some(_) => {
                repaired = true;
                None
            }
        };
        let text = if text.chars().count() > thesis::THESIS_CHARS {
            trimmed += 1;
            crate::text::first_chars(&text, thesis::THESIS_CHARS)
        } else {
            text
        };
        out.push(WrittenThesis { text, entities });
    }
    (out, repaired, trimmed)
}

/// The entities a written thesis links ([`read_written_theses`]): the names of `es`,
/// trimmed, each entity once (spellings of one entity count once), at most
/// [`thesis::THESIS_ENTITIES`] of at most [`bounds::ENTITY_CHARS`] characters. A blank
/// name is skipped; an over-long one, or one past the limit, is counted in `trimmed`;
/// an item that is not a string sets `repaired`.
fn written_entities(es: &[Value], repaired: &mut bool, trimmed: &mut u32) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    for e in es {
        match e.as_str().map(str::trim) {
            Some("") => {}
            Some(n) if n.chars().count() > bounds::ENTITY_CHARS => *trimmed += 1,
            Some(n) => {
                // Spellings of one entity count once against the limit.
                let k = crate::memory::names::entity_key(n);
                if keys.contains(&k) {
                    continue;
                }
                if kept.len() == thesis::THESIS_ENTITIES {
                    *trimmed += 1;
                    continue;
                }
                keys.push(k);
                kept.push(n.to_string());
            }
            None => *repaired = true,
        }
    }
    kept
}

impl Bounded for Extraction {
    /// A triplet with an over-long part is dropped (a cut name is another name).
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(&mut self.triplets, bounds::TRIPLETS, "triplets", &mut notes);
        let mut i = 0;
        self.triplets.retain(|t| {
            let what = format!("triplets[{i}]");
            i += 1;
            bounds::fits(
                &t.subject,
                bounds::ENTITY_CHARS,
                &format!("{what} (subject)"),
                &mut notes,
            ) && bounds::fits(
                &t.relation,
                bounds::RELATION_CHARS,
                &format!("{what} (relation)"),
                &mut notes,
            ) && bounds::fits(
                &t.object,
                bounds::ENTITY_CHARS,
                &format!("{what} (object)"),
                &mut notes,
            )
        });
        notes
    }
}

#[derive(Deserialize)]
pub(super) struct Outdated {
    pub(super) outdated: Vec<usize>,
}

impl Bounded for Outdated {
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(
            &mut self.outdated,
            bounds::OUTDATED_ITEMS,
            "outdated",
            &mut notes,
        );
        notes
    }
}

/// The reference's outdated-check answer (memory rules 7): replacement pairs
/// `[outdated triplet, actual triplet]`, the JSON form of the reference's
/// `[[outdated -> actual], ...]` (`prompts/prompts.py`, `prompt_refining_items`).
#[derive(Deserialize)]
pub(super) struct Replacing {
    pub(super) replacing: Vec<[String; 2]>,
}

impl Bounded for Replacing {
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(
            &mut self.replacing,
            bounds::OUTDATED_ITEMS,
            "replacing",
            &mut notes,
        );
        notes
    }
}

/// The schema of [`Replacing`]: a list of pairs of strings.
pub(super) fn replacing_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "replacing": {
                "type": "array",
                "maxItems": bounds::OUTDATED_ITEMS,
                "items": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": 2 * bounds::ENTITY_CHARS + bounds::RELATION_CHARS + 4},
                    "minItems": 2,
                    "maxItems": 2
                }
            }
        },
        "required": ["replacing"],
        "additionalProperties": false
    })
}

/// The extraction answer's schema: under rules 3 a triplet is an array of three short
/// strings (about half the completion tokens of the object form). With `--thesis` the
/// answer also has `theses`, up to [`thesis::MAX_THESES`] strings ([`with_theses`]).
pub(super) fn extraction_schema(
    max: usize,
    rules: MemoryRevision,
    theses: Option<PersonalAiForm>,
) -> Value {
    let schema = extraction_schema_triplets(max, rules);
    match theses {
        None => schema,
        Some(f) if f.theses_with_entities() => with_written_theses(schema, f.theses_per_step()),
        Some(_) => with_theses(schema),
    }
}

/// The schema with the paper's `theses` list added (and required): up to `max`
/// objects, each a statement and the entities it links.
pub(super) fn with_written_theses(mut schema: Value, max: usize) -> Value {
    schema["properties"]["theses"] = json!({
        "type": "array",
        "maxItems": max,
        "items": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "maxLength": thesis::THESIS_CHARS},
                "entities": {
                    "type": "array",
                    "maxItems": thesis::THESIS_ENTITIES,
                    "items": {"type": "string", "maxLength": bounds::ENTITY_CHARS}
                }
            },
            "required": ["text", "entities"],
            "additionalProperties": false
        }
    });
    schema["required"] = json!(["triplets", "theses"]);
    schema
}

/// The schema with the `theses` list added (and required).
pub(super) fn with_theses(mut schema: Value) -> Value {
    schema["properties"]["theses"] = json!({
        "type": "array",
        "maxItems": thesis::MAX_THESES,
        "items": {"type": "string", "maxLength": thesis::THESIS_CHARS}
    });
    schema["required"] = json!(["triplets", "theses"]);
    schema
}

/// The extraction schema without theses (the schema of every run before `--thesis`).
pub(super) fn extraction_schema_triplets(max: usize, rules: MemoryRevision) -> Value {
    if rules.compact_triplets() {
        return json!({
            "type": "object",
            "properties": {
                "triplets": {
                    "type": "array",
                    "maxItems": max,
                    "items": {
                        "type": "array",
                        "minItems": 3,
                        "maxItems": 3,
                        "items": {"type": "string", "maxLength": bounds::ENTITY_CHARS}
                    }
                }
            },
            "required": ["triplets"],
            "additionalProperties": false
        });
    }
    json!({
        "type": "object",
        "properties": {
            "triplets": {
                "type": "array",
                "maxItems": max,
                "items": {
                    "type": "object",
                    "properties": {
                        "subject": {"type": "string", "maxLength": bounds::ENTITY_CHARS},
                        "relation": {"type": "string", "maxLength": bounds::RELATION_CHARS},
                        "object": {"type": "string", "maxLength": bounds::ENTITY_CHARS}
                    },
                    "required": ["subject", "relation", "object"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["triplets"],
        "additionalProperties": false
    })
}

pub(super) fn outdated_schema(n: usize) -> Value {
    json!({
        "type": "object",
        "properties": {
            "outdated": {
                "type": "array",
                "maxItems": n,
                "items": {"type": "integer", "minimum": 1, "maximum": n}
            }
        },
        "required": ["outdated"],
        "additionalProperties": false
    })
}
