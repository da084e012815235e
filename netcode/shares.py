"""The host's secret split among the seats, so that a new host can take over.

Owns: splitting the host's 32-byte secret into ``n`` shares of which any ``k``
rebuild it and fewer tell nothing (Shamir's threshold scheme, as PyCryptodome
implements it: its ``Shamir`` shares 16-byte secrets, so each half of ours is
shared alike and a share carries one piece of each), rebuilding it from
shares, and checking a rebuilt secret against the commitment the host
published before the deal, so a wrong share is caught, not used.

``threshold(n)`` is the ``k`` a table uses: never less than 2, so no single
peer can open the secret (and see every hidden face) on its own.

Must not touch: sockets, clocks, games. No arithmetic of our own: the
polynomials are PyCryptodome's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from Crypto.Protocol.SecretSharing import Shamir

from netcode.fairplay import SECRET_BYTES, seed_commitment

HALF = SECRET_BYTES // 2


@dataclass(frozen=True)
class Share:
    """One seat's share of the host's secret: its index (1…n) and a piece of each half."""

    index: int
    pieces: tuple[bytes, bytes]

    def to_wire(self) -> list:
        return [self.index, self.pieces[0], self.pieces[1]]

    @classmethod
    def from_wire(cls, raw: Sequence) -> Share:
        index, first, second = raw
        if not (isinstance(index, int) and 1 <= index <= 255 and isinstance(first, bytes)
                and isinstance(second, bytes) and len(first) == len(second) == HALF):
            raise ValueError("not a share")
        return cls(index, (first, second))


def threshold(holders: int) -> int:
    """How many shares rebuild the secret at a table whose secret ``holders`` seats share."""
    return max(2, holders // 2 + 1) if holders > 2 else 2


def split(secret: bytes, holders: int) -> list[Share]:
    """``holders`` shares of ``secret``; any ``threshold(holders)`` rebuild it (needs two or more holders)."""
    if len(secret) != SECRET_BYTES or holders < 2:
        raise ValueError("a 32-byte secret is shared among two or more seats")
    k = threshold(holders)
    halves = [Shamir.split(k, holders, secret[i : i + HALF]) for i in (0, HALF)]
    return [Share(index, (first, second)) for (index, first), (_, second) in zip(*halves, strict=True)]


def combine(shares: Sequence[Share]) -> bytes:
    """The secret these shares make (garbage if they are too few or not of one secret)."""
    first = Shamir.combine([(s.index, s.pieces[0]) for s in shares])
    second = Shamir.combine([(s.index, s.pieces[1]) for s in shares])
    return first + second


def rebuild(shares: Sequence[Share], table_id: bytes, commitment: bytes, holders: int) -> bytes | None:
    """The host's secret from ``shares``, checked against its published commitment; None if
    no set of ``threshold(holders)`` of them rebuilds it (too few, or wrong ones sent)."""
    unique = list({share.index: share for share in shares}.values())
    k = threshold(holders)
    for chosen in combinations(unique, k):
        secret = combine(chosen)
        if seed_commitment(table_id, secret) == commitment:
            return secret
    return None
