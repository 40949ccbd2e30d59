//! What the user sees while episodes run: the terminal view of `play` (each step's
//! observation, memory changes, retrieval, plan and action, or one line per step with
//! `--quiet`) and the per-episode progress bar of `bench`, both as step sinks.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::text::{clip, count};
use crate::trajectory::{ActionSource, Outcome, Start, StepRecord, StepSink, Summary};

/// The terminal view of `play`.
pub struct TerminalView {
    quiet: bool,
    /// Print the opening line and the summary (off for a plain replay).
    pub banner: bool,
    dir: PathBuf,
    game: String,
    score_before: i64,
    spinner: Option<ProgressBar>,
}

impl TerminalView {
    /// A view of the episode whose trajectory goes to `dir`.
    pub fn new(quiet: bool, game: String, dir: PathBuf) -> Self {
        Self {
            quiet,
            banner: true,
            dir,
            game,
            score_before: 0,
            spinner: None,
        }
    }
}

impl StepSink for TerminalView {
    fn started(&mut self, start: &Start<'_>) -> Result<()> {
        let (first, max_steps) = (start.first, start.max_steps);
        self.score_before = first.score;
        if !self.banner {
            return Ok(());
        }
        println!(
            "ariadne: playing {} (max score {}, step cap {max_steps}); trajectory in {}",
            self.game,
            first.max_score,
            self.dir.display()
        );
        Ok(())
    }

    fn thinking(&mut self, step: u32) {
        if self.quiet {
            return;
        }
        let pb = ProgressBar::new_spinner();
        pb.set_style(
            ProgressStyle::with_template(
                "{spinner} step {msg}: updating memory, planning, acting [{elapsed}]",
            )
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        pb.set_message(step.to_string());
        pb.enable_steady_tick(Duration::from_millis(200));
        self.spinner = Some(pb);
    }

    fn step(&mut self, r: &StepRecord) -> Result<()> {
        if let Some(pb) = self.spinner.take() {
            pb.finish_and_clear();
        }
        show_step(self.quiet, self.score_before, r);
        self.score_before = r.score;
        Ok(())
    }

    fn finish(&mut self, s: &Summary) -> Result<()> {
        if let Some(pb) = self.spinner.take() {
            pb.finish_and_clear();
        }
        if !self.banner {
            return Ok(());
        }
        let tokens = tokens_said(s);
        let cuts = match s.prompt_cuts {
            0 => String::new(),
            n => format!(", {} cut by the endpoint", count(n, "prompt")),
        };
        // A game without a maximum (NetHack) shows its score and the deepest level.
        let score = match (s.max_score, s.max_depth) {
            (0, Some(d)) => format!(
                "score {} | deepest dungeon level {d} | progression {:.1}%",
                s.score,
                100.0 * s.progression.unwrap_or(0.0)
            ),
            _ => format!(
                "score {}/{} (normalized {:.2})",
                s.score, s.max_score, s.normalized_score
            ),
        };
        println!(
            "\n{} | {score} | {} | {} ({} rejected, {} repaired, {} trimmed, {}{} retried, {} fallback actions{cuts}) | {tokens} | {:.1}s",
            s.outcome,
            count(s.steps, "step"),
            count(s.llm_calls, "LLM call"),
            s.llm_failures,
            s.llm_repairs,
            s.llm_trimmed,
            if s.llm_refused > 0 {
                format!("{} refused, ", count(s.llm_refused, "item"))
            } else {
                String::new()
            },
            s.llm_retries,
            s.fallback_actions,
            s.wall_s
        );
        if let Some(w) = &s.world_model {
            println!(
                "world model (judge {}): mean precision {}, named recall {:.2}, stated recall {}, wrong deletions {}",
                w.judge,
                w.precision()
                    .map_or_else(|| "- (nothing verifiable)".into(), |x| format!("{x:.2}")),
                w.mean_recall,
                w.mean_stated_recall
                    .map_or_else(|| "-".into(), |x| format!("{x:.2}")),
                w.wrong_deletions
            );
        }
        println!("trajectory: {}", self.dir.display());
        Ok(())
    }
}

fn show_step(quiet: bool, score_before: i64, r: &StepRecord) {
    let room = r.room.as_deref().unwrap_or("?");
    let sent = if r.command.is_empty() || r.command == r.action {
        String::new()
    } else {
        format!(" [{}]", r.command)
    };
    if quiet {
        println!(
            "step {:>3} | {room} | +{} -{} triplets | {}{sent} | score {}/{}",
            r.step,
            r.memory.added.len(),
            r.memory.removed.len(),
            r.action,
            r.score,
            r.max_score
        );
        return;
    }
    println!(
        "\n== step {} | {room} | score {score_before}/{} ==",
        r.step, r.max_score
    );
    if r.action_source == ActionSource::Route {
        if let Some(route) = &r.route {
            println!(
                "> {} (move {} of {}){sent}",
                r.action, route.index, route.length
            );
        }
        for t in &r.memory.added {
            println!("  + {t}");
        }
        println!("{}", clip(&r.feedback, 300));
        return;
    }
    show_memory(r);
    for (i, p) in r.plan.iter().enumerate() {
        println!("plan {}: {} ({})", i + 1, p.sub_goal, clip(&p.reason, 100));
    }
    let source = if r.action_source == ActionSource::Llm {
        String::new()
    } else {
        format!(" [{}]", r.action_source.as_str())
    };
    println!(
        "> {}{source}{sent}  -- {}",
        r.action,
        clip(&r.rationale, 160)
    );
    let reward = if r.reward != 0 {
        format!(" ({:+})", r.reward)
    } else {
        String::new()
    };
    println!("{}{reward}", clip(&r.feedback, 300));
}

/// A decision's observation, memory changes, retrieval, unexplored exits and warnings.
fn show_memory(r: &StepRecord) {
    println!("observation: {}", clip(&r.observation, 400));
    for t in &r.memory.added {
        println!("  + {t}");
    }
    for t in &r.memory.removed {
        println!("  - {t}");
    }
    if !r.retrieval.triplets.is_empty() {
        println!(
            "retrieved: {}, episodes from steps {:?}",
            count(r.retrieval.triplets.len() as u64, "triplet"),
            r.retrieval
                .episodes
                .iter()
                .map(|e| e.step)
                .collect::<Vec<_>>()
        );
    }
    if !r.unexplored_exits.is_empty() {
        let exits: Vec<String> = r
            .unexplored_exits
            .iter()
            .map(|u| format!("{} {}", u.room, u.direction.as_str()))
            .collect();
        println!("unexplored exits: {}", exits.join(", "));
    }
    for w in &r.warnings {
        println!("warning: {w}");
    }
}

/// A bench episode's progress bar: step and score.
pub struct ProgressSink(pub ProgressBar);

impl StepSink for ProgressSink {
    fn step(&mut self, r: &StepRecord) -> Result<()> {
        self.0.set_position(u64::from(r.step));
        self.0
            .set_message(format!("score {}/{}", r.score, r.max_score));
        Ok(())
    }
}

/// The exit code of a finished play: 130 after Ctrl-C, else success.
pub fn play_exit(outcome: Outcome) -> std::process::ExitCode {
    if outcome == Outcome::Interrupted {
        std::process::ExitCode::from(130)
    } else {
        std::process::ExitCode::SUCCESS
    }
}

/// A long step of the set-up as a spinner on stderr with its message and the time
/// elapsed (installed as the engine's way to show a [`crate::report::Task`]).
pub fn spinner_task(message: String) -> crate::report::Task {
    let pb = indicatif::ProgressBar::new_spinner();
    pb.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    pb.set_message(message);
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    crate::report::Task::new(move || pb.finish_and_clear())
}

/// The closing line's tokens: the sums, or "?" when some call reported none, with the
/// lower bound only when some call did report a count (a call that got no answer
/// reported nothing).
fn tokens_said(s: &Summary) -> String {
    if s.usage.is_known() {
        format!(
            "tokens {} prompt / {} completion ({:.0}/{:.0} per step)",
            s.usage.prompt_tokens,
            s.usage.completion_tokens,
            s.prompt_tokens_per_step.unwrap_or(0.0),
            s.completion_tokens_per_step.unwrap_or(0.0)
        )
    } else if s.usage.prompt_tokens + s.usage.completion_tokens == 0 {
        format!(
            "tokens ? (no usage reported for {})",
            count(s.usage.unknown_calls, "call")
        )
    } else {
        format!(
            "tokens ? (the endpoint reported no usage for {}; at least {} prompt / {} completion)",
            count(s.usage.unknown_calls, "call"),
            s.usage.prompt_tokens,
            s.usage.completion_tokens
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lower bound is given only when some call reported a count.
    #[test]
    fn no_lower_bound_of_zero_is_shown() {
        let mut s = Summary::default();
        s.usage.unknown_calls = 2;
        assert_eq!(tokens_said(&s), "tokens ? (no usage reported for 2 calls)");
        s.usage.prompt_tokens = 40;
        assert!(tokens_said(&s).ends_with("at least 40 prompt / 0 completion)"));
        s.usage.unknown_calls = 0;
        assert!(tokens_said(&s).starts_with("tokens 40 prompt / 0 completion"));
    }
}
