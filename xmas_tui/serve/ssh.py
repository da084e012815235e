"""``xmas-tui serve ssh``: an SSH server that gives each guest the lobby, and nothing else.

Owns: the asyncssh server (no account: any ``ssh -p 2222 NAME@HOST`` is let in),
the host key (Ed25519, made once and kept in the data folder) and its
fingerprint, and each guest's session: a terminal of the guest's size and type
carried to and from their own app (``guests.TerminalApp``), resized as the
guest's terminal is.

A guest is who their key says (``identity.py``): any public key their ssh
offers is accepted once it proves the guest holds it (its signature, checked by
asyncssh), and its fingerprint finds their folder; a guest whose ssh offers no
key is let in by keyboard-interactive with no question, as someone new. The
name they typed is only a label: one taken by another identity is refused with
one line before their app starts. With ``--password``, the guest's first screen
asks for it (SSH itself cannot ask for a password *and* a key at once here), a
wrong one costs a second, and three end the connection.

A guest gets the app and only the app: no command (``ssh HOST ls``), no
subsystem (``sftp``, and so no ``scp``), no port forwarding either way, no
agent or X11 forwarding; each is refused when asked for. When a guest goes
(they quit, their connection drops, or ``--idle`` minutes pass without a
key) their app is ended as a hung-up terminal's would be, so their seat at
a networked table goes to a bot after the hold, as for any dropped player.

Must not touch: the games, the tables, Textual (the app runs in its own process).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
from collections.abc import Callable
from pathlib import Path

import asyncssh

from xmas_tui.names import NOBODY, name_from_login
from xmas_tui.serve import Listening, ServeError, until_stopped
from xmas_tui.serve.guests import (
    RESTORE_TERMINAL,
    Guests,
    IdleClock,
    TerminalApp,
    guest_environment,
    why_not,
)
from xmas_tui.serve.identity import Guest, GuestBook
from xmas_tui.serve.registry import data_root, join_words, serving

DEFAULT_PORT = 2222
KEY_COMMENT = "xmas-tui host key"
NO_FORWARDING = "a guest gets the lobby only: no forwarding"
#: Seconds a wrong password costs (guessing one is slow), the tries a connection has, and
#: the seconds a guest has to give it.
WRONG_PASSWORD_DELAY = 1.0
PASSWORD_TRIES = 3
PASSWORD_TIME = 60.0
#: Pieces of typing kept while the password is asked (more is dropped: nobody types that fast).
TYPED_AHEAD = 64


def host_key_path() -> Path:
    return data_root() / "ssh_host_ed25519_key"


def host_key(path: Path | None = None) -> asyncssh.SSHKey:
    """The server's Ed25519 host key: made the first time (and kept, readable by this account
    only, with its public half beside it), read every time after."""
    path = path or host_key_path()
    if path.exists():
        try:
            return asyncssh.read_private_key(path)
        except (OSError, asyncssh.KeyImportError) as exc:
            raise ServeError(f"cannot read the host key in {path} ({exc}); move it away to make a new one") from None
    key = asyncssh.generate_private_key("ssh-ed25519", comment=KEY_COMMENT)
    path.parent.mkdir(parents=True, exist_ok=True)
    made = path.with_name(path.name + ".new")
    with contextlib.suppress(FileNotFoundError):
        made.unlink()
    fd = os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(key.export_private_key())
    os.replace(made, path)
    path.with_name(path.name + ".pub").write_bytes(key.export_public_key())
    return key


def fingerprint(key: asyncssh.SSHKey) -> str:
    """The key as ``ssh-keygen -l`` prints it: ``256 SHA256:… xmas-tui host key (ED25519)``."""
    return f"256 {key.get_fingerprint('sha256')} {key.get_comment() or 'no comment'} (ED25519)"


class GuestSession(asyncssh.SSHServerSession):
    """One guest: their terminal, carried to and from an app of their own."""

    def __init__(self, server: SshServer, name: str, key: str | None) -> None:
        self.server, self.name, self.key = server, name, key
        self.guest: Guest | None = None
        self.typed: asyncio.Queue[bytes] = asyncio.Queue()  # keys before the app runs
        self.channel: asyncssh.SSHServerChannel | None = None
        self.size: tuple[int, int] | None = None  # columns, rows; None: the guest has no terminal
        self.term: str | None = None
        self.app: TerminalApp | None = None
        self.idle: IdleClock | None = None
        self.open = True  # the guest's side can still be written to
        self.why: str | None = None  # why the server ended the session, if it did
        self.keys_ended = False  # the guest's side sent EOF
        self.running: asyncio.Future | None = None  # ``run``, once the session has started

    # ---------------------------------------------------------- what a guest may ask for
    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.channel = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes) -> bool:
        self.term, self.size = term_type, (term_size[0] or 80, term_size[1] or 24)
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        return False  # a guest runs no command: ``ssh HOST ls``, scp's ``scp -f``

    def subsystem_requested(self, subsystem: str) -> bool:
        return False  # no sftp

    def break_received(self, msec: int) -> bool:
        return False

    # ---------------------------------------------------------- the session
    def session_started(self) -> None:
        self.running = asyncio.ensure_future(self.run())
        self.server.sessions.add(self)

    async def run(self) -> None:
        """The guest's session: a terminal, the password if there is one, a place, their
        folder and name, then their app until it ends."""
        try:
            guest = await self.let_in()
            if guest is not None:
                await self.play(guest)
        finally:
            self.server.sessions.discard(self)

    async def let_in(self) -> Guest | None:
        """The guest, with their folder; None (the session ended, saying why) if they are
        not let in."""
        guests = self.server.guests
        if self.size is None:
            self.close("the lobby needs a terminal: ssh -t (without -T)", 2)
            return None
        if self.server.password is not None and not await self.password_given(self.server.password):
            return None
        if not guests.admit():
            self.close(guests.full_message(), 1)
            return None
        guest = self.server.book.enter(self.name, self.key)
        if isinstance(guest, str):
            guests.leave()
            self.close(guest, 1)
            return None
        return guest

    async def play(self, guest: Guest) -> None:
        """The guest's app, on their terminal, until it ends or they go."""
        guests = self.server.guests
        self.guest = guest
        self.server.note(f"{self.name} joined ({guests.playing} playing)")
        try:
            assert self.channel is not None
            colorterm = self.channel.get_environment().get("COLORTERM")
            env = guest_environment(self.name, guest.home, term=self.term, colorterm=colorterm)
            self.app = await TerminalApp.start(env, *self.size or (80, 24), output=self.show)
            if self.why is not None or not self.open or self.keys_ended:
                self.app.hang_up()
            self.idle = IdleClock(guests.idle, self.idle_out)
            status = await self.app.wait()
            self.close(self.why, 0 if self.why else status & 0xFF, restore=self.why is not None)
        finally:
            if self.idle is not None:
                self.idle.stop()
            if self.app is not None:
                await self.app.end()
            guests.leave()
            self.server.book.leave(guest)
            self.server.note(f"{self.name} left ({guests.playing} playing)")

    async def password_given(self, password: str) -> bool:
        """Ask for the password on the guest's screen (not shown as it is typed); False, with
        the session ended, after ``PASSWORD_TRIES`` wrong ones, a Ctrl+C or a wait too long."""
        for _ in range(PASSWORD_TRIES):
            self.show(b"Password: ")
            try:
                typed = await asyncio.wait_for(self.typed_line(), PASSWORD_TIME)
            except TimeoutError:
                typed = None
            self.show(b"\r\n")
            if typed is None or self.why is not None:
                break
            if hmac.compare_digest(typed, password.encode()):
                return True
            await asyncio.sleep(WRONG_PASSWORD_DELAY)
            self.show(b"Wrong password.\r\n")
        self.close(self.why or "no password, no lobby", 1)
        return False

    async def typed_line(self) -> bytes | None:
        """A line the guest types, up to Enter (Backspace rubs out); None for Ctrl+C or Ctrl+D,
        or when the guest has gone."""
        line = bytearray()
        while True:
            data = await self.typed.get()
            if not data:
                return None
            for byte in data:
                if byte in (0x0D, 0x0A):
                    return bytes(line)
                if byte in (0x03, 0x04):
                    return None
                if byte in (0x08, 0x7F):
                    del line[-1:]
                elif len(line) < 1024:
                    line.append(byte)

    def show(self, screen: bytes) -> None:
        """What the app drew, to the guest (while they are there to see it)."""
        if self.open and self.channel is not None:
            with contextlib.suppress(BrokenPipeError):
                self.channel.write(screen)

    def close(self, why: str | None, status: int, *, restore: bool = False) -> None:
        """End the session with ``status``, saying ``why`` (after putting the guest's terminal
        back as it was, if their app could not)."""
        if self.channel is None or not self.open:
            return
        text = (RESTORE_TERMINAL + "\r\n" if restore else "") + (f"xmas-tui: {why}\r\n" if why else "")
        self.show(text.encode())
        self.open = False
        with contextlib.suppress(BrokenPipeError):
            self.channel.exit(status)

    def send_off(self, why: str) -> None:
        """End the guest's app now and tell them ``why`` (``run`` ends the session)."""
        if self.why is None:
            self.why = why
        self.typed.put_nowait(b"")  # (a guest still asked for the password is asked no more)
        if self.app is not None:
            self.app.hang_up()

    def idle_out(self) -> None:
        kept = ("a game against bots is kept (ssh again with the same SSH key, then Ctrl+R)" if self.key is not None
                else "nothing is kept for a guest without an SSH key")  # fmt: skip
        self.send_off(f"closed after {self.server.guests.idle_words()} without a key pressed; {kept}")

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if self.idle is not None:
            self.idle.touch()
        if self.app is not None:
            self.app.write(data)
        elif self.guest is None and self.typed.qsize() < TYPED_AHEAD:
            self.typed.put_nowait(data)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.size = (width or 80, height or 24)
        if self.app is not None:
            self.app.resize(*self.size)

    def pause_writing(self) -> None:
        if self.app is not None:
            self.app.pause()

    def resume_writing(self) -> None:
        if self.app is not None:
            self.app.resume()

    def eof_received(self) -> bool:
        self.keys_ended = True
        self.typed.put_nowait(b"")
        if self.app is not None:
            self.app.hang_up()  # no more keys can come: the guest has gone (``run`` ends the app)
        return True  # (the session stays open to say how it ended)

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        self.typed.put_nowait(b"")
        if self.app is not None:
            self.app.hang_up()  # ``run`` then ends the app


class GuestConnection(asyncssh.SSHServer):
    """One guest's connection: let in with the key it proves it holds (or with none), one
    session of the app, and every other request refused."""

    def __init__(self, server: SshServer) -> None:
        self.server = server
        self.sessions = 0
        self.name = NOBODY
        self.offered: asyncssh.SSHKey | None = None  # the key being tried, if any
        self.key: str | None = None  # once in: the fingerprint of the key it proved it holds
        self.conn: asyncssh.SSHServerConnection | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.server.connections.add(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.connections.discard(self.conn)

    def begin_auth(self, username: str) -> bool:
        self.name = name_from_login(username)
        return True  # (else the client would never offer its key)

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        """Any key: asyncssh lets the guest in only once they have signed with it."""
        self.offered = key
        return True

    def kbdint_auth_supported(self) -> bool:
        return True

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        """No key: in at once, with no question, and as nobody known."""
        self.offered = None
        return True

    def password_auth_supported(self) -> bool:
        return False  # (``--password`` is asked on the guest's screen)

    def host_based_auth_supported(self) -> bool:
        return False

    def auth_completed(self) -> None:
        """In: with the key last tried if that is how (asyncssh has checked its signature)."""
        self.key = self.offered.get_fingerprint("sha256") if self.offered is not None else None

    def session_requested(self) -> GuestSession | bool:
        if self.sessions:
            return False  # one app a connection
        self.sessions += 1
        return GuestSession(self.server, self.name, self.key)

    # No forwarding of any kind: ``ssh -L``, ``ssh -R``, their UNIX-socket forms, tunnels.
    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, NO_FORWARDING)

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, NO_FORWARDING)

    def unix_server_requested(self, listen_path: str) -> bool:
        return False

    def tun_requested(self, unit: int | None) -> bool:
        return False

    def tap_requested(self, unit: int | None) -> bool:
        return False


class SshServer(Listening):
    """The SSH server of ``xmas-tui serve ssh``, on ``bind:port`` (port 0: any free port)."""

    def __init__(self, bind: str = "0.0.0.0", port: int = DEFAULT_PORT, *, password: str | None = None,
                 guests: Guests | None = None, key: asyncssh.SSHKey | None = None,
                 note: Callable[[str], None] | None = None) -> None:  # fmt: skip
        self.bind, self.port, self.password = bind, port, password
        self.guests = guests or Guests()
        self.book = GuestBook()
        self.key = key or host_key()
        self.note = note or (lambda line: None)
        self.sessions: set[GuestSession] = set()  # the guests playing
        self.connections: set[asyncssh.SSHServerConnection] = set()
        self._acceptor: asyncssh.SSHAcceptor | None = None

    async def start(self) -> int:
        """Listen; the port listened on."""
        try:
            self._acceptor = await asyncssh.create_server(
                lambda: GuestConnection(self), self.bind, self.port,
                server_host_keys=[self.key], line_editor=False, encoding=None,
                agent_forwarding=False, x11_forwarding=False, allow_scp=False, sftp_factory=None,
                login_timeout=30, keepalive_interval=30, keepalive_count_max=4,
            )  # fmt: skip
        except OSError as exc:
            raise ServeError(f"cannot serve SSH on {self.bind}:{self.port} ({why_not(exc)})") from None
        self.port = self._acceptor.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        """Stop listening, end every guest's app (telling the guest why), close every connection."""
        if self._acceptor is not None:
            self._acceptor.close()
        sessions = list(self.sessions)
        for session in sessions:
            session.send_off("the host stopped serving")
        running = [session.running for session in sessions if session.running is not None]
        if running:
            await asyncio.wait(running)
        closing = [session.channel.wait_closed() for session in sessions if session.channel is not None]
        if closing:  # (the guests' clients have their last words and exit status before the end)
            await asyncio.wait([asyncio.ensure_future(c) for c in closing], timeout=2)
        for conn in list(self.connections):
            conn.close()
        if self._acceptor is not None:
            await self._acceptor.wait_closed()


def quiet_library_logs() -> None:
    """asyncssh logs every connection; the server prints its own lines instead."""
    asyncssh.set_log_level(logging.WARNING)


async def serve(bind: str, port: int, *, password: str | None, guests: Guests,
                say: Callable[[str], None]) -> None:  # fmt: skip
    """``xmas-tui serve ssh``: serve until stopped, saying how to join and who comes and goes."""
    quiet_library_logs()
    async with SshServer(bind, port, password=password, guests=guests, note=say) as server:
        say(f"xmas-tui serves the lobby over SSH on {bind}:{server.port}; guests join with:")
        say(f"    {join_words('ssh', bind, server.port)}")
        say("The host key (a guest's ssh shows its SHA256 part on first joining; check that it matches):")
        say(f"    {fingerprint(server.key)}")
        if password is not None:
            say("Every guest must give the password.")
        say(f"At most {guests.most} guests at once; an app closes after {guests.idle_words()} without a key pressed. "
            "Ctrl+C stops.")  # fmt: skip
        with serving("ssh", bind, server.port):
            await until_stopped()
