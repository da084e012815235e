"""The prime-order group every dealing proof lives in: ristretto255, through rbcl.

Owns: the ``Point`` type (a canonical 32-byte ristretto255 encoding, checked on the
way in), the group operations the protocols need (``mul``, ``base``, ``add``, ``sub``,
``neg``, ``sum_of``, ``lincomb``), scalars as Python ints modulo ``ORDER``, random
scalars, and hashing to scalars and to points with domain separation.

Every group operation is a call into libsodium's ristretto255 functions as rbcl
binds them (``crypto_scalarmult_ristretto255[_base]``,
``crypto_core_ristretto255_add/sub/from_hash/is_valid_point``): no field or point
formula is written here. Scalars are plain modular arithmetic on ints (ℓ is
prime), turned into 32 little-endian bytes for rbcl. ``lincomb`` is one plain loop
of ``mul`` and ``add``, kept in one place so that a faster multi-scalar
multiplication could replace it later without touching a protocol.

Encodings (RFC 9496, "The ristretto255 and decaf448 Groups", section 4.3):

* ``Point.decode`` accepts exactly the canonical encodings of group elements. The
  libsodium rbcl bundles (1.0.18) ignores bit 255 when it decodes, so an encoding
  with that bit set would alias a valid point: it is refused here explicitly.
* The identity (32 zero bytes) is refused by default. It is accepted only where a
  caller says it is legitimate (``allow_identity=True``): ciphertext components,
  decryption shares and the commitments inside proofs, all of which an honest
  party produces only with negligible probability but which a verifier must be
  able to read without crashing. Keys (personal keys, the joint key, Feldman
  commitments, public shares) are never the identity.
* rbcl's multiplications refuse to *return* the identity (libsodium signals it as
  an error); ``mul`` and ``base`` answer the identity themselves for a zero scalar
  or the identity point, the only ways a prime-order group yields it, so a
  legitimate identity never raises.

Hashing: SHA-512 over a domain label and typed, length-prefixed parts
(``frame``), so no two different inputs hash alike; ``hash_to_point`` feeds the
64-byte digest to ``crypto_core_ristretto255_from_hash`` (the RFC 9496 one-way
map, section 4.3.4), so nobody knows the discrete log of a hashed point.

It also removes the copy of libsodium that rbcl leaves in the temporary directory at
every import (see ``_remove_rbcls_copy_of_libsodium``).

Must not touch: sockets, clocks, games, or any curve arithmetic of its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence

import rbcl


def _remove_rbcls_copy_of_libsodium() -> None:
    """rbcl (1.1) writes its bundled libsodium to a new temporary file at every import
    and never removes it: 2.8 MB in the temporary directory per process. Once loaded,
    the file is not needed (POSIX keeps the mapping), so it goes. This reads rbcl's
    ``_sodium.lib_path``; if a later rbcl has no such file there, nothing happens."""
    module = sys.modules.get("rbcl._sodium")
    path = getattr(module, "lib_path", None)
    if os.name != "posix" or not isinstance(path, str):
        return
    if os.path.dirname(path) == tempfile.gettempdir() and path.endswith(".so"):
        with contextlib.suppress(OSError):
            os.unlink(path)


_remove_rbcls_copy_of_libsodium()

#: ℓ, the order of the ristretto255 group (a prime).
ORDER = 2**252 + 27742317777372353535851937790883648493

POINT_BYTES = 32
SCALAR_BYTES = 32

#: An injectable source of random scalars (tests script it; the default is os.urandom).
Rand = Callable[[], int]

_ZERO = bytes(POINT_BYTES)


class Point:
    """A ristretto255 group element: its canonical 32-byte encoding, immutable.

    Make one from peer bytes with ``Point.decode`` (which checks everything); the
    group operations below return points they made themselves.
    """

    __slots__ = ("_data",)
    _data: bytes

    def __init__(self) -> None:
        raise TypeError("make a Point with Point.decode(data) or a group operation")

    @classmethod
    def _trusted(cls, data: bytes) -> Point:
        point = object.__new__(cls)
        object.__setattr__(point, "_data", data)
        return point

    @classmethod
    def decode(cls, data: bytes, *, allow_identity: bool = False) -> Point:
        """The point ``data`` encodes; ``ValueError`` for anything but a canonical encoding.

        The identity is refused unless ``allow_identity`` (see the module docstring).
        """
        if not isinstance(data, bytes | bytearray | memoryview):
            raise ValueError("a point is 32 bytes")
        data = bytes(data)
        if len(data) != POINT_BYTES:
            raise ValueError(f"a point is {POINT_BYTES} bytes, not {len(data)}")
        if data == _ZERO:
            if allow_identity:
                return IDENTITY
            raise ValueError("the identity is not allowed here")
        if data[31] & 0x80 or not rbcl.crypto_core_ristretto255_is_valid_point(data):
            raise ValueError("not a canonical ristretto255 encoding")
        return cls._trusted(data)

    def encode(self) -> bytes:
        return self._data

    def __bytes__(self) -> bytes:
        return self._data

    @property
    def is_identity(self) -> bool:
        return self._data == _ZERO

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Point is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and other._data == self._data

    def __hash__(self) -> int:
        return hash(self._data)

    def __repr__(self) -> str:
        return f"Point({self._data.hex()[:16]}…)"

    def __reduce__(self) -> tuple[Callable[[bytes], Point], tuple[bytes]]:
        return (_decode_any, (self._data,))


def _decode_any(data: bytes) -> Point:
    return Point.decode(data, allow_identity=True)


IDENTITY = Point._trusted(_ZERO)
G = Point._trusted(rbcl.crypto_scalarmult_ristretto255_base((1).to_bytes(SCALAR_BYTES, "little")))


# ------------------------------------------------------------------ scalars
def scalar_bytes(k: int) -> bytes:
    """The canonical 32-byte little-endian form of ``k mod ℓ``."""
    return (k % ORDER).to_bytes(SCALAR_BYTES, "little")


def scalar_from_bytes(data: bytes) -> int:
    """A scalar from its 32-byte form; ``ValueError`` unless canonical (< ℓ)."""
    if len(data) != SCALAR_BYTES:
        raise ValueError(f"a scalar is {SCALAR_BYTES} bytes, not {len(data)}")
    k = int.from_bytes(data, "little")
    if k >= ORDER:
        raise ValueError("not a canonical scalar")
    return k


def random_scalar(rand: Rand | None = None) -> int:
    """A uniformly random nonzero scalar (64 bytes of os.urandom reduced mod ℓ)."""
    for _ in range(8):
        k = (rand() if rand is not None else int.from_bytes(os.urandom(64), "little")) % ORDER
        if k:
            return k
    raise ValueError("the scalar source keeps giving zero")


def inverse(k: int) -> int:
    """``k⁻¹ mod ℓ``; ``ValueError`` for zero."""
    if k % ORDER == 0:
        raise ValueError("zero has no inverse")
    return pow(k, -1, ORDER)


# ------------------------------------------------------------------- points
def base(k: int) -> Point:
    """``k·G`` (libsodium's fixed-base multiplication)."""
    k %= ORDER
    if k == 0:
        return IDENTITY
    return Point._trusted(
        rbcl.crypto_scalarmult_ristretto255_base(k.to_bytes(SCALAR_BYTES, "little"))
    )


def mul(point: Point, k: int) -> Point:
    """``k·P``. The identity for a zero scalar or the identity point, never an error."""
    k %= ORDER
    if k == 0 or point._data == _ZERO:
        return IDENTITY
    return Point._trusted(
        rbcl.crypto_scalarmult_ristretto255(k.to_bytes(SCALAR_BYTES, "little"), point._data)
    )


def add(p: Point, q: Point) -> Point:
    return Point._trusted(rbcl.crypto_core_ristretto255_add(p._data, q._data))


def sub(p: Point, q: Point) -> Point:
    return Point._trusted(rbcl.crypto_core_ristretto255_sub(p._data, q._data))


def neg(p: Point) -> Point:
    return sub(IDENTITY, p)


def sum_of(points: Iterable[Point]) -> Point:
    total = IDENTITY
    for point in points:
        total = add(total, point)
    return total


def lincomb(points: Sequence[Point], scalars: Sequence[int]) -> Point:
    """``Σ kᵢ·Pᵢ``: a plain loop of ``mul`` and ``add`` (the one place to speed up)."""
    if len(points) != len(scalars):
        raise ValueError("lincomb needs as many scalars as points")
    total = IDENTITY
    for point, k in zip(points, scalars, strict=True):
        total = add(total, mul(point, k))
    return total


# ------------------------------------------------------------------ hashing
Part = bytes | str | int | Point


def frame(*parts: Part) -> bytes:
    """An injective encoding of typed parts: a type byte, an 8-byte length, the bytes.

    Ints must be non-negative (big-endian, shortest form); points are their encoding.
    """
    out = bytearray()
    for part in parts:
        if isinstance(part, Point):
            tag, data = b"P", part.encode()
        elif isinstance(part, bytes | bytearray):
            tag, data = b"B", bytes(part)
        elif isinstance(part, str):
            tag, data = b"S", part.encode("utf-8")
        elif isinstance(part, int) and not isinstance(part, bool):
            if part < 0:
                raise ValueError("only non-negative ints can be hashed")
            tag, data = b"I", part.to_bytes((part.bit_length() + 7) // 8 or 1, "big")
        else:
            raise TypeError(f"cannot hash a {type(part).__name__}")
        out += tag + len(data).to_bytes(8, "big") + data
    return bytes(out)


def _digest(label: str, parts: Sequence[Part]) -> bytes:
    return hashlib.sha512(frame("xmas-tui/dealing", label, *parts)).digest()


def hash_to_scalar(label: str, *parts: Part) -> int:
    """A scalar from SHA-512 over the label and parts, reduced mod ℓ (bias < 2⁻²⁵⁹)."""
    return int.from_bytes(_digest(label, parts), "little") % ORDER


def hash_to_point(label: str, *parts: Part) -> Point:
    """A point nobody knows the discrete log of: ``from_hash`` of a 64-byte SHA-512."""
    return Point._trusted(rbcl.crypto_core_ristretto255_from_hash(_digest(label, parts)))


# -------------------------------------------------------------- wire forms
class WireReader:
    """Reads the fixed-size fields of one message in order, strictly: the message must be
    exactly ``size`` bytes, every point canonical, every holder index at least 1."""

    __slots__ = ("_data", "_at")

    def __init__(self, data: bytes, size: int, what: str) -> None:
        if len(data) != size:
            raise ValueError(f"{what} is {size} bytes, not {len(data)}")
        self._data = bytes(data)
        self._at = 0

    def take(self, n: int) -> bytes:
        chunk = self._data[self._at : self._at + n]
        self._at += n
        return chunk

    def index(self) -> int:
        """A holder index (two bytes, big-endian, from 1)."""
        value = int.from_bytes(self.take(2), "big")
        if value < 1:
            raise ValueError("holder indices start at 1")
        return value

    def point(self, *, allow_identity: bool = False) -> Point:
        return Point.decode(self.take(POINT_BYTES), allow_identity=allow_identity)

    def points(self, n: int, *, allow_identity: bool = False) -> tuple[Point, ...]:
        return tuple(self.point(allow_identity=allow_identity) for _ in range(n))


def index_bytes(holder: int) -> bytes:
    return holder.to_bytes(2, "big")
