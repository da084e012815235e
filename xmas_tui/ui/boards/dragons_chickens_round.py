"""Dragons & Chickens between rounds: the room's rows of cards, the last round in full, the loots.

Owns: the rows the room's cards are shown in (``room_rows``, ``show_room``:
the board's and the result's), the last round shown in full over the table
between rounds (``DragonsChickensRound``: the cards and where they went, every
press with its time and what came of it, and why), where a burned player here
chooses what the dragon gets (ruling "Chickens"), and the loots to look through
(``DragonsChickensLoot``, ``v``).

Must not touch: the engine state, the table, or anyone's sealed presses: these
widgets show the records and faces the board hands them, and a choice for the
dragon goes back through the board (``feed``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Static

from xmas_tui.games import View
from xmas_tui.games.dragons_chickens import Choice, RoundRecord, loot_zone
from xmas_tui.outside import words

from .. import paint
from ..theme import inks
from .base import Box, BoxRow
from .dragons_chickens_keys import BLOCKS
from .dragons_chickens_text import (
    CARD_HEIGHT,
    CARD_WIDTH,
    DRAGON_RED,
    counts_text,
    fates,
    headline,
    loot_text,
    offer_text,
    room_box,
    round_rows,
    why_lines,
)


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


# ---------------------------------------------------------------- the last round


#: While a player here chooses what the dragon gets, the last round stays up this many seconds at least.
CHOOSE_SECONDS = 10.0


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


# ---------------------------------------------------------------- the loots


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

    def action_dismiss(self) -> None:  # type: ignore[override]  # (Esc's action: closes with no result)
        if self.is_current:
            self.dismiss(None)
