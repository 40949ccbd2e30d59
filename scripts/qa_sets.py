"""Write the project's multi-hop QA sets with distractors (invented, no published text).

    python3 scripts/qa_sets.py tests/qa

writes `musique_distractors.jsonl` (MuSiQue's format: 30 questions, 2-4 hops, 10
paragraphs each, with `question_decomposition`) and `hotpot_distractors.json` (HotpotQA's
distractor format: 20 questions, bridge and comparison, 10 paragraphs each). Every fact
comes from one invented world, so no paragraph contradicts another; each question's
distractors are chosen to be hard: a relative sharing the person's surname (whose
paragraph names the person and has the same kind of dates), an invention sharing the
device's name, a town with a similar name on another river, a company sharing a name,
a club of the same town, a stadium of the same town, another river. The output is the
same on every run (a fixed seed); `tests/qa_sets.rs` checks the files' invariants.
"""

import json
import random
import sys
from pathlib import Path

SEED = 20261205
PARAGRAPHS = 10

COUNTRIES = ["Tavoria", "Quellmark", "Ostria", "Belvania", "Marrland", "Sundelia", "Corvania", "Drenmark"]

# Towns in pairs with similar names (hard distractors for one another).
TOWN_PAIRS = [
    ("Varnholm", "Varnby"), ("Kelmouth", "Kelmarsh"), ("Brenholt", "Brenwick"),
    ("Ossenburg", "Ossendal"), ("Halvik", "Halvstad"), ("Istrel", "Istrova"),
    ("Dunmere", "Dunmore"), ("Tarrow", "Tarrowby"), ("Quellin", "Quelport"),
    ("Sarnau", "Sarnhold"), ("Ebbridge", "Ebbsford"), ("Corlen", "Corlendt"),
    ("Maldby", "Maldwick"), ("Fenholt", "Fenmouth"), ("Ravnsel", "Ravnby"),
    ("Glimford", "Glimhaven"),
]

RIVERS = ["Ossel", "Varn", "Kell", "Tarra", "Elmer", "Dune", "Sarne", "Ebb",
          "Corla", "Malde", "Fenn", "Ravna", "Glime", "Isse", "Quell", "Harl"]

GIVEN_M = ["Albert", "Henrik", "Oskar", "Emil", "Tobias", "Anselm", "Viktor", "Lucas",
           "Gustav", "Matthias", "Ferdinand", "Bruno", "Casimir", "Julius", "Leopold", "Nils"]
GIVEN_F = ["Marta", "Ilse", "Hedda", "Clara", "Ottilie", "Greta", "Sofie", "Linnea",
           "Agathe", "Frida", "Johanna", "Edith", "Rosa", "Vera", "Helga", "Alma"]
SURNAMES = ["Voss", "Lund", "Marrow", "Kettel", "Dravik", "Orlen", "Saelig", "Brandl",
            "Venn", "Corvik", "Halden", "Strom", "Aske", "Morrel", "Tennant", "Wexler",
            "Falk", "Ilvers", "Rask", "Quist"]
OCCUPATIONS = ["engineer", "physician", "chemist", "architect", "surveyor", "clockmaker",
               "shipwright", "industrialist"]
RELATIVE_OCCUPATIONS = ["painter", "poet", "composer", "botanist", "teacher", "singer"]
COLLEGES = ["Royal Polytechnic", "Academy of Sciences", "Naval School", "Mining College",
            "Institute of Arts", "Technical School"]

QUALIFIERS = ["harbour", "railway", "mining", "lighthouse", "field", "river", "steam", "signal"]
DEVICES = [("telegraph", "a device for sending coded messages"),
           ("lamp", "a lamp that burns without a naked flame"),
           ("pump", "a pump for lifting water"),
           ("compass", "a compass corrected for iron hulls"),
           ("gauge", "a gauge for reading pressure"),
           ("loom", "a loom driven by a crank")]

COMPANY_WORDS = ["Brelmark", "Aldwen", "Kestrel", "Norgate", "Solvane", "Tiverly"]
COMPANY_KINDS = [("Mills", "paper"), ("Foundry", "iron"), ("Shipyards", "shipbuilding"),
                 ("Brewery", "brewing")]
CLUB_WORDS = ["Rovers", "Athletic", "United", "Wanderers"]
GROUND_WORDS = ["Park", "Ground", "Field", "Arena"]


def article(noun):
    return "an" if noun[0] in "aeiou" else "a"


class World:
    """Every entity with its facts and its paragraph (title, sentences, the sentence that
    holds each fact)."""

    def __init__(self, rng):
        self.rng = rng
        self.paragraphs = {}
        self.towns, self.rivers, self.people = {}, {}, {}
        self.inventions, self.companies, self.clubs, self.stadiums = {}, {}, {}, {}
        self.make_rivers()
        self.make_towns()
        self.make_people()
        self.make_inventions()
        self.make_companies()
        self.make_clubs()

    def add(self, title, sentences, facts):
        assert title not in self.paragraphs, title
        self.paragraphs[title] = {"title": title, "sentences": sentences, "facts": facts}

    def make_rivers(self):
        for name in RIVERS:
            length = self.rng.randrange(80, 640)
            source = self.rng.choice(["Grell Hills", "Tarn Moor", "Asker Fells", "Lind Heights", "Orm Lakes"])
            country = self.rng.choice(COUNTRIES)
            self.rivers[name] = {"length": f"{length} km", "country": country, "source": source}
            self.add(name, [
                f"The {name} is a river of {country}, {length} km long.",
                f"It rises in the {source} and is navigable in its lower course.",
            ], {"length": 0})

    def make_towns(self):
        rivers = list(RIVERS)
        for k, (a, b) in enumerate(TOWN_PAIRS):
            # Twin towns lie on different rivers, in the same country.
            country = COUNTRIES[k % len(COUNTRIES)]
            for name, river in [(a, rivers[k % len(rivers)]), (b, rivers[(k + 5) % len(rivers)])]:
                founded = self.rng.randrange(1100, 1700)
                trade = self.rng.choice(["its salt market", "its cloth halls", "its bridges",
                                         "its observatory", "its fish market", "its bell foundry"])
                self.towns[name] = {"river": river, "country": country, "twin": b if name == a else a}
                self.add(name, [
                    f"{name} is a town in {country} on the river {river}.",
                    f"It received its charter in {founded} and is known for {trade}.",
                ], {"river": 0})

    def make_people(self):
        towns = list(self.towns)
        given_m, given_f = list(GIVEN_M), list(GIVEN_F)
        self.rng.shuffle(given_m)
        self.rng.shuffle(given_f)
        for i, surname in enumerate(SURNAMES):
            # A notable person and a relative who shares the surname.
            head = f"{given_m[i % len(given_m)]} {surname}"
            born = self.rng.randrange(1790, 1850)
            died = born + self.rng.randrange(48, 82)
            town, studied = self.rng.sample(towns, 2)
            occupation = OCCUPATIONS[i % len(OCCUPATIONS)]
            kin = f"{given_f[i % len(given_f)]} {surname}"
            relation = self.rng.choice(["daughter", "sister", "niece"])
            kin_born = born + (self.rng.randrange(22, 34) if relation != "sister" else self.rng.randrange(2, 9))
            kin_died = kin_born + self.rng.randrange(45, 85)
            kin_town = self.rng.choice([t for t in towns if t != town])
            kin_occupation = self.rng.choice(RELATIVE_OCCUPATIONS)
            self.people[head] = {"born": born, "died": died, "town": town, "kin": kin,
                                 "occupation": occupation}
            self.people[kin] = {"born": kin_born, "died": kin_died, "town": kin_town, "kin": head,
                                "occupation": kin_occupation}
            self.add(head, [
                f"{head} ({born}\u2013{died}) was {article(occupation)} {occupation} born in {town}.",
                f"He studied at the {self.rng.choice(COLLEGES)} in {studied} and later taught there.",
                f"His {relation} {kin} became {article(kin_occupation)} {kin_occupation}.",
            ], {"born": 0, "died": 0, "town": 0})
            self.add(kin, [
                f"{kin} ({kin_born}\u2013{kin_died}), {relation} of the {occupation} {head}, was {article(kin_occupation)} {kin_occupation} born in {kin_town}.",
                f"She died in {self.rng.choice(towns)} in {kin_died}.",
            ], {"born": 0, "died": 0, "town": 0})

    def heads(self):
        return [p for p in self.people if p.split()[0] in GIVEN_M]

    def make_inventions(self):
        heads = self.heads()
        self.rng.shuffle(heads)
        towns = list(self.towns)
        k = 0
        for device, description in DEVICES:
            for qualifier in self.rng.sample(QUALIFIERS, 3):
                name = f"{qualifier} {device}"
                inventor = heads[k]
                k += 1
                year = self.people[inventor]["born"] + self.rng.randrange(25, 45)
                place = self.rng.choice(towns)
                self.inventions[name] = {"inventor": inventor, "device": device}
                title = name[0].upper() + name[1:]
                self.add(title, [
                    f"The {name} is {description}, first built by {inventor} in {year} at a workshop in {place}.",
                    f"Several were in use by {year + self.rng.randrange(5, 20)}.",
                ], {"inventor": 0})
        self.free_heads = heads[k:]

    def make_companies(self):
        # Founders are notable people (some of them inventors too), each of one company.
        founders = self.rng.sample(self.heads(), 2 * len(COMPANY_WORDS))
        k = 0
        for word in COMPANY_WORDS:
            for kind, trade in self.rng.sample(COMPANY_KINDS, 2):
                name = f"{word} {kind}"
                founder = founders[k]
                k += 1
                year = self.people[founder]["born"] + self.rng.randrange(24, 40)
                place = self.rng.choice(list(self.towns))
                self.companies[name] = {"founder": founder, "word": word}
                self.add(name, [
                    f"{name} is {article(trade)} {trade} company founded in {year} by {founder} in {place}.",
                    f"It employed {self.rng.randrange(2, 90) * 10} workers at its height.",
                ], {"founder": 0})

    def make_clubs(self):
        heads = self.heads()
        towns = [a for a, _ in TOWN_PAIRS][:8]
        for town in towns:
            for word in self.rng.sample(CLUB_WORDS, 2):
                club = f"{town} {word}"
                founder = self.rng.choice(heads)
                ground = f"{self.rng.choice(SURNAMES)} {self.rng.choice(GROUND_WORDS)}"
                while ground in self.stadiums:
                    ground = f"{self.rng.choice(SURNAMES)} {self.rng.choice(GROUND_WORDS)}"
                ground_town = self.rng.choice([town, self.towns[town]["twin"]])
                capacity = f"{self.rng.randrange(4, 40)},{self.rng.randrange(0, 10) * 100:03d}"
                opened = self.rng.randrange(1880, 1960)
                self.clubs[club] = {"founder": founder, "ground": ground, "town": town}
                self.stadiums[ground] = {"town": ground_town, "capacity": capacity}
                self.add(club, [
                    f"{club} is a football club from {town}, founded in {self.people[founder]['born'] + self.rng.randrange(30, 45)} by {founder}.",
                    f"It plays its home matches at {ground}.",
                ], {"ground": 1, "founder": 0})
                self.add(ground, [
                    f"{ground} is a stadium in {ground_town}, opened in {opened}.",
                    f"It holds {capacity} spectators.",
                ], {"capacity": 1, "town": 0})


def river_aliases(river):
    return [f"{river} River", f"River {river}", f"the {river}"]


def length_aliases(length):
    n = length.split()[0]
    return [f"{n} kilometres", f"{n} kilometers", n]


def capacity_aliases(capacity):
    return [capacity.replace(",", ""), f"{capacity} spectators"]


class Chain:
    """One question: its text, its hops (question, answer, paragraph title, fact), and
    the answer's aliases."""

    def __init__(self, question, hops, aliases=()):
        self.question, self.hops, self.aliases = question, hops, list(aliases)

    @property
    def answer(self):
        return self.hops[-1][1]


def inventor_hops(w, inv):
    p = w.inventions[inv]["inventor"]
    return p, [(f"Who built the first {inv}?", p, inv[0].upper() + inv[1:], "inventor")]


def founder_hops(w, company):
    p = w.companies[company]["founder"]
    return p, [(f"Who founded {company}?", p, company, "founder")]


def chains(w, rng):
    """The MuSiQue-format questions: 12 of 2 hops, 10 of 3, 8 of 4."""
    invs = list(w.inventions)
    rng.shuffle(invs)
    companies = list(w.companies)
    rng.shuffle(companies)
    clubs = list(w.clubs)
    rng.shuffle(clubs)
    kin = [p for p in w.people if p not in w.heads()]
    rng.shuffle(kin)
    out = []
    # 2 hops.
    for inv in invs[0:3]:
        p, hops = inventor_hops(w, inv)
        out.append(Chain(f"In what year did the inventor of the {inv} die?",
                         hops + [(f"When did #1 die?", str(w.people[p]["died"]), p, "died")]))
    for inv in invs[3:5]:
        p, hops = inventor_hops(w, inv)
        t = w.people[p]["town"]
        out.append(Chain(f"In which town was the inventor of the {inv} born?",
                         hops + [(f"Where was #1 born?", t, p, "town")]))
    for c in companies[0:2]:
        p, hops = founder_hops(w, c)
        out.append(Chain(f"When did the founder of {c} die?",
                         hops + [(f"When did #1 die?", str(w.people[p]["died"]), p, "died")]))
    for club in clubs[0:3]:
        g = w.clubs[club]["ground"]
        cap = w.stadiums[g]["capacity"]
        out.append(Chain(f"How many spectators does the home ground of {club} hold?",
                         [(f"What is the home ground of {club}?", g, club, "ground"),
                          (f"How many spectators does #1 hold?", cap, g, "capacity")],
                         capacity_aliases(cap)))
    for person in kin[0:2]:
        t = w.people[person]["town"]
        r = w.towns[t]["river"]
        out.append(Chain(f"Which river flows through the birthplace of {person}?",
                         [(f"Where was {person} born?", t, person, "town"),
                          (f"Which river flows through #1?", r, t, "river")], river_aliases(r)))
    # 3 hops.
    for inv in invs[5:9]:
        p, hops = inventor_hops(w, inv)
        t = w.people[p]["town"]
        r = w.towns[t]["river"]
        out.append(Chain(f"Which river flows through the town where the inventor of the {inv} was born?",
                         hops + [(f"Where was #1 born?", t, p, "town"),
                                 (f"Which river flows through #2?", r, t, "river")], river_aliases(r)))
    for c in companies[2:5]:
        p, hops = founder_hops(w, c)
        t = w.people[p]["town"]
        r = w.towns[t]["river"]
        out.append(Chain(f"Which river flows through the birthplace of the founder of {c}?",
                         hops + [(f"Where was #1 born?", t, p, "town"),
                                 (f"Which river flows through #2?", r, t, "river")], river_aliases(r)))
    for club in clubs[3:6]:
        g = w.clubs[club]["ground"]
        t = w.stadiums[g]["town"]
        r = w.towns[t]["river"]
        out.append(Chain(f"Which river flows through the town where the home ground of {club} stands?",
                         [(f"What is the home ground of {club}?", g, club, "ground"),
                          (f"In which town is #1?", t, g, "town"),
                          (f"Which river flows through #2?", r, t, "river")], river_aliases(r)))
    # 4 hops.
    for inv in invs[9:13]:
        p, hops = inventor_hops(w, inv)
        t = w.people[p]["town"]
        r = w.towns[t]["river"]
        length = w.rivers[r]["length"]
        out.append(Chain(f"How long is the river that flows through the birthplace of the inventor of the {inv}?",
                         hops + [(f"Where was #1 born?", t, p, "town"),
                                 (f"Which river flows through #2?", r, t, "river"),
                                 (f"How long is #3?", length, r, "length")], length_aliases(length)))
    for c in companies[5:7]:
        p, hops = founder_hops(w, c)
        t = w.people[p]["town"]
        r = w.towns[t]["river"]
        length = w.rivers[r]["length"]
        out.append(Chain(f"How long is the river that flows through the birthplace of the founder of {c}?",
                         hops + [(f"Where was #1 born?", t, p, "town"),
                                 (f"Which river flows through #2?", r, t, "river"),
                                 (f"How long is #3?", length, r, "length")], length_aliases(length)))
    for club in clubs[6:8]:
        g = w.clubs[club]["ground"]
        t = w.stadiums[g]["town"]
        r = w.towns[t]["river"]
        length = w.rivers[r]["length"]
        out.append(Chain(f"How long is the river that flows through the town where the home ground of {club} stands?",
                         [(f"What is the home ground of {club}?", g, club, "ground"),
                          (f"In which town is #1?", t, g, "town"),
                          (f"Which river flows through #2?", r, t, "river"),
                          (f"How long is #3?", length, r, "length")], length_aliases(length)))
    return out


def near(w, title, rng):
    """The hard distractors of one supporting paragraph."""
    out = []
    if title in w.people:
        out.append(w.people[title]["kin"])
        out.append(w.people[title]["town"])  # a town the chain does not ask about
    lower = title[0].lower() + title[1:]
    if lower in w.inventions:
        device = w.inventions[lower]["device"]
        out += [t[0].upper() + t[1:] for t in w.inventions if w.inventions[t]["device"] == device and t != lower]
    if title in w.towns:
        out.append(w.towns[title]["twin"])
    if title in w.companies:
        word = w.companies[title]["word"]
        out += [c for c in w.companies if w.companies[c]["word"] == word and c != title]
        out.append(w.people[w.companies[title]["founder"]]["kin"])
    if title in w.clubs:
        town = w.clubs[title]["town"]
        out += [c for c in w.clubs if w.clubs[c]["town"] == town and c != title]
        out.append(w.clubs[title]["founder"])
    if title in w.stadiums:
        town = w.stadiums[title]["town"]
        out += [s for s in w.stadiums if w.stadiums[s]["town"] == town and s != title]
        out.append(w.towns[town]["twin"])
    if title in w.rivers:
        out += rng.sample([r for r in w.rivers if r != title], 2)
    return out


def same_kind(w, title):
    """Paragraphs of the same kind as a supporting one (to fill the ten)."""
    lower = title[0].lower() + title[1:]
    for group in (w.people, w.towns, w.companies, w.clubs, w.stadiums, w.rivers):
        if title in group:
            return [t for t in group if t != title]
    if lower in w.inventions:
        return [t[0].upper() + t[1:] for t in w.inventions if t != lower]
    return []


def paragraph_set(w, supporting, rng):
    """The supporting titles with hard distractors, filled to ten, shuffled."""
    chosen = list(dict.fromkeys(supporting))
    for t in supporting:
        for d in near(w, t, rng):
            if d not in chosen and len(chosen) < PARAGRAPHS:
                chosen.append(d)
    pool = [t for s in supporting for t in same_kind(w, s) if t not in chosen]
    rng.shuffle(pool)
    for t in pool:
        if len(chosen) == PARAGRAPHS:
            break
        if t not in chosen:
            chosen.append(t)
    rng.shuffle(chosen)
    return chosen


def musique(w, rng):
    rows = []
    for n, chain in enumerate(chains(w, rng), start=1):
        supporting = [h[2] for h in chain.hops]
        titles = paragraph_set(w, supporting, rng)
        paragraphs = [{"idx": i, "title": t, "paragraph_text": " ".join(w.paragraphs[t]["sentences"]),
                       "is_supporting": t in supporting} for i, t in enumerate(titles)]
        decomposition = [{"id": k + 1, "question": q, "answer": a,
                          "paragraph_support_idx": titles.index(t)}
                         for k, (q, a, t, _) in enumerate(chain.hops)]
        rows.append({"id": f"{len(chain.hops)}hop__d{n:02d}", "paragraphs": paragraphs,
                     "question": chain.question, "question_decomposition": decomposition,
                     "answer": chain.answer, "answer_aliases": chain.aliases, "answerable": True})
    return rows


def hotpot(w, rng):
    """14 bridge questions (2 and 3 hops) and 6 comparisons."""
    pool = chains(w, random.Random(SEED + 1))
    bridges = [c for c in pool if len(c.hops) == 2][:8] + [c for c in pool if len(c.hops) == 3][:6]
    heads = [p for p in w.heads() if p not in {h[2] for c in bridges for h in c.hops}]
    rng.shuffle(heads)
    comparisons = []
    for k in range(4):
        a, b = heads[2 * k], heads[2 * k + 1]
        if w.people[a]["born"] == w.people[b]["born"]:
            raise SystemExit(f"{a} and {b} were born the same year: no comparison")
        first = a if w.people[a]["born"] < w.people[b]["born"] else b
        comparisons.append(("Who was born first, {} or {}?".format(a, b), first,
                            [(a, "born"), (b, "born")]))
    rivers = list(w.rivers)
    rng.shuffle(rivers)
    for k in range(2):
        a, b = rivers[2 * k], rivers[2 * k + 1]
        la, lb = (int(w.rivers[x]["length"].split()[0]) for x in (a, b))
        if la == lb:
            raise SystemExit(f"the {a} and the {b} are as long: no comparison")
        comparisons.append((f"Which river is longer, the {a} or the {b}?", a if la > lb else b,
                            [(a, "length"), (b, "length")]))
    rows = []
    items = [(c.question, c.answer, [(h[2], h[3]) for h in c.hops], "bridge") for c in bridges]
    items += [(q, a, s, "comparison") for q, a, s in comparisons]
    for n, (question, answer, support, kind) in enumerate(items, start=1):
        titles = paragraph_set(w, [t for t, _ in support], rng)
        context = []
        for t in titles:
            sentences = w.paragraphs[t]["sentences"]
            context.append([t, [sentences[0]] + [" " + s for s in sentences[1:]]])
        facts = [[t, w.paragraphs[t]["facts"][f]] for t, f in support]
        rows.append({"_id": f"dh{n:02d}", "question": question, "answer": answer, "type": kind,
                     "level": "hard", "supporting_facts": facts, "context": context})
    return rows


def main():
    out = Path(sys.argv[1])
    w = World(random.Random(SEED))
    rng = random.Random(SEED + 2)
    rows = musique(w, rng)
    (out / "musique_distractors.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    (out / "hotpot_distractors.json").write_text(
        json.dumps(hotpot(w, rng), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
