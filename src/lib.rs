//! Ariadne: an LLM agent for text games with the AriGraph memory of
//! Anokhin et al., "AriGraph: Learning Knowledge Graph World Models with Episodic
//! Memory for LLM Agents" (arXiv:2407.04363).
//!
//! One module per concern:
//! - [`env`]: the TextWorld bridge subprocess (JSON lines).
//! - [`llm`]: the OpenAI-compatible client, structured answers, the embedded local servers.
//! - [`memory`]: the AriGraph memory graph, its update and two-step retrieval (paper section 2).
//! - [`agent`]: working memory, planning and ReAct decision (paper section 3).
//! - [`trajectory`]: the run directory and its versioned JSONL log.
//! - [`pyenv`]: the managed Python environment (TextWorld, local model runtime, weights).
//! - [`cli`] and [`settings`]: command-line parsing and the settings resolved from it.

pub mod agent;
pub mod bench;
pub mod cli;
pub mod env;
pub mod error;
pub mod games;
pub mod interrupt;
pub mod llm;
pub mod memory;
pub mod nav;
pub mod play;
pub mod prompts;
pub mod pyenv;
pub mod replay;
pub mod settings;
pub mod trajectory;
