//! The environment seam: a text game the agent observes and acts in.
//!
//! [`Environment`] is what the episode engine drives (reset, step, close). Two families
//! of games sit behind it, both run by a Python bridge subprocess speaking the same JSON
//! lines protocol ([`bridge`]):
//! - [`textworld`]: Microsoft TextWorld `.z8` games with their `.json` sidecar;
//! - [`twx`]: TextWorld-Express games (CookingWorld, Coin Collector, TextWorld
//!   Commonsense, ...), named `twx:<game>[?key=value&...]`;
//! - [`jericho`]: human-written z-machine games (`.z3`, `.z5`, ..., or `jericho:PATH`);
//! - [`nethack`]: NetHack through NLE (`nethack[?seed=S&character=C&obs=room|level]`).
//!
//! [`crate::pyenv`] installs the bridges' Python side; [`games`] makes and lists the paper's
//! game families.

pub mod bridge;
mod environment;
pub mod games;
pub mod grammar;
pub mod harness;
pub mod jericho;
pub mod nethack;
pub mod scienceworld;
pub mod suite;
pub mod textworld;
pub mod twx;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use bridge::BridgeEnv;
pub use environment::{EnvError, Environment, Fact, GameState};
pub use grammar::CommandGrammar;

/// Which game to play: a TextWorld file or a TextWorld-Express game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum GameSpec {
    /// A TextWorld `.z8` game (its `.json` sidecar beside it).
    TextWorld(PathBuf),
    /// A TextWorld-Express game.
    Twx(twx::TwxGame),
    /// A game of the authors' suite (`arigraph-paper:NAME@DIR`), played and scored as
    /// the reference code does ([`suite`]).
    Suite(suite::SuiteSpec),
    /// A z-machine story file played through Jericho ([`jericho`]).
    Jericho(PathBuf),
    /// NetHack through NLE ([`nethack`]).
    NetHack(nethack::NetHackGame),
    /// A game a harness plays, its observations sent to `ariadne agent` ([`harness`]).
    Harness(harness::HarnessGame),
    /// A ScienceWorld task ([`scienceworld`]).
    ScienceWorld(scienceworld::SwGame),
}

impl GameSpec {
    /// Parse a game argument: `twx:<game>[?k=v&...]`, an existing file, or a bundled game
    /// name (`games/NAME.z8` in [`games_dirs`]).
    ///
    /// # Errors
    /// A malformed `twx:` specification.
    pub fn parse(arg: &str) -> Result<Self, EnvError> {
        Self::prefixed(arg).unwrap_or_else(|| Ok(GameSpec::of_file(resolve_game(arg))))
    }

    /// A game file: a z-machine story file by its extension (`.z5`, ...) through
    /// Jericho, else TextWorld's.
    pub fn of_file(path: PathBuf) -> Self {
        if jericho::is_story_file(&path) {
            GameSpec::Jericho(path)
        } else {
            GameSpec::TextWorld(path)
        }
    }

    /// A specification with a prefix (`twx:`, `arigraph-paper:`); `None` for a
    /// TextWorld file or name.
    fn prefixed(s: &str) -> Option<Result<Self, EnvError>> {
        if let Some(rest) = s.strip_prefix(twx::PREFIX) {
            return Some(twx::TwxGame::parse(rest).map(GameSpec::Twx));
        }
        if let Some(rest) = s.strip_prefix(scienceworld::PREFIX) {
            return Some(scienceworld::SwGame::parse(rest).map(GameSpec::ScienceWorld));
        }
        if let Some(rest) = s.strip_prefix(harness::PREFIX) {
            return Some(harness::HarnessGame::parse(rest).map(GameSpec::Harness));
        }
        if nethack::NetHackGame::is_spec(s) {
            return Some(nethack::NetHackGame::parse(s).map(GameSpec::NetHack));
        }
        if let Some(rest) = s.strip_prefix(jericho::PREFIX) {
            if rest.trim().is_empty() {
                return Some(Err(EnvError::BadSpec(
                    "jericho:: it names no file (write jericho:PATH)".into(),
                )));
            }
            return Some(Ok(GameSpec::Jericho(PathBuf::from(rest))));
        }
        s.strip_prefix(suite::SUITE)
            .and_then(|r| r.strip_prefix(':'))
            .map(|rest| suite::SuiteSpec::parse(rest).map(GameSpec::Suite))
    }

    /// A short name for run directories and tables (`simple`, `twx-coin-s3`).
    pub fn name(&self) -> String {
        match self {
            GameSpec::TextWorld(p) | GameSpec::Jericho(p) => p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            GameSpec::Twx(g) => g.short_name(),
            GameSpec::Suite(s) => format!("{}-{}", suite::SUITE, s.game.name()),
            GameSpec::NetHack(g) => g.short_name(),
            GameSpec::Harness(g) => g.short_name(),
            GameSpec::ScienceWorld(g) => g.short_name(),
        }
    }

    /// What is played, whatever the spelling: a file's canonical path (`coin` and
    /// `games/coin.z8` are one game), a TextWorld-Express game with the bridge's defaults
    /// filled in ([`twx::TwxGame::identity`]), a NetHack or suite game as written out.
    /// Two specifications with the same identity play the same game.
    pub fn identity(&self) -> String {
        match self {
            GameSpec::TextWorld(p) | GameSpec::Jericho(p) => std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string(),
            GameSpec::Twx(g) => g.identity(),
            GameSpec::ScienceWorld(g) => format!("{}{}", scienceworld::PREFIX, g.identity()),
            GameSpec::Suite(_) | GameSpec::NetHack(_) | GameSpec::Harness(_) => self.to_string(),
        }
    }

    /// The family the paper's step caps depend on ("cooking" games get 60). A suite
    /// game is played as the reference plays it (its own task text, a cap of 150).
    pub fn is_cooking(&self) -> bool {
        match self {
            GameSpec::TextWorld(_) => self.name().to_lowercase().contains("cook"),
            GameSpec::Twx(g) => g.game.contains("cook"),
            GameSpec::Suite(_)
            | GameSpec::Jericho(_)
            | GameSpec::NetHack(_)
            | GameSpec::Harness(_)
            | GameSpec::ScienceWorld(_) => false,
        }
    }

    /// Whether the reference treats the game as a Cooking game, whose `cook` commands it
    /// rewrites (`pipeline_arigraph.py:109`: `"cook" in env_name`): a TextWorld or
    /// TextWorld-Express cooking game, or one of the authors' Cooking games.
    pub fn reference_cooking(&self) -> bool {
        match self {
            GameSpec::Suite(g) => g.game.name().contains("cook"),
            GameSpec::TextWorld(_) | GameSpec::Twx(_) => self.is_cooking(),
            GameSpec::Jericho(_)
            | GameSpec::NetHack(_)
            | GameSpec::Harness(_)
            | GameSpec::ScienceWorld(_) => false,
        }
    }

    /// The step cap this game has by default: the reference code's 150 for every game
    /// (`pipeline_arigraph.py`: `max_steps`; the paper's text gives no cap per family).
    pub fn default_step_cap(&self) -> u32 {
        suite::STEP_CAP
    }

    /// The command language of the game's family ([`CommandGrammar`]); `None` for
    /// NetHack (played by skills); a harness's game by its name (TALES's
    /// `TWXCoinCollector`), and its reset may name another.
    pub fn grammar(&self) -> Option<CommandGrammar> {
        match self {
            GameSpec::TextWorld(_) => Some(CommandGrammar::TextWorld),
            GameSpec::Suite(s) if s.game.is_jericho() => Some(CommandGrammar::InteractiveFiction),
            GameSpec::Suite(_) => Some(CommandGrammar::TextWorld),
            GameSpec::Twx(_) => Some(CommandGrammar::TextworldExpress),
            GameSpec::Jericho(_) => Some(CommandGrammar::InteractiveFiction),
            GameSpec::ScienceWorld(_) => Some(CommandGrammar::ScienceWorld),
            GameSpec::Harness(h) => CommandGrammar::of_game_name(&h.name),
            GameSpec::NetHack(_) => None,
        }
    }

    /// Check that the game exists before any process is started.
    ///
    /// # Errors
    /// [`EnvError::MissingGame`] or [`EnvError::MissingSidecar`].
    pub fn check(&self) -> Result<(), EnvError> {
        match self {
            GameSpec::TextWorld(p) => textworld::check_game(p),
            GameSpec::Twx(g) => g.check(),
            GameSpec::Suite(s) if s.game.is_jericho() => {
                s.check().and_then(|()| jericho::check_game(s.path()))
            }
            GameSpec::Suite(s) => s.check().and_then(|()| textworld::check_game(s.path())),
            GameSpec::Jericho(p) => jericho::check_game(p),
            GameSpec::ScienceWorld(g) => g.check(),
            GameSpec::NetHack(_) | GameSpec::Harness(_) => Ok(()),
        }
    }

    /// The TextWorld file, if this is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            GameSpec::TextWorld(p) | GameSpec::Jericho(p) => Some(p),
            GameSpec::Twx(_)
            | GameSpec::NetHack(_)
            | GameSpec::Harness(_)
            | GameSpec::ScienceWorld(_) => None,
            GameSpec::Suite(s) => Some(s.path()),
        }
    }

    /// Start the game's bridge (stderr to `log`) with the Python environment `py`; a
    /// command the game does not answer within `timeout` ends the episode
    /// ([`EnvError::Timeout`]).
    ///
    /// # Errors
    /// The bridge cannot be started.
    pub async fn start(
        &self,
        py: &crate::pyenv::PyEnv,
        log: &Path,
        timeout: std::time::Duration,
    ) -> Result<Box<dyn Environment>, EnvError> {
        self.check()?;
        let canonical = |p: &PathBuf| {
            std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string()
        };
        let (script, game) = match self {
            GameSpec::TextWorld(p) => (py.bridge_script(), canonical(p)),
            GameSpec::Suite(s) if s.game.is_jericho() => (py.jericho_script(), canonical(&s.file)),
            GameSpec::Suite(s) => (py.bridge_script(), s.path().display().to_string()),
            GameSpec::Twx(_) => (py.twx_script(), self.to_string()),
            GameSpec::Jericho(p) => (py.jericho_script(), canonical(p)),
            GameSpec::NetHack(g) => (py.nethack_script(), g.to_string()),
            GameSpec::ScienceWorld(_) => (py.scienceworld_script(), self.to_string()),
            // No bridge: the harness on stdin and stdout, its lines kept beside the log.
            GameSpec::Harness(_) => {
                let dir = log.parent().unwrap_or(Path::new("."));
                let mut env = harness::HarnessEnv::stdio(&harness::record_in(dir))?;
                env.grammar = self.grammar();
                return Ok(Box::new(env));
            }
        };
        let mut env = BridgeEnv::start(&py.python, &script, log, game, self.to_string()).await?;
        env.step_timeout = timeout;
        env.grammar = self.grammar();
        Ok(match self {
            GameSpec::Suite(s) => Box::new(suite::SuiteEnv::new(Box::new(env), s.game)),
            _ => Box::new(env),
        })
    }
}

impl crate::pyenv::Needs {
    /// These needs, and what playing `games` needs (TextWorld-Express, Jericho).
    pub fn with_games<'a>(mut self, games: impl IntoIterator<Item = &'a GameSpec>) -> Self {
        for g in games {
            match g {
                GameSpec::Twx(_) => self.twx = true,
                GameSpec::ScienceWorld(_) => self.scienceworld = true,
                GameSpec::Jericho(_) => self.jericho = true,
                GameSpec::NetHack(_) => self.nethack = true,
                GameSpec::Suite(s) if s.game.is_jericho() => self.jericho = true,
                _ => {}
            }
        }
        self
    }
}

impl std::fmt::Display for GameSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameSpec::TextWorld(p) => write!(f, "{}", p.display()),
            GameSpec::Twx(g) => write!(f, "{}{g}", twx::PREFIX),
            GameSpec::Suite(s) => write!(f, "{s}"),
            GameSpec::Jericho(p) => write!(f, "{}{}", jericho::PREFIX, p.display()),
            GameSpec::NetHack(g) => write!(f, "{g}"),
            GameSpec::Harness(g) => write!(f, "{g}"),
            GameSpec::ScienceWorld(g) => write!(f, "{}{g}", scienceworld::PREFIX),
        }
    }
}

impl From<GameSpec> for String {
    fn from(g: GameSpec) -> Self {
        g.to_string()
    }
}

impl TryFrom<String> for GameSpec {
    type Error = EnvError;
    fn try_from(s: String) -> Result<Self, EnvError> {
        GameSpec::prefixed(&s).unwrap_or_else(|| Ok(GameSpec::of_file(PathBuf::from(s))))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_round_trip() {
        let g = GameSpec::parse("twx:coin?seed=3").unwrap();
        assert_eq!(g.to_string(), "twx:coin?seed=3");
        assert_eq!(g.name(), "twx-coin-s3");
        let back: GameSpec = serde_json::from_value(serde_json::json!("twx:coin?seed=3")).unwrap();
        assert_eq!(back, g);
        assert!(GameSpec::parse("twx:").is_err());
        let f = GameSpec::parse("no-such-game").unwrap();
        assert_eq!(f.name(), "no-such-game");
        assert!(matches!(f.check(), Err(EnvError::MissingGame(_))));
    }
}
