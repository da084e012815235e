"""A guest's terminal for tests and benchmarks of ``xmas-tui serve``: a client on a
pseudo-terminal of our own, its screen read through the pyte terminal emulator, keys
typed as a terminal sends them; and the processes a server started, read from /proc.

Owns nothing of the product: it stands beside it, as a guest's laptop would (Linux only).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pyte

from xmas_tui.serve.guests import set_size, take_terminal

#: Keys as a terminal sends them.
KEYS = {"enter": "\r", "escape": "\x1b", "ctrl+s": "\x13", "ctrl+q": "\x11", "left": "\x1b[D", "right": "\x1b[C"}


#: An OpenSSH client that knows nothing of this machine's or this user's settings and keys,
#: and never asks for a password (a guest with no key is let in by keyboard-interactive with
#: no question, which BatchMode would not even try).
SSH_OPTIONS = ("-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
               "-o", "LogLevel=ERROR", "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none",
               "-o", "PasswordAuthentication=no", "-o", "ConnectTimeout=10")  # fmt: skip
#: An identity file that cannot exist: the client offers no key of this account's own.
NO_KEY = "/nonexistent/xmas-tui-no-key"


def client_options(key: Path | None = None) -> list[str]:
    """Options for ``ssh``, ``sftp`` and ``scp`` alike: offering the private key in the file
    ``key``, or no key at all."""
    return [*SSH_OPTIONS, "-o", f"IdentityFile={key or NO_KEY}"]


def ssh_command(port: int, *args: str, user: str = "holly", key: Path | None = None) -> list[str]:
    """``ssh -p PORT [ARGS] USER@127.0.0.1``, with the private key in ``key`` (or none)."""
    return ["ssh", *client_options(key), "-p", str(port), *args, f"{user}@127.0.0.1"]


def new_key(folder: Path, name: str = "id_ed25519") -> Path:
    """A new Ed25519 key pair made by ``ssh-keygen`` in ``folder``: the private key's file."""
    path = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], check=True)
    return path


def key_fingerprint(path: Path) -> str:
    """``SHA256:…`` of the key pair whose private half is in ``path``, as ``ssh-keygen -l`` says it."""
    said = subprocess.run(["ssh-keygen", "-l", "-f", f"{path}.pub"], capture_output=True, text=True, check=True)
    return said.stdout.split()[1]


class Serving:
    """``xmas-tui serve ssh|web --port 0 --bind 127.0.0.1 …`` in a process of its own."""

    def __init__(self, way: str, *args: str) -> None:
        self.argv = [sys.executable, "-m", "xmas_tui", "serve", way, "--port", "0", "--bind", "127.0.0.1", *args]
        self.lines: list[str] = []
        self.process: asyncio.subprocess.Process | None = None
        self.port = 0
        self._reading: asyncio.Task | None = None

    async def __aenter__(self) -> Serving:
        self.process = await asyncio.create_subprocess_exec(
            *self.argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self._reading = asyncio.ensure_future(self._read())
        await self.wait_for_line(r"Ctrl\+C stops", 30)
        found = next(re.search(r"127\.0\.0\.1:(\d+)", line) for line in self.lines if "127.0.0.1:" in line)
        self.port = int(found.group(1))
        return self

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        async for line in self.process.stdout:
            self.lines.append(line.decode(errors="replace").rstrip("\n"))

    async def wait_for_line(self, pattern: str, seconds: float = 20.0) -> str:
        deadline = time.monotonic() + seconds
        while True:
            found = next((line for line in self.lines if re.search(pattern, line)), None)
            if found is not None:
                return found
            assert self.process is not None
            if self.process.returncode is not None and self._reading is not None and self._reading.done():
                raise AssertionError(f"the server ended: {self.lines}")
            assert time.monotonic() < deadline, f"no line like {pattern!r} in {self.lines}"
            await asyncio.sleep(0.05)

    async def stop(self) -> int:
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            status = await asyncio.wait_for(self.process.wait(), 20)
        finally:
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
        if self._reading is not None:
            await self._reading
        return status

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


class GuestTerminal:
    """A guest at a terminal of ``columns`` x ``rows``: a command (an ``ssh`` client, or the
    app itself) on a pseudo-terminal of our own, whose screen is read through pyte."""

    def __init__(self, argv: list[str], columns: int = 80, rows: int = 24, env: dict[str, str] | None = None) -> None:
        self.argv, self.env = argv, env
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.process: asyncio.subprocess.Process | None = None
        self.terminal = -1
        self.received = 0  # bytes drawn so far
        self.closed = asyncio.Event()

    async def __aenter__(self) -> GuestTerminal:
        self.terminal, client_side = os.openpty()
        set_size(self.terminal, self.screen.columns, self.screen.lines)
        env = {**os.environ, "TERM": "xterm-256color", **(self.env or {})}
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=client_side, stdout=client_side, stderr=client_side, env=env,
                start_new_session=True, preexec_fn=take_terminal,
            )  # fmt: skip
        finally:
            os.close(client_side)
        os.set_blocking(self.terminal, False)
        asyncio.get_running_loop().add_reader(self.terminal, self._read)
        return self

    def _read(self) -> None:
        try:
            data = os.read(self.terminal, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self.terminal)
            self.closed.set()
            return
        self.received += len(data)
        self.stream.feed(data)

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, condition: str | Callable[[str], bool], seconds: float = 30.0) -> str:
        """The screen's text once it holds ``condition`` (a string, or a test of the text)."""
        test = (lambda text: condition in text) if isinstance(condition, str) else condition
        deadline = time.monotonic() + seconds
        while not test(self.text):
            assert time.monotonic() < deadline, f"not on the screen in {seconds}s: {condition!r}\n{self.text}"
            await asyncio.sleep(0.05)
        return self.text

    def press(self, *keys: str) -> None:
        for key in keys:
            os.write(self.terminal, KEYS.get(key, key).encode())

    def resize(self, columns: int, rows: int) -> None:
        """The guest's window changes size (the client hears of it by SIGWINCH, as from a terminal)."""
        self.screen.resize(rows, columns)
        set_size(self.terminal, columns, rows)

    async def ended(self, seconds: float = 20.0) -> int:
        assert self.process is not None
        return await asyncio.wait_for(self.process.wait(), seconds)

    async def __aexit__(self, *exc: object) -> None:
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()
        with contextlib.suppress(OSError, ValueError):
            asyncio.get_running_loop().remove_reader(self.terminal)
            os.close(self.terminal)


def children_of(pid: int) -> list[int]:
    """The processes ``pid`` started (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry.name))
    return found


def environment_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def tree_of(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        todo += children_of(found[-1])
    return found


def rss_kib(pids: list[int]) -> int:
    """Resident memory of these processes, added up (KiB)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def cpu_seconds(pids: list[int]) -> float:
    """CPU time (user and system) these processes have used so far, added up (seconds)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")
