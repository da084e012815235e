"""A userspace UDP fault proxy for tests and benchmarks on loopback.

Owns: a front socket that clients send to, one upstream socket per client
toward the real server, and the seeded faults (`netcode.simulator.faults`) applied to
each direction: loss (optionally bursty), delay, jitter, duplication and
reordering. It stands in for netem, which this machine does not have. A
datagram's delay counts from when it reached the proxy's socket (the kernel's
receive time, ``netcode.arrival``), not from when the proxy's program got to
it, so a busy machine stretches the emulated link as little as it can. With
``record``, it is also the LAN observer of the tests: every datagram it
relays is handed to that callback as it arrives (``"up"`` toward the
server, ``"down"`` toward a client), before any fault is applied.

Must not touch: any address that is not loopback. Both the listening and the
upstream address are checked, and anything else is refused, so a test or a
benchmark can never spray datagrams onto a real network.

Run standalone::

    python -m netcode.tools.faultproxy --upstream 127.0.0.1:4000 --loss 0.05 --delay 0.03

It prints ``listening HOST PORT`` once ready, relays until its standard input
closes (or it is interrupted), and then prints its counters as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import random
import signal
import sys
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from netcode.arrival import ArrivalClock
from netcode.simulator.faults import FaultyLink, LinkFaults

Addr = tuple[str, int]


def require_loopback(address: Addr) -> Addr:
    """Return `address` if its host is a loopback IP literal, else raise ValueError."""
    host = address[0]
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"{host!r} is not an IP literal; only loopback is allowed") from None
    if not ip.is_loopback:
        raise ValueError(f"{host} is not a loopback address; the fault proxy refuses it")
    return address


class _Relay(asyncio.DatagramProtocol):
    """Receives on one socket and hands datagrams to a callback, with when each arrived."""

    def __init__(self, on_datagram: Callable[[bytes, Addr, float | None], None]) -> None:
        self.on_datagram = on_datagram
        self.transport: asyncio.DatagramTransport | None = None
        self.arrival = ArrivalClock(None)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (a datagram endpoint's: asyncio's own is one in all but its base class)
        self.transport = cast(asyncio.DatagramTransport, transport)
        self.arrival = ArrivalClock.of_transport(transport)

    def datagram_received(self, data: bytes, addr: Addr) -> None:
        self.on_datagram(data, addr, self.arrival())

    def error_received(self, exc: Exception) -> None:  # ICMP errors on loopback: ignore
        pass


@dataclass
class _Client:
    address: Addr
    upstream: asyncio.DatagramTransport
    up: FaultyLink
    down: FaultyLink


class FaultProxy:
    """Relay between clients and `upstream`, with `up` faults toward the server
    and `down` faults back toward the clients."""

    def __init__(
        self,
        upstream: Addr,
        up: LinkFaults,
        down: LinkFaults | None = None,
        *,
        seed: int = 0,
        listen: Addr = ("127.0.0.1", 0),
        max_clients: int = 64,
        max_in_flight: int = 100_000,
        record: Callable[[str, bytes], None] | None = None,
    ) -> None:
        self.upstream = require_loopback(upstream)
        self.listen = require_loopback(listen)
        self.up_faults = up
        self.down_faults = down if down is not None else up
        self.seed = seed
        self.max_clients = max_clients
        self.max_in_flight = max_in_flight
        self.record = record
        self.stats: Counter[str] = Counter()
        self._clients: dict[Addr, _Client] = {}
        self._opening: dict[Addr, list[bytes]] = {}
        self._front: asyncio.DatagramTransport | None = None
        self._in_flight = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[asyncio.Future[None]] = set()

    @property
    def address(self) -> Addr:
        assert self._front is not None, "start() first"
        host, port = self._front.get_extra_info("sockname")[:2]
        return host, port

    async def start(self) -> FaultProxy:
        self._loop = asyncio.get_running_loop()
        self._front, _ = await self._loop.create_datagram_endpoint(
            lambda: _Relay(self._from_client), local_addr=self.listen
        )
        return self

    async def close(self) -> None:
        for fut in list(self._pending):
            fut.cancel()
        for client in self._clients.values():
            client.upstream.close()
        if self._front is not None:
            self._front.close()
        await asyncio.sleep(0)

    async def __aenter__(self) -> FaultProxy:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _from_client(self, data: bytes, addr: Addr, arrived: float | None = None) -> None:
        client = self._clients.get(addr)
        if client is None:
            waiting = self._opening.get(addr)
            if waiting is not None:  # its upstream socket is being opened
                if len(waiting) < 64:
                    waiting.append(data)
                return
            if len(self._clients) + len(self._opening) >= self.max_clients:
                self.stats["refused_clients"] += 1
                return
            self.stats["clients"] += 1
            self._opening[addr] = [data]
            fut = asyncio.ensure_future(self._open_client(addr))
            self._pending.add(fut)
            fut.add_done_callback(self._pending.discard)
            return
        self._relay(client.up, client.upstream, data, None, "up", arrived)

    async def _open_client(self, addr: Addr) -> None:
        assert self._loop is not None
        index = len(self._clients)
        transport, _ = await self._loop.create_datagram_endpoint(
            lambda: _Relay(lambda data, _src, arrived: self._from_server(addr, data, arrived)),
            local_addr=(self.upstream[0], 0),
            remote_addr=self.upstream,
        )
        seed = self.seed
        client = _Client(
            addr,
            transport,
            FaultyLink(self.up_faults, random.Random(f"{seed}|up|{index}")),
            FaultyLink(self.down_faults, random.Random(f"{seed}|down|{index}")),
        )
        self._clients[addr] = client
        for data in self._opening.pop(addr):
            self._relay(client.up, client.upstream, data, None, "up")

    def _from_server(self, client_addr: Addr, data: bytes, arrived: float | None = None) -> None:
        client = self._clients.get(client_addr)
        if client is None or self._front is None:
            return
        self._relay(client.down, self._front, data, client_addr, "down", arrived)

    def _relay(
        self,
        link: FaultyLink,
        transport: asyncio.DatagramTransport,
        data: bytes,
        addr: Addr | None,
        direction: str,
        arrived: float | None = None,
    ) -> None:
        assert self._loop is not None
        loop = self._loop
        self.stats[f"{direction}_received"] += 1
        if self.record is not None:
            self.record(direction, data)
        now = loop.time()
        times = link.schedule(now if arrived is None else min(arrived, now))
        if not times:
            self.stats[f"{direction}_lost"] += 1
            return
        if len(times) > 1:
            self.stats[f"{direction}_duplicated"] += 1
        for when in times:
            if self._in_flight >= self.max_in_flight:
                self.stats[f"{direction}_overflow"] += 1
                continue
            self._in_flight += 1
            loop.call_at(when, self._emit, transport, data, addr, direction)

    def _emit(
        self, transport: asyncio.DatagramTransport, data: bytes, addr: Addr | None, direction: str
    ) -> None:
        self._in_flight -= 1
        if transport.is_closing():
            return
        self.stats[f"{direction}_sent"] += 1
        if addr is None:
            transport.sendto(data)
        else:
            transport.sendto(data, addr)


def _addr(text: str) -> Addr:
    host, _, port = text.rpartition(":")
    return require_loopback((host.strip("[]"), int(port)))


def faults_from_args(args: argparse.Namespace) -> LinkFaults:
    return LinkFaults(
        loss=args.loss,
        loss_correlation=args.loss_correlation,
        delay=args.delay,
        delay_max=args.delay_max,
        jitter=args.jitter,
        duplicate=args.duplicate,
        reorder=args.reorder,
        reorder_delay=args.reorder_delay,
        fifo=args.fifo,
    )


def add_fault_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--loss", type=float, default=0.0, help="mean loss rate, each way")
    parser.add_argument(
        "--loss-correlation",
        type=float,
        default=0.0,
        help="netem-style loss correlation (Gilbert chain)",
    )
    parser.add_argument("--delay", type=float, default=0.0, help="one-way delay, seconds")
    parser.add_argument(
        "--delay-max",
        type=float,
        default=0.0,
        help="draw the delay uniformly from [delay, delay-max]",
    )
    parser.add_argument("--jitter", type=float, default=0.0, help="+/- seconds added to delay")
    parser.add_argument("--duplicate", type=float, default=0.0, help="duplication rate")
    parser.add_argument("--reorder", type=float, default=0.0, help="hold-back rate")
    parser.add_argument("--reorder-delay", type=float, default=0.01, help="hold-back seconds")
    parser.add_argument("--fifo", action="store_true", help="never let a datagram overtake")


async def until_stdin_closes() -> None:
    """Wait until standard input reaches EOF or SIGINT/SIGTERM arrives: how a
    parent process tells a helper process (proxy, bench server) to wrap up."""
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, done.set)

    def wait_for_stdin() -> None:
        sys.stdin.buffer.read()
        loop.call_soon_threadsafe(done.set)

    threading.Thread(target=wait_for_stdin, daemon=True).start()
    await done.wait()


async def _serve(args: argparse.Namespace) -> None:
    proxy = FaultProxy(
        _addr(args.upstream), faults_from_args(args), seed=args.seed, listen=_addr(args.listen)
    )
    await proxy.start()
    host, port = proxy.address
    print(f"listening {host} {port}", flush=True)
    await until_stdin_closes()
    await proxy.close()
    print(json.dumps(dict(proxy.stats), sort_keys=True), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m netcode.tools.faultproxy",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--upstream", required=True, help="loopback HOST:PORT of the server")
    parser.add_argument("--listen", default="127.0.0.1:0", help="loopback HOST:PORT to bind")
    parser.add_argument("--seed", type=int, default=0)
    add_fault_arguments(parser)
    args = parser.parse_args(argv)
    try:
        asyncio.run(_serve(args))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
