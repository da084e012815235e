"""The endpoint: all connections of one local peer, on one socket.

Owns: the table of peers (opening a connection for a newcomer whose first
datagram passes the intake, when allowed), routing each datagram to its
connection after decoding it once, the one bounded event queue every peer
shares, the merged timers, drops and counters, and the tombstones that keep a
departed peer from coming back through its late datagrams.

Must not touch: per-peer protocol decisions (`Connection`), sockets and
clocks.
"""

from __future__ import annotations

import os
from collections import Counter, deque
from collections.abc import Iterator
from typing import Any

from netcode.channel.config import Address, Config
from netcode.channel.connection import Connection
from netcode.channel.events import Event, PeerClosed, PeerJoined
from netcode.envelope import Dropped, Opener, check_peer_id


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
