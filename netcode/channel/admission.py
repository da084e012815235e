"""Who may join: a host's side of the join handshakes, failed attempts, rate limits.

Owns: the attempts in progress (one `Responder` each, with its REPLY kept so
that a repeated INIT is answered alike and never starts a second exchange),
their confirmation (a CONFIRM, or the first datagram that opens under the
attempt's keys when the CONFIRM was lost), failed attempts counted per
source address and for the table, the rate limits that follow from them,
and BUSY, the answer that says "not now".

Every guess at the code costs one online attempt, and attempts are slowed
where they fail: after `Config.failures_before_limit` failures from one
source (an IP address), one attempt from it per `Config.limited_interval`
seconds; after `Config.table_failures_before_limit` failures at the table,
one new attempt per `Config.table_limited_interval` seconds from anyone.
An attempt fails when the joiner's proof is wrong, when the joiner says it
found the host's proof wrong (ABORT: a joiner who typed another code), or when
no proof arrives within `Config.handshake_timeout` of the joiner's last INIT.
Each failure is an event (`JoinAttemptFailed`) and stays counted in
`failed_attempts`.

Nothing sent to an address that has proven nothing is larger than what came
from it (a REPLY or a BUSY answers an INIT at least `MIN_INIT` bytes long),
so a table cannot be used to amplify a flood at someone else.

Must not touch: established connections (the `Endpoint` makes one from each
attempt this hands back), sockets, clocks.
"""

from __future__ import annotations

from collections import Counter, OrderedDict, deque
from collections.abc import Hashable
from typing import Any

from netcode.channel.config import INF, Address, Config
from netcode.channel.events import JoinAttemptFailed, failed_attempts_text
from netcode.channel.handshake import Responder, SessionKeys
from netcode.envelope import (
    Dropped,
    HandshakePacket,
    Opener,
    digest,
    pack_busy,
    pack_reply,
)

#: How long a joiner is asked to wait while too many of its attempts are in progress.
_BUSY_RETRY = 0.25


def source_of(address: Address) -> Hashable:
    """Whom failed attempts are counted against: the IP of a socket address."""
    return address[0] if isinstance(address, tuple) else address


class _Source:
    __slots__ = ("failures", "pending", "last_attempt")

    def __init__(self) -> None:
        self.failures = 0
        self.pending = 0
        self.last_attempt = -INF


class Attempt:
    """One join attempt in progress at the host."""

    __slots__ = ("responder", "source", "address", "reply", "last_heard")

    def __init__(
        self, responder: Responder, source: Hashable, address: Address, reply: bytes, now: float
    ) -> None:
        self.responder = responder
        self.source = source
        self.address = address
        self.reply = reply
        #: when the joiner last sent its INIT: the attempt lives while it keeps asking
        self.last_heard = now

    @property
    def joiner(self) -> int:
        return self.responder.joiner

    @property
    def keys(self) -> SessionKeys:
        return self.responder.keys


class Admission:
    """The host's door: answers INITs, checks proofs, counts and slows failures."""

    def __init__(
        self,
        join_code: str,
        table_id: bytes,
        host_id: int,
        config: Config,
        events: deque[Any],
        drops: Counter[str],
    ) -> None:
        self._code = join_code
        self._table_id = table_id
        self.host_id = host_id
        self.config = config
        self._events = events
        self._drops = drops
        #: attempts in progress, by joiner id
        self.attempts: dict[int, Attempt] = {}
        self.total_failures = 0
        self.counters: Counter[str] = Counter()
        #: answers waiting for `Endpoint.datagrams_to_send`
        self.outbox: list[tuple[bytes, Address]] = []
        self._sources: OrderedDict[Hashable, _Source] = OrderedDict()
        self._table_last_attempt = -INF

    # -- what the host's screen shows -------------------------------------------

    @property
    def failed_attempts(self) -> dict[Hashable, int]:
        """Failed join attempts by source (those remembered), e.g. ``{"127.0.0.1": 3}``."""
        return {source: rec.failures for source, rec in self._sources.items() if rec.failures}

    def describe(self) -> list[str]:
        """One line per source, most failures first: "3 failed join attempts from 127.0.0.1"."""
        counts = sorted(self.failed_attempts.items(), key=lambda item: (-item[1], str(item[0])))
        return [failed_attempts_text(failures, source) for source, failures in counts]

    # -- intake -------------------------------------------------------------------

    def receive_init(self, packet: HandshakePacket, address: Address, now: float) -> None:
        """A joiner's first word: answer it (REPLY), or ask it to wait (BUSY)."""
        attempt = self.attempts.get(packet.sender)
        if attempt is not None:
            if attempt.responder.init_message == packet.message:
                self.counters["init_repeats"] += 1  # our REPLY was lost: say it again
                attempt.last_heard = now
                self.outbox.append((attempt.reply, address))
            else:
                self._drops["handshake_conflict"] += 1
            return
        source = source_of(address)
        record = self._source(source)
        wait = self._wait(record, now)
        if wait > 0:
            self._drops["rate_limited"] += 1
            busy = pack_busy(self.host_id, packet.sender, wait, digest(packet.message))
            self.outbox.append((busy, address))
            return
        try:
            responder = Responder(
                self._code, self._table_id, packet.sender, self.host_id, packet.message
            )
        except Dropped as dropped:
            self._drops[dropped.reason] += 1
            return
        record.pending += 1
        record.last_attempt = self._table_last_attempt = now
        reply = pack_reply(self.host_id, packet.sender, responder.message, responder.proof)
        self.attempts[packet.sender] = Attempt(responder, source, address, reply, now)
        self.counters["handshakes_started"] += 1
        self.outbox.append((reply, address))

    def receive_confirm(self, packet: HandshakePacket) -> Attempt | None:
        """The joiner's proof: the attempt, done, if it holds; else a failure."""
        attempt = self.attempts.get(packet.sender)
        if attempt is None:
            self._drops["unknown_handshake"] += 1
            return None
        if not attempt.responder.confirms(packet.proof):
            self._fail(attempt, "wrong_proof")
            return None
        return self._complete(attempt)

    def receive_abort(self, packet: HandshakePacket) -> None:
        """The joiner found our proof wrong (it holds another code): a failure, now."""
        attempt = self.attempts.get(packet.sender)
        if attempt is None or packet.echo != attempt.responder.reply_digest():
            self._drops["unknown_handshake"] += 1
            return
        self._fail(attempt, "joiner_gave_up")

    def confirmed_by(self, sender: int, data: bytes) -> Attempt | None:
        """A sealed datagram from a joiner whose CONFIRM we have not seen: if it opens
        under the attempt's keys, it proves the same, and the attempt is done."""
        attempt = self.attempts.get(sender)
        if attempt is None or not Opener(attempt.keys.receive, sender).authentic(data):
            return None
        return self._complete(attempt)

    # -- time -----------------------------------------------------------------------

    def next_timer(self) -> float | None:
        if not self.attempts:
            return None
        return min(a.last_heard for a in self.attempts.values()) + self.config.handshake_timeout

    def expire(self, now: float) -> None:
        """Attempts whose joiner went quiet without proving anything count as failed."""
        timeout = self.config.handshake_timeout
        for attempt in [a for a in self.attempts.values() if a.last_heard + timeout <= now]:
            self._fail(attempt, "unconfirmed")

    # -- internals ------------------------------------------------------------------

    def _source(self, source: Hashable) -> _Source:
        record = self._sources.get(source)
        if record is None:
            record = self._sources[source] = _Source()
            if len(self._sources) > self.config.max_sources:
                self._sources.popitem(last=False)
        else:
            self._sources.move_to_end(source)
        return record

    def _wait(self, record: _Source, now: float) -> float:
        """How long a new attempt from this source must wait (0: go ahead)."""
        cfg = self.config
        if len(self.attempts) >= cfg.max_handshakes:
            return _BUSY_RETRY
        if record.failures >= cfg.failures_before_limit:
            wait = record.last_attempt + cfg.limited_interval - now
            if wait > 0:
                return wait
        elif record.failures + record.pending >= cfg.failures_before_limit:
            return _BUSY_RETRY  # many at once from one place (friends on one machine)
        if self.total_failures >= cfg.table_failures_before_limit:
            wait = self._table_last_attempt + cfg.table_limited_interval - now
            if wait > 0:
                return wait
        return 0.0

    def _settle(self, attempt: Attempt) -> _Source:
        del self.attempts[attempt.joiner]
        record = self._source(attempt.source)
        record.pending = max(0, record.pending - 1)
        return record

    def _complete(self, attempt: Attempt) -> Attempt:
        self._settle(attempt)
        self.counters["handshakes_completed"] += 1
        return attempt

    def _fail(self, attempt: Attempt, reason: str) -> None:
        record = self._settle(attempt)
        record.failures += 1
        self.total_failures += 1
        self.counters["handshakes_failed"] += 1
        if len(self._events) >= self.config.max_events:
            self._drops["event_queue_full"] += 1
            return
        self._events.append(
            JoinAttemptFailed(attempt.source, record.failures, self.total_failures, reason)
        )
