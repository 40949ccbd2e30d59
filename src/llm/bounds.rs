//! Client-side bounds on everything a model writes, in one place. A server may ignore
//! the JSON schema (some do, and remote schemas carry no `maxLength` unless
//! `--length-limits`), so every string and list of a structured answer is bounded here
//! before it reaches memory or a later prompt:
//!
//! | what | bound | over it |
//! |---|---|---|
//! | triplet subject / object | [`ENTITY_CHARS`] characters | the triplet is dropped |
//! | triplet relation | [`RELATION_CHARS`] characters | the triplet is dropped |
//! | triplets in one extraction | [`TRIPLETS`] | the rest are dropped |
//! | outdated numbers in one answer | [`OUTDATED_ITEMS`] | the rest are dropped |
//! | plan sub-goals | [`PLAN_ITEMS`] | the rest are dropped |
//! | sub-goal | [`SUB_GOAL_CHARS`] characters | cut |
//! | sub-goal reason | [`REASON_CHARS`] characters | cut |
//! | action rationale | [`RATIONALE_CHARS`] characters | cut |
//! | running summary | [`SUMMARY_CHARS`] characters | cut |
//! | Simulacra insights | [`INSIGHTS`] of [`INSIGHT_CHARS`] characters | dropped / cut |
//! | Reflexion lesson | [`LESSON_CHARS`] characters | cut |
//! | a rejected answer echoed in the retry prompt | [`ECHO_CHARS`] characters | cut |
//!
//! Names (entities, relations) are dropped rather than cut: a cut name is another name.
//! Free text is cut at a character boundary. Every cut or drop is noted on the call
//! record (`trimmed`) and counted in the step (`llm_trimmed`) and the summary. The JSON
//! schemas sent to the server use the same numbers as `maxLength` / `maxItems`.

/// Longest entity name (triplet subject or object), characters.
pub const ENTITY_CHARS: usize = 60;
/// Longest relation, characters.
pub const RELATION_CHARS: usize = 40;
/// Most key items read from one key-item answer (the retrieval queries of the paper's
/// profile).
pub const KEY_ITEMS: usize = 20;

/// Most triplets read from one extraction answer (the memory setting `max_triplets`
/// may keep fewer).
pub const TRIPLETS: usize = 50;
/// Most numbers read from one outdated-facts answer.
pub const OUTDATED_ITEMS: usize = 100;
/// Most sub-goals in a plan.
pub const PLAN_ITEMS: usize = 5;
/// Longest sub-goal, characters.
pub const SUB_GOAL_CHARS: usize = 120;
/// Longest sub-goal reason, characters.
pub const REASON_CHARS: usize = 160;
/// Longest action rationale, characters.
pub const RATIONALE_CHARS: usize = 300;
/// Longest running summary, characters.
pub const SUMMARY_CHARS: usize = 1500;
/// Most Simulacra insights from one reflection.
pub const INSIGHTS: usize = 3;
/// Longest Simulacra insight, characters.
pub const INSIGHT_CHARS: usize = 200;
/// Longest Reflexion lesson, characters.
pub const LESSON_CHARS: usize = 600;
/// Longest rejected answer echoed back in the retry prompt, characters.
pub const ECHO_CHARS: usize = 2000;

/// The completion budget of each call, tokens (`max_tokens`; the reference sets none,
/// `agents/parent_agent.py:16-54`): a bound on runaway answers. An answer cut at it is
/// never parsed; it is asked again once with twice the budget
/// ([`crate::llm::structured`]).
pub mod answer_tokens {
    /// Triplet extraction.
    pub const EXTRACTION: u32 = 500;
    /// The outdated check as the reference asks it (replacement pairs).
    pub const OUTDATED: u32 = 400;
    /// The outdated check over numbered facts (Ariadne's form, and `ariadne qa`'s).
    pub const OUTDATED_NUMBERED: u32 = 200;
    /// The retrieval's key items.
    pub const KEY_ITEMS: u32 = 300;
    /// The exploration check.
    pub const EXPLORE: u32 = 20;
    /// The reference's plan.
    pub const PLAN: u32 = 600;
    /// Ariadne's compact plan (rule `compact-prompts`).
    pub const PLAN_COMPACT: u32 = 400;
    /// The decision.
    pub const ACTION: u32 = 250;
    /// The summary baseline.
    pub const SUMMARY: u32 = 400;
    /// Simulacra's importance rating.
    pub const IMPORTANCE: u32 = 20;
    /// Simulacra's reflections.
    pub const REFLECTION: u32 = 300;
    /// Reflexion's lesson.
    pub const LESSON: u32 = 250;
    /// The answer of `ariadne qa`.
    pub const QA_ANSWER: u32 = 600;
}

/// A structured answer whose model-written strings and lists can be bounded.
pub trait Bounded {
    /// Cut or drop whatever exceeds the bounds above; one note per cut or drop (e.g.
    /// `plan[0].sub_goal cut from 13000 to 120 characters`).
    fn bound(&mut self) -> Vec<String>;
}

/// Cut `s` to `max` characters (at a character boundary), noting it as `what`.
pub fn cut(s: &mut String, max: usize, what: &str, notes: &mut Vec<String>) {
    let n = s.chars().count();
    if n > max {
        *s = crate::text::first_chars(s, max);
        notes.push(format!("{what} cut from {n} to {max} characters"));
    }
}

/// Keep the first `max` items of `v`, noting the drop as `what`.
pub fn cap<T>(v: &mut Vec<T>, max: usize, what: &str, notes: &mut Vec<String>) {
    if v.len() > max {
        notes.push(format!(
            "{what}: {} items, the {} after the first {max} dropped",
            v.len(),
            v.len() - max
        ));
        v.truncate(max);
    }
}

/// Whether a name fits `max` characters; when not, note `what` as dropped.
pub fn fits(s: &str, max: usize, what: &str, notes: &mut Vec<String>) -> bool {
    let n = s.chars().count();
    if n > max {
        notes.push(format!("{what} dropped: {n} characters (at most {max})"));
        false
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_cap_and_fits_note_what_they_did() {
        let mut notes = Vec::new();
        let mut s = "é".repeat(10);
        cut(&mut s, 4, "x", &mut notes);
        assert_eq!(s, "éééé");
        let mut v = vec![1, 2, 3];
        cap(&mut v, 2, "list", &mut notes);
        assert_eq!(v, vec![1, 2]);
        assert!(fits("abc", 3, "n", &mut notes));
        assert!(!fits("abcd", 3, "n", &mut notes));
        assert_eq!(notes.len(), 3, "{notes:?}");
    }
}
