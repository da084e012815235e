"""Join benchmarks: ``python -m netcode.tools.join_bench {handshake,table,flood} [--json]``.

Owns: three measurements of what joining costs, each printed beside a
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
* ``flood``: the door under a flood. A host (the echo child, another process)
  and joiners with the code, one after another, each timed from `connect` to
  the echo of its first message (the host has seated it); first with no flood
  (the baseline), then while `netcode.tools.flood` (a third process) sends
  forged INITs from 100 addresses on 127.0.0.2 onwards at ``--rate`` a second
  in all. Beside the times: the INIT rate the flooder reached, the rate the
  host answered (its RETRYs), and the host's CPU share (of one core) in each
  phase, read from ``/proc``. The goal: every flooded join seated within 2 s.

With ``--json`` the last line printed is one JSON object of the figures.

Must not touch: any address outside 127.0.0.0/8.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
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


async def _join_once(target: tuple[str, int], joiner_id: int, *, seat: bool = False,
                     timeout: float = 5.0) -> float | None:  # fmt: skip
    """Seconds from connect to a completed handshake, or, with `seat`, to the host's echo of
    our first message (the host has seated us); None if it failed."""
    done = asyncio.Event()
    outcome: list[bool] = []

    def on_event(event: Any) -> None:
        if outcome:
            return
        if isinstance(event, Delivered) or (not seat and isinstance(event, HandshakeCompleted)):
            outcome.append(True)
        elif isinstance(event, HandshakeFailed | PeerGone):
            outcome.append(False)
        else:
            return
        done.set()

    endpoint = Endpoint(JOIN_CODE, TABLE_ID, joiner_id, accept_unknown=False)
    aio = await AioEndpoint.bind(endpoint, (LOOPBACK, 0), on_event=on_event)
    try:
        started = time.monotonic()
        await aio.connect(SERVER_ID, target)
        if seat:
            await aio.send_reliable(SERVER_ID, b"seat me")
        await asyncio.wait_for(done.wait(), timeout=timeout)
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


# -- joins while forged INITs flood the door ---------------------------------------------

#: the flood's goal: a joiner with the code is seated within this long
SEATED_GOAL = 2.0


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far (Linux ``/proc``)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _phase(target: tuple[str, int], host_pid: int, joins: int, first_id: int,
                 timeout: float) -> dict[str, Any]:  # fmt: skip
    """`joins` joins one after another, with the host's CPU share over them."""
    cpu, wall = _cpu_seconds(host_pid), time.monotonic()
    times = []
    for i in range(joins):
        times.append(await _join_once(target, first_id + i, seat=True, timeout=timeout))
        await asyncio.sleep(0.05)
    cpu, wall = _cpu_seconds(host_pid) - cpu, time.monotonic() - wall
    done = [t for t in times if t is not None]
    return {
        "joins": joins, "seated": len(done), **_figures(done),
        "within_goal": sum(t <= SEATED_GOAL for t in done),
        "host_cpu_percent": round(100 * cpu / wall, 1), "seconds": round(wall, 2),
    }  # fmt: skip


async def run_flood(joins: int, rate: float, sources: int, timeout: float = 10.0) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    server = await _spawn("-m", "netcode.tools.channel_bench", "serve")
    assert server.stdout is not None
    flooder = None
    try:
        info = json.loads(await asyncio.wait_for(server.stdout.readline(), timeout=30))
        target = (LOOPBACK, info["channel"][1])
        baseline = await _phase(target, server.pid, joins, 1000, timeout)
        flooder = await _spawn("-m", "netcode.tools.flood", "--target", f"{LOOPBACK}:{target[1]}",
                               "--host-id", str(SERVER_ID), "--rate", str(rate), "--sources", str(sources))  # fmt: skip
        assert flooder.stdout is not None
        ready = await asyncio.wait_for(flooder.stdout.readline(), timeout=30)
        if ready.strip() != b"flooding":
            raise RuntimeError("the flood did not start (can this machine bind 127.0.0.2?)")
        await asyncio.sleep(1.0)  # the flood at full rate before the first join
        flooded = await _phase(target, server.pid, joins, 2000, timeout)
    finally:
        flood = await _finish(flooder) if flooder is not None else {}
        host = await _finish(server)
    counters = host.get("counters", {})
    answered = counters.get("retries_sent", 0) - 2 * joins  # (each join's own INIT got one)
    return {
        "scenario": "flood", "mode": "processes", "goal_ms": SEATED_GOAL * 1000,
        **{key: flooded[key] for key in ("joins", "seated", "within_goal", "p50_ms", "p99_ms", "max_ms", "mean_ms")},
        "baseline": baseline, "flooded": flooded,
        "rate_asked": rate, "sources": sources, "init_rate_sent": flood.get("rate", 0),
        "inits_sent": flood.get("sent", 0), "inits_refused_by_kernel": flood.get("refused", 0),
        "init_rate_answered": round(max(0, answered) / flood["seconds"]) if flood.get("seconds") else 0,
        "host_cpu_percent": flooded["host_cpu_percent"],
        "host_cpu_percent_baseline": baseline["host_cpu_percent"],
        "host_handshakes_started": counters.get("handshakes_started", 0),
        "host_drops": host.get("drops", {}), "cores": os.cpu_count(),
        # (a machine shared with other work gives the host less than a core: see its load)
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
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
        net.call_at(when, functools.partial(seats[seat_id].send_reliable, 1, {"move": move}))
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
    parser.add_argument("scenario", choices=["handshake", "table", "flood"])
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--count", type=int, default=100, help="handshakes to time")
    parser.add_argument("--peers", type=int, default=8, help="table: host and seats")
    parser.add_argument("--moves", type=int, default=300, help="table: moves in the game")
    parser.add_argument("--pace", type=float, default=2.0, help="table: virtual seconds a move")
    parser.add_argument("--loss", type=float, default=0.10, help="table: loss each way")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--joins", type=int, default=20, help="flood: joins timed in each phase")
    parser.add_argument("--rate", type=float, default=10_000.0, help="flood: forged INITs a second")
    parser.add_argument("--sources", type=int, default=100, help="flood: forged source addresses")
    args = parser.parse_args(argv)
    if args.scenario == "flood":
        result = asyncio.run(run_flood(args.joins, args.rate, args.sources))
        base = result["baseline"]
        summary = (
            f"{result['joins']} joins under {result['init_rate_sent']} forged INITs/s from "
            f"{result['sources']} addresses (asked {args.rate:.0f}/s; host answered "
            f"{result['init_rate_answered']}/s): seated {result['seated']}, "
            f"{result['within_goal']} within {SEATED_GOAL:.0f} s, p50 {result['p50_ms']} ms, "
            f"p99 {result['p99_ms']} ms, max {result['max_ms']} ms, host CPU "
            f"{result['host_cpu_percent']}% of a core; no flood: p50 {base['p50_ms']} ms, "
            f"p99 {base['p99_ms']} ms, max {base['max_ms']} ms, host CPU {base['host_cpu_percent']}%"
        )
    elif args.scenario == "handshake":
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
    print(summary)
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
