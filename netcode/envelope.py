"""The wire envelope: one msgpack array per datagram, sealed with a MAC.

Owns: the datagram layout, the table key derivation, the MAC, the intake
limits and the strict decoding of everything an envelope may carry.

Layout (a msgpack fixarray of 10)::

    [version, table_id, sender, seq, ack, ack_bits, ack_delay, kind, body, mac]

``ack_delay`` is how long, in microseconds, the sender held the packet ``ack``
before this datagram acknowledged it (acks may wait a moment, to ride along
with something else or to cover several packets), so the round trip can be
measured without that wait.

``mac`` is the last element, always a 16-byte bin, so it sits in the last 18
bytes of the datagram and is checked before a single byte is decoded. It is a
keyed BLAKE2b over everything before it, personalised with the receiver's id,
so a datagram sent to one seat cannot be replayed to another.

``body`` depends on ``kind``: nil for ACK, HEARTBEAT and CLOSE; for DATA it is
``[units, unreliables]`` where a unit is ``[id, data]`` or, for a fragment,
``[id, data, index, count]``, and each unreliable is one bin. Application
payloads travel as msgpack bytes inside bins and are decoded only when
delivered (`decode_payload`), with their own limits.

Must not touch: connection state, sockets, clocks. Everything here is a pure
function of its arguments; a bad datagram raises `Dropped` with a short reason
and nothing else happens.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from enum import IntEnum
from functools import lru_cache
from typing import Any, NamedTuple

import msgpack

VERSION = 2
# One packer for the process: packing is a single C call (no Python hooks), so
# reusing it is safe and much cheaper than building one per datagram.
_PACKER = msgpack.Packer()
MAC_SIZE = 16
#: msgpack header of a 16-byte bin: the MAC trailer starts with these two bytes.
MAC_HEADER = b"\xc4\x10"
TRAILER_SIZE = len(MAC_HEADER) + MAC_SIZE
#: Datagrams longer than this are dropped before anything is looked at.
MAX_DATAGRAM = 1400
#: The smallest well-formed envelope (all fields one byte, empty table id).
MIN_DATAGRAM = 9 + TRAILER_SIZE
MAX_TABLE_ID = 32
MAX_UNITS_PER_DATAGRAM = 256
MAX_FRAGMENTS = 256
_ID_LIMIT = 1 << 63
#: ack delays are microseconds below this (a little over an hour)
ACK_DELAY_LIMIT = 1 << 32
_ACK_BITS = 64
_ACK_MASK = (1 << _ACK_BITS) - 1


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
    version: int
    table_id: bytes
    sender: int
    seq: int
    ack: int
    ack_bits: int
    ack_delay: int
    kind: Kind
    body: Any


def _normalise_code(join_code: str) -> bytes:
    return unicodedata.normalize("NFKC", join_code).strip().upper().encode("utf-8")


@lru_cache(maxsize=64)
def table_key(join_code: str, table_id: bytes) -> bytes:
    """The 32-byte key every datagram of a table is MACed with.

    scrypt over the join code (trimmed, NFKC, case-insensitive) salted with the
    table id, so a code only opens the table it was made for. Deliberately
    slow (tens of milliseconds), and cached per (code, table) in-process.
    """
    if not isinstance(table_id, bytes) or len(table_id) > MAX_TABLE_ID:
        raise ValueError(f"table id must be at most {MAX_TABLE_ID} bytes")
    return hashlib.scrypt(
        _normalise_code(join_code),
        salt=b"xmas-tui table key v1:" + table_id,
        n=1 << 14,
        r=8,
        p=1,
        dklen=32,
    )


@lru_cache(maxsize=256)
def _mac_template(key: bytes, receiver: int) -> Any:
    """A keyed BLAKE2b state for (key, receiver), copied for each datagram."""
    return hashlib.blake2b(key=key, digest_size=MAC_SIZE, person=receiver.to_bytes(8, "little"))


def _check_id(value: int, what: str) -> None:
    if not 0 <= value < _ID_LIMIT:
        raise ValueError(f"{what} must be in [0, 2**63)")


def check_peer_id(peer_id: int) -> int:
    """Peer ids are non-negative ints below 2**63 (they personalise the MAC)."""
    if not isinstance(peer_id, int) or isinstance(peer_id, bool):
        raise TypeError("peer id must be an int")
    _check_id(peer_id, "peer id")
    return peer_id


class Sealer:
    """Seals envelopes from `sender` to `receiver` (the MAC key state is set up once)."""

    __slots__ = ("table_id", "sender", "_template")

    def __init__(self, key: bytes, receiver: int, table_id: bytes, sender: int) -> None:
        self.table_id = table_id
        self.sender = sender
        self._template = _mac_template(key, receiver)

    def seal(self, seq: int, ack: int, ack_bits: int, ack_delay: int, kind: int, body: Any) -> bytes:
        """Encode and MAC one envelope; the result is the whole datagram."""
        # Packed with a nil where the MAC goes; the nil (the last byte) gives
        # way to the MAC's bin, so the array header already says 10 elements.
        packed = _PACKER.pack(
            [VERSION, self.table_id, self.sender, seq, ack, ack_bits, ack_delay, kind, body, None]
        )
        content = memoryview(packed)[:-1]
        state = self._template.copy()
        state.update(content)
        return b"".join((content, MAC_HEADER, state.digest()))


def seal(
    key: bytes,
    receiver: int,
    table_id: bytes,
    sender: int,
    seq: int,
    ack: int,
    ack_bits: int,
    kind: int,
    body: Any,
    ack_delay: int = 0,
) -> bytes:
    """Encode and MAC one envelope (see `Sealer` for the reusable form)."""
    return Sealer(key, receiver, table_id, sender).seal(seq, ack, ack_bits, ack_delay, kind, body)


def header_overhead(table_id: bytes) -> int:
    """Worst-case bytes of a DATA envelope that are not units or unreliables."""
    # array(1) version(1) table_id(2+n) sender/seq/ack/bits(4*9) ack_delay(5)
    # kind(1) body array(1) + two list headers(2*3) + mac trailer(18)
    return 1 + 1 + 2 + len(table_id) + 4 * 9 + 5 + 1 + 1 + 2 * 3 + TRAILER_SIZE


def unit_overhead(fragmented: bool) -> int:
    """Worst-case msgpack bytes around one unit's data."""
    return 1 + 9 + 3 + (6 if fragmented else 0)


#: Container limits for decoding an envelope (the datagram is small anyway).
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


def payload_decoder(max_size: int) -> Decoder:
    return Decoder(max_size, use_list=True, **_payload_limits(max_size))


def _payload_limits(max_size: int) -> dict[str, int]:
    return {
        "max_bin_len": max_size,
        "max_str_len": max_size,
        "max_array_len": max_size,
        "max_map_len": max_size // 2,
        "max_ext_len": 0,
    }


class Opener:
    """Checks, authenticates and decodes datagrams addressed to `receiver`."""

    __slots__ = ("table_id", "_template", "_decoder")

    def __init__(self, key: bytes, receiver: int, table_id: bytes) -> None:
        self.table_id = table_id
        self._template = _mac_template(key, receiver)
        self._decoder = envelope_decoder()

    def open(self, data: bytes) -> Envelope:
        """The envelope in `data`, or `Dropped` with the reason."""
        return Envelope(*self.open_fields(data))

    def open_fields(self, data: bytes) -> tuple:
        """`open`, as a plain tuple in `Envelope` order (the receive hot path).

        Order matters: size first, then the MAC over the raw bytes, and only
        then msgpack decoding with strict limits and a full shape check.
        """
        size = len(data)
        if size > MAX_DATAGRAM:
            raise Dropped("oversized")
        if size < MIN_DATAGRAM:
            raise Dropped("truncated")
        if data[-TRAILER_SIZE] != 0xC4 or data[-TRAILER_SIZE + 1] != MAC_SIZE:
            raise Dropped("no_mac")
        state = self._template.copy()
        state.update(memoryview(data)[:-TRAILER_SIZE])
        if not hmac.compare_digest(state.digest(), data[-MAC_SIZE:]):
            raise Dropped("bad_mac")
        try:
            version, tid, sender, seq, ack, ack_bits, ack_delay, kind, body, _ = self._decoder.decode(data)
        except Exception as exc:  # any decoding failure is the sender's problem, not ours
            raise Dropped("malformed") from exc
        if tid != self.table_id:
            raise Dropped("wrong_table")
        if version != VERSION or type(version) is not int:
            raise Dropped("version")
        if not (type(sender) is type(seq) is type(ack) is type(ack_bits) is type(ack_delay) is type(kind) is int):
            raise Dropped("malformed")
        if not 0 <= ack_delay < ACK_DELAY_LIMIT:
            raise Dropped("malformed")
        # msgpack ints stop at 2**64, so these bounds are all that is left to check
        if (sender | seq | ack | ack_bits | kind) < 0 or (sender | seq | ack) >= _ID_LIMIT:
            raise Dropped("malformed")
        if seq == 0 or kind >= _KIND_COUNT:
            raise Dropped("malformed")
        if kind == 1:  # Kind.DATA
            _check_data_body(body)
        elif body is not None:
            raise Dropped("malformed")
        return version, tid, sender, seq, ack, ack_bits, ack_delay, _KINDS[kind], body


def open_datagram(data: bytes, key: bytes, receiver: int, table_id: bytes) -> Envelope:
    """Check, authenticate and decode one datagram, or raise `Dropped`
    (see `Opener` for the reusable form)."""
    return Opener(key, receiver, table_id).open(data)


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
        return _PACKER.pack(payload)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"payload is not plain msgpack data: {exc}") from exc


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
