//! Reflexion as the paper ran it (section 4.1: "RAG with Reflexion"): the [`Rag`] memory
//! within a trial, several trials of the same game, and after each failed trial a verbal
//! lesson (Shinn et al. 2023) written by the LLM from that trial's actions and results
//! and given to every later trial.

use crate::llm::bounds::answer_tokens;
use anyhow::Result;
use serde::Deserialize;
use serde_json::json;

use super::Rag;
use crate::llm::bounds::{self, Bounded};
use crate::llm::{Ask, CallLog, Llm};
use crate::memory::{
    MemoryDesign, MemoryModule, MemorySettings, Observed, Queries, Retrieval, UpdateReport,
};
use crate::text::clip;

/// One trial's memory: RAG over this trial's observations, plus the earlier lessons.
#[derive(Debug)]
pub struct Reflexion {
    rag: Rag,
    lessons: Vec<String>,
}

impl Reflexion {
    /// A trial's memory with the lessons of the earlier trials.
    pub fn new(settings: MemorySettings, lessons: Vec<String>) -> Self {
        Self {
            rag: Rag::new(settings),
            lessons,
        }
    }
}

#[async_trait::async_trait]
impl MemoryModule for Reflexion {
    fn design(&self) -> MemoryDesign {
        MemoryDesign::Reflexion
    }

    fn layout(&self) -> crate::memory::layout::Layout {
        crate::memory::layout::Layout::Ranked
    }

    async fn update(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        self.rag.update(llm, log, seen).await
    }

    async fn retrieve(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        q: &Queries<'_>,
    ) -> Result<Retrieval> {
        let mut r = self.rag.retrieve(llm, log, q).await?;
        r.notes = self
            .lessons
            .iter()
            .enumerate()
            .map(|(i, l)| format!("Lesson from attempt {}: {l}", i + 1))
            .collect();
        Ok(r)
    }
}

/// What a failed trial left for its lesson.
#[derive(Debug, Clone)]
pub struct TrialReport<'a> {
    /// The goal.
    pub goal: &'a str,
    /// Final score and maximum.
    pub score: i64,
    /// Maximum score.
    pub max_score: i64,
    /// Steps played.
    pub steps: u32,
    /// How it ended ("lost", "step_cap", ...).
    pub outcome: &'a str,
    /// Show the score to the LLM (`--show-score`; hidden by default, paper section 2).
    pub show_score: bool,
    /// (step, action, feedback) of every step.
    pub trajectory: Vec<(u32, String, String)>,
    /// The reference's lesson prompt (`prompts/prompts.py`, `reflex_prompt`; memory
    /// rules 7), Ariadne's before.
    pub reference: bool,
}

#[derive(Deserialize)]
struct LessonAnswer {
    lesson: String,
}

impl Bounded for LessonAnswer {
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cut(&mut self.lesson, bounds::LESSON_CHARS, "lesson", &mut notes);
        notes
    }
}

/// Longest feedback per step shown to the lesson prompt, characters.
const FEEDBACK_CHARS: usize = 160;

/// The trial as the reference's lesson prompt shows it in its `{for_reflex}` (the
/// reference never fills it: no pipeline of its calls `reflex_prompt`): the goal, the
/// outcome, each step's action and result (cut as Ariadne's prompt cuts them), and the
/// earlier lessons.
fn trial_text(trial: &TrialReport<'_>, earlier: &[String]) -> String {
    let score = if trial.show_score {
        format!("score {} of {} after ", trial.score, trial.max_score)
    } else {
        String::new()
    };
    let mut out = format!(
        "Goal: {}\nOutcome: {score}{} steps ({}).\nTrajectory (action -> result):",
        trial.goal, trial.steps, trial.outcome
    );
    for (step, action, feedback) in &trial.trajectory {
        out.push_str(&format!(
            "\n{step}. {action} -> {}",
            clip(feedback, FEEDBACK_CHARS)
        ));
    }
    if !earlier.is_empty() {
        out.push_str("\nLessons from earlier attempts:");
        for l in earlier {
            out.push_str(&format!("\n- {l}"));
        }
    }
    out
}

/// Reflexion's verbal lesson after a failed trial, from its actions and results and the
/// earlier lessons (prompt `prompts/lesson.md`). Returns the lesson (`None` when the
/// model gave no valid answer after the retry) and every call made, with the count of
/// rejected answers.
///
/// # Errors
/// Transport errors.
pub async fn write_lesson(
    llm: &Llm,
    trial: &TrialReport<'_>,
    earlier: &[String],
) -> Result<(Option<String>, CallLog)> {
    let trajectory: Vec<serde_json::Value> = trial
        .trajectory
        .iter()
        .map(|(step, action, feedback)| {
            json!({"step": step, "action": action, "feedback": clip(feedback, FEEDBACK_CHARS)})
        })
        .collect();
    let context = minijinja::context! {
        goal => trial.goal,
        score => trial.score,
        max_score => trial.max_score,
        steps => trial.steps,
        outcome => trial.outcome,
        show_score => trial.show_score,
        trajectory => trajectory,
        lessons => earlier,
    };
    let messages = if trial.reference {
        let for_reflex = trial_text(trial, earlier);
        llm.prompts.render(
            "lesson_reference",
            minijinja::context! { for_reflex => for_reflex },
        )?
    } else {
        llm.prompts.render("lesson", context)?
    };
    let schema = json!({
        "type": "object",
        "properties": {"lesson": {"type": "string", "maxLength": bounds::LESSON_CHARS}},
        "required": ["lesson"],
        "additionalProperties": false
    });
    let mut log = CallLog::default();
    let answer: Option<LessonAnswer> = llm
        .ask(
            &mut log,
            Ask::new("lesson", messages, schema, answer_tokens::LESSON),
            |_: &LessonAnswer| Ok(()),
        )
        .await?;
    Ok((answer.map(|a| a.lesson), log))
}
