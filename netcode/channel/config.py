"""The channel's tunables and the limits they must respect.

Owns: `Config` (every number a connection runs by: datagram and message sizes,
windows, timeouts, redundancy, heartbeats) and the `Address` type.

Must not touch: connection state, the wire format (`netcode.envelope` owns
it), sockets and clocks.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from netcode.envelope import MAX_DATAGRAM

Address = Hashable

INF = float("inf")
#: packets acknowledged by one ack: the newest and a bitfield of those before it
ACK_BITS = 64


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
