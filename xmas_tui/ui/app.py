"""The xmas-tui Textual app: lobby, tables, rules and the end of a game.

Owns: moving between screens, making a ``LocalTable`` for a game against
bots, and the command palette's verbs. Must not touch: engine states (the
screens see snapshots only).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider
from textual.screen import ModalScreen, Screen

from xmas_tui.games import Game
from xmas_tui.names import default_name
from xmas_tui.outside import escaped, plain
from xmas_tui.tables.kept import KeptGameError, latest_kept
from xmas_tui.ui.memory import started
from xmas_tui.ui.screens.lobby import GameConfig, LobbyScreen, kept_game, set_aside_notice
from xmas_tui.ui.screens.small import MIN_SIZE, TooSmallScreen
from xmas_tui.ui.theme import (
    THEME_NAMES,
    THEMES,
    ansi_inks,
    default_inks,
    remember_theme,
    remembered_theme,
)

if TYPE_CHECKING:  # (a table's modules, its screens and boards, and the dialogs load with the first of them, not with the lobby)
    from xmas_tui.tables.local import LocalTable
    from xmas_tui.tables.network import NetTable
    from xmas_tui.tables.table import Snapshot, Table
    from xmas_tui.ui.screens.network import Watching
    from xmas_tui.ui.screens.table import TableScreen

#: how long a thread may hold Python's lock before another (the terminal's writer) may run
SWITCH_INTERVAL = 0.001

THEME_WORDS = {"dark": "a dark terminal", "light": "a light terminal",
               "projector": "a projector or a bright room: the strongest contrast"}


class ThemeChoices(Provider):
    """The command palette's themes: ours first, each said in words (dark, light, projector),
    then Textual's own, by name (its ANSI themes draw in the terminal's 16 colours)."""

    def choices(self) -> list[tuple[str, str, Callable[[], None]]]:
        app = self.app
        ours = [(word, f"Colours for {THEME_WORDS[word]} (remembered)", partial(setattr, app, "theme", name))
                for word, name in THEME_NAMES.items()]
        mine = set(THEME_NAMES.values())
        others = [(name, "A Textual theme" + (": the terminal's own 16 colours" if theme.ansi else ""),
                   partial(setattr, app, "theme", name))
                  for name, theme in sorted(app.available_themes.items()) if name not in mine]
        return ours + others

    async def discover(self) -> Hits:
        for name, words, choose in self.choices():
            yield DiscoveryHit(name, choose, help=words)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, words, choose in self.choices():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), choose, help=words)


def seat_names(name: str, players: int, local: int = 1) -> list[str]:
    """You at seat 0, then anyone sharing your keyboard ("Player 2"...), then bots,
    every name different."""
    from xmas_tui.simulate import with_bots

    return with_bots([name] + [f"Player {i + 1}" for i in range(1, local)], players)


def loaded_screens(module: str, *names: str) -> tuple[type[Screen], ...]:
    """The screen classes ``names`` of ``module`` if it is loaded, else none: no screen of a
    module not loaded yet can be on show (a table's screens load with the first table, the
    network's with the first host, join or watch)."""
    loaded = sys.modules.get(module)
    return tuple(getattr(loaded, name) for name in names) if loaded is not None else ()


def on_a_table(screen: Screen) -> TypeGuard[TableScreen]:
    """Whether ``screen`` is a table's (the big-screen view is one)."""
    return isinstance(screen, loaded_screens("xmas_tui.ui.screens.table", "TableScreen"))


def table_screen(table: Table) -> TableScreen:
    from xmas_tui.ui.screens.table import TableScreen

    return TableScreen(table)


def make_local_table(config: GameConfig) -> LocalTable:
    import secrets

    from xmas_tui.tables.local import LocalTable

    seed = config.seed if config.seed is not None else secrets.randbelow(10**9)
    table = LocalTable(
        config.game,
        seat_names(config.name, config.players, config.local),
        0,
        humans=range(config.local),
        bot=config.bot,
        seed=seed,
        pace=config.pace,
        options=config.options or None,
        keep=True,
    )
    return table


class XmasApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "xmas-tui"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("ctrl+p", "command_palette", "Commands", key_display="^p", show=False, id="app.palette"),
        Binding("ctrl+q", "quit", "Quit", key_display="^q", tooltip="Quit xmas-tui (asking first if a game would be lost)",
                id="app.quit", priority=True),  # (a way out from every screen, dialogs too)
    ]

    def __init__(
        self,
        config: GameConfig | None = None,
        *,
        table: Table | None = None,
        host: dict | None = None,
        join: dict | None = None,
        cards_file: Path | None = None,
        theme: str | None = None,
        replay: tuple[Any, Any] | None = None,
    ) -> None:
        super().__init__()
        for look in THEMES:
            self.register_theme(look)
        #: the theme to open with: ``--theme``, else the one chosen last time
        self.chosen_theme = THEME_NAMES.get(theme or "", theme) or remembered_theme()
        self.config = config
        #: the party's own cards (``--cards FILE``); None: the data folder's cards.toml, if any
        self.cards_file = cards_file
        self.current: Table | None = table
        self.start_host, self.start_join = host, join
        #: a finished game to step through, and whose view to show (``xmas-tui replay LOG``)
        self.start_replay = replay
        self.pace = config.pace if config else 0.9
        self.hosting: NetTable | None = None
        self.joined: NetTable | None = None
        #: a line for the terminal once the app has quit (after a hand-over, say)
        self.farewell: str | None = None
        self.open_in_theme(self.start_theme())

    def start_theme(self) -> str:
        """The theme to open with (a name the app knows)."""
        return self.chosen_theme if self.chosen_theme in self.available_themes else THEME_NAMES["dark"]

    def open_in_theme(self, name: str) -> None:
        """Open in the theme ``name``, set before anything is styled, so that the stylesheet is
        parsed once, in its colours. (Setting ``theme`` on mount parsed it in Textual's default
        colours first, then again in these, then once more for the lobby's widgets: some 9 ms
        of the start.) What Textual's own change of theme does to a running app is done here to
        one not running yet: the reactive, the app's classes, the stylesheet's variables, and
        for a light theme the mapping of ANSI colours (that one asks for the stylesheet again,
        as Textual's does: a light theme starts as it did). The snapshot tests hold that an app
        opened in a theme draws exactly as one whose theme is changed to it on mount."""
        self.set_reactive(App.theme, name)
        dark = self.current_theme.dark
        self.set_class(dark, "-dark-mode", update=False)
        self.set_class(not dark, "-light-mode", update=False)
        self.add_class(f"-theme-{name}", update=False)
        self.stylesheet.set_variables(self.get_css_variables())
        if not dark:
            _ = self.ansi_theme_light  # (a reactive is made when first read; then it can be mutated)
            self.mutate_reactive(App.ansi_theme_light)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Every ink for a stock Textual theme chosen in the palette: the dark theme's, or, in
        an ANSI theme (the terminal's own 16 colours), each in one of those."""
        theme = self.get_theme(self.theme)
        if theme is not None and theme.ansi:
            return ansi_inks(theme.dark)
        return default_inks()

    def on_mount(self) -> None:
        # The terminal's writer is a thread: after a frame it waited up to Python's 5 ms switch
        # interval for the main thread to let it write (ui-bench: p99 fell 1-3 ms on 1 ms).
        sys.setswitchinterval(SWITCH_INTERVAL)
        self.call_after_refresh(started)  # (collections were held while the app started: ui.memory)
        self.theme = self.start_theme()  # (nothing to do unless chosen_theme changed since: the screenshots')
        self.theme_changed_signal.subscribe(self, lambda theme: remember_theme(theme.name))
        remember_theme(self.theme)  # (the theme opened with is the one to open with next time: --theme too)
        if self.current is not None:
            self.push_screen(table_screen(self.current))
        elif self.start_host is not None:
            from xmas_tui.ui.screens.network import HostScreen

            self.push_screen(HostScreen(**self.start_host))
        elif self.start_join is not None:
            from xmas_tui.ui.screens.network import JoinScreen

            self.push_screen(JoinScreen(**self.start_join))
        elif self.start_replay is not None:
            self.open_replay(*self.start_replay, leave=self.exit)
        elif self.config is not None:
            self.start_game(self.config)
        else:
            self.open_lobby()

    def on_resize(self) -> None:
        self.call_after_refresh(self.check_size)

    def check_size(self) -> None:
        """Below 80×24, a notice to enlarge the terminal over every screen; it goes once there is room."""
        width, height = self.size
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        shown = isinstance(self.screen, TooSmallScreen)
        if small and not shown:
            self.push_screen(TooSmallScreen())
        elif shown and not small:
            self.pop_screen()

    # -------------------------------------------------------------- verbs
    def open_lobby(self) -> None:
        self.close_network()  # leaving a networked table says so: a joiner's seat goes to a bot, a host's table closes
        self.current = None
        self.switch_to(LobbyScreen(self.config))

    def open_host(self, game: Game, players: int, name: str, bot: str, options: dict | None = None,
                  turn_time: float | None = None, no_peek: bool = False) -> None:
        from xmas_tui.tables.network import new_code
        from xmas_tui.ui.screens.network import HostScreen

        self.switch_to(HostScreen(game, players, code=new_code(), name=name, bot=bot, options=options,
                                  turn_time=turn_time, no_peek=no_peek))

    def open_join(self, name: str) -> None:
        from xmas_tui.ui.screens.network import JoinScreen

        self.switch_to(JoinScreen(name=name))

    def play_networked(self, table: Table, watching: Watching | None = None) -> None:
        """The host dealt: show my seat's table (or, ``watching``, the big-screen view)."""
        from xmas_tui.ui.screens.watch import WatchScreen

        self.current = table
        self.switch_to(table_screen(table) if watching is None else WatchScreen(table, watching))

    def open_watch(self) -> None:
        from xmas_tui.ui.screens.network import JoinScreen

        self.switch_to(JoinScreen(name="Big screen", watch=True))

    def close_network(self) -> None:
        """Leave or close any networked table (in the background)."""
        host, joined = self.hosting, self.joined
        self.hosting = self.joined = None
        self.run_worker(self._close(host, joined), group="close")

    async def on_unmount(self) -> None:
        await self._close(self.hosting, self.joined)

    async def _close(self, host: NetTable | None, joined: NetTable | None) -> None:
        if joined is not None:
            await joined.close()
        if host is not None:
            await host.close()

    def start_game(self, config: GameConfig) -> None:
        self.close_network()
        self.config = config
        self.current = make_local_table(config)
        self.switch_to(table_screen(self.current))

    def switch_to(self, screen: Screen) -> None:
        """Replace the lobby or table with ``screen``, closing any dialog over it (a notice
        that the terminal is too small comes back over the new screen)."""
        while isinstance(self.screen, ModalScreen):
            self.pop_screen()
        self.call_after_refresh(self.check_size)
        hosting_screens = loaded_screens("xmas_tui.ui.screens.network", "HostScreen", "JoinScreen")
        if isinstance(self.screen, (LobbyScreen, *hosting_screens)) or on_a_table(self.screen):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def in_play(self) -> bool:
        """Whether a game is on and not over."""
        table = self.current
        if table is None:
            return False
        try:
            return table.snapshot().result is None
        except RuntimeError:
            return False  # not dealt yet

    def leave_game(self, then: Callable[[], object]) -> None:
        """Do ``then`` (open the lobby, a new game, quit), asking first if it would cost a
        networked game in play; a local game is kept, and the lobby resumes it."""
        from xmas_tui.ui.screens.dialogs import BotsFinishScreen, ConfirmScreen, HandOverScreen

        table = self.current
        in_play = self.in_play()
        waiting = self.waiting_guests()
        if waiting:
            self.push_screen(ConfirmScreen.closing_waiting_room(waiting), lambda leave: then() if leave else None)
            return
        if table is not None and table.host_gone and in_play:  # nothing left to lose: say what happened
            self.push_screen(ConfirmScreen.host_gone(table.host_gone), lambda leave: then() if leave else None)
            return
        if table is not None and table.networked and in_play and table.seat is not None:  # (a spectator just goes)
            from xmas_tui.ui.screens.table import leave_clock

            clock = partial(leave_clock, table)  # (the turn timer runs on under the question: it says so)
            handing = next((t for t in (self.hosting, self.joined) if t is not None and t.can_hand_over), None)
            if handing is not None:  # the others can play on without this machine: ask how to go
                self.push_screen(HandOverScreen(clock=clock), lambda choice: self._leave_hosting(choice, handing, then))
                return
            hosting = next((t for t in (self.hosting, self.joined) if t is not None and t.hosting), None)
            if hosting is not None and not hosting.others_playing():  # the last player: bots may finish
                self.push_screen(BotsFinishScreen(clock=clock), lambda choice: self._leave_hosting(choice, hosting, then))
                return
            question = ConfirmScreen.leaving(hosting=hosting is not None, clock=clock)  # (an elected host too)
            self.push_screen(question, lambda leave: self._leave_hosting("close", hosting, then) if leave else None)
            return
        keep = getattr(table, "keep", None)  # (a local game kept on disk)
        kept = keep is not None and in_play and keep.exists()
        then()
        if kept and self.is_running:
            self.notify("Your game is kept: Ctrl+R in the lobby resumes it.", title="Game kept")

    def _leave_hosting(self, choice: str | None, table: NetTable | None, then: Callable[[], object]) -> None:
        """The host's answer to leaving a game in play: hand the table over, close it (the game
        ends for everyone with the scores so far; closing the table then lets every peer have
        the end first), or stay. ``table`` None: a joiner, who just leaves."""
        if table is not None and choice == "bots":
            table.finish_with_bots()
            return  # the end screen follows, here as on every watcher's screen
        if table is not None and choice == "close":
            table.close_game()  # (its end reaches this machine's own seat at once)
            if then != self.exit:
                return  # the end screen shows the scores so far, here as on every screen
            from xmas_tui.tables.table import SessionTable

            if isinstance(self.current, SessionTable):
                self.current.audit()  # quitting: the game's log is written first
        if table is not None and choice == "hand":
            table.hand_over()  # the others elect at once; closing lets them have the handover first
            if then == self.exit:  # (said in the terminal once the app is gone)
                self.farewell = ("You handed the table over: the others play on with a new host. "
                                 "Join the table again under the same name to sit back down in your seat.")
        if choice is not None:
            then()

    def waiting_guests(self) -> list[str]:
        """The players already seated in the waiting room of a table I host, not yet dealt."""
        hosting = self.hosting
        if hosting is None or hosting.started or hosting.table is None:
            return []
        from xmas_tui.tables.table import SeatState

        return [row.name for row in hosting.roster()
                if row.seat != hosting.table.seat and row.state is SeatState.HERE and row.name]

    def resume_game(self) -> None:
        """Go back to the unfinished local game kept on disk, where it stopped (the newest one
        that can be resumed: any other is set aside, with a notice)."""
        from xmas_tui.tables.local import LocalTable

        kept = kept_game(self.tell_set_aside)
        if kept is None:
            self.notify("There is no unfinished game to resume.", severity="warning")
            return
        try:
            table = LocalTable.resume(kept.path)
        except KeptGameError as problem:
            self.tell_set_aside(set_aside_notice(kept.path, problem))
            if isinstance(self.screen, LobbyScreen):
                self.screen.show_kept()
            return
        self.close_network()
        self.config = GameConfig(table.game, len(table.players), table.players[table.seat], table.bot,
                                 None, table.pace, table.options, len(table.humans))  # fmt: skip
        self.current = table
        self.switch_to(table_screen(table))

    def tell_set_aside(self, notice: str) -> None:
        """A kept game that cannot be resumed was set aside: say so, once, and go on."""
        self.notify(plain(notice), title="Cannot resume", severity="error", timeout=12, markup=False)

    async def action_quit(self) -> None:
        """Quit, asking first if a game would be lost. A question already up (leave? close?) gives
        way to this one; with the table's host gone there is nothing left to lose: quit at once."""
        if isinstance(self.screen, loaded_screens("xmas_tui.ui.screens.dialogs", "ConfirmScreen", "HandOverScreen")):
            # (BotsFinishScreen is one; none is on show before the dialogs are loaded)
            self.screen.dismiss(None)  # (as if answered "stay")
        if self.current is not None and self.current.host_gone:
            self.exit()
            return
        self.leave_game(self.exit)

    async def action_help_quit(self) -> None:
        """Ctrl+C quits as Ctrl+Q does (asking first if a game would be lost)."""
        await self.action_quit()

    def choose_theme(self) -> None:
        """The themes to choose from: ours first (dark, light, projector), then Textual's."""
        self.push_screen(CommandPalette(providers=[ThemeChoices], placeholder="Search for themes…"))

    def open_replay(self, replay: Any, seat: Any = None, *, leave: Callable[[], object] | None = None) -> None:
        """Step through a finished game (a ``tables.replay.Replay``), over this screen; Esc
        comes back to it (or does ``leave``)."""
        from xmas_tui.ui.screens.replay import ReplayScreen

        self.push_screen(ReplayScreen(replay, seat, leave=leave))

    def show_rules(self, game: Game) -> None:
        from xmas_tui.ui.screens.dialogs import RulesScreen

        self.push_screen(RulesScreen(game))

    def show_result(self, table: Table, snapshot: Snapshot) -> None:
        assert snapshot.result is not None

        def chosen(choice: str | None) -> None:
            if table.networked:
                self.close_network()
            if choice == "again" and self.config is not None and not table.networked:
                self.start_game(replace(self.config, seed=None))
            elif choice == "quit":
                self.exit()
            else:
                self.open_lobby()

        from xmas_tui.ui.screens.dialogs import EndScreen

        self.push_screen(EndScreen(table.game, table.players, snapshot.result, snapshot.seat), chosen)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title != "Theme":  # (ours, below, lists our themes first)
                yield command
        yield SystemCommand("Theme", "Colours: dark, light or projector (remembered), or another",
                            self.choose_theme)
        yield SystemCommand("Lobby", "Leave this game and open the lobby", lambda: self.leave_game(self.open_lobby))
        yield SystemCommand("Watch a table", "The big-screen view of a table on the LAN, for a projector",
                            lambda: self.leave_game(self.open_watch))
        if isinstance(screen, LobbyScreen):
            yield SystemCommand("Host a no-peek table",
                                f"Host {screen.game.title}: the players' programs deal, and no program sees a card "
                                "before the rules show it (the table ends if this machine goes away)",
                                lambda: screen.action_host(no_peek=True))
        if latest_kept() is not None and not self.in_play():
            yield SystemCommand("Resume", "Go back to the unfinished game, where it stopped", self.resume_game)
        if self.config is not None:
            config = self.config
            yield SystemCommand(
                "New game", f"Start a new {config.game.title} game against bots",
                lambda: self.leave_game(lambda: self.start_game(replace(config, seed=None))),
            )
            yield SystemCommand("Rules", f"The rules and rulings of {config.game.title}", lambda: self.show_rules(config.game))
        if on_a_table(screen):
            yield SystemCommand("Faster bots", "Bots wait less between moves", lambda: screen.action_pace(-1))
            yield SystemCommand("Slower bots", "Bots wait longer between moves", lambda: screen.action_pace(1))
        yield from self.seat_commands()

    def seat_commands(self) -> Iterable[SystemCommand]:
        """The host's commands for the seats of a table in play: hand one to a bot, give it back."""
        hosting = self.hosting
        if hosting is None or not hosting.started:
            return
        from xmas_tui.tables.table import SeatState

        for row in hosting.roster():
            who = escaped(row.name) if row.name else f"seat {row.seat + 1}"  # (the palette reads markup)
            if row.state in (SeatState.HERE, SeatState.AWAY):
                yield SystemCommand(f"Bot plays {who}", f"Hand {who}'s seat (seat {row.seat + 1}) to a bot",
                                    lambda s=row.seat: hosting.hand_to_bot(s))
            elif row.state.played_by_bot and hosting.has_player(row.seat):
                yield SystemCommand(f"Give {who} their seat back", f"Seat {row.seat + 1} is played by a bot now",
                                    lambda s=row.seat: hosting.take_back(s))


def run_app(
    *,
    game: Game | None = None,
    players: int = 4,
    seed: int | None = None,
    name: str | None = None,
    bot: str = "smart",
    pace: float = 0.9,
    options: dict | None = None,
    host: dict | None = None,
    join: dict | None = None,
    cards_file: str | None = None,
    theme: str | None = None,
) -> int:
    config = GameConfig(game, players, name or default_name(), bot, seed, pace, dict(options or {})) if game is not None else None
    app = XmasApp(config, host=host, join=join, cards_file=Path(cards_file) if cards_file else None, theme=theme)
    app.run()
    if app.farewell:
        print(app.farewell)
    return 0
