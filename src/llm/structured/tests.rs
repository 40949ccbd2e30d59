use super::*;
use crate::llm::json_text::short;
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

/// A key given twice: the same value is read once; different values refuse the text
/// (serde would keep the last), nested or in prose, plain JSON or JSON5.
#[test]
fn a_key_given_twice_with_different_values_is_refused() {
    let once = json_values(r#"{"action": "look", "action": "look"}"#).unwrap();
    assert_eq!(once[0].0, json!({"action": "look"}));
    for text in [
        r#"{"action": "open trunk", "action": "look"}"#,
        r#"Answer: {"plan": [{"sub_goal": "a", "sub_goal": "b"}]} done"#,
        r#"{action: 'open trunk', action: 'look',}"#,
    ] {
        let e = json_values(text).unwrap_err();
        assert!(e.contains("twice with different values"), "{text}: {e}");
    }
}
