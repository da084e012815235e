"""A deterministic in-memory network for sans-IO endpoints.

Owns: a virtual clock, an event heap, and seeded faulty links (loss,
correlated loss, delay, jitter, duplication, reordering; see
`netcode.simulator.faults`) between nodes that each wrap one sans-IO endpoint. Nothing
here sleeps: thousands of lossy-link runs take seconds, and a seed replays a
run exactly. Later tests of the game layer drive their peers through it too.

Must not touch: sockets, real clocks, asyncio. Anything with the sans-IO
surface (`receive_datagram`, `datagrams_to_send`, `next_timer`,
`handle_timer`, `next_event`) can be a node; in practice a
`netcode.channel.Endpoint`.

Usage::

    net = SimNetwork(seed=1, faults=LinkFaults(loss=0.1, delay=0.02))
    a = net.add(("a", 1), endpoint_a)
    b = net.add(("b", 1), endpoint_b, on_event=lambda node, ev: ...)
    net.call_at(0.5, lambda: endpoint_a.send_reliable(b_id, "hi"))
    net.run(until=10.0, stop=lambda: ...)
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Callable, Hashable
from typing import Any, Protocol

from netcode.simulator.faults import FaultyLink, LinkFaults

Address = Hashable
_INF = float("inf")


class SansIO(Protocol):
    def receive_datagram(self, data: bytes, address: Any, now: float) -> None: ...
    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Any]]: ...
    def next_timer(self) -> float | None: ...
    def handle_timer(self, now: float) -> None: ...
    def next_event(self) -> Any: ...


EventHandler = Callable[["SimNode", Any], None]


class SimNode:
    """One endpoint attached to the simulated network at `address`."""

    def __init__(
        self, net: SimNetwork, address: Address, endpoint: SansIO, on_event: EventHandler | None
    ) -> None:
        self.net = net
        self.address = address
        self.endpoint = endpoint
        self.on_event = on_event
        self.events: list[Any] = []  # kept when there is no handler
        self.alive = True
        self.timer = _INF
        self.sent_datagrams = 0
        self.sent_bytes = 0

    def crash(self) -> None:
        """Stop dead: no more sends, receives or timers (a host pulled off the LAN)."""
        self.alive = False
        self.timer = _INF

    def pump(self) -> None:
        """Hand out events, then send whatever the endpoint has due, then re-arm."""
        if not self.alive:
            return
        endpoint = self.endpoint
        net = self.net
        while (event := endpoint.next_event()) is not None:
            if self.on_event is None:
                self.events.append(event)
            else:
                self.on_event(self, event)
        now = net.now
        for data, dst in endpoint.datagrams_to_send(now):
            self.sent_datagrams += 1
            self.sent_bytes += len(data)
            net._transmit(self.address, dst, data)
        when = endpoint.next_timer()
        self.timer = _INF if when is None else when


class SimNetwork:
    """The virtual LAN: nodes, links and a clock that jumps from event to event."""

    def __init__(self, seed: int = 0, faults: LinkFaults | None = None) -> None:
        self.seed = seed
        self.now = 0.0
        self.default_faults = faults or LinkFaults()
        self.nodes: dict[Address, SimNode] = {}
        self.stats: Counter[str] = Counter()
        self._links: dict[tuple[Address, Address], FaultyLink] = {}
        self._faults: dict[tuple[Address, Address], LinkFaults] = {}
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._order = 0

    # -- building ---------------------------------------------------------------

    def add(
        self, address: Address, endpoint: SansIO, on_event: EventHandler | None = None
    ) -> SimNode:
        if address in self.nodes:
            raise ValueError(f"address {address!r} is taken")
        node = SimNode(self, address, endpoint, on_event)
        self.nodes[address] = node
        self.call_at(self.now, node.pump)
        return node

    def set_faults(
        self, src: Address, dst: Address, faults: LinkFaults, both_ways: bool = True
    ) -> None:
        """Faults of the link src -> dst (and dst -> src unless `both_ways` is False)."""
        pairs = [(src, dst), (dst, src)] if both_ways else [(src, dst)]
        for pair in pairs:
            self._faults[pair] = faults
            self._links.pop(pair, None)

    def link(self, src: Address, dst: Address) -> FaultyLink:
        link = self._links.get((src, dst))
        if link is None:
            faults = self._faults.get((src, dst), self.default_faults)
            rng = random.Random(f"{self.seed}|{src!r}|{dst!r}")
            link = self._links[(src, dst)] = FaultyLink(faults, rng)
        return link

    # -- scheduling ---------------------------------------------------------------

    def call_at(self, when: float, fn: Callable[[], None]) -> None:
        """Run `fn` at virtual time `when`; afterwards every node is pumped."""
        self._order += 1
        heapq.heappush(self._heap, (max(when, self.now), self._order, fn))

    def call_later(self, delay: float, fn: Callable[[], None]) -> None:
        self.call_at(self.now + delay, fn)

    def _transmit(self, src: Address, dst: Address, data: bytes) -> None:
        self.stats["datagrams_sent"] += 1
        self.stats["bytes_sent"] += len(data)
        times = self.link(src, dst).schedule(self.now)
        if not times:
            self.stats["datagrams_lost"] += 1
        elif len(times) > 1:
            self.stats["datagrams_duplicated"] += 1
        for when in times:
            self._order += 1
            delivery: Callable[[], None] = _Delivery(self, src, dst, data)
            heapq.heappush(self._heap, (when, self._order, delivery))

    def _deliver(self, src: Address, dst: Address, data: bytes) -> None:
        node = self.nodes.get(dst)
        if node is None or not node.alive:
            self.stats["datagrams_unroutable"] += 1
            return
        self.stats["datagrams_delivered"] += 1
        node.endpoint.receive_datagram(data, src, self.now)
        node.pump()

    # -- running -----------------------------------------------------------------

    def run(self, until: float, stop: Callable[[], bool] | None = None) -> bool:
        """Advance virtual time up to `until`; True if `stop()` became true first."""
        heap = self._heap
        nodes = self.nodes
        stuck = 0
        while True:
            if stop is not None and stop():
                return True
            t_heap = heap[0][0] if heap else _INF
            timer_node = None
            t_timer = _INF
            for node in nodes.values():
                if node.timer < t_timer:
                    t_timer = node.timer
                    timer_node = node
            t = t_heap if t_heap <= t_timer else t_timer
            if t > until:
                self.now = until
                return False
            if t > self.now:
                self.now = t
                stuck = 0
            if t_heap <= t_timer:
                _, _, fn = heapq.heappop(heap)
                fn()
                if not isinstance(fn, _Delivery):
                    for node in list(nodes.values()):
                        node.pump()
            else:
                assert timer_node is not None
                stuck += 1
                if stuck > 100_000:
                    raise RuntimeError(f"timer of {timer_node.address!r} does not advance")
                timer_node.endpoint.handle_timer(self.now)
                timer_node.pump()


class _Delivery:
    __slots__ = ("net", "src", "dst", "data")

    def __init__(self, net: SimNetwork, src: Address, dst: Address, data: bytes) -> None:
        self.net = net
        self.src = src
        self.dst = dst
        self.data = data

    def __call__(self) -> None:
        self.net._deliver(self.src, self.dst, self.data)
