//! Ariadne inside TALES (microsoft/tale-suite, the real package from PyPI): `ariadne
//! setup --tales` installs it with Ariadne's agent module, and a driver written here
//! plays a TextWorld-Express game as TALES's `benchmark.py` does (`tales` environments
//! through gymnasium, the agent found in `tales.agent.AGENTS`, `reset` then `act` and
//! `env.step`, the episode ended by TALES at its step cap). The LLM is the scripted
//! server. Ariadne's run directory holds every step TALES answered and replays exactly.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Scripted, bin, read_jsonl};
use serde_json::Value;

/// TALES's evaluation loop, cut to what the agent sees (`benchmark.py`, `evaluate`).
const DRIVER: &str = r#"
import importlib.util, json, sys, warnings
warnings.simplefilter("ignore")
import gymnasium as gym
import tales
module, binary, runs, listed = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
spec = importlib.util.spec_from_file_location("tales_ariadne", module)
spec.loader.exec_module(importlib.util.module_from_spec(spec))
_, Agent, _ = tales.agent.AGENTS["ariadne"]
agent = Agent(ariadne_bin=binary, ariadne_runs_dir=runs, nb_steps=3, admissible_commands=listed)
env = gym.make("tales/TWXCoinCollector-v0", disable_env_checker=True, admissible_commands=True)
obs, info = env.reset(seed=20241001)
agent.reset(obs, info, "TWXCoinCollector")
score, done, actions, offered, costs = 0, False, [], [], []
for step in range(3):
    offered.append(list(info["admissible_commands"]))
    action, stats = agent.act(obs, score, done, info)
    actions.append(action)
    costs.append([stats[k] for k in ("nb_tokens_prompt", "nb_tokens_response", "nb_tokens")])
    obs, _, done, info = env.step(action)
    score = info["score"]
    if done:
        break
agent.close()
print(json.dumps({"actions": actions, "offered": offered, "costs": costs, "runs": agent.runs, "uid": agent.uid}))
"#;

#[test]
fn tales_plays_ariadne_on_a_textworld_express_game() {
    let setup = Command::new(bin())
        .args(["setup", "--games-only", "--tales"])
        .output()
        .expect("run ariadne setup");
    assert!(
        setup.status.success(),
        "ariadne setup --tales failed: {}",
        String::from_utf8_lossy(&setup.stderr)
    );
    let home = std::env::var_os("ARIADNE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| dirs::cache_dir().unwrap().join("ariadne"));
    let python = home.join("venv/bin/python");
    let module = home.join("scripts/tales_ariadne.py");
    assert!(module.is_file(), "setup wrote no agent module");
    // With TALES's --admissible-commands: Ariadne chooses among them.
    let (result, work) = drive(&python, &module, true);
    assert_eq!(result["uid"], "Ariadne_paper_arigraph");
    let actions = result["actions"].as_array().unwrap();
    assert!(!actions.is_empty());
    // Every command was among those TALES offered at its step.
    for (a, offered) in actions.iter().zip(result["offered"].as_array().unwrap()) {
        assert!(
            offered.as_array().unwrap().contains(a),
            "{a} not in {offered}"
        );
    }
    let run_dirs = result["runs"].as_array().unwrap();
    assert_eq!(run_dirs.len(), 1, "{result}");
    let dir = PathBuf::from(run_dirs[0].as_str().unwrap());
    let dir = if dir.is_absolute() {
        dir
    } else {
        work.path().join(dir)
    };
    // TALES answered every command but the last (its cap came first, or the game ended).
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert_eq!(steps.len(), actions.len() - 1, "{result}");
    let summary = common::read_json(dir.join("summary.json"));
    assert_eq!(summary["outcome"], "stopped");
    // TALES's token columns carry every call of each step: its prompt and completion
    // tokens, and their sum.
    let costs = result["costs"].as_array().unwrap();
    for (step, cost) in steps.iter().zip(costs) {
        let calls = step["llm_calls"].as_array().unwrap();
        let sum = |k: &str| -> u64 { calls.iter().map(|c| c["usage"][k].as_u64().unwrap()).sum() };
        let (prompt, completion) = (sum("prompt_tokens"), sum("completion_tokens"));
        assert!(calls.len() > 1 && prompt > 0, "{step}");
        assert_eq!(
            cost,
            &serde_json::json!([prompt, completion, prompt + completion]),
            "{result}"
        );
    }
    let dead = "http://127.0.0.1:9/v1";
    let replay = Command::new(bin())
        .env("OPENAI_BASE_URL", dead)
        .env("ARIADNE_EMBED_BASE_URL", dead)
        .args(["replay", dir.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    // Without it (TALES's default), the valid actions TALES's environment puts in its
    // info are not passed on: Ariadne writes free text.
    let (result, work) = drive(&python, &module, false);
    let dir = PathBuf::from(result["runs"][0].as_str().unwrap());
    let dir = if dir.is_absolute() {
        dir
    } else {
        work.path().join(dir)
    };
    let sent = std::fs::read_to_string(dir.join("harness.jsonl")).unwrap();
    assert!(!sent.contains("admissible_commands"), "{sent}");
    let steps = read_jsonl(&dir.join("steps.jsonl"));
    assert!(steps.iter().all(|s| {
        s["admissible_commands"]
            .as_array()
            .is_none_or(|a| a.is_empty())
    }));
}

/// Run the TALES driver (its `--admissible-commands` as `listed`) against a fresh
/// scripted server: what it printed, and its working directory.
fn drive(python: &Path, module: &Path, listed: bool) -> (Value, tempfile::TempDir) {
    let server = Scripted::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let runs = work.path().join("runs");
    let out = Command::new(python)
        .current_dir(work.path())
        .env("OPENAI_BASE_URL", &server.base_url)
        .env("ARIADNE_EMBED_BASE_URL", &server.base_url)
        .env("OPENAI_API_KEY", "sk-test")
        .env_remove("ARIADNE_MODEL")
        .args(["-c", DRIVER])
        .arg(module)
        .arg(bin())
        .arg(&runs)
        .arg(if listed { "1" } else { "0" })
        .output()
        .expect("run the TALES driver");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    (result, work)
}
