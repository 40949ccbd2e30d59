//! Reading what a chat endpoint sent, as real servers and models send it:
//!
//! - [`read_completion`]: a response body (its text) into a [`ChatAnswer`]: the
//!   content (a string, or an array of text parts), the separate reasoning field
//!   (`reasoning_content`, `reasoning`), `finish_reason`, `usage` (`None` when absent),
//!   and a `defect` when the answer cannot be used at all (no content, a tool call,
//!   bytes that are not UTF-8, a body that is not a chat completion). A defect is a bad
//!   answer, counted and retried by [`super::structured`], never the end of an episode.
//! - [`from_events`]: a body of server-sent events (`data: {...}` lines), which some
//!   endpoints send although the request asked for no stream, read as the one
//!   completion its chunks make up; the answer says so ([`ChatAnswer::from_events`]) and
//!   the judge counts it as a repair.
//! - [`split_reasoning`]: the answer that follows a reasoning block (`<think>...</think>`,
//!   also `<thinking>` and `<reasoning>`, a closing tag whose opening tag was in the
//!   prompt template, or an unterminated block); nothing inside the reasoning is ever
//!   parsed as the answer.

use serde_json::Value;

use super::http::Body;
use super::json_text::short;
use super::{ChatAnswer, Usage};

/// Read a chat completion body. Never fails: what cannot be read becomes a `defect`.
pub fn read_completion(body: &Body) -> ChatAnswer {
    let (text, lossy) = (&body.text, body.lossy());
    let events = from_events(text);
    let parsed = match &events {
        Some(v) => Ok(v.clone()),
        None => serde_json::from_str(text),
    };
    let v: Value = match parsed {
        Ok(v) => v,
        Err(e) => {
            return ChatAnswer {
                defect: Some(lossy.unwrap_or_else(|| {
                    format!(
                        "the response is not JSON ({e}): {:?}",
                        crate::text::first_chars(text, 200)
                    )
                })),
                ..ChatAnswer::default()
            };
        }
    };
    let choice = &v["choices"][0];
    let message = &choice["message"];
    let finish_reason = choice["finish_reason"].as_str().map(str::to_string);
    let reasoning = ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|k| message[*k].as_str())
        .filter(|r| !r.is_empty())
        .map(str::to_string);
    let content = content_of(message);
    let defect = match lossy {
        Some(l) => Some(l),
        None => defect_of(&v, content.as_deref(), reasoning.is_some()),
    };
    ChatAnswer {
        content: content.unwrap_or_default(),
        reasoning,
        finish_reason,
        defect,
        usage: usage_of(&v),
        latency_ms: 0,
        retries: 0,
        waited_ms: 0,
        prompt_cut: None,
        from_events: events.is_some(),
    }
}

/// The text to judge of a completion's `message`: its content (a string, or the text of
/// its content parts), then its tool calls, if any.
fn content_of(message: &Value) -> Option<String> {
    let content = match &message["content"] {
        Value::String(s) => Some(s.clone()),
        // Content parts: [{"type": "text", "text": "..."}].
        Value::Array(parts) => {
            let text: String = parts
                .iter()
                .filter_map(|p| p["text"].as_str().or_else(|| p.as_str()))
                .collect();
            Some(text)
        }
        _ => None,
    };
    // An answer given as tool calls (OpenAI `tool_calls`, or the older `function_call`):
    // every call, as `{"name", "arguments"}`, is part of the text to judge, after any
    // content; the judge takes the arguments out as a counted repair, and refuses
    // several calls that give different answers ([`super::structured`]).
    match (content, tool_calls(message)) {
        (Some(c), Some(calls)) if !c.trim().is_empty() => Some(format!("{c}\n{calls}")),
        (_, Some(calls)) => Some(calls),
        (other, None) => other,
    }
}

/// Why a completion `v` that is valid UTF-8 and JSON cannot be used, if it cannot: an
/// error instead of a completion, no choices, or no `content` to judge (with whether
/// the message had `reasoning`).
fn defect_of(v: &Value, content: Option<&str>, reasoning: bool) -> Option<String> {
    let choice = &v["choices"][0];
    let message = &choice["message"];
    if !v["error"].is_null() && choice.is_null() {
        Some(format!(
            "the response is an error, not a completion: {}",
            short(&v["error"].to_string())
        ))
    } else if choice.is_null() {
        Some(format!(
            "the response has no choices: {}",
            short(&v.to_string())
        ))
    } else if content.is_none_or(|c| c.trim().is_empty()) {
        let why = match &message["content"] {
            Value::Null if message.get("content").is_some() => "content null",
            Value::Null => "no content key",
            _ => "empty content",
        };
        let mut d = format!("the answer has no content ({why}");
        if message["tool_calls"].is_array() || message["function_call"].is_object() {
            d.push_str("; the model made a tool call instead");
        }
        if reasoning {
            d.push_str("; there is only reasoning");
        }
        d.push(')');
        Some(d)
    } else {
        None
    }
}

/// The completion a body of server-sent events makes up, or `None` when the body is not
/// one (its first line that is neither blank nor a `:` comment does not start with
/// `data:` or `event:`). Each `data:` line but `[DONE]` is a chunk: the `delta`
/// contents and reasoning of its first choice are joined in order, the last
/// `finish_reason` and the last `usage` kept. A `data:` line that is not JSON leaves the
/// body unread (`None`), so it is refused as what it is.
pub fn from_events(text: &str) -> Option<Value> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.clone().find(|l| !l.starts_with(':'))?;
    if !(first.starts_with("data:") || first.starts_with("event:")) {
        return None;
    }
    let (mut content, mut reasoning) = (String::new(), String::new());
    let (mut finish, mut usage, mut model) = (Value::Null, Value::Null, Value::Null);
    let mut chunks = 0;
    for line in lines.by_ref() {
        let Some(data) = line.strip_prefix("data:").map(str::trim) else {
            continue;
        };
        if data == "[DONE]" {
            continue;
        }
        let chunk: Value = serde_json::from_str(data).ok()?;
        chunks += 1;
        let choice = &chunk["choices"][0];
        let delta = if choice["delta"].is_object() {
            &choice["delta"]
        } else {
            &choice["message"]
        };
        content.push_str(delta["content"].as_str().unwrap_or_default());
        for key in ["reasoning_content", "reasoning"] {
            reasoning.push_str(delta[key].as_str().unwrap_or_default());
        }
        if !choice["finish_reason"].is_null() {
            finish = choice["finish_reason"].clone();
        }
        if !chunk["usage"].is_null() {
            usage = chunk["usage"].clone();
        }
        if !chunk["model"].is_null() {
            model = chunk["model"].clone();
        }
    }
    (chunks > 0).then(|| {
        let mut message = serde_json::json!({"role": "assistant", "content": content});
        if !reasoning.is_empty() {
            message["reasoning_content"] = reasoning.into();
        }
        serde_json::json!({
            "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        })
    })
}

/// Every tool call of a message (`tool_calls`, else `function_call`), each as a
/// `{"name": ..., "arguments": ...}` line.
fn tool_calls(message: &Value) -> Option<String> {
    let calls: Vec<&serde_json::Map<String, Value>> = match message["tool_calls"].as_array() {
        Some(list) => list
            .iter()
            .filter_map(|c| c["function"].as_object())
            .collect(),
        None => message["function_call"].as_object().into_iter().collect(),
    };
    let lines: Vec<String> = calls
        .into_iter()
        .filter_map(|call| {
            let arguments = call.get("arguments").or_else(|| call.get("parameters"))?;
            Some(
                serde_json::json!({"name": call.get("name").cloned().unwrap_or(Value::Null), "arguments": arguments})
                    .to_string(),
            )
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// Token counts above this (a billion tokens in one call) are read as unknown usage.
pub const MAX_TOKENS: u64 = 1_000_000_000;

/// The `usage` of a response, `None` when the server sent none (unknown is not 0), a
/// prompt of 0 tokens (some proxies send zeros for what they do not know; no prompt is
/// empty), or counts above [`MAX_TOKENS`].
pub fn usage_of(v: &Value) -> Option<Usage> {
    let u = v.get("usage").filter(|u| u.is_object())?;
    let prompt = u["prompt_tokens"].as_u64();
    let completion = u["completion_tokens"].as_u64();
    if prompt.unwrap_or(0) == 0 {
        return None;
    }
    // Counts no model can have (a counter's garbage, u64::MAX) are unknown usage, not
    // figures to sum.
    if prompt.max(completion).unwrap_or(0) > MAX_TOKENS {
        return None;
    }
    // llama.cpp's server timings: how long it read the prompt and generated.
    let ms = |k: &str| {
        v["timings"][k]
            .as_f64()
            .filter(|x| x.is_finite() && *x >= 0.0)
    };
    let timed = ms("prompt_ms")
        .zip(ms("predicted_ms"))
        .map(|(p, c)| (p.round() as u64, c.round() as u64));
    Some(Usage {
        prompt_tokens: prompt.unwrap_or(0),
        completion_tokens: completion.unwrap_or(0),
        cached_tokens: u["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .or_else(|| v["timings"]["cache_n"].as_u64())
            .unwrap_or(0),
        unknown_calls: 0,
        prompt_ms: timed.map_or(0, |(p, _)| p),
        completion_ms: timed.map_or(0, |(_, c)| c),
        timed_calls: u64::from(timed.is_some()),
    })
}

/// Reasoning tags models and servers put before the answer.
const TAGS: &[&str] = &["think", "thinking", "reasoning"];

/// The answer in `content` once reasoning blocks are removed, and whether there were
/// any. `Err` when the content is only reasoning (an unterminated block with nothing
/// before it).
///
/// - Leading `<think>...</think>` blocks (any of [`TAGS`], any case) are removed, one
///   after the other; the answer is what follows the last one.
/// - A closing tag with no opening tag before it (the template opened the block in the
///   prompt) ends a reasoning block that started at the beginning.
/// - An opening tag that is never closed: the answer is the text before it, if any.
///
/// # Errors
/// A one-line reason when no answer is left.
pub fn split_reasoning(content: &str) -> Result<(&str, bool), String> {
    let mut rest = content.trim_start();
    let mut found = false;
    // A closing tag whose opening tag was in the prompt.
    let lower = rest.to_ascii_lowercase();
    for tag in TAGS {
        let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
        if let Some(i) = lower.find(&close)
            && !lower[..i].contains(&open)
            && !lower.trim_start().starts_with('{')
            && !lower.trim_start().starts_with('[')
        {
            rest = rest[i + close.len()..].trim_start();
            found = true;
            break;
        }
    }
    loop {
        let lower = rest.to_ascii_lowercase();
        let Some(tag) = TAGS.iter().find(|t| lower.starts_with(&format!("<{t}>"))) else {
            break;
        };
        found = true;
        let close = format!("</{tag}>");
        match lower.find(&close) {
            Some(i) => rest = rest[i + close.len()..].trim_start(),
            None => {
                return Err(format!(
                    "the answer is only an unterminated <{tag}> reasoning block"
                ));
            }
        }
    }
    // An unterminated block after the answer: keep what came before it.
    let lower = rest.to_ascii_lowercase();
    let unclosed = TAGS
        .iter()
        .filter_map(|t| {
            let i = lower.find(&format!("<{t}>"))?;
            (!lower[i..].contains(&format!("</{t}>"))).then_some(i)
        })
        .min();
    if let Some(i) = unclosed {
        found = true;
        rest = rest[..i].trim_end();
    }
    if rest.trim().is_empty() {
        return Err(if found {
            "no answer after the reasoning".into()
        } else {
            "empty answer".into()
        });
    }
    Ok((rest, found))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_before_the_answer_is_removed_whatever_it_holds() {
        let c = r#"<think>The room has [an antique trunk] and {"action":"go north"}</think>{"rationale":"r","action":"open antique trunk"}"#;
        let (a, found) = split_reasoning(c).unwrap();
        assert_eq!(a, r#"{"rationale":"r","action":"open antique trunk"}"#);
        assert!(found);
        let (a, _) = split_reasoning("<THINKING>a</THINKING>\n<think>b</think> {\"x\":1}").unwrap();
        assert_eq!(a, "{\"x\":1}");
        // The template opened the block.
        let (a, _) = split_reasoning("so [maybe] {draft}\n</think>\n{\"x\":2}").unwrap();
        assert_eq!(a, "{\"x\":2}");
        // No reasoning.
        assert_eq!(split_reasoning(" {\"x\":3}").unwrap(), ("{\"x\":3}", false));
    }

    /// llama.cpp's response: usage with cached tokens, and the server's own timings.
    #[test]
    fn usage_carries_cached_tokens_and_server_timings() {
        let v: Value = serde_json::from_str(
            r#"{"usage": {"prompt_tokens": 900, "completion_tokens": 40, "prompt_tokens_details": {"cached_tokens": 700}},
                "timings": {"cache_n": 700, "prompt_n": 200, "prompt_ms": 2104.6, "predicted_n": 40, "predicted_ms": 3333.3}}"#,
        )
        .expect("json");
        let u = usage_of(&v).expect("usage");
        assert_eq!(
            (u.prompt_tokens, u.completion_tokens, u.cached_tokens),
            (900, 40, 700)
        );
        assert_eq!(
            (u.prompt_ms, u.completion_ms, u.timed_calls),
            (2105, 3333, 1)
        );
        // Counts no call can have are unknown, not summed (they would wrap).
        let v: Value = serde_json::from_str(
            r#"{"usage": {"prompt_tokens": 18446744073709551615, "completion_tokens": 5}}"#,
        )
        .expect("json");
        assert!(usage_of(&v).is_none());
        // Another server: usage without timings.
        let v: Value =
            serde_json::from_str(r#"{"usage": {"prompt_tokens": 9, "completion_tokens": 4}}"#)
                .expect("json");
        let u = usage_of(&v).expect("usage");
        assert_eq!((u.prompt_ms, u.completion_ms, u.timed_calls), (0, 0, 0));
    }

    /// Every tool call is judged, after any prose; `parameters` is read as `arguments`.
    #[test]
    fn every_tool_call_is_part_of_the_answer() {
        let body = |message: &str| {
            format!(
                r#"{{"choices":[{{"message":{message},"finish_reason":"tool_calls"}}],"usage":{{"prompt_tokens":5,"completion_tokens":1}}}}"#
            )
        };
        let a = read_completion(&Body::decode(
            body(r#"{"content":"Let me think.","tool_calls":[{"function":{"name":"think","arguments":"{\"thought\":\"hm\"}"}},{"function":{"name":"act","parameters":{"action":"go north"}}}]}"#)
                .as_bytes(),
        ));
        assert!(a.defect.is_none(), "{:?}", a.defect);
        let lines: Vec<&str> = a.content.lines().collect();
        assert_eq!(lines[0], "Let me think.");
        assert_eq!(lines.len(), 3, "{}", a.content);
        assert!(
            lines[2].contains(r#""arguments":{"action":"go north"}"#),
            "{}",
            lines[2]
        );
    }

    #[test]
    fn a_prompt_of_zero_tokens_is_unknown_usage() {
        let v: Value = serde_json::from_str(
            r#"{"usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}"#,
        )
        .expect("json");
        assert!(usage_of(&v).is_none());
    }

    #[test]
    fn unterminated_reasoning_is_no_answer() {
        let e = split_reasoning("<think>I wonder {\"action\": \"go north\"}").unwrap_err();
        assert!(e.contains("unterminated"), "{e}");
        let (a, _) = split_reasoning("{\"x\":1}\n<think>and then").unwrap();
        assert_eq!(a, "{\"x\":1}");
        assert!(split_reasoning("<think>a</think>  ").is_err());
    }

    #[test]
    fn completions_are_read_with_their_defects() {
        let a = read_completion(&Body::decode(
            br#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"1"}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}"#,
        ));
        assert!(a.defect.as_deref().unwrap().contains("tool call"), "{a:?}");
        assert_eq!(a.usage.map(|u| u.prompt_tokens), Some(5));
        let a = read_completion(&Body::decode(
            br#"{"choices":[{"message":{"role":"assistant"}}]}"#,
        ));
        assert!(a.defect.as_deref().unwrap().contains("no content key"));
        assert_eq!(a.usage, None);
        let a = read_completion(&Body::decode(
            br#"{"choices":[{"message":{"content":"{}","reasoning_content":"hmm"},"finish_reason":"length"}]}"#,
        ));
        assert_eq!(a.defect, None);
        assert_eq!(a.reasoning.as_deref(), Some("hmm"));
        assert_eq!(a.finish_reason.as_deref(), Some("length"));
        let mut body = br#"{"choices":[{"message":{"content":"ab"#.to_vec();
        body.extend([0xff, 0xfe]);
        body.extend(br#""}}]}"#);
        let a = read_completion(&Body::decode(&body));
        assert!(a.defect.as_deref().unwrap().contains("not UTF-8"), "{a:?}");
        assert!(read_completion(&Body::decode(b"<html>")).defect.is_some());
    }
}
