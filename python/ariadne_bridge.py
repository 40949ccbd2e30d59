"""The JSON-lines protocol every Ariadne game bridge speaks, in one place.

A bridge is one process playing one game at a time. It reads one JSON object per line
on stdin and writes one JSON object per line on stdout:

  {"cmd": "reset", "game": <spec>}   -> starts (or restarts) a game
  {"cmd": "step", "action": <str>}   -> plays one command
  {"cmd": "quit"}                    -> replies {"ok": true}, then exits

A reply is {"ok": true, ...the game state...} or {"ok": false, "kind": <kind>,
"error": <one line>}. The kinds are the `KIND_*` constants below; the Rust side reads
them as a closed enum, so a new kind is added on both sides.

Call `guard_stdout()` before importing the game library: it moves file descriptor 1
to stderr (so whatever the library, its C code or its child processes print cannot
corrupt the protocol) and returns a private handle on the real stdout. Then
`serve(session, proto)` runs the request loop; `session` has `reset(game)`,
`step(action)` and `close()`, each returning a reply dict (or raising `BadRequest`).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any, Callable, Protocol, TextIO

Reply = dict[str, Any]

KIND_BAD_REQUEST = "bad_request"
"""The request is not a JSON object, names no known command, or lacks a field."""
KIND_MISSING_GAME = "missing_game"
"""The game named in `reset` does not exist."""
KIND_MISSING_SIDECAR = "missing_sidecar"
"""A TextWorld game's .json sidecar is missing."""
KIND_BAD_SPEC = "bad_spec"
"""The game exists but a parameter of its name does not (a variation past the task's)."""
KIND_BAD_GAME = "bad_game"
"""The file named in `reset` is not a game this bridge can load."""
KIND_EPISODE_OVER = "episode_over"
"""A `step` after the episode ended."""
KIND_ENGINE = "textworld"
"""The game engine raised (the name is historical: every bridge reports it so)."""

KINDS = (
    KIND_BAD_REQUEST,
    KIND_MISSING_GAME,
    KIND_MISSING_SIDECAR,
    KIND_BAD_SPEC,
    KIND_BAD_GAME,
    KIND_EPISODE_OVER,
    KIND_ENGINE,
)


class BadRequest(Exception):
    """A request the bridge refuses, with the kind of the refusal."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Session(Protocol):
    """What `serve` drives."""

    def reset(self, game: Any) -> Reply: ...

    def step(self, action: Any) -> Reply: ...

    def close(self) -> None: ...


def error(kind: str, message: str) -> Reply:
    """A failure reply."""
    return {"ok": False, "kind": kind, "error": message}


def guard_stdout() -> TextIO:
    """Send everything written to stdout (fd 1, by Python or by C code or a child
    process) to stderr; return a handle on the real stdout for protocol lines only."""
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto


def describe(exc: BaseException) -> str:
    """A one-line message for an exception (a Java exception raised through py4j gives
    its own message, not py4j's stack dump)."""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        try:
            return "%s: %s" % (java.getClass().getName(), (java.getMessage() or "").strip())
        except Exception:
            pass
    return "%s: %s" % (type(exc).__name__, exc)


def handle(
    session: Session, line: str, describe_error: Callable[[BaseException], str] = describe
) -> tuple[Reply, bool]:
    """The reply to one request line and whether the bridge should exit after it."""
    cmd = None
    try:
        try:
            req = json.loads(line)
        except ValueError as exc:
            raise BadRequest(KIND_BAD_REQUEST, "bad JSON line: %s" % exc) from None
        if not isinstance(req, dict):
            raise BadRequest(KIND_BAD_REQUEST, "a request must be a JSON object")
        cmd = req.get("cmd")
        if cmd == "reset":
            rep = session.reset(req.get("game"))
        elif cmd == "step":
            rep = session.step(req.get("action"))
        elif cmd == "quit":
            rep = {"ok": True}
        else:
            rep = error(KIND_BAD_REQUEST, "unknown cmd: %r" % (cmd,))
    except BadRequest as exc:
        rep = error(exc.kind, str(exc))
    except Exception as exc:  # keep the protocol alive; report the failure
        traceback.print_exc(file=sys.stderr)
        rep = error(KIND_ENGINE, describe_error(exc))
    return rep, cmd == "quit"


def serve(session: Session, proto: TextIO, stdin: TextIO = sys.stdin) -> None:
    """Answer requests from `stdin` until `quit` or the end of input, then close."""
    try:
        for line in stdin:
            line = line.strip()
            if not line:
                continue
            rep, done = handle(session, line)
            proto.write(json.dumps(rep) + "\n")
            proto.flush()
            if done:
                break
    finally:
        session.close()
