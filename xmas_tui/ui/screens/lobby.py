"""The lobby: choose a game, the number of players, the bots and your name (or replay one of
the last games played here: ^g).

Owns: the lobby's form and what it says. It draws no board and reads only the game on show:
the list of games comes from the registries' listings (``xmas_tui.games.LISTINGS``,
``xmas_tui.ui.boards``), so starting the app loads no board, no other game's rules and no
dialog's Markdown (tests/test_layers.py holds it). Must not touch: engine states; a table
(the app opens one: ``start_game``, ``open_host``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.content import Content
from textual.events import ScreenResume
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from xmas_tui.bots import BOT_KINDS
from xmas_tui.files import FileProblem, default_cards_file, set_aside, table_cards
from xmas_tui.games import CARDS_OPTION, GAMES, LISTINGS, Game, Listing, TableOption, count
from xmas_tui.names import default_name
from xmas_tui.outside import plain, words
from xmas_tui.serve.registry import join_hints, join_line
from xmas_tui.tables.kept import KeptGameError, kept_games, read_kept
from xmas_tui.ui.boards import BOARDS, local_players
from xmas_tui.ui.keybar import KeyBar
from xmas_tui.ui.theme import Inks, inks

BANNER = "❄  x m a s - t u i  ❄"
#: Room for a line of text inside the lobby's box (its width less border and padding).
LINE_WIDTH = 66


@dataclass(frozen=True)
class GameConfig:
    """A local game to start: you against bots."""

    game: Game
    players: int
    name: str = field(default_factory=default_name)
    bot: str = "smart"
    seed: int | None = None
    pace: float = 0.9
    #: the game's table options (``--option``), e.g. Mickey's Christmas Carol's puzzles
    options: dict = field(default_factory=dict)
    #: people sharing this keyboard (``--local-players``): seats 0 .. local-1
    local: int = 1
    #: seconds a player has for a move at a table this lobby hosts (None: no timer); a game
    #: against bots has none
    turn_time: float | None = None


#: The lobby's choices of turn timer for a hosted table: (what it shows, seconds; 0 for none).
TURN_TIMES = (("none", 0), ("30 s a move (hosted)", 30), ("1 min a move (hosted)", 60),
              ("2 min a move (hosted)", 120))


@dataclass(frozen=True)
class KeptGame:
    """An unfinished local game on disk that reads well: where, and in words."""

    path: Path
    words: str  # "Chip 'n' Dale: Christmas Treasures (12 moves in)"


def kept_game(tell: Callable[[str], None]) -> KeptGame | None:
    """The newest unfinished local game on disk that can be read, or None. A kept file that
    cannot be read (or resumed) is set aside on the way, and ``tell`` gets a notice of it,
    so one bad file never blocks the lobby or the resume key."""
    for path in kept_games():
        try:
            record = read_kept(path)
        except KeptGameError as problem:
            tell(set_aside_notice(path, problem))
            continue
        moves = len(record["actions"])
        return KeptGame(path, f"{LISTINGS[record['game']].title} ({count(moves, 'move')} in)")
    return None


def set_aside_notice(path: Path, problem: Exception) -> str:
    """Set a kept file that cannot be resumed aside (``NAME.json.bad``), and say so."""
    aside = set_aside(path)
    where = f"it is set aside as {aside.name}" if aside is not None else "it is removed"
    return f"{problem}; {where}."


@dataclass(frozen=True)
class PersonalCards:
    """The party's own cards for The Christmas Game, as the lobby found them."""

    path: Path
    cards: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    missing: bool = False

    def line(self, ink: Inks) -> Text:
        """One line: the file and how many cards of each deck, or its first problem."""
        if self.missing:
            return Text(f"Own cards: none yet (write them in {shown_path(self.path)})", style="dim")
        if self.problems:
            more = len(self.problems) - 1
            rest = f" (and {more} more)" if more else ""
            return words(f"✗ {self.problems[0]}{rest}: fix it to play", f"bold {ink.berry}", lines=False)
        from xmas_tui.games.christmas_game import DECK_NAMES, DECKS  # (the game that takes them)

        decks = Counter(card["deck"] for card in self.cards)
        counts = ", ".join(f"{decks[d]} {DECK_NAMES[d]}" for d in DECKS if decks[d])
        return Text.assemble(("Own cards: ", f"bold {ink.leaf}"), f"{self.path.name}, {len(self.cards)} card{'s' * (len(self.cards) != 1)} ({counts})")


def personal_cards(given: Path | None) -> PersonalCards:
    """Read the cards file (``given``, or the data folder's ``cards.toml``) now."""
    # (their rules load with The Christmas Game, which takes them)
    from xmas_tui.games.personal_cards import CardsProblem

    path = given if given is not None else default_cards_file()
    try:
        found, cards = table_cards(given)
    except FileProblem as problem:
        return PersonalCards(path, problems=[str(problem)])
    except CardsProblem as problem:
        return PersonalCards(path, problems=problem.lines)
    return PersonalCards(path, cards, missing=found is None)


def shown_path(path: Path) -> str:
    """A path as a person would type it: ``~/…`` under the home folder."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def asked(game: Game) -> list[TableOption]:
    """The table options the lobby asks about (a row each)."""
    return [option for option in game.table_options if option.choices]


def playable_games() -> list[Listing]:
    """The games the lobby offers (those with a board), as listed: no game's rules load here."""
    return [listing for gid, listing in LISTINGS.items() if gid in BOARDS]


def default_players(game: Game) -> int:
    return min(max(4, game.min_players), game.max_players)


class LobbyScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+s", "start", "Play", key_display="^s", tooltip="Play against bots", id="lobby.start"),
        Binding("ctrl+o", "host", "Host", key_display="^o", tooltip="Host a table on the LAN", id="lobby.host"),
        Binding("ctrl+t", "join", "Join", key_display="^t", tooltip="Join a table on the LAN", id="lobby.join"),
        Binding("ctrl+w", "watch", "Watch", key_display="^w", tooltip="The big-screen view of a table, for a projector", id="lobby.watch"),
        Binding("ctrl+r", "resume", "Resume", key_display="^r", tooltip="Go back to your unfinished game, where it stopped", id="lobby.resume"),
        Binding("ctrl+g", "replays", "Replay", key_display="^g", tooltip="Step through one of the last games played here", id="lobby.replay"),
        Binding("question_mark,f1", "rules", "Rules", key_display="?", tooltip="Rules of the chosen game", id="lobby.rules"),
        Binding("ctrl+q", "app.quit", "Quit", key_display="^q", id="lobby.quit"),
    ]

    def __init__(self, last: GameConfig | None = None) -> None:
        super().__init__()
        self.last = last
        self._kept: KeptGame | None = None  # the unfinished game on disk (see kept_game)
        self._cards: PersonalCards | None = None  # the party's own cards (see personal_cards)
        self._resumed = False  # (shown yet: see on_screen_resume)

    def compose(self) -> ComposeResult:
        games = playable_games()
        first = self.last.game if self.last else GAMES[games[0].id]  # (the one game whose rules load)
        with Vertical(id="lobby-box"):
            yield Static(Content.styled(BANNER, "bold $gold"), id="banner")
            yield Static("Play against bots here, or host or join a table on the LAN.", id="lobby-sub")
            with Grid(id="lobby-form"):
                yield Label("Game")
                yield Select([(g.title, g.id) for g in games], value=first.id, allow_blank=False, id="game", compact=True)
                yield from self._game_rows(first, self.last)
                yield Label("Players", id="players-label")
                yield Select(self._player_options(first, self.last.local if self.last else 1),
                             value=self.last.players if self.last else default_players(first), allow_blank=False, id="players", compact=True)  # fmt: skip
                yield Label("Bots")
                bot = self.last.bot if self.last and self.last.bot in BOT_KINDS else "sensible"
                yield Select([(kind.capitalize(), kind) for kind in BOT_KINDS], value=bot, allow_blank=False, id="bot",
                             compact=True, tooltip="Easy, sensible or hard bots (in Dragons & Chickens: slower or "
                             "faster reactions), or bots that play at random")  # fmt: skip
                yield Label("Turn timer")
                yield Select(list(TURN_TIMES), value=int(self.last.turn_time or 0) if self.last else 0, allow_blank=False,
                             id="turn-time", compact=True, tooltip="At a table you host: a bot plays the move of a "
                             "player who takes longer (never in a game against bots)")  # fmt: skip
                yield Label("Your name")
                yield Input(value=self.last.name if self.last else default_name(), max_length=16, id="name", compact=True)
            yield Static(id="lobby-cards")
            with Horizontal(id="lobby-buttons"):
                yield Button("Play vs bots", variant="success", id="start")
                yield Button("Host", id="host", tooltip="Host a table on the LAN")
                yield Button("Join", id="join", tooltip="Join a table on the LAN")
                yield Button("Watch", id="watch", tooltip="The big-screen view of a table, for a projector")
                yield Button("Rules", id="rules")
            yield Static(id="lobby-about")
        yield KeyBar()

    def on_mount(self) -> None:
        self._shown_game = self.game.id
        self.query_one("#lobby-box").border_title = "Lobby"
        self.show_how_to_join()
        self.show_kept()
        self.query_one("#start", Button).focus()

    def on_screen_resume(self, event: ScreenResume) -> None:
        """The first time the lobby is shown, Textual is asked not to work out the style of each
        of its widgets again (``refresh_styles``): each was styled as it was mounted, a moment
        before, and every change of class or focus since restyled its widget itself; the
        second pass (some 8 ms of the start) gave every widget the styles it had. (This runs
        before Textual's own handler reads the flag; a later resume, over a closed dialog or a
        new theme, is left to Textual.)"""
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False

    def _game_rows(self, game: Game, last: GameConfig | None) -> ComposeResult:
        """The rows only some games have: their own options, and a shared keyboard."""
        for option in asked(game):
            yield from self._option_row(option, last.options if last else {})
        yield from self._keyboard_row(game, last.local if last else 1)

    @staticmethod
    def _option_row(option: TableOption, chosen: dict) -> ComposeResult:
        shown = next((shown for shown, value in option.choices if value is not None and chosen.get(option.name) == value),
                     option.choices[0][0])  # fmt: skip
        yield Label(option.label, classes="game-option")
        yield Select([(text, text) for text, _ in option.choices], value=shown, allow_blank=False,
                     id=f"option-{option.name}", classes="game-option", compact=True)  # fmt: skip

    def options(self) -> dict:
        """The table options chosen for the game on show (with the party's own cards, if the
        game takes them and their file is fine)."""
        chosen: dict = {}
        for option in asked(self.game):
            shown = self.query_one(f"#option-{option.name}", Select).value
            if isinstance(shown, str):  # (blank only for a moment, while the row is mounted)
                chosen.update(option.options(shown))
        cards = self._cards.cards if self._cards is not None else []
        return {**chosen, CARDS_OPTION: cards} if cards else chosen

    def _read_cards(self) -> PersonalCards | None:
        """The party's own cards, read from their file now (for a game that takes them)."""
        self._cards = personal_cards(self.app.cards_file) if CARDS_OPTION in self.game.option_names else None
        return self._cards

    def _show_cards(self) -> None:
        """The line that names the cards file and how many cards it holds, or its problem."""
        line = self.query_one("#lobby-cards", Static)
        cards = self._read_cards()
        line.display = cards is not None
        if cards is not None:
            line.update(cards.line(inks(self)))

    def _cards_stop_the_game(self) -> bool:
        """True (and says why) if the cards file must be fixed before a game can start."""
        cards = self._read_cards()
        self._show_cards()
        if cards is None or not cards.problems:
            return False
        self.notify(plain("\n".join(cards.problems[:6])), title="Fix your cards file to play", severity="error",
                    timeout=15, markup=False)  # fmt: skip
        return True

    @staticmethod
    def _keyboard_row(game: Game, local: int) -> ComposeResult:
        """For a game several people can play at one keyboard (each with their own keys)."""
        most = local_players(game.id)
        if most > 1:
            yield Label("Keyboard", classes="game-option")
            yield Select([("just you", 1), *[(f"{k} people, each with their own keys", k) for k in range(2, most + 1)]],
                         value=min(local, most), allow_blank=False, id="keyboard", classes="game-option", compact=True)  # fmt: skip

    @property
    def local(self) -> int:
        """People at this keyboard (1 unless the game allows more and more were chosen)."""
        rows = self.query("#keyboard")
        value = rows.first(Select).value if rows else 1
        return value if isinstance(value, int) else 1

    @staticmethod
    def _player_options(game: Game, local: int = 1) -> list[tuple[str, int]]:
        people = "you" if local == 1 else f"{local} of you"
        return [
            (f"{n} ({people} + {n - local} bot{'s' if n - local != 1 else ''})", n)
            for n in range(max(2, game.min_players, local), game.max_players + 1)
        ]

    @property
    def game(self) -> Game:
        return GAMES[str(self.query_one("#game", Select).value)]

    def _describe(self) -> None:
        ink = inks(self)
        game = self.game
        self._show_cards()
        self._kept = kept = kept_game(self.app.tell_set_aside)  # read from disk here, not each time the keys are drawn
        if kept is not None:  # the one line that matters most: your game is waiting
            self.query_one("#lobby-about", Static).update(Text.assemble(
                ("^r", f"bold {ink.gold}"), (" resumes ", "dim"), (kept.words, f"bold {ink.gold}"),
            ))  # fmt: skip
            return
        self.query_one("#lobby-about", Static).update(
            Text(f"{game.min_players}-{game.max_players} players · press ? for the rules", style="dim")
        )

    def show_how_to_join(self) -> None:
        """While this machine serves guests (``xmas-tui serve ssh``/``web``), the line under the
        banner says how to join it: ``ssh -p 2222 NAME@192.168.1.20 · http://192.168.1.20:8000``."""
        ink = inks(self)
        hints = join_hints()
        if hints:
            lead, words = join_line(hints, LINE_WIDTH)
            line = Text.assemble((lead, "dim"), (words, f"bold {ink.leaf}"), no_wrap=True, overflow="ellipsis")
            self.query_one("#lobby-sub", Static).update(line)

    def show_kept(self) -> None:
        """Refresh what the lobby says of an unfinished game (it may have gone)."""
        self._describe()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resume":
            return self._kept is not None  # the key shows only when there is a game to resume
        return True

    def action_resume(self) -> None:
        self.app.resume_game()

    async def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "game" and event.value != self._shown_game:
            self._shown_game = str(event.value)
            game = self.game
            players = self.query_one("#players", Select)
            players.set_options(self._player_options(game))
            players.value = default_players(game)
            await self.query(".game-option").remove()
            rows = list(self._game_rows(game, None))
            if rows:
                await self.query_one("#lobby-form").mount(*rows, before=self.query_one("#players-label"))
            self._describe()
        elif event.select.id == "keyboard" and isinstance(event.value, int):
            players = self.query_one("#players", Select)
            chosen = players.value
            players.set_options(self._player_options(self.game, event.value))
            players.value = max(chosen, event.value) if isinstance(chosen, int) else default_players(self.game)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()
        elif event.button.id == "host":
            self.action_host()
        elif event.button.id == "join":
            self.action_join()
        elif event.button.id == "watch":
            self.action_watch()
        elif event.button.id == "rules":
            self.action_rules()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def action_rules(self) -> None:
        self.app.show_rules(self.game)

    def action_replays(self) -> None:
        from xmas_tui.ui.screens.replay import LogsScreen

        self.app.push_screen(LogsScreen())

    def _player_name(self) -> str:
        return (" ".join(self.query_one("#name", Input).value.split()) or default_name())[:16]

    def _players(self) -> int:
        """How many seats the table chosen has (its list always has one chosen)."""
        return int(str(self.query_one("#players", Select).value))

    def action_host(self, no_peek: bool = False) -> None:
        """Host the game chosen (``no_peek``: the players' programs deal: ^p Commands)."""
        if self._cards_stop_the_game():
            return
        players = self._players()
        self.app.open_host(self.game, players, self._player_name(), str(self.query_one("#bot", Select).value),
                           self.options(), turn_time=self.turn_time, no_peek=no_peek)  # fmt: skip

    @property
    def turn_time(self) -> float | None:
        """The turn timer chosen for a hosted table (None: no timer)."""
        seconds = self.query_one("#turn-time", Select).value
        return float(seconds) if isinstance(seconds, int) and seconds > 0 else None

    def action_join(self) -> None:
        self.app.open_join(self._player_name())

    def action_watch(self) -> None:
        self.app.open_watch()

    def action_start(self) -> None:
        if self._cards_stop_the_game():
            return
        name = self._player_name()
        config = GameConfig(
            game=self.game,
            players=self._players(),
            name=name[:16],
            bot=str(self.query_one("#bot", Select).value),
            options=self.options(),
            local=self.local,
            turn_time=self.turn_time,
        )
        self.app.start_game(config)
