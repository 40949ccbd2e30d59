"""Ariadne as a TALES agent (microsoft/tale-suite): registers `ariadne` with
`tales.agent.register`, so that TALES's own `benchmark.py --agent tales_ariadne.py ariadne
...` plays Ariadne on TALES's games with TALES's scoring and logs.

Each episode TALES starts (`reset`) runs one `ariadne agent` process, spoken to over its
JSON-lines protocol (docs/agent-protocol.md in the Ariadne repository): the observation
and TALES's info go in, Ariadne's command comes back. Ariadne writes its own run
directory for each episode (`--runs-dir`); `ariadne replay` reproduces it. When TALES
gives no admissible commands (its default), Ariadne writes free text for the game's
parser, in the language of the game's family (TALES's environment name, `TWX...`,
`ScienceWorld...`, `Jericho...`, names it). TALES's `stats` carry the prompt and completion
tokens of every LLM call behind each command. TALES ends an episode by resetting or dropping
the agent; the process's input is then closed and Ariadne ends the episode as `stopped`,
every answered step kept.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys

import tales
from tales.agent import register

PROTOCOL = 1


def _whole(x: object) -> int | None:
    """A score as a whole number, when it is one."""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return int(f) if f.is_integer() else None


def _fields(info: dict, admissible: bool) -> dict:
    """What the protocol takes from TALES's info dictionary. TALES's environments put
    their valid actions in `info` whatever `--admissible-commands` says; they are passed
    on only with it (`admissible`), as TALES's own agents read them only then."""
    out = {}
    commands = info.get("admissible_commands")
    if admissible and isinstance(commands, (list, tuple)) and commands:
        out["admissible_commands"] = [str(c) for c in commands]
    for key in ("score", "max_score"):
        value = _whole(info.get(key))
        if value is not None:
            out[key] = value
    for key in ("won", "lost"):
        if key in info and info[key] is not None:
            out[key] = bool(info[key])
    goal = info.get("taskDescription") or info.get("goal")
    if isinstance(goal, str) and goal.strip():
        out["goal"] = goal
    moves = _whole(info.get("moves"))
    if moves is not None:
        out["info"] = {"moves": moves}
    return out


class AriadneAgent(tales.Agent):
    """Ariadne's agent (AriGraph and its baselines) behind `ariadne agent`."""

    def __init__(self, *args, **kwargs):
        self.binary = kwargs.get("ariadne_bin") or os.environ.get("ARIADNE_BIN", "ariadne")
        self.profile = kwargs.get("ariadne_profile") or "paper"
        self.memory = kwargs.get("ariadne_memory") or "arigraph"
        self.runs_dir = kwargs.get("ariadne_runs_dir") or "runs"
        self.extra = shlex.split(kwargs.get("ariadne_args") or "")
        # TALES stops at its own cap; Ariadne's is set past it so TALES decides.
        self.max_steps = int(kwargs.get("nb_steps") or 100) + 1
        # TALES's `--admissible-commands`: without it (its default) Ariadne writes free
        # text, as TALES's agents do.
        self.admissible = bool(kwargs.get("admissible_commands"))
        self.proc = None
        self.waiting = False
        self.runs = []

    @property
    def uid(self) -> str:
        return f"Ariadne_{self.profile}_{self.memory}"

    @property
    def params(self) -> dict:
        return {
            "agent_type": "ariadne",
            "admissible_commands": self.admissible,
            "profile": self.profile,
            "memory": self.memory,
            "ariadne_args": " ".join(self.extra),
        }

    def reset(self, obs: str, info: dict, env: str) -> None:
        self.close()
        name = re.sub(r"[^A-Za-z0-9._-]", "-", str(env or "game"))[:100] or "game"
        cmd = [self.binary, "agent", "--name", name, "--max-steps", str(self.max_steps),
               "--runs-dir", self.runs_dir, "--profile", self.profile,
               "--memory", self.memory, *self.extra]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8", bufsize=1)
        self._send({"type": "reset", "observation": str(obs), **_fields(info, self.admissible)})
        self.waiting = True

    def act(self, obs: str, reward: float, done: bool, info: dict) -> tuple[str, dict]:
        if self.proc is None:
            raise RuntimeError("act before reset")
        if not self.waiting:
            self._send({"type": "step", "observation": str(obs), "done": bool(done),
                        **_fields(info, self.admissible)})
        self.waiting = False
        message = self._next()
        usage = message.get("usage") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        response = int(usage.get("completion_tokens") or 0)
        # TALES's token columns: every LLM call Ariadne made for this command (memory
        # update, retrieval, plan, action); 0 for a later move of a `go to` route.
        stats = {"prompt": None, "response": None, "nb_tokens": prompt + response,
                 "nb_tokens_prompt": prompt, "nb_tokens_response": response}
        if message["type"] == "end":
            # Ariadne ended the episode (the game was done): nothing more to do.
            return "look", stats
        return message["command"], stats

    def _send(self, message: dict) -> None:
        line = json.dumps({"protocol": PROTOCOL, **message})
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _next(self) -> dict:
        """The next `command` or `end` line; `error` lines are reported and skipped."""
        while True:
            line = self.proc.stdout.readline()
            if not line:
                code = self.proc.wait()
                raise RuntimeError(f"ariadne agent ended (exit code {code}); see its stderr")
            message = json.loads(line)
            kind = message.get("type")
            if kind == "error" and message.get("fatal"):
                raise RuntimeError(f"ariadne agent: {message.get('error')}")
            if kind == "error":
                print(f"ariadne agent refused a line: {message.get('error')}", file=sys.stderr)
                continue
            if kind == "end":
                self.runs.append(message.get("run"))
            return message

    def close(self) -> None:
        """End the running episode, if any: its input closed, its end line read."""
        if self.proc is None:
            return
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("type") == "end":
                self.runs.append(message.get("run"))
        self.proc.wait()
        self.proc = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def build_argparser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser()
    group = parser.add_argument_group("Ariadne settings")
    group.add_argument("--ariadne-bin", default=None,
                       help="The ariadne binary (default: $ARIADNE_BIN, else `ariadne` on PATH).")
    group.add_argument("--ariadne-profile", default="paper", choices=["paper", "extended"],
                       help="Ariadne's profile. Default: %(default)s")
    group.add_argument("--ariadne-memory", default="arigraph",
                       help="Ariadne's memory design (arigraph, rag, full-history, ...). Default: %(default)s")
    group.add_argument("--ariadne-runs-dir", default="runs",
                       help="Where Ariadne writes its run directories. Default: %(default)s")
    group.add_argument("--ariadne-args", default="",
                       help="More `ariadne agent` options, as one string (e.g. '--depth 2').")
    return parser


register(
    name="ariadne",
    desc="Ariadne's AriGraph agent (or one of its baselines) through `ariadne agent`.",
    klass=AriadneAgent,
    add_arguments=build_argparser,
)
