"""Ariadne's game generator: the paper's game families (section 4.1, Appendix F), made
with TextWorld's GameMaker API (Treasure Hunt, Cleaning) or its tw-cooking challenge
(Cooking), reproducibly from a seed. Run by `ariadne games make` with PYTHONHASHSEED=0.

  python ariadne_games.py make --family F --size S --seed N --out PATH.z8

Prints one JSON line on stdout: the manifest entry (family, size, seed, rooms,
max_score, task, main_goal, walkthrough, file). Exit code 2 with a message on stderr
for bad arguments.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections import deque
from typing import Any

_proto = sys.stdout
sys.stdout = sys.stderr

import textworld  # noqa: E402
from textworld import GameMaker  # noqa: E402
from textworld.generator.game import Event, Quest  # noqa: E402

DIRS = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}

ROOM_NAMES = [
    "hall", "kitchen", "pantry", "study", "library", "cellar", "attic", "bedroom",
    "bathroom", "gallery", "garage", "workshop", "laundry", "nursery", "parlor",
    "ballroom", "chapel", "armory", "office", "conservatory", "greenhouse", "scullery",
    "larder", "boudoir", "den", "foyer", "lounge", "music room", "trophy room", "vault",
    "wine cellar", "storeroom", "sunroom", "playroom", "billiard room", "observatory",
    "tower room", "guest room", "dressing room", "smoking room",
]
LOCKER_COLORS = ["red", "blue", "green", "white", "black", "purple", "orange", "gray", "brown"]
KEY_METALS = ["iron", "copper", "silver", "bronze", "steel", "tin", "brass", "nickel", "zinc"]
NOTE_KINDS = ["torn", "crumpled", "yellow", "folded", "stained", "faded", "tiny", "dusty", "greasy"]
DISTRACTORS = [
    "old boot", "tin cup", "wooden spoon", "clay pot", "rusty nail", "candle stub", "glass bead",
    "paper fan", "wool sock", "feather", "pebble", "button", "thimble", "cork", "marble",
    "ribbon", "bell", "comb", "pipe", "ladle", "mitten", "whistle", "coin purse", "spool",
    "brush", "jar", "quill", "ink bottle", "dice", "top hat", "scarf", "pinecone", "shell",
    "acorn", "chalk", "string", "horseshoe", "lantern", "teacup", "saucer",
]

SIZES = {
    "treasure-hunt": {"basic": (12, 4, 0), "hard": (16, 5, 0), "hardest": (36, 7, 1)},
    "cleaning": {"basic": (9, 11)},
    "cooking": {
        "basic": ["--recipe", "3", "--take", "3", "--go", "9", "--cook", "--cut"],
        "hard": ["--recipe", "4", "--take", "4", "--go", "12", "--cook", "--cut"],
        "hardest": ["--recipe", "4", "--take", "4", "--go", "12", "--cook", "--cut", "--open", "--drop"],
        # The four levels of the RL benchmark used by GATA-style baselines.
        "rl-1": ["--recipe", "1", "--take", "1", "--go", "1", "--cut", "--open"],
        "rl-2": ["--recipe", "1", "--take", "1", "--go", "1", "--cook", "--cut", "--open"],
        "rl-3": ["--recipe", "1", "--take", "1", "--go", "9", "--open"],
        "rl-4": ["--recipe", "3", "--take", "3", "--go", "6", "--cook", "--cut", "--open"],
    },
}


class UsageError(Exception):
    pass


def grid_layout(rng: random.Random, n: int) -> tuple[list[tuple[int, int]], list[tuple[int, str, int]]]:
    """n cells on a grid grown as a random tree, plus a few extra links between
    neighbours; returns (cells, edges) with edges as (a, direction, b)."""
    cells = [(0, 0)]
    index = {(0, 0): 0}
    edges = []
    while len(cells) < n:
        a = rng.randrange(len(cells))
        d = rng.choice(sorted(DIRS))
        x, y = cells[a]
        nxt = (x + DIRS[d][0], y + DIRS[d][1])
        if nxt in index:
            continue
        index[nxt] = len(cells)
        cells.append(nxt)
        edges.append((a, d, index[nxt]))
    linked = {(a, b) for a, _, b in edges} | {(b, a) for a, _, b in edges}
    for i, (x, y) in enumerate(cells):
        for d in ("east", "south"):
            j = index.get((x + DIRS[d][0], y + DIRS[d][1]))
            if j is not None and (i, j) not in linked and rng.random() < 0.2:
                edges.append((i, d, j))
                linked |= {(i, j), (j, i)}
    return cells, edges


def route(edges: list[tuple[int, str, int]], n: int, src: int, dst: int) -> list[str]:
    """Shortest list of directions from room src to room dst (BFS)."""
    adj = {i: [] for i in range(n)}
    for a, d, b in edges:
        adj[a].append((d, b))
        adj[b].append((OPPOSITE[d], a))
    prev = {src: None}
    q = deque([src])
    while q:
        u = q.popleft()
        if u == dst:
            break
        for d, v in sorted(adj[u]):
            if v not in prev:
                prev[v] = (u, d)
                q.append(v)
    moves = []
    u = dst
    while prev[u] is not None:
        p, d = prev[u]
        moves.append("go " + d)
        u = p
    return list(reversed(moves))


def build_rooms(M: GameMaker, rng: random.Random, n: int) -> tuple[list[str], list[Any], list[tuple[int, str, int]]]:
    names = rng.sample(ROOM_NAMES, n)
    cells, edges = grid_layout(rng, n)
    rooms = [M.new_room(name) for name in names]
    for a, d, b in edges:
        M.connect(getattr(rooms[a], d), getattr(rooms[b], OPPOSITE[d]))
    return names, rooms, edges


def compile_game(M: GameMaker, objective: str, walkthrough: list[str], out: str, extra: dict[str, Any]) -> Any:
    game = M.build()
    game.objective = objective
    game.metadata["walkthrough"] = walkthrough
    game.metadata.update(extra)
    opts = textworld.GameOptions()
    opts.path = out
    opts.force_recompile = True
    textworld.generator.compile_game(game, opts)
    return game


def treasure_hunt(size: str, seed: int, out: str) -> dict[str, Any]:
    n_rooms, n_keys, distractors_per_room = SIZES["treasure-hunt"][size]
    rng = random.Random(seed)
    opts = textworld.GameOptions()
    opts.seeds = seed
    M = GameMaker(opts)
    names, rooms, edges = build_rooms(M, rng, n_rooms)
    M.set_player(rooms[0])
    colors = rng.sample(LOCKER_COLORS, n_keys - 1) + ["golden"]
    metals = rng.sample(KEY_METALS, n_keys)
    notes = rng.sample(NOTE_KINDS, n_keys - 1)
    # Lockers in distinct rooms other than the start.
    places = rng.sample(range(1, n_rooms), n_keys)
    lockers, keys = [], []
    for i in range(n_keys):
        locker = M.new(type="c", name="%s locker" % colors[i])
        locker.add_property("locked")
        rooms[places[i]].add(locker)
        key = M.new(type="k", name="%s key" % metals[i])
        M.add_fact("match", key, locker)
        lockers.append(locker)
        keys.append(key)
    rooms[0].add(keys[0])
    for i in range(1, n_keys):
        lockers[i - 1].add(keys[i])
        note = M.new(
            type="o",
            name="%s note" % notes[i - 1],
            # Inform 7 forbids double quotes inside text; single quotes print as quotes.
            desc="The note reads: 'The %s key opens the %s locker, which is in the %s.'"
            % (metals[i], colors[i], names[places[i]]),
        )
        lockers[i - 1].add(note)
    treasure = M.new(type="o", name="treasure", desc="A heavy chest of gold coins: the treasure.")
    lockers[-1].add(treasure)
    used = set()
    for r in rooms:
        for _ in range(distractors_per_room):
            choices = [d for d in DISTRACTORS if d not in used]
            if not choices:
                break
            item = rng.choice(choices)
            used.add(item)
            r.add(M.new(type="o", name=item))
    quests = [Quest(win_events=[Event(conditions={M.new_fact("open", lk)})], reward=1) for lk in lockers]
    quests.append(Quest(win_events=[Event(conditions={M.new_fact("in", treasure, M.inventory)})], reward=1))
    M.quests = quests
    walk = ["take %s key" % metals[0]]
    here = 0
    for i in range(n_keys):
        walk += route(edges, n_rooms, here, places[i])
        here = places[i]
        walk += ["unlock %s locker with %s key" % (colors[i], metals[i]), "open %s locker" % colors[i]]
        if i + 1 < n_keys:
            walk.append("take %s key from %s locker" % (metals[i + 1], colors[i]))
    walk.append("take treasure from golden locker")
    task = (
        "Find the treasure: it is in the golden locker. Keys open the lockers one after another, "
        "and each locker holds a note that tells where the next locker is. The %s key in this room "
        "opens the %s locker, which is in the %s." % (metals[0], colors[0], names[places[0]])
    )
    compile_game(M, task, walk, out, {"family": "treasure-hunt", "size": size, "seed": seed})
    return {
        "rooms": n_rooms,
        "max_score": len(quests),
        "task": task,
        "main_goal": "take the treasure from the golden locker",
        "walkthrough": walk,
    }


# Cleaning: rooms, their furniture (supporters "s" or open containers "c"), and the
# things that belong on each piece.
HOUSE = {
    "kitchen": {"kitchen counter": ("s", ["frying pan", "chef knife", "cutting board"]),
                "fridge": ("c", ["milk carton", "butter dish"])},
    "bathroom": {"bathroom sink": ("s", ["toothbrush", "soap bar"]),
                 "medicine cabinet": ("c", ["pill bottle", "razor"])},
    "bedroom": {"nightstand": ("s", ["alarm clock", "reading glasses"]),
                "wardrobe": ("c", ["winter coat", "silk tie"])},
    "living room": {"coffee table": ("s", ["tv remote", "magazine"]),
                    "bookshelf": ("s", ["novel", "photo album"])},
    "pool": {"pool bench": ("s", ["beach towel", "swim goggles"]),
             "pool cabinet": ("c", ["chlorine tablets", "pool net"])},
    "garage": {"workbench": ("s", ["hammer", "screwdriver"]),
               "tool chest": ("c", ["wrench", "tape measure"])},
    "laundry room": {"laundry shelf": ("s", ["detergent", "clothespins"]),
                     "laundry basket": ("c", ["dirty shirt", "dish towel"])},
    "dining room": {"dining table": ("s", ["salt shaker", "napkin holder"]),
                    "china cabinet": ("c", ["wine glass", "dinner plate"])},
    "study": {"writing desk": ("s", ["fountain pen", "notebook"]),
              "filing cabinet": ("c", ["tax papers", "stapler"])},
}


def cleaning(size: str, seed: int, out: str) -> dict[str, Any]:
    n_rooms, n_misplaced = SIZES["cleaning"][size]
    rng = random.Random(seed)
    opts = textworld.GameOptions()
    opts.seeds = seed
    M = GameMaker(opts)
    names = rng.sample(sorted(HOUSE), n_rooms)
    cells, edges = grid_layout(rng, n_rooms)
    rooms = [M.new_room(name) for name in names]
    for a, d, b in edges:
        M.connect(getattr(rooms[a], d), getattr(rooms[b], OPPOSITE[d]))
    M.set_player(rooms[0])
    furniture = {}  # name -> (entity, kind, room index)
    homes = {}  # item -> furniture name
    for ri, room in enumerate(names):
        for fname in sorted(HOUSE[room]):
            kind, items = HOUSE[room][fname]
            ent = M.new(type=kind, name=fname)
            if kind == "c":
                ent.add_property("open")
            rooms[ri].add(ent)
            furniture[fname] = (ent, kind, ri)
            for it in items:
                homes[it] = fname
    items = sorted(homes)
    misplaced = set(rng.sample(items, n_misplaced))
    entities = {}
    wrong_place = {}
    for it in items:
        ent = M.new(type="o", name=it)
        entities[it] = ent
        if it in misplaced:
            own_room = furniture[homes[it]][2]
            others = [f for f in sorted(furniture) if furniture[f][2] != own_room]
            where = rng.choice(others)
            wrong_place[it] = where
            furniture[where][0].add(ent)
        else:
            furniture[homes[it]][0].add(ent)
    quests = []
    for it in sorted(misplaced):
        ent = entities[it]
        home, kind, _ = furniture[homes[it]]
        placed = M.new_fact("on", ent, home) if kind == "s" else M.new_fact("in", ent, home)
        quests.append(Quest(win_events=[Event(conditions={M.new_fact("in", ent, M.inventory)})], reward=1))
        quests.append(Quest(win_events=[Event(conditions={placed})], reward=1))
    M.quests = quests
    # Walkthrough: nearest misplaced item first, carry it home, repeat.
    walk = []
    here = 0
    todo = set(misplaced)
    while todo:
        it = min(sorted(todo), key=lambda x: len(route(edges, n_rooms, here, furniture[wrong_place[x]][2])))
        todo.remove(it)
        src_f = wrong_place[it]
        src_room = furniture[src_f][2]
        walk += route(edges, n_rooms, here, src_room)
        walk.append("take %s from %s" % (it, src_f))
        home_f = homes[it]
        _, kind, home_room = furniture[home_f]
        walk += route(edges, n_rooms, src_room, home_room)
        walk.append(("put %s on %s" if kind == "s" else "insert %s into %s") % (it, home_f))
        here = home_room
    task = (
        "The house is a mess: %d things are out of place. Find each one, pick it up, and put it "
        "where it belongs (a point for picking up a misplaced thing, a point for putting it in its place)."
        % n_misplaced
    )
    compile_game(M, task, walk, out, {"family": "cleaning", "size": size, "seed": seed, "misplaced": sorted(misplaced)})
    return {
        "rooms": n_rooms,
        "max_score": len(quests),
        "task": task,
        "main_goal": "put every misplaced thing where it belongs",
        "walkthrough": walk,
    }


def cooking(size: str, seed: int, out: str) -> dict[str, Any]:
    flags = SIZES["cooking"][size]
    tw_make = os.path.join(os.path.dirname(sys.executable), "tw-make")
    cmd = [tw_make, "tw-cooking", *flags, "--seed", str(seed), "--output", out, "-f", "--silent"]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError("tw-make failed: %s" % res.stderr.strip()[-500:])
    with open(os.path.splitext(out)[0] + ".json") as f:
        data = json.load(f)
    walk = (data.get("metadata") or {}).get("walkthrough") or []
    rooms = sum(1 for info in dict(data.get("infos") or []).values() if info.get("type") == "r")
    max_score = sum(int(q.get("reward") or 0) for q in data.get("quests") or [])
    return {
        "rooms": rooms,
        "max_score": max_score,
        "task": data.get("objective") or "",
        "main_goal": "prepare the meal from the cookbook's recipe and eat it",
        "walkthrough": walk,
        "tw_make": " ".join(["tw-make", "tw-cooking", *flags, "--seed", str(seed)]),
    }


FAMILIES = {"treasure-hunt": treasure_hunt, "cleaning": cleaning, "cooking": cooking}


def pin_serial(path: str) -> None:
    """Inform 7 stamps the compile date (YYMMDD) into the Z-machine header's serial
    number (bytes 0x12-0x17), so a game made on another day differs by two bytes. Pin it
    to 000000: the same family and seed then give the same file on any day. The header
    checksum covers bytes from 0x40 on, so it stays valid."""
    with open(path, "r+b") as f:
        f.seek(0x12)
        f.write(b"000000")


def main() -> None:
    ap = argparse.ArgumentParser(prog="ariadne_games")
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("--family", required=True)
    mk.add_argument("--size", default="basic")
    mk.add_argument("--seed", type=int, default=1)
    mk.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        if a.family not in FAMILIES:
            raise UsageError("unknown family %r; known: %s" % (a.family, ", ".join(sorted(FAMILIES))))
        if a.size not in SIZES[a.family]:
            raise UsageError(
                "unknown size %r for %s; known: %s" % (a.size, a.family, ", ".join(SIZES[a.family]))
            )
        out = os.path.abspath(a.out)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        entry = FAMILIES[a.family](a.size, a.seed, out)
        pin_serial(out)
        ni = os.path.splitext(out)[0] + ".ni"
        if os.path.exists(ni):
            os.remove(ni)
    except UsageError as e:
        print(str(e), file=sys.stderr)
        sys.exit(2)
    entry.update({"family": a.family, "size": a.size, "seed": a.seed, "file": out})
    _proto.write(json.dumps(entry) + "\n")
    _proto.flush()


if __name__ == "__main__":
    main()
