"""Discovery cannot be turned into a weapon: probes are padded, answers are never
larger than their probe and are rate-limited per source; a fake table learns nothing
it could test a guess against."""

from __future__ import annotations

import asyncio

from netcode_helpers import CODE, TABLE

from netcode.aio import AioEndpoint
from netcode.channel import WRONG_CODE, Endpoint, HandshakeFailed, PeerGone
from netcode.discovery import (
    MAX_ANNOUNCE,
    PROBE,
    PROBE_SIZE,
    ProbeAnswerer,
    TableInfo,
    probe_datagram,
)

ANNOUNCEMENT = TableInfo(
    b"table-01", "chip-n-dale", "Chip 'n' Dale: Christmas Treasures", "Ann", 4, 1, 4000, 7,
    seed_commit=bytes(32),
).encode()  # fmt: skip


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

    over = TableInfo(b"table-01", "chip-n-dale", "Chip 'n' Dale", "Ann", 4, 4, 4000, 7, started=True, over=True)
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
