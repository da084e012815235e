"""A served guest's app: the child process that runs the lobby for one guest, however they came.

Owns: the command a guest runs (``python -m xmas_tui``, the whole app and only
it), the environment it gets (the guest's name, terminal type and colours, a
data folder of its own, nothing else of the server's), how many guests may
play at once, and ending a guest's app cleanly (SIGHUP, then SIGTERM, then
SIGKILL) when the guest goes. Must not touch: SSH or HTTP (``ssh.py`` and
``web.py`` carry the guest's keys and screen), the games, the tables.

Each guest's app keeps its unfinished games and game logs in the folder of
their identity (``identity.py``: their SSH key, never the name they typed): a
guest's Ctrl+R resumes their own game, never another guest's (whose hand it
would show).
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import os
import re
import signal
import struct
import sys
import termios
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xmas_tui.names import NAME_VARIABLE

#: What every guest runs: the whole app (the lobby), and nothing else.
GUEST_COMMAND = (sys.executable, "-m", "xmas_tui")
#: Variables of the server's own environment a guest's app inherits; nothing else is passed on.
INHERITED = ("PATH", "HOME", "USER", "LOGNAME", "TZ", "TMPDIR", "PYTHONPATH", "XDG_RUNTIME_DIR",
             "XMAS_TUI_DISCOVERY")  # fmt: skip
#: A terminal type or colour setting a guest's client may send: short, plain words.
_TERMINAL_WORD = re.compile(r"[A-Za-z0-9._+-]{1,64}")
#: Seconds a guest's app has to end after SIGHUP, and again after SIGTERM, before SIGKILL.
GRACE = 2.0


def terminal_word(value: str | None) -> str | None:
    """A ``TERM`` or ``COLORTERM`` sent by a guest, if it is a plain word (else ignored)."""
    return value if value is not None and _TERMINAL_WORD.fullmatch(value) else None


def guest_environment(name: str, home: Path, *, term: str | None = None, colorterm: str | None = None,
                      extra: dict[str, str] | None = None) -> dict[str, str]:  # fmt: skip
    """The environment of the guest ``name``'s app: a few of the server's variables, the
    guest's name, their own data folder ``home``, and their terminal's type and colours."""
    env = {key: os.environ[key] for key in INHERITED if key in os.environ}
    env.update(PYTHONUTF8="1", LANG="C.UTF-8", XDG_DATA_HOME=str(home))
    env[NAME_VARIABLE] = name
    env["TERM"] = terminal_word(term) or "xterm-256color"
    if (word := terminal_word(colorterm)) is not None:
        env["COLORTERM"] = word
    env.update(extra or {})
    return env


@dataclass
class Guests:
    """How many guests play at once, at most ``most``; ``idle`` seconds without a key end a
    guest's app (None: never)."""

    most: int = 16
    idle: float | None = 30 * 60.0
    playing: int = 0

    def admit(self) -> bool:
        """Take a place for a new guest; False when every place is taken."""
        if self.playing >= self.most:
            return False
        self.playing += 1
        return True

    def leave(self) -> None:
        self.playing = max(0, self.playing - 1)

    def idle_words(self) -> str:
        """``30 minutes`` (or seconds, for less than one), ``never`` without a limit."""
        if self.idle is None:
            return "never"
        amount, unit = (self.idle / 60, "minute") if self.idle >= 60 else (self.idle, "second")
        return f"{amount:g} {unit}{'' if amount == 1 else 's'}"

    def full_message(self) -> str:
        return f"all {self.most} places are taken; try again when someone leaves"


def why_not(exc: OSError) -> str:
    """An error from the system in a few words ("Address already in use")."""
    return os.strerror(exc.errno) if exc.errno else str(exc)


async def end_app(process: asyncio.subprocess.Process, grace: float = GRACE) -> int:
    """End a guest's app (its whole process group) as a hung-up terminal would: SIGHUP,
    then SIGTERM, then SIGKILL, each after ``grace`` seconds; its exit status."""
    for signum in (signal.SIGHUP, signal.SIGTERM, signal.SIGKILL):
        if process.returncode is not None:
            break
        try:
            os.killpg(process.pid, signum)
        except ProcessLookupError:
            break
        try:
            await asyncio.wait_for(process.wait(), grace)
        except TimeoutError:
            continue
    return await process.wait()


#: Everything a full-screen app may have turned on in the guest's terminal, turned off again
#: (mouse, bracketed paste, focus events, keyboard modes, the alternate screen), for an app
#: that was ended before it could say so itself.
RESTORE_TERMINAL = (
    "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?1016l\x1b[?2004l\x1b[?2048l\x1b[?1004l"
    "\x1b[<u\x1b[?7h\x1b[0m\x1b[?1049l\x1b[?25h"
)


def take_terminal() -> None:
    """In the child, before it runs the app: its terminal (fd 0) becomes its controlling
    terminal, so it gets SIGWINCH on a resize and SIGHUP when the guest hangs up."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def set_size(fd: int, columns: int, rows: int) -> None:
    """The size of the terminal ``fd`` (the app is told by SIGWINCH)."""
    columns, rows = max(1, min(columns, 1000)), max(1, min(rows, 1000))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


class TerminalApp:
    """A guest's app on a pseudo-terminal of its own: keys in (``write``), screen out (the
    ``output`` callback), a size that follows the guest's (``resize``)."""

    def __init__(self, process: asyncio.subprocess.Process, terminal: int,
                 output: Callable[[bytes], None]) -> None:  # fmt: skip
        self.process, self.terminal, self.output = process, terminal, output
        self._loop = asyncio.get_running_loop()
        self._keys = bytearray()  # keys the terminal could not take yet
        self._closed = self._loop.create_future()  # done when the app's side of the terminal is closed
        self._loop.add_reader(terminal, self._read)

    @classmethod
    async def start(cls, env: dict[str, str], columns: int, rows: int,
                    output: Callable[[bytes], None]) -> TerminalApp:  # fmt: skip
        """Run ``GUEST_COMMAND`` with ``env`` on a new terminal of ``columns`` x ``rows``."""
        terminal, app_side = os.openpty()
        try:
            set_size(terminal, columns, rows)
            process = await asyncio.create_subprocess_exec(
                *GUEST_COMMAND, stdin=app_side, stdout=app_side, stderr=app_side, env=env,
                start_new_session=True, preexec_fn=take_terminal,
            )  # fmt: skip
        except BaseException:
            os.close(terminal)
            raise
        finally:
            os.close(app_side)
        os.set_blocking(terminal, False)
        return cls(process, terminal, output)

    def _read(self) -> None:
        try:
            data = os.read(self.terminal, 65536)
        except BlockingIOError:
            return
        except OSError as exc:  # EIO: the app and everything it started have let go of the terminal
            if exc.errno != errno.EIO:
                raise
            data = b""
        if data:
            self.output(data)
        else:
            self._stop_io()

    def write(self, data: bytes) -> None:
        """Keys from the guest, in order (held back while the terminal is full)."""
        if self._closed.done():
            return
        self._keys += data
        self._write_keys()

    def _write_keys(self) -> None:
        try:
            written = os.write(self.terminal, self._keys)
        except BlockingIOError:
            written = 0
        except OSError:
            self._keys.clear()
            return
        del self._keys[:written]
        if self._keys:
            self._loop.add_writer(self.terminal, self._write_keys)
        else:
            self._loop.remove_writer(self.terminal)

    def resize(self, columns: int, rows: int) -> None:
        if not self._closed.done():
            set_size(self.terminal, columns, rows)

    def pause(self) -> None:
        """Stop reading the screen (the guest's connection is behind)."""
        if not self._closed.done():
            self._loop.remove_reader(self.terminal)

    def resume(self) -> None:
        if not self._closed.done():
            self._loop.add_reader(self.terminal, self._read)

    def _stop_io(self) -> None:
        if not self._closed.done():
            self._loop.remove_reader(self.terminal)
            self._loop.remove_writer(self.terminal)
            self._closed.set_result(None)

    def hang_up(self) -> None:
        """The guest has gone: read and write no more (``wait`` then ends the app)."""
        self._stop_io()

    async def wait(self) -> int:
        """Once the app has ended and its last screen is read, or the guest hung up: the app
        ended (see ``end``) and its exit status."""
        await self._closed
        return await self.end()

    async def end(self) -> int:
        """End the app now if it still runs (the guest went: SIGHUP, then SIGTERM, then
        SIGKILL), and let go of its terminal; its exit status."""
        self._stop_io()
        try:
            return await end_app(self.process)
        finally:
            if self.terminal >= 0:
                os.close(self.terminal)
                self.terminal = -1


class IdleClock:
    """Calls ``on_idle`` once ``idle`` seconds pass without a ``touch`` (a key); None: never."""

    def __init__(self, idle: float | None, on_idle: Callable[[], object]) -> None:
        self.idle, self.on_idle = idle, on_idle
        self._loop = asyncio.get_running_loop()
        self.last = self._loop.time()
        self._timer: asyncio.TimerHandle | None = None
        if idle is not None:
            self._timer = self._loop.call_at(self.last + idle, self._check)

    def touch(self) -> None:
        self.last = self._loop.time()

    def _check(self) -> None:
        assert self.idle is not None
        due = self.last + self.idle
        if self._loop.time() >= due:
            self._timer = None
            self.on_idle()
        else:
            self._timer = self._loop.call_at(due, self._check)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
