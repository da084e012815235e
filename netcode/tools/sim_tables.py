"""Whole tables in virtual time: table sessions on channel endpoints in the simulated network.

Owns: ``SimHostPeer`` (a host node, its local seats and their players, on one
channel endpoint) and ``SimSeatPeer`` (a seat session, its player, on its own
endpoint), both with the sans-IO surface ``netcode.tools.sim.SimNetwork``
drives (``receive_datagram``, ``datagrams_to_send``, ``next_timer``,
``handle_timer``, ``next_event``). Each hands channel events to its session
with the virtual time, sends what the session answers, and lets its players
(anything with ``heard``, ``due`` and ``move``, such as a seat bot) act when
they are due. Nothing sleeps and nothing reads a clock: a seed replays a
whole table exactly.

Must not touch: sockets, real clocks, asyncio, games.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Protocol

from netcode.channel import Delivered, Endpoint, PeerClosed, PeerGone, RttUpdated, SendQueueFull
from netcode.session.messages import Message
from netcode.session.node import HostNode, LocalPeer, Remote
from netcode.session.seat import SeatEvent, SeatOutput, SeatSession

_INF = float("inf")


class Player(Protocol):
    """Whoever plays a seat: told of the seat's events, asked when and what it plays."""

    def heard(self, session: SeatSession, events: list[SeatEvent], now: float) -> None: ...

    def due(self) -> float | None: ...

    def move(self, session: SeatSession) -> Message | None: ...


def _earliest(*times: float | None) -> float | None:
    best = min((t for t in times if t is not None), default=_INF)
    return None if best == _INF else best


class SimHostPeer:
    """A host node on one endpoint; its local seats are played by ``players``."""

    def __init__(self, endpoint: Endpoint, node: HostNode) -> None:
        self.endpoint = endpoint
        self.node = node
        self.players: dict[LocalPeer, Player] = {}
        self.refused = 0

    def sit(self, session: SeatSession, player: Player | None, now: float) -> LocalPeer:
        self._send(self.node.sit_local(session, now))
        peer = self.node.peer_of(session)
        if player is not None:
            self.players[peer] = player
        self._hand_out(now)
        return peer

    def command(self, run: Any, now: float) -> None:
        self._send(self.node.command(run, now))
        self._hand_out(now)

    # -- the sans-IO surface ------------------------------------------------------
    def receive_datagram(self, data: bytes, address: Hashable, now: float) -> None:
        self.endpoint.receive_datagram(data, address, now)
        self._drain(now)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Any]]:
        return self.endpoint.datagrams_to_send(now)

    def next_timer(self) -> float | None:
        return _earliest(self.endpoint.next_timer(), self.node.next_deadline(),
                         *(player.due() for player in self.players.values()))

    def handle_timer(self, now: float) -> None:
        self.endpoint.handle_timer(now)
        self._drain(now)
        deadline = self.node.next_deadline()
        if deadline is not None and deadline <= now:
            self._send(self.node.tick(now))
        for peer, player in self.players.items():
            due = player.due()
            if due is not None and due <= now:
                message = player.move(self.node.local[peer])
                if message is not None:
                    self._send(self.node.from_local(peer, message, now))
        self._hand_out(now)

    def next_event(self) -> None:
        return None  # every event is handled inside, with the time it happened

    # -- plumbing -----------------------------------------------------------------
    def _drain(self, now: float) -> None:
        while (event := self.endpoint.next_event()) is not None:
            if isinstance(event, Delivered):
                self._send(self.node.receive(event.peer, event.payload, now))
            elif isinstance(event, PeerGone):
                self._send(self.node.peer_lost(event.peer, now))
            elif isinstance(event, RttUpdated):
                self._send(self.node.peer_rtt(event.peer, event.rtt, now))
        self._hand_out(now)

    def _send(self, remote: Remote) -> None:
        for peer, message in remote:
            try:
                self.endpoint.send_reliable(peer, message.to_wire())
            except (PeerClosed, SendQueueFull):
                self.node.host.forget_sent(peer)

    def _hand_out(self, now: float) -> None:
        self.node.take_host_events()
        for peer in self.node.local:
            events = self.node.take_seat_events(peer)
            player = self.players.get(peer)
            if player is not None:
                player.heard(self.node.local[peer], events, now)


class SimSeatPeer:
    """A seat session on its own endpoint, joined to the host at ``host_peer``."""

    def __init__(self, endpoint: Endpoint, session: SeatSession, host_peer: int, host_address: Hashable,
                 player: Player | None, now: float) -> None:
        self.endpoint = endpoint
        self.session = session
        self.host_peer = host_peer
        self.player = player
        endpoint.connect(host_peer, host_address, now)
        self._post(session.hello())

    # -- the sans-IO surface ------------------------------------------------------
    def receive_datagram(self, data: bytes, address: Hashable, now: float) -> None:
        self.endpoint.receive_datagram(data, address, now)
        self._drain(now)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Any]]:
        return self.endpoint.datagrams_to_send(now)

    def next_timer(self) -> float | None:
        return _earliest(self.endpoint.next_timer(), self.player.due() if self.player else None)

    def handle_timer(self, now: float) -> None:
        self.endpoint.handle_timer(now)
        self._drain(now)
        player = self.player
        if player is not None:
            due = player.due()
            if due is not None and due <= now:
                message = player.move(self.session)
                if message is not None:
                    self._post(message)

    def next_event(self) -> None:
        return None

    # -- plumbing -----------------------------------------------------------------
    def _drain(self, now: float) -> None:
        while (event := self.endpoint.next_event()) is not None:
            if isinstance(event, Delivered):
                out = self.session.receive(event.payload, now)
            elif isinstance(event, PeerGone):
                out = self.session.host_lost(event.reason)
            else:
                continue
            self._take(out, now)

    def _take(self, out: SeatOutput, now: float) -> None:
        for message in out.sends:
            self._post(message)
        if self.player is not None and out.events:
            self.player.heard(self.session, out.events, now)

    def _post(self, message: Message) -> None:
        try:
            self.endpoint.send_reliable(self.host_peer, message.to_wire())
        except (PeerClosed, SendQueueFull):
            pass
