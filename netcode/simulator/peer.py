"""A table peer in virtual time: the simulator's runner, the asyncio runner's twin.

Owns: ``SimPeer``, one ``TablePeer`` (whatever its role: a host with its seats, a seat,
a watcher, an elected host) on one channel endpoint, with the sans-IO surface
``netcode.simulator.network.SimNetwork`` drives (``receive_datagram``,
``datagrams_to_send``, ``next_timer``, ``handle_timer``, ``next_event``). It hands channel
events to the peer with the virtual time, does what each step says exactly as
``netcode.runners.PeerRunner`` does it (connections, sends, joins accepted, events to
whoever plays each seat), and lets the players of the seats played here (anything with
``heard``, ``due`` and ``move``, such as a seat bot) act when they are due. The slow work a
step hands out (``Step.work``) is done as the asyncio runner's worker thread does it, one
piece after another, each taking ``work_time`` virtual seconds, while the channel and the
peer go on. Nothing sleeps and nothing reads a clock: a seed replays a whole table exactly.

Must not touch: sockets, real clocks, asyncio, games.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Protocol

from netcode.channel import Endpoint, PeerClosed, SendQueueFull
from netcode.session.messages import Message
from netcode.session.peer import TablePeer
from netcode.session.seat import SeatEvent, SeatSession
from netcode.session.step import Step, Work

_INF = float("inf")


class Player(Protocol):
    """Whoever plays a seat: told of the seat's events, asked when and what it plays."""

    def heard(self, session: SeatSession, events: list[SeatEvent], now: float) -> None: ...

    def due(self) -> float | None: ...

    def move(self, session: SeatSession) -> Message | None: ...


def _earliest(*times: float | None) -> float | None:
    best = min((t for t in times if t is not None), default=_INF)
    return None if best == _INF else best


class SimPeer:
    """A table peer on one endpoint in the simulated network; its seats played by ``players``."""

    def __init__(self, endpoint: Endpoint, peer: TablePeer, now: float, *, work_time: float = 0.0) -> None:
        self.endpoint = endpoint
        self.peer = peer
        peer.offload = True
        #: how long (virtual seconds) each piece of slow work takes, and the pieces under way,
        #: in order, with when each is done
        self.work_time = work_time
        self._working: list[tuple[float, Work]] = []
        #: who plays each seat played here, by its index
        self.players: dict[int, Player] = {}
        #: called with every step's table events (while this machine hosts)
        self.on_table: Callable[[list[Any]], None] | None = None
        if peer.hosting:
            endpoint.accept_unknown = True
        self.apply(peer.begin(now), now)

    @property
    def session(self) -> SeatSession:
        return self.peer.session

    def sit(self, session: SeatSession, player: Player | None, now: float) -> int:
        """Seat ``session`` at the table this machine hosts, played by ``player``; its index."""
        index = len(self.peer.seats)
        if player is not None:
            self.players[index] = player
        self.apply(self.peer.sit(session, now), now)
        return index

    def play(self, index: int, player: Player) -> None:
        """``player`` plays the seat played here at ``index`` from now on."""
        self.players[index] = player

    def command(self, run: Any, now: float) -> None:
        self.apply(self.peer.command(run, now), now)

    def hand_over(self, now: float) -> None:
        """The player at this machine leaves the table it hosts, handing it over."""
        self.apply(self.peer.hand_over(now), now)

    # ------------------------------------------------------------ the sans-IO surface
    def receive_datagram(self, data: bytes, address: Hashable, now: float) -> None:
        self.endpoint.receive_datagram(data, address, now)
        self._drain(now)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Any]]:
        return self.endpoint.datagrams_to_send(now)

    def next_event(self) -> None:
        return None  # every event is handled inside, with the time it happened

    def next_timer(self) -> float | None:
        return _earliest(self.endpoint.next_timer(), self.peer.next_deadline(),
                         self._working[0][0] if self._working else None,
                         *(player.due() for player in self.players.values()))

    def handle_timer(self, now: float) -> None:
        self.endpoint.handle_timer(now)
        self._drain(now)
        while self._working and self._working[0][0] <= now:
            _, work = self._working.pop(0)
            self.apply(self.peer.worked(work, work(), now), now)
        deadline = self.peer.next_deadline()
        if deadline is not None and deadline <= now:
            self.apply(self.peer.tick(now), now)
        for index, player in list(self.players.items()):
            due = player.due()
            if due is not None and due <= now and index < len(self.peer.seats):
                message = player.move(self.peer.seats[index])
                if message is not None:
                    self.apply(self.peer.post(message, now, index), now)

    def _drain(self, now: float) -> None:
        while (event := self.endpoint.next_event()) is not None:
            self.apply(self.peer.on_channel(event, now), now)

    # ------------------------------------------------------------ doing what a step says
    def apply(self, step: Step, now: float) -> None:
        for work in step.work:  # (one after another, as on one worker thread)
            start = self._working[-1][0] if self._working else now
            self._working.append((start + self.work_time, work))
        endpoint = self.endpoint
        if step.accept:
            endpoint.accept_unknown = True
        if step.hosting is False:
            endpoint.accept_unknown = False
        for joiner, address in step.connects:
            if joiner not in endpoint.peers:
                endpoint.connect(joiner, address, now)
        for peer_id, message in step.sends:
            try:
                # (the host's sends name the channel's peer ids: every seat of its own is local)
                endpoint.send_reliable(peer_id, message.to_wire())  # type: ignore[arg-type]
            except (PeerClosed, SendQueueFull):
                self.peer.forget_sent(peer_id)
        if step.table and self.on_table is not None:
            self.on_table(step.table)
        for index in {index for index, _ in step.seats}:
            player = self.players.get(index)
            if player is not None and index < len(self.peer.seats):
                player.heard(self.peer.seats[index], step.seat_events(index), now)
