//! Command-line types (clap). Nothing outside this module and [`crate::settings`] sees
//! them: `settings` resolves them, with the config file and environment, into plain
//! settings once.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::llm::JsonMode;
use crate::memory::MemoryDesign;

mod memory;
mod setup;
pub use memory::{GameArgs, MemoryArgs};
pub use setup::SetupArgs;

/// Ariadne: an LLM agent for TextWorld games with AriGraph memory (arXiv:2407.04363).
#[derive(Debug, Parser)]
#[command(name = "ariadne", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play one game (TextWorld, TextWorld-Express, the authors' suite, Jericho, NetHack)
    /// with the Ariadne agent and log the trajectory.
    Play(Box<PlayArgs>),
    /// Re-execute a logged run with no LLM call, check it, inspect or export the graph at
    /// any step, hand over to the live LLM, or try other retrieval settings.
    Replay(Box<ReplayArgs>),
    /// Play a set of games several times with one or more memory designs and report
    /// the paper's table (normalized score as the mean of the best 3 of N, cost).
    Bench(Box<BenchArgs>),
    /// Make and list games of the paper's families (Treasure Hunt, Cleaning, Cooking).
    #[command(subcommand)]
    Games(GamesCommand),
    /// Install the managed Python environment (TextWorld, local model) without playing.
    Setup(SetupArgs),
    /// Write one self-contained HTML page of a run: the graph step by step, what the
    /// agent saw, planned and did, every LLM call, and charts over the run.
    View(ViewArgs),
    /// Show a profile: per element of the paper, what it does, its source, and every
    /// departure with its switch (docs/fidelity.md).
    #[command(subcommand)]
    Profile(ProfileCommand),
    /// Multi-hop question answering over the same memory (paper section 4.3): answer
    /// MuSiQue, HotpotQA or 2WikiMultihopQA questions with AriGraph and the baselines.
    Qa(Box<QaArgs>),
    /// Play one episode of a game a harness runs (TALES, a gymnasium loop): its
    /// observations in, Ariadne's commands out, as JSON lines on stdin and stdout
    /// (docs/agent-protocol.md); the run directory is the one `play` writes.
    Agent(Box<AgentArgs>),
}

/// Options of `ariadne agent`.
#[derive(Debug, Clone, Args)]
pub struct AgentArgs {
    /// What the harness calls the game (letters, digits, '.', '_', '-'): the run
    /// directory is named after it (`harness-NAME`).
    #[arg(long, default_value = "game")]
    pub name: String,
    /// Step cap: Ariadne ends the episode after this many commands unless the harness
    /// ends it first (TALES plays 100).
    #[arg(long, default_value_t = crate::env::suite::STEP_CAP, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: u32,
    /// Seed sent with every chat request (where the endpoint supports it).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where run directories are written.
    #[arg(long, default_value = "runs")]
    pub runs_dir: PathBuf,
    /// Memory design: arigraph, arigraph-no-episodic, full-history, no-memory, summary,
    /// rag, simulacra (default arigraph); one episode, so no reflexion trials.
    #[arg(long, value_parser = parse_design, help_heading = "Memory")]
    pub memory: Option<MemoryDesign>,
    /// Memory and prompt settings.
    #[command(flatten)]
    pub memory_args: MemoryArgs,
    /// Navigation, goal and game settings.
    #[command(flatten)]
    pub game_args: GameArgs,
    /// Endpoint and model.
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// Options of `ariadne qa`: a data set to answer, or a run to resume or replay (one of
/// the three is required, and clap names all three when none is given).
#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["data", "resume", "replay"])))]
pub struct QaArgs {
    /// The data set: MuSiQue's `.jsonl`, HotpotQA's or 2WikiMultihopQA's `.json` (the
    /// format is read from the content).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Answer N questions picked reproducibly by --seed (the paper: 200); default: all.
    #[arg(long, conflicts_with = "ids", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub sample: Option<usize>,
    /// The seed of --sample.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Answer exactly the questions whose ids this file lists (one per line).
    #[arg(long)]
    pub ids: Option<PathBuf>,
    /// Memories, a comma-separated list of arigraph, rag (embedding top-3 paragraphs),
    /// bm25 (BM25 top-3 paragraphs), full-context (every paragraph) [default:
    /// arigraph,rag,bm25,full-context].
    #[arg(long)]
    pub memory: Option<String>,
    /// The run directory (default: runs/qa-<time>-<data set>).
    #[arg(long, conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// Finish an interrupted run: the questions already answered are kept. The run's
    /// own plan is followed: its data, questions and memories cannot be changed.
    #[arg(long, conflicts_with_all = ["replay", "data", "sample", "ids", "memory", "seed", "profile", "without", "prompts", "no_plan_progress", "no_loop_breaking", "no_note"])]
    pub resume: Option<PathBuf>,
    /// Replay a QA run with no LLM call: every answered question is asked again with
    /// the recorded answers and embeddings, and must give the recorded prediction,
    /// metrics and retrieval (exit 1 at the first divergence).
    #[arg(long, conflicts_with_all = ["data", "out", "outdated_check", "episode_ranking", "extractions_at_once", "sample", "ids", "memory", "jobs", "seed", "profile", "without", "prompts", "no_plan_progress", "no_loop_breaking", "no_note"])]
    pub replay: Option<PathBuf>,
    /// Run the profile's outdated-fact check on each paragraph, in the file's order (a
    /// departure: the reference's QA path has none). It is what gives `--retire` and
    /// `--outdated-scope` something to act on, and what questions about facts that
    /// changed between paragraphs need (`tests/qa/temporal.jsonl`).
    #[arg(long, conflicts_with = "resume")]
    pub outdated_check: bool,
    /// How the `arigraph` row picks the (at most 2) paragraphs it gives the answer
    /// prompt. Options that rank episodes their own way (`--retrieval water-circles`,
    /// `--exclude episodic`, `--thesis --exclude object`) keep their ranking; a resumed
    /// or replayed run keeps the one it recorded.
    #[arg(
        long,
        value_enum,
        default_value = "reference",
        conflicts_with = "resume"
    )]
    pub episode_ranking: crate::qa::EpisodeRanking,
    /// Questions answered at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub jobs: u32,
    /// Paragraph extractions of an `arigraph` question asked at once, where no
    /// extraction reads what an earlier paragraph added (without --outdated-check);
    /// the paragraphs still join the graph in the file's order. It pays where the
    /// endpoint serves calls in parallel; on the embedded model on 2 cores it brings
    /// nothing (docs/results.md), so the default asks one after another. 1 to 16.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16), conflicts_with = "resume")]
    pub extractions_at_once: u32,
    /// No line per question.
    #[arg(long, short)]
    pub quiet: bool,
    /// The agent's profile and memory options (as for `play`).
    #[command(flatten)]
    pub memory_args: MemoryArgs,
    /// Endpoints and model.
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// `ariadne profile` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum ProfileCommand {
    /// Print the Fidelity table of a profile as Markdown.
    Show {
        /// paper (the default profile) or extended.
        #[arg(default_value = "paper")]
        profile: String,
    },
    /// List the profiles and the rules of the extended profile.
    List,
}

/// Options of `ariadne view`.
#[derive(Debug, Clone, Args)]
pub struct ViewArgs {
    /// A run directory (runs/<run-id>).
    pub run: PathBuf,
    /// Where to write the page (default: <run>/view.html).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `ariadne games` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum GamesCommand {
    /// Generate a game (byte-reproducible from the seed) and add it to the manifest beside it.
    Make {
        /// treasure-hunt, cleaning or cooking.
        family: String,
        /// treasure-hunt: basic, hard, hardest; cleaning: basic; cooking: basic, hard,
        /// hardest, rl-1 .. rl-4.
        #[arg(long, default_value = "basic")]
        size: String,
        /// Generation seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output .z8 path (default: games/<family>-<size>-<seed>.z8).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replace an existing game file of that name.
        #[arg(long)]
        force: bool,
    },
    /// List the games of a directory: name, family, size, rooms, max score, seed, goal.
    List {
        /// The directory.
        #[arg(long, default_value = "games")]
        dir: PathBuf,
    },
}

/// Options of `ariadne bench`.
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["games", "resume"])))]
pub struct BenchArgs {
    /// `merge`: join the outputs of sharded benches.
    #[command(subcommand)]
    pub action: Option<BenchAction>,
    /// Play only the K-th of N disjoint, deterministic slices of the episode list (the
    /// same list on every machine; K = 1..N cover it once); join them with `bench merge`.
    /// `auto`: K and N from the scheduler (Slurm's SLURM_ARRAY_TASK_ID and
    /// SLURM_ARRAY_TASK_COUNT, or Kubernetes' JOB_COMPLETION_INDEX with ARIADNE_SHARDS).
    #[arg(long, value_name = "K/N|auto")]
    pub shard: Option<String>,
    /// Games: bundled names, .z8 paths, directories, families, `twx:<game>?seed=N`,
    /// `arigraph-paper:NAME`, z-machine story files played through Jericho (.z3, .z5,
    /// ...; `jericho:PATH` for a human-written .z8),
    /// `nethack[?seed=S&character=C&obs=room|level]`, or `all`; comma-separated or
    /// repeated.
    #[arg(long, value_delimiter = ',')]
    pub games: Vec<String>,
    /// Attempts per game and memory design (the paper: 5).
    #[arg(long, default_value_t = crate::trajectory::bench::PAPER_ATTEMPTS, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Memory designs (comma-separated): arigraph, arigraph-no-episodic,
    /// arigraph-no-exploration, arigraph+astar, arigraph+water-circles, arigraph+beam,
    /// arigraph+mixed, arigraph+water-circles+beam, arigraph+astar+beam,
    /// arigraph+astar+water-circles, arigraph+temporal, arigraph+gating, arigraph+bridge,
    /// arigraph+thesis, oracle, full-history, no-memory, level-obs (NetHack only: no
    /// long-term memory, the explored level in every observation, the paper's NetPlay
    /// [Level obs]), summary, rag, simulacra, reflexion.
    #[arg(long, value_delimiter = ',', default_value = "arigraph")]
    pub memory: Vec<String>,
    /// Step cap (default: the reference code's 150 for every game).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: Option<u32>,
    /// Episodes played at once (default: 1 on the embedded model, where more at once
    /// gain nothing on a CPU and change temperature-0 answers; 2 on an endpoint).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Base seed; attempt i sends seed + i with its chat requests.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Bench directory (default: runs/bench-<date>-<time>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Resume an interrupted bench: finished episodes are kept, the rest are played.
    /// The bench's own plan is followed: its games, rows, runs, step cap, seed, shard,
    /// profile, rules, prompts, goal and game options cannot be changed (memory options
    /// given beside it are named in a note as ignored).
    #[arg(long, conflicts_with_all = ["games", "memory", "runs", "max_steps", "seed", "shard", "out", "profile", "without", "prompts", "no_plan_progress", "no_loop_breaking", "no_note", "trials", "no_exploration", "no_go_to", "goal", "goal_file", "show_score", "free_text", "game_timeout"])]
    pub resume: Option<PathBuf>,
    /// Memory and prompt settings.
    #[command(flatten)]
    pub memory_args: MemoryArgs,
    /// Navigation, goal and game settings.
    #[command(flatten)]
    pub game_args: GameArgs,
    /// Endpoint and model.
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// `ariadne bench` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum BenchAction {
    /// Join the outputs of sharded benches (`bench --shard K/N`) into one bench's tables.
    Merge {
        /// The shard directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the merged bench goes.
        #[arg(long)]
        out: PathBuf,
    },
    /// Two benches side by side: scores, then time and tokens per step with the ratio
    /// after / before (Markdown on stdout).
    Compare {
        /// The bench directory of the baseline, or a TALES agent's log directory
        /// (`logs/tales_<agent>`, scored as TALES scores).
        before: PathBuf,
        /// The bench directory (or TALES log directory) to compare with it.
        after: PathBuf,
    },
}

/// Options of `ariadne replay`.
#[derive(Debug, Clone, Args)]
pub struct ReplayArgs {
    /// A run directory (runs/<run-id>).
    pub run: PathBuf,
    /// Stop after step N and print the memory as it stood (triplets, episodes, plan,
    /// unexplored exits).
    #[arg(long)]
    pub step: Option<u32>,
    /// Write the graph at --step (or at the end) as Graphviz DOT or JSON.
    #[arg(long, value_parser = ["dot", "json"])]
    pub export: Option<String>,
    /// Where --export writes (default: <run>/graph-step-N.<dot|json>).
    #[arg(long, requires = "export")]
    pub out: Option<PathBuf>,
    /// Replay steps 1..N from the log, then continue with the live LLM into a new run
    /// directory that records its parent run and step.
    #[arg(long, conflicts_with = "step")]
    pub continue_from: Option<u32>,
    /// Step cap of a continued run (default: the original's).
    #[arg(long, requires = "continue_from", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: Option<u32>,
    /// The profile whose rules a continued run follows after step N (paper or extended;
    /// the replayed steps follow the run's own; settings that are no rule, such as the
    /// cut-off and temperatures, stay the run's).
    #[arg(long, requires = "continue_from")]
    pub profile: Option<String>,
    /// Rules of the extended profile to turn off after the handover (see `play
    /// --without`).
    #[arg(long, requires = "profile")]
    pub without: Option<String>,
    /// What-if: semantic search depth d to recompute retrieval with.
    #[arg(long, help_heading = "What-if")]
    pub depth: Option<u32>,
    /// What-if: semantic search width w.
    #[arg(long, help_heading = "What-if")]
    pub width: Option<usize>,
    /// What-if: episodic vertices retrieved, k (`--episodes` is kept as an alias).
    #[arg(long = "episodic-k", alias = "episodes", help_heading = "What-if")]
    pub episodic_k: Option<usize>,
    /// Print graph statistics per step (semantic vertices, edges, episodic vertices,
    /// additions, removals).
    #[arg(long)]
    pub stats: bool,
    /// Write the graph statistics per step (or, with --accuracy, the accuracy table) to
    /// a CSV file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Print the world model's accuracy per step against the game's true state
    /// (precision, recall, wrong deletions, stale facts), recomputed with no LLM call.
    #[arg(long)]
    pub accuracy: bool,
    /// One line per step.
    #[arg(long, short)]
    pub quiet: bool,
    /// Endpoint and model for --continue-from.
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// Endpoint and model options shared by every command that calls an LLM.
#[derive(Debug, Clone, Args)]
pub struct LlmArgs {
    /// OpenAI-compatible base URL (with /v1). Unset: the embedded local model.
    #[arg(long, env = "OPENAI_BASE_URL", help_heading = "LLM")]
    pub base_url: Option<String>,
    /// Chat model name sent to the endpoint.
    #[arg(long, env = "ARIADNE_MODEL", help_heading = "LLM")]
    pub model: Option<String>,
    /// A chat model per call kind, KIND=MODEL,... (kinds: extraction, outdated,
    /// key-items, explore, plan, action, summary, importance, reflection, lesson,
    /// qa-answer); the others use --model. The reference's split: extraction, outdated,
    /// key-items and explore on one model, plan and action on another.
    #[arg(long, env = "ARIADNE_MODEL_FOR", help_heading = "LLM")]
    pub model_for: Option<String>,
    /// OpenAI-compatible base URL for embeddings. Unset: the embedded e5 server.
    #[arg(long, env = "ARIADNE_EMBED_BASE_URL", help_heading = "LLM")]
    pub embed_base_url: Option<String>,
    /// Embedding model name (remote embeddings only).
    #[arg(long, env = "ARIADNE_EMBED_MODEL", help_heading = "LLM")]
    pub embed_model: Option<String>,
    /// Embedded local chat model (see `ariadne setup --help`).
    #[arg(long, help_heading = "LLM")]
    pub local_model: Option<String>,
    /// How structured answers are requested: schema, object or none.
    #[arg(long, value_parser = parse_from_str::<JsonMode>, help_heading = "LLM")]
    pub json_mode: Option<JsonMode>,
    /// Sampling temperature (0 to 2) of every call. Without it each call takes the
    /// reference's: 0 extraction and outdated check, 0.2 plan, action and exploration
    /// check (the action 1 for a design without exploration), 0.6 summary, 0.4
    /// importance, 0.7 the rest.
    #[arg(long, value_parser = parse_temperature, help_heading = "LLM")]
    pub temperature: Option<f32>,
    /// Seconds one try of a request may take, at most the retry budget (default: half
    /// of --retry-budget, so a hung endpoint is tried again).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "LLM")]
    pub llm_timeout: Option<u64>,
    /// Total seconds one request may spend retrying rate limits (429), busy servers
    /// (5xx), timeouts and dropped connections, with exponential backoff (default 300,
    /// 1200 for the embedded local model, or twice --llm-timeout when that is more; 0:
    /// no retries).
    #[arg(long, help_heading = "LLM")]
    pub retry_budget: Option<u64>,
    /// Context window of the embedded local model, tokens (shared by its slots).
    #[arg(long, help_heading = "LLM")]
    pub ctx: Option<u32>,
    /// CPU threads for the embedded local servers.
    #[arg(long, help_heading = "LLM")]
    pub threads: Option<u32>,
    /// Keep maxLength bounds in JSON schemas sent to a remote endpoint (llama.cpp, vLLM).
    #[arg(long, help_heading = "LLM")]
    pub length_limits: bool,
    /// Config file (TOML). Default: ./ariadne.toml if it exists.
    #[arg(long, help_heading = "LLM")]
    pub config: Option<PathBuf>,
}

/// Options of `ariadne play`.
#[derive(Debug, Clone, Args)]
pub struct PlayArgs {
    /// A .z8 game path (its .json sidecar beside it), a bundled game name
    /// (games/NAME.z8), a TextWorld-Express game: twx:<game>[?seed=N&key=value...], a
    /// ScienceWorld task: scienceworld:<task>[?variation=N&simplification=S], a
    /// game of the authors' suite: `arigraph-paper:NAME[@DIR]`, a z-machine story file
    /// played through Jericho (.z3, .z5, ...; jericho:PATH for a human-written .z8), or
    /// NetHack: nethack[?seed=S&character=C&obs=room|level].
    pub game: String,
    /// Play as the agent of an older revision (1-8), with the settings runs recorded
    /// before profiles had: for the replay fixtures that hold old revisions still.
    #[arg(long, hide = true, conflicts_with = "profile")]
    pub legacy_agent: Option<u32>,
    /// Play with the memory of an older memory-rules version (1-4), as runs recorded
    /// before profiles had it (see `--legacy-agent`).
    #[arg(long, hide = true, conflicts_with = "profile")]
    pub legacy_memory: Option<u32>,
    /// Play the game's walkthrough instead of the agent (no LLM); exit 1 unless it wins.
    #[arg(long)]
    pub walkthrough: bool,
    /// Step cap (the reference code's 150).
    #[arg(long, default_value_t = crate::env::suite::STEP_CAP, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: u32,
    /// Seed sent with every chat request (where the endpoint supports it).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where run directories are written.
    #[arg(long, default_value = "runs")]
    pub runs_dir: PathBuf,
    /// Memory design: arigraph, arigraph-no-episodic, oracle, full-history, no-memory,
    /// summary, rag, simulacra, reflexion (default arigraph). With --walkthrough: the walkthrough drives this memory (no
    /// plan or action call) and the world model is measured at every step.
    #[arg(long, value_parser = parse_design, help_heading = "Memory")]
    pub memory: Option<MemoryDesign>,
    /// Memory and prompt settings.
    #[command(flatten)]
    pub memory_args: MemoryArgs,
    /// Navigation, goal and game settings.
    #[command(flatten)]
    pub game_args: GameArgs,
    /// One line per step instead of the full view.
    #[arg(long, short)]
    pub quiet: bool,
    /// Endpoint and model.
    #[command(flatten)]
    pub llm: LlmArgs,
}

/// A sampling temperature: a number from 0 to 2.
fn parse_temperature(s: &str) -> Result<f32, String> {
    let t: f32 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    crate::llm::check_temperature(t)
}

fn parse_design(s: &str) -> Result<MemoryDesign, String> {
    crate::rows::design(s).map_err(|e| e.to_string())
}

fn parse_from_str<T: std::str::FromStr<Err = String>>(s: &str) -> Result<T, String> {
    s.parse()
}

#[cfg(test)]
mod tests;
