"""The sans-IO transport: a reliable ordered channel plus unreliable messages.

Owns: per-peer protocol state (`Connection`) and the multiplexer that serves
many peers on one socket (`Endpoint`): packet sequence numbers and acks,
retransmission, redundancy, fragmentation, reordering, heartbeats, round-trip
estimates, silence detection, and the events handed to the application.

Must not touch: sockets, clocks, asyncio, games or the UI. Every method that
needs the time takes ``now`` (seconds, any monotonic origin); callers feed in
datagrams and timer ticks and take out datagrams and events, exactly like
aioquic's ``QuicConnection`` or h11's ``Connection``. After any call, a caller
should call `datagrams_to_send` and re-arm its timer from `next_timer`.

How it works, in short:

* Every datagram has a fresh packet sequence number and carries the highest
  packet number received from the peer plus a 64-bit bitfield of the ones
  before it, and how long that newest packet waited for its ack. A packet
  that brings new reliable data is acked by whatever goes out within
  `Config.max_ack_delay`, or by an ack of its own then (at once for a
  heartbeat, a second such packet, or one that arrived out of order); the
  sender subtracts the wait from its round-trip sample. So a burst of work
  that answers nothing costs one datagram each way, not two, and the sender
  is not woken in the middle of it. A packet of nothing but known copies is
  acked by whatever goes out next, so copies cannot ping-pong.
* Reliable messages are cut into units (one per message, or one per fragment
  of a message above about 1.1 kB) with consecutive unit ids. A unit is done
  when any packet that carried it is acked. A packet is declared lost once a
  later packet was acked and it has been out longer than that round trip plus
  a reorder window (RACK-style fast retransmit; the window grows only when a
  "loss" turns out to have been reordering). Every unit also has its own
  RFC 6298 timeout (30 ms floor, 1.5x backoff per timeout of that unit).
* Redundancy, for small units: while unacked, a unit rides in later datagrams
  that go out anyway, and is copied on a timer (every 0.4 srtt) if nothing
  goes out, up to `Config.redundancy` extra copies; copies that do not fit get
  one extra datagram per flush. One lost datagram rarely costs a round trip.
* Acks that arrive are applied after any reply is built, so acknowledging our
  own traffic never delays delivery or an answer.
* The receiver keeps a bounded reorder buffer keyed by unit id, delivers in
  order exactly once, and reassembles fragments. Events go to one bounded
  queue; when it is full, units wait in the reorder buffer and, once that is
  full, are refused unacked, so the sender backs off instead of losing data.
* Intake is defensive: size, MAC, strict decode (see `netcode.envelope`), then
  a replay window over packet numbers, all before any state changes. Refusals
  are counted by reason in ``drops`` and never raise.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

import msgpack

from netcode.envelope import (
    ACK_DELAY_LIMIT,
    MAX_DATAGRAM,
    MAX_FRAGMENTS,
    Decoder,
    Dropped,
    Envelope,
    Kind,
    Opener,
    Sealer,
    check_peer_id,
    decode_payload,
    encode_payload,
    header_overhead,
    payload_decoder,
    unit_overhead,
)

Address = Hashable

_ACK_BITS = 64
_DATA = Kind.DATA
_HEARTBEAT = Kind.HEARTBEAT
_CLOSE = Kind.CLOSE
_UNIT_OVERHEAD = unit_overhead(False)
_FRAGMENT_OVERHEAD = unit_overhead(True)
_ACK_MASK = (1 << _ACK_BITS) - 1
_INF = float("inf")
#: a timer may fire this much before its time; what is due by then is done
_TIMER_SLACK = 0.0002
_pack = msgpack.Packer().pack  # this module's own packer (one call, no hooks)


@dataclass(frozen=True, slots=True)
class Config:
    """Tunables of one connection; the defaults suit a LAN game table."""

    max_datagram: int = 1200  # whole UDP payload we send; fragments above this
    max_message: int = 256 * 1024  # largest reliable message, encoded
    window: int = 1024  # reliable units in flight / reorder buffer size
    max_pending: int = 8192  # units queued behind the window before send fails
    max_unreliable_queue: int = 256
    max_events: int = 4096  # undelivered events held (per endpoint, or per lone connection)
    min_rto: float = 0.030
    max_rto: float = 3.0
    initial_rto: float = 0.25
    rto_backoff: float = 1.5
    min_reorder_window: float = 0.002  # a packet overtaken by this little is not lost
    redundancy: int = 5  # extra copies of a small unacked unit (piggybacked or timed)
    redundancy_max_unit: int = 512  # units above this are piggybacked only once lost
    extra_copy_packets: int = 1  # extra datagrams per flush for copies that did not fit
    copy_spacing: float = 0.4  # a small unacked unit is copied every srtt * this ...
    min_copy_spacing: float = 0.004  # ... but not more often than this
    heartbeat_interval: float = 0.05
    max_ack_delay: float = 0.002  # an ack may wait this long for company (0: at once)
    silence_timeout: float = 0.8  # heard nothing for this long: the peer is gone
    connect_timeout: float = 10.0  # never heard at all for this long: gone
    rtt_event_interval: float = 0.5  # at most one RttUpdated per peer per interval
    replay_window: int = 1024  # packet numbers remembered for replay checks
    max_sent_records: int = 4096

    def __post_init__(self) -> None:
        if not 200 <= self.max_datagram <= MAX_DATAGRAM:
            raise ValueError(f"max_datagram must be in [200, {MAX_DATAGRAM}]")


# -- events -------------------------------------------------------------------


@dataclass(slots=True)
class Delivered:
    """A reliable message from `peer`, in order, exactly once."""

    peer: int
    payload: Any


@dataclass(slots=True)
class Unreliable:
    """An unreliable message from `peer` (may be lost or reordered, never duplicated)."""

    peer: int
    payload: Any


@dataclass(slots=True)
class PeerJoined:
    """An endpoint heard from a peer it did not know yet."""

    peer: int
    address: Address


@dataclass(slots=True)
class PeerGone:
    """`peer` went silent ("silent"), never answered ("unreachable"), left ("closed"),
    or we closed it ("local")."""

    peer: int
    reason: str


@dataclass(slots=True)
class RttUpdated:
    """New smoothed round-trip estimate for `peer` (seconds)."""

    peer: int
    rtt: float
    rttvar: float
    rto: float


Event = Delivered | Unreliable | PeerJoined | PeerGone | RttUpdated


class SendQueueFull(Exception):
    """send_reliable was refused: too much is queued for this peer already."""


class PeerClosed(Exception):
    """The peer is gone; nothing more can be sent to it."""


# -- internals ----------------------------------------------------------------


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


class _OutUnit:
    __slots__ = (
        "id",
        "cost",
        "wire",
        "sends",
        "copies",
        "last_sent",
        "last_seq",
        "timeouts",
        "resend_at",
        "copy_at",
    )

    def __init__(self, uid: int, data: bytes, index: int, count: int) -> None:
        self.id = uid
        self.cost = len(data) + (_FRAGMENT_OVERHEAD if count > 1 else _UNIT_OVERHEAD)
        self.wire = [uid, data, index, count] if count > 1 else [uid, data]
        self.sends = 0
        self.copies = 0
        self.last_sent = -_INF
        self.last_seq = 0
        self.timeouts = 0
        self.resend_at = _INF
        self.copy_at = _INF


#: What we remember of a sent packet: (time sent, ids of the units it carried).
_Sent = tuple[float, tuple[int, ...]]


class Connection:
    """Protocol state toward one remote peer. Sans-IO: feed it, drain it."""

    __slots__ = (
        "_ack_pending",
        "_ack_due",
        "_ack_eliciting",
        "_highest_at",
        "_acks",
        "_acks_in",
        "_budget",
        "_close_copies",
        "_copies_due",
        "_copies_enabled",
        "_copy_interval",
        "_counters",
        "_events",
        "_fragment_size",
        "_largest_acked",
        "_last_rtt_event",
        "_next_seq",
        "_next_unit",
        "_on_gone",
        "_opener",
        "_partial",
        "_partial_count",
        "_payload_decoder",
        "_pending",
        "_recv_buffer",
        "_recv_next",
        "_reorder_window",
        "_replay",
        "_resend",
        "_sealer",
        "_sent",
        "_single_unit_max",
        "_suspects",
        "_unacked",
        "_unreliable",
        "address",
        "bytes_received",
        "bytes_sent",
        "config",
        "created",
        "drops",
        "gone_reason",
        "key",
        "last_heard",
        "last_sent",
        "latest_rtt",
        "local_id",
        "min_rtt",
        "packets_received",
        "packets_sent",
        "peer_id",
        "rto",
        "rttvar",
        "srtt",
        "stalled",
        "table_id",
        "_max_events",
    )

    def __init__(
        self,
        key: bytes,
        table_id: bytes,
        local_id: int,
        peer_id: int,
        address: Address,
        now: float,
        config: Config | None = None,
        events: deque[Event] | None = None,
        on_gone: Callable[[], None] | None = None,
    ) -> None:
        """`events` and `on_gone` let an `Endpoint` collect every peer's events
        in one bounded queue and learn when a peer goes away."""
        self.key = key
        self.table_id = table_id
        self.local_id = check_peer_id(local_id)
        self.peer_id = check_peer_id(peer_id)
        self.address = address
        self.config = config = config or Config()
        self.created = now
        self.last_heard: float | None = None
        self.last_sent = -_INF
        self.gone_reason: str | None = None
        self._on_gone = on_gone
        # packets
        self._next_seq = 1
        self._replay = SeqWindow(config.replay_window)
        self._acks = SeqWindow(_ACK_BITS + 1)
        self._ack_pending = False
        self._ack_due = _INF  # when the pending ack must go out (on its own if need be)
        self._ack_eliciting = 0  # packets waiting for that ack that asked for one
        self._highest_at = 0.0  # when the newest packet we acknowledge arrived
        self._largest_acked = 0
        self._sent: dict[int, _Sent] = {}
        self._acks_in: list[tuple[int, int, int, float]] = []  # received, not yet applied
        self._close_copies = 0
        # reliable, outgoing
        self._next_unit = 0
        self._pending: deque[_OutUnit] = deque()
        self._unacked: dict[int, _OutUnit] = {}
        self._resend: set[int] = set()
        self._unreliable: deque[bytes] = deque()
        self._budget = config.max_datagram - header_overhead(table_id)
        self._fragment_size = self._budget - unit_overhead(True)
        self._single_unit_max = self._budget - unit_overhead(False)
        # reliable, incoming
        self._recv_next = 0
        self._recv_buffer: dict[int, tuple[bytes, int, int]] = {}
        self._partial: list[bytes] = []
        self._partial_count = 0
        self._events: deque[Event] = deque() if events is None else events
        self.stalled = False  # deliveries held back because the event queue was full
        self._max_events = config.max_events
        self._opener = Opener(key, self.local_id, table_id)
        self._sealer = Sealer(key, self.peer_id, table_id, self.local_id)
        self._payload_decoder = payload_decoder(config.max_message)
        # round trip (RFC 6298)
        self.srtt: float | None = None
        self.latest_rtt: float | None = None
        self.min_rtt = _INF
        self._reorder_window = config.min_reorder_window
        self._copies_enabled = config.redundancy > 0
        self._copy_interval = config.initial_rto / 4
        self._copies_due = False
        # packets declared lost recently -> how much earlier than the newest
        # acked packet they left (a lower bound on the reordering if they arrive)
        self._suspects: dict[int, float] = {}
        self.rttvar = 0.0
        self.rto = config.initial_rto
        self._last_rtt_event = -_INF
        # accounting
        self.drops: Counter[str] = Counter()
        self.packets_sent = self.bytes_sent = self.packets_received = self.bytes_received = 0
        self._counters: Counter[str] = Counter()

    # -- application side -----------------------------------------------------

    @property
    def gone(self) -> bool:
        return self.gone_reason is not None

    def send_reliable(self, payload: Any) -> None:
        """Queue `payload` (plain msgpack data) for in-order exactly-once delivery."""
        if self.gone_reason is not None:
            raise PeerClosed(f"peer {self.peer_id} is gone ({self.gone_reason})")
        try:
            data = _pack(payload)
        except (TypeError, ValueError, OverflowError):
            data = encode_payload(payload)  # raises the explanatory TypeError
        cfg = self.config
        if len(data) > cfg.max_message:
            raise ValueError(f"message of {len(data)} bytes exceeds {cfg.max_message}")
        if isinstance(payload, _CONTAINERS):
            _check_decodable(data, self._payload_decoder)
        pending = self._pending
        uid = self._next_unit
        if len(data) <= self._single_unit_max:
            if len(pending) >= cfg.max_pending:
                raise SendQueueFull(f"{len(pending)} units already queued for {self.peer_id}")
            pending.append(_OutUnit(uid, data, 0, 1))
            self._next_unit = uid + 1
            return
        size = self._fragment_size
        count = -(-len(data) // size)
        if count > MAX_FRAGMENTS:
            raise ValueError("message needs too many fragments")
        if len(pending) + count > cfg.max_pending:
            raise SendQueueFull(f"{len(pending)} units already queued for {self.peer_id}")
        for index in range(count):
            chunk = data[index * size : (index + 1) * size]
            pending.append(_OutUnit(uid + index, chunk, index, count))
        self._next_unit = uid + count

    def send_unreliable(self, payload: Any) -> None:
        """Queue one unreliable message; it must fit in a single datagram."""
        if self.gone:
            raise PeerClosed(f"peer {self.peer_id} is gone ({self.gone_reason})")
        data = encode_payload(payload)
        if len(data) + 3 > self._budget:
            raise ValueError(f"unreliable message of {len(data)} bytes does not fit a datagram")
        if isinstance(payload, _CONTAINERS):
            _check_decodable(data, self._payload_decoder)
        if len(self._unreliable) >= self.config.max_unreliable_queue:
            self._unreliable.popleft()
            self._counters["unreliable_shed"] += 1
        self._unreliable.append(data)

    def close(self, now: float) -> None:
        """Leave: tell the peer (a few unreliable CLOSE datagrams) and stop."""
        if self.gone:
            return
        self._close_copies = 3
        self._set_gone("local")

    def next_event(self) -> Event | None:
        if not self._events:
            if self.stalled:
                self._deliver_ready()
            if not self._events:
                return None
        return self._events.popleft()

    def events(self) -> Iterator[Event]:
        """Drain the events that are ready (a generator; stop early if you like)."""
        while (event := self.next_event()) is not None:
            yield event

    @property
    def counters(self) -> Counter[str]:
        """Packets and bytes each way, resends, duplicates, redundancy: for stats."""
        counts = Counter(self._counters)
        counts.update(
            packets_sent=self.packets_sent,
            bytes_sent=self.bytes_sent,
            packets_received=self.packets_received,
            bytes_received=self.bytes_received,
        )
        return counts

    @property
    def unacked(self) -> int:
        """Reliable units sent or queued and not yet acknowledged."""
        self._apply_acks()
        return len(self._unacked) + len(self._pending)

    # -- network side ---------------------------------------------------------

    def receive_datagram(self, data: bytes, address: Address, now: float) -> None:
        """Take one datagram off the wire. Never raises; bad input is counted."""
        try:
            envelope = self._opener.open_fields(data)
        except Dropped as dropped:
            self.drops[dropped.reason] += 1
            return
        if envelope[2] != self.peer_id:
            self.drops["unknown_peer"] += 1
            return
        self.receive_envelope(envelope, address, now, len(data))

    def receive_envelope(self, env: Envelope, address: Address, now: float, size: int) -> None:
        """Intake after authentication (the `Endpoint` decodes once for all peers)."""
        _, _, _, seq, ack, ack_bits, ack_delay, kind, body = env
        replay = self._replay
        if seq <= replay.highest:
            status = replay.status(seq)
            if status is not None:
                self.drops[status] += 1
                return
        if self.gone:
            self.drops["gone"] += 1
            return
        if seq == replay.highest + 1:  # in order: the usual case, inlined
            replay.mask = ((replay.mask << 1) | 1) & replay.full
            replay.highest = seq
        else:
            replay.mark(seq)
        self.packets_received += 1
        self.bytes_received += size
        self.last_heard = now
        self.address = address
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

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        """Everything due now, sealed and addressed."""
        if (
            len(self._pending) == 1
            and not self._unacked
            and not self._resend
            and not self._unreliable
            and self.gone_reason is None
        ):  # the common case: one new message, nothing else in flight
            out = self._build_one(now)
            if self._acks_in:
                self._apply_acks()
            return out
        if self._acks_in and not (self._pending or self._unreliable):
            self._apply_acks()  # nothing new waits, so settle first
        out = self._build(now)
        if self._acks_in:
            self._apply_acks()
            if self._resend:  # the acks revealed losses: resend at once
                out += self._build(now)
        return out

    def _apply_acks(self) -> None:
        acks = self._acks_in
        if acks:
            self._acks_in = []
            for ack, bits, delay, received in acks:
                if self._sent:
                    self._on_ack(ack, bits, delay, received)

    def _build(self, now: float) -> list[tuple[bytes, Address]]:
        pending = self._pending
        if (
            len(pending) == 1
            and not self._unacked
            and not self._resend
            and not self._unreliable
            and self.gone_reason is None
        ):
            return self._build_one(now)
        out: list[tuple[bytes, Address]] = []
        if self.gone:
            while self._close_copies:
                self._close_copies -= 1
                out.append((self._seal(Kind.CLOSE, None, now), self.address))
            return out
        heartbeat_due = now >= self.last_sent + self.config.heartbeat_interval
        copies_only = self._copies_due
        ack_due = self._ack_pending and now >= self._ack_due - _TIMER_SLACK
        if not (
            heartbeat_due
            or ack_due
            or self._pending
            or self._resend
            or self._unreliable
            or copies_only
        ):
            return out
        self._copies_due = False
        extra = self.config.extra_copy_packets
        while True:
            units, unreliables, budget = self._fill()
            if not (units or unreliables or ack_due or heartbeat_due or copies_only):
                break
            left_out = False
            if self.config.redundancy and len(self._unacked) > len(units):
                left_out = self._piggyback(units, budget, now)
            if units or unreliables:
                seq = self._next_seq
                rto = self.rto
                cfg = self.config
                copy_at = now + self._copy_interval
                for unit in units:
                    unit.sends += 1
                    unit.last_sent = now
                    unit.last_seq = seq
                    unit.resend_at = now + (self._unit_rto(unit) if unit.timeouts else rto)
                    if unit.copies < cfg.redundancy and (
                        unit.cost <= cfg.redundancy_max_unit or unit.sends > 1
                    ):
                        unit.copy_at = copy_at
                if units:
                    self._record(seq, now, tuple([u.id for u in units]))
                body = [[u.wire for u in units], unreliables]
                out.append((self._seal(Kind.DATA, body, now), self.address))
            elif heartbeat_due:
                self._record(self._next_seq, now, ())
                out.append((self._seal(Kind.HEARTBEAT, None, now), self.address))
            else:
                out.append((self._seal(Kind.ACK, None, now), self.address))
            heartbeat_due = ack_due = False
            copies_only = False
            if not (self._pending or self._resend or self._unreliable):
                if not (left_out and extra):
                    break
                # copies that did not fit get a datagram of their own (at most
                # `extra_copy_packets` per flush): a burst of losses then heals
                # in one step instead of one unit per later datagram
                extra -= 1
                copies_only = True
        return out

    def _build_one(self, now: float) -> list[tuple[bytes, Address]]:
        """The common case, kept short: one new unit, nothing else in flight."""
        unit = self._pending.popleft()
        uid = unit.id
        self._unacked[uid] = unit
        seq = self._next_seq  # the packet _seal makes next
        unit.sends = 1
        unit.last_sent = now
        unit.last_seq = seq
        unit.resend_at = now + self.rto
        if self._copies_enabled and unit.cost <= self.config.redundancy_max_unit:
            unit.copy_at = now + self._copy_interval
        self._sent[seq] = (now, (uid,))
        return [(self._seal(_DATA, [[unit.wire], ()], now), self.address)]

    def next_timer(self) -> float | None:
        """When `handle_timer` should next be called (absolute time), or None."""
        if self.gone:
            return None
        cfg = self.config
        if self.last_heard is None:
            when = self.created + cfg.connect_timeout
        else:
            when = self.last_heard + cfg.silence_timeout
        beat = self.last_sent + cfg.heartbeat_interval
        if beat < when:
            when = beat
        if self._ack_due < when:
            when = self._ack_due
        resend = self._resend
        for unit in self._unacked.values():
            if unit.resend_at < when and unit.id not in resend:
                when = unit.resend_at
            if unit.copy_at < when:
                when = unit.copy_at
        return when

    def handle_timer(self, now: float) -> None:
        if self.gone:
            return
        self._apply_acks()
        cfg = self.config
        if self.last_heard is None:
            if now >= self.created + cfg.connect_timeout:
                self._set_gone("unreachable")
                return
        elif now >= self.last_heard + cfg.silence_timeout:
            self._set_gone("silent")
            return
        resend = self._resend
        for unit in self._unacked.values():
            if unit.resend_at <= now and unit.id not in resend:
                unit.timeouts += 1
                unit.resend_at = _INF
                resend.add(unit.id)
                self._counters["timeouts"] += 1
            if unit.copy_at <= now:
                unit.copy_at = _INF
                self._copies_due = True

    # -- internals ------------------------------------------------------------

    def _seal(self, kind: Kind, body: Any, now: float) -> bytes:
        seq = self._next_seq
        self._next_seq = seq + 1
        ack, bits = self._acks.ack_fields()
        data = self._sealer.seal(seq, ack, bits, self._ack_delay(now), kind, body)
        self._ack_pending = False
        self._ack_due = _INF
        self._ack_eliciting = 0
        self.last_sent = now
        self.packets_sent += 1
        self.bytes_sent += len(data)
        return data

    def _ack_delay(self, now: float) -> int:
        """Microseconds since the newest packet we acknowledge arrived (0 before any)."""
        if not self._acks.highest:
            return 0
        return min(max(int((now - self._highest_at) * 1_000_000), 0), ACK_DELAY_LIMIT - 1)

    def _record(self, seq: int, now: float, units: tuple[int, ...]) -> None:
        sent = self._sent
        sent[seq] = (now, units)
        if len(sent) > self.config.max_sent_records:
            oldest = next(iter(sent))
            self._lose(oldest, sent.pop(oldest))

    def _unit_rto(self, unit: _OutUnit) -> float:
        rto = self.rto * self.config.rto_backoff**unit.timeouts if unit.timeouts else self.rto
        return min(rto, self.config.max_rto)

    def _fill(self) -> tuple[list[_OutUnit], list[bytes], int]:
        """Pick units (resends first, then new ones) and unreliables for one packet."""
        budget = self._budget
        units: list[_OutUnit] = []
        if self._resend:
            unacked = self._unacked
            for uid in sorted(self._resend):
                unit = unacked[uid]
                if unit.cost > budget:
                    break
                units.append(unit)
                budget -= unit.cost
                self._resend.discard(uid)
                self._counters["resent_units"] += 1
        pending = self._pending
        if pending:
            unacked = self._unacked
            limit = (next(iter(unacked)) if unacked else pending[0].id) + self.config.window
            while pending:
                unit = pending[0]
                if unit.id >= limit or unit.cost > budget:
                    break
                pending.popleft()
                unacked[unit.id] = unit
                units.append(unit)
                budget -= unit.cost
        unreliables: list[bytes] = []
        queue = self._unreliable
        while queue and len(queue[0]) + 3 <= budget:
            item = queue.popleft()
            unreliables.append(item)
            budget -= len(item) + 3
        return units, unreliables, budget

    def _piggyback(self, units: list[_OutUnit], budget: int, now: float) -> bool:
        """Add redundant copies of older small unacked units that still fit;
        True if some candidate did not fit."""
        cfg = self.config
        in_packet = {u.id for u in units}
        left_out = False
        for unit in self._unacked.values():
            if (
                unit.copies < cfg.redundancy
                and (unit.cost <= cfg.redundancy_max_unit or unit.sends > 1)
                and unit.last_sent < now
                and unit.id not in in_packet
            ):
                if unit.cost > budget:
                    left_out = True
                    continue
                unit.copies += 1
                units.append(unit)
                budget -= unit.cost
                self._counters["redundant_units"] += 1
        return left_out

    def _on_ack(self, ack: int, bits: int, delay: int, now: float) -> None:
        sent = self._sent
        if ack == 0 or not sent:
            return
        acked = []
        for seq in sent:
            if seq > ack:
                break
            offset = ack - seq
            if offset == 0 or (offset <= _ACK_BITS and (bits >> (offset - 1)) & 1):
                acked.append(seq)
        newest_sample: float | None = None
        if acked:
            unacked = self._unacked
            resend = self._resend
            for seq in acked:
                sent_at, carried = sent.pop(seq)
                if seq == ack:
                    newest_sample = now - sent_at
                for uid in carried:
                    if unacked.pop(uid, None) is not None and resend:
                        resend.discard(uid)
        if ack > self._largest_acked:
            self._largest_acked = ack
        if newest_sample is not None:
            self._rtt_sample(newest_sample, delay / 1_000_000, now)
        # RACK-style loss detection: a packet sent before one that was acked is
        # lost once it has been out longer than that round trip plus a reorder
        # window. The window starts tiny and grows (up to a quarter of the
        # minimum round trip) past the reordering seen whenever a "lost" packet
        # turns out to have arrived after all, so jitter stops causing resends.
        if self._suspects:
            self._check_spurious(ack, bits)
        latest = self.latest_rtt
        if latest is None:
            return
        deadline = now - latest - self._reorder_window
        horizon = self._largest_acked
        newest_acked = now - latest  # about when the newest acked packet left
        while sent:
            seq = next(iter(sent))
            if seq >= horizon:
                break
            record = sent[seq]
            if record[0] > deadline:
                break
            del sent[seq]
            self._lose(seq, record)
            self._suspects[seq] = newest_acked - record[0]
            if len(self._suspects) > 256:
                del self._suspects[next(iter(self._suspects))]

    def _check_spurious(self, ack: int, bits: int) -> None:
        suspects = self._suspects
        for seq in list(suspects):
            offset = ack - seq
            if offset < 0:
                break
            if offset > _ACK_BITS:
                del suspects[seq]
            elif offset == 0 or (bits >> (offset - 1)) & 1:
                self._counters["spurious_losses"] += 1
                gap = suspects.pop(seq)
                cap = max(self.config.min_reorder_window, self.min_rtt / 4)
                grown = 1.25 * gap + self.config.min_reorder_window
                self._reorder_window = min(cap, max(self._reorder_window, grown))

    def _lose(self, seq: int, record: _Sent) -> None:
        """A packet is presumed lost: resend what it carried, unless sent again since."""
        unacked = self._unacked
        for uid in record[1]:
            unit = unacked.get(uid)
            if unit is not None and unit.last_seq == seq:
                self._resend.add(uid)
                self._counters["fast_resends"] += 1

    def _rtt_sample(self, sample: float, ack_delay: float, now: float) -> None:
        """RFC 6298 smoothing; the timeout has a LAN floor and a ceiling.

        The peer's ack delay is taken off the sample, as QUIC does (RFC 9002
        5.3): only while what is left is no shorter than the least round trip
        seen, so a wrong delay can never make the link look faster than it was."""
        self.latest_rtt = sample
        if sample < self.min_rtt:
            self.min_rtt = sample
        if ack_delay and sample - ack_delay >= self.min_rtt:
            sample -= ack_delay
        srtt = self.srtt
        if srtt is None:
            srtt = sample
            rttvar = sample / 2
        else:
            delta = srtt - sample
            rttvar = 0.75 * self.rttvar + 0.25 * (delta if delta > 0 else -delta)
            srtt = 0.875 * srtt + 0.125 * sample
        self.srtt = srtt
        self.rttvar = rttvar
        cfg = self.config
        rto = srtt + (4 * rttvar if rttvar > 0.00025 else 0.001)
        if rto < cfg.min_rto:
            rto = cfg.min_rto
        elif rto > cfg.max_rto:
            rto = cfg.max_rto
        self.rto = rto
        interval = srtt * cfg.copy_spacing
        self._copy_interval = interval if interval > cfg.min_copy_spacing else cfg.min_copy_spacing
        if now - self._last_rtt_event >= cfg.rtt_event_interval:
            self._last_rtt_event = now
            self._push(RttUpdated(self.peer_id, self.srtt, self.rttvar, self.rto))

    def _push(self, event: Event) -> bool:
        if len(self._events) >= self.config.max_events:
            self.drops["event_queue_full"] += 1
            return False
        self._events.append(event)
        return True

    def _accept_unit(self, unit: tuple) -> bool | None:
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

    def _set_gone(self, reason: str) -> None:
        self.gone_reason = reason
        self._pending.clear()
        self._unacked.clear()
        self._resend.clear()
        self._unreliable.clear()
        self._sent.clear()
        # PeerGone goes past the event bound: it must never be lost.
        self._events.append(PeerGone(self.peer_id, reason))
        if self._on_gone is not None:
            self._on_gone()


#: Only containers can hide something the strict decoder refuses (non-str keys),
#: so only they are test-decoded at send time.
_CONTAINERS = (dict, list, tuple)


def _check_decodable(data: bytes, decoder: Decoder) -> None:
    """Fail at the sender, not the receiver, on data the receiver would refuse.

    ``decoder`` is the connection's own payload decoder (the receiver's limits);
    each decode is whole, so sending and receiving can share it."""
    try:
        decoder.decode(data)
    except ValueError:
        raise TypeError(
            "payload would be refused by the receiver: maps need str or bytes keys, "
            "and nothing may exceed the message size limit"
        ) from None


# -- many peers on one socket ---------------------------------------------------


class Endpoint:
    """All connections of one local peer, sharing one socket and one table key.

    Datagrams from unknown senders that pass the MAC open a new connection
    (up to `max_peers`) when `accept_unknown` is set; a peer that went away is
    remembered for a while so its late datagrams do not bring it back.
    """

    def __init__(
        self,
        key: bytes,
        table_id: bytes,
        local_id: int | None = None,
        config: Config | None = None,
        *,
        accept_unknown: bool = True,
        max_peers: int = 16,
        tombstones: int = 256,
    ) -> None:
        self.key = key
        self.table_id = table_id
        self.local_id = check_peer_id(
            local_id if local_id is not None else int.from_bytes(os.urandom(4), "big")
        )
        self.config = config or Config()
        self.accept_unknown = accept_unknown
        self.max_peers = max_peers
        self.peers: dict[int, Connection] = {}
        #: Ready events of every peer, oldest first (bounded by `Config.max_events`);
        #: `next_event` pops from it, and so may an I/O adapter.
        self.ready: deque[Event] = deque()
        self._opener = Opener(key, self.local_id, table_id)
        self._reap_due = False
        self._departed: deque[int] = deque(maxlen=tombstones)
        self._departed_set: set[int] = set()
        self._events = self.ready
        self._drops: Counter[str] = Counter()
        self._retired_drops: Counter[str] = Counter()
        self._retired_counters: Counter[str] = Counter()

    # -- application side -----------------------------------------------------

    def connect(self, peer_id: int, address: Address, now: float) -> Connection:
        """Start talking to `peer_id` at `address` (idempotent)."""
        conn = self.peers.get(peer_id)
        if conn is None:
            if peer_id == self.local_id:
                raise ValueError("cannot connect to ourselves")
            conn = Connection(
                self.key, self.table_id, self.local_id, peer_id, address, now, self.config,
                self._events, self._note_gone,
            )  # fmt: skip
            self.peers[peer_id] = conn
            self._departed_set.discard(peer_id)
        return conn

    def peer(self, peer_id: int) -> Connection:
        try:
            return self.peers[peer_id]
        except KeyError:
            raise PeerClosed(f"no peer {peer_id}") from None

    def send_reliable(self, peer_id: int, payload: Any) -> None:
        conn = self.peers.get(peer_id)
        if conn is None:
            raise PeerClosed(f"no peer {peer_id}")
        conn.send_reliable(payload)

    def send_unreliable(self, peer_id: int, payload: Any) -> None:
        self.peer(peer_id).send_unreliable(payload)

    def close(self, peer_id: int, now: float) -> None:
        self.peer(peer_id).close(now)

    def next_event(self) -> Event | None:
        events = self._events
        if events:
            return events.popleft()
        if self._any_stalled():
            return events.popleft() if events else None
        return None

    def _any_stalled(self) -> bool:
        """Let peers deliver what they held back while the queue was full."""
        stalled = False
        for conn in self.peers.values():
            if conn.stalled:
                conn._deliver_ready()
                stalled = True
        return stalled

    def events(self) -> Iterator[Event]:
        while (event := self.next_event()) is not None:
            yield event

    @property
    def has_events(self) -> bool:
        """Whether `next_event` would return something now (cheap to ask)."""
        return bool(self._events) or self.has_stalled

    @property
    def has_stalled(self) -> bool:
        """Whether some peer holds deliveries back because `ready` was full."""
        return any(conn.stalled for conn in self.peers.values())

    def note_drop(self, reason: str) -> None:
        """Count a datagram refused outside the endpoint (by the I/O adapter)."""
        self._drops[reason] += 1

    @property
    def drops(self) -> Counter[str]:
        """Refused datagrams and messages, by reason (all peers, past and present)."""
        total = self._drops + self._retired_drops
        for conn in self.peers.values():
            total.update(conn.drops)
        return total

    @property
    def counters(self) -> Counter[str]:
        total = Counter(self._retired_counters)
        for conn in self.peers.values():
            total.update(conn.counters)
        return total

    # -- network side ---------------------------------------------------------

    def receive_datagram(self, data: bytes, address: Address, now: float) -> None:
        """Take one datagram off the socket. Never raises; bad input is counted."""
        try:
            env = self._opener.open_fields(data)
        except Dropped as dropped:
            self._drops[dropped.reason] += 1
            return
        conn = self.peers.get(env[2])
        if conn is None:
            if env[2] in self._departed_set:
                self._drops["departed_peer"] += 1
                return
            if not self.accept_unknown or len(self.peers) >= self.max_peers:
                self._drops["unknown_peer"] += 1
                return
            if env[2] == self.local_id:
                self._drops["unknown_peer"] += 1
                return
            conn = self.connect(env[2], address, now)
            self._events.append(PeerJoined(env[2], address))
        conn.receive_envelope(env, address, now, len(data))

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        peers = self.peers
        if len(peers) == 1:
            for conn in peers.values():
                out = conn.datagrams_to_send(now)
        else:
            out = []
            for conn in peers.values():
                out.extend(conn.datagrams_to_send(now))
        if self._reap_due:
            self._reap()
        return out

    def _note_gone(self) -> None:
        self._reap_due = True

    def next_timer(self) -> float | None:
        best: float | None = None
        for conn in self.peers.values():
            when = conn.next_timer()
            if when is not None and (best is None or when < best):
                best = when
        return best

    def handle_timer(self, now: float) -> None:
        for conn in list(self.peers.values()):
            conn.handle_timer(now)

    def _reap(self) -> None:
        """Forget connections that are gone once their CLOSEs are out."""
        self._reap_due = False
        for peer_id, conn in list(self.peers.items()):
            if conn.gone and conn._close_copies:
                self._reap_due = True  # its goodbyes are still to be sent
            if conn.gone and not conn._close_copies:
                del self.peers[peer_id]
                self._retired_drops.update(conn.drops)
                self._retired_counters.update(conn.counters)
                if len(self._departed) == self._departed.maxlen:
                    self._departed_set.discard(self._departed[0])
                self._departed.append(peer_id)
                self._departed_set.add(peer_id)
