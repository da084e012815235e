"""The big screen (``xmas-tui watch``) is for a room: no panel of anyone's hand, the scores in
big digits where there is room, and at the end the final scores on the screen itself, with
no dialog over the final board; its keys still work, and the key bar says them."""

from __future__ import annotations

import pytest

from xmas_tui.tables.table import Snapshot
from xmas_tui.tools.screenshots import BigScreen, midgame, watched
from xmas_tui.ui.keybar import KeyBar
from xmas_tui.ui.screens.lobby import LobbyScreen
from xmas_tui.ui.screens.watch import WatchScreen

from .fitkit import cut_words, screen_text
from .uikit import wait_for

BIG, SMALL = (200, 60), (80, 24)


def never(snapshot: Snapshot) -> bool:
    return False


async def shown(size: tuple[int, int], stop=midgame) -> tuple[BigScreen, object]:  # noqa: ANN001
    app = BigScreen(watched("christmas-tree", 5, 3, stop))
    return app, app.run_test(size=size)


@pytest.mark.parametrize("size", [BIG, SMALL])
async def test_the_big_screen_shows_nobodys_hand_and_fits(size: tuple[int, int]) -> None:
    app, running = await shown(size)
    async with running as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen))
        await pilot.pause(0.3)
        text = screen_text(app)
        assert "Your hand" not in text and "Sets" not in text  # (the Christmas Tree's private panels)
        assert "Rows" in text and "WATCHING" in text
        assert not cut_words(app)
        scores = app.screen.query_one("#watch-scores")
        assert scores.display == (size == BIG)  # the scores in big digits where there is room
        if size == BIG:
            assert "▶ " in str(app.screen.query_one("#watch-scoreboard").render())


@pytest.mark.parametrize("size", [BIG, SMALL])
async def test_at_the_end_the_big_screen_keeps_the_final_board_with_the_scores_and_no_dialog(size: tuple[int, int]) -> None:
    app, running = await shown(size, never)
    async with running as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen) and app.screen.result is not None)
        screen = app.screen
        await wait_for(pilot, lambda: screen.verdict is not None)
        await pilot.pause(0.2)
        assert app.screen is screen  # no "New game / Lobby / Quit" dialog over it
        winner = screen.table.players[screen.result.winners[0]]
        text = screen_text(app)
        assert f"The game is over: {winner} wins. Fair play: OK." in text
        assert f"{winner} ★ won" in str(screen.query_one("#players-panel").render())
        assert "Rows" in text  # the final board
        if size == BIG:
            assert screen.query_one("#watch-scores").border_title == "Final scores"
            board = str(screen.query_one("#watch-scoreboard").render())
            assert f"★ {winner}" in board and "Fair play: OK" in board
        assert not cut_words(app)
        assert "esc Lobby" in str(screen.query_one(KeyBar).render())
        await pilot.press("escape")  # the keys still work
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
