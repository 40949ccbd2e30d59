//! Entropy-aware gating, after AriadneMem (Phase I, "Entropy-Aware Gating": an input
//! whose redundancy score against recent memory is high, a short-term repetition, is
//! dropped before extraction). With `--gating`, the AriGraph memory skips triplet
//! extraction and the outdated check (no LLM call) for an observation that adds nothing
//! new to recent memory; the step records `memory.gated = true`.
//!
//! The measure, deterministic so that a replay decides the same:
//! - **recent memory** is the last [`WINDOW`] observations (with the inventory at each);
//! - an observation **repeats** a recent one when both have the same inventory text and
//!   either the same text (after [`fold`]: case, spaces, Unicode) or a cosine similarity
//!   of at least [`THRESHOLD`] between their embeddings. The embeddings are the ones
//!   episodic retrieval computes anyway (the observation as a retrieval query, cut to
//!   `query_chars`), so gating asks for no extra vector: the current one is computed a
//!   little earlier and cached, and a recent one never embedded is compared by text only;
//! - **no new entity**: every word of the observation and inventory (runs of letters,
//!   at least 3, folded) was in an earlier observation or inventory of the episode. A new
//!   room, a new object or a new state word is never gated.
//!
//! Gated when it repeats a recent observation and names no new entity. The game's
//! refusals ("That's not something you can do.") and repeated `look` / `inventory`
//! answers are the typical case. The first observation is never gated. A gated step
//! still gets its episodic vertex (with an empty episodic edge, so Eq. 1 scores it 0).

use std::collections::{HashSet, VecDeque};

use super::names::fold;

/// Observations that make up recent memory.
pub const WINDOW: usize = 3;

/// Cosine similarity at or above which two observations with the same inventory are a
/// repetition (with no new word). High on purpose: the e5 models' own notes say their
/// cosines cluster between 0.7 and 1.0 even for unrelated texts, so only near-copies
/// should pass. Not tuned on runs.
pub const THRESHOLD: f32 = 0.95;

/// Shortest word counted as an entity word, characters.
pub const MIN_WORD_CHARS: usize = 3;

#[derive(Debug, Clone)]
struct Recent {
    step: u32,
    text: String,
    inventory: String,
    /// The observation's retrieval query (its embedding's key).
    query: String,
}

/// What the gate knows of the episode so far.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    recent: VecDeque<Recent>,
    words: HashSet<String>,
}

/// The gate's first judgement of an observation, before any vector is looked at.
#[derive(Debug, Clone, PartialEq)]
pub enum Judgement {
    /// Not gated: the first observation, a new entity word, or no recent observation with
    /// the same inventory.
    Pass,
    /// Gated: the same text as the recent observation of this step.
    Repeat(u32),
    /// Gated if the observation's embedding is close enough ([`THRESHOLD`]) to one of
    /// these recent observations' (their retrieval queries, most recent first).
    Compare(Vec<(u32, String)>),
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= MIN_WORD_CHARS)
        .map(str::to_string)
}

impl Gate {
    /// Judge an observation (with the inventory shown with it) against recent memory.
    pub fn judge(&self, observation: &str, inventory: &str) -> Judgement {
        if self.recent.is_empty() {
            return Judgement::Pass;
        }
        let (text, inv) = (fold(observation), fold(inventory));
        if words(&text)
            .chain(words(&inv))
            .any(|w| !self.words.contains(&w))
        {
            return Judgement::Pass;
        }
        let same_inventory: Vec<&Recent> = self
            .recent
            .iter()
            .rev()
            .filter(|r| r.inventory == inv)
            .collect();
        if let Some(r) = same_inventory.iter().find(|r| r.text == text) {
            return Judgement::Repeat(r.step);
        }
        if same_inventory.is_empty() {
            return Judgement::Pass;
        }
        Judgement::Compare(
            same_inventory
                .into_iter()
                .map(|r| (r.step, r.query.clone()))
                .collect(),
        )
    }

    /// Take in a step's observation (gated or not): it becomes recent memory and its
    /// words known. `query` is the observation as retrieval embeds it.
    pub fn remember(&mut self, step: u32, observation: &str, inventory: &str, query: &str) {
        let (text, inv) = (fold(observation), fold(inventory));
        self.words.extend(words(&text).chain(words(&inv)));
        self.recent.push_back(Recent {
            step,
            text,
            inventory: inv,
            query: query.to_string(),
        });
        while self.recent.len() > WINDOW {
            self.recent.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REFUSAL: &str = "That's not something you can do.";

    #[test]
    fn a_repeated_refusal_repeats_and_a_new_room_passes() {
        let mut g = Gate::default();
        assert_eq!(g.judge("-= Bedroom =- A trunk.", ""), Judgement::Pass);
        g.remember(1, "-= Bedroom =- A trunk.", "", "q1");
        // A first refusal names new words.
        assert_eq!(g.judge(REFUSAL, ""), Judgement::Pass);
        g.remember(2, REFUSAL, "", "q2");
        // The same refusal again, up to case and spaces: a repeat of step 2.
        assert_eq!(
            g.judge("That's  not something you can DO.", ""),
            Judgement::Repeat(2)
        );
        // With another inventory it is not the same memory.
        assert_eq!(
            g.judge(REFUSAL, "You are carrying a trunk."),
            Judgement::Pass
        );
        // A new room is new words.
        assert_eq!(g.judge("-= Kitchen =- A trunk.", ""), Judgement::Pass);
        // Known words in another order: only a close embedding can gate it, compared
        // with the recent observations of the same inventory, latest first.
        assert_eq!(
            g.judge(
                "A trunk. -= Bedroom =- That's not something you can do.",
                ""
            ),
            Judgement::Compare(vec![(2, "q2".into()), (1, "q1".into())])
        );
    }

    #[test]
    fn recent_memory_is_the_last_window_observations() {
        let mut g = Gate::default();
        g.remember(1, REFUSAL, "", "q");
        for step in 2..=(WINDOW as u32 + 1) {
            g.remember(step, &format!("{REFUSAL} Step"), "", "q");
        }
        // Step 1 left the window: its text is no longer a repeat, its words still known.
        assert!(matches!(g.judge(REFUSAL, ""), Judgement::Compare(_)));
    }
}
