"""The wire form of a no-peek program's messages, and the error that stops a program.

Owns ``pack`` (a message as the host relays it: a msgpack list), ``MAX_MESSAGE``,
``commit_digest`` (what a simultaneous choice goes round as before it is revealed),
``Stopped`` (a wrong message: the line every screen shows, and whose it was) and
``blame_line`` (a proof's failure said of its author by name).

Must not touch: sockets, clocks, asyncio, the UI.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack

#: the largest message a program may send (a shuffle proof of a 4,096-card deck fits)
MAX_MESSAGE = 1 << 20


def pack(*parts: Any) -> bytes:
    return msgpack.packb(list(parts), use_bin_type=True)


def commit_digest(action_wire: Any, salt: bytes) -> bytes:
    """The digest a simultaneous choice goes round as before it is revealed."""
    return hashlib.sha256(b"xmas-tui/no-peek/choice\x00" + pack(action_wire, salt)).digest()


def blame_line(name: str, reason: str) -> str:
    """``Blame``'s reason ("its shuffle proof failed") said of a player by name."""
    if reason.startswith("its "):
        return f"{name}'s {reason[4:]}"
    if reason.startswith("it "):
        return f"{name} {reason[3:]}"
    return f"{name}: {reason}"


class Stopped(Exception):
    """A wrong message: the line every screen shows, and whose it was."""

    def __init__(self, line: str, culprit: int | None) -> None:
        super().__init__(line)
        self.culprit = culprit
