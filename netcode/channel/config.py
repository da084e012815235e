"""The channel's tunables and the limits they must respect.

Owns: `Config` (every number a connection runs by: datagram and message sizes,
windows, timeouts, redundancy, heartbeats, and the join's retries, timeouts
and rate limits) and the `Address` type.

Must not touch: connection state, the wire format (`netcode.envelope` owns
it), sockets and clocks.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from netcode.envelope import MAX_DATAGRAM, MIN_INIT

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
    heartbeat_interval: float = 0.1  # an idle link's sign of life: 8 within the silence timeout
    max_ack_delay: float = 0.002  # an ack may wait this long for company (0: at once)
    silence_timeout: float = 0.8  # heard nothing for this long: the peer is gone
    # A timer that runs this much later than it was due means this program was kept from running
    # (a busy or suspended machine): the time it lost is not counted as its peers' silence.
    stall: float = 0.1
    connect_timeout: float = 10.0  # never heard at all for this long: gone
    rtt_event_interval: float = 0.5  # at most one RttUpdated per peer per interval
    replay_window: int = 1024  # packet numbers remembered for replay checks
    max_sent_records: int = 4096
    #: a connection closes ("exhausted") rather than send a packet number above
    #: this: a nonce never repeats under one key
    max_packet_number: int = (1 << 63) - 1
    # joining (see `netcode.channel.admission`)
    handshake_resend_max: float = 1.0  # a joiner repeats its INIT, backing off up to this ...
    handshake_copy_after: float = 0.01  # ... each time twice, this far apart (0: once)
    handshake_timeout: float = 5.0  # an attempt unconfirmed this long after its last INIT fails
    max_handshakes: int = 16  # attempts a host has in progress at once ...
    max_source_handshakes: int = 4  # ... and from one source (an IP address)
    evict_after: float = 1.0  # a full door's oldest attempt this old gives way to a newcomer
    cookie_lifetime: float = 2.0  # a RETRY's cookie is good for between this and twice this
    failures_before_limit: int = 5  # failed attempts from one source before it is slowed ...
    limited_interval: float = 5.0  # ... to one attempt per this many seconds
    table_failures_before_limit: int = 20  # failed attempts at the table before all are slowed ...
    table_limited_interval: float = 1.0  # ... to one new attempt per this many seconds
    max_sources: int = 1024  # sources whose attempts a host remembers
    max_silent_retry: float = 1.0  # a BUSY asking a joiner to wait longer ends its attempt

    def __post_init__(self) -> None:
        if not MIN_INIT <= self.max_datagram <= MAX_DATAGRAM:
            raise ValueError(f"max_datagram must be in [{MIN_INIT}, {MAX_DATAGRAM}]")
        if not 1 <= self.max_packet_number < 1 << 63:
            raise ValueError("max_packet_number must be in [1, 2**63)")
