"""The xmas-tui Textual app: lobby, tables, rules and the end of a game.

Owns: moving between screens, making a ``LocalTable`` for a game against
bots, and the command palette's verbs. Must not touch: engine states (the
screens see snapshots only).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import ModalScreen, Screen

from xmas_tui.games import Game
from xmas_tui.simulate import bot_names
from xmas_tui.table import LocalTable, Snapshot, Table
from xmas_tui.ui.screens.dialogs import EndScreen, RulesScreen
from xmas_tui.ui.screens.lobby import GameConfig, LobbyScreen
from xmas_tui.ui.screens.table import TableScreen


def seat_names(name: str, players: int) -> list[str]:
    """You at seat 0, bots after you, with names that differ from yours."""
    bots = [b for b in bot_names(players + 1) if b.casefold() != name.casefold()]
    return [name, *bots[: players - 1]]


def make_local_table(config: GameConfig) -> LocalTable:
    seed = config.seed if config.seed is not None else secrets.randbelow(10**9)
    table = LocalTable(
        config.game,
        seat_names(config.name, config.players),
        0,
        bot=config.bot,
        seed=seed,
        pace=config.pace,
    )
    return table


class XmasApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "xmas-tui"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("ctrl+p", "command_palette", "Commands", key_display="^p", show=False, id="app.palette"),
    ]

    def __init__(self, config: GameConfig | None = None, *, table: Table | None = None) -> None:
        super().__init__()
        self.config = config
        self.current: Table | None = table

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        if self.current is not None:
            self.push_screen(TableScreen(self.current))
        elif self.config is not None:
            self.start_game(self.config)
        else:
            self.open_lobby()

    # -------------------------------------------------------------- verbs
    def open_lobby(self) -> None:
        self.current = None
        self.switch_to(LobbyScreen(self.config))

    def start_game(self, config: GameConfig) -> None:
        self.config = config
        self.current = make_local_table(config)
        self.switch_to(TableScreen(self.current))

    def switch_to(self, screen: Screen) -> None:
        """Replace the lobby or table with ``screen``, closing any dialog over it."""
        while isinstance(self.screen, ModalScreen):
            self.pop_screen()
        if isinstance(self.screen, (LobbyScreen, TableScreen)):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def show_rules(self, game: Game) -> None:
        self.push_screen(RulesScreen(game))

    def show_result(self, table: Table, snapshot: Snapshot) -> None:
        assert snapshot.result is not None

        def chosen(choice: str | None) -> None:
            if choice == "again" and self.config is not None:
                self.start_game(replace(self.config, seed=None))
            elif choice == "quit":
                self.exit()
            else:
                self.open_lobby()

        self.push_screen(EndScreen(table.game, table.players, snapshot.result, snapshot.seat), chosen)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Lobby", "Leave this game and open the lobby", self.open_lobby)
        if self.config is not None:
            config = self.config
            yield SystemCommand(
                "New game", f"Start a new {config.game.title} game against bots",
                lambda: self.start_game(replace(config, seed=None)),
            )
            yield SystemCommand("Rules", f"The rules and rulings of {config.game.title}", lambda: self.show_rules(config.game))
        if isinstance(screen, TableScreen):
            yield SystemCommand("Faster bots", "Bots wait less between moves", lambda: screen.action_pace(-1))
            yield SystemCommand("Slower bots", "Bots wait longer between moves", lambda: screen.action_pace(1))


def run_app(
    *,
    game: Game | None = None,
    players: int = 4,
    seed: int | None = None,
    name: str = "You",
    bot: str = "smart",
    pace: float = 0.9,
) -> int:
    config = GameConfig(game, players, name, bot, seed, pace) if game is not None else None
    XmasApp(config).run()
    return 0
