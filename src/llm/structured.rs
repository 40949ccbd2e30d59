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
//! 4. tolerant JSON reading ([`json_values`]: every JSON value of the text); the answer
//!    is the one value that has the schema's top-level type and one of its keys, the
//!    expected shape, the client-side bounds ([`super::bounds`]) and the caller's
//!    validation. None, or several different ones: rejected and asked again, never
//!    repaired into another answer. A repair only drops what is not the answer (prose,
//!    fences, reasoning blocks, other JSON values, a tool call's wrapper: an answer given
//!    as a tool call, in `tool_calls` or as a `<tool_call>` block, is its arguments).

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
        let (answer, answer_chars) = match backend.chat(&request).await {
            Ok(mut a) => {
                let (content, sent) = super::record::bound_answer(&a.content);
                a.content = content;
                (a, sent)
            }
            Err(e) => {
                // The call was made; its cost is unknown, its failure ends the step. Its
                // retries are counted like those of an answered call.
                log.retries += e.retries();
                log.calls.push(CallRecord {
                    purpose: request.purpose.clone(),
                    attempt,
                    messages: request.messages.clone(),
                    max_tokens: request.max_tokens,
                    answer: String::new(),
                    answer_chars: None,
                    reasoning: None,
                    finish_reason: None,
                    defect: None,
                    usage: None,
                    latency_ms: 0,
                    retries: e.retries(),
                    prompt_cut: None,
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
                let values = json_values(text)?;
                choose(values, request.schema.as_ref().map(|(_, s)| s), &validate)
            })
        };
        let mut record = CallRecord {
            purpose: request.purpose.clone(),
            attempt,
            messages: request.messages.clone(),
            max_tokens: request.max_tokens,
            answer: answer.content.clone(),
            answer_chars,
            reasoning: answer.reasoning.clone(),
            finish_reason: answer.finish_reason.clone(),
            defect: answer.defect.clone(),
            usage: answer.usage,
            latency_ms: answer.latency_ms,
            retries: answer.retries,
            prompt_cut: answer.prompt_cut.clone(),
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

/// The JSON values an LLM answer holds, in order, each with whether reading it needed a
/// repair. A text that is one JSON value is that value, unrepaired. Otherwise code
/// fences are dropped and every balanced `{...}` or `[...]` that parses (as JSON, or
/// JSON5: trailing commas, single quotes, unquoted keys) is a value; a bracketed word
/// that does not parse (`[JSON] {...}`) is skipped. A text whose last object lacks only
/// closing brackets after a complete value has them added.
///
/// Which value is the answer is not decided here: [`ask`] takes the one that fits the
/// request's schema, and refuses a text with none or several different ones.
///
/// An answer that ends inside a string, a number or a literal, or after a comma or a
/// colon, was cut off mid-value: it is rejected, never completed (a completed half word
/// would become a fact).
///
/// # Errors
/// A one-line reason when no JSON object or array can be read.
pub fn json_values(text: &str) -> Result<Vec<(Value, bool)>, String> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return Ok(vec![(v, false)]);
    }
    let unfenced = strip_fences(trimmed);
    let mut out = Vec::new();
    let mut from = 0;
    let mut opened = false;
    while let Some(offset) = unfenced[from..].find(['{', '[']) {
        opened = true;
        let start = from + offset;
        let body = &unfenced[start..];
        match balanced_end(body) {
            Some(end) => match parse_one(&body[..end]) {
                Some(v) => {
                    out.push((v, true));
                    from = start + end;
                }
                None => from = start + 1,
            },
            None => {
                let closed = close_truncated(body).and_then(|c| parse_one(&c));
                match closed {
                    Some(v) => out.push((v, true)),
                    None if out.is_empty() => {
                        return Err(format!(
                            "the JSON ends mid-value (cut off?): {:?}",
                            short_tail(trimmed)
                        ));
                    }
                    None => {}
                }
                break;
            }
        }
    }
    if out.is_empty() {
        return Err(if opened {
            format!("unparseable JSON: {:?}", short(trimmed))
        } else {
            format!("no JSON object in the answer: {:?}", short(trimmed))
        });
    }
    Ok(out)
}

/// One balanced candidate as JSON, else as JSON5.
fn parse_one(candidate: &str) -> Option<Value> {
    serde_json::from_str::<Value>(candidate)
        .ok()
        .or_else(|| json5::from_str::<Value>(candidate).ok())
}

/// Whether a value has the schema's top-level type and, for an object, at least one of
/// its required keys (a struct must never be read from an array, as serde would,
/// position by position).
fn fits_schema(v: &Value, schema: Option<&Value>) -> Result<(), String> {
    let Some(schema) = schema else { return Ok(()) };
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let Some(obj) = v.as_object() else {
                return Err(format!("expected a JSON object, got {}", kind_of(v)));
            };
            // At least one of the answer's keys: an object about something else is not
            // an attempt at the answer (a missing optional field is the shape's call).
            let keys: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if !keys.is_empty() && !keys.iter().any(|k| obj.contains_key(*k)) {
                return Err(format!("none of the fields {}", keys.join(", ")));
            }
            Ok(())
        }
        Some("array") if !v.is_array() => Err(format!("expected a JSON array, got {}", kind_of(v))),
        _ => Ok(()),
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

/// Tool-call wrappers (`{"name": ..., "arguments": {...}}`, as OpenAI's `tool_calls`,
/// LM Studio's and Hermes-style `<tool_call>` blocks write them; the arguments may be a
/// JSON string): each is followed by its arguments, a repaired value.
fn unwrap_tool_calls(values: Vec<(Value, bool)>) -> Vec<(Value, bool)> {
    let mut out = Vec::with_capacity(values.len());
    for (v, repaired) in values {
        let arguments = v
            .as_object()
            .filter(|o| o.contains_key("name"))
            .and_then(|o| o.get("arguments"))
            .and_then(|a| match a {
                Value::String(s) => serde_json::from_str::<Value>(s).ok(),
                Value::Object(_) => Some(a.clone()),
                _ => None,
            });
        out.push((v, repaired));
        if let Some(a) = arguments {
            out.push((a, true));
        }
    }
    out
}

/// The answer among the JSON values of a text: the one value that fits the schema,
/// deserializes as `T`, and passes the bounds and `validate`. Returns it, whether it
/// was repaired (also when other values were dropped), and what the bounds trimmed.
///
/// # Errors
/// No value fits (the first value's reason), or several different values do (the
/// answer is ambiguous and never guessed).
fn choose<T, F>(
    values: Vec<(Value, bool)>,
    schema: Option<&Value>,
    validate: &F,
) -> Result<(T, bool, Vec<String>), String>
where
    T: DeserializeOwned + Bounded,
    F: Fn(&T) -> Result<(), String>,
{
    let values = unwrap_tool_calls(values);
    let n = values.len();
    let mut fits: Vec<(Value, T, bool, Vec<String>)> = Vec::new();
    let mut first_error: Option<String> = None;
    for (v, repaired) in values {
        let judged = fits_schema(&v, schema).and_then(|()| {
            let mut t: T =
                serde_json::from_value(v.clone()).map_err(|e| format!("wrong shape: {e}"))?;
            let notes = t.bound();
            validate(&t)?;
            Ok((t, notes))
        });
        match judged {
            Ok((t, notes)) => {
                if !fits.iter().any(|(w, ..)| *w == v) {
                    fits.push((v, t, repaired, notes));
                }
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match fits.len() {
        1 => {
            let (_, t, repaired, notes) = fits.remove(0);
            Ok((t, repaired || n > 1, notes))
        }
        0 if n == 1 => Err(first_error.unwrap_or_default()),
        0 => Err(format!(
            "none of the {n} JSON values in the answer fits the required format (the first: {})",
            first_error.unwrap_or_default()
        )),
        k => Err(format!(
            "{k} different JSON values in the answer fit the required format; an ambiguous answer is never guessed"
        )),
    }
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

    fn first(text: &str) -> Result<(Value, bool), String> {
        json_values(text).map(|mut v| v.remove(0))
    }

    #[test]
    fn plain_json_is_not_a_repair() {
        let (v, repaired) = first(r#"{"a": 1}"#).unwrap();
        assert_eq!(v, json!({"a": 1}));
        assert!(!repaired);
    }

    #[test]
    fn fenced_and_wrapped_json_is_recovered() {
        let text = "Sure! Here it is:\n```json\n{\"action\": \"go north\", \"note\": \"a } in a string\"}\n```\nGood luck.";
        let (v, repaired) = first(text).unwrap();
        assert_eq!(v["action"], "go north");
        assert_eq!(v["note"], "a } in a string");
        assert!(repaired);
    }

    #[test]
    fn json5_syntax_is_accepted() {
        let (v, _) = first("{'triplets': [['key', 'is in', 'locker'],],}").unwrap();
        assert_eq!(v, json!({"triplets": [["key", "is in", "locker"]]}));
    }

    #[test]
    fn missing_closing_brackets_are_added_but_a_cut_value_is_refused() {
        let (v, repaired) =
            first(r#"{"triplets": [["key", "is in", "locker"], ["door", "is", "closed"]"#).unwrap();
        assert!(repaired);
        assert_eq!(v["triplets"][1], json!(["door", "is", "closed"]));
        for cut in [
            r#"{"triplets":[{"subject":"antique trunk","relation":"is","object":"op"#,
            r#"{"outdated": [1, 2"#,
            r#"{"outdated": [1, 2,"#,
            r#"{"plan": [{"sub_goal":"#,
        ] {
            let e = first(cut).unwrap_err();
            assert!(e.contains("mid-value"), "{cut}: {e}");
        }
    }

    /// Prose listing two candidate actions as a JSON list, then the real answer: both
    /// are values of the text; only the object fits an object schema.
    #[test]
    fn every_json_value_of_a_text_is_read_and_the_schema_picks() {
        let text = r#"I could do ["go east", "take key"]. My answer: {"rationale": "the key opens the door", "action": "take key"}"#;
        let values = json_values(text).unwrap();
        assert_eq!(values.len(), 2);
        let schema = json!({"type": "object", "required": ["rationale", "action"]});
        assert!(fits_schema(&values[0].0, Some(&schema)).is_err());
        assert!(fits_schema(&values[1].0, Some(&schema)).is_ok());
        // A bracketed word before the answer is skipped, not taken for the answer.
        let values = json_values(r#"[JSON] {"action": "go north"}"#).unwrap();
        assert_eq!(values, vec![(json!({"action": "go north"}), true)]);
    }

    #[test]
    fn prose_without_json_is_an_error() {
        let err = first("I think I should go north.").unwrap_err();
        assert!(err.contains("no JSON object"), "{err}");
    }
}
