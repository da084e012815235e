"""Sending: the queues of one connection and the datagrams built from them.

Owns: reliable units waiting (``_pending``) and in flight (``_unacked``),
cutting messages into fragments, unreliable messages, choosing what goes in
each datagram (resends first, then new units, then unreliables, then
redundant copies of small unacked units), packet numbers (never one past
`Config.max_packet_number`: the connection closes first, so a nonce never
repeats), the ack we owe the peer and when it is due, heartbeats and
goodbyes, and sealing each datagram.

Must not touch: intake (`receiving`), the round-trip and loss bookkeeping
beyond recording what each packet carried (`recovery`), sockets and clocks.
A mixin of `Connection`: its state lives in the connection's slots, listed
in `STATE`.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, ClassVar

import msgpack

from netcode.channel.config import INF
from netcode.channel.events import PeerClosed, SendQueueFull
from netcode.channel.parts import ConnectionParts
from netcode.envelope import (
    ACK_DELAY_LIMIT,
    MAX_FRAGMENTS,
    Decoder,
    Kind,
    Sealer,
    encode_payload,
    header_overhead,
    payload_decoder,
    unit_overhead,
)

if TYPE_CHECKING:
    from netcode.channel.config import Address, Config

_DATA = Kind.DATA
_UNIT_OVERHEAD = unit_overhead(False)
_FRAGMENT_OVERHEAD = unit_overhead(True)
#: a timer may fire this much before its time; what is due by then is done
_TIMER_SLACK = 0.0002
_pack = msgpack.Packer().pack  # this module's own packer (one call, no hooks)


class _PacketNumbersExhausted(Exception):
    """The next packet number would pass `Config.max_packet_number`."""


class OutUnit:
    """One reliable unit (a whole message or one fragment) from queued to acked."""

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
        self.last_sent = -INF
        self.last_seq = 0
        self.timeouts = 0
        self.resend_at = INF
        self.copy_at = INF


class Sending(ConnectionParts):
    """Queues in, sealed datagrams out (a `Connection` mixin)."""

    __slots__ = ()
    STATE: ClassVar[tuple[str, ...]] = (
        "_next_seq",
        "_next_unit",
        "_pending",
        "_unacked",
        "_resend",
        "_unreliable",
        "_budget",
        "_fragment_size",
        "_single_unit_max",
        "_close_copies",
        "_copies_enabled",
        "_copies_due",
        "_ack_pending",
        "_ack_due",
        "_ack_eliciting",
        "_sealer",
        "_seq_limit",
        "_check_decoder",
        "last_sent",
        "packets_sent",
        "bytes_sent",
    )

    def _init_sending(self, config: Config) -> None:
        self.last_sent = -INF
        self._next_seq = 1
        self._ack_pending = False
        self._ack_due = INF  # when the pending ack must go out (on its own if need be)
        self._ack_eliciting = 0  # packets waiting for that ack that asked for one
        self._close_copies = 0
        self._next_unit = 0
        self._pending: deque[OutUnit] = deque()
        self._unacked: dict[int, OutUnit] = {}
        self._resend: set[int] = set()
        self._unreliable: deque[bytes] = deque()
        self._seq_limit = config.max_packet_number
        self._sealer: Sealer | None = None  # until the keys are agreed
        self._budget = config.max_datagram - header_overhead()
        self._fragment_size = self._budget - unit_overhead(True)
        self._single_unit_max = self._budget - unit_overhead(False)
        self._copies_enabled = config.redundancy > 0
        self._copies_due = False
        self.packets_sent = self.bytes_sent = 0
        # the receiver's limits, for the check on sending (tuples: see ``payload_decoder``)
        self._check_decoder = payload_decoder(config.max_message, use_list=False)

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
        if isinstance(payload, CONTAINERS):
            check_decodable(data, self._check_decoder)
        pending = self._pending
        uid = self._next_unit
        if len(data) <= self._single_unit_max:
            if len(pending) >= cfg.max_pending:
                raise SendQueueFull(f"{len(pending)} units already queued for {self.peer_id}")
            pending.append(OutUnit(uid, data, 0, 1))
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
            pending.append(OutUnit(uid + index, chunk, index, count))
        self._next_unit = uid + count

    def send_unreliable(self, payload: Any) -> None:
        """Queue one unreliable message; it must fit in a single datagram."""
        if self.gone:
            raise PeerClosed(f"peer {self.peer_id} is gone ({self.gone_reason})")
        data = encode_payload(payload)
        if len(data) + 3 > self._budget:
            raise ValueError(f"unreliable message of {len(data)} bytes does not fit a datagram")
        if isinstance(payload, CONTAINERS):
            check_decodable(data, self._check_decoder)
        if len(self._unreliable) >= self.config.max_unreliable_queue:
            self._unreliable.popleft()
            self._counters["unreliable_shed"] += 1
        self._unreliable.append(data)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        """Everything due now, sealed and addressed."""
        if self._initiator is not None:
            return self._handshake_datagrams(now)
        try:
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
        except _PacketNumbersExhausted:
            self._set_gone("exhausted")  # what was built in this call never leaves
            return []

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

    def _seal(self, kind: Kind, body: Any, now: float) -> bytes:
        seq = self._next_seq
        if seq > self._seq_limit:
            raise _PacketNumbersExhausted
        self._next_seq = seq + 1
        ack, bits = self._acks.ack_fields()
        sealer = self._sealer
        assert sealer is not None, "sealed before the keys were agreed"
        data = sealer.seal(seq, ack, bits, self._ack_delay(now), kind, body)
        self._ack_pending = False
        self._ack_due = INF
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

    def _fill(self) -> tuple[list[OutUnit], list[bytes], int]:
        """Pick units (resends first, then new ones) and unreliables for one packet."""
        budget = self._budget
        units: list[OutUnit] = []
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

    def _piggyback(self, units: list[OutUnit], budget: int, now: float) -> bool:
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


#: Only containers can hide something the strict decoder refuses (non-str keys),
#: so only they are test-decoded at send time.
CONTAINERS = (dict, list, tuple)


def check_decodable(data: bytes, decoder: Decoder) -> None:
    """Fail at the sender, not the receiver, on data the receiver would refuse.

    ``decoder`` has the receiver's limits (the connection's own, kept for this check); each
    decode is whole, so one decoder serves every check."""
    try:
        decoder.decode(data)
    except ValueError:
        raise TypeError(
            "payload would be refused by the receiver: maps need str or bytes keys, "
            "and nothing may exceed the message size limit"
        ) from None
