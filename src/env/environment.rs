//! The seam every game sits behind: what a game shows after a reset or a step
//! ([`GameState`]), the true facts it can expose ([`Fact`]), the failures callers branch
//! on ([`EnvError`]) and the [`Environment`] trait the episode engine drives. A leaf of
//! `env`: every game family implements it, it imports none of them.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// What the game shows after a reset or a step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    /// The game's text, without banner and status line.
    pub observation: String,
    /// Cumulative score.
    pub score: i64,
    /// Score gained by the last command (score delta; 0 after a reset).
    pub reward: i64,
    /// Maximum reachable score.
    pub max_score: i64,
    /// The episode is over (won, lost, or ended by the game).
    pub done: bool,
    /// The game was won.
    pub won: bool,
    /// The game was lost.
    pub lost: bool,
    /// The game's move counter.
    pub moves: i64,
    /// Commands the game accepts now, sorted.
    pub admissible_commands: Vec<String>,
    /// The game lists no admissible commands (a Jericho game Jericho does not support):
    /// the agent writes its commands for the game's parser.
    #[serde(default)]
    pub free_text: bool,
    /// The command language of the game's family, when known: what a free-text command
    /// is written in ([`super::grammar`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar: Option<super::grammar::CommandGrammar>,
    /// The text of the `inventory` command.
    pub inventory: String,
    /// Current room, when the game names it.
    pub room: Option<String>,
    /// The game's objective text.
    pub objective: String,
    /// The game's walkthrough (winning command list) when it has one.
    #[serde(default)]
    pub walkthrough: Option<Vec<String>>,
    /// The game's true state (TextWorld's facts; a Jericho game's object tree, led by
    /// `["decides", "location"]`), when the game exposes it; for measuring the world
    /// model, never shown to the LLM.
    #[serde(default)]
    pub facts: Option<Vec<Fact>>,
    /// The admissible commands are the game's skills (NetHack): commands the bridge
    /// carries out as several moves (`explore level`, `go to level 1 room 2`). Ariadne's
    /// own `go to` routes and compass-exit exploration stand down, as the game travels.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skills: bool,
    /// Exits the game itself knows to be unexplored (NetHack: `level 1 room 0: doorway
    /// at (60, 18)`), shown as the exploration module's exits when the game has `skills`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unexplored: Vec<String>,
    /// The dungeon level (NetHack's depth, 1 at the start), for games that have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<i64>,
    /// BALROG's progression so far in the episode (NetHack: 0.0 to 1.0, the share of
    /// human games that reached the deepest dungeon or experience level reached and went
    /// on to win; Paglieri et al. 2024).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progression: Option<f64>,
}

/// One true fact of the game: a predicate and its arguments (entity display names;
/// `P` is the player, `I` the inventory). Serialized as `[predicate, arg, ...]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "Vec<String>", into = "Vec<String>")]
pub struct Fact {
    /// `at`, `in`, `on`, `open`, `north_of`, ...
    pub predicate: String,
    /// Its arguments.
    pub args: Vec<String>,
}

impl From<Vec<String>> for Fact {
    fn from(mut v: Vec<String>) -> Self {
        let predicate = if v.is_empty() {
            String::new()
        } else {
            v.remove(0)
        };
        Self { predicate, args: v }
    }
}

impl From<Fact> for Vec<String> {
    fn from(f: Fact) -> Self {
        let mut v = vec![f.predicate];
        v.extend(f.args);
        v
    }
}

/// Failures of an environment that callers branch on.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    /// The game does not exist.
    #[error(
        "game not found: {0} (give a TextWorld .z8 path, a bundled game name, or a game of another family: twx:<game>, scienceworld:<task>, arigraph-paper:NAME, nethack[?seed=S], a z-machine story file; `ariadne games list` names them all and what each needs)"
    )]
    MissingGame(String),
    /// A game of the authors' suite whose file is not in the folder it is read from.
    #[error(
        "game not found: {path}: arigraph-paper:{game} is read from the `envs/` folder of the authors' repository (AIRI-Institute/AriGraph); give the folder as arigraph-paper:{game}@DIR or in ARIADNE_ARIGRAPH_ENVS"
    )]
    MissingSuiteGame {
        /// The suite's name of the game.
        game: String,
        /// Where it was looked for.
        path: String,
    },
    /// A game specification that cannot be read (`nethack?seed=x`, a parameter given
    /// twice, `twx:` naming no game): the text, then what is wrong.
    #[error("bad game specification {0}")]
    BadSpec(String),
    /// The `.json` sidecar of a TextWorld game is missing (TextWorld would silently give
    /// no score and no admissible commands).
    #[error("{0}")]
    MissingSidecar(String),
    /// A step was sent after the episode ended.
    #[error("the episode is over")]
    EpisodeOver,
    /// The bridge process could not be started.
    #[error("cannot start the game bridge ({python}): {detail}")]
    Spawn {
        /// Interpreter used.
        python: String,
        /// OS error.
        detail: String,
    },
    /// The bridge exited or closed its output.
    #[error("the game bridge died: {detail}")]
    Died {
        /// Last lines of its stderr.
        detail: String,
    },
    /// The bridge did not answer in time.
    #[error("the game bridge did not answer {request} within {secs}s; it was stopped")]
    Timeout {
        /// The request sent.
        request: String,
        /// The limit, seconds.
        secs: u64,
    },
    /// The game engine raised an error or the reply was not understood.
    #[error("game engine error: {0}")]
    Engine(String),
    /// The harness of `ariadne agent` closed its input or stopped reading
    /// ([`super::harness`]).
    #[error("the harness {0}")]
    Harness(String),
    /// The game could not be loaded.
    #[error("cannot load the game {game}: {detail}")]
    BadGame {
        /// The game.
        game: String,
        /// What the engine or the bridge said.
        detail: String,
    },
}

impl EnvError {
    /// True for errors the user fixes (missing game or sidecar, unloadable game).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            EnvError::MissingGame(_)
                | EnvError::MissingSuiteGame { .. }
                | EnvError::BadSpec(_)
                | EnvError::MissingSidecar(_)
                | EnvError::BadGame { .. }
        )
    }
}

/// A text game the agent plays: one episode per [`Environment::reset`].
#[async_trait]
pub trait Environment: Send {
    /// Start (or restart) the game and return the first observation.
    ///
    /// # Errors
    /// A missing or unloadable game, a dead or hung bridge.
    async fn reset(&mut self) -> Result<GameState, EnvError>;

    /// Send one command and return what the game answered.
    ///
    /// # Errors
    /// [`EnvError::EpisodeOver`] after the end; a dead or hung bridge; an engine failure.
    async fn step(&mut self, command: &str) -> Result<GameState, EnvError>;

    /// The LLM tokens the agent spent deciding the command about to be sent (every call
    /// of the step; 0 for a later move of a route). A harness passes them on to its
    /// caller with the command (`ariadne agent`); a game ignores them.
    fn spent(&mut self, _prompt_tokens: u64, _completion_tokens: u64) {}

    /// Stop the game (and its process, if any).
    async fn close(self: Box<Self>);
}
