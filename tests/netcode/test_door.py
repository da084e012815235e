"""The host's door under attack: forged floods hold nothing, proven ones cannot hold it.

An INIT without a good cookie gets a RETRY no larger than itself and leaves no
trace (no attempt, no record of its source, no SPAKE2); a cookie is good for one
INIT from one address, for a few seconds; attempts of proven addresses are capped
per source and in all, and a full door gives way fairly; a joiner kept out for
load is told the table is busy, never to check its code. The same flood on real
sockets is in `test_sockets`."""

from __future__ import annotations

import random

import pytest
from netcode_helpers import CODE, HOST, TABLE, Table, proven_init, snapshot

from netcode.channel import (
    NO_ANSWER,
    TABLE_BUSY,
    Config,
    Endpoint,
    HandshakeCompleted,
    HandshakeFailed,
    JoinAttemptFailed,
    PeerGone,
)
from netcode.channel import admission as admission_module
from netcode.envelope import COOKIE, REPLY, RETRY, open_handshake, pack_init


def forged_init(rng: random.Random, cookie: bytes = b"") -> bytes:
    """An INIT as a flooder makes it: any joiner id, any element, the host's id (announced)."""
    return pack_init(rng.getrandbits(63), HOST, b"A" + rng.randbytes(32), 1200, cookie)


def forged_address(rng: random.Random) -> tuple[str, int]:
    return f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}", rng.randrange(1, 65536)


def held_attempt(host: Endpoint, peer: int, address: tuple[str, int], now: float = 0.0) -> None:
    """An attempt of a proven address that will never prove the code (it answered the RETRY)."""
    guesser = Endpoint("GUESS-0000", TABLE, peer, accept_unknown=False)
    guesser.connect(HOST, "host", now)
    host.receive_datagram(proven_init(host, guesser, address, now), address, now)
    host.datagrams_to_send(now)


# -- forged source addresses ---------------------------------------------------------------


def test_a_flood_of_inits_from_forged_addresses_leaves_nothing_at_the_host(monkeypatch) -> None:  # noqa: ANN001
    def no_spake2(*_args: object) -> None:
        raise AssertionError("SPAKE2 ran for an address that proved nothing")

    monkeypatch.setattr(admission_module, "Responder", no_spake2)
    host = Endpoint(CODE, TABLE, HOST)
    before = snapshot(host)
    rng = random.Random(1)
    for i in range(3000):  # 2000 a second for 1.5 s, a third with made-up cookies
        now = i / 2000
        data = forged_init(rng, rng.randbytes(COOKIE) if i % 3 == 0 else b"")
        address = forged_address(rng)
        host.receive_datagram(data, address, now)
        (answer, to), = host.datagrams_to_send(now)
        assert answer[0] == RETRY and to == address and len(answer) < len(data)
    assert snapshot(host) == before and not host.admission._sources
    assert host.counters["retries_sent"] == 3000 and host.failed_attempts_total == 0
    assert host.drops["bad_cookie"] + host.drops["expired_cookie"] == 1000
    assert host.describe_door(1.5) == "2000 unproven joins a second turned away"
    assert host.describe_door(4.0) == ""


def test_a_cookie_replayed_from_another_address_opens_nothing() -> None:
    host = Endpoint(CODE, TABLE, HOST)
    joiner = Endpoint(CODE, TABLE, 2, accept_unknown=False)
    joiner.connect(HOST, "host", 0.0)
    init = proven_init(host, joiner, ("192.0.2.1", 2))
    for address in [("203.0.113.66", 2), ("192.0.2.1", 3)]:  # another IP; the same IP, another port
        host.receive_datagram(init, address, 0.01)
        (answer, to), = host.datagrams_to_send(0.01)
        assert answer[0] == RETRY and to == address
    assert host.drops["bad_cookie"] == 2 and host.admission.attempts == {}
    host.receive_datagram(init, ("192.0.2.1", 2), 0.02)  # from where the cookie was sent: in
    (answer, _), = host.datagrams_to_send(0.02)
    assert answer[0] == REPLY and list(host.admission.attempts) == [2]


def test_a_cookie_opens_only_the_init_it_was_given_for() -> None:
    host = Endpoint(CODE, TABLE, HOST)
    joiner = Endpoint(CODE, TABLE, 2, accept_unknown=False)
    joiner.connect(HOST, "host", 0.0)
    init = open_handshake(proven_init(host, joiner, ("192.0.2.1", 2)))
    rng = random.Random(3)
    for other in [forged_init(rng, init.cookie), pack_init(3, HOST, init.message, 1200, init.cookie)]:
        host.receive_datagram(other, ("192.0.2.1", 2), 0.01)
        (answer, _), = host.datagrams_to_send(0.01)
        assert answer[0] == RETRY
    assert host.drops["bad_cookie"] == 2 and host.admission.attempts == {}


@pytest.mark.parametrize("minted", [0.0, 0.999])  # in lifetimes: a window's start, its end
@pytest.mark.parametrize(("late", "taken"), [(0.5, True), (1.0, True), (2.0, False), (60.0, False)])
def test_a_cookie_is_good_for_one_lifetime_at_least_and_never_two(minted: float, late: float,
                                                                   taken: bool) -> None:  # fmt: skip
    lifetime = Config().cookie_lifetime
    host = Endpoint(CODE, TABLE, HOST)
    joiner = Endpoint(CODE, TABLE, 2, accept_unknown=False)
    joiner.connect(HOST, "host", 0.0)
    init = proven_init(host, joiner, ("192.0.2.1", 2), minted * lifetime)
    when = (minted + late) * lifetime
    host.receive_datagram(init, ("192.0.2.1", 2), when)
    (answer, _), = host.datagrams_to_send(when)
    assert (answer[0] == REPLY) is taken and (host.drops["expired_cookie"] == 1) is not taken


def test_the_joiner_with_the_code_is_seated_through_the_retry_while_forged_inits_flood() -> None:
    """10,000 forged INITs a second from 100 addresses, in virtual time: the joiner's first
    INIT is answered with a RETRY like theirs, and its second seats it."""
    table = Table()
    rng = random.Random(4)
    sources = [(f"10.0.0.{i}", 4000 + i) for i in range(100)]

    def flood() -> None:
        for _ in range(10):
            table.net._transmit(rng.choice(sources), "host", forged_init(rng))
        if table.net.now < 1.5:
            table.net.call_later(0.001, flood)

    table.net.call_at(0.0, flood)
    joiner = table.join(2, at=0.5, address=("192.0.2.1", 2))
    assert table.net.run(1.5, lambda: 2 in table.host.peers) and table.net.now < 0.6
    assert table.of(("192.0.2.1", 2), HandshakeCompleted)
    assert joiner.counters["retries_taken"] == 1 and table.host.counters["retries_sent"] > 4000
    assert table.host.counters["handshakes_started"] == 1 and table.host.failed_attempts_total == 0


def test_after_a_retry_to_its_only_init_a_joiner_repeats_it_every_three_round_trips() -> None:
    """(A host under a flood loses datagrams: the joiner's proof goes again soon, not in 0.25 s.)"""
    host = Endpoint(CODE, TABLE, HOST)
    joiner = Endpoint(CODE, TABLE, 2, accept_unknown=False)
    joiner.connect(HOST, "host", 0.0)
    (init, _), = joiner.datagrams_to_send(0.0)
    host.receive_datagram(init, ("192.0.2.1", 2), 0.0)
    (retry, _), = host.datagrams_to_send(0.0)
    joiner.receive_datagram(retry, "host", 0.02)
    (again, _), = joiner.datagrams_to_send(0.02)
    assert open_handshake(again).cookie and joiner.next_timer() == pytest.approx(0.03)
    (copy, _), = joiner.datagrams_to_send(0.03)  # each INIT goes twice, a moment apart
    assert copy == again and joiner.next_timer() == pytest.approx(0.08)
    joiner.receive_datagram(retry, "host", 0.03)  # another RETRY: its cookie waits its turn
    joiner.receive_datagram(retry, "host", 0.03)  # and no more than one per INIT sent
    assert joiner.datagrams_to_send(0.03) == [] and joiner.drops["retry_repeat"] == 1
    assert joiner.next_timer() == pytest.approx(0.08) and joiner.counters["retries_taken"] == 2


# -- proven addresses -------------------------------------------------------------------------


def test_proven_attempts_from_four_addresses_cannot_hold_the_door() -> None:
    """Four addresses that answer the RETRY but never prove the code fill the door (four
    attempts each, the most one address may hold); a joiner from a fifth is still seated,
    in the place of the oldest attempt of an address holding the most."""
    table = Table()
    host = table.host
    for source in range(4):
        for k in range(6):
            held_attempt(host, 100 + 10 * source + k, (f"198.51.100.{source}", k))
    assert len(host.admission.attempts) == host.config.max_handshakes == 16
    assert host.drops["door_full"] == 8  # two from each address: over its share
    table.join(2, address=("192.0.2.9", 1))
    assert table.net.run(1.0, lambda: 2 in host.peers)
    (evicted,) = table.of("host", JoinAttemptFailed)
    assert (evicted.source, evicted.reason) == ("198.51.100.0", "evicted")  # counted: its REPLY went out
    assert host.failed_attempts == {"198.51.100.0": 1} and 100 not in host.admission.attempts
    assert host.describe_door(table.net.now) == "busy: 15 join attempts waiting from 4 addresses"


def test_many_addresses_holding_one_attempt_each_give_way_oldest_first() -> None:
    """Sixteen addresses holding one attempt each: a newcomer is asked to wait until the
    oldest is older than an honest join could be, then takes its place."""
    table = Table()
    host = table.host
    for source in range(16):
        held_attempt(host, 100 + source, (f"198.51.100.{source}", 1), now=source * 0.01)
    table.join(2, address=("192.0.2.9", 1))
    table.net.run(0.5)
    assert 2 not in host.peers and host.drops["door_full"] >= 1
    assert table.net.run(2.0, lambda: 2 in host.peers) and table.net.now >= host.config.evict_after
    (evicted,) = table.of("host", JoinAttemptFailed)
    assert (evicted.source, evicted.reason) == ("198.51.100.0", "evicted")


def test_a_joiner_kept_out_for_load_is_told_the_table_is_busy_never_to_check_the_code() -> None:
    table = Table(config=Config(max_handshakes=2, evict_after=60.0))
    for source in range(2):  # the door is full, one attempt from each address, for a minute
        held_attempt(table.host, 100 + source, (f"198.51.100.{source}", 1))
    joiner = table.join(2, address=("192.0.2.9", 1), config=Config(connect_timeout=2.0))
    assert joiner.join_stalled(HOST) == NO_ANSWER and "code" not in NO_ANSWER
    table.net.run(1.0)
    assert joiner.join_stalled(HOST) == TABLE_BUSY and joiner.counters["busy_answers"] >= 2
    assert table.host.describe_door(1.0) == "busy: 2 join attempts waiting from 2 addresses"
    table.net.run(3.0)
    (failed,) = table.of(("192.0.2.9", 1), HandshakeFailed)
    assert (failed.reason, failed.text) == ("busy", TABLE_BUSY) and "code" not in failed.text
    assert [g.reason for g in table.of(("192.0.2.9", 1), PeerGone)] == ["busy"]
    assert table.host.failed_attempts == {}  # a busy table counts nobody's failure
