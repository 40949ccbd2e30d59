//! The environment: a Microsoft TextWorld game behind a Python bridge subprocess that
//! speaks JSON lines (`python/textworld_bridge.py`, protocol documented there and in the
//! README). Every request has a timeout: a dead or hung bridge is a [`BridgeError`],
//! never a hang.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// What the game shows after a reset or a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Commands the game accepts now (needs the `.json` sidecar), sorted.
    pub admissible_commands: Vec<String>,
    /// The text of the `inventory` command.
    pub inventory: String,
    /// Current room, from the `-= Room =-` header.
    pub room: Option<String>,
    /// The game's objective text.
    pub objective: String,
    /// The game's walkthrough (winning command list) when the sidecar has one.
    #[serde(default)]
    pub walkthrough: Option<Vec<String>>,
}

/// Failures of the bridge that callers branch on.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// The game file does not exist.
    #[error("game not found: {0} (give a .z8 path or a bundled game name; `ls games/`)")]
    MissingGame(String),
    /// The `.json` sidecar is missing (TextWorld would silently give no score and no
    /// admissible commands).
    #[error("{0}")]
    MissingSidecar(String),
    /// A step was sent after the episode ended.
    #[error("the episode is over")]
    EpisodeOver,
    /// The bridge process could not be started.
    #[error("cannot start the TextWorld bridge ({python}): {detail}")]
    Spawn {
        /// Interpreter used.
        python: String,
        /// OS error.
        detail: String,
    },
    /// The bridge exited or closed its output.
    #[error("the TextWorld bridge died: {detail}")]
    Died {
        /// Last lines of its stderr.
        detail: String,
    },
    /// The bridge did not answer in time.
    #[error("the TextWorld bridge did not answer {request} within {secs}s; it was stopped")]
    Timeout {
        /// The request sent.
        request: String,
        /// The limit, seconds.
        secs: u64,
    },
    /// TextWorld raised an error or the reply was not understood.
    #[error("TextWorld error: {0}")]
    TextWorld(String),
    /// The game file or its sidecar could not be loaded.
    #[error(
        "cannot load the game {game}: {detail} (is it a TextWorld .z8 with its .json sidecar? regenerate it with `ariadne games make` or tw-make)"
    )]
    BadGame {
        /// The game path.
        game: String,
        /// What TextWorld or the bridge said.
        detail: String,
    },
}

impl BridgeError {
    /// True for errors the user fixes (missing game or sidecar).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            BridgeError::MissingGame(_)
                | BridgeError::MissingSidecar(_)
                | BridgeError::BadGame { .. }
        )
    }
}

/// A running bridge process holding one game.
pub struct TextWorldEnv {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    log: PathBuf,
    /// Time limit of one step, and of a reset (which loads the game).
    pub step_timeout: Duration,
}

/// Check that a game and its sidecar exist, before any process is started.
///
/// # Errors
/// [`BridgeError::MissingGame`] or [`BridgeError::MissingSidecar`].
pub fn check_game(game: &Path) -> Result<(), BridgeError> {
    if game.is_dir() {
        return Err(BridgeError::MissingGame(format!(
            "{} is a directory, not a .z8 game file",
            game.display()
        )));
    }
    if !game.is_file() {
        return Err(BridgeError::MissingGame(game.display().to_string()));
    }
    if game.extension().is_none_or(|e| e != "z8") {
        return Err(BridgeError::MissingGame(format!(
            "{} is not a .z8 game file",
            game.display()
        )));
    }
    let sidecar = game.with_extension("json");
    if !sidecar.is_file() {
        return Err(BridgeError::MissingSidecar(format!(
            "the game's .json sidecar is missing: {} (TextWorld gives no score and no admissible commands without it; regenerate the game with tw-make)",
            sidecar.display()
        )));
    }
    Ok(())
}

impl TextWorldEnv {
    /// Start the bridge: `python script`, stderr to `log`.
    ///
    /// # Errors
    /// [`BridgeError::Spawn`] when the interpreter cannot be run.
    pub async fn start(python: &Path, script: &Path, log: &Path) -> Result<Self, BridgeError> {
        let spawn_err = |e: std::io::Error| BridgeError::Spawn {
            python: python.display().to_string(),
            detail: e.to_string(),
        };
        let logfile = std::fs::File::create(log).map_err(spawn_err)?;
        let mut child = Command::new(python)
            .arg(script)
            .env("PYTHONHASHSEED", "0")
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(logfile)
            .kill_on_drop(true)
            .spawn()
            .map_err(spawn_err)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(BridgeError::Spawn {
                python: python.display().to_string(),
                detail: "no stdio pipes".into(),
            });
        };
        Ok(Self {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            log: log.to_path_buf(),
            step_timeout: Duration::from_secs(60),
        })
    }

    fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        if tail.is_empty() {
            format!("no output (log: {})", self.log.display())
        } else {
            format!("{} (log: {})", tail.join(" | "), self.log.display())
        }
    }

    async fn request(&mut self, req: Value, timeout: Duration) -> Result<Value, BridgeError> {
        let line = format!("{req}\n");
        let label = req["cmd"].as_str().unwrap_or("?").to_string();
        let exchange = async {
            self.stdin.write_all(line.as_bytes()).await?;
            self.stdin.flush().await?;
            self.lines.next_line().await
        };
        match tokio::time::timeout(timeout, exchange).await {
            Err(_) => {
                let _ = self.child.start_kill();
                Err(BridgeError::Timeout {
                    request: label,
                    secs: timeout.as_secs(),
                })
            }
            Ok(Err(e)) => Err(BridgeError::Died {
                detail: format!("{e}; {}", self.stderr_tail()),
            }),
            Ok(Ok(None)) => {
                let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
                Err(BridgeError::Died {
                    detail: self.stderr_tail(),
                })
            }
            Ok(Ok(Some(text))) => {
                let v: Value = serde_json::from_str(&text).map_err(|e| {
                    BridgeError::TextWorld(format!("unreadable reply ({e}): {text}"))
                })?;
                if v["ok"].as_bool() == Some(true) {
                    return Ok(v);
                }
                let msg = v["error"].as_str().unwrap_or("unknown error").to_string();
                Err(match v["kind"].as_str() {
                    Some("missing_game") => BridgeError::MissingGame(msg),
                    Some("missing_sidecar") => BridgeError::MissingSidecar(msg),
                    Some("episode_over") => BridgeError::EpisodeOver,
                    _ => BridgeError::TextWorld(msg),
                })
            }
        }
    }

    fn state(v: Value) -> Result<GameState, BridgeError> {
        serde_json::from_value(v)
            .map_err(|e| BridgeError::TextWorld(format!("reply has the wrong shape: {e}")))
    }

    /// Load and start a game.
    ///
    /// # Errors
    /// Missing game or sidecar, a dead or hung bridge, a TextWorld failure.
    pub async fn reset(&mut self, game: &Path) -> Result<GameState, BridgeError> {
        check_game(game)?;
        let path = std::fs::canonicalize(game).unwrap_or_else(|_| game.to_path_buf());
        let timeout = self.step_timeout * 2;
        let bad = |detail: String| BridgeError::BadGame {
            game: game.display().to_string(),
            detail,
        };
        let v = self
            .request(
                json!({"cmd": "reset", "game": path.display().to_string()}),
                timeout,
            )
            .await
            .map_err(|e| match e {
                BridgeError::TextWorld(d) => bad(d),
                BridgeError::Died { detail } => {
                    bad(format!("the bridge died loading it: {detail}"))
                }
                other => other,
            })?;
        Self::state(v)
    }

    /// Send one command.
    ///
    /// # Errors
    /// [`BridgeError::EpisodeOver`] after the end; a dead or hung bridge; a TextWorld failure.
    pub async fn step(&mut self, action: &str) -> Result<GameState, BridgeError> {
        let timeout = self.step_timeout;
        let v = self
            .request(json!({"cmd": "step", "action": action}), timeout)
            .await?;
        Self::state(v)
    }

    /// Ask the bridge to quit and wait briefly; kill it otherwise.
    pub async fn close(mut self) {
        let _ = self
            .request(json!({"cmd": "quit"}), Duration::from_secs(3))
            .await;
        if tokio::time::timeout(Duration::from_secs(3), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.start_kill();
        }
    }
}
