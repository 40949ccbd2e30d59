//! Prompt templates (`prompts/*.md`, minijinja syntax). Each prompt file holds the
//! system message, a line `=== user ===`, then the user message template. The files are
//! compiled into the binary; `--prompts DIR` loads a directory of edited copies instead.

use std::path::Path;

use anyhow::{Context, Result, bail};
use minijinja::Environment;
use serde::Serialize;

use super::Message;
use crate::error::UserError;

/// Names of the prompt files (without `.md`) and their compiled-in text.
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "extract_triplets",
        include_str!("../../prompts/extract_triplets.md"),
    ),
    (
        "extract_reference",
        include_str!("../../prompts/extract_reference.md"),
    ),
    (
        "extract_reference_rules",
        include_str!("../../prompts/extract_reference_rules.md"),
    ),
    ("outdated", include_str!("../../prompts/outdated.md")),
    (
        "outdated_reference",
        include_str!("../../prompts/outdated_reference.md"),
    ),
    (
        "outdated_theses",
        include_str!("../../prompts/outdated_theses.md"),
    ),
    ("plan", include_str!("../../prompts/plan.md")),
    ("action", include_str!("../../prompts/action.md")),
    (
        "plan_reference",
        include_str!("../../prompts/plan_reference.md"),
    ),
    (
        "action_reference",
        include_str!("../../prompts/action_reference.md"),
    ),
    (
        "working_memory",
        include_str!("../../prompts/working_memory.md"),
    ),
    ("agent", include_str!("../../prompts/agent.md")),
    ("summary", include_str!("../../prompts/summary.md")),
    (
        "summary_reference",
        include_str!("../../prompts/summary_reference.md"),
    ),
    ("importance", include_str!("../../prompts/importance.md")),
    (
        "importance_reference",
        include_str!("../../prompts/importance_reference.md"),
    ),
    ("reflection", include_str!("../../prompts/reflection.md")),
    ("lesson", include_str!("../../prompts/lesson.md")),
    (
        "lesson_reference",
        include_str!("../../prompts/lesson_reference.md"),
    ),
    ("key_items", include_str!("../../prompts/key_items.md")),
    ("explore", include_str!("../../prompts/explore.md")),
    (
        "key_items_reference",
        include_str!("../../prompts/key_items_reference.md"),
    ),
    (
        "explore_reference",
        include_str!("../../prompts/explore_reference.md"),
    ),
    (
        "qa_key_items",
        include_str!("../../prompts/qa_key_items.md"),
    ),
    ("qa_answer", include_str!("../../prompts/qa_answer.md")),
    ("qa_outdated", include_str!("../../prompts/qa_outdated.md")),
];

const USER_MARK: &str = "=== user ===";

/// Prompt files that are parts of other prompts (no system message of their own).
const PARTIALS: &[&str] = &["working_memory", "agent", "extract_reference_rules"];

/// The name suffix of a prompt's system part among the templates.
const SYSTEM_SUFFIX: &str = "#system";

/// A string as Python's `repr` writes it: in single quotes, or in double quotes when it
/// holds a single quote and no double quote; backslashes, the quote, newlines, tabs,
/// carriage returns and other control characters escaped. The reference formats its
/// lists into prompts with Python's `str(list)`, which writes each item so.
pub fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// A list of strings as Python's `str(list)` writes it (`['a', "b's"]`; see
/// [`py_repr`]): the template filter `pylist`, which lays out a list as the reference's
/// prompts show it. A value that is not a sequence is written as one string.
fn pylist(value: minijinja::Value) -> Result<String, minijinja::Error> {
    let items: Vec<String> = match value.try_iter() {
        Ok(iter) if value.as_str().is_none() => iter.map(|v| py_repr(&v.to_string())).collect(),
        _ => return Ok(py_repr(&value.to_string())),
    };
    Ok(format!("[{}]", items.join(", ")))
}

/// The loaded templates.
#[derive(Default)]
pub struct Prompts {
    env: Environment<'static>,
    systems: Vec<String>,
    missing: Vec<String>,
}

impl Prompts {
    /// [`Prompts::load`], with a notice naming the files `dir` lacks (taken from the
    /// compiled-in prompts): how `play`, `bench` and `qa` load a run's prompts.
    ///
    /// # Errors
    /// As [`Prompts::load`].
    pub fn load_noting(dir: Option<&Path>) -> Result<Self> {
        let prompts = Self::load(dir)?;
        if let (Some(d), false) = (dir, prompts.missing().is_empty()) {
            crate::report::notice(format!(
                "ariadne: note: {} has no {}: the built-in prompts are used for them",
                d.display(),
                prompts.missing().join(", ")
            ));
        }
        Ok(prompts)
    }

    /// Load the compiled-in prompts, or those in `dir`: a file of [`BUILTIN`] that `dir`
    /// lacks (a folder copied before that prompt existed) is the compiled-in one, and is
    /// named by [`Prompts::missing`] so the command can say so.
    ///
    /// # Errors
    /// An unreadable file, a template syntax error.
    pub fn load(dir: Option<&Path>) -> Result<Self> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_keep_trailing_newline(true);
        env.add_filter("pylist", pylist);
        let mut systems = Vec::new();
        let mut missing = Vec::new();
        for (name, builtin) in BUILTIN {
            let text = match dir {
                Some(d) => {
                    let p = d.join(format!("{name}.md"));
                    match std::fs::read_to_string(&p) {
                        Ok(text) => text,
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound && d.is_dir() => {
                            missing.push(format!("{name}.md"));
                            builtin.to_string()
                        }
                        Err(e) => bail!(UserError::new(format!(
                            "cannot read prompt {}: {e}",
                            p.display()
                        ))),
                    }
                }
                None => builtin.to_string(),
            };
            let (system, user) = match text.split_once(USER_MARK) {
                Some((s, u)) => (
                    s.trim().to_string(),
                    u.trim_start_matches(['\r', '\n']).to_string(),
                ),
                None if PARTIALS.contains(name) => (String::new(), text.clone()),
                None => bail!(UserError::new(format!(
                    "prompt {name}.md has no '{USER_MARK}' line"
                ))),
            };
            env.add_template_owned(name.to_string(), user)
                .map_err(|e| {
                    UserError::new(format!("prompt {name}.md is not a valid template: {e}"))
                })?;
            env.add_template_owned(format!("{name}{SYSTEM_SUFFIX}"), system)
                .map_err(|e| {
                    UserError::new(format!(
                        "the system part of prompt {name}.md is not a valid template: {e}"
                    ))
                })?;
            systems.push(name.to_string());
        }
        Ok(Self {
            env,
            systems,
            missing,
        })
    }

    /// The prompt files the folder given to [`Prompts::load`] lacks, for which the
    /// compiled-in prompts are used (`qa_outdated.md`).
    pub fn missing(&self) -> &[String] {
        &self.missing
    }

    /// Render prompt `name` with `ctx`: the system message and the user message (both
    /// are templates).
    ///
    /// # Errors
    /// An unknown name or a rendering error (a variable of the wrong shape).
    pub fn render<S: Serialize>(&self, name: &str, ctx: S) -> Result<Vec<Message>> {
        if !self.systems.iter().any(|n| n == name) {
            anyhow::bail!("no prompt named {name}");
        }
        let ctx = minijinja::Value::from_serialize(&ctx);
        let render = |template: &str| {
            self.env
                .get_template(template)
                .and_then(|t| t.render(ctx.clone()))
                .with_context(|| format!("cannot render prompt {name}"))
        };
        let system = render(&format!("{name}{SYSTEM_SUFFIX}"))?;
        let user = render(name)?;
        Ok(vec![
            Message::system(system.trim().to_string()),
            Message::user(user.trim_end().to_string()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::context;

    #[test]
    fn builtin_prompts_render() {
        let p = Prompts::load(None).unwrap();
        let m = p
            .render(
                "outdated",
                context! { new => vec!["key, is in, inventory"], old => vec!["key, is in, locker", "locker, is, closed"] },
            )
            .unwrap();
        assert_eq!(m[0].role, "system");
        assert!(m[0].content.contains("When in doubt, keep the old fact."));
        assert!(
            m[1].content
                .contains("1. key, is in, locker\n2. locker, is, closed"),
            "{}",
            m[1].content
        );
    }

    /// A prompt folder made before a prompt existed loads: the missing file is the
    /// compiled-in prompt, and is named; a folder that does not exist is an error.
    #[test]
    fn a_folder_without_a_newer_prompt_takes_the_builtin_one() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in BUILTIN.iter().filter(|(n, _)| *n != "qa_outdated") {
            std::fs::write(dir.path().join(format!("{name}.md")), text).unwrap();
        }
        let p = Prompts::load(Some(dir.path())).unwrap();
        assert_eq!(p.missing(), ["qa_outdated.md"]);
        let builtin = Prompts::load(None).unwrap();
        assert!(builtin.missing().is_empty());
        let ctx = || context! { new => vec!["a, b, c"], old => vec!["a, b, d"] };
        assert_eq!(
            p.render("qa_outdated", ctx()).unwrap()[1].content,
            builtin.render("qa_outdated", ctx()).unwrap()[1].content
        );
        let e = Prompts::load(Some(&dir.path().join("no-such")))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("cannot read prompt"), "{e}");
    }

    /// The QA answer prompt without theses, paths or changes is the reference's text as
    /// before the later seeds' blocks (a run recorded before them replays); with them,
    /// each block stands apart by a blank line.
    #[test]
    fn the_qa_answer_prompt_keeps_its_text_and_adds_blocks_apart() {
        use crate::memory::temporal::Change;
        let p = Prompts::load(None).unwrap();
        let render = |theses: Vec<&str>, paths: Vec<&str>, changes: Vec<Change>| {
            p.render(
                "qa_answer",
                context! { question => "Q?", facts => vec!["a, b, c"], theses => theses, paths => paths, changes => changes, texts => vec!["T."] },
            )
            .unwrap()[1]
                .content
                .clone()
        };
        let user = |theses: Vec<&str>, paths: Vec<&str>| render(theses, paths, Vec::new());
        let plain = user(vec![], vec![]);
        assert!(
            plain.contains(
                "Relevant facts from your memory: ['a, b, c']\n\nRelevant texts from your memory: ['T.']\n\nAnswer the question"
            ),
            "{plain:?}"
        );
        let both = user(vec!["s one"], vec!["a -[b]-> c"]);
        assert!(
            both.contains(
                "['a, b, c']\n\nRelevant statements from your memory: ['s one']\n\nPaths between the things asked about: ['a -[b]-> c']\n\nRelevant texts"
            ),
            "{both:?}"
        );
        let changed = render(
            vec![],
            vec!["a -[b]-> c"],
            vec![Change {
                from: "meeting, is at, 2 pm".into(),
                to: "meeting, is at, 3 pm".into(),
                since: 1,
                until: 3,
            }],
        );
        assert!(
            changed.contains(
                "['a -[b]-> c']\n\nHow facts changed (the older fact -> the fact that replaced it; the text that changed it, numbered in reading order): ['meeting, is at, 2 pm -> meeting, is at, 3 pm (text 3)']\n\nRelevant texts"
            ),
            "{changed:?}"
        );
    }
}
