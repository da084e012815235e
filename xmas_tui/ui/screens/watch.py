"""The big-screen view: a table watched from a projector or a spare screen.

Owns: ``WatchScreen``, the public table shown large (the board, every player's score,
whose turn it is, the log, and the join code for latecomers), labelled *Watching*; the
big join code appears when the screen has room for it. Must not touch: any seat's hidden
cards (a spectator's session receives the public view only), the table's rules.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content

from xmas_tui.tables.table import Table
from xmas_tui.ui import paint
from xmas_tui.ui.keybar import KeyBar
from xmas_tui.ui.screens.network import Watching, big
from xmas_tui.ui.screens.table import GameLog, PlayersPanel, TableScreen

#: lines a screen needs before the join code is also drawn in big letters
BIG_CODE_HEIGHT = 30


class WatchScreen(TableScreen):
    """The public table, large: nobody's hand, every score, the log, and how to join."""

    BINDINGS = [
        Binding("question_mark,f1", "help", "Rules", key_display="?", tooltip="The rules and our rulings", id="watch.help"),
        Binding("escape", "leave", "Lobby", key_display="esc", tooltip="Stop watching", id="watch.leave"),
    ]

    players_title = "Scores"

    def __init__(self, table: Table, watching: Watching) -> None:
        super().__init__(table)
        self.watching = watching

    def compose(self) -> ComposeResult:
        yield paint.Words(self.banner(), id="watch-banner")
        yield paint.Words(id="status")
        with Horizontal(id="table-main"):
            yield self.make_board()
            with Vertical(id="side"):
                yield paint.Words(Content.styled(big(self.watching.code), "bold $gold"), id="watch-code")
                yield PlayersPanel(id="players-panel")
                yield GameLog(id="log")
        yield paint.Words(id="prompt")
        yield KeyBar()

    def banner(self) -> Content:
        w = self.watching
        return Content.assemble(
            (" WATCHING ", "bold $dark-ink on $gold-ground"), " ",
            (self.table.game.title, "bold"), " · join: code ", (w.code, "bold $gold"), " at ", (w.address, "bold"),
        )  # fmt: skip

    def on_mount(self) -> None:  # (Textual calls TableScreen's on_mount as well, after this one)
        self.show_big_code()
        if self.watching.latecomer:
            self.notify("The table is full and the game has begun: you are watching.", title="Watching", timeout=10)

    def on_resize(self) -> None:
        self.show_big_code()

    def show_big_code(self) -> None:
        self.query_one("#watch-code").display = self.size.height >= BIG_CODE_HEIGHT

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "pace"  # a spectator does not set the bots' pace
