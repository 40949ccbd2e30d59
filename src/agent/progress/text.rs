//! The text of commands and feedback: a command's gist, whether the game refused it,
//! where a placing command puts a thing, and whether a command read a document.

use crate::memory::names::fold;

/// Words dropped when comparing a sub-goal with an action.
pub(super) const FILLER: &[&str] = &["the", "a", "an", "to", "your"];

/// A sub-goal or action reduced for comparison: folded, punctuation and articles gone.
pub fn gist(s: &str) -> String {
    fold(s)
        .split(|c: char| c.is_whitespace() || matches!(c, '.' | ',' | '!' | ';' | ':' | '"'))
        .filter(|w| !w.is_empty() && !FILLER.contains(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How the games refuse a command.
pub(super) const REFUSALS: &[&str] = &[
    "you can't",
    "you cannot",
    "that's not",
    "i don't",
    "you don't",
    "you need",
    "nothing happens",
    "is locked",
    "you have to",
    "i only understood",
    "there is no",
    "isn't",
];

/// Whether the game's answer to a command reads as done (no refusal).
pub fn succeeded(feedback: &str) -> bool {
    let f = fold(feedback);
    !REFUSALS.iter().any(|r| f.contains(r))
}

/// Words that name a thing written to be read.
pub(super) const DOCUMENTS: &[&str] = &[
    "note",
    "recipe",
    "cookbook",
    "book",
    "letter",
    "paper",
    "scroll",
    "manual",
    "diary",
    "journal",
    "sign",
    "card",
    "map",
    "message",
    "leaflet",
    "poster",
    "instructions",
];

/// Whether `action` read a note, recipe or book and the game answered with its text:
/// "examine cookbook", "read note" (not refused, and longer than a one-line reply).
pub fn document_read(action: &str, feedback: &str) -> bool {
    let g = gist(action);
    let Some(object) = g
        .strip_prefix("examine ")
        .or_else(|| g.strip_prefix("read "))
    else {
        return false;
    };
    object.split(' ').any(|w| DOCUMENTS.contains(&w))
        && succeeded(feedback)
        && feedback.trim().len() > 60
}

/// A gist split at its first "from", "into", "in", "on" or "with": "old key from
/// antique trunk" -> ("old key", "antique trunk"); `None` when it names no place.
pub(super) fn split_place(g: &str) -> Option<(&str, &str)> {
    [" from ", " into ", " in ", " on ", " with "]
        .iter()
        .filter_map(|sep| g.split_once(sep))
        .min_by_key(|(o, _)| o.len())
}
