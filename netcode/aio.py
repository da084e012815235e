"""The asyncio adapter: one `Endpoint` on one asyncio-dgram socket.

Owns: the socket, the clock (``time.monotonic``: the only place the transport
reads it), the timer handle and a bounded queue of events for the application.

Must not touch: protocol decisions. Everything about sequence numbers, acks,
retransmission and intake lives in `netcode.channel`; this module only moves
bytes and time in and events out.

Events reach the application either through `next_event()` (a bounded
queue, one task hop) or, like aioquic's ``quic_event_received``, through an
``on_event`` callback run straight from the reader, which may answer with the
``*_nowait`` senders: the answer then leaves in the same datagram as the ack.

Queues are bounded end to end: asyncio-dgram's own receive queue is unbounded,
so the reader drains it continuously and sheds any backlog beyond
`max_backlog` (counted as ``backlog`` drops); the event queue here holds at
most `max_events`, and what does not fit stays inside the endpoint, which
stops acknowledging new reliable data until the application catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

import asyncio_dgram

from netcode.channel import Address, Endpoint, Event, PeerClosed


class AioEndpoint:
    """Serve `endpoint` on `stream` until `close()`."""

    def __init__(
        self,
        endpoint: Endpoint,
        stream: asyncio_dgram.DatagramServer,
        *,
        on_event: Callable[[Event], None] | None = None,
        on_foreign: Callable[[bytes, Address], bool] | None = None,
        max_events: int = 1024,
        max_backlog: int = 1024,
    ) -> None:
        self.endpoint = endpoint
        self.on_event = on_event
        self.on_foreign = on_foreign
        self._stream = stream
        self._events: asyncio.Queue[Event] = asyncio.Queue(maxsize=max_events)
        # asyncio-dgram keeps received datagrams in an unbounded asyncio.Queue.
        self._backlog: asyncio.Queue | None = getattr(stream, "_recvq", None)
        self._max_backlog = max_backlog
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self._flush_soon: asyncio.Handle | None = None
        self._dispatching = False
        self._flushes: set[asyncio.Task[None]] = set()
        self._reader = self._loop.create_task(self._read())
        self._closed = False

    @classmethod
    async def bind(
        cls, endpoint: Endpoint, address: tuple[str, int] = ("127.0.0.1", 0), **options: Any
    ) -> AioEndpoint:
        stream = await asyncio_dgram.bind(address)
        return cls(endpoint, stream, **options)

    @property
    def address(self) -> tuple[str, int]:
        return self._stream.sockname[:2]

    # -- application side -----------------------------------------------------

    async def connect(self, peer_id: int, address: Address) -> None:
        self.endpoint.connect(peer_id, address, time.monotonic())
        await self.flush()

    async def send_reliable(self, peer_id: int, payload: Any) -> None:
        """Queue a reliable message and send it at once."""
        endpoint = self.endpoint
        conn = endpoint.peers.get(peer_id)
        if conn is None:
            raise PeerClosed(f"no peer {peer_id}")
        conn.send_reliable(payload)
        if self._closed:
            return
        stream = self._stream
        for data, address in conn.datagrams_to_send(time.monotonic()):
            try:
                await stream.send(data, address)
            except OSError:
                endpoint.note_drop("send_error")
        self._rearm()

    async def send_unreliable(self, peer_id: int, payload: Any) -> None:
        self.endpoint.send_unreliable(peer_id, payload)
        await self.flush(dispatch=False)

    def send_reliable_nowait(self, peer_id: int, payload: Any) -> None:
        """Queue a reliable message; it leaves with the next flush (at the latest
        on the next loop iteration; at once when called from `on_event`)."""
        self.endpoint.send_reliable(peer_id, payload)
        self._schedule_flush()

    def send_unreliable_nowait(self, peer_id: int, payload: Any) -> None:
        self.endpoint.send_unreliable(peer_id, payload)
        self._schedule_flush()

    def send_raw(self, data: bytes, address: Address) -> None:
        """Send a datagram outside the channel (a discovery answer), best effort."""
        with contextlib.suppress(OSError, asyncio_dgram.TransportClosed):
            self._stream._transport.sendto(data, address)

    async def next_event(self) -> Event:
        """The next event (only when no `on_event` callback was given)."""
        event = await self._events.get()
        self._pump()
        return event

    async def close(self) -> None:
        """Say goodbye to every peer, then release the socket."""
        if self._closed:
            return
        now = time.monotonic()
        for peer_id in list(self.endpoint.peers):
            self.endpoint.close(peer_id, now)
        with contextlib.suppress(asyncio_dgram.TransportClosed, OSError):
            await self.flush()
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        self._stream.close()

    # -- plumbing ---------------------------------------------------------------

    async def flush(self, dispatch: bool = True) -> None:
        """Send whatever the endpoint has due and re-arm the timer.

        With `dispatch`, ready events go to the `on_event` callback first, so
        whatever it answers leaves in the same datagrams."""
        if self._closed:
            return
        stream = self._stream
        endpoint = self.endpoint
        if dispatch:
            self._pump()
        for data, address in endpoint.datagrams_to_send(time.monotonic()):
            try:
                await stream.send(data, address)
            except OSError:
                endpoint.note_drop("send_error")
        if (endpoint.ready or endpoint.has_stalled) and self.on_event is not None:
            self._pump()  # e.g. the PeerGone of a peer we closed
            self._schedule_flush()
        self._rearm()

    def _rearm(self) -> None:
        # Re-arm only when the timer must fire earlier; a timer that fires too
        # early just finds nothing due and re-arms (cheaper than re-arming on
        # every send, since every send moves the heartbeat deadline).
        when = self.endpoint.next_timer()
        if when is not None and (self._timer_at is None or when < self._timer_at):
            if self._timer is not None:
                self._timer.cancel()
            self._timer_at = when
            self._timer = self._loop.call_at(when, self._on_timer)

    def _schedule_flush(self) -> None:
        if self._dispatching or self._flush_soon is not None:
            return  # every dispatch happens inside a flush, which sends it
        self._flush_soon = self._loop.call_soon(self._start_flush)

    def _start_flush(self) -> None:
        self._flush_soon = None
        self._spawn_flush()

    def _spawn_flush(self) -> None:
        task = self._loop.create_task(self.flush())
        self._flushes.add(task)  # the loop keeps only a weak reference
        task.add_done_callback(self._flushes.discard)

    def _pump(self) -> None:
        """Hand ready events to the callback, or to the bounded queue as far as it fits."""
        endpoint = self.endpoint
        callback = self.on_event
        if callback is not None:
            self._dispatching = True
            try:
                while (event := endpoint.next_event()) is not None:
                    callback(event)
            finally:
                self._dispatching = False
            return
        queue = self._events
        while not queue.full():
            event = endpoint.next_event()
            if event is None:
                return
            queue.put_nowait(event)

    def _on_timer(self) -> None:
        self._timer = None
        self._timer_at = None
        self.endpoint.handle_timer(time.monotonic())
        self._spawn_flush()

    def _shed_backlog(self) -> None:
        backlog = self._backlog
        assert backlog is not None
        while backlog.qsize() > self._max_backlog:
            data, _ = backlog.get_nowait()
            if data is None:  # the transport closed: leave the marker for recv()
                backlog.put_nowait((None, None))
                return
            self.endpoint.note_drop("backlog")

    async def _read(self) -> None:
        stream = self._stream
        endpoint = self.endpoint
        backlog = self._backlog
        ready = endpoint.ready
        monotonic = time.monotonic
        while True:
            try:
                data, address = await stream.recv()
            except asyncio_dgram.TransportClosed:
                return
            except OSError:  # e.g. ICMP port unreachable reported on the socket
                endpoint.note_drop("socket_error")
                continue
            if backlog is not None and backlog.qsize() > self._max_backlog:
                self._shed_backlog()
            if self.on_foreign is not None and self.on_foreign(data, address):
                continue  # not a channel datagram (e.g. a discovery probe), and it was handled
            endpoint.receive_datagram(data, address, monotonic())
            callback = self.on_event
            if callback is None:
                self._pump()
                # Let the application answer first, so acks ride on its replies.
                await asyncio.sleep(0)
                await self.flush()
                continue
            # The hot path, written out: hand the events to the callback, then
            # send at once whatever it answered together with our acks.
            self._dispatching = True
            try:
                while ready:
                    callback(ready.popleft())
            finally:
                self._dispatching = False
            if self._closed:
                return
            for data, address in endpoint.datagrams_to_send(monotonic()):
                try:
                    await stream.send(data, address)
                except OSError:
                    endpoint.note_drop("send_error")
            if ready:  # e.g. PeerGone of a peer that left as we answered
                self._schedule_flush()
            self._rearm()
