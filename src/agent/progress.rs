//! Progress and loops (a departure from the paper, on by default, switched off with
//! `--no-plan-progress` and `--no-loop-breaking`): a small model at temperature 0 keeps
//! a sub-goal after it is done and repeats short cycles of actions (take / insert the
//! same key, north / south) while its warnings go unread. Deterministic checks act
//! instead of only warning:
//! - [`achieved`]: a sub-goal the last action achieved (the same action, and the game did
//!   not refuse it) or that the inventory shows done ("take X", and from agent revision 5
//!   "find X", with X carried) is dropped from the plan, before and after the planner
//!   revises it; so is, from revision 6, a sub-goal to be in the room the agent is in
//!   ([`arrived`]; from revision 8 only at the front of the plan);
//! - [`detect_cycle`]: a repeated action (A, A, A), an alternation (A, B, A, B) or an
//!   action undone and done again (A, undo A, A): the actions of the cycle are left out
//!   of the admissible list for a few steps, and the prompt says why;
//! - [`reverses`] (agent revision 4): right after an action succeeded, the action that
//!   puts back exactly what it did (put the key back where it was taken from, lock the
//!   door just unlocked) is left out for one step;
//! - [`Walk`] (agent revision 5): after [`WANDER_DECISIONS`] decisions that walked into
//!   rooms already visited with nothing done in between, while some exit the game
//!   offered is still a [`frontier`] one, only the moves towards the frontier stay until
//!   the agent acts on something (or gains score), for at most [`HOLD_DECISIONS`]
//!   decisions: the moves kept take a frontier exit from here, or, when here has none,
//!   lead to a room that has one. Entering a new room neither counts nor ends the hold,
//!   so the agent keeps going outwards while it finds nothing to do; a new room with
//!   something to act on keeps every move out for one decision. The
//!   alternation check above only sees cycles of two commands; a walk around three
//!   rooms is a longer cycle.

use std::collections::HashSet;

use super::AgentRevision;
use crate::env::GameState;
use crate::memory::names::fold;
use crate::nav::Direction;

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

/// Decisions that walked into rooms already visited, with nothing done in between,
/// before the moves back into known rooms are left out (agent revision 5; see [`Walk`]).
pub const WANDER_DECISIONS: u32 = 4;

/// Most decisions the moves back into known rooms stay out; then the count of
/// [`WANDER_DECISIONS`] starts again.
pub const HOLD_DECISIONS: u32 = 6;

/// What the commands sent for one decision did (a `go to` route is one decision of
/// several commands), for the count of [`WANDER_DECISIONS`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Walk {
    /// Nothing that counts: only looking ([`idle`]), moves the game refused, or moves
    /// into rooms never visited.
    #[default]
    Nothing,
    /// Moved into a room visited before (and did nothing else).
    Known,
    /// Acted on something (the game did not refuse it; dropping a thing is no act),
    /// read a note, or gained score: the walk ends.
    Progress,
}

impl Walk {
    /// This decision's walk after one more command `command`, sent from room `from` and
    /// arriving in room `to` (entity keys; the same room when the game refused a move),
    /// where `new_room` tells whether `to` had never been visited, `reward` is the score
    /// change and `feedback` the game's answer.
    pub fn then(
        self,
        command: &str,
        from: &str,
        to: &str,
        new_room: bool,
        reward: i64,
        feedback: &str,
    ) -> Walk {
        let acted = !is_move(command)
            && !idle(command)
            && !gist(command).starts_with("drop ")
            && succeeded(feedback);
        if self == Walk::Progress || reward != 0 || acted || document_read(command, feedback) {
            return Walk::Progress;
        }
        if is_move(command) && from != to && !new_room {
            Walk::Known
        } else {
            self
        }
    }
}

/// The count behind the hold of agent revision 5 (see [`Walk`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wander {
    /// Decisions that walked into rooms already visited since the agent last acted.
    walked: u32,
    /// Decisions made under the hold.
    held_for: u32,
}

impl Wander {
    /// Count the last decision's walk and tell whether the hold is due for the next
    /// decision: [`WANDER_DECISIONS`] walks with nothing done in between, and fewer than
    /// [`HOLD_DECISIONS`] decisions held so far (after that the count starts again).
    pub fn next(&mut self, walk: Walk) -> bool {
        match walk {
            Walk::Known => self.walked += 1,
            Walk::Progress => *self = Wander::default(),
            Walk::Nothing => {}
        }
        if self.held_for >= HOLD_DECISIONS {
            *self = Wander::default();
        }
        self.walked >= WANDER_DECISIONS
    }

    /// The decision just made was held.
    pub fn held(&mut self) {
        self.held_for += 1;
    }

    /// Decisions that walked into rooms already visited since the agent last acted.
    pub fn walked(&self) -> u32 {
        self.walked
    }
}

/// What revision 5's hold keeps across steps: the walk since the last decision, the
/// count of walks, the rooms the agent has been in, and the exits the game offered in
/// them or refused.
#[derive(Debug, Clone, Default)]
pub struct Roaming {
    /// Every room (its entity key) the agent has been in.
    rooms_seen: HashSet<String>,
    /// What the commands since the last decision did.
    walk: Walk,
    /// Walks into rooms already visited since the agent last acted.
    wander: Wander,
    /// Every exit (room key, direction) the game has offered a movement command for, in
    /// the rooms where the agent decided: the exits known for certain, where an
    /// extracted `has exit` may be misread.
    exits_offered: HashSet<(String, Direction)>,
    /// Offered exits (room key, direction) the game refused when the agent took them.
    exits_refused: HashSet<(String, Direction)>,
    /// The last command entered a room never visited before.
    entered_new: bool,
}

impl Roaming {
    /// Record one command sent from room `from` that arrived in room `to` (entity keys;
    /// the same room when the game refused a move, `to` empty when unknown), with the
    /// score change `reward` and the game's answer `feedback`. Called for every command,
    /// a `go to` route's moves included.
    pub fn after_command(
        &mut self,
        command: &str,
        from: &str,
        to: &str,
        reward: i64,
        feedback: &str,
    ) {
        let new_room = !to.is_empty() && !self.rooms_seen.contains(to);
        self.entered_new = new_room && from != to;
        if let Some(d) = Direction::of_command(command)
            && from == to
            && !from.is_empty()
        {
            self.exits_refused.insert((from.to_string(), d));
        }
        self.walk = self
            .walk
            .then(command, from, to, new_room, reward, feedback);
        self.rooms_seen.extend(
            [from, to]
                .into_iter()
                .filter(|r| !r.is_empty())
                .map(str::to_string),
        );
    }

    /// At a decision in room `here` (an entity key, `None` when unknown) with the
    /// game's `admissible` commands: record the room and its offered exits and, when
    /// the hold applies (`revision_5`), count the last decision's walk ([`Wander::next`]);
    /// returns whether the hold is due.
    pub fn decide(&mut self, here: Option<&str>, admissible: &[String], revision_5: bool) -> bool {
        if let Some(here) = here {
            self.rooms_seen.insert(here.to_string());
            self.exits_offered.extend(
                admissible
                    .iter()
                    .filter_map(|c| Direction::of_command(c))
                    .map(|d| (here.to_string(), d)),
            );
        }
        revision_5 && {
            let walk = std::mem::take(&mut self.walk);
            self.wander.next(walk)
        }
    }

    /// The [`frontier`] of the exits offered and refused so far, given the spatial
    /// `map`, the exits taken (`explored`) and the rooms `visited`.
    pub fn frontier(
        &self,
        map: &crate::nav::SpatialMap,
        explored: &HashSet<(String, Direction)>,
        visited: &std::collections::BTreeSet<String>,
    ) -> Vec<(String, Direction)> {
        frontier(
            map,
            &self.exits_offered,
            explored,
            &self.exits_refused,
            visited,
        )
    }

    /// Whether the last command entered a room never visited before.
    pub fn entered_new(&self) -> bool {
        self.entered_new
    }

    /// The decision just made was held ([`Wander::held`]).
    pub fn held(&mut self) {
        self.wander.held();
    }

    /// Walks since the agent last acted ([`Wander::walked`]).
    pub fn walked(&self) -> u32 {
        self.wander.walked()
    }
}

/// Whether `command` is a movement command ("go east", "east", "e").
fn is_move(command: &str) -> bool {
    Direction::of_command(command).is_some()
}

/// Commands that only look and change nothing in the game: "look", "inventory",
/// "examine <thing>" (reading a document is progress, see [`document_read`]).
pub fn idle(command: &str) -> bool {
    let g = gist(command);
    matches!(g.as_str(), "look" | "l" | "inventory" | "i")
        || g.starts_with("examine ")
        || g.starts_with("x ")
}

/// Whether `offered` holds an action on a thing: not a move, not [`idle`], not dropping
/// something carried (which every room offers).
pub fn offers_things(offered: &[String]) -> bool {
    offered.iter().any(|a| {
        !a.starts_with(super::GO_TO) && !is_move(a) && !idle(a) && !gist(a).starts_with("drop ")
    })
}

/// The exits of the wander hold (revision 5): each exit (room key, direction) the game
/// offered a movement command for (`offered_exits`), unless a move took it
/// (`explored`), the game refused it (`refused`), or the map knows it leads to a room
/// visited (`visited`). An exit that only the extractor wrote (`has exit`), or whose
/// destination only the extractor named, is no frontier unless the game offered it.
/// Sorted.
pub fn frontier(
    map: &crate::nav::SpatialMap,
    offered_exits: &HashSet<(String, Direction)>,
    explored: &HashSet<(String, Direction)>,
    refused: &HashSet<(String, Direction)>,
    visited: &std::collections::BTreeSet<String>,
) -> Vec<(String, Direction)> {
    let mut out: Vec<(String, Direction)> = offered_exits
        .iter()
        .filter(|e| !explored.contains(*e) && !refused.contains(*e))
        .filter(|(room, d)| {
            map.destination(room, *d)
                .is_none_or(|r| !visited.contains(r))
        })
        .cloned()
        .collect();
    out.sort();
    out
}

/// The `available` actions to leave out while the agent wanders (revision 5, see
/// [`Walk`]), in room `here` (an entity key), with the spatial `map` and the
/// [`frontier`] exits: every move except those taking a frontier exit from here; or,
/// when here has none available, every move except those that lead (by `go to` or a
/// known exit) to a room with a frontier exit. When the agent has just entered `here`
/// for the first time (`arrived`) and the room [`offers_things`] to act on, every move:
/// a room found is looked at before it is left. `available` is what the other blocks
/// (cycles, reversals) left. Empty (nothing held) when no available move would be kept
/// and the room is not new.
pub fn held_while_wandering(
    here: &str,
    map: &crate::nav::SpatialMap,
    frontier: &[(String, Direction)],
    available: &[String],
    arrived: bool,
) -> Vec<String> {
    use crate::memory::names::entity_key;
    let is_move = |a: &str| a.starts_with(super::GO_TO) || is_move(a);
    if arrived && offers_things(available) {
        return available.iter().filter(|a| is_move(a)).cloned().collect();
    }
    let rooms: std::collections::BTreeSet<&str> =
        frontier.iter().map(|(r, _)| r.as_str()).collect();
    let opens = |a: &str| {
        Direction::of_command(a).is_some_and(|d| frontier.iter().any(|(r, e)| r == here && *e == d))
    };
    let towards = |a: &str| match a.strip_prefix(super::GO_TO) {
        Some(target) => rooms.contains(entity_key(target).as_str()),
        None => Direction::of_command(a)
            .and_then(|d| map.destination(here, d))
            .is_some_and(|r| rooms.contains(r)),
    };
    let keep: Vec<&String> = if available.iter().any(|a| opens(a)) {
        available.iter().filter(|a| opens(a)).collect()
    } else {
        available
            .iter()
            .filter(|a| is_move(a) && towards(a))
            .collect()
    };
    if keep.is_empty() {
        return Vec::new();
    }
    available
        .iter()
        .filter(|a| is_move(a) && !keep.contains(a))
        .cloned()
        .collect()
}

/// Steps a sub-goal may stay first before the planner is told it is stuck.
pub const STUCK_STEPS: u32 = 3;

/// Words dropped when comparing a sub-goal with an action.
const FILLER: &[&str] = &["the", "a", "an", "to", "your"];

/// A sub-goal or action reduced for comparison: folded, punctuation and articles gone.
pub fn gist(s: &str) -> String {
    fold(s)
        .split(|c: char| c.is_whitespace() || matches!(c, '.' | ',' | '!' | ';' | ':' | '"'))
        .filter(|w| !w.is_empty() && !FILLER.contains(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How the games refuse a command.
const REFUSALS: &[&str] = &[
    "you can't",
    "you cannot",
    "that's not",
    "i don't",
    "you don't",
    "you need",
    "nothing happens",
    "is locked",
    "you have to",
    "i only understood",
    "there is no",
    "isn't",
];

/// Whether the game's answer to a command reads as done (no refusal).
pub fn succeeded(feedback: &str) -> bool {
    let f = fold(feedback);
    !REFUSALS.iter().any(|r| f.contains(r))
}

/// Verbs of a sub-goal that is done once its object is carried: "take", "get", "pick
/// up"; from agent revision 5 also "find", "locate", "search for", "look for",
/// "obtain", "collect", "grab" (a small model keeps "find the steel key" first for
/// many steps with the key in its inventory).
fn carry_verbs(revision: AgentRevision) -> &'static [&'static str] {
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
fn taken(s: &str, revision: AgentRevision) -> Option<String> {
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
const ARRIVE_VERBS: &[&str] = &[
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
const ARRIVE_FILLER: &[&str] = &["back", "into", "inside", "toward", "towards"];

/// Whether `sub_goal` asks to be in a room and the agent is in it (agent revision 6):
/// "go to the bedroom" in the Bedroom. Rooms compare as [`gist`]s, whole names only
/// ("go to bedroom" is not done in the "master bedroom"). From `revision` 8 a direction
/// ("go east") names no room and is never done this way, even in a room named like one;
/// and the plan drops such a sub-goal only at its front
/// ([`super::Agent::drop_achieved`]): "return to the kitchen" after "take the tomato" is
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

/// Verb pairs where the second undoes the first.
const UNDO: &[(&[&str], &[&str])] = &[
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
fn verb_object(action: &str) -> Option<(String, String)> {
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

/// A gist split at its first "from", "into", "in", "on" or "with": "old key from
/// antique trunk" -> ("old key", "antique trunk"); `None` when it names no place.
fn split_place(g: &str) -> Option<(&str, &str)> {
    [" from ", " into ", " in ", " on ", " with "]
        .iter()
        .filter_map(|sep| g.split_once(sep))
        .min_by_key(|(o, _)| o.len())
}

/// The place of an action ([`split_place`]): "take old key from antique trunk" ->
/// "antique trunk"; "" when it names none.
fn place(action: &str) -> String {
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

/// Words that name a thing written to be read.
const DOCUMENTS: &[&str] = &[
    "note",
    "recipe",
    "cookbook",
    "book",
    "letter",
    "paper",
    "scroll",
    "manual",
    "diary",
    "journal",
    "sign",
    "card",
    "map",
    "message",
    "leaflet",
    "poster",
    "instructions",
];

/// Whether `action` read a note, recipe or book and the game answered with its text:
/// "examine cookbook", "read note" (not refused, and longer than a one-line reply).
pub fn document_read(action: &str, feedback: &str) -> bool {
    let g = gist(action);
    let Some(object) = g
        .strip_prefix("examine ")
        .or_else(|| g.strip_prefix("read "))
    else {
        return false;
    };
    object.split(' ').any(|w| DOCUMENTS.contains(&w))
        && succeeded(feedback)
        && feedback.trim().len() > 60
}

impl super::Agent {
    /// With plan progress on: drop from the plan the sub-goals the last action achieved,
    /// the inventory shows done, or (from revision 6) the current room shows done
    /// ([`arrived`]); returns them.
    pub(super) fn drop_achieved(&mut self, state: &GameState) -> Vec<String> {
        if !self.settings.plan_progress {
            return Vec::new();
        }
        let (action, feedback) = self
            .history
            .back()
            .map(|h| (h.action.clone(), h.feedback.clone()))
            .unwrap_or_default();
        let here = state
            .room
            .as_deref()
            .filter(|_| self.settings.rev().settles_arrivals());
        let mut dropped = Vec::new();
        // From revision 8, being in a room settles a sub-goal only at the front of the
        // plan: one further back ("return to the kitchen" after "take the tomato") is a
        // later visit. Revisions 6 and 7 settled it anywhere in the plan.
        let revision = self.settings.rev();
        let mut front = true;
        self.plan.retain(|p| {
            let done = achieved(&p.sub_goal, &action, &feedback, &state.inventory, revision)
                || ((front || !revision.arrivals_at_front_only())
                    && here.is_some_and(|room| arrived(&p.sub_goal, room, revision)));
            if done {
                dropped.push(p.sub_goal.clone());
            } else {
                front = false;
            }
            !done
        });
        dropped
    }

    /// With plan progress on: a warning when the same sub-goal has been first for
    /// [`STUCK_STEPS`] steps or more.
    pub(super) fn stuck_warning(&mut self, step: u32) -> Option<String> {
        if !self.settings.plan_progress {
            return None;
        }
        let first = self.plan.first()?;
        let gist = gist(&first.sub_goal);
        let since = match &self.first_goal {
            Some((g, since)) if *g == gist => *since,
            _ => {
                self.first_goal = Some((gist, step));
                step
            }
        };
        (step - since >= STUCK_STEPS).then(|| {
            format!(
                "the sub-goal \"{}\" has been first for {} steps without being achieved; replace it or reach it another way",
                first.sub_goal,
                step - since
            )
        })
    }

    /// With loop breaking on under revision 4: the `offered` actions that would put back
    /// exactly what the last command did ([`reverses`]), when the game accepted it and
    /// it was sent from room `here` (an entity key); they stay out for this step only.
    pub(super) fn reversals_now(&self, here: &str, offered: &[String]) -> Vec<String> {
        if !self.settings.loop_breaking || !self.settings.rev().leaves_out_reversals() {
            return Vec::new();
        }
        let (Some((last, answer)), Some(from)) = (self.answers.last(), self.sent_from.last())
        else {
            return Vec::new();
        };
        if from != here || !succeeded(answer) {
            return Vec::new();
        }
        offered
            .iter()
            .filter(|a| reverses(last, a))
            .cloned()
            .collect()
    }

    /// With loop breaking on: block the commands of a cycle the last commands close, each
    /// in the room it was sent from, and return the commands blocked in room `here` (an
    /// entity key) at `step`.
    pub(super) fn blocked_now(&mut self, step: u32, here: &str) -> Vec<String> {
        if !self.settings.loop_breaking {
            return Vec::new();
        }
        if let Some(cycle) = detect_cycle(&self.answers) {
            for command in cycle {
                // Revision 1 blocked an action in every room.
                let from = if !self.settings.rev().shares_prefix() {
                    String::new()
                } else {
                    self.answers
                        .iter()
                        .rposition(|(c, _)| *c == command)
                        .and_then(|i| self.sent_from.get(i))
                        .cloned()
                        .unwrap_or_default()
                };
                let active = self
                    .blocked
                    .iter()
                    .any(|(r, c, until)| *r == from && *c == command && *until >= step);
                let steps = if !self.settings.rev().blocks_longer() {
                    // Revisions 1 and 2: every detection (re)starts a block of 3 steps.
                    BLOCK_STEPS
                } else if active {
                    // The cycle's commands are still the last ones sent: the block
                    // that is running stands.
                    continue;
                } else {
                    let times = self
                        .block_counts
                        .entry((from.clone(), command.clone()))
                        .or_insert(0);
                    *times += 1;
                    block_steps(*times, self.settings.rev())
                };
                self.blocked
                    .retain(|(r, c, _)| !(*r == from && *c == command));
                self.blocked.push((from, command, step + steps - 1));
            }
        }
        self.blocked.retain(|(_, _, until)| *until >= step);
        self.blocked
            .iter()
            .filter(|(r, _, _)| r.is_empty() || r == here)
            .map(|(_, c, _)| c.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Agent revision `n`.
    fn r(n: u32) -> AgentRevision {
        AgentRevision::from_number(n).unwrap()
    }

    fn v(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    /// Steps whose answers depend only on the action (no progress).
    fn s(xs: &[&str]) -> Vec<(String, String)> {
        xs.iter()
            .map(|a| (a.to_string(), format!("answer to {a}")))
            .collect()
    }

    #[test]
    fn an_exact_reversal_needs_the_same_thing_and_the_same_place() {
        assert!(reverses(
            "take old key from antique trunk",
            "insert old key into antique trunk"
        ));
        assert!(reverses("take key", "drop key"));
        assert!(reverses(
            "unlock wooden door with old key",
            "lock wooden door with old key"
        ));
        assert!(reverses("open the fridge", "close fridge"));
        assert!(!reverses("take key from box", "put key on table"));
        assert!(!reverses("take key from box", "drop key"));
        assert!(!reverses("take key from box", "take key from box"));
        assert!(!reverses("open fridge", "close oven"));
        assert!(!reverses("go east", "go west"));
    }

    #[test]
    fn cycles_are_found() {
        assert_eq!(
            detect_cycle(&s(&[
                "look",
                "examine trunk",
                "examine trunk",
                "examine trunk"
            ])),
            Some(v(&["examine trunk"]))
        );
        assert_eq!(
            detect_cycle(&s(&["go north", "go south", "go north", "go south"])),
            Some(v(&["go north", "go south"]))
        );
        let take = "take old key from antique trunk";
        let insert = "insert old key into antique trunk";
        assert!(undoes(take, insert));
        assert!(undoes("open fridge", "close fridge"));
        assert!(!undoes("open fridge", "close door"));
        assert_eq!(
            detect_cycle(&s(&[take, insert, take])),
            Some(v(&[insert, take]))
        );
        assert_eq!(detect_cycle(&s(&["go east", "open door", "go east"])), None);
        assert_eq!(detect_cycle(&s(&["look"])), None);
        // East, east, east down a corridor: each answer is another room.
        let corridor: Vec<(String, String)> = (0..3)
            .map(|i| ("go east".to_string(), format!("-= Room {i} =-")))
            .collect();
        assert_eq!(detect_cycle(&corridor), None);
    }

    #[test]
    fn a_cycle_that_comes_back_is_blocked_longer() {
        assert_eq!(
            (1..=5).map(|k| block_steps(k, r(3))).collect::<Vec<_>>(),
            [3, 6, 12, 12, 12]
        );
        assert_eq!(block_steps(4, r(2)), BLOCK_STEPS);
    }

    #[test]
    fn notes_and_recipes_read_are_recognised() {
        let recipe = "You open the copy of \"Cooking: A Modern Approach (3rd Ed.)\" and start reading: Recipe #1 --------- Gather all following ingredients and follow the directions to prepare this tasty meal.";
        assert!(document_read("examine cookbook", recipe));
        assert!(document_read(
            "read the note",
            "The note says: the key to the blue locker is under the mat in the hall."
        ));
        // Taking the cookbook reads nothing; examining a bed is no document.
        assert!(!document_read("take cookbook", recipe));
        assert!(!document_read(
            "examine king-size bed",
            "The king-size bed is typical. It looks sturdy, well made and worth a closer look."
        ));
        // A refusal or a one-line reply is no text.
        assert!(!document_read(
            "examine note",
            "You can't see any such thing."
        ));
        assert!(!document_read("examine note", "It is a note."));
    }

    #[test]
    fn done_sub_goals_are_recognised() {
        assert!(achieved(
            "Take the old key from the antique trunk.",
            "take old key from antique trunk",
            "You take the old key from the antique trunk.",
            "",
            r(5)
        ));
        // Refused: not done.
        assert!(!achieved(
            "unlock wooden door with old key",
            "unlock wooden door with old key",
            "You can't do that: you don't have the key.",
            "",
            r(5)
        ));
        // The inventory shows it done, whatever the last action was.
        assert!(achieved(
            "take the old key",
            "insert old key into antique trunk",
            "You put the old key into the antique trunk.",
            "You are carrying: an old key",
            r(5)
        ));
        assert!(!achieved(
            "open the wooden door",
            "look",
            "You are in a bedroom.",
            "",
            r(5)
        ));
        // "Find" is done once the thing is carried, from revision 5 on.
        let carried = "You are carrying: a steel key.";
        assert!(achieved("find the steel key", "look", "", carried, r(5)));
        assert!(!achieved("find the steel key", "look", "", carried, r(4)));
        assert!(!achieved(
            "find the golden locker",
            "look",
            "",
            carried,
            r(5)
        ));
        assert!(achieved(
            "find the steel key in the drawer",
            "look",
            "",
            carried,
            r(5)
        ));
        // Whole words from revision 5: a keycard is no key.
        let keycard = "You are carrying: a keycard.";
        assert!(!achieved("find the key", "look", "", keycard, r(5)));
        assert!(achieved("take the key", "look", "", keycard, r(4)));
    }

    #[test]
    fn a_sub_goal_to_be_in_a_room_is_done_there() {
        assert!(arrived("go to bedroom", "Bedroom", r(8)));
        assert!(arrived("Go to the bedroom.", "bedroom", r(8)));
        assert!(arrived("return to the kitchen", "Kitchen", r(8)));
        assert!(arrived("go back into the cellar", "Cellar", r(8)));
        assert!(arrived("enter the master bedroom", "Master Bedroom", r(8)));
        // Another room, part of a name, a direction, another verb: not done.
        assert!(!arrived("go to bedroom", "Bathroom", r(8)));
        assert!(!arrived("go to bedroom", "Master Bedroom", r(8)));
        assert!(!arrived("go to master bedroom", "Bedroom", r(8)));
        assert!(!arrived("go east", "Bedroom", r(8)));
        assert!(!arrived("open the bedroom door", "Bedroom", r(8)));
        assert!(!arrived("explore the bedroom", "Bedroom", r(8)));
        assert!(!arrived("go to bedroom", "", r(8)));
        // A direction is no room, even where a room is named like one.
        assert!(!arrived("go east", "East", r(8)));
        assert!(!arrived("move north", "North", r(8)));
        assert!(arrived("go east", "East", r(7)));
    }

    #[test]
    fn a_walk_counts_only_moves_into_rooms_already_visited() {
        let known = Walk::Nothing.then("go east", "hall", "kitchen", false, 0, "-= Kitchen =-");
        assert_eq!(known, Walk::Known);
        // A route of two moves through known rooms is one walk.
        assert_eq!(
            known.then("go north", "kitchen", "pantry", false, 0, "-= Pantry =-"),
            Walk::Known
        );
        // A room never visited does not count; a score change or acting on something
        // ends the walk.
        assert_eq!(
            known.then("go north", "kitchen", "attic", true, 0, "-= Attic =-"),
            Walk::Known
        );
        assert_eq!(
            Walk::Nothing.then("go north", "kitchen", "attic", true, 0, "-= Attic =-"),
            Walk::Nothing
        );
        assert_eq!(
            known.then("go north", "kitchen", "pantry", false, 1, "-= Pantry =-"),
            Walk::Progress
        );
        assert_eq!(
            Walk::Nothing.then("take key", "hall", "hall", false, 0, "Taken."),
            Walk::Progress
        );
        // A refused action or dropping a thing does not end it.
        let refused = "You can't do that: you don't have the key.";
        assert_eq!(
            Walk::Known.then("unlock door with key", "hall", "hall", false, 0, refused),
            Walk::Known
        );
        assert_eq!(
            Walk::Known.then("drop lamp", "hall", "hall", false, 0, "Dropped."),
            Walk::Known
        );
        // Looking, examining and a refused move change nothing.
        for c in ["look", "inventory", "examine steel key"] {
            assert_eq!(
                Walk::Known.then(c, "hall", "hall", false, 0, "It is a key."),
                Walk::Known
            );
            assert_eq!(
                Walk::Nothing.then(c, "hall", "hall", false, 0, "It is a key."),
                Walk::Nothing
            );
        }
        assert_eq!(
            Walk::Nothing.then(
                "go west",
                "hall",
                "hall",
                false,
                0,
                "You can't go that way."
            ),
            Walk::Nothing
        );
        // Reading a note is progress.
        let text = "The note says: the nickel key opens the blue locker in the attic, upstairs.";
        assert_eq!(
            Walk::Known.then("examine note", "hall", "hall", false, 0, text),
            Walk::Progress
        );
    }

    /// hall -east- kitchen -north- pantry, all visited; the hall also has a south exit
    /// no move has taken.
    fn walked_house() -> (
        crate::nav::SpatialMap,
        std::collections::HashSet<(String, crate::nav::Direction)>,
    ) {
        use crate::memory::{AriGraph, Triplet};
        use crate::nav::{Direction, SpatialMap, move_triplets};
        let mut g = AriGraph::new();
        for t in move_triplets("hall", Direction::East, "kitchen")
            .into_iter()
            .chain(move_triplets("kitchen", Direction::North, "pantry"))
        {
            g.add(t);
        }
        g.add(Triplet::new("hall", "has exit", "south").unwrap());
        let visited = ["hall", "kitchen", "pantry"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let explored = [
            ("hall".to_string(), Direction::East),
            ("kitchen".to_string(), Direction::West),
            ("kitchen".to_string(), Direction::North),
            ("pantry".to_string(), Direction::South),
        ]
        .into_iter()
        .collect();
        (SpatialMap::from_graph(&g, &visited), explored)
    }

    #[test]
    fn a_wanderer_keeps_only_the_moves_towards_unexplored_exits() {
        use crate::nav::Direction;
        use std::collections::{BTreeSet, HashSet};
        let (map, explored) = walked_house();
        let visited: BTreeSet<String> = ["hall", "kitchen", "pantry"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let exit = |r: &str, d: Direction| (r.to_string(), d);
        // The game offered every exit below; the hall's south was never taken, the
        // kitchen's east was refused, and the pantry's west leads (the extractor says) to
        // the hall, a room visited.
        let offered_exits: HashSet<(String, Direction)> = explored
            .iter()
            .cloned()
            .chain([
                exit("hall", Direction::South),
                exit("kitchen", Direction::East),
            ])
            .collect();
        let refused: HashSet<(String, Direction)> =
            [exit("kitchen", Direction::East)].into_iter().collect();
        let frontier = frontier(&map, &offered_exits, &explored, &refused, &visited);
        assert_eq!(frontier, [exit("hall", Direction::South)]);
        // In the hall: only the frontier exit stays among the moves.
        let offered = v(&[
            "go east",
            "go south",
            "take key",
            "look",
            "go to kitchen",
            "go to pantry",
        ]);
        assert_eq!(
            held_while_wandering("hall", &map, &frontier, &offered, false),
            v(&["go east", "go to kitchen", "go to pantry"])
        );
        // In the pantry (no frontier exit): moves that lead to the hall stay.
        let offered = v(&["go south", "look", "go to hall", "go to kitchen"]);
        assert_eq!(
            held_while_wandering("pantry", &map, &frontier, &offered, false),
            v(&["go south", "go to kitchen"])
        );
        // The way to the frontier is blocked already (not available): nothing is held,
        // so the agent is never left without a move by the hold.
        let available = v(&["go south", "look", "go to kitchen"]);
        assert!(held_while_wandering("pantry", &map, &frontier, &available, false).is_empty());
        // Just arrived in a room with a thing to act on: every move waits a decision.
        let offered = v(&[
            "go east",
            "go south",
            "take key",
            "drop lamp",
            "go to pantry",
        ]);
        assert_eq!(
            held_while_wandering("hall", &map, &frontier, &offered, true),
            v(&["go east", "go south", "go to pantry"])
        );
        // Nothing to act on there (dropping, looking and examining do not count).
        let offered = v(&["go east", "go south", "drop lamp", "examine lamp", "look"]);
        assert!(!offers_things(&offered));
        assert_eq!(
            held_while_wandering("hall", &map, &frontier, &offered, true),
            v(&["go east"])
        );
        // A new room with a thing to act on holds its moves with no exit left to explore.
        let offered = v(&["go south", "take apple", "go to kitchen"]);
        assert_eq!(
            held_while_wandering("pantry", &map, &[], &offered, true),
            v(&["go south", "go to kitchen"])
        );
    }

    #[test]
    fn the_hold_comes_after_four_walks_and_lasts_six_decisions() {
        let mut w = Wander::default();
        let due: Vec<bool> = [Walk::Known, Walk::Nothing, Walk::Known, Walk::Known]
            .into_iter()
            .map(|k| w.next(k))
            .collect();
        assert_eq!(due, [false, false, false, false]);
        assert!(w.next(Walk::Known));
        // Held for six decisions (new rooms and looks keep it), then released.
        for _ in 0..5 {
            w.held();
            assert!(w.next(Walk::Nothing));
        }
        w.held();
        assert!(!w.next(Walk::Nothing));
        assert_eq!(w.walked(), 0);
        // Acting on something ends the walk at once.
        for _ in 0..4 {
            w.next(Walk::Known);
        }
        assert!(w.next(Walk::Known));
        assert!(!w.next(Walk::Progress));
    }
}
