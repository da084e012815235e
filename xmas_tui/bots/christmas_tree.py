"""A sensible Christmas Tree player: builds big sets, weighs Surprise! both ways.

It sees only its own view. It remembers the face of every card it has seen
face up, by handle, so it knows the cards an opponent took from a row (as a
person at the table would); the rest of an opponent's hand is guessed from
the cards it has not seen.

It values its hand by what it could score (cards still in hand score in the
final plays), plus credit for sets that may still grow while the game is
young, less what a Surprise! from an opponent could cost. Each move is judged
by the value it leaves: taking a row (paying with its least useful cards),
playing a set (the points, plus the expected Surprise! reward and damage), or
being done.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache, lru_cache
from math import comb

from xmas_tui.games import Action, Rng, View
from xmas_tui.games.christmas_tree import (
    ITEMS,
    ROW_ZONES,
    SANTA,
    TYPES,
    Done,
    Pay,
    Play,
    Take,
    all_faces,
    set_points,
)

from . import Bot, register_smart

#: Expected points a type will yield with this many cards, early in the game
#: (sets that may still grow are worth more than what they score now).
GROWTH = (0.0, 0.25, 0.6, 1.15, 1.55, 2.2, 3.0)
#: What hurting one opponent by one card is worth to us, per opponent.
DAMAGE = 0.3


@cache
def now_points(cards: int) -> int:
    """The most points ``cards`` cards of one type can score, split into sets."""
    return max([0] + [set_points(size) + now_points(cards - size) for size in range(3, min(cards, 6) + 1)])


def type_value(cards: int, growth: float) -> float:
    """Points we expect from ``cards`` cards of a type: now, plus some growth credit."""
    if cards >= 6:
        return 3 + type_value(cards - 6, growth)
    base = now_points(cards)
    return base + growth * (GROWTH[cards] - base)


_TABLES: dict[float, list[float]] = {}


def _table(growth: float) -> list[float]:
    table = _TABLES.get(growth)
    if table is None:
        table = _TABLES[growth] = [type_value(n, growth) for n in range(120)]
    return table


@lru_cache(maxsize=1 << 17)
def hand_value(held: tuple[int, ...], growth: float) -> float:
    """The value of a hand (counts in ``TYPES`` order), Santa Claus placed where they help most."""
    value = _table(growth)
    santas = held[-1]
    if not santas:
        return sum(value[count] for count in held[:-1])
    # best[s]: the best value of the types so far, using s Santa Claus on them
    best = [0.0] * (santas + 1)
    for count in held[:-1]:
        if count == 0:
            continue
        nxt = [-1.0] * (santas + 1)
        for used, v in enumerate(best):
            if v < 0:
                continue
            # More than six Santa Claus on one type never beats spreading them.
            for extra in range(min(santas - used, 6) + 1):
                w = v + value[count + extra]
                if w > nxt[used + extra]:
                    nxt[used + extra] = w
        best = nxt
    return max(v + value[santas - used] for used, v in enumerate(best) if v >= 0)


def counts_of(faces: Sequence[str]) -> tuple[int, ...]:
    c = Counter(faces)
    return tuple(c[t] for t in TYPES)


def minus(held: tuple[int, ...], item: str, n: int = 1) -> tuple[int, ...]:
    i = TYPES.index(item)
    return held[:i] + (held[i] - n,) + held[i + 1 :]


def plus(held: tuple[int, ...], other: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(a + b for a, b in zip(held, other, strict=True))


def expected_loss(known: int, unknown: int, p: float, all_of_them: bool) -> float:
    """Expected cards an opponent loses to a Surprise!: ``known`` seen plus Binomial(unknown, p)."""
    total = 0.0
    for k in range(unknown + 1):
        prob = comb(unknown, k) * p**k * (1 - p) ** (unknown - k)
        held = known + k
        total += prob * (held if all_of_them else (held // 2 if held >= 2 else 0))
    return total


class SmartBot(Bot):
    def __init__(self, seat: int, rng: Rng) -> None:
        super().__init__(seat, rng)
        self.memory: dict[int, str] = {}

    # -------------------------------------------------------------- seeing
    def observe(self, view: View) -> None:
        self.memory.update(view.faces)

    def _read(self, view: View) -> None:
        """Everything a decision needs, from the view and what we remember."""
        self.observe(view)
        n = len(view["players"])
        self.players = n
        self.hand = counts_of(view.faces_in(f"hand.{self.seat}"))
        removed = view["removed"]
        pool = Counter(all_faces(TYPES[removed] if removed >= 0 else None))
        self.known: dict[int, Counter[str]] = {}
        self.unknown: dict[int, int] = {}
        memory = self.memory
        for zone, handles in view.zones.items():
            owner = int(zone[5:]) if zone.startswith("hand.") else None
            seen: Counter[str] = Counter()
            hidden = 0
            for h in handles:
                face = memory.get(h)
                if face is None:
                    hidden += 1
                else:
                    seen[face] += 1
            pool.subtract(seen)
            if owner is not None and owner != self.seat:
                self.known[owner] = seen
                self.unknown[owner] = hidden
        self.pool = +pool
        self.pool_size = sum(self.pool.values())
        self.points = [len(view.zone(f"points.{s}")) for s in range(n)]
        target = view["target"]
        if view["ending"]:
            self.growth = 0.0
        else:
            lead = max(self.points) / target
            deck = len(view.zone("deck")) + len(view.zone("discard"))
            self.growth = round(max(0.0, min(1.0, 1.2 - lead, deck / 30)), 1)
        self.threats = [self.threat(item) for item in ITEMS]

    # -------------------------------------------------------------- judging
    def value(self, held: tuple[int, ...]) -> float:
        """Our hand's worth, less what opponents' Surprise! may cost us."""
        worth = hand_value(held, self.growth)
        risk = 0.0
        for i, threat in enumerate(self.threats):
            count = held[i]
            if count >= 2 and threat:
                loss = worth - hand_value(minus(held, ITEMS[i], count // 2), self.growth)
                risk += threat * loss
        return worth - risk

    def threat(self, item: str) -> float:
        """A rough chance that some opponent plays ``item`` before we can."""
        p = self.pool[item] / self.pool_size if self.pool_size else 0.0
        expected = sum(self.known[s][item] + self.unknown[s] * p for s in self.known)
        return min(0.5, 0.05 * expected) * (0.3 + 0.7 * self.growth)

    def surprise(self, item: str) -> float:
        """What a Surprise! of ``item`` is worth: cards we draw, cards they lose."""
        p = self.pool[item] / self.pool_size if self.pool_size else 0.0
        lost = sum(
            expected_loss(self.known[s][item], self.unknown[s], p, item == SANTA)
            for s in self.known
        )
        return lost * (self.card_worth() + DAMAGE / max(1, self.players - 1))

    def card_worth(self) -> float:
        """The average gain of one unseen card in our hand."""
        if not self.pool_size:
            return 0.0
        here = hand_value(self.hand, self.growth)
        gain = sum(
            n * (hand_value(plus(self.hand, counts_of([face])), self.growth) - here)
            for face, n in self.pool.items()
        )
        return gain / self.pool_size

    def play_value(self, view: View, play: Play) -> float:
        after = minus(minus(self.hand, play.item, play.naturals), SANTA, play.santas) if play.item != SANTA else minus(self.hand, SANTA, play.santas)
        gained = set_points(play.naturals + play.santas)
        v = gained + self.value(after)
        if view["phase"] == "final":
            # What is not played now scores only through later final sets.
            return gained + hand_value(after, 0.0) + 0.001 * sum(after)
        v += self.surprise(play.item)  # every set scored makes a Surprise!
        mine = self.points[self.seat] + gained
        if not view["ending"] and mine >= view["target"]:
            # Ending the game: good when we are ahead, bad when behind.
            ours = mine + hand_value(after, 0.0)
            theirs = max(
                self.points[s] + 0.35 * (sum(self.known[s].values()) + self.unknown[s])
                for s in self.known
            )
            v += 1.0 if ours > theirs else -1.5
        return v

    def pay_choice(self, held: tuple[int, ...], incoming: tuple[int, ...], count: int) -> tuple[tuple[int, ...], list[str]]:
        """Pay ``count`` cards from ``held`` one at a time, each the least useful with ``incoming``."""
        paid: list[str] = []
        for _ in range(count):
            options = [t for i, t in enumerate(TYPES) if held[i] > 0]
            item = max(options, key=lambda t: hand_value(plus(minus(held, t), incoming), self.growth))
            held = minus(held, item)
            paid.append(item)
        return plus(held, incoming), paid

    def take_value(self, view: View, row: int) -> float:
        incoming = counts_of(view.faces_in(ROW_ZONES[row]))
        after, _ = self.pay_choice(self.hand, incoming, row)
        return self.value(after)

    # -------------------------------------------------------------- choosing
    def choose(self, view: View | None, legal: Sequence[Action]) -> Action:
        assert view is not None
        self._read(view)
        if isinstance(legal[0], Pay):
            row = view["taking"]
            incoming = counts_of(view.faces_in(ROW_ZONES[row]))
            _, paid = self.pay_choice(self.hand, incoming, row - view["paid"])
            return Pay(paid[0])
        final = view["phase"] == "final"
        best: Action = legal[0]
        best_value = float("-inf")
        for action in self._candidates(legal):
            if isinstance(action, Take):
                v = self.take_value(view, action.row)
            elif isinstance(action, Play):
                v = self.play_value(view, action)
            elif isinstance(action, Done):
                # Cards left in hand at the very end only break ties.
                v = 0.001 * sum(self.hand) if final else self.value(self.hand)
            else:
                continue
            if v > best_value + 1e-9:
                best, best_value = action, v
        return best

    def _candidates(self, legal: Sequence[Action]) -> list[Action]:
        """The moves worth judging: every take, and sets that use their own cards before Santa Claus."""
        keep: list[Action] = []
        for action in legal:
            if isinstance(action, Play) and action.item != SANTA:
                have = self.hand[TYPES.index(action.item)]
                if action.santas and action.naturals < have:
                    continue  # a Santa Claus in place of a card of the type: rarely wise
            keep.append(action)
        return keep


register_smart("christmas-tree", SmartBot)
