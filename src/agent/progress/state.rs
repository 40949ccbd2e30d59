//! What the agent's rules remember across steps, beside the agent's own state (a leaf
//! of `progress`: the rules read and write it through the agent).

use super::Roaming;

/// What the agent's rules remember across steps: the commands sent and the game's
/// answers, where each was sent from, the room the agent is in, the blocks, the first
/// sub-goal, the latest note read, the walks of the hold.
#[derive(Debug, Default)]
pub struct Progress {
    /// Every command sent with the game's answer to it, in order.
    pub(in crate::agent) answers: Vec<(String, String)>,
    /// The room (its entity key) each command of `answers` was sent from.
    pub(in crate::agent) sent_from: Vec<String>,
    /// The room (its entity key) the agent is in after the last command.
    pub(in crate::agent) here: Option<String>,
    /// Commands left out of the admissible list in a room (with the `go to` actions whose
    /// route starts with them): (room key, command, the last step they stay out).
    pub(in crate::agent) blocked: Vec<(String, String, u32)>,
    /// How many times each (room key, command) has been blocked (revision 3 blocks a
    /// cycle that comes back for longer each time).
    pub(in crate::agent) block_counts: std::collections::HashMap<(String, String), u32>,
    /// The first sub-goal (its gist) and the step it became first.
    pub(in crate::agent) first_goal: Option<(String, u32)>,
    /// The latest note, recipe or book read: (step, action, the game's text).
    pub(in crate::agent) note: Option<(u32, String, String)>,
    /// Walks, rooms and exits for revision 5's hold ([`progress::Roaming`]).
    pub(in crate::agent) roaming: Roaming,
}
