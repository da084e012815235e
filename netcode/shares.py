"""The host's secret split among the seats, so that a new host can take over.

Owns: splitting the host's 32-byte secret into ``n`` shares of which any ``k``
rebuild it and fewer tell nothing, with commitments that let anyone check one
share on its own (Feldman's verifiable secret sharing: P. Feldman, "A
Practical Scheme for Non-interactive Verifiable Secret Sharing", FOCS '87),
checking a share against them, and rebuilding the secret from good shares.

What is shared is a fresh random scalar ``x`` of the ristretto255 group; the secret
itself travels sealed under a key derived from ``x`` (HKDF-SHA256), and the sealed
bytes are public at the table. The host draws ``f(z) = x + a_1·z + … + a_{k−1}·z^{k−1}``,
gives seat ``i`` the share ``f(i)`` and publishes ``A_j = a_j·G`` (``A_0 = x·G``). A
share ``(i, y)`` is good when ``y·G = Σ_j i^j·A_j``: a peer that sends a forged share
is caught the moment its share arrives, and named, rather than spoiling the rebuild.
``A_0`` tells nothing useful about ``x`` (a discrete logarithm in a 252-bit group).

``threshold(n)`` is the ``k`` a table uses: never less than 2, so no single
peer can open the secret (and see every hidden face) on its own.

Must not touch: sockets, clocks, games. The group arithmetic is libsodium's,
through ``netcode.dealing.group``; this module only evaluates polynomials.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from netcode.dealing.group import (
    ORDER,
    POINT_BYTES,
    Point,
    Rand,
    base,
    random_scalar,
    scalar_bytes,
    scalar_from_bytes,
)
from netcode.dealing.keys import expected_share_point, lagrange_at_zero
from netcode.fairplay import SECRET_BYTES, seed_commitment

#: the largest number of shares (a seat's index is at most this)
MAX_INDEX = 255


@dataclass(frozen=True)
class Share:
    """One seat's share of the host's secret: its index (1…n) and the polynomial's value there."""

    index: int
    value: int

    def to_wire(self) -> list[Any]:
        return [self.index, scalar_bytes(self.value)]

    @classmethod
    def from_wire(cls, raw: Sequence[Any]) -> Share:
        """A share as a peer sent it; ``ValueError`` unless it is well formed."""
        if not (isinstance(raw, (list, tuple)) and len(raw) == 2):
            raise ValueError("not a share")
        index, value = raw
        if not (type(index) is int and 1 <= index <= MAX_INDEX and isinstance(value, bytes)):
            raise ValueError("not a share")
        return cls(index, scalar_from_bytes(value))


@dataclass(frozen=True)
class Commitments:
    """The public part of one split, published to every peer: the secret sealed under the
    shared scalar, and the Feldman commitments ``A_0 … A_{k−1}``."""

    sealed: bytes
    points: tuple[Point, ...]

    @property
    def threshold(self) -> int:
        return len(self.points)

    def to_wire(self) -> list[bytes]:
        return [self.sealed, *(p.encode() for p in self.points)]

    @classmethod
    def from_wire(cls, raw: Sequence[Any]) -> Commitments:
        """Commitments as a peer sent them; ``ValueError`` unless each is a group element."""
        if not (isinstance(raw, (list, tuple)) and 3 <= len(raw) <= MAX_INDEX):
            raise ValueError("not a share's commitments")
        if not all(isinstance(p, bytes) and len(p) == POINT_BYTES for p in raw):
            raise ValueError("not a share's commitments")
        return cls(raw[0], tuple(Point.decode(p, allow_identity=True) for p in raw[1:]))

    def checks(self, share: Share) -> bool:
        """Whether ``share`` is a value of the committed polynomial (a forged one is not)."""
        return base(share.value) == expected_share_point(list(self.points), share.index)


def threshold(holders: int) -> int:
    """How many shares rebuild the secret at a table whose secret ``holders`` seats share."""
    return max(2, holders // 2 + 1) if holders > 2 else 2


def split(secret: bytes, holders: int, rand: Rand | None = None) -> tuple[list[Share], Commitments]:
    """``holders`` shares of ``secret`` (32 bytes) and the split's public part; any
    ``threshold(holders)`` rebuild it (needs two or more holders)."""
    if len(secret) != SECRET_BYTES or not 2 <= holders <= MAX_INDEX:
        raise ValueError("a 32-byte secret is shared among two or more seats")
    coefficients = [random_scalar(rand) for _ in range(threshold(holders))]
    shares = [Share(i, _evaluate(coefficients, i)) for i in range(1, holders + 1)]
    sealed = bytes(a ^ b for a, b in zip(secret, _pad(coefficients[0]), strict=True))
    return shares, Commitments(sealed, tuple(base(a) for a in coefficients))


def _pad(x: int) -> bytes:
    """The key the secret is sealed with, from the shared scalar (a one-time pad: each split
    draws a fresh scalar)."""
    return HKDF(algorithm=hashes.SHA256(), length=SECRET_BYTES, salt=None,
                info=b"xmas-tui: the host's secret, sealed under its shared scalar").derive(scalar_bytes(x))


def _evaluate(coefficients: Sequence[int], z: int) -> int:
    value = 0
    for a in reversed(coefficients):
        value = (value * z + a) % ORDER
    return value


def combine(shares: Sequence[Share], sealed: bytes) -> bytes:
    """The secret these shares open (garbage if they are too few or not of one split)."""
    indices = [s.index for s in shares]
    if len(set(indices)) != len(indices):
        raise ValueError("two shares with one index")
    x = sum(lam * s.value for lam, s in zip(lagrange_at_zero(indices), shares, strict=True)) % ORDER
    return bytes(a ^ b for a, b in zip(sealed, _pad(x), strict=True))


def rebuild(shares: Sequence[Share], commitments: Commitments, table_id: bytes, commitment: bytes) -> bytes | None:
    """The host's secret from ``shares`` that pass their check, confirmed against the seed
    commitment it published before the deal; None if too few good ones came."""
    good = list({s.index: s for s in shares if commitments.checks(s)}.values())
    if len(good) < commitments.threshold:
        return None
    secret = combine(good[: commitments.threshold], commitments.sealed)
    return secret if seed_commitment(table_id, secret) == commitment else None
