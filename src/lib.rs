#![warn(missing_docs)]
//! Ariadne: an LLM agent for text games with the AriGraph memory of
//! Anokhin et al., "AriGraph: Learning Knowledge Graph World Models with Episodic
//! Memory for LLM Agents" (arXiv:2407.04363).
//!
//! One module per concern (`docs/architecture.md` draws the tree):
//! - [`env`](crate::env): the [`env::Environment`] seam; TextWorld and TextWorld-Express bridges;
//!   the managed Python environment; the paper's game families.
//! - [`llm`]: OpenAI-compatible client, structured answers, prompts, the embedded
//!   local servers, the replay cassette.
//! - [`memory`]: the AriGraph graph, its retrieval, the baselines, the designs;
//!   [`rows`]: the rows a bench plays (Table 4's designs and their variants).
//! - [`nav`]: spatial map, A* routes, the explorer.
//! - [`agent`]: working memory, planning and ReAct decision (paper section 3).
//! - [`profile`]: which agent a run is (`paper`, `extended`) and its typed rules (a leaf:
//!   agent, memory and navigation follow the rules); [`fidelity`]: the Fidelity table
//!   built from the engine's own constants.
//! - [`episode`]: the step loop over any environment, feeding step sinks.
//! - [`trajectory`]: the run directory, its typed and versioned records.
//! - [`view`]: one self-contained HTML page of a run.
//! - [`commands`]: play, bench, replay, games, view; [`cli`] and [`settings`] parse and
//!   resolve the command line.

pub mod agent;
pub mod cancel;
pub mod cli;
pub mod commands;
pub mod direction;
pub mod env;
pub mod episode;
pub mod error;
pub mod fidelity;
pub mod judge;
pub mod llm;
pub mod memory;
pub mod nav;
pub mod ops;
pub mod profile;
pub mod pyenv;
pub mod qa;
pub mod report;
pub mod rows;
pub mod settings;
pub mod text;
pub mod trajectory;
pub mod view;
