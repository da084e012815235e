"""The local table: my seat against bots, only my view leaves it."""

from __future__ import annotations

import asyncio

import pytest

from xmas_tui.games import IllegalAction, get_game
from xmas_tui.games.chip_n_dale import Stop
from xmas_tui.table import LocalTable, Snapshot

CHIP = get_game("chip-n-dale")


def test_a_snapshot_holds_my_view_only() -> None:
    table = LocalTable(CHIP, ["Ann", "Bo", "Cy"], 1, seed=5)
    snapshot = table.snapshot()
    assert snapshot.view.seat == 1
    assert snapshot.view.to_wire() == CHIP.view(table._state, 1).to_wire()


async def test_bots_play_until_it_is_my_turn_and_the_game_ends() -> None:
    table = LocalTable(CHIP, ["Ann", "Bo", "Cy"], 0, seed=9, pace=0.001)
    seen: list[Snapshot] = []
    table.subscribe(seen.append)
    runner = asyncio.create_task(table.run())
    from xmas_tui.bots import make_bot
    from xmas_tui.games import Rng

    me = make_bot(CHIP.id, "random", 0, Rng(1))
    for _ in range(5000):
        snapshot = table.snapshot()
        if snapshot.result is not None:
            break
        if snapshot.my_turn:
            await table.send(me.choose(snapshot.view, list(snapshot.legal)))
        await asyncio.sleep(0)
        await asyncio.sleep(0.002)
    await asyncio.wait_for(runner, 5)
    assert table.snapshot().result is not None
    assert seen and all(s.view.seat == 0 for s in seen)


async def test_a_refused_action_raises_with_the_rule_and_changes_nothing() -> None:
    table = LocalTable(CHIP, ["Ann", "Bo"], 0, seed=2, pace=4)
    table.autoplay(lambda s: s.my_turn and s.view["phase"] == "flip" and not s.view["flipped"])
    before = CHIP.digest(table._state)
    with pytest.raises(IllegalAction, match="flip at least 2"):
        await table.send(Stop())
    assert CHIP.digest(table._state) == before


def test_pace_is_kept_within_bounds() -> None:
    table = LocalTable(CHIP, ["Ann", "Bo"], 0, seed=2)
    assert table.set_pace(100) == 4.0
    assert table.set_pace(0) == 0.05
