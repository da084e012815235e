"""Every screen at a chosen moment: ``python -m xmas_tui.tools.screenshots DIR`` writes SVGs.

Owns: the list of scenes (a way to build the app at an interesting moment,
and the keys pressed after it starts). The snapshot tests use the same
scenes, so what the README shows is what the tests check.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from textual import events

from netcode.tools.guesses import guesses_that_fit
from xmas_tui.files import default_cards_file, read_cards
from xmas_tui.games import get_game
from xmas_tui.games.christmas_game import CARD_ZONE
from xmas_tui.serve.registry import record
from xmas_tui.tables.local import LocalTable
from xmas_tui.tables.network import JoinError, NetTable
from xmas_tui.tables.table import Snapshot
from xmas_tui.tools.ui_bench import Replay
from xmas_tui.ui.app import XmasApp, seat_names
from xmas_tui.ui.boards.dragons_chickens import DragonsChickensBoard
from xmas_tui.ui.screens.dialogs import ConfirmScreen, HandOverScreen
from xmas_tui.ui.screens.lobby import GameConfig
from xmas_tui.ui.screens.network import Watching
from xmas_tui.ui.screens.table import leave_clock
from xmas_tui.ui.theme import THEME_NAMES

# The lobby's default name is the login name: the scenes show a player called
# Ann whoever makes them, so the pictures and the snapshot tests never differ.
os.environ["LOGNAME"] = "ann"

SIZE = (80, 24)
STILL = 600.0  # bots wait this long between moves, so a scene holds still (on a busy machine too)
#: A real-time round is pictured as this many seconds after its room was drawn (on a busy
#: machine the picture is taken later, and the countdown would say so).
ROOM_SHOWN_FOR = 1.2
#: LIVE_ROUNDS: a Dragons & Chickens round in play runs on the wall clock (its 5 s window, the
#: bots' shouts), so on a machine busy enough to starve the app for seconds the picture shows a
#: later moment, or the next round. Those scenes are drawn by ``make screenshots`` and looked at,
#: not compared in the snapshot tests (the rounds' behaviour is tested in test_ui_dragons_chickens).


@dataclass(frozen=True)
class Scene:
    name: str
    caption: str
    make: Callable[[], XmasApp]
    keys: tuple[str, ...] = ()
    #: False for scenes that show something live (a port number, a real-time round in play),
    #: kept out of snapshot tests.
    snapshot: bool = True
    #: the theme it is shown in (``dark``, ``light``, ``projector``)
    theme: str = "dark"
    #: the terminal's size (columns, lines)
    size: tuple[int, int] = SIZE

    def app(self) -> XmasApp:
        """The scene's app, in the scene's theme."""
        app = self.make()
        app.chosen_theme = THEME_NAMES[self.theme]
        return app

    async def play(self, pilot: Any) -> None:
        """Press the scene's keys, then wait until the screen stands still: in a real-time
        round every bot's shout is heard, each at its own time after the room is drawn (a
        picture taken sooner would catch whichever had come by then)."""
        await pilot.pause(0.3)
        for key in self.keys:
            await pilot.press(key)
            await pilot.pause(0.2)
        host = getattr(getattr(pilot.app, "current", None), "host", None)
        for _ in range(100):
            if host is None or not host.live.shouts_due:
                break
            await pilot.pause(0.05)
        hold_rounds_still(pilot.app)
        await pilot.pause(0.2)


def hold_rounds_still(app: XmasApp) -> None:
    """A real-time round's countdown, as at ``ROOM_SHOWN_FOR`` after its room was drawn, however
    late the picture is taken."""
    for board in app.screen.query(DragonsChickensBoard):
        window = board.window
        if window is not None:
            board.clock = _stopped_at(window.opened_at + ROOM_SHOWN_FOR)


def _stopped_at(instant: float) -> Callable[[], float]:
    """A clock that always reads ``instant``."""
    return lambda: instant


def table_at(
    game_id: str, players: int, seed: int, stop: Callable[[Snapshot], bool], name: str = "Ann"
) -> XmasApp:
    """An app showing ``game_id`` from seat 0, played forward until ``stop``."""
    game = get_game(game_id)
    table = LocalTable(game, seat_names(name, players), 0, seed=seed, pace=STILL)
    table.autoplay(stop)
    return XmasApp(table=table)


def phase_is(phase: str, *, mine: bool = True, flipped: int = 0) -> Callable[[Snapshot], bool]:
    def stop(s: Snapshot) -> bool:
        return (
            s.view["phase"] == phase
            and (s.my_turn or not mine)
            and len(s.view.get("flipped", ())) >= flipped
        )

    return stop


def carol_turn_starts(s: Snapshot) -> bool:
    """Mickey's Christmas Carol: my turn begins, a few turns into the game."""
    view = s.view
    return s.my_turn and view["phase"] == "draw" and not view.zone("drawn") and view["turns"] >= 4


#: A Mickey's Christmas Carol game the players win.
CAROL_WON = 6


class LobbyAfter(XmasApp):
    """The lobby as it opens again after ``config``'s game: that game and its options chosen."""

    def __init__(self, config: GameConfig) -> None:
        super().__init__()
        self.last = config

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # (the app's own on_mount would start the game)
        self.config = self.last
        self.theme = self.chosen_theme
        self.open_lobby()


class Asking(XmasApp):
    """A table with the question its host is asked on leaving it while the game is in play:
    close it (nobody could take it over), or, with ``hand_over``, hand it over or close it."""

    def __init__(self, shown: XmasApp, hand_over: bool = False) -> None:
        super().__init__(table=shown.current)
        self.hand_over = hand_over

    def on_mount(self) -> None:  # (the app's own on_mount then shows the table, under the question)
        assert self.current is not None
        clock = partial(leave_clock, self.current)  # (what the turn timer does meanwhile)
        question = HandOverScreen(clock=clock) if self.hand_over else ConfirmScreen.leaving(hosting=True, clock=clock)
        self.call_after_refresh(lambda: self.push_screen(question))


def kept_then_lobby(game_id: str, players: int, seed: int) -> XmasApp:
    """The lobby after leaving a local game in play: it was kept, and the lobby says so."""
    table = LocalTable(get_game(game_id), seat_names("Ann", players), 0, seed=seed, pace=STILL, keep=True)
    table.autoplay(lambda s: len(s.log) > 10 and s.my_turn)
    config = GameConfig(table.game, players, "Ann")
    return LobbyAfter(config)


#: A party's own cards for The Christmas Game, as a cards file holds them.
OUR_CARDS = """\
[[card]]
deck = "Scrooge"
title = "Uncle Joe sings"
text = "Uncle Joe sings every carol he knows, twice. Everyone chips in for earplugs."
effect = "pay-each"
amount = 3

[[card]]
deck = "Santa"
title = "The cookie jar"
text = "You find the cookie jar money behind the flour."
effect = "collect"
amount = 15

[[card]]
deck = "Santa"
title = "Secret Santa swap"
text = "Pick a partner for the Secret Santa swap."
effect = "pick"
amount = 10

[[card]]
deck = "Reindeer"
title = "Biscuit"
text = "Biscuit the dog wears antlers."
lucky_on = "odd"
effect = "receipt"
amount = 1
unlucky = "pay"
unlucky_amount = 5
"""


def with_our_cards() -> None:
    """Our party's cards file, where the lobby and the command line look for it."""
    path = default_cards_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(OUR_CARDS, encoding="utf-8")


def lobby_with_our_cards() -> XmasApp:
    with_our_cards()
    return LobbyAfter(GameConfig(get_game("christmas-game"), 4, "Ann"))


def our_card_drawn() -> XmasApp:
    """The Christmas Game with our cards: one of them drawn, by me, just now."""
    with_our_cards()
    game = get_game("christmas-game")
    table = LocalTable(game, seat_names("Ann", 4), 0, seed=15, pace=STILL, options={"cards": read_cards(default_cards_file())})
    table.autoplay(lambda s: s.my_turn and s.view["phase"] == "pick" and "-own-" in s.view.faces_in(CARD_ZONE)[-1])
    return XmasApp(table=table)


def serving_lobby() -> XmasApp:
    """The lobby of a machine that serves guests (``xmas-tui serve ssh`` and ``serve web``, on
    a LAN address given here so the picture is the same on every machine)."""
    record("ssh", "192.168.1.20", 2222)
    record("web", "192.168.1.20", 8000)
    return XmasApp()


def replaying() -> XmasApp:
    """A finished Chip 'n' Dale game of bots (seed 7), replayed from the log its seat 1 kept."""
    from xmas_tui.tables.audit import seat_log, write_log
    from xmas_tui.tables.replay import Replay
    from xmas_tui.tables.simulation import play_in_memory

    sessions = play_in_memory(get_game("chip-n-dale"), 3, secret=b"k" * 32, nonces=[b"n" * 32, None, None], seed=7)
    path = write_log(seat_log(sessions[0]), Path(tempfile.mkdtemp(prefix="xmas-replay-")) / "chip-n-dale.json")
    return XmasApp(replay=(Replay.open(path), None))


def hosting() -> XmasApp:
    return XmasApp(host=dict(game=get_game("chip-n-dale"), players=4, code="SNOW-7315", name="Ann",
                             discovery=("127.0.0.1", 47474)))


class Guessed(XmasApp):
    """The host's waiting room after someone on this machine tried a wrong code (one whose
    announced tag fits the table's, so it reaches the host)."""

    def on_mount(self) -> None:  # (Textual runs the app's own on_mount too: it opens the host's screen)
        self.run_worker(self.guess())

    async def guess(self) -> None:
        while self.hosting is None or self.hosting.table is None:
            await asyncio.sleep(0.02)
        port = self.hosting.address[1]
        intruder = NetTable.joined(("127.0.0.1", port), guesses_that_fit("SNOW-7315")[0], "Grinch",
                                   info=self.hosting.info(),
                               bind_host="127.0.0.1")
        try:
            with contextlib.suppress(JoinError):
                await intruder.join(timeout=2.0)
        finally:
            await intruder.close()


def guessed() -> XmasApp:
    return Guessed(host=dict(game=get_game("chip-n-dale"), players=4, code="SNOW-7315", name="Ann",
                             discovery=("127.0.0.1", 47474)))


def joining() -> XmasApp:
    return XmasApp(join=dict(code="SNOW-7315", name="Bob", discovery=("127.0.0.1", 47474)))


def watched(game_id: str, players: int, seed: int, stop: Callable[[Snapshot], bool]) -> Replay:
    """A game as a room watching it sees it (the public view, and the public log) at the
    moment ``stop``, or at its end: what a spectator's session would deliver then."""
    game = get_game(game_id)
    played = LocalTable(game, seat_names("Ann", players), 0, seed=seed, pace=STILL)
    seen: list[Snapshot] = []

    def watch(snapshot: Snapshot) -> bool:
        public = game.view(played.state, None)
        seen[:] = [Snapshot(public, (), snapshot.to_act, snapshot.log, snapshot.result)]
        return stop(snapshot)

    played.autoplay(watch)
    room = Replay(played, seen)
    room.seat = None
    room.audit = played.audit  # type: ignore[attr-defined]  # (the verdict the end shows)
    return room


class BigScreen(XmasApp):
    """The big-screen view (``xmas-tui watch``) of ``room``, a table seen as a spectator sees it."""

    def __init__(self, room: Replay) -> None:
        super().__init__()
        self.room = room

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # (the app's own on_mount would open the lobby)
        self.theme = self.chosen_theme
        self.play_networked(self.room, Watching("SNOW-7315", "192.168.1.20:47474"))


def midgame(snapshot: Snapshot) -> bool:
    """A Christmas Tree game a few rounds in, someone taking a row."""
    return snapshot.view["phase"] == "turn" and snapshot.view["turns"] > 12


def big_screen(game_id: str, players: int, seed: int, stop: Callable[[Snapshot], bool]) -> Callable[[], XmasApp]:
    return lambda: BigScreen(watched(game_id, players, seed, stop))


def shared_keyboard_at(game_id: str, names: list[str], humans: int, seed: int, stop: Callable[[Snapshot], bool]) -> XmasApp:
    """An app where the first ``humans`` seats share this terminal's keyboard."""
    table = LocalTable(get_game(game_id), names, 0, humans=range(humans), seed=seed, pace=STILL)
    table.autoplay(stop)
    return XmasApp(table=table)


SCENES: tuple[Scene, ...] = (
    Scene("lobby", "The lobby: choose a game, players, bots and your name", XmasApp),
    Scene(
        "lobby-options",
        "The lobby offers a game's own options: here Mickey's Christmas Carol's harder puzzles",
        lambda: LobbyAfter(GameConfig(get_game("christmas-carol"), 3, "Ann", options={"puzzles": [3, 4, 5, 6]})),
    ),
    Scene("rules", "Rules and our rulings, from any screen with ?", XmasApp, ("question_mark",)),
    Scene("lobby-serving", "A machine that serves guests (xmas-tui serve): the lobby says how to join",
          serving_lobby),
    Scene("host", "Hosting a table: the join code, shown large, and the seats", hosting, snapshot=False),
    Scene("host-failed-join", "Hosting: someone tried to join with a wrong code", guessed, snapshot=False),
    Scene("join", "Joining: tables heard on the LAN, the code, or a typed address", joining, snapshot=False),
    Scene(
        "chip-n-dale-table",
        "Chip 'n' Dale: your turn, two Treasures flipped",
        lambda: table_at("chip-n-dale", 4, 7, phase_is("flip", flipped=2)),
    ),
    Scene(
        "hand-over",
        "A host leaving a game in play hands the table over (the others elect a new host) or closes it",
        lambda: Asking(table_at("chip-n-dale", 4, 7, phase_is("flip", flipped=2)), hand_over=True),
    ),
    Scene(
        "close-table",
        "A host nobody could take over from (two players, say) is asked before the game ends for everyone",
        lambda: Asking(table_at("chip-n-dale", 4, 7, phase_is("flip", flipped=2))),
    ),
    Scene(
        "lobby-kept",
        "A local game left in play (or cut off with the terminal) waits in the lobby: ^r resumes it",
        lambda: kept_then_lobby("christmas-tree", 3, 4),
    ),
    Scene(
        "chip-n-dale-peek",
        "Chip 'n' Dale: the Peek event — only you see the peeked face",
        lambda: table_at("chip-n-dale", 3, 11, lambda s: s.my_turn and s.view["phase"] == "peek" and len(s.view["peeked"]) == 1),
    ),
    Scene(
        "chip-n-dale-pass",
        "Chip 'n' Dale: everyone secretly chooses a Treasure to pass right",
        lambda: table_at("chip-n-dale", 4, 3, phase_is("pass")),
    ),
    Scene(
        "chip-n-dale-end",
        "Chip 'n' Dale: final scores and the tie-break",
        lambda: table_at("chip-n-dale", 4, 5, lambda s: False),
    ),
    Scene(
        "christmas-tree-table",
        "Christmas Tree: your turn, just after a Santa Claus Surprise!",
        lambda: table_at(
            "christmas-tree", 4, 40,
            lambda s: phase_is("turn")(s) and len(s.view.zone("hand.0")) < 4 and any(e.kind == "surprise" and e.seat == 0 for e in s.log[-6:]),
        ),
    ),
    Scene(
        "christmas-tree-pay",
        "Christmas Tree: taking row 5, paying for the rows above it",
        lambda: table_at("christmas-tree", 3, 3, lambda s: phase_is("pay")(s) and s.view["taking"] == 4 and s.view["paid"] == 1),
    ),
    Scene(
        "christmas-tree-sets",
        "Christmas Tree: a set scored, its Surprise! at once, more sets to play",
        lambda: table_at("christmas-tree", 3, 38, lambda s: phase_is("play")(s) and s.log[-1].kind == "reward"),
        ("down",),
    ),
    Scene(
        "christmas-tree-final",
        "Christmas Tree: the final plays, no Surprise!",
        lambda: table_at("christmas-tree", 3, 4, phase_is("final")),
    ),
    Scene(
        "christmas-tree-end",
        "Christmas Tree: final scores, a tie broken by cards in hand",
        lambda: table_at("christmas-tree", 5, 2, lambda s: False),
    ),
    Scene(
        "dragons-chickens-reveal",
        "Dragons & Chickens: the room is revealed; count, then press the most abundant treasure",
        lambda: table_at("dragons-chickens", 4, 1, lambda s: s.view["round"] == 25),
        ("enter",),
        snapshot=False,  # (a round in play: see LIVE_ROUNDS)
    ),
    Scene(
        "dragons-chickens-dragon",
        "Dragons & Chickens: a dragon! Everyone to the shield",
        lambda: table_at("dragons-chickens", 4, 1, lambda s: s.view["round"] == 5),
        ("enter",),
        snapshot=False,  # (a round in play: see LIVE_ROUNDS)
    ),
    Scene(
        "dragons-chickens-result",
        "Dragons & Chickens: between rounds, who pressed what and when, and where the cards went",
        lambda: table_at("dragons-chickens", 4, 1, lambda s: s.view["round"] == 15 and s.view["phase"] == "pause"),
    ),
    Scene(
        "dragons-chickens-shared",
        "Dragons & Chickens: two players sharing one keyboard, each with their own keys",
        lambda: shared_keyboard_at("dragons-chickens", ["Ann", "Bo", "Holly", "Noel"], 2, 4, lambda s: s.view["round"] == 1),
    ),
    Scene(
        "christmas-carol-table",
        "Mickey's Christmas Carol: your turn, three tiles drawn; draw again or stop?",
        lambda: table_at("christmas-carol", 3, 1, carol_turn_starts),
        ("d", "d", "d"),
    ),
    Scene(
        "christmas-carol-choose",
        "Mickey's Christmas Carol: an Ignore tile brought five puzzle tiles; choose two to play",
        lambda: table_at("christmas-carol", 3, 33, carol_turn_starts),
        ("d", "4"),
    ),
    Scene(
        "christmas-carol-end",
        "Mickey's Christmas Carol: all four puzzles done before Scrooge wakes",
        lambda: table_at("christmas-carol", 3, CAROL_WON, lambda s: False),
    ),
    Scene(
        "christmas-game-table",
        "The Christmas Game: on a $200 gift square, to buy it or not",
        lambda: table_at("christmas-game", 4, 20, lambda s: phase_is("shop")(s) and tuple(s.view["offer"]) == (200,)),
    ),
    Scene(
        "christmas-game-card",
        "The Christmas Game: Santa's Early bird sale, any gift you still need",
        lambda: table_at("christmas-game", 4, 19, lambda s: phase_is("shop")(s) and len(s.view["offer"]) > 1),
    ),
    Scene(
        "christmas-game-reindeer",
        "The Christmas Game: a Reindeer card read, now roll for luck",
        lambda: table_at("christmas-game", 4, 3, lambda s: phase_is("reindeer")(s) and s.view["round"] >= 4),
    ),
    Scene(
        "christmas-game-own-card",
        "The Christmas Game: one of your party's own cards, drawn (from --cards FILE or cards.toml)",
        our_card_drawn,
    ),
    Scene(
        "lobby-cards",
        "The lobby names your party's own cards file for The Christmas Game, and counts its cards",
        lobby_with_our_cards,
    ),
    Scene(
        "christmas-game-end",
        "The Christmas Game: a 12 on SUPER SHOPPER wins at once",
        lambda: table_at("christmas-game", 4, 11, lambda s: False),
    ),
    Scene("watch", "The big screen (xmas-tui watch --theme projector) at 200×60: the public table, the scores in big "
          "digits, the log and the join code", big_screen("christmas-tree", 5, 3, midgame),
          theme="projector", size=(200, 60)),
    Scene("watch-end", "The big screen at the end: the final scores large, winners starred, the fair-play verdict, "
          "and the final board", big_screen("christmas-tree", 5, 3, lambda s: False), theme="projector", size=(200, 60)),
    Scene("watch-small", "The big screen on an 80×24 terminal: the public table, nobody's hand",
          big_screen("christmas-tree", 5, 3, midgame)),
    Scene("watch-small-end", "The big screen's end on an 80×24 terminal: who won, in its prompt; no dialog over the board",
          big_screen("christmas-tree", 5, 3, lambda s: False)),
    Scene("replay", "Replay (xmas-tui replay LOG): a finished game on its board, step by step, with the audit's "
          "word on each step", replaying, ("3", "right", "right"), snapshot=False),
    Scene("lobby-light", "The lobby in the light theme", XmasApp, theme="light"),
    Scene(
        "chip-n-dale-table-light",
        "Chip 'n' Dale in the light theme",
        lambda: table_at("chip-n-dale", 4, 7, phase_is("flip", flipped=2)),
        theme="light",
    ),
    Scene(
        "christmas-tree-table-light",
        "Christmas Tree in the light theme",
        lambda: table_at("christmas-tree", 3, 3, lambda s: phase_is("pay")(s) and s.view["taking"] == 4 and s.view["paid"] == 1),
        theme="light",
    ),
    Scene(
        "christmas-game-table-light",
        "The Christmas Game in the light theme",
        lambda: table_at("christmas-game", 4, 20, lambda s: phase_is("shop")(s) and tuple(s.view["offer"]) == (200,)),
        theme="light",
    ),
    Scene(
        "christmas-carol-table-light",
        "Mickey's Christmas Carol in the light theme",
        lambda: table_at("christmas-carol", 3, 1, carol_turn_starts),
        ("d", "d", "d"),
        theme="light",
    ),
    Scene(
        "dragons-chickens-reveal-light",
        "Dragons & Chickens in the light theme",
        lambda: table_at("dragons-chickens", 4, 1, lambda s: s.view["round"] == 25),
        ("enter",),
        theme="light",
        snapshot=False,  # (a round in play: see LIVE_ROUNDS)
    ),
    Scene(
        "chip-n-dale-table-projector",
        "Chip 'n' Dale in the projector theme: the strongest contrast",
        lambda: table_at("chip-n-dale", 4, 7, phase_is("flip", flipped=2)),
        theme="projector",
    ),
)


@contextlib.contextmanager
def at_home(folder: str) -> Iterator[None]:
    """``HOME`` is ``folder`` for a while."""
    before = os.environ.get("HOME")
    os.environ["HOME"] = folder
    try:
        yield
    finally:
        if before is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = before


async def capture(scene: Scene, path: Path) -> None:
    # A fresh data folder for each scene: an end scene's game log goes nowhere
    # that lasts, and is named as on a first game (as in the snapshot tests).
    # (a home of its own too: the end screens name the log as ~/.local/share/xmas-tui/games/…)
    with tempfile.TemporaryDirectory() as data, at_home(data):
        before = os.environ.get("XDG_DATA_HOME")
        os.environ["XDG_DATA_HOME"] = str(Path(data) / ".local" / "share")
        try:
            app = scene.app()
            async with app.run_test(size=scene.size) as pilot:
                await scene.play(pilot)
                path.write_text(app.export_screenshot(title=scene.caption))
        finally:
            if before is None:
                del os.environ["XDG_DATA_HOME"]
            else:
                os.environ["XDG_DATA_HOME"] = before


async def capture_all(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for scene in SCENES:
        path = folder / f"{scene.name}.svg"
        await capture(scene, path)
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    folder = Path(argv[0] if argv else "screenshots")
    for path in asyncio.run(capture_all(folder)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
