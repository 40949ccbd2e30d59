//! Reading the JSON values of an LLM answer's text, tolerantly and within bounds: a text
//! that is one value, else every value that opens at a `{` or `[` (fences, colour codes,
//! prose and bracketed words around them skipped; JSON5 where plain JSON fails; missing
//! closing brackets added after a complete value). Which value is the answer is decided
//! by [`super::structured`], by the request's schema.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The JSON values an LLM answer holds, in order, each with whether reading it needed a
/// repair. A text that is one JSON value is that value, unrepaired. Otherwise terminal
/// colour codes and code fences are dropped, and from every `{` or `[` (left to right,
/// skipping the inside of a value already read) one JSON value is read as far as it goes
/// (serde_json's streaming reader: a bracketed word such as `[JSON]` or `[that's
/// wrong]` fails at its first letter and is skipped); where plain JSON fails, the
/// balanced candidate is read as JSON5 (trailing commas, single quotes, unquoted keys;
/// never deeper than [`MAX_DEPTH`]). When the text ends inside a value that lacks only
/// closing brackets after a complete value, they are added.
///
/// Reading is bounded so that no text makes it slow: a start costs at most the length of
/// its value or serde_json's recursion limit, at most [`MAX_FAILED_STARTS`] starts may
/// open no value, and the JSON5 and closing attempts together scan at most
/// [`SCAN_BUDGET`] characters. A text that reaches a bound is not read to its end, so a
/// value found before it is never taken for the answer (the rest might hold another):
/// it is refused with the reason.
///
/// Which value is the answer is not decided here: [`super::structured::ask`] takes the one that fits the
/// request's schema, and refuses a text with none or several different ones.
///
/// An answer that ends inside a string, a number or a literal, or after a comma or a
/// colon, was cut off mid-value: it is rejected, never completed (a completed half word
/// would become a fact).
///
/// # Errors
/// A one-line reason when no JSON object or array can be read, or when the text is too
/// tangled to be read to its end.
pub fn json_values(text: &str) -> Result<Vec<(Value, bool)>, String> {
    let trimmed = text.trim();
    if let Ok(Strict(v)) = serde_json::from_str::<Strict>(trimmed) {
        return Ok(vec![(v, false)]);
    }
    let cleaned = strip_ansi(trimmed);
    let unfenced = strip_fences(&cleaned);
    let mut reading = Reading {
        text: unfenced,
        out: Vec::new(),
        from: 0,
        opened: false,
        cut: None,
        scanned: 0,
        failed: 0,
        unread: false,
    };
    reading.read_all()?;
    reading.values(trimmed)
}

/// Reading a text's values start by start (see [`json_values`]): what was read, where
/// the next start is looked for, and the bounds spent.
struct Reading<'a> {
    /// The text without colour codes and fences.
    text: &'a str,
    /// The values read so far, each with whether reading it needed a repair.
    out: Vec<(Value, bool)>,
    /// Where the next `{` or `[` is looked for (a byte offset).
    from: usize,
    /// Whether any `{` or `[` was found.
    opened: bool,
    /// The first start whose value the text ended inside.
    cut: Option<usize>,
    /// Characters the JSON5 and closing attempts scanned (bounded by [`SCAN_BUDGET`]).
    scanned: usize,
    /// Starts that opened no value (bounded by [`MAX_FAILED_STARTS`]).
    failed: usize,
    /// Whether a bound stopped the reading before the text's end.
    unread: bool,
}

/// What one start (a `{` or `[`) gave.
enum Start {
    /// A value, read into [`Reading::out`]; the next start is looked for from `next`.
    Value { next: usize },
    /// No value; whether the text ended inside the one that opens there.
    Failed { ended_inside: bool },
}

impl Reading<'_> {
    /// Read from every `{` or `[` left to right, skipping the inside of a value read,
    /// until the text or a bound ends.
    ///
    /// # Errors
    /// A key given twice with different values ([`duplicate`]).
    fn read_all(&mut self) -> Result<(), String> {
        while let Some(offset) = self.text[self.from..].find(['{', '[']) {
            if self.failed == MAX_FAILED_STARTS {
                self.unread = true;
                break;
            }
            self.opened = true;
            let start = self.from + offset;
            match self.read_at(start)? {
                Start::Value { next } => {
                    self.from = next;
                    continue;
                }
                Start::Failed { ended_inside } => {
                    if ended_inside && self.cut.is_none() && self.close_at(start)? {
                        break;
                    }
                }
            }
            self.failed += 1;
            self.from = start + 1;
        }
        Ok(())
    }

    /// One value from `start`: as far as serde_json's streaming reader goes, else the
    /// balanced candidate as JSON5 (within [`SCAN_BUDGET`]).
    ///
    /// # Errors
    /// A key given twice with different values ([`duplicate`]).
    fn read_at(&mut self, start: usize) -> Result<Start, String> {
        let body = &self.text[start..];
        let mut stream = serde_json::Deserializer::from_str(body).into_iter::<Strict>();
        let next = stream.next();
        if let Some(Err(e)) = &next
            && let Some(why) = duplicate(e)
        {
            return Err(why);
        }
        match next {
            Some(Ok(Strict(v))) => {
                self.out.push((v, true));
                Ok(Start::Value {
                    next: start + stream.byte_offset().max(1),
                })
            }
            Some(Err(e)) if e.is_eof() => Ok(Start::Failed { ended_inside: true }),
            _ if self.scanned + body.len() > SCAN_BUDGET => {
                self.unread = true;
                Ok(Start::Failed {
                    ended_inside: false,
                })
            }
            _ => self.json5_at(start),
        }
    }

    /// The balanced candidate from `start` read as JSON5, when it is not deeper than
    /// [`MAX_DEPTH`]; the scan counted.
    ///
    /// # Errors
    /// A key given twice with different values ([`duplicate`]).
    fn json5_at(&mut self, start: usize) -> Result<Start, String> {
        let body = &self.text[start..];
        match balanced_end(body) {
            Some((end, depth)) => {
                self.scanned += end;
                if depth <= MAX_DEPTH {
                    match json5::from_str::<Strict>(&body[..end]) {
                        Ok(Strict(v)) => {
                            self.out.push((v, true));
                            return Ok(Start::Value { next: start + end });
                        }
                        Err(e) => {
                            if let Some(why) = duplicate(&e) {
                                return Err(why);
                            }
                        }
                    }
                }
                Ok(Start::Failed {
                    ended_inside: false,
                })
            }
            None => {
                self.scanned += body.len();
                Ok(Start::Failed { ended_inside: true })
            }
        }
    }

    /// The text ends inside the value at `start`: closed when only brackets are missing
    /// (it then holds the rest of the text, and reading ends: returns true), else
    /// marked as the cut, so the values inside are read. Starts inside it end inside it
    /// too: only the outermost is closed.
    ///
    /// # Errors
    /// A key given twice with different values ([`duplicate`]).
    fn close_at(&mut self, start: usize) -> Result<bool, String> {
        let body = &self.text[start..];
        self.scanned += body.len();
        if let Some(c) = close_truncated(body)
            && let Some(v) = parse_one(&c)?
        {
            self.out.push((v, true));
            return Ok(true);
        }
        self.cut = Some(start);
        Ok(false)
    }

    /// The values read, or why the text (`trimmed`, quoted shortly) is refused: a bound
    /// reached after a value was read, a value cut off mid-way, nothing read.
    ///
    /// # Errors
    /// The reason, in one line.
    fn values(self, trimmed: &str) -> Result<Vec<(Value, bool)>, String> {
        if self.unread && !self.out.is_empty() {
            return Err(format!(
                "the answer has too many brackets that open no value to be read to its end (the rest might hold another answer): {:?}",
                short(trimmed)
            ));
        }
        if self.cut.is_some() && self.out.is_empty() {
            return Err(format!(
                "the JSON ends mid-value (cut off?): {:?}",
                short_tail(trimmed)
            ));
        }
        if self.out.is_empty() {
            return Err(if self.opened {
                format!("unparseable JSON: {:?}", short(trimmed))
            } else {
                format!("no JSON object in the answer: {:?}", short(trimmed))
            });
        }
        Ok(self.out)
    }
}

/// How many `{` or `[` of a text may fail to open a value (each costs at most serde_json's
/// recursion limit) before the text is refused as unreadable.
pub const MAX_FAILED_STARTS: usize = 16_384;

/// Characters the JSON5 and closing attempts of one text may scan in all (each scans
/// from its start to its balancing bracket, or to the end).
pub const SCAN_BUDGET: usize = 4 << 20;

/// The deepest candidate read as JSON5 (serde_json's own recursion limit is 128).
pub const MAX_DEPTH: usize = 128;

/// The text without terminal escape sequences (`\x1b[32m` and the like), which some
/// servers pass through from a model's output.
fn strip_ansi(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, then one final byte (@ to ~).
            for d in chars.by_ref() {
                if ('@'..='~').contains(&d) {
                    break;
                }
            }
        } else {
            chars.next();
        }
    }
    std::borrow::Cow::Owned(out)
}

/// One balanced candidate as JSON, else as JSON5 (when not too deep).
///
/// # Errors
/// A key given twice with different values ([`duplicate`]).
fn parse_one(candidate: &str) -> Result<Option<Value>, String> {
    match serde_json::from_str::<Strict>(candidate) {
        Ok(Strict(v)) => return Ok(Some(v)),
        Err(e) => {
            if let Some(why) = duplicate(&e) {
                return Err(why);
            }
        }
    }
    if balanced_end(candidate).is_none_or(|(_, depth)| depth > MAX_DEPTH) {
        return Ok(None);
    }
    match json5::from_str::<Strict>(candidate) {
        Ok(Strict(v)) => Ok(Some(v)),
        Err(e) => duplicate(&e).map_or(Ok(None), Err),
    }
}

/// The marker of a duplicate key in a parse error (see [`Strict`]).
const DUPLICATE: &str = "ariadne: duplicate key ";

/// The reason to refuse a text whose parse met a key given twice with different values.
fn duplicate(e: &impl std::fmt::Display) -> Option<String> {
    let text = e.to_string();
    let key = text.split(DUPLICATE).nth(1)?;
    let key: String = key.chars().take_while(|c| *c != '\u{1f}').collect();
    Some(format!(
        "the answer gives the key {key:?} twice with different values; an ambiguous answer is never guessed"
    ))
}

/// A JSON value read with its objects' keys checked: serde_json keeps the last of two
/// equal keys, so `{"action": "open trunk", "action": "look"}` would silently be read as
/// `look`. A key given twice with the same value is read once; with different values the
/// parse fails with [`DUPLICATE`] in its error, and the text is refused.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        Ok(Value::from(x))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Strict::deserialize(d).map(|s| s.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            match out.get(&key) {
                Some(old) if *old != v => {
                    return Err(de::Error::custom(format!("{DUPLICATE}{key}\u{1f}")));
                }
                Some(_) => {}
                None => {
                    out.insert(key, v);
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// A text as an error message quotes it: its first 200 characters.
pub(super) fn short(s: &str) -> String {
    crate::text::first_chars(s, 200)
}

fn short_tail(s: &str) -> String {
    let n = s.chars().count();
    s.chars().skip(n.saturating_sub(80)).collect()
}

fn strip_fences(s: &str) -> &str {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("```") {
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        return rest.trim().trim_end_matches("```").trim();
    }
    s
}

/// The characters of a text that lie outside its strings (double or single quotes, as
/// JSON5 has both; backslash escapes honoured), with their byte index; the quotes
/// themselves are not given. After the walk, `quote` says whether the text ended inside
/// a string.
struct OutsideStrings<'a> {
    chars: std::str::CharIndices<'a>,
    quote: Option<char>,
    escaped: bool,
}

impl<'a> OutsideStrings<'a> {
    fn new(s: &'a str) -> Self {
        Self {
            chars: s.char_indices(),
            quote: None,
            escaped: false,
        }
    }
}

impl Iterator for OutsideStrings<'_> {
    type Item = (usize, char);

    fn next(&mut self) -> Option<(usize, char)> {
        loop {
            let (i, c) = self.chars.next()?;
            if let Some(q) = self.quote {
                if self.escaped {
                    self.escaped = false;
                } else if c == '\\' {
                    self.escaped = true;
                } else if c == q {
                    self.quote = None;
                }
                continue;
            }
            if c == '"' || c == '\'' {
                self.quote = Some(c);
                continue;
            }
            return Some((i, c));
        }
    }
}

/// Byte index one past the bracket that closes the first one, honouring strings (double
/// and single quotes, as JSON5 has both), and the deepest nesting on the way.
fn balanced_end(s: &str) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    for (i, c) in OutsideStrings::new(s) {
        match c {
            '{' | '[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some((i + c.len_utf8(), deepest));
                }
            }
            _ => {}
        }
    }
    None
}

/// Close an answer that lacks only closing brackets after a complete value; `None`
/// when it ends inside a string or mid-value (after a comma, a colon, a digit, a word).
fn close_truncated(s: &str) -> Option<String> {
    let mut stack = Vec::new();
    let mut walk = OutsideStrings::new(s);
    for (_, c) in &mut walk {
        match c {
            '{' => stack.push('}'),
            '[' => stack.push(']'),
            '}' | ']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    let mut out = s.trim_end().to_string();
    let complete = out.ends_with(['}', ']', '"', '\'']) || out.ends_with(['{', '[']);
    if walk.quote.is_some() || !complete {
        return None;
    }
    while let Some(c) = stack.pop() {
        out.push(c);
    }
    Some(out)
}
