"""Transport benchmarks: ``python -m netcode.tools.channel_bench SCENARIO [--json] [--sim]``.

Owns: the four benchmark scenarios (echo, kcp, turbulent, soak), their goals,
the measuring client, and the echo server process it starts.

By default a scenario runs between separate processes on loopback: this
process is the client, a child process (``bench serve``) echoes every
message back, and for lossy scenarios a second child (``netcode.tools.faultproxy``)
sits between them and applies the scenario's faults both ways. ``--sim`` runs
the same scenario in the deterministic simulator instead (virtual time, no
sockets, no processing cost). Latency is the round trip of one echoed message
as its sender measures it, as in KCP's own test.

With ``--json`` the last line printed is one JSON object with the keys
scenario, p50_ms, p99_ms, max_ms, mean_ms, sent, delivered, duplicates,
order_errors, wire_bytes_per_payload_byte (plus, for echo, ``raw``: the same
figures for a bare asyncio-dgram + msgpack echo measured in the same run).
``wire_bytes_per_payload_byte`` is every UDP payload byte both ends sent
(headers, acks, heartbeats, redundancy and resends included) over the
application payload bytes carried (each message counts once per direction).

Must not touch: any address but 127.0.0.1. Every socket here is bound to or
sends to loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import asyncio_dgram
import msgpack

from netcode.aio import AioEndpoint
from netcode.channel import Delivered, Endpoint, PeerGone
from netcode.simulator.faults import LinkFaults
from netcode.simulator.network import SimNetwork

LOOPBACK = "127.0.0.1"
TABLE_ID = b"bench-table"
JOIN_CODE = "BENCH-NOEL"
CLIENT_ID = 1
SERVER_ID = 2


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    messages: int
    interval: float
    size: int  # payload bytes; 0 means random sizes (see `sizes`)
    faults: LinkFaults | None
    goals: dict[str, float] = field(default_factory=dict)
    sizes: tuple[int, int] = (16, 4000)
    drain: float = 10.0  # seconds to wait for stragglers after the last send

    def payload_size(self, rng: random.Random) -> int:
        return self.size or rng.randint(*self.sizes)


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in [
        Scenario(
            "echo",
            "clean loopback, 60 Hz; channel vs bare asyncio-dgram + msgpack",
            messages=600,
            interval=1 / 60,
            size=32,
            faults=None,
            goals={"added_p50_us": 150.0},  # issue 13: encryption may add up to 150 us
        ),
        Scenario(
            "kcp",
            "KCP's test: RTT uniform 60-125 ms, 5% loss each way, 8 B every 20 ms",
            messages=1000,
            interval=0.020,
            size=8,
            faults=LinkFaults(loss=0.05, delay=0.030, delay_max=0.0625, fifo=True),
            goals={"mean_ms": 130.0, "p99_ms": 300.0, "max_ms": 392.0, "order_errors": 0},
        ),
        Scenario(
            "turbulent",
            "400 B at 60 Hz, RTT ~27 ms, 10% loss with 25% correlation each way",
            messages=1200,
            interval=1 / 60,
            size=400,
            faults=LinkFaults(loss=0.10, loss_correlation=0.25, delay=0.0135, jitter=0.001),
            goals={"mean_ms": 40.0, "p99_ms": 80.0},
        ),
        Scenario(
            "soak",
            "1000 ms +/- 100 ms latency, 25% loss, 25% duplicates each way, 16-4000 B",
            messages=600,
            interval=1 / 30,
            size=0,
            faults=LinkFaults(loss=0.25, delay=1.0, jitter=0.1, duplicate=0.25),
            goals={"undelivered": 0, "duplicates": 0, "order_errors": 0, "disconnects": 0},
            drain=30.0,
        ),
    ]
}


def make_payload(index: int, size: int) -> bytes:
    return index.to_bytes(4, "big") + bytes(max(0, size - 4))


def payload_index(payload: Any) -> int:
    return int.from_bytes(payload[:4], "big")


class Tally:
    """What the sender saw: send times, echoes, duplicates and order errors."""

    def __init__(self) -> None:
        self.sent_at: dict[int, float] = {}
        self.latencies: list[float] = []
        self.seen: set[int] = set()
        self.duplicates = 0
        self.order_errors = 0
        self.payload_bytes = 0
        self._last = -1

    def sent(self, index: int, now: float, size: int) -> None:
        self.sent_at[index] = now
        self.payload_bytes += 2 * size  # out and back

    def received(self, index: int, now: float) -> None:
        if index in self.seen or index not in self.sent_at:
            self.duplicates += 1
            return
        self.seen.add(index)
        if index < self._last:
            self.order_errors += 1
        self._last = max(self._last, index)
        self.latencies.append(now - self.sent_at[index])

    @property
    def complete(self) -> bool:
        return len(self.seen) == len(self.sent_at)

    def figures(self, name: str, wire_bytes: int) -> dict[str, Any]:
        ms = sorted(x * 1000.0 for x in self.latencies) or [math.nan]

        def pct(p: float) -> float:
            return ms[min(len(ms) - 1, max(0, math.ceil(p * len(ms)) - 1))]

        return {
            "scenario": name,
            "p50_ms": round(pct(0.50), 3),
            "p99_ms": round(pct(0.99), 3),
            "max_ms": round(ms[-1], 3),
            "mean_ms": round(statistics.fmean(ms), 3),
            "sent": len(self.sent_at),
            "delivered": len(self.seen),
            "duplicates": self.duplicates,
            "order_errors": self.order_errors,
            "wire_bytes_per_payload_byte": round(wire_bytes / max(1, self.payload_bytes), 3),
        }


def unexpected(reasons: list[str]) -> list[str]:
    """PeerGone reasons that are a failure (not a deliberate goodbye at the end)."""
    return [reason for reason in reasons if reason not in ("local", "closed")]


def judge(scenario: Scenario, result: dict[str, Any]) -> dict[str, bool]:
    verdicts = {}
    for key, bound in scenario.goals.items():
        if key == "undelivered":
            verdicts[key] = result["sent"] - result["delivered"] <= bound
        else:
            verdicts[key] = result.get(key, math.inf) <= bound
    return verdicts


# -- the simulator run ----------------------------------------------------------


def run_sim(scenario: Scenario, messages: int, seed: int) -> dict[str, Any]:
    net = SimNetwork(seed, scenario.faults or LinkFaults())
    client = Endpoint(JOIN_CODE, TABLE_ID, CLIENT_ID)
    server = Endpoint(JOIN_CODE, TABLE_ID, SERVER_ID)
    tally = Tally()
    gone: list[str] = []

    def on_server(_node: Any, event: Any) -> None:
        if isinstance(event, Delivered):
            server.send_reliable(event.peer, event.payload)
        elif isinstance(event, PeerGone):
            gone.append(f"server:{event.reason}")

    def on_client(_node: Any, event: Any) -> None:
        if isinstance(event, Delivered):
            tally.received(payload_index(event.payload), net.now)
        elif isinstance(event, PeerGone):
            gone.append(f"client:{event.reason}")

    client.connect(SERVER_ID, "server", 0.0)
    client_node = net.add("client", client, on_client)
    server_node = net.add("server", server, on_server)
    rng = random.Random(seed)

    def send(index: int, size: int) -> None:
        tally.sent(index, net.now, size)
        client.send_reliable(SERVER_ID, make_payload(index, size))

    start = 0.5
    for i in range(messages):
        size = scenario.payload_size(rng)
        net.call_at(start + i * scenario.interval, functools.partial(send, i, size))
    end = start + messages * scenario.interval
    net.run(until=end + scenario.drain, stop=lambda: net.now >= end and tally.complete)
    net.run(until=net.now + 2.0)  # idle on: a disconnect would show up here
    result = tally.figures(scenario.name, client_node.sent_bytes + server_node.sent_bytes)
    result["disconnects"] = len(gone)
    result["disconnect_reasons"] = gone
    result["mode"] = "sim"
    return result


# -- the real run: processes on loopback ---------------------------------------------


async def _spawn(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, *args, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )


async def _finish(proc: asyncio.subprocess.Process) -> dict[str, Any]:
    """Close the child's stdin (its cue to stop) and read its last JSON line."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    out, _ = await asyncio.wait_for(proc.communicate(), timeout=20)
    lines = [line for line in out.decode().splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


async def run_real(scenario: Scenario, messages: int, seed: int) -> dict[str, Any]:
    server = await _spawn("-m", "netcode.tools.channel_bench", "serve")
    proxy = None
    assert server.stdout is not None
    try:
        info = json.loads(await asyncio.wait_for(server.stdout.readline(), timeout=30))
        target = (LOOPBACK, info["channel"][1])
        if scenario.faults is not None:
            f = scenario.faults
            proxy = await _spawn(
                "-m", "netcode.tools.faultproxy", "--upstream", f"{LOOPBACK}:{target[1]}",
                "--seed", str(seed), "--loss", str(f.loss),
                "--loss-correlation", str(f.loss_correlation), "--delay", str(f.delay),
                "--delay-max", str(f.delay_max), "--jitter", str(f.jitter),
                "--duplicate", str(f.duplicate), *(["--fifo"] if f.fifo else []),
            )  # fmt: skip
            assert proxy.stdout is not None
            words = (await asyncio.wait_for(proxy.stdout.readline(), timeout=30)).split()
            target = (LOOPBACK, int(words[2]))
        result, raw = await _drive(scenario, messages, seed, target, (LOOPBACK, info["raw"][1]))
    finally:
        stats = await _finish(server)
        proxy_stats = await _finish(proxy) if proxy is not None else {}
    result["wire_bytes_per_payload_byte"] = round(
        (result.pop("_client_bytes") + stats.get("bytes_sent", 0)) / max(1, result.pop("_payload")),
        3,
    )
    server_lost = unexpected(stats.get("gone", []))
    result["disconnects"] += len(server_lost)
    result["disconnect_reasons"] += [f"server:{reason}" for reason in server_lost]
    result["mode"] = "processes" + ("+faultproxy" if proxy is not None else "")
    if proxy_stats:
        result["proxy"] = proxy_stats
    if raw is not None:
        raw["wire_bytes_per_payload_byte"] = round(
            (raw.pop("_client_bytes") + stats.get("raw_bytes_sent", 0))
            / max(1, raw.pop("_payload")),
            3,
        )
        result["raw"] = raw
        result["added_p50_us"] = round((result["p50_ms"] - raw["p50_ms"]) * 1000.0, 1)
    return result


async def _drive(
    scenario: Scenario,
    messages: int,
    seed: int,
    target: tuple[str, int],
    raw_target: tuple[str, int],
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    tally, raw_tally = Tally(), Tally()
    gone: list[str] = []
    finished = asyncio.Event()
    all_sent = False

    def check_done() -> None:
        if all_sent and tally.complete and (raw_stream is None or raw_tally.complete):
            finished.set()

    def on_event(event: Any) -> None:
        if isinstance(event, Delivered):
            tally.received(payload_index(event.payload), time.monotonic())
            check_done()
        elif isinstance(event, PeerGone):
            gone.append(event.reason)

    aio = await AioEndpoint.bind(
        Endpoint(JOIN_CODE, TABLE_ID, CLIENT_ID, accept_unknown=False), (LOOPBACK, 0),
        on_event=on_event,
    )
    await aio.connect(SERVER_ID, target)
    with_raw = scenario.name == "echo"
    raw_stream = await asyncio_dgram.connect(raw_target) if with_raw else None
    raw_bytes = 0

    async def raw_receiver() -> None:
        assert raw_stream is not None
        while True:
            data, _ = await raw_stream.recv()
            now = time.monotonic()
            raw_tally.received(payload_index(msgpack.unpackb(data)), now)
            check_done()

    tasks = []
    if raw_stream is not None:
        tasks.append(asyncio.create_task(raw_receiver()))
    rng = random.Random(seed)
    await asyncio.sleep(0.3)  # let the handshake finish and the first heartbeats measure the path
    start = time.monotonic()
    for i in range(messages):
        size = scenario.payload_size(rng)
        payload = make_payload(i, size)
        if raw_stream is not None:
            await asyncio.sleep(max(0.0, start + i * scenario.interval - time.monotonic()))
            t0 = time.monotonic()
            raw_tally.sent(i, t0, size)
            data = msgpack.packb(payload)
            raw_bytes += len(data)
            await raw_stream.send(data)
        offset = scenario.interval / 2 if raw_stream is not None else 0.0
        await asyncio.sleep(max(0.0, start + i * scenario.interval + offset - time.monotonic()))
        t0 = time.monotonic()
        tally.sent(i, t0, size)
        await aio.send_reliable(SERVER_ID, payload)
    all_sent = True
    check_done()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(finished.wait(), timeout=scenario.drain)
    await asyncio.sleep(0.5 if scenario.faults is None else 2.0)  # idle on: disconnects show
    client_bytes = aio.endpoint.counters["bytes_sent"]
    for task in tasks:
        task.cancel()
    await aio.close()
    if raw_stream is not None:
        raw_stream.close()
    result = tally.figures(scenario.name, 0)
    lost = unexpected(gone)
    result.update(disconnects=len(lost), disconnect_reasons=[f"client:{r}" for r in lost])
    result.update(_client_bytes=client_bytes, _payload=tally.payload_bytes)
    raw = None
    if raw_stream is not None:
        raw = raw_tally.figures("raw", 0)
        raw.update(_client_bytes=raw_bytes, _payload=raw_tally.payload_bytes)
    return result, raw


async def serve() -> None:
    """The echo server child: a channel endpoint and a bare socket, both echoing."""
    from netcode.tools.faultproxy import until_stdin_closes

    gone: list[str] = []

    def on_event(event: Any) -> None:
        if isinstance(event, Delivered):
            aio.send_reliable_nowait(event.peer, event.payload)
        elif isinstance(event, PeerGone):
            gone.append(event.reason)

    aio = await AioEndpoint.bind(
        Endpoint(JOIN_CODE, TABLE_ID, SERVER_ID, max_peers=1024), (LOOPBACK, 0),
        on_event=on_event,
    )
    raw = await asyncio_dgram.bind((LOOPBACK, 0))
    raw_bytes = 0
    print(json.dumps({"channel": list(aio.address), "raw": list(raw.sockname[:2])}), flush=True)

    async def raw_echo() -> None:
        nonlocal raw_bytes
        while True:
            data, addr = await raw.recv()
            reply = msgpack.packb(msgpack.unpackb(data))
            raw_bytes += len(reply)
            await raw.send(reply, addr)

    tasks = [asyncio.create_task(raw_echo())]
    await until_stdin_closes()
    await asyncio.sleep(0.05)  # let a final CLOSE from the client land
    stats = {
        "bytes_sent": aio.endpoint.counters["bytes_sent"],
        "raw_bytes_sent": raw_bytes,
        "gone": list(gone),
        "drops": dict(aio.endpoint.drops),
        "counters": dict(aio.endpoint.counters),
    }
    for task in tasks:
        task.cancel()
    await aio.close()
    raw.close()
    print(json.dumps(stats), flush=True)


def _print_human(scenario: Scenario, result: dict[str, Any]) -> None:
    print(f"{scenario.name}: {scenario.summary} [{result['mode']}]")
    for label, figures in [("channel", result), ("raw", result.get("raw"))]:
        if figures is None:
            continue
        print(
            f"  {label:8} p50 {figures['p50_ms']:.3f} ms  p99 {figures['p99_ms']:.3f} ms  "
            f"max {figures['max_ms']:.3f} ms  mean {figures['mean_ms']:.3f} ms  "
            f"delivered {figures['delivered']}/{figures['sent']}  dup {figures['duplicates']}  "
            f"order {figures['order_errors']}  wire/payload {figures['wire_bytes_per_payload_byte']}"
        )
    if "added_p50_us" in result:
        print(f"  channel adds {result['added_p50_us']} us at p50")
    print(f"  disconnects {result['disconnects']}")
    for goal, met in result["goals"].items():
        print(f"  goal {goal} <= {scenario.goals[goal]}: {'met' if met else 'MISSED'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m netcode.tools.channel_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "scenario",
        choices=[*SCENARIOS, "serve"],
        help="scenario to run ('serve' is the echo child process)",
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--sim", action="store_true", help="run in the simulator instead")
    parser.add_argument("--messages", type=int, help="messages to send (default per scenario)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.scenario == "serve":
        asyncio.run(serve())
        return 0
    scenario = SCENARIOS[args.scenario]
    messages = args.messages or scenario.messages
    if args.sim:
        result = run_sim(scenario, messages, args.seed)
    else:
        result = asyncio.run(run_real(scenario, messages, args.seed))
    if "added_p50_us" in result:
        result["goals"] = {"added_p50_us": result["added_p50_us"] <= scenario.goals["added_p50_us"]}
    else:
        result["goals"] = judge(scenario, result)
    result["goals_met"] = all(result["goals"].values())
    if args.json:
        print(json.dumps(result))
    else:
        _print_human(scenario, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
