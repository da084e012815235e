"""Untrusted files never crash the app: kept games, game logs (and ``xmas-tui verify``).

Every file the app reads may have been written by anyone. Each has a size cap, refused
before it is read; a nesting depth and a count of values checked on the raw text before
any parser (which recurses) sees it; a schema for every field the program then uses; and
one line of error. A bad kept game is set aside (``NAME.json.bad``) with a notice, and
never blocks the lobby or the resume key. Personal cards are in ``test_personal_cards.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xmas_tui import files
from xmas_tui.games import get_game
from xmas_tui.tables.audit import UnreadableLog, read_log, seat_log, with_checksum, write_log
from xmas_tui.tables.kept import KeptGameError, keep_path, kept_dir, read_kept
from xmas_tui.tables.local import LocalTable
from xmas_tui.tables.simulation import play_in_memory
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.screens.lobby import LobbyScreen
from xmas_tui.ui.screens.table import TableScreen

from .uikit import catch_notes, wait_for

CHIP = get_game("chip-n-dale")
DEEP = "[" * 50_000 + "]" * 50_000


def kept_record(seed: int = 3) -> tuple[Path, dict]:
    """A kept game a few moves in, and its record."""
    table = LocalTable(CHIP, ["Ann", "Bo", "Cy"], 0, seed=seed, keep=True)
    table.autoplay(lambda s: len(s.log) > 6)
    table.runner.stop()  # (its bots would play on in the test's event loop, and keep it again)
    assert table.keep is not None
    return table.keep, json.loads(table.keep.read_text())


def one_line(problem: Exception) -> str:
    text = str(problem)
    assert text and "\n" not in text and "Traceback" not in text
    return text


# ---------------------------------------------------------------- the shape of the raw text


def test_fifty_thousand_nested_lists_are_one_line_not_a_recursion_error(tmp_path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    with pytest.raises(files.FileProblem) as refused:
        files.load_json(path, files.LOG_BYTES, "a game log")
    assert one_line(refused.value) == f"deep.json: lists or tables nested 50,000 deep (at most {files.MAX_DEPTH})"
    toml = tmp_path / "deep.toml"
    toml.write_text("a = " + "[" * 50_000 + "]" * 50_000)
    with pytest.raises(files.FileProblem, match="nested 50,000 deep"):
        files.load_toml(toml, files.CARDS_BYTES * 2, "personal cards")


def test_brackets_inside_strings_and_comments_are_not_nesting(tmp_path) -> None:
    deep_words = "[" * 100
    path = tmp_path / "fine.json"
    path.write_text(json.dumps({"text": deep_words, "escaped": '\\"[[[[' + "]" * 50, "list": [[1, [2]]]}))
    assert files.load_json(path, files.LOG_BYTES, "a file")[0]["text"] == deep_words
    toml = tmp_path / "fine.toml"
    toml.write_text(f"# {deep_words}\na = \"{deep_words}\"\nb = '{deep_words}'\nc = \"\"\"\n{deep_words}\n\"\"\"\n")
    assert files.load_toml(toml, files.CARDS_BYTES, "a file")["b"] == deep_words
    # a string that closes brackets cannot hide the nesting around it
    sneaky = tmp_path / "sneaky.json"
    sneaky.write_text("[" * 40 + '"' + "]" * 40 + '"' + "]" * 40)
    with pytest.raises(files.FileProblem, match="nested 40 deep"):
        files.load_json(sneaky, files.LOG_BYTES, "a file")


def test_a_file_is_refused_by_its_size_before_it_is_read(tmp_path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as file:
        file.truncate(500 * files.MIB)  # sparse: nothing is written, nothing need be read
    with pytest.raises(files.FileProblem) as refused:
        files.read_text(path, files.LOG_BYTES, "a game log")
    assert one_line(refused.value) == "big.json: 524,288,000 bytes is too big for a game log (at most 8,388,608)"


def test_millions_of_tiny_values_are_refused_before_parsing(tmp_path) -> None:
    path = tmp_path / "many.json"
    path.write_text("[" + "[]," * 1_500_000 + "[]]")  # 4.5 MB: under the size cap
    with pytest.raises(files.FileProblem, match="more than 1,000,000 values"):
        files.load_json(path, files.LOG_BYTES, "a game log")


def test_nan_and_infinity_are_not_json_numbers(tmp_path) -> None:
    path = tmp_path / "nan.json"
    path.write_text('{"pace": Infinity}')
    with pytest.raises(files.FileProblem, match="Infinity is not a number JSON allows"):
        files.load_json(path, files.KEPT_BYTES, "an unfinished game")


# ---------------------------------------------------------------- kept games

BAD_FIELDS = [
    ("actions", 5, '"actions" is 5, not a list'),
    ("actions", [[0]], '"actions"[0] is a list of 1, not a list of 2'),
    ("actions", [["zero", ["flip", 1]]], '"actions"[0][0] is \'zero\', not a whole number from 0 to 16'),
    ("actions", [[0, {"flip": 1}]], '"actions"[0][1] is a table, not an action'),
    ("players", "Ann", '"players" is \'Ann\', not a list (1-16 items)'),
    ("players", [], '"players" is a list of 0, not a list (1-16 items)'),
    ("seat", -1, '"seat" is -1, not a whole number from 0 to 16'),
    ("seat", True, '"seat" is true, not a whole number from 0 to 16'),
    ("humans", [0, "1"], '"humans"[1] is \'1\', not a whole number from 0 to 16'),
    ("seed", [1], '"seed" is a list of 1, not a whole number or a word'),
    ("options", [], '"options" is a list of 0, not a table'),
    ("pace", "fast", '"pace" is \'fast\', not a number from 0 to 3600'),
    ("bot", None, '"bot" is null, not text of at most 16 characters'),
]


@pytest.mark.parametrize(("field", "value", "message"), BAD_FIELDS)
def test_a_kept_game_with_a_field_of_the_wrong_type_is_refused_in_one_line(field, value, message) -> None:
    path, record = kept_record()
    record[field] = value
    path.write_text(json.dumps(record))
    with pytest.raises(KeptGameError) as refused:
        LocalTable.resume(path)
    assert one_line(refused.value) == f"{path.name}: {message}"


def test_a_kept_game_missing_a_field_or_deeply_nested_is_refused_in_one_line() -> None:
    path, record = kept_record()
    del record["humans"]
    path.write_text(json.dumps(record))
    with pytest.raises(KeptGameError, match='"humans" is missing'):
        read_kept(path)
    path.write_text(DEEP)
    with pytest.raises(KeptGameError, match="nested 50,000 deep"):
        read_kept(path)
    record["humans"] = [0]
    record["options"] = {"x": json.loads("[" * 40 + "]" * 40)}
    path.write_text(json.dumps(record))
    with pytest.raises(KeptGameError, match="nested 42 deep"):
        read_kept(path)
    path.write_text("x" * (files.KEPT_BYTES + 1))
    with pytest.raises(KeptGameError, match="too big for an unfinished game"):
        read_kept(path)


def test_a_kept_game_whose_values_break_the_rules_is_refused_in_one_line() -> None:
    """Types right, values wrong: the replay refuses them as the engine and the table do."""
    for field, value, message in [
        ("seat", 7, "seats are 0-2"),
        ("bot", "genius", "unknown bot 'genius'"),
        ("players", ["Ann"], "is for 2-6 players, not 1"),
        ("options", {"first": 9}, "the option first names the seat that starts"),
        ("actions", [[0, ["fly", 3]]], "'fly' is not a Chip 'n' Dale: Christmas Treasures action"),
    ]:
        path, record = kept_record()
        record[field] = value
        path.write_text(json.dumps(record))
        with pytest.raises(KeptGameError) as refused:
            LocalTable.resume(path)
        assert "cannot be replayed" in one_line(refused.value) and message in str(refused.value)


async def test_a_bad_kept_game_is_set_aside_with_a_notice_and_the_lobby_resumes_the_next() -> None:
    good, _ = kept_record(seed=5)
    bad, record = kept_record(seed=6)  # the newest: the one the lobby would offer
    record["actions"] = 5
    bad.write_text(json.dumps(record))
    deep = kept_dir() / "chip-n-dale-deep.json"
    deep.write_text(DEEP)
    os.utime(good, (1, 1))  # oldest
    app = XmasApp()
    notes = catch_notes(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await wait_for(pilot, lambda: len(notes) == 2)
        assert sorted(p.name for p in kept_dir().iterdir()) == sorted(
            [good.name, bad.name + ".bad", deep.name + ".bad"]
        )
        assert any(f'{bad.name}: "actions" is 5, not a list' in note and f"set aside as {bad.name}.bad" in note for note in notes)
        assert any("nested 50,000 deep" in note for note in notes)
        about = str(app.screen.query_one("#lobby-about").render())
        assert "^r resumes your Chip 'n' Dale" in about
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert app.current.keep == good == keep_path(CHIP.id, 5)


async def test_a_kept_game_that_cannot_be_replayed_is_set_aside_when_resumed() -> None:
    path, record = kept_record(seed=8)
    record["actions"][2][0] = (record["actions"][2][0] + 1) % 3  # someone else's move
    path.write_text(json.dumps(record))
    app = XmasApp()
    notes = catch_notes(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: bool(notes))
        assert "cannot be replayed" in notes[-1] and "set aside" in notes[-1]
        assert not path.exists() and path.with_name(path.name + ".bad").exists()
        await wait_for(pilot, lambda: "resumes" not in str(app.screen.query_one("#lobby-about").render()))
        assert isinstance(app.screen, LobbyScreen)


# ---------------------------------------------------------------- game logs and verify


def a_log(tmp_path: Path) -> tuple[Path, dict]:
    sessions = play_in_memory(CHIP, 3, secret=b"k" * 32, nonces=[b"n" * 32, None, None])
    path = write_log(seat_log(sessions[0]), tmp_path / "log.json")
    return path, json.loads(path.read_text())


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("actions", 5, '"actions" is 5, not a list'),
        ("commitments", [[1, "xyz"]], '"commitments"[0][1] is \'xyz\', not lowercase hex'),
        ("openings", [[1, "acorn"]], '"openings"[0] is a list of 2, not a list of 3'),
        ("nonces", {"0": None}, '"nonces" is a table, not a list (at most 16 items)'),
        ("players", [1, 2], '"players"[0] is 1, not text of at most 64 characters'),
        ("result", {"scores": 1, "winners": [], "tiebreak": "", "details": []}, '"result.scores" is 1, not a list'),
        ("last_view", [], '"last_view" is a list of 0, not a table'),
    ],
)
def test_a_log_with_a_field_of_the_wrong_type_is_refused_in_one_line(tmp_path, field, value, message) -> None:
    path, log = a_log(tmp_path)
    log[field] = value
    path.write_text(json.dumps(with_checksum(log), indent=1, ensure_ascii=False) + "\n")
    with pytest.raises(UnreadableLog) as refused:
        read_log(path)
    assert one_line(refused.value) == f"log.json: {message}"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xmas_tui", *args], capture_output=True, text=True, timeout=120)


def test_verify_on_deeply_nested_json_prints_one_line_not_a_traceback(tmp_path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    done = run_cli("verify", str(path))
    assert done.returncode == 2
    assert done.stderr == f"xmas-tui: deep.json: lists or tables nested 50,000 deep (at most {files.MAX_DEPTH})\n"
    path.write_text(json.dumps({"format": "xmas-tui/game-log", "version": 1, "actions": 5}))
    done = run_cli("verify", str(path))
    assert done.returncode == 2 and done.stderr.startswith("xmas-tui: deep.json: ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


#: Runs the command's own ``main`` in a fresh process and prints, last, that process's peak
#: memory (VmHWM, in kB): a child's ``ru_maxrss`` would count the parent it was forked from.
PEAK = """
import sys
from xmas_tui.cli import main
code = main(sys.argv[1:])
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(peak.split()[1], file=sys.stderr)
sys.exit(code)
"""


def peak_memory_of(*args: str) -> tuple[int, str, int]:
    """Run the command in a process of its own: its exit code, its stderr (the last line, the
    peak, left off) and its peak memory in bytes."""
    done = subprocess.run([sys.executable, "-c", PEAK, *args], capture_output=True, text=True, timeout=120)
    *said, peak = done.stderr.splitlines()
    return done.returncode, "\n".join(said), int(peak) * 1024


@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/status, and sparse files")
def test_verifying_a_500_mb_log_or_millions_of_values_takes_little_memory(tmp_path) -> None:
    code, _, idle = peak_memory_of("verify", str(a_log(tmp_path)[0]))
    assert code == 0  # a real log, verified: the baseline
    big = tmp_path / "big.json"
    with big.open("wb") as file:
        file.truncate(500 * files.MIB)
    code, err, peak = peak_memory_of("verify", str(big))
    assert code == 2 and "too big for a game log" in err
    assert peak < idle + 16 * files.MIB, (peak, idle)
    many = tmp_path / "many.json"
    many.write_text("[" + "[]," * 2_700_000 + "[]]")  # 8.1 MB of [], : just under the size cap
    code, err, peak = peak_memory_of("verify", str(many))
    assert code == 2 and "more than 1,000,000 values" in err
    assert peak < idle + 128 * files.MIB, (peak, idle)
