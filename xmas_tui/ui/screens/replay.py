"""The replay screen: a finished game's log, stepped through on the game's own board.

Owns: ``ReplayScreen`` (the board of one step of a ``Replay``, drawn from a ``Snapshot``
with nothing to play; a side panel with the step, who did what, and the audit's word on
that step; the public log up to it), its keys (→ ← one action, Home End the start and the
end, 1-9 the start of that round, ``s`` whose view is shown: each seat, a spectator, every
face), and ``LogsScreen``, the lobby's list of the last games' logs (this user's data
folder only) that opens one. Esc goes back where it came from (or, from the command line,
quits).

Must not touch: the engine state, any file but through ``tables.replay`` (which reads
a log only once it has passed its audit), a table in play (a replay plays nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from xmas_tui.outside import plain, words
from xmas_tui.tables.audit import LogError, refusal
from xmas_tui.tables.replay import Replay, Shown, recent_logs
from xmas_tui.ui import paint
from xmas_tui.ui.boards import BOARDS
from xmas_tui.ui.boards.base import Board
from xmas_tui.ui.keybar import KeyBar
from xmas_tui.ui.screens.dialogs import result_words
from xmas_tui.ui.screens.table import GameLog, TableScreen
from xmas_tui.ui.theme import inks

if TYPE_CHECKING:  # (the app imports this screen when a replay opens)
    from xmas_tui.ui.app import XmasApp


class ReplayScreen(Screen[None], paint.Unscrolled):
    """One step of a finished game: its board as a seat saw it, and what the audit says."""

    #: a table's rules: the replay is laid out as a table is (loaded with the first table or replay)
    CSS_PATH = Path(__file__).parent.parent / "table.tcss"
    HORIZONTAL_BREAKPOINTS = TableScreen.HORIZONTAL_BREAKPOINTS  # (its side panel widens as a table's)
    AUTO_FOCUS = None  # (the board's own keys play nothing here: it is never focused)
    BINDINGS = [
        Binding("right", "step(1)", "Next", key_display="→", priority=True, tooltip="One action on", id="replay.next"),
        Binding("left", "step(-1)", "Back", key_display="←", priority=True, tooltip="One action back", id="replay.back"),
        Binding("home", "jump('start')", "Start", priority=True, tooltip="After the deal", id="replay.start"),
        Binding("end", "jump('end')", "End", priority=True, tooltip="The end of the game", id="replay.end"),
        Binding("1", "round(1)", "Round", key_display="1-9", priority=True, tooltip="The start of that round",
                id="replay.round"),
        *(Binding(str(n), f"round({n})", show=False, priority=True) for n in range(2, 10)),
        Binding("s", "seat", "Seat", priority=True, tooltip="Whose view: each seat, a spectator, every face",
                id="replay.seat"),
        Binding("question_mark,f1", "help", "Rules", key_display="?", tooltip="The rules and our rulings", id="replay.help"),
        Binding("escape", "leave", "Leave", key_display="esc", priority=True, tooltip="Leave the replay", id="replay.leave"),
    ]

    def __init__(self, replay: Replay, seat: Shown = None, *, leave: Callable[[], object] | None = None,
                 step: int = 0) -> None:
        """``seat``: whose view is shown first (by default the log's own seat, else the public
        view); ``leave``: what Esc does (by default, back to the screen under this one)."""
        super().__init__()
        self.replay = replay
        self.shown: Shown = seat if seat is not None else replay.seat
        self.leave = leave
        self.step = max(0, min(step, replay.last))
        self._logged = -1  # (the log lines shown)
        self._board: Board = BOARDS[replay.game.id](replay.snapshot(self.step, self.shown), id="board")

    def compose(self) -> ComposeResult:
        yield paint.Words(id="status")
        with Horizontal(id="table-main"):
            yield self._board
            with Vertical(id="side"):
                with paint.Panel(id="replay-panel"):
                    yield paint.Words(id="replay-step")
                yield GameLog(id="log")
        yield paint.Words(id="prompt")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#log", GameLog).border_title = "What happened"
        self.show_step()

    # ------------------------------------------------------------ drawing a step
    def show_step(self) -> None:
        replay, number = self.replay, self.step
        step = replay.steps[number]
        snapshot = replay.snapshot(number, self.shown)
        self._board.show_snapshot(snapshot)
        ink = inks(self)
        status = Text(f"REPLAY · {replay.game.title} · step {number}/{replay.last}", style="bold")
        if step.round is not None:
            status.append(f" · round {step.round}")
        paint.show(self.query_one("#status", Static), status)
        panel = self.query_one("#replay-panel")
        paint.title(panel, f"Step {number} of {replay.last}")
        said = Text()
        said.append_text(words(f"Shown: {replay.name_of(self.shown)}", "bold"))
        said.append("\n")
        said.append_text(words(step.verdict, ink.leaf if step.ok else f"bold {ink.berry}"))
        if number == replay.last and replay.result is not None:
            said.append("\n")
            said.append_text(words(f"The game is over. {result_words(replay.game, replay.players, replay.result, None)}",
                                   f"bold {ink.gold}"))
        paint.show(self.query_one("#replay-step", Static), said)
        self._show_log(snapshot.log)
        whose = self._board.status_line()
        paint.show(self.query_one("#prompt", Static),
                   words(f"{whose}\n→ ← a step · Home End · 1-9 a round · s: whose view · Esc: back", lines=True))

    def _show_log(self, lines: tuple) -> None:
        log = self.query_one("#log", GameLog)
        texts = [Text(event.text) for event in lines]
        if 0 <= self._logged <= len(texts):
            log.add(texts[self._logged:])
        else:
            log.show_all(texts)
        self._logged = len(texts)

    # ------------------------------------------------------------ the keys
    def action_step(self, by: int) -> None:
        self.go(self.step + by)

    def action_jump(self, where: str) -> None:
        self.go(0 if where == "start" else self.replay.last)

    def action_round(self, number: int) -> None:
        start = self.replay.round_start(number)
        if start is None:
            rounds = self.replay.rounds()
            self.notify(f"This game has no round {number}" + (f" (rounds 1-{rounds[-1]})." if rounds else ": it has no rounds."),
                        title="Replay", markup=False)
            return
        self.go(start)

    def go(self, number: int) -> None:
        number = max(0, min(number, self.replay.last))
        if number == self.step:
            self.app.bell()
            return
        if number < self.step:
            self._logged = -1  # (the log is shown afresh)
        self.step = number
        self.show_step()

    def action_seat(self) -> None:
        shown = self.replay.shown()
        self.shown = shown[(shown.index(self.shown) + 1) % len(shown)] if self.shown in shown else shown[0]
        self._logged = -1
        self.show_step()

    def action_help(self) -> None:
        cast("XmasApp", self.app).show_rules(self.replay.game)

    def action_leave(self) -> None:
        if self.leave is not None:
            self.leave()
        else:
            self.app.pop_screen()

    @on(Board.ActionChosen)
    @on(Board.Pressed)
    def nothing_to_play(self, message: Board.ActionChosen | Board.Pressed) -> None:
        message.stop()
        self.notify("This is a replay: nothing can be played.", title="Replay", markup=False)


class LogsScreen(ModalScreen[None]):
    """The last games' logs in this user's data folder: Enter opens one in a replay."""

    CSS_PATH = ReplayScreen.CSS_PATH  # (the list's rules are the replay's)
    BINDINGS = [Binding("escape", "dismiss", "Back", key_display="esc", id="logs.back")]

    def __init__(self) -> None:
        super().__init__()
        self.paths = recent_logs()

    def compose(self) -> ComposeResult:
        with Vertical(id="logs-box", classes="dialog"):
            if self.paths:
                yield OptionList(*(Option(words(path.name, lines=False), id=str(n)) for n, path in enumerate(self.paths)),
                                 id="logs")
            else:
                yield Static("No game has been played to its end here yet: its log would be listed.", id="logs-none")
            yield Static("Enter: replay it · Esc: back", id="logs-keys")

    def on_mount(self) -> None:
        self.query_one("#logs-box").border_title = "Replay a game"

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        path = self.paths[int(event.option.id or 0)]
        self.dismiss()
        open_replay(self.app, path)


def open_replay(app: App[Any], path: Path | str, seat: Shown = None) -> bool:
    """Open the replay of the log at ``path`` over the current screen; a log that cannot be
    replayed is refused in a notice, with the line ``xmas-tui verify`` says. True if opened."""
    try:
        replay = Replay.open(path)
    except LogError as problem:
        app.notify(plain(refusal(problem), lines=False), title="Replay", severity="error", markup=False)
        return False
    cast("XmasApp", app).open_replay(replay, seat)
    return True
