"""Discovery: every program on a machine hears every table announced there, whoever
runs it and however many listen; a table tells a joiner only a few bits of its code;
and discovery cannot be turned into a weapon: probes are padded, answers are never
larger than their probe and are rate-limited per source; a fake table learns nothing
it could test a guess against."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import socket
import time
from pathlib import Path

import msgpack
import pytest
from netcode_helpers import CODE, TABLE

from netcode.aio import AioEndpoint
from netcode.channel import WRONG_CODE, Endpoint, HandshakeFailed, PeerGone
from netcode.codes import code_tag
from netcode.discovery import (
    MAX_ANNOUNCE,
    MAX_PER_USER,
    PROBE,
    PROBE_SIZE,
    STALE_AFTER,
    Announcements,
    Announcer,
    ProbeAnswerer,
    Rendezvous,
    TableInfo,
    probe_datagram,
)

INFO = TableInfo(
    b"table-01", "chip-n-dale", "Chip 'n' Dale: Christmas Treasures", "Ann", 4, 1, 4000, 7,
    seed_commit=bytes(32), code_tag=code_tag("SNOW-1234"),
)  # fmt: skip
ANNOUNCEMENT = INFO.encode()
NOBODY = 65534  # another user on the machine (the rendezvous tells users apart by a file's owner)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def until(condition, seconds: float = 5.0, what: str = "the condition") -> None:  # noqa: ANN001
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {seconds} s"
        await asyncio.sleep(0.01)


def table(n: int) -> TableInfo:
    return dataclasses.replace(INFO, table_id=f"table-{n:02d}".encode(), host=f"Host {n}", port=4000 + n)


# -- every program on a machine hears every table ----------------------------------------


async def test_every_listener_on_a_machine_hears_every_table_announced_there() -> None:
    """Three lobbies and two hosts on one machine, discovery on a loopback port (unicast: it
    reaches one socket only): every lobby hears both tables, through the rendezvous."""
    address = ("127.0.0.1", free_port())
    listeners = [Announcements(address) for _ in range(3)]
    announcers = [Announcer(table(n), address) for n in (1, 2)]
    try:
        for each in [*listeners, *announcers]:
            await each.start()
        await until(lambda: all(len(lobby.current()) == 2 for lobby in listeners), what="every lobby hearing both")
        for lobby in listeners:
            assert {h.info.host for h in lobby.current()} == {"Host 1", "Host 2"}
            assert {h.address for h in lobby.current()} == {("127.0.0.1", 4001), ("127.0.0.1", 4002)}
        assert all(a.copies >= 3 for a in announcers)
    finally:
        for each in [*listeners, *announcers]:
            each.close()


async def test_someone_holding_the_discovery_port_stops_nobody_hearing_this_machines_tables() -> None:
    """Another program binds the discovery port first, without sharing it: lobbies still
    start and hear every table on the machine."""
    address = ("127.0.0.1", free_port())
    squatter = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    squatter.bind(address)
    lobby, host = Announcements(address), Announcer(table(1), address)
    try:
        await lobby.start()
        await host.start()
        await until(lambda: len(lobby.current()) == 1, what="the lobby hearing the table")
    finally:
        lobby.close()
        host.close()
        squatter.close()


async def test_a_lobby_stops_being_sent_to_once_it_closes() -> None:
    address = ("127.0.0.1", free_port())
    lobby = Announcements(address)
    await lobby.start()
    registration = lobby.rendezvous.path
    assert registration is not None and registration.exists()
    assert Rendezvous(address[1]).ports() == [lobby.rendezvous.port]
    lobby.close()
    assert not registration.exists() and Rendezvous(address[1]).ports() == []


async def hear_and_announce(address: tuple[str, int], mine: TableInfo, theirs: bytes, seconds: float) -> bool:
    """Announce ``mine`` and listen until the table ``theirs`` is heard (True) or time is up;
    announce a little longer, for the other side to hear ``mine``."""
    lobby, host = Announcements(address), Announcer(mine, address)
    await lobby.start()
    await host.start()
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and theirs not in lobby.tables:
            await lobby.changed(0.1)
        await asyncio.sleep(1.5)
        return theirs in lobby.tables
    finally:
        lobby.close()
        host.close()


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to become another user")
def test_a_lobby_of_another_user_hears_this_users_table_and_the_other_way_round() -> None:
    """The SSH box: two users on one machine, each with a lobby and a table, discovery on a
    loopback port. A forked process becomes another user (nobody) and each hears the other."""
    address = ("127.0.0.1", free_port())
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the other user's programs
        code = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            heard = asyncio.run(hear_and_announce(address, table(2), table(1).table_id, 10.0))
            os.write(write, b"heard" if heard else b"deaf")
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    try:
        assert asyncio.run(hear_and_announce(address, table(1), table(2).table_id, 10.0))
    finally:
        _, status = os.waitpid(pid, 0)
        said = os.read(read, 16)
        os.close(read)
    assert os.waitstatus_to_exitcode(status) == 0 and said == b"heard"


def register(directory: Path, prefix: str, port: int, *, age: float = 0.0, owner: int | None = None) -> Path:
    path = directory / f"{prefix}{port}-{os.urandom(4).hex()}"
    path.touch()
    when = time.time() - age
    os.utime(path, (when, when))
    if owner is not None:
        os.chown(path, owner, -1)
    return path


def test_a_stale_registration_is_never_sent_to_and_its_owner_removes_it(tmp_path: Path) -> None:
    """A lobby that crashed leaves its file: announcers ignore it once it is not renewed, and
    the next program of the same user that comes across it removes it."""
    rendezvous = Rendezvous(47999, tmp_path)
    live = register(tmp_path, rendezvous.prefix, 5001)
    stale = register(tmp_path, rendezvous.prefix, 5002, age=STALE_AFTER + 1)
    register(tmp_path, rendezvous.prefix, 99999)  # no port at all: ignored
    (tmp_path / f"{rendezvous.prefix}5003-link").symlink_to(live)  # not a file of its own: ignored
    assert rendezvous.ports() == [5001]
    assert live.exists() and not stale.exists()


def test_a_lobby_that_starts_removes_its_users_stale_registrations_of_any_port_or_namespace(tmp_path: Path) -> None:
    """A test's lobby killed on a port or in a namespace never used again leaves a file nobody
    would come across: the next lobby of that user removes it."""
    rendezvous = Rendezvous(47999, tmp_path)
    elsewhere = rendezvous.prefix.replace("-47999-", "-48000-")
    old = register(tmp_path, elsewhere, 5001, age=STALE_AFTER + 1)
    live = register(tmp_path, elsewhere, 5002)
    mine = tmp_path / "not-a-registration"
    mine.touch()
    os.utime(mine, (1, 1))
    rendezvous.register(5003)
    assert not old.exists() and live.exists() and mine.exists()
    rendezvous.leave()


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to own a file as another user")
def test_one_user_registering_many_ports_crowds_out_only_themselves(tmp_path: Path) -> None:
    rendezvous = Rendezvous(47999, tmp_path)
    for n in range(3 * MAX_PER_USER):
        register(tmp_path, rendezvous.prefix, 6000 + n, age=n / 100)  # the newest first
    register(tmp_path, rendezvous.prefix, 7001, owner=NOBODY, age=5)
    theirs = register(tmp_path, rendezvous.prefix, 7002, owner=NOBODY, age=STALE_AFTER + 1)
    ports = rendezvous.ports()
    assert 7001 in ports and 7002 not in ports  # another user's live lobby is heard, its stale one not ...
    assert theirs.exists()  # ... and only its owner removes it
    assert sorted(set(ports) - {7001}) == list(range(6000, 6000 + MAX_PER_USER))


def test_a_lobby_whose_registration_was_removed_registers_again(tmp_path: Path) -> None:
    """A lobby stopped for a while (Ctrl+Z) comes back to find its file removed as stale."""
    rendezvous = Rendezvous(47999, tmp_path)
    rendezvous.register(5005)
    first = rendezvous.path
    assert first is not None
    first.unlink()
    rendezvous.refresh()
    assert rendezvous.path is not None and rendezvous.path.exists() and rendezvous.ports() == [5005]
    rendezvous.leave()
    assert list(tmp_path.iterdir()) == []


def test_the_rendezvous_is_listed_again_only_when_it_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Listing a large /tmp twice a second would cost a host milliseconds each time: an
    announcer lists it again only when it changed, and sees every lobby that registers."""
    rendezvous = Rendezvous(47999, tmp_path)
    register(tmp_path, rendezvous.prefix, 5001)
    listings = []
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: listings.append(path) or real_scandir(path))
    past = time.time() - 60
    os.utime(tmp_path, (past, past))
    assert rendezvous.ports() == rendezvous.ports() == [5001] and len(listings) == 1
    register(tmp_path, rendezvous.prefix, 5002)
    assert sorted(rendezvous.ports()) == [5001, 5002] and len(listings) == 2


def test_tables_of_another_network_namespace_or_discovery_port_are_not_this_lobbys(tmp_path: Path) -> None:
    rendezvous = Rendezvous(47999, tmp_path)
    register(tmp_path, rendezvous.prefix.replace("-47999-", "-48000-"), 5001)
    namespace = rendezvous.prefix.split("-")[3]
    register(tmp_path, rendezvous.prefix.replace(f"-{namespace}-", "-1-"), 5002)
    assert rendezvous.ports() == []


def test_a_table_heard_on_the_lan_keeps_its_lan_address() -> None:
    """Heard by broadcast from its LAN address and through the rendezvous from loopback, a table
    on this machine is joined at its LAN address (a host bound to one address is only there)."""
    lobby = Announcements(("127.0.0.1", 47999))
    lobby.receive(ANNOUNCEMENT, ("192.0.2.7", 5000), now=1.0)
    lobby.receive(ANNOUNCEMENT, ("127.0.0.1", 6000), now=1.2)
    [heard] = lobby.current(now=1.5)
    assert heard.address == ("192.0.2.7", 4000) and heard.seen == 1.2
    # The host went away and a player on this machine took the table over: it is there now.
    lobby.receive(dataclasses.replace(INFO, peer=8, port=4100).encode(), ("127.0.0.1", 6001), now=2.0)
    [heard] = lobby.current(now=2.1)
    assert heard.address == ("127.0.0.1", 4100)


# -- the tag of the code ------------------------------------------------------------------


def test_an_announcement_tells_which_codes_may_open_its_table() -> None:
    info = TableInfo.decode(ANNOUNCEMENT)
    assert info.code_tag == code_tag("snow 1234") and info.may_open("sn0w-1234")
    assert not info.may_open(next(c for c in (f"OTHER-{n:04d}" for n in range(999)) if code_tag(c) != info.code_tag))


@pytest.mark.parametrize("tag", [-1, 256, True, "7", None])
def test_an_announcement_with_a_bad_tag_is_dropped(tag: object) -> None:
    raw = msgpack.unpackb(ANNOUNCEMENT)
    raw["tag"] = tag
    lobby = Announcements(("127.0.0.1", 47999))
    lobby.receive(msgpack.packb(raw), ("192.0.2.7", 5000))
    del raw["tag"]
    lobby.receive(msgpack.packb(raw), ("192.0.2.7", 5000))
    assert lobby.current() == [] and lobby.drops == {"malformed": 1, "missing tag": 1}


# -- nothing can be turned on someone else ------------------------------------------------


def test_a_probe_is_as_large_as_any_answer_can_be() -> None:
    assert len(probe_datagram()) == PROBE_SIZE >= MAX_ANNOUNCE
    assert len(ANNOUNCEMENT) <= MAX_ANNOUNCE


def test_a_short_probe_gets_no_answer() -> None:
    answerer = ProbeAnswerer()
    for short in [PROBE, probe_datagram()[:-1], PROBE + bytes(100)]:
        assert answerer.answer(short, ("192.0.2.1", 5), 0.0, ANNOUNCEMENT) is None
    assert answerer.drops["short_probe"] == 3 and answerer.answered == 0


def test_no_answer_is_ever_larger_than_its_probe() -> None:
    answerer = ProbeAnswerer()
    big = bytes(PROBE_SIZE + 1)
    assert answerer.answer(probe_datagram(), ("192.0.2.1", 5), 0.0, big) is None
    assert answerer.drops["answer_too_large"] == 1
    reply = answerer.answer(probe_datagram(), ("192.0.2.1", 5), 0.0, ANNOUNCEMENT)
    assert reply == ANNOUNCEMENT and len(reply) <= len(probe_datagram())


def test_answers_are_rate_limited_per_source_address() -> None:
    """A flood of probes spoofed from a victim's address gets a trickle of answers,
    each smaller than its probe; other addresses are not affected."""
    answerer = ProbeAnswerer(rate=2.0, burst=8)
    victim = [answerer.answer(probe_datagram(), ("192.0.2.1", p), 0.0, ANNOUNCEMENT) for p in range(100)]
    assert sum(a is not None for a in victim) == 8
    assert answerer.drops["probe_rate_limited"] == 92
    later = [answerer.answer(probe_datagram(), ("192.0.2.1", 9), 1.0 + i / 100, ANNOUNCEMENT) for i in range(100)]
    assert sum(a is not None for a in later) == 3  # two a second come back
    assert answerer.answer(probe_datagram(), ("198.51.100.2", 1), 1.0, ANNOUNCEMENT) == ANNOUNCEMENT


async def test_a_fake_table_gets_no_guess_it_can_test_and_its_joiner_is_told() -> None:
    """Someone announces a table of their own: a joiner who picks it runs the
    handshake against a host that does not know the code. The fake host sees one
    SPAKE2 message (nothing to test guesses against offline), and the joiner
    refuses it at once with a clear sentence."""
    fake_host = await AioEndpoint.bind(Endpoint("GUESS-0001", TABLE, 1))
    events: list = []
    done = asyncio.Event()

    def on_event(event) -> None:  # noqa: ANN001
        events.append(event)
        if isinstance(event, PeerGone):
            done.set()

    joiner = await AioEndpoint.bind(Endpoint(CODE, TABLE, 2, accept_unknown=False), on_event=on_event)
    try:
        await joiner.connect(1, fake_host.address)
        await joiner.send_reliable(1, {"t": "hello", "name": "Noel"})
        await asyncio.wait_for(done.wait(), timeout=2.0)
        failed = [e for e in events if isinstance(e, HandshakeFailed)]
        assert [(e.reason, e.text) for e in failed] == [("wrong_code", WRONG_CODE)]
        assert fake_host.endpoint.peers == {}  # and the hello never left the joiner
        assert fake_host.endpoint.counters["handshakes_started"] == 1
    finally:
        await joiner.close()
        await fake_host.close()


def test_an_announcement_says_when_its_game_is_over_and_an_older_one_is_read_as_not_over() -> None:
    """A finished table is not "playing": its announcement says the game is over. One from a
    host that does not say (an older one) is read as a game not over."""
    import msgpack

    over = TableInfo(b"table-01", "chip-n-dale", "Chip 'n' Dale", "Ann", 4, 4, 4000, 7, started=True, over=True, code_tag=0)
    assert TableInfo.decode(over.encode()).over
    raw = msgpack.unpackb(ANNOUNCEMENT, raw=False)
    del raw["over"]
    assert not TableInfo.decode(msgpack.packb(raw, use_bin_type=True)).over
    raw["over"] = "yes"
    try:
        TableInfo.decode(msgpack.packb(raw, use_bin_type=True))
    except ValueError as refused:
        assert "malformed" in str(refused)
    else:
        raise AssertionError("an announcement whose 'over' is not a bool was read")
