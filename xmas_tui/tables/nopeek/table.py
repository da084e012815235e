"""A whole no-peek table in one process: one ``Machine`` per player, and a host that
orders the moves and relays every message, in order, as bytes. For tests and the
simulator: the machines are the ones a networked table runs; only the wires are missing.

Owns ``NoPeekTable``: the machines, the relay (a first-in, first-out queue of every
message, handed to every machine but its author, stamped with the author's seat; a test
may ``tamper`` with one), the host's ordering of moves (simultaneous choices first as
digests), the bots (each on its own player's machine, seeing its own seat's view), and
``Figures``. A machine that stops raises ``TableStopped`` with its line.

Must not touch: sockets, clocks, asyncio, the UI.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from netcode.dealing.group import Rand
from xmas_tui.bots import make_bot
from xmas_tui.games import Action, Event, Game, Rng

from .machine import Machine


class TableStopped(Exception):
    """The table stopped: ``culprit`` names whose message was wrong (the screens' line)."""

    def __init__(self, line: str, culprit: int | None) -> None:
        super().__init__(line)
        self.culprit = culprit


@dataclass
class Figures:
    """What a table did: moves, shuffles, openings, draws, choices, answers, bytes."""

    moves: int = 0
    shuffles: int = 0
    openings_public: int = 0
    openings_private: int = 0
    draws: int = 0
    commits: int = 0
    claims: int = 0
    messages: int = 0
    bytes: int = 0
    audited: bool = False
    by_kind: dict[str, int] = field(default_factory=dict)


#: a test's hook on the relay: (kind, author machine, bytes) -> the bytes relayed
Tamper = Callable[[str, Machine, bytes], bytes]



class NoPeekTable:
    """A whole no-peek table in one process (see the module's docstring)."""

    def __init__(
        self,
        game: Game,
        players: Sequence[str],
        *,
        options: Mapping[str, Any] | None = None,
        bot: str = "random",
        seed: str = "no-peek",
        host: int = 0,
        table_id: str | None = None,
        tamper: Tamper | None = None,
        scripted: bool = False,
        runner: bool = False,
    ) -> None:
        """``scripted``: every machine's secrets come from ``seed`` (a test that must replay
        one game); otherwise from the system, as at a real table. ``runner``: the host's own
        program sits in too (no seat, no key share: it checks everything and plays the bots
        of seats handed to it, ``drop``)."""
        self.game = game
        self.players = tuple(players)
        self.options = dict(options if options is not None else game.options_from(len(players)))
        self.host = host
        self.table_id = table_id or (f"scripted/{seed}" if scripted else hashlib.sha256(repr(id(self)).encode()).hexdigest()[:16])
        self.tamper = tamper
        self.figures = Figures()
        n = len(self.players)
        seats = list(range(n))
        self.machines = [
            Machine(
                game, self.options, self.players, seat, table=self.table_id, holders=seats,
                bots={seat: make_bot(game.id, bot, seat, Rng(f"{seed}/bot/{seat}"))},
                rand=_scripted(f"{seed}/{seat}") if scripted else None,
            )
            for seat in seats
        ]  # fmt: skip
        self.bot = bot
        self.seed = seed
        #: the host's own program, if it sits in (``runner``), and the seats whose players left
        self.runner = Machine(game, self.options, self.players, n, table=self.table_id, holders=seats) if runner else None
        self.left: set[int] = set()
        self._wire: deque[tuple[int, bytes]] = deque()
        keys = {m.seat: m.personal.public for m in self.machines}
        for machine in self.present:
            self._post(machine, machine.begin(keys, keys))
        self._pump()

    @property
    def present(self) -> list[Machine]:
        """The programs still at the table: the players' who have not left, and the host's own."""
        here = [m for m in self.machines if m.seat not in self.left]
        return here + ([self.runner] if self.runner is not None else [])

    @property
    def _reference(self) -> Machine:
        """The program whose copy of the game the table reports (the host seat's, while it is here)."""
        if self.host in self.left and self.runner is not None:
            return self.runner
        return self.machines[self.host]

    def playing(self, seat: int) -> Machine:
        """The program that plays ``seat`` now (its player's, or the host's own once handed)."""
        return next(m for m in self.present if seat in m.seats)

    def drop(self, seat: int) -> None:
        """``seat``'s player leaves (its program says no more; what it sent before is relayed) and
        the host hands the seat to its own program (``runner``), whose bot plays it from now on."""
        runner = self.runner
        assert runner is not None, "a table without the host's own program cannot hand a seat on"
        self.left.add(seat)
        runner.bots[seat] = make_bot(self.game.id, self.bot, seat, Rng(f"{self.seed}/bot/{seat}/handed"))
        for machine in self.present:
            self._post(machine, machine.hand(seat, runner.seat, runner.personal.public))
        self._pump()
        self._check()

    # the machines under the name the tests of a program use
    @property
    def programs(self) -> list[Machine]:
        return self.machines

    # ------------------------------------------------------------------ the relay
    def _post(self, author: Machine, messages: list[bytes]) -> None:
        for data in messages:
            self._wire.append((author.seat, data))

    def _pump(self) -> None:
        """Relay every message until none is left; a stopped machine stops the table."""
        while self._wire:
            seat, data = self._wire.popleft()
            author = self.runner if self.runner is not None and seat == self.runner.seat else self.machines[seat]
            kind = _kind(data)
            if self.tamper is not None:
                data = self.tamper(kind, author, data)
            self._count(kind, data)
            for machine in self.present:
                if machine is not author:
                    self._post(machine, machine.take(seat, data))
            self._check()

    def _count(self, kind: str, data: bytes) -> None:
        figures = self.figures
        figures.messages += 1
        figures.bytes += len(data) * (len(self.machines) - 1)
        figures.by_kind[kind] = figures.by_kind.get(kind, 0) + 1

    def _check(self) -> None:
        for machine in self.present:
            if machine.stopped is not None:
                raise TableStopped(machine.stopped, machine.culprit)

    # ------------------------------------------------------------------ the host
    def order(self, seat: int, action: Action) -> list[Event]:
        """The host orders ``seat``'s move: every machine makes it; its events."""
        host = self._reference
        before = len(host.events)
        for machine in self.present:
            self._post(machine, machine.order(seat, action.to_wire()))
        self._pump()
        self._check()
        self.figures.moves += 1
        return host.events[before:]

    def commit_and_reveal(self, moves: Mapping[int, Action]) -> None:
        """Simultaneous choices: each seat's digest is ordered before any choice is shown;
        then each is revealed, checked against its digest, and made in seat order."""
        for seat, action in sorted(moves.items()):
            digest = self.playing(seat).commit(seat, action)
            for machine in self.present:
                self._post(machine, machine.sealed(seat, digest))
        self.figures.commits += len(moves)
        self.figures.moves += len(moves)
        self._pump()
        self._check()

    def result(self) -> Any:
        return self.game.result(self._reference.replica.state)

    def play(self, max_moves: int | None = None, *, after: Callable[[NoPeekTable], None] | None = None) -> Any:
        """Play the game out with every seat's bot on its own machine; the result."""
        limit = max_moves if max_moves is not None else self.game.max_actions
        for _ in range(limit):
            state = self._reference.replica.state  # (the host seat's, or the host's own once it left)
            if self.game.result(state) is not None:
                break
            acting = sorted(self.game.to_act(state))
            if not acting:
                break
            # (a seat handed on mid-choice chooses again; the others' digests stand)
            moves = {seat: self.playing(seat).choose(seat) for seat in acting if not self.playing(seat).has_chosen(seat)}
            if len(acting) > 1:
                self.commit_and_reveal(moves)
            else:
                self.order(acting[0], moves[acting[0]])
            if after is not None:
                after(self)
        self._figures()
        return self.result()

    def _figures(self) -> None:
        host = self._reference
        ledger = host.ledger
        figures = self.figures
        figures.audited = all(m.audited for m in self.present)
        figures.openings_public = len(host.replica.book.public)
        figures.openings_private = sum(len(m.replica.book.private) for m in self.machines)
        figures.draws = len(host.replica.draws)
        figures.shuffles = len(ledger.jobs) if ledger is not None else 0
        figures.claims = figures.by_kind.get("claim", 0)


def _kind(data: bytes) -> str:
    try:
        parts = msgpack.unpackb(data, raw=False)
        return str(parts[0])
    except Exception:  # noqa: BLE001 - a tampered or broken message: the machines say why
        return "?"


def _scripted(seed: str) -> Rand:
    """Scalars from a seed, for a table a test replays (never at a real one)."""
    counter = itertools.count()
    return lambda: int.from_bytes(hashlib.sha512(f"{seed}/{next(counter)}".encode()).digest(), "little")
