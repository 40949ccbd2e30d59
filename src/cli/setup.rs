//! The options of `ariadne setup`: which model, which game families, which build of
//! the local LLM server.

use clap::Args;

/// Options of `ariadne setup`.
#[derive(Debug, Clone, Args)]
pub struct SetupArgs {
    /// The local model to install (qwen2.5-coder-1.5b, the default, or qwen2.5-coder-0.5b).
    /// Without --games-only, setup installs TextWorld, the local runtime and this model.
    #[arg(long)]
    pub local_model: Option<String>,
    /// Only what the games need: TextWorld and the bridges that run the games, no model
    /// (what the tests need). `--bridge-only`, its name before, is kept as an alias.
    #[arg(long, alias = "bridge-only", conflicts_with_all = ["local_model", "llm_build"])]
    pub games_only: bool,
    /// How to install the local LLM server: `wheel`, the prebuilt one (built for AVX2),
    /// or `native`, llama.cpp compiled here for this CPU (measured on an AVX-512 CPU: 1.08x
    /// the steps per hour, no faster in `qa`, other temperature-0 answers; docs/results.md).
    /// Without it, setup keeps the build that is there, the wheel when there is none.
    /// Every run's manifest records the build.
    #[arg(long, value_enum)]
    pub llm_build: Option<crate::pyenv::llm_build::LlmBuild>,
    /// Also TextWorld-Express (needs a Java runtime).
    #[arg(long)]
    pub twx: bool,
    /// Also Jericho, for human-written z-machine games (builds with the system's C
    /// compiler).
    #[arg(long)]
    pub jericho: bool,
    /// Also NLE, for NetHack (a wheel: NetHack 3.6.6 built in).
    #[arg(long)]
    pub nethack: bool,
    /// Also ScienceWorld (needs a Java runtime).
    #[arg(long)]
    pub scienceworld: bool,
    /// Also TALES (microsoft/tale-suite) with TextWorld-Express, and Ariadne's agent
    /// module for TALES's `benchmark.py --agent` (docs/agent-protocol.md).
    #[arg(long)]
    pub tales: bool,
}
