"""Receiving: intake of one connection's datagrams, reassembly and delivery.

Owns: intake of sealed datagrams (the replay check, then authentication and
decryption, then strict decoding, all before any state changes), the peer's
return address (moved only by an authentic datagram newer than any seen),
the replay window over packet numbers, the record of packets to
acknowledge (highest seen, a bitfield below it, when the newest arrived),
the reorder buffer keyed by unit id, reassembly of fragments, decoding
payloads with limits, and handing `Delivered` and `Unreliable` events to the
event queue in order, exactly once, holding back while the queue is full.

Must not touch: building datagrams (`sending`) beyond marking that an ack is
owed, round-trip and loss bookkeeping beyond queuing the acks that arrive
(`recovery`), sockets and clocks. A mixin of `Connection`: its state lives in
the connection's slots, listed in `STATE`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from netcode.channel.config import ACK_BITS
from netcode.channel.events import Delivered, Unreliable
from netcode.channel.parts import ConnectionParts
from netcode.envelope import (
    SEALED,
    Dropped,
    Kind,
    Opener,
    decode_payload,
    open_handshake,
    packet_type,
    payload_decoder,
    sender_of,
)

if TYPE_CHECKING:
    from netcode.channel.config import Address, Config

_DATA = Kind.DATA
_HEARTBEAT = Kind.HEARTBEAT
_CLOSE = Kind.CLOSE
_ACK_MASK = (1 << ACK_BITS) - 1


class SeqWindow:
    """Which recent packet numbers were seen: the highest and a bitmask below it."""

    __slots__ = ("highest", "mask", "size", "full")

    def __init__(self, size: int) -> None:
        self.highest = 0
        self.mask = 0  # bit i set <=> highest - i was seen
        self.size = size
        self.full = (1 << size) - 1

    def status(self, seq: int) -> str | None:
        """None if `seq` is new, else "replay" or "stale" (too old to tell)."""
        offset = self.highest - seq
        if offset < 0:
            return None
        if offset >= self.size:
            return "stale"
        return "replay" if (self.mask >> offset) & 1 else None

    def mark(self, seq: int) -> None:
        offset = self.highest - seq
        if offset < 0:
            self.mask = ((self.mask << -offset) | 1) & self.full
            self.highest = seq
        elif offset < self.size:
            self.mask |= 1 << offset

    def ack_fields(self) -> tuple[int, int]:
        return self.highest, (self.mask >> 1) & _ACK_MASK


class Receiving(ConnectionParts):
    """Datagrams in, events out (a `Connection` mixin)."""

    __slots__ = ()
    STATE: ClassVar[tuple[str, ...]] = (
        "_replay",
        "_acks",
        "_highest_at",
        "_recv_next",
        "_recv_buffer",
        "_partial",
        "_partial_count",
        "_payload_decoder",
        "_opener",
        "_max_events",
        "stalled",
        "last_heard",
        "packets_received",
        "bytes_received",
    )

    def _init_receiving(self, config: Config) -> None:
        self.last_heard: float | None = None
        self._replay = SeqWindow(config.replay_window)
        self._acks = SeqWindow(ACK_BITS + 1)
        self._highest_at = 0.0  # when the newest packet we acknowledge arrived
        self._recv_next = 0
        self._recv_buffer: dict[int, tuple[bytes, int, int]] = {}
        self._partial: list[bytes] = []
        self._partial_count = 0
        self.stalled = False  # deliveries held back because the event queue was full
        self._max_events = config.max_events
        self._payload_decoder = payload_decoder(config.max_message)
        self.packets_received = self.bytes_received = 0
        self._opener: Opener | None = None  # until the keys are agreed

    def receive_datagram(self, data: bytes, address: Address, now: float) -> None:
        """Take one datagram off the wire (for a connection on its own; an `Endpoint`
        routes its datagrams itself). Never raises; bad input is counted."""
        try:
            kind = packet_type(data)
            if sender_of(data) != self.peer_id:
                raise Dropped("reflected" if sender_of(data) == self.local_id else "unknown_peer")
            if kind == SEALED:
                self.receive_sealed(data, address, now)
                return
            packet = open_handshake(data)
        except Dropped as dropped:
            self.drops[dropped.reason] += 1
            return
        if packet.receiver != self.local_id:
            self.drops["not_for_us"] += 1
            return
        self.receive_handshake(packet, address, now)

    def receive_sealed(self, data: bytes, address: Address, now: float) -> None:
        """A sealed datagram whose type and sender were checked. Never raises.

        A replayed packet number is refused before any decryption; a packet
        that does not open under this peer's key (a stranger's, another
        peer's, or damaged) is refused before a byte of it is decoded."""
        opener = self._opener
        if opener is None:
            self.drops["not_ready"] += 1
            return
        replay = self._replay
        seq = int.from_bytes(data[9:17], "big")
        if seq <= replay.highest:
            status = replay.status(seq)
            if status is not None:
                self.drops[status] += 1
                return
        try:
            fields = opener.open_fields(data)
        except Dropped as dropped:
            self.drops[dropped.reason] += 1
            return
        self._accept(fields, address, now, len(data))

    def _accept(self, fields: tuple[Any, ...], address: Address, now: float, size: int) -> None:
        """Intake of an authentic datagram: (seq, ack, ack_bits, ack_delay, kind, body)."""
        seq, ack, ack_bits, ack_delay, kind, body = fields
        replay = self._replay
        if self.gone:
            self.drops["gone"] += 1
            return
        if seq > replay.highest:
            # Newer than anything seen, and authentic: this proves the path it
            # came by, so our answers go back that way (QUIC's path validation,
            # in spirit). An older datagram, even an authentic one arriving late
            # or relayed by someone else, never moves the peer.
            if address != self.address:
                self.address = address
                self._counters["path_changes"] += 1
            if seq == replay.highest + 1:  # in order: the usual case, inlined
                replay.mask = ((replay.mask << 1) | 1) & replay.full
                replay.highest = seq
            else:
                replay.mark(seq)
        else:
            replay.mark(seq)
        self.packets_received += 1
        self.bytes_received += size
        self.last_heard = now
        if self._sent:
            # Applied in datagrams_to_send, after any reply is built: acks of
            # our own packets never hold up delivery or an answer.
            self._acks_in.append((ack, ack_bits, ack_delay, now))
            if len(self._acks_in) > 64:  # nobody asked for datagrams lately
                self._apply_acks()
        accepted = True
        if kind is _DATA:
            units, unreliables = body
            # Only news asks for an immediate ack: a packet of nothing but
            # copies we already hold is acked by whatever we send next (at
            # worst a heartbeat), so redundant copies cannot ping-pong.
            eliciting = False
            for unit in units:
                if (
                    unit[0] == self._recv_next
                    and len(unit) == 2
                    and not self._recv_buffer
                    and not self._partial
                    and len(self._events) < self._max_events
                ):
                    # the common case: the next unit, whole, nothing waiting
                    self._recv_next += 1
                    eliciting = True
                    try:
                        payload = self._payload_decoder.decode(unit[1])
                    except ValueError:
                        self.drops["bad_payload"] += 1
                        continue
                    self._events.append(Delivered(self.peer_id, payload))
                    continue
                taken = self._accept_unit(unit)
                if taken is None:
                    accepted = False
                elif taken:
                    eliciting = True
            if self._recv_buffer:
                self._deliver_ready()
            for item in unreliables:
                self._accept_unreliable(item)
        elif kind is _HEARTBEAT:
            eliciting = True
        elif kind is _CLOSE:
            self._set_gone("closed")
            return
        else:
            eliciting = False
        in_order = True
        if accepted:
            acks = self._acks
            if seq == acks.highest + 1:
                acks.mask = ((acks.mask << 1) | 1) & acks.full
                acks.highest = seq
                self._highest_at = now
            else:
                in_order = False
                if seq > acks.highest:
                    self._highest_at = now
                acks.mark(seq)
        if eliciting:
            self._ack_pending = True
            self._ack_eliciting += 1
            delay = self.config.max_ack_delay
            if kind is _HEARTBEAT or not in_order or self._ack_eliciting > 1 or delay <= 0:
                self._ack_due = now  # a probe, a gap to report, or enough waiting
            elif self._ack_due > now + delay:
                self._ack_due = now + delay

    def _accept_unit(self, unit: tuple[Any, ...]) -> bool | None:
        """Buffer one incoming unit: True if new, False if a duplicate, None if it
        could not be taken (then the packet must not be acked)."""
        uid = unit[0]
        offset = uid - self._recv_next
        if offset < 0 or uid in self._recv_buffer:
            self._counters["duplicate_units"] += 1
            return False
        if offset >= self.config.window:
            self.drops["beyond_window"] += 1
            return None
        if len(unit) == 2:
            self._recv_buffer[uid] = (unit[1], 0, 1)
        else:
            self._recv_buffer[uid] = (unit[1], unit[2], unit[3])
        return True

    def deliver_held(self) -> None:
        """Deliver what was held back while the event queue was full, as far as it fits."""
        self._deliver_ready()

    def _deliver_ready(self) -> None:
        buffer = self._recv_buffer
        events = self._events
        limit = self.config.max_events
        self.stalled = False
        while self._recv_next in buffer:
            if len(events) >= limit:
                self.stalled = True
                return
            chunk, index, count = buffer.pop(self._recv_next)
            self._recv_next += 1
            partial = self._partial
            if partial and (index != len(partial) or count != self._partial_count):
                # a fragmented message was cut short: drop what we had of it
                partial.clear()
                self.drops["bad_fragment"] += 1
            if count == 1:
                data = chunk
            else:
                if index != len(partial):
                    self.drops["bad_fragment"] += 1
                    continue
                self._partial_count = count
                partial.append(chunk)
                if index != count - 1:
                    continue
                data = b"".join(partial)
                partial.clear()
            self._deliver(data)

    def _deliver(self, data: bytes) -> None:
        try:
            payload = self._payload_decoder.decode(data)
        except ValueError:
            self.drops["bad_payload"] += 1
            return
        self._events.append(Delivered(self.peer_id, payload))

    def _accept_unreliable(self, data: bytes) -> None:
        try:
            payload = decode_payload(data, self.config.max_datagram)
        except Dropped as dropped:
            self.drops[dropped.reason] += 1
            return
        self._push(Unreliable(self.peer_id, payload))
