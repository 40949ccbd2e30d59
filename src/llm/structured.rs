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

mod early;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::answer::split_reasoning;
use super::bounds::{Bounded, ECHO_CHARS};
pub use super::json_text::json_values;
use super::{CallLog, CallRecord, ChatAnswer, ChatBackend, ChatRequest, LlmError, Message};

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
        let (answer, answer_chars) = match send(backend, &request, attempt, log).await {
            Ok(sent) => sent,
            Err(e) if e.prompt_too_long() => {
                too_long(&request.purpose, &e);
                log.failures += 1;
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        log.retries += answer.retries;
        log.waited_ms += answer.waited_ms;
        let cut_off = answer.finish_reason.as_deref() == Some("length");
        let judged = judge(&answer, &request, &validate);
        let mut record = answered_record(&request, attempt, &answer, answer_chars);
        let judged = judged.map_err(|why| said_cut(why, answer_chars));
        early::judged(backend, &request.purpose, judged.as_ref().err());
        match judged {
            Ok((t, repaired, notes)) => {
                log.trimmed += notes.len() as u32;
                // Read from server-sent events: repaired, whatever the judge did.
                log.repairs += u32::from(repaired || answer.from_events);
                record.trimmed = notes;
                log.calls.push(record);
                return Ok(Some(t));
            }
            Err(why) => {
                log.failures += 1;
                record.error = Some(why.clone());
                log.calls.push(record);
                ask_again(&mut request, &original, &answer.content, &why, cut_off);
            }
        }
    }
    Ok(None)
}

/// Say once per run that a request was longer than the endpoint's context, and what to
/// raise.
fn too_long(purpose: &str, e: &LlmError) {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "ariadne: warning: a `{purpose}` request was longer than the chat endpoint's context ({e}); such a call counts as failed and its fallback plays. Raise the context (--ctx for the embedded model; llama.cpp: --ctx-size; vLLM: --max-model-len)"
        );
    });
}

/// One call of `request` (its `attempt`, from 1): the answer with its content,
/// reasoning and finish reason bounded ([`super::record::bound_answer`]), and the
/// content's length in characters when the bound cut it.
///
/// # Errors
/// A transport error, after the failed call and its retries are appended to `log`.
async fn send(
    backend: &dyn ChatBackend,
    request: &ChatRequest,
    attempt: u32,
    log: &mut CallLog,
) -> Result<(ChatAnswer, Option<usize>), LlmError> {
    match backend.chat(request).await {
        Ok(mut a) => {
            let (content, sent) = super::record::bound_answer(&a.content);
            a.content = content;
            a.reasoning = super::record::bound_text(a.reasoning, super::record::ANSWER_CHARS);
            a.finish_reason = super::record::bound_text(a.finish_reason, 64);
            Ok((a, sent))
        }
        Err(e) => {
            // The call was made; its cost is unknown, its failure ends the step. Its
            // retries are counted like those of an answered call.
            log.retries += e.retries();
            log.calls.push(failed_record(request, attempt, &e));
            Err(e)
        }
    }
}

/// The record of a call that failed in transport: no answer, the error's retries, the
/// error as `transport: ...`.
fn failed_record(request: &ChatRequest, attempt: u32, e: &LlmError) -> CallRecord {
    CallRecord {
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
        refused: Vec::new(),
        from_events: false,
    }
}

/// Judge an answer (the module's steps 1 to 4): its defect, a cut-off by the token
/// limit, then the one JSON value after the reasoning blocks that fits (see [`choose`]).
/// Returns the answer, whether it was repaired, and what the bounds trimmed.
///
/// # Errors
/// Why the answer is refused.
fn judge<T, F>(
    answer: &ChatAnswer,
    request: &ChatRequest,
    validate: &F,
) -> Result<(T, bool, Vec<String>), String>
where
    T: DeserializeOwned + Bounded,
    F: Fn(&T) -> Result<(), String>,
{
    if let Some(d) = &answer.defect {
        Err(d.clone())
    } else if answer.finish_reason.as_deref() == Some("length") {
        Err(format!(
            "cut off by the token limit (finish_reason length, max_tokens {}); an incomplete answer is never used",
            request.max_tokens
        ))
    } else {
        split_reasoning(&answer.content).and_then(|(text, _)| {
            let values = json_values(text)?;
            choose(values, request.schema.as_ref().map(|(_, s)| s), validate)
        })
    }
}

/// The record of an answered call, not yet judged (no error, nothing trimmed).
fn answered_record(
    request: &ChatRequest,
    attempt: u32,
    answer: &ChatAnswer,
    answer_chars: Option<usize>,
) -> CallRecord {
    CallRecord {
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
        refused: Vec::new(),
        from_events: answer.from_events,
    }
}

/// Why an answer was refused, saying that it was cut at the bound before it was read
/// when it was (`answer_chars`: its length in characters as sent).
fn said_cut(why: String, answer_chars: Option<usize>) -> String {
    match answer_chars {
        Some(sent) if sent > super::record::ANSWER_CHARS => format!(
            "the answer was {sent} characters long and was cut at {} before it was read: {why}",
            super::record::ANSWER_CHARS
        ),
        _ => why,
    }
}

/// The retry's request after a refused answer: a cut-off answer asks the `original`
/// question again with twice the token budget; any other echoes the answer's text
/// (after its reasoning blocks, at most [`ECHO_CHARS`]) and says `why` it was invalid.
fn ask_again(
    request: &mut ChatRequest,
    original: &[Message],
    content: &str,
    why: &str,
    cut_off: bool,
) {
    if cut_off {
        // The same question with a larger budget.
        request.messages = original.to_vec();
        request.max_tokens = request.max_tokens.saturating_mul(2);
    } else {
        let echo = split_reasoning(content).map(|(t, _)| t).unwrap_or("");
        request
            .messages
            .push(Message::assistant(crate::text::first_chars(
                echo, ECHO_CHARS,
            )));
        let why: String = crate::text::first_chars(why, ECHO_CHARS);
        request.messages.push(Message::user(format!(
            "That answer was invalid: {why}. Reply again with only the JSON object, following the required format."
        )));
    }
}

/// How deep inside values that do not fit an answer is looked for (wrappers).
pub const MAX_WRAPPING: usize = 3;

/// How many values (parts of wrappers included) are judged for one answer.
pub const MAX_JUDGED: usize = 512;

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

/// What kind of JSON value `v` is, for messages ("an object", "null").
pub(crate) fn kind_of(v: &Value) -> &'static str {
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
    let Found {
        mut fits,
        first_error,
    } = search(values, schema, validate);
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

/// What the search through an answer's values found.
struct Found<T> {
    /// The different values that fit, each with its answer, whether it was repaired, and
    /// what the bounds trimmed; in the order they were judged.
    fits: Vec<(Value, T, bool, Vec<String>)>,
    /// Why the first value that did not fit did not.
    first_error: Option<String>,
}

/// Judge `values` (each with whether it was repaired) and their parts, breadth first,
/// at most [`MAX_JUDGED`] values and [`MAX_WRAPPING`] levels deep.
///
/// A value that does not fit may wrap one that does (`{"answer": {...}}`, `[{...}]`):
/// its parts are judged too, so a wrapped answer is found, and never loses to a bare
/// draft beside it. The parts of a value that fits are its own content, but for what
/// it holds under keys the schema does not name: another answer hidden there
/// (`{"action": "look", "answer": {"action": "open trunk"}}`) makes the text ambiguous.
fn search<T, F>(values: Vec<(Value, bool)>, schema: Option<&Value>, validate: &F) -> Found<T>
where
    T: DeserializeOwned + Bounded,
    F: Fn(&T) -> Result<(), String>,
{
    let named: Option<Vec<&str>> = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect());
    let mut found = Found {
        fits: Vec::new(),
        first_error: None,
    };
    let mut queue: std::collections::VecDeque<(Value, bool, usize)> =
        values.into_iter().map(|(v, r)| (v, r, 0)).collect();
    let mut judged_values = 0;
    while let Some((v, repaired, depth)) = queue.pop_front() {
        judged_values += 1;
        if judged_values > MAX_JUDGED {
            break;
        }
        match judge_value(&v, schema, validate) {
            Ok((t, notes)) => {
                if depth < MAX_WRAPPING
                    && let (Value::Object(map), Some(named)) = (&v, &named)
                {
                    queue.extend(unnamed_parts(map, named, depth));
                }
                if !found.fits.iter().any(|(w, ..)| *w == v) {
                    found.fits.push((v, t, repaired, notes));
                }
            }
            Err(e) => {
                found.first_error.get_or_insert(e);
                if depth < MAX_WRAPPING {
                    queue.extend(parts(v, depth));
                }
            }
        }
    }
    found
}

/// One value judged: it fits the schema ([`fits_schema`]), deserializes as `T`, is
/// bounded, and passes `validate`. Returns the answer and what the bounds trimmed.
///
/// # Errors
/// Why the value is not the answer.
fn judge_value<T, F>(
    v: &Value,
    schema: Option<&Value>,
    validate: &F,
) -> Result<(T, Vec<String>), String>
where
    T: DeserializeOwned + Bounded,
    F: Fn(&T) -> Result<(), String>,
{
    fits_schema(v, schema)?;
    let mut t: T = serde_json::from_value(v.clone()).map_err(|e| format!("wrong shape: {e}"))?;
    let notes = t.bound();
    validate(&t)?;
    Ok((t, notes))
}

/// The objects and arrays an answer holds under keys not in `named` (the schema's
/// properties), to be judged one level below `depth` as repaired values.
fn unnamed_parts(
    map: &serde_json::Map<String, Value>,
    named: &[&str],
    depth: usize,
) -> Vec<(Value, bool, usize)> {
    map.iter()
        .filter(|(k, x)| !named.contains(&k.as_str()) && (x.is_object() || x.is_array()))
        .map(|(_, x)| (x.clone(), true, depth + 1))
        .collect()
}

/// The objects and arrays a value that does not fit holds (an array's items, an
/// object's values), to be judged one level below `depth` as repaired values.
fn parts(v: Value, depth: usize) -> Vec<(Value, bool, usize)> {
    let parts: Vec<Value> = match v {
        Value::Array(items) => items,
        Value::Object(map) => map.into_iter().map(|(_, x)| x).collect(),
        _ => Vec::new(),
    };
    parts
        .into_iter()
        .filter(|x| x.is_object() || x.is_array())
        .map(|x| (x, true, depth + 1))
        .collect()
}

#[cfg(test)]
mod tests;
