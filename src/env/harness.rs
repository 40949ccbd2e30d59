//! The caller as the environment (`ariadne agent`): a harness that runs the game itself
//! (TALES, a gymnasium loop, a test) sends each observation as one JSON line, and
//! Ariadne answers each with its command as one JSON line (protocol in
//! `docs/agent-protocol.md`). The engine sees an ordinary [`Environment`]: every profile,
//! memory design and option works, and the run directory is the one `play` writes, with
//! every line the harness sent kept in `harness.jsonl` so that `ariadne replay` feeds the
//! same lines again, with no harness and no LLM call.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::UnboundedReceiver;

use super::{EnvError, Environment, GameState};

mod game;

pub use game::HarnessGame;

/// The prefix of a harness game (`harness:NAME`).
pub const PREFIX: &str = "harness:";

/// The protocol version this build speaks (the `protocol` field of every line).
pub const PROTOCOL: u64 = 1;

/// The file of a run directory holding every line the harness sent, in order.
pub const RECORD: &str = "harness.jsonl";

/// What the harness says about the game at a reset or after a command.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Seen {
    #[allow(dead_code)]
    protocol: u64,
    #[allow(dead_code)]
    #[serde(rename = "type")]
    kind: String,
    observation: String,
    /// The task, when the harness has one (read at a reset).
    #[serde(default)]
    goal: Option<String>,
    /// The commands the game accepts now; absent or null: free text.
    #[serde(default)]
    admissible_commands: Option<Vec<String>>,
    /// The game family's command language (`textworld-express`, ...), read at a reset.
    #[serde(default)]
    grammar: Option<super::CommandGrammar>,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    max_score: Option<f64>,
    #[serde(default)]
    reward: Option<f64>,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    won: Option<bool>,
    #[serde(default)]
    lost: Option<bool>,
    /// The harness's own details, kept in `harness.jsonl` and otherwise unread.
    #[serde(default)]
    #[allow(dead_code)]
    info: Option<Value>,
}

/// A whole number from a JSON number, or why not.
fn whole(x: f64, field: &str) -> Result<i64, String> {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        Ok(x as i64)
    } else {
        Err(format!("`{field}` must be a whole number, got {x}"))
    }
}

/// The message on `line` as a reset (`reset`) or a step's answer, or why it is refused.
fn read_message(line: &str, reset: bool) -> Result<Seen, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    if !v.is_object() {
        return Err(format!(
            "not a JSON object (each line is one message: {{\"protocol\": {PROTOCOL}, \"type\": ...}})"
        ));
    }
    let protocol = v.get("protocol").and_then(Value::as_u64);
    if protocol != Some(PROTOCOL) {
        return Err(format!(
            "`protocol` must be {PROTOCOL} (this build's version), got {}",
            v.get("protocol").map_or("nothing".into(), Value::to_string)
        ));
    }
    let want = if reset { "reset" } else { "step" };
    match v.get("type").and_then(Value::as_str) {
        Some(t) if t == want => {}
        Some(t) => {
            return Err(format!(
                "expected a `{want}` message here, got `{t}` ({})",
                if reset {
                    "the episode starts with a reset"
                } else {
                    "a command is waiting for the game's answer"
                }
            ));
        }
        None => return Err("`type` is missing".into()),
    }
    if !reset && v.get("grammar").is_some_and(|g| !g.is_null()) {
        return Err("`grammar` is read at the reset only (a game keeps its language)".into());
    }
    field_types(&v)?;
    serde_json::from_value(v).map_err(|e| format!("{e}"))
}

/// The type each field of a message must have (`docs/agent-protocol.md`), and whether
/// `null` stands for "not given".
const FIELD_TYPES: &[(&str, &str, bool)] = &[
    ("observation", "a string", false),
    ("goal", "a string", true),
    ("admissible_commands", "a list of strings", true),
    ("grammar", "a string", true),
    ("score", "a number", true),
    ("max_score", "a number", true),
    ("reward", "a number", true),
    ("done", "true or false", false),
    ("won", "true or false", true),
    ("lost", "true or false", true),
];

/// The first field of the message `v` whose value has the wrong type, named with what
/// it must be.
fn field_types(v: &Value) -> Result<(), String> {
    for (field, must, nullable) in FIELD_TYPES {
        let Some(x) = v.get(*field) else { continue };
        let fits = match *must {
            _ if x.is_null() => *nullable,
            "a string" => x.is_string(),
            "a number" => x.is_number(),
            "true or false" => x.is_boolean(),
            _ => x
                .as_array()
                .is_some_and(|items| items.iter().all(Value::is_string)),
        };
        if !fits {
            let shown: String = crate::text::first_chars(&x.to_string(), 80);
            return Err(format!("`{field}` must be {must}, got {shown}"));
        }
    }
    Ok(())
}

/// How long Ariadne keeps answering after its `end` line when the harness neither
/// sends a line nor closes its input (then it exits; `docs/agent-protocol.md`).
pub const AFTER_END_IDLE: std::time::Duration = std::time::Duration::from_secs(10);

/// This process's stdin as lines, read by one thread for the whole process: the
/// episode's environment and the answers after its `end` line take lines from the same
/// queue, so a line the harness sent early is never lost in a dropped buffer, and no
/// read is left pending in tokio's blocking pool when the process ends.
fn stdin_lines() -> &'static tokio::sync::Mutex<UnboundedReceiver<std::io::Result<String>>> {
    static LINES: OnceLock<tokio::sync::Mutex<UnboundedReceiver<std::io::Result<String>>>> =
        OnceLock::new();
    LINES.get_or_init(|| {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        std::thread::spawn(move || {
            let mut stdin = std::io::stdin().lock();
            loop {
                let mut line = String::new();
                match std::io::BufRead::read_line(&mut stdin, &mut line) {
                    Ok(0) => break,
                    Ok(_) => {
                        if tx.send(Ok(line)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        break;
                    }
                }
            }
        });
        tokio::sync::Mutex::new(rx)
    })
}

/// Where a harness environment reads its lines.
enum Input {
    /// This process's stdin ([`stdin_lines`]).
    Stdin,
    /// Any reader (a recorded run, a test's pipe).
    Reader(Box<dyn AsyncBufRead + Unpin + Send>),
}

impl Input {
    /// The next line with its end, or `None` once the input is closed.
    async fn next_line(&mut self) -> std::io::Result<Option<String>> {
        match self {
            Input::Stdin => stdin_lines().lock().await.recv().await.transpose(),
            Input::Reader(r) => {
                let mut line = String::new();
                let n = r.read_line(&mut line).await?;
                Ok((n > 0).then_some(line))
            }
        }
    }
}

/// Answer the lines a harness sends after Ariadne's `end` line (`ended` says how the
/// episode ended, for the message) with one `error` line each, recording them in the
/// run's `record`, until the harness closes its input or sends nothing for
/// [`AFTER_END_IDLE`]. Lines are numbered on from those the record holds.
///
/// # Errors
/// The record cannot be read or written, or stdout is closed.
pub async fn answer_after_end(record: &Path, ended: &str) -> Result<(), EnvError> {
    let cannot = |e: std::io::Error| EnvError::Engine(format!("{}: {e}", record.display()));
    let mut lines = std::fs::read_to_string(record)
        .map_err(cannot)?
        .lines()
        .count() as u64;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(record)
        .map_err(cannot)?;
    let mut out = tokio::io::stdout();
    loop {
        let next = tokio::time::timeout(AFTER_END_IDLE, async {
            stdin_lines().lock().await.recv().await
        })
        .await;
        let Ok(Some(Ok(line))) = next else {
            return Ok(());
        };
        lines += 1;
        writeln!(file, "{}", line.trim_end_matches(['\n', '\r'])).map_err(cannot)?;
        if line.trim().is_empty() {
            continue;
        }
        let error = json!({"protocol": PROTOCOL, "type": "error", "line": lines,
            "error": format!("the episode is over ({ended}): nothing more is played; a new episode needs a new `ariadne agent`")});
        let sent = async {
            out.write_all(format!("{error}\n").as_bytes()).await?;
            out.flush().await
        };
        sent.await
            .map_err(|e| EnvError::Harness(format!("stopped reading ({e})")))?;
    }
}

/// A harness environment: messages read from `input`, commands written to `output`.
pub struct HarnessEnv {
    input: Input,
    output: Box<dyn AsyncWrite + Unpin + Send>,
    /// Where each line read is appended (`harness.jsonl`), when recording.
    record: Option<std::fs::File>,
    /// The last state returned: the score a reward is counted from, the maximum and the
    /// goal a step message may leave out.
    last: Option<GameState>,
    lines: u64,
    commands: i64,
    /// The game's command language: from the game's name, or as the reset names it.
    pub grammar: Option<super::CommandGrammar>,
    /// The tokens spent on the next command (prompt, completion), sent with it.
    spent: (u64, u64),
}

impl HarnessEnv {
    /// A harness on this process's stdin and stdout, each line read recorded in
    /// `record` (created, or appended to).
    ///
    /// # Errors
    /// The record file cannot be created.
    pub fn stdio(record: &Path) -> Result<Self, EnvError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(record)
            .map_err(|e| EnvError::Engine(format!("cannot write {}: {e}", record.display())))?;
        let mut env = Self::over(
            Box::new(tokio::io::empty()),
            Box::new(tokio::io::stdout()),
            Some(file),
        );
        env.input = Input::Stdin;
        Ok(env)
    }

    /// The lines a run recorded (its `harness.jsonl`), read again; the commands go
    /// nowhere (replay compares the steps).
    ///
    /// # Errors
    /// The file is missing or unreadable.
    pub fn recorded(path: &Path) -> Result<Self, EnvError> {
        let text = std::fs::read(path).map_err(|e| {
            EnvError::MissingGame(format!(
                "{}: {e} (a harness run is replayed from the lines its harness sent)",
                path.display()
            ))
        })?;
        Ok(Self::over(
            Box::new(std::io::Cursor::new(text)),
            Box::new(tokio::io::sink()),
            None,
        ))
    }

    /// A harness over any reader and writer (tests use pipes).
    pub fn over(
        input: Box<dyn AsyncBufRead + Unpin + Send>,
        output: Box<dyn AsyncWrite + Unpin + Send>,
        record: Option<std::fs::File>,
    ) -> Self {
        Self {
            input: Input::Reader(input),
            output,
            record,
            last: None,
            lines: 0,
            commands: 0,
            grammar: None,
            spent: (0, 0),
        }
    }

    /// Write one protocol line.
    async fn send(&mut self, message: Value) -> Result<(), EnvError> {
        let line = format!("{message}\n");
        let sent = async {
            self.output.write_all(line.as_bytes()).await?;
            self.output.flush().await
        };
        sent.await
            .map_err(|e| EnvError::Harness(format!("stopped reading ({e})")))
    }

    /// Read lines until a well-formed message of the kind expected; each malformed
    /// line is answered with one `error` line, and the next is read.
    async fn receive(&mut self, reset: bool) -> Result<Seen, EnvError> {
        loop {
            let line =
                self.input.next_line().await.map_err(|e| {
                    EnvError::Harness(format!("sent a line that cannot be read: {e}"))
                })?;
            let Some(line) = line else {
                return Err(EnvError::Harness("closed its input".into()));
            };
            self.lines += 1;
            if let Some(f) = &mut self.record {
                // Each line as it came, so that a killed run replays to its last step.
                let kept = f
                    .write_all(line.trim_end_matches(['\n', '\r']).as_bytes())
                    .and_then(|()| f.write_all(b"\n"))
                    .and_then(|()| f.flush());
                if let Err(e) = kept {
                    return Err(EnvError::Engine(format!(
                        "cannot record the harness's line: {e}"
                    )));
                }
            }
            if line.trim().is_empty() {
                continue;
            }
            match read_message(line.trim(), reset) {
                Ok(seen) => return Ok(seen),
                Err(why) => {
                    let line_no = self.lines;
                    self.send(json!({"protocol": PROTOCOL, "type": "error", "line": line_no, "error": why}))
                        .await?;
                }
            }
        }
    }

    /// The engine's state from a message, counting the reward from the last score.
    fn state(&mut self, seen: Seen) -> Result<GameState, String> {
        let last = self.last.take().unwrap_or_default();
        let score = match seen.score {
            Some(s) => whole(s, "score")?,
            None => {
                last.score
                    + seen
                        .reward
                        .map(|r| whole(r, "reward"))
                        .transpose()?
                        .unwrap_or(0)
            }
        };
        let max_score = match seen.max_score {
            Some(m) => whole(m, "max_score")?,
            None => last.max_score,
        };
        let free_text = seen.admissible_commands.is_none();
        if seen.grammar.is_some() {
            self.grammar = seen.grammar;
        }
        let mut admissible = seen.admissible_commands.unwrap_or_default();
        admissible.sort();
        admissible.dedup();
        let state = GameState {
            observation: seen.observation,
            reward: score - last.score,
            score,
            max_score,
            done: seen.done,
            won: seen.won.unwrap_or(false),
            lost: seen.lost.unwrap_or(false),
            moves: self.commands,
            admissible_commands: admissible,
            free_text,
            grammar: self.grammar,
            objective: seen.goal.unwrap_or(last.objective),
            ..GameState::default()
        };
        self.last = Some(state.clone());
        Ok(state)
    }

    /// Read a message and make it the state, answering a message whose numbers are
    /// not whole with an `error` line and reading the next.
    async fn next_state(&mut self, reset: bool) -> Result<GameState, EnvError> {
        loop {
            let seen = self.receive(reset).await?;
            let before = self.last.clone();
            match self.state(seen) {
                Ok(s) => return Ok(s),
                Err(why) => {
                    self.last = before;
                    let line_no = self.lines;
                    self.send(json!({"protocol": PROTOCOL, "type": "error", "line": line_no, "error": why}))
                        .await?;
                }
            }
        }
    }
}

#[async_trait]
impl Environment for HarnessEnv {
    async fn reset(&mut self) -> Result<GameState, EnvError> {
        self.last = None;
        self.commands = 0;
        self.next_state(true).await
    }

    async fn step(&mut self, command: &str) -> Result<GameState, EnvError> {
        if self.last.as_ref().is_some_and(|s| s.done) {
            return Err(EnvError::EpisodeOver);
        }
        self.commands += 1;
        let n = self.commands;
        let (prompt, completion) = std::mem::take(&mut self.spent);
        let usage = json!({"prompt_tokens": prompt, "completion_tokens": completion});
        self.send(json!({"protocol": PROTOCOL, "type": "command", "step": n, "command": command, "usage": usage}))
            .await?;
        self.next_state(false).await
    }

    fn spent(&mut self, prompt_tokens: u64, completion_tokens: u64) {
        self.spent = (prompt_tokens, completion_tokens);
    }

    async fn close(self: Box<Self>) {}
}

/// The record of a run directory.
pub fn record_in(dir: &Path) -> PathBuf {
    dir.join(RECORD)
}

#[cfg(test)]
mod tests;
