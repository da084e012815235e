"""ElGamal ciphertexts over ristretto255, in additive notation: what a hidden card is.

Owns: ``Ciphertext(c1, c2)`` with ``c1 = r·G`` and ``c2 = M + r·PK`` (T. ElGamal, "A
Public Key Cryptosystem and a Signature Scheme Based on Discrete Logarithms", IEEE
Trans. IT 31(4), 1985), encryption, re-encryption (adding an encryption of the
identity, which changes the ciphertext and keeps the plaintext), decryption with a
whole secret (for tests and a one-player table), and the 64-byte wire form of one
ciphertext and of a deck.

Either component may be the identity on the wire (see ``group``): an honest party
makes that only with negligible probability, and it is not a key.

Must not touch: sockets, clocks, games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .group import POINT_BYTES, Point, WireReader, add, base, mul, sub

CIPHERTEXT_BYTES = 2 * POINT_BYTES


@dataclass(frozen=True, slots=True)
class Ciphertext:
    """An ElGamal ciphertext: ``c1 = r·G``, ``c2 = M + r·PK``."""

    c1: Point
    c2: Point

    def to_wire(self) -> bytes:
        return self.c1.encode() + self.c2.encode()

    @classmethod
    def from_wire(cls, data: bytes) -> Ciphertext:
        """The ciphertext ``data`` encodes; ``ValueError`` unless 64 canonical bytes."""
        read = WireReader(data, CIPHERTEXT_BYTES, "a ciphertext")
        return cls(read.point(allow_identity=True), read.point(allow_identity=True))


def encrypt(pk: Point, message: Point, r: int) -> Ciphertext:
    return Ciphertext(base(r), add(message, mul(pk, r)))


def reencrypt(pk: Point, ct: Ciphertext, r: int) -> Ciphertext:
    return Ciphertext(add(ct.c1, base(r)), add(ct.c2, mul(pk, r)))


def decrypt(secret: int, ct: Ciphertext) -> Point:
    """``c2 − x·c1`` with the whole secret ``x`` (only where one holder holds it all)."""
    return sub(ct.c2, mul(ct.c1, secret))


def deck_to_wire(cts: Sequence[Ciphertext]) -> bytes:
    return b"".join(ct.to_wire() for ct in cts)


def deck_from_wire(data: bytes, *, max_cards: int = 4096) -> list[Ciphertext]:
    """A deck of ciphertexts; ``ValueError`` on a ragged length, too many, or a bad point."""
    if len(data) % CIPHERTEXT_BYTES:
        raise ValueError("a deck is a whole number of 64-byte ciphertexts")
    count = len(data) // CIPHERTEXT_BYTES
    if count > max_cards:
        raise ValueError(f"a deck of {count} cards is more than {max_cards}")
    return [
        Ciphertext.from_wire(data[i : i + CIPHERTEXT_BYTES])
        for i in range(0, len(data), CIPHERTEXT_BYTES)
    ]
