//! The operations: what the commands do, as library functions over typed inputs that
//! return typed results. A command parses its arguments into an operation's input,
//! calls one operation and renders what it returns; an operation prints nothing to
//! stdout and draws nothing (it shows progress through the sinks and observers it is
//! given, notices through [`crate::report`]).
//!
//! - [`play`]: one game with the agent, its endpoints started and stopped;
//! - [`mod@bench`]: the paper's evaluation protocol over games, memory designs and attempts;
//! - [`qa`]: multi-hop question answering over a question set, and its replay;
//! - [`replay`]: a logged run replayed with no LLM call, checked step by step.

pub mod bench;
pub mod play;
pub mod qa;
pub mod replay;

pub use crate::episode::game::is_user_error;
