//! The working memory of the planning and action calls as the reference lays it out
//! (agent revision 9 without rule `compact-prompts`): `pipeline_arigraph.py`
//! (`planning`, `choose_action`) for AriGraph, and the baselines' pipelines
//! (`pipeline_fullhist.py`, `pipeline_summary.py`, `pipeline_smartrag.py`). The
//! templates are `prompts/plan_reference.md` and `prompts/action_reference.md`; this
//! module computes the texts they show: the observation with its `Game step #N` header
//! and inventory, the history of the last observations and actions, the plan as the
//! JSON the planner writes, and the unexplored exits per visited room.

pub(super) mod answers;

use minijinja::context;
use serde_json::{Value, json};

use super::{Agent, PlanHeader, SubGoal};
use crate::llm::prompts::py_repr;
use crate::memory::Retrieval;
use crate::memory::layout::{Layout, RecentStep};
use crate::memory::names::entity_key;
use crate::nav::UnexploredExit;

/// The plan as the reference shows it back to its planner and action selector: before
/// the first plan, the reference's `plan0` (its main goal and one sub-goal, "Start the
/// game"); after, the planner's last answer re-serialized in its fields (`main_goal`,
/// `plan_steps` of `sub_goal_N` and `reason`, `your_emotion`).
pub(super) fn plan_json(goal: &str, plan: &[SubGoal], header: Option<&PlanHeader>) -> String {
    let Some(header) = header.filter(|_| !plan.is_empty()) else {
        return format!(
            "{{\n\"main_goal\": {goal},\n\"plan_steps\": [\n    {{\n    \"sub_goal_1\": \"Start the game\",\n    \"reason\": \"You should start the game\"\n    }},\n],\n}}"
        );
    };
    let steps: Vec<Value> = plan
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut step = serde_json::Map::new();
            step.insert(format!("sub_goal_{}", i + 1), json!(p.sub_goal));
            step.insert("reason".into(), json!(p.reason));
            Value::Object(step)
        })
        .collect();
    let answer = json!({
        "main_goal": header.main_goal,
        "plan_steps": steps,
        "your_emotion": header.emotion,
    });
    serde_json::to_string_pretty(&answer).unwrap_or_default()
}

/// What Ariadne's switches add to the reference's working memory, after its numbered
/// items, each after a blank line (nothing under the paper's profile without options):
/// the later seeds' theses, temporal changes and paths, and the extended profile's kept
/// note and warnings (with rule `compact-prompts` off).
pub(super) fn extras(retrieval: &Retrieval, note: Option<String>, warnings: &[String]) -> String {
    let list = |items: Vec<String>| {
        let quoted: Vec<String> = items.iter().map(|i| py_repr(i)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let mut out = String::new();
    if !retrieval.theses.is_empty() {
        let texts = retrieval.theses.iter().map(|t| t.text.clone()).collect();
        out.push_str(&format!(
            "\n\nRelevant statements from your memory: {}",
            list(texts)
        ));
    }
    if !retrieval.changes.is_empty() {
        let changes = retrieval
            .changes
            .iter()
            .map(|c| format!("{} -> {} (changed at step {})", c.from, c.to, c.until))
            .collect();
        out.push_str(&format!(
            "\n\nHow facts changed (the older fact -> the fact that replaced it): {}",
            list(changes)
        ));
    }
    if !retrieval.paths.is_empty() {
        out.push_str(&format!(
            "\n\nPaths between the things asked about: {}",
            list(retrieval.paths.clone())
        ));
    }
    if let Some(note) = note {
        out.push_str(&format!("\n\n{note}"));
    }
    for w in warnings {
        out.push_str(&format!("\n\nWarning: {w}"));
    }
    out
}

/// The reference's unexplored exits (`get_unexpl_exits`): a line per visited room,
/// `Unexplored exits for ROOM: ['east', ...]`, each after a newline; the exits a game
/// reports itself (NetHack), `reported`, grouped by their room the same way. With
/// `none`, a room without one reads `none`, as the reference prints it
/// (`utils/utils.py:356-358`); else `[]` (agent revisions 9 and 10).
pub(super) fn exits_text(
    visited: &std::collections::BTreeSet<String>,
    unexplored: &[UnexploredExit],
    reported: Option<&[String]>,
    none: bool,
) -> String {
    let mut out = String::new();
    // A game that reports its exits itself (NetHack: `level 1 room 0: doorway at (x,
    // y)`): grouped by the room they belong to, in the order reported.
    if let Some(reported) = reported {
        let mut rooms: Vec<(&str, Vec<String>)> = Vec::new();
        for line in reported {
            let (room, exit) = line.split_once(": ").unwrap_or(("here", line.as_str()));
            match rooms.iter_mut().find(|(r, _)| *r == room) {
                Some((_, exits)) => exits.push(py_repr(exit)),
                None => rooms.push((room, vec![py_repr(exit)])),
            }
        }
        for (room, exits) in rooms {
            out.push_str(&format!(
                "\nUnexplored exits for {room}: [{}]",
                exits.join(", ")
            ));
        }
        return out;
    }
    for room in visited {
        let dirs: Vec<String> = unexplored
            .iter()
            .filter(|u| entity_key(&u.room) == *room)
            .map(|u| py_repr(u.direction.as_str()))
            .collect();
        let listed = if dirs.is_empty() && none {
            "none".to_string()
        } else {
            format!("[{}]", dirs.join(", "))
        };
        out.push_str(&format!("\nUnexplored exits for {room}: {listed}"));
    }
    out
}

/// The observation as the reference cleans it before anything reads it
/// (`utils/utils.py:235-245`, `observation_processing`): cut at the first `>` (the
/// game's prompt), `livingroom` and `Livingroom` written as two words, `Recipe #1` as
/// `Recipe`. A text that begins with `>` is kept whole (the reference would keep
/// nothing of it; its games never send one).
pub(super) fn cleaned(text: &str) -> String {
    let cut = match text.find('>') {
        Some(0) | None => text,
        Some(i) => &text[..i],
    };
    cut.replace("livingroom", "living room")
        .replace("Livingroom", "Living room")
        .replace("Recipe #1", "Recipe")
}

impl Agent {
    /// `state` as the agent reads it: from agent revision 11 under the reference's
    /// prompts, its observation cleaned as [`cleaned`] says (the room keeps the game's
    /// name: routes and the step records know it so).
    pub(super) fn as_seen<'a>(
        &self,
        state: &'a crate::env::GameState,
    ) -> std::borrow::Cow<'a, crate::env::GameState> {
        if !self.settings.reference_step() {
            return std::borrow::Cow::Borrowed(state);
        }
        let mut out = state.clone();
        out.observation = cleaned(&state.observation);
        std::borrow::Cow::Owned(out)
    }

    /// The plan as the reference shows it back: the planner's text when its last
    /// answer could not be read (agent revision 11), else [`plan_json`].
    pub(super) fn plan_shown(&self) -> String {
        match &self.plan_text {
            Some(text) => text.clone(),
            None => plan_json(&self.goal, &self.plan, self.plan_header.as_ref()),
        }
    }

    /// The last steps as the reference's working memory shows them: `Observation:
    /// ...\nAction taken: ...` per step, oldest first, joined by newlines
    /// (`pipeline_arigraph.py`: `"\n".join(history)`).
    pub(super) fn recent_as_reference(&self) -> String {
        self.history
            .iter()
            .map(|h| format!("Observation: {}\nAction taken: {}", h.seen, h.action))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The variables of the reference's plan and action templates for this step:
    /// `design` chooses the baseline's layout; `explore` whether item 7 (unexplored
    /// exits) is shown, as the reference's exploration check decided.
    pub(super) fn reference_memory(
        &self,
        retrieval: &Retrieval,
        exits: String,
        explore: bool,
        extras: String,
    ) -> minijinja::Value {
        let layout = self.memory.layout();
        let episodes: Vec<String> = retrieval
            .episodes
            .iter()
            .map(|e| format!("Game step #{}\n{}", e.step, e.observation))
            .collect();
        let recent: Vec<RecentStep<'_>> = self
            .history
            .iter()
            .map(|h| RecentStep {
                seen: &h.seen,
                action: &h.action,
            })
            .collect();
        let past = self.memory.past(retrieval, &recent);
        context! {
            layout => layout.name(),
            graph => self.memory.graph().is_some(),
            past_relevant => layout == Layout::Ranked,
            goal => &self.goal,
            history_len => self.settings.history,
            recent => self.recent_as_reference(),
            past => past,
            current => &self.seen,
            summary => retrieval.notes.first().cloned().unwrap_or_default(),
            facts => retrieval.triplets.iter().map(|t| t.triplet.as_str()).collect::<Vec<_>>(),
            episodes_k => self.memory.episodes_shown(),
            episodes => episodes,
            plan_json => self.plan_shown(),
            explore => explore,
            exits => exits,
            extras => extras,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_are_cleaned_as_the_reference_cleans_them() {
        assert_eq!(
            cleaned("-= Livingroom =-\nRecipe #1 is here, in the livingroom.\n\n> "),
            "-= Living room =-\nRecipe is here, in the living room.\n\n"
        );
        assert_eq!(
            cleaned("> look\nYou see a door."),
            "> look\nYou see a door."
        );
    }

    #[test]
    fn a_room_without_unexplored_exits_prints_none_from_revision_11() {
        let visited: std::collections::BTreeSet<String> = ["kitchen".to_string()].into();
        assert_eq!(
            exits_text(&visited, &[], None, true),
            "\nUnexplored exits for kitchen: none"
        );
        assert_eq!(
            exits_text(&visited, &[], None, false),
            "\nUnexplored exits for kitchen: []"
        );
    }
}
