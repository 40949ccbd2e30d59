//! The answers of the agent's calls as the reference asks for them (agent revision 9):
//! the planner's `main_goal`, `plan_steps` and `your_emotion`
//! (`prompts/system_prompts.py`, `system_plan_agent`), the decision's
//! `reason_for_action` and `action_to_take` (`system_action_agent_sub_expl`); their JSON
//! schemas and bounds.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::agent::SubGoal;
use crate::agent::answers::{ActionAnswer, key_items_schema_up_to};
use crate::agent::commands::COMMAND_CHARS;
use crate::llm::bounds::{self, Bounded};

/// The decision's answer as the reference asks for it (`system_action_agent_sub_expl`):
/// `{"reason_for_action", "action_to_take"}`.
#[derive(Deserialize)]
pub(in crate::agent) struct ReferenceActionAnswer {
    reason_for_action: String,
    action_to_take: String,
}

impl ReferenceActionAnswer {
    /// The same answer in Ariadne's fields.
    pub(in crate::agent) fn as_action(&self) -> ActionAnswer {
        ActionAnswer {
            rationale: self.reason_for_action.clone(),
            action: self.action_to_take.clone(),
        }
    }
}

impl Bounded for ReferenceActionAnswer {
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cut(
            &mut self.reason_for_action,
            bounds::RATIONALE_CHARS,
            "reason_for_action",
            &mut notes,
        );
        notes
    }
}

/// The planner's answer as the reference asks for it (`system_plan_agent`):
/// `{"main_goal", "plan_steps": [{"sub_goal_1", "reason"}, ...], "your_emotion":
/// {"your_current_emotion", "reason_behind_emotion"}}`. A step's sub-goal is the value
/// of its key that starts with `sub_goal` (the reference numbers them).
#[derive(Deserialize)]
pub(in crate::agent) struct ReferencePlanAnswer {
    pub(in crate::agent) main_goal: String,
    pub(in crate::agent) plan_steps: Vec<serde_json::Map<String, Value>>,
    #[serde(default)]
    pub(in crate::agent) your_emotion: Value,
}

impl ReferencePlanAnswer {
    /// The sub-goals with their reasons, in order; a step without a string sub-goal is
    /// left out (the bound has counted it).
    pub(in crate::agent) fn sub_goals(&self) -> Vec<SubGoal> {
        self.plan_steps
            .iter()
            .filter_map(|step| {
                let sub_goal = step
                    .iter()
                    .find(|(k, _)| k.starts_with("sub_goal"))
                    .and_then(|(_, v)| v.as_str())?;
                let reason = step.get("reason").and_then(Value::as_str).unwrap_or("");
                Some(SubGoal {
                    sub_goal: sub_goal.to_string(),
                    reason: reason.to_string(),
                })
            })
            .collect()
    }
}

impl Bounded for ReferencePlanAnswer {
    /// At most [`bounds::PLAN_ITEMS`] steps; texts cut as Ariadne's plan's are.
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(
            &mut self.plan_steps,
            bounds::PLAN_ITEMS,
            "plan_steps",
            &mut notes,
        );
        bounds::cut(
            &mut self.main_goal,
            bounds::REASON_CHARS,
            "main_goal",
            &mut notes,
        );
        for (i, step) in self.plan_steps.iter_mut().enumerate() {
            for (key, value) in step.iter_mut() {
                if let Value::String(text) = value {
                    let limit = if key == "reason" {
                        bounds::REASON_CHARS
                    } else {
                        bounds::SUB_GOAL_CHARS
                    };
                    bounds::cut(text, limit, &format!("plan_steps[{i}].{key}"), &mut notes);
                }
            }
        }
        notes
    }
}

/// The reference planner's schema: its three fields in its order; `plan_steps` holds
/// 1 to [`bounds::PLAN_ITEMS`] steps, step N keyed `sub_goal_N` then `reason` (one
/// alternative per plan length, so a grammar can enforce the numbering).
pub(in crate::agent) fn reference_plan_schema() -> Value {
    let step = |n: usize| {
        let key = format!("sub_goal_{n}");
        json!({
            "type": "object",
            "properties": {
                key.clone(): {"type": "string", "maxLength": bounds::SUB_GOAL_CHARS},
                "reason": {"type": "string", "maxLength": bounds::REASON_CHARS}
            },
            "required": [key, "reason"],
            "additionalProperties": false
        })
    };
    let lengths: Vec<Value> = (1..=bounds::PLAN_ITEMS)
        .map(|len| {
            json!({
                "type": "array",
                "prefixItems": (1..=len).map(step).collect::<Vec<_>>(),
                "minItems": len,
                "maxItems": len
            })
        })
        .collect();
    json!({
        "type": "object",
        "properties": {
            "main_goal": {"type": "string", "maxLength": bounds::REASON_CHARS},
            "plan_steps": {"anyOf": lengths},
            "your_emotion": {
                "type": "object",
                "properties": {
                    "your_current_emotion": {"type": "string", "maxLength": 40},
                    "reason_behind_emotion": {"type": "string", "maxLength": bounds::REASON_CHARS}
                },
                "required": ["your_current_emotion", "reason_behind_emotion"],
                "additionalProperties": false
            }
        },
        "required": ["main_goal", "plan_steps", "your_emotion"],
        "additionalProperties": false
    })
}

/// The reference decision's schema (`system_action_agent_sub_expl`): its two fields in
/// its order, `action_to_take` one of `admissible` (any short command when `None`: free
/// text).
pub(in crate::agent) fn reference_action_schema(admissible: Option<&[String]>) -> Value {
    let action = match admissible {
        Some(list) => json!({"type": "string", "enum": list}),
        None => json!({"type": "string", "maxLength": COMMAND_CHARS}),
    };
    json!({
        "type": "object",
        "properties": {
            "reason_for_action": {"type": "string", "maxLength": bounds::RATIONALE_CHARS},
            "action_to_take": action
        },
        "required": ["reason_for_action", "action_to_take"],
        "additionalProperties": false
    })
}

/// The key-item call's schema under the reference's prompt (agent revision 9): the
/// list has no length in the schema (the reference asks for none; the answer is still
/// bounded to [`bounds::KEY_ITEMS`] items when read).
pub(in crate::agent) fn reference_key_items_schema() -> Value {
    let mut schema = key_items_schema_up_to(2);
    if let Some(items) = schema["properties"]["items"].as_object_mut() {
        items.remove("maxItems");
    }
    schema
}
