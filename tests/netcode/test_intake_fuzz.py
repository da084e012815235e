"""Defensive intake: whatever arrives, nothing raises and nothing changes but
the drop counters. Mutated, truncated, extended, oversized, random, replayed,
reflected and forged datagrams, sealed or handshake, are all thrown at a
receiver mid-conversation (a host that takes no newcomers any more); and at a
host's open door, nothing of the kind ever seats anyone."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from netcode_helpers import A_ID, B_ID, CODE, TABLE, make_pair, snapshot

from netcode.channel import Endpoint, HandshakeCompleted, PeerJoined
from netcode.envelope import (
    CONFIRM,
    INIT,
    MAX_DATAGRAM,
    REPLY,
    RETRY,
    SEALED,
    Kind,
    Sealer,
    open_handshake,
    pack_init,
)
from netcode.simulator.faults import LinkFaults


def conversation() -> tuple[Endpoint, list[bytes]]:
    """B after a lossless exchange with A (the handshake included), and every
    datagram A sent it; B then takes no newcomers, so nothing may change it."""
    pair = make_pair(CODE, LinkFaults(delay=0.002))
    captured: list[bytes] = []
    original = pair.net._transmit

    def tap(src, dst, data):  # noqa: ANN001
        if src == "a":
            captured.append(data)
        original(src, dst, data)

    pair.net._transmit = tap  # type: ignore[method-assign]
    for i, message in enumerate([b"x", {"move": "draw"}, b"y" * 3000, [1, 2, 3], b"z" * 50]):
        pair.net.call_at(0.01 * i, lambda m=message: pair.a.send_reliable(B_ID, m))
        pair.net.call_at(0.01 * i, lambda i=i: pair.a.send_unreliable(B_ID, {"ping": i}))
    pair.run(1.0)
    # leave B with a gap: a datagram is in flight but not yet delivered
    pair.a.send_reliable(B_ID, "pending")
    (held, _), *_ = pair.a.datagrams_to_send(pair.net.now)
    pair.b.send_reliable(A_ID, "unanswered")
    pair.b.datagrams_to_send(pair.net.now)
    pair.b.accept_unknown = False
    return pair.b, captured + [held]


RECEIVER, CAPTURED = conversation()
HELD = CAPTURED[-1]
PROCESSED = CAPTURED[:-1]
#: what A seals toward B with: a member's key, for forgeries that pass the seal
MEMBER_KEY = RECEIVER.peers[A_ID].keys.receive  # type: ignore[union-attr]


def assert_refused_without_a_trace(data: bytes) -> None:
    before = snapshot(RECEIVER)
    drops = sum(RECEIVER.drops.values())
    RECEIVER.receive_datagram(data, "a", 5.0)  # must not raise
    assert snapshot(RECEIVER) == before
    assert sum(RECEIVER.drops.values()) == drops + 1


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.sampled_from(CAPTURED),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 255)), min_size=1, max_size=4),
)
def test_flipped_bits_are_refused(original: bytes, flips: list[tuple[int, int]]) -> None:
    data = bytearray(original)
    for position, mask in flips:
        data[position % len(data)] ^= mask
    assert_refused_without_a_trace(bytes(data))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.sampled_from(CAPTURED), st.data())
def test_truncated_and_extended_datagrams_are_refused(original: bytes, data) -> None:  # noqa: ANN001
    cut = data.draw(st.integers(0, len(original) - 1))
    extra = data.draw(st.binary(min_size=1, max_size=64))
    assert_refused_without_a_trace(original[:cut])
    assert_refused_without_a_trace(original + extra)
    assert_refused_without_a_trace(extra + original)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.binary(max_size=MAX_DATAGRAM + 200))
def test_random_bytes_are_refused(data: bytes) -> None:
    assert_refused_without_a_trace(data)


def test_oversized_datagrams_are_refused_before_decoding() -> None:
    before = RECEIVER.drops["oversized"]
    assert_refused_without_a_trace(CAPTURED[0] + b"\x00" * MAX_DATAGRAM)
    assert RECEIVER.drops["oversized"] == before + 1


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.sampled_from(PROCESSED))
def test_replayed_datagrams_are_refused(data: bytes) -> None:
    assert_refused_without_a_trace(data)


def test_the_capture_holds_the_handshake_and_sealed_datagrams() -> None:
    assert {data[0] for data in CAPTURED} == {INIT, CONFIRM, SEALED}


def test_a_stranger_without_the_keys_is_refused() -> None:
    stranger = Sealer(bytes(32), A_ID)
    assert_refused_without_a_trace(stranger.seal(99, 0, 0, 0, Kind.DATA, [[[0, b"\xa5cheat"]], []]))


def test_a_datagram_reflected_to_its_sender_is_refused() -> None:
    before = RECEIVER.drops["reflected"]
    assert_refused_without_a_trace(Sealer(MEMBER_KEY, B_ID).seal(99, 0, 0, 0, Kind.HEARTBEAT, None))
    assert RECEIVER.drops["reflected"] == before + 1


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    wrong_key=st.binary(min_size=32, max_size=32),
    seq=st.integers(1, 2**40),
    kind=st.sampled_from(list(Kind)),
    sender=st.integers(0, 2**32),
)
def test_forgeries_are_refused(wrong_key: bytes, seq: int, kind: Kind, sender: int) -> None:
    body = [[[0, b"\xa5cheat"]], []] if kind is Kind.DATA else None
    if wrong_key != MEMBER_KEY:  # someone who does not hold A's key
        assert_refused_without_a_trace(Sealer(wrong_key, A_ID).seal(seq, 0, 0, 0, kind, body))
    if sender != A_ID:  # A's key, sealed under another peer's name
        assert_refused_without_a_trace(Sealer(MEMBER_KEY, sender).seal(seq, 0, 0, 0, kind, body))


def test_an_old_datagram_from_elsewhere_does_not_move_the_peer() -> None:
    """Only an authentic datagram newer than any seen proves a new path."""
    assert RECEIVER.peers[A_ID].address == "a"
    for data in PROCESSED[-3:]:
        assert_refused_without_a_trace(data)  # (as a replay, from anywhere)
        RECEIVER.receive_datagram(data, ("203.0.113.9", 666), 5.0)
    assert RECEIVER.peers[A_ID].address == "a"


def door() -> tuple[Endpoint, list[bytes]]:
    """A host with its door open, and a joiner's handshake datagrams to it."""
    pair = make_pair(CODE, LinkFaults(delay=0.002))
    sent: list[bytes] = []
    original = pair.net._transmit

    def tap(src, dst, data):  # noqa: ANN001
        if src == "a" and data[0] != SEALED:
            sent.append(data)
        original(src, dst, data)

    pair.net._transmit = tap  # type: ignore[method-assign]
    pair.run(0.5)
    return Endpoint(CODE, TABLE, B_ID), sent


OPEN_HOST, HANDSHAKES = door()


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.sampled_from(HANDSHAKES),
    st.lists(st.tuples(st.integers(0, 1300), st.integers(1, 255)), min_size=1, max_size=4),
    st.binary(max_size=40),
)
def test_mangled_handshakes_never_seat_anyone(original: bytes, flips, tail: bytes) -> None:  # noqa: ANN001
    """A host that answers strangers: whatever a forger makes of a joiner's INIT or
    CONFIRM, nothing raises and nobody is seated without proving the code (a mangled
    INIT the host answers with a RETRY comes back with its cookie, so the door's inner
    stages are tried too)."""
    data = bytearray(original)
    for position, mask in flips:
        data[position % len(data)] ^= mask
    for attempt in (bytes(data), bytes(data) + tail, bytes(data)[: len(tail)]):
        OPEN_HOST.receive_datagram(attempt, ("198.51.100.7", 1), 1.0)
        for answer, _ in OPEN_HOST.datagrams_to_send(1.0):
            if answer[0] == RETRY:
                OPEN_HOST.receive_datagram(with_cookie(attempt, answer), ("198.51.100.7", 1), 1.0)
                OPEN_HOST.datagrams_to_send(1.0)
    admitted = [e for e in OPEN_HOST.events() if isinstance(e, PeerJoined | HandshakeCompleted)]
    assert admitted == [] and OPEN_HOST.peers == {}


def with_cookie(init: bytes, retry: bytes) -> bytes:
    """`init` again, carrying the cookie of the host's `retry` to it."""
    packet = open_handshake(init)
    cookie = open_handshake(retry).cookie
    return pack_init(packet.sender, packet.receiver, packet.message, len(init), cookie)


def test_a_mangled_init_with_its_cookie_reaches_the_inner_door() -> None:
    """(The fuzz above gets past the cookie: a RETRY's cookie opens the door's next stage.)"""
    host = Endpoint(CODE, TABLE, B_ID)
    init = next(data for data in HANDSHAKES if data[0] == INIT)
    mangled = init[:20] + bytes([init[20] ^ 0x55]) + init[21:]  # another SPAKE2 element
    host.receive_datagram(mangled, ("198.51.100.7", 1), 1.0)
    (retry, _), = host.datagrams_to_send(1.0)
    host.receive_datagram(with_cookie(mangled, retry), ("198.51.100.7", 1), 1.0)
    answered = {data[0] for data, _ in host.datagrams_to_send(1.0)}
    assert host.counters["retries_sent"] == 1
    assert REPLY in answered or host.drops["bad_handshake"] == 1


def test_the_receiver_still_works_after_all_that() -> None:
    drops = dict(RECEIVER.drops)
    RECEIVER.receive_datagram(HELD, "a", 6.0)
    payloads = [getattr(e, "payload", None) for e in RECEIVER.events()]
    assert "pending" in payloads
    assert dict(RECEIVER.drops) == drops
