"""Helpers for the tests of ``xmas-tui serve``: a real server, a real OpenSSH client on a
terminal of the test's own (read through the pyte terminal emulator), and a real headless
Chromium driven over the DevTools protocol. Everything listens and connects on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SSH = shutil.which("ssh")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_ssh = pytest.mark.skipif(SSH is None, reason="OpenSSH's client is not installed (.ci/run installs it)")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs it)")

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
