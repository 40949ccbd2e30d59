"""Ariadne's ScienceWorld bridge: same JSON-lines protocol as textworld_bridge.py.

Needs `scienceworld==1.2.3` (it bundles its Java server; a `java` on PATH, 8 or newer). One
JVM is started at the first reset and reused by later resets.

Requests: {"cmd": "reset", "game": "scienceworld:<task>[?variation=N&simplification=S]"},
{"cmd": "step", "action": str}, {"cmd": "quit"}. Replies are those of textworld_bridge.py
(kinds missing_game, episode_over, bad_request, textworld). Spec keys: `variation` (int,
default 0; each task has its own number of variations), `simplification` (ScienceWorld's
simplification string: `easy`, the default, or a comma-separated list such as
`teleportAction,openDoors`; `none` for none).

Facts this bridge handles (checked against 1.2.3):
- Score: ScienceWorld's 0..100 task score (`max_score` 100); it can go negative when the
  task fails. `won` is a score of 100 at the end, `lost` a failed task (score below 0 at the
  end); `done` is the library's own.
- Task description: ScienceWorld's, as the objective.
- Gold path: `get_gold_action_sequence()` after a load with generateGoldPath; reset replays it
  on a fresh copy and reports it cut at the winning step, or null (a warning on stderr) when it
  does not win; the task is then reset again (a variation is deterministic).
- room comes from the free `look` text ("This room is called the kitchen." -> "kitchen"),
  inventory from the library's inventory text, the admissible commands from its valid
  action-object combinations; `moves` counts the steps sent since reset.
- facts: where things are, from the library's object tree (`getObjectTree()`, about 16 ms a
  step), led by ["decides", "location"] as the Jericho bridge's are: at(P, room) for the agent,
  in(x, I) for what its inventory holds, at(x, room) for a thing directly in a room the agent
  has been in this episode, in(x, y) for a thing inside or on another (a pot on the stove, the
  water in the pot). The electrical terminals every object carries for the circuit simulation
  (`terminal 1`, `terminal 2`, `anode`, `cathode`) are parts, not things, and are left out, as
  are deleted objects. States (open, activated, temperatures) and the doors between rooms (not
  in the tree) are left unverifiable.
"""
from __future__ import annotations

import re
import sys
from typing import Any

from ariadne_bridge import (
    KIND_BAD_REQUEST,
    KIND_BAD_SPEC,
    KIND_EPISODE_OVER,
    KIND_MISSING_GAME,
    BadRequest,
    Reply,
    error,
    guard_stdout,
    serve,
)

# Everything the library, py4j or the JVM prints goes to stderr; stdout carries only protocol
# lines.
_proto = guard_stdout()

from scienceworld import ScienceWorldEnv  # noqa: E402

PREFIX = "scienceworld:"
ROOM_RE = re.compile(r"This room is called the (.+?)\.")
# Parts every object carries for ScienceWorld's electrical simulation, not things.
PARTS = frozenset({"terminal 1", "terminal 2", "anode", "cathode"})


def _things(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The objects directly inside `node`, deleted objects and parts left out."""
    return [c for c in (node.get("contents") or {}).values()
            if isinstance(c, dict) and not c.get("isDeleted") and c.get("name") not in PARTS]


def _holds_agent(node: dict[str, Any]) -> bool:
    return node.get("name") == "agent" or any(_holds_agent(c) for c in _things(node))


def location_facts(tree: dict[str, Any], visited: set[str]) -> list[list[str]] | None:
    """Where things are (see the module documentation), adding the agent's room to
    `visited`; None when the tree holds no agent."""
    rooms = {r["name"]: r for r in _things(tree)}
    here = next((name for name, r in rooms.items() if _holds_agent(r)), None)
    if here is None:
        return None
    visited.add(here)
    out: list[list[str]] = [["at", "P", here]]

    def inside(holder: dict[str, Any], label: str, predicate: str) -> None:
        for c in _things(holder):
            if c["name"] == "agent":
                for inventory in _things(c):
                    if inventory["name"] == "inventory":
                        inside(inventory, "I", "in")
                continue
            out.append([predicate, c["name"], label])
            inside(c, c["name"], "in")

    for name in sorted(visited):
        if name in rooms:
            inside(rooms[name], name, "at")
    return [["decides", "location"]] + sorted(out)


def parse_spec(spec: Any) -> tuple[str, int, str]:
    """'scienceworld:boil?variation=3' -> (task, variation, simplification string)."""
    if not isinstance(spec, str) or not spec.startswith(PREFIX):
        raise BadRequest(KIND_BAD_REQUEST, "reset needs a 'game' of the form scienceworld:<task>[?key=value&...]")
    task, _, query = spec[len(PREFIX):].partition("?")
    variation, simplification = 0, "easy"
    for item in filter(None, query.split("&")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise BadRequest(KIND_BAD_REQUEST, "bad parameter %r in %r (want key=value)" % (item, spec))
        if key == "variation":
            try:
                variation = int(value)
            except ValueError:
                raise BadRequest(KIND_BAD_REQUEST, "variation must be a whole number, not %r" % value) from None
        elif key == "simplification":
            simplification = "" if value == "none" else value
        else:
            raise BadRequest(KIND_BAD_REQUEST, "unknown parameter %r (known: variation, simplification)" % key)
    return task, variation, simplification


class Session:
    """One ScienceWorld task at a time, in one JVM."""

    def __init__(self) -> None:
        self.env: Any = None
        self.game: tuple[str, int, str] | None = None
        self.done, self.score, self.moves = False, 0, 0
        self.objective = ""
        self.walkthrough: list[str] | None = None
        self.visited: set[str] = set()

    def load(self, game: tuple[str, int, str]) -> dict[str, Any]:
        """Load the task's variation afresh; return the library's infos."""
        task, variation, simplification = game
        self.env.load(task, variation, simplificationStr=simplification, generateGoldPath=True)
        return self.env.reset()[1]

    def verified_walkthrough(self, game: tuple[str, int, str]) -> list[str] | None:
        gold = [a for a in self.env.get_gold_action_sequence() if a and not a.startswith("ERROR")]
        self.load(game)
        for i, action in enumerate(gold):
            _, _, done, infos = self.env.step(action)
            if done:
                if int(infos.get("score", 0)) >= 100:
                    return gold[: i + 1]
                break
        print("scienceworld_bridge: the gold path of %r does not win; no walkthrough" % (game,), file=sys.stderr)
        return None

    def reply(self, observation: str, infos: dict[str, Any], reward: int) -> Reply:
        room = ROOM_RE.search(infos.get("look") or "")
        return {
            "ok": True,
            "observation": "\n".join(line.rstrip() for line in observation.split("\n")).strip(),
            "score": self.score,
            "reward": reward,
            "max_score": 100,
            "done": self.done,
            "won": self.done and self.score >= 100,
            "lost": self.done and self.score < 0,
            "moves": self.moves,
            "admissible_commands": sorted(set(infos.get("valid") or [])),
            "inventory": (infos.get("inv") or "").strip(),
            "room": room.group(1) if room else None,
            "objective": self.objective,
            "walkthrough": self.walkthrough,
            "facts": location_facts(self.env.getObjectTree(), self.visited),
        }

    def reset(self, spec: Any) -> Reply:
        game = parse_spec(spec)
        if self.env is None:
            self.env = ScienceWorldEnv("", envStepLimit=10 ** 9)
        self.game = None  # a failed reset leaves no episode to step in
        task, variation, _ = game
        names = self.env.get_task_names()
        if task not in names:
            raise BadRequest(KIND_MISSING_GAME, "unknown ScienceWorld task %r; known tasks: %s"
                             % (task, ", ".join(names)))
        # The library gives the count per task; a variation past it is refused here.
        count = self.env.get_max_variations(task)
        if not 0 <= variation < count:
            raise BadRequest(KIND_BAD_SPEC, "task %r has variations 0 to %d, not %d"
                             % (task, count - 1, variation))
        try:
            self.load(game)
        except Exception as exc:  # the server rejected the simplification string
            raise BadRequest(KIND_BAD_REQUEST, str(exc).strip().splitlines()[-1]) from None
        self.walkthrough = self.verified_walkthrough(game)
        infos = self.load(game)
        self.objective = self.env.get_task_description() or ""
        self.done, self.moves = False, 0
        self.visited = set()
        self.score = int(infos.get("score", 0))
        self.game = game
        return self.reply(infos.get("look") or "", infos, 0)

    def step(self, action: Any) -> Reply:
        if self.game is None:
            return error(KIND_BAD_REQUEST, "step before reset")
        if not isinstance(action, str):
            return error(KIND_BAD_REQUEST, "step needs an 'action' string")
        if self.done:
            return error(KIND_EPISODE_OVER, "the episode is over; reset to play again")
        observation, _, done, infos = self.env.step(action)
        self.moves += 1
        score = int(infos.get("score", 0))
        reward, self.score = score - self.score, score
        self.done = bool(done)
        return self.reply(observation, infos, reward)

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env.close = lambda: None


def main() -> None:
    serve(Session(), _proto)


if __name__ == "__main__":
    main()
