"""The wire format: layouts, sealing with ChaCha20-Poly1305, and strict intake."""

from __future__ import annotations

import struct

import msgpack
import pytest
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from netcode_helpers import A_ID, A_TO_B, B_ID, B_TO_A

from netcode.envelope import (
    ABORT,
    BUSY,
    CONFIRM,
    COOKIE,
    HEADER,
    INIT,
    MAX_DATAGRAM,
    MIN_INIT,
    REPLY,
    RETRY,
    SEALED,
    VERSION,
    Decoder,
    Dropped,
    Kind,
    Opener,
    Sealer,
    decode_payload,
    open_handshake,
    pack_abort,
    pack_busy,
    pack_confirm,
    pack_init,
    pack_reply,
    pack_retry,
)


def seal_fields(key: bytes, sender: int, seq: int, fields: list) -> bytes:
    """Build a sealed datagram by hand, exactly as the format is documented: a type
    byte, the sender id and the packet number in the clear (the associated data),
    then the msgpack plaintext under ChaCha20-Poly1305 with the packet number as
    nonce. Lets tests forge well-sealed nonsense."""
    header = struct.pack(">BQQ", SEALED, sender, seq)
    nonce = bytes(4) + seq.to_bytes(8, "big")
    return header + ChaCha20Poly1305(key).encrypt(nonce, msgpack.packb(fields), header)


def test_a_sealed_datagram_opens_to_the_same_fields() -> None:
    body = [[[0, b"hello"], [1, b"frag", 0, 2]], [b"ping"]]
    data = Sealer(A_TO_B, A_ID).seal(7, 5, 0b1011, 0, Kind.DATA, body)
    env = Opener(A_TO_B, A_ID).open(data)
    assert (env.sender, env.seq, env.ack, env.ack_bits, env.ack_delay) == (A_ID, 7, 5, 0b1011, 0)
    assert env.kind is Kind.DATA
    assert env.body == (((0, b"hello"), (1, b"frag", 0, 2)), (b"ping",))


def test_the_format_is_what_the_docstring_says() -> None:
    by_hand = seal_fields(A_TO_B, A_ID, 3, [0, 0, 250, int(Kind.HEARTBEAT), None])
    assert by_hand == Sealer(A_TO_B, A_ID).seal(3, 0, 0, 250, Kind.HEARTBEAT, None)
    assert by_hand[0] == VERSION << 4 | 0xA
    assert by_hand[1:9] == A_ID.to_bytes(8, "big") and by_hand[9:17] == (3).to_bytes(8, "big")


def test_only_the_header_is_in_the_clear() -> None:
    secret = b"Acorn of the Christmas tree"
    data = Sealer(A_TO_B, A_ID).seal(1, 0, 0, 0, Kind.DATA, [[[0, msgpack.packb({"face": secret})]], []])
    assert secret not in data and b"face" not in data
    assert len(data) == HEADER + len(msgpack.packb([0, 0, 0, 1, [[[0, b"x" * 35]], []]])) + 16


@pytest.mark.parametrize(
    ("mangle", "reason"),
    [
        (lambda d: d[:10], "truncated"),
        (lambda d: b"", "truncated"),
        (lambda d: d + b"\x00" * (MAX_DATAGRAM + 1 - len(d)), "oversized"),
        (lambda d: d[:-1] + bytes([d[-1] ^ 1]), "bad_tag"),
        (lambda d: d[:12] + bytes([d[12] ^ 1]) + d[13:], "bad_tag"),  # the packet number
        (lambda d: d[:20] + bytes([d[20] ^ 0x40]) + d[21:], "bad_tag"),
        (lambda d: d[:HEADER + 3], "truncated"),
        (lambda d: bytes([0x2A]) + d[1:], "version"),
    ],
)
def test_damaged_datagrams_are_refused_with_a_reason(mangle, reason: str) -> None:  # noqa: ANN001
    data = Sealer(A_TO_B, A_ID).seal(1, 0, 0, 0, Kind.DATA, [[[0, b"x" * 40]], []])
    with pytest.raises(Dropped) as refused:
        Opener(A_TO_B, A_ID).open(mangle(data))
    assert refused.value.reason == reason


def test_without_the_key_nobody_can_forge() -> None:
    stranger = Sealer(bytes(32), A_ID).seal(1, 0, 0, 0, Kind.HEARTBEAT, None)
    with pytest.raises(Dropped, match="bad_tag"):
        Opener(A_TO_B, A_ID).open(stranger)


def test_a_datagram_cannot_be_reflected_to_its_sender() -> None:
    """Each direction has its own key: what A sent to B does not open as B's."""
    data = Sealer(A_TO_B, A_ID).seal(1, 0, 0, 0, Kind.HEARTBEAT, None)
    with pytest.raises(Dropped, match="bad_tag"):
        Opener(B_TO_A, A_ID).open(data)


def test_a_sender_id_changed_in_the_clear_breaks_the_seal() -> None:
    data = bytearray(Sealer(A_TO_B, A_ID).seal(1, 0, 0, 0, Kind.HEARTBEAT, None))
    data[1:9] = (303).to_bytes(8, "big")
    with pytest.raises(Dropped, match="bad_tag"):
        Opener(A_TO_B, 303).open(bytes(data))


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ([0, 0, 0, 9, None], "malformed"),
        ([0, 0, 0, True, None], "malformed"),
        ([0, 0, 0, 1.5, None], "malformed"),
        (["me", 0, 0, 0, None], "malformed"),
        ([2**63, 0, 0, 0, None], "malformed"),
        ([0, 0, -1, 0, None], "malformed"),
        ([0, 0, 2**32, 0, None], "malformed"),
        ([0, 0, 0.5, 0, None], "malformed"),
        ([0, 0, 0, int(Kind.ACK), [1]], "malformed"),
        ([0, 0, 0, int(Kind.DATA), None], "malformed"),
        ([0, 0, 0, int(Kind.DATA), [[], []]], "malformed"),
        ([0, 0, 0, int(Kind.DATA), [[[0]], []]], "malformed"),
        ([0, 0, 0, int(Kind.DATA), [[[0, "text"]], []]], "malformed"),
        ([0, 0, 0, int(Kind.DATA), [[[-1, b"x"]], []]], "malformed"),
        ([0, 0, 0, int(Kind.DATA), [[[0, b"x", 2, 2]], []]], "malformed"),
        ([0, 0, 0, int(Kind.DATA), [[[0, b"x", 0, 999]], []]], "malformed"),
        ([0, 0, 0, int(Kind.DATA), [[], [7]]], "malformed"),
        ([0, 0, 0, int(Kind.DATA), {"units": 1}], "malformed"),
        ([0, 0, 0, 0, None, None], "malformed"),
        ([0, 0, 0, 0], "truncated"),
    ],
)
def test_a_member_cannot_slip_a_bad_shape_past_the_intake(fields: list, reason: str) -> None:
    data = seal_fields(A_TO_B, A_ID, 1, fields)
    with pytest.raises(Dropped) as refused:
        Opener(A_TO_B, A_ID).open(data)
    assert refused.value.reason == reason


def test_packet_number_zero_is_refused() -> None:
    with pytest.raises(Dropped, match="malformed"):
        Opener(A_TO_B, A_ID).open(seal_fields(A_TO_B, A_ID, 0, [0, 0, 0, 0, None]))


def test_a_huge_container_header_is_refused_without_allocating() -> None:
    header = struct.pack(">BQQ", SEALED, A_ID, 1)
    plain = b"\x95" + b"\xdd\xff\xff\xff\xff" + bytes(20)  # an array claiming 4 billion items
    data = header + ChaCha20Poly1305(A_TO_B).encrypt(bytes(4) + header[9:], plain, header)
    with pytest.raises(Dropped, match="malformed"):
        Opener(A_TO_B, A_ID).open(data)


def test_handshake_datagrams_have_exact_layouts() -> None:
    message = b"A" + bytes(range(32))
    init = pack_init(A_ID, B_ID, message, 1200)
    assert len(init) == 1200 and init[0] == INIT and init[17:50] == message
    assert open_handshake(init)[:4] == (INIT, A_ID, B_ID, message)
    reply = pack_reply(B_ID, A_ID, b"B" + bytes(32), b"p" * 16)
    assert len(reply) == 17 + 33 + 16 and open_handshake(reply).proof == b"p" * 16
    assert open_handshake(pack_confirm(A_ID, B_ID, b"c" * 16)).type == CONFIRM
    busy = open_handshake(pack_busy(B_ID, A_ID, 2.5, b"d" * 16))
    assert (busy.type, busy.retry_after, busy.echo) == (BUSY, 2.5, b"d" * 16)
    assert open_handshake(pack_abort(A_ID, B_ID, b"e" * 16)).type == ABORT
    assert open_handshake(reply).type == REPLY
    retry = pack_retry(B_ID, A_ID, b"k" * COOKIE, b"f" * 16)
    assert len(retry) == 17 + COOKIE + 16
    assert open_handshake(retry)[:3] == (RETRY, B_ID, A_ID)
    assert (open_handshake(retry).cookie, open_handshake(retry).echo) == (b"k" * COOKIE, b"f" * 16)
    again = pack_init(A_ID, B_ID, message, 1200, b"k" * COOKIE)
    assert len(again) == 1200 and again[50] == COOKIE and again[51 : 51 + COOKIE] == b"k" * COOKIE
    assert open_handshake(again)[:4] == (INIT, A_ID, B_ID, message)
    assert open_handshake(again).cookie == b"k" * COOKIE and open_handshake(init).cookie == b""


def test_an_init_whose_cookie_length_is_not_a_cookies_is_refused() -> None:
    init = bytearray(pack_init(A_ID, B_ID, b"A" + bytes(32), 1200))
    for length in (1, COOKIE - 1, COOKIE + 1, 255):
        init[50] = length
        with pytest.raises(Dropped, match="malformed"):
            open_handshake(bytes(init))
    with pytest.raises(ValueError):
        pack_init(A_ID, B_ID, b"A" + bytes(32), 1200, b"short")


def test_a_short_init_is_refused_so_no_answer_is_ever_larger_than_its_question() -> None:
    init = pack_init(A_ID, B_ID, b"A" + bytes(32), 1200)
    with pytest.raises(Dropped, match="short_init"):
        open_handshake(init[: MIN_INIT - 1])
    answers = [pack_reply(B_ID, A_ID, b"B" + bytes(32), bytes(16)), pack_busy(B_ID, A_ID, 1.0, bytes(16)),
               pack_retry(B_ID, A_ID, bytes(COOKIE), bytes(16))]  # fmt: skip
    assert max(len(a) for a in answers) < MIN_INIT
    for bad in [pack_confirm(A_ID, B_ID, bytes(16)) + b"x", pack_reply(B_ID, A_ID, bytes(33), bytes(15))]:
        with pytest.raises(Dropped, match="malformed"):
            open_handshake(bad)


def test_handshake_datagrams_carry_no_name_game_or_table() -> None:
    """What a joiner says before it has proven anything: two ids and a SPAKE2 element."""
    init = pack_init(A_ID, B_ID, b"A" + bytes(range(32)), 1200)
    assert set(init[50:]) == {0}
    again = pack_init(A_ID, B_ID, b"A" + bytes(range(32)), 1200, b"k" * COOKIE)  # + the host's cookie
    assert again[51 : 51 + COOKIE] == b"k" * COOKIE and set(again[51 + COOKIE :]) == {0}


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


def test_sealer_and_opener_are_reusable() -> None:
    sealer = Sealer(A_TO_B, A_ID)
    opener = Opener(A_TO_B, A_ID)
    for seq in range(1, 5):
        env = opener.open(sealer.seal(seq, 0, 0, 0, Kind.HEARTBEAT, None))
        assert (env.sender, env.seq, env.kind) == (A_ID, seq, Kind.HEARTBEAT)
