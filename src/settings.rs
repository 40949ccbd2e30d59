//! Settings resolved once, for every command, from flags, environment variables
//! (through clap), the config file and defaults, in that order of precedence, each value
//! checked whatever its source. The rest of the program sees only the resolved types
//! ([`LlmSettings`](crate::llm::connect::LlmSettings), [`MemorySettings`](crate::memory::MemorySettings), [`AgentSettings`], [`EpisodeConfig`](crate::episode::EpisodeConfig)), never
//! clap's.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use serde::Deserialize;

use crate::agent::AgentSettings;
use crate::cli::{GameArgs, MemoryArgs};
use crate::error::UserError;
use crate::llm::JsonMode;
use crate::memory::vertex_kind::parse_exclude;
use crate::memory::{HopScope, MemorySettings, OutdatedScope, Retire, Strategy, VertexKind};
use crate::profile::Rules;
use crate::trajectory::Goal;
use options::MemoryOption;

/// The longest retry budget accepted, seconds (a day).
pub const MAX_RETRY_BUDGET_S: u64 = 86_400;

/// The config file's keys (all optional); flags and environment variables override them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// See `--base-url`.
    pub base_url: Option<String>,
    /// See `--model`.
    pub model: Option<String>,
    /// See `--model-for`: a table of call kind to model (`[model_for]`, `plan = "A"`).
    pub model_for: Option<std::collections::BTreeMap<String, String>>,
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
    /// See `--retry-budget`.
    pub retry_budget: Option<u64>,
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
    /// See `--episodic-k` (`episodes`, its name before, is read as well).
    #[serde(alias = "episodes")]
    pub episodic_k: Option<usize>,
    /// See `--hop-scope`.
    pub hop_scope: Option<HopScope>,
    /// See `--retrieval`.
    pub retrieval: Option<Strategy>,
    /// See `--retire`.
    pub retire: Option<Retire>,
    /// See `--gating`.
    pub gating: Option<bool>,
    /// See `--bridge`.
    pub bridge: Option<bool>,
    /// See `--thesis`.
    pub thesis: Option<bool>,
    /// See `--exclude` (a list of names: `exclude = ["episodic"]`).
    pub exclude: Option<Vec<String>>,
    /// `false`: see `--no-exploration`.
    pub exploration: Option<bool>,
    /// `false`: see `--no-go-to`.
    pub go_to: Option<bool>,
    /// See `--prompts`.
    pub prompts: Option<PathBuf>,
    /// See `--show-score`.
    pub show_score: Option<bool>,
    /// See `--free-text`.
    pub free_text: Option<bool>,
    /// `false`: see `--no-plan-progress`.
    pub plan_progress: Option<bool>,
    /// `false`: see `--no-loop-breaking`.
    pub loop_breaking: Option<bool>,
    /// `false`: see `--no-note`.
    pub show_note: Option<bool>,
    /// See `--profile` (one name; `bench` also takes a list: `["paper", "extended"]`).
    pub profile: Option<ProfileKey>,
    /// See `--without` (a list of rule names).
    pub without: Option<Vec<String>>,
    /// See `--cutoff`.
    pub cutoff: Option<f32>,
}

/// The config file's `profile`: one name or a list.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "a profile name or a list of names (profile = \"extended\", or profile = [\"paper\", \"extended\"])"
)]
pub enum ProfileKey {
    /// `profile = "extended"`.
    One(String),
    /// `profile = ["paper", "extended"]`.
    Many(Vec<String>),
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
            // One line: the reason and where, not TOML's caret block.
            let at = e
                .span()
                .map(|s| text.get(..s.start).unwrap_or(&text).lines().count().max(1));
            // The key of that line, so that a type error names what it is about.
            let key = at
                .and_then(|n| text.lines().nth(n - 1))
                .and_then(|l| l.split_once('='))
                .map(|(k, _)| k.trim())
                .filter(|k| !k.is_empty() && !k.starts_with('['))
                .map(|k| format!(", key {k}"))
                .unwrap_or_default();
            let line = at.map(|n| format!(" (line {n}{key})")).unwrap_or_default();
            UserError::new(format!(
                "invalid config file {}{line}: {}",
                path.display(),
                e.message().trim()
            ))
            .into()
        })
    }
}

mod given;
mod llm;
pub mod options;
mod profiles;

/// The one resolver: the config file, and the rules that merge it with flags.
#[derive(Debug, Default)]
pub struct Resolver {
    cfg: ConfigFile,
}

impl Resolver {
    /// Read the config file (`--config FILE`, else `./ariadne.toml` if present).
    ///
    /// # Errors
    /// An unreadable or invalid file.
    pub fn load(config: Option<&Path>) -> Result<Self> {
        Ok(Self {
            cfg: ConfigFile::load(config)?,
        })
    }

    /// Memory parameters (`--depth`, `--width`, `--episodic-k`, `--outdated-scope`,
    /// `--hop-scope`, `--retrieval`, `--retire`, `--gating`, `--bridge`, `--thesis`,
    /// `--exclude`, `--cutoff`) and the memory's side of `rules`
    /// ([`crate::agent::AgentSettings::follow`], [`crate::memory::MemorySettings::follow`]),
    /// checked for a run whose rows are `rows` (`play` has one), with the navigation
    /// switches of `game` (`None` in `ariadne qa`).
    ///
    /// Returns the settings and a note for each option some rows ignore.
    ///
    /// # Errors
    /// A value out of range; an unknown vertex kind in `--exclude`, or all three;
    /// `--exclude object` or `--exclude thesis` for a row without thesis vertices; an
    /// option no row reads ([`options::check`]). Each names the flag or config key it
    /// came from.
    pub fn memory(
        &self,
        args: &MemoryArgs,
        game: Option<&GameArgs>,
        rules: &Rules,
        rows: &[options::Row],
    ) -> Result<(MemorySettings, Vec<String>)> {
        let given = self.memory_given(args, game);
        let source = |o: MemoryOption| source_of(&given, o);
        let cutoff_given = args.cutoff.or(self.cfg.cutoff);
        let mut m = self.memory_read(args, cutoff_given, &source)?;
        m.follow(rules);
        // An option no row reads is the first thing to say; then a value out of range.
        let mut notes = options::check(&given, rows, &m)?;
        check_ranges(&m, cutoff_given, &source)?;
        notes.extend(check_exclude(&m, rows, &source(MemoryOption::Exclude))?);
        Ok((m, notes))
    }

    /// The memory settings as given (flag, then config file, then default), unchecked
    /// but for `--exclude`'s names.
    ///
    /// # Errors
    /// An unknown vertex kind in `--exclude`, or all three.
    fn memory_read(
        &self,
        args: &MemoryArgs,
        cutoff_given: Option<f32>,
        source: &dyn Fn(MemoryOption) -> String,
    ) -> Result<MemorySettings> {
        let cfg = &self.cfg;
        let d = MemorySettings::default();
        let cutoff = match cutoff_given {
            None => d.cutoff,
            Some(c) => Some(c).filter(|c| *c > 0.0),
        };
        Ok(MemorySettings {
            cutoff,
            depth: args.depth.or(cfg.depth).unwrap_or(d.depth),
            width: args.width.or(cfg.width).unwrap_or(d.width),
            episodes: args.episodic_k.or(cfg.episodic_k).unwrap_or(d.episodes),
            outdated_scope: args
                .outdated_scope
                .or(cfg.outdated_scope)
                .unwrap_or(d.outdated_scope),
            hop_scope: args.hop_scope.or(cfg.hop_scope).unwrap_or(d.hop_scope),
            retrieval: args.retrieval.or(cfg.retrieval).unwrap_or(d.retrieval),
            retire: args.retire.or(cfg.retire).unwrap_or(d.retire),
            gating: args.gating || cfg.gating.unwrap_or(d.gating),
            bridge: args.bridge || cfg.bridge.unwrap_or(d.bridge),
            thesis: args.thesis || cfg.thesis.unwrap_or(d.thesis),
            exclude: match (&args.exclude, &cfg.exclude) {
                (Some(list), _) => parse_exclude([list.as_str()]),
                (None, Some(items)) => parse_exclude(items.iter().map(String::as_str)),
                (None, None) => Ok(d.exclude.clone()),
            }
            .map_err(|e| UserError::new(format!("{}: {e}", source(MemoryOption::Exclude))))?,
            ..d
        })
    }

    /// Agent switches (`--no-exploration`, `--no-go-to`, `--show-score`) and the
    /// agent's side of `rules` ([`crate::agent::AgentSettings::follow`], [`crate::memory::MemorySettings::follow`]).
    pub fn agent(&self, args: &GameArgs, rules: &Rules) -> AgentSettings {
        AgentSettings {
            exploration: !args.no_exploration && self.cfg.exploration.unwrap_or(true),
            go_to: !args.no_go_to && self.cfg.go_to.unwrap_or(true),
            show_score: args.show_score || self.cfg.show_score.unwrap_or(false),
            free_text: args.free_text || self.cfg.free_text.unwrap_or(false),
            ..AgentSettings::with_rules(rules)
        }
    }

    /// The prompt directory override (`--prompts`).
    pub fn prompts(&self, args: &MemoryArgs) -> Option<PathBuf> {
        args.prompts.clone().or_else(|| self.cfg.prompts.clone())
    }

    /// The goal given with `--goal` or `--goal-file`, if any.
    ///
    /// # Errors
    /// An unreadable or empty goal file, an empty `--goal`.
    pub fn goal(&self, args: &GameArgs) -> Result<Option<Goal>> {
        let goal = match (&args.goal, &args.goal_file) {
            (Some(text), _) => Some(Goal {
                text: text.trim().to_string(),
                source: "flag".into(),
            }),
            (None, Some(path)) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    UserError::new(format!("cannot read the goal file {}: {e}", path.display()))
                })?;
                Some(Goal {
                    text: text.trim().to_string(),
                    source: format!("file:{}", path.display()),
                })
            }
            (None, None) => None,
        };
        if goal.as_ref().is_some_and(|g| g.text.is_empty()) {
            bail!(UserError::new(
                "the goal is empty; give a text with --goal or a non-empty --goal-file"
            ));
        }
        Ok(goal)
    }
}

/// The flag or config key an option came from (its flag when not given).
fn source_of(given: &[options::Given], o: MemoryOption) -> String {
    given
        .iter()
        .find(|g| g.option == o)
        .map_or_else(|| o.flag().to_string(), ToString::to_string)
}

/// The cut-off within 0-1, and d, w and k within their ranges.
///
/// # Errors
/// A value out of range, named by where it came from.
fn check_ranges(
    m: &MemorySettings,
    cutoff_given: Option<f32>,
    source: &dyn Fn(MemoryOption) -> String,
) -> Result<()> {
    if let Some(c) = cutoff_given.filter(|c| !(c.is_finite() && (0.0..=1.0).contains(c))) {
        bail!(UserError::new(format!(
            "{}: {c} is not between 0 and 1 (0 turns it off)",
            source(MemoryOption::Cutoff)
        )));
    }
    let ranges = [
        (MemoryOption::Depth, m.depth as usize, MemorySettings::DEPTH),
        (MemoryOption::Width, m.width, MemorySettings::WIDTH),
        (
            MemoryOption::EpisodicK,
            m.episodes,
            MemorySettings::EPISODES,
        ),
    ];
    for (o, value, range) in ranges {
        if !range.contains(&value) {
            bail!(UserError::new(format!(
                "{}: {value} is not between {} and {}",
                source(o),
                range.start(),
                range.end()
            )));
        }
    }
    Ok(())
}

/// `--exclude` (given as `exclude`) against the rows that read it: without thesis
/// vertices an episode is found through its facts only, so with the object vertices
/// excluded nothing at all would be retrieved; and there are no theses to leave out.
/// Returns the note for rows that ignore `--exclude thesis`.
///
/// # Errors
/// `object` or `thesis` excluded where no row has thesis vertices.
fn check_exclude(m: &MemorySettings, rows: &[options::Row], exclude: &str) -> Result<Vec<String>> {
    let reading: Vec<&options::Row> = rows
        .iter()
        .filter(|r| r.reads.contains(&MemoryOption::Exclude))
        .collect();
    let thesisless: Vec<&str> = reading
        .iter()
        .filter(|r| !(m.thesis || r.thesis()))
        .map(|r| r.name.as_str())
        .collect();
    let Some(first) = thesisless.first() else {
        return Ok(Vec::new());
    };
    let at = if rows.len() > 1 {
        format!("row {first}: ")
    } else {
        String::new()
    };
    if m.excludes(VertexKind::Object) {
        bail!(UserError::new(format!(
            "{at}{exclude}: object needs thesis vertices (--thesis): without object vertices, episodes are found through theses, and without theses nothing would be retrieved"
        )));
    }
    if m.excludes(VertexKind::Thesis) && thesisless.len() == reading.len() {
        bail!(UserError::new(format!(
            "{at}{exclude}: thesis changes nothing without thesis vertices (--thesis): there are none to leave out"
        )));
    }
    if m.excludes(VertexKind::Thesis) {
        return Ok(vec![format!(
            "{exclude} thesis is ignored by the row{} {}: no thesis vertices",
            if thesisless.len() == 1 { "" } else { "s" },
            thesisless.join(", ")
        )]);
    }
    Ok(Vec::new())
}
