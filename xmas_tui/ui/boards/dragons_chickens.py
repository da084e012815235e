"""The Dragons & Chickens board: the revealed room, each player's keys, the last round.

Owns: drawing a snapshot of the race (every revealed card, big and marked)
at the instant the table names (``Snapshot.room_in``: every terminal draws
it at once), timing the key presses of the players at this terminal from
the moment the reveal has been painted, sending each press to the table as
it is made (``Board.Pressed``: everyone hears it) and sealing each player's
``Presses`` when their window closes (our ruling, in "Timed presses"), the
shouts heard in the round, the shared-keyboard key blocks, the last round's
result, shown in full between rounds (where a burned player chooses what
the dragon gets, ruling "Chickens"), and the loots to look through (``v``).

Must not touch: the engine state, or anyone's sealed presses. The board reads
only the snapshot: the faces it may see, ``to_act``, ``last_round``, the
pending ``choices`` and what was heard. A key is timed by Textual's event
clock (``Message.time``: when the key arrived), against the same clock read
once the frame with the new cards was drawn.
"""

from __future__ import annotations

import contextlib
import math
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical, VerticalScroll
from textual.events import Click, Key
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Static

from xmas_tui.games import View, count
from xmas_tui.games.dragons_chickens import (
    CHEST,
    DRAGON,
    GAME,
    LINGER_MS,
    NAME,
    ROOM,
    SHIELD,
    SLAP,
    TREASURE_NAMES,
    WINDOW_MS,
    Choice,
    Feed,
    Presses,
    Ready,
    RoundRecord,
    all_faces,
    card,
    choice_of,
    counts_of,
    dragon_offers,
    face_name,
    loot_zone,
    pile_zone,
    table_zone,
)
from xmas_tui.games.dragons_chickens import last_round as record_of
from xmas_tui.outside import words
from xmas_tui.tables.table import DEFAULT_PACE, Heard, Snapshot

from .. import paint
from ..theme import Inks, inks
from .base import Board, Box, BoxRow, PlayerLine

#: One single-width symbol and one colour per treasure, in ``TREASURES`` order.
SYMBOLS = ("○", "●", "♛", "$", "◆", "Ψ")
COLOURS = ("ember", "white", "violet", "gold", "sky", "green")
DRAGON_RED = "dragon"
CHICKEN = "pink"
DARK = "lilac"
TORCH = "¡"
#: Between rounds the last result stays up for this many times the table's pace.
PAUSE_PER_PACE = 3.0
#: ...or this many seconds, at least, for a player here to choose what the dragon gets
CHOOSE_SECONDS = 10.0
#: The countdown is shown once this little of the window is left (seconds).
COUNTDOWN_FROM = 3
NAME_WIDTH = 7


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


def _bindings() -> list[Binding]:
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


# ---------------------------------------------------------------- drawing


def treasure_text(ink: Inks, t: int, *, name: bool = True) -> Text:
    text = Text(SYMBOLS[t], style=f"bold {ink[COLOURS[t]]}")
    if name:
        text.append(f" {TREASURE_NAMES[t]}", style=ink[COLOURS[t]])
    return text


def card_body(ink: Inks, face: str | None) -> Text:
    """The inside of a revealed card: two treasures, then its chicken or dragon."""
    if face is None:
        return Text("\n empty\n", style="dim")
    c = card(face)
    text = Text.assemble(treasure_text(ink, c.treasures[0]), "\n", treasure_text(ink, c.treasures[1]), "\n")
    if c.dragon:
        text.append("DRAGON" + "▲" * c.dragon, style=f"bold {ink[DRAGON_RED]}")
    elif c.chicken:
        text.append("chicken", style=f"bold {ink[CHICKEN]}")
    return text


def short(name: str, width: int = NAME_WIDTH) -> str:
    """A name in ``width`` cells, keeping its last letter: "Player 2" -> "Play…2"."""
    return name if len(name) <= width else name[: width - 2] + "…" + name[-1]


_VERDICTS = {
    "won": ("takes the room", "bold $leaf"),
    "lost-tie": ("lost the draw", "$gold"),
    "late": ("too late", "dim"),
    "wrong": ("wrong: out", "bold $ember"),
    "out": ("ignored: out", "dim"),
    "tied-kind": ("a tie: chest!", "$gold"),
    "empty": ("nothing counts", "dim"),
    "dragon": ("dragon out", "$dragon"),
    "stole": ("steals it", "bold $leaf"),
    "beaten": ("beaten to it", "dim"),
    "missed": ("no dark room", "dim"),
    "safe": ("safe", "$leaf"),
    "top": ("last: burned", "bold $dragon"),
    "no-dragon": ("no dragon", "dim"),
}


def press_text(ink: Inks, kind: int, target: int, names: Sequence[str]) -> Text:
    if kind == NAME:
        return treasure_text(ink, target)
    if kind == CHEST:
        return Text("chest", style=f"bold {ink.gold}")
    if kind == SHIELD:
        return Text("shield", style=f"bold {ink.ice}")
    return Text(f"slap {short(names[target], 8)}", style=f"bold {ink[DARK]}")


def shout_text(ink: Inks, heard: Heard, names: Sequence[str], mine: Iterable[int] = (), *, timed: bool = True) -> Text:
    """A press heard as it happens: "Pablo: Ψ Chalice!" (after its time in ms, when ``timed``)."""
    kind, target = heard.shout
    text = Text(f"{heard.ms:>4} ms ", style=ink.leaf) if timed else Text()
    text.append(f"{names[heard.seat]}: ", style="bold" if heard.seat in set(mine) or not timed else "")
    if kind == NAME:
        text.append_text(treasure_text(ink, target))
    elif kind == CHEST:
        text.append("the chest", style=f"bold {ink.gold}")
    elif kind == SHIELD:
        text.append("the shield", style=f"bold {ink.ice}")
    else:
        owner = "my own" if target == heard.seat else f"{short(names[target], 8)}'s"
        text.append(f"slaps {owner} dark room", style=f"bold {ink[DARK]}")
    text.append("!")
    return text


def headline(ink: Inks, record: RoundRecord, names: Sequence[str]) -> Text:
    """The round in one line: who took the room and how, or the dragon."""
    o = record.outcome
    text = Text()
    if o.how == "dragon":
        text.append("DRAGON! ", style=f"bold {ink[DRAGON_RED]}")
        burned = [names[b.seat] for b in o.burns]
        text.append(f"{' and '.join(burned)} burned." if burned else "Nobody burned.")
    elif o.winner is not None:
        cards = len(record.taken)
        how = f"{TREASURE_NAMES[o.named]}" if o.how == "named" and o.named is not None else "the chest"
        text.append(names[o.winner], style="bold")
        text.append(f" takes {cards} card{'s' * (cards != 1)} with {how} at {o.win_ms} ms")
    else:
        text.append("Nobody took the room.", style="bold")
    return text


def counts_text(ink: Inks, counts: Sequence[int]) -> Text:
    text = Text()
    for t, n in sorted(enumerate(counts), key=lambda tn: -tn[1]):
        if n:
            text.append_text(treasure_text(ink, t, name=False))
            text.append(f"{n} ")
    return text


def round_rows(ink: Inks, record: RoundRecord, names: Sequence[str], mine: Iterable[int] = ()) -> list[Text]:
    """Who pressed what and when, and what came of it, in time order."""
    mine = set(mine)
    rows = []
    for v in record.outcome.verdicts:
        row = Text(f"{v.ms:>4} ms ", style=ink.leaf)
        row.append(f"{short(names[v.seat], 6):<6} ", style="bold" if v.seat in mine else "")
        what = press_text(ink, v.kind, v.target, names)
        what.pad_right(14 - what.cell_len)
        row.append_text(what)
        verdict, style = _VERDICTS.get(v.what, (v.what, ""))
        style = ink.style(style)
        row.append(f" {verdict}", style=style)
        rows.append(row)
    if not rows:
        rows.append(Text("nobody pressed anything", style="dim"))
    return rows


def why_lines(record: RoundRecord) -> list[str]:
    """The engine's account past one line per press: ties, the dragon, the room."""
    return list(record.lines[len(record.outcome.verdicts) :])


def fates(record: RoundRecord, names: Sequence[str]) -> dict[int, str]:
    """Where each revealed card went: seat -> a few words."""
    o = record.outcome
    out: dict[int, str] = {}
    stolen = {t.owner: t.thief for t in o.thefts}
    for seat, handle in record.revealed:
        if seat in stolen:  # a card border has room for six letters
            out[seat] = f"{TORCH}→{short(names[stolen[seat]], 4)}"
        elif handle in record.taken and o.winner is not None:
            out[seat] = f"→{short(names[o.winner], 5)}"
        elif handle in record.to_room:
            out[seat] = "room"
    return out


# ---------------------------------------------------------------- widgets


CARD_WIDTH, CARD_HEIGHT = 12, 5
HIDDEN = Text("░" * (CARD_WIDTH - 2))


def room_box(ink: Inks, seat: int, name: str, face: str | None, *, hidden: bool = False, note: str = "",
             hover: bool = False) -> Box:
    """One seat's card in the room: face down (``hidden``), none, or its two treasures and its
    chicken or dragon; ``note`` on its bottom edge (where it went, a dark room's key); lit
    under the mouse if ``hover``, where a click on it slaps it (the first player's hand)."""
    look = dict(
        width=CARD_WIDTH, border="round", edge=ink.felt_line, title=Text(short(name, 6), style=ink.leaf),
        ground=ink.felt_card, hover=ink.felt_hover if hover else None, click=("slap_by_click", (seat,)) if hover else None,
    )
    subtitle = ink.gold
    if hidden:
        lines = tuple(Text(HIDDEN.plain, style=ink.felt_line) for _ in range(3))
        look["ground"] = ink.felt_down
    elif face is None:
        lines = tuple(card_body(ink, None).split("\n", allow_blank=True))
        look["edge"] = ink.felt_line_dim
    else:
        lines = tuple(card_body(ink, face).split("\n", allow_blank=True))
        c = card(face)
        note = note or (f"{TORCH} dark" if c.torch else "")
        if c.torch:
            look.update(border="dashed", edge=ink.lilac)
            subtitle = ink.lilac
        if c.dragon:  # (a dark room's dragon is drawn as a dragon, its note as a dark room's)
            look.update(border="heavy", edge=ink.dragon, ground=ink.dragon_ground,
                        title=Text(short(name, 6), style=f"bold {ink.dragon}"))
    return Box(lines=lines[: CARD_HEIGHT - 2], subtitle=Text(note, style=subtitle) if note else None, **look)


def cards_per_row(players: int) -> int:
    """How many cards a row of the board's room holds: five players' in rows of three and two."""
    return 3 if players == 5 else players


def room_rows(players: int, per_row: int, *, timed: bool = False) -> list[BoxRow]:
    """The rows of the room's cards, ``per_row`` a row (``timed``: a click slaps a card)."""
    return [
        BoxRow(CARD_HEIGHT, 0, width=CARD_WIDTH * (min(players, start + per_row) - start), timed=timed,
               id=f"dc-row-{start // per_row}", classes="dc-row")
        for start in range(0, players, per_row)
    ]


def show_room(rows: Sequence[BoxRow], boxes: Sequence[Box], per_row: int) -> None:
    """Each row shows its seats' cards, ``per_row`` a row, in seat order."""
    for number, row in enumerate(rows):
        row.show_boxes(boxes[number * per_row : (number + 1) * per_row])


class Hands(paint.Words):
    """The keys and the presses of every player at this terminal. Click a key to press it."""

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self.screen.query_one(DragonsChickensBoard).legend_clicked(offset.y, offset.x, event.time)


def offer_text(ink: Inks, choice: Choice, offer: int, faces: Mapping[int, str]) -> Text:
    """One thing a burned player may give the dragon, as a person reads it."""
    handles, chicken = choice.offers[offer]
    if chicken:
        return Text.assemble(("your chicken", f"bold {ink[CHICKEN]}"), f" ({face_name(faces[handles[0]])}) · 1 card")
    chickens = sum(card(faces[h]).chicken for h in handles)
    also = f", {count(chickens, 'chicken')} among them" if chickens else ""
    return Text(f"the {count(len(handles), 'card')} it wants{also}")


class Centered(Center, paint.Unscrolled):
    """The result's row of cards, centred: laid out once as the result is shown."""


class ResultBox(paint.Unscrolled, Vertical):
    """The last round's box: its height follows the round's lines, painted in one frame."""


class ResultText(paint.Words):
    """The last round's lines: as many as it had, so its height changes from round to round."""


class DragonsChickensRound(Vertical, paint.Unscrolled):
    """The last round in full, between rounds: the cards and where they went, every press
    with its time and what came of it, and why. It hides the table (and its log, which
    already tells the next room) until the next room is revealed.

    It lies over the table on a layer of the table's screen, and is shown and hidden there
    (``open``, ``close``): a screen of its own cost a screen's change and the table's whole
    repaint both ways, 20 to 45 ms between a key and its frame.

    A player here whom the dragon burned, with a chicken in their loot, chooses here what
    the dragon gets (ruling "Chickens"): their first two treasure keys pick an offer, the
    cheaper first; Enter, or the pause running out, gives the cheaper."""

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__(id="dc-round")
        self.names = tuple(names)
        self.record: RoundRecord | None = None
        self.faces: dict[int, str] = {}
        self.mine: tuple[int, ...] = ()
        self.pause = 0.0
        #: my seats' choices for the dragon (seat -> choice), and the ones made this pause
        self.choices: dict[int, Choice] = {}
        self.feed: Callable[[int, bool], None] | None = None
        self.fed: dict[int, bool] = {}
        self._timer: Timer | None = None
        self._then: Callable[[], None] | None = None  # (called once it is closed)

    def compose(self) -> ComposeResult:
        with ResultBox(id="dc-result-box", classes="dialog"):
            with Centered():
                yield from room_rows(len(self.names), len(self.names))
            yield ResultText(id="dc-result-text")
            yield paint.Words(id="dc-choice")  # (shown when a player here chooses what the dragon gets)
            yield paint.Words(Text("Enter: the next room now · it comes by itself in a moment", style="dim"), classes="hint")

    def _keys(self, seat: int) -> tuple[str, ...]:
        """The keys that pick ``seat``'s offers: its key block's first treasure keys."""
        block = self.mine.index(seat) if seat in self.mine else 0
        return BLOCKS[min(block, len(BLOCKS) - 1)].treasures[:2]

    def _draw_choices(self) -> None:
        ink = inks(self)
        text = Text()
        for seat, choice in sorted(self.choices.items()):
            text.append("\n" * bool(text))
            name = self.names[seat]
            if seat in self.fed:
                what = "a chicken" if self.fed[seat] else "the cards it wanted"
                text.append(f"{name} gives the dragon {what}.", style=f"bold {ink.leaf}")
                continue
            text.append(f"{name}, the dragon is hungry. Give it", style=f"bold {ink[DRAGON_RED]}")
            for i, key in enumerate(self._keys(seat)):
                text.append("  ")
                text.append(key, style="bold reverse")
                text.append(" ")
                text.append_text(offer_text(ink, choice, i, self.faces))
                text.append(" (cheaper)" if i == 0 else "", style="dim")
        paint.show(self.query_one("#dc-choice", Static), text)

    @property
    def shown(self) -> bool:
        return self.display

    def open(self, closed: Callable[[], None]) -> None:
        """Show the round over the table, for its pause; ``closed()`` once it is closed (by
        Enter, by the pause running out, or by the next room)."""
        self._then = closed
        if not self.is_mounted:  # (the round ended as the table came up)
            self.call_after_refresh(self.open, closed)
            return
        self.display = True  # (the board keeps the keys: moving them here restyles the screen)
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(self.pause, self.action_dismiss)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if not self.display:
            return
        self.display = False
        closed, self._then = self._then, None
        if closed is not None:
            closed()

    def key(self, key: str) -> bool:
        """A key pressed while the round is up (the table's board hands them on): Enter or
        Space shows the next room, a burned player's first two treasure keys choose what the
        dragon gets, and every other key of a player's block does nothing; True if taken."""
        if key in ("enter", "space"):
            self.close()
            return True
        for seat, choice in self.choices.items():
            keys = self._keys(seat)
            if seat not in self.fed and key in keys:
                chicken = bool(choice.offers[keys.index(key)][1])
                self.fed[seat] = chicken
                if self.feed is not None:
                    self.feed(seat, chicken)
                self._draw_choices()
                return True
        return any(key in (*block.treasures, block.chest, block.shield, block.slap) for block in BLOCKS)

    def show_round(self, record: RoundRecord, faces: Mapping[int, str], mine: Sequence[int], pause: float,
                   choices: Mapping[int, Choice] | None = None, feed: Callable[[int, bool], None] | None = None) -> None:
        """The round to show when it is next opened (it is made once a game, and shown after
        every round: opening it again costs a repaint, not a new widget).
        ``choices``: my seats' choices for the dragon (seat -> choice); ``feed(seat, chicken)``
        sends one made."""
        self.record, self.faces, self.mine = record, dict(faces), tuple(mine)
        self.choices, self.feed, self.fed = dict(choices or {}), feed, {}
        self.pause = max(pause, CHOOSE_SECONDS) if self.choices else pause
        if self.is_mounted:
            self._fill()

    def on_mount(self) -> None:
        self._fill()

    def _fill(self) -> None:
        record, names = self.record, self.names
        shown = self.query("#dc-result-text")
        if record is None or not shown:
            return  # (already taken down: the app closed as the round ended)
        ink = inks(self)
        paint.title(self.query_one("#dc-result-box"), f"Round {record.round} · what happened")
        handles = dict(record.revealed)
        where = fates(record, names)
        show_room(list(self.query(BoxRow)), [
            room_box(ink, seat, name, self.faces.get(handles.get(seat, -1)), note=where.get(seat, ""))
            for seat, name in enumerate(names)
        ], len(names))
        text = headline(ink, record, names)
        if record.outcome.how != "dragon":
            text.append("  ")
            text.append_text(counts_text(ink, record.outcome.counts))
        for row in round_rows(ink, record, names, self.mine):
            text.append("\n")
            text.append_text(row)
        for line in why_lines(record):
            text.append(f"\n{line}", style="italic")
        paint.show(shown.first(Static), text)
        choosing = self.query_one("#dc-choice", Static)
        choosing.display = bool(self.choices)
        if self.choices:
            self._draw_choices()

    def action_dismiss(self) -> None:
        self.close()


def dragon_faces() -> list[str]:
    """The nine dragon cards, the largest (the easiest to see) first."""
    return sorted({f for f in all_faces() if card(f).dragon}, key=lambda f: (-card(f).dragon, card(f).treasures))


def loot_text(ink: Inks, loot: Sequence[str], who: str = "you") -> Text:
    """A player's loot as a person looks through it: how many cards show each treasure, what
    each dragon would take (or whether a chicken would do), and the cards themselves."""
    chickens = sum(card(f).chicken for f in loot)
    text = Text(f"{count(len(loot), 'card')}, {count(chickens, 'chicken')}\n", style="bold")
    shows = counts_of(loot)
    for t in range(len(TREASURE_NAMES)):
        text.append_text(treasure_text(ink, t))
        text.append(f" {shows[t]:<3} " if t % 3 < 2 else f" {shows[t]}\n")
    text.append(f"\nIf a dragon burned {who} now:\n", style=f"bold {ink[DRAGON_RED]}")
    for face in dragon_faces():
        c = card(face)
        offers = dragon_offers(loot, face)
        text.append(f" {'▲' * c.dragon:<3} ", style=f"bold {ink[DRAGON_RED]}")
        pair = Text.assemble(treasure_text(ink, c.treasures[0]), " & ", treasure_text(ink, c.treasures[1]))
        pair.pad_right(22 - pair.cell_len)
        text.append_text(pair)
        wants = next(o for o in offers if not o.chicken)
        text.append(f" takes {count(len(wants.lost), 'card')}")
        if len(offers) > 1:
            text.append(" · or a chicken", style=ink[CHICKEN])
        text.append("\n")
    text.append("\nThe cards, the newest last:\n", style="bold")
    for face, n in Counter(face_name(f) for f in loot).items():
        text.append(f" {n}× {face}\n")
    return text


class DragonsChickensLoot(ModalScreen[None]):
    """Look through the loots (public, like every card won): a player's cards, how many show
    each treasure, and what each dragon would take. Tab: the next player."""

    BINDINGS = [
        Binding("escape,v,enter", "dismiss", "Back", key_display="esc", tooltip="Back to the table", id="dc.loot.back"),
        Binding("tab,right", "next(1)", "Next player", key_display="tab", tooltip="Another player's loot", id="dc.loot.next"),
        Binding("shift+tab,left", "next(-1)", "Previous", show=False, id="dc.loot.previous"),
    ]

    def __init__(self, view: View, seat: int) -> None:
        super().__init__()
        self.view = view
        self.seat = seat

    def compose(self) -> ComposeResult:
        with Vertical(id="dc-loot-box", classes="dialog"):
            with VerticalScroll(id="dc-loot-scroll"):
                yield paint.Words(id="dc-loot-text")
            yield paint.Words(Text("Tab: the next player's loot · Esc: back to the table", style="dim"), classes="hint")

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        names = self.view["players"]
        self.query_one("#dc-loot-box").border_title = words(f"{names[self.seat]}'s loot · what would a dragon take?")
        who = "you" if self.seat == self.view.seat else names[self.seat]
        self.query_one("#dc-loot-text", Static).update(loot_text(inks(self), self.view.faces_in(loot_zone(self.seat)), who))

    def action_next(self, step: int) -> None:
        self.seat = (self.seat + step) % len(self.view["players"])
        self._show()

    def action_dismiss(self) -> None:  # type: ignore[override]
        if self.is_current:
            self.dismiss(None)


# ---------------------------------------------------------------- the board


class DragonsChickensBoard(Board):
    game = GAME
    #: How many people may share this board's keyboard (one key block each).
    local_players = len(BLOCKS)
    gate_keys = False  # a race: every block's keys work whenever a room is open

    BINDINGS = [
        *_bindings(),
        Binding("v", "loot", "Loot", tooltip="Look through the loots: what would a dragon take?", id="dc.loot"),
    ]

    def __init__(self, snapshot: Snapshot, *, id: str | None = None) -> None:
        super().__init__(snapshot, id=id)
        #: the clock a round's window is timed on (a picture of the board holds it still)
        self.clock: Callable[[], float] = now
        self.round_seen = 0  # the round whose snapshot arrived
        self.revealed_round = 0  # the round whose cards are drawn
        self.result_seen = 0  # the last round whose result was shown in full
        self.window: Window | None = None
        self.notes: dict[int, str] = {}
        self.slap_pending: set[int] = set()  # blocks whose slap waits for a seat key
        self._arrivals: dict[str, deque[float]] = {}
        self._ticker: Timer | None = None
        self._spots: list[Spot] = []
        self._between: DragonsChickensRound | None = None  # the last round, shown between rounds
        self.fed: set[int] = set()  # the players here who chose what the dragon gets, this pause

    # -------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        players = len(self.snapshot.view["players"])
        yield paint.Words(id="dc-head")
        with Vertical(id="dc-room"):
            for row in room_rows(players, cards_per_row(players), timed=True):
                with Center():
                    yield row
        yield Hands(id="dc-hands")
        yield paint.Words(id="dc-last")

    def on_mount(self) -> None:
        if not self.drawable:
            return
        self._ticker = self.set_interval(0.05, self._tick, pause=True)
        self._round()  # (ready, hidden, over the table, for the first round's end)
        self.redraw()

    # -------------------------------------------------------------- the round's stages
    def show_snapshot(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        view = snapshot.view
        rnd = view["round"]
        if snapshot.result is None and view["phase"] == "pause":
            self._close_window()
            record = record_of(view.public)
            if record is not None and record.round > self.result_seen:
                self.result_seen = record.round
                self.redraw()
                if not self.is_attached:
                    self._ready()
                    return
                faces = {h: f for h in dict(record.revealed).values() if (f := view.face(h)) is not None}
                choices = {s: c for s in snapshot.my_seats if (c := choice_of(view.public, s)) is not None}
                for choice in choices.values():  # the loot on offer (public, like every loot)
                    faces.update((h, f) for handles, _ in choice.offers for h in handles if (f := view.face(h)))
                self.fed = set()
                between = self._round()
                between.show_round(record, faces, snapshot.my_seats, self.pause(), choices, self._feed)
                between.open(self._ready)
                return
        if snapshot.result is None and view["phase"] == "race" and rnd != self.round_seen:
            self.round_seen = rnd
            self._close_window()
            between = self._between
            if between is not None and between.shown:  # the room opened: ready or not
                between.close()
            if snapshot.room_waits:  # every terminal draws it at one instant
                self.redraw()
                self.set_timer(snapshot.room_in, partial(self._reveal, rnd))
            else:
                self._reveal(rnd)
            return
        if snapshot.result is not None:
            self._close_window()
        self.redraw()

    def action_loot(self) -> None:
        """Look through the loots, mine first (the cards stay in play meanwhile)."""
        seat = self.snapshot.seat if self.snapshot.seat is not None else 0
        self.app.push_screen(DragonsChickensLoot(self.snapshot.view, seat))

    def _feed(self, seat: int, chicken: bool) -> None:
        """A player here chose what the dragon gets: that is being ready too."""
        self.fed.add(seat)
        self.choose(Feed(int(chicken)), seat=seat)
    def _round(self) -> DragonsChickensRound:
        """The last round's result, over the table: made once a game, shown after every round."""
        if self._between is None:
            self._between = DragonsChickensRound(self.snapshot.view["players"])
            self.screen.mount(self._between)
        return self._between

    def on_unmount(self) -> None:
        between, self._between = self._between, None
        if between is not None:
            with contextlib.suppress(Exception):  # (the screen may be going too)
                between.remove()

    def _ready(self) -> None:
        """The last round has been seen: every player here is ready for the next room (one who
        has not chosen what the dragon gets gives it the cheaper)."""
        snap = self.snapshot
        if snap.result is not None or snap.view["phase"] != "pause":
            return
        for seat in snap.my_seats:
            if seat in snap.to_act and seat not in self.fed:
                choice = choice_of(snap.view.public, seat)
                self.choose(Ready() if choice is None else Feed(int(choice.offers[0][1])), seat=seat)

    def pace_note(self, pace: float) -> str:
        # bots here react within the round's window; the pace only sets the pause between rounds
        return f"Each round's result now stays up {PAUSE_PER_PACE * pace:.1f} s (Enter: next room at once)."

    def pause(self) -> float:
        """How long the last round stays up between rounds: three times the table's pace
        (a networked table without one: the default pace)."""
        pace = self.pace or DEFAULT_PACE
        return PAUSE_PER_PACE * pace

    def _reveal(self, rnd: int) -> None:
        """Draw the round's cards; the clock starts once that frame is on screen."""
        if rnd != self.round_seen or self.snapshot.result is not None:
            return
        self.revealed_round = rnd
        self.redraw()
        self.call_after_refresh(self._open_window, rnd)

    def _open_window(self, rnd: int) -> None:
        if rnd != self.round_seen or self.revealed_round != rnd or self.window is not None:
            return
        if self.screen is not self.app.screen or (self._between is not None and self._between.shown):
            # a dialog is over the cards: not seen yet
            self.call_after_refresh(self._open_window, rnd)
            return
        snap = self.snapshot
        revealed = self.revealed()
        seats = [s for s in snap.my_seats if s in snap.to_act]
        dragon = any(card(f).dragon for f in revealed.values())
        self.window = Window(rnd, self.clock(), seats, dragon=dragon, cards=revealed)
        self.notes.clear()
        self.slap_pending.clear()
        if self._ticker is not None:
            self._ticker.resume()
        self._draw_hands()

    def _close_window(self) -> None:
        self.window = None
        self.slap_pending.clear()
        if self._ticker is not None:
            self._ticker.pause()

    def _tick(self) -> None:
        window = self.window
        if window is None:
            return
        for seat in window.due(self.clock()):
            self._seal(seat)
        self._draw_hands()

    def _seal(self, seat: int) -> None:
        assert self.window is not None
        self.choose(self.window.seal(seat), seat=seat)

    # -------------------------------------------------------------- input
    def on_key(self, event: Key) -> None:
        """Note when each key arrived; the binding's action then times the press with it.
        While the last round is up over the table, its keys are its own."""
        between = self._between
        if between is not None and between.shown and between.key(event.key):
            event.stop()
            event.prevent_default()
            return
        self._arrivals.setdefault(event.key, deque(maxlen=8)).append(event.time)

    def _arrival(self, key: str) -> float:
        arrivals = self._arrivals.get(key)
        return arrivals.popleft() if arrivals else self.clock()

    def action_press(self, block: int, kind: int, target: int) -> None:
        """A key of player ``block``'s block: a shout, the chest, the shield, or a slap."""
        keys = BLOCKS[block]
        at = self._arrival(keys.key_for(kind, target))
        self.press(block, kind, target, at)

    def slap_by_click(self, seat: int, at: float) -> None:
        self.press(0, SLAP, seat, at, chosen=True)

    def press(self, block: int, kind: int, target: int, at: float, *, chosen: bool = False) -> None:
        mine = self.snapshot.my_seats
        if block >= len(mine):
            return
        seat = mine[block]
        window = self.window
        if window is None or seat not in window.hands:
            if self.snapshot.result is None and seat in self.snapshot.to_act:
                self._note(seat, "too early: the room is not open yet")
            return
        if block in self.slap_pending:
            self.slap_pending.discard(block)
            self._draw_cards(True, self.revealed())
            if kind == NAME and target < len(self.snapshot.view["players"]):
                kind, chosen = SLAP, True
        if kind == SLAP and not chosen:
            darks = sorted(s for s, f in self.revealed().items() if card(f).torch)
            if not darks:
                self._note(seat, "no dark room to slap")
                return
            if len(darks) > 1:
                self.slap_pending.add(block)
                seats = BLOCKS[block].seat_keys
                self._draw_cards(True, self.revealed())
                self._note(seat, f"slap which? {' or '.join(seats[d] for d in darks)}")
                return
            target = darks[0]
        said = window.press(seat, kind, target, at)
        if said == "ok":  # heard by everyone at once; sealed with the rest when the window closes
            ms = window.hands[seat].inputs[kind][1]
            self.post_message(self.Pressed(Presses.of((kind, target, ms)), None if seat == self.snapshot.seat else seat))
        self._note(seat, {
            "ok": "",
            "early": "too early: the cards were not on screen yet",
            "closed": "too late: the room has closed",
            "sealed": "sealed already",
            "again": "one of each: that one is already in",
            "no-card": "no card there",
        }[said])  # fmt: skip
        if said != "ok":
            self.app.bell()
        self._tick()

    def _note(self, seat: int, note: str) -> None:
        self.notes[seat] = note
        self._draw_hands()

    # -------------------------------------------------------------- drawing
    def revealed(self) -> dict[int, str]:
        """The faces on the table this round: seat -> face."""
        view = self.snapshot.view
        out = {}
        for seat in range(len(view["players"])):
            for handle in view.zone(table_zone(seat))[-1:]:
                face = view.face(handle)
                if face is not None:
                    out[seat] = face
        return out

    def redraw(self) -> None:
        if not (self.is_mounted and self.drawable):
            return
        snap = self.snapshot
        view = snap.view
        shown = self.revealed_round == view["round"] or snap.result is not None
        revealed = self.revealed() if shown else {}
        self._draw_cards(shown, revealed)
        self._draw_head(shown, revealed)
        self._draw_hands()
        self._draw_last()

    def _draw_cards(self, shown: bool, revealed: Mapping[int, str]) -> None:
        """The room; while a slap waits for its card, each dark room shows the key that picks it."""
        ink = inks(self)
        boxes = []
        for seat, name in enumerate(self.snapshot.view["players"]):
            face = revealed.get(seat)
            note = ""
            if self.slap_pending and face is not None and card(face).torch:
                note = f"{TORCH} " + " ".join(BLOCKS[b].seat_keys[seat] for b in sorted(self.slap_pending))
            boxes.append(room_box(ink, seat, name, face, hidden=not shown, note=note, hover=True))
        show_room(list(self.query(BoxRow)), boxes, cards_per_row(len(boxes)))

    def _draw_head(self, shown: bool, revealed: Mapping[int, str]) -> None:
        ink = inks(self)
        view = self.snapshot.view
        head = self.part("dc-head", Static)
        width = head.content_size.width or 48
        heard = self.snapshot.heard if shown and self.snapshot.result is None else ()
        shout = shout_text(ink, heard[-1], view["players"], (), timed=False) if heard else None  # the latest, loud
        text = Text(f"Round {view['round']} ", style="bold")
        if self.snapshot.result is not None:
            text.append("· every pile is empty: the game is over", style=f"bold {ink.gold}")
        elif not shown:
            text.append("· My-trea-sure! the next room…", style=ink.gold)
        elif any(card(f).dragon for f in revealed.values()):  # (once a hand is heard, the shout says where)
            text.append(" DRAGON! " if shout else " DRAGON! hands on the shield ", style=f"bold {ink.on_ground} on {ink.alarm_ground}")
        else:
            room = len(view.zone(ROOM))  # (the status bar counts it too: a shout takes its place)
            text.append(f"· My-trea-sure!{f' · {room} more in the room' if room and not shout else ''}", style=ink.gold)
        if shout is not None and text.cell_len + 2 + shout.cell_len <= width:  # (if it has room)
            text.append("  ")
            text.append_text(shout)
        paint.show(head, text)

    def _draw_hands(self) -> None:
        if not self.is_mounted:
            return
        snap = self.snapshot
        names = snap.view["players"]
        window = self.window
        text = Text()
        spots: list[Spot] = []
        for block, seat in enumerate(snap.my_seats[: len(BLOCKS)]):
            if block:
                text.append("\n")
            legend, keys = self._legend(block, names[seat])
            spots += [Spot(2 * block, *key) for key in keys]
            text.append_text(legend)
            text.append("\n")
            text.append_text(self._state(seat, window, names))
        self._spots = spots
        hands = self.part("dc-hands", Hands)
        hands.display = bool(snap.my_seats)  # (a spectator has no keys)
        paint.show(hands, text)

    def _legend(self, block: int, name: str) -> tuple[Text, list[tuple[int, int, int, int, int]]]:
        """A player's keys in one line, and where each key is: (start, end, block, input, target)."""
        ink = inks(self)
        keys = BLOCKS[block]
        text = Text(f"{short(name, 6):<7}", style="bold")
        spots = []
        for t, key in enumerate(keys.treasures):
            start = len(text)
            text.append(key, style="bold reverse")
            text.append_text(treasure_text(ink, t, name=False))
            spots.append((start, len(text), block, NAME, t))
            text.append(" ")
        for key, label, kind, colour in (
            (keys.chest, "chest", CHEST, ink.gold),
            (keys.shield, "shield", SHIELD, ink.ice),
            (keys.slap, "slap", SLAP, ink[DARK]),
        ):
            start = len(text)
            text.append(key, style="bold reverse")
            text.append(f" {label}", style=colour)
            spots.append((start, len(text), block, kind, -1 if kind == SLAP else 0))
            text.append(" " if kind != SLAP else "")
        return text, spots

    def legend_clicked(self, line: int, column: int, at: float) -> None:
        for spot in self._spots:
            if spot.line == line and spot.start <= column < spot.end:
                self.press(spot.block, spot.kind, spot.target, at)
                return

    def _state(self, seat: int, window: Window | None, names: Sequence[str]) -> Text:
        ink = inks(self)
        snap = self.snapshot
        text = Text("       ")
        note = self.notes.get(seat, "")
        if snap.result is not None:
            return text.append("the game is over", style="dim")
        if seat not in snap.to_act:
            return text.append("sealed: waiting for the others", style="dim")
        if self.revealed_round != snap.view["round"]:
            return text.append("get ready…", style="dim")
        # Drawn but not yet stamped: the clock starts with this very frame.
        hand = window.hands.get(seat) if window is not None else None
        inputs = hand.inputs if hand is not None else {}
        for kind, (target, ms) in sorted(inputs.items(), key=lambda item: item[1][1]):
            text.append_text(press_text(ink, kind, target, names))
            text.append(f" {ms} ms  ", style=ink.leaf)
        if hand is not None and hand.sealed:
            text.append("✓ sealed", style=f"bold {ink.leaf}")
        elif note:
            text.append(note, style=ink.ember)
        elif inputs:
            text.append("…", style="dim")
        else:
            dragon = any(card(f).dragon for f in self.revealed().values())
            text.append("Go! the shield!" if dragon else "Go!", style=f"bold {ink[DRAGON_RED]}" if dragon else f"bold {ink.gold}")
            left = math.ceil(window.closes_at(seat) - self.clock()) if window is not None and hand is not None else WINDOW_MS
            if left <= COUNTDOWN_FROM:
                text.append(f" {left} s left", style=ink.ember)
            else:
                text.append(f" {WINDOW_MS // 1000} s to press", style="dim")
        return text

    def _draw_last(self) -> None:
        ink = inks(self)
        snap = self.snapshot
        names = snap.view["players"]
        last = self.part("dc-last", Static)
        if snap.heard and snap.result is None and self.revealed_round == snap.view["round"]:
            paint.title(last, f"Round {snap.view['round']} · heard")  # the shouts, as they come
            self._show_last([shout_text(ink, heard, names, snap.my_seats) for heard in snap.heard])
            return
        record = record_of(snap.view.public)
        if record is None:
            paint.title(last, "Last round")
            self._show_last([Text("Nothing yet. Look at all the cards, count, press!", style="dim")])
            return
        paint.title(last, f"Round {record.round}")
        lines = [headline(ink, record, names), *round_rows(ink, record, names, snap.my_seats)]
        self._show_last(lines + [Text(line, style="italic dim") for line in why_lines(record)])

    def _show_last(self, lines: list[Text]) -> None:
        """The last round's lines, as many as the box has room for (a line too long for it
        wraps); how many more there are (the log has them all) on its bottom edge."""
        last = self.part("dc-last", Static)
        width, height = last.content_size
        shown: list[Text] = []
        used = 0
        for line in lines:
            taken = len(paint.wrapped(last, line, width)) if width else 1
            if height and used + taken > height:
                break
            shown.append(line)
            used += taken
        more = len(lines) - len(shown)
        paint.subtitle(last, f"↓ {count(more, 'more line')} in the log" if more else "")
        paint.show(last, Text("\n").join(shown))

    def on_resize(self) -> None:
        if self.drawable:
            self._draw_last()  # (as many lines as its new room has)

    # -------------------------------------------------------------- the table screen's lines
    def status_line(self) -> str:
        view = self.snapshot.view
        players = range(len(view["players"]))
        pile = max(len(view.zone(pile_zone(s))) for s in players)
        room = len(view.zone(ROOM))
        gone = len(view.zone(DRAGON))
        if self.snapshot.result is not None:
            return f"{GAME.title} · game over after {view['round']} rooms"
        return f"{GAME.title} · Round {view['round']} · piles {pile} · room {room} · under the dragon {gone}"

    def prompt_line(self) -> str:
        snap = self.snapshot
        if snap.result is not None:
            return "The game is over."
        mine = [s for s in snap.my_seats if s in snap.to_act]
        if not mine:
            waiting = ", ".join(self.player_name(s) for s in sorted(snap.to_act))
            return f"Sealed. Waiting for {waiting}." if waiting else ""
        if len(snap.my_seats) > 1:
            return (
                "Each player here has their own keys (under the cards): the most abundant treasure,"
                " the chest on a tie, the shield on a dragon, slap a dark room."
            )
        return (
            "Press the most abundant treasure (1-6); 7 the chest on a tie; 8 the shield on a dragon;"
            " 9 slaps a dark room (then the key on the card, if several)."
        )

    def player_lines(self) -> list[PlayerLine]:
        snap = self.snapshot
        view = snap.view
        lines = []
        for seat, name in enumerate(view["players"]):
            loot = view.faces_in(loot_zone(seat))
            chickens = sum(card(f).chicken for f in loot)
            block = snap.my_seats.index(seat) if seat in snap.my_seats else None
            marker = f"[{BLOCKS[block].treasures[0]}]" if block and block < len(BLOCKS) else ""
            summary = f"{chickens} chicken{'s' * (chickens != 1)} · pile {len(view.zone(pile_zone(seat)))}"
            lines.append(PlayerLine(seat, name, count(len(loot), "card"), summary, seat in snap.to_act, marker))
        return lines
