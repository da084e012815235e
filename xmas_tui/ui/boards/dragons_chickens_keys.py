"""Dragons & Chickens at the keyboard: whose key makes which press, and when a press counts.

Owns: the shared keyboard's key blocks (``BLOCKS``: six treasures, the chest,
the shield and a slap for each player at this terminal) and the bindings they
make, where a key sits in the drawn legend (``Spot``), and one round's window
for the players here (``Window``): each press timed in ms from the painted
reveal, refused when early, late, sealed or made twice, and each player's
``Presses`` sealed when their window closes (our ruling, in "Timed presses").

Must not touch: the engine state, the table, or any widget. The window is pure:
every time is passed in, on Textual's event clock (``now`` reads it the public
way); the board sends what it seals.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from textual.binding import Binding
from textual.message import Message

from xmas_tui.games.dragons_chickens import (
    CHEST,
    LINGER_MS,
    NAME,
    SHIELD,
    SLAP,
    TREASURE_NAMES,
    WINDOW_MS,
    Presses,
)


def now() -> float:
    """The time on the clock Textual stamps its events with (``Message.time``), read the
    public way: a fresh message's stamp."""
    return Message().time


# ---------------------------------------------------------------- keys


@dataclass(frozen=True)
class KeyBlock:
    """One player's keys on a shared keyboard: six treasures, the chest, the shield, a slap."""

    treasures: tuple[str, ...]
    chest: str
    shield: str
    slap: str

    @property
    def seat_keys(self) -> tuple[str, ...]:
        """After the slap key, these pick the card of seat 1-5."""
        return self.treasures[:5]

    def key_for(self, kind: int, target: int) -> str:
        if kind == NAME:
            return self.treasures[target]
        return {CHEST: self.chest, SHIELD: self.shield}.get(kind, self.slap)


#: Player 1 (and a player alone) on the number row, player 2 on the top letter
#: row, player 3 on the home row: no key in two blocks, none of the table's keys.
BLOCKS: tuple[KeyBlock, ...] = (
    KeyBlock(tuple("123456"), "7", "8", "9"),
    KeyBlock(tuple("qwerty"), "u", "i", "o"),
    KeyBlock(tuple("asdfgh"), "j", "k", "l"),
)


def bindings() -> list[Binding]:
    """The bindings of every key block: a shout for each treasure, the chest, the shield, the slap."""
    out = []
    for b, block in enumerate(BLOCKS):
        player = f"player {b + 1}: " if b else ""
        for t, key in enumerate(block.treasures):
            out.append(Binding(
                key, f"press({b}, {NAME}, {t})", "Shout" if t == 0 else TREASURE_NAMES[t],
                show=b == 0 and t == 0, key_display="1-6" if b == 0 else None,
                tooltip=f"{player}shout {TREASURE_NAMES[t]}" + (" (or, after the slap key, pick a dark room)" if t < 5 else ""),
                id=f"dc.p{b + 1}.{TREASURE_NAMES[t].lower()}",
            ))  # fmt: skip
        out += [
            Binding(block.chest, f"press({b}, {CHEST}, 0)", "Chest", show=b == 0,
                    tooltip=f"{player}grab the treasure chest (a tie for most)", id=f"dc.p{b + 1}.chest"),
            Binding(block.shield, f"press({b}, {SHIELD}, 0)", "Shield", show=b == 0,
                    tooltip=f"{player}a hand on the shield (a dragon!)", id=f"dc.p{b + 1}.shield"),
            Binding(block.slap, f"press({b}, {SLAP}, -1)", "Slap", show=b == 0,
                    tooltip=f"{player}slap the dark room (then the key on the card, if several)", id=f"dc.p{b + 1}.slap"),
        ]  # fmt: skip
    return out


class Spot(NamedTuple):
    """Where a key sits in the legend: its line, columns, and the press it makes."""

    line: int
    start: int
    end: int
    block: int
    kind: int
    target: int


# ---------------------------------------------------------------- the window


@dataclass
class Hand:
    """What one player at this terminal pressed this round: kind -> (target, ms)."""

    seat: int
    inputs: dict[int, tuple[int, int]] = field(default_factory=dict)
    sealed: bool = False

    def presses(self) -> Presses:
        ordered = sorted(self.inputs.items(), key=lambda item: item[1][1])
        return Presses.of(*((kind, target, ms) for kind, (target, ms) in ordered))


class Window:
    """One round's window for the players at this terminal, timed from the painted reveal.

    Pure: every time is passed in (seconds on the event clock), so a test can
    play it with made-up times.
    """

    def __init__(self, round: int, opened_at: float, seats: Iterable[int], *, dragon: bool, cards: Iterable[int]) -> None:
        self.round = round
        self.opened_at = opened_at
        self.dragon = dragon
        self.cards = frozenset(cards)  # seats with a revealed card: what a hand can land on
        self.hands = {seat: Hand(seat) for seat in seats}

    def ms(self, at: float) -> int:
        return round((at - self.opened_at) * 1000)

    def press(self, seat: int, kind: int, target: int, at: float) -> str:
        """Record one press at clock time ``at``. Returns "ok", or why it does not count:
        early (before the reveal was drawn), closed, sealed, again (that kind twice),
        no-card (no card in front of that seat)."""
        hand = self.hands.get(seat)
        if hand is None or hand.sealed:
            return "sealed"
        if at < self.opened_at:
            return "early"
        ms = self.ms(at)
        if ms > WINDOW_MS:
            return "closed"
        if kind in hand.inputs:
            return "again"
        if kind == SLAP and target not in self.cards:
            return "no-card"
        hand.inputs[kind] = (target, ms)
        return "ok"

    def closes_at(self, seat: int) -> float:
        """When ``seat``'s presses are sealed: ``LINGER_MS`` after the first (after the shield
        with a dragon out), at most ``WINDOW_MS`` after the reveal."""
        inputs = self.hands[seat].inputs
        if self.dragon:
            first = inputs[SHIELD][1] if SHIELD in inputs else None
        else:
            first = min((ms for _, ms in inputs.values()), default=None)
        ms = WINDOW_MS if first is None else min(WINDOW_MS, first + LINGER_MS)
        return self.opened_at + ms / 1000

    def due(self, at: float) -> list[int]:
        """The open hands whose window has closed at ``at``."""
        return [s for s, hand in self.hands.items() if not hand.sealed and self.closes_at(s) <= at]

    def seal(self, seat: int) -> Presses:
        hand = self.hands[seat]
        hand.sealed = True
        return hand.presses()
