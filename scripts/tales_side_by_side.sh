#!/usr/bin/env bash
# TALES's zero-shot agent and Ariadne side by side, inside TALES, on one local model server.
#
#   scripts/tales_side_by_side.sh TALES_CHECKOUT OUT_DIR [GAME...]
#
# TALES_CHECKOUT is a clone of microsoft/tale-suite (its benchmark.py and agents/ are not in
# the pip package). The script:
#   1. installs what TALES's benchmark.py needs into Ariadne's managed Python environment
#      (`ariadne setup --tales --scienceworld`, then wandb, pandas, tqdm, llm, tenacity);
#   2. starts one llama.cpp server with the embedded model (Ariadne's own launcher,
#      ariadne_serve.py: one slot, the whole --ctx), on 127.0.0.1;
#   3. plays, through TALES's own benchmark.py, at STEPS steps a game (default 20):
#      TALES's zero-shot agent (agents/llm.py, conversation mode, temperature 0) in free text
#      (TALES's default) and with --admissible-commands, then Ariadne `extended` in both,
#      then Ariadne `paper` in free text. Every agent calls the same server. TALES skips the
#      games a log directory already holds, so running the script again resumes where it
#      stopped;
#   4. writes OUT_DIR/table.md: per game and per family mean, TALES's score (the best reached
#      over the maximum, in %), the step at which the best score was first reached, prompt and
#      completion tokens per step as TALES's logs count them, and seconds per step; and
#      OUT_DIR/<mode>/compare.md, `ariadne bench compare` of the zero-shot agent's and
#      Ariadne `extended`'s TALES logs.
#
# The shim the zero-shot agent needs offline (said here, as it is part of the measurement):
# TALES counts its tokens with tiktoken or a Hugging Face tokenizer, both downloaded at first
# use; OUT_DIR/offline_benchmark.py stubs the two modules and counts tokens with the server's
# own /tokenize instead, then runs benchmark.py unchanged. The agent's prompts and answers
# are TALES's. Its `llm` package is pointed at the server by OUT_DIR/llm/extra-openai-models.yaml.
#
# Environment: ARIADNE_BIN (default: target/release/ariadne, built if missing), STEPS (20),
# PORT (8642), CTX (16384), THREADS (2), PLAYS (the plays in order, default `zero-free
# zero-admissible extended-free extended-admissible paper-free`). Games default to the ten of the acceptance list.
set -euo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,5p' "$0" >&2
  exit 2
fi
tales=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 2
games=("$@")
if [ ${#games[@]} -eq 0 ]; then
  games=(TWXCoinCollector TWXMapReader TWXCookingWorld TWXTextWorldCommonsense TWXSimonSaysWithMemory10
         ScienceWorldFindPlant ScienceWorldFindNonLivingThing ScienceWorldFindLivingThing
         ScienceWorldBoil ScienceWorldGrowPlant)
fi
[ -f "$tales/benchmark.py" ] || { echo "no benchmark.py in $tales: give a clone of microsoft/tale-suite" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
steps=${STEPS:-20}
port=${PORT:-8642}
ctx=${CTX:-16384}
threads=${THREADS:-2}
bin=${ARIADNE_BIN:-$repo/target/release/ariadne}
if [ ! -x "$bin" ]; then
  (cd "$repo" && cargo build --release --quiet)
fi
export ARIADNE_BIN=$bin

# 1. TALES and its benchmark's imports in Ariadne's environment.
"$bin" setup --tales --scienceworld
home=${ARIADNE_HOME:-$HOME/.cache/ariadne}
py=$home/venv/bin/python
"$py" -c 'import wandb, pandas, tqdm, llm, tenacity' 2>/dev/null \
  || "$py" -m pip install --quiet --disable-pip-version-check wandb pandas tqdm llm tenacity
model=$(ls "$home"/models/*.gguf | head -n 1)
name=$(basename "$model" .gguf)

# 2. One model server for every agent; it dies with its parent shell, so it is started under
# a parent that waits for it, and stopped when this script exits.
if curl -s -o /dev/null "http://127.0.0.1:$port/health"; then
  echo "something already answers on port $port: stop it, or give another PORT" >&2
  exit 1
fi
setsid sh -c "'$py' '$home/scripts/ariadne_serve.py' llm --model '$model' --port $port --ctx $ctx --threads $threads --parallel 1 > '$out/server.log' 2>&1; true" &
server=$!
trap 'kill -- -$server 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  kill -0 "$server" 2>/dev/null || break
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 1
done
curl -sf "http://127.0.0.1:$port/health" >/dev/null || { echo "the model server did not start: see $out/server.log" >&2; exit 1; }

# The zero-shot agent's shim and its model declaration.
mkdir -p "$out/llm"
cat > "$out/llm/extra-openai-models.yaml" <<EOF
- model_id: $name
  model_name: $name
  api_base: http://127.0.0.1:$port/v1
EOF
cat > "$out/offline_benchmark.py" <<'EOF'
"""TALES's benchmark.py, run offline: tiktoken and transformers stubbed (their tokenizers are
downloads), tokens counted by the model server's /tokenize."""
import json
import os
import runpy
import sys
import types
import urllib.request

for name in ("tiktoken", "transformers"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["tiktoken"].model = types.SimpleNamespace(MODEL_TO_ENCODING={})
sys.modules["transformers"].AutoTokenizer = None

import tales.token  # noqa: E402

URL = os.environ["TOKENIZE_URL"]


class ServerTokenCounter(tales.token.TokenCounter):
    def tokenize(self, text):
        body = json.dumps({"content": text}).encode()
        request = urllib.request.Request(URL, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)["tokens"]


tales.token.get_token_counter = lambda model=None: ServerTokenCounter()
benchmark = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(benchmark))
runpy.run_path(benchmark, run_name="__main__")
EOF

export WANDB_MODE=disabled LLM_USER_PATH=$out/llm TOKENIZE_URL=http://127.0.0.1:$port/tokenize
export OPENAI_API_KEY=${OPENAI_API_KEY:-local} OPENAI_BASE_URL=http://127.0.0.1:$port/v1 ARIADNE_MODEL=$name
cd "$tales"

# 3. The plays. Each `benchmark.py` run skips the games its log directory already holds.
play() {  # mode agent-arguments...
  local mode=$1; shift
  local flag=()
  [ "$mode" = admissible ] && flag=(--admissible-commands)
  "$py" "$out/offline_benchmark.py" "$tales/benchmark.py" "$@" \
    --envs "${games[@]}" --nb-steps "$steps" "${flag[@]}" --log-dir "$out/$mode/logs" \
    || echo "benchmark.py ended with an error ($mode $*); its finished games are kept" >&2
}
# The one-call agent first in both modes (seconds a game), then Ariadne (minutes a game);
# PLAYS chooses which plays, in which order.
for p in ${PLAYS:-zero-free zero-admissible extended-free extended-admissible paper-free}; do
  agent=${p%%-*}
  mode=${p#*-}
  case "$agent" in
    zero) play "$mode" --agent agents/llm.py zero-shot --llm "$name" --conversation --act-temp 0 ;;
    extended|paper)
      play "$mode" --agent "$home/scripts/tales_ariadne.py" ariadne --ariadne-profile "$agent" \
        --ariadne-runs-dir "$out/$mode/runs-$agent" --ariadne-args=--length-limits ;;
    *) echo "unknown play $p in PLAYS (zero-free, zero-admissible, extended-free, extended-admissible, paper-free, paper-admissible)" >&2 ;;
  esac
done
for mode in free admissible; do
  zero=$(ls -d "$out/$mode/logs"/tales_LLMAgent_* 2>/dev/null | head -n 1)
  ext="$out/$mode/logs/tales_Ariadne_extended_arigraph"
  if [ -n "$zero" ] && [ -d "$ext" ]; then
    "$bin" bench compare "$zero" "$ext" > "$out/$mode/compare.md" || true
  fi
done

# 4. The table.
"$py" - "$out" "$steps" > "$out/table.md" <<'EOF'
import glob, json, os, sys

out, steps = sys.argv[1], int(sys.argv[2])
AGENTS = [("zero-shot", "tales_LLMAgent_"), ("Ariadne extended", "tales_Ariadne_extended_"),
          ("Ariadne paper", "tales_Ariadne_paper_")]

def family(game):
    for prefix, name in (("TWX", "TextWorld-Express"), ("ScienceWorld", "ScienceWorld"),
                         ("Jericho", "Jericho"), ("TW", "TextWorld")):
        if game.startswith(prefix):
            return name
    return "other"

def episode(summary_file):
    s = json.load(open(summary_file))
    rows = [json.loads(l) for l in open(summary_file[:-5] + ".jsonl")] if os.path.exists(summary_file[:-5] + ".jsonl") else []
    best = s["highscore"]
    first = next((r["Step"] for r in rows if r["Score"] == best), None) if best > 0 else None
    n = max(len(rows), 1)
    return {"score": 100.0 * s["norm_score"], "first": first,
            "prompt": sum(r["Prompt Tokens"] or 0 for r in rows) / n,
            "completion": sum(r["Response Tokens"] or 0 for r in rows) / n,
            "seconds": s["duration"] / max(s["nb_steps"], 1), "status": s["status"]}

print(f"TALES, {steps} steps a game: score (best reached over the maximum, %), step of the first best score, "
      "prompt / completion tokens per step, seconds per step.\n")
for mode, flag in (("free", 0), ("admissible", 1)):
    cells = {}
    games = set()
    for label, prefix in AGENTS:
        for d in glob.glob(f"{out}/{mode}/logs/{prefix}*"):
            for f in glob.glob(f"{d}/*/a{flag}_s*_steps{steps}.json"):
                game = os.path.basename(os.path.dirname(f))
                e = episode(f)
                cells[(game, label)] = e
                games.add(game)
    labels = [l for l, _ in AGENTS if any(k[1] == l for k in cells)]
    if not labels:
        continue
    print(f"## {'Free text' if mode == 'free' else 'Admissible commands'}\n")
    print("| game | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for game in sorted(games, key=lambda g: (family(g), g)):
        row = []
        for l in labels:
            e = cells.get((game, l))
            if e is None:
                row.append("")
                continue
            first = f" (step {e['first']})" if e["first"] else ""
            failed = "" if e["status"] == "finished" else f" [{e['status']}]"
            row.append(f"{e['score']:.0f}{first}; {e['prompt']:.0f} / {e['completion']:.0f} tok; {e['seconds']:.1f} s{failed}")
        print(f"| {game} | " + " | ".join(row) + " |")
    # A family's mean is taken over the games every agent of the table played, so that
    # the agents are compared on the same games.
    for fam in sorted({family(g) for g in games}):
        common = [g for g in games if family(g) == fam and all((g, l) in cells for l in labels)]
        if not common:
            continue
        means = [f"{sum(cells[(g, l)]['score'] for g in common) / len(common):.1f}" for l in labels]
        print(f"| **{fam} mean** ({len(common)} games every agent played) | " + " | ".join(means) + " |")
    print()
EOF
cat "$out/table.md"
