"""The wire format: every datagram's layout, its sealing, and strict intake.

Owns: the datagram layouts (the handshake's, in the clear, and the sealed
one), sealing and opening with ChaCha20-Poly1305, the intake limits, and the
strict decoding of everything a sealed datagram may carry.

Every datagram starts with one byte: the format version in the high nibble
(4) and the packet type in the low one. Ids are 8-byte big-endian integers
below 2**63; the first id of every datagram is its sender's.

Handshake datagrams (the join, see `netcode.channel.handshake`) carry
nothing but what the exchange needs: no name, no game, no table id::

    INIT     0x41  joiner id, host id, SPAKE2 message (33), cookie length (1),
                   the cookie (0 or `COOKIE` bytes), zeros up to the joiner's
                   datagram size (at least `MIN_INIT` bytes in all)
    RETRY    0x46  host id, joiner id, cookie (`COOKIE`), digest of the INIT (16)
    REPLY    0x42  host id, joiner id, SPAKE2 message (33), host's proof (16)
    CONFIRM  0x43  joiner id, host id, joiner's proof (16)
    BUSY     0x44  host id, joiner id, retry after in ms (2), digest of the INIT (16)
    ABORT    0x45  joiner id, host id, digest of the REPLY (16)

A host answers an INIT without a good cookie with a RETRY and nothing else
(see `netcode.channel.cookie`): the joiner repeats its INIT with the cookie,
which proves it receives at the address it sends from. An INIT is padded so
that nothing a host sends back to an unproven address (RETRY, REPLY or BUSY)
is ever larger than what it received.

Every other datagram is sealed under the keys of one pair of peers and one
direction::

    SEALED   0x4A  sender id (8), packet number (8), ciphertext and tag (16)

The 17 bytes in the clear are the AEAD's associated data; the nonce is four
zero bytes and the packet number, which never repeats under one key (a
connection closes before its packet numbers would wrap). The plaintext is
one msgpack array::

    [ack, ack_bits, ack_delay, kind, body]

``ack_delay`` is how long, in microseconds, the sender held the packet ``ack``
before this datagram acknowledged it (acks may wait a moment, to ride along
with something else or to cover several packets), so the round trip can be
measured without that wait.

``body`` depends on ``kind``: nil for ACK, HEARTBEAT and CLOSE; for DATA it is
``[units, unreliables]`` where a unit is ``[id, data]`` or, for a fragment,
``[id, data, index, count]``, and each unreliable is one bin. Application
payloads travel as msgpack bytes inside bins and are decoded only when
delivered (`decode_payload`), with their own limits.

Must not touch: connection state, sockets, clocks, the key exchange. Everything
here is a pure function of its arguments; a bad datagram raises `Dropped`
with a short reason and nothing else happens.
"""

from __future__ import annotations

import hashlib
import struct
from enum import IntEnum
from typing import Any, NamedTuple

import msgpack
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

VERSION = 4
# One packer for the process: packing is a single C call (no Python hooks), so
# reusing it is safe and much cheaper than building one per datagram.
_PACKER = msgpack.Packer()
#: Datagrams longer than this are dropped before anything is looked at.
MAX_DATAGRAM = 1400
MAX_UNITS_PER_DATAGRAM = 256
MAX_FRAGMENTS = 256
_ID_LIMIT = 1 << 63
#: ack delays are microseconds below this (a little over an hour)
ACK_DELAY_LIMIT = 1 << 32

# -- packet types (the first byte) ------------------------------------------------

INIT = VERSION << 4 | 0x1
REPLY = VERSION << 4 | 0x2
CONFIRM = VERSION << 4 | 0x3
BUSY = VERSION << 4 | 0x4
ABORT = VERSION << 4 | 0x5
RETRY = VERSION << 4 | 0x6
SEALED = VERSION << 4 | 0xA
HANDSHAKE_TYPES = frozenset({INIT, REPLY, CONFIRM, BUSY, ABORT, RETRY})

SPAKE_MESSAGE = 33  # SPAKE2 over Ed25519: a side byte and a 32-byte element
PROOF = 16  # a key confirmation
DIGEST = 16  # names an earlier datagram of the same attempt
COOKIE = 20  # a host's proof that it heard an INIT from an address (see `RETRY`)
#: The smallest INIT a host answers: larger than anything it answers with.
MIN_INIT = 200
_IDS = struct.Struct(">BQQ")  # type, first id, second id (or packet number)
HEADER = _IDS.size  # 17: what a sealed datagram shows in the clear
TAG = 16
_REPLY_SIZE = HEADER + SPAKE_MESSAGE + PROOF
_CONFIRM_SIZE = HEADER + PROOF
_BUSY_SIZE = HEADER + 2 + DIGEST
_ABORT_SIZE = HEADER + DIGEST
_RETRY_SIZE = HEADER + COOKIE + DIGEST
_COOKIE_AT = HEADER + SPAKE_MESSAGE  # an INIT's cookie length byte
#: The smallest well-formed sealed datagram (an empty array would not do).
MIN_SEALED = HEADER + 6 + TAG
_NONCE_PAD = bytes(4)


class Kind(IntEnum):
    ACK = 0  # acks only; never acked itself
    DATA = 1  # reliable units and/or unreliable payloads
    HEARTBEAT = 2  # proof of life that asks for an ack (round-trip samples)
    CLOSE = 3  # the sender is leaving


_KINDS = tuple(Kind)
_KIND_COUNT = len(_KINDS)


class Dropped(Exception):
    """A datagram or payload was refused; `reason` names the counter to bump."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Envelope(NamedTuple):
    """A sealed datagram, opened."""

    sender: int
    seq: int
    ack: int
    ack_bits: int
    ack_delay: int
    kind: Kind
    body: Any


def _check_id(value: int, what: str) -> None:
    if not 0 <= value < _ID_LIMIT:
        raise ValueError(f"{what} must be in [0, 2**63)")


def check_peer_id(peer_id: int) -> int:
    """Peer ids are non-negative ints below 2**63 (they fill 8 bytes of every header)."""
    if not isinstance(peer_id, int) or isinstance(peer_id, bool):
        raise TypeError("peer id must be an int")
    _check_id(peer_id, "peer id")
    return peer_id


def packet_type(data: bytes) -> int:
    """The type byte of a datagram of plausible size, or `Dropped`."""
    size = len(data)
    if size > MAX_DATAGRAM:
        raise Dropped("oversized")
    if size < HEADER:
        raise Dropped("truncated")
    kind = data[0]
    if kind != SEALED and kind not in HANDSHAKE_TYPES:
        raise Dropped("version" if kind >> 4 != VERSION else "malformed")
    return kind


def sender_of(data: bytes) -> int:
    """The sender id of a datagram whose type was checked (`packet_type`)."""
    return int.from_bytes(data[1:9], "big")


def digest(data: bytes) -> bytes:
    """A short name for a handshake datagram, echoed by the answer to it."""
    return hashlib.sha256(data).digest()[:DIGEST]


# -- handshake datagrams ------------------------------------------------------------


class HandshakePacket(NamedTuple):
    """A handshake datagram, split into its fields (those its type lacks are empty)."""

    type: int
    sender: int
    receiver: int
    message: bytes  # INIT, REPLY: the SPAKE2 message
    proof: bytes  # REPLY, CONFIRM: a key confirmation
    echo: bytes  # BUSY, ABORT, RETRY: the digest of the datagram answered
    retry_after: float  # BUSY: seconds
    cookie: bytes = b""  # INIT (empty when it has none), RETRY


def pack_init(joiner: int, host: int, message: bytes, size: int, cookie: bytes = b"") -> bytes:
    """An INIT, padded with zeros to `size` (at least `MIN_INIT`); `cookie`: the one
    a RETRY gave for this very INIT, or none."""
    if len(cookie) not in (0, COOKIE):
        raise ValueError(f"a cookie is {COOKIE} bytes")
    head = _IDS.pack(INIT, joiner, host) + message + bytes([len(cookie)]) + cookie
    return head + bytes(max(size, MIN_INIT) - len(head))


def pack_retry(host: int, joiner: int, cookie: bytes, init_digest: bytes) -> bytes:
    return _IDS.pack(RETRY, host, joiner) + cookie + init_digest


def pack_reply(host: int, joiner: int, message: bytes, proof: bytes) -> bytes:
    return _IDS.pack(REPLY, host, joiner) + message + proof


def pack_confirm(joiner: int, host: int, proof: bytes) -> bytes:
    return _IDS.pack(CONFIRM, joiner, host) + proof


def pack_busy(host: int, joiner: int, retry_after: float, init_digest: bytes) -> bytes:
    millis = min(max(round(retry_after * 1000), 1), 0xFFFF)
    return _IDS.pack(BUSY, host, joiner) + millis.to_bytes(2, "big") + init_digest


def pack_abort(joiner: int, host: int, reply_digest: bytes) -> bytes:
    return _IDS.pack(ABORT, joiner, host) + reply_digest


def open_handshake(data: bytes) -> HandshakePacket:
    """A handshake datagram's fields, or `Dropped` (sizes are exact, ids bounded)."""
    kind = packet_type(data)
    size = len(data)
    if kind == INIT:
        if size < MIN_INIT:
            raise Dropped("short_init")
    elif size != {REPLY: _REPLY_SIZE, CONFIRM: _CONFIRM_SIZE, BUSY: _BUSY_SIZE,
                  ABORT: _ABORT_SIZE, RETRY: _RETRY_SIZE}.get(kind):  # fmt: skip
        raise Dropped("malformed")
    _, sender, receiver = _IDS.unpack_from(data)
    if (sender | receiver) >= _ID_LIMIT:
        raise Dropped("malformed")
    rest = data[HEADER:]
    message = proof = echo = cookie = b""
    retry_after = 0.0
    if kind == INIT:
        message = rest[:SPAKE_MESSAGE]
        length = data[_COOKIE_AT]
        if length not in (0, COOKIE):
            raise Dropped("malformed")
        cookie = data[_COOKIE_AT + 1 : _COOKIE_AT + 1 + length]
    elif kind == REPLY:
        message, proof = rest[:SPAKE_MESSAGE], rest[SPAKE_MESSAGE:]
    elif kind == CONFIRM:
        proof = rest
    elif kind == BUSY:
        retry_after = int.from_bytes(rest[:2], "big") / 1000
        echo = rest[2:]
    elif kind == RETRY:
        cookie, echo = rest[:COOKIE], rest[COOKIE:]
    else:
        echo = rest
    return HandshakePacket(kind, sender, receiver, message, proof, echo, retry_after, cookie)


# -- sealed datagrams -----------------------------------------------------------------


class Sealer:
    """Seals what `sender` sends under one direction's key."""

    __slots__ = ("sender", "_aead")

    def __init__(self, key: bytes, sender: int) -> None:
        self.sender = sender
        self._aead = ChaCha20Poly1305(key)

    def seal(
        self, seq: int, ack: int, ack_bits: int, ack_delay: int, kind: int, body: Any
    ) -> bytes:
        """Encode, encrypt and authenticate one datagram; the result is the whole datagram."""
        header = _IDS.pack(SEALED, self.sender, seq)
        plain = _PACKER.pack([ack, ack_bits, ack_delay, kind, body])
        return header + self._aead.encrypt(_NONCE_PAD + header[9:], plain, header)


def header_overhead() -> int:
    """Worst-case bytes of a DATA datagram that are not units or unreliables."""
    # clear header(17) + tag(16) + array(1) ack/bits(2*9) ack_delay(5) kind(1)
    # + body array(1) + two list headers(2*3)
    return HEADER + TAG + 1 + 2 * 9 + 5 + 1 + 1 + 2 * 3


def unit_overhead(fragmented: bool) -> int:
    """Worst-case msgpack bytes around one unit's data."""
    return 1 + 9 + 3 + (6 if fragmented else 0)


#: Container limits for decoding a sealed datagram's plaintext (it is small anyway).
_ENVELOPE_LIMITS = {
    "max_bin_len": MAX_DATAGRAM,
    "max_str_len": 64,
    "max_array_len": MAX_UNITS_PER_DATAGRAM,
    "max_map_len": 0,
    "max_ext_len": 0,
}


class Decoder:
    """A strict msgpack decoder kept for reuse.

    A persistent ``msgpack.Unpacker`` with the limits set once decodes a small
    datagram about 2.5 times faster than ``msgpack.unpackb`` with the same
    limits passed on every call. Any failure, or bytes left over, throws the
    unpacker away, so one bad input cannot poison the next. Not thread-safe:
    give each endpoint its own.
    """

    __slots__ = ("_options", "_unpacker", "_consumed")

    def __init__(self, max_size: int, *, use_list: bool, **limits: int) -> None:
        self._options = dict(
            raw=False, strict_map_key=True, use_list=use_list, max_buffer_size=max_size, **limits
        )
        self._reset()

    def _reset(self) -> None:
        self._unpacker = msgpack.Unpacker(**self._options)
        self._consumed = 0

    def decode(self, data: bytes) -> Any:
        """One complete msgpack object from `data`, or ValueError."""
        unpacker = self._unpacker
        try:
            unpacker.feed(data)
            value = unpacker.unpack()
        except Exception as exc:
            self._reset()
            raise ValueError(f"undecodable: {exc!r}") from None
        self._consumed += len(data)
        if unpacker.tell() != self._consumed:
            self._reset()
            raise ValueError("bytes after the message")
        return value


def envelope_decoder() -> Decoder:
    return Decoder(MAX_DATAGRAM, use_list=False, **_ENVELOPE_LIMITS)


def payload_decoder(max_size: int, *, use_list: bool = True) -> Decoder:
    """A decoder of payloads up to ``max_size`` bytes. With ``use_list`` False, arrays come back
    as tuples, which are cheaper to make: for a check that only asks whether a payload decodes
    (a decoder with lists accepts and refuses exactly the same bytes)."""
    return Decoder(max_size, use_list=use_list, **_payload_limits(max_size))


def _payload_limits(max_size: int) -> dict[str, int]:
    return {
        "max_bin_len": max_size,
        "max_str_len": max_size,
        "max_array_len": max_size,
        "max_map_len": max_size // 2,
        "max_ext_len": 0,
    }


def sealed_seq(data: bytes) -> int:
    """The packet number of a sealed datagram of checked type (read before opening it,
    so a replay is refused without spending a decryption on it)."""
    return int.from_bytes(data[9:17], "big")


class Opener:
    """Checks, authenticates, decrypts and decodes what `sender` sealed for us."""

    __slots__ = ("sender", "_aead", "_decoder")

    def __init__(self, key: bytes, sender: int) -> None:
        self.sender = sender
        self._aead = ChaCha20Poly1305(key)
        self._decoder = envelope_decoder()

    def open(self, data: bytes) -> Envelope:
        """The envelope in `data`, or `Dropped` with the reason."""
        if packet_type(data) != SEALED:
            raise Dropped("malformed")
        if sender_of(data) != self.sender:
            raise Dropped("unknown_peer")
        return Envelope(self.sender, *self.open_fields(data))

    def authentic(self, data: bytes) -> bool:
        """Whether `data` was sealed under this key (nothing else is checked)."""
        try:
            self._aead.decrypt(_NONCE_PAD + data[9:HEADER], data[HEADER:], data[:HEADER])
        except InvalidTag:
            return False
        return True

    def open_fields(self, data: bytes) -> tuple[Any, ...]:
        """(seq, ack, ack_bits, ack_delay, kind, body) of a sealed datagram whose
        type and sender were checked (the receive hot path).

        Order matters: size first, then the tag over the raw bytes (decryption
        fails on any change to header or ciphertext), and only then msgpack
        decoding with strict limits and a full shape check.
        """
        if len(data) < MIN_SEALED:
            raise Dropped("truncated")
        header = data[:HEADER]
        try:
            plain = self._aead.decrypt(_NONCE_PAD + data[9:HEADER], data[HEADER:], header)
        except InvalidTag:
            raise Dropped("bad_tag") from None
        seq = int.from_bytes(data[9:HEADER], "big")
        try:
            ack, ack_bits, ack_delay, kind, body = self._decoder.decode(plain)
        except Exception as exc:  # any decoding failure is the sender's problem, not ours
            raise Dropped("malformed") from exc
        if not (type(ack) is type(ack_bits) is type(ack_delay) is type(kind) is int):
            raise Dropped("malformed")
        if not 0 <= ack_delay < ACK_DELAY_LIMIT:
            raise Dropped("malformed")
        # msgpack ints stop at 2**64, so these bounds are all that is left to check
        if (ack | ack_bits | kind) < 0 or (seq | ack) >= _ID_LIMIT:
            raise Dropped("malformed")
        if seq == 0 or kind >= _KIND_COUNT:
            raise Dropped("malformed")
        if kind == 1:  # Kind.DATA
            _check_data_body(body)
        elif body is not None:
            raise Dropped("malformed")
        return seq, ack, ack_bits, ack_delay, _KINDS[kind], body


def _check_data_body(body: Any) -> None:
    if type(body) is not tuple or len(body) != 2:
        raise Dropped("malformed")
    units, unreliables = body
    if type(units) is not tuple or type(unreliables) is not tuple:
        raise Dropped("malformed")
    if not units and not unreliables:
        raise Dropped("malformed")
    for unit in units:
        if type(unit) is not tuple:
            raise Dropped("malformed")
        n = len(unit)
        if n == 2:
            uid, chunk = unit
            if type(uid) is int and type(chunk) is bytes and 0 <= uid < _ID_LIMIT:
                continue
            raise Dropped("malformed")
        if n == 4:
            uid, chunk, index, count = unit
            if (
                type(index) is not int
                or type(count) is not int
                or not 2 <= count <= MAX_FRAGMENTS
                or not 0 <= index < count
            ):
                raise Dropped("malformed")
        else:
            raise Dropped("malformed")
        if type(uid) is not int or not 0 <= uid < _ID_LIMIT or type(chunk) is not bytes:
            raise Dropped("malformed")
    for item in unreliables:
        if type(item) is not bytes:
            raise Dropped("malformed")


def encode_payload(payload: Any) -> bytes:
    """Application payload to bytes; only plain msgpack data is accepted."""
    try:
        packed: bytes = _PACKER.pack(payload)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"payload is not plain msgpack data: {exc}") from exc
    return packed


def decode_payload(data: bytes, max_size: int, decoder: Decoder | None = None) -> Any:
    """Decode a delivered payload with limits, or raise `Dropped("bad_payload")`."""
    if len(data) > max_size:
        raise Dropped("bad_payload")
    try:
        if decoder is None:
            return msgpack.unpackb(
                data, raw=False, strict_map_key=True, **_payload_limits(max_size)
            )
        return decoder.decode(data)
    except Exception as exc:
        raise Dropped("bad_payload") from exc
