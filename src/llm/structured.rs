//! Structured (JSON) answers: ask with a schema, parse tolerantly, repair what can be
//! repaired, retry once with the reason, and count every failure. A bad answer never
//! crashes the agent: the caller gets `None` and falls back.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{CallRecord, ChatBackend, ChatRequest, LlmError, Message, Usage};

/// The result of a structured call: the value (if any try succeeded), every call made,
/// and how many answers were rejected.
#[derive(Debug)]
pub struct Outcome<T> {
    /// The parsed, validated answer; `None` when both tries failed.
    pub value: Option<T>,
    /// One record per HTTP call (1 or 2).
    pub calls: Vec<CallRecord>,
    /// Rejected answers (0, 1 or 2).
    pub failures: u32,
    /// True when the accepted answer needed repair (fences, prose around it, JSON5
    /// syntax, unclosed brackets).
    pub repaired: bool,
}

impl<T> Outcome<T> {
    /// Total tokens over all calls.
    pub fn usage(&self) -> Usage {
        let mut u = Usage::default();
        for c in &self.calls {
            u.add(c.usage);
        }
        u
    }
}

/// Ask for a JSON answer of type `T`, validated by `validate`; retry once on a bad answer.
///
/// # Errors
/// Only transport errors ([`LlmError`]); unparseable or invalid answers are counted in
/// [`Outcome::failures`] instead.
pub async fn ask<T, F>(
    backend: &dyn ChatBackend,
    mut request: ChatRequest,
    validate: F,
) -> Result<Outcome<T>, LlmError>
where
    T: DeserializeOwned,
    F: Fn(&T) -> Result<(), String>,
{
    let mut out = Outcome {
        value: None,
        calls: Vec::new(),
        failures: 0,
        repaired: false,
    };
    for attempt in 1..=2u32 {
        let answer = backend.chat(&request).await?;
        let parsed = parse_lenient(&answer.content).and_then(|(v, repaired)| {
            let t: T = serde_json::from_value(v).map_err(|e| format!("wrong shape: {e}"))?;
            validate(&t)?;
            Ok((t, repaired))
        });
        let mut record = CallRecord {
            purpose: request.purpose.clone(),
            attempt,
            messages: request.messages.clone(),
            answer: answer.content.clone(),
            usage: answer.usage,
            latency_ms: answer.latency_ms,
            error: None,
        };
        match parsed {
            Ok((t, repaired)) => {
                out.calls.push(record);
                out.value = Some(t);
                out.repaired = repaired;
                return Ok(out);
            }
            Err(why) => {
                out.failures += 1;
                record.error = Some(why.clone());
                out.calls.push(record);
                request.messages.push(Message::assistant(answer.content));
                request.messages.push(Message::user(format!(
                    "That answer was invalid: {why}. Reply again with only the JSON object, following the required format."
                )));
            }
        }
    }
    Ok(out)
}

/// Parse an LLM answer as JSON, tolerating code fences, prose around the object, JSON5
/// syntax (trailing commas, single quotes, unquoted keys) and a truncated tail.
/// Returns the value and whether any repair was needed.
///
/// # Errors
/// A one-line reason when no JSON object or array can be recovered.
pub fn parse_lenient(text: &str) -> Result<(Value, bool), String> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return Ok((v, false));
    }
    let unfenced = strip_fences(trimmed);
    let start = unfenced
        .find(['{', '['])
        .ok_or_else(|| format!("no JSON object in the answer: {:?}", short(trimmed)))?;
    let body = &unfenced[start..];
    let candidate = match balanced_end(body) {
        Some(end) => body[..end].to_string(),
        None => close_truncated(body),
    };
    if let Ok(v) = serde_json::from_str::<Value>(&candidate) {
        return Ok((v, true));
    }
    json5::from_str::<Value>(&candidate)
        .map(|v| (v, true))
        .map_err(|e| format!("unparseable JSON ({e}): {:?}", short(trimmed)))
}

fn short(s: &str) -> String {
    s.chars().take(200).collect()
}

fn strip_fences(s: &str) -> &str {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("```") {
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        return rest.trim().trim_end_matches("```").trim();
    }
    s
}

/// Byte index one past the bracket that closes the first one, honouring strings.
fn balanced_end(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut in_str: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if let Some(q) = in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                in_str = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => in_str = Some(c),
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + c.len_utf8());
                }
            }
            _ => {}
        }
    }
    None
}

/// Close an answer cut off by the token limit: end an open string, drop a dangling
/// comma or key, and close every open bracket.
fn close_truncated(s: &str) -> String {
    let mut stack = Vec::new();
    let mut in_str: Option<char> = None;
    let mut escaped = false;
    for c in s.chars() {
        if let Some(q) = in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                in_str = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => in_str = Some(c),
            '{' => stack.push('}'),
            '[' => stack.push(']'),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    let mut out = s.to_string();
    if let Some(q) = in_str {
        out.push(q);
    }
    let t = out.trim_end().trim_end_matches([',', ':']).to_string();
    let mut out = t;
    while let Some(c) = stack.pop() {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_json_is_not_a_repair() {
        let (v, repaired) = parse_lenient(r#"{"a": 1}"#).unwrap();
        assert_eq!(v, json!({"a": 1}));
        assert!(!repaired);
    }

    #[test]
    fn fenced_and_wrapped_json_is_recovered() {
        let text = "Sure! Here it is:\n```json\n{\"action\": \"go north\", \"note\": \"a } in a string\"}\n```\nGood luck.";
        let (v, repaired) = parse_lenient(text).unwrap();
        assert_eq!(v["action"], "go north");
        assert_eq!(v["note"], "a } in a string");
        assert!(repaired);
    }

    #[test]
    fn json5_syntax_is_accepted() {
        let (v, _) = parse_lenient("{'triplets': [['key', 'is in', 'locker'],],}").unwrap();
        assert_eq!(v, json!({"triplets": [["key", "is in", "locker"]]}));
    }

    #[test]
    fn truncated_answer_is_closed() {
        let (v, repaired) =
            parse_lenient(r#"{"triplets": [["key", "is in", "locker"], ["door", "is", "clo"#)
                .unwrap();
        assert!(repaired);
        assert_eq!(v["triplets"][1], json!(["door", "is", "clo"]));
    }

    #[test]
    fn prose_without_json_is_an_error() {
        let err = parse_lenient("I think I should go north.").unwrap_err();
        assert!(err.contains("no JSON object"), "{err}");
    }
}
