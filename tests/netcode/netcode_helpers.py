"""Helpers shared by the transport tests: simulated pairs and state snapshots."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from netcode.channel import Config, Connection, Delivered, Endpoint, Event, PeerGone, SessionKeys
from netcode.envelope import RETRY, SEALED, Kind, Opener
from netcode.simulator.faults import LinkFaults
from netcode.simulator.network import SimNetwork, SimNode

TABLE = b"table-1"
CODE = "JINGLE-42"
A_ID = 101
B_ID = 202


#: Any faulty link, up to 40% loss each way: what hypothesis draws for lossy tests.
faulty_links = st.builds(
    LinkFaults,
    loss=st.floats(0.0, 0.4),
    loss_correlation=st.floats(0.0, 0.6),
    delay=st.floats(0.0, 0.2),
    jitter=st.floats(0.0, 0.05),
    duplicate=st.floats(0.0, 0.3),
    reorder=st.floats(0.0, 0.3),
    reorder_delay=st.floats(0.0, 0.05),
    fifo=st.booleans(),
)

#: Keys as a handshake between A and B would leave them: one per direction.
A_TO_B = bytes(range(32))
B_TO_A = bytes(range(100, 132))
KEYS_A = SessionKeys(send=A_TO_B, receive=B_TO_A)
KEYS_B = SessionKeys(send=B_TO_A, receive=A_TO_B)


def keyed_pair(config: Config | None = None) -> tuple[Connection, Connection]:
    """A's connection to B and B's to A, keyed as if they had joined (nothing sent yet)."""
    return (
        Connection(KEYS_A, A_ID, B_ID, "b", 0.0, config),
        Connection(KEYS_B, B_ID, A_ID, "a", 0.0, config),
    )


def kind_in(data: bytes, key: bytes, sender: int) -> Kind | None:
    """What a sealed datagram carries, opened with `key` (None for a handshake datagram)."""
    if data[0] != SEALED:
        return None
    return Opener(key, sender).open(data).kind


def kind_sent(data: bytes, endpoint: Endpoint, peer: int) -> Kind | None:
    """What a datagram `endpoint` sent to `peer` carries (None for a handshake datagram)."""
    if data[0] != SEALED:
        return None
    keys = endpoint.peers[peer].keys
    assert keys is not None
    return kind_in(data, keys.send, endpoint.local_id)


@dataclass
class Pair:
    """Two endpoints on a simulated link, A joining B; events collected per side."""

    net: SimNetwork
    a: Endpoint
    b: Endpoint
    node_a: SimNode
    node_b: SimNode
    got_a: list[Event] = field(default_factory=list)
    got_b: list[Event] = field(default_factory=list)

    def delivered(self, side: str) -> list[Any]:
        events = self.got_a if side == "a" else self.got_b
        return [e.payload for e in events if isinstance(e, Delivered)]

    def gone(self, side: str) -> list[PeerGone]:
        events = self.got_a if side == "a" else self.got_b
        return [e for e in events if isinstance(e, PeerGone)]

    def run(self, until: float, stop: Callable[[], bool] | None = None) -> bool:
        return self.net.run(until, stop)


def make_pair(
    code: str,
    faults: LinkFaults | None = None,
    *,
    seed: int = 0,
    config: Config | None = None,
    config_b: Config | None = None,
    on_b: Callable[[Pair, Event], None] | None = None,
    joined: bool = False,
) -> Pair:
    """A joins B with `code` (a handshake on the simulated link), or, with `joined`,
    the two start with keys already agreed (for tests of the channel alone)."""
    net = SimNetwork(seed, faults)
    a = Endpoint(code, TABLE, A_ID, config)
    b = Endpoint(code, TABLE, B_ID, config_b or config)
    if joined:
        a.attach(B_ID, "b", KEYS_A, 0.0)
        b.attach(A_ID, "a", KEYS_B, 0.0)
    else:
        a.connect(B_ID, "b", 0.0)
    pair = Pair(net, a, b, None, None)  # type: ignore[arg-type]

    def handle_a(_node: SimNode, event: Event) -> None:
        pair.got_a.append(event)

    def handle_b(_node: SimNode, event: Event) -> None:
        pair.got_b.append(event)
        if on_b is not None:
            on_b(pair, event)

    pair.node_a = net.add("a", a, handle_a)
    pair.node_b = net.add("b", b, handle_b)
    return pair


def snapshot(endpoint: Endpoint) -> dict[Any, Any]:
    """Everything about an endpoint's protocol state except its counters."""
    return {
        "peers": {pid: _conn_state(conn) for pid, conn in endpoint.peers.items()},
        "attempts": sorted(endpoint.admission.attempts),
        "failed_attempts": endpoint.failed_attempts_total,
        "events": list(map(repr, endpoint._events)),
    }


def _conn_state(conn: Connection) -> tuple[Any, ...]:
    return (
        conn._next_seq,
        conn._replay.highest,
        conn._replay.mask,
        conn._acks.highest,
        conn._acks.mask,
        conn._ack_pending,
        conn._largest_acked,
        tuple(conn._sent),
        tuple(conn._acks_in),
        tuple(conn._unacked),
        tuple(u.id for u in conn._pending),
        tuple(sorted(conn._resend)),
        conn._recv_next,
        tuple(sorted(conn._recv_buffer)),
        tuple(conn._partial),
        conn.last_heard,
        conn.last_sent,
        conn.address,
        conn.srtt,
        conn.rto,
        conn.gone_reason,
        conn.packets_received,
        conn.bytes_received,
    )


# -- a host and its joiners on one simulated LAN ---------------------------------------

HOST = 1
LAN = LinkFaults(delay=0.001)


class Table:
    """A host and any number of joiners on one simulated LAN, events kept per node."""

    def __init__(self, faults: LinkFaults = LAN, seed: int = 0, config: Config | None = None,
                 host_code: str = CODE) -> None:  # fmt: skip
        self.net = SimNetwork(seed, faults)
        self.config = config
        self.host = Endpoint(host_code, TABLE, HOST, config, max_peers=64)
        self.events: dict[object, list] = {"host": []}
        self.net.add("host", self.host, self._keep)

    def _keep(self, node: SimNode, event: object) -> None:
        self.events[node.address].append(event)

    def join(self, peer: int, code: str = CODE, *, at: float | None = None,
             address: object = None, config: Config | None = None) -> Endpoint:  # fmt: skip
        """A joiner `peer` (at `address`, default ("192.0.2.1", peer)) that connects at `at`
        (with `config`, default the table's)."""
        address = address if address is not None else ("192.0.2.1", peer)
        joiner = Endpoint(code, TABLE, peer, config or self.config, accept_unknown=False)
        self.events[address] = []
        self.net.add(address, joiner, self._keep)
        if at is None:
            joiner.connect(HOST, "host", self.net.now)
        else:
            self.net.call_at(at, lambda: joiner.connect(HOST, "host", self.net.now))
        return joiner

    def of(self, address: object, kind: type) -> list:
        return [e for e in self.events[address] if isinstance(e, kind)]


def proven_init(host: Endpoint, joiner: Endpoint, address: object, now: float = 0.0) -> bytes:
    """`joiner`'s INIT as it comes back to `host` from `address` with the cookie of the
    host's RETRY (the joiner connected already, and has sent nothing yet)."""
    (init, _), = joiner.datagrams_to_send(now)
    host.receive_datagram(init, address, now)
    (retry, _), = host.datagrams_to_send(now)
    assert retry[0] == RETRY and len(retry) < len(init)
    joiner.receive_datagram(retry, "host", now)
    (init, _), = joiner.datagrams_to_send(now)
    return init
