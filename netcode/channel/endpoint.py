"""The endpoint: all connections of one local peer, on one socket.

Owns: the table of peers (a joiner's connection from `connect`; a newcomer's
once it proved it knows the code, through `admission`, when allowed),
routing each datagram by its type and sender id (sealed ones to their
connection, handshakes to the joiner's connection or to the admission), the
one bounded event queue every peer shares, the merged timers, drops and
counters, and the tombstones that keep a departed peer from coming back
through its late datagrams.

Must not touch: per-peer protocol decisions (`Connection`), sockets and
clocks.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Hashable, Iterator
from typing import Any

from netcode.channel.admission import Admission, Attempt
from netcode.channel.config import Address, Config
from netcode.channel.connection import Connection
from netcode.channel.events import NO_ANSWER, Event, HandshakeCompleted, PeerClosed, PeerJoined
from netcode.channel.handshake import Initiator, SessionKeys
from netcode.envelope import (
    BUSY,
    CONFIRM,
    HEADER,
    INIT,
    MAX_DATAGRAM,
    REPLY,
    RETRY,
    SEALED,
    Dropped,
    check_peer_id,
    open_handshake,
    packet_type,
)

#: Table ids name a table in every handshake; they are short.
MAX_TABLE_ID = 32
_SEALED_BYTE = bytes([SEALED])


class Endpoint:
    """All connections of one local peer, sharing one socket and one join code.

    Every peer proves it knows the join code before it has a connection (see
    `netcode.channel.handshake`): `connect` starts that as the joiner, and,
    with `accept_unknown`, a newcomer's handshake is answered as the host (up
    to `max_peers`, once a RETRY's cookie proved its address; attempts are
    capped, and failed ones counted and slowed, see `admission`).
    A peer that went away is remembered for a while so its late datagrams do
    not bring it back.
    """

    def __init__(
        self,
        join_code: str,
        table_id: bytes,
        local_id: int | None = None,
        config: Config | None = None,
        *,
        accept_unknown: bool = True,
        max_peers: int = 16,
        tombstones: int = 256,
    ) -> None:
        if not isinstance(table_id, bytes) or len(table_id) > MAX_TABLE_ID:
            raise ValueError(f"table id must be at most {MAX_TABLE_ID} bytes")
        self.table_id = table_id
        self.local_id = check_peer_id(
            local_id if local_id is not None else int.from_bytes(os.urandom(4), "big")
        )
        self.config = config = config or Config()
        self.accept_unknown = accept_unknown
        self.max_peers = max_peers
        self.peers: dict[int, Connection] = {}
        #: Ready events of every peer, oldest first (bounded by `Config.max_events`);
        #: `next_event` pops from it, and so may an I/O adapter.
        self.ready: deque[Event] = deque()
        self._code = join_code
        self._reap_due = False
        self._departed: deque[int] = deque(maxlen=tombstones)
        self._departed_set: set[int] = set()
        self._events = self.ready
        self._drops: Counter[str] = Counter()
        self._retired_drops: Counter[str] = Counter()
        self._retired_counters: Counter[str] = Counter()
        #: the host's door: join attempts in progress, failed ones counted and slowed
        self.admission = Admission(
            join_code, table_id, self.local_id, config, self._events, self._drops
        )

    # -- application side -----------------------------------------------------

    def connect(self, peer_id: int, address: Address, now: float) -> Connection:
        """Join `peer_id` (the host) at `address`: the handshake starts with the next
        `datagrams_to_send`; messages sent meanwhile wait for it (idempotent).

        Of two peers, one joins and the other answers (`accept_unknown`): a host
        that heard from a joiner talks to it through the connection made then,
        and two peers that each `connect` to the other never agree on keys."""
        conn = self.peers.get(peer_id)
        if conn is None:
            if peer_id == self.local_id:
                raise ValueError("cannot connect to ourselves")
            initiator = Initiator(self._code, self.table_id, self.local_id, peer_id)
            conn = Connection(
                None, self.local_id, peer_id, address, now, self.config, self._events,
                self._note_gone, handshake=initiator,
            )  # fmt: skip
            self.peers[peer_id] = conn
            self._departed_set.discard(peer_id)
        return conn

    def attach(self, peer_id: int, address: Address, keys: SessionKeys, now: float) -> Connection:
        """A connection to `peer_id` under keys agreed elsewhere, with no handshake
        (both sides must attach mirrored keys: what one sends with, the other opens
        with). For tests and benchmarks that measure the channel alone."""
        if peer_id in self.peers or peer_id == self.local_id:
            raise ValueError(f"peer {peer_id} is known already, or is us")
        conn = Connection(
            keys, self.local_id, peer_id, address, now, self.config, self._events, self._note_gone
        )
        self.peers[peer_id] = conn
        self._departed_set.discard(peer_id)
        return conn

    @property
    def failed_attempts(self) -> dict[Hashable, int]:
        """Failed join attempts at this endpoint (as host), by source address."""
        return self.admission.failed_attempts

    @property
    def failed_attempts_total(self) -> int:
        """Failed join attempts at this endpoint (as host), from anywhere."""
        return self.admission.total_failures

    def describe_failed_attempts(self) -> list[str]:
        """One line per source for the host's screen: "3 failed join attempts from 127.0.0.1"."""
        return self.admission.describe()

    def describe_door(self, now: float) -> str:
        """What the door (as host) holds now, one line for the host's screen ("" when
        nothing): "busy: 16 join attempts waiting from 4 addresses", "9800 unproven joins a
        second turned away"."""
        return self.admission.describe_door(now)

    def join_stalled(self, peer_id: int | None) -> str:
        """Why joining `peer_id` has not finished, in words for a player who stops waiting:
        the table is busy, or it did not answer at all (or we never knew whom to join)."""
        conn = self.peers.get(peer_id) if peer_id is not None else None
        return conn.join_stalled if conn is not None else NO_ANSWER

    def peer(self, peer_id: int) -> Connection:
        try:
            return self.peers[peer_id]
        except KeyError:
            raise PeerClosed(f"no peer {peer_id}") from None

    def last_heard(self, peer_id: Hashable) -> float | None:
        """When a datagram of ``peer_id`` last came in (None: never, or no such live peer)."""
        conn = self.peers.get(peer_id) if isinstance(peer_id, int) else None  # (a local seat: no channel)
        return None if conn is None or conn.gone else conn.last_heard

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
                conn.deliver_held()
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
        total = self._retired_counters + self.admission.counters
        for conn in self.peers.values():
            total.update(conn.counters)
        return total

    # -- network side ---------------------------------------------------------

    def receive_datagram(self, data: bytes, address: Address, now: float) -> None:
        """Take one datagram off the socket. Never raises; bad input is counted."""
        if data[:1] == _SEALED_BYTE and HEADER <= len(data) <= MAX_DATAGRAM:
            conn = self.peers.get(int.from_bytes(data[1:9], "big"))
            if conn is not None:  # the usual case: a peer's sealed datagram
                conn.receive_sealed(data, address, now)
                return
        try:
            kind = packet_type(data)
        except Dropped as dropped:
            self._drops[dropped.reason] += 1
            return
        sender = int.from_bytes(data[1:9], "big")
        conn = self.peers.get(sender)
        if kind == SEALED:
            if conn is not None:
                conn.receive_sealed(data, address, now)
                return
            # a joiner whose CONFIRM was lost proves itself with its first datagram
            attempt = self.admission.confirmed_by(sender, data) if self.admission.attempts else None
            if attempt is None:
                self._drops[self._stranger(sender)] += 1
                return
            self._admit(attempt, address, now).receive_sealed(data, address, now)
            return
        try:
            packet = open_handshake(data)
        except Dropped as dropped:
            self._drops[dropped.reason] += 1
            return
        if packet.receiver != self.local_id:
            self._drops["not_for_us"] += 1
        elif kind == REPLY or kind == BUSY or kind == RETRY:  # the host answers us, the joiner
            if conn is None:
                self._drops[self._stranger(sender)] += 1
            else:
                conn.receive_handshake(packet, address, now)
        elif not self.accept_unknown:
            self._drops["unexpected_handshake"] += 1
        elif conn is not None:
            self._drops["known_peer"] += 1  # a late copy from a joiner seated already
        elif sender == self.local_id or sender in self._departed_set:
            self._drops[self._stranger(sender)] += 1
        elif kind == INIT:
            self.admission.receive_init(packet, address, now, self.max_peers - len(self.peers))
        elif kind == CONFIRM:
            attempt = self.admission.receive_confirm(packet)
            if attempt is not None:
                self._admit(attempt, address, now)
        else:
            self.admission.receive_abort(packet)

    def _stranger(self, sender: int) -> str:
        """Why a datagram from someone without a connection is dropped."""
        if sender == self.local_id:
            return "reflected"
        return "departed_peer" if sender in self._departed_set else "unknown_peer"

    def _admit(self, attempt: Attempt, address: Address, now: float) -> Connection:
        """A joiner proved it knows the code: its connection, under the attempt's keys."""
        peer = attempt.joiner
        conn = Connection(
            attempt.keys, self.local_id, peer, address, now, self.config, self._events,
            self._note_gone,
        )  # fmt: skip
        conn.last_heard = now
        self.peers[peer] = conn
        self._departed_set.discard(peer)
        self._events.append(PeerJoined(peer, address))
        self._events.append(HandshakeCompleted(peer, address))
        return conn

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]:
        peers = self.peers
        if len(peers) == 1:
            for conn in peers.values():
                out = conn.datagrams_to_send(now)
        else:
            out = []
            for conn in peers.values():
                out.extend(conn.datagrams_to_send(now))
        outbox = self.admission.outbox
        if outbox:
            out = out + outbox
            outbox.clear()
        if self._reap_due:
            self._reap()
        return out

    def _note_gone(self) -> None:
        self._reap_due = True

    def next_timer(self) -> float | None:
        best = self.admission.next_timer()
        for conn in self.peers.values():
            when = conn.next_timer()
            if when is not None and (best is None or when < best):
                best = when
        return best

    def handle_timer(self, now: float, due: float | None = None) -> None:
        """Run the timers due by ``now``; ``due``: when the caller's timer was set to fire (one
        that fires ``config.stall`` late or more means this program was kept from running, and
        nothing could be heard meanwhile: that time is not counted as any peer's silence)."""
        if due is not None and now - due > self.config.stall:
            for conn in self.peers.values():
                conn.excuse_stall(now - due, now)
        if self.admission.attempts:
            self.admission.expire(now)
        for conn in list(self.peers.values()):
            conn.handle_timer(now)

    def _reap(self) -> None:
        """Forget connections that are gone once their CLOSEs are out."""
        self._reap_due = False
        for peer_id, conn in list(self.peers.items()):
            if conn.gone and conn.saying_goodbye:
                self._reap_due = True  # its goodbyes are still to be sent
            if conn.gone and not conn.saying_goodbye:
                del self.peers[peer_id]
                self._retired_drops.update(conn.drops)
                self._retired_counters.update(conn.counters)
                if len(self._departed) == self._departed.maxlen:
                    self._departed_set.discard(self._departed[0])
                self._departed.append(peer_id)
                self._departed_set.add(peer_id)
