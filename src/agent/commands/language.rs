//! The language a free-text decision is written in (rule `game-commands`): the pattern
//! a game family's templates make, the repairs that keep a command's meaning, and what
//! is played when no answer can be sent.

use regex::Regex;

use crate::env::CommandGrammar;
use crate::env::grammar::{DIR, OBJ};
use crate::text::clip;

/// A thing's name in a command: one to five words of lowercase letters, digits, `'`
/// and `-`.
const THING: &str = "[a-z0-9][a-z0-9'-]*( [a-z0-9'-]+){0,4}";
/// A command of a story whose verbs are its own: one to eight such words.
const ANY_COMMAND: &str = "[a-z0-9][a-z0-9,.'-]*( [a-z0-9,.'-]+){0,7}";
/// Longest free-text command, characters (Jericho cuts input at 198 bytes; a command
/// of more than a few words is not one a parser reads).
pub const COMMAND_CHARS: usize = 120;

/// Interpreter commands a free-text answer may not give: they save, load, restart or
/// quit the game, write files, or rewind it (the Jericho bridge refuses them too).
pub const META_COMMANDS: &[&str] = &[
    "save",
    "restore",
    "restart",
    "quit",
    "q",
    "script",
    "unscript",
    "transcript",
    "noscript",
    "undo",
];

/// A free-text answer as the command sent to the game: trimmed, inner whitespace
/// collapsed, a leading prompt sign (`>`) dropped; nothing else changes.
///
/// # Errors
/// An empty command, one of more than one line, or one longer than [`COMMAND_CHARS`]
/// (the message says which, for the retry).
pub fn clean(answer: &str) -> Result<String, String> {
    let trimmed = answer.trim();
    if trimmed.contains('\n') {
        return Err("the action must be one command on one line".into());
    }
    let command = trimmed
        .strip_prefix('>')
        .unwrap_or(trimmed)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if command.is_empty() {
        return Err("the action is empty: write one command for the game".into());
    }
    let verb = command
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_lowercase();
    if META_COMMANDS.contains(&verb.as_str()) {
        return Err(format!(
            "\"{verb}\" is an interpreter command (save, restore, restart, quit, undo, script); write a command for the game"
        ));
    }
    if command.chars().count() > COMMAND_CHARS {
        return Err(format!(
            "the action is longer than {COMMAND_CHARS} characters: write one short command"
        ));
    }
    Ok(command)
}

/// The language a decision is written in this step.
#[derive(Debug, Clone)]
pub struct Language {
    /// The family's.
    pub grammar: CommandGrammar,
    /// The whole-answer pattern (`^...$`).
    pub pattern: String,
    /// What is played when no answer is a command to send: for each direction the
    /// observation names, the family's commands that go that way (`move north`, `open
    /// door to north`), then the family's look command, in this order.
    pub fallbacks: Vec<String>,
}

impl Language {
    /// The language of `grammar`, with the `go to` shortcuts to `targets`; its
    /// fallbacks go the ways `observation` names, then look.
    pub fn new(grammar: CommandGrammar, targets: &[String], observation: &str) -> Self {
        let mut alternatives: Vec<String> = Vec::new();
        if grammar.closed() {
            let thing = format!("({THING})");
            for t in grammar.templates() {
                alternatives.push(template_pattern(grammar, t, &thing));
            }
        } else {
            alternatives.push(ANY_COMMAND.to_string());
        }
        let shortcuts: Vec<String> = targets.iter().map(|t| regex::escape(t)).collect();
        if !shortcuts.is_empty() {
            alternatives.push(format!("go to ({})", shortcuts.join("|")));
        }
        let words: Vec<String> = observation
            .split(|c: char| !c.is_alphabetic())
            .map(str::to_lowercase)
            .collect();
        let mut fallbacks: Vec<String> = grammar
            .directions()
            .iter()
            .filter(|d| words.iter().any(|w| w == *d))
            .flat_map(|d| grammar.moves(d))
            .collect();
        fallbacks.push(grammar.look().to_string());
        Self {
            grammar,
            pattern: format!("^({})$", alternatives.join("|")),
            fallbacks,
        }
    }

    /// The answer as the command to send, repaired only where the meaning stays (a
    /// leading `>`, case, spacing, articles the family's parser does not read), and
    /// whether it was repaired.
    ///
    /// # Errors
    /// Why the answer is not a command of the language (for the retry).
    pub fn command(&self, answer: &str) -> Result<(String, bool), String> {
        let cleaned = clean(answer)?;
        let sent = cleaned
            .trim_matches(QUOTES)
            .trim_end_matches(['.', '!', '?'])
            .trim_matches(QUOTES)
            .trim();
        let command = if self.grammar.without_articles() {
            plain(sent).join(" ")
        } else {
            sent.to_lowercase()
        };
        let pattern = Regex::new(&self.pattern).map_err(|e| e.to_string())?;
        if !pattern.is_match(&command) || self.joins_commands(&command) {
            return Err(format!(
                "\"{}\" is not a command of this game: write one of the commands this game understands, with OBJ the name of a thing as the game writes it",
                clip(answer.trim(), 80)
            ));
        }
        let repaired = command != answer.trim();
        Ok((command, repaired))
    }

    /// The first command of an answer that joins several (`take notebook put notebook
    /// in table`: `take notebook`), when it is a command of this language on its own;
    /// `None` for an answer that joins none, or whose first part is no command.
    pub fn first_command(&self, answer: &str) -> Option<String> {
        let cleaned = clean(answer).ok()?;
        let words = plain(&cleaned);
        let verbs = self.verbs();
        let cut = words
            .iter()
            .enumerate()
            .skip(1)
            .find(|(_, w)| JOINERS.contains(&w.as_str()) || verbs.contains(&w.as_str()))
            .map(|(i, _)| i)?;
        let first = words[..cut].join(" ");
        self.command(&first).ok().map(|(c, _)| c)
    }

    /// The first words of the family's templates (its verbs).
    fn verbs(&self) -> Vec<&'static str> {
        self.grammar
            .templates()
            .iter()
            .filter_map(|t| t.split(' ').next())
            .collect()
    }

    /// Whether `command` reads as more than one command or a plan (`open door and go
    /// north`, `take coin in shower put coin`, `examine room to find coin`): past its
    /// first word it has a verb of the family's templates or a word no generated
    /// family's thing is named with ([`JOINERS`]). Only for the generated families,
    /// whose things are named without them.
    fn joins_commands(&self, command: &str) -> bool {
        if !self.grammar.closed() {
            return false;
        }
        let verbs = self.verbs();
        command
            .split(' ')
            .skip(1)
            .any(|w| JOINERS.contains(&w) || verbs.contains(&w))
    }
}

/// Quotes and backticks a model puts around a command.
const QUOTES: &[char] = &['"', '\'', '`'];

/// Words that join commands or state a purpose, never part of a thing's name in the
/// generated families.
const JOINERS: [&str; 7] = ["and", "then", "find", "so", "after", "before", "until"];

/// Words a parser of a family [`CommandGrammar::without_articles`] does not read.
const ARTICLES: [&str; 4] = ["the", "a", "an", "some"];

/// A command's words, lowercase, without articles and without a closing period or
/// exclamation or question mark.
pub fn plain(command: &str) -> Vec<String> {
    command
        .trim_end_matches(['.', '!', '?'])
        .split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| !ARTICLES.contains(&w.as_str()))
        .collect()
}

/// Most admissible commands the action prompt lists one by one under rule
/// `game-commands`; a longer list (a ScienceWorld state lists hundreds) is shown as its
/// forms and things ([`Forms`]), the answer still held to the whole list.
pub const LISTED_COMMANDS: usize = 60;

/// A long admissible list as its family's forms and the things that fill them: what the
/// action prompt shows instead of every command (rule `game-commands`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forms {
    /// The templates at least one command takes, in the family's order; then the
    /// commands no template matches, as they are.
    pub forms: Vec<String>,
    /// The things the commands name, each once, in first-seen order.
    pub things: Vec<String>,
}

impl Forms {
    /// The forms of `commands` in `grammar`'s templates.
    pub fn of(grammar: CommandGrammar, commands: &[String]) -> Self {
        let templates: Vec<(&str, Option<Regex>)> = grammar
            .templates()
            .iter()
            .map(|t| {
                let pattern = template_pattern(grammar, t, "(.+?)");
                (*t, Regex::new(&format!("^{pattern}$")).ok())
            })
            .collect();
        let mut used = vec![false; templates.len()];
        let mut out = Forms::default();
        let mut literal = Vec::new();
        for c in commands {
            let hit = templates
                .iter()
                .enumerate()
                .find_map(|(i, (t, re))| re.as_ref()?.captures(c).map(|caps| (i, t, caps)));
            let Some((i, t, caps)) = hit else {
                literal.push(c.clone());
                continue;
            };
            used[i] = true;
            let slots = t
                .split(' ')
                .filter(|w| *w == OBJ || *w == DIR)
                .zip(caps.iter().skip(1));
            for (slot, cap) in slots {
                let thing = cap.map_or("", |m| m.as_str()).to_string();
                if slot == OBJ && !out.things.contains(&thing) {
                    out.things.push(thing);
                }
            }
        }
        out.forms = templates
            .iter()
            .zip(used)
            .filter(|(_, u)| *u)
            .map(|((t, _), _)| t.to_string())
            .chain(literal)
            .collect();
        out
    }
}

/// The pattern of one of `grammar`'s templates: its words as they are, [`OBJ`] as
/// `thing`, [`DIR`] as the family's directions (one group each).
fn template_pattern(grammar: CommandGrammar, template: &str, thing: &str) -> String {
    let dirs = format!("({})", grammar.directions().join("|"));
    let words: Vec<String> = template
        .split(' ')
        .map(|w| match w {
            OBJ => thing.to_string(),
            DIR => dirs.clone(),
            _ => regex::escape(w),
        })
        .collect();
    words.join(" ")
}
