"""The ``xmas-tui`` command: verbs work, and a bad argument is one clear line and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from xmas_tui.cli import local_names, main
from xmas_tui.names import default_name


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xmas_tui", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "monopoly"], "unknown game 'monopoly'"),
        (["play", "chip-n-dale", "--players", "9"], "is for 2-6 players, not 9"),
        (["play", "chip-n-dale", "--players", "two"], "'two' is not a whole number"),
        (["play", "chip-n-dale", "--name", "   "], "a name needs at least one letter"),
        (["play", "chip-n-dale", "--name", "x" * 40], "at most 16 characters"),
        (["play", "chip-n-dale", "--pace", "fast"], "is not a number of seconds"),
        (["play", "chip-n-dale", "--seed", "1.5"], "is not a whole number"),
        (["simulate", "chip-n-dale", "--games", "0"], "must be at least 1"),
        (["simulate", "chip-n-dale", "--bot", "genius"], "invalid choice: 'genius'"),
        (["dance"], "invalid choice: 'dance'"),
        (["rules"], "required: GAME"),
        (["play", "christmas-carol", "--option", "puzzels=3,4,5,6"], "christmas-carol has no option 'puzzels' (its options: puzzles, first)"),
        (["play", "christmas-carol", "--option", "puzzles=1,2"], "choose four different puzzles of 1-6, not [1, 2]"),
        (["simulate", "christmas-game", "--option", "young=7"], "the option young lists seats 1-4 (seats count from 1), not [7]"),
        (["play", "chip-n-dale", "--option", "fast"], "'fast' is not NAME=VALUE"),
        (["play", "chip-n-dale", "--option", "first=9"], "the option first names the seat that starts, 1-4 (seats count from 1), not 9"),
        (["simulate", "christmas-tree", "--players", "3", "--option", "first=0"], "1-3 (seats count from 1), not 0"),
        (["host", "christmas-carol", "--headless", "--option", "puzzles=3,4,5,7"], "choose four different puzzles of 1-6"),
        (["host", "chip-n-dale", "--code", "AB-CDE"], "needs at least 6 letters and digits (dashes not counted), not 5"),
        (["join", "--code", "XMAS"], "leave out --code and the host makes one up"),
        (["join", "--code", "NOEL-2026!"], "a join code is letters and digits"),
    ],
)
def test_a_bad_argument_is_one_clear_line_and_exit_2(args, message, capsys) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("xmas-tui: ")
    assert message in err
    assert "Traceback" not in err


def test_the_lobby_s_empty_command_line_is_what_the_parser_makes_of_it() -> None:
    """``xmas-tui`` alone opens the lobby without building the parser (``run``): what it takes
    instead is what the parser makes of an empty command line, so nothing else differs."""
    import argparse

    from xmas_tui.cli import build_parser

    assert build_parser().parse_args([]) == argparse.Namespace(verb=None)


@pytest.mark.parametrize("verb", [["play", "chip-n-dale"], ["host", "chip-n-dale", "--headless"], ["join", "--code", "ABCD-2345", "--headless"]])
def test_a_log_path_that_cannot_be_written_is_refused_before_any_game(verb, tmp_path, capsys) -> None:
    """``--log`` to a place that cannot be written cost a whole game's result: it is checked
    first, one line, exit 2, and nothing is left behind."""
    for bad, why in (("/proc/forbidden/x.json", "cannot be written"), (str(tmp_path), "is a folder, not a file")):
        assert main([*verb, "--log", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"xmas-tui: --log {bad}: {why}")
    assert list(tmp_path.iterdir()) == []


def test_bad_arguments_print_no_traceback_from_the_real_command() -> None:
    done = run_cli("play", "nope")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert "Traceback" not in done.stderr


def test_rules_prints_the_rules_and_every_ruling(capsys) -> None:
    from xmas_tui.games import get_game

    assert main(["rules", "chip-n-dale"]) == 0
    out = capsys.readouterr().out
    words = " ".join(out.split())  # (wrapped to the terminal)
    game = get_game("chip-n-dale")
    assert "Pluto" in out
    for ruling in game.rulings:
        assert ruling.ruling in words
    assert "\n   The rulebook says: “The player who last ate a candy cane" in out
    assert "The rulebook says: “The player who last ate a candy cane takes the first turn.”" in words


def test_simulate_json_ends_with_the_figures() -> None:
    done = run_cli("simulate", "chip-n-dale", "--games", "20", "--players", "4", "--seed", "1", "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    for key in ("game", "games", "players", "seed", "seconds", "games_per_second", "mean_actions", "longest_actions", "wins_by_seat", "ties"):
        assert key in figures
    assert figures["mean_actions"] <= figures["longest_actions"]
    assert figures["games"] == 20 and figures["players"] == 4 and figures["game"] == "chip-n-dale"
    assert sum(figures["wins_by_seat"]) >= 20
    assert len(figures["wins_by_seat"]) == 4


def test_simulate_reports_the_longest_game_in_rounds_where_a_game_has_rounds(capsys) -> None:
    assert main(["simulate", "christmas-game", "--games", "30", "--players", "3", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert 1 <= figures["most_rounds"] and figures["longest_actions"] >= figures["most_rounds"]
    assert main(["simulate", "christmas-tree", "--games", "3", "--json"]) == 0
    assert "most_rounds" not in json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_simulate_with_smart_bots_is_reproducible(capsys) -> None:
    main(["simulate", "chip-n-dale", "--games", "5", "--players", "3", "--bot", "smart", "--json"])
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    main(["simulate", "chip-n-dale", "--games", "5", "--players", "3", "--bot", "smart", "--json"])
    second = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert first["wins_by_seat"] == second["wins_by_seat"]
    assert first["mean_actions"] == second["mean_actions"]


def test_the_console_script_is_installed() -> None:
    import shutil

    exe = shutil.which("xmas-tui") or str(__import__("pathlib").Path(sys.executable).with_name("xmas-tui"))
    done = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    for verb in ("play", "rules", "simulate"):
        assert verb in done.stdout


@pytest.mark.parametrize(
    ("login", "name"),
    [("holly", "Holly"), ("noel_king", "Noel king"), ("root", "Player"), ("", "Player"), ("a" * 30, "A" + "a" * 15)],
)
def test_a_player_who_gives_no_name_gets_their_login_name(monkeypatch, login: str, name: str) -> None:
    """Event text names players ("Holly flips an Acorn"), so the default is the login name, not "You"."""
    for var in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.setenv(var, login)
    assert default_name() == name
    assert local_names(None, 1) == [name]


def test_a_table_option_reaches_the_game(monkeypatch) -> None:
    """Mickey's Christmas Carol, More Challenging Game: play with higher-numbered puzzles."""
    started: dict = {}
    monkeypatch.setattr("xmas_tui.ui.app.XmasApp.run", lambda self: started.update(config=self.config))
    assert main(["play", "christmas-carol", "--players", "2", "--option", "puzzles=3,4,5,6"]) == 0
    config = started["config"]
    assert config.options == {"puzzles": [3, 4, 5, 6]}
    from xmas_tui.ui.app import make_local_table

    table = make_local_table(config)
    assert tuple(table.snapshot().view["puzzles"]) == (3, 4, 5, 6)


def test_rules_wrap_to_the_terminal() -> None:
    """`xmas-tui rules` fits the terminal it prints to; list items hang under themselves."""
    done = subprocess.run([sys.executable, "-m", "xmas_tui", "rules", "christmas-tree"], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "COLUMNS": "60"})
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert all(len(line) <= 59 for line in lines)
    assert any(line.startswith("* ") for line in lines) and any(line.startswith("  ") for line in lines)


def test_make_play_installs_only_what_playing_needs() -> None:
    """`make play` installs the package's own dependencies; the test tools come with `make test`."""
    import re
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    tools = {re.split(r"[<>=\[ ]", dep)[0] for dep in project["optional-dependencies"]["test"]}
    needed = {re.split(r"[<>=\[ ]", dep)[0] for dep in project["dependencies"]}
    assert not tools & needed
    makefile = (root / "Makefile").read_text()
    play = re.search(r"^\$\(PLAYS\):.*\n((?:\t.*\n)+)", makefile, re.MULTILINE).group(1)
    assert "pip install --quiet -e ." in play and "[test]" not in play
    assert re.search(r"^play: \$\(PLAYS\)$", makefile, re.MULTILINE)
