"""Networked tables in the app: host one (the join code shown large), or join one.

Owns: the host's waiting room (code, address, seats with names and ping, the
Start key that fills empty seats with bots), the join screen (tables heard on
the LAN and on this machine, the code, a typed ``host:port`` where discovery
cannot reach: a code is tried only at a table it may open, the one heard, or
the one the player chooses among several), and handing a seated ``NetTable``
to the table screen. The host's own seat joins
its table over loopback like everyone else, so every seat sees the same way.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table as RichTable
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from xmas_tui.games import Game
from xmas_tui.names import default_name
from xmas_tui.outside import words
from xmas_tui.tables.network import (
    HeardTable,
    JoinError,
    NetTable,
    RosterRow,
    SeatState,
    TableFinder,
    TableInfo,
    code_problem,
    lan_address,
    parse_address,
)
from xmas_tui.ui import paint
from xmas_tui.ui.keybar import KeyBar
from xmas_tui.ui.theme import Inks, inks

# A 3-row block font for the join code, readable across a room.
GLYPHS = {
    "A": ("▄▀▄", "█▀█", "▀ ▀"), "B": ("█▀▄", "█▀▄", "▀▀ "), "C": ("▄▀▀", "█  ", " ▀▀"),
    "D": ("█▀▄", "█ █", "▀▀ "), "E": ("█▀▀", "█▀ ", "▀▀▀"), "F": ("█▀▀", "█▀ ", "▀  "),
    "G": ("▄▀▀", "█ ▄", " ▀▀"), "H": ("█ █", "█▀█", "▀ ▀"), "J": ("  █", "▄ █", " ▀ "),
    "K": ("█ █", "█▀▄", "▀ ▀"), "L": ("█  ", "█  ", "▀▀▀"), "M": ("█▄█", "█ █", "▀ ▀"),
    "N": ("█▀█", "█ █", "▀ ▀"), "P": ("█▀█", "█▀▀", "▀  "), "Q": ("█▀█", "█ █", " ▀▄"),
    "R": ("█▀█", "█▀▄", "▀ ▀"), "S": ("▄▀▀", " ▀▄", "▀▀ "), "T": ("▀█▀", " █ ", " ▀ "),
    "U": ("█ █", "█ █", " ▀ "), "V": ("█ █", "█ █", " ▀ "), "W": ("█ █", "█ █", "▀▄▀"),
    "X": ("█ █", "▄▀▄", "▀ ▀"), "Y": ("█ █", " █ ", " ▀ "), "Z": ("▀▀█", "▄▀ ", "▀▀▀"),
    "0": ("█▀█", "█ █", "▀▀▀"), "1": ("▄█ ", " █ ", "▀▀▀"), "2": ("▀▀█", "█▀▀", "▀▀▀"),
    "3": ("▀▀█", " ▀█", "▀▀▀"), "4": ("█ █", "▀▀█", "  ▀"), "5": ("█▀▀", "▀▀█", "▀▀▀"),
    "6": ("█▀▀", "█▀█", "▀▀▀"), "7": ("▀▀█", "  █", "  ▀"), "8": ("█▀█", "█▀█", "▀▀▀"),
    "9": ("█▀█", "▀▀█", "▀▀▀"), "-": ("   ", "▀▀▀", "   "), "I": ("▀█▀", " █ ", "▀▀▀"),
    "O": ("█▀█", "█ █", "▀▀▀"),
}


def big(text: str) -> str:
    rows = ["", "", ""]
    for ch in text.upper():
        glyph = GLYPHS.get(ch, ("   ", f" {ch} ", "   "))
        for i in range(3):
            rows[i] += glyph[i] + " "
    return "\n".join(row.rstrip() for row in rows)


@dataclass(frozen=True)
class Watching:
    """How latecomers reach the table being watched: its code and HOST:PORT."""

    code: str
    address: str
    #: True for a latecomer who asked for a seat but found the table full and playing
    latecomer: bool = False


STATE_LABELS = {SeatState.OPEN: "open seat", SeatState.HERE: "here", SeatState.AWAY: "away",
                SeatState.IDLE: "idle: bot plays", SeatState.BOT: "bot"}


def roster_table(roster: list[RosterRow], me: int | None, ink: Inks) -> RichTable:
    table = RichTable(box=None, expand=True, header_style=f"bold {ink.leaf}")
    table.add_column("Seat", width=4)
    table.add_column("Player")
    table.add_column("", width=16)
    table.add_column("Ping", justify="right", width=8)
    for row in roster:
        label = STATE_LABELS[row.state]
        if row.state is SeatState.AWAY and row.hold_left is not None:
            label = f"away · bot in {row.hold_left:.0f}s"
        name = row.name or "—"
        if row.seat == me:
            name += " (you)"
        ping = f"{row.ping_ms:.0f} ms" if row.ping_ms is not None else ""
        style = "dim" if row.state is SeatState.OPEN else (ink.ember if row.state is SeatState.AWAY else "")
        table.add_row(str(row.seat + 1), words(name, style, lines=False), Text(label, style=style), ping)
    return table


def watching_line(names: list[str], code: str = "CODE") -> str:
    """Who watches the table (a big screen, latecomers), for the host: one line."""
    if not names:
        return f"Nobody is watching. A big screen: xmas-tui watch --code {code}"
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return f"Watching: {shown}"


def table_state(info: TableInfo) -> str:
    """How a table heard on the LAN stands, for the list of tables: "" while it waits for
    players, then playing, then over (the game has ended: there is nothing left to join)."""
    return " · game over" if info.over else " · playing" if info.started else ""


def failed_joins_line(lines: list[str], door: str = "") -> str:
    """The host's quiet line about attempts to join without the code: what the door holds
    now (``door``), the address that tried most, and how many others did ("" while nobody has)."""
    said = [door] if door else []
    if lines:
        others = len(lines) - 1
        more = f" (and from {others} more address{'es' if others > 1 else ''})" if others else ""
        said.append(f"{lines[0]}{more}")
    return f"⚠ {' · '.join(said)}" if said else ""


#: the host's and the joiner's rules (loaded with the first host or join screen, not with the lobby)
NETWORK_CSS = Path(__file__).parent.parent / "network.tcss"


class HostScreen(Screen[None]):
    """The host's waiting room: the code, the address, the seats, and Start."""

    CSS_PATH = NETWORK_CSS
    BINDINGS = [
        Binding("ctrl+s", "start", "Start", key_display="^s", tooltip="Start now: bots take the empty seats", id="host.start"),
        Binding("escape", "leave", "Lobby", key_display="esc", tooltip="Close the table", id="host.leave"),
    ]

    def __init__(self, game: Game, players: int, *, code: str, name: str, port: int = 0, bot: str = "smart",
                 bots: int = 0, hold: float = 30.0, discovery: tuple[str, int] | None = None,
                 options: dict | None = None, turn_time: float | None = None, no_peek: bool = False) -> None:
        super().__init__()
        self.game, self.players, self.code, self.name_, self.port = game, players, code, name, port
        self.no_peek = no_peek
        self.options = dict(options or {})
        self.bot, self.bots, self.hold, self.discovery, self.turn_time = bot, bots, hold, discovery, turn_time
        self.host: NetTable | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="host-box", classes="dialog"):
            yield Static("Join code — players type it to sit down:", classes="hint")
            yield Static(Content.styled(big(self.code), "bold $gold"), id="code-big")
            yield Static(id="host-address")
            yield Static(id="host-roster")
            yield Static(id="host-watching", classes="hint")
            yield Static(id="host-failed", classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Start (^s)", variant="success", id="start")
                yield Button("Close table", id="leave")
        yield KeyBar()

    def on_mount(self) -> None:
        timer = f" · {self.turn_time:.0f} s a move" if self.turn_time else ""
        no_peek = " · no-peek deal" if self.no_peek else ""
        self.query_one("#host-box").border_title = f"Hosting · {self.game.title}{timer}{no_peek}"
        self.open_table()

    @work(exclusive=True, group="host")
    async def open_table(self) -> None:
        self.host = NetTable.hosted(
            self.game, self.players, code=self.code, name=self.name_, port=self.port, bot=self.bot,
            bots=self.bots, hold=self.hold, discovery=self.discovery, pace=self.app.pace, options=self.options,
            turn_time=self.turn_time, no_peek=self.no_peek,
        )  # fmt: skip
        self.app.hosting = self.host
        await self.host.open()
        self.query_one("#host-address", Static).update(
            f"Code {self.code} · players on this LAN see the table in their lobby; "
            f"elsewhere: xmas-tui join --address {self.host.join_address} --code {self.code}"
        )
        self.host.subscribe(self.refresh_roster)
        self.host.subscribe_failed_joins(self.show_failed_joins)
        self.set_interval(1.0, self.show_failed_joins)  # (a flood at the door sends no news)
        self.refresh_roster()
        self.show_failed_joins()

    def on_unmount(self) -> None:
        if self.host is not None:
            self.host.unsubscribe(self.refresh_roster)
            self.host.unsubscribe_failed_joins(self.show_failed_joins)

    def show_failed_joins(self, *_: object) -> None:
        """Attempts to join without the code, as they happen (a wrong code, or a guess), and
        what the door holds (checked each second: a flood of forged joins sends no news)."""
        if self.host is not None and self.is_attached:
            paint.show(self.query_one("#host-failed", Static),
                       failed_joins_line(self.host.failed_joins(), self.host.door()))

    def refresh_roster(self, *_: object) -> None:
        host = self.host
        if host is None or host.table is None or not self.is_attached or not self.is_mounted:
            return
        self.query_one("#host-roster", Static).update(roster_table(host.roster(), host.table.seat, inks(self)))
        self.query_one("#host-watching", Static).update(words(watching_line(host.spectators(), self.code)))
        if host.table.ready and self.app.screen is self:
            self.app.play_networked(host.table)

    def action_start(self) -> None:
        if self.host is not None and self.host.table is not None:
            self.host.start()

    def action_leave(self) -> None:
        self.app.leave_game(self.app.open_lobby)  # (asks first if players already sit here)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        else:
            self.action_leave()


class JoinScreen(Screen[None]):
    """Tables heard on the LAN, the join code, and a typed address where needed."""

    CSS_PATH = NETWORK_CSS
    BINDINGS = [
        Binding("ctrl+t", "join", "Join", key_display="^t", tooltip="Join the chosen table", id="join.join"),
        Binding("escape", "leave", "Lobby", key_display="esc", id="join.leave"),
        # (typing in a field, ↑/↓ still choose a table)
        Binding("up", "choose(-1)", "Choose", show=False, id="join.up"),
        Binding("down", "choose(1)", "Choose", show=False, id="join.down"),
    ]

    def __init__(self, *, code: str = "", name: str | None = None, address: tuple[str, int] | None = None,
                 discovery: tuple[str, int] | None = None, game: str | None = None, watch: bool = False) -> None:
        super().__init__()
        self.code, self.name_, self.address, self.discovery, self.only_game = code, name or default_name(), address, discovery, game
        #: join as a spectator, for the big-screen view (``xmas-tui watch``)
        self.watch = watch
        #: waiting for the table the code opens (a code given on the command line with no
        #: address, or Enter before it was heard): join it once it is the one heard
        self.auto = bool(code) and address is None
        self.finder: TableFinder | None = None
        self.heard: list[HeardTable] = []
        self.joining = False
        self.joined: NetTable | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="join-box", classes="dialog"):
            yield Static("Tables on this LAN (↑/↓ to choose):", classes="hint")
            yield OptionList(id="tables")
            with Horizontal(classes="join-row"):
                yield Label("Code")
                yield Input(value=self.code, placeholder="ABCD-2345", id="code")
                yield Label("Name")
                yield Input(value=self.name_, max_length=16, id="name")
            with Horizontal(classes="join-row"):
                yield Label("Address")
                yield Input(value=f"{self.address[0]}:{self.address[1]}" if self.address else "",
                            placeholder="host:port, only if the table is not listed", id="address")
            yield Static(id="join-status", classes="hint")
            yield Static(id="join-roster")
            with Horizontal(classes="buttons"):
                yield Button("Join", variant="success", id="join")
                yield Button("Back", id="leave")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#join-box").border_title = "Watch a table (big screen)" if self.watch else "Join a table"
        self.query_one("#code", Input).focus()  # type the code, press Enter
        self.listen()
        if self.code and self.address:  # `xmas-tui join --address … --code …` said it all
            self.join_table()

    @work(exclusive=True, group="listen")
    async def listen(self) -> None:
        self.finder = TableFinder(self.discovery)
        try:
            await self.finder.start()
        except OSError as exc:
            self.query_one("#join-status", Static).update(words(f"Cannot listen for tables ({exc}); type the host's address."))
            return
        with contextlib.suppress(NoMatches):  # (the app is closing: its widgets are already gone)
            await self._list_what_is_heard()

    async def _list_what_is_heard(self) -> None:
        """Keep the list of tables heard current until a table is joined or the screen goes."""
        shown: list | None = None
        while self.is_attached and self.joined is None:
            heard = [h for h in self.finder.current() if self.only_game in (None, h.info.game)]
            if [h.info for h in heard] != shown:
                shown = [h.info for h in heard]
                self.heard = heard
                options = self.query_one("#tables", OptionList)
                highlighted = options.highlighted
                options.clear_options()
                options.add_options([
                    Option(words(f"{h.info.title} · host {h.info.host} · {h.info.free} free of {h.info.seats}"
                                 f"{table_state(h.info)}  ({h.address[0]}:{h.address[1]})", lines=False))
                    for h in heard
                ] or [Option("No tables heard yet… (hosts announce every half second)", disabled=True)])
                if heard:
                    options.highlighted = min(highlighted or 0, len(heard) - 1)
            if self.auto and self.finder.settled and not self.joining:  # every host has announced by now
                self.join_fitting(self._code())
            await self.finder.changed(0.2 if self.auto else 1.0)

    def on_unmount(self) -> None:
        if self.finder is not None:
            self.finder.close()
        if self.joined is not None:
            self.joined.unsubscribe(self.refresh_roster)

    def _code(self) -> str:
        return self.query_one("#code", Input).value.strip().upper()

    def join_fitting(self, code: str) -> None:
        """Join the one table heard that ``code`` may open; with several, ask which; with none
        yet, keep listening for it (``auto``)."""
        fitting = [h for h in self.heard if h.info.may_open(code)]
        self.auto = not fitting
        if len(fitting) == 1:
            self.join_table(fitting[0])
        elif fitting:
            options = self.query_one("#tables", OptionList)
            options.highlighted = self.heard.index(fitting[0])
            options.focus()
            hosts = ", ".join(f"{h.info.host}'s" for h in fitting)
            self._status(f"{len(fitting)} tables may open with code {code} ({hosts}): choose yours (↑/↓), then Enter.")
        elif self.heard:
            count = len(self.heard)
            self._status(f"None of the {count} table{'s' * (count > 1)} heard opens with code {code} yet: "
                         "listening… (check the code)")
        else:
            self._status(f"Listening for the table of code {code}…")

    def action_choose(self, step: int) -> None:
        options = self.query_one("#tables", OptionList)
        if step < 0:
            options.action_cursor_up()
        else:
            options.action_cursor_down()

    def action_join(self) -> None:
        """The table highlighted, if the list has the focus; else the one the code may open."""
        options = self.query_one("#tables", OptionList)
        index = options.highlighted
        if options.has_focus and index is not None and index < len(self.heard):
            self.join_table(self.heard[index])
        else:
            self.join_table()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.join_table()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_index < len(self.heard):
            self.join_table(self.heard[event.option_index])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "join":
            self.join_table()
        else:
            self.action_leave()

    def action_leave(self) -> None:
        self.app.close_network()
        self.app.open_lobby()

    def _status(self, text: str, error: bool = False) -> None:
        self.query_one("#join-status", Static).update(words(text, f"bold {inks(self).berry}" if error else ""))

    @work(group="join")
    async def join_table(self, chosen: HeardTable | None = None) -> None:
        """Join the table at the typed address, or ``chosen``, or the one heard that the code may
        open (asking which if several may: a code is never tried where it cannot open)."""
        if self.joining or self.joined is not None:
            return
        code = self._code()
        name = " ".join(self.query_one("#name", Input).value.split())[:16]
        typed = self.query_one("#address", Input).value.strip()
        if not code:
            self._status("Type the join code shown on the host's screen.", error=True)
            return
        problem = code_problem(code)
        if problem is not None:
            self._status(f"{problem[:1].upper()}{problem[1:]}.", error=True)
            return
        if not name:
            self._status("Type your name.", error=True)
            return
        info: Any = None
        if typed:
            try:
                address = parse_address(typed)
            except ValueError as exc:
                self._status(f"{exc}", error=True)
                return
        elif chosen is not None:
            address, info = chosen.address, chosen.info
        else:
            self.join_fitting(code)
            return
        self._status(f"Joining {address[0]}:{address[1]}…")
        self.joining = True
        joined = NetTable.joined(address, code, name, info=info, watch=self.watch, pace=self.app.pace)
        try:
            await joined.join()
        except JoinError as exc:
            self._status(str(exc), error=True)
            return
        finally:
            self.joining = False
        self.joined = joined
        self.app.joined = joined
        seat = joined.seat
        if seat is not None:
            self._status(f"You have seat {seat + 1} at {joined.host_name}'s table. Waiting for the host to start…")
        elif self.watch:
            self._status(f"Watching {joined.host_name}'s table. Waiting for the host to start…")
        else:
            self._status(f"{joined.host_name}'s table is full: you are watching. Waiting for the host to start…")
        joined.subscribe(self.refresh_roster)
        self.refresh_roster()

    def watching(self, joined: NetTable) -> Watching | None:
        """How the big-screen view names this table, if I watch it (None: I have a seat)."""
        if joined.seat is not None:
            return None
        code = self.query_one("#code", Input).value.strip().upper()
        host, port = joined.address
        shown = lan_address() if host in ("127.0.0.1", "::1", "localhost") else host
        return Watching(code, f"{shown}:{port}", latecomer=not self.watch)

    def refresh_roster(self, *_: object) -> None:
        joined = self.joined
        if joined is None or joined.table is None or not self.is_attached or not self.is_mounted:
            return
        roster = self.query("#join-roster")
        if not roster:  # (the app is closing: its widgets are already gone)
            return
        roster.first(Static).update(roster_table(joined.roster(), joined.seat, inks(self)))
        if joined.table.ready and self.app.screen is self:
            self.app.play_networked(joined.table, self.watching(joined))
        elif joined.problem:
            self._status(joined.problem, error=True)
