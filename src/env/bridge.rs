//! The bridge subprocess both game families use: one game per Python process, JSON
//! lines over stdin/stdout (protocol in `python/textworld_bridge.py` and `docs/games.md`).
//! Every request has a timeout: a dead or hung bridge is an [`EnvError`], never a hang.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::{EnvError, Environment, GameState};

/// The kinds of a bridge's failure reply (`python/ariadne_bridge.py`, `KIND_*`): a
/// closed set, so a kind this build does not know is an unreadable reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
enum FailureKind {
    /// The request was malformed or named no known command.
    BadRequest,
    /// The game named in `reset` does not exist.
    MissingGame,
    /// A TextWorld game's `.json` sidecar is missing.
    MissingSidecar,
    /// The game exists but a parameter of its name does not.
    BadSpec,
    /// The file named in `reset` is not a game the bridge can load.
    BadGame,
    /// A `step` after the episode ended.
    EpisodeOver,
    /// The game engine raised (the kind is spelled `textworld` for every bridge).
    #[serde(rename = "textworld")]
    Engine,
}

/// A failure reply: `{"ok": false, "kind", "error"}`.
#[derive(Debug, Deserialize)]
struct Failure {
    kind: FailureKind,
    error: String,
}

/// How long a game may take to answer one command unless told otherwise (a reset, which
/// loads the game, gets twice as long): Jericho's valid-action detection alone takes up
/// to about a minute a step on some games (advent.z5).
pub const DEFAULT_STEP_TIMEOUT: Duration = Duration::from_secs(180);

/// [`DEFAULT_STEP_TIMEOUT`] in seconds (for settings recorded before it was a setting).
pub fn default_step_timeout_s() -> u64 {
    DEFAULT_STEP_TIMEOUT.as_secs()
}

/// A running bridge process holding one game.
pub struct BridgeEnv {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    log: PathBuf,
    /// What the bridge is asked to load at each reset (a path or a twx specification).
    game: String,
    /// The game as the user named it, for error messages.
    label: String,
    /// Time limit of one step, and of a reset (which loads the game).
    pub step_timeout: Duration,
    /// The game family's command language, given to every state the bridge sends.
    pub grammar: Option<super::CommandGrammar>,
}

impl BridgeEnv {
    /// Start the bridge `python script` (stderr to `log`) for `game`, what the bridge's
    /// `reset` request loads; `label` names the game in error messages.
    ///
    /// # Errors
    /// [`EnvError::Spawn`] when the interpreter cannot be run.
    pub async fn start(
        python: &Path,
        script: &Path,
        log: &Path,
        game: String,
        label: String,
    ) -> Result<Self, EnvError> {
        let spawn_err = |e: std::io::Error| EnvError::Spawn {
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
            return Err(EnvError::Spawn {
                python: python.display().to_string(),
                detail: "no stdio pipes".into(),
            });
        };
        Ok(Self {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            log: log.to_path_buf(),
            game,
            label,
            step_timeout: DEFAULT_STEP_TIMEOUT,
            grammar: None,
        })
    }

    fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let tail: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .rev()
            .take(5)
            .collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        if tail.is_empty() {
            "no output".to_string()
        } else {
            format!("{} (log: {})", tail.join(" | "), self.log.display())
        }
    }

    async fn request(&mut self, req: Value, timeout: Duration) -> Result<Value, EnvError> {
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
                Err(EnvError::Timeout {
                    request: label,
                    secs: timeout.as_secs(),
                })
            }
            Ok(Err(e)) => Err(EnvError::Died {
                detail: format!("{e}; {}", self.stderr_tail()),
            }),
            Ok(Ok(None)) => {
                let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
                Err(EnvError::Died {
                    detail: self.stderr_tail(),
                })
            }
            Ok(Ok(Some(text))) => {
                let v: Value = serde_json::from_str(&text)
                    .map_err(|e| EnvError::Engine(format!("unreadable reply ({e}): {text}")))?;
                if v["ok"].as_bool() == Some(true) {
                    return Ok(v);
                }
                Err(match serde_json::from_value::<Failure>(v) {
                    Ok(Failure { kind, error }) => match kind {
                        FailureKind::MissingGame => EnvError::MissingGame(error),
                        FailureKind::MissingSidecar => EnvError::MissingSidecar(error),
                        FailureKind::BadSpec => {
                            EnvError::BadSpec(format!("{}: {error}", self.label))
                        }
                        FailureKind::EpisodeOver => EnvError::EpisodeOver,
                        FailureKind::BadRequest => {
                            EnvError::Engine(format!("the bridge refused the request: {error}"))
                        }
                        FailureKind::Engine => EnvError::Engine(error),
                        FailureKind::BadGame => EnvError::BadGame {
                            game: self.label.clone(),
                            detail: error,
                        },
                    },
                    Err(e) => EnvError::Engine(format!("unreadable failure reply ({e}): {text}")),
                })
            }
        }
    }

    fn state(&self, v: Value) -> Result<GameState, EnvError> {
        let mut state: GameState = serde_json::from_value(v)
            .map_err(|e| EnvError::Engine(format!("reply has the wrong shape: {e}")))?;
        state.grammar = state.grammar.or(self.grammar);
        Ok(state)
    }
}

#[async_trait]
impl Environment for BridgeEnv {
    async fn reset(&mut self) -> Result<GameState, EnvError> {
        let timeout = self.step_timeout * 2;
        let label = self.label.clone();
        let hint = if label.ends_with(".z8") && !label.starts_with(super::jericho::PREFIX) {
            " (is it a TextWorld .z8 with its .json sidecar? regenerate it with `ariadne games make` or tw-make)"
        } else {
            ""
        };
        let bad = |detail: String| EnvError::BadGame {
            game: label.clone(),
            detail: format!("{detail}{hint}"),
        };
        let game = self.game.clone();
        let v = self
            .request(json!({"cmd": "reset", "game": game}), timeout)
            .await
            .map_err(|e| match e {
                EnvError::Engine(d) => bad(d),
                EnvError::Died { detail } => bad(format!("the bridge died loading it: {detail}")),
                other => other,
            })?;
        self.state(v)
    }

    async fn step(&mut self, action: &str) -> Result<GameState, EnvError> {
        let timeout = self.step_timeout;
        let v = self
            .request(json!({"cmd": "step", "action": action}), timeout)
            .await?;
        self.state(v)
    }

    async fn close(mut self: Box<Self>) {
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
