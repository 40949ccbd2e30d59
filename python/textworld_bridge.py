"""Ariadne's TextWorld bridge: one game per process, JSON lines over stdin/stdout.

Requests (one JSON object per line on stdin):
  {"cmd": "reset", "game": "/path/game.z8"}   -> starts (or restarts) the game
  {"cmd": "step", "action": "open door"}      -> plays one command
  {"cmd": "quit"}                             -> replies, then exits

Replies (one JSON object per line on stdout):
  {"ok": true, "observation": str, "score": int, "reward": int, "max_score": int,
   "done": bool, "won": bool, "lost": bool, "moves": int,
   "admissible_commands": [str], "inventory": str, "room": str|null,
   "objective": str, "walkthrough": [str]|null, "facts": [[predicate, arg, ...]]|null}
  {"ok": false, "kind": "missing_game"|"missing_sidecar"|"bad_spec"|"episode_over"|"bad_request"|"textworld",
   "error": str}

Facts this bridge handles (also in docs/games.md, "The Python side"): admissible commands need the .json sidecar
(TextWorld silently returns none without it, so a missing sidecar is an error); env.step
returns the cumulative score, so reward is the score delta; after the end TextWorld keeps
answering, so `done` is tracked here; the room name is read from the `-= Room =-` header
(TextWorld's `location` info is empty for .z8 games); the banner and the status line are
stripped from observations.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any

from ariadne_bridge import (
    KIND_BAD_REQUEST,
    KIND_EPISODE_OVER,
    KIND_MISSING_GAME,
    KIND_MISSING_SIDECAR,
    Reply,
    error,
    guard_stdout,
    serve,
)

# Everything TextWorld prints goes to stderr; stdout carries only protocol lines.
_proto = guard_stdout()

import textworld  # noqa: E402

ROOM_RE = re.compile(r"-=\s*(.+?)\s*=-")
BANNER_CHARS = set(" _|\\/$<>-")


def clean(text: str) -> tuple[str, str | None]:
    """Strip the ASCII-art banner, the trailing prompt and status line; return (text, room)."""
    room = None
    kept = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(">"):
            # The prompt line carries the status: ">   -= Room =-score/moves".
            m = ROOM_RE.search(stripped)
            if m:
                room = m.group(1)
            continue
        if stripped and set(stripped) <= BANNER_CHARS and ("$" in stripped or "|" in stripped or "_" in stripped):
            continue
        m = ROOM_RE.fullmatch(stripped)
        if m:
            room = m.group(1)
        kept.append(line.rstrip())
    out = "\n".join(kept)
    out = re.sub(r"\n{3,}", "\n\n", out).strip()
    return out, room


def facts(state: Any) -> list[list[str]] | None:
    """The true state as [predicate, arg, ...] lists, sorted; None when unavailable."""
    props = state.get("facts")
    if props is None:
        return None
    out = []
    for p in props:
        try:
            out.append([p.name] + [a.name for a in p.arguments])
        except AttributeError:
            continue
    return sorted(out)


class Session:
    """One TextWorld game at a time."""

    def __init__(self) -> None:
        self.env: Any = None
        self.done = False
        self.score = 0
        self.max_score = 0
        self.room: str | None = None
        self.objective = ""
        self.walkthrough: list[str] | None = None

    def reply(self, state: Any, reward: int, observation: str | None = None) -> Reply:
        obs, room = clean(state.feedback if observation is None else observation)
        if room:
            self.room = room
        won = bool(state.get("won") or False)
        lost = bool(state.get("lost") or False)
        return {
            "ok": True,
            "observation": obs,
            "score": int(self.score),
            "reward": int(reward),
            "max_score": int(self.max_score),
            "done": self.done,
            "won": won,
            "lost": lost,
            "moves": int(state.get("moves") or 0),
            "admissible_commands": sorted(state.get("admissible_commands") or []),
            "inventory": clean(state.get("inventory") or "")[0],
            "room": self.room,
            "objective": self.objective,
            "walkthrough": self.walkthrough,
            # The game's true state (TextWorld's `facts`, entity display names), for
            # measuring the agent's world model; it never reaches a prompt.
            "facts": facts(state),
        }

    def reset(self, game: Any) -> Reply:
        if not isinstance(game, str) or not game:
            return error(KIND_BAD_REQUEST, "reset needs a 'game' path")
        if not os.path.isfile(game):
            return error(KIND_MISSING_GAME, "game file not found: %s" % game)
        sidecar = os.path.splitext(game)[0] + ".json"
        if not os.path.isfile(sidecar):
            return error(
                KIND_MISSING_SIDECAR,
                "the game's .json sidecar is missing: %s (TextWorld gives no score and no "
                "admissible commands without it; regenerate the game with tw-make)" % sidecar,
            )
        if self.env is not None:
            self.env.close()
        infos = textworld.EnvInfos(
            admissible_commands=True, inventory=True, max_score=True, won=True, lost=True,
            moves=True, score=True, objective=True, facts=True,
        )
        self.env = textworld.start(game, request_infos=infos)
        state = self.env.reset()
        self.done = False
        self.score = int(state.get("score") or 0)
        self.max_score = int(state.get("max_score") or 0)
        self.objective = state.get("objective") or ""
        # The walkthrough recorded in the sidecar (tw-make and `ariadne games make` write
        # one); asking TextWorld for policy commands would replan at every step.
        try:
            with open(sidecar) as f:
                walkthrough = (json.load(f).get("metadata") or {}).get("walkthrough")
        except (OSError, ValueError):
            walkthrough = None
        self.walkthrough = list(walkthrough) if walkthrough else None
        self.room = None
        return self.reply(state, 0)

    def step(self, action: Any) -> Reply:
        if self.env is None:
            return error(KIND_BAD_REQUEST, "step before reset")
        if not isinstance(action, str):
            return error(KIND_BAD_REQUEST, "step needs an 'action' string")
        if self.done:
            return error(KIND_EPISODE_OVER, "the episode is over; reset to play again")
        state, score, done = self.env.step(action)
        score = int(score or 0)
        reward = score - self.score
        self.score = score
        self.done = bool(done)
        return self.reply(state, reward)

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


def main() -> None:
    serve(Session(), _proto)


if __name__ == "__main__":
    main()
