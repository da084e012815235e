"""The app, driven through its keys with Textual's Pilot, as a player would."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Markdown, Select

from xmas_tui.bots import make_bot
from xmas_tui.games import Rng, get_game
from xmas_tui.games.chip_n_dale import Continue, Stop
from xmas_tui.names import default_name
from xmas_tui.tables.kept import keep_path
from xmas_tui.tables.local import LocalTable
from xmas_tui.ui.app import XmasApp, seat_names
from xmas_tui.ui.boards.base import BoxRow
from xmas_tui.ui.boards.chip_n_dale import LOOK, SLOT_WIDTH, TREE_ROWS, ChipNDaleBoard
from xmas_tui.ui.screens.dialogs import RulesScreen
from xmas_tui.ui.screens.lobby import GameConfig, LobbyScreen
from xmas_tui.ui.screens.network import HostScreen, JoinScreen
from xmas_tui.ui.screens.table import TableScreen

from .netkit import free_port
from .uikit import assert_refused, catch_notes, play_through_keys, table_at, wait_for

CHIP = get_game("chip-n-dale")


def keys_for(action, board: ChipNDaleBoard) -> list[str]:
    """The keys a person presses on the Chip 'n' Dale board for ``action``."""
    if isinstance(action, Stop):
        return ["s"]
    if isinstance(action, Continue):
        return ["c"]
    if hasattr(action, "slot"):
        return [str(action.slot + 1)]
    target = board._ordered.index(action.card)
    steps = (target - board.selected) % len(board._ordered)
    return ["right"] * steps + ["enter"]


async def test_a_whole_game_of_chip_n_dale_through_the_keys() -> None:
    app = XmasApp(GameConfig(CHIP, players=3, name="Ann", bot="smart", seed=21, pace=0.01))
    me = make_bot(CHIP.id, "smart", 0, Rng("ui-player"))
    async with app.run_test(size=(80, 24)) as pilot:
        result, _, moves = await play_through_keys(
            pilot, app, lambda snapshot, board: me.choose(snapshot.view, list(snapshot.legal)), keys_for, seconds=90
        )
        assert moves >= 10
        assert result is not None and len(result.scores) == 3
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_the_lobby_starts_the_game_it_shows() -> None:
    app = XmasApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        app.screen.query_one("#players", Select).value = 3
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        view = app.screen.snapshot.view
        assert view.game == "chip-n-dale"
        assert len(view["players"]) == 3 and view["players"][0] == default_name()


async def test_the_lobby_offers_each_games_own_options_and_plays_with_them(monkeypatch) -> None:
    """Mickey's Christmas Carol's More Challenging Game, who starts (asked the rulebook's
    way) and The Christmas Game's young player are chosen in the lobby, for a game against
    bots and for a hosted table."""
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    app = XmasApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        # Chip 'n' Dale asks one thing: who last ate a candy cane
        assert [label.content for label in lobby.query("Label.game-option")] == ["Who last ate a candy cane?"]
        assert lobby.query_one("#option-first", Select).value == "nobody says (random)"
        assert lobby.options() == {}
        lobby.query_one("#option-first", Select).value = "you"
        await pilot.pause()
        assert lobby.options() == {"first": 1}
        lobby.query_one("#game", Select).value = "christmas-carol"
        await wait_for(pilot, lambda: bool(lobby.query("#option-puzzles")))
        puzzles = lobby.query_one("#option-puzzles", Select)
        await wait_for(pilot, lambda: puzzles.value == "1 2 3 4 · the first game")
        assert lobby.query_one("#option-first", Select).value == "nobody says (random)"
        assert lobby.options() == {}
        puzzles.value = "3 4 5 6 · most challenging"
        lobby.query_one("#option-first", Select).value = "a bot"  # the youngest sits on your left
        await pilot.pause()
        assert lobby.options() == {"puzzles": [3, 4, 5, 6], "first": 2}
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert tuple(app.screen.snapshot.view["puzzles"]) == (3, 4, 5, 6)
        assert app.screen.snapshot.view["first"] == 1
        # the board's key buttons are its own, not styled as the lobby's Buttons (16 wide: Play was cut off)
        box = app.screen.query_one("#cc-turn").content_region
        buttons = app.screen.query_one("#cc-buttons", BoxRow)
        assert box.contains_region(buttons.region)
        assert "Draw" in buttons.line_text(0) and "Stop" in buttons.line_text(0) and "Play" in buttons.line_text(0)
        await pilot.press("escape", "y")  # leave the game (asked first)
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen  # the lobby remembers the last game and its options
        assert lobby.query_one("#option-puzzles", Select).value == "3 4 5 6 · most challenging"
        lobby.query_one("#game", Select).value = "christmas-game"
        await wait_for(pilot, lambda: bool(lobby.query("#option-young")) and not lobby.query("#option-puzzles"))
        lobby.query_one("#option-young", Select).value = "15 or under"
        await pilot.pause()
        assert lobby.options() == {"young": [1]}
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, HostScreen))
        assert app.screen.options == {"young": [1]}
        await wait_for(pilot, lambda: app.hosting is not None)
        assert app.hosting.ledger.options == {"young": [1]}
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


@pytest.mark.parametrize(("key", "screen_type"), [("ctrl+o", HostScreen), ("ctrl+t", JoinScreen)])
async def test_the_lobby_hosts_and_joins_under_the_name_typed(monkeypatch, key: str, screen_type: type) -> None:
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    app = XmasApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        app.screen.query_one("#name", Input).value = "  Holly   Berry "
        await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(app.screen, screen_type))
        assert app.screen.name_ == "Holly Berry"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_an_illegal_key_names_the_rule_and_changes_nothing() -> None:
    table = table_at(CHIP, 4, 7, lambda s: s.my_turn and s.view["phase"] == "flip" and not s.view["flipped"])
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        notes = catch_notes(app)
        await assert_refused(pilot, table, notes, pilot.press("s"), "flip at least 2")


async def test_a_card_turned_face_down_is_drawn_face_down_again() -> None:
    """The memory rule: the screen must not remember for the player."""
    table = LocalTable(CHIP, seat_names("Ann", 2), 0, seed=3, pace=4.0)
    table.autoplay(lambda s: s.my_turn and s.view["phase"] == "flip" and not s.view["flipped"])
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        await pilot.press("1")
        await wait_for(pilot, lambda: 0 in screen.snapshot.view["flipped"] or screen.snapshot.view["phase"] != "flip")
        board = app.screen.query_one(ChipNDaleBoard)
        assert "down" not in board.slot_looks[0]
        for key in "23456":
            if screen.snapshot.view["phase"] != "flip":
                break
            await pilot.press(key)
            await pilot.pause(0.02)
        while screen.snapshot.my_turn:
            await pilot.press(str(screen.snapshot.view["flipped"][0] + 1))
            await pilot.pause(0.02)
        for slot in range(6):
            handle = screen.snapshot.view.zone(f"tree.{slot}")
            if handle and screen.snapshot.view.face(handle[0]) is None:
                assert "down" in board.slot_looks[slot]
                assert "░" in board.query_one(f"#cnd-row-{next(i for i, row in enumerate(TREE_ROWS) if slot in row)}", BoxRow).line_text(1)


async def test_help_shows_the_rules_and_every_ruling() -> None:
    app = XmasApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen))
        text = app.screen.query_one("#rules-text", Markdown).source
        assert text.startswith(f"# {CHIP.title}") and "## Our rulings" in text and "| Key | What it does |" in text
        for ruling in CHIP.rulings:
            assert f"- **{ruling.topic}**: {ruling.ruling}" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_a_local_game_left_by_a_key_too_many_is_kept_and_resumed_where_it_stopped() -> None:
    table = LocalTable(CHIP, seat_names("Ann", 3), 0, seed=5, pace=4.0, keep=True)
    table.autoplay(lambda s: len(s.log) > 12 and s.my_turn)
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, RulesScreen))
        await pilot.press("escape", "escape")  # close the rules, and once more by habit
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        about = str(app.screen.query_one("#lobby-about").render())
        assert "^r resumes Chip 'n' Dale" in about
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        resumed = app.current
        assert resumed is not table
        assert CHIP.digest(resumed.state) == CHIP.digest(table.state)  # every card where it was
        assert [e.text for e in resumed.snapshot().log] == [e.text for e in table.snapshot().log]
        await pilot.press("ctrl+q")  # a local game is kept, so quitting asks nothing
        await wait_for(pilot, lambda: not app.is_running)
    assert keep_path(CHIP.id, 5).exists()


async def test_the_command_palette_offers_the_app_verbs() -> None:
    app = XmasApp(GameConfig(CHIP, players=2, seed=1, pace=4.0))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for wanted in ("Lobby", "New game", "Rules", "Faster bots", "Slower bots"):
            assert wanted in titles
        await pilot.press("plus")
        assert app.current is not None and app.current.pace < 4.0


async def test_the_mouse_flips_and_collects_too() -> None:
    table = LocalTable(CHIP, seat_names("Ann", 2), 0, seed=4, pace=4.0)
    table.autoplay(lambda s: s.my_turn and s.view["phase"] == "flip" and not s.view["flipped"])
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        await pilot.click("#cnd-row-2", offset=(3, 1))  # (slot 4: the first of the bottom row)
        await wait_for(pilot, lambda: 3 in screen.snapshot.view["flipped"])
        face = screen.snapshot.view.face(screen.snapshot.view.zone("tree.3")[0])
        assert face is not None
        kind = face.split("/")[0]
        board = app.screen.query_one(ChipNDaleBoard)
        assert LOOK[kind][1] in board.query_one("#cnd-row-2", BoxRow).line_text(1)[:SLOT_WIDTH]
        assert "flipped" in board.slot_looks[3]


def test_the_rules_screen_lets_paragraphs_wrap_at_its_own_width() -> None:
    from xmas_tui.games import GAMES
    from xmas_tui.rules_text import flowed

    text = "Title\n=====\n\nOne paragraph\nwrapped by hand.\n\nSpecial tiles:\n* An item\n  going on.\n  A    B\n 0 START    1 $1"
    assert flowed(text).splitlines() == [
        "Title", "=====", "", "One paragraph wrapped by hand.", "", "Special tiles:", "* An item going on.", "  A    B", " 0 START    1 $1",
    ]
    for game in GAMES.values():  # nothing is lost or reordered, and tables keep their rows
        rules = game.describe_rules()
        assert flowed(rules).split() == rules.split()
        rows = [line for line in rules.splitlines() if "    " in line.strip()]
        assert all(row in flowed(rules).splitlines() for row in rows)


def test_the_rules_screen_quotes_the_rulebook_where_a_ruling_departs_from_it() -> None:
    """Where a ruling still departs from a rulebook sentence, the rules screen quotes the
    sentence on a line of its own, under the ruling that says why."""
    from xmas_tui.games import GAMES
    from xmas_tui.rules_text import flowed

    quoted = 0
    for game in GAMES.values():
        lines = flowed(game.describe_rules()).splitlines()
        for ruling in game.rulings:
            if ruling.quote:
                at = lines.index(f"   The rulebook says: “{ruling.quote}”")
                assert lines[at - 1] == f"* {ruling.topic}: {ruling.ruling}"
                quoted += 1
    assert quoted >= 3


async def test_the_key_bar_offers_only_the_keys_that_do_something_in_this_part_of_my_turn() -> None:
    """Flipping, the bar offers the slots (and s once two are flipped), not ←/→, which choose
    none of my Treasures then; passing a Treasure, it offers ←/→ and Enter, not the slots.
    A key left out still sends its action: the rules say why not."""
    from xmas_tui.ui.keybar import KeyBar

    def bar(app: XmasApp) -> str:
        return str(app.screen.query_one(KeyBar).render())

    table = table_at(CHIP, 4, 7, lambda s: s.my_turn and s.view["phase"] == "flip" and not s.view["flipped"])
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert "1-6 Slot" in bar(app) and "Choose" not in bar(app) and "Stop" not in bar(app)
        notes = catch_notes(app)
        await assert_refused(pilot, table, notes, pilot.press("s"), "")  # (not offered, still sent, refused)
    table = table_at(CHIP, 4, 3, lambda s: s.my_turn and s.view["phase"] == "pass")
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert "←→⏎ Choose" in bar(app) and "Slot" not in bar(app)


@pytest.mark.parametrize("game_id", ["chip-n-dale", "dragons-chickens"])
async def test_the_command_palette_hosts_a_no_peek_table(monkeypatch, game_id: str) -> None:
    """^p Commands → "Host a no-peek table": the host's waiting room says so, and its table
    deals no-peek, for a game of turns and the real-time one alike."""
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    app = XmasApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        lobby.query_one("#game", Select).value = game_id
        await pilot.pause()
        command = next(c for c in app.get_system_commands(lobby) if c.title == "Host a no-peek table")
        command.callback()
        await wait_for(pilot, lambda: isinstance(app.screen, HostScreen) and app.hosting is not None)
        assert app.hosting.host.settings.no_peek
        assert "no-peek deal" in str(app.screen.query_one("#host-box").border_title)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
