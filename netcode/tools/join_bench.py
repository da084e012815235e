"""Join benchmarks: ``python -m netcode.tools.join_bench {handshake,table} [--json]``.

Owns: two measurements of what joining costs, each printed beside a
baseline measured in the same run.

* ``handshake``: joins on loopback sockets, one fresh joiner after another,
  against the echo child of `netcode.tools.channel_bench` (another process):
  the time from `connect` to `HandshakeCompleted` at the joiner. Beside it,
  the bare round trip of the same child's raw socket, and the handshake's
  computation alone (both sides, in this process, no network).
* ``table``: a whole table in the simulator (virtual time, lossy links): a
  host and its seats join, then play a game's worth of moves (each move an
  action to the host and a snapshot to every seat). Timed once with the
  handshakes and once with keys attached beforehand (the baseline), so the
  difference is what joining costs a simulated table.

With ``--json`` the last line printed is one JSON object of the figures.

Must not touch: any address but 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import statistics
import sys
import time
from typing import Any

import asyncio_dgram
import msgpack

from netcode.aio import AioEndpoint
from netcode.channel import (
    Delivered,
    Endpoint,
    HandshakeCompleted,
    HandshakeFailed,
    Initiator,
    PeerGone,
    Responder,
    SessionKeys,
)
from netcode.simulator.faults import LinkFaults
from netcode.simulator.network import SimNetwork
from netcode.tools.channel_bench import JOIN_CODE, LOOPBACK, SERVER_ID, TABLE_ID, _finish, _spawn


def _figures(seconds: list[float]) -> dict[str, float]:
    ms = sorted(x * 1000.0 for x in seconds) or [math.nan]

    def pct(p: float) -> float:
        return round(ms[min(len(ms) - 1, max(0, math.ceil(p * len(ms)) - 1))], 3)

    return {"p50_ms": pct(0.5), "p99_ms": pct(0.99), "max_ms": round(ms[-1], 3),
            "mean_ms": round(statistics.fmean(ms), 3)}  # fmt: skip


# -- handshakes on loopback ---------------------------------------------------------


async def _join_once(target: tuple[str, int], joiner_id: int) -> float | None:
    """Seconds from connect to a completed handshake (None if it failed)."""
    done = asyncio.Event()
    outcome: list[bool] = []

    def on_event(event: Any) -> None:
        if isinstance(event, HandshakeCompleted | HandshakeFailed | PeerGone) and not outcome:
            outcome.append(isinstance(event, HandshakeCompleted))
            done.set()

    endpoint = Endpoint(JOIN_CODE, TABLE_ID, joiner_id, accept_unknown=False)
    aio = await AioEndpoint.bind(endpoint, (LOOPBACK, 0), on_event=on_event)
    try:
        started = time.monotonic()
        await aio.connect(SERVER_ID, target)
        await asyncio.wait_for(done.wait(), timeout=5.0)
        return time.monotonic() - started if outcome[0] else None
    except TimeoutError:
        return None
    finally:
        await aio.close()


async def _raw_round_trips(target: tuple[str, int], count: int) -> list[float]:
    stream = await asyncio_dgram.connect(target)
    times = []
    try:
        for i in range(count):
            started = time.monotonic()
            await stream.send(msgpack.packb(i.to_bytes(4, "big")))
            await asyncio.wait_for(stream.recv(), timeout=2.0)
            times.append(time.monotonic() - started)
    finally:
        stream.close()
    return times


def _computation(count: int) -> list[float]:
    """Both sides' share of a handshake, with no network: SPAKE2 and the key schedule."""
    times = []
    for i in range(count):
        started = time.perf_counter()
        joiner = Initiator(JOIN_CODE, TABLE_ID, 1000 + i, SERVER_ID)
        host = Responder(JOIN_CODE, TABLE_ID, 1000 + i, SERVER_ID, joiner.message)
        assert joiner.finish(host.message, host.proof) and host.confirms(joiner.proof)
        times.append(time.perf_counter() - started)
    return times


async def run_handshakes(count: int) -> dict[str, Any]:
    server = await _spawn("-m", "netcode.tools.channel_bench", "serve")
    assert server.stdout is not None
    try:
        info = json.loads(await asyncio.wait_for(server.stdout.readline(), timeout=30))
        target = (LOOPBACK, info["channel"][1])
        joins = [await _join_once(target, 1000 + i) for i in range(count)]
        raw = await _raw_round_trips((LOOPBACK, info["raw"][1]), count)
    finally:
        await _finish(server)
    done = [t for t in joins if t is not None]
    return {
        "scenario": "handshake", "mode": "processes", "handshakes": count,
        "failed": count - len(done), **_figures(done),
        "raw_round_trip": _figures(raw), "computation": _figures(_computation(count)),
    }  # fmt: skip


# -- a whole table in the simulator -------------------------------------------------


def _mirrored_keys() -> tuple[SessionKeys, SessionKeys]:
    to_host, to_seat = os.urandom(32), os.urandom(32)
    return SessionKeys(to_seat, to_host), SessionKeys(to_host, to_seat)


def simulate_table(peers: int, moves: int, pace: float, loss: float, seed: int, *,
                   handshakes: bool, snapshot: int = 600) -> dict[str, Any]:  # fmt: skip
    """A host and `peers - 1` seats, `moves` moves `pace` virtual seconds apart."""
    net = SimNetwork(seed, LinkFaults(loss=loss, delay=0.002, jitter=0.001))
    host = Endpoint(JOIN_CODE, TABLE_ID, 1, max_peers=64)
    seats = {}
    received = {}
    for i in range(peers - 1):
        seat_id = 100 + i
        seat = Endpoint(JOIN_CODE, TABLE_ID, seat_id, accept_unknown=False)
        if handshakes:
            seat.connect(1, "host", 0.0)
        else:
            host_keys, seat_keys = _mirrored_keys()
            host.attach(seat_id, ("seat", seat_id), host_keys, 0.0)
            seat.attach(1, "host", seat_keys, 0.0)
        seats[seat_id] = seat
        received[seat_id] = 0

        def on_seat(_node: Any, event: Any, seat_id: int = seat_id) -> None:
            if isinstance(event, Delivered):
                received[seat_id] += 1

        net.add(("seat", seat_id), seat, on_seat)
    state = bytes(snapshot)

    def on_host(_node: Any, event: Any) -> None:
        if isinstance(event, Delivered):  # a move: everyone gets the new state
            for peer in list(host.peers):
                host.send_reliable(peer, [event.payload, state])

    net.add("host", host, on_host)
    rng = random.Random(seed)
    order = list(seats)
    for move in range(moves):
        seat_id = order[move % len(order)]
        when = 1.0 + move * pace + rng.uniform(0, pace / 4)
        net.call_at(when, lambda s=seats[seat_id], m=move: s.send_reliable(1, {"move": m}))
    started = time.perf_counter()
    net.run(1.0 + moves * pace + 30.0, lambda: all(n == moves for n in received.values()))
    wall = time.perf_counter() - started
    return {
        "virtual_seconds": round(net.now, 1), "wall_seconds": round(wall, 3),
        "complete": all(n == moves for n in received.values()),
        "datagrams": net.stats["datagrams_sent"], "lost": net.stats["datagrams_lost"],
    }  # fmt: skip


def run_table(peers: int, moves: int, pace: float, loss: float, seed: int) -> dict[str, Any]:
    baseline = simulate_table(peers, moves, pace, loss, seed, handshakes=False)
    joined = simulate_table(peers, moves, pace, loss, seed, handshakes=True)
    return {
        "scenario": "table", "mode": "sim", "peers": peers, "moves": moves, "loss": loss,
        **joined,
        "baseline_wall_seconds": baseline["wall_seconds"],
        "handshake_cost_seconds": round(joined["wall_seconds"] - baseline["wall_seconds"], 3),
        "virtual_over_wall": round(joined["virtual_seconds"] / joined["wall_seconds"], 1),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m netcode.tools.join_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scenario", choices=["handshake", "table"])
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--count", type=int, default=100, help="handshakes to time")
    parser.add_argument("--peers", type=int, default=8, help="table: host and seats")
    parser.add_argument("--moves", type=int, default=300, help="table: moves in the game")
    parser.add_argument("--pace", type=float, default=2.0, help="table: virtual seconds a move")
    parser.add_argument("--loss", type=float, default=0.10, help="table: loss each way")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.scenario == "handshake":
        result = asyncio.run(run_handshakes(args.count))
        summary = (
            f"handshake on loopback: p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms "
            f"({result['handshakes']} joins, {result['failed']} failed); raw round trip p50 "
            f"{result['raw_round_trip']['p50_ms']} ms; computation alone p50 "
            f"{result['computation']['p50_ms']} ms"
        )
    else:
        result = run_table(args.peers, args.moves, args.pace, args.loss, args.seed)
        summary = (
            f"table of {args.peers} at {args.loss:.0%} loss: {result['virtual_seconds']} virtual s "
            f"in {result['wall_seconds']} s wall ({result['virtual_over_wall']}x real time); "
            f"without handshakes {result['baseline_wall_seconds']} s"
        )
    print(json.dumps(result) if args.json else summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
