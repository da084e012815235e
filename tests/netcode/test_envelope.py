"""The wire envelope: layout, MAC, key derivation and strict intake."""

from __future__ import annotations

import hashlib

import msgpack
import pytest
from netcode_helpers import A_ID, B_ID, CODE, TABLE

from netcode.envelope import (
    MAX_DATAGRAM,
    VERSION,
    Decoder,
    Dropped,
    Kind,
    Opener,
    Sealer,
    decode_payload,
    open_datagram,
    seal,
    table_key,
)


def seal_fields(key: bytes, receiver: int, fields: list) -> bytes:
    """Build a datagram by hand, exactly as the format is documented: a msgpack
    array of 9 whose last element is a 16-byte keyed BLAKE2b over the rest,
    personalised with the receiver id. Lets tests forge well-MACed nonsense."""
    packed = msgpack.packb([*fields, None])[:-1]
    header = packed[0]
    assert header == 0x9A, "fixarray of 10"
    mac = hashlib.blake2b(
        packed, key=key, digest_size=16, person=receiver.to_bytes(8, "little")
    ).digest()
    return packed + b"\xc4\x10" + mac


def test_a_sealed_datagram_opens_to_the_same_fields(key: bytes) -> None:
    body = [[[0, b"hello"], [1, b"frag", 0, 2]], [b"ping"]]
    data = seal(key, B_ID, TABLE, A_ID, 7, 5, 0b1011, Kind.DATA, body)
    env = open_datagram(data, key, B_ID, TABLE)
    assert env.version == VERSION
    assert env.table_id == TABLE
    assert (env.sender, env.seq, env.ack, env.ack_bits, env.ack_delay) == (A_ID, 7, 5, 0b1011, 0)
    assert env.kind is Kind.DATA
    assert env.body == (((0, b"hello"), (1, b"frag", 0, 2)), (b"ping",))


def test_the_format_is_what_the_docstring_says(key: bytes) -> None:
    by_hand = seal_fields(key, B_ID, [VERSION, TABLE, A_ID, 3, 0, 0, 250, int(Kind.HEARTBEAT), None])
    assert by_hand == seal(key, B_ID, TABLE, A_ID, 3, 0, 0, Kind.HEARTBEAT, None, ack_delay=250)
    assert msgpack.unpackb(by_hand)[-1] == by_hand[-16:]


def test_table_key_depends_on_code_and_table_and_ignores_case_and_spaces() -> None:
    base = table_key(CODE, TABLE)
    assert len(base) == 32
    assert table_key(f"  {CODE.lower()} ", TABLE) == base
    assert table_key("JINGLE-43", TABLE) != base
    assert table_key(CODE, b"table-2") != base
    with pytest.raises(ValueError):
        table_key(CODE, b"x" * 33)


@pytest.mark.parametrize(
    ("mangle", "reason"),
    [
        (lambda d: d[:-1], "no_mac"),
        (lambda d: d[:10], "truncated"),
        (lambda d: b"", "truncated"),
        (lambda d: d + b"\x00" * (MAX_DATAGRAM + 1 - len(d)), "oversized"),
        (lambda d: d[:-1] + bytes([d[-1] ^ 1]), "bad_mac"),
        (lambda d: bytes([d[0] ^ 1]) + d[1:], "bad_mac"),
        (lambda d: d[:20] + bytes([d[20] ^ 0x40]) + d[21:], "bad_mac"),
    ],
)
def test_damaged_datagrams_are_refused_with_a_reason(key: bytes, mangle, reason: str) -> None:
    data = seal(key, B_ID, TABLE, A_ID, 1, 0, 0, Kind.DATA, [[[0, b"x" * 40]], []])
    with pytest.raises(Dropped) as refused:
        open_datagram(mangle(data), key, B_ID, TABLE)
    assert refused.value.reason == reason


def test_a_stranger_without_the_join_code_cannot_forge(key: bytes) -> None:
    stranger = table_key("WRONG-CODE", TABLE)
    data = seal(stranger, B_ID, TABLE, A_ID, 1, 0, 0, Kind.HEARTBEAT, None)
    with pytest.raises(Dropped, match="bad_mac"):
        open_datagram(data, key, B_ID, TABLE)


def test_a_datagram_for_one_seat_cannot_be_replayed_to_another(key: bytes) -> None:
    data = seal(key, B_ID, TABLE, A_ID, 1, 0, 0, Kind.HEARTBEAT, None)
    with pytest.raises(Dropped, match="bad_mac"):
        open_datagram(data, key, 303, TABLE)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ([1, TABLE, A_ID, 1, 0, 0, 0, 0, None], "version"),
        ([VERSION, b"other", A_ID, 1, 0, 0, 0, 0, None], "wrong_table"),
        ([VERSION, TABLE, -1, 1, 0, 0, 0, 0, None], "malformed"),
        ([VERSION, TABLE, A_ID, 0, 0, 0, 0, 0, None], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, 9, None], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, True, None], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, 1.5, None], "malformed"),
        ([VERSION, TABLE, "me", 1, 0, 0, 0, 0, None], "malformed"),
        ([VERSION, TABLE, 2**63, 1, 0, 0, 0, 0, None], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, -1, 0, None], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 2**32, 0, None], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0.5, 0, None], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.ACK), [1]], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.DATA), None], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.DATA), [[], []]], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.DATA), [[[0]], []]], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.DATA), [[[0, "text"]], []]], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.DATA), [[[-1, b"x"]], []]], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.DATA), [[[0, b"x", 2, 2]], []]], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.DATA), [[[0, b"x", 0, 999]], []]], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.DATA), [[], [7]]], "malformed"),
        ([VERSION, TABLE, A_ID, 1, 0, 0, 0, int(Kind.DATA), {"units": 1}], "malformed"),
    ],
)
def test_a_member_cannot_slip_a_bad_shape_past_the_intake(
    key: bytes, fields: list, reason: str
) -> None:
    data = seal_fields(key, B_ID, fields)
    with pytest.raises(Dropped) as refused:
        open_datagram(data, key, B_ID, TABLE)
    assert refused.value.reason == reason


def test_a_huge_container_header_is_refused_without_allocating(key: bytes) -> None:
    # an array header that claims four billion elements, correctly MACed
    content = b"\x99" + msgpack.packb(VERSION) + b"\xdd\xff\xff\xff\xff"
    mac = hashlib.blake2b(
        content, key=key, digest_size=16, person=B_ID.to_bytes(8, "little")
    ).digest()
    data = content + b"\x00" * 20 + b"\xc4\x10" + mac
    mac = hashlib.blake2b(
        data[:-18], key=key, digest_size=16, person=B_ID.to_bytes(8, "little")
    ).digest()
    data = data[:-16] + mac
    with pytest.raises(Dropped, match="malformed"):
        open_datagram(data, key, B_ID, TABLE)


def test_payload_maps_must_have_string_keys() -> None:
    assert decode_payload(msgpack.packb({"a": [1, b"x"]}), 100) == {"a": [1, b"x"]}
    with pytest.raises(Dropped, match="bad_payload"):
        decode_payload(msgpack.packb({1: 2}), 100)
    with pytest.raises(Dropped, match="bad_payload"):
        decode_payload(msgpack.packb("x" * 200), 100)


def test_a_reused_decoder_is_not_poisoned_by_bad_input() -> None:
    decoder = Decoder(64, use_list=True, max_array_len=8)
    assert decoder.decode(msgpack.packb([1, 2])) == [1, 2]
    for bad in [b"\x92\x01", msgpack.packb([1]) + b"\x01", msgpack.packb(list(range(9))), b"\xc1"]:
        with pytest.raises(ValueError):
            decoder.decode(bad)
    assert decoder.decode(msgpack.packb({"k": "v"})) == {"k": "v"}


def test_sealer_and_opener_are_the_reusable_forms(key: bytes) -> None:
    sealer = Sealer(key, B_ID, TABLE, A_ID)
    opener = Opener(key, B_ID, TABLE)
    for seq in range(1, 5):
        env = opener.open(sealer.seal(seq, 0, 0, 0, Kind.HEARTBEAT, None))
        assert (env.sender, env.seq, env.kind) == (A_ID, seq, Kind.HEARTBEAT)
