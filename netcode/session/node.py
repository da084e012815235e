"""A host session with the seats that sit at its own machine. Sans-IO.

Owns: ``HostNode``, which joins a ``HostSession`` to the ``SeatSession`` of
every player on the host's machine (the host's own player; everyone at a
game against bots; people sharing a keyboard) with an in-memory link, and
hands everything meant for remote peers back to its caller. Messages on the
in-memory link travel in their wire form and are decoded as strictly as from
the network, so a local seat sees exactly what a remote one would.

A local game against bots is a ``HostNode`` with local seats and no remote
peers; a networked host is the same with a channel underneath. Each call
returns the messages for remote peers; the host's events and each local
seat's events wait in ``host_events`` and ``seat_events`` for the caller.

Must not touch: sockets, clocks, asyncio.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

from netcode.channel import Delivered, HandshakeCompleted, PeerGone, RttUpdated
from netcode.session.host import HostEvent, HostSession, Output
from netcode.session.messages import Message
from netcode.session.seat import SeatEvent, SeatSession

Peer = Hashable
Remote = list[tuple[Peer, Message]]


class LocalPeer(str):
    """The name of a seat on the host's own machine (never a channel's peer id)."""


class HostNode:
    """A host session and its local seats, routed in memory."""

    def __init__(self, host: HostSession, heard: Callable[[Peer], float | None] | None = None) -> None:
        """``heard(peer)``: when the channel last heard ``peer`` (the host's lease needs it)."""
        self.host = host
        if heard is not None:
            host.heard = heard
        self.local: dict[LocalPeer, SeatSession] = {}
        self.host_events: list[HostEvent] = []
        self.seat_events: dict[LocalPeer, list[SeatEvent]] = {}

    # ------------------------------------------------------------ local seats
    def sit_local(self, session: SeatSession, now: float) -> Remote:
        """Seat ``session`` at the table from this machine; returns what remote peers must get."""
        peer = LocalPeer(f"local-{len(self.local)}")
        session.clock.same = True  # the host's own clock
        self.local[peer] = session
        self.seat_events[peer] = []
        return self.from_local(peer, session.hello(), now)

    def from_local(self, peer: LocalPeer, message: Message, now: float) -> Remote:
        """A local seat's message to the host."""
        return self._route(self.host.receive(peer, message.to_wire(), now, local=True), now)

    def peer_of(self, session: SeatSession) -> LocalPeer:
        return next(peer for peer, seat in self.local.items() if seat is session)

    # ------------------------------------------------------------ remote peers and time
    def receive(self, peer: Peer, raw: Any, now: float, arrived: float | None = None) -> Remote:
        return self._route(self.host.receive(peer, raw, now, arrived=arrived), now)

    def peer_lost(self, peer: Peer, now: float) -> Remote:
        return self._route(self.host.peer_lost(peer, now), now)

    def peer_rtt(self, peer: Peer, rtt: float, now: float) -> Remote:
        return self._route(self.host.peer_rtt(peer, rtt, now), now)

    def on_channel(self, event: Any, now: float, arrived: float | None = None) -> Remote:
        """A channel event: a peer's message (its datagram arrived at ``arrived``, if the caller
        knows), a peer gone, a new round-trip estimate."""
        if isinstance(event, Delivered):
            return self.receive(event.peer, event.payload, now, arrived)
        if isinstance(event, PeerGone):
            return self.peer_lost(event.peer, now)
        if isinstance(event, RttUpdated):
            return self.peer_rtt(event.peer, event.rtt, now)
        if isinstance(event, HandshakeCompleted):
            return self.peer_address(event.peer, event.address, now)
        return []

    def peer_address(self, peer: Peer, address: Any, now: float) -> Remote:
        return self._route(self.host.peer_address(peer, address, now), now)
    def sent(self, peer: Peer, message: Message, now: float) -> None:
        """A message for a remote peer actually left at ``now`` (see ``HostSession.sent``)."""
        self.host.sent(peer, message, now)

    def tick(self, now: float) -> Remote:
        return self._route(self.host.tick(now), now)

    def next_deadline(self) -> float | None:
        return self.host.next_deadline()

    def command(self, run: Callable[[float], Output], now: float) -> Remote:
        """One of the host's commands (``node.command(node.host.start, now)``)."""
        return self._route(run(now), now)

    # ------------------------------------------------------------ routing
    def _route(self, output: Output, now: float) -> Remote:
        remote: Remote = []
        queue = deque([output])
        while queue:
            out = queue.popleft()
            self.host_events.extend(out.events)
            for peer, message in out.sends:
                seat = self.local.get(peer) if isinstance(peer, LocalPeer) else None
                if seat is None:
                    remote.append((peer, message))
                    continue
                answer = seat.receive(message.to_wire(), now)
                self.seat_events[peer].extend(answer.events)  # type: ignore[index]
                for reply in answer.sends:
                    queue.append(self.host.receive(peer, reply.to_wire(), now, local=True))
        return remote

    def take_host_events(self) -> list[HostEvent]:
        events, self.host_events = self.host_events, []
        return events

    def take_seat_events(self, peer: LocalPeer) -> list[SeatEvent]:
        events = self.seat_events[peer]
        if events:
            self.seat_events[peer] = []
        return events
