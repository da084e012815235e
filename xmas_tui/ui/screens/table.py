"""The table screen: one seat's view of a game in progress, for any game.

Owns: the layout around a game's board (status bar, the players panel, the
log, the prompt, the host's line about failed join attempts), sending my chosen
actions to the ``Table``, showing a refused action's rule, and the bot pace.
Every snapshot is drawn whole, but a part is repainted only when what it shows
changed (``paint``), and the panel and the log wrap their own lines, so that a
move costs the screen what it changed, in one frame, with no new layout.
Must not touch: the engine state (it holds a snapshot only).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import MouseScrollDown, MouseScrollUp
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from xmas_tui.games import Action, ActionError
from xmas_tui.outside import plain
from xmas_tui.tables.table import SeatState, Snapshot, Table
from xmas_tui.ui import paint, quick
from xmas_tui.ui.boards import BOARDS
from xmas_tui.ui.boards.base import Board, PlayerLine
from xmas_tui.ui.keybar import KeyBar
from xmas_tui.ui.theme import inks

if TYPE_CHECKING:  # (the network's modules load with a networked table)
    from xmas_tui.tables.network import NetTable

#: how long after a move's frame has gone to the terminal its garbage is collected (seconds)
TIDY_AFTER = 0.005


def hanging(widget: Widget, first: Text, body: Text, width: int | None) -> list[Text]:
    """``body`` wrapped to ``width`` cells (None: as it is), ``first`` before its first line and
    as many blanks before the others, so that they hang under it."""
    if width is None:
        return [Text.assemble(first, body)]
    lines = paint.wrapped(widget, body, max(1, width - first.cell_len)) or [Text()]
    indent = Text(" " * first.cell_len)
    return [Text.assemble(first if number == 0 else indent, line) for number, line in enumerate(lines)]


def flowed(widget: Widget, first: Text, pieces: list[Text], width: int | None) -> list[Text]:
    """``pieces`` side by side, two blanks apart, ``first`` before the first line: a piece that
    does not fit on a line starts the next (hanging under ``first``), whole; one longer than a
    line is wrapped where its words end. A piece is never broken between its words ("4 ms")."""
    if width is None:
        return [Text.assemble(first, Text("  ").join(pieces))]
    room = max(1, width - first.cell_len)
    lines: list[Text] = [Text()]
    for piece in pieces:
        line = lines[-1]
        gap = 2 if line.cell_len else 0
        if line.cell_len and line.cell_len + gap + piece.cell_len > room:
            lines.append(line := Text())
            gap = 0
        if piece.cell_len > room:  # (too long for any line: its words go where they fit)
            wrapped = paint.wrapped(widget, piece, room)
            line.append_text(wrapped[0])
            lines += wrapped[1:]
            continue
        line.append(" " * gap)
        line.append_text(piece)
    indent = Text(" " * first.cell_len)
    return [Text.assemble(first if number == 0 else indent, line) for number, line in enumerate(lines)]


def shown_from(blocks: list[int], top: int, room: int) -> int:
    """Where the players shown from ``top`` end, ``blocks`` being each player's number of lines,
    in ``room`` lines: only whole players (and at least one)."""
    used, end = 0, top
    while end < len(blocks) and (used + blocks[end] <= room or end == top):
        used += blocks[end]
        end += 1
    return end


def window(blocks: list[int], room: int, top: int, keep: range) -> int:
    """The first player shown in ``room`` lines: as near ``top`` as shows the players ``keep``
    (whoever acts now), and with as few blank lines under the last one as can be."""
    top = max(0, min(top, len(blocks) - 1))
    if keep:
        if keep.start < top:
            top = keep.start
        while top < keep.start and shown_from(blocks, top, room) < keep.stop:
            top += 1
    while top and shown_from(blocks, top - 1, room) == len(blocks):
        top -= 1
    return top


class PlayersPanel(paint.Unscrolled, Static, paint.QuickLines):
    """Every player: name, score, a summary; who acts now is marked (▶ and the name in gold),
    and a seat's state (away with its countdown, idle, a bot) leads the second line, where it
    has room.

    Its lines are wrapped here, so it knows its height: it grows when they need more room (up
    to its stylesheet's ``max-height``) and never shrinks back, and a move that changes its
    words repaints it without laying out the screen again. When every player's lines do not
    fit (six players at 80×24), it shows as many as fit, always those of whoever acts now; the
    mouse wheel scrolls the rest into view, and its bottom edge says how many lines are out
    of sight, and where."""

    _drawn: tuple = ()
    _said: tuple | None = None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: list[Text] = []  # (the lines shown; Rich draws them)
        self._all: list[list[Text]] = []  # (every player's lines)
        self._keep = range(0)  # (the players who act now, kept in view)
        self._top = 0  # the first player shown
        self._note = ""  # (said on the bottom edge beside how many lines are out of view)
        self._strips = paint.LineStrips()  # (each line rendered once while it is shown)

    def on_resize(self) -> None:
        self.refit()

    def refit(self) -> None:
        """Show the players again at the panel's width and room (the screen's size changed)."""
        if self._said is not None:
            self.show_lines(*self._said, note=self._note)

    def room(self) -> int | None:
        """How many lines of players the panel may show (None: not laid out yet)."""
        parent = self.parent
        if not isinstance(parent, Widget) or not parent.content_size.height:
            return None
        limit = self.styles.max_height
        most = parent.content_size.height if limit is None else int(limit.resolve(parent.content_size, self.app.size))
        return max(1, most - self.styles.gutter.height)

    def show_lines(self, lines: list[PlayerLine], me: int | None, notes: dict[int, str] | None = None,
                   *, note: str = "") -> None:
        """Show these players (``me`` marked "you"); ``notes``: a seat's state or ping; ``note``:
        said on the bottom edge (who watches the table)."""
        notes = notes or {}
        self._said = (lines, me, notes)
        self._note = note
        width = self.content_size.width or None
        room = self.room()
        drawn = (tuple(lines), me, tuple(sorted(notes.items())), self.app.theme, width, room, note)
        if drawn == self._drawn:
            return  # nothing new to say about anyone
        self._drawn = drawn
        ink = inks(self)
        players: list[list[Text]] = []
        blank = Text("  ")
        for line in lines:
            rows: list[Text] = []
            you = " (you)" if line.seat == me else ""
            pieces = [Text(f"{line.name}{you}", style=f"bold {ink.gold}" if line.acting else "bold")]
            if line.marker:
                pieces[0].append(f" {line.marker}", style=ink.gold)
            if line.score:
                pieces.append(Text(line.score, style=ink.leaf))
            note_ = notes.get(line.seat)
            urgent = bool(note_) and note_.startswith(("away", "idle"))
            if note_ and not urgent:
                pieces.append(Text(note_, style="dim"))
            arrow = Text("▶ ", style=ink.gold) if line.acting else blank
            rows += flowed(self, arrow, pieces, width)
            if urgent:  # on a line of its own: never cut
                rows += hanging(self, blank, Text(note_, style=f"bold {ink.ember}"), width)
            if line.summary:
                rows += hanging(self, blank, Text(line.summary, style="dim"), width)
            players.append(rows)
        acting = [number for number, line in enumerate(lines) if line.acting]
        keep = range(acting[0], acting[-1] + 1) if acting else range(0)
        blocks = [len(rows) for rows in players]
        if room is not None and sum(blocks[keep.start : keep.stop]) > room:
            keep = range(keep.start, keep.start + 1)  # (several act, and not all fit: the first)
        self._all, self._keep = players, keep
        if width is not None:
            total = sum(blocks)
            shown = total if room is None else min(total, room)
            height = shown + self.styles.gutter.height
            now = self.styles.height
            if now is None or now.is_auto or height > now.value or (room is not None and now.value > room + self.styles.gutter.height):
                self.styles.height = height
        self._show_window(width)

    def _show_window(self, width: int | None) -> None:
        """Show the players in view, whole, and say on the bottom edge how many are not."""
        players, room = self._all, self.room()
        blocks = [len(rows) for rows in players]
        if room is None or sum(blocks) <= room:
            self._top, end = 0, len(players)
        else:
            self._top = window(blocks, room, self._top, self._keep)
            end = shown_from(blocks, self._top, room)
        shown = [row for rows in players[self._top : end] for row in rows]
        if room is not None:
            shown = shown[:room]  # (a player with more lines than the panel has, from their first)
        above, below = self._top, len(players) - end
        arrows = " ".join(part for part in (f"↑{above}" if above else "", f"↓{below}" if below else "") if part)
        more = f"{arrows} more {'player' if above + below == 1 else 'players'}" if arrows else ""
        said = [part for part in (self._note, more) if part]
        paint.subtitle(self, " · ".join(said))
        self._repaint(shown, width)

    def on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        event.stop()
        self._scroll(-1)

    def on_mouse_scroll_down(self, event: MouseScrollDown) -> None:
        event.stop()
        self._scroll(1)

    def _scroll(self, step: int) -> None:
        """The wheel shows the player above or below (never moving whoever acts out of view)."""
        if 0 <= self._top + step < len(self._all):
            self._top += step
            self._show_window(self.content_size.width or None)

    def _repaint(self, rows: list[Text], width: int | None) -> None:
        """Show ``rows``, repainting only the lines that changed (all of them if their number
        changed, or the panel's height follows them)."""
        before, self._rows = self._rows, rows
        sized = paint.sized_by_content(self)
        if width is None or len(rows) != len(before) or sized:
            self.refresh(layout=sized)
            return
        key = paint.line_key
        changed = [paint.line_region(self, y) for y, (old, new) in enumerate(zip(before, rows, strict=True)) if key(old) != key(new)]
        if changed:
            self.refresh(*changed)

    def render(self) -> Text:
        return Text("\n").join(self._rows)

    def render_line(self, y: int) -> Strip:
        rows = self._rows
        if y >= len(rows):
            return Strip.blank(self.size.width, self.visual_style.rich_style)
        return self._strips.strip(self, rows[y], len(rows))


class GameLog(paint.ReusedLines, paint.Unscrolled, Static):
    """What happened, newest last: as many lines as fit, wrapped here to the log's width, and
    written in a move's own frame without laying the screen out again (the log's size does not
    change). The mouse wheel scrolls back; the border says when there is more above.

    It draws itself at the height it has when it is painted: a move that grows the players panel
    above it shrinks it in that move's own layout, and that frame shows the right lines already."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries: list[Text] = []
        self._wrapped: list[list[Text]] = []  # each entry's lines, at ``_width`` (Rich draws them)
        self._total = 0  # how many lines they make
        self._width = 0
        #: how many of the newest lines are scrolled out of view (0: the newest is shown)
        self.back = 0
        self._drawn: tuple[int, int, int, int] | None = None  # (lines, back, width, height) painted
        self._window: tuple[tuple[int, int, int, int], list[Text]] | None = None
        self._strips = paint.LineStrips()  # (each line rendered once while it is shown)

    def add(self, lines: list[Text]) -> None:
        for entry in lines:
            self._entries.append(entry)
            if self._width:
                wrapped = paint.wrapped(self, entry, self._width)
                self._wrapped.append(wrapped)
                self._total += len(wrapped)
        if lines:
            self.back = 0
            self._show()

    def show_all(self, lines: list[Text]) -> None:
        """These lines instead of those shown (a replay that steps back)."""
        self._entries, self._wrapped, self._total, self.back = [], [], 0, 0
        self._drawn = self._window = None
        self.add(lines)
        self._show()

    def on_resize(self) -> None:
        width = self.content_size.width
        if width != self._width:
            self._width = width
            self._wrapped = [paint.wrapped(self, entry, width) for entry in self._entries] if width else []
            self._total = sum(len(lines) for lines in self._wrapped)
        self._show()

    def _at(self, height: int) -> tuple[int, int, int, int]:
        """Keep ``back`` within what there is to scroll at ``height``; what the log then shows
        is told by (lines, back, width, height)."""
        self.back = max(0, min(self.back, self._total - height))
        return (len(self._wrapped), self.back, self._width, height)

    def _lines(self, key: tuple[int, int, int, int]) -> list[Text]:
        """The lines shown at ``key`` (``_at``), the newest ``back`` lines scrolled out of view."""
        height = key[3]
        if self._window is not None and self._window[0] == key:
            return self._window[1]
        shown: list[Text] = []
        skip = self.back
        for lines in reversed(self._wrapped):
            for line in reversed(lines):
                if skip:
                    skip -= 1
                elif len(shown) < height:
                    shown.append(line)
            if len(shown) == height:
                break
        shown.reverse()
        self._window = (key, shown)
        return shown

    def _show(self) -> None:
        """Repaint if what the log shows at its size has changed; say whether there is more."""
        height = self.content_size.height
        if not height or not self._width:
            return
        drawn = self._at(height)
        if drawn != self._drawn:
            self._drawn = drawn
            self.refresh_words()
        total = self._total
        above = total - self.back - min(height, total - self.back)
        paint.subtitle(self, "↑ scroll up for more" if above > 0 else ("↓ more below" if self.back else ""))

    def _shown(self) -> list[Text] | None:
        """What the log shows at the size it has now (None: it has no room yet)."""
        height = self.content_size.height
        if not height or not self._width:
            return None
        self._drawn = self._at(height)
        return self._lines(self._drawn) or [Text()]

    def render(self) -> Text:
        shown = self._shown()
        return Text() if shown is None else Text("\n").join(shown)

    def render_line(self, y: int) -> Strip:
        shown = self._shown()
        if shown is None:
            return super().render_line(y)
        if y >= len(shown):
            return Strip.blank(self.size.width, self.visual_style.rich_style)
        return self._strips.strip(self, shown[y], len(shown))

    def on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        event.stop()
        self.back += 1
        self._show()

    def on_mouse_scroll_down(self, event: MouseScrollDown) -> None:
        event.stop()
        if self.back:
            self.back -= 1
            self._show()


def waiting_prompt(table: Table, snapshot: Snapshot, name_of: Callable[[int], str]) -> str | None:
    """The prompt while someone who must act is away or idle: "Alice is away: a bot plays in
    12 s." (None when everyone who acts is here)."""
    if snapshot.my_turn or snapshot.result is not None:
        return None
    rows = {row.seat: row for row in table.roster()}
    said = []
    for seat in sorted(snapshot.to_act):
        row = rows.get(seat)
        if row is None:
            continue
        if row.state is SeatState.AWAY:
            when = f"in {row.hold_left:.0f} s" if row.hold_left is not None else "soon"
            said.append(f"{name_of(seat)} is away: a bot plays {when}.")
        elif row.state is SeatState.IDLE:
            said.append(f"{name_of(seat)} is idle: a bot plays for them until they press a key.")
    return " ".join(said) or None


def turn_clock(table: Table, snapshot: Snapshot, name_of: Callable[[int], str]) -> tuple[str, float] | None:
    """Whose turn timer to show, and its seconds left: mine if I am to act, else the one who
    has least time (None: nobody's turn is timed, or a race is on)."""
    if table.game.race_window:
        return None
    clocks = [(seat, left) for seat in sorted(snapshot.to_act) if (left := table.seconds_left(seat)) is not None]
    if not clocks:
        return None
    mine = [clock for clock in clocks if clock[0] == snapshot.seat]
    seat, left = mine[0] if mine else min(clocks, key=lambda clock: clock[1])
    return ("you" if seat == snapshot.seat else name_of(seat)), left


def leave_clock(table: Table) -> str:
    """What a dialog over the table says while a turn timer runs: it does not stop for the
    question (the others play on), so whose time runs, and how much is left."""
    try:
        snapshot = table.snapshot()
    except RuntimeError:
        return ""
    if snapshot.result is not None:
        return ""
    ticking = turn_clock(table, snapshot, lambda seat: snapshot.view["players"][seat])
    if ticking is None:
        return "The game goes on while you choose: the table does not wait for this question."
    who, left = ticking
    whose = "your turn has" if who == "you" else f"{who} has"
    return f"The game goes on while you choose: ⏱ {whose} {left:.0f} s left."


class TableScreen(Screen[None], paint.Unscrolled):
    """A game in progress. The board is the game's; the rest is shared."""

    #: a table's rules, and its boards' (loaded with the first table, not with the lobby)
    CSS_PATH = Path(__file__).parent.parent / "table.tcss"
    #: wider terminals give the side panels (players, the log) more room (table.tcss: ``Screen.-wide
    #: #side``); the screen's own, not the app's: a screen whose classes change with the width
    #: has its styles worked out again, and no other screen has a use for them
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide"), (150, "-wider")]
    BINDINGS = [
        Binding("question_mark,f1", "help", "Rules", key_display="?", tooltip="The rules and our rulings", id="table.help"),
        Binding("plus,equals_sign", "pace(-1)", "Pace", key_display="+/-", show=False, tooltip="Bots move faster (+) or slower (-)", id="table.faster"),
        Binding("minus", "pace(1)", "Slower", show=False, tooltip="Bots move slower", id="table.slower"),
        Binding("escape", "leave", "Lobby", key_display="esc", tooltip="Leave this game for the lobby", id="table.leave"),
    ]

    def __init__(self, table: Table) -> None:
        super().__init__()
        quick.install(self)  # a move renders only the widgets it changed
        self.table = table
        self.snapshot = table.snapshot()
        self._logged = 0
        self._log_held: Snapshot | None = None  # (the newest snapshot whose lines wait for a room's instant)
        self._ended = False
        self._warned: str | None = None  # the last problem the player was told of
        self._hosting: NetTable | None = None

    def compose(self) -> ComposeResult:
        yield paint.Words(id="status")
        with Horizontal(id="table-main"):
            yield self.make_board()
            with Vertical(id="side"):
                yield PlayersPanel(id="players-panel")
                yield paint.Words(id="failed-joins")
                yield GameLog(id="log")
        yield paint.Words(id="prompt")
        yield KeyBar()

    def make_board(self) -> Board:
        """The game's board, showing the first snapshot."""
        self._board = BOARDS[self.table.game.id](self.snapshot, id="board")
        return self._board

    @property
    def board(self) -> Board:
        return self._board

    #: the players panel's title
    players_title = "Players"

    def on_mount(self) -> None:
        self._status = self.query_one("#status", Static)
        self._players = self.query_one("#players-panel", PlayersPanel)
        self._log = self.query_one("#log", GameLog)
        self._prompt = self.query_one("#prompt", Static)
        self._players.border_title = self.players_title
        self._log.border_title = "What happened"
        self.board.pace = self.table.pace
        self.table.subscribe(self._on_table_changed)
        self.app.theme_changed_signal.subscribe(self, lambda _: self.show_snapshot(self.snapshot))  # new inks
        self.show_snapshot(self.table.snapshot())
        self.board.focus()
        self.set_interval(1.0, self._show_status)  # the countdown of whoever must act
        self.run_worker(self.table.run, name="table", exclusive=True)
        self.call_after_refresh(paint.settle_memory)
        paint.hold_collections(self)  # (the older generations are collected between moves: _tidy)
        self.set_interval(1.0, paint.tidy_memory)  # (and while nothing moves)
        self._hosting = self.my_hosting()  # (the app forgets it when the table closes)
        if self._hosting is not None and self.query("#failed-joins"):
            self._hosting.subscribe_failed_joins(self.show_failed_joins)
            self.set_interval(1.0, self.show_failed_joins)  # (a flood at the door sends no news)
            self.show_failed_joins()

    def my_hosting(self) -> NetTable | None:
        """The table this machine hosts, if this screen shows it (the host's own seat)."""
        hosting = getattr(self.app, "hosting", None)
        return hosting if hosting is not None and hosting.table is self.table else None

    def show_failed_joins(self, *_: object) -> None:
        """The host's quiet line, under the players: attempts to join without the code, and
        what the door holds (checked each second: a flood of forged joins sends no news)."""
        hosting = self.my_hosting()
        if hosting is None or not self.is_attached:
            return
        line = self.query_one("#failed-joins", Static)
        from xmas_tui.ui.screens.network import failed_joins_line  # (only a host's screen says it)

        said = failed_joins_line(hosting.failed_joins(), hosting.door())
        paint.show(line, said)
        line.display = bool(said)

    def on_screen_suspend(self) -> None:
        quick.forget(self)  # (a dialog is drawn over the table)

    def on_unmount(self) -> None:
        paint.release_collections(self)
        self.table.unsubscribe(self._on_table_changed)  # the table may outlive this screen (closing, say)
        self.app.theme_changed_signal.unsubscribe(self)  # (else the app keeps every table screen alive)
        if self._hosting is not None:
            self._hosting.unsubscribe_failed_joins(self.show_failed_joins)

    def _on_table_changed(self, snapshot: Snapshot) -> None:
        # (a bot may move while this screen is being taken down: its board may be gone already)
        if self.is_attached and self._board.is_attached:
            self.show_snapshot(snapshot)
            for notice in self.table.take_notices():  # a new host, say: told once, then play goes on
                self.notify(plain(notice), title="Table", timeout=10, markup=False)
            problem = self.table.problem
            if problem and problem != self._warned:  # each new problem once, not at every change
                self._warned = problem
                self.notify(plain(problem), title="Table", severity="error", timeout=30, markup=False)

    def show_snapshot(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        board = self.board
        board.show_snapshot(snapshot)
        self._show_status()
        panel = self._players
        hosting = self.my_hosting()  # the host sees who watches their table
        watchers = hosting.spectators() if hosting is not None else []
        panel.show_lines(self.player_lines(), snapshot.seat, self.table.seat_notes(),
                         note=f"{len(watchers)} watching" if watchers else "")
        self._show_prompt()
        self._show_log(snapshot)
        self.call_after_refresh(self._tidy)
        if snapshot.result is not None and not self._ended:
            self._ended = True
            self.game_over(snapshot)

    def player_lines(self) -> list[PlayerLine]:
        """The players panel's lines: the board's."""
        return self.board.player_lines()

    def game_over(self, snapshot: Snapshot) -> None:
        """The game has ended: the scores, the winners and the fair-play verdict, over the table."""
        self.app.show_result(self.table, snapshot)

    def _show_log(self, snapshot: Snapshot) -> None:
        """The log's new lines. A room drawn at an instant (``room_in``) is told in the log no
        sooner than it is drawn: its line (its cards, in words) waits, with any after it."""
        if snapshot.room_waits or self._log_held is not None:
            if self._log_held is None:
                self.set_timer(snapshot.room_in, self._release_log)
            self._log_held = snapshot
            return
        self._add_log(snapshot)

    def _release_log(self) -> None:
        held, self._log_held = self._log_held, None
        if held is not None and self.is_attached:
            self._add_log(held)

    def _add_log(self, snapshot: Snapshot) -> None:
        self.add_log_lines([
            Text(event.text, style="bold" if event.seat is not None and event.seat == snapshot.seat else "")
            for event in snapshot.log[self._logged :]
        ])
        self._logged = len(snapshot.log)

    def add_log_lines(self, lines: list[Text]) -> None:
        """The log's new lines, in the log."""
        self._log.add(lines)

    def _tidy(self) -> None:
        """Just after a move's frame has gone to the terminal: collect the garbage that is due,
        a moment later (the terminal's writer is not kept waiting), before the next key."""
        asyncio.get_running_loop().call_later(TIDY_AFTER, paint.tidy_memory)

    def _show_prompt(self) -> None:
        """What I can do now; or who we wait for, and why; or, the host gone, what happened."""
        prompt, ink = self._prompt, inks(self)
        gone = self.table.host_gone
        if gone and self.snapshot.result is None:
            paint.show(prompt, f"{gone}\nPress Esc to go back to the lobby.")
            paint.wear(prompt, ink.css("alarm-ground"), ink.css("on-ground"), "bold")
            return
        board = self.board
        paint.show(prompt, waiting_prompt(self.table, self.snapshot, board.player_name) or self.prompt_line())
        if self.snapshot.my_turn:
            paint.wear(prompt, ink.css("prompt-live-ground"), ink.css("on-ground"), "bold")
        else:
            paint.wear(prompt)

    def prompt_line(self) -> str:
        """The prompt's words when nobody is away: the board's."""
        return self.board.prompt_line()

    def _show_status(self) -> None:
        """The top bar: a problem, or the board's line and how long whoever acts has left (the
        game's title left out where the line has no room for both)."""
        ink = inks(self)
        problem = self.table.problem
        if problem is None and self.table.idle:
            problem = "Your time ran out twice: a bot plays for you. Press any key to play again."
        line = problem or self.board.status_line()
        clock = Text()
        if not problem:
            ticking = turn_clock(self.table, self.snapshot, self.board.player_name)
            if ticking is not None:
                who, left = ticking
                clock = Text(f"  ⏱ {who}: {left:.0f} s", style=f"bold {ink.ember}" if left <= 10 else "")
        room = (self._status.content_size.width or 78) - clock.cell_len
        title = f"{self.table.game.title} · "
        if len(line) > room and line.startswith(title):
            line = line[len(title):]
        text = Text(line, style="bold")
        text.append_text(clock)
        status = self._status
        paint.show(status, text)
        paint.wear(status, ink.css("alarm-ground") if problem else None)
        if self.table.networked:
            self._show_prompt()  # an away player's countdown, the host gone

    def on_resize(self) -> None:
        for panel in self.query(PlayersPanel):  # (a taller screen gives the players more room)
            panel.refit()

    def on_key(self) -> None:
        self.table.present()  # a player the table marked idle is back

    @on(Board.ActionChosen)
    def play(self, message: Board.ActionChosen) -> None:
        message.stop()
        self.run_worker(self._send(message.action, message.seat), group="send")

    @on(Board.Pressed)
    def heard(self, message: Board.Pressed) -> None:
        message.stop()
        self.run_worker(self._send(message.action, message.seat, live=True), group="send")

    async def _send(self, action: Action, seat: int | None, *, live: bool = False) -> None:
        try:
            await (self.table.press if live else self.table.send)(action, seat=seat)
        except ActionError as error:
            self.app.clear_notifications()  # the newest refusal replaces the last: toasts never pile up
            self.notify(plain(error), title="Not allowed", severity="error", markup=False)

    def action_help(self) -> None:
        self.app.show_rules(self.table.game)

    def action_pace(self, direction: int) -> None:
        pace = self.table.set_pace(self.table.pace * (1.5 if direction > 0 else 1 / 1.5))
        self.board.pace = pace
        self.notify(self.board.pace_note(pace), title="Pace", markup=False)

    def action_leave(self) -> None:
        self.app.leave_game(self.app.open_lobby)
