//! Cycles and reversals (rule `loop-breaking`): how long a blocked command stays out,
//! [`detect_cycle`] over the recent commands, and [`reverses`], the command that undoes
//! the last one.

use super::text::{gist, split_place};
use crate::agent::AgentRevision;
use crate::memory::names::fold;

/// Steps a detected cycle's actions stay out of the admissible list (the first time).
pub const BLOCK_STEPS: u32 = 3;

/// Most steps a cycle that keeps coming back stays out (agent revision 3 doubles the
/// block each time the same command is blocked again in the same room).
pub const MAX_BLOCK_STEPS: u32 = 12;

/// Steps a command stays out the `times`-th time it is blocked in a room (1-based):
/// 3, 6, 12, 12, ... under revision 3; always [`BLOCK_STEPS`] before it.
pub fn block_steps(times: u32, revision: AgentRevision) -> u32 {
    if !revision.blocks_longer() {
        return BLOCK_STEPS;
    }
    let doubled = BLOCK_STEPS.saturating_mul(1u32 << times.saturating_sub(1).min(8));
    doubled.min(MAX_BLOCK_STEPS)
}

/// Verb pairs where the second undoes the first.
pub(super) const UNDO: &[(&[&str], &[&str])] = &[
    (
        &["take", "get", "pick up"],
        &["put", "insert", "drop", "place"],
    ),
    (
        &["put", "insert", "drop", "place"],
        &["take", "get", "pick up"],
    ),
    (&["open"], &["close"]),
    (&["close"], &["open"]),
    (&["lock"], &["unlock"]),
    (&["unlock"], &["lock"]),
];

/// The verb and the object of an action: "insert old key into trunk" -> ("insert", "old key").
pub(super) fn verb_object(action: &str) -> Option<(String, String)> {
    let g = gist(action);
    for verb in [
        "pick up", "take", "get", "put", "insert", "drop", "place", "open", "close", "lock",
        "unlock",
    ] {
        if let Some(rest) = g.strip_prefix(verb).and_then(|r| r.strip_prefix(' ')) {
            let object = rest.split([' ']).collect::<Vec<_>>().join(" ");
            let object = split_place(&object)
                .map(|(o, _)| o.to_string())
                .unwrap_or(object);
            return Some((verb.to_string(), object));
        }
    }
    None
}

/// Whether `b` undoes `a` (take / put back the same thing, open / close it, ...).
pub fn undoes(a: &str, b: &str) -> bool {
    let (Some((va, oa)), Some((vb, ob))) = (verb_object(a), verb_object(b)) else {
        return false;
    };
    oa == ob
        && UNDO
            .iter()
            .any(|(x, y)| x.contains(&va.as_str()) && y.contains(&vb.as_str()))
}

/// The place of an action ([`split_place`]): "take old key from antique trunk" ->
/// "antique trunk"; "" when it names none.
pub(super) fn place(action: &str) -> String {
    split_place(&gist(action))
        .map(|(_, p)| p.to_string())
        .unwrap_or_default()
}

/// Whether `b` puts back exactly what `a` did: [`undoes`] with the same place ("take
/// key from box" / "put key in box"; "take key" / "drop key"; "open fridge" / "close
/// fridge"; "unlock door with key" / "lock door with key"). Agent revision 4 leaves such
/// an action out for the step right after `a` succeeded: it could only return the game
/// to where it was one step before.
pub fn reverses(a: &str, b: &str) -> bool {
    undoes(a, b) && place(a) == place(b)
}

/// The actions of a cycle that the last `steps` (action, the game's answer) close, when
/// it made no progress (each repeated action got the same answer as before): A, A, A;
/// A, B, A, B; or A, undo A, A. Walking the same way down a corridor is no cycle: the
/// answers differ. `None` when the last steps make no cycle.
pub fn detect_cycle(steps: &[(String, String)]) -> Option<Vec<String>> {
    let n = steps.len();
    let act = |k: usize| steps[n - 1 - k].0.as_str();
    let same = |a: usize, b: usize| fold(&steps[n - 1 - a].1) == fold(&steps[n - 1 - b].1);
    if n >= 3 && act(0) == act(1) && act(1) == act(2) && same(0, 1) && same(1, 2) {
        return Some(vec![act(0).to_string()]);
    }
    if n >= 4
        && act(0) == act(2)
        && act(1) == act(3)
        && act(0) != act(1)
        && same(0, 2)
        && same(1, 3)
    {
        return Some(vec![act(1).to_string(), act(0).to_string()]);
    }
    if n >= 3 && act(0) == act(2) && undoes(act(2), act(1)) && same(0, 2) {
        return Some(vec![act(1).to_string(), act(0).to_string()]);
    }
    None
}
