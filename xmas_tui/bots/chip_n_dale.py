"""A sensible Chip 'n' Dale player: remembers faces, weighs Pluto's risk.

It remembers every tree face it has been shown (by handle: a face-down card
keeps its handle until a shuffle renames it, so a shuffled card is forgotten,
exactly as a person loses track). It values a card by what it adds to its own
collection, counting half-built sets, and flips another card only while the
expected value of flipping beats stopping now.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from xmas_tui.games import Action, Rng, View
from xmas_tui.games.chip_n_dale import (
    PLUTO_LIMIT,
    SLOT_ZONES,
    Collect,
    Continue,
    Discard,
    Flip,
    Give,
    Pass,
    Peek,
    Stop,
    Take,
    all_faces,
    score,
    treasure,
)

from . import Bot, register_smart

_ALL = Counter(all_faces())
_PAIRS = {"ornament-chip": "ornament-dale", "ornament-dale": "ornament-chip",
          "candy-chip": "candy-dale", "candy-dale": "candy-chip"}


def potential(kinds: Counter[str]) -> float:
    """Points plus credit for half-built sets (a lone pair half or popcorn short of three)."""
    faces = [f"{kind}/0" for kind, n in kinds.items() for _ in range(n)]
    points = float(score(faces).total)
    for kind, other in _PAIRS.items():
        points += 1.2 * max(0, kinds[kind] - kinds[other]) / 2  # each pair counted from both sides
    points += 1.4 * (kinds["popcorn"] % 3)
    return points


class SmartBot(Bot):
    def __init__(self, seat: int, rng: Rng) -> None:
        super().__init__(seat, rng)
        self.memory: dict[int, str] = {}

    # -------------------------------------------------------------- seeing
    def observe(self, view: View) -> None:
        for zone in SLOT_ZONES:
            for handle in view.zone(zone):
                face = view.face(handle)
                if face is not None:
                    self.memory[handle] = face
        live = {h for zone in SLOT_ZONES for h in view.zone(zone)}
        self.memory = {h: f for h, f in self.memory.items() if h in live}

    def known(self, view: View, handle: int) -> str | None:
        return view.face(handle) or self.memory.get(handle)

    def mine(self, view: View) -> Counter[str]:
        return Counter(treasure(f)[0] for f in view.faces_in(f"collection.{self.seat}"))

    def gain(self, mine: Counter[str], face: str) -> float:
        kind = treasure(face)[0]
        after = mine.copy()
        after[kind] += 1
        return potential(after) - potential(mine)

    def unknown_pool(self, view: View) -> Counter[str]:
        """Faces not visible anywhere and not remembered: what a face-down card may be."""
        pool = _ALL.copy()
        seen = list(view.faces.values()) + [
            f for h, f in self.memory.items() if h not in view.faces
        ]
        pool.subtract(seen)
        return +pool

    # -------------------------------------------------------------- choosing
    def choose(self, view: View | None, legal: Sequence[Action]) -> Action:
        assert view is not None
        self.observe(view)
        first = legal[0]
        mine = self.mine(view)
        if isinstance(first, Flip) or isinstance(first, Stop):
            return self._flip_or_stop(view, legal, mine)
        # every phase but flipping offers actions of one kind only: the first one's kind
        if isinstance(first, Collect):
            collects = [a for a in legal if isinstance(a, Collect)]
            return max(collects, key=lambda a: self.gain(mine, view.face(self._slot(view, a.slot)) or "acorn/0"))
        if isinstance(first, (Discard, Give, Pass)):
            cards = [a for a in legal if isinstance(a, (Discard, Give, Pass))]
            return min(cards, key=lambda a: self._keep_value(mine, view.face(a.card) or "acorn/0"))
        if isinstance(first, Peek):
            peeks = [a for a in legal if isinstance(a, Peek)]
            unknown = [a for a in peeks if self.known(view, self._slot(view, a.slot)) is None]
            return self.rng.choice(unknown or list(legal))
        if isinstance(first, Take):
            def worth(a: Take) -> float:
                face = self.known(view, self._slot(view, a.slot))
                return self.gain(mine, face) if face else self._expected_gain(view, mine)
            return max((a for a in legal if isinstance(a, Take)), key=worth)
        if isinstance(first, Continue):
            return first
        return self.rng.choice(list(legal))

    def _slot(self, view: View, slot: int) -> int:
        return view.zone(SLOT_ZONES[slot])[0]

    def _keep_value(self, mine: Counter[str], face: str) -> float:
        kind = treasure(face)[0]
        without = mine.copy()
        without[kind] -= 1
        return potential(mine) - potential(+without)

    def _expected_gain(self, view: View, mine: Counter[str]) -> float:
        pool = self.unknown_pool(view)
        total = sum(pool.values())
        if not total:
            return 0.0
        return sum(n * self.gain(mine, f) for f, n in pool.items()) / total

    def _flip_or_stop(self, view: View, legal: Sequence[Action], mine: Counter[str]) -> Action:
        plutos = view["plutos"]
        up = sorted((self.gain(mine, view.face(self._slot(view, s)) or "acorn/0") for s in view["flipped"]), reverse=True)
        flips = [a for a in legal if isinstance(a, Flip)]
        may_stop = any(isinstance(a, Stop) for a in legal)
        now = sum(up[:2])

        def value_after(face: str) -> float:
            p = plutos + treasure(face)[1]
            values = sorted([*up, self.gain(mine, face)], reverse=True)
            return values[0] if p >= PLUTO_LIMIT else sum(values[:2])

        best_known: tuple[float, Action] | None = None
        unknown: list[Action] = []
        for action in flips:
            face = self.known(view, self._slot(view, action.slot))
            if face is None:
                unknown.append(action)
                continue
            v = value_after(face)
            if best_known is None or v > best_known[0]:
                best_known = (v, action)
        best_unknown: tuple[float, Action] | None = None
        if unknown:
            pool = self.unknown_pool(view)
            total = sum(pool.values())
            expect = sum(n * value_after(f) for f, n in pool.items()) / total if total else 0.0
            best_unknown = (expect, self.rng.choice(unknown))
        options = [o for o in (best_known, best_unknown) if o is not None]
        if not may_stop:
            return max(options, key=lambda o: o[0])[1]
        best = max(options, key=lambda o: o[0], default=None)
        if best is not None and best[0] > now + 0.05:
            return best[1]
        return Stop()


register_smart("chip-n-dale", SmartBot)
