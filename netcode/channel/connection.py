"""One connection: the protocol state toward one remote peer.

Owns: a peer's identity and address, its liveness (heard from lately, gone
and why), its event queue (or the endpoint's, shared), the timers that
combine every part's deadlines, and accounting (drops and counters). The
work itself is done by four mixins, one per concern: `Joining` (the
joiner's handshake), `Sending`, `Receiving` and `LossRecovery`, whose state
this class's slots hold. A connection holds the keys of one pair of peers,
one per direction, and nobody else's.

Must not touch: sockets, clocks, other peers. Sans-IO: feed it, drain it.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterator

from netcode.channel.config import INF, Address, Config
from netcode.channel.events import Event, PeerGone
from netcode.channel.handshake import Initiator, SessionKeys
from netcode.channel.joining import Joining
from netcode.channel.receiving import Receiving
from netcode.channel.recovery import LossRecovery
from netcode.channel.sending import Sending
from netcode.envelope import check_peer_id


class Connection(Joining, Sending, Receiving, LossRecovery):
    """Protocol state toward one remote peer. Sans-IO: feed it, drain it."""

    __slots__ = (
        *Joining.STATE,
        *Sending.STATE,
        *Receiving.STATE,
        *LossRecovery.STATE,
        "_counters",
        "_events",
        "_on_gone",
        "address",
        "config",
        "created",
        "drops",
        "gone_reason",
        "local_id",
        "peer_id",
    )

    def __init__(
        self,
        keys: SessionKeys | None,
        local_id: int,
        peer_id: int,
        address: Address,
        now: float,
        config: Config | None = None,
        events: deque[Event] | None = None,
        on_gone: Callable[[], None] | None = None,
        *,
        handshake: Initiator | None = None,
    ) -> None:
        """A connection with the keys a handshake agreed, or, with `handshake`
        (the joiner's side of one, `Initiator`) instead, one that agrees them first.

        `events` and `on_gone` let an `Endpoint` collect every peer's events
        in one bounded queue and learn when a peer goes away."""
        self.local_id = check_peer_id(local_id)
        self.peer_id = check_peer_id(peer_id)
        self.address = address
        self.config = config = config or Config()
        self.created = now
        self.gone_reason: str | None = None
        self._on_gone = on_gone
        self._events: deque[Event] = deque() if events is None else events
        # accounting
        self.drops: Counter[str] = Counter()
        self._counters: Counter[str] = Counter()
        self._init_sending(config)
        self._init_receiving(config)
        self._init_recovery(config)
        self._init_joining(keys, handshake, now)

    # -- application side -----------------------------------------------------

    @property
    def gone(self) -> bool:
        return self.gone_reason is not None

    def close(self, now: float) -> None:
        """Leave: tell the peer (a few unreliable CLOSE datagrams) and stop."""
        if self.gone:
            return
        self._close_copies = 3 if self.keys is not None else 0  # no keys: nothing to say
        self._set_gone("local")

    @property
    def saying_goodbye(self) -> bool:
        """Whether last words (CLOSE, or the handshake's ABORT) are still to go out."""
        return self._close_copies > 0 or self._saying_last_words

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

    # -- timers -----------------------------------------------------------------

    def next_timer(self) -> float | None:
        """When `handle_timer` should next be called (absolute time), or None."""
        if self.gone:
            return None
        if self.keys is None:
            return self._handshake_timer()
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

    def excuse_stall(self, lost: float, now: float) -> None:
        """This program could not run for ``lost`` seconds until ``now``: its peer's silence
        counts from ``lost`` later (a busy or suspended machine is not a silent peer)."""
        if self.last_heard is not None:
            self.last_heard = min(now, self.last_heard + lost)

    def handle_timer(self, now: float) -> None:
        if self.gone:
            return
        self._apply_acks()
        cfg = self.config
        if self.last_heard is None or self.keys is None:
            if now >= self.created + cfg.connect_timeout:
                if self.keys is None:
                    self._handshake_timed_out()
                else:
                    self._set_gone("unreachable")
                return
        elif now >= self.last_heard + cfg.silence_timeout:
            self._set_gone("silent")
            return
        resend = self._resend
        for unit in self._unacked.values():
            if unit.resend_at <= now and unit.id not in resend:
                unit.timeouts += 1
                unit.resend_at = INF
                resend.add(unit.id)
                self._counters["timeouts"] += 1
            if unit.copy_at <= now:
                unit.copy_at = INF
                self._copies_due = True

    # -- internals ------------------------------------------------------------

    def _push(self, event: Event) -> bool:
        if len(self._events) >= self.config.max_events:
            self.drops["event_queue_full"] += 1
            return False
        self._events.append(event)
        return True

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
