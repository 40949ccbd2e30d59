//! Structured (JSON) answers: ask with a schema, judge the answer, repair what can be
//! repaired, retry once, and count every failure. A bad answer never crashes the agent:
//! the caller gets `None` and falls back.
//!
//! An answer is judged in this order, each failure counted and retried once:
//! 1. a `defect` (no content, a tool call, bytes that are not UTF-8, not a completion);
//! 2. `finish_reason: "length"`: cut off by the token limit; never parsed (a half word or
//!    a half list must not reach memory); the retry asks again with twice the budget;
//! 3. reasoning blocks are removed ([`super::answer::split_reasoning`]); only what
//!    follows them is parsed;
//! 4. tolerant JSON parsing ([`parse_lenient`]), the expected shape, the client-side
//!    bounds ([`super::bounds`]), then the caller's validation.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::answer::split_reasoning;
use super::bounds::{Bounded, ECHO_CHARS};
use super::{CallLog, CallRecord, ChatBackend, ChatRequest, LlmError, Message};

/// Ask for a JSON answer of type `T`, bounded and validated by `validate`; retry once on
/// a bad answer. Every call (also one that failed in transport) is appended to `log`,
/// with the counts of rejected, repaired and trimmed answers and of transport retries.
///
/// # Errors
/// Only transport errors ([`LlmError`]); unusable, cut-off, unparseable or invalid
/// answers are counted in `log.failures` and give `Ok(None)`.
pub async fn ask<T, F>(
    backend: &dyn ChatBackend,
    mut request: ChatRequest,
    validate: F,
    log: &mut CallLog,
) -> Result<Option<T>, LlmError>
where
    T: DeserializeOwned + Bounded,
    F: Fn(&T) -> Result<(), String>,
{
    let original = request.messages.clone();
    for attempt in 1..=2u32 {
        let answer = match backend.chat(&request).await {
            Ok(a) => a,
            Err(e) => {
                // The call was made; its cost is unknown, its failure ends the step.
                log.calls.push(CallRecord {
                    purpose: request.purpose.clone(),
                    attempt,
                    messages: request.messages.clone(),
                    max_tokens: request.max_tokens,
                    answer: String::new(),
                    reasoning: None,
                    finish_reason: None,
                    defect: None,
                    usage: None,
                    latency_ms: 0,
                    retries: 0,
                    error: Some(format!("transport: {e}")),
                    trimmed: Vec::new(),
                });
                return Err(e);
            }
        };
        log.retries += answer.retries;
        let cut_off = answer.finish_reason.as_deref() == Some("length");
        let judged: Result<(T, bool, Vec<String>), String> = if let Some(d) = &answer.defect {
            Err(d.clone())
        } else if cut_off {
            Err(format!(
                "cut off by the token limit (finish_reason length, max_tokens {}); an incomplete answer is never used",
                request.max_tokens
            ))
        } else {
            split_reasoning(&answer.content).and_then(|(text, _)| {
                let (v, repaired) = parse_lenient(text)?;
                let mut t: T =
                    serde_json::from_value(v).map_err(|e| format!("wrong shape: {e}"))?;
                let notes = t.bound();
                validate(&t)?;
                Ok((t, repaired, notes))
            })
        };
        let mut record = CallRecord {
            purpose: request.purpose.clone(),
            attempt,
            messages: request.messages.clone(),
            max_tokens: request.max_tokens,
            answer: answer.content.clone(),
            reasoning: answer.reasoning.clone(),
            finish_reason: answer.finish_reason.clone(),
            defect: answer.defect.clone(),
            usage: answer.usage,
            latency_ms: answer.latency_ms,
            retries: answer.retries,
            error: None,
            trimmed: Vec::new(),
        };
        match judged {
            Ok((t, repaired, notes)) => {
                log.trimmed += notes.len() as u32;
                log.repairs += u32::from(repaired);
                record.trimmed = notes;
                log.calls.push(record);
                return Ok(Some(t));
            }
            Err(why) => {
                log.failures += 1;
                record.error = Some(why.clone());
                log.calls.push(record);
                if cut_off {
                    // The same question with a larger budget.
                    request.messages = original.clone();
                    request.max_tokens = request.max_tokens.saturating_mul(2);
                } else {
                    let echo = split_reasoning(&answer.content)
                        .map(|(t, _)| t)
                        .unwrap_or("");
                    request.messages.push(Message::assistant(
                        echo.chars().take(ECHO_CHARS).collect::<String>(),
                    ));
                    let why: String = why.chars().take(ECHO_CHARS).collect();
                    request.messages.push(Message::user(format!(
                        "That answer was invalid: {why}. Reply again with only the JSON object, following the required format."
                    )));
                }
            }
        }
    }
    Ok(None)
}

/// Parse an LLM answer as JSON, tolerating code fences, prose around the object, JSON5
/// syntax (trailing commas, single quotes, unquoted keys) and missing closing brackets
/// after a complete value. Returns the value and whether any repair was needed.
///
/// An answer that ends inside a string, a number or a literal, or after a comma or a
/// colon, was cut off mid-value: it is rejected, never completed (a completed half word
/// would become a fact).
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
        None => close_truncated(body).ok_or_else(|| {
            format!(
                "the JSON ends mid-value (cut off?): {:?}",
                short_tail(trimmed)
            )
        })?,
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

fn short_tail(s: &str) -> String {
    let n = s.chars().count();
    s.chars().skip(n.saturating_sub(80)).collect()
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

/// Close an answer that lacks only closing brackets after a complete value; `None`
/// when it ends inside a string or mid-value (after a comma, a colon, a digit, a word).
fn close_truncated(s: &str) -> Option<String> {
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
    let mut out = s.trim_end().to_string();
    let complete = out.ends_with(['}', ']', '"', '\'']) || out.ends_with(['{', '[']);
    if in_str.is_some() || !complete {
        return None;
    }
    while let Some(c) = stack.pop() {
        out.push(c);
    }
    Some(out)
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
    fn missing_closing_brackets_are_added_but_a_cut_value_is_refused() {
        let (v, repaired) =
            parse_lenient(r#"{"triplets": [["key", "is in", "locker"], ["door", "is", "closed"]"#)
                .unwrap();
        assert!(repaired);
        assert_eq!(v["triplets"][1], json!(["door", "is", "closed"]));
        for cut in [
            r#"{"triplets":[{"subject":"antique trunk","relation":"is","object":"op"#,
            r#"{"outdated": [1, 2"#,
            r#"{"outdated": [1, 2,"#,
            r#"{"plan": [{"sub_goal":"#,
        ] {
            let e = parse_lenient(cut).unwrap_err();
            assert!(e.contains("mid-value"), "{cut}: {e}");
        }
    }

    #[test]
    fn prose_without_json_is_an_error() {
        let err = parse_lenient("I think I should go north.").unwrap_err();
        assert!(err.contains("no JSON object"), "{err}");
    }
}
