"""The asyncio shell of a table peer: real time, real sockets, nothing else.

Owns: ``PeerRunner``, one ``TablePeer`` in real time, whatever its role (a local game,
the first host, a seat, an elected host, a watcher): its timer, the channel endpoint of
a networked table, its LAN announcements while it hosts, and the answers to hand-typed
probes; ``SeatLink``, a seat played at this machine as the table the UI holds sees it;
and ``Listeners`` (the one way news reaches whoever shows a table: callbacks run after
each step, one that fails is reported and the others still run).

The runner only moves things: channel events and timer ticks go into the peer with the
time (the event loop's monotonic clock, and for a message, when its datagram reached
this machine, where the kernel tells it: see ``ArrivalClock``); then it does what the
step says, in one way for every role: connections opened, messages sent (a timely one,
whose time matters, at once, and the host told when it left; the others with the
flush at the end of the loop's turn), joins accepted, the table announced while this
machine hosts, and the events handed to the listeners; slow work (a no-peek deal's
proofs) done on a worker thread and its result handed back. Every decision is the peer's.

Must not touch: games, the UI, table logic (``netcode.session`` has it).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import time
from collections.abc import Callable
from typing import Any

from netcode.aio import AioEndpoint
from netcode.arrival import ArrivalClock
from netcode.channel import (
    NO_ANSWER,
    Delivered,
    Endpoint,
    HandshakeFailed,
    JoinAttemptFailed,
    PeerClosed,
    SendQueueFull,
)
from netcode.discovery import Announcer, ProbeAnswerer, TableInfo, is_probe
from netcode.session.host import HostSession
from netcode.session.messages import Act, Message, Opens, Ping, Shout, Snap
from netcode.session.peer import TablePeer
from netcode.session.seat import Ended, HostChanged, HostLost, Seated, SeatSession, TurnedAway
from netcode.session.step import Step, Work


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


#: The clock every peer here is fed: monotonic seconds, the same as the channel's.
_now = time.monotonic

#: the messages that leave the moment they are made (a room, a shout, a ping, a player's move:
#: their time matters; a move's is the time until every player sees it)
TIMELY = (Snap, Opens, Shout, Ping, Act)


class JoinError(Exception):
    """Joining failed: the message says why, in words for a player."""


class SeatLink:
    """A seat played at this machine, as its table sees it: its session, its news, its messages."""

    def __init__(self, runner: PeerRunner, index: int) -> None:
        self.runner = runner
        self.index = index
        #: called with the seat's events after each step
        self.listeners = runner.seat_listeners.setdefault(index, Listeners())

    @property
    def session(self) -> SeatSession:
        return self.runner.peer.seats[self.index]

    def post(self, message: Message) -> None:
        self.runner.post(message, self.index)


class PeerRunner:
    """A table peer in real time, on a channel endpoint when the table is networked."""

    def __init__(self, peer: TablePeer, *, endpoint: Endpoint | None = None,
                 bind: tuple[str, int] = ("0.0.0.0", 0), info: Callable[[], TableInfo] | None = None,
                 discovery: tuple[str, int] | None = None) -> None:
        """``info`` makes the table's announcement (announced to ``discovery`` while this machine
        hosts, and the answer to a probe); without it the table is not announced."""
        self.peer = peer
        peer.offload = True  # (its slow work on a worker thread: see ``_work``)
        self.endpoint = endpoint
        self.bind = bind
        self.info = info
        self.discovery = discovery
        self.aio: AioEndpoint | None = None
        self.announcer: Announcer | None = None
        self.probes = ProbeAnswerer()
        #: called with the table's events after each step, while this machine hosts
        self.table_listeners = Listeners()
        #: called with a seat's events after each step, per seat played here (by its index)
        self.seat_listeners: dict[int, Listeners] = {}
        #: called with each ``JoinAttemptFailed``: someone tried to join without the code
        self.join_failures = Listeners()
        #: (what, when) of every change of host this machine saw, on the monotonic clock:
        #: "lost" (the host went silent), "new host", and, if this machine took over, its
        #: "first action" as host
        self.timeline: list[tuple[str, float]] = []
        self.closed = False
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self._answer: asyncio.Future[Any] | None = None
        self._first_action_noted = False
        self._arrival = ArrivalClock(None)
        self._worker: concurrent.futures.ThreadPoolExecutor | None = None

    # ------------------------------------------------------------ facts
    @property
    def host(self) -> HostSession | None:
        """The host session, while this machine hosts."""
        return self.peer.host

    @property
    def session(self) -> SeatSession:
        """My own seat's session."""
        return self.peer.session

    @property
    def address(self) -> tuple[str, int]:
        assert self.aio is not None, "the table is not networked"
        return self.aio.address

    # ------------------------------------------------------------ opening
    async def open(self) -> None:
        """Open the socket (a networked table) and, if this machine hosts, announce the table.
        Returns at once."""
        if self.endpoint is not None and self.aio is None:
            self.aio = await AioEndpoint.bind(self.endpoint, self.bind, on_foreign=self._foreign,
                                              on_event=self._on_channel)
            self._arrival = ArrivalClock.of(self.aio)
            if self.peer.hosting:
                self.endpoint.accept_unknown = True
                self._announce()
        self._rearm()

    async def join(self, timeout: float = 4.0) -> None:
        """Connect to the host and be seated (or given a spectator's place); ``JoinError`` says
        why not."""
        self._answer = asyncio.get_running_loop().create_future()
        await self.open()
        self._apply(self.peer.begin(_now()))
        try:
            answer = await asyncio.wait_for(asyncio.shield(self._answer), timeout)
        except TimeoutError:  # the table was busy, or said nothing at all: not the code's fault
            why = self.endpoint.join_stalled(self.peer.host_peer) if self.endpoint else NO_ANSWER
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

    # ------------------------------------------------------------ inputs
    def sit(self, session: SeatSession) -> SeatLink:
        """A seat played at this machine, which hosts (the host's own player; every player of a
        game against bots)."""
        index = len(self.peer.seats)
        self.seat_listeners.setdefault(index, Listeners())
        self._apply(self.peer.sit(session, _now()))
        return SeatLink(self, index)

    def link(self, index: int = 0) -> SeatLink:
        """The seat played here at ``index`` (0: mine)."""
        return SeatLink(self, index)

    def post(self, message: Message, seat: int = 0) -> None:
        """A seat's message (its action, say) to whoever hosts, handled at once."""
        self._apply(self.peer.post(message, _now(), seat))

    def command(self, run: Callable[[float], Step]) -> None:
        """One of the host's commands, e.g. ``runner.command(runner.host.start)``."""
        self._apply(self.peer.command(run, _now()))

    def play_bot(self) -> bool:
        """Let one bot that may act play now, whatever the pace; False if none may."""
        host = self.peer.host
        if host is None:
            return False
        now = _now()
        moved = host.play_bot(now)
        self._apply(self.peer.command(host.settle, now))
        return moved

    def hand_over(self) -> None:
        """My player leaves the table this machine hosts: the others elect the next host now."""
        self._apply(self.peer.hand_over(_now()))

    def _on_channel(self, event: Any) -> None:
        if isinstance(event, JoinAttemptFailed):  # (no session's business: the channel refused it)
            self.join_failures(event)
            return
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
        self._timer = self._timer_at = None
        if not self.closed:
            self._apply(self.peer.tick(_now()))

    def _foreign(self, data: bytes, address: Any) -> bool:
        """Answer a hand-typed join's probe with the table's announcement, while this machine
        hosts; True if it was a probe."""
        if not is_probe(data) or self.aio is None or self.info is None or not self.peer.hosting:
            return False
        answer = self.probes.answer(data, address, _now(), self.info().encode())
        if answer is not None:
            self.aio.send_raw(answer, address)
        return True

    # ------------------------------------------------------------ doing what a step says
    def _apply(self, step: Step) -> None:
        for work in step.work:
            self._work(work)
        aio, endpoint = self.aio, self.endpoint
        if aio is not None and endpoint is not None and not self.closed:
            if step.accept:
                endpoint.accept_unknown = True
            for joiner, address in step.connects:
                if joiner not in endpoint.peers:
                    endpoint.connect(joiner, address, _now())
            for peer_id, message in step.sends:
                # (the host's sends name the channel's peer ids: every seat of its own is local)
                self._send(aio, peer_id, message)  # type: ignore[arg-type]
        if step.hosting is True:
            self._announce()
        elif step.hosting is False:
            self._stopped_hosting()
        self._rearm()
        self._note(step)
        if step.table:
            if self.announcer is not None and self.info is not None and self.peer.hosting:
                self.announcer.update(self.info())
            self.table_listeners(step.table)
        for index in {index for index, _ in step.seats}:
            events = [event for i, event in step.seats if i == index]
            self._answered(events)
            listeners = self.seat_listeners.get(index)
            if listeners:
                listeners(events)

    def _work(self, work: Work) -> None:
        """Slow work a step handed out (a shuffle's proof, made or checked): done on a worker
        thread, one piece after another, while this loop goes on answering the channel (a
        loop stopped for the channel's silence timeout looks gone to every peer: one proof
        took that long on a shared, loaded machine); its result goes back to the peer here."""
        loop = asyncio.get_running_loop()
        if self._worker is None:
            self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="xmas-tui-work")

        def done(future: asyncio.Future[Any]) -> None:
            if not self.closed and not future.cancelled():
                self._apply(self.peer.worked(work, future.result(), _now()))

        loop.run_in_executor(self._worker, work).add_done_callback(done)

    def _send(self, aio: AioEndpoint, peer: int, message: Message) -> None:
        """A timely message (a room, a shout, a ping: the peer starts on it while we make the
        next) leaves at once, and the host is told when it really left; the others leave with
        the flush at the end of this turn of the loop. One the channel refuses is counted, and
        the host sends that peer everything afresh next time."""
        try:
            if isinstance(message, TIMELY):
                aio.send_reliable_now(peer, message.to_wire())
                self.peer.sent(peer, message, _now())
            else:
                aio.send_reliable_nowait(peer, message.to_wire())
        except (PeerClosed, SendQueueFull):
            aio.endpoint.note_drop("send_refused")
            self.peer.forget_sent(peer)

    def _answered(self, events: list[Any]) -> None:
        answer = self._answer
        if answer is not None and not answer.done():
            for event in events:
                if isinstance(event, (Seated, TurnedAway, HostLost, Ended)):
                    answer.set_result(event)
                    break

    def _announce(self) -> None:
        """This machine hosts the table: announce it where tables are announced."""
        if self.info is None or self.discovery is None or self.announcer is not None or self.aio is None:
            return
        self.announcer = Announcer(self.info(), self.discovery)
        with contextlib.suppress(RuntimeError):  # driven by hand, with no event loop: `open` announces
            asyncio.get_running_loop().create_task(self.announcer.start())

    def _stopped_hosting(self) -> None:
        """This machine no longer hosts: it stops announcing and accepting joins, lets its
        players have the handover, then lets go of them (it follows the next host now, or
        leaves if its player handed the table over)."""
        if self.endpoint is not None:
            self.endpoint.accept_unknown = False
        if self.announcer is not None:
            self.announcer.close()
            self.announcer = None
        with contextlib.suppress(RuntimeError):  # driven by hand, with no event loop: the caller closes
            asyncio.get_running_loop().create_task(self._let_go())

    async def _let_go(self) -> None:
        await self.flush()
        if self.peer.leaving or not self.peer.seats:
            await self.close()
            return
        keep = {self.peer.host_peer, *self.peer.voted.values()}
        for peer_id in list(self.endpoint.peers) if self.endpoint is not None else []:
            if peer_id not in keep and self.aio is not None:
                self.aio.close_peer(peer_id)

    def _note(self, step: Step) -> None:
        """Note when the host changed and, on the machine that took over, its first action."""
        for index, event in step.seats:
            if index == 0 and isinstance(event, HostChanged):
                self.timeline.append(("new host", time.monotonic()))
        host = self.peer.host
        if host is not None and host.term > 1 and host.acted and not self._first_action_noted:
            self._first_action_noted = True
            self.timeline.append(("first action", time.monotonic()))

    def _rearm(self) -> None:
        if self.closed:
            return
        when = self.peer.next_deadline()
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
        """Wait (at most ``timeout``) until every connected peer has all it was sent: a host
        lets its players have the last word, a leaving one its handover."""
        endpoint = self.endpoint
        if endpoint is None:
            return
        deadline = _now() + timeout
        while _now() < deadline and any(c.unacked for c in endpoint.peers.values() if not c.gone):
            await asyncio.sleep(0.02)

    def stop(self) -> None:
        """Stop at once, with no word to anyone: a table that will not be played (a kept game
        that could not be replayed, say), whose timer must not fire."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = self._timer_at = None
        if self._worker is not None:
            self._worker.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        """Stop the timer and the announcements; say goodbye to every peer (a host, or a player
        who handed the table over, after its last messages are out)."""
        if self.closed:
            return
        if self.peer.hosting or self.peer.leaving:
            await self.flush()
        self.stop()
        if self.announcer is not None:
            self.announcer.close()
            self.announcer = None
        if self.aio is not None:
            aio, self.aio = self.aio, None
            with contextlib.suppress(Exception):
                await aio.close()
