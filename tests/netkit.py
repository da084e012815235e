"""Helpers for network tests: free loopback ports, hosts and joiners that keep to loopback,
whole tables played by bots, and waiting for a condition under a deadline."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from collections.abc import Callable
from typing import Any

from netcode.simulator.faults import LinkFaults
from netcode.tools.faultproxy import FaultProxy
from xmas_tui.games import Game, get_game
from xmas_tui.tables.headless import summary
from xmas_tui.tables.network import NetTable
from xmas_tui.tables.seatbot import SeatBot, play_seat, rng_for
from xmas_tui.tables.table import SessionTable

CODE = "ABCD-2345"


def free_port() -> int:
    """A UDP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loopback_host(game: Game, players: int, *, code: str = CODE, name: str = "Host", **options: Any) -> NetTable:
    """A host bound to 127.0.0.1 that announces to a loopback port of its own."""
    options.setdefault("discovery", ("127.0.0.1", free_port()))
    return NetTable.hosted(game, players, code=code, name=name, bind_host="127.0.0.1", **options)


def joiner(host: NetTable, name: str, *, code: str = CODE, address: tuple[str, int] | None = None,
           **options: Any) -> NetTable:
    """A player who joins ``host`` from 127.0.0.1 (``address``: through a proxy, say)."""
    return NetTable.joined(address or host.address, code, name, info=host.info(), bind_host="127.0.0.1", **options)


async def until(condition: Callable[[], object], seconds: float = 20.0, what: str = "the condition") -> None:
    """Wait until ``condition()`` is true, polling; fail after ``seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, f"{what} did not happen within {seconds} s"
        await asyncio.sleep(0.01)


def results_of(procs: dict[Any, subprocess.Popen], timeout: float) -> dict[Any, dict]:
    """Each headless process's last line, as JSON, once all have ended well (any still running
    after a failure is killed)."""
    results = {}
    try:
        for key, proc in procs.items():
            out, err = proc.communicate(timeout=timeout)
            assert proc.returncode == 0, err[-2000:]
            results[key] = json.loads(out.strip().splitlines()[-1])
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
    return results


def bot_for(table: SessionTable, bot: str, salt: object = 0) -> SeatBot:
    return SeatBot(table.game, bot, rng_for(f"seat {table.seat}", salt))


async def run_table(game_id: str, players: int, *, through_proxy: LinkFaults | None = None,
                    record: Callable[[NetTable], None] | None = None, bot: str = "smart",
                    joined_out: list | None = None, options: dict | None = None,
                    keep_received: bool = False, on_datagram: Callable[[str, bytes], None] | None = None,
                    no_peek: bool = False) -> tuple[list[dict], NetTable]:
    """A whole table on loopback in this process: the host's own seat and ``players - 1``
    joined seats, every one played by a bot that sees only its seat. Returns every seat's
    summary (the host's first) and the host.

    ``through_proxy`` puts the joiners behind a fault proxy; ``record(host)`` is called
    before anyone joins; ``joined_out`` receives the joined tables; ``on_datagram(direction,
    data)`` sees every datagram the proxy relays (a LAN observer)."""
    game = get_game(game_id)
    host = loopback_host(game, players, code="TEST-CODE", auto_start=True, seed=11, options=options, no_peek=no_peek)
    mine = await host.open()
    if record is not None:
        record(host)
    proxy = None
    address = host.address
    if through_proxy is not None:
        proxy = await FaultProxy(address, through_proxy, seed=3, record=on_datagram).start()
        address = proxy.address
    joined = [joiner(host, f"Elf {i}", code="test-code", address=address) for i in range(1, players)]
    if joined_out is not None:
        joined_out.extend(joined)
    try:
        tables = [mine]
        for seat in joined:
            tables.append(await seat.join(timeout=10))
            seat.session.keep_received = keep_received
        await asyncio.gather(*(play_seat(t, bot_for(t, bot), wait=180) for t in tables))
        await host.finish()
        return [summary(t, role="host" if t is mine else "join") for t in tables], host
    finally:
        for seat in joined:
            await seat.close()
        if proxy is not None:
            await proxy.close()
        await host.close()
