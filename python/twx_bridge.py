"""Ariadne's TextWorld-Express bridge: same JSON-lines protocol as textworld_bridge.py.

Needs `textworld-express==1.1.0` (pulls py4j, orjson, prompt_toolkit) and a `java` on PATH
(the bundled jar is Java 8 bytecode, so Java 8+; tested with OpenJDK 17). One JVM is started
at the first reset and reused by later resets.

Requests: {"cmd": "reset", "game": "twx:<name>[?key=value&...]"}, {"cmd": "step", "action": str},
{"cmd": "quit"}. Replies are those of textworld_bridge.py (kinds missing_game, episode_over,
bad_request, textworld). Spec keys: `seed` (int, default 0), `split` (train|dev|test, default
train: it picks the object/recipe vocabulary set; any seed works with any split); every other
key is an integer generation parameter passed to the engine's gameParams, over these defaults
(kept small for a small LLM; pass a key to override it, unknown keys are rejected by the engine):
  cookingworld  numLocations=3 numIngredients=2 numDistractorItems=2 includeDoors=0
  coin          numLocations=5 numDistractorItems=0 includeDoors=0
  twc           numLocations=1 numItemsToPutAway=2 includeDoors=0
  mapreader     numLocations=5 maxDistanceApart=2 includeDoors=0   ("mapworld" is an alias)
  arithmetic, sorting, simonsays, peckingorder: the library's defaults.

Facts this bridge handles (checked against 1.1.0):
- Scores: the engine keeps a raw score (a count of points, integral, e.g. 1 per ingredient
  taken/prepared) beside the normalized one; `score` is the raw score, `max_score` the scorer's
  maxScore (read through py4j from the game's scorer; if that fails, the scale is 0..100 of the
  normalized score). The raw score is state-based, so rewards can be negative; sorting,
  simonsays and peckingorder set it to -1 on failure.
- won/lost are taskSuccess/taskFailure; `done` (either of them) is tracked here: the library's
  own done also fires at its step limit, which is not the game's business.
- Gold path: its first element is usually a dummy "look around" (not in sorting/simonsays), and
  in twc the gold agent can add a move after the task is already won. So reset replays the gold
  path on a fresh copy of the game (without the dummy, then verbatim as a fallback) and reports
  the first version that wins, cut at the winning step; the game is then generated again, which
  is deterministic for a seed. Exception: ~6% of peckingorder dev seeds (none in train/test)
  hold two objects of one name, and which one "take" picks is not fixed by the seed: the gold
  path may then lose, and walkthrough is null when the replay lost (a warning goes to stderr).
- room comes from the engine's free "look" text ("You are in the kitchen." -> "kitchen",
  lower case), null where there is none (simonsays); inventory is the engine's inventory text,
  so no command is spent on it; `moves` counts the steps sent since reset (the library answers
  "help" with the objective itself, without a game turn; it still counts here).
Measured through the pipe (2 cores, OpenJDK 17): process start 0.04 s; first reset 0.37-0.40 s
(JVM start and class loading); later resets 2-60 ms (gold replay included); a step 0.1-0.8 ms.
"""
from __future__ import annotations

import re
import sys
from typing import Any

from ariadne_bridge import (
    KIND_BAD_REQUEST,
    KIND_EPISODE_OVER,
    KIND_MISSING_GAME,
    BadRequest,
    Reply,
    error,
    guard_stdout,
    serve,
)

# Everything the library, py4j or the JVM prints goes to stderr; stdout carries only protocol
# lines (on file descriptor 1 itself, so child processes inherit it too).
_proto = guard_stdout()

from textworld_express import GAME_NAMES, TextWorldExpressEnv  # noqa: E402

DEFAULTS = {
    "cookingworld": {"numLocations": 3, "numIngredients": 2, "numDistractorItems": 2, "includeDoors": 0},
    "coin": {"numLocations": 5, "numDistractorItems": 0, "includeDoors": 0},
    "twc": {"numLocations": 1, "numItemsToPutAway": 2, "includeDoors": 0},
    "mapreader": {"numLocations": 5, "maxDistanceApart": 2, "includeDoors": 0},
}
ALIASES = {"mapworld": "mapreader"}
SPLITS = ("train", "dev", "test")
ROOM_RE = re.compile(r"^\s*You are in the (.+?)\.")
DUMMY = "look around"


def parse_spec(spec: Any) -> tuple[str, int, str, str]:
    """'twx:coin?seed=3&numLocations=3' -> (game name, seed, split, gameParams string)."""
    if not isinstance(spec, str) or not spec.startswith("twx:"):
        raise BadRequest(KIND_BAD_REQUEST, "reset needs a 'game' of the form twx:<name>[?key=value&...]")
    name, _, query = spec[len("twx:"):].partition("?")
    name = ALIASES.get(name, name)
    if name not in GAME_NAMES:
        raise BadRequest(KIND_MISSING_GAME, "unknown TextWorld-Express game %r; known games: %s"
                         % (name, ", ".join(GAME_NAMES + sorted(ALIASES))))
    seed, split, params = 0, "train", dict(DEFAULTS.get(name, {}))
    for item in filter(None, query.split("&")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise BadRequest(KIND_BAD_REQUEST, "bad parameter %r in %r (want key=value)" % (item, spec))
        if key == "split":
            if value not in SPLITS:
                raise BadRequest(KIND_BAD_REQUEST, "split must be one of %s, not %r" % ("|".join(SPLITS), value))
            split = value
            continue
        try:
            number = int(value)
        except ValueError:
            raise BadRequest(KIND_BAD_REQUEST, "parameter %s must be an integer, not %r" % (key, value)) from None
        if key == "seed":
            seed = number
        else:
            params[key] = number
    return name, seed, split, ",".join("%s=%d" % kv for kv in params.items())


Game = tuple[str, int, str, str]


class Session:
    """One TextWorld-Express game at a time, in one JVM."""

    def __init__(self) -> None:
        self.env: Any = None  # one JVM, started at the first reset
        self.game: Game | None = None  # (name, seed, split, params) of the current episode
        self.raw = True  # score on the engine's raw scale (False: normalized x 100)
        self.done, self.score, self.max_score, self.moves = False, 0, 0, 0
        self.objective = ""
        self.walkthrough: list[str] | None = None

    def new_game(self, game: Game) -> dict[str, Any]:
        """(Re)generate the loaded game from its seed; return the library's infos."""
        _, seed, split, _ = game
        return self.env.reset(seed=seed, gameFold=split, generateGoldPath=True)[1]

    def wins_after(self, game: Game, actions: list[str]) -> int | None:
        """Play actions on a fresh copy of the game; the number played when it is won, or None."""
        self.new_game(game)
        for i, action in enumerate(actions):
            infos = self.env.step(action)[3]
            if infos["tasksuccess"]:
                return i + 1
            if infos["taskfailure"]:
                return None
        return None

    def verified_walkthrough(self, game: Game, gold: list[str]) -> list[str] | None:
        tries = ([gold[1:]] if gold and gold[0] == DUMMY else []) + [gold]
        for actions in tries:
            n = self.wins_after(game, actions)
            if n:
                return actions[:n]
        print("twx_bridge: the gold path of %r does not win; no walkthrough" % (game,), file=sys.stderr)
        return None

    def read_max_score(self) -> int | None:
        """The scorer's maxScore (raw points), or None if the library's internals moved."""
        try:
            return int(round(self.env.server.game().scorer().maxScore()))
        except Exception:
            return None  # the caller falls back to a 0..100 scale

    def int_score(self, infos: dict[str, Any]) -> int:
        if self.raw:
            return int(round(infos["scoreRaw"]))
        return int(round(infos["score"] * 100))

    def reply(self, observation: str, infos: dict[str, Any], reward: int) -> Reply:
        room = ROOM_RE.match(infos.get("look") or "")
        return {
            "ok": True,
            "observation": "\n".join(line.rstrip() for line in observation.split("\n")).strip(),
            "score": self.score,
            "reward": reward,
            "max_score": self.max_score,
            "done": self.done,
            "won": bool(infos["tasksuccess"]),
            "lost": bool(infos["taskfailure"]),
            "moves": self.moves,
            "admissible_commands": sorted(infos.get("validActions") or []),
            "inventory": (infos.get("inventory") or "").strip(),
            "room": room.group(1) if room else None,
            "objective": self.objective,
            "walkthrough": self.walkthrough,
            "facts": None,  # TextWorld-Express exposes no state facts
        }

    def reset(self, spec: Any) -> Reply:
        game = parse_spec(spec)
        if self.env is None:
            self.env = TextWorldExpressEnv(envStepLimit=10 ** 9)
        self.game = None  # a failed reset leaves no episode to step in
        try:
            self.env.load(game[0], game[3])
        except ValueError as exc:  # the engine rejected a parameter name or value
            raise BadRequest(KIND_BAD_REQUEST, str(exc).strip()) from None
        self.new_game(game)
        gold = [a for a in self.env.getGoldActionSequence() if a]
        self.walkthrough = self.verified_walkthrough(game, gold)
        infos = self.new_game(game)
        max_score = self.read_max_score()
        self.raw, self.max_score = max_score is not None, 100 if max_score is None else max_score
        self.objective = self.env.getTaskDescription() or ""
        self.done = False
        self.moves = 0
        self.score = self.int_score(infos)
        self.game = game
        return self.reply(infos["observation"], infos, 0)

    def step(self, action: Any) -> Reply:
        if self.game is None:
            return error(KIND_BAD_REQUEST, "step before reset")
        if not isinstance(action, str):
            return error(KIND_BAD_REQUEST, "step needs an 'action' string")
        if self.done:
            return error(KIND_EPISODE_OVER, "the episode is over; reset to play again")
        observation, _, _, infos = self.env.step(action)
        self.moves += 1
        score = self.int_score(infos)
        reward, self.score = score - self.score, score
        self.done = bool(infos["tasksuccess"] or infos["taskfailure"])
        return self.reply(observation, infos, reward)

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env.close = lambda: None  # the library's __del__ would close it again



def main() -> None:
    serve(Session(), _proto)


if __name__ == "__main__":
    main()
