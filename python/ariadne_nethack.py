"""The dungeon level as Ariadne's NetHack bridge reads it: terrain, regions, descriptions.

Pure functions and one class over NLE's observation arrays (`glyphs`, 21 x 79, and
`screen_descriptions`), so the bridge's text is written here and nowhere else.

- `Level` remembers, per dungeon level, the terrain last seen at each position (a thing or
  a monster standing on a tile hides the floor, so the floor seen before is kept), the
  objects last seen, and the regions: a **room** is a 4-connected set of floor tiles, a
  **corridor** a connected set of corridor tiles (8-connected, as corridors run
  diagonally). A region keeps its number for the whole level: a new component that
  overlaps a known region is that region; numbers are given in the order regions are found
  (NetPlay's "room 2", "corridor 3"), and a region's name carries its level
  ("level 1 room 2"), so names never collide across levels.
- Exits of a region are its doors and doorways; an exit is **unexplored** while a tile
  next to it outside the region has never been seen. A frontier is a walkable tile with an
  unseen neighbour that is not a wall: what `explore level` walks to.
- Distances are path lengths (8-directional moves, no diagonal move through a door), as
  NetPlay gives them ("reachable in 6 steps"); directions are compass words from the
  player's position.

- `level_facts` writes the seen level as the judge's ground truth (where things are),
  `item_name` an inventory line's item by its name alone.

The glyph numbers are NetHack 3.6's `cmap` symbols as NLE 1.3.0 numbers them.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

WIDTH = 79
HEIGHT = 21

# NetHack 3.6 `cmap` indices (defsym.h order), as returned by nle's glyph_to_cmap.
S_STONE = 0
WALLS = range(1, 12)
S_NDOOR = 12  # doorway (no door, or a broken one): diagonal moves allowed
OPEN_DOORS = (13, 14)
CLOSED_DOORS = (15, 16)
S_ROOM, S_DARKROOM = 19, 20
S_CORR, S_LITCORR = 21, 22
S_UPSTAIR, S_DNSTAIR = 23, 24
S_UPLADDER, S_DNLADDER = 25, 26
FEATURES = range(23, 32)  # stairs, ladders, altar, grave, throne, sink, fountain
BLOCKING = (17, 18, 32, 34)  # bars, tree, pool (water), lava
TRAPS = range(42, 65)

UNSEEN = "unseen"
FLOOR = "floor"
CORRIDOR = "corridor"
DOOR = "door"
WALL = "wall"
FEATURE = "feature"

DIRS = [(0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)]
KEYS = {(0, -1): "k", (1, 0): "l", (0, 1): "j", (-1, 0): "h",
        (1, -1): "u", (1, 1): "n", (-1, 1): "b", (-1, -1): "y"}
COMPASS = {(0, -1): "north", (1, 0): "east", (0, 1): "south", (-1, 0): "west",
           (1, -1): "northeast", (1, 1): "southeast", (-1, 1): "southwest",
           (-1, -1): "northwest"}

Pos = tuple[int, int]


def sign(v: int) -> int:
    return (v > 0) - (v < 0)


def compass(frm: Pos, to: Pos) -> str:
    """The compass word from `frm` to `to` ("here" for the same position)."""
    d = (sign(to[0] - frm[0]), sign(to[1] - frm[1]))
    return COMPASS.get(d, "here")


def terrain_of(cmap: int) -> str:
    """The terrain class of a `cmap` symbol."""
    if cmap == S_STONE:
        return UNSEEN
    if cmap in WALLS or cmap in BLOCKING:
        return WALL
    if cmap == S_NDOOR or cmap in OPEN_DOORS or cmap in CLOSED_DOORS:
        return DOOR
    if cmap in (S_CORR, S_LITCORR):
        return CORRIDOR
    if cmap in FEATURES:
        return FEATURE
    return FLOOR  # room floor, traps, ice, drawbridges, clouds: stood on


@dataclass
class Thing:
    """An object or a monster seen on the map."""

    name: str
    pos: Pos
    monster: bool = False
    pet: bool = False


@dataclass
class Region:
    """A room or a corridor of one level."""

    kind: str  # "room" or "corridor"
    number: int
    tiles: set[Pos] = field(default_factory=set)

    def name(self, depth: int) -> str:
        return "level %d %s %d" % (depth, self.kind, self.number)


class Level:
    """What is known of one dungeon level (see the module's docstring)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.terrain: dict[Pos, str] = {}
        self.cmap: dict[Pos, int] = {}
        self.names: dict[Pos, str] = {}
        self.objects: dict[Pos, str] = {}
        self.regions: list[Region] = []
        self.next_number = 0
        self.visited: set[Pos] = set()

    # --- reading an observation -------------------------------------------------
    def read(self, glyphs: Any, descriptions: Any, nh: Any, player: Pos) -> list[Thing]:
        """Update from one observation; return the monsters and objects now in view."""
        seen: list[Thing] = []
        self.visited.add(player)
        for y in range(HEIGHT):
            for x in range(WIDTH):
                g = int(glyphs[y][x])
                pos = (x, y)
                if nh.glyph_is_cmap(g):
                    c = int(nh.glyph_to_cmap(g))
                    t = terrain_of(c)
                    if t == UNSEEN:
                        continue
                    self.terrain[pos] = t
                    self.cmap[pos] = c
                    self.names[pos] = text(descriptions[y][x])
                    self.objects.pop(pos, None)
                    continue
                if pos == player:
                    if pos not in self.terrain:
                        self.terrain[pos] = FLOOR
                    continue
                name = text(descriptions[y][x])
                if not name:
                    continue
                if nh.glyph_is_object(g) or nh.glyph_is_body(g) or nh.glyph_is_statue(g):
                    self.objects[pos] = name
                    self.terrain.setdefault(pos, FLOOR)
                    seen.append(Thing(name, pos))
                elif nh.glyph_is_monster(g) or nh.glyph_is_invisible(g) or nh.glyph_is_warning(g):
                    self.terrain.setdefault(pos, FLOOR)
                    seen.append(Thing(name, pos, monster=True, pet=bool(nh.glyph_is_pet(g))))
        self.segment()
        return seen

    # --- regions ---------------------------------------------------------------
    def components(self, kinds: tuple[str, ...], diagonal: bool) -> list[set[Pos]]:
        tiles = {p for p, t in self.terrain.items() if t in kinds}
        steps = DIRS if diagonal else DIRS[:4]
        out: list[set[Pos]] = []
        while tiles:
            start = tiles.pop()
            comp = {start}
            todo = [start]
            while todo:
                x, y = todo.pop()
                for dx, dy in steps:
                    n = (x + dx, y + dy)
                    if n in tiles:
                        tiles.discard(n)
                        comp.add(n)
                        todo.append(n)
            out.append(comp)
        return out

    def segment(self) -> None:
        """Rooms and corridors from the terrain, keeping known regions' numbers."""
        found = [("room", c) for c in self.components((FLOOR, FEATURE), False)]
        found += [("corridor", c) for c in self.components((CORRIDOR,), True)]
        kept: list[Region] = []
        used: set[int] = set()
        # Components of known regions first, so a new one never takes a known number.
        for kind, comp in sorted(found, key=lambda kc: (self.number_of(*kc) is None, min(kc[1]))):
            number = self.number_of(kind, comp)
            if number is None or number in used:
                number = self.next_number
                self.next_number += 1
            used.add(number)
            kept.append(Region(kind, number, comp))
        kept.sort(key=lambda r: r.number)
        self.regions = kept

    def number_of(self, kind: str, comp: set[Pos]) -> int | None:
        olds = [r.number for r in self.regions if r.kind == kind and r.tiles & comp]
        return min(olds) if olds else None

    def region_at(self, pos: Pos) -> Region | None:
        for r in self.regions:
            if pos in r.tiles:
                return r
        if self.terrain.get(pos) == DOOR:  # a door belongs to the room it opens
            for r in self.regions:
                if r.kind == "room" and any(n in r.tiles for n in neighbours(pos, False)):
                    return r
            for r in self.regions:
                if any(n in r.tiles for n in neighbours(pos, True)):
                    return r
        return None

    def doors_of(self, region: Region) -> list[Pos]:
        four = region.kind == "room"
        return sorted(
            {
                n
                for p in region.tiles
                for n in neighbours(p, not four)
                if self.terrain.get(n) == DOOR
            },
            key=lambda p: (p[1], p[0]),
        )

    def beyond(self, door: Pos, region: Region) -> str | None:
        """The region on the other side of a door, or None when unexplored."""
        for n in neighbours(door, True):
            if n in region.tiles:
                continue
            other = self.region_at(n)
            if other is not None and other is not region and self.terrain.get(n) != DOOR:
                return other.name(self.depth)
        return None

    def unexplored(self, pos: Pos) -> bool:
        """A walkable tile next to a tile never seen (not a wall): something lies beyond."""
        if self.terrain.get(pos) not in (FLOOR, CORRIDOR, DOOR, FEATURE):
            return False
        return any(self.terrain.get(n, UNSEEN) == UNSEEN for n in neighbours(pos, True)
                   if 0 <= n[0] < WIDTH and 0 <= n[1] < HEIGHT)

    def frontier(self) -> list[Pos]:
        return [p for p in self.terrain if p not in self.visited and self.unexplored(p)]

    # --- paths -----------------------------------------------------------------
    def walkable(self, pos: Pos) -> bool:
        return self.terrain.get(pos) in (FLOOR, CORRIDOR, DOOR, FEATURE)

    def step_ok(self, a: Pos, b: Pos) -> bool:
        if not self.walkable(b):
            return False
        if a[0] != b[0] and a[1] != b[1]:  # diagonal: not into or out of a real door
            for p in (a, b):
                if self.cmap.get(p) in OPEN_DOORS or self.cmap.get(p) in CLOSED_DOORS:
                    return False
        return True

    def distances(self, start: Pos, blocked: Iterable[Pos] = ()) -> dict[Pos, int]:
        """Path lengths from `start` to every reachable tile (8 directions)."""
        avoid = set(blocked)
        dist = {start: 0}
        todo = deque([start])
        while todo:
            p = todo.popleft()
            for dx, dy in DIRS:
                n = (p[0] + dx, p[1] + dy)
                if n in dist or n in avoid or not self.step_ok(p, n):
                    continue
                dist[n] = dist[p] + 1
                todo.append(n)
        return dist

    def path(self, start: Pos, goals: set[Pos], blocked: Iterable[Pos] = ()) -> list[Pos] | None:
        """The shortest path from `start` to the nearest goal (without `start`)."""
        avoid = set(blocked) - goals
        prev: dict[Pos, Pos | None] = {start: None}
        todo = deque([start])
        while todo:
            p = todo.popleft()
            if p in goals and p != start:
                out = []
                while p != start:
                    out.append(p)
                    p = prev[p]  # type: ignore[assignment]
                return out[::-1]
            for dx, dy in DIRS:
                n = (p[0] + dx, p[1] + dy)
                if n in prev or n in avoid or not self.step_ok(p, n):
                    continue
                prev[n] = p
                todo.append(n)
        return None


# What an inventory line says of an item besides its name: its count or article, its
# blessing, enchantment and erosion-proofing, what it is doing, what it was called.
ITEM_ARTICLE_RE = re.compile(r"^(?:an?|the|\d+)\s+")
ITEM_WORDS_RE = re.compile(
    r"(?:^|(?<=\s))(?:blessed|uncursed|cursed|[+-]\d+|rustproof|fireproof|corrodeproof|rotproof|fixed|greased)\s+"
)
ITEM_TAIL_RE = re.compile(r"\s+(?:\(.*|called .*|named .*)$")


def item_name(line: str) -> str:
    """The name of an item as an inventory line gives it ("a blessed +0 wakizashi
    (alternate weapon; not wielded)": "wakizashi"; "35 +0 ya (in quiver)": "ya"): the
    count or article, blessing, enchantment, proofing, parenthesis and given name cut."""
    s = ITEM_TAIL_RE.sub("", line.strip())
    s = ITEM_ARTICLE_RE.sub("", s)
    return ITEM_WORDS_RE.sub("", s + " ").strip() or line.strip()


def level_facts(
    lvl: Level, here: Pos, things: list[Thing], here_items: list[str], carried: list[str]
) -> list[list[str]]:
    """The ground truth of the seen level, as [predicate, arg, ...] lists led by
    ["decides", "location"] (the judge decides only where things are): at(P, region) for
    the hero's region; at(x, region) for each feature (stairs, fountain, ...), exit (door,
    doorway), object and monster in view of every region; for the hero's own tile, the
    items the game says lie here (the map shows the hero there, not the floor); in(x, I)
    for each carried item (`item_name`). Sorted, one fact once."""
    out: set[tuple[str, ...]] = set()
    current = lvl.region_at(here)
    if current is not None:
        out.add(("at", "P", current.name(lvl.depth)))
        out.update(("at", item, current.name(lvl.depth)) for item in here_items)
    for r in lvl.regions:
        name = r.name(lvl.depth)
        for p in r.tiles:
            c = lvl.cmap.get(p)
            if c in FEATURES and lvl.names.get(p):
                out.add(("at", lvl.names[p], name))
            if p in lvl.objects and p != here:
                out.add(("at", lvl.objects[p], name))
        for door in lvl.doors_of(r):
            out.add(("at", lvl.names.get(door) or DOOR, name))
    for t in things:
        if t.monster:
            r = lvl.region_at(t.pos)
            if r is not None:
                out.add(("at", t.name, r.name(lvl.depth)))
    out.update(("in", item, "I") for item in carried if item)
    return [["decides", "location"]] + [list(f) for f in sorted(out)]


def neighbours(pos: Pos, diagonal: bool) -> Iterator[Pos]:
    for dx, dy in DIRS if diagonal else DIRS[:4]:
        yield (pos[0] + dx, pos[1] + dy)


def text(raw: Any) -> str:
    """A NUL-padded byte array as text."""
    return bytes(raw).split(b"\0", 1)[0].decode("latin-1").strip()


def steps_word(n: int) -> str:
    return "1 step" if n == 1 else "%d steps" % n

# BALROG's progression (Paglieri et al. 2024, github.com/balrog-ai/BALROG, MIT licence,
# balrog/environments/nle/achievements.json, "3.4.3" human data from NAO): the share of
# human games that reached a dungeon level (index 0 = level 1) or an experience level
# (index 0 = level 1) and went on to ascend. An episode's progression is the largest
# value of any level it reached, as BALROG's Progress.update keeps it.
DLVL_PROGRESSION = [
    0.0, 0.015392269075361172, 0.017539535798967013, 0.021221378364235505,
    0.026482449457437766, 0.035428686118173014, 0.04846098359243788, 0.0695812141543123,
    0.09770935198701912, 0.12558597019922987, 0.1612677822768481, 0.20612854836308672,
    0.2566039887664476, 0.29247245425293333, 0.30881240110986263, 0.3249071349317381,
    0.34007883702829594, 0.3526455577544006, 0.3654881095022441, 0.37895667923256743,
    0.39293747679675045, 0.40832255575976223, 0.4258360748858015, 0.445181408701678,
    0.46637631565303056, 0.5067605633802816, 0.5543572044866264, 0.6015648510382184,
    0.6465049415992812, 0.6913110342176086, 0.7101094299371864, 0.7176456494828894,
    0.7232124894378948, 0.7284405900470092, 0.7327761924174481, 0.7368528917489855,
    0.7421458943978863, 0.7471321695760599, 0.753731343283582, 0.7610398408061306,
    0.76740810314648, 0.7725338491295938, 0.7771626297577855, 0.7812567949554251,
    0.7858986134802957, 0.7890256738822022, 0.7929718875502008, 0.7967408445768355,
    0.8018467495718222, 0.8067964442444019,
]
XP_PROGRESSION = [
    0.0, 0.01847840456172601, 0.02081163581974355, 0.024160136550546978, 0.029108986017138745,
    0.036887590648350246, 0.0507583712345433, 0.07453595273884014, 0.11704996473565571,
    0.17909953770432294, 0.25480449090205187, 0.33264942385807844, 0.41442590519821954,
    0.49403949403949404, 0.5778823703813513, 0.6261221999477034, 0.656281764586298,
    0.6810218550418937, 0.7015328516442704, 0.7174494081710576, 0.7286977843944303,
    0.7371004909327723, 0.7443446629532795, 0.7513449678519879, 0.7585537128343045,
    0.7642151855635002, 0.7703376822716808, 0.7759810263044415, 0.7783345263660224,
    0.7804561949196475,
]


def progression(depth: int, experience_level: int) -> float:
    """BALROG's progression of one state (0.0 to 1.0): the larger of its table's values
    for the dungeon level and the experience level."""
    d = DLVL_PROGRESSION[min(max(depth, 1), len(DLVL_PROGRESSION)) - 1]
    x = XP_PROGRESSION[min(max(experience_level, 1), len(XP_PROGRESSION)) - 1]
    return max(d, x)
