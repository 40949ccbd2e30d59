//! Answer metrics, two ways:
//! - **official**: exact match and F1 of the SQuAD evaluation script (lower case,
//!   punctuation and the articles a/an/the removed, whitespace collapsed; F1 over the
//!   multiset of tokens), the best over the gold answer and its aliases, as MuSiQue's and
//!   HotpotQA's official scripts compute them (HotpotQA's also gives 0 when one side is
//!   yes/no/noanswer and the other differs); averaged over questions;
//! - **reference**: the figures of the authors' script (`musique_test_big.py`,
//!   `compute_and_print_metrics`): answer and gold (aliases ignored) lower-cased and
//!   stripped of `. \n'"?` and backticks, split on whitespace; true positives are the
//!   *unique* predicted words found in the gold; precision, recall and F1 are
//!   micro-averaged over all questions; exact match is token-list equality.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::data::Format;

/// SQuAD's answer normalization: lower case, ASCII punctuation removed, the articles
/// removed where Python's `\b(a|an|the)\b` finds them (a word boundary is any change
/// between a word character, Unicode alphanumeric or `_`, and anything else, so "the"
/// goes from "the—end"), whitespace collapsed.
pub fn normalize(s: &str) -> String {
    let lower = s.to_lowercase();
    let no_punct: String = lower
        .chars()
        .filter(|c| !c.is_ascii_punctuation())
        .collect();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(no_punct.len());
    let mut rest = no_punct.as_str();
    while let Some(c) = rest.chars().next() {
        let is_word = word(c);
        let end = rest
            .char_indices()
            .find(|&(_, d)| word(d) != is_word)
            .map_or(rest.len(), |(i, _)| i);
        let run = &rest[..end];
        if is_word && matches!(run, "a" | "an" | "the") {
            out.push(' ');
        } else {
            out.push_str(run);
        }
        rest = &rest[end..];
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// SQuAD's token F1 of one prediction against one gold answer.
fn f1_one(prediction: &str, gold: &str, format: Format) -> f64 {
    let (p, g) = (normalize(prediction), normalize(gold));
    let special = ["yes", "no", "noanswer"];
    if format == Format::Hotpotqa
        && (special.contains(&p.as_str()) || special.contains(&g.as_str()))
        && p != g
    {
        return 0.0;
    }
    let pt: Vec<&str> = p.split_whitespace().collect();
    let gt: Vec<&str> = g.split_whitespace().collect();
    // MuSiQue's script (SQuAD 2.0's `compute_f1`): an answer with no tokens left scores
    // 1 against a gold with none, else 0. HotpotQA's has no such rule (no common token: 0).
    if format == Format::Musique && (pt.is_empty() || gt.is_empty()) {
        return f64::from(u8::from(pt == gt));
    }
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for t in &gt {
        *counts.entry(t).or_default() += 1;
    }
    let mut same = 0i64;
    for t in &pt {
        if let Some(c) = counts.get_mut(t)
            && *c > 0
        {
            *c -= 1;
            same += 1;
        }
    }
    if same == 0 {
        return 0.0;
    }
    let precision = same as f64 / pt.len() as f64;
    let recall = same as f64 / gt.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

/// Official exact match and F1 of one prediction: the best over `answers` (the gold
/// answer and its aliases).
pub fn official(prediction: &str, answers: &[String], format: Format) -> (bool, f64) {
    let em = answers
        .iter()
        .any(|a| normalize(a) == normalize(prediction));
    let f1 = answers
        .iter()
        .map(|a| f1_one(prediction, a, format))
        .fold(0.0, f64::max);
    (em, f1)
}

/// One question's counts under the reference script's metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceCounts {
    /// Unique predicted words found in the gold answer.
    pub true_p: u64,
    /// Predicted words.
    pub pred_len: u64,
    /// Gold words.
    pub true_len: u64,
    /// The word lists are equal.
    pub exact: bool,
}

fn reference_words(s: &str) -> Vec<String> {
    let strip = |w: &str| {
        w.trim_matches(|c: char| matches!(c, '.' | ' ' | '\n' | '\'' | '"' | '?' | '`'))
            .to_string()
    };
    strip(&s.to_lowercase())
        .split_whitespace()
        .map(strip)
        .collect()
}

/// The reference script's counts for one prediction against the gold answer (aliases
/// ignored, as there).
pub fn reference(prediction: &str, gold: &str) -> ReferenceCounts {
    let p = reference_words(prediction);
    let g = reference_words(gold);
    let unique: HashSet<&String> = p.iter().filter(|w| g.contains(w)).collect();
    ReferenceCounts {
        true_p: unique.len() as u64,
        pred_len: p.len() as u64,
        true_len: g.len() as u64,
        exact: p == g,
    }
}

/// The reference script's aggregate: (exact match, F1), micro-averaged (F1 0 when
/// nothing was predicted or matched).
pub fn reference_aggregate(counts: &[ReferenceCounts]) -> (f64, f64) {
    if counts.is_empty() {
        return (0.0, 0.0);
    }
    let tp: u64 = counts.iter().map(|c| c.true_p).sum();
    let pl: u64 = counts.iter().map(|c| c.pred_len).sum();
    let tl: u64 = counts.iter().map(|c| c.true_len).sum();
    let em = counts.iter().filter(|c| c.exact).count() as f64 / counts.len() as f64;
    if tp == 0 || pl == 0 || tl == 0 {
        return (em, 0.0);
    }
    let (p, r) = (tp as f64 / pl as f64, tp as f64 / tl as f64);
    (em, 2.0 * p * r / (p + r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    /// Hand values of the official metric.
    #[test]
    fn official_metric_by_hand() {
        assert_eq!(normalize("The  Eiffel Tower!"), "eiffel tower");
        assert_eq!(
            official("the Eiffel tower", &s(&["Eiffel Tower"]), Format::Musique),
            (true, 1.0)
        );
        // "Paris France" vs "Paris": p = 1/2, r = 1 -> 2/3.
        let (em, f1) = official("Paris, France", &s(&["Paris"]), Format::Musique);
        assert!(!em);
        assert!((f1 - 2.0 / 3.0).abs() < 1e-12);
        // The best over the aliases.
        assert_eq!(
            official("NYC", &s(&["New York City", "NYC"]), Format::Musique),
            (true, 1.0)
        );
        // HotpotQA's yes/no rule: "no" against "no way" is 0, not 2/3.
        assert_eq!(official("no", &s(&["no way"]), Format::Hotpotqa).1, 0.0);
        assert!(official("no", &s(&["no way"]), Format::Musique).1 > 0.6);
        // Repeated tokens count once each (a multiset).
        let (_, f1) = official("red red", &s(&["red"]), Format::Musique);
        assert!((f1 - 2.0 / 3.0).abs() < 1e-12);
        // Articles go at word boundaries, as Python's regex finds them: next to non-ASCII
        // punctuation too, never inside a word.
        assert_eq!(normalize("the—end"), "—end");
        assert_eq!(normalize("Theatre, an Anthem"), "theatre anthem");
        // ASCII punctuation goes first, so "A-ha" is one word.
        assert_eq!(normalize("A-ha"), "aha");
        // Nothing left on both sides: MuSiQue's script gives 1, HotpotQA's 0.
        assert_eq!(official("an", &s(&["A"]), Format::Musique), (true, 1.0));
        assert_eq!(official("", &s(&["The"]), Format::Musique), (true, 1.0));
        assert_eq!(official("an", &s(&["A"]), Format::Hotpotqa), (true, 0.0));
        assert_eq!(official("", &s(&["Ann"]), Format::Musique), (false, 0.0));
    }

    /// Hand values of the reference script's metric: unique true positives, micro
    /// averages, aliases ignored.
    #[test]
    fn reference_metric_by_hand() {
        let a = reference("Paris, France.", "Paris");
        // Words: ["paris,", "france"]: "paris," keeps its comma (only . ' " ? ` and
        // spaces are stripped), so nothing matches.
        assert_eq!(
            (a.true_p, a.pred_len, a.true_len, a.exact),
            (0, 2, 1, false)
        );
        let b = reference("red red", "red");
        assert_eq!((b.true_p, b.pred_len, b.true_len), (1, 2, 1));
        let c = reference("\"New York\"", "new york");
        assert!(c.exact);
        // Micro: tp = 0 + 1 + 2 = 3, pred = 2 + 2 + 2 = 6, gold = 1 + 1 + 2 = 4:
        // p = 1/2, r = 3/4, F1 = 0.6; EM = 1/3.
        let (em, f1) = reference_aggregate(&[a, b, c]);
        assert!((em - 1.0 / 3.0).abs() < 1e-12);
        assert!((f1 - 0.6).abs() < 1e-12);
        assert_eq!(reference_aggregate(&[]), (0.0, 0.0));
    }
}
