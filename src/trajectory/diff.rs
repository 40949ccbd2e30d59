//! A replayed step against its recorded one: the fields compared, in the order reported,
//! and the path of the first difference (what `ariadne replay` reports as a divergence).

use serde_json::{Value, json};

use super::StepRecord;

/// Fields compared between a replayed and a recorded step, in the order reported.
pub const COMPARED: &[&str] = &[
    "room",
    "observation",
    "inventory",
    "admissible_commands",
    "memory",
    "retrieval",
    "unexplored_exits",
    "go_to_targets",
    "plan",
    "warnings",
    "rationale",
    "action",
    "action_source",
    "command",
    "route",
    "feedback",
    "reward",
    "score",
    "done",
    "won",
    "lost",
    "llm_failures",
    "llm_repairs",
    "llm_trimmed",
    "llm_refused",
];

/// The path of the first difference between two JSON values (`field.sub[2].x`), with
/// the two values there.
pub fn first_diff(path: &str, a: &Value, b: &Value) -> Option<(String, Value, Value)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                let vb = y.get(k).unwrap_or(&Value::Null);
                if let Some(d) = first_diff(&format!("{path}.{k}"), va, vb) {
                    return Some(d);
                }
            }
            y.iter()
                .find(|(k, _)| !x.contains_key(*k))
                .map(|(k, v)| (format!("{path}.{k}"), Value::Null, v.clone()))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_diff(&format!("{path}[{i}]"), va, vb)),
        _ if a == b => None,
        _ => Some((path.to_string(), a.clone(), b.clone())),
    }
}

/// The first field where a replayed step differs from the recorded one, as
/// `(field path, recorded, replayed)`.
pub fn compare(recorded: &StepRecord, replayed: &StepRecord) -> Option<(String, Value, Value)> {
    let a = serde_json::to_value(recorded).ok()?;
    let b = serde_json::to_value(replayed).ok()?;
    for f in COMPARED {
        let (va, vb) = (
            a.get(f).unwrap_or(&Value::Null),
            b.get(f).unwrap_or(&Value::Null),
        );
        if let Some(d) = first_diff(f, va, vb) {
            return Some(d);
        }
    }
    let answers = |r: &StepRecord| {
        r.llm_calls
            .iter()
            .map(|c| (c.purpose.clone(), c.answer.clone()))
            .collect::<Vec<_>>()
    };
    if answers(recorded) != answers(replayed) {
        return Some((
            "llm_calls".into(),
            json!(answers(recorded)),
            json!(answers(replayed)),
        ));
    }
    None
}
