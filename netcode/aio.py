"""The asyncio adapter: one `Endpoint` on one asyncio-dgram socket.

Owns: the socket, the clock (``time.monotonic``: the only place the transport
reads it), the timer handle and a bounded queue of events for the application.

Must not touch: protocol decisions. Everything about sequence numbers, acks,
retransmission and intake lives in `netcode.channel`; this module only moves
bytes and time in and events out.

The socket is an asyncio-dgram stream whose protocol hands each datagram
straight to the endpoint as the event loop reads it, instead of parking it in
asyncio-dgram's receive queue for a reader task to collect on a later loop
iteration. That saves a task hop on every datagram (about 15 µs), and leaves
no receive queue at all: what has not been read yet waits in the kernel's
socket buffer, which is bounded.

Events reach the application either through `next_event()` (a bounded queue,
one task hop) or, like aioquic's ``quic_event_received``, through an
``on_event`` callback run straight from the datagram's arrival, which may
answer with the ``*_nowait`` senders: the answer then leaves in the same
datagram as the ack, before the loop does anything else.

Queues are bounded end to end: the event queue here holds at most
`max_events`, and what does not fit stays inside the endpoint, which stops
acknowledging new reliable data until the application catches up. Sends go
straight to the socket; should the kernel push back, the transport's own
buffer may hold at most `max_send_buffer` bytes and anything beyond is dropped
and counted (``send_backlog``), to be resent by the channel like any loss.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from asyncio_dgram.aio import DatagramServer
from asyncio_dgram.aio import Protocol as DgramProtocol

from netcode.channel import Address, Endpoint, Event, PeerClosed


class _Protocol(DgramProtocol):
    """asyncio-dgram's protocol, delivering datagrams to a handler instead of its queue."""

    def __init__(self, recvq: asyncio.Queue[Any],
                 excq: asyncio.Queue[Exception], drained: asyncio.Event) -> None:
        super().__init__(recvq, excq, drained)
        self.handler: Callable[[bytes, Address], None] | None = None
        self.on_error: Callable[[Exception], None] | None = None

    def datagram_received(self, data: bytes, addr: Any) -> None:
        handler = self.handler
        if handler is None:
            super().datagram_received(data, addr)
        else:
            handler(data, addr)

    def error_received(self, exc: Exception) -> None:
        on_error = self.on_error
        if on_error is None:
            super().error_received(exc)
        else:
            on_error(exc)


async def _bind_stream(address: tuple[str, int]) -> tuple[DatagramServer, _Protocol]:
    loop = asyncio.get_running_loop()
    recvq: asyncio.Queue[Any] = asyncio.Queue()
    excq: asyncio.Queue[Exception] = asyncio.Queue()
    drained = asyncio.Event()
    transport, protocol = await loop.create_datagram_endpoint(
        lambda: _Protocol(recvq, excq, drained), local_addr=address
    )
    # (asyncio-dgram's stub calls its first argument a protocol: it is the transport)
    return DatagramServer(transport, recvq, excq, drained), protocol  # type: ignore[arg-type]


class AioEndpoint:
    """Serve `endpoint` on `stream` until `close()`."""

    def __init__(
        self,
        endpoint: Endpoint,
        stream: DatagramServer,
        protocol: _Protocol,
        *,
        on_event: Callable[[Event], None] | None = None,
        on_foreign: Callable[[bytes, Address], bool] | None = None,
        max_events: int = 1024,
        max_send_buffer: int = 256 * 1024,
    ) -> None:
        self.endpoint = endpoint
        self.on_event = on_event
        self.on_foreign = on_foreign
        self._stream = stream
        # (asyncio-dgram keeps its transport private, and its stub does not declare it: datagrams
        # go out through it directly, without the stream's await)
        self._transport: asyncio.DatagramTransport = stream._transport  # type: ignore[attr-defined]
        self._events: asyncio.Queue[Event] = asyncio.Queue(maxsize=max_events)
        self._max_send_buffer = max_send_buffer
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self._flush_soon: asyncio.Handle | None = None
        self._dispatching = False
        self._closed = False
        protocol.on_error = self._on_socket_error
        protocol.handler = self._on_datagram

    @classmethod
    async def bind(
        cls, endpoint: Endpoint, address: tuple[str, int] = ("127.0.0.1", 0), **options: Any
    ) -> AioEndpoint:
        stream, protocol = await _bind_stream(address)
        return cls(endpoint, stream, protocol, **options)

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._stream.sockname[:2]
        return host, port

    # -- application side -----------------------------------------------------

    async def connect(self, peer_id: int, address: Address) -> None:
        self.endpoint.connect(peer_id, address, time.monotonic())
        self._flush()

    async def send_reliable(self, peer_id: int, payload: Any) -> None:
        """Queue a reliable message and send it at once."""
        self.send_reliable_now(peer_id, payload)

    def send_reliable_now(self, peer_id: int, payload: Any) -> None:
        """`send_reliable` without the coroutine: the datagram leaves before this returns."""
        conn = self.endpoint.peers.get(peer_id)
        if conn is None:
            raise PeerClosed(f"no peer {peer_id}")
        conn.send_reliable(payload)
        if self._closed:
            return
        self._send(conn.datagrams_to_send(time.monotonic()))
        # Only this connection's timers can have moved (sooner, if anything): the others'
        # were all due no sooner than the timer already set.
        self._arm_by(conn.next_timer())

    async def send_unreliable(self, peer_id: int, payload: Any) -> None:
        self.endpoint.send_unreliable(peer_id, payload)
        self._flush(dispatch=False)

    def send_reliable_nowait(self, peer_id: int, payload: Any) -> None:
        """Queue a reliable message; it leaves with the next flush (at the latest
        on the next loop iteration; at once when called from `on_event`)."""
        self.endpoint.send_reliable(peer_id, payload)
        self._schedule_flush()

    def send_unreliable_nowait(self, peer_id: int, payload: Any) -> None:
        self.endpoint.send_unreliable(peer_id, payload)
        self._schedule_flush()

    def close_peer(self, peer_id: int) -> None:
        """Say goodbye to one peer (the others stay connected)."""
        with contextlib.suppress(PeerClosed):
            self.endpoint.close(peer_id, time.monotonic())
        self._schedule_flush()

    def send_raw(self, data: bytes, address: Address) -> None:
        """Send a datagram outside the channel (a discovery answer), best effort."""
        if not self._closed:
            with contextlib.suppress(OSError):
                self._transport.sendto(data, address)  # type: ignore[arg-type]  # (a socket's address: Address is any name)

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
        self._flush()
        self.abort()

    def abort(self) -> None:
        """Release the socket at once, without a word to anyone (as a crash would)."""
        if self._closed:
            return
        self._closed = True
        for handle in (self._timer, self._flush_soon):
            if handle is not None:
                handle.cancel()
        self._timer = self._flush_soon = None
        self._stream.close()

    # -- plumbing ---------------------------------------------------------------

    def _send(self, datagrams: list[tuple[bytes, Address]]) -> None:
        transport = self._transport
        endpoint = self.endpoint
        for data, address in datagrams:
            # (a datagram transport has it, like every selector transport: typeshed leaves it out)
            if transport.get_write_buffer_size() > self._max_send_buffer:  # type: ignore[attr-defined]
                endpoint.note_drop("send_backlog")
                continue
            try:
                transport.sendto(data, address)  # type: ignore[arg-type]  # (a socket's address: Address is any name)
            except OSError:
                endpoint.note_drop("send_error")

    def _flush(self, dispatch: bool = True) -> None:
        """Send whatever the endpoint has due and re-arm the timer.

        With `dispatch`, ready events go to the `on_event` callback first, so
        whatever it answers leaves in the same datagrams."""
        self._flush_soon = None
        if self._closed:
            return
        endpoint = self.endpoint
        if dispatch:
            self._pump()
        self._send(endpoint.datagrams_to_send(time.monotonic()))
        if (endpoint.ready or endpoint.has_stalled) and self.on_event is not None:
            self._pump()  # e.g. the PeerGone of a peer we closed
            self._schedule_flush()
        self._rearm()

    def _rearm(self) -> None:
        # Re-arm only when the timer must fire earlier; a timer that fires too
        # early just finds nothing due and re-arms (cheaper than re-arming on
        # every send, since every send moves the heartbeat deadline).
        self._arm_by(self.endpoint.next_timer())

    def _arm_by(self, when: float | None) -> None:
        """Have the timer fire by ``when`` (None: nothing is due), re-arming it only if sooner."""
        if when is None or (self._timer_at is not None and when >= self._timer_at):
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = when
        self._timer = self._loop.call_at(when, self._on_timer)

    def _schedule_flush(self) -> None:
        if self._dispatching or self._flush_soon is not None or self._closed:
            return  # every dispatch happens inside a flush, which sends it
        self._flush_soon = self._loop.call_soon(self._flush)

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
        due = self._timer_at
        self._timer = None
        self._timer_at = None
        if self._closed:
            return
        self.endpoint.handle_timer(time.monotonic(), due)
        self._flush()

    def _on_socket_error(self, exc: Exception) -> None:
        # e.g. ICMP port unreachable, reported on the socket after a send
        self.endpoint.note_drop("socket_error")

    def _on_datagram(self, data: bytes, address: Address) -> None:
        """One datagram, straight from the event loop's read of the socket."""
        if self._closed:
            return
        on_foreign = self.on_foreign
        if on_foreign is not None and on_foreign(data, address):
            return  # not a channel datagram (e.g. a discovery probe), and it was handled
        endpoint = self.endpoint
        endpoint.receive_datagram(data, address, time.monotonic())
        callback = self.on_event
        if callback is None:
            self._pump()
            # Let the application's task answer first, so acks ride on its replies.
            self._schedule_flush()
            return
        # The hot path, written out: hand the events to the callback, then
        # send at once whatever it answered together with our acks.
        ready = endpoint.ready
        self._dispatching = True
        try:
            while ready:
                callback(ready.popleft())
        finally:  # even if the application's callback failed, the acks go out
            self._dispatching = False
            if not self._closed:
                self._send(endpoint.datagrams_to_send(time.monotonic()))
                if ready:  # e.g. PeerGone of a peer that left as we answered
                    self._schedule_flush()
                self._rearm()
