"""The Dragons & Chickens board: the revealed room, each player's keys, the last round.

Owns: drawing a snapshot of the race (every revealed card, big and marked)
at the instant the table names (``Snapshot.room_in``: every terminal draws
it at once), timing the key presses of the players at this terminal from
the moment the reveal has been painted, sending each press to the table as
it is made (``Board.Pressed``: everyone hears it) and sealing each player's
``Presses`` when their window closes (our ruling, in "Timed presses"), the
shouts heard in the round, the shared-keyboard key blocks, and the last
round's result, in its box and in full between rounds. The key blocks and
the window are in ``dragons_chickens_keys``, the words in
``dragons_chickens_text``, the widgets shown between rounds (the last round,
the loots) in ``dragons_chickens_round``.

Must not touch: the engine state, or anyone's sealed presses. The board reads
only the snapshot: the faces it may see, ``to_act``, ``last_round``, the
pending ``choices`` and what was heard. A key is timed by Textual's event
clock (``Message.time``: when the key arrived), against the same clock read
once the frame with the new cards was drawn.
"""

from __future__ import annotations

import contextlib
import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.events import Click, Key
from textual.timer import Timer
from textual.widgets import Static

from xmas_tui.games import count
from xmas_tui.games.dragons_chickens import (
    DRAGON,
    GAME,
    NAME,
    ROOM,
    SLAP,
    WINDOW_MS,
    Feed,
    Presses,
    Ready,
    card,
    choice_of,
    loot_zone,
    pile_zone,
    table_zone,
)
from xmas_tui.games.dragons_chickens import last_round as record_of
from xmas_tui.tables.table import DEFAULT_PACE, Snapshot

from .. import paint
from ..theme import inks
from .base import Board, BoxRow, PlayerLine
from .dragons_chickens_keys import BLOCKS, Spot, Window, bindings, now
from .dragons_chickens_round import DragonsChickensLoot, DragonsChickensRound, room_rows, show_room
from .dragons_chickens_text import (
    DRAGON_RED,
    TORCH,
    cards_per_row,
    headline,
    legend_text,
    press_text,
    room_box,
    round_rows,
    shout_text,
    why_lines,
)

#: Between rounds the last result stays up for this many times the table's pace.
PAUSE_PER_PACE = 3.0
#: The countdown is shown once this little of the window is left (seconds).
COUNTDOWN_FROM = 3


class Hands(paint.Words):
    """The keys and the presses of every player at this terminal. Click a key to press it."""

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self.screen.query_one(DragonsChickensBoard).legend_clicked(offset.y, offset.x, event.time)


# ---------------------------------------------------------------- the board


class DragonsChickensBoard(Board):
    game = GAME
    #: How many people may share this board's keyboard (one key block each).
    local_players = len(BLOCKS)
    gate_keys = False  # a race: every block's keys work whenever a room is open

    BINDINGS = [
        *bindings(),
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
            legend, keys = legend_text(inks(self), block, names[seat])
            spots += [Spot(2 * block, *key) for key in keys]
            text.append_text(legend)
            text.append("\n")
            text.append_text(self._state(seat, window, names))
        self._spots = spots
        hands = self.part("dc-hands", Hands)
        hands.display = bool(snap.my_seats)  # (a spectator has no keys)
        paint.show(hands, text)

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

