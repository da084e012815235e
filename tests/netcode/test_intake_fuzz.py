"""Defensive intake: whatever arrives, nothing raises and nothing changes but
the drop counters. Mutated, truncated, extended, oversized, random, replayed
and forged datagrams are all thrown at a receiver mid-conversation."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from netcode_helpers import A_ID, B_ID, TABLE, make_pair, snapshot, the_key

from netcode.channel import Endpoint
from netcode.envelope import MAX_DATAGRAM, Kind, Sealer, table_key
from netcode.tools.faults import LinkFaults


def conversation() -> tuple[Endpoint, list[bytes]]:
    """B after a lossless exchange with A, and every datagram A sent it."""
    key = the_key()
    pair = make_pair(key, LinkFaults(delay=0.002))
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
    return pair.b, captured + [held]


RECEIVER, CAPTURED = conversation()
HELD = CAPTURED[-1]
PROCESSED = CAPTURED[:-1]


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


def test_a_stranger_with_a_wrong_join_code_is_refused() -> None:
    stranger = Sealer(table_key("JINGLE-24", TABLE), B_ID, TABLE, A_ID)
    assert_refused_without_a_trace(stranger.seal(99, 0, 0, 0, Kind.DATA, [[[0, b"\xa5cheat"]], []]))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    wrong_key=st.binary(min_size=1, max_size=64),
    seq=st.integers(1, 2**40),
    kind=st.sampled_from(list(Kind)),
    receiver=st.integers(0, 2**32),
)
def test_forgeries_are_refused(wrong_key: bytes, seq: int, kind: Kind, receiver: int) -> None:
    body = [[[0, b"\xa5cheat"]], []] if kind is Kind.DATA else None
    if wrong_key != the_key():  # someone who does not hold the table key
        assert_refused_without_a_trace(
            Sealer(wrong_key, B_ID, TABLE, A_ID).seal(seq, 0, 0, 0, kind, body)
        )
    if receiver != B_ID:  # a member's datagram meant for another seat
        assert_refused_without_a_trace(
            Sealer(the_key(), receiver, TABLE, A_ID).seal(seq, 0, 0, 0, kind, body)
        )


def test_the_receiver_still_works_after_all_that() -> None:
    drops = dict(RECEIVER.drops)
    RECEIVER.receive_datagram(HELD, "a", 6.0)
    payloads = [getattr(e, "payload", None) for e in RECEIVER.events()]
    assert "pending" in payloads
    assert dict(RECEIVER.drops) == drops
