"""Guests with nothing installed: the lobby served over SSH (``ssh.py``) or to a browser (``web.py``).

Owns: what every served guest gets whichever way they came (``guests.py``: an app
of their own in a child process, their name, a data folder of their own, the
limits), and the record of what this machine serves, which the lobby reads to
show how to join (``registry.py``). Must not touch: the games, the tables, the
network of a table (a guest's app finds and joins tables like any other).
"""

from __future__ import annotations

import asyncio
import signal


class Listening:
    """A server used as ``async with``: listening inside the block (``start``), closed after it
    (``close``, which ends every guest's app)."""

    async def start(self) -> int:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def __aenter__(self):  # -> Self
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class ServeError(Exception):
    """A server that cannot start (a port taken, an unreadable host key): one line, exit 2."""


async def until_stopped() -> None:
    """Wait for Ctrl+C, SIGTERM or the server's own terminal hanging up."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(signum)
