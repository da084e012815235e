"""Who said what at a no-peek table: every program's moves and messages, as their voices signed them.

Owns ``Voices``: the voices (Ed25519 public keys, ``netcode.fairplay.Voice``) of the seats
of one no-peek deal, and the checks every program makes on what the host passes on in a
seat's name: a move (``Order``, ``Sealed``) must carry its seat's signature with a move id
above the last one (the host cannot make up a move, nor play one twice); a program's
message (``Relay``) must carry its author's signature and be the author's next one, in
order (the host cannot make one up, change it, repeat it, or hold one back and pass on the
next). A seat no program plays (a bot, played by the host's own program, or a seat handed
to it when its player left: ``hand``) has no voice, and the host's own program's messages
come from the host itself: neither is checked here. A seat handed to a watcher's program
(``hand``) takes that program's voice, for its moves and for the program's messages.

What the host can still do is hold a message back for good: then every program waits,
and names whom it waits for (``netcode.session.seat``). What it cannot do is make any
program believe a seat said what it did not.

Must not touch: sockets, clocks, asyncio, games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from netcode.fairplay import move_message, saying_message, signed_by


class Voices:
    """The voices of one no-peek deal's seats, and what each has said so far."""

    def __init__(self, table: str, voices: Sequence[bytes | None], names: Sequence[str]) -> None:
        self.table = table
        self.voices = [bytes(v) if v is not None else None for v in voices]
        self.names = list(names)
        #: seat -> the id of its last move passed on
        self.last_move: dict[int, int] = {}
        #: author -> the number of its next message (from 0)
        self.next_saying: dict[int, int] = {}
        #: a watcher's program that plays a seat handed to it: its id -> its voice
        self.programs: dict[int, bytes] = {}

    def _name(self, seat: int) -> str:
        if seat > len(self.names):
            return "a watcher's program"
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat + 1}"

    def voice(self, seat: int) -> bytes | None:
        return self.voices[seat] if 0 <= seat < len(self.voices) else None

    def hand(self, seat: int, program: int, voice: bytes | None) -> None:
        """``seat`` was handed to ``program`` (its player's left): the host's own (``voice``
        None: its moves come from the host, unsigned, as a bot's) or a watcher's, whose voice
        signs that seat's moves and its own messages from now on."""
        if 0 <= seat < len(self.voices) and self.voices[seat] != voice:
            self.voices[seat] = voice
            self.last_move.pop(seat, None)  # (a new voice counts its moves afresh)
        if voice is not None and program > len(self.voices):
            self.programs.setdefault(program, voice)

    def move(self, seat: int, id: int, action: Any, signature: bytes | None) -> str | None:
        """Check a move passed on in ``seat``'s name; what is wrong with it (None: all well).
        It counts as said only when all is well."""
        voice = self.voice(seat)
        if voice is None:
            return None  # (a bot's move: the host's program plays it)
        name = self._name(seat)
        if not signed_by(voice, signature, move_message(self.table, seat, id, action)):
            return f"a move in {name}'s name that {name}'s program did not sign"
        if id <= self.last_move.get(seat, 0):
            return f"{name}'s move {id} a second time"
        self.last_move[seat] = id
        return None

    def saying(self, author: int, n: int, data: bytes, signature: bytes | None) -> str | None:
        """Check a message passed on as ``author``'s; what is wrong with it (None: all well).
        A seat past the last is the host's own program (it says its own messages)."""
        if author == len(self.voices):
            return None  # (the host's own program)
        voice = self.voice(author) if author < len(self.voices) else self.programs.get(author)
        name = self._name(author)
        if voice is None or not signed_by(voice, signature, saying_message(self.table, author, n, data)):
            return f"a message in {name}'s name that {name}'s program did not sign"
        due = self.next_saying.get(author, 0)
        if n < due:
            return f"{name}'s message {n + 1} a second time"
        if n > due:
            return f"{name}'s message {n + 1} while holding back message {due + 1}"
        self.next_saying[author] = n + 1
        return None
