"""What one call into a table session produced: the one output shape of the session layer.

Owns: ``Step``, returned by every call into a host session, a seat session and a table
peer alike: the messages to send (each to a peer), the connections to open, the events
of the table (this machine hosts it) and of each seat played at this machine, and what
changed of this machine's role (it accepts joins now; it began or stopped hosting).
Whoever runs a session (the asyncio runner, the simulator) does exactly what a step
says, nothing more, in the order: connections, sends, role, events.

A seat's messages go to its host, whoever that is now: a seat session names it ``HOST``
and its table peer puts the host's peer in its place.

A step may also hand out ``Work``: a slow computation of a no-peek deal's (a shuffle's
proof made or checked, 0.05-0.2 s of CPU each) that reads and changes nothing of the
session's. The asyncio runner does it on a worker thread, so that its loop goes on
answering the channel meanwhile (a program whose loop stops for 0.8 s looks gone to its
peers: on a shared, loaded machine one proof took that long); the simulator does it at
once. Either hands the result back (``TablePeer.worked``), and the program that asked goes
on from there, having held back whatever came in meanwhile.

Must not touch: sockets, clocks, asyncio, games.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

Peer = Hashable


class _Host:
    """The peer a seat's messages are for: its host, whoever that is (see ``HOST``)."""

    def __repr__(self) -> str:
        return "HOST"


#: the addressee of a seat session's messages: its host
HOST: Peer = _Host()


@dataclass(eq=False)
class Work:
    """A slow computation a session hands out (see the module's docstring): ``run`` reads
    nothing its session may change meanwhile; its result (or the exception it raised) goes
    back to ``owner``, the program that asked, which alone knows what to do with it."""

    run: Callable[[], Any]
    owner: object

    def __call__(self) -> Any:
        """``run``'s result, or the exception it raised (handed back as it is)."""
        try:
            return self.run()
        except Exception as failed:  # noqa: BLE001  (the owner names it: a broken proof, say)
            return failed


@dataclass
class Step:
    """What one call produced. Everything is in the order it happened."""

    #: messages to send: ``(peer, message)``
    sends: list[tuple[Peer, Any]] = field(default_factory=list)
    #: connections to open (as their joiner): ``(peer id, address)``
    connects: list[tuple[int, Any]] = field(default_factory=list)
    #: what happened at the table this machine hosts (``netcode.session.host.events``)
    table: list[Any] = field(default_factory=list)
    #: what happened to a seat played at this machine: ``(its index here, event)``, the
    #: index 0 being the person at this terminal (``netcode.session.seat``'s events)
    seats: list[tuple[int, Any]] = field(default_factory=list)
    #: accept joins from strangers from now on (this machine hosts, or may soon)
    accept: bool = False
    #: this machine began (True) or stopped (False) hosting the table with this step
    hosting: bool | None = None
    #: slow computations to do, each result handed back with ``TablePeer.worked``
    work: list[Work] = field(default_factory=list)

    def send(self, peer: Peer, message: Any) -> None:
        self.sends.append((peer, message))

    def seat_events(self, index: int = 0) -> list[Any]:
        """The events of the seat played here at ``index``, in order."""
        return [event for i, event in self.seats if i == index]

    def extend(self, other: Step) -> Step:
        """Add what ``other`` produced after what this one did; returns this step."""
        self.sends += other.sends
        self.connects += other.connects
        self.table += other.table
        self.seats += other.seats
        self.accept = self.accept or other.accept
        self.work += other.work
        if other.hosting is not None:
            self.hosting = other.hosting
        return self

    def __bool__(self) -> bool:
        return bool(self.sends or self.connects or self.table or self.seats or self.accept
                    or self.hosting is not None or self.work)
