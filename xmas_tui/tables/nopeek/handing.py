"""A seat handed on at a no-peek table: its program gone, another plays it. Sans-IO.

Owns ``Handing``, the mixin of ``Machine`` (``machine.py``) for the host's order that a
seat's program is gone for good and another plays it from here (``hand``: a bot on the
host's program or a watcher's), at the same place among the messages on every machine:
the gone program's messages after it are not waited for and not taken, the shuffles pass
its key share over, a choice it had not revealed is void, and every card the rules show
that seat opens again, to the new program's key. The same program back (started again
with its keys kept) only voids its unrevealed choice. A seat handed away from this very
program while it is here, or on with fewer than t key holders left, stops the game.

Must not touch: sockets, clocks, asyncio, the UI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from netcode.dealing.group import Point

from .replica import Opening
from .wire import Stopped

if TYPE_CHECKING:
    from netcode.dealing.ledger import DealLedger
    from xmas_tui.bots import Bot

    from .replica import Replica


class Handing:
    """A ``Machine``'s seats handed on (see the module's docstring)."""

    if TYPE_CHECKING:  # (the machine's own, read here)
        players: tuple[str, ...]
        seat: int
        seats: frozenset[int]
        holders: tuple[int, ...]
        runs: dict[int, int]
        bots: dict[int, Bot]
        replica: Replica
        ledger: DealLedger | None
        pending: list[Opening]
        gone: set[int]
        handed: list[tuple[int, int]]
        _given: set[tuple[Any, ...]]
        _recipients: dict[int, Point]
        _former: dict[int, list[Point]]
        _fresh: bool

        @property
        def name(self) -> str: ...
        def _name(self, seat: int | None) -> str: ...
        def _guard(self, run: Callable[[], None], author: int | None = None) -> list[bytes]: ...
        def _open(self, opening: Opening) -> None: ...
        def _void(self, seat: int) -> None: ...

    def hand(self, seat: int, program: int, key: Point) -> list[bytes]:
        """The host hands ``seat`` (the program that ran it gone) to ``program`` (its own: one
        past the last seat; or a watcher's, a later id), whose personal key is ``key``: that
        program plays it from now on, and the cards the rules show that seat open to it
        (``handed``)."""
        return self._guard(lambda: self._hand(seat, program, key))

    def _hand(self, seat: int, program: int, key: Point) -> None:
        """Where the host's order stands among the messages (the same place on every program):
        the seat's program is gone, its messages after this are not waited for and not taken,
        the shuffles pass its key share over, its choice not yet revealed is void (its new
        program chooses again), and every card the rules show that seat opens again, to the
        new program's key."""
        n = len(self.players)
        old = self.runs.get(seat)
        if not 0 <= seat < n or old is None:
            return
        if old == program:  # (its own program again, started anew: a choice it never revealed is void)
            self._void(seat)
            return
        if seat == self.seat:
            raise Stopped(f"the host handed {self.name}'s seat to another program while it was here: "
                          "the game stops here", n)
        self.runs[seat] = program
        if old == self.seat:  # (a seat my program ran goes elsewhere)
            self.seats = self.seats - {seat}
            self.replica.book.owners = self.seats
            self.bots.pop(seat, None)
        if old not in self.runs.values() and old != n:  # (the host's own program stays: it orders)
            self.gone.add(old)
            if old in self.holders and self.ledger is not None:
                self.ledger.leave(self.holders.index(old) + 1)
        ledger = self.ledger
        if ledger is not None and self.holders_left() < ledger.joint.t:
            raise Stopped(f"the host handed {self._name(seat)}'s seat on with fewer than {ledger.joint.t} "
                          "programs left to open a card: the game stops here", n)
        self._former.setdefault(seat, []).append(self._recipients[seat])
        self._recipients[seat] = key
        if program == self.seat:
            self.seats = self.seats | {seat}
            self.replica.book.owners = self.seats
        # every card shown to the seat opens again, to its new program
        self.replica.forget_shown(seat)
        self._given = {g for g in self._given if not (g[0] == "open" and g[1].to == seat)}
        self.pending = [o for o in self.pending if o.to != seat]
        if self.replica.state is not None:
            for opening in self.replica.openings():
                self._open(opening)
        self._void(seat)
        self.handed.append((seat, program))
        self._fresh = True

    def recipient(self, seat: int) -> Point:
        """The key the cards the rules show ``seat`` open to (its program's)."""
        return self._recipients[seat]

    def holders_left(self, leaving: int | None = None) -> int:
        """The programs holding a key share still at the table (``leaving``: were that one to go
        too); fewer than t, and no card can open any more."""
        return sum(1 for h in self.holders if h not in self.gone and h != leaving)
