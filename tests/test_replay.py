"""Replay: a finished game's log stepped through, outside the UI and on its board.

Every game's real log replays to its last view; a seat is never shown a face the log
says it did not see; round keys land on a round's first step; a log ``verify`` refuses
is refused with verify's line (the command line's: one line, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from xmas_tui.games import GAMES, get_game
from xmas_tui.tables.audit import (
    FailedAudit,
    LogError,
    normal,
    refusal,
    seat_log,
    with_checksum,
    write_log,
)
from xmas_tui.tables.replay import EVERY, Replay, recent_logs
from xmas_tui.tables.simulation import play_in_memory
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.screens.replay import LogsScreen, ReplayScreen


def game_log(game_id: str, seat: int = 1, seed: int = 3) -> dict:
    """A real game's log: an in-memory game of bots, as seat ``seat`` kept it."""
    game = get_game(game_id)
    n = min(game.max_players, game.min_players + 1)
    sessions = play_in_memory(game, n, secret=b"k" * 32, nonces=[b"n" * 32] + [None] * (n - 1), seed=seed)
    return seat_log(sessions[seat])


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("logs")
    return {game_id: write_log(game_log(game_id), folder / f"{game_id}.json") for game_id in sorted(GAMES)}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_replays_step_by_step_to_its_last_view(logs: dict[str, Path], game_id: str) -> None:
    log = json.loads(logs[game_id].read_text())
    replay = Replay.open(logs[game_id])
    assert len(replay.steps) == len(log["actions"]) + 1 and replay.last == len(log["actions"])
    assert [step.number for step in replay.steps] == list(range(len(replay.steps)))
    assert normal(replay.view(replay.last, log["seat"]).to_wire()) == normal(log["last_view"])
    assert all(step.ok for step in replay.steps)
    assert replay.steps[0].verdict.startswith("the deal: ") and "matching its commitment" in replay.steps[0].verdict
    assert replay.steps[1].verdict.startswith("action 1 (") and "legal" in replay.steps[1].verdict
    # the log grows with the steps, and ends with the game's whole log
    logged = [step.logged for step in replay.steps]
    assert logged == sorted(logged) and logged[-1] == len(replay.log)
    assert replay.snapshot(replay.last, 0).result is not None and replay.snapshot(0, 0).result is None
    assert replay.snapshot(3, 0).legal == ()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_seat_is_shown_only_the_faces_it_saw(logs: dict[str, Path], game_id: str) -> None:
    """The log's seat was sent an opening for every face it saw: its view at every step shows
    only those (with the faces the log opened); every face is shown only when asked for."""
    log = json.loads(logs[game_id].read_text())
    opened = {(handle, face) for handle, face, _ in log["openings"]}
    replay = Replay.open(logs[game_id])
    hidden_somewhere = False
    for number, step in enumerate(replay.steps):
        mine = replay.view(number, log["seat"]).faces
        assert set(mine.items()) <= opened, f"step {number} shows a face seat {log['seat'] + 1} never saw"
        every = replay.view(number, EVERY).faces
        assert set(mine.items()) <= set(every.items())
        public = replay.view(number, None).faces
        assert set(public.items()) <= set(mine.items())
        hidden_somewhere |= len(every) > len(mine)
        assert step.faces[log["seat"]] == mine
    assert hidden_somewhere  # (every game hides some face from a seat at some step)


@pytest.mark.parametrize("game_id", ["chip-n-dale", "christmas-game", "dragons-chickens"])  # (games with rounds)
def test_a_round_jump_lands_on_the_rounds_first_step(logs: dict[str, Path], game_id: str) -> None:
    replay = Replay.open(logs[game_id])
    rounds = replay.rounds()
    assert rounds and rounds[0] == 1 and rounds == list(range(1, rounds[-1] + 1))
    for round_ in rounds:
        start = replay.round_start(round_)
        assert start is not None and replay.steps[start].round == round_
        assert start == 0 or replay.steps[start - 1].round == round_ - 1
        assert replay.view(start, 0)["round"] == round_
    assert replay.round_start(rounds[-1] + 1) is None


def test_a_game_without_rounds_has_no_round_to_jump_to(logs: dict[str, Path]) -> None:
    replay = Replay.open(logs["christmas-carol"])
    assert replay.rounds() == [] and replay.round_start(1) is None


def test_an_edited_log_is_refused_with_verifys_line(logs: dict[str, Path], tmp_path: Path) -> None:
    edited = tmp_path / "edited.json"
    edited.write_text(logs["chip-n-dale"].read_text().replace('"seat": 1', '"seat": 0'))
    with pytest.raises(LogError) as refused:
        Replay.open(edited)
    line = refusal(refused.value)
    assert line.startswith("refused: ") and "changed after it was written" in line
    # one rewritten with a fresh checksum reads, but fails its audit: refused as verify refuses it
    log = json.loads(logs["chip-n-dale"].read_text())
    log["actions"][0], log["actions"][1] = log["actions"][1], log["actions"][0]
    forged = write_log(with_checksum(log), tmp_path / "forged.json")
    with pytest.raises(FailedAudit) as failed:
        Replay.open(forged)
    assert refusal(failed.value).startswith(f"{forged} fails its audit: ")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xmas_tui", *args], capture_output=True, text=True, timeout=60)


def test_the_command_line_refuses_a_bad_log_in_one_line(logs: dict[str, Path], tmp_path: Path) -> None:
    edited = tmp_path / "edited.json"
    edited.write_text(logs["chip-n-dale"].read_text().replace('"seat": 1', '"seat": 0'))
    for verb in ("verify", "replay"):
        out = run_cli(verb, str(edited))
        assert out.returncode == 1, out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
        assert out.stderr.startswith("xmas-tui: refused: ") and "changed after it was written" in out.stderr
    said = {verb: run_cli(verb, str(edited)).stderr for verb in ("verify", "replay")}
    assert said["verify"] == said["replay"]
    for bad, code in ((tmp_path / "missing.json", 2), (tmp_path, 2)):
        out = run_cli("replay", str(bad))
        assert out.returncode == code and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    out = run_cli("replay", str(logs["chip-n-dale"]), "--seat", "9")
    assert out.returncode == 2 and "--seat 9: the game had 3 seats" in out.stderr


async def test_the_replay_screen_steps_through_a_game(logs: dict[str, Path]) -> None:
    replay = Replay.open(logs["chip-n-dale"])
    app = XmasApp(replay=(replay, None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.step == 0 and screen.shown == 1

        def shown() -> str:
            return str(screen.query_one("#replay-step").render()) + str(screen.query_one("#status").render())

        assert "step 0/" in shown() and "the deal" in shown()
        await pilot.press("right")
        assert screen.step == 1 and "action 1 (" in shown() and "legal" in shown()
        await pilot.press("right", "right", "left")
        assert screen.step == 2
        await pilot.press("end")
        assert screen.step == replay.last and "The game is over" in shown()
        await pilot.press("home")
        assert screen.step == 0
        await pilot.press("3")
        assert screen.step == replay.round_start(3) and "round 3" in shown()
        assert screen._board.snapshot.view["round"] == 3 and screen._board.snapshot.legal == ()
        await pilot.press("s")
        assert screen.shown == 2 and "Shown: seat 3" in shown()
        await pilot.press("s", "s")
        assert screen.shown == EVERY and "every face" in shown()
        assert screen._board.snapshot.view.faces == replay.steps[screen.step].every_face
        log = screen.query_one("#log")
        assert log.size.height > 2 and str(log.render()).strip()
        assert screen.query_one("#board").size.width > 30
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code in (0, None)


async def test_the_lobby_lists_the_last_logs_and_opens_one(logs: dict[str, Path]) -> None:
    path = write_log(json.loads(logs["christmas-tree"].read_text()))  # (into the data folder)
    assert recent_logs() == [path]
    app = XmasApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert isinstance(app.screen, LogsScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen) and app.screen.replay.game.id == "christmas-tree"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ReplayScreen)
