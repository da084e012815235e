"""Joining: the joiner's side of the handshake, on its connection to the host.

Owns: sending INIT until the host answers (backing off up to
`Config.handshake_resend_max`; each time twice, `Config.handshake_copy_after`
apart, as QUIC may send two datagrams on a probe timeout, RFC 9002 6.2.4: a
host flooded by others drops what it cannot read, ours included), repeating it at once with the cookie of the
host's first RETRY (a later RETRY's cookie waits for the next resend, and one
RETRY is taken per INIT sent, so a stream of forged RETRYs cannot make a
joiner send INITs any faster), and then backing off afresh from the first
timeout, as QUIC does after a Retry (three round trips when the RETRY answered
our only INIT: a host under a flood loses datagrams), waiting as long as a
BUSY asks when that is short and giving up when it is long, checking the
host's proof in its REPLY, then CONFIRM and the connection's keys, or ABORT
and a clear refusal (`HandshakeFailed`, then `PeerGone`) when the host could
not prove it knows the code; and what the host last said, so that a joiner
that gives up says why in words: the table was busy (`TABLE_BUSY`), or never
answered at all (`NO_ANSWER`), never "check the code" unless the code was
wrong. Until the keys are agreed, reliable and unreliable messages wait in
the connection's queues, and nothing sealed leaves.

Must not touch: the exchange itself (`handshake`), the host's side
(`admission`), sockets and clocks. A mixin of `Connection`: its state lives
in the connection's slots, listed in `STATE`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

from netcode.channel.config import INF
from netcode.channel.events import (
    NO_ANSWER,
    TABLE_BUSY,
    WRONG_CODE,
    HandshakeCompleted,
    HandshakeFailed,
)
from netcode.channel.parts import ConnectionParts
from netcode.envelope import (
    BUSY,
    REPLY,
    RETRY,
    Dropped,
    HandshakePacket,
    Opener,
    Sealer,
    digest,
    pack_abort,
    pack_confirm,
    pack_init,
)

if TYPE_CHECKING:
    from netcode.channel.config import Address
    from netcode.channel.handshake import Initiator, SessionKeys


class Joining(ConnectionParts):
    """INIT out, REPLY in, keys or a refusal (a `Connection` mixin)."""

    __slots__ = ()
    STATE: ClassVar[tuple[str, ...]] = (
        "_initiator",
        "_init_packet",
        "_handshake_out",
        "_init_resend_at",
        "_init_interval",
        "_retry_taken",
        "_host_said",
        "_init_sent_at",
        "_init_copy_at",
        "_init_rounds",
        "keys",
    )

    def _init_joining(
        self, keys: SessionKeys | None, initiator: Initiator | None, now: float
    ) -> None:
        if (keys is None) == (initiator is None):
            raise ValueError("a connection starts with keys or with a handshake to make them")
        self.keys: SessionKeys | None = None
        self._initiator = initiator
        self._handshake_out: list[bytes] = []
        self._init_interval = self.config.initial_rto
        self._init_resend_at = now
        self._init_packet = b""
        #: whether a RETRY was taken since our last INIT left (one per INIT)
        self._retry_taken = False
        #: the host's last word to our INITs: "", RETRY, BUSY or REPLY
        self._host_said: int | None = None
        #: when our last round of INITs began, and how many rounds went: a RETRY to the
        #: only round times the round trip
        self._init_sent_at = now
        self._init_rounds = 0
        #: when the round's second copy leaves (INF: none due)
        self._init_copy_at = INF
        if initiator is not None:
            self._init_packet = pack_init(
                self.local_id, self.peer_id, initiator.message, self.config.max_datagram
            )
        else:
            assert keys is not None  # (one of the two, checked above)
            self._use_keys(keys)

    @property
    def handshaking(self) -> bool:
        """Whether the keys are still being agreed (joiner side)."""
        return self.keys is None

    @property
    def join_stalled(self) -> str:
        """Why joining has not finished, in one sentence for a player who stops waiting:
        the host asked us to wait (`TABLE_BUSY`), or nothing came back (`NO_ANSWER`)."""
        return TABLE_BUSY if self._host_said == BUSY else NO_ANSWER

    def _use_keys(self, keys: SessionKeys) -> None:
        self.keys = keys
        self._sealer = Sealer(keys.send, self.local_id)
        self._opener = Opener(keys.receive, self.peer_id)

    def receive_handshake(self, packet: HandshakePacket, address: Address, now: float) -> None:
        """The host's RETRY, REPLY or BUSY (routed here by the endpoint). Never raises."""
        initiator = self._initiator
        if initiator is None or self.keys is not None or self.gone:
            self.drops["handshake_repeat"] += 1
            return
        if packet.type in (RETRY, BUSY) and packet.echo != digest(initiator.message):
            self.drops["unknown_handshake"] += 1  # a RETRY or BUSY, but not of our INIT
            return
        if packet.type == REPLY:
            try:
                proven = initiator.finish(packet.message, packet.proof)
            except Dropped as dropped:
                self.drops[dropped.reason] += 1
                return
            self._host_said = REPLY
            if not proven:
                self._handshake_out.append(
                    pack_abort(self.local_id, self.peer_id, digest(packet.message))
                )
                self._handshake_failed("wrong_code", WRONG_CODE, address)
                return
            assert initiator.keys is not None
            self._use_keys(initiator.keys)
            self._handshake_out.append(pack_confirm(self.local_id, self.peer_id, initiator.proof))
            self.address = address
            # `last_heard` waits for the host's first sealed datagram, a round trip
            # from now: until then the connect timeout, not the silence one, applies
            self._events.append(HandshakeCompleted(self.peer_id, address))
        elif packet.type == RETRY:
            if self._retry_taken:
                self.drops["retry_repeat"] += 1
                return
            self._retry_taken = True
            self._host_said = RETRY
            self._init_packet = pack_init(
                self.local_id, self.peer_id, initiator.message, self.config.max_datagram,
                packet.cookie,
            )  # fmt: skip
            if not self._counters["retries_taken"]:  # the first: prove our address at once
                self._init_resend_at = now  # (a later one, say for a late INIT, waits its turn)
            # As after QUIC's Retry (RFC 9002 6.3), the resends start again, from the
            # first timeout: three round trips if this RETRY answered our only INIT (Karn:
            # a resend gives no sample), else `Config.initial_rto`.
            cfg = self.config
            self._init_interval = cfg.initial_rto
            if self._init_rounds == 1:
                rtt = now - self._init_sent_at  # (at most the copies' spacing too long)
                self._init_interval = min(max(3 * rtt, cfg.min_rto), cfg.initial_rto)
            self._counters["retries_taken"] += 1
        elif packet.type == BUSY:
            self._host_said = BUSY
            self._counters["busy_answers"] += 1
            if packet.retry_after > self.config.max_silent_retry:
                seconds = math.ceil(packet.retry_after)
                self._handshake_failed(
                    "rate_limited",
                    "This table refuses join attempts from your address for "
                    f"{seconds} more second{'s' if seconds != 1 else ''} after too many "
                    "wrong codes: wait, then check the code.",
                    address,
                )
            else:
                self._init_resend_at = now + packet.retry_after
        else:
            self.drops["unexpected_handshake"] += 1

    def _handshake_failed(self, reason: str, text: str, address: Address) -> None:
        self._events.append(HandshakeFailed(self.peer_id, address, reason, text))
        self._set_gone(reason)

    def _handshake_datagrams(self, now: float) -> list[tuple[bytes, Address]]:
        """While joining: INIT when due; once keyed, our CONFIRM ahead of everything else."""
        address = self.address
        out = [(data, address) for data in self._handshake_out]
        self._handshake_out.clear()
        if self.keys is None:
            if self.gone:
                return out
            cfg = self.config
            if now >= self._init_resend_at:  # a round: the INIT now, and again a moment later
                self._init_sent_at = now
                self._init_rounds += 1
                self._init_resend_at = now + self._init_interval
                self._init_interval = min(self._init_interval * cfg.rto_backoff, cfg.handshake_resend_max)
                self._init_copy_at = now + cfg.handshake_copy_after if cfg.handshake_copy_after else INF
            elif now >= self._init_copy_at:
                self._init_copy_at = INF
            else:
                return out
            out.append((self._init_packet, address))
            self._retry_taken = False
            self._counters["handshake_inits"] += 1
            return out
        self._initiator = None  # joined: from now on, the usual path
        return out + self.datagrams_to_send(now)

    def _handshake_timed_out(self) -> None:
        """`Config.connect_timeout` passed without keys: the table was busy, or unreachable."""
        if self._host_said == BUSY:
            self._handshake_failed("busy", TABLE_BUSY, self.address)
        else:
            self._set_gone("unreachable")

    def _handshake_timer(self) -> float:
        give_up = self.created + self.config.connect_timeout
        return min(self._init_resend_at, self._init_copy_at, give_up) if not self.gone else INF

    @property
    def _saying_last_words(self) -> bool:
        return bool(self._handshake_out)
