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

from netcode.channel import Endpoint, PeerClosed, SendQueueFull
from netcode.session.messages import Message
from netcode.session.node import HostNode, LocalPeer, Remote
from netcode.session.peer import PeerOutput, TablePeer
from netcode.session.seat import SeatEvent, SeatSession

_INF = float("inf")


class Player(Protocol):
    """Whoever plays a seat: told of the seat's events, asked when and what it plays."""

    def heard(self, session: SeatSession, events: list[SeatEvent], now: float) -> None: ...

    def due(self) -> float | None: ...

    def move(self, session: SeatSession) -> Message | None: ...


def _earliest(*times: float | None) -> float | None:
    best = min((t for t in times if t is not None), default=_INF)
    return None if best == _INF else best


class _OnEndpoint:
    """What both kinds of peer share: one channel endpoint, its events handled inside with
    the time they happened, and players acting when they are due."""

    endpoint: Endpoint

    def receive_datagram(self, data: bytes, address: Hashable, now: float) -> None:
        self.endpoint.receive_datagram(data, address, now)
        self._drain(now)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Any]]:
        return self.endpoint.datagrams_to_send(now)

    def next_event(self) -> None:
        return None  # every event is handled inside, with the time it happened

    def handle_timer(self, now: float) -> None:
        self.endpoint.handle_timer(now)
        self._drain(now)
        self._due(now)

    def _drain(self, now: float) -> None:
        while (event := self.endpoint.next_event()) is not None:
            self._event(event, now)
        self._hand_out(now)

    def _play(self, player: Player, session: SeatSession, now: float) -> Message | None:
        due = player.due()
        return player.move(session) if due is not None and due <= now else None

    def _event(self, event: Any, now: float) -> None: ...

    def _due(self, now: float) -> None: ...

    def _hand_out(self, now: float) -> None: ...


class SimHostPeer(_OnEndpoint):
    """A host node on one endpoint; its local seats are played by ``players``."""

    def __init__(self, endpoint: Endpoint, node: HostNode) -> None:
        self.endpoint = endpoint
        self.node = node
        self.players: dict[LocalPeer, Player] = {}

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

    def next_timer(self) -> float | None:
        return _earliest(self.endpoint.next_timer(), self.node.next_deadline(),
                         *(player.due() for player in self.players.values()))

    def _due(self, now: float) -> None:
        deadline = self.node.next_deadline()
        if deadline is not None and deadline <= now:
            self._send(self.node.tick(now))
        for peer, player in self.players.items():
            message = self._play(player, self.node.local[peer], now)
            if message is not None:
                self._send(self.node.from_local(peer, message, now))
        self._hand_out(now)

    def _event(self, event: Any, now: float) -> None:
        self._send(self.node.on_channel(event, now))

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


class SimSeatPeer(_OnEndpoint):
    """A player's machine on its own endpoint: its seat's ``TablePeer``, which follows the host
    at ``host_peer``, elects a new one when that host goes silent, and may become it."""

    def __init__(self, endpoint: Endpoint, peer: TablePeer, host_address: Hashable, player: Player | None,
                 now: float) -> None:
        self.endpoint = endpoint
        self.peer = peer
        self.player = player
        assert peer.host_peer is not None
        endpoint.connect(peer.host_peer, host_address, now)
        self._apply(peer.post(peer.session.hello(), now), now)

    @property
    def session(self) -> SeatSession:
        return self.peer.session

    def next_timer(self) -> float | None:
        return _earliest(self.endpoint.next_timer(), self.peer.next_deadline(),
                         self.player.due() if self.player else None)

    def _due(self, now: float) -> None:
        deadline = self.peer.next_deadline()
        if deadline is not None and deadline <= now:
            self._apply(self.peer.tick(now), now)
        if self.player is not None:
            message = self._play(self.player, self.session, now)
            if message is not None:
                self._apply(self.peer.post(message, now), now)

    def _event(self, event: Any, now: float) -> None:
        self._apply(self.peer.on_channel(event, now), now)

    def _apply(self, out: PeerOutput, now: float) -> None:
        if out.accept:
            self.endpoint.accept_unknown = True
        if out.demoted:
            self.endpoint.accept_unknown = False
        for peer_id, address in out.connects:
            if peer_id not in self.endpoint.peers:
                self.endpoint.connect(peer_id, address, now)
        for peer_id, message in out.sends:
            try:
                self.endpoint.send_reliable(peer_id, message.to_wire())
            except (PeerClosed, SendQueueFull):
                if self.peer.node is not None:
                    self.peer.node.host.forget_sent(peer_id)
        if self.player is not None and out.seat_events:
            self.player.heard(self.session, out.seat_events, now)
