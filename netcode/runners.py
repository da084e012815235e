"""The asyncio shell of table sessions: real time, real sockets, nothing else.

Owns: ``HostRunner`` (a ``HostNode`` in real time: its timer, the channel
endpoint of a networked table, its LAN announcements and the answers to
hand-typed probes), ``SeatRunner`` (a ``SeatSession`` joined to a host over
the channel), and ``Listeners`` (the one way news reaches whoever shows a
table: callbacks run after each step, one that fails is reported and the
others still run).

Each runner only moves things: channel events and timer ticks go into the
session with the time (the event loop's monotonic clock); the messages that
come out go onto the channel; the events go to the listeners. Every decision
is the session's.

Must not touch: games, the UI, table logic (``netcode.session`` has it).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from netcode.aio import AioEndpoint
from netcode.channel import Endpoint, HandshakeFailed, JoinAttemptFailed, PeerClosed, SendQueueFull
from netcode.discovery import Announcer, ProbeAnswerer, TableInfo, is_probe
from netcode.session.messages import Message, Snap
from netcode.session.node import HostNode, LocalPeer, Remote
from netcode.session.seat import Ended, HostLost, Seated, SeatEvent, SeatSession, TurnedAway


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
            self.aio = await AioEndpoint.bind(self.endpoint, self.bind, on_foreign=self._foreign,
                                              on_event=self._on_channel)
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
        self._deliver(self.node.on_channel(event, _now()))

    def _on_timer(self) -> None:
        self._timer = self._timer_at = None
        if not self.closed:
            self._deliver(self.node.tick(_now()))

    def _foreign(self, data: bytes, address: Any) -> bool:
        """Answer a hand-typed join's probe with the announcement; True if it was one."""
        if not is_probe(data) or self.aio is None or self.info is None:
            return False
        answer = self.probes.answer(data, address, _now(), self.info().encode())
        if answer is not None:
            self.aio.send_raw(answer, address)
        return True

    # ------------------------------------------------------------ outputs
    def _deliver(self, remote: Remote) -> None:
        aio = self.aio
        for peer, message in remote:
            if aio is None or self.closed:
                continue
            try:
                if isinstance(message, Snap):  # leaves at once: the peer starts on it while we make the next
                    aio.send_reliable_now(peer, message.to_wire())
                else:
                    aio.send_reliable_nowait(peer, message.to_wire())
            except (PeerClosed, SendQueueFull):
                aio.endpoint.note_drop("send_refused")
                self.node.host.forget_sent(peer)
        self._rearm()
        events = self.node.take_host_events()
        if events:
            if self.announcer is not None and self.info is not None:
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
    async def flush(self, timeout: float = 3.0) -> None:
        """Wait (at most ``timeout``) until every connected peer has all it was sent."""
        if self.endpoint is None:
            return
        deadline = _now() + timeout
        while _now() < deadline and any(c.unacked for c in self.endpoint.peers.values() if not c.gone):
            await asyncio.sleep(0.02)

    async def close(self) -> None:
        """Stop the timer and the announcements; say goodbye to every peer."""
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
    """A seat session joined to a host over the channel."""

    def __init__(self, session: SeatSession, address: tuple[str, int], host_peer: int, endpoint: Endpoint,
                 *, bind_host: str | None = None) -> None:
        self.session = session
        self.address = address
        self.host_peer = host_peer
        self.endpoint = endpoint
        #: the local address to play from (default: every address of the host's family)
        self.bind_host = bind_host or ("::" if ":" in address[0] else "0.0.0.0")
        self.aio: AioEndpoint | None = None
        #: called with the seat's events after each step
        self.listeners = Listeners()
        self._answer: asyncio.Future[SeatEvent] | None = None

    async def join(self, timeout: float = 4.0) -> None:
        """Connect and be seated (or given a spectator's place); ``JoinError`` says why not."""
        loop = asyncio.get_running_loop()
        self._answer = loop.create_future()
        self.aio = await AioEndpoint.bind(self.endpoint, (self.bind_host, 0), on_event=self._on_channel)
        await self.aio.connect(self.host_peer, self.address)
        self.post(self.session.hello())
        try:
            answer = await asyncio.wait_for(asyncio.shield(self._answer), timeout)
        except TimeoutError:
            await self.close()
            raise JoinError("The table did not answer: check the join code (it is shown on the host's screen).") from None
        except JoinError:  # the handshake failed: the table could not prove the code, say
            await self.close()
            raise
        if isinstance(answer, TurnedAway):
            await self.close()
            raise JoinError(f"The host refused: {answer.why}")
        if isinstance(answer, HostLost):
            await self.close()
            raise JoinError(answer.why)

    def post(self, message: Message) -> None:
        """Send a message to the host (reliably, in order); it leaves before this returns."""
        if self.aio is None:
            return
        try:
            self.aio.send_reliable_now(self.host_peer, message.to_wire())
        except (PeerClosed, SendQueueFull):
            self.endpoint.note_drop("send_refused")

    def _on_channel(self, event: Any) -> None:
        if isinstance(event, HandshakeFailed):  # the table could not prove the code, say
            if self._answer is not None and not self._answer.done():
                self._answer.set_exception(JoinError(event.text))
            return
        out = self.session.on_channel(event, _now())
        for message in out.sends:
            self.post(message)
        answer = self._answer
        if answer is not None and not answer.done():
            for seat_event in out.events:
                if isinstance(seat_event, (Seated, TurnedAway, HostLost, Ended)):
                    answer.set_result(seat_event)
                    break
        if out.events:
            self.listeners(out.events)

    async def close(self) -> None:
        if self.aio is not None:
            aio, self.aio = self.aio, None
            with contextlib.suppress(Exception):
                await aio.close()
