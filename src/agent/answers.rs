//! The structured answers of the agent's own calls (plan, action): their types, JSON
//! schemas, client-side bounds, and the mapping of an action answer to an admissible
//! command.

use serde::Deserialize;
use serde_json::{Value, json};

use super::SubGoal;
use crate::llm::bounds::{self, Bounded};
use crate::memory::names::fold;

#[derive(Deserialize)]
pub(super) struct PlanAnswer {
    pub(super) plan: Vec<SubGoal>,
}

impl Bounded for PlanAnswer {
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(&mut self.plan, bounds::PLAN_ITEMS, "plan", &mut notes);
        for (i, p) in self.plan.iter_mut().enumerate() {
            let sub_goal = format!("plan[{i}].sub_goal");
            bounds::cut(
                &mut p.sub_goal,
                bounds::SUB_GOAL_CHARS,
                &sub_goal,
                &mut notes,
            );
            let reason = format!("plan[{i}].reason");
            bounds::cut(&mut p.reason, bounds::REASON_CHARS, &reason, &mut notes);
        }
        notes
    }
}

/// The decision's answer under Ariadne's compact prompts: `{"rationale", "action"}`.
#[derive(Deserialize)]
pub(super) struct ActionAnswer {
    pub(super) rationale: String,
    pub(super) action: String,
}

impl Bounded for ActionAnswer {
    /// The rationale is cut; the action is checked against the admissible commands.
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cut(
            &mut self.rationale,
            bounds::RATIONALE_CHARS,
            "rationale",
            &mut notes,
        );
        notes
    }
}

/// Map an answer to an admissible command: exact, or equal after case and whitespace
/// folding ([`fold`]; a repair). Nothing looser: "most similar" matching picks near-opposites.
pub fn match_admissible<'a>(answer: &str, admissible: &'a [String]) -> Option<(&'a str, bool)> {
    if let Some(a) = admissible.iter().find(|a| a.as_str() == answer) {
        return Some((a, false));
    }
    let c = fold(answer);
    admissible
        .iter()
        .find(|a| fold(a) == c)
        .map(|a| (a.as_str(), true))
}

/// Under revision 2 (see [`super::AgentSettings::revision`]): at most
/// [`super::PLAN_ITEMS_COMPACT`] sub-goals of [`SUB_GOAL_CHARS_COMPACT`] characters with
/// reasons of [`REASON_CHARS_COMPACT`].
pub(super) fn plan_schema(revision: super::AgentRevision) -> Value {
    let (items, sub_goal, reason) = if revision.shares_prefix() {
        (
            super::PLAN_ITEMS_COMPACT,
            SUB_GOAL_CHARS_COMPACT,
            REASON_CHARS_COMPACT,
        )
    } else {
        (
            bounds::PLAN_ITEMS,
            bounds::SUB_GOAL_CHARS,
            bounds::REASON_CHARS,
        )
    };
    json!({
        "type": "object",
        "properties": {
            "plan": {
                "type": "array",
                "minItems": 1,
                "maxItems": items,
                "items": {
                    "type": "object",
                    "properties": {
                        "sub_goal": {"type": "string", "maxLength": sub_goal},
                        "reason": {"type": "string", "maxLength": reason}
                    },
                    "required": ["sub_goal", "reason"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["plan"],
        "additionalProperties": false
    })
}

/// Longest sub-goal under revision 2, characters.
pub const SUB_GOAL_CHARS_COMPACT: usize = 80;
/// Longest reason of a sub-goal under revision 2, characters.
pub const REASON_CHARS_COMPACT: usize = 60;
/// Longest rationale under revision 2, characters.
pub const RATIONALE_CHARS_COMPACT: usize = 150;

/// The decision's schema in free-text mode: the action is any short string.
pub(super) fn free_action_schema(revision: super::AgentRevision) -> Value {
    use super::commands::COMMAND_CHARS;
    let mut schema = action_schema(&[], revision);
    schema["properties"]["action"] = json!({"type": "string", "maxLength": COMMAND_CHARS});
    schema
}

/// Hold the action of an action schema (Ariadne's `action`, the reference's
/// `action_to_take`) to the whole-answer `pattern` (rule `game-commands`; llama.cpp's
/// server turns it into its sampling grammar).
pub(super) fn hold_to_pattern(schema: &mut Value, pattern: &str) {
    for field in ["action", "action_to_take"] {
        if schema["properties"].get(field).is_some() {
            schema["properties"][field] = json!({"type": "string", "pattern": pattern});
        }
    }
}

pub(super) fn action_schema(admissible: &[String], revision: super::AgentRevision) -> Value {
    let rationale = if revision.shares_prefix() {
        RATIONALE_CHARS_COMPACT
    } else {
        bounds::RATIONALE_CHARS
    };
    json!({
        "type": "object",
        "properties": {
            "rationale": {"type": "string", "maxLength": rationale},
            "action": {"type": "string", "enum": admissible}
        },
        "required": ["rationale", "action"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_free_text_schema_takes_any_short_command() {
        let schema = free_action_schema(crate::agent::AgentRevision::CURRENT);
        assert!(schema["properties"]["action"].get("enum").is_none());
        assert_eq!(schema["required"], json!(["rationale", "action"]));
    }

    #[test]
    fn admissible_matching_is_exact_or_case_folded() {
        let adm = vec![
            "go north".to_string(),
            "go south".to_string(),
            "take old key".to_string(),
        ];
        assert_eq!(
            match_admissible("go north", &adm),
            Some(("go north", false))
        );
        assert_eq!(
            match_admissible("  Go   NORTH ", &adm),
            Some(("go north", true))
        );
        // Never a "most similar" guess.
        assert_eq!(match_admissible("go northwest", &adm), None);
        assert_eq!(match_admissible("take key", &adm), None);
    }
}

/// One key item of the key-item call: an entity to search memory for and its relevance
/// (1 to the call's highest), used as its search depth.
#[derive(Deserialize)]
pub(crate) struct KeyItemAnswer {
    pub(crate) entity: String,
    pub(crate) relevance: u32,
}

/// The key-item call's answer (the reference's `{"entity": score, ...}`, as a list);
/// relevances run from 1 to `MAX` (the game agent's call: 2; question answering's: 3).
#[derive(Deserialize)]
pub(crate) struct KeyItemsAnswer<const MAX: u32 = 2> {
    pub(crate) items: Vec<KeyItemAnswer>,
}

impl<const MAX: u32> Bounded for KeyItemsAnswer<MAX> {
    /// At most [`bounds::KEY_ITEMS`] items; an over-long name drops its item (a cut
    /// name is another entity); a relevance outside 1-`MAX` is brought into it.
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(&mut self.items, bounds::KEY_ITEMS, "items", &mut notes);
        let mut i = 0;
        self.items.retain(|it| {
            i += 1;
            bounds::fits(
                &it.entity,
                bounds::ENTITY_CHARS,
                &format!("items[{}].entity", i - 1),
                &mut notes,
            )
        });
        for (i, it) in self.items.iter_mut().enumerate() {
            if !(1..=MAX).contains(&it.relevance) {
                notes.push(format!(
                    "items[{i}].relevance {} brought into 1-{MAX}",
                    it.relevance
                ));
                it.relevance = it.relevance.clamp(1, MAX);
            }
        }
        notes
    }
}

/// The key-item call's schema (relevance 1 or 2).
pub(super) fn key_items_schema() -> Value {
    key_items_schema_up_to(2)
}

/// The key-item call's schema with relevances from 1 to `max`.
pub(crate) fn key_items_schema_up_to(max: u32) -> Value {
    let relevances: Vec<u32> = (1..=max).collect();
    json!({
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "maxItems": bounds::KEY_ITEMS,
                "items": {
                    "type": "object",
                    "properties": {
                        "entity": {"type": "string", "maxLength": bounds::ENTITY_CHARS},
                        "relevance": {"type": "integer", "enum": relevances}
                    },
                    "required": ["entity", "relevance"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["items"],
        "additionalProperties": false
    })
}

/// The exploration call's answer (the reference's "True" or "False").
#[derive(Deserialize)]
pub(super) struct ExploreAnswer {
    pub(super) explore: bool,
}

impl Bounded for ExploreAnswer {
    fn bound(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// The exploration call's schema.
pub(super) fn explore_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"explore": {"type": "boolean"}},
        "required": ["explore"],
        "additionalProperties": false
    })
}
