"""Files anyone could have written, read safely: kept games, game logs, personal cards.

Owns: reading such a file under a size cap (refused by its size before it is read, so a
500 MB file costs nothing); the shape check made on the raw text before any parser sees
it, without recursion (nesting depth and number of values: 50,000 nested lists are one
line of error, never a RecursionError, and a file of millions of tiny values is refused
before it can take gigabytes); parsing (JSON, TOML); the schema of every field the program
then uses (``"actions": 5`` is refused here, not met as a TypeError later); and setting a
bad file aside. Every problem is a ``FileProblem``: one line that names the file.

The caps: a kept game 2 MiB, a game log 8 MiB (the longest possible game's log is about
4 MB; real ones are under 100 kB), a personal cards file 64 KiB; at most 32 levels of
nesting and 1,000,000 values in any of them.

It also knows where the personal cards file is found (``$XDG_DATA_HOME/xmas-tui/cards.toml``).

Must not touch: Textual, the network, what a field means beyond its type (the rules of a
personal card are checked by ``xmas_tui.games.personal_cards``, a log by its audit).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Mapping
from itertools import accumulate
from pathlib import Path
from typing import Any

KIB = 1024
MIB = 1024 * KIB
KEPT_BYTES = 2 * MIB
LOG_BYTES = 8 * MIB
CARDS_BYTES = 64 * KIB
#: Lists and tables within one another; our own files nest at most 8 deep.
MAX_DEPTH = 32
#: Values (counted as the containers and the commas between items) in one file.
MAX_VALUES = 1_000_000


class FileProblem(ValueError):
    """A file that cannot be used: the message is one line and names the file."""


# ---------------------------------------------------------------- reading


def read_text(path: str | Path, limit: int, what: str) -> str:
    """The text of ``path`` (UTF-8), refused by its size before it is read if over ``limit``."""
    path = Path(path)
    try:
        with path.open("rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size > limit:
                raise FileProblem(f"{path.name}: {size:,} bytes is too big for {what} (at most {limit:,})")
            raw = file.read(limit + 1)  # a device or a growing file says nothing true of its size
    except OSError as exc:
        raise FileProblem(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise FileProblem(f"{path.name}: more than {limit:,} bytes is too big for {what}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileProblem(f"{path.name} is not UTF-8 text (byte {exc.start:,})") from None


#: What cannot open or close a list: a JSON string (possessive, so it never backtracks).
JSON_SKIP = re.compile(r'"(?:[^"\\]++|\\.)*+"?', re.DOTALL)
#: The same in TOML: strings of the four kinds, and comments.
TOML_SKIP = re.compile(
    r'"""(?:[^"\\]++|\\.|"(?!""))*+(?:"""|$)'
    r"|'''(?:[^']++|'(?!''))*+(?:'''|$)"
    r'|"(?:[^"\\\n]++|\\.)*+"?'
    r"|'[^'\n]*+'?"
    r"|#[^\n]*+",
    re.DOTALL,
)
_NOT_BRACKET = re.compile(r"[^\[\]{}]++")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def check_shape(text: str, name: str, skip: re.Pattern[str] = JSON_SKIP) -> None:
    """Refuse a text nested deeper than ``MAX_DEPTH`` or holding more than ``MAX_VALUES``
    values, before any parser (which would recurse, or fill memory) sees it."""
    bare = skip.sub("", text)
    values = bare.count("[") + bare.count("{") + bare.count(",")
    if values > MAX_VALUES:
        raise FileProblem(f"{name}: more than {MAX_VALUES:,} values is more than any of our files holds")
    brackets = _NOT_BRACKET.sub("", bare)
    depth = max(accumulate(_DEPTH_STEP[c] for c in brackets), default=0)
    if depth > MAX_DEPTH:
        raise FileProblem(f"{name}: lists or tables nested {depth:,} deep (at most {MAX_DEPTH})")


def _no_constant(word: str) -> Any:
    raise ValueError(f"{word} is not a number JSON allows")


def load_json(path: str | Path, limit: int, what: str) -> tuple[Any, str]:
    """A JSON file read and parsed safely, with its text; ``FileProblem`` otherwise."""
    name = Path(path).name
    text = read_text(path, limit, what)
    check_shape(text, name)
    try:
        return json.loads(text, parse_constant=_no_constant), text
    except (ValueError, RecursionError) as exc:  # (RecursionError: a last guard; the shape check comes first)
        raise FileProblem(f"{name} is not {what} (not valid JSON: {one_line(exc)})") from None


def load_toml(path: str | Path, limit: int, what: str) -> dict[str, Any]:
    """A TOML file read and parsed safely; ``FileProblem`` otherwise."""
    import tomllib  # (only a personal cards file is TOML: the parser loads with the first one read)

    name = Path(path).name
    text = read_text(path, limit, what)
    check_shape(text, name, TOML_SKIP)
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise FileProblem(f"{name} is not valid TOML: {one_line(exc)}") from None


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def set_aside(path: Path) -> Path | None:
    """Rename a bad file to ``NAME.bad`` (replacing an older one), so it is kept for a look
    but never read again; where that fails, remove it. Returns the new name, if any."""
    aside = path.with_name(path.name + ".bad")
    try:
        os.replace(path, aside)
        return aside
    except OSError:
        try:
            path.unlink()
        except OSError:
            pass
        return None


# ---------------------------------------------------------------- personal cards


def app_data_dir() -> Path:
    """``$XDG_DATA_HOME/xmas-tui`` (``~/.local/share/xmas-tui`` when it is not set): the
    games folder, the unfinished games and the personal cards live there."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "xmas-tui"


def default_cards_file() -> Path:
    return app_data_dir() / "cards.toml"


def read_cards(path: str | Path) -> list[dict[str, Any]]:
    """The personal cards of a TOML file, checked and written out in full (the value of The
    Christmas Game's table option ``cards``). ``FileProblem`` if the file cannot be read;
    ``CardsProblem``, a line per problem, if its cards cannot be played."""
    # (their rules are The Christmas Game's: they load with it, not with the lobby)
    from .games.personal_cards import normal_cards

    data = load_toml(path, CARDS_BYTES, "a personal cards file")
    return normal_cards(data, Path(path).name)


def table_cards(given: str | Path | None) -> tuple[Path | None, list[dict[str, Any]]]:
    """The personal cards a table plays with, and their file: the file given (``--cards
    FILE``), else the data folder's ``cards.toml`` if there is one, else none."""
    path = Path(given) if given is not None else default_cards_file()
    if given is None and not path.exists():
        return None, []
    return path, read_cards(path)


# ---------------------------------------------------------------- schemas

#: A check of one value: it returns nothing, or raises ``Mismatch`` naming what was wanted.
Check = Callable[[Any, str], None]


class Mismatch(Exception):
    """A value that does not fit: says where, what it is, and what was wanted."""

    def __init__(self, where: str, value: Any, wanted: str) -> None:
        super().__init__(f"{where} is {kind_of(value)}, not {wanted}")


class Missing(Mismatch):
    def __init__(self, where: str) -> None:
        Exception.__init__(self, f"{where} is missing")


def kind_of(value: Any) -> str:
    """A value in a few words, never its whole content."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"{value!r}" if abs(value) < 10**12 else "a huge number"
    if isinstance(value, str):
        return f"{value!r}" if len(value) <= 24 else f"text of {len(value):,} characters"
    if isinstance(value, list):
        return f"a list of {len(value):,}"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(least: int | None = None, most: int | None = None) -> Check:
    wanted = "a whole number" + (f" from {least}" if least is not None else "") + (f" to {most}" if most is not None else "")

    def check(value: Any, where: str) -> None:
        if not is_whole(value) or (least is not None and value < least) or (most is not None and value > most):
            raise Mismatch(where, value, wanted)

    return check


def number(least: float, most: float) -> Check:
    def check(value: Any, where: str) -> None:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or not least <= value <= most:
            raise Mismatch(where, value, f"a number from {least:g} to {most:g}")

    return check


def text(most: int = 10_000) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, str) or len(value) > most:
            raise Mismatch(where, value, f"text of at most {most:,} characters")

    return check


_HEX = re.compile(r"(?:[0-9a-f]{2})*")


def hex_text(value: Any, where: str) -> None:
    if not isinstance(value, str) or len(value) > 1024 or not _HEX.fullmatch(value):
        raise Mismatch(where, value, "lowercase hex")


def table(value: Any, where: str) -> None:
    """Any JSON object or TOML table (its contents are someone else's to check)."""
    if not isinstance(value, dict):
        raise Mismatch(where, value, "a table")


def nullable(inner: Check) -> Check:
    def check(value: Any, where: str) -> None:
        if value is not None:
            inner(value, where)

    return check


def either(*checks: Check, wanted: str) -> Check:
    def check(value: Any, where: str) -> None:
        for inner in checks:
            try:
                inner(value, where)
                return
            except Mismatch:
                continue
        raise Mismatch(where, value, wanted)

    return check


def list_of(item: Check, *, least: int = 0, most: int = MAX_VALUES) -> Check:
    def check(value: Any, where: str) -> None:
        if not isinstance(value, list) or not least <= len(value) <= most:
            size = f" ({least}-{most:,} items)" if least else (f" (at most {most:,} items)" if most < MAX_VALUES else "")
            raise Mismatch(where, value, f"a list{size}")
        for i, each in enumerate(value):
            item(each, f"{where}[{i}]")

    return check


def items(*checks: Check) -> Check:
    """A list of exactly these items, each checked by its own check."""

    def check(value: Any, where: str) -> None:
        if not isinstance(value, list) or len(value) != len(checks):
            raise Mismatch(where, value, f"a list of {len(checks)}")
        for i, (each, inner) in enumerate(zip(value, checks, strict=True)):
            inner(each, f"{where}[{i}]")

    return check


def record(fields: Mapping[str, Check], optional: Mapping[str, Check] | None = None) -> Check:
    """A table with every field of ``fields`` (and perhaps those of ``optional``), each
    checked; other fields are let be (nothing reads them)."""

    def check(value: Any, where: str) -> None:
        table(value, where)
        for name, inner in fields.items():
            if name not in value:
                raise Missing(field_name(where, name))
            inner(value[name], field_name(where, name))
        for name, inner in (optional or {}).items():
            if name in value:
                inner(value[name], field_name(where, name))

    return check


def field_name(where: str, name: str) -> str:
    """``"actions"``, or ``"result.scores"`` within a record."""
    if not where:
        return f'"{name}"'
    return f'{where[:-1]}.{name}"' if where.endswith('"') else f"{where}.{name}"


def conform(value: Any, schema: Check, name: str) -> None:
    """``FileProblem`` (one line naming the file and the field) unless ``value`` fits."""
    try:
        schema(value, "")
    except Mismatch as exc:
        raise FileProblem(f"{name}: {exc}") from None


#: An action's wire form: its kind, then whole numbers, words or lists of whole numbers.
ACTION = either(
    list_of(either(text(64), whole(), list_of(whole(), most=64), wanted="a word or a number"), least=1, most=16),
    text(256),
    wanted="an action",
)
SEATS = 16

#: An unfinished game kept on disk (written by ``LocalTable``).
KEPT_GAME = record(
    {
        "v": whole(),
        "game": text(64),
        "players": list_of(text(64), least=1, most=SEATS),
        "seat": whole(0, SEATS),
        "humans": list_of(whole(0, SEATS), most=SEATS),
        "bot": text(16),
        "seed": either(whole(), text(200), wanted="a whole number or a word"),
        "options": nullable(table),
        "pace": number(0, 3600),
        "actions": list_of(items(whole(0, SEATS), ACTION)),
    }
)

#: A game log (see ``xmas_tui.audit``): every field the audit reads.
GAME_LOG = record(
    {
        "format": text(64),
        "version": whole(),
        "game": text(64),
        "table": hex_text,
        "players": list_of(text(64), least=1, most=SEATS),
        "seat": nullable(whole(0, SEATS)),
        "seed_commit": nullable(hex_text),
        "secret": nullable(hex_text),
        "nonce_commits": list_of(nullable(hex_text), most=SEATS),
        "nonces": list_of(nullable(hex_text), most=SEATS),
        "my_nonce": nullable(hex_text),
        "notes": list_of(text()),
        "actions": list_of(items(whole(0, SEATS), ACTION)),
        "commitments": list_of(items(whole(0), hex_text)),
        "openings": list_of(items(whole(0), text(256), hex_text)),
        "last_view": nullable(table),
        "result": nullable(
            record({"scores": list_of(whole()), "winners": list_of(whole()), "tiebreak": text(), "details": list_of(text())})
        ),
        "alarms": list_of(text()),
        "sha256": text(64),
    },
    {"options": table, "rng_seed": either(whole(), text(200), wanted="a whole number or a word")},
)
