//! The LLM settings as the resolver reads them: flag or environment variable, then the
//! config file, then the default, every value checked whatever its source.

use anyhow::{Result, bail};

use super::{ConfigFile, MAX_RETRY_BUDGET_S, Resolver};
use crate::cli::LlmArgs;
use crate::error::UserError;
use crate::llm::JsonMode;
use crate::llm::connect::LlmSettings;
use crate::pyenv;

impl Resolver {
    /// The LLM settings: flag or environment variable, then config file, then default;
    /// every value checked whatever its source.
    ///
    /// # Errors
    /// An unknown local model name, a value out of range, a URL that is not http(s).
    pub fn llm(&self, args: &LlmArgs) -> Result<LlmSettings> {
        let cfg = &self.cfg;
        let e = endpoints(args, cfg)?;
        // No temperature given: the reference code's temperature per module.
        let chosen = args.temperature.or(cfg.temperature);
        let temperatures = chosen
            .is_none()
            .then_some(crate::llm::Temperatures::REFERENCE);
        let temperature = chosen.unwrap_or(0.0);
        crate::llm::check_temperature(temperature)
            .map_err(|e| UserError::new(format!("temperature: {e}")))?;
        let l = limits(args, cfg, e.base_url.is_none())?;
        let models = models_per_call(args, cfg, e.base_url.is_some())?;
        Ok(LlmSettings {
            base_url: e.base_url,
            model: e.model,
            models,
            api_key: e.api_key,
            embed_base_url: e.embed_base_url,
            embed_model: args
                .embed_model
                .clone()
                .or_else(|| cfg.embed_model.clone())
                .unwrap_or_else(|| "text-embedding-3-small".into()),
            embed_api_key: e.embed_api_key,
            local_model: e.local_model,
            json_mode: args.json_mode.or(cfg.json_mode).unwrap_or(JsonMode::Schema),
            temperature,
            temperatures,
            timeout_s: l.timeout_s,
            ctx: l.ctx,
            threads: l.threads,
            length_limits: args.length_limits || cfg.length_limits.unwrap_or(false),
            retry_budget_s: l.retry_budget_s,
        })
    }
}

/// Where the chat and embedding calls go, and with which model and keys.
struct Endpoints {
    base_url: Option<String>,
    model: String,
    api_key: Option<String>,
    embed_base_url: Option<String>,
    embed_api_key: Option<String>,
    local_model: &'static pyenv::LocalModel,
}

/// The endpoints: a URL given must be http(s); with none, the embedded local model.
///
/// # Errors
/// A URL that is not http(s), an unknown local model name.
fn endpoints(args: &LlmArgs, cfg: &ConfigFile) -> Result<Endpoints> {
    let nonempty = |s: &Option<String>| s.clone().filter(|v| !v.trim().is_empty());
    let base_url = nonempty(&args.base_url).or_else(|| nonempty(&cfg.base_url));
    check_url("--base-url / OPENAI_BASE_URL", &base_url)?;
    let local_name = args
        .local_model
        .clone()
        .or_else(|| cfg.local_model.clone())
        .unwrap_or_else(|| pyenv::LOCAL_MODELS[0].name.to_string());
    let local_model = pyenv::local_model(&local_name)?;
    let model = args
        .model
        .clone()
        .or_else(|| cfg.model.clone())
        .unwrap_or_else(|| {
            if base_url.is_some() {
                "gpt-4o-mini".to_string()
            } else {
                local_model.name.to_string()
            }
        });
    let api_key = std::env::var("OPENAI_API_KEY")
        .ok()
        .filter(|k| !k.is_empty());
    let embed_api_key = std::env::var("ARIADNE_EMBED_API_KEY")
        .ok()
        .filter(|k| !k.is_empty())
        .or_else(|| api_key.clone());
    let embed_base_url = nonempty(&args.embed_base_url).or_else(|| nonempty(&cfg.embed_base_url));
    check_url("--embed-base-url / ARIADNE_EMBED_BASE_URL", &embed_base_url)?;
    Ok(Endpoints {
        base_url,
        model,
        api_key,
        embed_base_url,
        embed_api_key,
        local_model,
    })
}

/// The model per call kind: `--model-for` (or `ARIADNE_MODEL_FOR`), else the config
/// file's `[model_for]` table; only with a remote chat endpoint (the embedded server
/// holds one model).
///
/// # Errors
/// A list or table that does not parse, or one given without `--base-url`.
fn models_per_call(
    args: &LlmArgs,
    cfg: &ConfigFile,
    remote: bool,
) -> Result<crate::llm::ModelsPerCall> {
    let models = match (&args.model_for, &cfg.model_for) {
        (Some(list), _) => crate::llm::ModelsPerCall::parse(list),
        (None, Some(table)) => crate::llm::ModelsPerCall::of_table(table),
        (None, None) => Ok(Default::default()),
    }
    .map_err(UserError::new)?;
    if !models.is_empty() && !remote {
        bail!(UserError::new(
            "--model-for needs a remote chat endpoint (--base-url or OPENAI_BASE_URL): the embedded server holds one model"
        ));
    }
    Ok(models)
}

/// The routes Ariadne adds to a base URL: a base URL that ends in one was pasted whole.
const ROUTES: &[&str] = &["/chat/completions", "/completions", "/embeddings"];

/// A URL given as `what` must be http(s), and a base URL, not the URL of a route.
fn check_url(what: &str, url: &Option<String>) -> Result<()> {
    let Some(u) = url else {
        return Ok(());
    };
    if !(u.starts_with("http://") || u.starts_with("https://")) {
        bail!(UserError::new(format!(
            "{what} {u:?} is not an http(s) URL; give one like http://127.0.0.1:8080/v1"
        )));
    }
    let trimmed = u.trim_end_matches('/');
    if let Some(route) = ROUTES.iter().find(|r| trimmed.ends_with(*r)) {
        bail!(UserError::new(format!(
            "{what} {u:?} names the route {route}, which Ariadne adds itself; give the base URL: {}",
            &trimmed[..trimmed.len() - route.len()]
        )));
    }
    Ok(())
}

/// The time, context and thread limits.
struct Limits {
    timeout_s: u64,
    retry_budget_s: u64,
    ctx: u32,
    threads: u32,
}

/// The limits, each checked: a timeout of at least 1 s and at most the retry budget
/// (by default half of it: [`crate::llm::http::budget::time_limits`], `embedded` for the
/// embedded chat model's longer default), a retry budget of at most
/// [`MAX_RETRY_BUDGET_S`], a context of at least 1024 tokens, at least 1 thread (the
/// machine's cores by default).
///
/// # Errors
/// A value out of range.
fn limits(args: &LlmArgs, cfg: &ConfigFile, embedded: bool) -> Result<Limits> {
    let timeout = args.llm_timeout.or(cfg.llm_timeout);
    if timeout == Some(0) {
        bail!(UserError::new(
            "--llm-timeout (config llm_timeout) must be at least 1 second"
        ));
    }
    let budget = args.retry_budget.or(cfg.retry_budget);
    for (name, value) in [
        ("--retry-budget (config retry_budget)", budget),
        ("--llm-timeout (config llm_timeout)", timeout),
    ] {
        if let Some(v) = value.filter(|v| *v > MAX_RETRY_BUDGET_S) {
            bail!(UserError::new(format!(
                "{name} {v} is too large; give at most {MAX_RETRY_BUDGET_S} seconds"
            )));
        }
    }
    let (timeout_s, retry_budget_s) =
        crate::llm::http::budget::time_limits(timeout, budget, embedded).map_err(UserError::new)?;
    // A budget that follows from a long time limit stays within the longest one (the
    // time limit, at most that long, stays within it).
    let retry_budget_s = retry_budget_s.min(MAX_RETRY_BUDGET_S);
    let ctx = args.ctx.or(cfg.ctx).unwrap_or(16384);
    if ctx < 1024 {
        bail!(UserError::new(format!(
            "--ctx (config ctx) {ctx} is too small; give at least 1024 tokens"
        )));
    }
    let cores = std::thread::available_parallelism()
        .map(|n| n.get() as u32)
        .unwrap_or(2);
    let threads = args.threads.or(cfg.threads).unwrap_or(cores);
    if threads == 0 {
        bail!(UserError::new(
            "--threads (config threads) must be at least 1"
        ));
    }
    Ok(Limits {
        timeout_s,
        retry_budget_s,
        ctx,
        threads,
    })
}
