"""A player's program at a no-peek table, as its seat session drives it: ``SeatProgram``.

Owns ``SeatProgram`` (``netcode.session.seat.MentalProgram``): the player's personal key,
made when the program sits down (its ``Hello`` carries it, in case the table deals
no-peek; ``kept`` and ``from_kept``: kept on this machine, so that a program started again
takes the seat back and is sent the deal so far to take as it was), and, once the host says who holds the joint key (``Keyed``), the ``Machine``
that takes part in the deal for this seat. It tells the seat session what only it
knows: this seat's view with its own cards' faces, this seat's legal moves (none while a move is
being made), and, for a choice made at the same time as others, the digest to send in
its place (the choice itself goes out when every seat's digest is in).

Must not touch: sockets, clocks, asyncio, the UI.
"""

from __future__ import annotations

from typing import Any

from netcode.dealing import keys
from netcode.dealing.group import Point, base
from netcode.session.host.mental import SEALED
from netcode.session.messages import Keyed
from netcode.session.step import Work
from xmas_tui.bots import make_bot
from xmas_tui.games import Rng, get_game

from .machine import Machine

#: a watcher's program's id until a seat is handed to it (past every id a program is given)
WATCHING = 1 << 20


class SeatProgram:
    """A player's program at a no-peek table (see the module's docstring)."""

    def __init__(self, personal: keys.PersonalKey | None = None) -> None:
        self.personal = personal if personal is not None else keys.PersonalKey.generate()
        self.key = self.personal.public.encode()
        self.machine: Machine | None = None
        self._replaying = False
        self._offload = False

    def kept(self) -> bytes:
        """The personal key's secret, to keep on this machine (readable by its user alone)."""
        return self.personal.secret.to_bytes(32, "little")

    @classmethod
    def from_kept(cls, raw: bytes) -> SeatProgram:
        """The program again, with the personal key it sat down with (``kept``)."""
        secret = int.from_bytes(raw, "little")
        return cls(keys.PersonalKey(secret, base(secret)))

    def replay(self) -> None:
        """The deal so far comes next, my own messages among them: take them as they were."""
        self._replaying = True
        if self.machine is not None:
            self.machine.replaying = True

    def caught_up(self) -> list[bytes]:
        self._replaying = False
        return self.machine.caught_up() if self.machine is not None else []

    def in_deal(self) -> bool:
        """Whether this program has taken part in a deal already."""
        return self.machine is not None

    def begin(self, keyed: Keyed, seat: int | None, game: str, options: dict[Any, Any]) -> list[bytes]:
        if self.machine is not None:
            return []  # (sent again to a player back at the table: this program is in already)
        n = len(keyed.names)
        if len(keyed.runs) != n or len(keyed.recipients) != n or len(keyed.holders) != len(keyed.keys):
            raise ValueError("a deal whose seats do not add up")
        holders = [int(s) for s in keyed.holders]
        me = WATCHING if seat is None else seat  # (a watcher's program: an id no program has)
        self.machine = Machine(
            get_game(game), options, [str(name) for name in keyed.names], me, table=keyed.table,
            holders=holders, runs={s: int(keyed.runs[s]) for s in range(n)}, personal=self.personal,
            hold_rooms=True,
        )  # fmt: skip
        self.machine.replaying, self.machine.offload = self._replaying, self._offload
        personal_keys = {s: Point.decode(k) for s, k in zip(holders, keyed.keys, strict=True)}
        if seat in personal_keys and personal_keys[seat] != self.personal.public:
            self.machine.stopped = "The host named another key for this seat: the game stops here."
            return []
        recipients = {s: Point.decode(keyed.recipients[s]) for s in range(n)}
        return self.machine.begin(personal_keys, recipients)

    @property
    def offload(self) -> bool:
        """Whether its machine hands its proofs to the caller to do off the loop
        (``Machine.offload``)."""
        return self._offload

    @offload.setter
    def offload(self, value: bool) -> None:
        self._offload = value
        if self.machine is not None:
            self.machine.offload = value

    def work(self) -> list[Work]:
        return self.machine.work() if self.machine is not None else []

    def worked(self, work: Work, result: Any) -> list[bytes] | None:
        """``work``'s result, if it is my machine's (what it says then), else None."""
        machine = self.machine
        return machine.worked(work, result) if machine is not None and machine.owns(work) else None

    def _machine(self) -> Machine:
        if self.machine is None:
            raise ValueError("a move of a no-peek deal before the deal began")
        return self.machine

    def order(self, seat: int, action: Any, silent: bool = False, heard: Any = None) -> list[bytes]:
        return self._machine().order(seat, action, silent=silent, heard=heard)

    def sealed(self, seat: int, digest: bytes, heard: Any = None, bound: int | None = None) -> list[bytes]:
        return self._machine().sealed(seat, digest, heard, bound)

    def room(self) -> tuple[int, bool]:
        """Rooms begun so far, and whether my shares of the last wait for its instant."""
        machine = self.machine
        return (machine.rooms, machine.holding) if machine is not None else (0, False)

    def release_room(self) -> list[bytes]:
        return self._machine().release_room()

    def take(self, author: int, data: bytes) -> list[bytes]:
        return self._machine().take(author, data)

    def hand(self, seat: int, program: int, key: bytes) -> list[bytes]:
        machine = self._machine()
        try:
            point = Point.decode(key)
        except ValueError:
            machine.stopped, machine.culprit = "The host handed a seat to a key that is no key: the game stops here.", None
            return []
        if point == self.personal.public and machine.seat == WATCHING:  # (a watcher's program: mine plays it)
            machine.seat = program
            machine.bots[seat] = make_bot(machine.game.id, "smart", seat, Rng(f"no-peek/watcher/{seat}/{machine.table}"))
        return machine.hand(seat, program, point)

    def runs(self) -> list[int]:
        """The seats this program plays with its bots (a watcher's, handed seats whose players
        left): none for a player's, whose own seat is its player's to play."""
        machine = self.machine
        if machine is None or machine.seat < len(machine.players):
            return []
        return sorted(machine.seats)

    def moves(self) -> int:
        return self.machine.replica.moves if self.machine is not None else 0

    def choose(self, seat: int) -> Any:
        """What this program's bot for ``seat`` plays now (wire form)."""
        return self._machine().choose(seat).to_wire()

    def view(self, seat: int) -> dict[Any, Any] | None:
        machine = self.machine
        if machine is None or machine.replica.state is None:
            return None
        return machine.game.view(machine.replica.state, seat).to_wire()

    def legal(self, seat: int) -> list[Any]:
        return self.machine.legal(seat) if self.machine is not None else []

    def outgoing(self, seat: int, action: Any) -> Any:
        machine = self.machine
        if machine is None or machine.replica.state is None:
            return action
        if len(machine.game.to_act(machine.replica.state)) > 1:
            return [SEALED, machine.commit(seat, machine.game.parse_action(action))]
        return action

    def busy(self) -> bool:
        return self.machine is not None and self.machine.busy

    def waiting_for(self) -> list[str]:
        return self.machine.waiting_for() if self.machine is not None else []

    def stopped(self) -> str | None:
        return self.machine.stopped if self.machine is not None else None
