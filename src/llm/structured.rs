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
/// repair. A text that is one JSON value is that value, unrepaired. Otherwise terminal
/// colour codes and code fences are dropped, and from every `{` or `[` (left to right,
/// skipping the inside of a value already read) one JSON value is read as far as it goes
/// (serde_json's streaming reader: a bracketed word such as `[JSON]` or `[that's
/// wrong]` fails at its first letter and is skipped); where plain JSON fails, the
/// balanced candidate is read as JSON5 (trailing commas, single quotes, unquoted keys;
/// never deeper than [`MAX_DEPTH`]). When the text ends inside a value that lacks only
/// closing brackets after a complete value, they are added.
///
/// Reading is bounded so that no text makes it slow: a start costs at most the length of
/// its value or serde_json's recursion limit, at most [`MAX_FAILED_STARTS`] starts may
/// open no value, and the JSON5 and closing attempts together scan at most
/// [`SCAN_BUDGET`] characters. A text that reaches a bound is not read to its end, so a
/// value found before it is never taken for the answer (the rest might hold another):
/// it is refused with the reason.
///
/// Which value is the answer is not decided here: [`ask`] takes the one that fits the
/// request's schema, and refuses a text with none or several different ones.
///
/// An answer that ends inside a string, a number or a literal, or after a comma or a
/// colon, was cut off mid-value: it is rejected, never completed (a completed half word
/// would become a fact).
///
/// # Errors
/// A one-line reason when no JSON object or array can be read, or when the text is too
/// tangled to be read to its end.
pub fn json_values(text: &str) -> Result<Vec<(Value, bool)>, String> {
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
        return Ok(vec![(v, false)]);
    }
    let cleaned = strip_ansi(trimmed);
    let unfenced = strip_fences(&cleaned);
    let mut out = Vec::new();
    let mut from = 0;
    let mut opened = false;
    // The first start whose value the text ended inside.
    let mut cut: Option<usize> = None;
    let mut scanned = 0usize;
    let mut failed = 0usize;
    let mut unread = false;
    while let Some(offset) = unfenced[from..].find(['{', '[']) {
        if failed == MAX_FAILED_STARTS {
            unread = true;
            break;
        }
        opened = true;
        let start = from + offset;
        let body = &unfenced[start..];
        let mut stream = serde_json::Deserializer::from_str(body).into_iter::<Value>();
        let mut ended_inside = false;
        match stream.next() {
            Some(Ok(v)) => {
                out.push((v, true));
                from = start + stream.byte_offset().max(1);
                continue;
            }
            Some(Err(e)) if e.is_eof() => ended_inside = true,
            _ if scanned + body.len() > SCAN_BUDGET => unread = true,
            _ => match balanced_end(body) {
                Some((end, depth)) => {
                    scanned += end;
                    if depth <= MAX_DEPTH
                        && let Ok(v) = json5::from_str::<Value>(&body[..end])
                    {
                        out.push((v, true));
                        from = start + end;
                        continue;
                    }
                }
                None => {
                    scanned += body.len();
                    ended_inside = true;
                }
            },
        }
        if ended_inside && cut.is_none() {
            // The text ends inside this value: closed when only brackets are missing
            // (it then holds the rest of the text), else the values inside are read.
            // Starts inside it end inside it too: only the outermost is closed.
            scanned += body.len();
            if let Some(v) = close_truncated(body).and_then(|c| parse_one(&c)) {
                out.push((v, true));
                break;
            }
            cut = Some(start);
        }
        failed += 1;
        from = start + 1;
    }
    if unread && !out.is_empty() {
        return Err(format!(
            "the answer has too many brackets that open no value to be read to its end (the rest might hold another answer): {:?}",
            short(trimmed)
        ));
    }
    if cut.is_some() && out.is_empty() {
        return Err(format!(
            "the JSON ends mid-value (cut off?): {:?}",
            short_tail(trimmed)
        ));
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

/// How deep inside values that do not fit an answer is looked for (wrappers).
pub const MAX_WRAPPING: usize = 3;

/// How many values (parts of wrappers included) are judged for one answer.
pub const MAX_JUDGED: usize = 512;

/// How many `{` or `[` of a text may fail to open a value (each costs at most serde_json's
/// recursion limit) before the text is refused as unreadable.
pub const MAX_FAILED_STARTS: usize = 16_384;

/// Characters the JSON5 and closing attempts of one text may scan in all (each scans
/// from its start to its balancing bracket, or to the end).
pub const SCAN_BUDGET: usize = 4 << 20;

/// The deepest candidate read as JSON5 (serde_json's own recursion limit is 128).
pub const MAX_DEPTH: usize = 128;

/// The text without terminal escape sequences (`\x1b[32m` and the like), which some
/// servers pass through from a model's output.
fn strip_ansi(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte (@ to ~).
            for d in chars.by_ref() {
                if ('@'..='~').contains(&d) {
                    break;
                }
            }
        } else {
            chars.next();
        }
    }
    std::borrow::Cow::Owned(out)
}

/// One balanced candidate as JSON, else as JSON5 (when not too deep).
fn parse_one(candidate: &str) -> Option<Value> {
    serde_json::from_str::<Value>(candidate).ok().or_else(|| {
        balanced_end(candidate)
            .filter(|&(_, depth)| depth <= MAX_DEPTH)
            .and_then(|_| json5::from_str::<Value>(candidate).ok())
    })
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
/// LM Studio's and Hermes-style `<tool_call>` blocks write them; `parameters` for
/// `arguments`, as some templates write it; the arguments may be a JSON string; a list of
/// them, as Mistral's `[TOOL_CALLS][...]`): each is followed by its arguments, a
/// repaired value.
fn unwrap_tool_calls(values: Vec<(Value, bool)>) -> Vec<(Value, bool)> {
    fn arguments(v: &Value) -> Option<Value> {
        let o = v.as_object().filter(|o| o.contains_key("name"))?;
        match o.get("arguments").or_else(|| o.get("parameters"))? {
            Value::String(s) => serde_json::from_str::<Value>(s).ok(),
            a @ Value::Object(_) => Some(a.clone()),
            _ => None,
        }
    }
    let mut out = Vec::with_capacity(values.len());
    for (v, repaired) in values {
        let mut inner: Vec<Value> = arguments(&v).into_iter().collect();
        if let Some(list) = v.as_array() {
            inner.extend(list.iter().filter_map(arguments));
        }
        out.push((v, repaired));
        out.extend(inner.into_iter().map(|a| (a, true)));
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
    // A value that does not fit may wrap one that does (`{"answer": {...}}`, `[{...}]`):
    // its parts are judged too, so a wrapped answer is found, and never loses to a bare
    // draft beside it. The parts of a value that fits are its own content.
    let mut queue: std::collections::VecDeque<(Value, bool, usize)> =
        values.into_iter().map(|(v, r)| (v, r, 0)).collect();
    let mut judged_values = 0;
    while let Some((v, repaired, depth)) = queue.pop_front() {
        judged_values += 1;
        if judged_values > MAX_JUDGED {
            break;
        }
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
                if depth < MAX_WRAPPING {
                    let parts: Vec<Value> = match v {
                        Value::Array(items) => items,
                        Value::Object(map) => map.into_iter().map(|(_, x)| x).collect(),
                        _ => Vec::new(),
                    };
                    queue.extend(
                        parts
                            .into_iter()
                            .filter(|x| x.is_object() || x.is_array())
                            .map(|x| (x, true, depth + 1)),
                    );
                }
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

/// Byte index one past the bracket that closes the first one, honouring strings (double
/// and single quotes, as JSON5 has both), and the deepest nesting on the way.
fn balanced_end(s: &str) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut deepest = 0usize;
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
            '{' | '[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some((i + c.len_utf8(), deepest));
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

    /// Brackets in prose (with an apostrophe, a lone quote, never closed), terminal colour
    /// codes and deep nesting: every value of the text is still read, so a draft before
    /// the real answer can never be the only value (the schema then refuses the pair).
    #[test]
    fn prose_brackets_colour_codes_and_deep_nesting_do_not_hide_values() {
        let a = r#"{"rationale": "real", "action": "take key"}"#;
        let b = r#"{"rationale": "draft", "action": "open drawer"}"#;
        let va: Value = serde_json::from_str(a).unwrap();
        let vb: Value = serde_json::from_str(b).unwrap();
        let objects = |t: &str| -> Vec<Value> {
            json_values(t)
                .unwrap()
                .into_iter()
                .map(|(v, _)| v)
                .filter(Value::is_object)
                .collect()
        };
        for text in [
            format!("Draft: {b}\nHmm, but [that's wrong]. Final answer: {a}"),
            format!("Draft: {b}\nWait - [ignore that.\nFinal answer: {a}"),
            format!("{b}\nOr maybe [not sure: {a}"),
        ] {
            assert_eq!(objects(&text), vec![vb.clone(), va.clone()], "{text}");
        }
        for text in [
            format!("Options [the trunk's key] noted. {a}"),
            format!("[Assistant's answer] {a}"),
            format!("[the \"answer] {a}"),
            format!("\u{1b}[32m{a}\u{1b}[0m"),
            format!("{a}{}x{}", "[".repeat(2000), "]".repeat(2000)),
        ] {
            assert_eq!(objects(&text), vec![va.clone()], "{}", short(&text));
        }
        // Past the bounds the rest is not read, so the value before it is not the answer.
        for text in [
            format!("{a}{}1{}", "[".repeat(50_000), "]".repeat(50_000)),
            format!("{b}\n{}\nFinal answer: {a}", "[x] ".repeat(20_000)),
        ] {
            let e = json_values(&text).unwrap_err();
            assert!(e.contains("too many brackets"), "{e}");
        }
        // Unbalanced JSON5 attempts before a single-quoted answer stay within the budget.
        let text = format!(
            "{b}\n{}\nFinal answer: {{'rationale': 'real', 'action': 'take key'}}",
            "[note] ".repeat(70)
        );
        assert_eq!(objects(&text), vec![vb.clone(), va.clone()]);
    }

    /// Tool calls in every shape reach the chooser as their arguments; two calls with
    /// different answers are two values (refused as ambiguous).
    #[test]
    fn tool_call_arguments_in_every_shape_are_values() {
        let args = |text: &str| -> Vec<Value> {
            unwrap_tool_calls(json_values(text).unwrap())
                .into_iter()
                .map(|(v, _)| v)
                .filter(|v| v.get("action").is_some())
                .collect()
        };
        let north = json!({"action": "go north"});
        let east = json!({"action": "go east"});
        assert_eq!(
            args(r#"[TOOL_CALLS][{"name": "act", "arguments": {"action": "go north"}}]"#),
            vec![north.clone()]
        );
        assert_eq!(
            args(r#"{"name": "act", "parameters": "{\"action\": \"go north\"}"}"#),
            vec![north.clone()]
        );
        assert_eq!(
            args(
                "{\"name\":\"act\",\"arguments\":{\"action\":\"go north\"}}\n{\"name\":\"act\",\"arguments\":{\"action\":\"go east\"}}"
            ),
            vec![north, east]
        );
    }

    #[derive(Debug, serde::Deserialize)]
    struct Act {
        #[allow(dead_code)]
        rationale: String,
        action: String,
    }

    impl Bounded for Act {
        fn bound(&mut self) -> Vec<String> {
            Vec::new()
        }
    }

    /// A wrapped answer is found, and a bare draft beside it makes the text ambiguous.
    #[test]
    fn a_wrapped_answer_is_found_and_never_loses_to_a_bare_draft() {
        let schema = json!({"type": "object", "required": ["rationale", "action"]});
        let pick = |text: &str| {
            choose::<Act, _>(json_values(text).unwrap(), Some(&schema), &|_| Ok(()))
                .map(|(a, repaired, _)| (a.action, repaired))
        };
        let a = r#"{"rationale": "real", "action": "take key"}"#;
        let b = r#"{"rationale": "draft", "action": "open drawer"}"#;
        assert_eq!(pick(&format!("[{a}]")), Ok(("take key".into(), true)));
        assert_eq!(
            pick(&format!(r#"{{"answer": {a}}}"#)),
            Ok(("take key".into(), true))
        );
        for text in [
            format!("Draft: {b}\nFinal answer: [{a}]"),
            format!("Draft: {b}\nFinal answer: {{\"answer\": {a}}}"),
        ] {
            let e = pick(&text).unwrap_err();
            assert!(e.contains("2 different JSON values"), "{text}: {e}");
        }
    }

    #[test]
    fn prose_without_json_is_an_error() {
        let err = first("I think I should go north.").unwrap_err();
        assert!(err.contains("no JSON object"), "{err}");
    }
}
