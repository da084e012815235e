"""Dialogs over the table: the rules and rulings, leaving a game, and the end of a game.

The rules are Markdown: Textual's Markdown widget (and its parser) load when the rules
are first opened; this module loads when the first dialog opens (the app imports it there),
not with the lobby. ``MIN_SIZE`` and ``TooSmallScreen``, which the app needs from the start,
are ``small``'s, named here too. Must not touch: a table or an engine's state (a dialog is
given what it shows, and answers the app).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.table import Table as RichTable
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from xmas_tui.games import Game, Result
from xmas_tui.outside import words
from xmas_tui.rules_text import rules_markdown
from xmas_tui.ui.screens.small import MIN_SIZE as MIN_SIZE
from xmas_tui.ui.screens.small import TooSmallScreen as TooSmallScreen
from xmas_tui.ui.theme import Inks, inks


class RulesScreen(ModalScreen[None]):
    """The rules, our rulings where the book is silent, and the keys: Markdown, with headings
    and a table of the keys."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", id="rules.close")]

    def __init__(self, game: Game) -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown  # (its parser loads with the first rules shown)

        with Vertical(id="rules-box", classes="dialog"):
            with VerticalScroll(id="rules-scroll"):
                yield Markdown(rules_markdown(self.game), id="rules-text")
            yield Static("↑/↓ scroll · Esc close", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#rules-box").border_title = f"Rules · {self.game.title}"
        self.query_one("#rules-scroll").focus()

    def action_dismiss(self) -> None:  # type: ignore[override]  # (Esc's action: closes with no result)
        self.dismiss(None)


class ClockLine(Static):
    """A line a dialog over a game in play keeps up to date each second: the table does not
    stop for the question, so it says whose turn timer runs and how long is left (``said()``:
    the words, "" for none)."""

    def __init__(self, said: Callable[[], str]) -> None:
        super().__init__(id="dialog-clock")
        self.said = said

    def on_mount(self) -> None:
        self.tick()
        self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        said = self.said()
        self.update(said)
        self.display = bool(said)


class ConfirmScreen(ModalScreen[bool]):
    """A question before a step that cannot be undone, such as leaving a game in play.

    ``y`` says yes; ``n``, Escape or Enter on the focused *Stay* button say no, so
    one key too many (Escape to close the rules, and once more) never costs a game."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, question: str, yes: str, no: str = "Stay", *,
                 clock: Callable[[], str] | None = None) -> None:
        super().__init__()
        self.title_, self.question, self.yes, self.no = title, question, yes, no
        self.clock = clock  # (over a game in play: its turn timer, which does not stop for the question)

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Static(words(self.question), id="confirm-question")
            if self.clock is not None:
                yield ClockLine(self.clock)
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
                yield Button(f"{self.no} (n)", id="no", variant="primary")

    @classmethod
    def leaving(cls, *, hosting: bool, clock: Callable[[], str] | None = None) -> ConfirmScreen:
        """The question before leaving a networked game in play, for its host or a joiner
        (``clock``: what its turn timer says meanwhile)."""
        if hosting:
            return cls("Close the table?", "You host this table: closing it ends the game for everyone at it, "
                       "with the scores as they stand.", "Close it", clock=clock)
        return cls("Leave this game?", "A bot takes your seat soon. To take it back, join again with the same name.", "Leave",
                   clock=clock)

    @classmethod
    def closing_waiting_room(cls, names: list[str]) -> ConfirmScreen:
        """The question before a host closes a waiting room where players already sit."""
        who = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        sit = "sits" if len(names) == 1 else "sit"
        return cls("Close the table?", f"{who} already {sit} at your table: closing it sends "
                   "them back to the lobby.", "Close it")

    @classmethod
    def host_gone(cls, why: str) -> ConfirmScreen:
        """The question on leaving a table whose host went away: the game is over, say so."""
        return cls("The host has gone", f"{why}\nThe game is over for this table. Go back to the lobby?",
                   "Lobby", "Stay here")

    #: the answer that keeps things as they are has the focus (once the screen is up)
    AUTO_FOCUS = "#no"

    def on_mount(self) -> None:
        self.query_one("#confirm-box").border_title = self.title_

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class HandOverScreen(ModalScreen[str | None]):
    """A host leaving a game in play: hand the table over to the other players (``"hand"``),
    close it for everyone (``"close"``) or stay (None). Stay is focused, and Escape stays.
    ``clock``: what the game's turn timer says meanwhile (it does not stop for the question)."""

    def __init__(self, *, clock: Callable[[], str] | None = None) -> None:
        super().__init__()
        self.clock = clock

    BINDINGS = [
        Binding("h", "answer('hand')", "Hand over", id="handover.hand"),
        Binding("c", "answer('close')", "Close", id="handover.close"),
        Binding("n,escape", "answer(None)", "Stay", id="handover.stay"),
    ]

    #: the question, and the first answer's id and button (the others are Close and Stay)
    QUESTION = ("You host this table. Hand it over, and the other players choose a new host among themselves "
                "and play on (a bot takes your seat); or close it, and the game ends for everyone.")
    FIRST = ("hand", "Hand over (h)")

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog"):
            yield Static(self.QUESTION, id="confirm-question")
            if self.clock is not None:
                yield ClockLine(self.clock)
            with Horizontal(id="confirm-buttons"):
                yield Button(self.FIRST[1], id=self.FIRST[0], variant="success")
                yield Button("Close (c)", id="close", variant="error")
                yield Button("Stay (n)", id="stay", variant="primary")

    AUTO_FOCUS = "#stay"

    def on_mount(self) -> None:
        self.query_one("#confirm-box").border_title = "Leave the table?"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "stay" else event.button.id)

    def action_answer(self, choice: str | None) -> None:
        self.dismiss(choice)


class BotsFinishScreen(HandOverScreen):
    """A host who is the last person playing, leaving a game in play: bots finish it now
    (``"bots"``: every seat to a bot, at full speed, the end shown here and to anyone watching,
    signed and logged), close it with the scores so far (``"close"``) or stay (None)."""

    BINDINGS = [
        Binding("b", "answer('bots')", "Bots finish", id="botsfinish.bots"),
        Binding("c", "answer('close')", "Close", id="botsfinish.close"),
        Binding("n,escape", "answer(None)", "Stay", id="botsfinish.stay"),
    ]

    QUESTION = ("You are the last player at this table. Bots can finish the game now (you and anyone watching "
                "see its end); or close it, and it ends with the scores so far.")
    FIRST = ("bots", "Bots finish (b)")


class EndScreen(ModalScreen[str]):
    """Scores, winners, the tie-break used and the fair-play verdict. Returns "again", "lobby" or "quit";
    ``r`` replays the game just played from its log, over this screen.

    The verdict comes from the table being played (``app.current.audit()``): what
    the audit checked and where the game log went, or every failure, in red.
    """

    BINDINGS = [
        Binding("n", "choose('again')", "New game", id="end.again"),
        Binding("r", "replay", "Replay", tooltip="Step through the game just played, from its log", id="end.replay"),
        Binding("l,escape", "choose('lobby')", "Lobby", id="end.lobby"),
        Binding("q", "choose('quit')", "Quit", id="end.quit"),
    ]

    def __init__(self, game: Game, players: tuple[str, ...], result: Result, me: int | None) -> None:
        super().__init__()
        self.game = game
        self.players = players
        self.result = result
        self.me = me
        #: where the game's log was written (from the verdict), for a replay
        self.log_path: str | None = None

    def compose(self) -> ComposeResult:
        ink = inks(self)
        result = self.result
        said = result_words(self.game, self.players, result, self.me)
        if self.game.cooperative:
            headline = Text(said, style=f"bold {ink.gold}" if result.winners else f"bold {ink.berry}")
        else:
            headline = Text(said, style=f"bold {ink.gold}" if self.me in result.winners else "bold")
        if result.tiebreak:
            headline.append(f"\n{tiebreak_words(result.tiebreak)}", style="italic")
        if result.closed:
            headline.append(f"\n{CLOSED_EARLY}", style="italic")
        table = RichTable(box=None, expand=True, header_style=f"bold {ink.leaf}")
        table.add_column("")
        table.add_column("Player")
        table.add_column("Score" if self.game.cooperative else "Points", justify="right")
        table.add_column("How", overflow="fold")
        # winners first (a game may be won outright, whatever the scores), then by score
        order = sorted(range(len(self.players)), key=lambda s: (s not in result.winners, -result.scores[s]))
        for seat in order:
            crown = "★" if seat in result.winners else ""
            name = self.players[seat] + (" (you)" if seat == self.me else "")
            how = result.details[seat] if seat < len(result.details) else ""
            table.add_row(crown, words(name, lines=False), str(result.scores[seat]), words(how))
        with Vertical(id="end-box", classes="dialog"):
            yield Static(headline, id="end-headline")
            yield Static(table, id="end-scores")
            yield Static(Text("Fair play: checking…", style="italic"), id="end-audit")
            with Horizontal(id="end-buttons"):
                yield Button("New game (n)", id="again", variant="success")
                yield Button("Replay (r)", id="replay")
                yield Button("Lobby (l)", id="lobby")
                yield Button("Quit (q)", id="quit", variant="error")

    def on_mount(self) -> None:
        self._verdict_tries = 0
        if not self.show_verdict():
            self._verdict_timer = self.set_interval(0.2, self.show_verdict)

    def show_verdict(self) -> bool:
        """Show the title and the audit's verdict once the table has it and the box is mounted
        (on a busy machine its lines may mount after the screen); True when shown (or there is
        none to show)."""
        table = getattr(self.app, "current", None)
        audit = getattr(table, "audit", None)
        verdict = audit() if callable(audit) else None
        self._verdict_tries += 1
        for box in self.query("#end-box"):
            box.border_title = f"{self.game.title} · final scores"
        shown = next(self.query("#end-audit").results(Static), None)
        if (shown is None or verdict is None and callable(audit)) and self._verdict_tries < 50:
            return False
        line = verdict_text(verdict, inks(self)) if callable(audit) else Text("")
        self.log_path = verdict.get("path") if verdict is not None else None
        if shown is not None:
            shown.update(line)
        if getattr(self, "_verdict_timer", None) is not None:
            self._verdict_timer.stop()
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "replay":
            self.action_replay()
        else:
            self.dismiss(event.button.id or "lobby")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    def action_replay(self) -> None:
        """The game just played, step by step, over this screen (Esc comes back here)."""
        if self.log_path is None:
            self.notify("This game's log was not written: there is nothing to replay.", title="Replay", markup=False)
            return
        from xmas_tui.ui.screens.replay import open_replay

        open_replay(self.app, self.log_path)


#: what the end screen adds when the host closed the table before the game's end
CLOSED_EARLY = "The host closed the table before the end: these are the scores as they stood."


def result_words(game: Game, players: tuple[str, ...], result: Result, me: int | None) -> str:
    """Who won, in a sentence, for the player at seat ``me`` (None: for a room watching)."""
    if game.cooperative:
        if result.closed and not result.winners:
            return "The game was not finished."
        return "Everyone wins together!" if result.winners else "Everyone loses together."
    if me in result.winners:
        return "You win!" if len(result.winners) == 1 else "You share the win!"
    winners = " and ".join(players[w] for w in result.winners)
    return f"{winners} win{'s' if len(result.winners) == 1 else ''}."


def tiebreak_words(tiebreak: str) -> str:
    """How a tie was settled, in a sentence: by a tie-break, or not at all (a shared win)."""
    if tiebreak == "shared win":
        return "A tie no tie-break could break: the win is shared."
    return f"Tie broken by {tiebreak}."


def verdict_text(verdict: dict | None, ink: Inks) -> Text:
    """The fair-play verdict as one or two lines: green when every check passed, red otherwise."""
    if verdict is None:
        return Text("Fair play: no audit (the host's final message did not arrive).", style=f"bold {ink.berry}")
    text = words(verdict["summary"], ink.leaf if verdict["ok"] else f"bold {ink.berry}")
    if verdict.get("path"):
        from xmas_tui.ui.screens.lobby import shown_path

        text.append(f"\nGame log: {shown_path(Path(verdict['path']))}\n(xmas-tui verify FILE checks it again)",
                    style="dim")
    elif verdict.get("log_error"):
        text.append_text(words(f"\n{verdict['log_error']}", ink.berry))
    return text
