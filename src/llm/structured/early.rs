//! The early warning: when the first [`EARLY_REFUSALS`] answers a live endpoint gives to
//! one call kind are all refused, say so once, at once, naming the endpoint and the
//! likely cause, instead of leaving it to the closing counters of a run that played on
//! fallbacks.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::llm::ChatBackend;

/// How many refused answers of one call kind, with none accepted before, make the
/// warning.
pub const EARLY_REFUSALS: u32 = 3;

/// Per call kind: answers refused so far, and whether the kind is settled (an answer
/// was accepted, or the warning was given).
static SEEN: Mutex<Option<HashMap<String, (u32, bool)>>> = Mutex::new(None);

/// Note one judged answer of `purpose` from `backend` (`refused`: why it was refused,
/// `None` when accepted); warns on stderr when it is the [`EARLY_REFUSALS`]th refused
/// answer of its kind with none accepted. Answers that come from no live endpoint (a
/// replay, a script) are not counted.
pub fn judged(backend: &dyn ChatBackend, purpose: &str, refused: Option<&String>) {
    let Some(endpoint) = backend.endpoint() else {
        return;
    };
    let Ok(mut guard) = SEEN.lock() else {
        return;
    };
    let seen = guard.get_or_insert_with(HashMap::new);
    let (count, settled) = seen.entry(purpose.to_string()).or_insert((0, false));
    if *settled {
        return;
    }
    let Some(why) = refused else {
        *settled = true;
        return;
    };
    *count += 1;
    if *count == EARLY_REFUSALS {
        *settled = true;
        crate::report::notice(warning(&endpoint, purpose, why));
    }
}

/// The warning's one line: what happened, the last reason, the likely cause.
pub fn warning(endpoint: &str, purpose: &str, why: &str) -> String {
    let cause = likely_cause(endpoint, why);
    let why: String = crate::text::first_chars(why, 160);
    format!(
        "ariadne: warning: the first {EARLY_REFUSALS} answers of {endpoint} to the `{purpose}` call were all refused (last: {why}); {cause}"
    )
}

/// What a refusal most likely says about the endpoint at `endpoint`: each cause named
/// only when the evidence shows it (the model's JSON only when the model's content was
/// read; `/v1` only when the endpoint's path lacks it).
fn likely_cause(endpoint: &str, why: &str) -> String {
    let v1 = if crate::llm::http::classify::has_v1(endpoint) {
        String::new()
    } else {
        " (an OpenAI-compatible base URL usually ends in /v1)".to_string()
    };
    let cause = if why.contains("not JSON") && why.contains("data:") {
        "the endpoint streams although asked not to, in a form Ariadne cannot read"
    } else if why.contains("the response is not JSON") {
        "the endpoint sends bodies that start like JSON but do not parse: check the server, or what sits between it and Ariadne"
    } else if why.contains("not a completion") || why.contains("has no choices") {
        "the endpoint answers without a completion (no choices, or an error): its server failed to generate; see its log"
    } else if why.contains("cut off by the token limit") {
        return "the model writes past the token budget: its context may be too small, or it does not stop".into();
    } else if why.contains("no content") {
        return "the model answers without content (a tool call or only reasoning)".into();
    } else {
        return "the model does not answer in the JSON form asked for: try a larger or instruction-tuned model".into();
    };
    format!("{cause}{v1}")
}

#[cfg(test)]
mod tests {
    use super::warning;

    /// Each cause is named only when the evidence shows it: no choices is the
    /// endpoint's failure, not the model's JSON; `/v1` only when the path lacks it.
    #[test]
    fn causes_follow_from_the_evidence() {
        let v1 = "http://127.0.0.1:8080/v1";
        let none = warning(
            v1,
            "action",
            r#"the response has no choices: {"choices":[]}"#,
        );
        assert!(none.contains("answers without a completion"), "{none}");
        assert!(
            !none.contains("JSON form") && !none.contains("ends in /v1"),
            "{none}"
        );
        let bare = warning(
            "http://127.0.0.1:8080",
            "action",
            "the response has no choices",
        );
        assert!(bare.contains("usually ends in /v1"), "{bare}");
        let cut = warning(v1, "plan", "the response is not JSON (EOF while parsing)");
        assert!(cut.contains("start like JSON but do not parse"), "{cut}");
        let prose = warning(v1, "plan", "no JSON value in the answer");
        assert!(
            prose.contains("does not answer in the JSON form"),
            "{prose}"
        );
        assert!(!prose.contains("/v1)"), "{prose}");
    }
}
