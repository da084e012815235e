"""Helpers shared by the transport tests: simulated pairs and state snapshots."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from netcode.channel import Config, Connection, Delivered, Endpoint, Event, PeerGone
from netcode.envelope import table_key
from netcode.tools.faults import LinkFaults
from netcode.tools.sim import SimNetwork, SimNode

TABLE = b"table-1"
CODE = "JINGLE-42"
A_ID = 101
B_ID = 202


def the_key() -> bytes:
    return table_key(CODE, TABLE)


@dataclass
class Pair:
    """Two endpoints, A and B, on a simulated link; events collected per side."""

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
    key: bytes,
    faults: LinkFaults | None = None,
    *,
    seed: int = 0,
    config: Config | None = None,
    config_b: Config | None = None,
    on_b: Callable[[Pair, Event], None] | None = None,
) -> Pair:
    net = SimNetwork(seed, faults)
    a = Endpoint(key, TABLE, A_ID, config)
    b = Endpoint(key, TABLE, B_ID, config_b or config)
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
