"""Helpers for the board tests driven with Textual's Pilot: waiting, reading widgets, tables at a
chosen moment, and a whole game played through the keys."""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NamedTuple

from rich.text import Text
from textual.content import Content
from textual.geometry import Region

from xmas_tui.games import Action, Game, Result, get_game
from xmas_tui.tables.local import LocalTable
from xmas_tui.tables.network import NetTable
from xmas_tui.tables.table import Snapshot
from xmas_tui.ui.app import XmasApp, seat_names
from xmas_tui.ui.screens.dialogs import EndScreen
from xmas_tui.ui.screens.table import TableScreen

from .netkit import free_port, loopback_host


@contextlib.asynccontextmanager
async def bob_joins(monkeypatch, players: int, **options: Any) -> AsyncIterator[tuple[NetTable, XmasApp, Any]]:  # noqa: ANN001
    """A Chip 'n' Dale table hosted on loopback, and an app that joins it as Bob from the
    command line (``join --address … --code …``): ``(host, app, pilot)``. The table is closed
    afterwards (closing it twice is harmless)."""
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    host = loopback_host(get_game("chip-n-dale"), players, code="HOLY-2345", **options)
    await host.open()
    app = XmasApp(join=dict(code="holy-2345", name="Bob", address=host.address))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            yield host, app, pilot
    finally:
        await host.close()


async def wait_for(pilot, condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.01)


async def settled_screenshot(pilot, app: XmasApp, seconds: float = 20.0) -> str:
    """The screen once drawing has settled: two screenshots a moment apart that agree (on a
    busy machine a log or a panel may still be drawing its first lines)."""
    shot = app.export_screenshot()
    deadline = time.monotonic() + seconds
    while True:
        await pilot.pause(0.05)
        again = app.export_screenshot()
        if again == shot:
            return shot
        assert time.monotonic() < deadline, "the screen did not settle in time"
        shot = again


def text_of(app: XmasApp, selector: str) -> str:
    """What a widget shows, as text (a table or grid as the lines it draws)."""
    widget = app.screen.query_one(selector)
    rendered = widget.render()
    if isinstance(rendered, (str, Text, Content)):
        return str(rendered)
    gutter = widget.styles.gutter  # (the border and the padding)
    width, height = widget.outer_size
    lines = widget.render_lines(Region(0, gutter.top, width, height - gutter.height))
    return "\n".join(line.text[gutter.left : width - gutter.right].rstrip() for line in lines)


def table_at(game: Game, players: int, seed: int, stop, *, pace: float = 600.0) -> LocalTable:
    """A table where Ann sits at seat 0 and bots play every seat until ``stop(snapshot)``."""
    table = LocalTable(game, seat_names("Ann", players), 0, seed=seed, pace=pace)
    table.autoplay(stop)
    return table


def my_turn(phase: str) -> Callable[[Snapshot], bool]:
    return lambda s: s.my_turn and s.view["phase"] == phase


class Played(NamedTuple):
    result: Result | None
    used: Counter[str]  # how often each key was pressed and each kind of action played
    moves: int  # how many actions I played


async def play_through_keys(
    pilot,
    app: XmasApp,
    choose: Callable[[Snapshot, Any], Action],
    keys_for: Callable[[Action, Any], list[str]],
    *,
    used: Counter[str] | None = None,
    seconds: float = 120.0,
) -> Played:
    """Play my seat through the keys until the game ends: on each of my turns ``choose(snapshot,
    board)`` picks the action and ``keys_for(action, board)`` gives the keys to press. Counts
    into ``used`` (a new counter if not given) as it goes."""
    used = Counter() if used is None else used
    moves = 0
    await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
    screen = app.screen
    deadline = time.monotonic() + seconds
    while not isinstance(app.screen, EndScreen):
        assert time.monotonic() < deadline
        snapshot = screen.snapshot
        if snapshot.my_turn and snapshot.result is None:
            board = screen.board
            action = choose(snapshot, board)
            before = len(snapshot.log)
            for key in keys_for(action, board):
                await pilot.press(key)
                used[key] += 1
            await wait_for(pilot, lambda b=before: len(screen.snapshot.log) > b or isinstance(app.screen, EndScreen))
            used[action.kind] += 1
            moves += 1
        else:
            await pilot.pause(0.01)
    return Played(screen.snapshot.result, used, moves)


def catch_notes(app: XmasApp) -> list[str]:
    """The messages the app pops up from now on, kept in the list returned."""
    notes: list[str] = []
    app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
    return notes


async def assert_refused(pilot, table: LocalTable, notes: list[str], press: Awaitable[object], rule: str) -> None:
    """``press`` (a key or a click, not yet awaited) is refused: a note names ``rule`` and the
    table's state is as it was."""
    before = table.game.digest(table.state)
    count = len(notes)
    await press
    await wait_for(pilot, lambda: len(notes) > count)
    assert rule in notes[-1]
    assert table.game.digest(table.state) == before
