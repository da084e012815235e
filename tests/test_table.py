"""The local table: my seat against bots, only my view leaves it."""

from __future__ import annotations

import asyncio
import json

import pytest

from xmas_tui.games import GAMES, IllegalAction, get_game
from xmas_tui.games.chip_n_dale import Stop
from xmas_tui.tables.kept import KEEP_AT_MOST, KeptGameError, keep_path, kept_games, latest_kept
from xmas_tui.tables.local import LocalTable
from xmas_tui.tables.table import Snapshot

CHIP = get_game("chip-n-dale")


def test_a_snapshot_holds_my_view_only() -> None:
    table = LocalTable(CHIP, ["Ann", "Bo", "Cy"], 1, seed=5)
    snapshot = table.snapshot()
    assert snapshot.view.seat == 1
    assert snapshot.view.to_wire() == CHIP.view(table.state, 1).to_wire()


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
    before = CHIP.digest(table.state)
    with pytest.raises(IllegalAction, match="flip at least 2"):
        await table.send(Stop())
    assert CHIP.digest(table.state) == before


def test_pace_is_kept_within_bounds() -> None:
    table = LocalTable(CHIP, ["Ann", "Bo"], 0, seed=2)
    assert table.set_pace(100) == 4.0
    assert table.set_pace(0) == 0.05


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_an_unfinished_game_is_kept_after_every_move_and_resumes_exactly(game_id: str) -> None:
    """A terminal closed mid-game (an SSH drop) loses nothing: the game is on disk after
    every move, and resuming replays it to the same cards, log and audit."""
    game = get_game(game_id)
    table = LocalTable(game, [f"P{i}" for i in range(game.min_players + 1)], 0, seed=11, keep=True,
                       options={"puzzles": [2, 3, 4, 5]} if game_id == "christmas-carol" else None)  # fmt: skip
    path = table.keep
    table.autoplay(lambda s: len(s.log) > 15)
    assert table.snapshot().result is None
    resumed = LocalTable.resume(path)
    assert game.digest(resumed.state) == game.digest(table.state)
    assert [e.text for e in resumed.snapshot().log] == [e.text for e in table.snapshot().log]
    assert resumed.keep == path and resumed.options == table.options
    resumed.autoplay(lambda s: False)  # to the end: the kept game is gone, the audit covers every move
    assert resumed.snapshot().result is not None and not path.exists()
    assert resumed.audit()["ok"]


def test_a_kept_game_that_was_tampered_with_is_refused_in_one_line() -> None:
    table = LocalTable(CHIP, ["Ann", "Bo", "Cy"], 0, seed=3, keep=True)
    path = table.keep
    table.autoplay(lambda s: len(s.log) > 6)
    record = json.loads(path.read_text())
    record["actions"][2][0] = (record["actions"][2][0] + 1) % 3  # someone else's move
    path.write_text(json.dumps(record))
    with pytest.raises(KeptGameError) as refused:
        LocalTable.resume(path)
    assert "cannot be replayed" in str(refused.value) and "\n" not in str(refused.value)
    path.write_text("{not json")
    with pytest.raises(KeptGameError, match="not valid JSON"):
        LocalTable.resume(path)
    path.write_text(json.dumps({"v": 1, "game": "snakes-and-ladders"}))
    with pytest.raises(KeptGameError, match="not an unfinished game"):
        LocalTable.resume(path)


def test_two_terminals_of_one_account_keep_their_own_games() -> None:
    """Friends on one SSH box under one account: each game has its own file, finishing
    one leaves the other alone, the newest is offered first, and only the last few stay."""
    first = LocalTable(CHIP, ["Ann", "Bo", "Cy"], 0, seed=21, keep=True)
    second = LocalTable(CHIP, ["Dee", "Bo", "Cy"], 0, seed=22, keep=True)
    first.autoplay(lambda s: len(s.log) > 12)
    second.autoplay(lambda s: len(s.log) > 12)
    assert latest_kept() == keep_path(CHIP.id, 22)
    second.autoplay(lambda s: False)  # the second terminal's game ends
    assert kept_games() == [keep_path(CHIP.id, 21)]
    for seed in range(30, 30 + KEEP_AT_MOST + 2):
        LocalTable(CHIP, ["Ann", "Bo", "Cy"], 0, seed=seed, keep=True).autoplay(lambda s: len(s.log) > 10)
    kept = kept_games()
    assert len(kept) == KEEP_AT_MOST and kept[0] == keep_path(CHIP.id, 30 + KEEP_AT_MOST + 1)


def test_the_headless_json_counts_every_seat_it_names_from_1() -> None:
    """``seat`` and the result's ``winners`` alike: seat 1 is the first seat, as on every screen."""
    from xmas_tui.tables.headless import summary

    table = LocalTable(CHIP, ["Ann", "Bo", "Cy"], 1, seed=5, pace=4.0)
    snapshot = table.autoplay(lambda s: False)
    assert snapshot.result is not None and snapshot.result.winners == (1,)  # (the engine counts from 0)
    line = json.loads(json.dumps(summary(table, role="local")))
    assert line["seat"] == 2
    assert line["result"]["winners"] == [2]
    assert line["result"]["scores"] == list(snapshot.result.scores)  # (a list in seat order)
