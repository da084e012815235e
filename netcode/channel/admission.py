"""Who may join: a host's side of the join handshakes, failed attempts, rate limits.

Owns: the door's stages in order: the retry cookie (an INIT without a good
one is answered with a RETRY and leaves nothing behind, see `cookie`), the
attempts in progress of proven addresses (one `Responder` each, with its
REPLY kept so that a repeated INIT is answered alike and never starts a
second exchange), the caps on them and the fair eviction when they are full,
their confirmation (a CONFIRM, or the first datagram that opens under the
attempt's keys when the CONFIRM was lost), failed attempts counted per
source address and for the table, the rate limits that follow from them,
BUSY, the answer that says "not now", and what the door holds, in words for
the host's screen.

No state, no SPAKE2, before a sender proves its address: a flood of INITs
from forged addresses costs the host one MAC and one small RETRY each, and
can neither hold an attempt nor push a real guesser's failures out of
memory. Attempts of proven addresses are capped (`Config.max_handshakes` in
all, `Config.max_source_handshakes` from one source); when the door is full,
the sources holding the most give up their oldest attempt to a newcomer from
a source holding at least two fewer, or one fewer once that attempt is older
than `Config.evict_after`, so no source, nor many holding one attempt each,
can hold the door; otherwise the newcomer is told BUSY (a short wait).

Every guess at the code costs one online attempt, and attempts are slowed
where they fail: after `Config.failures_before_limit` failures from one
source (an IP address), one attempt from it per `Config.limited_interval`
seconds; after `Config.table_failures_before_limit` failures at the table,
one new attempt per `Config.table_limited_interval` seconds from anyone.
An attempt fails when the joiner's proof is wrong, when the joiner says it
found the host's proof wrong (ABORT: a joiner who typed another code), when
no proof arrives within `Config.handshake_timeout` of the joiner's last INIT,
or when it is evicted (its REPLY went out, so it let one guess be checked).
Each failure is an event (`JoinAttemptFailed`) and stays counted in
`failed_attempts`.

Nothing sent to an address that has proven nothing is larger than what came
from it (a RETRY, a REPLY or a BUSY answers an INIT at least `MIN_INIT`
bytes long), so a table cannot be used to amplify a flood at someone else.

Must not touch: established connections (the `Endpoint` makes one from each
attempt this hands back), sockets, clocks.
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict, deque
from collections.abc import Hashable
from typing import Any

from netcode.channel.config import INF, Address, Config
from netcode.channel.cookie import Cookies
from netcode.channel.events import JoinAttemptFailed, failed_attempts_text, plural
from netcode.channel.handshake import Responder, SessionKeys
from netcode.envelope import (
    Dropped,
    HandshakePacket,
    Opener,
    digest,
    pack_busy,
    pack_reply,
    pack_retry,
)

#: How long a joiner is asked to wait while too many of its attempts are in progress.
_BUSY_RETRY = 0.25
#: How long the door says "busy" after it last turned a proven newcomer away.
_BUSY_SHOWN = 2.0
#: Unproven INITs a second above which the door speaks of a flood (a join sends one or two).
_FLOOD = 20


def source_of(address: Address) -> Hashable:
    """Whom failed attempts are counted against: the IP of a socket address."""
    return address[0] if isinstance(address, tuple) else address


class _Source:
    __slots__ = ("failures", "pending", "last_attempt")

    def __init__(self) -> None:
        self.failures = 0
        self.pending = 0
        self.last_attempt = -INF


class _PerSecond:
    """How many things a second, lately: this second's count and the last one's (no more)."""

    __slots__ = ("second", "now", "before")

    def __init__(self) -> None:
        self.second = -1
        self.now = 0
        self.before = 0

    def count(self, now: float) -> None:
        second = math.floor(now)
        if second != self.second:
            self.before = self.now if second == self.second + 1 else 0
            self.second, self.now = second, 0
        self.now += 1

    def rate(self, now: float) -> int:
        """The last whole second's count, or this one's if more (0 after a quiet second)."""
        second = math.floor(now)
        if second == self.second:
            return max(self.now, self.before)
        return self.now if second == self.second + 1 else 0


class Attempt:
    """One join attempt in progress at the host."""

    __slots__ = ("responder", "source", "address", "reply", "started", "last_heard")

    def __init__(
        self, responder: Responder, source: Hashable, address: Address, reply: bytes, now: float
    ) -> None:
        self.responder = responder
        self.source = source
        self.address = address
        self.reply = reply
        #: when it began: the oldest of a source's attempts is the first evicted
        self.started = now
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
        self._cookies = Cookies(config.cookie_lifetime)
        #: until when the door says "busy" (it turned a proven newcomer away, or evicted)
        self._busy_until = -INF
        #: RETRYs sent, and cookies that came back good, lately (counts, no addresses)
        self._retried = _PerSecond()
        self._proven = _PerSecond()

    # -- what the host's screen shows -------------------------------------------

    @property
    def failed_attempts(self) -> dict[Hashable, int]:
        """Failed join attempts by source (those remembered), e.g. ``{"127.0.0.1": 3}``."""
        return {source: rec.failures for source, rec in self._sources.items() if rec.failures}

    def describe(self) -> list[str]:
        """One line per source, most failures first: "3 failed join attempts from 127.0.0.1"."""
        counts = sorted(self.failed_attempts.items(), key=lambda item: (-item[1], str(item[0])))
        return [failed_attempts_text(failures, source) for source, failures in counts]

    def describe_door(self, now: float) -> str:
        """What the door holds now, in one line for the host's screen ("" when nothing):
        "busy: 16 join attempts waiting from 4 addresses", "1 join attempt waiting from
        127.0.0.1", "9800 unproven joins a second turned away"."""
        parts = []
        if self.attempts:
            sources = {attempt.source for attempt in self.attempts.values()}
            where = str(next(iter(sources))) if len(sources) == 1 else plural(len(sources), "address")
            busy = "busy: " if now < self._busy_until else ""
            parts.append(f"{busy}{plural(len(self.attempts), 'join attempt')} waiting from {where}")
        elif now < self._busy_until:
            parts.append("busy")
        unproven = self._retried.rate(now) - self._proven.rate(now)
        if unproven >= _FLOOD:
            parts.append(f"{unproven} unproven joins a second turned away")
        return "; ".join(parts)

    # -- intake -------------------------------------------------------------------

    def receive_init(self, packet: HandshakePacket, address: Address, now: float, room: int) -> None:
        """A joiner's first word: a RETRY if it has no good cookie; else, if the table has
        `room` for another peer, a REPLY (an attempt begins), or BUSY (wait)."""
        attempt = self.attempts.get(packet.sender)
        if attempt is not None:
            if attempt.responder.init_message == packet.message and attempt.address == address:
                self.counters["init_repeats"] += 1  # our REPLY was lost: say it again
                attempt.last_heard = now
                self.outbox.append((attempt.reply, address))
            else:
                self._drops["handshake_conflict"] += 1
            return
        if room <= 0:
            self._drops["too_many_peers"] += 1
            return
        unproven = self._cookies.check(packet, address, now)
        if unproven is not None:  # keep nothing: ask it to prove its address
            self._retry(packet, address, now, unproven)
            return
        self._proven.count(now)
        record = self._source(source_of(address))
        wait = self._wait(record, now)
        if wait > 0:
            self._drops["rate_limited"] += 1
            self._say_busy(packet, address, wait)
            return
        if not self._make_room(record, min(self.config.max_handshakes, room), now):
            self._drops["door_full"] += 1
            self._busy_until = now + _BUSY_SHOWN
            self._say_busy(packet, address, _BUSY_RETRY)
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
        self.attempts[packet.sender] = Attempt(responder, source_of(address), address, reply, now)
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

    def _say_busy(self, packet: HandshakePacket, address: Address, wait: float) -> None:
        self.outbox.append((pack_busy(self.host_id, packet.sender, wait, digest(packet.message)), address))

    def _retry(self, packet: HandshakePacket, address: Address, now: float, why: str) -> None:
        """Answer an unproven INIT with a cookie, and count it (no address is kept)."""
        if why != "no_cookie":
            self._drops[why] += 1
        self.counters["retries_sent"] += 1
        self._retried.count(now)
        cookie = self._cookies.mint(packet, address, now)
        self.outbox.append((pack_retry(self.host_id, packet.sender, cookie, digest(packet.message)), address))

    def _make_room(self, record: _Source, capacity: int, now: float) -> bool:
        """Whether a newcomer from `record`'s source may start an attempt now: there is room,
        or the oldest attempt of the sources holding the most gives way to it, if they hold
        at least two more than the newcomer's source, or one more and that attempt is older
        than `Config.evict_after` (an honest one is done in a round trip). The one evicted
        counts as failed: its REPLY let one guess be checked."""
        if record.pending >= self.config.max_source_handshakes:
            return False
        if len(self.attempts) < capacity:
            return True
        if not self.attempts:
            return False
        held = Counter(attempt.source for attempt in self.attempts.values())
        most = max(held.values())
        oldest = min((a for a in self.attempts.values() if held[a.source] == most), key=lambda a: a.started)
        if most < record.pending + 2 and (
            most < record.pending + 1 or now < oldest.started + self.config.evict_after
        ):
            return False
        self.counters["evicted"] += 1
        self._busy_until = now + _BUSY_SHOWN
        self._fail(oldest, "evicted")
        return True

    def _wait(self, record: _Source, now: float) -> float:
        """How long a new attempt from this source must wait after its failures (0: go ahead)."""
        cfg = self.config
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
