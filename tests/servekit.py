"""Helpers for the tests of ``xmas-tui serve``: a real server, a real OpenSSH client on a
terminal of the test's own (read through the pyte terminal emulator), and a real headless
Chromium driven over the DevTools protocol. Everything listens and connects on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyte
import pytest

from xmas_tui.serve.guests import set_size, take_terminal

SSH = shutil.which("ssh")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_ssh = pytest.mark.skipif(SSH is None, reason="OpenSSH's client is not installed (.ci/run installs it)")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs it)")

#: An OpenSSH client that knows nothing of this machine's or this user's settings and keys.
SSH_OPTIONS = ("-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
               "-o", "LogLevel=ERROR", "-o", "IdentitiesOnly=yes", "-o", "IdentityFile=/dev/null",
               "-o", "ConnectTimeout=10")  # fmt: skip
#: Keys as a terminal sends them.
KEYS = {"enter": "\r", "escape": "\x1b", "ctrl+s": "\x13", "ctrl+q": "\x11", "left": "\x1b[D", "right": "\x1b[C"}


def client_options(batch: bool = True) -> list[str]:
    """Options for ``ssh``, ``sftp`` and ``scp`` alike (never asking anything unless ``batch`` is False)."""
    return [*SSH_OPTIONS, *(["-o", "BatchMode=yes"] if batch else [])]


def ssh_command(port: int, *args: str, user: str = "holly", batch: bool = True) -> list[str]:
    """``ssh -p PORT [ARGS] USER@127.0.0.1``."""
    return [SSH or "ssh", *client_options(batch), "-p", str(port), *args, f"{user}@127.0.0.1"]


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
    """A guest at a terminal of ``columns`` x ``rows``: a command (an ``ssh`` client) on a
    pseudo-terminal of the test's own, whose screen is read through pyte."""

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


async def until(condition: Callable[[], Any], seconds: float = 20.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        assert time.monotonic() < deadline, f"{what}: not met in {seconds}s"
        await asyncio.sleep(0.05)
    return value


# ---------------------------------------------------------------- a headless browser

#: Run before the page's own scripts: keeps a hand on each terminal textual-serve's page
#: makes (the object that sets ``fitAddon``), so the test can read what xterm.js holds.
KEEP_TERMINALS = r"""
window.__terminals = [];
Object.defineProperty(Object.prototype, "fitAddon", {
  configurable: true,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, "fitAddon", {value, writable: true, configurable: true, enumerable: true});
    window.__terminals.push(this);
  },
});
"""
#: The text of the first terminal on the page, row by row, as xterm.js holds it (null before it exists).
READ_TERMINAL = r"""(() => {
  const kept = window.__terminals && window.__terminals[0];
  if (!kept || !kept.terminal) return null;
  const term = kept.terminal, buffer = term.buffer.active, rows = [];
  for (let i = 0; i < term.rows; i++) {
    const line = buffer.getLine(buffer.viewportY + i);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\n");
})()"""


class Browser:
    """Debian's Chromium, headless, in a fresh profile, driven over the DevTools protocol."""

    def __init__(self, width: int = 1000, height: int = 700) -> None:
        self.width, self.height = width, height
        self.profile = tempfile.mkdtemp(prefix="xmas-tui-chromium-")
        self.process: subprocess.Popen | None = None
        self.events: list[dict] = []
        self._next = 0

    async def __aenter__(self) -> Browser:
        import aiohttp

        self.process = subprocess.Popen(
            [CHROMIUM or "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={self.profile}", "--remote-debugging-address=127.0.0.1",
             "--remote-debugging-port=0", f"--window-size={self.width},{self.height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        active = Path(self.profile) / "DevToolsActivePort"
        await until(lambda: active.exists() and active.read_text().count("\n") >= 1, 30, "Chromium's DevTools port")
        port = int(active.read_text().split()[0])
        self.http = aiohttp.ClientSession()
        pages = await until_value(lambda: self._pages(port), 15)
        self.ws = await self.http.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0)
        await self.call("Network.enable")
        await self.call("Page.enable")
        await self.call("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINALS)
        return self

    async def _pages(self, port: int) -> list[dict] | None:
        async with self.http.get(f"http://127.0.0.1:{port}/json/list") as answer:
            pages = [target for target in await answer.json() if target["type"] == "page"]
        return pages or None

    async def call(self, method: str, **params: Any) -> dict:
        self._next += 1
        ask = self._next
        await self.ws.send_json({"id": ask, "method": method, "params": params})
        while True:
            message = await asyncio.wait_for(self.ws.receive_json(), 30)
            if message.get("id") == ask:
                assert "error" not in message, message
                return message.get("result", {})
            self.events.append(message)

    async def open(self, url: str) -> None:
        await self.call("Page.navigate", url=url)

    async def terminal_text(self) -> str | None:
        answer = await self.call("Runtime.evaluate", expression=READ_TERMINAL, returnByValue=True)
        return answer["result"].get("value")

    async def wait_for_text(self, condition: str, seconds: float = 30.0) -> str:
        deadline = time.monotonic() + seconds
        while True:
            text = await self.terminal_text()
            if text and condition in text:
                return text
            assert time.monotonic() < deadline, f"not in the browser's terminal in {seconds}s: {condition!r}\n{text}"
            await asyncio.sleep(0.1)

    async def press_ctrl(self, letter: str) -> None:
        """Ctrl and a letter pressed on the keyboard, into the page's terminal."""
        await self.call("Runtime.evaluate", expression="window.__terminals[0].terminal.focus()")
        key = {"key": letter, "code": f"Key{letter.upper()}", "windowsVirtualKeyCode": ord(letter.upper()), "modifiers": 2}
        await self.call("Input.dispatchKeyEvent", type="keyDown", **key)
        await self.call("Input.dispatchKeyEvent", type="keyUp", **key)

    def requested(self) -> list[str]:
        """Every address the page asked for: documents, scripts, styles, fonts, websockets."""
        urls = [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]
        urls += [e["params"]["url"] for e in self.events if e.get("method") == "Network.webSocketCreated"]
        return urls

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(Exception):
            await self.http.close()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


async def until_value(make: Callable[[], Any], seconds: float) -> Any:
    """The first true value of the coroutine ``make()``, tried until ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        with contextlib.suppress(OSError):
            value = await make()
            if value:
                return value
        assert time.monotonic() < deadline, "no answer in time"
        await asyncio.sleep(0.1)
