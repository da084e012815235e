"""The big-screen view: a table watched from a projector or a spare screen.

Owns: ``WatchScreen``, the public table shown for a room (the board, every player's score,
whose turn it is, the log, and the join code for latecomers), labelled *Watching*. It grows
with the screen: with the room for it, the scores in big digits across the top (whoever acts
marked ▶) and the join code in big letters; the log and the players take the rest. At the
end of the game the final scores stay on it, large, winners starred, with the fair-play
verdict, and no dialog covers the final board (its keys are in the key bar); a screen too small for the
scores in big digits says who won in its prompt, and stars the winners among the players.
Must not touch: any seat's hidden cards (a spectator's session receives the public view
only, and a board shows a spectator no panel of a hand), the table's rules.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content

from xmas_tui.games import Result
from xmas_tui.tables.table import Snapshot, Table
from xmas_tui.ui import paint
from xmas_tui.ui.boards.base import PlayerLine
from xmas_tui.ui.keybar import KeyBar
from xmas_tui.ui.screens.dialogs import CLOSED_EARLY, result_words, tiebreak_words
from xmas_tui.ui.screens.table import GameLog, PlayersPanel, TableScreen
from xmas_tui.ui.theme import Inks, inks

if TYPE_CHECKING:  # (the network's modules load with a networked table)
    from xmas_tui.ui.screens.network import Watching

#: lines a screen needs before the join code is also drawn in big letters
BIG_CODE_HEIGHT = 30
#: lines a screen needs before the scores are drawn across the top in big digits
SCOREBOARD_HEIGHT = 34
#: how often, and how many times, the end asks the table for its fair-play verdict
VERDICT_EVERY, VERDICT_TRIES = 0.2, 50


def score_parts(score: str) -> tuple[str, str]:
    """A score as its number and the words after it: "12 points" -> ("12", "points")."""
    number, _, rest = score.partition(" ")
    return (number, rest) if number[:1].isdigit() else ("", score)


def scoreboard(lines: list[PlayerLine], winners: tuple[int, ...] | None, width: int, ink: Inks) -> Text:
    """Every player side by side: their name (▶ while they act, ★ if they won), their score's
    number in big digits, and its words under it. Too many for ``width`` in big digits: one
    line of names and scores."""
    from xmas_tui.ui.screens.network import big  # (a networked table's module: loaded by now)

    columns: list[list[tuple[str, str]]] = []
    for line in lines:
        won = winners is not None and line.seat in winners
        mark = "★ " if won else "▶ " if line.acting and winners is None else ""
        number, words = score_parts(line.score)
        digits = big(number).split("\n") if number else ["", "", ""]
        head = "bold " + ink.gold if won or mark == "▶ " else "bold"
        figure = f"bold {ink.gold}" if won else f"bold {ink.cream}"
        columns.append([(f"{mark}{line.name}", head), *((row, figure) for row in digits), (words, "dim")])
    widths = [max(len(text) for text, _ in column) for column in columns]
    if sum(widths) + 4 * (len(widths) - 1) > width or not any(score_parts(line.score)[0] for line in lines):
        text = Text()
        for number, (line, column) in enumerate(zip(lines, columns, strict=True)):
            text.append("   " if number else "")
            text.append(column[0][0], style=column[0][1])
            text.append(f"  {line.score or line.summary}", style=ink.leaf)
        return text
    text = Text()
    for row in range(5):
        if row:
            text.append("\n")
        for number, (column, cells) in enumerate(zip(columns, widths, strict=True)):
            words, style = column[row]
            text.append("    " if number else "")
            text.append(words.center(cells), style=style)
    return text


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
        self.result: Result | None = None
        self.verdict: dict | None = None

    def compose(self) -> ComposeResult:
        yield paint.Words(self.banner(), id="watch-banner")
        yield paint.Words(id="status")
        with paint.Panel(id="watch-scores"):
            yield paint.Words(id="watch-scoreboard")
        with Horizontal(id="table-main"):
            with Vertical(id="watch-left"):
                yield self.make_board()
                yield GameLog(id="watch-log")  # (a big screen's log: under the board, the width of it)
            with Vertical(id="side"):
                from xmas_tui.ui.screens.network import big

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
        self.show_big()
        if self.watching.latecomer:
            self.notify("The table is full and the game has begun: you are watching.", title="Watching", timeout=10)

    def on_resize(self) -> None:
        self.show_big()

    def show_big(self) -> None:
        """What the screen has room for: the join code in big letters; the scores in big digits,
        and the log under the board (the board at the height it is laid out for at 80×24),
        where it shows many more lines, and lines as long as the board is wide."""
        if not self.query("#watch-code"):
            return  # (not composed yet: its mount shows them)
        big_room = self.size.height >= SCOREBOARD_HEIGHT
        self.query_one("#watch-code").display = self.size.height >= BIG_CODE_HEIGHT
        self.query_one("#watch-scores").display = big_room
        self.set_class(big_room, "-big")
        if self.is_mounted and self.query("#players-panel"):
            self.show_scores()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "pace"  # a spectator does not set the bots' pace

    def add_log_lines(self, lines: list[Text]) -> None:
        """The log's new lines, in both logs: the side's (a small screen) and the one under the
        board (a big one); the screen's size shows one of them."""
        super().add_log_lines(lines)
        wide = self.query_one("#watch-log", GameLog)
        wide.border_title = "What happened"
        wide.add(lines)

    # ------------------------------------------------------------ the scores, large
    def show_snapshot(self, snapshot: Snapshot) -> None:
        super().show_snapshot(snapshot)
        self.show_scores()

    def player_lines(self) -> list[PlayerLine]:
        """The board's, and at the end each winner starred."""
        lines = self.board.player_lines()
        if self.result is None:
            return lines
        return [replace(line, acting=False, marker=f"{line.marker} ★ won".strip() if line.seat in self.result.winners else line.marker)
                for line in lines]

    def show_scores(self) -> None:
        """The scores across the top, where the screen has room: big, and at the end with who
        won and the fair-play verdict (a smaller screen says those in its prompt)."""
        box = self.query_one("#watch-scores")
        if not box.display:
            return
        width = box.content_size.width or self.size.width - 4
        winners = self.result.winners if self.result is not None else None
        ink = inks(self)
        text = scoreboard(self.player_lines(), winners, width, ink)
        if self.result is not None:
            text.append("\n")
            text.append(self.result_line(), style=f"bold {ink.gold}")
            if self.verdict is not None:
                text.append(f"\n{self.verdict['summary']}", style=ink.leaf if self.verdict["ok"] else f"bold {ink.berry}")
        paint.title(box, "Final scores" if self.result is not None else "Scores")
        paint.show(self.query_one("#watch-scoreboard"), text)

    def result_line(self) -> str:
        assert self.result is not None
        words = result_words(self.table.game, self.table.players, self.result, None)
        if self.result.tiebreak:
            words = f"{words} {tiebreak_words(self.result.tiebreak)}"
        return f"{words} {CLOSED_EARLY}" if self.result.closed else words

    def game_over(self, snapshot: Snapshot) -> None:
        """The end stays on this screen, for the room: the final scores large, who won, and the
        fair-play verdict once the table has it; no dialog covers the final board."""
        self.result = snapshot.result
        self.show_big()
        self.show_snapshot(snapshot)  # (the winners starred in the players panel)
        self._verdict_tries = 0
        self._verdict_timer = self.set_interval(VERDICT_EVERY, self.ask_verdict)

    def ask_verdict(self) -> None:
        audit = getattr(self.table, "audit", None)
        self._verdict_tries += 1
        verdict = audit() if callable(audit) else None
        if verdict is not None or self._verdict_tries >= VERDICT_TRIES:
            self._verdict_timer.stop()
            self.verdict = verdict
            self.show_scores()
            self._show_prompt()

    def prompt_line(self) -> str:
        if self.result is None:
            return super().prompt_line()
        verdict = self.verdict
        fair = "" if verdict is None else " Fair play: OK." if verdict["ok"] else " Fair play: FAILED (see the scores)."
        return f"The game is over: {self.result_line()}{fair}\nEsc: back to the lobby · ^q: quit · ?: the rules"
