//! The record of every LLM and embedding call a step made (prompt, answer, tokens,
//! latency, retries, defects), as the trajectory stores it.

use serde::{Deserialize, Serialize};

use super::{EmbedKind, Message, Usage};

/// One LLM call as recorded in the trajectory.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallRecord {
    /// What the call was for.
    pub purpose: String,
    /// 1 for the first try, 2 for the retry after an invalid answer.
    pub attempt: u32,
    /// The messages sent.
    pub messages: Vec<Message>,
    /// The completion-token budget sent (`max_tokens`; 0 in runs recorded before it was
    /// recorded).
    #[serde(default)]
    pub max_tokens: u32,
    /// The answer text, reasoning blocks included ("" when the call itself failed or
    /// the answer had no content; an answer given as a tool call is the call, as
    /// `{"name", "arguments"}`), trimmed of surrounding whitespace and cut to
    /// [`ANSWER_CHARS`] characters: what was judged.
    pub answer: String,
    /// The length of the answer as sent, in characters, when it was trimmed or cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_chars: Option<usize>,
    /// The separate reasoning field of the answer, if any (never parsed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The endpoint's `finish_reason` (`stop`, `length`, ...); `null` when it sent none.
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// What made the response unusable before parsing (see [`super::ChatAnswer::defect`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defect: Option<String>,
    /// Tokens reported by the endpoint; `null` when it reported none (unknown, not 0).
    #[serde(default)]
    pub usage: Option<Usage>,
    /// Wall time, milliseconds.
    pub latency_ms: u64,
    /// Transport retries before the answer (429, 5xx, dropped connections).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub retries: u32,
    /// Why the answer was rejected (unusable, cut off, unparseable, invalid), if it was.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// Why the endpoint probably cut the prompt to its context length (the reported
    /// prompt tokens against an estimate; [`super::truncation`]), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cut: Option<String>,
    /// What the client-side bounds cut or dropped from the accepted answer
    /// (see [`super::bounds`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trimmed: Vec<String>,
    /// The items of the accepted answer refused as not what was asked, each with why
    /// (an extraction item that is not three parts: memory rules 8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// The endpoint streamed the answer as server-sent events although asked for none;
    /// it was read from its chunks (a counted repair; [`super::answer::from_events`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_events: bool,
}

/// The most characters of an answer that are judged and logged (256 Ki): an answer
/// followed by megabytes of junk is cut here; no answer within a token budget comes
/// near it, and a server that ignores the budget still has its fields bounded
/// ([`super::bounds`]) rather than its answer cut mid-value.
pub const ANSWER_CHARS: usize = 262_144;

/// An answer as it is judged and logged: trimmed of surrounding whitespace, cut to
/// [`ANSWER_CHARS`] characters; with the length as sent (in characters) when it changed.
/// An answer that is over the bound because of the closed reasoning blocks before it is
/// cut inside them (their head and their closing tag kept), so the answer itself stays
/// whole: reasoning is never parsed.
pub fn bound_answer(content: &str) -> (String, Option<usize>) {
    let trimmed = content.trim();
    let n = trimmed.chars().count();
    let cut: String = match super::answer::split_reasoning(trimmed) {
        Ok((answer, true))
            if n > ANSWER_CHARS
                && answer.as_ptr() as usize + answer.len()
                    == trimmed.as_ptr() as usize + trimmed.len()
                && answer.chars().count() + 2 * REASONING_KEPT < ANSWER_CHARS =>
        {
            let reasoning = &trimmed[..trimmed.len() - answer.len()];
            let r = reasoning.chars().count();
            let head: String = crate::text::first_chars(reasoning, REASONING_KEPT);
            let tail: String = reasoning.chars().skip(r - REASONING_KEPT.min(r)).collect();
            format!("{head}...{tail}{answer}")
        }
        _ => crate::text::first_chars(trimmed, ANSWER_CHARS),
    };
    let changed = cut.len() != content.len();
    let sent = changed.then(|| content.chars().count());
    (cut, sent)
}

/// Characters kept of each end of over-long reasoning blocks before an answer.
const REASONING_KEPT: usize = 1_000;

/// A reasoning field or finish reason as it is logged: at most `limit` characters (a
/// server may send megabytes there too).
pub fn bound_text(text: Option<String>, limit: usize) -> Option<String> {
    text.map(|t| {
        if t.len() <= limit {
            t
        } else {
            crate::text::first_chars(&t, limit)
        }
    })
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

/// One embedding call as recorded in the trajectory (vectors go to `embeddings.jsonl`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EmbedRecord {
    /// Query or passage.
    pub kind: EmbedKind,
    /// The texts embedded.
    pub texts: Vec<String>,
    /// Tokens reported by the endpoint; `null` when it reported none.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// Wall time, milliseconds.
    pub latency_ms: u64,
    /// Transport retries before the answer.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub retries: u32,
}

/// A vector computed during a step, written to the run's `embeddings.jsonl` so a replay
/// can serve it without the network.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VectorRecord {
    /// Query or passage.
    pub kind: EmbedKind,
    /// The text embedded (without prefix).
    pub text: String,
    /// The unit-length vector.
    pub vector: Vec<f32>,
}

/// Everything the LLM did during one step: calls, embedding calls, new vectors, and
/// the count of rejected, repaired and trimmed answers and of transport retries.
#[derive(Debug, Default)]
pub struct CallLog {
    /// Chat calls in order.
    pub calls: Vec<CallRecord>,
    /// Embedding calls in order.
    pub embeds: Vec<EmbedRecord>,
    /// Vectors computed this step.
    pub vectors: Vec<VectorRecord>,
    /// Rejected answers (unparseable or invalid) this step.
    pub failures: u32,
    /// Accepted answers that needed repair this step.
    pub repairs: u32,
    /// Strings cut and items dropped by the client-side bounds this step.
    pub trimmed: u32,
    /// Items of accepted answers refused as not what was asked (an extraction item
    /// that is not three parts), this step.
    pub refused: u32,
    /// Transport retries of chat and embedding calls this step.
    pub retries: u32,
    /// Time the step's answered calls spent before the try that answered (failed tries,
    /// waits between retries), milliseconds.
    pub waited_ms: u64,
}

impl CallLog {
    /// Chat calls whose prompt the endpoint probably cut ([`CallRecord::prompt_cut`]).
    pub fn prompt_cuts(&self) -> u32 {
        self.calls.iter().filter(|c| c.prompt_cut.is_some()).count() as u32
    }

    /// Add `later`'s calls, vectors and counts after this log's, as if they had been
    /// made after them (a call asked ahead, concurrently, joining the step's log in the
    /// order a sequential run makes it).
    pub fn append(&mut self, later: CallLog) {
        self.calls.extend(later.calls);
        self.embeds.extend(later.embeds);
        self.vectors.extend(later.vectors);
        self.failures += later.failures;
        self.repairs += later.repairs;
        self.trimmed += later.trimmed;
        self.refused += later.refused;
        self.retries += later.retries;
        self.waited_ms += later.waited_ms;
    }

    /// Tokens of the chat calls (unknown calls counted as such).
    pub fn usage(&self) -> Usage {
        let mut u = Usage::default();
        self.calls.iter().for_each(|c| u.add_call(c.usage));
        u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer over the bound because of a long closed reasoning block keeps the
    /// answer whole, cut inside the block; other long answers are cut at the bound.
    #[test]
    fn long_reasoning_is_cut_inside_the_block() {
        let answer = r#"{"action": "look"}"#;
        let content = format!("<think>{}</think>{answer}", "hmm ".repeat(75_000));
        let (cut, sent) = bound_answer(&content);
        assert!(cut.ends_with(&format!("</think>{answer}")) && cut.starts_with("<think>hmm"));
        assert!(cut.chars().count() < ANSWER_CHARS);
        assert_eq!(sent, Some(content.chars().count()));
        let (text, found) = super::super::answer::split_reasoning(&cut).unwrap();
        assert!(found && text == answer);
        let junk = format!("{answer}{}", "x".repeat(300_000));
        assert_eq!(bound_answer(&junk).0.chars().count(), ANSWER_CHARS);
        assert_eq!(
            bound_text(Some("y".repeat(100)), 64).map(|t| t.len()),
            Some(64)
        );
    }
}
