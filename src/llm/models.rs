//! A chat model per call kind (`--model-for`): the reference sends extraction, the
//! outdated check, key items and the exploration check to one model (gpt-4o) and
//! planning and action to another (gpt-4-0125-preview) (`pipeline_arigraph.py:26,
//! 39-42`); [`ModelsPerCall`] lets a run do the same, or any other split.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A kind of LLM call, as `--model-for` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallKind {
    /// Triplet extraction (purpose `extract_triplets`).
    Extraction,
    /// The outdated-fact check (`outdated`, `qa_outdated`, `outdated_theses`).
    Outdated,
    /// The retrieval's key items (`key_items`, `qa_key_items`).
    KeyItems,
    /// Whether the plan needs exploration (`explore`).
    Explore,
    /// Planning (`plan`).
    Plan,
    /// The ReAct decision (`action`).
    Action,
    /// The summary baseline (`summary`).
    Summary,
    /// Simulacra's importance rating (`importance`).
    Importance,
    /// Simulacra's reflections (`reflection`).
    Reflection,
    /// Reflexion's lessons (`lesson`).
    Lesson,
    /// The answer of `ariadne qa` (`qa_answer`).
    QaAnswer,
}

impl CallKind {
    /// Every kind, in the order help texts list them.
    pub const ALL: [CallKind; 11] = [
        CallKind::Extraction,
        CallKind::Outdated,
        CallKind::KeyItems,
        CallKind::Explore,
        CallKind::Plan,
        CallKind::Action,
        CallKind::Summary,
        CallKind::Importance,
        CallKind::Reflection,
        CallKind::Lesson,
        CallKind::QaAnswer,
    ];

    /// The name `--model-for` and the manifest use.
    pub fn name(self) -> &'static str {
        match self {
            CallKind::Extraction => "extraction",
            CallKind::Outdated => "outdated",
            CallKind::KeyItems => "key-items",
            CallKind::Explore => "explore",
            CallKind::Plan => "plan",
            CallKind::Action => "action",
            CallKind::Summary => "summary",
            CallKind::Importance => "importance",
            CallKind::Reflection => "reflection",
            CallKind::Lesson => "lesson",
            CallKind::QaAnswer => "qa-answer",
        }
    }

    /// The kind of a call made for `purpose` (a [`crate::llm::ChatRequest::purpose`]);
    /// `None` for a purpose of no kind here.
    pub fn of_purpose(purpose: &str) -> Option<CallKind> {
        Some(match purpose {
            "extract_triplets" => CallKind::Extraction,
            "outdated" | "qa_outdated" | "outdated_theses" => CallKind::Outdated,
            "key_items" | "qa_key_items" => CallKind::KeyItems,
            "explore" => CallKind::Explore,
            "plan" => CallKind::Plan,
            "action" => CallKind::Action,
            "summary" => CallKind::Summary,
            "importance" => CallKind::Importance,
            "reflection" => CallKind::Reflection,
            "lesson" => CallKind::Lesson,
            "qa_answer" => CallKind::QaAnswer,
            _ => return None,
        })
    }
}

impl std::str::FromStr for CallKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let wanted = s.trim().replace('_', "-");
        CallKind::ALL
            .into_iter()
            .find(|k| k.name() == wanted)
            .ok_or_else(|| {
                let names: Vec<&str> = CallKind::ALL.iter().map(|k| k.name()).collect();
                format!(
                    "unknown call kind {s:?} in --model-for; the kinds are {}",
                    names.join(", ")
                )
            })
    }
}

/// The chat model of each call kind named (`--model-for plan=A,action=A,extraction=B`);
/// the kinds not named use the run's `--model`. Recorded in the manifest as a map
/// (`{"plan": "A", ...}`), absent when empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ModelsPerCall(BTreeMap<CallKind, String>);

impl ModelsPerCall {
    /// Read `KIND=MODEL,KIND=MODEL,...` (spaces around items ignored).
    ///
    /// # Errors
    /// An item without `=`, an unknown kind (the line names the kinds), an empty model,
    /// a kind named twice with different models.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = BTreeMap::new();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (kind, model) = item.split_once('=').ok_or_else(|| {
                format!("--model-for item {item:?} is not KIND=MODEL (for example plan=gpt-4o)")
            })?;
            let kind: CallKind = kind.parse()?;
            Self::insert(&mut out, kind, model)?;
        }
        Ok(Self(out))
    }

    /// The map of a config file's `[model_for]` table (`plan = "gpt-4o"`).
    ///
    /// # Errors
    /// As [`ModelsPerCall::parse`].
    pub fn of_table(table: &BTreeMap<String, String>) -> Result<Self, String> {
        let mut out = BTreeMap::new();
        for (kind, model) in table {
            Self::insert(&mut out, kind.parse()?, model)?;
        }
        Ok(Self(out))
    }

    fn insert(
        out: &mut BTreeMap<CallKind, String>,
        kind: CallKind,
        model: &str,
    ) -> Result<(), String> {
        let model = model.trim();
        if model.is_empty() {
            return Err(format!("--model-for {}= names no model", kind.name()));
        }
        match out.insert(kind, model.to_string()) {
            Some(before) if before != model => Err(format!(
                "--model-for names two models for {}: {before} and {model}",
                kind.name()
            )),
            _ => Ok(()),
        }
    }

    /// No kind has a model of its own.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The model of a call made for `purpose`, `default` when its kind has none.
    pub fn model<'a>(&'a self, purpose: &str, default: &'a str) -> &'a str {
        CallKind::of_purpose(purpose)
            .and_then(|k| self.0.get(&k))
            .map_or(default, String::as_str)
    }

    /// The kinds named, with their models.
    pub fn iter(&self) -> impl Iterator<Item = (CallKind, &str)> {
        self.0.iter().map(|(k, m)| (*k, m.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_purpose_goes_to_its_kind_model() {
        let m = ModelsPerCall::parse("plan=A, action=A,extraction=B").unwrap();
        assert_eq!(m.model("plan", "D"), "A");
        assert_eq!(m.model("action", "D"), "A");
        assert_eq!(m.model("extract_triplets", "D"), "B");
        assert_eq!(m.model("outdated", "D"), "D");
        assert_eq!(m.model("something_else", "D"), "D");
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            serde_json::json!({"extraction": "B", "plan": "A", "action": "A"})
        );
    }

    #[test]
    fn bad_lists_are_one_clear_error() {
        let e = ModelsPerCall::parse("planning=A").unwrap_err();
        assert!(
            e.contains("unknown call kind") && e.contains("key-items"),
            "{e}"
        );
        assert!(
            ModelsPerCall::parse("plan")
                .unwrap_err()
                .contains("KIND=MODEL")
        );
        assert!(
            ModelsPerCall::parse("plan=")
                .unwrap_err()
                .contains("no model")
        );
        assert!(
            ModelsPerCall::parse("plan=A,plan=B")
                .unwrap_err()
                .contains("two models")
        );
        assert_eq!(
            ModelsPerCall::parse("key_items=A")
                .unwrap()
                .model("key_items", "D"),
            "A"
        );
    }

    /// Every purpose the engine asks for (`Ask::new("...")` in the sources) has a kind.
    #[test]
    fn every_purpose_of_the_engine_has_a_kind() {
        fn sources(dir: &std::path::Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    sources(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(std::fs::read_to_string(&path).unwrap());
                }
            }
        }
        let mut texts = Vec::new();
        sources(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut texts,
        );
        let mut seen = 0;
        for text in &texts {
            for (i, _) in text.match_indices("Ask::new(") {
                let rest = text[i + 9..].trim_start();
                if let Some(quoted) = rest.strip_prefix('"') {
                    let purpose = &quoted[..quoted.find('"').unwrap()];
                    if !purpose.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                        continue;
                    }
                    seen += 1;
                    assert!(CallKind::of_purpose(purpose).is_some(), "{purpose}");
                }
            }
        }
        assert!(seen >= 10, "only {seen} purposes found");
        assert!(CallKind::of_purpose("qa_key_items").is_some());
        assert!(CallKind::of_purpose("outdated_theses").is_some());
    }
}
