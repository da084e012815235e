"""Finding tables: hosts announce, lobbies listen, on the LAN and on this machine.

Owns: the announcement datagram (what a host says about its table: game,
seats, host name, port, the tag of its code), the ``Announcer`` that repeats
it, ``Announcements``, the list of tables a listener has heard, the box's
``Rendezvous`` (where every listener on this machine can be found), the
probe a player sends to a ``host:port`` typed by hand when discovery cannot
reach (firewalls, other subnets), and the host's `ProbeAnswerer`.

Announcements are public and unauthenticated, as they must be: they carry no
secret and nothing to test a guess of the code against offline but the
code's tag, `netcode.codes.TAG_BITS` bits of it (see `netcode.codes` for the
arithmetic: 32 of a made-up code's 40 bits stay for online guessing, at the
host's rate limit). The tag lets a joiner skip the tables its code cannot
open, so a code is tried only where it may be right, and nobody else's host
counts it as a failed attempt. A joiner proves the code to the host, and the
host to the joiner, with SPAKE2 (`netcode.channel.handshake`), so a fake
table learns at most one guess per joiner's attempt, and that joiner is told
the table could not prove it knows the code. The code is never announced.

Every program on a machine hears every table, however many listen and
announce there, whoever runs them. Unicast to a port reaches one socket
only, even with SO_REUSEADDR or SO_REUSEPORT, and a port can be taken by
whoever binds it first; so a listener does not rely on the discovery port:

* Each listener binds a loopback port of its own (the kernel picks it, so
  nobody can take it beforehand) and registers it in the box's rendezvous:
  an empty file in ``/tmp`` (world-writable and sticky: anyone may add a
  file, only its owner may remove it) named ``xmas-tui-hears-NETNS-PORT-
  LISTENER-RANDOM``, NETNS the network namespace (a test's namespaces share
  ``/tmp``, not their loopback) and PORT the discovery port (tables
  announced to one port are heard by listeners on that port). The file is
  created with O_EXCL and O_NOFOLLOW, and its modification time is renewed
  every `REFRESH_EVERY` seconds while the listener lives.
* Each announcer sends every announcement to the discovery address, as
  before (the LAN broadcast by default), and a copy to each registered
  listener's port on 127.0.0.1, from a socket bound to 127.0.0.1: the copies
  cannot leave the machine, and nothing else is sent anywhere.
* An announcer lists the directory again only when its time changes (or
  changed within `RELIST_WITHIN` seconds): listing a ``/tmp`` of 10,000
  files takes some 15-30 ms, and stat-ing the registrations well under one.
* A registration not renewed within `STALE_AFTER` seconds is ignored by
  every announcer and removed by any program of its owner that comes across
  it (a listener that crashed), and a listener that starts removes all of
  its owner's, whatever their port or namespace: they never pile up beyond
  what one user's crashes leave until that user next plays, and they cost
  nothing meanwhile.
  A listener that finds its own file gone registers again.
* A user can register at most `MAX_PER_USER` listeners that announcers send
  to (the newest; owners are told apart by the file's owner, which only the
  kernel sets), and announcers take users in turns up to
  `MAX_REGISTRATIONS`: a user who registers many ports crowds out only
  themselves, and at worst makes announcers send a few public datagrams a
  second to loopback ports of their choosing, which they could send
  themselves.
* Listeners also bind the discovery address itself, with SO_REUSEADDR, for
  the broadcasts of tables on other machines (a broadcast reaches every
  socket bound with it). If someone holds that port, the listener still
  hears every table on this machine; it fails only if it can do neither.
  A host heard both ways is kept at its LAN address (a host bound to one
  address is reached there), its loopback copy only says it is still there.

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
import ipaddress
import os
import secrets
import socket
import stat
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from netcode.codes import TAG_BITS, code_tag

DEFAULT_PORT = 47474
DEFAULT_DISCOVERY = ("255.255.255.255", DEFAULT_PORT)
ANNOUNCE_EVERY = 0.5
FORGET_AFTER = 3.0
MAX_ANNOUNCE = 512
MAX_TABLES = 64
PROBE = b"XMAS?v2"  # how a probe starts: then zeros up to PROBE_SIZE
#: A probe is at least this long, so that no answer is ever larger than it.
PROBE_SIZE = MAX_ANNOUNCE
VERSION = 2
#: a listener that has listened this long has heard every table announcing, but for losses
HEARD_ALL_AFTER = 2.4 * ANNOUNCE_EVERY

#: the box's rendezvous: world-writable and sticky, shared by every user (see the docstring)
RENDEZVOUS_DIR = Path("/tmp")
RENDEZVOUS_PREFIX = "xmas-tui-hears-"
#: a listener renews its registration this often ...
REFRESH_EVERY = 2.0
#: ... and announcers ignore one not renewed for this long
STALE_AFTER = 10.0
#: listeners of one user that announcers send to (the newest)
MAX_PER_USER = 16
#: listeners an announcer sends to, users taken in turns
MAX_REGISTRATIONS = 128
#: the directory is listed again when its time changes, and while it changed this recently
#: (a file system whose times are coarse may not show a second change within one tick)
RELIST_WITHIN = 2.0
LOOPBACK = "127.0.0.1"


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
    #: `netcode.codes.code_tag` of the table's code: a few bits, so joiners try only their own table
    code_tag: int = field(kw_only=True)
    #: the game has ended (the table is still there, to be left); an announcement without it: not
    over: bool = False

    @property
    def free(self) -> int:
        return max(0, self.seats - self.taken)

    def may_open(self, code: str) -> bool:
        """Whether ``code`` may open this table (its tag fits; only the handshake can tell
        for sure). A code that does not fit is never tried here."""
        return code_tag(code) == self.code_tag

    def encode(self) -> bytes:
        packed: bytes = msgpack.packb(
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
                "tag": self.code_tag,
                "over": self.over,
            },
            use_bin_type=True,
        )
        return packed

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
                started=raw["started"], seed_commit=raw.get("commit", b""), code_tag=raw["tag"],
                over=raw.get("over", False),
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
            type(info.code_tag) is int and 0 <= info.code_tag < 2**TAG_BITS,
        )
        if not all(checks):
            raise ValueError("malformed")
        return info


@dataclass(frozen=True)
class HeardTable:
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
    def __init__(self, handler: Callable[[bytes, Any], None]) -> None:
        self.handler = handler

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.handler(data, addr)

    def error_received(self, exc: Exception) -> None:  # ICMP errors: ignore, keep serving
        pass


def _network_namespace() -> str:
    """This process's network namespace (its inode on Linux; "0" where there is none to tell)."""
    try:
        return str(os.stat("/proc/self/ns/net").st_ino)
    except OSError:
        return "0"


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _stale(registration: os.stat_result, now: float) -> bool:
    """Whether a registration was not renewed for `STALE_AFTER` seconds (a clock set back
    makes it look renewed in the future: stale too, until it is renewed again)."""
    return abs(now - registration.st_mtime) > STALE_AFTER


class Rendezvous:
    """The listeners on this machine for one discovery port, found through a shared directory.

    A listener ``register``s its loopback port and ``refresh``es it while it lives; an
    announcer asks for the ``ports`` of the live ones. Its own stale registrations (a
    listener that crashed) are removed by whichever of its owner's programs comes across
    them. See the module's docstring for why this is safe to share between users."""

    def __init__(self, discovery_port: int, directory: Path | None = None) -> None:
        self.directory = directory or RENDEZVOUS_DIR
        self.prefix = f"{RENDEZVOUS_PREFIX}{_network_namespace()}-{discovery_port}-"
        self.path: Path | None = None
        self.port: int | None = None
        self._fd: int | None = None
        self._uid = os.getuid() if hasattr(os, "getuid") else -1
        #: the registrations' names at the last listing, and the directory's time then
        self._names: list[str] = []
        self._listed: int | None = None

    def register(self, port: int) -> None:
        """Make ``port`` (on 127.0.0.1) heard by every announcer on this machine; OSError if
        the directory cannot take it."""
        self.leave()
        self.sweep()
        path = self.directory / f"{self.prefix}{port}-{secrets.token_hex(4)}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        self._fd = os.open(path, flags, 0o644)
        self.path, self.port = path, port

    def sweep(self, now: float | None = None) -> None:
        """Remove this user's stale registrations, for any port and network namespace (a test's
        port or namespace is never used again, so nobody else would come across them)."""
        now = time.time() if now is None else now
        with contextlib.suppress(OSError), os.scandir(self.directory) as entries:
            for entry in entries:
                if not entry.name.startswith(RENDEZVOUS_PREFIX):
                    continue
                with contextlib.suppress(OSError):
                    found = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(found.st_mode) and found.st_uid == self._uid and _stale(found, now):
                        os.unlink(entry.path)

    def refresh(self) -> None:
        """Say this listener is still here (and register again if its file was removed)."""
        if self._fd is None or self.port is None:
            return
        try:
            if os.fstat(self._fd).st_nlink == 0:  # taken for stale (this process was stopped, say)
                self.register(self.port)
            else:
                os.utime(self._fd)
        except OSError:
            pass

    def leave(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()
            self.path = None

    def _registrations(self, now: float) -> list[str]:
        """The names in the directory that look like registrations for this port. Listing a
        large ``/tmp`` takes milliseconds, so it is listed again only when it changed."""
        changed = os.stat(self.directory).st_mtime_ns
        if changed != self._listed or now - changed / 1e9 < RELIST_WITHIN:
            with os.scandir(self.directory) as entries:
                self._names = [entry.name for entry in entries if entry.name.startswith(self.prefix)]
            self._listed = changed
        return self._names

    def ports(self, now: float | None = None) -> list[int]:
        """The loopback ports of the live listeners: at most `MAX_PER_USER` per user (the
        newest), users taken in turns, `MAX_REGISTRATIONS` in all."""
        now = time.time() if now is None else now  # file times are wall-clock times
        by_user: dict[int, list[tuple[float, int]]] = {}
        try:
            names = self._registrations(now)
        except OSError:
            return []
        for name in names:
            port_text, _, _ = name[len(self.prefix):].partition("-")
            if not port_text.isdigit() or not 0 < int(port_text) < 65536:
                continue
            path = self.directory / name
            try:
                found = path.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(found.st_mode):
                continue
            if _stale(found, now):
                if found.st_uid == self._uid:
                    with contextlib.suppress(OSError):
                        path.unlink()
                continue
            by_user.setdefault(found.st_uid, []).append((found.st_mtime, int(port_text)))
        newest = [sorted(registered, reverse=True)[:MAX_PER_USER] for registered in by_user.values()]
        in_turns = [each[rank][1] for rank in range(MAX_PER_USER) for each in newest if rank < len(each)]
        return list(dict.fromkeys(in_turns))[:MAX_REGISTRATIONS]


class Announcements:
    """Keeps the tables announced on this machine and to the discovery address (bounded,
    forgets the silent)."""

    def __init__(self, discovery: tuple[str, int] | None = None) -> None:
        self.discovery = discovery or discovery_address()
        self.tables: dict[bytes, HeardTable] = {}
        self.drops: Counter[str] = Counter()
        self.rendezvous = Rendezvous(self.discovery[1])
        self._transports: list[asyncio.DatagramTransport] = []
        self._refreshing: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    async def start(self) -> None:
        """Listen on a loopback port of our own, registered in the box's rendezvous, and on the
        discovery address; OSError only if neither can be had."""
        loop = asyncio.get_running_loop()
        problems: list[OSError] = []
        for opening in (self._open_rendezvous, self._open_discovery):
            try:
                self._transports.append(await opening(loop))
            except OSError as exc:
                problems.append(exc)
        if not self._transports:
            raise problems[-1]
        if self.rendezvous.path is not None:
            self._refreshing = loop.create_task(self._refresh())

    async def _open_rendezvous(self, loop: asyncio.AbstractEventLoop) -> asyncio.DatagramTransport:
        sock = _udp_socket((LOOPBACK, 0), broadcast=False, reuse=False)
        try:
            self.rendezvous.register(sock.getsockname()[1])
        except OSError:
            sock.close()
            raise
        transport, _ = await loop.create_datagram_endpoint(lambda: _Protocol(self.receive), sock=sock)
        return transport

    async def _open_discovery(self, loop: asyncio.AbstractEventLoop) -> asyncio.DatagramTransport:
        host, port = self.discovery
        bind_host = (
            "" if host in ("255.255.255.255", "<broadcast>") or host.endswith(".255") else host
        )
        sock = _udp_socket((bind_host, port), broadcast=True, reuse=True)
        transport, _ = await loop.create_datagram_endpoint(lambda: _Protocol(self.receive), sock=sock)
        return transport

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_EVERY)
            self.rendezvous.refresh()

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
        address = (addr[0], info.port)
        before = self.tables.get(info.table_id)
        if (before is not None and before.info.peer == info.peer and before.address[1] == info.port
                and _is_loopback(address[0]) and not _is_loopback(before.address[0])):
            address = before.address  # (the same host heard on the LAN: this is its copy through the rendezvous)
        self.tables[info.table_id] = HeardTable(info, address, when)
        self._changed.set()

    def current(self, now: float | None = None) -> list[HeardTable]:
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
        if self._refreshing is not None:
            self._refreshing.cancel()
            self._refreshing = None
        for transport in self._transports:
            transport.close()
        self._transports.clear()
        self.rendezvous.leave()


class Announcer:
    """Repeats a table's announcement to the discovery address, and to every listener on this
    machine through the rendezvous, until closed."""

    def __init__(self, info: TableInfo, discovery: tuple[str, int] | None = None) -> None:
        self.info = info
        self.discovery = discovery or discovery_address()
        self.rendezvous = Rendezvous(self.discovery[1])
        #: announcements sent to the discovery address
        self.sent = 0
        #: copies sent to listeners on this machine
        self.copies = 0
        self._task: asyncio.Task[None] | None = None
        self._sock: socket.socket | None = None
        self._loopback: socket.socket | None = None

    def update(self, info: TableInfo) -> None:
        self.info = info

    async def start(self) -> None:
        host, _ = self.discovery
        family_host = ("::", 0) if ":" in host else ("0.0.0.0", 0)
        self._sock = _udp_socket(family_host, broadcast=True, reuse=False)
        self._loopback = _udp_socket((LOOPBACK, 0), broadcast=False, reuse=False)  # copies stay on this machine
        self._task = asyncio.get_running_loop().create_task(self._run())

    def announce(self) -> None:
        """Send the announcement once: to the discovery address and to this machine's listeners."""
        assert self._sock is not None and self._loopback is not None
        data = self.info.encode()
        with contextlib.suppress(OSError):
            self._sock.sendto(data, self.discovery)
            self.sent += 1
        for port in self.rendezvous.ports():
            with contextlib.suppress(OSError):
                self._loopback.sendto(data, (LOOPBACK, port))
                self.copies += 1

    async def _run(self) -> None:
        while True:
            self.announce()
            await asyncio.sleep(ANNOUNCE_EVERY)

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
        for sock in (self._sock, self._loopback):
            if sock is not None:
                sock.close()
        self._sock = self._loopback = None


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
