"""``xmas-tui serve ssh``: a real OpenSSH client reaches the lobby and plays; a guest gets the
app and nothing else. Every server listens on 127.0.0.1 and every client connects there."""

from __future__ import annotations

import asyncio
import fcntl
import itertools
import os
import re
import struct
import subprocess
import sys
import termios
import time

import pytest

from tests.servekit import needs_ssh, until
from xmas_tui.serve.guests import Guests
from xmas_tui.serve.identity import key_home
from xmas_tui.serve.ssh import SshServer, fingerprint, host_key, host_key_path
from xmas_tui.tools.guest_terminal import (
    GuestTerminal,
    Serving,
    alive,
    children_of,
    client_options,
    environment_of,
    key_fingerprint,
    new_key,
    ssh_command,
)

pytestmark = needs_ssh

#: What a Chip 'n' Dale player does, as the log says it ("Holly flips Bell 2").
MOVES = "flips|stops|collects|discards|takes|swaps|peeks|offers"


def terminal_size(pid: int) -> tuple[int, int]:
    """Columns and rows of the terminal process ``pid`` runs on."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        rows, columns, _, _ = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, bytes(8)))
    finally:
        os.close(fd)
    return columns, rows


def lobby_at(column: int):
    """The lobby's box is drawn with its left edge at ``column`` (it stays centred)."""
    return lambda text: any(line.startswith(" " * column + "╭─ Lobby") for line in text.splitlines())


async def run(argv: list[str], seconds: float = 30.0, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run a client to its end: its exit status and everything it printed."""
    process = await asyncio.create_subprocess_exec(
        *argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), seconds)
    return process.returncode or 0, out.decode(errors="replace")


async def play_a_round(guest: GuestTerminal, name: str, seconds: float = 90.0) -> None:
    """Press a player's keys (flip 1-6, choose, stop, shuffle) a few times a second until the
    log has shown ``name`` make a move and the game has gone on to round 2 (which it cannot
    do without ``name``'s turn of round 1)."""
    keys = itertools.cycle(["1", "2", "3", "4", "5", "6", "enter", "s", "c"])
    made = re.compile(rf"\b{name} (?:{MOVES})\b")
    moved = False
    deadline = time.monotonic() + seconds
    for tick in itertools.count():
        moved = moved or bool(made.search(guest.text))
        if moved and "Round 2/" in guest.text:
            return
        assert time.monotonic() < deadline, f"{name} has not played round 1 in {seconds}s\n{guest.text}"
        if tick % 5 == 0:
            guest.press(next(keys))
        await asyncio.sleep(0.05)


async def test_a_guest_reaches_the_lobby_under_their_name_and_plays_against_bots() -> None:
    """`ssh -p PORT holly@HOST`: the lobby, as Holly, on a terminal of the guest's size, type and
    colours that follows their resizes; a game against bots; the app ends when they quit."""
    async with Serving("ssh") as server:
        assert server.process is not None
        colours = ("-o", "SetEnv=COLORTERM=truecolor")
        async with GuestTerminal(ssh_command(server.port, "-tt", *colours, user="holly")) as guest:
            await guest.wait_for(lambda text: "Lobby" in text and "Holly" in text)
            [app] = children_of(server.process.pid)
            env = environment_of(app)
            assert (env["TERM"], env["COLORTERM"], env["XMAS_TUI_NAME"]) == ("xterm-256color", "truecolor", "Holly")
            assert "SSH_AUTH_SOCK" not in env and "SSH_CONNECTION" not in env
            assert terminal_size(app) == (80, 24)
            await guest.wait_for(lobby_at((80 - 72) // 2))

            guest.resize(100, 30)
            await until(lambda: terminal_size(app) == (100, 30), 10, "the app's terminal follows the guest's")
            await guest.wait_for(lobby_at((100 - 72) // 2))
            guest.resize(80, 24)
            await guest.wait_for(lobby_at((80 - 72) // 2))

            guest.press("ctrl+s")  # Play vs bots: Chip 'n' Dale, Holly and three bots
            await guest.wait_for("Round 1/")
            guest.press(*"+" * 8)  # bots as fast as they go
            await play_a_round(guest, "Holly")

            guest.press("escape")
            await guest.wait_for("Lobby")
            guest.press("ctrl+q")
            assert await guest.ended() == 0
        await server.wait_for_line(r"Holly left \(0 playing\)")
        await until(lambda: not alive(app), 10, "the app has ended")


async def test_a_guest_who_hangs_up_has_their_app_ended_like_a_dropped_terminal() -> None:
    """Their seat at a networked table then waits out the hold and goes to a bot, as for any
    player whose terminal went away."""
    async with Serving("ssh") as server:
        assert server.process is not None
        async with GuestTerminal(ssh_command(server.port, "-tt", user="ivy")) as guest:
            await guest.wait_for("Lobby")
            [app] = children_of(server.process.pid)
            assert guest.process is not None
            guest.process.kill()  # the guest's laptop is closed: the connection just drops
        await until(lambda: not alive(app), 15, "the app has ended")
        await server.wait_for_line(r"Ivy left \(0 playing\)")


async def test_a_guest_cannot_run_a_command() -> None:
    async with Serving("ssh") as server:
        status, said = await run([*ssh_command(server.port, "-T"), "cat /etc/hostname; ls /"])
        assert status == 255 and "exec request failed" in said
        assert "bin" not in said.split() and "etc" not in said.split()
        await server.wait_for_line("Ctrl")
        assert not any("joined" in line for line in server.lines)


async def test_a_guest_cannot_read_a_file_with_sftp_or_scp(tmp_path) -> None:
    async with Serving("ssh") as server:
        key = new_key(tmp_path)  # (``sftp -b`` is in batch mode, which tries no keyboard-interactive)
        status, said = await run(["sftp", "-b", "-", *client_options(key), "-P", str(server.port), "holly@127.0.0.1"])
        assert status != 0 and "subsystem request failed" in said
        for legacy in ([], ["-O"]):  # scp over sftp (today's default), and the old protocol (a command)
            copy = tmp_path / f"passwd{len(legacy)}"
            scp = ["scp", *legacy, *client_options(), "-P", str(server.port), "holly@127.0.0.1:/etc/passwd", str(copy)]
            status, said = await run(scp)
            assert status != 0 and not copy.exists(), said


async def test_a_guest_cannot_forward_a_port_either_way() -> None:
    reached: list[bytes] = []

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        reached.append(await reader.read(100))
        writer.close()

    target = await asyncio.start_server(echo, "127.0.0.1", 0)
    target_port = target.sockets[0].getsockname()[1]
    try:
        async with Serving("ssh") as server:
            # -R: a port on the server's side, forwarded back to the guest: refused at once
            remote = ["-N", "-o", "ExitOnForwardFailure=yes", "-R", f"127.0.0.1:0:127.0.0.1:{target_port}"]
            status, said = await run(ssh_command(server.port, *remote))
            assert status == 255 and "remote port forwarding failed" in said

            # -L: the guest's own port, through the server to a port on the server's side
            probe = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
            local_port = probe.sockets[0].getsockname()[1]
            probe.close()
            await probe.wait_closed()
            local = ["-v", "-N", "-L", f"127.0.0.1:{local_port}:127.0.0.1:{target_port}"]
            client = await asyncio.create_subprocess_exec(
                *ssh_command(server.port, *local), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
            try:
                reader, writer = await until_connected(local_port)
                writer.write(b"hello")
                await writer.drain()
                try:  # closed (or reset) by the client: nothing came through
                    assert await asyncio.wait_for(reader.read(100), 10) == b""
                except ConnectionResetError:
                    pass
                writer.close()
            finally:
                client.terminate()
                said = (await client.communicate())[0].decode(errors="replace")
            assert "open failed: administratively prohibited" in said, said
            assert reached == []
    finally:
        target.close()
        await target.wait_closed()


async def until_connected(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    deadline = time.monotonic() + 15
    while True:
        try:
            return await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            assert time.monotonic() < deadline, "the client never listened"
            await asyncio.sleep(0.1)


async def test_a_guest_gets_no_x11_or_agent_forwarding() -> None:
    async with Serving("ssh") as server:
        assert server.process is not None
        forwards = ("-o", "ForwardX11=yes", "-o", "ForwardAgent=yes", "-o", "ExitOnForwardFailure=yes")
        agent = {"DISPLAY": "127.0.0.1:99", "SSH_AUTH_SOCK": "/nonexistent/agent.sock"}
        async with GuestTerminal(ssh_command(server.port, "-tt", *forwards, user="noel"), env=agent) as guest:
            await guest.wait_for(lambda text: "X11 forwarding request failed" in text or "Lobby" in text)
            if "Lobby" in guest.text:  # (a client may go on without its X11 forwarding)
                [app] = children_of(server.process.pid)
                env = environment_of(app)
                assert "DISPLAY" not in env and "SSH_AUTH_SOCK" not in env
            else:
                assert "X11 forwarding request failed" in guest.text


async def test_the_host_key_is_made_once_and_its_fingerprint_is_what_ssh_keygen_prints() -> None:
    async with Serving("ssh") as first:
        printed = await first.wait_for_line(r"SHA256:")
    status, said = await run(["ssh-keygen", "-l", "-f", f"{host_key_path()}.pub"])
    assert status == 0 and said.strip() == printed.strip()
    assert oct(host_key_path().stat().st_mode & 0o777) == "0o600"
    async with Serving("ssh") as second:
        assert (await second.wait_for_line(r"SHA256:")).strip() == printed.strip()
    assert fingerprint(host_key()) == printed.strip()


async def test_with_a_password_only_a_guest_who_gives_it_gets_in(tmp_path) -> None:
    """The password is asked on the guest's first screen (with or without a key), never
    shown as it is typed; a wrong one costs a second, and three end the connection."""
    async with Serving("ssh", "--password", "mistletoe") as server:
        async with GuestTerminal(ssh_command(server.port, "-tt", user="holly", key=new_key(tmp_path))) as guest:
            await guest.wait_for("Password:")
            guest.press(*"holly", "enter")
            await guest.wait_for("Wrong password.")
            guest.press(*"mistletoX", "\x7f", "e", "enter")  # (Backspace rubs out)
            await guest.wait_for("Lobby")
            assert "mistletoe" not in guest.text and "holly" not in guest.text
        async with GuestTerminal(ssh_command(server.port, "-tt", user="ivy")) as guest:
            for tries in range(1, 4):
                await guest.wait_for(lambda text, tries=tries: text.count("Password:") == tries)
                guest.press(*"ivy", "enter")
            assert await guest.ended() == 1
            assert guest.text.count("Wrong password.") == 3 and "xmas-tui: no password, no lobby" in guest.text
        assert [line for line in server.lines if "joined" in line] == ["Holly joined (1 playing)"]


async def test_two_keys_that_type_one_name_are_two_guests_and_the_second_is_refused(tmp_path) -> None:
    """A guest is their key: another key typing "holly" (in any case, or with a Cyrillic о)
    gets neither Holly's folder (her rejoin keys, her kept hand) nor her name, while she plays
    or after; under a name of its own it gets a folder of its own."""
    holly, other = new_key(tmp_path, "holly"), new_key(tmp_path, "other")
    async with SshServer("127.0.0.1", 0) as server:
        port = server.port
        async with GuestTerminal(ssh_command(port, "-tt", user="holly", key=holly)) as guest:
            await guest.wait_for("Lobby")
            [session] = server.sessions
            assert session.guest is not None and session.guest.home == key_home(key_fingerprint(holly))
            for login in ("holly", "HOLLY", "Hоlly"):
                status, said = await run(ssh_command(port, "-tt", user=login, key=other))
                assert status == 1 and "xmas-tui: Holly is playing here now; ssh in under another name" in said, said
            status, said = await run(ssh_command(port, "-tt", user="holly"))  # no key at all: the same
            assert status == 1 and "Holly is playing here now" in said
            guest.press("ctrl+q")
            assert await guest.ended() == 0
        await until(lambda: not server.sessions, 15, "Holly has left")
        status, said = await run(ssh_command(port, "-tt", user="Holly", key=other))
        assert status == 1 and "the name Holly belongs to another guest's key" in said, said
        async with GuestTerminal(ssh_command(port, "-tt", user="ivy", key=other)) as guest:
            await guest.wait_for(lambda text: "Lobby" in text and "Ivy" in text)
            [session] = server.sessions
            assert session.guest is not None and session.guest.home == key_home(key_fingerprint(other))
            assert session.guest.home != key_home(key_fingerprint(holly))
        await until(lambda: server.guests.playing == 0, 15, "Ivy has left")


async def test_the_same_key_finds_its_own_folder_again_under_any_name(tmp_path) -> None:
    """The name is only a label: a key that comes back as "HOLLY", or as "Holly B", finds its
    folder (and so its kept games and rejoin keys), and the name it gave up is free again."""
    key = new_key(tmp_path)
    async with SshServer("127.0.0.1", 0) as server:
        port = server.port
        homes = []
        for login in ("holly", "HOLLY", "holly_b"):
            async with GuestTerminal(ssh_command(port, "-tt", user=login, key=key)) as guest:
                await guest.wait_for("Lobby")
                [session] = server.sessions
                assert session.guest is not None
                homes.append(session.guest.home)
                (session.guest.home / f"kept-by-{login}").touch()
                guest.press("ctrl+q")
                assert await guest.ended() == 0
            await until(lambda: not server.sessions, 15, "the guest has left")
        assert homes == [key_home(key_fingerprint(key))] * 3
        assert {path.name for path in homes[0].iterdir()} >= {"kept-by-holly", "kept-by-HOLLY"}
        async with GuestTerminal(ssh_command(port, "-tt", user="holly")) as guest:  # "Holly" is free again
            await guest.wait_for(lambda text: "Lobby" in text and "Holly" in text)


async def test_a_guest_without_a_key_is_someone_new_each_time() -> None:
    """No key, no identity: each connection gets a new, empty folder, gone when they leave
    (nothing kept for anyone to find), and their name is theirs only while they play."""
    async with SshServer("127.0.0.1", 0) as server:
        port = server.port
        homes = []
        for _ in range(2):
            async with GuestTerminal(ssh_command(port, "-tt", user="noel")) as guest:
                await guest.wait_for("Lobby")
                [session] = server.sessions
                assert session.guest is not None and session.guest.key is None
                home = session.guest.home
                assert home.is_dir() and home not in homes and home.name.startswith("once-")
                homes.append(home)
                status, said = await run(ssh_command(port, "-tt", user="NOEL"))
                assert status == 1 and "Noel is playing here now" in said
                guest.press("ctrl+q")
                assert await guest.ended() == 0
            await until(lambda: not server.sessions, 15, "Noel has left")
            assert not home.exists()


async def test_a_guest_without_a_key_for_too_long_is_sent_off_with_their_terminal_put_back() -> None:
    async with SshServer("127.0.0.1", 0, guests=Guests(idle=5.0)) as server:  # (time for the lobby to draw first)
        port = server.port
        async with GuestTerminal(ssh_command(port, "-tt", user="jasper")) as guest:
            await guest.wait_for("Lobby")
            assert await guest.ended(20) == 0
            await asyncio.wait_for(guest.closed.wait(), 5)
            assert "closed after 5 seconds without a key pressed" in guest.text and "nothing is kept" in guest.text
        assert server.guests.playing == 0


async def test_when_every_place_is_taken_the_next_guest_is_told_so() -> None:
    async with SshServer("127.0.0.1", 0, guests=Guests(most=1)) as server:
        port = server.port
        async with GuestTerminal(ssh_command(port, "-tt", user="ann")) as first:
            await first.wait_for("Lobby")
            status, said = await run(ssh_command(port, "-tt", user="bob"))
            assert status == 1 and "all 1 places are taken" in said
        await until(lambda: server.guests.playing == 0, 15, "the first guest has left")
        async with GuestTerminal(ssh_command(port, "-tt", user="bob")) as second:
            await second.wait_for("Bob")


async def test_a_guest_with_no_terminal_is_told_to_ask_for_one() -> None:
    async with SshServer("127.0.0.1", 0) as server:
        port = server.port
        status, said = await run(ssh_command(port, "-T"))
        assert status == 2 and "the lobby needs a terminal" in said


async def test_stopping_the_server_ends_every_guest_app_and_says_so() -> None:
    async with Serving("ssh") as server:
        assert server.process is not None
        async with GuestTerminal(ssh_command(server.port, "-tt", user="ann")) as guest:
            await guest.wait_for("Lobby")
            [app] = children_of(server.process.pid)
            assert await server.stop() == 0
            assert await guest.ended() == 0
            await asyncio.wait_for(guest.closed.wait(), 5)
            assert "the host stopped serving" in guest.text
        assert not alive(app)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["serve", "ssh", "--port", "70000"], "a port is between 0 and 65535"),
        (["serve", "ssh", "--password", ""], "a password needs at least one character"),
        (["serve", "ssh", "--max-guests", "0"], "must be at least 1"),
        (["serve", "web", "--idle", "soon"], "'soon' is not a whole number"),
        (["serve", "telnet"], "invalid choice: 'telnet'"),
    ],
)
def test_a_bad_serve_argument_is_one_clear_line_and_exit_2(args, message, capsys) -> None:
    from xmas_tui.cli import main

    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("xmas-tui: ") and message in err


async def test_a_port_already_taken_or_an_unreadable_host_key_is_one_line_and_exit_2() -> None:
    taken = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = taken.sockets[0].getsockname()[1]
    try:
        argv = ["-m", "xmas_tui", "serve", "ssh", "--bind", "127.0.0.1", "--port", str(port)]
        status, said = await run([sys.executable, *argv])
        assert status == 2 and said == f"xmas-tui: cannot serve SSH on 127.0.0.1:{port} (Address already in use)\n"
    finally:
        taken.close()
        await taken.wait_closed()
    host_key_path().parent.mkdir(parents=True, exist_ok=True)
    host_key_path().write_text("not a key\n")
    status, said = await run([sys.executable, "-m", "xmas_tui", "serve", "ssh", "--port", "0", "--bind", "127.0.0.1"])
    assert status == 2 and said.startswith("xmas-tui: cannot read the host key in ") and said.count("\n") == 1
    assert host_key_path().read_text() == "not a key\n"  # kept as it was: nothing lost
