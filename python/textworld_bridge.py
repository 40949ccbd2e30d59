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
  {"ok": false, "kind": "missing_game"|"missing_sidecar"|"episode_over"|"bad_request"|"textworld",
   "error": str}

Facts this bridge handles (also in docs/games.md, "The Python side"): admissible commands need the .json sidecar
(TextWorld silently returns none without it, so a missing sidecar is an error); env.step
returns the cumulative score, so reward is the score delta; after the end TextWorld keeps
answering, so `done` is tracked here; the room name is read from the `-= Room =-` header
(TextWorld's `location` info is empty for .z8 games); the banner and the status line are
stripped from observations.
"""
import json
import os
import re
import sys
import traceback

# Everything TextWorld prints goes to stderr; stdout carries only protocol lines.
_proto = sys.stdout
sys.stdout = sys.stderr

import textworld  # noqa: E402

ROOM_RE = re.compile(r"-=\s*(.+?)\s*=-")
BANNER_CHARS = set(" _|\\/$<>-")


def clean(text):
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


def facts(state):
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
    def __init__(self):
        self.env = None
        self.done = False
        self.score = 0
        self.max_score = 0
        self.room = None
        self.objective = ""
        self.walkthrough = None

    def reply(self, state, reward, observation=None):
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

    def reset(self, game):
        if not isinstance(game, str) or not game:
            return error("bad_request", "reset needs a 'game' path")
        if not os.path.isfile(game):
            return error("missing_game", "game file not found: %s" % game)
        sidecar = os.path.splitext(game)[0] + ".json"
        if not os.path.isfile(sidecar):
            return error(
                "missing_sidecar",
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

    def step(self, action):
        if self.env is None:
            return error("bad_request", "step before reset")
        if not isinstance(action, str):
            return error("bad_request", "step needs an 'action' string")
        if self.done:
            return error("episode_over", "the episode is over; reset to play again")
        state, score, done = self.env.step(action)
        score = int(score or 0)
        reward = score - self.score
        self.score = score
        self.done = bool(done)
        return self.reply(state, reward)


def error(kind, message):
    return {"ok": False, "kind": kind, "error": message}


def main():
    session = Session()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            cmd = req.get("cmd")
            if cmd == "reset":
                rep = session.reset(req.get("game"))
            elif cmd == "step":
                rep = session.step(req.get("action"))
            elif cmd == "quit":
                rep = {"ok": True}
            else:
                rep = error("bad_request", "unknown cmd: %r" % (cmd,))
        except Exception as exc:  # keep the protocol alive; report the failure
            traceback.print_exc(file=sys.stderr)
            rep = error("textworld", "%s: %s" % (type(exc).__name__, exc))
            cmd = None
        _proto.write(json.dumps(rep) + "\n")
        _proto.flush()
        if cmd == "quit":
            break
    if session.env is not None:
        session.env.close()


if __name__ == "__main__":
    main()
