//! The Fidelity rows of the reference's step around its calls (`pipeline_arigraph.py`):
//! the observation's cleaning, the bounds and retries of every call, the model of each
//! call kind, and the navigation and exploration the reference runs between its calls.

use super::{Element, join, row, rule_note};
use crate::llm::bounds::answer_tokens;
use crate::profile::{Rule, Rules};

/// The rows of the step around the calls, for a profile with `rules` on.
pub(super) fn step_rows(rules: &Rules) -> Vec<Element> {
    vec![
        cleaning(rules),
        calls(rules),
        models(),
        navigation(rules),
        exploration(rules),
    ]
}

fn cleaning(rules: &Rules) -> Element {
    row(
        "Observation cleaning",
        "`utils/utils.py:235-245` (`observation_processing`), `pipeline_arigraph.py:79-80`",
        if rules.compact_prompts {
            "not applied: Ariadne's prompts (rule `compact-prompts`) read the observation as the game gives it".into()
        } else {
            "before any call reads it, the observation is cut at its first `>` (the game's prompt), `livingroom` is written `living room` and `Recipe #1` `Recipe`, as the reference cleans it".into()
        },
        if rules.compact_prompts {
            ""
        } else {
            "a text that begins with `>` is kept whole (the reference would keep none of it; its games never send one); room names keep the game's spelling, which routes and step records use"
        },
    )
}

fn calls(rules: &Rules) -> Element {
    use answer_tokens::*;
    let plan = if rules.compact_prompts {
        PLAN_COMPACT
    } else {
        PLAN
    };
    row(
        "Calls: budgets and retries",
        "`agents/parent_agent.py:16-54` (`generate`), `graphs/parent_graph.py:19-58`, `pipeline_arigraph.py:193-198, 216-218`",
        "each call is one request of the reference's messages (system prompt, user prompt)".into(),
        &join([
            Some(format!("every answer is bounded in completion tokens (extraction {EXTRACTION}, outdated check {OUTDATED}, key items {KEY_ITEMS}, exploration check {EXPLORE}, plan {plan}, action {ACTION}, summary {SUMMARY}, importance {IMPORTANCE}, reflection {REFLECTION}, lesson {LESSON}; the reference sets none): a bound on a runaway answer that would hold the run; an answer cut at its bound is never parsed and is asked again once with twice the bound")),
            Some("an answer that cannot be read, or breaks its schema, is asked again once, the refusal and the answer echoed in two more messages (the record's `attempt: 2` with its messages): it protects a run against one bad answer; the reference makes one call and reads what comes".into()),
            Some(if rules.compact_prompts {
                "still unusable: the plan stays as it was, the action is the first admissible command other than the last one".into()
            } else {
                "still unusable, the reference's reading: the plan is the planner's text as it came (`pipeline_arigraph.py:216-218`), the action `look` (`:193-198`), the exploration check says no (no \"True\" in it); key items fall back to the observation, goal and sub-goals (the reference's `ast.literal_eval` would stop the run)".into()
            }),
            Some("how often each fires on the embedded model is measured in docs/fidelity.md".into()),
        ]),
    )
}

fn models() -> Element {
    row(
        "Models",
        "`pipeline_arigraph.py:26, 39-42`",
        "one chat model for every call (`--model`), or one per call kind (`--model-for KIND=MODEL,...`); the reference's split, gpt-4o for extraction, the outdated check, key items and the exploration check and gpt-4-0125-preview for planning and action, is `--model gpt-4o --model-for plan=gpt-4-0125-preview,action=gpt-4-0125-preview`".into(),
        "the embedded server holds one model, so `--model-for` needs a remote endpoint",
    )
}

fn navigation(rules: &Rules) -> Element {
    row(
        "Navigation",
        "section 3, Appendix A; `pipeline_arigraph.py:110`, `:141-172` (`process_action_get_reward`), `graphs/parent_graph.py:131-203` (`compute_spatial_graph`, `find_path`)",
        if rules.checked_routes {
            "`go to <room>` for the rooms a route reaches now, routed over every spatial fact; a route is one step against the step cap and one entry of the recent history, each move logged".into()
        } else {
            "`go to <room>` for every room the agent decided in, the current one too, routed over the compass facts that join two of those rooms; every move of the route is sent and the last answer is the next observation; no room a route crosses counts as visited and a route's moves add no fact; a route is one step against the step cap, one entry of the recent history and one `Game step #N`, each move logged; a `go to` with no route is answered with the reference's path-finding message (\"You are already there\", \"Destination is unknown...\", \"Destination isn't available...\")".into()
        },
        &join([
            Some("routes are A* over unit costs where the reference searches breadth first: both give a shortest route, not always the same one among equals; where two facts send a room the same way to different rooms the first read is kept (the reference keeps both)".into()),
            Some("`--no-go-to` removes it".into()),
            rule_note(rules, Rule::CheckedRoutes),
        ]),
    )
}

fn exploration(rules: &Rules) -> Element {
    let t = crate::llm::Temperatures::REFERENCE;
    row(
        "Exploration",
        "Appendix B; `prompts/system_prompts.py:6-7` (`if_exp_prompt`), `pipeline_arigraph.py:100-106`, `:221-227` (`get_unexpl_exits`), `utils/utils.py:316-359` (`find_unexplored_exits`)",
        if rules.compact_prompts {
            format!(
                "every step one call with the reference's prompt (`prompts/explore_reference.md`) says whether the previous plan needs exploring; only then are the exits the graph knows (`room, has exit, dir`) that no move has taken listed; temperature {}",
                t.explore
            )
        } else {
            format!(
                "every step one call with the reference's prompt (`prompts/explore_reference.md`) says whether the previous plan needs exploring; only then does item 7 list, per room the agent decided in, the exits the reference reads from the facts touching the room (`has exit`, or a relation holding exit, lead, entr or path with north, south, east or west in it or in its object) less those a fact leading back into the room explores (`X, is north of, room`), `none` for a room with none; temperature {}",
                t.explore
            )
        },
        &join([
            Some("form: the answer is JSON `{\"explore\": true|false}` where the reference looks for \"True\" in its text".into()),
            rules.compact_prompts.then(|| "a call with no usable answer shows the exits (the reference's reading gives none)".into()),
            Some("`--no-exploration` is the paper's ablation (no call, no exits)".into()),
        ]),
    )
}
