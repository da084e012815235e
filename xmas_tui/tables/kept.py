"""Unfinished games kept on disk, so that no key, quit or lost connection loses a game.

Owns: where a local game is kept while unfinished (a file per game in the data
directory's ``unfinished`` folder), writing it atomically, listing and reading
kept games, and letting the oldest go.

The record (JSON): ``v`` (the version), ``game``, ``players``, ``seat`` (the
player at this terminal), ``humans`` (every seat played here), ``bot``,
``seed``, ``options``, ``pace`` and ``actions`` (``[seat, action]`` in the
order applied). Replaying the actions from the seed gives the same cards, log
and random draws, so nothing can be re-rolled.

Must not touch: Textual, the rules (the local table replays them).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from xmas_tui import files
from xmas_tui.games import GAMES

KEPT_VERSION = 1
#: unfinished games kept at once (the oldest beyond this are let go)
KEEP_AT_MOST = 5


class KeptGameError(Exception):
    """An unfinished game on disk that cannot be resumed; the message says why, in one line."""


def kept_dir() -> Path:
    return files.app_data_dir() / "unfinished"


def keep_path(game_id: str, seed: int | str) -> Path:
    """Where a local game is kept while unfinished: a file of its own, so two terminals
    of one account (friends on one SSH box) never overwrite or finish each other's."""
    tag = "".join(c if c.isalnum() or c in "-_" else "_" for c in str(seed))[:40]
    return kept_dir() / f"{game_id}-{tag}.json"


def kept_games() -> list[Path]:
    """The unfinished games kept, newest first."""
    try:
        found = [(p.stat().st_mtime, p) for p in kept_dir().glob("*.json")]
    except OSError:
        return []
    return [p for _, p in sorted(found, reverse=True)]


def latest_kept() -> Path | None:
    """The unfinished game played last, if any."""
    games = kept_games()
    return games[0] if games else None


def read_kept(path: Path) -> dict:
    """The record of an unfinished game; `KeptGameError` (one line) if it is unreadable or not
    one: size, nesting and every field are checked first (``xmas_tui.files``)."""
    try:
        record, _ = files.load_json(path, files.KEPT_BYTES, "an unfinished game")
        if not isinstance(record, dict) or record.get("v") != KEPT_VERSION or record.get("game") not in GAMES:
            raise files.FileProblem(f"{path.name} is not an unfinished game this version can resume")
        files.conform(record, files.KEPT_GAME, path.name)
    except files.FileProblem as problem:
        raise KeptGameError(str(problem)) from None
    return record


def write_kept(path: Path, record: dict) -> None:
    """Write ``record`` to ``path`` atomically; a game that cannot be kept still plays."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        part.write_text(json.dumps({"v": KEPT_VERSION, **record}), encoding="utf-8")
        os.replace(part, path)
    except OSError:
        return
    if len(record.get("actions", ())) == 1:  # a new game's first move: let the oldest kept ones go
        for old in kept_games()[KEEP_AT_MOST:]:
            forget_kept(old)


def forget_kept(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
