"""What Ariadne reads of a running z-machine game's memory: object names and the object tree.

Written from the Z-Machine Standards Document 1.1 (sections 3, 11 and 12): a story file's
header gives the object table (0x0A), the abbreviations table (0x18), the globals (0x0C)
and, from version 5, a custom alphabet table (0x34). Jericho's own object reader works only
for the games it supports and decodes names without their abbreviations (Zork's "West of
House" comes out as "West House"), so the bridge reads the tree itself, from the dynamic
memory Jericho hands over (`get_state()[0]`) and the story file for the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

A0 = "abcdefghijklmnopqrstuvwxyz"
A1 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Z-characters 6..31 of alphabet 2 (6 is the ZSCII escape, 7 a new line).
A2 = "\x00\n0123456789.,!?_#'\"/\\-:()"


@dataclass(frozen=True)
class ZObject:
    """One object of the tree: its number, its parent, first child and next sibling (0: none)."""

    num: int
    parent: int
    sibling: int
    child: int
    props: int


class Story:
    """A z-machine story file (its bytes), read with the current dynamic memory."""

    def __init__(self, rom: bytes) -> None:
        if len(rom) < 64 or rom[0] not in range(1, 9):
            raise ValueError("not a z-machine story file (version byte %r)" % (rom[:1],))
        self.rom = rom
        self.version = rom[0]
        self.static_base = self.word(rom, 0x0E)
        if self.static_base < 64 or self.static_base > len(rom):
            raise ValueError("not a z-machine story file (static memory at %d)" % self.static_base)
        self.objects_at = self.word(rom, 0x0A)
        self.globals_at = self.word(rom, 0x0C)
        self.abbreviations_at = self.word(rom, 0x18)
        custom = self.word(rom, 0x34) if self.version >= 5 else 0
        if custom and custom + 78 <= len(rom):
            table = rom[custom : custom + 78].decode("latin-1")
            self.alphabets = (table[0:26], table[26:52], "\x00\n" + table[54:78])
        else:
            self.alphabets = (A0, A1, A2)
        small = self.version <= 3
        self.entry_size = 9 if small else 14
        self.first_object = self.objects_at + (31 if small else 63) * 2

    @staticmethod
    def word(mem: bytes, at: int) -> int:
        """The big-endian 16-bit word at `at`."""
        return (mem[at] << 8) | mem[at + 1]

    def memory(self, ram: bytes) -> bytes:
        """The whole memory: the current dynamic memory, then the story file's static part."""
        return bytes(ram) + self.rom[len(ram) :]

    def is_inform(self) -> bool:
        """Compiled by Inform (it writes its version, "6.41", at 0x3C): the library keeps the
        score and the turns in globals 1 and 2 (its status line variables)."""
        tag = self.rom[0x3C:0x40]
        return len(tag) == 4 and chr(tag[0]).isdigit() and chr(tag[1]) == "." and tag[2:4].isdigit()

    def status_globals(self) -> bool:
        """Whether globals 1 and 2 hold the score and the moves: Inform's library, or a
        version 1-3 game whose status line shows a score (not a time game)."""
        if self.is_inform():
            return True
        return self.version <= 3 and not (self.rom[1] & 0x02)

    def global_value(self, mem: bytes, index: int) -> int:
        """Global variable `index` (0-based), as a signed 16-bit number."""
        v = self.word(mem, self.globals_at + 2 * index)
        return v - 0x10000 if v & 0x8000 else v

    def objects(self, mem: bytes) -> dict[int, ZObject]:
        """Every object, by number: the table runs until the first property table."""
        out: dict[int, ZObject] = {}
        end = len(mem)
        n = 1
        while True:
            at = self.first_object + (n - 1) * self.entry_size
            if at + self.entry_size > end or at + self.entry_size > self.static_base:
                break
            if self.version <= 3:
                parent, sibling, child = mem[at + 4], mem[at + 5], mem[at + 6]
                props = self.word(mem, at + 7)
            else:
                parent, sibling, child = (self.word(mem, at + 6 + 2 * i) for i in range(3))
                props = self.word(mem, at + 12)
            if props == 0 or props >= len(mem):
                break
            end = min(end, props)
            out[n] = ZObject(n, parent, sibling, child, props)
            n += 1
        return out

    def name(self, mem: bytes, obj: ZObject) -> str:
        """The object's short name (its property table's text), abbreviations expanded."""
        words = mem[obj.props]
        if words == 0:
            return ""
        return " ".join(self.text(mem, obj.props + 1, words).split())

    def text(self, mem: bytes, at: int, max_words: int = 1 << 16, depth: int = 0) -> str:
        """Decode the z-string at `at` (at most `max_words` words)."""
        zchars: list[int] = []
        for i in range(max_words):
            if at + 2 * i + 1 >= len(mem):
                break
            w = self.word(mem, at + 2 * i)
            zchars += [(w >> 10) & 31, (w >> 5) & 31, w & 31]
            if w & 0x8000:
                break
        out: list[str] = []
        shift = 0
        i = 0
        while i < len(zchars):
            z = zchars[i]
            i += 1
            if z == 0:
                out.append(" ")
            elif z in (1, 2, 3) and self.version >= 2:
                if i < len(zchars) and depth == 0:
                    index = 32 * (z - 1) + zchars[i]
                    addr = 2 * self.word(mem, self.abbreviations_at + 2 * index)
                    out.append(self.text(mem, addr, depth=1))
                i += 1
            elif z in (4, 5):
                shift = z - 3
                continue
            elif shift == 2 and z == 6:
                if i + 1 < len(zchars):
                    code = (zchars[i] << 5) | zchars[i + 1]
                    out.append(chr(code) if 32 <= code < 127 else "?")
                i += 2
            else:
                out.append(self.alphabets[shift][z - 6])
            shift = 0
        return "".join(out)


def children(objects: dict[int, ZObject], parent: int) -> list[int]:
    """The children of `parent`, in the tree's order (first child, then its siblings)."""
    out: list[int] = []
    n = objects[parent].child if parent in objects else 0
    while n and n in objects and n not in out:
        out.append(n)
        n = objects[n].sibling
    return out
