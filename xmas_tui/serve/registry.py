"""What this machine serves, and how a guest joins it: the line the host's lobby shows.

Owns: the record each running ``xmas-tui serve`` keeps in the data folder
(``serving/ssh.json``, ``serving/web.json``: its process, port and address,
removed when it stops) and the words that say how to join (``ssh -p 2222
NAME@192.168.1.20``, ``http://192.168.1.20:8000``), with this machine's LAN
address when it serves on every interface. Reads no clock and sends no packet.
Must not touch: SSH, HTTP, Textual.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from xmas_tui import files

KINDS = ("ssh", "web")
#: Addresses that mean "every interface".
EVERYWHERE = {"", "0.0.0.0", "::"}


def data_root() -> Path:
    """``$XDG_DATA_HOME/xmas-tui``: the host key, the guests' folders, what this machine serves."""
    return files.app_data_dir()


def record_path(kind: str) -> Path:
    return data_root() / "serving" / f"{kind}.json"


def lan_address() -> str:
    """This machine's address on the LAN (the tables' own answer, loaded only when asked: the
    tables load with a table, not with the lobby)."""
    from xmas_tui.tables.network import lan_address as asked

    return asked()


def public_host(bind: str) -> str:
    """The address a guest types: this machine's LAN address for every interface, else the
    bound one (``[v6]`` in brackets)."""
    host = lan_address() if bind in EVERYWHERE else bind
    return f"[{host}]" if ":" in host else host


def join_words(kind: str, bind: str, port: int) -> str:
    """``ssh -p 2222 NAME@HOST`` or ``http://HOST:8000`` (the usual port left out)."""
    host = public_host(bind)
    if kind == "ssh":
        return f"ssh NAME@{host}" if port == 22 else f"ssh -p {port} NAME@{host}"
    return f"http://{host}" if port == 80 else f"http://{host}:{port}"


def record(kind: str, bind: str, port: int) -> Path:
    """Record that this process serves ``kind`` (``ssh`` or ``web``) on ``bind:port``."""
    path = record_path(kind)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pid": os.getpid(), "bind": bind, "port": port}))
    return path


@contextlib.contextmanager
def serving(kind: str, bind: str, port: int) -> Iterator[None]:
    """Record that this process serves ``kind`` on ``bind:port`` while the block runs."""
    path = record(kind, bind, port)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            if json.loads(path.read_text()).get("pid") == os.getpid():
                path.unlink()


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


def join_hints() -> list[str]:
    """How to join what this machine serves now, ssh first: ``["ssh -p 2222 NAME@…", "http://…"]``;
    empty when it serves nothing (a record left by a server that died is ignored)."""
    hints = []
    for kind in KINDS:
        try:
            record = json.loads(record_path(kind).read_text())
            if _alive(record["pid"]):
                hints.append(join_words(kind, str(record["bind"]), int(record["port"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return hints


def join_line(hints: list[str], width: int) -> tuple[str, str]:
    """``("Guests join: ", "ssh -p 2222 NAME@… · http://…")`` for a line ``width`` wide; the
    lead-in shortens, then goes, where the addresses need the room."""
    words = " · ".join(hints)
    for lead in ("Guests join: ", "Guests: "):
        if len(lead) + len(words) <= width:
            return lead, words
    return "", words
