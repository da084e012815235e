"""Round-trip estimation and loss recovery for one connection.

Owns: what we remember of sent packets (`_sent`), the acks received and not
yet applied, the RFC 6298 round-trip estimate and timeout (with QUIC's ack
delay correction), RACK-style loss detection with its adaptive reorder
window, and the spacing of redundant copies that follows from the round trip.
Losses are handed to the sender as unit ids to resend (``_resend``).

Must not touch: building or sealing datagrams (`sending`), intake
(`receiving`), sockets and clocks (``now`` is always an argument). A mixin of
`Connection`: its state lives in the connection's slots, listed in `STATE`.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, ClassVar

from netcode.channel.config import ACK_BITS, INF
from netcode.channel.events import RttUpdated
from netcode.channel.parts import ConnectionParts

if TYPE_CHECKING:
    from netcode.channel.config import Config
    from netcode.channel.sending import OutUnit

#: What we remember of a sent packet: (time sent, ids of the units it carried).
Sent = tuple[float, tuple[int, ...]]
#: raw round trips kept to tell the link's spread (``RttUpdated.spread``)
RECENT = 32
#: raw round trips needed before a spread is told: fewer tell too little of a jittery link
SPREAD_AFTER = 8


class LossRecovery(ConnectionParts):
    """Acks in, round trips and losses out (a `Connection` mixin)."""

    __slots__ = ()
    STATE: ClassVar[tuple[str, ...]] = (
        "_sent",
        "_acks_in",
        "_largest_acked",
        "_reorder_window",
        "_suspects",
        "_last_rtt_event",
        "_copy_interval",
        "srtt",
        "latest_rtt",
        "min_rtt",
        "recent_rtts",
        "rttvar",
        "rto",
    )

    def _init_recovery(self, config: Config) -> None:
        self._largest_acked = 0
        self._sent: dict[int, Sent] = {}
        self._acks_in: list[tuple[int, int, int, float]] = []  # received, not yet applied
        # round trip (RFC 6298)
        self.srtt: float | None = None
        self.latest_rtt: float | None = None
        self.min_rtt = INF
        #: the latest round trips, less the ack delay the peer says it added (never below the least)
        self.recent_rtts: deque[float] = deque(maxlen=RECENT)
        self._reorder_window = config.min_reorder_window
        self._copy_interval = config.initial_rto / 4
        # packets declared lost recently -> how much earlier than the newest
        # acked packet they left (a lower bound on the reordering if they arrive)
        self._suspects: dict[int, float] = {}
        self.rttvar = 0.0
        self.rto = config.initial_rto
        self._last_rtt_event = -INF

    def _apply_acks(self) -> None:
        acks = self._acks_in
        if acks:
            self._acks_in = []
            for ack, bits, delay, received in acks:
                if self._sent:
                    self._on_ack(ack, bits, delay, received)

    def _record(self, seq: int, now: float, units: tuple[int, ...]) -> None:
        sent = self._sent
        sent[seq] = (now, units)
        if len(sent) > self.config.max_sent_records:
            oldest = next(iter(sent))
            self._lose(oldest, sent.pop(oldest))

    def _unit_rto(self, unit: OutUnit) -> float:
        rto = self.rto * self.config.rto_backoff**unit.timeouts if unit.timeouts else self.rto
        return min(rto, self.config.max_rto)

    def _on_ack(self, ack: int, bits: int, delay: int, now: float) -> None:
        sent = self._sent
        if ack == 0 or not sent:
            return
        acked = []
        for seq in sent:
            if seq > ack:
                break
            offset = ack - seq
            if offset == 0 or (offset <= ACK_BITS and (bits >> (offset - 1)) & 1):
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
            if offset > ACK_BITS:
                del suspects[seq]
            elif offset == 0 or (bits >> (offset - 1)) & 1:
                self._counters["spurious_losses"] += 1
                gap = suspects.pop(seq)
                cap = max(self.config.min_reorder_window, self.min_rtt / 4)
                grown = 1.25 * gap + self.config.min_reorder_window
                self._reorder_window = min(cap, max(self._reorder_window, grown))

    def _lose(self, seq: int, record: Sent) -> None:
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
        self.recent_rtts.append(sample)
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
        if now - self._last_rtt_event >= cfg.rtt_event_interval or len(self.recent_rtts) == SPREAD_AFTER:
            self._last_rtt_event = now
            self._push(RttUpdated(self.peer_id, self.srtt, self.rttvar, self.rto, self.min_rtt, self.spread,
                                  min(self.recent_rtts)))

    @property
    def spread(self) -> float | None:
        """How far the recent round trips reach above the least one ever seen, once
        ``SPREAD_AFTER`` are known: their second largest (one resent datagram does not count),
        but never more than twice their median's distance (so a peer that delays the acks of
        some moments it picks, say while a room is open, widens nothing: it would have to delay
        most of them).

        A peer's word on how long it held an ack can only narrow this (a delay it did not add
        makes its link look steadier than it is, which costs it, in a race); it widens it only
        by delaying most acks of all the traffic it gets, which is being a jittery link, not
        looking like one to a probe it can pick out (the fair races' bound takes the smaller of
        this and the spread of its pings, and at most a cap)."""
        recent = self.recent_rtts
        if len(recent) < SPREAD_AFTER:
            return None
        ordered = sorted(recent)
        least = self.min_rtt
        median = ordered[len(ordered) // 2]
        return max(0.0, min(ordered[-2] - least, 2 * (median - least)))
