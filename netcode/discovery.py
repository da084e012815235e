"""Finding tables on the LAN: hosts announce, lobbies listen.

Owns: the announcement datagram (what a host says about its table: game,
seats, host name, port), the ``Announcer`` that repeats it to the discovery
address, ``Announcements``, the list of tables it has heard announced, and
the probe a player sends to a ``host:port`` typed by hand when discovery
cannot reach (firewalls, other subnets), and the host's `ProbeAnswerer`.

Announcements are public and unauthenticated, as they must be: they carry no
secret and nothing to test a guess of the code against (a joiner proves the
code to the host, and the host to the joiner, with SPAKE2: see
`netcode.channel.handshake`), so a fake table learns at most one guess per
joiner's attempt, and that joiner is told the table could not prove it knows
the code. The code is never announced.

Nothing here can be turned on someone else: a probe is padded to
`PROBE_SIZE`, at least as large as any answer (`MAX_ANNOUNCE`), a shorter
probe gets nothing, an answer larger than its probe is never sent, and
answers are rate-limited per source address (`ProbeAnswerer`). Intake is
defensive like the channel's: a size check before decoding, strict decoding
with small limits, a bounded table list, and bad datagrams counted, never
raised.

The discovery address is configurable (``XMAS_TUI_DISCOVERY`` or the
``discovery=`` arguments): the LAN broadcast address by default, loopback or
a test's own network namespace in tests.

Must not touch: games, the UI, the table channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from collections import Counter, OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import msgpack

DEFAULT_PORT = 47474
DEFAULT_DISCOVERY = ("255.255.255.255", DEFAULT_PORT)
ANNOUNCE_EVERY = 0.5
FORGET_AFTER = 3.0
MAX_ANNOUNCE = 512
MAX_TABLES = 64
PROBE = b"XMAS?v2"  # how a probe starts: then zeros up to PROBE_SIZE
#: A probe is at least this long, so that no answer is ever larger than it.
PROBE_SIZE = MAX_ANNOUNCE
VERSION = 1


def discovery_address(text: str | None = None) -> tuple[str, int]:
    """``host:port`` (or ``XMAS_TUI_DISCOVERY``, or the LAN broadcast default) as a pair."""
    text = text or os.environ.get("XMAS_TUI_DISCOVERY")
    if not text:
        return DEFAULT_DISCOVERY
    return parse_address(text, DEFAULT_PORT)


def parse_address(text: str, default_port: int | None = None) -> tuple[str, int]:
    """``host:port``, ``[v6]:port`` or ``host`` (with a default port) as a pair; ValueError if bad."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, ""
    if not host:
        raise ValueError(f"{text!r} has no host")
    if not port_text:
        if default_port is None:
            raise ValueError(f"{text!r} needs a port, as in {host}:{DEFAULT_PORT}")
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ValueError(f"{port_text!r} is not a port number (1-65535)")
    return host, int(port_text)


@dataclass(frozen=True)
class TableInfo:
    """What a host announces about its table."""

    table_id: bytes
    game: str
    title: str
    host: str
    seats: int
    taken: int
    port: int
    peer: int
    started: bool = False
    #: the host's commitment to its secret (fair play), made before anyone joins
    seed_commit: bytes = b""
    #: the game has ended (the table is still there, to be left); an announcement without it: not
    over: bool = False

    @property
    def free(self) -> int:
        return max(0, self.seats - self.taken)

    def encode(self) -> bytes:
        return msgpack.packb(
            {
                "v": VERSION,
                "table": self.table_id,
                "game": self.game,
                "title": self.title,
                "host": self.host,
                "seats": self.seats,
                "taken": self.taken,
                "port": self.port,
                "peer": self.peer,
                "started": self.started,
                "commit": self.seed_commit,
                "over": self.over,
            },
            use_bin_type=True,
        )

    @classmethod
    def decode(cls, data: bytes) -> TableInfo:
        """An announcement, or ValueError. Checks the size before decoding."""
        if len(data) > MAX_ANNOUNCE:
            raise ValueError("oversized")
        try:
            raw = msgpack.unpackb(
                data, raw=False, strict_map_key=True, max_str_len=128, max_bin_len=32,
                max_array_len=16, max_map_len=16, max_ext_len=0,
            )  # fmt: skip
        except Exception as exc:  # msgpack raises several types
            raise ValueError("undecodable") from exc
        if not isinstance(raw, dict) or raw.get("v") != VERSION:
            raise ValueError("not an announcement")
        try:
            info = cls(
                table_id=raw["table"], game=raw["game"], title=raw["title"], host=raw["host"],
                seats=raw["seats"], taken=raw["taken"], port=raw["port"], peer=raw["peer"],
                started=raw["started"], seed_commit=raw.get("commit", b""), over=raw.get("over", False),
            )  # fmt: skip
        except KeyError as exc:
            raise ValueError(f"missing {exc.args[0]}") from None
        checks = (
            isinstance(info.table_id, bytes) and 4 <= len(info.table_id) <= 16,
            all(isinstance(x, str) for x in (info.game, info.title, info.host)),
            all(
                isinstance(x, int) and not isinstance(x, bool)
                for x in (info.seats, info.taken, info.port, info.peer)
            ),
            0 <= info.peer < 2**63,
            0 < info.port < 65536 and 0 <= info.taken <= info.seats <= 64,
            isinstance(info.started, bool) and isinstance(info.over, bool),
            isinstance(info.seed_commit, bytes) and len(info.seed_commit) in (0, 32),
        )
        if not all(checks):
            raise ValueError("malformed")
        return info


@dataclass(frozen=True)
class Heard:
    """A table heard on the LAN: its announcement, where it plays, and when."""

    info: TableInfo
    address: tuple[str, int]
    seen: float


def _udp_socket(bind: tuple[str, int] | None, *, broadcast: bool, reuse: bool) -> socket.socket:
    family = socket.AF_INET6 if bind and ":" in bind[0] else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    if reuse:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if broadcast:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    sock.setblocking(False)
    if bind is not None:
        sock.bind(bind)
    return sock


class _Protocol(asyncio.DatagramProtocol):
    def __init__(self, handler) -> None:
        self.handler = handler

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.handler(data, addr)

    def error_received(self, exc: Exception) -> None:  # ICMP errors: ignore, keep serving
        pass


class Announcements:
    """Keeps the tables announced to the discovery port (bounded, forgets the silent)."""

    def __init__(self, discovery: tuple[str, int] | None = None) -> None:
        self.discovery = discovery or discovery_address()
        self.tables: dict[bytes, Heard] = {}
        self.drops: Counter[str] = Counter()
        self._transport: asyncio.DatagramTransport | None = None
        self._changed = asyncio.Event()

    async def start(self) -> None:
        host, port = self.discovery
        bind_host = (
            "" if host in ("255.255.255.255", "<broadcast>") or host.endswith(".255") else host
        )
        sock = _udp_socket((bind_host, port), broadcast=True, reuse=True)
        loop = asyncio.get_running_loop()
        self._transport, _ = await loop.create_datagram_endpoint(
            lambda: _Protocol(self.receive), sock=sock
        )

    def receive(self, data: bytes, addr: Any, now: float | None = None) -> None:
        try:
            info = TableInfo.decode(data)
        except ValueError as exc:
            self.drops[str(exc)] += 1
            return
        if info.table_id not in self.tables and len(self.tables) >= MAX_TABLES:
            self.drops["too_many_tables"] += 1
            return
        when = time.monotonic() if now is None else now
        self.tables[info.table_id] = Heard(info, (addr[0], info.port), when)
        self._changed.set()

    def current(self, now: float | None = None) -> list[Heard]:
        """Tables heard within the last few seconds, newest announcement of each."""
        now = time.monotonic() if now is None else now
        for tid in [t for t, h in self.tables.items() if now - h.seen > FORGET_AFTER]:
            del self.tables[tid]
        return sorted(self.tables.values(), key=lambda h: (h.info.host, h.info.table_id))

    async def changed(self, timeout: float) -> None:
        self._changed.clear()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None


class Announcer:
    """Repeats a table's announcement to the discovery address until closed."""

    def __init__(self, info: TableInfo, discovery: tuple[str, int] | None = None) -> None:
        self.info = info
        self.discovery = discovery or discovery_address()
        self.sent = 0
        self._task: asyncio.Task | None = None
        self._sock: socket.socket | None = None

    def update(self, info: TableInfo) -> None:
        self.info = info

    async def start(self) -> None:
        host, _ = self.discovery
        family_host = ("::", 0) if ":" in host else ("0.0.0.0", 0)
        self._sock = _udp_socket(family_host, broadcast=True, reuse=False)
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        assert self._sock is not None
        while True:
            with contextlib.suppress(OSError):
                self._sock.sendto(self.info.encode(), self.discovery)
                self.sent += 1
            await asyncio.sleep(ANNOUNCE_EVERY)

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def probe_datagram() -> bytes:
    """What a joiner sends to a typed address: the probe, padded to `PROBE_SIZE`."""
    return PROBE + bytes(PROBE_SIZE - len(PROBE))


def is_probe(data: bytes) -> bool:
    """Whether a datagram is meant as a probe (long enough to be answered or not)."""
    return data.startswith(PROBE)


class ProbeAnswerer:
    """A host's answers to probes: never larger than the probe, and rate-limited.

    Each source address (an IP) may have `burst` answers at once and then
    `rate` a second; beyond that, and for probes shorter than `PROBE_SIZE`,
    nothing is sent and the refusal is counted in `drops`. Sans-IO: the
    caller sends what `answer` returns.
    """

    def __init__(self, rate: float = 2.0, burst: int = 8, max_sources: int = 256) -> None:
        self.rate = rate
        self.burst = burst
        self.max_sources = max_sources
        self.drops: Counter[str] = Counter()
        self.answered = 0
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def answer(self, data: bytes, address: Any, now: float, announcement: bytes) -> bytes | None:
        """The announcement to send back for the probe `data`, or None (counted)."""
        if len(data) < PROBE_SIZE or not is_probe(data):
            self.drops["short_probe"] += 1
            return None
        if len(announcement) > len(data):
            self.drops["answer_too_large"] += 1
            return None
        source = address[0] if isinstance(address, tuple) else address
        tokens, last = self._buckets.pop(source, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self._buckets[source] = (tokens, now)
            self.drops["probe_rate_limited"] += 1
            return None
        self._buckets[source] = (tokens - 1.0, now)
        if len(self._buckets) > self.max_sources:
            self._buckets.popitem(last=False)
        self.answered += 1
        return announcement


async def probe(address: tuple[str, int], timeout: float = 2.0, tries: int = 4) -> TableInfo:
    """Ask a table at a typed ``host:port`` what it is; TimeoutError if nobody answers."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[TableInfo] = loop.create_future()

    def heard(data: bytes, addr: Any) -> None:
        with contextlib.suppress(ValueError):
            info = TableInfo.decode(data)
            if not answer.done():
                answer.set_result(info)

    infos = await loop.getaddrinfo(address[0], address[1], type=socket.SOCK_DGRAM)
    family, _, _, _, sockaddr = infos[0]
    transport, _ = await loop.create_datagram_endpoint(lambda: _Protocol(heard), family=family)
    try:
        for _ in range(tries):
            transport.sendto(probe_datagram(), sockaddr)
            done, _ = await asyncio.wait({answer}, timeout=timeout / tries)
            if done:
                return answer.result()
        raise TimeoutError(f"no table answered at {address[0]}:{address[1]}")
    finally:
        transport.close()
