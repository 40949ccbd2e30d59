"""Ariadne's Jericho bridge: human-written z-machine games (.z3, .z5, .z8, ...), JSON lines.

Needs `jericho==3.3.1` (it builds from its source distribution with the system's C
compiler) and spaCy, which Jericho uses only to tokenize: it would download the
`en_core_web_sm` pipeline at its first tokenization, so a blank English pipeline (the same
tokenizer, no download) is set in its place before Jericho loads.

Requests and replies are those of textworld_bridge.py, plus the failure kind `bad_game` (a
file that is not a z-machine story) and two reply fields:
  "free_text": true when Jericho cannot list the game's valid actions (a game it does not
      support): the agent then writes its commands for the game's parser;
  "facts": the object tree as [predicate, arg, ...] lists, led by ["decides", "location"]
      (these facts decide where things are, nothing else): at(P, place) for the player,
      in(x, I) for what it carries, at(x, place) for a thing directly in a place the player
      has been in this episode, in(x, y) for a thing inside (or on) another thing there.

Facts this bridge handles (checked against jericho 3.3.1):
- Games Jericho supports (its bindings know the file's MD5): valid actions from its
  detection (about 0.3 s a step), score, maximum score, moves, victory and death from the
  game's memory, the walkthrough from the bindings with the bindings' seed.
- Other games: no valid actions (free-text play); the score and moves from the status line
  the game draws ("Score: 3 Moves: 12", which Jericho appends after the prompt); the maximum
  score from the `score` command played on a copy of the start state (Inform's "out of a
  possible N", Infocom's "total of N points"; 0 when neither answers); won and lost from the
  texts Inform's library prints ("*** You have won ***", "*** You have died ***"); the seed
  fixed at 1 (Jericho's default for them changes with the time). A sidecar NAME.json beside
  the game may give "walkthrough" (a list of commands) and "objective".
- The object tree is read from the game's memory by ariadne_zmachine.py (Jericho's reader
  works only for supported games and drops abbreviations from names); the player is
  Jericho's self object, or Inform's "(self object)" when that number names a class.
- The player's room: see `Session.place` (a bed or a boat is not a room).
- Meta-commands (`save`, `restore`, `restart`, `quit`, `script`, `undo`, ...) are refused with
  a bracketed note as the observation; the game does not see them and no turn passes.
- The inventory text is the game's answer to `inventory` on a copy of the state, so no
  turn is spent on it.
- The prompt line and the status line after it are cut from observations; an interpreter
  that halts on a runtime error is an engine error naming the command.
"""

from __future__ import annotations

import json
import os
import re
import sys
import warnings
from typing import Any

from ariadne_bridge import (
    KIND_BAD_GAME,
    KIND_BAD_REQUEST,
    KIND_ENGINE,
    KIND_EPISODE_OVER,
    KIND_MISSING_GAME,
    BadRequest,
    Reply,
    error,
    guard_stdout,
    serve,
)
from ariadne_zmachine import Story, children

# Everything Jericho, spaCy or frotz prints goes to stderr; stdout carries only protocol lines.
_proto = guard_stdout()

import jericho.util  # noqa: E402
import spacy  # noqa: E402

jericho.util.spacy_nlp = spacy.blank("en")  # type: ignore[attr-defined]

from jericho import FrotzEnv  # noqa: E402

warnings.simplefilter("ignore")  # Jericho warns once per unsupported game; the reply says it

SCORE_RE = re.compile(r"Score:\s*(-?\d+)")
MOVES_RE = re.compile(r"(?:Moves|Turns):\s*(\d+)")
MAX_SCORE_RE = re.compile(r"out of a possible (\d+)|total of (\d+) points|out of (\d+)")
WON_RE = re.compile(r"\*{3,}\s*You have won\s*\*{3,}", re.IGNORECASE)
LOST_RE = re.compile(r"\*{3,}\s*You have died\s*\*{3,}", re.IGNORECASE)
HALTED = "Emulator halted"
ROOMS_CONTAINER = 20
META = {"save", "restore", "restart", "quit", "q", "script", "unscript", "transcript", "noscript", "undo"}
"""Interpreter commands that save, load, restart or quit the game, write files or rewind it:
refused (the game never sees them), so an episode is one game played forward."""
UNSUPPORTED_SEED = 1


def split_status(text: str) -> tuple[str, str]:
    """(the game's text without the prompt line, the status line after the prompt)."""
    lines = text.replace("\r", "").split("\n")
    status = ""
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].lstrip().startswith(">"):
            status = " ".join(lines[i:]).lstrip()[1:].strip()
            lines = lines[:i]
            break
        if lines[i].strip():
            break
    body = "\n".join(line.rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", body).strip(), status


class Session:
    """One z-machine game at a time."""

    def __init__(self) -> None:
        self.env: Any = None
        self.story: Story | None = None
        self.supported = False
        self.done = False
        self.score = 0
        self.max_score = 0
        self.moves = 0
        self.player = 0
        self.visited: set[int] = set()
        self.objective = ""
        self.walkthrough: list[str] | None = None

    # ---- the object tree -------------------------------------------------------------

    def memory(self) -> bytes:
        assert self.story is not None
        return self.story.memory(bytes(self.env.get_state()[0]))

    def find_player(self) -> int:
        """Jericho's self object, or Inform's "(self object)" when that number is a class
        (Inform 6.12's library declares SelfClass just before the self object)."""
        assert self.story is not None
        mem = self.memory()
        objects = self.story.objects(mem)
        first = int(self.env.player_obj_num or 0)
        classes = {n for n, o in objects.items() if o.parent == 0 and self.story.name(mem, o) == "Class"}
        if first in objects and objects[first].parent and objects[first].parent not in classes:
            return first
        for n, o in objects.items():
            if o.parent and o.parent not in classes and self.story.name(mem, o) in ("(self object)", "yourself"):
                return n
        return 0  # no player found (an Inform 7 story): no ground truth rather than a wrong one

    def place(self, objects: dict[int, Any], mem: bytes) -> int:
        """The room the player is in, even inside a bed or a boat: in a version 1-3 game
        the object of global 0 (the status line's room, Z-Machine Standard 8.2.2) when it
        holds the player; otherwise the player's top-level ancestor (Inform's rooms have
        no parent), or the ancestor just below it when that is a container of rooms (an
        Infocom game's, with many children)."""
        assert self.story is not None
        chain: list[int] = []
        n = objects[self.player].parent if self.player in objects else 0
        while n and n in objects and n not in chain:
            chain.append(n)
            n = objects[n].parent
        if not chain:
            return 0
        if self.story.version <= 3 and self.story.global_value(mem, 0) in chain:
            return self.story.global_value(mem, 0)
        top = chain[-1]
        if not self.story.is_inform() and len(chain) >= 2 and len(children(objects, top)) >= ROOMS_CONTAINER:
            return chain[-2]
        return top

    def tree(self) -> tuple[str | None, list[list[str]] | None]:
        """The player's room and where things are, from one read of the object tree (see
        the module documentation); (None, None) without a player."""
        if self.story is None or not self.player:
            return None, None
        mem = self.memory()
        objects = self.story.objects(mem)
        room = self.place(objects, mem)
        if self.player not in objects or not room:
            return None, None
        self.visited.add(room)
        names = {n: self.story.name(mem, o) for n, o in objects.items()}
        out: list[list[str]] = [["at", "P", names[room]]]
        seen: set[int] = set()

        def walk(holder: int, label: str, predicate: str) -> None:
            for c in children(objects, holder):
                if c in seen:
                    continue
                seen.add(c)
                if c == self.player:
                    walk(c, "I", "in")
                    continue
                if names.get(c):
                    out.append([predicate, names[c], label])
                walk(c, names.get(c) or "", "in")

        for place in sorted(self.visited):
            if place in objects and names.get(place):
                walk(place, names[place], "at")
        return names[room] or None, [["decides", "location"]] + sorted(out)

    # ---- requests --------------------------------------------------------------------

    def reply(self, text: str, reward: int, won: bool, lost: bool) -> Reply:
        admissible: list[str] = []
        if self.supported and not self.done:
            try:
                admissible = sorted(set(self.env.get_valid_actions()))
            except Exception as exc:  # Jericho's detection fails on a few states
                print("jericho_bridge: valid actions failed: %s" % exc, file=sys.stderr)
        room, facts = self.tree()
        return {
            "ok": True,
            "observation": text,
            "score": self.score,
            "reward": reward,
            "max_score": self.max_score,
            "done": self.done,
            "won": won,
            "lost": lost,
            "moves": self.moves,
            "admissible_commands": admissible,
            "free_text": not self.supported,
            "inventory": self.aside("inventory") if not self.done else "",
            "room": room,
            "objective": self.objective,
            "walkthrough": self.walkthrough,
            "facts": facts,
        }

    def read_sidecar(self, game: str) -> dict[str, Any]:
        path = os.path.splitext(game)[0] + ".json"
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def aside(self, command: str) -> str:
        """What the game answers `command` on a copy of the current state (no turn passes)."""
        state = self.env.get_state()
        try:
            return split_status(self.env.step(command)[0])[0]
        except Exception:
            return ""
        finally:
            self.env.set_state(state)

    def probe_max_score(self) -> int:
        """The maximum score an unsupported game states, asked on a copy of the start."""
        m = MAX_SCORE_RE.search(self.aside("score"))
        return int(next(g for g in m.groups() if g)) if m else 0

    def reset(self, game: Any) -> Reply:
        if not isinstance(game, str) or not game:
            return error(KIND_BAD_REQUEST, "reset needs a 'game' path")
        if not os.path.isfile(game):
            return error(KIND_MISSING_GAME, "game file not found: %s" % game)
        with open(game, "rb") as f:
            rom = f.read()
        try:
            story = Story(rom)
        except ValueError as exc:
            return error(KIND_BAD_GAME, "%s is %s" % (game, exc))
        if self.env is not None:
            self.env.close()
            self.env = None
        self.story = None
        env = FrotzEnv(game)
        self.supported = bool(env.is_fully_supported)
        if not self.supported:
            env.seed(UNSUPPORTED_SEED)
        text, _ = env.reset()
        if HALTED in text or env._emulator_halted():
            return error(KIND_BAD_GAME, "the interpreter cannot run %s: %s" % (game, text.strip()[:200]))
        self.env, self.story = env, story
        self.done = False
        self.visited = set()
        self.player = self.find_player()
        sidecar = self.read_sidecar(game) if not self.supported else {}
        body, status = split_status(text)
        if self.supported:
            self.score, self.max_score, self.moves = env.get_score(), env.get_max_score(), env.get_moves()
            walkthrough = env.get_walkthrough()
        else:
            self.score, self.moves = self.status_numbers(status, 0, 0)
            self.max_score = self.probe_max_score()
            walkthrough = sidecar.get("walkthrough")
        self.walkthrough = [str(a) for a in walkthrough] if isinstance(walkthrough, list) and walkthrough else None
        objective = sidecar.get("objective")
        self.objective = objective if isinstance(objective, str) else ""
        return self.reply(body, 0, False, False)

    def status_numbers(self, status: str, score: int, moves: int) -> tuple[int, int]:
        s, m = SCORE_RE.search(status), MOVES_RE.search(status)
        return (int(s.group(1)) if s else score, int(m.group(1)) if m else moves + 1)

    def step(self, action: Any) -> Reply:
        if self.env is None:
            return error(KIND_BAD_REQUEST, "step before reset")
        if not isinstance(action, str):
            return error(KIND_BAD_REQUEST, "step needs an 'action' string")
        if self.done:
            return error(KIND_EPISODE_OVER, "the episode is over; reset to play again")
        if "\n" in action:
            raise BadRequest(KIND_BAD_REQUEST, "an action is one line")
        words = action.strip().lower().split()
        if words and words[0] in META:
            return self.reply(
                "[Ariadne: %r is not played: commands that save, restore, restart or quit the game, "
                "write a transcript or undo a turn are refused.]" % words[0],
                0,
                False,
                False,
            )
        text, _, done, _ = self.env.step(action)
        if HALTED in text or self.env._emulator_halted():
            self.done = True
            return error(KIND_ENGINE, "the interpreter halted on a runtime error after %r" % action)
        body, status = split_status(text)
        before = self.score
        if self.supported:
            self.score, self.moves = self.env.get_score(), self.env.get_moves()
            won, lost = bool(self.env.victory()), bool(self.env.game_over())
        else:
            self.score, self.moves = self.status_numbers(status, self.score, self.moves)
            won, lost = bool(WON_RE.search(body)), bool(LOST_RE.search(body))
        self.done = bool(done or won or lost)
        return self.reply(body, self.score - before, won, lost)

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


def main() -> None:
    serve(Session(), _proto)


if __name__ == "__main__":
    main()
