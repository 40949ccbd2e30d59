"""Ariadne's NetHack bridge: NLE 1.3.0 (NetHack 3.6.6) as a text game, JSON lines.

Requests and replies are those of textworld_bridge.py; the game is a specification
`nethack?seed=S&character=C&obs=room|level` (NLE's `NetHackScore-v0` task with the full
keyboard, autopickup off as NetPlay plays it; `character` is NetHack's role option, `@`
for a random one, drawn from the seed). The same seed gives the same dungeon and the same
episode for the same commands (NLE's core and display seeds, no reseeding).

The observation is NetPlay's kind, written from the map (`ariadne_nethack.py`):
- `obs=room` (Room obs, the default): the current room or corridor only: its features,
  items and monsters with position, direction and path length from the player, its exits
  (doors, doorways) and where each leads or that it is unexplored;
- `obs=level` (Level obs, the paper's memory oracle): the same for every room and corridor
  seen on the level;
- then the game's messages since the last command, the status (HP, dungeon level,
  experience level, hunger, gold, score, turn) and the inventory (its own field).

The admissible commands are NetPlay's skills that apply now, each carried out by the
bridge as a sequence of keys (the observation lists the moves made):
`explore level` (walk to the nearest unexplored tile, at most 40 moves, stopping when a
new monster comes into view or HP drops), `go to level L room N` / `corridor N` (shortest
path), `go to stairs down`, `go down` / `go up` (on stairs), `go to ITEM at (x, y)`,
`pick up ITEM` (everything here), `fight MONSTER at (x, y)` (adjacent, or pursued up to 10
moves), `eat ITEM`, `wield ITEM`, `wear ITEM`, `drop ITEM`, `search` (10 turns), `rest`
(5 turns) and the eight raw moves `move north` ... `move northwest`. `key K` sends one raw
key (not listed). A `--More--` is answered with Enter; a yes/no question a skill did not ask
for, a menu or an item prompt is cancelled with Escape.

Score: NetHack's in-game score (the bottom line's `S:` value); no maximum (0). The episode
ends when the hero dies (`lost`) or NetHack ends otherwise; there is no win. `room` is the
name of the region the hero is in.

`facts` (the ground truth the world-model judge reads, never shown to the LLM; see
`ariadne_nethack.level_facts`): led by ["decides", "location"], where the hero, the things
and the monsters are on the level as NetHack's map shows it now: at(P, region) for the
hero, at(x, region) for each feature, exit, object and monster of every region seen on
the level, in(x, I) for each carried item. NLE 1.3.0 exposes only the hero's map (what
was seen, as last seen), not the level's unseen tiles: the facts are of the seen level,
the same map Level obs writes, and an object a monster took out of sight stays until the
hero sees its tile again.
"""

from __future__ import annotations

import re
import sys
from typing import Any
from urllib.parse import parse_qs

from ariadne_bridge import (
    KIND_BAD_GAME,
    KIND_BAD_REQUEST,
    KIND_EPISODE_OVER,
    BadRequest,
    Reply,
    guard_stdout,
    serve,
)
from ariadne_nethack import (
    COMPASS,
    FEATURES,
    KEYS,
    S_DNLADDER,
    S_DNSTAIR,
    S_UPLADDER,
    S_UPSTAIR,
    Level,
    Pos,
    Thing,
    compass,
    item_name,
    level_facts,
    neighbours,
    progression,
    steps_word,
    text,
)

_proto = guard_stdout()

import gymnasium as gym  # noqa: E402
import nle.nethack as nh  # noqa: E402

EXPLORE_MOVES = 40
PURSUE_MOVES = 10
SEARCH_TURNS = 10
REST_TURNS = 5
MAX_LISTED = 8
OBJECTIVE = "Descend as deep into the dungeon as you can and score as many points as you can without dying."
HUNGER = ["not hungry", "satiated", "hungry", "weak", "fainting", "fainted", "starved"]
MORE = "--More--"
YN_RE = re.compile(r"\[[ynaq]{2,}\]|\[yn\]")
ITEM_PROMPT_RE = re.compile(r"What do you want to|In what direction")
GO_TO_AT_RE = re.compile(r"^go to (.+) at \((\d+), ?(\d+)\)$")
FIGHT_RE = re.compile(r"^fight (.+) at \((\d+), ?(\d+)\)$")

# blstats indices (nle's BLStats order)
B_X, B_Y, B_SCORE, B_HP, B_MAXHP, B_DEPTH, B_GOLD = 0, 1, 9, 10, 11, 12, 13
B_XL, B_TIME, B_HUNGER, B_DNUM, B_DLEVEL, B_PROP = 18, 20, 21, 23, 24, 25


class Session:
    """One NetHack game at a time."""

    def __init__(self) -> None:
        self.env: Any = None
        self.keys: dict[int, int] = {}
        self.spec: tuple[int, str, str] | None = None
        self.obs: Any = None
        self.done = False
        self.lost = False
        self.levels: dict[tuple[int, int], Level] = {}
        self.things: list[Thing] = []
        self.messages: list[str] = []
        self.moved: list[str] = []
        self.score = 0
        self.progression = 0.0

    # --- the game ---------------------------------------------------------------
    def parse(self, game: Any) -> tuple[int, str, str]:
        if not isinstance(game, str) or not game.startswith("nethack"):
            raise BadRequest(KIND_BAD_REQUEST, "reset needs a game: nethack?seed=S&...")
        query = game.split("?", 1)[1] if "?" in game else ""
        opts = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        unknown = sorted(set(opts) - {"seed", "character", "obs"})
        if unknown:
            raise BadRequest(KIND_BAD_GAME, "unknown nethack option %r (known: seed, character, obs)" % unknown[0])
        try:
            seed = int(opts.get("seed", "1"))
        except ValueError:
            raise BadRequest(KIND_BAD_GAME, "seed must be a whole number, not %r" % opts["seed"]) from None
        obs = opts.get("obs", "room")
        if obs not in ("room", "level"):
            raise BadRequest(KIND_BAD_GAME, "obs must be room or level, not %r" % obs)
        return seed, opts.get("character", "@") or "@", obs

    def reset(self, game: Any) -> Reply:
        seed, character, mode = self.parse(game)
        if self.env is None or self.spec is None or self.spec[1] != character:
            if self.env is not None:
                self.env.close()
            options = tuple("!autopickup" if o == "autopickup" else o for o in nh.NETHACKOPTIONS)
            try:
                self.env = gym.make(
                    "NetHackScore-v0",
                    actions=nh.ACTIONS,
                    character=character,
                    options=options,
                    allow_all_yn_questions=True,
                    allow_all_modes=True,
                    fix_moon_phase=True,
                    max_episode_steps=10**9,
                )
            except Exception as exc:
                self.env = None
                raise BadRequest(KIND_BAD_GAME, "NLE refused the game: %s" % str(exc)[:300]) from None
            self.keys = {int(a): i for i, a in enumerate(self.env.unwrapped.actions)}
        self.spec = (seed, character, mode)
        self.env.unwrapped.seed(core=seed, disp=seed, reseed=False)
        obs, _ = self.env.reset()
        self.obs = {k: v.copy() for k, v in obs.items()}
        self.done = self.lost = False
        self.levels = {}
        self.messages = []
        self.progression = 0.0
        self.note(text(self.obs["message"]))
        self.settle(None)
        self.score = int(self.obs["blstats"][B_SCORE])
        return self.reply([], 0)

    def press(self, key: str | int) -> None:
        """One key; NetHack's end of game ends the episode."""
        if self.done:
            return
        code = ord(key) if isinstance(key, str) else key
        action = self.keys.get(code)
        if action is None:
            raise BadRequest(KIND_BAD_REQUEST, "NetHack has no key %r" % (key,))
        obs, _, term, trunc, _ = self.env.step(action)
        if term or trunc:
            # NLE's last observation is the blank screen after the end: the last live one
            # is kept, so the score, the turn and the map are those the game ended on.
            self.done = True
            self.lost = bool(term)
            self.note(text(obs["message"]))
            self.note("The game is over: the hero died." if self.lost else "The game is over.")
            return
        if int(obs["blstats"][B_TIME]) > 0:
            # A copy: NLE reuses its arrays, and the end-of-game screens blank them.
            self.obs = {k: v.copy() for k, v in obs.items()}
        self.note(text(obs["message"]))

    def screen(self) -> str:
        return "\n".join(text(row) for row in self.obs["tty_chars"])

    def note(self, message: str) -> None:
        message = message.replace(MORE, "").strip()
        if message and (not self.messages or self.messages[-1] != message):
            self.messages.append(message)

    def settle(self, answer: str | None) -> None:
        """Answer what the game waits for: --More-- with Enter, a yes/no question with
        `answer` (else no), an item prompt or a menu with Escape."""
        for _ in range(30):
            if self.done:
                return
            scr = self.screen()
            top = text(self.obs["tty_chars"][0])
            if MORE in scr:
                self.press("\r")
            elif YN_RE.search(top):
                self.press(answer or "n")
                answer = None
            elif ITEM_PROMPT_RE.search(top) or "(end)" in scr or re.search(r"\(\d+ of \d+\)", scr):
                self.press(27)
            else:
                return

    # --- where things are -----------------------------------------------------------
    def pos(self) -> Pos:
        b = self.obs["blstats"]
        return int(b[B_X]), int(b[B_Y])

    def level(self) -> Level:
        b = self.obs["blstats"]
        key = (int(b[B_DNUM]), int(b[B_DLEVEL]))
        if key not in self.levels:
            self.levels[key] = Level(int(b[B_DEPTH]))
        return self.levels[key]

    def look(self) -> Level:
        lvl = self.level()
        self.things = lvl.read(self.obs["glyphs"], self.obs["screen_descriptions"], nh, self.pos())
        return lvl

    def monsters(self) -> list[Thing]:
        return [t for t in self.things if t.monster and not t.pet]

    # --- skills -----------------------------------------------------------------------
    def walk(self, path: list[Pos], interrupt: bool) -> int:
        """Follow `path` one move at a time; stop when a move fails, HP drops, or (with
        `interrupt`) a monster not in view before comes into view. Returns the number of
        moves made (their compass words are added to `self.moved`)."""
        seen = {(t.name, t.pos) for t in self.monsters()}
        hp = int(self.obs["blstats"][B_HP])
        made = 0
        for nxt in path:
            here = self.pos()
            d = (nxt[0] - here[0], nxt[1] - here[1])
            if d not in KEYS or self.done:
                break
            self.press(KEYS[d])
            self.settle(None)
            self.look()
            if self.pos() == here:
                break
            made += 1
            self.moved.append(COMPASS[d])
            if int(self.obs["blstats"][B_HP]) < hp:
                break
            if interrupt and any(t.name not in {n for n, _ in seen} for t in self.monsters()):
                break
        return made

    def go(self, goals: set[Pos], interrupt: bool) -> str:
        lvl = self.look()
        path = lvl.path(self.pos(), goals, blocked=[t.pos for t in self.monsters()])
        if path is None:
            return "There is no known path there."
        made = self.walk(path, interrupt)
        if made == len(path):
            return "You walk %s." % steps_word(made)
        return "You walk %s and stop." % steps_word(made)

    def explore(self) -> str:
        """Walk to the nearest unexplored tile, again and again, up to EXPLORE_MOVES moves;
        stop early when a move fails, HP drops, or something new comes into view (a room,
        a corridor, an object, a monster)."""
        lvl = self.look()
        regions = {r.name(lvl.depth) for r in lvl.regions}
        objects = set(lvl.objects.items())
        made = 0
        while made < EXPLORE_MOVES and not self.done:
            lvl = self.look()
            frontier = set(lvl.frontier())
            if not frontier:
                break
            path = lvl.path(self.pos(), frontier, blocked=[t.pos for t in self.monsters()])
            if path is None:
                break
            path = path[: EXPLORE_MOVES - made]
            n = self.walk(path, interrupt=True)
            made += n
            lvl = self.look()
            found = [r.name(lvl.depth) for r in lvl.regions if r.name(lvl.depth) not in regions]
            if n < len(path) or found or set(lvl.objects.items()) - objects:
                break
        if made == 0:
            return "Nothing unexplored can be reached; try search."
        return "You explore, %s." % steps_word(made)

    def fight(self, target: Pos) -> str:
        for _ in range(PURSUE_MOVES + 1):
            here = self.pos()
            if max(abs(target[0] - here[0]), abs(target[1] - here[1])) <= 1:
                d = (target[0] - here[0], target[1] - here[1])
                if d not in KEYS:
                    return "Nothing to fight there."
                self.press("F")
                self.press(KEYS[d])
                self.settle(None)
                self.look()
                return "You fight."
            lvl = self.look()
            path = lvl.path(here, set(neighbours(target, True)) | {target})
            if not path or self.walk(path[:1], interrupt=False) == 0:
                return "You cannot reach it."
            moved = [t for t in self.monsters() if max(abs(t.pos[0] - target[0]), abs(t.pos[1] - target[1])) <= 2]
            if moved:
                target = moved[0].pos
        return "It stays out of reach."

    def inventory(self) -> list[tuple[str, str, int]]:
        """(letter, text, object class) of each carried item."""
        out = []
        for letter, s, cls in zip(self.obs["inv_letters"], self.obs["inv_strs"], self.obs["inv_oclasses"]):
            if int(letter) == 0:
                continue
            out.append((chr(int(letter)), text(s), int(cls)))
        return out

    def item_command(self, verb: str, key: str, name: str) -> str:
        for letter, s, _ in self.inventory():
            if s == name:
                self.press(key)
                if verb == "eat" and YN_RE.search(text(self.obs["tty_chars"][0])):
                    self.press("n")  # not what lies here: from the pack
                self.press(letter)
                self.settle(None)
                return ""
        return "You carry no %s." % name

    def step(self, action: Any) -> Reply:
        if not isinstance(action, str):
            raise BadRequest(KIND_BAD_REQUEST, "step needs an action string")
        if self.env is None:
            raise BadRequest(KIND_BAD_REQUEST, "step before reset")
        if self.done:
            raise BadRequest(KIND_EPISODE_OVER, "the episode is over")
        self.messages = []
        self.moved = []
        before = self.score
        note = self.act(action.strip())
        if self.moved and note:
            note = "%s (%s)" % (note.rstrip("."), ", ".join(self.moved)) + "."
        self.look()
        self.score = int(self.obs["blstats"][B_SCORE])
        return self.reply([note] if note else [], self.score - before)

    def act(self, a: str) -> str:
        if not a.startswith("key "):
            self.settle(None)  # what a raw key left open
        lvl = self.look()
        here = self.pos()
        if a == "explore level":
            return self.explore()
        if a in ("search", "rest"):
            key, n = ("s", SEARCH_TURNS) if a == "search" else (".", REST_TURNS)
            hp = int(self.obs["blstats"][B_HP])
            for _ in range(n):
                self.press(key)
                self.settle(None)
                if self.done or int(self.obs["blstats"][B_HP]) < hp or self.monsters_adjacent():
                    break
            return ""
        if a in ("go down", "go up"):
            self.press(">" if a == "go down" else "<")
            self.settle(None)
            return ""
        if a.startswith("move "):
            for d, word in COMPASS.items():
                if a == "move " + word:
                    self.press(KEYS[d])
                    self.settle(None)
                    return ""
        if a.startswith("key ") and len(a) >= 5:
            # A raw key leaves what it opens (a prompt, a menu) for the next raw key.
            k = a[4:]
            code = 27 if k.lower() in ("esc", "escape") else 13 if k.lower() == "enter" else ord(k[0])
            if code not in self.keys:
                return "NetHack takes no key %r here." % k
            self.press(code)
            return ""
        if a == "go to stairs down" or a == "go to stairs up":
            want = (S_DNSTAIR, S_DNLADDER) if a.endswith("down") else (S_UPSTAIR, S_UPLADDER)
            goals = {p for p, c in lvl.cmap.items() if c in want}
            return self.go(goals, interrupt=True) if goals else "No such stairs are known."
        m = GO_TO_AT_RE.match(a)
        if m:
            return self.go({(int(m.group(2)), int(m.group(3)))}, interrupt=True)
        if a.startswith("go to "):
            for r in lvl.regions:
                if r.name(lvl.depth) == a[6:]:
                    return self.go(set(r.tiles), interrupt=True)
            return "No such place is known on this level."
        m = FIGHT_RE.match(a)
        if m:
            return self.fight((int(m.group(2)), int(m.group(3))))
        if a.startswith("pick up "):
            self.press(",")
            scr = self.screen()
            if "Pick up what?" in scr or "(end)" in scr or re.search(r"\(\d+ of \d+\)", scr):
                self.press(".")  # every item listed
                self.press("\r")
            self.settle(None)
            return ""
        if a.startswith("eat ") and a[4:] == self.floor_food():
            self.press("e")
            self.settle("y")
            return ""
        for verb, key in (("eat", "e"), ("wield", "w"), ("wear", "W"), ("drop", "d")):
            if a.startswith(verb + " "):
                return self.item_command(verb, key, a[len(verb) + 1:])
        del here
        return "That is not a command here (see the admissible commands)."

    def monsters_adjacent(self) -> bool:
        x, y = self.pos()
        return any(max(abs(t.pos[0] - x), abs(t.pos[1] - y)) <= 1 for t in self.monsters())

    # --- what is here ---------------------------------------------------------------------
    def here_text(self) -> str:
        """What the game says lies here (`:`, no turn passes; nothing when blind, where
        NetHack would feel the ground and spend a turn)."""
        if self.done or int(self.obs["blstats"][B_PROP]) & nh.BL_MASK_BLIND:
            return ""
        kept = self.messages
        self.messages = []
        self.press(":")
        lines = [text(r) for r in self.obs["tty_chars"][1:22]]
        said = " ".join(self.messages)
        listing = ""
        if "Things that are here" in "\n".join(lines):
            start = next(i for i, ln in enumerate(lines) if "Things that are here" in ln)
            col = lines[start].find("Things that are here")
            listing = "; ".join(
                ln[col:].strip() for ln in lines[start + 1:] if ln[col:].strip() and MORE not in ln
            )
        self.settle(None)
        # What `:` said is returned; anything else that happened meanwhile (the game
        # ending) stays in the messages.
        self.messages = kept + ([m for m in self.messages if m != said] if self.done else [])
        if listing:
            return "Things that are here: " + listing
        return said

    def items_here(self, said: str) -> list[str]:
        m = re.search(r"You see here (.+?)\.", said)
        if m:
            return [m.group(1)]
        if said.startswith("Things that are here: "):
            return [s.strip() for s in said[len("Things that are here: "):].split(";") if s.strip()]
        return []

    def floor_food(self) -> str | None:
        for item in self.items_here(self.here_text()):
            if "corpse" in item or any(w in item for w in ("food ration", "apple", "carrot", "egg")):
                return item
        return None

    # --- the reply --------------------------------------------------------------------------
    def describe(self, lvl: Level, here: Pos, mode: str) -> tuple[list[str], str | None]:
        current = lvl.region_at(here)
        dist = lvl.distances(here)
        where = (
            "You are in %s at (%d, %d)." % (current.name(lvl.depth), here[0], here[1])
            if current
            else "You are at (%d, %d)." % here
        )
        lines = [where]
        regions = lvl.regions if mode == "level" else ([current] if current else [])
        for r in regions:
            lines.append("")
            lines.extend(self.region_lines(lvl, r, here, dist, r is current))
        mons = self.monsters()
        if mode == "room" and current:
            mons = [t for t in mons if lvl.region_at(t.pos) is current or t.pos in dist and dist[t.pos] <= 3]
        lines.append("")
        lines.append("Monsters in view:" if mons else "No monster in view.")
        for t in sorted(mons, key=lambda t: dist.get(t.pos, 999)):
            lines.append("- %s at (%d, %d), %s" % (t.name, t.pos[0], t.pos[1], self.away(here, t.pos, dist)))
        return lines, current.name(lvl.depth) if current else None

    def away(self, here: Pos, pos: Pos, dist: dict[Pos, int]) -> str:
        if pos == here:
            return "here"
        n = dist.get(pos)
        if n is None:  # a monster's own tile is walkable once it moves
            n = max(abs(pos[0] - here[0]), abs(pos[1] - here[1]))
        return "%s %s" % (steps_word(n), compass(here, pos))

    def region_lines(self, lvl: Level, r: Any, here: Pos, dist: dict[Pos, int], current: bool) -> list[str]:
        name = r.name(lvl.depth)
        if current:
            head = "You are in %s. It contains:" % name
        else:
            near = min((dist[p] for p in r.tiles if p in dist), default=None)
            reach = "reachable in %s" % steps_word(near) if near is not None else "not reachable now"
            head = "%s, %s, contains:" % (name, reach)
        out = [head]
        items = []
        for p in sorted(r.tiles, key=lambda p: (p[1], p[0])):
            c = lvl.cmap.get(p)
            if c in FEATURES:
                items.append("- %s at (%d, %d), %s" % (lvl.names[p], p[0], p[1], self.away(here, p, dist)))
            if p in lvl.objects and p != here:
                items.append("- %s at (%d, %d), %s" % (lvl.objects[p], p[0], p[1], self.away(here, p, dist)))
        out.extend(items or ["- no objects or features"])
        for door in lvl.doors_of(r):
            leads = lvl.beyond(door, r)
            what = lvl.names.get(door, "door")
            if leads:
                where = "leads to %s" % leads
            elif lvl.unexplored(door) or door not in lvl.visited:
                where = "unexplored"
            else:
                where = "leads nowhere known"
            out.append("- exit: %s at (%d, %d), %s, %s" % (what, door[0], door[1], self.away(here, door, dist), where))
        if r.kind == "corridor" and any(lvl.unexplored(p) for p in r.tiles):
            out.append("- the corridor continues into unexplored places")
        return out

    def unexplored_exits(self, lvl: Level) -> list[str]:
        """The level's exits and corridor ends that lead somewhere unseen, nearest first
        (at most MAX_LISTED): `level 1 room 0: doorway at (60, 18)`."""
        dist = lvl.distances(self.pos())
        found: list[tuple[int, str]] = []
        for r in lvl.regions:
            name = r.name(lvl.depth)
            for door in lvl.doors_of(r):
                if lvl.beyond(door, r) is None and (lvl.unexplored(door) or door not in lvl.visited):
                    what = lvl.names.get(door, "door")
                    found.append((dist.get(door, 999), "%s: %s at (%d, %d)" % (name, what, door[0], door[1])))
            if r.kind == "corridor":
                for p in r.tiles:
                    if lvl.unexplored(p) and p not in lvl.visited:
                        found.append((dist.get(p, 999), "%s: corridor end at (%d, %d)" % (name, p[0], p[1])))
        return [s for _, s in sorted(set(found))][:MAX_LISTED]

    def admissible(self, lvl: Level, here: Pos, current_name: str | None, here_items: list[str]) -> list[str]:
        if self.done:
            return []
        dist = lvl.distances(here)
        cmds = ["search", "rest"] + ["move " + w for w in COMPASS.values()]
        if lvl.frontier():
            cmds.append("explore level")
        for r in lvl.regions:
            name = r.name(lvl.depth)
            if name != current_name and any(p in dist for p in r.tiles):
                cmds.append("go to " + name)
        c = lvl.cmap.get(here)
        if c in (S_DNSTAIR, S_DNLADDER):
            cmds.append("go down")
        elif any(v in (S_DNSTAIR, S_DNLADDER) for v in lvl.cmap.values()):
            cmds.append("go to stairs down")
        if c in (S_UPSTAIR, S_UPLADDER) and lvl.depth > 1:
            cmds.append("go up")
        objs = sorted((dist[p], p, n) for p, n in lvl.objects.items() if p in dist and p != here)
        for _, p, n in objs[:MAX_LISTED]:
            cmds.append("go to %s at (%d, %d)" % (n, p[0], p[1]))
        for t in sorted(self.monsters(), key=lambda t: dist.get(t.pos, 999))[:MAX_LISTED]:
            near = max(abs(t.pos[0] - here[0]), abs(t.pos[1] - here[1]))
            if near <= 1 or dist.get(t.pos, 99) <= PURSUE_MOVES:
                cmds.append("fight %s at (%d, %d)" % (t.name, t.pos[0], t.pos[1]))
        for item in here_items:
            cmds.append("pick up " + item)
            if "corpse" in item or any(w in item for w in ("food ration", "apple", "carrot", "egg")):
                cmds.append("eat " + item)
        for _, s, cls in self.inventory():
            if cls == nh.FOOD_CLASS:
                cmds.append("eat " + s)
            if cls == nh.WEAPON_CLASS and "weapon in hand" not in s:
                cmds.append("wield " + s)
            if cls == nh.ARMOR_CLASS and "being worn" not in s:
                cmds.append("wear " + s)
            if "being worn" not in s and "weapon in hand" not in s:
                cmds.append("drop " + s)
        return sorted(set(cmds))

    def reply(self, notes: list[str], reward: int) -> Reply:
        lvl = self.look()
        here = self.pos()
        mode = self.spec[2] if self.spec else "room"
        said = self.here_text()
        here_items = self.items_here(said)
        lines, room = self.describe(lvl, here, mode)
        b = self.obs["blstats"]
        hunger = int(b[B_HUNGER])
        messages = [m for m in self.messages if m] + notes
        if said and said not in messages and said != "You see no objects here.":
            messages.append(said)
        status = "HP %d/%d, dungeon level %d, experience level %d, %s, gold %d, score %d, turn %d" % (
            int(b[B_HP]), int(b[B_MAXHP]), int(b[B_DEPTH]), int(b[B_XL]),
            HUNGER[hunger] if 0 <= hunger < len(HUNGER) else "hunger %d" % hunger,
            int(b[B_GOLD]), int(b[B_SCORE]), int(b[B_TIME]),
        )
        observation = "\n".join(
            ["Message: " + (" ".join(messages) if messages else "(none)"), ""] + lines + ["", "Status: " + status]
        )
        carried = self.inventory()
        inventory = (
            "You are carrying:\n" + "\n".join("%s: %s" % (letter, s) for letter, s, _ in carried)
            if carried
            else "You are empty handed."
        )
        facts = level_facts(lvl, here, self.things, here_items, [item_name(s) for _, s, _ in carried])
        return {
            "ok": True,
            "observation": observation,
            "score": int(b[B_SCORE]),
            "reward": reward,
            "max_score": 0,
            "done": self.done,
            "won": False,
            "lost": self.lost,
            "moves": int(b[B_TIME]),
            "admissible_commands": self.admissible(lvl, here, room, here_items),
            "skills": True,
            "unexplored": [] if self.done else self.unexplored_exits(lvl),
            "inventory": inventory,
            "room": room,
            "objective": OBJECTIVE,
            "depth": int(b[B_DEPTH]),
            "progression": self.progress(b),
            "facts": facts,
        }

    def progress(self, b: Any) -> float:
        """BALROG's progression so far in the episode (the largest reached)."""
        self.progression = max(self.progression, progression(int(b[B_DEPTH]), int(b[B_XL])))
        return self.progression

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


def main() -> None:
    serve(Session(), _proto)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
