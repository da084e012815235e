"""Benchmark: an action until every peer's view is updated, beside raw UDP baselines.

``python -m xmas_tui.tools.table_bench [--peers 6] [--actions 300] [--json] [--one-process]``
hosts a Chip 'n' Dale table on loopback with N joined peers and plays random
bot actions through the real stack (MACed msgpack over UDP, the reliable
channel, the host's rules and per-seat views, fair-play commitments). Each
action is timed from the moment its player sends it until the last peer holds
a snapshot that includes it; the figures are p50, p99, mean and max over all
actions, and the size of a packed snapshot as the peers received it. A game
that ends first is followed by another at a new table until N actions are timed.
The same figures are given for the actions that open no card (``*_no_opening``:
no peer was sent a face's salt with them, so no face was checked on receipt).

By default every endpoint is a process of its own, as at a real table where
each player sits at their own terminal: the driver starts a host process
(``table_bench host``) and one process per player (``table_bench peer``), all
bound to 127.0.0.1. The peer whose turn it is chooses and acts; every peer
notes when its log first reached each length. Actions never overlap: the
actor waits until its own view shows its action, and the next actor waits a
fixed gap (``--gap``) after its view arrived before it decides, so the other
peers have settled. Times from different processes are compared on the
system-wide monotonic clock (checked at start). ``--one-process`` runs the
host and every peer on one event loop in this process instead: then one core
does the work of all the machines in turn.

Ratios are against baselines measured in the same run, in the same layout of
processes, with nothing but asyncio-dgram and msgpack: ``raw_echo`` (one small
datagram to the host process and back, same spacing) and ``raw_fan_out`` (one
small datagram from peer 0 to the host, which sends a datagram of the median
snapshot size to each of the N peer processes; timed until the last has it).
A shared machine speeds up and slows down from one second to the next (a raw
echo's p50 has been seen anywhere from 0.24 to 0.45 ms here), so the table and
the baselines take ``--blocks`` turns (3) in alternation, and each turn's own
ratio is reported beside the pooled one.

With ``--json`` the last line is one JSON object. Child processes end when
their standard input closes (the driver closes it when done, on failure and on
Ctrl-C); every wait is bounded by ``--timeout`` and a failure is one line on
standard error.

Must not touch: any address but 127.0.0.1 (discovery stays off).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import asyncio_dgram
import msgpack

from netcode.discovery import TableInfo
from netcode.session.messages import Snap
from netcode.session.seat import SeatEvent, Updated
from netcode.tools.faultproxy import until_stdin_closes
from xmas_tui.bots import make_bot
from xmas_tui.games import IllegalAction, Rng, get_game
from xmas_tui.tables.network import NetTable
from xmas_tui.tables.table import SessionTable

LOOPBACK = "127.0.0.1"
GAME = "chip-n-dale"
CODE = "BENCH-2026"
GAP = 0.003
#: monotonic clocks that read the same system-wide counter in every process
SHARED_CLOCKS = (
    "clock_gettime(CLOCK_MONOTONIC)",
    "clock_gettime(CLOCK_UPTIME_RAW)",
    "mach_absolute_time()",
    "QueryPerformanceCounter()",
)
clock = time.monotonic


class BenchError(Exception):
    """The run failed; the message is the one line shown."""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def blob_for(size: int) -> bytes:
    """Filler that makes ``{"t": "snap", "i": i, "blob": ...}`` pack to about ``size`` bytes."""
    length = max(0, size - len(msgpack.packb({"t": "snap", "i": 0, "blob": b""})))
    excess = len(msgpack.packb({"t": "snap", "i": 0, "blob": bytes(length)})) - size
    return bytes(max(0, length - excess))


# ---------------------------------------------------------------- a peer's record


class PeerRecord:
    """What one peer saw: when its log first reached each length, and what it sent."""

    def __init__(self, joined: NetTable) -> None:
        self.joined = joined
        self.arrivals: list[tuple[int, float]] = []  # (log length, time), both increasing
        self.sends: dict[int, float] = {}  # target log length -> send time
        self.snapshots: list[Snap] = []  # each snapshot as it crossed the wire (a view delta after the first)
        self.opened: list[int] = []  # the log lengths whose snapshots opened a card to this peer
        self.actions_seen = 0
        self.refused = 0
        self.last_at = 0.0
        self.changed = asyncio.Event()

    def watch(self) -> None:
        """Note every snapshot from the join on (subscribed before joining, so the deal is
        never missed: the first arrival is the deal, every later one an action)."""
        self.joined.subscribe(self.heard)

    def heard(self, events: list[SeatEvent]) -> None:
        session = self.joined.session
        session.keep_received = True  # emptied at every snapshot: only the latest are kept
        if not session.dealt or not any(isinstance(e, Updated) for e in events):
            return
        now = clock()
        self.last_at = now
        received = session.received
        snaps = [m for m in received if isinstance(m, Snap)]
        self.snapshots += snaps  # sized at the end, off the clock
        received.clear()
        length = len(session.log)
        if not self.arrivals or length > self.arrivals[-1][0]:
            if self.arrivals:
                self.actions_seen += 1  # every action adds to the log; the deal comes first
            self.arrivals.append((length, now))
            if any(snap.openings for snap in snaps):
                self.opened.append(length)
        self.changed.set()

    def over(self, actions: int) -> bool:
        session = self.joined.session
        return session.dealt and (session.result is not None or self.actions_seen >= actions)

    def report(self) -> dict:
        return {
            "seat": self.joined.seat,
            "arrivals": self.arrivals,
            "sends": sorted(self.sends.items()),
            "snapshot_bytes": [len(msgpack.packb(s.to_wire())) for s in self.snapshots],
            "opened": self.opened,
            "actions_seen": self.actions_seen,
            "refused": self.refused,
        }


async def play_paced(table: SessionTable, record: PeerRecord, actions: int, gap: float) -> bool:
    """Play my seat with a random bot, acting when I am first to act, ``gap`` after my view arrived;
    True once the game is over or ``actions`` actions have been seen."""
    game = get_game(GAME)
    session = table.session
    seat = session.seat
    assert seat is not None
    bot = make_bot(game.id, "random", seat, Rng(seat))
    while True:
        record.changed.clear()
        if session.gone:
            raise BenchError(session.gone)
        if record.over(actions):
            return True
        if session.legal and session.to_act and min(session.to_act) == seat:
            view = session.view
            await asyncio.sleep(max(0.0, record.last_at + gap - clock()))
            if session.view is not view:
                continue
            snap = table.snapshot()
            action = bot.choose(snap.view, list(snap.legal))
            target = len(session.log) + 1
            record.sends[target] = clock()
            try:
                await table.send(action)
            except IllegalAction:
                del record.sends[target]
                record.refused += 1
                if session.gone:
                    raise BenchError(session.gone) from None
            else:
                while len(session.log) < target and not session.gone:
                    record.changed.clear()
                    await record.changed.wait()
                continue
        await record.changed.wait()


def bench_host(peers: int) -> NetTable:
    """The benchmark's host: every seat a joined peer (the host's machine plays none), not announced."""
    return NetTable.hosted(get_game(GAME), peers, code=CODE, name="Host", bind_host=LOOPBACK, auto_start=True,
                       seed=1, announce=False)


# ---------------------------------------------------------------- child processes


async def until_stopped(work: Any, stop: asyncio.Future, timeout: float) -> Any:
    """Run ``work`` until it ends, ``stop`` is done or ``timeout`` passes (then None)."""
    task = asyncio.ensure_future(work)
    try:
        await asyncio.wait({task, stop}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        return task.result() if task.done() else None
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def run_child(
    child: Callable[[argparse.Namespace, asyncio.Future], Awaitable[None]], args: argparse.Namespace
) -> None:
    """Run a child process's part; its cue to stop is standard input closing (or SIGINT/SIGTERM)."""
    stop = asyncio.ensure_future(until_stdin_closes())
    try:
        await child(args, stop)
    finally:
        stop.cancel()


def say(line: dict) -> None:
    print(json.dumps(line), flush=True)


async def host_child(args: argparse.Namespace, stop: asyncio.Future) -> None:
    host = bench_host(args.peers)
    await host.open(sit=False)
    try:
        say({"port": host.address[1], "info": host.info().encode().hex()})
        await until_stopped(asyncio.Event().wait(), stop, args.timeout)
        say({"drops": dict(host.runner.endpoint.drops), "log": len(host.host.log)})
    finally:
        await host.close()


async def peer_child(args: argparse.Namespace, stop: asyncio.Future) -> None:
    info = TableInfo.decode(bytes.fromhex(args.info))
    joined = NetTable.joined((LOOPBACK, args.port), CODE, f"Peer {args.index}", info=info, bind_host=LOOPBACK)
    record = PeerRecord(joined)
    record.watch()
    try:
        table = await until_stopped(joined.join(timeout=min(10.0, args.timeout)), stop, args.timeout)
        if table is None:
            return  # stopped by the driver
        played = await until_stopped(
            play_paced(table, record, args.actions, args.gap), stop, args.timeout
        )
        if not played:
            return  # stopped by the driver, or out of time
        say(record.report())
        await until_stopped(asyncio.Event().wait(), stop, args.timeout)
    finally:
        await joined.close()


async def raw_host_child(args: argparse.Namespace, stop: asyncio.Future) -> None:
    """The baselines' host: echo a small datagram, or answer one with a snapshot-sized one to every peer."""
    sock = await asyncio_dgram.bind((LOOPBACK, 0))
    blob = blob_for(args.size)
    peers: dict[int, Any] = {}

    async def serve() -> None:
        while True:
            data, address = await sock.recv()
            msg = msgpack.unpackb(data)
            kind = msg["t"]
            if kind == "act":
                for peer in sorted(peers):
                    await sock.send(
                        msgpack.packb({"t": "snap", "i": msg["i"], "blob": blob}), peers[peer]
                    )
            elif kind == "echo":
                await sock.send(msgpack.packb(msg), address)
            elif kind == "hi":
                peers[msg["k"]] = address
                await sock.send(msgpack.packb({"t": "ok"}), address)
                if len(peers) == args.peers:
                    for peer in sorted(peers):
                        await sock.send(msgpack.packb({"t": "go"}), peers[peer])

    try:
        say({"port": sock.sockname[1]})
        await until_stopped(serve(), stop, args.timeout)
    finally:
        sock.close()


async def raw_peer_child(args: argparse.Namespace, stop: asyncio.Future) -> None:
    """A baselines' peer; peer 0 also sends: echo rounds, then fan-out rounds."""
    sock = await asyncio_dgram.bind((LOOPBACK, 0))
    host = (LOOPBACK, args.port)
    arrivals: dict[int, float] = {}
    echoes: dict[int, float] = {}
    registered, go, heard = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def listen() -> None:
        while True:
            data, _ = await sock.recv()
            now = clock()
            msg = msgpack.unpackb(data)
            kind = msg["t"]
            if kind == "snap":
                arrivals.setdefault(msg["i"], now)
            elif kind == "echo":
                echoes.setdefault(msg["i"], now)
            elif kind == "ok":
                registered.set()
            elif kind == "go":
                go.set()
            heard.set()

    async def until(done: Callable[[], bool], timeout: float) -> bool:
        deadline = clock() + timeout
        while not done():
            heard.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(heard.wait(), max(0.0, deadline - clock()))
            if clock() >= deadline:
                return done()
        return True

    async def rounds() -> dict:
        while not registered.is_set():
            await sock.send(msgpack.packb({"t": "hi", "k": args.index}), host)
            await until(registered.is_set, 0.05)
        if args.index != 0:
            await asyncio.Event().wait()  # the others only receive, until the driver stops them
        if not await until(go.is_set, args.timeout):
            raise BenchError("the baselines' host never had every peer")
        echo_sends, fan_sends = {}, {}
        for i in range(args.rounds):
            echo_sends[i] = clock()
            await sock.send(msgpack.packb({"t": "echo", "i": i}), host)
            await until(lambda i=i: i in echoes, 1.0)
            await asyncio.sleep(args.gap)
        for i in range(args.rounds):
            fan_sends[i] = clock()
            await sock.send(msgpack.packb({"t": "act", "i": i, "a": ["flip", 1]}), host)
            await until(lambda i=i: i in arrivals, 1.0)
            await asyncio.sleep(args.gap)
        return {
            "echo": [echoes[i] - t for i, t in echo_sends.items() if i in echoes],
            "sends": sorted(fan_sends.items()),
        }

    reader = asyncio.ensure_future(listen())
    try:
        sent = await until_stopped(rounds(), stop, args.timeout)
        say({**(sent or {}), "arrivals": sorted(arrivals.items())})
        if sent is not None:
            await until_stopped(asyncio.Event().wait(), stop, args.timeout)
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        sock.close()


CHILDREN = {
    "host": host_child,
    "peer": peer_child,
    "raw-host": raw_host_child,
    "raw-peer": raw_peer_child,
}


# ---------------------------------------------------------------- the driver


class Child:
    """A child process of this benchmark: JSON lines on its stdout, stderr kept for the error line."""

    def __init__(self, name: str, proc: asyncio.subprocess.Process, errors: Any) -> None:
        self.name, self.proc, self.errors = name, proc, errors

    @classmethod
    async def start(cls, name: str, *args: Any) -> Child:
        errors = tempfile.TemporaryFile()
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "xmas_tui.tools.table_bench", *map(str, args),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=errors,
            start_new_session=True,  # Ctrl-C reaches the driver, which stops its children
            limit=1 << 24,  # a peer's timings come as one long line
        )  # fmt: skip
        return cls(name, proc, errors)

    def last_words(self) -> str:
        self.errors.seek(0)
        lines = [
            line.strip()
            for line in self.errors.read().decode(errors="replace").splitlines()
            if line.strip()
        ]
        return f": {lines[-1]}" if lines else ""

    async def line(self, deadline: float, what: str) -> dict:
        """The next JSON line the child prints; BenchError if it ends or the deadline passes first."""
        assert self.proc.stdout is not None
        while True:
            try:
                raw = await asyncio.wait_for(
                    self.proc.stdout.readline(), max(0.0, deadline - clock())
                )
            except TimeoutError:
                raise BenchError(
                    f"{self.name} gave no {what} before the --timeout ran out{self.last_words()}"
                ) from None
            if not raw:
                await asyncio.wait_for(self.proc.wait(), 5.0)
                raise BenchError(
                    f"{self.name} ended (exit {self.proc.returncode}) before its {what}{self.last_words()}"
                )
            if raw.startswith(b"{"):
                return json.loads(raw)

    def stop(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()

    async def finish(self, deadline: float, what: str) -> dict:
        """Close its stdin (its cue to stop) and read its last JSON line."""
        self.stop()
        return await self.line(deadline, what)


async def lines(
    children: list[Child], deadline: float, what: str, alive: list[Child] | None = None
) -> list[dict]:
    """One JSON line from each of ``children``; BenchError as soon as one of them fails, or
    one of ``alive`` (which must keep running meanwhile) ends."""
    reading = {asyncio.ensure_future(child.line(deadline, what)): child for child in children}
    watching = {asyncio.ensure_future(child.proc.wait()): child for child in alive or []}
    try:
        pending = set(reading)
        while pending:
            done, _ = await asyncio.wait(
                pending | set(watching), return_when=asyncio.FIRST_COMPLETED
            )
            for task in done:
                gone = watching.get(task)
                if gone is not None:
                    raise BenchError(
                        f"{gone.name} ended early (exit {gone.proc.returncode}){gone.last_words()}"
                    )
                task.result()  # a child's failure is raised here
            pending -= done
        return [task.result() for task in reading]
    finally:
        for task in (*reading, *watching):
            task.cancel()


async def ended(children: list[Child], grace: float = 3.0) -> None:
    """Stop every child: stdin closed, then SIGKILL for any still running after ``grace``."""
    for child in children:
        child.stop()
    waits = [child.proc.wait() for child in children]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*waits), grace)
    for child in children:
        if child.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                child.proc.kill()
            await child.proc.wait()
        child.errors.close()


def check_clock() -> str:
    implementation = time.get_clock_info("monotonic").implementation
    if implementation not in SHARED_CLOCKS:
        raise BenchError(
            f"time.monotonic is {implementation}, not known to be shared by processes; use --one-process"
        )
    return implementation


async def table_in_processes(peers: int, actions: int, gap: float, timeout: float) -> dict:
    children: list[Child] = []
    deadline = clock() + timeout
    common = ("--peers", peers, "--actions", actions, "--gap", gap, "--timeout", timeout)
    try:
        host = await Child.start("the host", "host", *common)
        children.append(host)
        hello = await host.line(deadline, "address")
        for index in range(peers):
            children.append(await Child.start(f"peer {index}", "peer", *common, "--index", index,
                                              "--port", hello["port"], "--info", hello["info"]))  # fmt: skip
        reports = await lines(children[1:], deadline, "timings", alive=[host])
        host_stats = await host.finish(clock() + 10.0, "counters")
    finally:
        await ended(children)
    latencies = []
    openings = []
    opened = {n for r in reports for n in r["opened"]}
    ends = [([n for n, _ in r["arrivals"]], [t for _, t in r["arrivals"]]) for r in reports]
    for report in reports:
        for target, sent in report["sends"]:
            last = 0.0
            for lengths, times in ends:
                at = bisect.bisect_left(lengths, target)
                if at == len(lengths):
                    raise BenchError(f"a peer never saw the action that made the log {target} long")
                last = max(last, times[at])
            latencies.append(last - sent)
            openings.append(target in opened)
    return {
        "latencies": latencies,
        "openings": openings,
        "sizes": [size for r in reports for size in r["snapshot_bytes"]],
        "refused": sum(r["refused"] for r in reports),
        "host_drops": host_stats.get("drops", {}),
    }


async def raw_in_processes(
    peers: int, size: int, rounds: int, gap: float, timeout: float
) -> tuple[list[float], list[float]]:
    children: list[Child] = []
    deadline = clock() + timeout
    common = ("--peers", peers, "--gap", gap, "--timeout", timeout)
    try:
        host = await Child.start("the baselines' host", "raw-host", *common, "--size", size)
        children.append(host)
        port = (await host.line(deadline, "address"))["port"]
        for index in range(peers):
            children.append(await Child.start(f"baseline peer {index}", "raw-peer", *common, "--index", index,
                                              "--port", port, "--rounds", rounds))  # fmt: skip
        (sender,) = await lines(children[1:2], deadline, "timings", alive=[host, *children[2:]])
        if "sends" not in sender:
            raise BenchError("baseline peer 0 ran out of time")
        await asyncio.sleep(0.05)  # stragglers of the last round
        reports = [sender] + [await child.finish(deadline, "timings") for child in children[2:]]
    finally:
        await ended(children)
    arrivals = [dict(r["arrivals"]) for r in reports]
    fan_out = [
        max(seen[i] for seen in arrivals) - sent
        for i, sent in sender["sends"]
        if all(i in seen for seen in arrivals)
    ]
    if not sender["echo"] or not fan_out:
        raise BenchError("the raw baselines delivered nothing")
    return sender["echo"], fan_out


async def tables(play: Callable[[int], Awaitable[dict]], actions: int) -> dict:
    """Table after table until ``actions`` actions were timed (a game may end sooner)."""
    games: list[dict] = []
    timed = 0
    while timed < actions:
        game = await play(actions - timed)
        if not game["latencies"]:
            raise BenchError("a game ended without a timed action")
        games.append(game)
        timed += len(game["latencies"])
    drops: Counter[str] = Counter()
    for game in games:
        drops.update(game["host_drops"])
    return {
        "latencies": [x for game in games for x in game["latencies"]],
        "openings": [x for game in games for x in game["openings"]],
        "sizes": [size for game in games for size in game["sizes"]],
        "games": len(games),
        "refused": sum(game["refused"] for game in games),
        "host_drops": dict(drops),
    }


async def measure_processes(peers: int, actions: int, gap: float, timeout: float, blocks: int = 1) -> dict:
    """The table and the baselines in ``blocks`` alternating turns (table first, then
    baselines, then baselines first...), so a machine that speeds up or slows down
    during the run weighs on both alike; every block's own ratio is reported too."""
    implementation = check_clock()
    parts: list[dict] = []
    echo: list[float] = []
    fan_out: list[float] = []
    ratios: list[float] = []
    size = 0
    for block in range(blocks):
        share = actions // blocks + (1 if block < actions % blocks else 0)
        rounds = max(200 // blocks, share)
        if block % 2 == 0:
            part = await tables(lambda n: table_in_processes(peers, n, gap, timeout), share)
            size = size or int(statistics.median(part["sizes"]))
            block_echo, block_fan = await raw_in_processes(peers, size, rounds, gap, timeout)
        else:
            block_echo, block_fan = await raw_in_processes(peers, size, rounds, gap, timeout)
            part = await tables(lambda n: table_in_processes(peers, n, gap, timeout), share)
        parts.append(part)
        echo += block_echo
        fan_out += block_fan
        ratios.append(round(percentile(part["latencies"], 0.5) / percentile(block_echo, 0.5), 2))
    table = {
        "latencies": [x for part in parts for x in part["latencies"]],
        "openings": [x for part in parts for x in part["openings"]],
        "sizes": [x for part in parts for x in part["sizes"]],
        "games": sum(part["games"] for part in parts),
        "refused": sum(part["refused"] for part in parts),
        "host_drops": dict(sum((Counter(part["host_drops"]) for part in parts), Counter())),
    }
    return {
        "mode": "processes",
        "clock": implementation,
        **summarise(peers, table, echo, fan_out, gap),
        "blocks": blocks,
        "block_ratios_to_raw_echo": ratios,
    }


# ---------------------------------------------------------------- one process


async def raw_one_process(
    peers: int, payload_size: int, rounds: int, deadline: float
) -> tuple[list[float], list[float]]:
    """The baselines on one event loop: an echo, then a fan-out of ``payload_size`` to every peer."""
    host = await asyncio_dgram.bind((LOOPBACK, 0))
    sockets = [await asyncio_dgram.bind((LOOPBACK, 0)) for _ in range(peers)]
    addresses = [s.sockname[:2] for s in sockets]
    blob = blob_for(payload_size)

    async def serve() -> None:
        while True:
            data, address = await host.recv()
            msg = msgpack.unpackb(data)
            if msg["t"] == "echo":
                await host.send(msgpack.packb(msg), address)
                continue
            for peer in addresses:
                await host.send(msgpack.packb({"t": "snap", "i": msg["i"], "blob": blob}), peer)

    async def receive(sock: Any) -> None:
        data, _ = await asyncio.wait_for(sock.recv(), max(0.0, deadline - clock()))
        msgpack.unpackb(data)

    task = asyncio.create_task(serve())
    echo, fan_out = [], []
    try:
        for i in range(rounds):
            started = clock()
            await sockets[0].send(msgpack.packb({"t": "echo", "i": i}), host.sockname[:2])
            await receive(sockets[0])
            echo.append(clock() - started)
        for i in range(rounds):
            started = clock()
            await sockets[0].send(
                msgpack.packb({"t": "act", "i": i, "a": ["flip", 1]}), host.sockname[:2]
            )
            for sock in sockets:
                await receive(sock)
            fan_out.append(clock() - started)
    except TimeoutError:
        raise BenchError("the raw baselines did not finish in time") from None
    finally:
        task.cancel()
        for sock in (host, *sockets):
            sock.close()
    return echo, fan_out


async def table_one_process(peers: int, actions: int, deadline: float) -> dict:
    game = get_game(GAME)
    host = bench_host(peers)
    await host.open(sit=False)
    joined = [NetTable.joined(host.address, CODE, f"Peer {i}", info=host.info(), bind_host=LOOPBACK) for i in range(peers)]

    async def until(done: Callable[[], bool], what: str, pause: float) -> None:
        while not done():
            if clock() > deadline:
                raise BenchError(f"timed out waiting for {what}")
            await asyncio.sleep(pause)

    latencies: list[float] = []
    openings: list[bool] = []
    sizes: list[int] = []
    sessions = []
    try:
        tables = []
        for seat in joined:
            tables.append(await seat.join())
            seat.session.keep_received = True  # emptied after every action: what crossed the wire, for its size
            sessions.append(seat.session)
        bots = {t.seat: make_bot(game.id, "random", t.seat, Rng(t.seat)) for t in tables}
        by_seat = {t.seat: t for t in tables}
        while len(latencies) < actions:
            await until(lambda: all(s.dealt for s in sessions), "the deal", 0.001)
            rules = host.host.rules
            assert rules is not None
            if rules.result() is not None:
                break
            seat = min(rules.to_act())
            table = by_seat[seat]
            await until(lambda t=table: bool(t.snapshot().legal), f"seat {seat}'s view", 0.001)
            snap = table.snapshot()
            action = bots[seat].choose(snap.view, list(snap.legal))
            target = len(host.host.log) + 1
            started = clock()
            try:
                await table.send(action)
            except IllegalAction:
                continue
            await until(
                lambda t=target: all(len(s.log) >= t for s in sessions), f"log length {target}", 0
            )
            latencies.append(clock() - started)
            openings.append(any(m.openings for s in sessions for m in s.received if isinstance(m, Snap)))
            for session in sessions:
                sizes += [len(msgpack.packb(m.to_wire())) for m in session.received if isinstance(m, Snap)]
                session.received.clear()
    finally:
        for seat in joined:
            await seat.close()
        await host.close()
    return {
        "latencies": latencies,
        "openings": openings,
        "sizes": sizes,
        "refused": 0,
        "host_drops": dict(host.runner.endpoint.drops),
    }


async def measure_one_process(peers: int, actions: int, gap: float, timeout: float) -> dict:
    table = await tables(lambda n: table_one_process(peers, n, clock() + timeout), actions)
    deadline = clock() + timeout
    size = int(statistics.median(table["sizes"]))
    echo, fan_out = await raw_one_process(peers, size, max(200, len(table["latencies"])), deadline)
    return {"mode": "one-process", **summarise(peers, table, echo, fan_out, None)}


# ---------------------------------------------------------------- figures


def summarise(
    peers: int, table: dict, echo: list[float], fan_out: list[float], gap: float | None
) -> dict:
    latencies = table["latencies"]
    if not all(math.isfinite(x) and x > 0 for x in latencies):
        raise BenchError("a latency came out non-positive: the processes do not share one clock")
    p50 = percentile(latencies, 0.5)
    plain = [x for x, opened in zip(latencies, table["openings"], strict=True) if not opened]
    p50_plain = percentile(plain, 0.5) if plain else None
    return {
        "peers": peers,
        "actions": len(latencies),
        "games": table["games"],
        "refused": table["refused"],
        "snapshot_bytes": int(statistics.median(table["sizes"])),
        "snapshot_bytes_max": max(table["sizes"]),
        "p50_ms": ms(p50),
        "p99_ms": ms(percentile(latencies, 0.99)),
        "mean_ms": ms(statistics.fmean(latencies)),
        "max_ms": ms(max(latencies)),
        "raw_rounds": len(echo),
        "raw_echo_p50_ms": ms(percentile(echo, 0.5)),
        "raw_echo_p99_ms": ms(percentile(echo, 0.99)),
        "raw_fan_out_p50_ms": ms(percentile(fan_out, 0.5)),
        "raw_fan_out_p99_ms": ms(percentile(fan_out, 0.99)),
        "p50_ratio_to_raw_echo": round(p50 / percentile(echo, 0.5), 2),
        "p50_ratio_to_raw_fan_out": round(p50 / percentile(fan_out, 0.5), 2),
        "actions_no_opening": len(plain),
        "p50_ms_no_opening": ms(p50_plain) if p50_plain is not None else None,
        "p50_ratio_to_raw_fan_out_no_opening": (
            round(p50_plain / percentile(fan_out, 0.5), 2) if p50_plain is not None else None
        ),
        "gap_ms": ms(gap) if gap is not None else None,
        "cpus": os.cpu_count(),
        "host_drops": table["host_drops"],
    }


def print_human(f: dict) -> None:
    layout = (
        "one process per peer and one for the host"
        if f["mode"] == "processes"
        else "host and peers in one process"
    )
    games = f"{f['games']} game" + ("s" if f["games"] > 1 else "")
    print(
        f"Chip 'n' Dale, {f['peers']} peers, {layout}, {f['cpus']} CPUs: {f['actions']} actions in {games}"
    )
    print(f"  action -> all {f['peers']} views updated: p50 {f['p50_ms']} ms  p99 {f['p99_ms']} ms  "
          f"mean {f['mean_ms']} ms  max {f['max_ms']} ms")  # fmt: skip
    print(
        f"  snapshot as received: median {f['snapshot_bytes']} B, max {f['snapshot_bytes_max']} B"
    )
    print(f"  raw asyncio-dgram echo:    p50 {f['raw_echo_p50_ms']} ms  p99 {f['raw_echo_p99_ms']} ms  "
          f"(table p50 is {f['p50_ratio_to_raw_echo']}x)")  # fmt: skip
    print(f"  raw fan-out of {f['snapshot_bytes']} B: p50 {f['raw_fan_out_p50_ms']} ms  p99 {f['raw_fan_out_p99_ms']} ms  "
          f"(table p50 is {f['p50_ratio_to_raw_fan_out']}x)")  # fmt: skip
    if f["p50_ms_no_opening"] is not None:
        print(f"  the {f['actions_no_opening']} actions that open no card: p50 {f['p50_ms_no_opening']} ms "
              f"({f['p50_ratio_to_raw_fan_out_no_opening']}x the raw fan-out)")  # fmt: skip
    if f.get("blocks", 1) > 1:
        each = ", ".join(f"{r}x" for r in f["block_ratios_to_raw_echo"])
        print(f"  in {f['blocks']} alternating turns, table p50 / raw echo p50: {each}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xmas_tui.tools.table_bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("child", nargs="?", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--peers", type=int, default=6)
    parser.add_argument(
        "--actions", type=int, default=300, help="actions to time, over as many games as it takes"
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument(
        "--one-process",
        action="store_true",
        help="host and peers on one event loop in this process",
    )
    parser.add_argument(
        "--gap",
        type=float,
        default=GAP,
        help="seconds between a view's arrival and its player's next action",
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds any one stage may take"
    )
    parser.add_argument(
        "--blocks",
        type=int,
        default=3,
        help="turns the table and the baselines take in alternation (processes only)",
    )
    parser.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--info", default="", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.peers < 1 or args.actions < 1:
        parser.error("--peers and --actions must be at least 1")
    if not 1 <= args.blocks <= args.actions:
        parser.error("--blocks must be between 1 and --actions")
    if args.child is not None:
        try:
            asyncio.run(run_child(CHILDREN[args.child], args))
        except BenchError as failed:
            print(f"table_bench {args.child}: {failed}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130
        return 0
    if args.one_process:
        run = measure_one_process(args.peers, args.actions, args.gap, args.timeout)
    else:
        run = measure_processes(args.peers, args.actions, args.gap, args.timeout, args.blocks)
    try:
        figures = asyncio.run(run)
    except BenchError as failed:
        print(f"table_bench: {failed}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("table_bench: interrupted", file=sys.stderr)
        return 130
    if args.json:
        print(json.dumps(figures))
    else:
        print_human(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
