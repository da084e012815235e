"""Helpers for network tests: free loopback ports and a host that keeps to loopback."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from netcode.authority import HostTable
from netcode.client import ClientTable
from netcode.tools.faultproxy import FaultProxy
from netcode.tools.faults import LinkFaults
from xmas_tui.games import Game, get_game
from xmas_tui.net import make_host, play_seat, summary


def free_port() -> int:
    """A UDP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loopback_host(game: Game, players: int, *, code: str = "ABCD-2345", name: str = "Host", **options: Any) -> HostTable:
    """A host bound to 127.0.0.1 that announces to a loopback port of its own."""
    options.setdefault("discovery", ("127.0.0.1", free_port()))
    return make_host(game, players, code=code, name=name, bind_host="127.0.0.1", **options)


async def run_table(game_id: str, players: int, *, through_proxy: LinkFaults | None = None,
                    record=None, bot: str = "smart", clients_out: dict | None = None,
                    options: dict | None = None, on_datagram=None) -> tuple[list[dict], HostTable]:
    """An in-process table on loopback: a host and ``players`` joined seats played by bots.

    ``through_proxy`` puts the seats behind a fault proxy; ``record(host)`` is
    called before anyone joins; ``clients_out["clients"]`` receives the clients;
    ``on_datagram(direction, data)`` sees every datagram the proxy relays.
    """
    game = get_game(game_id)
    host = loopback_host(game, players, code="TEST-CODE", auto_start=True, seed=11, options=options)
    await host.serve()
    if record is not None:
        record(host)
    proxy = None
    address = host.address
    if through_proxy is not None:
        proxy = await FaultProxy(address, through_proxy, seed=3, record=on_datagram).start()
        address = proxy.address
    clients = [ClientTable(address, "test-code", f"Elf {i}", info=host.info(), bind_host="127.0.0.1") for i in range(players)]
    if clients_out is not None:
        clients_out["clients"] = clients
    try:
        for client in clients:
            client.keep_received = True
            await client.join(timeout=10)
        await asyncio.gather(*(play_seat(c, game, bot, wait=180) for c in clients))
        await host.run()
        return [summary(c, game) for c in clients], host
    finally:
        for client in clients:
            await client.close()
        if proxy is not None:
            await proxy.close()
        await host.close()
