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
//! is a fact kept for the
//! episode: shown in working memory, and refused as an answer while the agent is in the
//! same place (room, inventory and score) it was refused in.

use regex::Regex;
use serde::Serialize;

use crate::env::CommandGrammar;
use crate::env::grammar::{DIR, OBJ, refuses};
use crate::memory::names::entity_key;
use crate::text::clip;

/// A thing's name in a command: one to five words of lowercase letters, digits, `'`
/// and `-`.
const THING: &str = "[a-z0-9][a-z0-9'-]*( [a-z0-9'-]+){0,4}";
/// A command of a story whose verbs are its own: one to eight such words.
const ANY_COMMAND: &str = "[a-z0-9][a-z0-9,.'-]*( [a-z0-9,.'-]+){0,7}";
/// Commands the game accepted that working memory shows, the latest.
pub const ACCEPTED_SHOWN: usize = 12;
/// Refusals in the current place that working memory shows, the latest.
pub const REFUSED_SHOWN: usize = 10;
/// Longest game answer kept with a refusal, characters.
const REFUSAL_CHARS: usize = 100;
/// Words a parser of a family [`CommandGrammar::without_articles`] does not read.
const ARTICLES: [&str; 4] = ["the", "a", "an", "some"];

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
    /// Each accepted command's answer in its place (command words without articles).
    answered: Vec<(Place, Vec<String>, String)>,
    /// Accepted commands answered with something new so far.
    changes: u32,
    /// Where the command being decided is sent from.
    here: Place,
    /// The room the game last named in an observation ("You are in the kitchen."),
    /// for games whose states name none.
    named_room: String,
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
            let dirs = format!("({})", grammar.directions().join("|"));
            for t in grammar.templates() {
                let words: Vec<String> = t
                    .split(' ')
                    .map(|w| match w {
                        OBJ => format!("({THING})"),
                        DIR => dirs.clone(),
                        _ => regex::escape(w),
                    })
                    .collect();
                alternatives.push(words.join(" "));
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

    /// The command played when no answer could be sent: the first fallback the game
    /// has not refused here and that is not `last`, the command sent before.
    pub fn fallback(&self, commands: Option<&GameCommands>, last: Option<&str>) -> String {
        let open = |c: &&String| commands.is_none_or(|k| k.refused_here(c).is_none());
        self.fallbacks
            .iter()
            .filter(open)
            .find(|c| Some(c.as_str()) != last)
            .or_else(|| self.fallbacks.iter().find(open))
            .unwrap_or(&self.fallbacks[self.fallbacks.len() - 1])
            .clone()
    }

    /// The answer as the command to send, repaired only where the meaning stays (a
    /// leading `>`, case, spacing, articles the family's parser does not read), and
    /// whether it was repaired.
    ///
    /// # Errors
    /// Why the answer is not a command of the language (for the retry).
    pub fn command(&self, answer: &str) -> Result<(String, bool), String> {
        let sent = super::answers::free_command(answer)?;
        let sent = sent.trim_end_matches(['.', '!']).trim_end().to_string();
        let command = if self.grammar.without_articles() {
            plain(&sent).join(" ")
        } else {
            sent.to_lowercase()
        };
        let pattern = Regex::new(&self.pattern).map_err(|e| e.to_string())?;
        if !pattern.is_match(&command) {
            return Err(format!(
                "\"{}\" is not a command of this game: write one of the commands this game understands, with OBJ the name of a thing as the game writes it",
                clip(&command, 80)
            ));
        }
        let repaired = command != sent;
        Ok((command, repaired))
    }
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
    }

    /// Record what the game answered to `command`: a refusal, or an answer the same
    /// command got before in the same state, is kept with its place; any other answer
    /// is a change, and the command joins the commands that worked.
    pub fn observe(&mut self, command: &str, answer: &str) {
        if command.is_empty() {
            return;
        }
        let text = answer.split_whitespace().collect::<Vec<_>>().join(" ");
        let quoted = format!("\"{}\"", clip(&text, REFUSAL_CHARS));
        if refuses(answer) || !super::progress::succeeded(answer) {
            self.refuse(command, quoted);
            return;
        }
        let words = plain(command);
        let known = self
            .answered
            .iter()
            .any(|(p, c, a)| p.same_state(&self.here) && *c == words && *a == text);
        if known {
            self.refuse(command, format!("nothing new: {quoted}"));
        } else {
            self.answered.push((self.here.clone(), words, text));
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

/// A command's words, lowercase, without articles.
fn plain(command: &str) -> Vec<String> {
    command
        .split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| !ARTICLES.contains(&w.as_str()))
        .collect()
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

/// A free-text answer as the command to send, and whether it was repaired: held to
/// `language` when there is one (never a `go to` the room the agent is in, `here`), and
/// refused when `commands` (rule `remembered-refusals`) holds it as refused here.
///
/// # Errors
/// Why the answer cannot be sent, for the retry.
pub fn free_command(
    answer: &str,
    language: Option<&Language>,
    commands: Option<&GameCommands>,
    here: &str,
) -> Result<(String, bool), String> {
    let (command, repaired) = match language {
        Some(l) => l.command(answer)?,
        None => (super::answers::free_command(answer)?, false),
    };
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
mod tests {
    use super::*;

    /// The pattern the server enforces is the one checked here: commands of the family
    /// pass (repaired only in case, a closing period and articles the family's parser
    /// does not read); plan phrases and other families' verbs do not.
    #[test]
    fn answers_are_held_to_the_family_language() {
        let twx = Language::new(
            CommandGrammar::TextworldExpress,
            &["living room".into()],
            "You are in the kitchen. To the North you see a closed wooden door.",
        );
        assert_eq!(twx.command("take the coin"), Ok(("take coin".into(), true)));
        assert_eq!(twx.command("Move North."), Ok(("move north".into(), true)));
        assert_eq!(
            twx.command("open door to west"),
            Ok(("open door to west".into(), false))
        );
        assert_eq!(
            twx.command("go to living room"),
            Ok(("go to living room".into(), false))
        );
        for phrase in [
            "go west",
            "go to the kitchen",
            "find an item to cook with",
            "take the coin from the shower and put it into the box",
            "go west -> take the coin",
        ] {
            let e = twx.command(phrase).expect_err(phrase);
            assert!(e.contains("is not a command of this game"), "{e}");
        }
        // TextWorld reads articles: they stay.
        let tw = Language::new(CommandGrammar::TextWorld, &[], "");
        assert_eq!(
            tw.command("take the coin"),
            Ok(("take the coin".into(), false))
        );
        // A story's verbs are its own: any short lowercase command.
        let story = Language::new(CommandGrammar::InteractiveFiction, &[], "");
        assert_eq!(story.command("xyzzy"), Ok(("xyzzy".into(), false)));
        assert!(story.command("a b c d e f g h i").is_err());
        assert_eq!(
            twx.fallbacks,
            ["move north", "open door to north", "look around"]
        );
    }

    /// A refusal holds in its place (room, inventory, score), up to articles, and is
    /// lifted where the place has changed; `go to` the room the agent is in is refused.
    #[test]
    fn refusals_hold_in_their_place() {
        let lang = Language::new(CommandGrammar::TextworldExpress, &[], "");
        let mut c = GameCommands::default();
        c.set_place(None, "", 0, "You are in the kitchen. You see a stove.");
        c.observe("take coin", "Unknown action: I'm not sure what you mean.");
        c.observe("look around", "You are in the kitchen.");
        let e = free_command("take the coin", Some(&lang), Some(&c), "kitchen").unwrap_err();
        assert!(
            e.contains("answer to \"take coin\" here is known (\"Unknown action"),
            "{e}"
        );
        assert_eq!(c.accepted(), ["look around"]);
        assert_eq!(c.refusals_here().len(), 1);
        // `look around` told something new: the refusal is shown but no longer holds.
        c.set_place(None, "", 0, "You are in the kitchen.");
        assert!(free_command("take coin", Some(&lang), Some(&c), "kitchen").is_ok());
        assert_eq!(c.refusals_here().len(), 1);
        // The same answer again is nothing new: held until something changes.
        c.observe("look around", "You are in the kitchen.");
        c.set_place(None, "", 0, "You are in the kitchen.");
        let e = free_command("look around", Some(&lang), Some(&c), "kitchen").unwrap_err();
        assert!(e.contains("nothing new"), "{e}");
        assert_eq!(
            lang.fallback(Some(&c), None),
            "look around",
            "the last resort"
        );
        // Somewhere else the same commands may be sent.
        c.set_place(None, "", 0, "You move west.\n\nYou are in the pantry.");
        assert!(free_command("look around", Some(&lang), Some(&c), "pantry").is_ok());
        assert!(free_command("take coin", Some(&lang), Some(&c), "pantry").is_ok());
        assert!(c.refusals_here().is_empty());
        // Without the rule, nothing is refused.
        c.set_place(None, "", 0, "You are in the kitchen.");
        assert!(free_command("look around", Some(&lang), None, "kitchen").is_ok());
        let sw = Language::new(CommandGrammar::ScienceWorld, &[], "");
        let e = free_command("go to the kitchen", Some(&sw), None, "kitchen").unwrap_err();
        assert!(e.contains("already in the kitchen"), "{e}");
    }

    /// Rooms are read from the sentences the families use.
    #[test]
    fn rooms_are_read_from_the_observation() {
        assert_eq!(
            named_room("You are in the kitchen. In one part").as_deref(),
            Some("kitchen")
        );
        assert_eq!(
            named_room("This room is called the art studio. In it").as_deref(),
            Some("art studio")
        );
        assert_eq!(
            named_room("-= Living Room =-\nA room.").as_deref(),
            Some("living room")
        );
        assert_eq!(named_room("Unknown action."), None);
    }
}
