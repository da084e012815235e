"""The simultaneous choices of a no-peek program, and a real-time round's. Sans-IO.

Owns ``Choices``, the mixin of ``Machine`` (``machine.py``) for the moves every seat to
act makes at once: this program's own choice kept, its digest sent in its place
(``commit``); each seat's digest as the host orders it (``_sealed``), with, in a
real-time round, what the host heard of it and the bound on the rest; the reveals once
every seat to act has a digest in (``_reveal_if_complete``: a reveal that does not match
its digest, or made for a seat its author does not play, stops the game); the moves
they make, queued in seat order; a choice voided when its seat is handed on or given the
silent action (``_void``, ``_check_silent``: a silent action that is not the rules' own
stops the game); and a real-time choice merged with what the host heard (``_merged``).

Must not touch: sockets, clocks, asyncio, the UI.
"""

from __future__ import annotations

import os
from collections import deque
from typing import TYPE_CHECKING, Any

from xmas_tui.games import Action, Event, Game

from .wire import Stopped, commit_digest

if TYPE_CHECKING:
    from netcode.dealing.group import Rand

    from .replica import Replica


class Choices:
    """The simultaneous choices a ``Machine`` keeps and reveals (see the module's docstring)."""

    if TYPE_CHECKING:  # (the machine's own, read here)
        game: Game
        players: tuple[str, ...]
        seats: frozenset[int]
        runs: dict[int, int]
        rand: Rand | None
        replica: Replica
        timed: bool
        replaying: bool
        queue: deque[tuple[Any, ...]]
        _given: set[tuple[Any, ...]]
        _digests: dict[int, bytes]
        _mine: dict[int, tuple[Any, bytes]]
        _revealed: dict[int, Any]
        _early: dict[int, tuple[int, Any, bytes]]
        _merges: dict[int, tuple[Any, int | None]]
        _fresh: bool

        def _name(self, seat: int | None) -> str: ...
        def _send(self, *parts: Any) -> None: ...

    def commit(self, seat: int, action: Action) -> bytes:
        """My seat's simultaneous choice: kept here, its digest for the host to order."""
        salt = os.urandom(16) if self.rand is None else self.rand().to_bytes(64, "little")[:16]
        wire = action.to_wire()
        self._mine[seat] = (wire, salt)
        return commit_digest(wire, salt)

    def _void(self, seat: int) -> None:
        if seat in self._digests and seat not in self._revealed:
            del self._digests[seat]
            self._early.pop(seat, None)
            self._merges.pop(seat, None)
            self._mine.pop(seat, None)
            self._fresh = True

    def unrevealed(self, seat: int) -> bool:
        """Whether ``seat``'s simultaneous choice went round as a digest and is not revealed yet."""
        return seat in self._digests and seat not in self._revealed

    def _take_reveal(self, author: int, seat: int, action: Any, salt: bytes) -> None:
        if self.runs.get(seat) != author:
            raise Stopped(f"{self._name(author)} revealed a choice of a seat it does not play", author)
        digest = self._digests.get(seat)
        if digest is None:
            self._early[seat] = (author, action, salt)  # its digest is still on its way here
            return
        if commit_digest(action, salt) != digest:
            raise Stopped(f"{self._name(seat)}'s choice does not match the digest it sent first", author)
        self._revealed[seat] = action
        self._reveal_if_complete()

    def _sealed(self, seat: int, digest: bytes, heard: Any, bound: int | None) -> None:
        self._digests[seat] = digest
        if heard is not None or bound is not None:
            self._merges[seat] = (heard, bound)
        early = self._early.pop(seat, None)
        if early is not None:
            self._take_reveal(early[0], seat, early[1], early[2])
        self._reveal_if_complete()

    def _reveal_if_complete(self) -> None:
        acting = self.game.to_act(self.replica.state)
        if not acting or not acting <= set(self._digests):
            return
        for seat in sorted(acting & self.seats):
            if ("reveal", seat) not in self._given and seat not in self._revealed:  # (one handed to me
                # after its own program revealed it stands as revealed)
                if self.replaying or seat not in self._mine:  # (replaying: it comes as it was; a
                    continue  # choice made before this program started again is void: the host says so)
                self._given.add(("reveal", seat))
                wire, salt = self._mine[seat]
                self._send("reveal", seat, wire, salt)
                self._revealed[seat] = wire
        if acting <= set(self._revealed):
            moves = [("move", seat, self._revealed[seat], self._merges.pop(seat, None)) for seat in sorted(acting)]
            self._digests, self._revealed, self._merges = {}, {}, {}
            for seat in acting:
                self._mine.pop(seat, None)
            self._given = {g for g in self._given if g[0] != "reveal"}
            self.queue.extendleft(reversed(moves))

    def _check_silent(self, seat: int, action: Action) -> None:
        """The host gave ``seat`` the rules' silent action (it said nothing in time): it must be
        just that, in a real-time game; a choice the seat had sent first is void."""
        state = self.replica.state
        if not self.timed or state is None or action != self.game.silent_action(state, seat):
            raise Stopped(f"the host passed on a move in {self._name(seat)}'s name that is not the silent one "
                          "the rules give a player who says nothing: the game stops here", len(self.players))
        for kept in (self._mine, self._digests, self._early, self._merges, self._revealed):
            kept.pop(seat, None)

    def _merged(self, seat: int, action: Action, heard: Any, bound: int | None) -> tuple[Action, list[Event]]:
        """A real-time round's choice, merged with what the host heard the seat press as it
        went (the game's pure ``merge``), no time below the host's ``bound``; the log says
        which claims were raised."""
        before = self.game.parse_action(heard) if heard is not None else None
        merged, clamps = self.game.merge(self.replica.state, seat, before, action, bound)
        if not clamps:
            return merged, []
        line = (f"{self._name(seat)}'s claimed time was below what the host can believe: counted from "
                f"{bound} ms.")
        return merged, [Event("table", line, seat, {"clamped": seat, "bound_ms": bound,
                                                    "claims": [list(c) for c in clamps]})]

    def has_chosen(self, seat: int) -> bool:
        """Whether ``seat`` has sent its simultaneous choice (as a digest) and waits."""
        return seat in self._mine or seat in self._digests
