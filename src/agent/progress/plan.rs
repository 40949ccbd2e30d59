//! Plan progress (rule `plan-progress`): which sub-goals the last action
//! [`achieved`] or the current room shows done ([`arrived`]).

use super::text::{gist, split_place, succeeded};
use crate::agent::AgentRevision;
use crate::nav::Direction;

/// Steps a sub-goal may stay first before the planner is told it is stuck.
pub const STUCK_STEPS: u32 = 3;

/// Verbs of a sub-goal that is done once its object is carried: "take", "get", "pick
/// up"; from agent revision 5 also "find", "locate", "search for", "look for",
/// "obtain", "collect", "grab" (a small model keeps "find the steel key" first for
/// many steps with the key in its inventory).
pub(super) fn carry_verbs(revision: AgentRevision) -> &'static [&'static str] {
    if revision.holds_walks() {
        &[
            "take ",
            "get ",
            "pick up ",
            "find ",
            "locate ",
            "search for ",
            "look for ",
            "obtain ",
            "collect ",
            "grab ",
        ]
    } else {
        &["take ", "get ", "pick up "]
    }
}

/// The object of a sub-goal or action done once its object is carried ([`carry_verbs`]):
/// "take old key from trunk" -> "old key".
pub(super) fn taken(s: &str, revision: AgentRevision) -> Option<String> {
    let g = gist(s);
    let rest = carry_verbs(revision)
        .iter()
        .find_map(|v| g.strip_prefix(v))?;
    let object = if revision.holds_walks() {
        // "find key in drawer" -> "key".
        split_place(rest).map_or(rest, |(o, _)| o).trim()
    } else {
        rest.split(" from ").next().unwrap_or(rest).trim()
    };
    (!object.is_empty()).then(|| object.to_string())
}

/// Whether `sub_goal` is done: it is the last action and the game did not refuse it,
/// or it takes (finds, from agent `revision` 5) a thing the inventory now holds.
pub fn achieved(
    sub_goal: &str,
    last_action: &str,
    feedback: &str,
    inventory: &str,
    revision: AgentRevision,
) -> bool {
    let g = gist(sub_goal);
    if !last_action.is_empty() && g == gist(last_action) && succeeded(feedback) {
        return true;
    }
    taken(sub_goal, revision).is_some_and(|x| {
        let carried = gist(inventory);
        if revision.holds_walks() {
            // Whole words: "find the ring" is not done by "you are carrying nothing".
            format!(" {carried} ").contains(&format!(" {x} "))
        } else {
            carried.contains(&x)
        }
    })
}

/// Verbs of a sub-goal that names a room to be in: "go to the bedroom", "return to
/// kitchen", "enter the cellar".
pub(super) const ARRIVE_VERBS: &[&str] = &[
    "go ",
    "return ",
    "reach ",
    "enter ",
    "head ",
    "move ",
    "walk ",
    "travel ",
    "navigate ",
];

/// Words between such a verb and the room ("go back into the bedroom").
pub(super) const ARRIVE_FILLER: &[&str] = &["back", "into", "inside", "toward", "towards"];

/// Whether `sub_goal` asks to be in a room and the agent is in it (agent revision 6):
/// "go to the bedroom" in the Bedroom. Rooms compare as [`gist`]s, whole names only
/// ("go to bedroom" is not done in the "master bedroom"). From `revision` 8 a direction
/// ("go east") names no room and is never done this way, even in a room named like one;
/// and the plan drops such a sub-goal only at its front
/// (`Agent::drop_achieved`): "return to the kitchen" after "take the tomato" is
/// a later visit.
pub fn arrived(sub_goal: &str, room: &str, revision: AgentRevision) -> bool {
    let g = gist(sub_goal);
    let Some(rest) = ARRIVE_VERBS.iter().find_map(|v| g.strip_prefix(v)) else {
        return false;
    };
    let target: Vec<&str> = rest
        .split(' ')
        .skip_while(|w| ARRIVE_FILLER.contains(w))
        .collect();
    let room = gist(room);
    let target = target.join(" ");
    !room.is_empty()
        && target == room
        && (!revision.arrivals_at_front_only() || Direction::parse(&target).is_none())
}
