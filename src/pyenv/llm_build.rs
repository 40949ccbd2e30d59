//! How the local LLM server is installed: the prebuilt `xllamacpp` wheel, whose CPU
//! backend is built for AVX2 so that it runs anywhere, or the same version's source
//! distribution compiled on this machine with llama.cpp's `GGML_NATIVE`, which uses every
//! instruction this CPU has (AVX-512, VNNI, BF16 where present).
//!
//! The choice is the venv's stamp (`.ariadne-llm`): its first line is the requirement,
//! and a native build adds the CPU it was compiled on. Every run's manifest records the
//! build, since a native build may round floating point differently and so give other
//! temperature-0 answers. A native build started on a CPU that lacks one of its
//! compiler's instruction sets would die on an illegal instruction: [`check_cpu`] refuses
//! it first, with the flags that are missing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use tokio::process::Command;

use super::quiet::{pip_install, run_quiet};
use crate::error::UserError;

/// The local model runtime: llama.cpp's server in a wheel (or its source distribution,
/// for [`LlmBuild::Native`]).
pub const LLM_REQ: &str = "xllamacpp==2026.10.11549";

/// The stamp's file name in the venv.
const STAMP: &str = ".ariadne-llm";

/// CMake from PyPI (its binary, not its Python wrapper, goes on the build's `PATH`,
/// since pip's isolated build hides the venv's packages from Python processes).
const CMAKE_REQ: &str = "cmake>=3.28,<5";

/// What the native build passes to llama.cpp's CMake: this CPU's instructions, and
/// neither BoringSSL nor llguidance, which the build would fetch with git and which the
/// embedded server does not use (it serves on loopback, and JSON schemas go through
/// llama.cpp's own grammars).
pub const NATIVE_CMAKE_ARGS: &str =
    "-DGGML_NATIVE=ON -DLLAMA_BUILD_BORINGSSL=OFF -DLLAMA_LLGUIDANCE=OFF";

/// The beginnings of the `/proc/cpuinfo` flags that name x86 instruction sets a compiler
/// may use under `-march=native`. Other flags (`hypervisor`, `md_clear`, `rtm`, ...) can
/// change with a kernel or its microcode on the same CPU, and do not refuse a build.
const INSTRUCTION_SETS: [&str; 19] = [
    "sse",
    "ssse",
    "avx",
    "amx",
    "fma",
    "f16c",
    "bmi",
    "popcnt",
    "abm",
    "movbe",
    "adx",
    "gfni",
    "vaes",
    "vpclmulqdq",
    "sha_ni",
    "aes",
    "pclmulqdq",
    "xop",
    "tbm",
];

/// How the local LLM server was installed (`ariadne setup --llm-build`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum LlmBuild {
    /// The prebuilt wheel from PyPI (its CPU backend: AVX2, FMA, F16C).
    #[value(help = "the prebuilt wheel from PyPI (built for AVX2; the default)")]
    Wheel,
    /// The source distribution compiled here with `GGML_NATIVE` ([`NATIVE_CMAKE_ARGS`]).
    #[value(
        help = "llama.cpp compiled here for this CPU (needs a C++ compiler; about 10 minutes on 2 cores)"
    )]
    Native,
}

/// A CPU as Linux describes it in `/proc/cpuinfo`: its model name and its flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cpu {
    /// `model name`, e.g. "AMD EPYC 9B14".
    pub model: String,
    /// `flags`: the instruction sets and features, e.g. "avx2", "avx512_vnni".
    pub flags: BTreeSet<String>,
}

impl Cpu {
    /// This machine's first CPU; `None` where `/proc/cpuinfo` is not there to read.
    pub fn this() -> Option<Cpu> {
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| Cpu::parse(&text))
    }

    /// The first processor of a `/proc/cpuinfo` text; `None` without a `flags` line.
    fn parse(cpuinfo: &str) -> Option<Cpu> {
        let field = |name: &str| {
            cpuinfo.lines().find_map(|line| {
                let (key, value) = line.split_once(':')?;
                (key.trim() == name).then(|| value.trim().to_string())
            })
        };
        let flags = field("flags")?;
        Some(Cpu {
            model: field("model name").unwrap_or_default(),
            flags: flags.split_whitespace().map(str::to_string).collect(),
        })
    }

    /// The instruction-set flags of `built_on` ([`INSTRUCTION_SETS`]) this CPU lacks,
    /// in order.
    fn missing<'a>(&self, built_on: &'a Cpu) -> Vec<&'a str> {
        built_on
            .flags
            .iter()
            .filter(|f| INSTRUCTION_SETS.iter().any(|p| f.starts_with(p)))
            .filter(|f| !self.flags.contains(*f))
            .map(String::as_str)
            .collect()
    }
}

/// What the stamp says is installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The requirement installed, e.g. [`LLM_REQ`].
    pub req: String,
    /// Wheel or native.
    pub build: LlmBuild,
    /// The CPU a native build was compiled on (`None` for the wheel, or where the CPU
    /// could not be read).
    pub built_on: Option<Cpu>,
}

impl Installed {
    /// Read a stamp: the requirement, then for a native build `build: native`,
    /// `cpu: MODEL` and `flags: F ...`. A stamp of one line is the wheel (stamps
    /// written before the choice existed are such).
    fn parse(text: &str) -> Option<Installed> {
        let mut lines = text.lines();
        let req = lines.next()?.trim().to_string();
        let (mut native, mut model, mut flags) = (false, String::new(), None);
        for line in lines {
            match line.split_once(':').map(|(k, v)| (k.trim(), v.trim())) {
                Some(("build", "native")) => native = true,
                Some(("cpu", v)) => model = v.to_string(),
                Some(("flags", v)) => {
                    flags = Some(v.split_whitespace().map(str::to_string).collect())
                }
                _ => {}
            }
        }
        Some(Installed {
            req,
            build: if native {
                LlmBuild::Native
            } else {
                LlmBuild::Wheel
            },
            built_on: flags.filter(|_| native).map(|flags| Cpu { model, flags }),
        })
    }

    /// The stamp's text ([`Self::parse`] reads it back).
    fn stamp(&self) -> String {
        match (&self.build, &self.built_on) {
            (LlmBuild::Wheel, _) => self.req.clone(),
            (LlmBuild::Native, None) => format!("{}\nbuild: native", self.req),
            (LlmBuild::Native, Some(cpu)) => format!(
                "{}\nbuild: native\ncpu: {}\nflags: {}",
                self.req,
                cpu.model,
                cpu.flags.iter().cloned().collect::<Vec<_>>().join(" ")
            ),
        }
    }
}

/// What to install, from what is installed, what was asked for (`None`: keep the build
/// that is there, also when Ariadne now wants another version of it) and this CPU.
fn to_install(
    installed: Option<&Installed>,
    want: Option<LlmBuild>,
    cpu: Option<&Cpu>,
) -> Option<LlmBuild> {
    let Some(have) = installed.filter(|i| i.req == LLM_REQ) else {
        let kept = installed.map(|i| i.build);
        return Some(want.or(kept).unwrap_or(LlmBuild::Wheel));
    };
    match want {
        None => None,
        Some(LlmBuild::Wheel) => (have.build != LlmBuild::Wheel).then_some(LlmBuild::Wheel),
        Some(LlmBuild::Native) => {
            let same_cpu = have.build == LlmBuild::Native && have.built_on.as_ref() == cpu;
            (!same_cpu).then_some(LlmBuild::Native)
        }
    }
}

/// What the venv's stamp says is installed; `None` before the first install.
pub fn installed(venv: &Path) -> Option<Installed> {
    let text = std::fs::read_to_string(venv.join(STAMP)).ok()?;
    Installed::parse(&text)
}

/// Install the local LLM server as `want` asks (`None`: keep the build that is there,
/// the wheel when there is none). Does nothing when it is there already.
///
/// # Errors
/// A [`UserError`] when pip fails (with its message's last lines), or when a native
/// build finds no C++ compiler.
pub(super) async fn ensure(python: &Path, venv: &Path, want: Option<LlmBuild>) -> Result<()> {
    let cpu = Cpu::this();
    let Some(build) = to_install(installed(venv).as_ref(), want, cpu.as_ref()) else {
        return Ok(());
    };
    let pb = crate::report::task(match build {
        LlmBuild::Wheel => format!("installing the local LLM server ({LLM_REQ})"),
        LlmBuild::Native => format!(
            "compiling the local LLM server ({LLM_REQ}) for this CPU; about 10 minutes on 2 cores"
        ),
    });
    let res = match build {
        LlmBuild::Wheel => install_wheel(python).await,
        LlmBuild::Native => build_native(python).await,
    };
    pb.done();
    res?;
    let now = Installed {
        req: LLM_REQ.to_string(),
        build,
        built_on: (build == LlmBuild::Native).then_some(cpu).flatten(),
    };
    let path = venv.join(STAMP);
    std::fs::write(&path, now.stamp())
        .with_context(|| format!("cannot write {}", path.display()))?;
    crate::report::notice(format!(
        "ariadne: installed the local LLM server, {}, in {}",
        in_words(&now),
        venv.display()
    ));
    Ok(())
}

/// The wheel, over whatever build of the same version is there.
async fn install_wheel(python: &Path) -> Result<()> {
    run_quiet(
        pip_install(python).args(["--force-reinstall", "--no-deps", LLM_REQ]),
        &format!("pip install {LLM_REQ}"),
    )
    .await
}

/// The source distribution compiled with [`NATIVE_CMAKE_ARGS`]: CMake from PyPI first,
/// its binary put on the build's `PATH`; pip's cache is not used, so that a wheel built
/// on another CPU is never taken for this one's.
async fn build_native(python: &Path) -> Result<()> {
    check_compiler().await?;
    run_quiet(
        pip_install(python).arg(CMAKE_REQ),
        &format!("pip install {CMAKE_REQ}"),
    )
    .await?;
    let cmake_bin = cmake_bin_dir(python).await?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(cmake_bin).chain(std::env::split_paths(&path)))
        .context("cannot put CMake on PATH")?;
    run_quiet(
        pip_install(python)
            .args(["--force-reinstall", "--no-deps", "--no-cache-dir"])
            .args(["--no-binary", "xllamacpp", LLM_REQ])
            .env("PATH", path)
            .env("CMAKE_ARGS", NATIVE_CMAKE_ARGS)
            .env_remove("XLLAMACPP_RELEASE"),
        &format!("compiling {LLM_REQ} (pip install --no-binary xllamacpp)"),
    )
    .await
}

/// Where the `cmake` package keeps its binaries (`cmake.CMAKE_BIN_DIR`).
async fn cmake_bin_dir(python: &Path) -> Result<PathBuf> {
    let out = Command::new(python)
        .args(["-c", "import cmake; print(cmake.CMAKE_BIN_DIR)"])
        .output()
        .await
        .context("cannot ask the venv's Python where CMake is")?;
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !Path::new(&dir).join("cmake").exists() {
        bail!(UserError::new(format!(
            "CMake from PyPI is installed but its binary is not where it says ({dir:?})"
        )));
    }
    Ok(dir.into())
}

/// A native build needs a C++ compiler (`c++`, or `$CXX` when it is set and not empty).
async fn check_compiler() -> Result<()> {
    let cxx = super::quiet::command_named("CXX", "c++");
    let ok = Command::new(&cxx)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .is_ok_and(|o| o.status.success());
    if !ok {
        bail!(UserError::new(format!(
            "compiling the local LLM server needs a C++ compiler as `{cxx}` (or $CXX); install one, e.g. `apt-get install g++`, or keep the wheel (`--llm-build wheel`)"
        )));
    }
    Ok(())
}

/// The build as the manifest and the messages name it: "wheel", or "native (MODEL)".
pub fn describe(installed: &Installed) -> String {
    named(installed, "wheel", "native")
}

/// The build as a message says it: "the prebuilt wheel (built for AVX2)", or "compiled
/// for this CPU (MODEL)".
pub fn in_words(installed: &Installed) -> String {
    named(
        installed,
        "the prebuilt wheel (built for AVX2)",
        "compiled for this CPU",
    )
}

/// `wheel`, or `native` followed by the CPU's model in parentheses when it is known.
fn named(installed: &Installed, wheel: &str, native: &str) -> String {
    let model = installed.built_on.as_ref().map(|cpu| cpu.model.as_str());
    match (installed.build, model) {
        (LlmBuild::Wheel, _) => wheel.to_string(),
        (LlmBuild::Native, Some(model)) if !model.is_empty() => format!("{native} ({model})"),
        (LlmBuild::Native, _) => native.to_string(),
    }
}

/// Before the server starts: a native build runs only on a CPU with every flag of the
/// CPU it was compiled on.
///
/// # Errors
/// A [`UserError`] naming the flags this CPU lacks, and the two ways out.
pub fn check_cpu(installed: &Installed, this: Option<&Cpu>) -> Result<()> {
    let (LlmBuild::Native, Some(built_on), Some(this)) =
        (installed.build, &installed.built_on, this)
    else {
        return Ok(());
    };
    let missing = this.missing(built_on);
    if !missing.is_empty() {
        bail!(UserError::new(format!(
            "the local LLM server was compiled for another CPU ({}), and this one ({}) lacks its {}; compile it again here with `ariadne setup --llm-build native`, or go back to the wheel with `ariadne setup --llm-build wheel`",
            built_on.model,
            this.model,
            missing.join(", ")
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
