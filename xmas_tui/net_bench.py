"""Benchmark: an action until every peer's view is updated, beside a raw UDP echo.

``python -m xmas_tui.net_bench [--peers 6] [--actions 300] [--json]`` hosts a
Chip 'n' Dale table on loopback with N joined peers (all in this process, so
one core serves every endpoint), plays bot actions through the real stack
(MACed msgpack over UDP, reliable channel, the host's rules and per-seat
views) and times each one from the moment it is sent until every peer holds a
snapshot that includes it. In the same run it times the same exchange done
with raw asyncio-dgram + msgpack and nothing else (one small datagram to the
host, a payload of the snapshot's size back to every peer): the floor any
design pays.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time

import asyncio_dgram
import msgpack

from netcode.client import ActionRefused, ClientTable

from .bots import make_bot
from .games import Rng, get_game
from .net import NetTable, make_host


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def raw_fan_out(peers: int, payload_size: int, rounds: int) -> list[float]:
    """The same shape with nothing but asyncio-dgram and msgpack: one small datagram to a
    host, which answers every peer with a payload of the snapshot's size."""
    host = await asyncio_dgram.bind(("127.0.0.1", 0))
    sockets = [await asyncio_dgram.bind(("127.0.0.1", 0)) for _ in range(peers)]
    addresses = [s.sockname[:2] for s in sockets]
    body = {"t": "snap", "blob": b"x" * payload_size}

    async def serve() -> None:
        while True:
            data, _ = await host.recv()
            msgpack.unpackb(data)
            for address in addresses:
                await host.send(msgpack.packb(body), address)

    task = asyncio.create_task(serve())
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await sockets[0].send(msgpack.packb({"t": "act", "a": ["flip", 1]}), host.sockname[:2])
        for sock in sockets:
            data, _ = await sock.recv()
            msgpack.unpackb(data)
        times.append(time.perf_counter() - started)
    task.cancel()
    for sock in (host, *sockets):
        sock.close()
    return times


async def table_round_trips(peers: int, actions: int) -> tuple[list[float], int]:
    game = get_game("chip-n-dale")
    host = make_host(game, peers, code="BENCH-2026", name="Host", bind_host="127.0.0.1",
                     discovery=("127.0.0.1", 9), auto_start=True, seed=1)  # fmt: skip
    host.announce = False
    await host.serve()
    clients = [ClientTable(host.address, "BENCH-2026", f"Peer {i}", info=host.info()) for i in range(peers)]
    for client in clients:
        await client.join()
    tables = [NetTable(game, c) for c in clients]
    bots = {t.seat: make_bot(game.id, "random", t.seat, Rng(t.seat)) for t in tables}
    by_seat = {t.seat: t for t in tables}
    times: list[float] = []
    size = 0
    try:
        while len(times) < actions:
            while not all(c.snapshot for c in clients):
                await asyncio.sleep(0.001)
            rules = host.rules
            assert rules is not None
            if rules.result() is not None:
                break
            seat = min(rules.to_act())
            table = by_seat[seat]
            snap = table.snapshot()
            if not snap.legal:
                await asyncio.sleep(0.001)
                continue
            action = bots[seat].choose(snap.view, list(snap.legal))
            target = len(host.log) + 1
            started = time.perf_counter()
            try:
                await table.client.act(action.to_wire())
            except ActionRefused:
                continue
            while not all(len(c.log) >= target for c in clients):
                await asyncio.sleep(0)
            times.append(time.perf_counter() - started)
            size = max(size, len(msgpack.packb(clients[0].snapshot)))
    finally:
        for client in clients:
            await client.close()
        await host.close()
    return times, size


async def measure(peers: int, actions: int) -> dict:
    table, size = await table_round_trips(peers, actions)
    raw = await raw_fan_out(peers, size, max(200, len(table)))
    ms = lambda xs, q: round(percentile(xs, q) * 1000, 3)  # noqa: E731
    return {
        "peers": peers,
        "actions": len(table),
        "snapshot_bytes": size,
        "p50_ms": ms(table, 0.5),
        "p99_ms": ms(table, 0.99),
        "mean_ms": round(statistics.mean(table) * 1000, 3),
        "raw_fan_out_p50_ms": ms(raw, 0.5),
        "raw_fan_out_p99_ms": ms(raw, 0.99),
        "p50_ratio_to_raw": round(percentile(table, 0.5) / percentile(raw, 0.5), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.net_bench")
    parser.add_argument("--peers", type=int, default=6)
    parser.add_argument("--actions", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = asyncio.run(measure(args.peers, args.actions))
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"action -> all {figures['peers']} views updated: p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms "
            f"over {figures['actions']} actions; raw asyncio-dgram fan-out of {figures['snapshot_bytes']} bytes: "
            f"p50 {figures['raw_fan_out_p50_ms']} ms (ratio {figures['p50_ratio_to_raw']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
