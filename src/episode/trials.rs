//! Reflexion's trials (paper section 4.1, "RAG with Reflexion"): the lesson written
//! after a failed trial, and the cost of every trial summed into one summary.

use std::path::Path;

use anyhow::Result;

use super::{EpisodeConfig, EpisodeResult};
use crate::llm::Llm;
use crate::memory::baselines::reflexion::{self, TrialReport};
use crate::trajectory::{self, Outcome, RunWriter, Summary, call_kinds};

/// Write the lesson of a failed trial (its trajectory read back from `dir`), count its
/// calls in the trial's summary `this` and rewrite that summary; the lesson, if the
/// model wrote one.
///
/// # Errors
/// An unreadable trajectory, an endpoint error, a summary that cannot be written.
pub async fn learn(
    config: &EpisodeConfig,
    llm: &Llm,
    done: &EpisodeResult,
    dir: &Path,
    this: &mut Summary,
    lessons: &[String],
) -> Result<Option<String>> {
    let (steps, _) = trajectory::read_steps(dir)?;
    let report = TrialReport {
        goal: done.agent.goal(),
        score: this.score,
        max_score: this.max_score,
        steps: this.steps,
        outcome: if this.outcome == Outcome::Lost {
            "lost"
        } else {
            "not won"
        },
        show_score: config.agent.show_score,
        trajectory: steps
            .iter()
            .map(|r| (r.step, r.action.clone(), r.feedback.clone()))
            .collect(),
        reference: config.memory.revision().reference_prompts(),
    };
    let (lesson, log) = reflexion::write_lesson(llm, &report, lessons).await?;
    this.lesson = lesson.clone();
    this.llm_failures += u64::from(log.failures);
    this.llm_trimmed += u64::from(log.trimmed);
    this.llm_retries += u64::from(log.retries);
    this.lesson_calls = log.calls;
    RunWriter::rewrite_summary(dir, this)?;
    Ok(lesson)
}

/// The game's summary after one more trial: the cost of every trial counts (Table 3
/// compares what a design spends); the outcome and score are the last trial's.
pub fn add(prev: Summary, this: Summary) -> Summary {
    let mut s = this;
    s.steps += prev.steps;
    s.llm_calls += prev.llm_calls + prev.lesson_calls.len() as u64;
    s.llm_failures += prev.llm_failures;
    s.llm_repairs += prev.llm_repairs;
    s.llm_trimmed += prev.llm_trimmed;
    s.llm_refused += prev.llm_refused;
    s.llm_retries += prev.llm_retries;
    s.unfinished_calls += prev.unfinished_calls;
    s.fallback_actions += prev.fallback_actions;
    s.usage.add(prev.usage);
    prev.lesson_calls
        .iter()
        .for_each(|c| s.usage.add_call(c.usage));
    call_kinds::merge(&mut s.call_kinds, &prev.call_kinds);
    call_kinds::add_calls(&mut s.call_kinds, &prev.lesson_calls);
    s.wall_s += prev.wall_s;
    // Every trial's step times and decisions, in order, like its tokens.
    s.step_ms = [prev.step_ms, s.step_ms].concat();
    s.decision_steps += prev.decision_steps;
    s.per_step();
    s
}
