"""Serving benchmark: guests over SSH, on this machine, through a real OpenSSH client.

``python -m xmas_tui.tools.serve_bench [--runs 10] [--guests 8] [--seconds 30] [--json]``
starts ``xmas-tui serve ssh`` on 127.0.0.1 (in a data folder of its own) and measures:

- the time from starting ``ssh`` to the lobby drawn on the guest's screen (p50 of
  ``--runs``), beside the app started directly on a terminal of its own (no SSH), in
  the same run;
- the memory of one guest (the resident memory of their app's process tree) in the lobby;
- with ``--guests`` guests at once, each in a game of Chip 'n' Dale against three bots and
  pressing a key every half second: the CPU time of the server and the guests' apps (and
  of the ssh clients, which at a party run on the guests' own laptops), the resident
  memory of each guest, and this machine's CPU (all cores, /proc/stat) and memory in use,
  beside the same machine with no guest over a window of the same length (on a shared
  machine, other work shows in both).

Nothing leaves 127.0.0.1 (discovery too is pointed at a loopback port).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

from xmas_tui.tools.guest_terminal import (
    GuestTerminal,
    Serving,
    children_of,
    cpu_seconds,
    rss_kib,
    ssh_command,
    tree_of,
)

#: A player's keys in Chip 'n' Dale: flip a slot, choose, stop, shuffle the tree.
PLAYER_KEYS = ("1", "2", "3", "4", "5", "6", "enter", "s", "c")


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of every core since boot."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def memory_used_mib() -> float:
    """MemTotal - MemAvailable: the memory this machine uses (MiB)."""
    info = {line.split(":")[0]: int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()}
    return (info["MemTotal"] - info["MemAvailable"]) / 1024


async def busy_percent(seconds: float) -> float:
    """The machine's CPU use over the next ``seconds``: 100 is every core busy."""
    busy0, total0 = cpu_ticks()
    await asyncio.sleep(seconds)
    busy1, total1 = cpu_ticks()
    return 100 * (busy1 - busy0) / max(1, total1 - total0)


async def time_to_lobby(argv: list[str]) -> float:
    """Seconds from starting ``argv`` on a fresh 80x24 terminal to the lobby drawn on it."""
    started = time.perf_counter()
    async with GuestTerminal(argv) as guest:
        await guest.wait_for(lambda text: "Lobby" in text and "Play vs bots" in text, 60)
        drawn = time.perf_counter() - started
        guest.press("ctrl+q")
        with contextlib.suppress(TimeoutError):
            await guest.ended(20)
    return drawn


async def play(guest: GuestTerminal, until: float) -> None:
    """Press a player's keys every half second until ``until`` (perf_counter)."""
    for key in itertools.cycle(PLAYER_KEYS):
        if time.perf_counter() >= until:
            return
        guest.press(key)
        await asyncio.sleep(0.5)


async def measure(runs: int, guests: int, seconds: float) -> dict:
    server = Serving("ssh", "--max-guests", str(max(16, guests)))
    async with server:
        assert server.process is not None
        ssh_lobby = [await time_to_lobby(ssh_command(server.port, "-tt", user=f"guest{i}")) for i in range(runs)]
        direct_lobby = [await time_to_lobby([sys.executable, "-m", "xmas_tui"]) for _ in range(runs)]

        async with GuestTerminal(ssh_command(server.port, "-tt", user="ann")) as one:
            await one.wait_for("Play vs bots", 60)
            await asyncio.sleep(1)
            [app] = children_of(server.process.pid)
            one_guest_kib = rss_kib(tree_of(app))
            one.press("ctrl+q")
            await one.ended(20)

        await asyncio.sleep(2)
        memory_before = memory_used_mib()
        server_kib_before = rss_kib([server.process.pid])
        idle_cpu = await busy_percent(seconds)

        async with contextlib.AsyncExitStack() as stack:
            players = [await stack.enter_async_context(GuestTerminal(ssh_command(server.port, "-tt", user=f"elf{i}")))
                       for i in range(guests)]  # fmt: skip
            for player in players:
                await player.wait_for("Play vs bots", 60)
                player.press("ctrl+s")
            for player in players:
                await player.wait_for("Round 1/", 60)
            apps = children_of(server.process.pid)
            served = [server.process.pid, *(pid for app in apps for pid in tree_of(app))]
            clients = [player.process.pid for player in players if player.process is not None]
            served_before, clients_before = cpu_seconds(served), cpu_seconds(clients)
            until = time.perf_counter() + seconds
            keys = [asyncio.ensure_future(play(player, until)) for player in players]
            playing_cpu = await busy_percent(seconds)
            await asyncio.gather(*keys)
            served_cpu = 100 * (cpu_seconds(served) - served_before) / seconds
            clients_cpu = 100 * (cpu_seconds(clients) - clients_before) / seconds
            guests_kib = [rss_kib(tree_of(app)) for app in apps]
            memory_playing = memory_used_mib()
            server_kib = rss_kib([server.process.pid])
            for player in players:
                player.press("escape")
                await asyncio.sleep(0.2)
                player.press("ctrl+q")
    return {
        "runs": runs,
        "ssh_to_lobby_p50_ms": round(statistics.median(ssh_lobby) * 1000),
        "direct_to_lobby_p50_ms": round(statistics.median(direct_lobby) * 1000),
        "ssh_to_lobby_max_ms": round(max(ssh_lobby) * 1000),
        "guest_rss_lobby_mib": round(one_guest_kib / 1024, 1),
        "guests": guests,
        "seconds": seconds,
        "cores": os.cpu_count(),
        "cpu_busy_no_guests_pct": round(idle_cpu, 1),
        "cpu_busy_guests_playing_pct": round(playing_cpu, 1),
        "served_cpu_pct_of_a_core": round(served_cpu, 1),
        "ssh_clients_cpu_pct_of_a_core": round(clients_cpu, 1),
        "guest_rss_playing_mean_mib": round(statistics.mean(guests_kib) / 1024, 1) if guests_kib else None,
        "server_rss_mib": round(max(server_kib, server_kib_before) / 1024, 1),
        "machine_memory_no_guests_mib": round(memory_before),
        "machine_memory_guests_playing_mib": round(memory_playing),
    }


def loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.serve_bench")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--guests", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="xmas-tui-serve-bench-") as data:
        os.environ["XDG_DATA_HOME"] = data  # the server and every guest's app, never the user's
        os.environ["XMAS_TUI_DISCOVERY"] = f"127.0.0.1:{loopback_port()}"
        os.environ.pop("XMAS_TUI_NAME", None)
        figures = asyncio.run(measure(args.runs, args.guests, args.seconds))
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"ssh to lobby drawn: p50 {figures['ssh_to_lobby_p50_ms']} ms (max {figures['ssh_to_lobby_max_ms']} ms); "
              f"the app on a terminal of its own: p50 {figures['direct_to_lobby_p50_ms']} ms ({args.runs} runs each)")
        print(f"one guest in the lobby: {figures['guest_rss_lobby_mib']} MiB resident; the server: {figures['server_rss_mib']} MiB")
        print(f"{args.guests} guests each playing against bots for {args.seconds:g} s: the server and their apps "
              f"{figures['served_cpu_pct_of_a_core']}% of one core (their ssh clients {figures['ssh_clients_cpu_pct_of_a_core']}%); "
              f"the machine {figures['cpu_busy_guests_playing_pct']}% of {figures['cores']} cores busy "
              f"(no guests: {figures['cpu_busy_no_guests_pct']}%), "
              f"{figures['guest_rss_playing_mean_mib']} MiB a guest, machine memory in use "
              f"{figures['machine_memory_guests_playing_mib']} MiB (no guests: {figures['machine_memory_no_guests_mib']} MiB)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
