"""The Mickey's Christmas Carol board, driven with Textual's Pilot: keys, the mouse, and what my seat may see."""

from __future__ import annotations

from collections import Counter

from xmas_tui.bots import make_bot
from xmas_tui.games import Action, Rng, get_game
from xmas_tui.games.christmas_carol import Draw, Play, Stop, puzzle_of
from xmas_tui.tables.table import Snapshot
from xmas_tui.tools.screenshots import carol_turn_starts
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.boards.base import BoxRow
from xmas_tui.ui.boards.christmas_carol import ChristmasCarolBoard
from xmas_tui.ui.screens.lobby import GameConfig, LobbyScreen
from xmas_tui.ui.screens.table import TableScreen

from .uikit import (
    assert_refused,
    catch_notes,
    play_through_keys,
    settled_screenshot,
    table_at,
    text_of,
    wait_for,
)

CAROL = get_game("christmas-carol")
SIZE = (80, 24)


def keys_for(action: Action, board: ChristmasCarolBoard) -> list[str]:
    """The keys a person presses on the board for ``action``."""
    if isinstance(action, Draw):
        return ["d"]
    if isinstance(action, Stop):
        return ["s"]
    assert isinstance(action, Play)
    order = [h for h, _ in board.tiles()]
    return [str(order.index(h) + 1) for h in action.tiles] + ["enter"]


async def test_a_whole_game_of_christmas_carol_through_the_keys() -> None:
    app = XmasApp(GameConfig(CAROL, players=2, name="Ann", bot="smart", seed=11, pace=0.01))
    me = make_bot(CAROL.id, "smart", 0, Rng("ui-player"))
    used: Counter[str] = Counter()

    def choose(snapshot: Snapshot, board: ChristmasCarolBoard) -> Action:
        # Draw a third tile now and then, so that choosing two is played through the keys too.
        action = me.choose(snapshot.view, snapshot.legal)
        if isinstance(action, Stop) and len(snapshot.view.zone("drawn")) < 3 and used["stop"] % 3 == 0:
            return Draw()
        return action

    async with app.run_test(size=SIZE) as pilot:
        result, _, _ = await play_through_keys(pilot, app, choose, keys_for, used=used)
        assert result is not None and len(result.scores) == 2
        assert result.scores[0] == result.scores[1]
        assert used["draw"] >= 5 and used["stop"] >= 2 and used["play"] >= 1, used
        assert used["enter"] == used["play"]
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_choosing_two_tiles_with_the_number_keys() -> None:
    table = table_at(CAROL, 3, 33, carol_turn_starts)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        await pilot.press("d")  # an Ignore tile: five puzzle tiles come at once
        await wait_for(pilot, lambda: screen.snapshot.view["phase"] == "choose")
        board = screen.board
        tiles = board.tiles()
        assert len(tiles) == 5
        assert "set aside, back to the bag" in screen.query_one("#cc-turn").border_subtitle
        assert "Choose 2 tiles to play" in text_of(app, "#prompt")
        await pilot.press("4")
        await pilot.press("2")
        await pilot.press("4")  # unchoose
        await pilot.press("1")
        assert board.picked == [tiles[1][0], tiles[0][0]]
        assert [box.border for box in app.screen.query_one("#cc-tiles", BoxRow).boxes[:2]] == ["heavy", "heavy"]  # (chosen)
        assert "Chosen 2 of 2" in text_of(app, "#cc-moment")
        placed = {p: len(screen.snapshot.view.zone(f"puzzle.{p}")) for p in (1, 2, 3, 4)}
        await pilot.press("enter")
        await wait_for(pilot, lambda: not screen.snapshot.my_turn)
        view = screen.snapshot.view
        for handle, face in tiles[:2]:
            assert handle in view.zone(f"puzzle.{puzzle_of(face)}")
        assert sum(len(view.zone(f"puzzle.{p}")) - placed[p] for p in placed) == 2
        assert view.zone("drawn") == ()


async def test_an_illegal_key_names_the_rule_and_changes_nothing() -> None:
    table = table_at(CAROL, 2, 3, carol_turn_starts)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        notes = catch_notes(app)
        for key, rule in (
            ("s", "draw at least one before you stop"),
            ("enter", "Choose two tiles to play once you have drawn"),
            ("1", "Choose two tiles to play once you have drawn"),
        ):
            await assert_refused(pilot, table, notes, pilot.press(key), rule)


async def test_the_mouse_draws_from_the_bag_and_stops() -> None:
    table = table_at(CAROL, 2, 1, carol_turn_starts)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        bag = len(screen.snapshot.view.zone("bag"))
        await pilot.click("#cc-bag")
        await wait_for(pilot, lambda: len(screen.snapshot.view.zone("bag")) < bag)
        assert len(screen.snapshot.view.zone("drawn")) == 1
        assert "1 of 5 drawn" in text_of(app, "#prompt")
        await pilot.click("#cc-buttons", offset=(13, 0))  # (" d  Draw " and a gap of 2: then " s  Stop ")
        await wait_for(pilot, lambda: not screen.snapshot.my_turn)
        assert any(e.kind == "play" and e.seat == 0 for e in screen.snapshot.log)


async def test_the_bag_stays_unseen_on_my_screen() -> None:
    table = table_at(CAROL, 3, 1, carol_turn_starts)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.pause(0.1)
        # The clock, the puzzles and the bag's count are shown.
        assert "Scrooge" in text_of(app, "#cc-clock")
        assert text_of(app, "#cc-bag").startswith(f"Bag {len(table.snapshot().view.zone('bag'))} tiles")
        # Mix the faces inside the bag: not one cell on my screen may change.
        before = await settled_screenshot(pilot, app)
        cards = table.state.cards
        bag = cards.zone("bag")
        faces = [cards._faces[h] for h in bag]
        for handle, face in zip(bag, faces[1:] + faces[:1], strict=True):
            cards._faces[handle] = face
        table.refresh()
        assert await settled_screenshot(pilot, app) == before
        # A change to a face in the open shows at once (the comparison can see a change).
        placed = next(h for p in (1, 2, 3, 4) for h in cards.zone(f"puzzle.{p}"))
        cards.move(placed, "box")
        table.refresh()
        assert await settled_screenshot(pilot, app) != before
