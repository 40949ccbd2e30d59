//! Prompts an endpoint cut without saying so. Ollama, at its default context length,
//! answers 200 with `usage.prompt_tokens` far below what was sent (the same 2048 for
//! prompts of 3,200 to 3,500 tokens): the model played from a cut prompt, and the token
//! figures under-report. Nothing in the answer says so; the reported count does.
//!
//! A prompt is judged cut when the count the endpoint reported is clearly below an
//! estimate of what was sent ([`CHARS_PER_TOKEN`] characters a token, a low estimate
//! for English and JSON with the tokenizers of the models in use):
//! - below [`CLEAR_SHARE`] of the estimate, or
//! - below [`CAP_SHARE`] of it and at a ceiling: equal to the count reported for an
//!   earlier prompt of another length (at least [`OTHER_SHARE`] of the longer one apart:
//!   two prompts that far apart almost never tokenize to the same count, while prompts a
//!   few per cent apart do, as an action prompt of 2,937 characters and an extraction
//!   prompt of 3,064 both at 704 tokens on the embedded model), or equal to
//!   a common context length ([`CONTEXT_LENGTHS`]: Ollama reports the context length it
//!   cut to, 2048 by default in its older releases), so the first cut is flagged too.
//!
//! Each cut prompt is flagged in its call record (`prompt_cut`) and counted in the step
//! and the summary; the first one of a run is one warning line naming the likely cause
//! and the fix.

use std::sync::Mutex;

use super::Message;

/// Characters per token of the estimate (a low estimate: more tokens than sent rarely).
pub const CHARS_PER_TOKEN: f64 = 4.0;
/// Below this share of the estimate, a prompt was cut.
pub const CLEAR_SHARE: f64 = 0.6;
/// Below this share and at a ceiling (a count reported before for another prompt
/// length, or a common context length): cut.
pub const CAP_SHARE: f64 = 0.97;
/// Prompts whose lengths differ by at least this share of the longer one are of another
/// length.
pub const OTHER_SHARE: f64 = 0.1;
/// Context lengths servers are commonly run with (Ollama's defaults, llama.cpp's and
/// LM Studio's usual settings).
pub const CONTEXT_LENGTHS: [u64; 6] = [1024, 2048, 4096, 8192, 16384, 32768];
/// Prompts shorter than this (estimated tokens) are never judged: too short to tell.
pub const MIN_TOKENS: f64 = 400.0;

/// The tokens a prompt is estimated to hold.
pub fn estimate(messages: &[Message]) -> f64 {
    let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
    chars as f64 / CHARS_PER_TOKEN
}

/// Watches one endpoint's reported prompt tokens over a run.
#[derive(Debug, Default)]
pub struct Watch {
    /// (reported prompt tokens, prompt characters) of earlier calls.
    seen: Mutex<Vec<(u64, usize)>>,
    warned: Mutex<bool>,
}

impl Watch {
    /// Judge one call: `Some(reason)` when its prompt was cut (see the module
    /// documentation). The first cut of the run is also reported as a notice.
    pub fn judge(&self, endpoint: &str, messages: &[Message], reported: u64) -> Option<String> {
        let est = estimate(messages);
        let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
        let mut seen = self.seen.lock().ok()?;
        let repeated = seen.iter().any(|(r, c)| {
            *r == reported && c.abs_diff(chars) as f64 >= OTHER_SHARE * (*c).max(chars) as f64
        });
        let capped = repeated || CONTEXT_LENGTHS.contains(&reported);
        seen.push((reported, chars));
        drop(seen);
        let share = reported as f64 / est;
        let cut = est >= MIN_TOKENS && (share < CLEAR_SHARE || (share < CAP_SHARE && capped));
        if !cut {
            return None;
        }
        let reason = format!(
            "the endpoint reported {reported} prompt tokens for a prompt of about {est:.0}{}",
            if repeated {
                ", the same count as for a prompt of another length"
            } else if capped {
                ", a common context length"
            } else {
                ""
            }
        );
        if let Ok(mut w) = self.warned.lock()
            && !*w
        {
            *w = true;
            crate::report::notice(format!(
                "ariadne: warning: the chat endpoint at {endpoint} probably cut the prompt to its context length ({reason}); the model plays from a cut prompt and the token figures under-report. Raise the server's context length (Ollama: num_ctx or OLLAMA_CONTEXT_LENGTH, e.g. 16384; llama.cpp: --ctx-size; vLLM: --max-model-len). Cut prompts are counted in the summary (prompt_cuts)"
            ));
        }
        Some(reason)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(chars: usize) -> Vec<Message> {
        vec![Message::user("x".repeat(chars))]
    }

    /// Hand values: 13,200 characters is about 3,300 tokens.
    #[test]
    fn clear_shortfalls_and_ceilings_are_cuts() {
        let w = Watch::default();
        // A fair count: not cut.
        assert!(w.judge("e", &prompt(13_200), 3_100).is_none());
        // Far below the estimate: cut.
        assert!(w.judge("e", &prompt(13_200), 1_500).is_some());
        let w = Watch::default();
        // 2100 for 3,300 (64%): not clear alone...
        assert!(w.judge("e", &prompt(13_200), 2_100).is_none());
        // ...but the same 2100 again for a prompt of about 2,950: a ceiling.
        let r = w.judge("e", &prompt(11_800), 2_100).expect("a cut");
        assert!(r.contains("same count"), "{r}");
        // 2048 for 2,170 to 2,530 (81-94%): a common context length, the first time too.
        let w = Watch::default();
        let r = w.judge("e", &prompt(8_680), 2_048).expect("a cut");
        assert!(r.contains("common context length"), "{r}");
        assert!(w.judge("e", &prompt(10_120), 2_048).is_some());
        // A count that fits the estimate is never a cut, ceiling or not.
        assert!(w.judge("e", &prompt(8_000), 2_048).is_none());
        // The same fair count for two prompts only a few characters apart: not a ceiling.
        let w = Watch::default();
        assert!(w.judge("e", &prompt(8_800), 2_100).is_none());
        assert!(w.judge("e", &prompt(8_810), 2_100).is_none());
        // Nor for two prompts 4% apart (the embedded model's action and extraction
        // prompts of 2,937 and 3,064 characters, both 704 tokens).
        let w = Watch::default();
        assert!(w.judge("e", &prompt(2_937), 704).is_none());
        assert!(w.judge("e", &prompt(3_064), 704).is_none());
        // Short prompts are never judged.
        assert!(Watch::default().judge("e", &prompt(800), 10).is_none());
    }
}
