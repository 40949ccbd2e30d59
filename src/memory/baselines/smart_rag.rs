//! The reference's ranked memory (`pipeline_smartrag.py`), which Simulacra follows from
//! memory rules 7: every past observation is a memory with its step, an importance the
//! LLM rates from 1 to 10 (`get_score`, with the plan the agent made at that step), and
//! the embedding of the observation with the plan it was made under; a step's query is
//! its own memory's embedding; memories are ranked by
//! `minmax(0.99^(now - step)) + minmax(importance) + minmax(cosine)` (`smart_rag`,
//! min-max with `1e-9` added to the span) and the best [`crate::memory::RAG_ENTRIES`]
//! are retrieved (`n_retrieve = 5`); the working memory adds the last steps.
//!
//! The paper's section 4.1 names this scoring for its Simulacra baseline ("a scoring
//! mechanism that integrates recency, importance, and relevance"); the reference's file
//! is the only pipeline of its that scores so, and it has no reflections, which the
//! paper's Simulacra has ([`super::simulacra`] keeps Generative Agents' reflections).

use crate::llm::bounds::answer_tokens;
use minijinja::context;
use serde::Deserialize;
use serde_json::json;

use crate::llm::bounds::Bounded;
use crate::llm::{Ask, CallLog, Llm, LlmError};

/// The reference's recency decay per step (`pipeline_smartrag.py`: `0.99 ** (step -
/// past_obs[1])`).
pub const RECENCY_DECAY: f64 = 0.99;

/// The importance of a step whose rating could not be read (the middle of 1-10; the
/// reference's `int(re.findall(r"\d+", score)[0])` stops the run, `pipeline_smartrag.py:190`).
pub const UNRATED_IMPORTANCE: f64 = 5.0;

/// The reference's min-max normalization (`smart_rag`'s `minmax`): `(x - min) / (max -
/// min + 1e-9)`, so equal values all give 0.
pub fn min_max(xs: &[f64]) -> Vec<f64> {
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    xs.iter().map(|x| (x - min) / (max - min + 1e-9)).collect()
}

/// The reference's scores of memories given as (step, importance, cosine) at step `now`.
pub fn smart_scores(memories: &[(u32, f64, f64)], now: u32) -> Vec<f64> {
    super::scores::summed_scores(memories, now, RECENCY_DECAY, min_max)
}

/// The text a memory is embedded from: the observation and the plan it was made under
/// (`observation_with_plan = observation + f"\nPlan: {plan0}"`).
pub fn embedded_text(observation: &str, plan: &str) -> String {
    format!("{observation}\nPlan: {plan}")
}

#[derive(Deserialize)]
struct Rating {
    importance: i64,
}

impl Bounded for Rating {
    /// A number, range-checked by the call's validation.
    fn bound(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// The reference's importance rating (`get_score`, `prompts/importance_reference.md`)
/// of the memory `observation` under `plan`: 1 to 10; 5 (the midpoint, the failure
/// counted in `log`) when no valid answer comes.
///
/// # Errors
/// Transport errors from the endpoint, prompt rendering errors.
pub async fn rate(
    llm: &Llm,
    log: &mut CallLog,
    observation: &str,
    plan: &str,
) -> anyhow::Result<f64> {
    let messages = llm.prompts.render(
        "importance_reference",
        context! { memory => observation, plan => plan },
    )?;
    let schema = json!({
        "type": "object",
        "properties": {"importance": {"type": "integer", "minimum": 1, "maximum": 10}},
        "required": ["importance"],
        "additionalProperties": false
    });
    let answer: Result<Option<Rating>, LlmError> = llm
        .ask(
            log,
            Ask::new("importance", messages, schema, answer_tokens::IMPORTANCE),
            |a: &Rating| {
                if (1..=10).contains(&a.importance) {
                    Ok(())
                } else {
                    Err(format!("importance {} is not in 1..10", a.importance))
                }
            },
        )
        .await;
    Ok(answer?.map_or(UNRATED_IMPORTANCE, |a| a.importance as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand values: at step 10, memories of steps 9, 1 and 5 with importances 2, 8, 5
    /// and cosines 0.9, 0.1, 0.5.
    #[test]
    fn the_reference_scores_on_hand_values() {
        let s = smart_scores(&[(9, 2.0, 0.9), (1, 8.0, 0.1), (5, 5.0, 0.5)], 10);
        let (r9, r1, r5) = (0.99f64, 0.99f64.powi(9), 0.99f64.powi(5));
        let span = r9 - r1 + 1e-9;
        let expect = [
            1.0 * (r9 - r1) / span + 0.0 + 0.8 / (0.8 + 1e-9),
            0.0 + 6.0 / (6.0 + 1e-9) + 0.0,
            (r5 - r1) / span + 3.0 / (6.0 + 1e-9) + 0.4 / (0.8 + 1e-9),
        ];
        for (got, want) in s.iter().zip(expect) {
            assert!((got - want).abs() < 1e-9, "{got} {want}");
        }
        // Equal values normalize to 0, not to the midpoint.
        assert_eq!(min_max(&[3.0, 3.0]), vec![0.0, 0.0]);
        assert_eq!(
            embedded_text("Game step #2\nA hall.", "{}"),
            "Game step #2\nA hall.\nPlan: {}"
        );
    }
}
