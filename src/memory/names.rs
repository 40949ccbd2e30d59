//! One vertex per thing: the canonical form under which surface forms of the same
//! entity meet (paper section 2 merges new triplets "without duplicates"; a small model
//! writes "Antique Trunk", "the antique trunk" and "antique  trunk" for one trunk).
//!
//! - [`fold`]: Unicode NFC, invisible joiners dropped (zero-width joiner and
//!   non-joiner, word joiner, byte-order mark, soft hyphen), every other invisible or
//!   blank character (zero-width space, invisible operators, direction marks, Hangul
//!   fillers, braille blank, ...) and non-breaking and other spaces as one space, surrounding whitespace trimmed, lowercase. For relations and commands.
//! - [`entity_key`]: [`fold`], then surrounding quotes and sentence punctuation trimmed
//!   and one leading article ("the", "a", "an") dropped. For subjects, objects and rooms.

use unicode_normalization::UnicodeNormalization;

/// Characters that render as nothing and join what they stand between: dropped.
const INVISIBLE: &[char] = &['\u{200c}', '\u{200d}', '\u{2060}', '\u{feff}', '\u{ad}'];

/// Every other character that renders as nothing or as blank space: read as a space
/// ("antique\u{200b}trunk" is two words). Zero-width space, the invisible operators
/// (function application, times, separator, plus), the Mongolian vowel separator, the
/// direction marks, embeddings and isolates, the Arabic letter mark, the combining
/// grapheme joiner (a joiner only for sorting), the Hangul fillers, the Khmer inherent
/// vowels, the braille blank.
const SEPARATORS: &[char] = &[
    '\u{200b}', '\u{2061}', '\u{2062}', '\u{2063}', '\u{2064}', '\u{180e}', '\u{200e}', '\u{200f}',
    '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}',
    '\u{2069}', '\u{061c}', '\u{034f}', '\u{115f}', '\u{1160}', '\u{3164}', '\u{ffa0}', '\u{17b4}',
    '\u{17b5}', '\u{2800}',
];

/// Leading articles dropped from entity names.
const ARTICLES: &[&str] = &["the ", "a ", "an "];

/// Whether a character is dropped: an invisible joiner, a variation selector (it only
/// picks a glyph for the character before it), or a tag character.
fn dropped(c: char) -> bool {
    INVISIBLE.contains(&c)
        || matches!(c,
            '\u{fe00}'..='\u{fe0f}'
            | '\u{e0100}'..='\u{e01ef}'
            | '\u{180b}'..='\u{180d}'
            | '\u{180f}'
            | '\u{e0000}'..='\u{e007f}')
}

/// Whether a character is read as a space: [`SEPARATORS`], and the musical formatting
/// characters (begin and end beam, tie, slur, phrase), invisible too.
fn separates(c: char) -> bool {
    SEPARATORS.contains(&c) || matches!(c, '\u{1d173}'..='\u{1d17a}')
}

/// Case, whitespace and Unicode folding (see the module documentation).
pub fn fold(s: &str) -> String {
    let nfc: String = s
        .nfc()
        .filter(|c| !dropped(*c))
        .map(|c| if separates(c) { ' ' } else { c })
        .collect();
    nfc.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The canonical name of an entity (see the module documentation).
pub fn entity_key(s: &str) -> String {
    let f = fold(s);
    let t = f.trim_matches(|c: char| matches!(c, '.' | ',' | '"' | '\'' | '!' | '?' | ';' | ':'));
    let t = t.trim();
    for a in ARTICLES {
        if let Some(rest) = t.strip_prefix(a)
            && !rest.trim().is_empty()
        {
            return rest.trim().to_string();
        }
    }
    t.to_string()
}

/// Words that name the player in triplets ("you, is in, kitchen").
pub const PLAYER_NAMES: &[&str] = &["player", "you", "i", "me", "agent"];

/// Whether a canonical name ([`entity_key`]) names the player.
pub fn is_player(name: &str) -> bool {
    PLAYER_NAMES.contains(&name)
}

/// Whether `name` occurs in `text` as whole words: the characters either side of an
/// occurrence are not letters or digits.
pub fn occurs(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    text.match_indices(name).any(|(i, m)| {
        let before = text[..i].chars().next_back();
        let after = text[i + m.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// A thesis's hyper-edge: the `vertices` (canonical names, as the graph stores them)
/// that occur in `text` as whole words after [`fold`] (case, spaces, Unicode). Sorted,
/// each once. "the Red Key opens the locker" mentions "red key", "key" and "locker",
/// not "keyboard".
pub fn mentions(text: &str, vertices: &[&str]) -> Vec<String> {
    let text = fold(text);
    let mut out: Vec<String> = vertices
        .iter()
        .filter(|v| occurs(&text, v))
        .map(|v| v.to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surface_forms_of_one_entity_meet() {
        let forms = [
            "Antique Trunk",
            "the antique trunk",
            "antique  trunk",
            "  An antique trunk.",
            "antique\u{a0}trunk",
            "anti\u{200c}que trunk",
            "antique\u{200b}trunk",
            "antique\u{2060}\u{200b} trunk",
            "antique tru\u{ad}nk",
            "antique\u{2062}trunk",
            "antique\u{200e}trunk",
            "antique\u{034f}trunk",
            "antique\u{3164}trunk",
            "antique\u{2800}trunk",
            "\u{202a}antique trunk\u{202c}",
            "antique\u{1d173}trunk",
            "antique\u{fe0f} trunk",
            "antique\u{e0020} trunk",
            "antique \u{180b}trunk",
        ];
        for f in forms {
            assert_eq!(entity_key(f), "antique trunk", "{f:?}");
        }
        // A decomposed accent (e + combining acute) equals the composed one.
        assert_eq!(entity_key("cafe\u{301} table"), entity_key("café table"));
        // An article is a word, not a prefix; a lone article stays.
        assert_eq!(entity_key("theater"), "theater");
        assert_eq!(entity_key("a"), "a");
        assert_eq!(fold("Go  NORTH"), "go north");
    }
}
