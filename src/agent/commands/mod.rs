//! Free-text commands in the game's own language (rule `game-commands`) and the
//! commands the game refused, remembered (rule `remembered-refusals`).
//!
//! In free text the decision writes a command for the game's parser. Under
//! `game-commands` it is written in the game family's language ([`CommandGrammar`]):
//! its templates and directions, and the commands this game accepted before, are in
//! working memory; the answer is held to a pattern built from them (a JSON-schema
//! `pattern` the server's grammar enforces, checked here again for endpoints that do not
//! enforce it), and only repaired in ways that keep its meaning (case, articles a parser
//! of the family does not read). Under `remembered-refusals`, a command the game
//! answered with a refusal (the parser did not understand it,
//! [`crate::env::grammar::refuses`], or refused to do it, [`super::progress::succeeded`])
//! or answered with nothing new, is a fact kept for the
//! episode: shown in working memory, and refused as an answer while the agent is in the
//! same place (room, inventory and score) it was refused in.

use regex::Regex;
use serde::Serialize;

use crate::env::CommandGrammar;
use crate::env::grammar::refuses;
use crate::memory::names::entity_key;
use crate::text::clip;

mod language;

use language::plain;
pub use language::{COMMAND_CHARS, Forms, LISTED_COMMANDS, Language, META_COMMANDS};

/// Commands the game accepted that working memory shows, the latest.
pub const ACCEPTED_SHOWN: usize = 12;
/// Refusals in the current place that working memory shows, the latest.
pub const REFUSED_SHOWN: usize = 10;
/// Longest game answer kept with a refusal, characters.
const REFUSAL_CHARS: usize = 100;

/// Where the agent is, as far as a refusal goes: a command refused here may be
/// accepted once the room, the inventory or the score has changed, or a command was
/// answered with something new (`changes`: an opened door, a thing examined).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Place {
    room: String,
    inventory: String,
    score: i64,
    changes: u32,
}

impl Place {
    /// The same room, inventory and score, whatever changed since.
    fn same_state(&self, other: &Place) -> bool {
        (&self.room, &self.inventory, self.score) == (&other.room, &other.inventory, other.score)
    }
}

/// A command whose answer in a place is known: the game refused it, or answered it as
/// it did before (nothing new).
#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    /// The command as sent.
    pub command: String,
    /// The game's answer, quoted and clipped (`"Unknown action."`, or `nothing new:
    /// "..."` for a repeat).
    pub answer: String,
    #[serde(skip)]
    place: Place,
}

/// What the agent knows of the game's language: the commands it accepted and refused.
#[derive(Debug, Default)]
pub struct GameCommands {
    accepted: Vec<String>,
    refused: Vec<Refusal>,
    /// The texts the game showed in each place: the observations decided on and the
    /// answers to accepted commands, whitespace collapsed.
    seen: Vec<(Place, String)>,
    /// Accepted commands answered with something new so far.
    changes: u32,
    /// Where the command being decided is sent from.
    here: Place,
    /// The room the game last named in an observation ("You are in the kitchen."),
    /// for games whose states name none.
    named_room: String,
}

impl GameCommands {
    /// Note where the command about to be decided is sent from.
    pub fn set_place(&mut self, room: Option<&str>, inventory: &str, score: i64, seen: &str) {
        if let Some(named) = named_room(seen) {
            self.named_room = named;
        }
        self.here = Place {
            room: room.map_or_else(|| self.named_room.clone(), entity_key),
            inventory: inventory.trim().to_string(),
            score,
            changes: self.changes,
        };
        self.seen.push((self.here.clone(), collapse(seen)));
    }

    /// The room the game last named in an observation (empty when none was named).
    pub fn named_room(&self) -> &str {
        &self.named_room
    }

    /// Record what the game answered to `command`: a refusal, or a text the game already
    /// showed in the same state (a `look` that repeats the room's description), is kept
    /// with its place; any other answer is a change, and the command joins the commands
    /// that worked.
    pub fn observe(&mut self, command: &str, answer: &str) {
        if command.is_empty() {
            return;
        }
        let text = collapse(answer);
        let quoted = format!("\"{}\"", clip(&text, REFUSAL_CHARS));
        if refuses(answer) || !super::progress::succeeded(answer) {
            self.refuse(command, quoted);
            return;
        }
        let known = self
            .seen
            .iter()
            .any(|(p, t)| p.same_state(&self.here) && *t == text);
        if known {
            self.refuse(command, format!("nothing new: {quoted}"));
        } else {
            self.seen.push((self.here.clone(), text));
            self.changes += 1;
        }
        self.accepted.retain(|c| c != command);
        self.accepted.push(command.to_string());
    }

    fn refuse(&mut self, command: &str, answer: String) {
        self.refused.push(Refusal {
            command: command.to_string(),
            answer,
            place: self.here.clone(),
        });
    }

    /// Whether the game refused `command` in the current place (up to case and
    /// articles: `take the apple` is `take apple`).
    pub fn refused_here(&self, command: &str) -> Option<&Refusal> {
        let asked = plain(command);
        self.refused
            .iter()
            .rev()
            .find(|r| r.place == self.here && plain(&r.command) == asked)
    }

    /// The command played when no answer could be sent: the first of `language`'s
    /// fallbacks whose answer here is not known, other than `last` (the command sent
    /// before) where there is another; the last resort is the family's look command.
    pub fn fallback(&self, language: &Language, last: Option<&str>, held: bool) -> String {
        let open = |c: &&String| !held || self.refused_here(c).is_none();
        let options = &language.fallbacks;
        options
            .iter()
            .filter(open)
            .find(|c| Some(c.as_str()) != last)
            .or_else(|| options.iter().find(open))
            .or(options.last())
            .map_or_else(|| language.grammar.look().to_string(), String::clone)
    }

    /// The latest commands the game accepted, oldest first.
    pub fn accepted(&self) -> &[String] {
        let from = self.accepted.len().saturating_sub(ACCEPTED_SHOWN);
        &self.accepted[from..]
    }

    /// The latest refusals in the current state (room, inventory, score), oldest
    /// first, each command once.
    pub fn refusals_here(&self) -> Vec<&Refusal> {
        let mut out: Vec<&Refusal> = Vec::new();
        for r in self
            .refused
            .iter()
            .rev()
            .filter(|r| r.place.same_state(&self.here))
        {
            if out.len() < REFUSED_SHOWN && !out.iter().any(|o| o.command == r.command) {
                out.push(r);
            }
        }
        out.reverse();
        out
    }
}

/// A text with its whitespace collapsed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The room an observation names ("You are in the kitchen.", "This room is called the
/// hallway.", "-= Kitchen =-"), as an entity key.
fn named_room(observation: &str) -> Option<String> {
    static ROOM: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let re = ROOM.get_or_init(|| {
        Regex::new(r"(?i)(?:you are in (?:the |a )?|this room is called (?:the )?)([a-z][a-z' -]{0,40}?)[.,\n]|-= ([^=\n]{1,40}) =-")
            .expect("a valid pattern")
    });
    let c = re.captures(observation)?;
    let room = c.get(1).or_else(|| c.get(2))?.as_str();
    Some(entity_key(room))
}

/// A command's template as working memory shows it (`take OBJ`).
pub fn templates_text(grammar: CommandGrammar) -> String {
    grammar.templates().join(", ")
}

/// How the decision's command is written this step.
#[derive(Debug, Clone, Copy)]
pub enum Speech<'a> {
    /// One of the admissible commands (or a `go to` target); with the game's language
    /// (rule `game-commands`), a list longer than [`LISTED_COMMANDS`] is shown as its
    /// forms.
    Admissible(Option<CommandGrammar>),
    /// Free text for the game's parser: as written (`None`), or in the game's language
    /// (rule `game-commands`).
    FreeText(Option<&'a Language>),
}

impl<'a> Speech<'a> {
    /// The language a free-text command is held to, if any.
    pub fn language(self) -> Option<&'a Language> {
        match self {
            Speech::FreeText(language) => language,
            Speech::Admissible(_) => None,
        }
    }

    /// Whether the command is free text.
    pub fn is_free_text(self) -> bool {
        matches!(self, Speech::FreeText(_))
    }
}

/// A free-text answer as the command to send, and whether it was repaired: held to
/// `language` when there is one (never a `go to` the room the agent is in, `here`), and
/// refused when `commands` (rule `remembered-refusals`) holds it as refused here. From
/// agent revision 11 (`rev`), a trailing `in <the room the agent is in>` is dropped in a
/// generated family (a repair: the parser reads no place, and the place is here).
///
/// # Errors
/// Why the answer cannot be sent, for the retry.
pub fn free_command(
    answer: &str,
    language: Option<&Language>,
    commands: Option<&GameCommands>,
    here: &str,
    rev: crate::agent::AgentRevision,
) -> Result<(String, bool), String> {
    let (mut command, mut repaired) = match language {
        Some(l) => l.command(answer)?,
        None => (language::clean(answer)?, false),
    };
    // `put notebook on table in living room` while in the living room: the trailing
    // place is where the agent is, which the generated families' parsers do not read.
    if rev.reads_answers_whole()
        && language.is_some_and(|l| l.grammar.closed())
        && !here.is_empty()
        && let Some(rest) = command.strip_suffix(here).and_then(|r| {
            r.strip_suffix(" in ")
                .or_else(|| r.strip_suffix(" in the "))
        })
        && rest.contains(' ')
    {
        command = rest.to_string();
        repaired = true;
    }
    if language.is_some()
        && !here.is_empty()
        && let Some(room) = command.strip_prefix(crate::nav::GO_TO)
        && entity_key(room) == here
    {
        return Err(format!(
            "you are already in the {room}: write a command that acts here"
        ));
    }
    if let Some(r) = commands.and_then(|c| c.refused_here(&command)) {
        return Err(format!(
            "the game's answer to \"{}\" here is known ({}): write another command",
            r.command, r.answer
        ));
    }
    Ok((command, repaired))
}

/// What working memory shows of the game's language and of the refusals in the
/// current place.
#[derive(Debug, Clone, Serialize)]
pub struct Shown {
    /// The family's templates (`take OBJ, move DIR`), under `game-commands`.
    pub templates: Option<String>,
    /// Whether only the templates are accepted (a generated family).
    pub closed: bool,
    /// Whether things are named without articles.
    pub articles: bool,
    /// The family's directions, comma-separated (empty: none).
    pub directions: String,
    /// The latest commands the game accepted, under `game-commands`.
    pub accepted: Vec<String>,
    /// The refusals in the current place, under `remembered-refusals`.
    pub refused: Vec<Refusal>,
}

impl Shown {
    /// What `commands` shows under `language` (rule `game-commands`) and, when
    /// `refusals` (rule `remembered-refusals`), of its refusals here.
    pub fn new(language: Option<&Language>, commands: &GameCommands, refusals: bool) -> Self {
        Self {
            templates: language.map(|l| templates_text(l.grammar)),
            closed: language.is_some_and(|l| l.grammar.closed()),
            articles: language.is_some_and(|l| l.grammar.without_articles()),
            directions: language.map_or(String::new(), |l| l.grammar.directions().join(", ")),
            accepted: language.map_or(Vec::new(), |_| commands.accepted().to_vec()),
            refused: if refusals {
                commands.refusals_here().into_iter().cloned().collect()
            } else {
                Vec::new()
            },
        }
    }

    /// As working memory shows it: the templates, the commands accepted, the refusals
    /// here, a line each (one refusal a line).
    pub fn text(&self) -> String {
        let mut out = Vec::new();
        if let Some(t) = &self.templates {
            out.push(format!("{}: {t}", self.heading()));
        }
        if !self.accepted.is_empty() {
            out.push(format!(
                "Commands the game accepted before: {}",
                self.accepted.join(", ")
            ));
        }
        if !self.refused.is_empty() {
            out.push(
                "Commands whose answer here is known (refused, or nothing new; send them again only after something changed):"
                    .into(),
            );
            for r in &self.refused {
                out.push(format!("- {} -> {}", r.command, r.answer));
            }
        }
        out.join("\n")
    }

    /// The line before the templates: what they are and how OBJ and DIR are filled.
    pub fn heading(&self) -> String {
        let mut how = vec![if self.closed {
            "only these".to_string()
        } else {
            "the common ones; this story may know others".to_string()
        }];
        how.push(format!(
            "OBJ: a thing's name as the game writes it{}",
            if self.articles {
                ", without \"the\""
            } else {
                ""
            }
        ));
        if !self.directions.is_empty() && self.closed {
            how.push(format!("DIR: {}", self.directions));
        }
        format!("Commands this game understands ({})", how.join("; "))
    }
}

#[cfg(test)]
mod tests;
