"""The asyncio shell of table sessions: real time, real sockets, nothing else.

Owns: ``HostRunner`` (a ``HostNode`` in real time: its timer, the channel
endpoint of a networked table, its LAN announcements and the answers to
hand-typed probes), ``SeatRunner`` (a ``SeatSession`` joined to a host over
the channel), and ``Listeners`` (the one way news reaches whoever shows a
table: callbacks run after each step, one that fails is reported and the
others still run).

Each runner only moves things: channel events and timer ticks go into the
session with the time (the event loop's monotonic clock, and for a message,
when its datagram reached this machine, where the kernel tells it: see
``ArrivalClock``); the messages that come out go onto the channel; the events
go to the listeners. Every decision is the session's.

Must not touch: games, the UI, table logic (``netcode.session`` has it).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from netcode.aio import AioEndpoint
from netcode.arrival import ArrivalClock
from netcode.channel import (
    Delivered,
    Endpoint,
    HandshakeFailed,
    JoinAttemptFailed,
    PeerClosed,
    SendQueueFull,
)
from netcode.discovery import Announcer, ProbeAnswerer, TableInfo, is_probe
from netcode.fairplay import Signer
from netcode.session.host import SteppedDown
from netcode.session.messages import Message, Opens, Ping, Shout, Snap
from netcode.session.node import HostNode, LocalPeer, Remote
from netcode.session.peer import HostFactory, PeerOutput, TablePeer
from netcode.session.seat import (
    Ended,
    HostChanged,
    HostLost,
    Seated,
    SeatEvent,
    SeatSession,
    TurnedAway,
)


class Listeners:
    """Callbacks run after each change; one that fails is reported and the others still run.

    They run straight from a datagram's arrival or a timer, so a failing one must
    not keep the news from the rest (a screen that is closing, say, from the table
    that replaces it)."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., None]] = []

    def add(self, callback: Callable[..., None]) -> None:
        self._callbacks.append(callback)

    def remove(self, callback: Callable[..., None]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def __bool__(self) -> bool:
        return bool(self._callbacks)

    def __call__(self, *args: Any) -> None:
        for callback in list(self._callbacks):
            try:
                callback(*args)
            except Exception as exc:
                try:
                    loop = asyncio.get_running_loop()
                except RuntimeError:  # no event loop (a table driven by hand): nobody else to tell
                    raise exc from None
                loop.call_exception_handler({"message": f"a table listener failed: {callback!r}", "exception": exc})


#: The clock every session here is fed: monotonic seconds, the same as the channel's.
_now = time.monotonic

#: the messages that leave the moment they are made (a room, a shout, a ping: their time matters)
TIMELY = (Snap, Opens, Shout, Ping)


def answer_probe(probes: ProbeAnswerer, aio: AioEndpoint | None, info: Callable[[], TableInfo] | None,
                 data: bytes, address: Any) -> bool:
    """Answer a hand-typed join's probe with the table's announcement; True if it was one."""
    if not is_probe(data) or aio is None or info is None:
        return False
    answer = probes.answer(data, address, _now(), info().encode())
    if answer is not None:
        aio.send_raw(answer, address)
    return True


def send(aio: AioEndpoint, peer: int, message: Message, node: HostNode | None, *, at_once: bool = True) -> None:
    """Send one session message to ``peer``. A timely one (a room, a shout, a ping: the peer
    starts on it while we make the next) always leaves at once, and the host ``node``, if
    this machine hosts, is told when it really left; others leave at once too unless
    ``at_once`` is False (then with the next flush). One the channel refuses is counted, and
    the host sends that peer everything afresh next time."""
    try:
        if at_once or isinstance(message, TIMELY):
            aio.send_reliable_now(peer, message.to_wire())
            if node is not None and isinstance(message, TIMELY):
                node.sent(peer, message, _now())
        else:
            aio.send_reliable_nowait(peer, message.to_wire())
    except (PeerClosed, SendQueueFull):
        aio.endpoint.note_drop("send_refused")
        if node is not None:
            node.host.forget_sent(peer)


async def flush(endpoint: Endpoint, timeout: float) -> None:
    """Wait (at most ``timeout``) until every connected peer has all it was sent."""
    deadline = _now() + timeout
    while _now() < deadline and any(c.unacked for c in endpoint.peers.values() if not c.gone):
        await asyncio.sleep(0.02)


class HostRunner:
    """A host node in real time, with a channel endpoint when the table is networked."""

    def __init__(self, node: HostNode, *, endpoint: Endpoint | None = None,
                 bind: tuple[str, int] = ("0.0.0.0", 0), info: Callable[[], TableInfo] | None = None,
                 discovery: tuple[str, int] | None = None) -> None:
        """``info`` makes the table's announcement (announced to ``discovery``, and the
        answer to a probe); without it the table is not announced."""
        self.node = node
        self.endpoint = endpoint
        self.bind = bind
        self.info = info
        self.discovery = discovery
        self.aio: AioEndpoint | None = None
        self.announcer: Announcer | None = None
        self.probes = ProbeAnswerer()
        #: called with the host's events after each step
        self.host_listeners = Listeners()
        #: called with a local seat's events after each step, per local seat
        self.seat_listeners: dict[LocalPeer, Listeners] = {}
        #: called with each ``JoinAttemptFailed``: someone tried to join without the code
        self.join_failures = Listeners()
        self.closed = False
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self._arrival = ArrivalClock(None)

    @property
    def host(self):  # noqa: ANN201 - the HostSession
        return self.node.host

    @property
    def address(self) -> tuple[str, int]:
        assert self.aio is not None, "the table is not networked"
        return self.aio.address

    async def open(self) -> None:
        """Open the socket (a networked table) and start announcing. Returns at once."""
        if self.endpoint is not None:
            self.node.host.heard = self.endpoint.last_heard  # the host's lease
            self.aio = await AioEndpoint.bind(self.endpoint, self.bind, on_foreign=self._foreign,
                                              on_event=self._on_channel)
            self._arrival = ArrivalClock.of(self.aio)
            if self.info is not None and self.discovery is not None:
                self.announcer = Announcer(self.info(), self.discovery)
                await self.announcer.start()
        self._rearm()

    # ------------------------------------------------------------ inputs
    def sit_local(self, session: SeatSession) -> LocalPeer:
        remote = self.node.sit_local(session, _now())
        peer = self.node.peer_of(session)
        self.seat_listeners.setdefault(peer, Listeners())
        self._deliver(remote)
        return peer

    def from_local(self, peer: LocalPeer, message: Message) -> None:
        """A local seat's message (its action, say), handled at once."""
        self._deliver(self.node.from_local(peer, message, _now()))

    def command(self, run: Callable[[float], Any]) -> None:
        """One of the host's commands, e.g. ``runner.command(runner.host.start)``."""
        self._deliver(self.node.command(run, _now()))

    def play_bot(self) -> bool:
        """Let one bot that may act play now, whatever the pace; False if none may."""
        now = _now()
        moved = self.node.host.play_bot(now)
        self._deliver(self.node.command(self.node.host.settle, now))
        return moved

    def _on_channel(self, event: Any) -> None:
        if isinstance(event, JoinAttemptFailed):  # (no session's business: the channel refused it)
            self.join_failures(event)
            return
        arrived = self._arrival() if isinstance(event, Delivered) else None
        self._deliver(self.node.on_channel(event, _now(), arrived))

    def _on_timer(self) -> None:
        self._timer = self._timer_at = None
        if not self.closed:
            self._deliver(self.node.tick(_now()))

    def _foreign(self, data: bytes, address: Any) -> bool:
        """Answer a hand-typed join's probe with the announcement; True if it was one."""
        return answer_probe(self.probes, self.aio, self.info, data, address)

    # ------------------------------------------------------------ outputs
    def _deliver(self, remote: Remote) -> None:
        aio = self.aio
        for peer, message in remote:
            if aio is None or self.closed:
                continue
            send(aio, peer, message, self.node, at_once=False)
        self._rearm()
        events = self.node.take_host_events()
        if events:
            if any(isinstance(event, SteppedDown) for event in events):
                self._stepped_down()
            elif self.announcer is not None and self.info is not None:
                self.announcer.update(self.info())
            self.host_listeners(events)
        for peer, listeners in self.seat_listeners.items():
            seat_events = self.node.take_seat_events(peer)
            if seat_events:
                listeners(seat_events)

    def _rearm(self) -> None:
        if self.closed:
            return
        when = self.node.next_deadline()
        if when == self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = self._timer_at = None
        if when is not None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # driven by hand, with no event loop yet: `open` arms the timer
            self._timer_at = when
            self._timer = loop.call_later(max(0.0, when - _now()), self._on_timer)

    # ------------------------------------------------------------ the end
    def _stepped_down(self) -> None:
        """This machine no longer hosts: stop announcing the table, let every peer have the
        handover, then close."""
        if self.announcer is not None:
            self.announcer.close()
            self.announcer = None
        with contextlib.suppress(RuntimeError):  # driven by hand, with no event loop: the caller closes
            asyncio.get_running_loop().create_task(self._close_after_flush())

    async def _close_after_flush(self) -> None:
        await self.flush()
        await self.close()

    async def flush(self, timeout: float = 3.0) -> None:
        """Wait (at most ``timeout``) until every connected peer has all it was sent."""
        if self.endpoint is not None:
            await flush(self.endpoint, timeout)

    async def close(self) -> None:
        """Stop the timer and the announcements; say goodbye to every peer."""
        if self.closed:
            return
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.announcer is not None:
            self.announcer.close()
        if self.aio is not None:
            await self.aio.close()


class LocalSeat:
    """A seat session at a host in this process: its messages go to the host in memory."""

    def __init__(self, runner: HostRunner, session: SeatSession) -> None:
        self.runner = runner
        self.session = session
        self.peer = runner.sit_local(session)
        #: called with the seat's events after each step
        self.listeners = runner.seat_listeners[self.peer]

    def post(self, message: Message) -> None:
        self.runner.from_local(self.peer, message)


class JoinError(Exception):
    """Joining failed: the message says why, in words for a player."""


class SeatRunner:
    """A player's machine at a table hosted elsewhere: its seat's ``TablePeer`` over the channel,
    in real time. It follows the host; when the host goes silent it takes part in electing a
    new one (``host_for`` makes the rules a new host needs; without it, the game ends with
    its host), and it may become that host: then it accepts joins, answers probes and, with
    ``info`` and ``discovery``, announces the table on the LAN."""

    def __init__(self, session: SeatSession, address: tuple[str, int], host_peer: int, endpoint: Endpoint,
                 *, bind_host: str | None = None, host_for: HostFactory | None = None,
                 info: Callable[[], TableInfo] | None = None, discovery: tuple[str, int] | None = None) -> None:
        self.session = session
        self.address = address
        self.endpoint = endpoint
        self.peer = TablePeer(session, host_peer, endpoint.local_id, host_for=host_for,
                              signer=Signer() if host_for is not None else None, heard=endpoint.last_heard)
        #: the local address to play from (default: every address of the host's family)
        self.bind_host = bind_host or ("::" if ":" in address[0] else "0.0.0.0")
        self.info = info
        self.discovery = discovery
        self.aio: AioEndpoint | None = None
        self.announcer: Announcer | None = None
        self.probes = ProbeAnswerer()
        #: called with the seat's events after each step
        self.listeners = Listeners()
        #: called with the table's events once this machine hosts it
        self.host_listeners = Listeners()
        #: (what, when) of every change of host this machine saw, on the monotonic clock:
        #: "lost" (the host went silent), "new host", and, if this machine took over, its
        #: "first action" as host
        self.timeline: list[tuple[str, float]] = []
        self._answer: asyncio.Future[SeatEvent] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._first_action_noted = False
        self._arrival = ArrivalClock(None)

    @property
    def host_peer(self) -> int | None:
        return self.peer.host_peer

    async def join(self, timeout: float = 4.0) -> None:
        """Connect and be seated (or given a spectator's place); ``JoinError`` says why not."""
        loop = asyncio.get_running_loop()
        self._answer = loop.create_future()
        self.aio = await AioEndpoint.bind(self.endpoint, (self.bind_host, 0), on_event=self._on_channel,
                                          on_foreign=self._foreign)
        self._arrival = ArrivalClock.of(self.aio)
        assert self.host_peer is not None
        await self.aio.connect(self.host_peer, self.address)
        self.post(self.session.hello())
        try:
            answer = await asyncio.wait_for(asyncio.shield(self._answer), timeout)
        except TimeoutError:  # the table was busy, or said nothing at all: not the code's fault
            why = self.endpoint.join_stalled(self.host_peer)
            await self.close()
            raise JoinError(why) from None
        except JoinError:  # the handshake failed: the table could not prove the code, or was busy
            await self.close()
            raise
        if isinstance(answer, TurnedAway):
            await self.close()
            raise JoinError(f"The host refused: {answer.why}")
        if isinstance(answer, HostLost):
            await self.close()
            raise JoinError(answer.why)

    def post(self, message: Message) -> None:
        """My seat's message to whoever hosts (this machine, when it does); it leaves at once."""
        self._apply(self.peer.post(message, _now()))

    def _on_channel(self, event: Any) -> None:
        if isinstance(event, HandshakeFailed):  # the table could not prove the code, say
            if self._answer is not None and not self._answer.done():
                self._answer.set_exception(JoinError(event.text))
            return
        electing = self.peer.electing
        arrived = self._arrival() if isinstance(event, Delivered) else None
        self._apply(self.peer.on_channel(event, _now(), arrived))
        if self.peer.electing and not electing:
            self.timeline.append(("lost", time.monotonic()))

    def _on_timer(self) -> None:
        self._timer = None
        if self.aio is not None:
            self._apply(self.peer.tick(_now()))

    def _foreign(self, data: bytes, address: Any) -> bool:
        """Answer a probe once this machine hosts the table."""
        return self.peer.hosting and answer_probe(self.probes, self.aio, self.info, data, address)

    def _apply(self, out: PeerOutput) -> None:
        aio = self.aio
        if aio is None:
            return
        if out.accept:
            self.endpoint.accept_unknown = True
        for peer_id, address in out.connects:
            if peer_id not in self.endpoint.peers:
                self.endpoint.connect(peer_id, address, _now())
        for peer_id, message in out.sends:
            send(aio, peer_id, message, self.peer.node)
        if out.promoted:
            self._promoted()
        if out.demoted:
            self._demoted()
        self._note(out.seat_events)
        answer = self._answer
        if answer is not None and not answer.done():
            for seat_event in out.seat_events:
                if isinstance(seat_event, (Seated, TurnedAway, HostLost, Ended)):
                    answer.set_result(seat_event)
                    break
        if out.seat_events:
            self.listeners(out.seat_events)
        if out.host_events:
            if self.announcer is not None and self.info is not None:
                self.announcer.update(self.info())
            self.host_listeners(out.host_events)
        self._rearm()

    def _promoted(self) -> None:
        """This machine hosts the table now: announce it where tables are announced."""
        if self.info is not None and self.discovery is not None and self.announcer is None:
            self.announcer = Announcer(self.info(), self.discovery)
            asyncio.get_running_loop().create_task(self.announcer.start())

    def _demoted(self) -> None:
        """This machine no longer hosts: it stops announcing and accepting joins, lets its
        players have the handover, then lets go of them (it follows the next host now)."""
        self.endpoint.accept_unknown = False
        if self.announcer is not None:
            self.announcer.close()
            self.announcer = None
        asyncio.get_running_loop().create_task(self._let_go())

    async def _let_go(self) -> None:
        await self.flush()
        keep = {self.peer.host_peer, *self.peer.voted.values()}
        for peer_id in list(self.endpoint.peers):
            if peer_id not in keep and self.aio is not None:
                self.aio.close_peer(peer_id)

    def _note(self, events: list[SeatEvent]) -> None:
        """Note when the host changed and, on the machine that took over, its first action."""
        for event in events:
            if isinstance(event, HostChanged):
                self.timeline.append(("new host", time.monotonic()))
        node = self.peer.node
        if node is not None and node.host.acted and not self._first_action_noted:
            self._first_action_noted = True
            self.timeline.append(("first action", time.monotonic()))

    def _rearm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        when = self.peer.next_deadline()
        if when is not None and self.aio is not None:
            self._timer = asyncio.get_running_loop().call_later(max(0.0, when - _now()), self._on_timer)

    async def flush(self, timeout: float = 3.0) -> None:
        """Wait (at most ``timeout``) until every connected peer has all it was sent: a
        machine that took the table over lets its players have the last word."""
        await flush(self.endpoint, timeout)

    def hand_over(self) -> None:
        """My player leaves the table this machine hosts: the others elect the next host now."""
        self._apply(self.peer.hand_over(_now()))

    async def close(self) -> None:
        if self.peer.hosting or self.peer.leaving:  # let the players have the last word, or the handover
            await self.flush()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.announcer is not None:
            self.announcer.close()
        if self.aio is not None:
            aio, self.aio = self.aio, None
            with contextlib.suppress(Exception):
                await aio.close()
