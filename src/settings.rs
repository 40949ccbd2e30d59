//! Settings resolved once from flags, environment variables (through clap), the config
//! file and defaults, in that order of precedence. The rest of the program sees only
//! these types.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::agent::AgentSettings;
use crate::cli::{LlmArgs, PlayArgs};
use crate::error::UserError;
use crate::llm::JsonMode;
use crate::memory::{MemoryDesign, MemorySettings, OutdatedScope};
use crate::pyenv::{self, LocalModel};

/// The config file's keys (all optional); flags and environment variables override them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// See `--base-url`.
    pub base_url: Option<String>,
    /// See `--model`.
    pub model: Option<String>,
    /// See `--embed-base-url`.
    pub embed_base_url: Option<String>,
    /// See `--embed-model`.
    pub embed_model: Option<String>,
    /// See `--local-model`.
    pub local_model: Option<String>,
    /// See `--json-mode`.
    pub json_mode: Option<JsonMode>,
    /// See `--temperature`.
    pub temperature: Option<f32>,
    /// See `--llm-timeout`.
    pub llm_timeout: Option<u64>,
    /// See `--ctx`.
    pub ctx: Option<u32>,
    /// See `--threads`.
    pub threads: Option<u32>,
    /// See `--length-limits`.
    pub length_limits: Option<bool>,
    /// See `--outdated-scope`.
    pub outdated_scope: Option<OutdatedScope>,
    /// See `--depth`.
    pub depth: Option<u32>,
    /// See `--width`.
    pub width: Option<usize>,
    /// See `--episodes`.
    pub episodes: Option<usize>,
}

impl ConfigFile {
    /// Read `path`, or `./ariadne.toml` when `path` is `None` and that file exists.
    ///
    /// # Errors
    /// An unreadable or invalid file, as a [`UserError`] naming it.
    pub fn load(path: Option<&Path>) -> Result<Self> {
        let (path, required) = match path {
            Some(p) => (p.to_path_buf(), true),
            None => (PathBuf::from("ariadne.toml"), false),
        };
        if !required && !path.exists() {
            return Ok(Self::default());
        }
        let text = std::fs::read_to_string(&path).map_err(|e| {
            UserError::new(format!(
                "cannot read the config file {}: {e}",
                path.display()
            ))
        })?;
        toml::from_str(&text).map_err(|e| {
            UserError::new(format!("invalid config file {}: {e}", path.display())).into()
        })
    }
}

/// Resolved LLM settings.
#[derive(Debug, Clone, Serialize)]
pub struct LlmSettings {
    /// Remote chat base URL; `None` means the embedded local model.
    pub base_url: Option<String>,
    /// Chat model name (the local model's name when embedded).
    pub model: String,
    /// API key from `OPENAI_API_KEY` (never serialized).
    #[serde(skip)]
    pub api_key: Option<String>,
    /// Remote embedding base URL; `None` means the embedded e5 server.
    pub embed_base_url: Option<String>,
    /// Remote embedding model.
    pub embed_model: String,
    /// API key for embeddings (`ARIADNE_EMBED_API_KEY`, else `OPENAI_API_KEY`).
    #[serde(skip)]
    pub embed_api_key: Option<String>,
    /// The embedded local model (used when `base_url` is `None`).
    #[serde(skip)]
    pub local_model: &'static LocalModel,
    /// Structured output mode.
    pub json_mode: JsonMode,
    /// Sampling temperature.
    pub temperature: f32,
    /// Request timeout, seconds.
    pub timeout_s: u64,
    /// Local context window, tokens.
    pub ctx: u32,
    /// Local server threads.
    pub threads: u32,
    /// Keep `maxLength` in schemas sent to a remote endpoint (always kept locally).
    pub length_limits: bool,
}

impl LlmSettings {
    /// Resolve from flags/env and the config file.
    ///
    /// # Errors
    /// An unknown local model name.
    pub fn resolve(args: &LlmArgs, cfg: &ConfigFile) -> Result<Self> {
        let nonempty = |s: &Option<String>| s.clone().filter(|v| !v.trim().is_empty());
        let base_url = nonempty(&args.base_url).or_else(|| nonempty(&cfg.base_url));
        let check_url = |what: &str, url: &Option<String>| -> Result<()> {
            match url {
                Some(u) if !(u.starts_with("http://") || u.starts_with("https://")) => {
                    Err(UserError::new(format!(
                        "{what} {u:?} is not an http(s) URL; give one like http://127.0.0.1:8080/v1"
                    ))
                    .into())
                }
                _ => Ok(()),
            }
        };
        check_url("--base-url / OPENAI_BASE_URL", &base_url)?;
        let local_name = args
            .local_model
            .clone()
            .or_else(|| cfg.local_model.clone())
            .unwrap_or_else(|| pyenv::LOCAL_MODELS[0].name.to_string());
        let local_model = pyenv::local_model(&local_name)?;
        let model = args
            .model
            .clone()
            .or_else(|| cfg.model.clone())
            .unwrap_or_else(|| {
                if base_url.is_some() {
                    "gpt-4o-mini".to_string()
                } else {
                    local_model.name.to_string()
                }
            });
        let api_key = std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|k| !k.is_empty());
        let embed_api_key = std::env::var("ARIADNE_EMBED_API_KEY")
            .ok()
            .filter(|k| !k.is_empty())
            .or_else(|| api_key.clone());
        let cores = std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(2);
        let embed_base_url =
            nonempty(&args.embed_base_url).or_else(|| nonempty(&cfg.embed_base_url));
        check_url("--embed-base-url / ARIADNE_EMBED_BASE_URL", &embed_base_url)?;
        Ok(Self {
            base_url,
            model,
            api_key,
            embed_base_url,
            embed_model: args
                .embed_model
                .clone()
                .or_else(|| cfg.embed_model.clone())
                .unwrap_or_else(|| "text-embedding-3-small".into()),
            embed_api_key,
            local_model,
            json_mode: args.json_mode.or(cfg.json_mode).unwrap_or(JsonMode::Schema),
            temperature: args.temperature.or(cfg.temperature).unwrap_or(0.0),
            timeout_s: args.llm_timeout.or(cfg.llm_timeout).unwrap_or(600),
            ctx: args.ctx.or(cfg.ctx).unwrap_or(16384),
            threads: args.threads.or(cfg.threads).unwrap_or(cores),
            length_limits: args.length_limits || cfg.length_limits.unwrap_or(false),
        })
    }

    /// True when the chat model is the embedded local one.
    pub fn embedded_chat(&self) -> bool {
        self.base_url.is_none()
    }
}

/// Resolved settings of `ariadne play`.
#[derive(Debug, Clone)]
pub struct PlaySettings {
    /// The game file.
    pub game: PathBuf,
    /// Step cap.
    pub max_steps: u32,
    /// Chat seed.
    pub seed: u64,
    /// Runs directory.
    pub runs_dir: PathBuf,
    /// Memory parameters.
    pub memory: MemorySettings,
    /// Prompt directory override.
    pub prompts: Option<PathBuf>,
    /// Compact output.
    pub quiet: bool,
    /// LLM settings.
    pub llm: LlmSettings,
    /// Agent settings (exploration and `go to` switches).
    pub agent: AgentSettings,
    /// Memory design.
    pub design: MemoryDesign,
    /// Reflexion trials.
    pub trials: u32,
}

impl PlaySettings {
    /// The game and agent part of the settings.
    pub fn game_config(&self) -> crate::play::GameConfig {
        crate::play::GameConfig {
            game: self.game.clone(),
            max_steps: self.max_steps,
            seed: self.seed,
            design: self.design,
            memory: self.memory.clone(),
            trials: self.trials,
            agent: self.agent.clone(),
            prompts: self.prompts.clone(),
        }
    }

    /// Resolve `ariadne play` arguments.
    ///
    /// # Errors
    /// A bad config file or local model name.
    pub fn resolve(args: &PlayArgs) -> Result<Self> {
        let cfg = ConfigFile::load(args.llm.config.as_deref())?;
        let defaults = MemorySettings::default();
        let memory = MemorySettings {
            depth: args.depth.or(cfg.depth).unwrap_or(defaults.depth),
            width: args.width.or(cfg.width).unwrap_or(defaults.width),
            episodes: args.episodes.or(cfg.episodes).unwrap_or(defaults.episodes),
            outdated_scope: args
                .outdated_scope
                .or(cfg.outdated_scope)
                .unwrap_or(defaults.outdated_scope),
            ..defaults
        };
        Ok(Self {
            game: resolve_game(&args.game),
            max_steps: args.max_steps,
            seed: args.seed,
            runs_dir: args.runs_dir.clone(),
            memory,
            prompts: args.prompts.clone(),
            quiet: args.quiet,
            llm: LlmSettings::resolve(&args.llm, &cfg).context("resolving the LLM settings")?,
            design: args.memory,
            trials: args.trials,
            agent: AgentSettings {
                exploration: !args.no_exploration,
                go_to: !args.no_go_to,
                ..AgentSettings::default()
            },
        })
    }
}

/// Where bundled games live: `./games`, else the source tree's `games/`.
pub fn games_dirs() -> Vec<PathBuf> {
    vec![
        PathBuf::from("games"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("games"),
    ]
}

/// A game argument as a path: an existing file as given; else `games/NAME.z8` (or
/// `games/NAME` when it already ends in .z8) in [`games_dirs`]; else the argument as given
/// (the caller reports it missing).
pub fn resolve_game(arg: &str) -> PathBuf {
    let direct = PathBuf::from(arg);
    if direct.is_file() {
        return direct;
    }
    let file = if arg.ends_with(".z8") {
        arg.to_string()
    } else {
        format!("{arg}.z8")
    };
    for dir in games_dirs() {
        let p = dir.join(&file);
        if p.is_file() {
            return p;
        }
    }
    direct
}
