"""Sigma-protocol proofs made non-interactive with a context-bound transcript.

Owns three proofs of knowledge, each with ``prove`` (a classmethod), ``verify``
(returns a bool, never raises on a wrong proof), and a compact wire form (the
challenge and the responses, strictly decoded: every scalar canonical):

* ``SchnorrProof``: knowledge of ``x`` with ``X = x·G`` (C. P. Schnorr, "Efficient
  Signature Generation by Smart Cards", J. Cryptology 4(3), 1991). Used for the
  personal keys and for the constant term of each Feldman polynomial (the defence
  against rogue keys, as in round 1 of FROST's key generation: Komlo and Goldberg,
  "FROST: Flexible Round-Optimized Schnorr Threshold Signatures", SAC 2020, Fig. 1).
  64 bytes.
* ``DleqProof``: equality of discrete logs, ``X = x·G`` and ``Y = x·H`` (D. Chaum and
  T. P. Pedersen, "Wallet Databases with Observers", CRYPTO '92, section 3.2). Used
  for decryption shares, beacon shares and DKG complaints. 64 bytes.
* ``RecipientShareProof``: knowledge of ``x, k`` with ``X = x·G``, ``R = k·G`` and
  ``E = x·C + k·P``: the proof that a share opened to one seat (an ElGamal encryption
  of ``x·C`` under that seat's key ``P``) is right, checkable by everyone. It is the
  standard Sigma protocol for the preimage of a group homomorphism (U. Maurer,
  "Unifying Zero-Knowledge Proofs of Knowledge", AFRICACRYPT 2009, section 4). 96 bytes.

The compact form sends ``(c, z…)``; the verifier recomputes the prover's commitments
from them and accepts when the challenge hashed over those equals ``c``, which is
equivalent to sending the commitments. Each proof absorbs its own name and its whole
statement into a copy of the caller's transcript, so the caller's transcript is left
as it was and a proof of one kind never passes as another.

Must not touch: sockets, clocks, games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Self

from .group import (
    ORDER,
    SCALAR_BYTES,
    G,
    Point,
    Rand,
    add,
    base,
    mul,
    random_scalar,
    scalar_bytes,
    scalar_from_bytes,
    sub,
)
from .transcript import Transcript


class Blame(ValueError):
    """A check failed and one party is at fault: ``culprit`` is its holder index (1…n)."""

    def __init__(self, culprit: int, reason: str) -> None:
        super().__init__(f"holder {culprit}: {reason}")
        self.culprit = culprit
        self.reason = reason


def scalars_to_wire(*scalars: int) -> bytes:
    return b"".join(scalar_bytes(k) for k in scalars)


def scalars_from_wire(data: bytes, count: int) -> list[int]:
    """``count`` canonical scalars; ``ValueError`` on a wrong length or a scalar ≥ ℓ."""
    if len(data) != count * SCALAR_BYTES:
        raise ValueError(f"expected {count * SCALAR_BYTES} bytes, got {len(data)}")
    return [
        scalar_from_bytes(data[i : i + SCALAR_BYTES]) for i in range(0, len(data), SCALAR_BYTES)
    ]


class _Scalars:
    """What every proof shares: its scalars kept reduced, and its wire form (them in order)."""

    __slots__ = ()
    FIELDS: ClassVar[tuple[str, ...]]

    def __post_init__(self) -> None:
        for name in self.FIELDS:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} must be an int")
            object.__setattr__(self, name, value % ORDER)

    def to_wire(self) -> bytes:
        return scalars_to_wire(*(getattr(self, name) for name in self.FIELDS))

    @classmethod
    def from_wire(cls, data: bytes) -> Self:
        """The proof ``data`` encodes; ``ValueError`` unless every scalar is canonical."""
        return cls(*scalars_from_wire(data, len(cls.FIELDS)))


@dataclass(frozen=True, slots=True)
class SchnorrProof(_Scalars):
    """Knowledge of ``x`` with ``X = x·G``."""

    challenge: int
    response: int

    FIELDS: ClassVar[tuple[str, ...]] = ("challenge", "response")
    WIRE_BYTES: ClassVar[int] = 2 * SCALAR_BYTES

    @staticmethod
    def _challenge(transcript: Transcript, public: Point, commitment: Point) -> int:
        t = transcript.copy()
        t.absorb("schnorr", G, public)
        t.absorb("schnorr-commitment", commitment)
        return t.challenge("schnorr-challenge")

    @classmethod
    def prove(
        cls, secret: int, public: Point, transcript: Transcript, rand: Rand | None = None
    ) -> SchnorrProof:
        w = random_scalar(rand)
        c = cls._challenge(transcript, public, base(w))
        return cls(c, w + c * secret)

    def verify(self, public: Point, transcript: Transcript) -> bool:
        commitment = sub(base(self.response), mul(public, self.challenge))
        return self._challenge(transcript, public, commitment) == self.challenge


@dataclass(frozen=True, slots=True)
class DleqProof(_Scalars):
    """Equal discrete logs: ``X = x·G`` and ``Y = x·H`` (Chaum–Pedersen)."""

    challenge: int
    response: int

    FIELDS: ClassVar[tuple[str, ...]] = ("challenge", "response")
    WIRE_BYTES: ClassVar[int] = 2 * SCALAR_BYTES

    @staticmethod
    def _challenge(
        transcript: Transcript, x_point: Point, h: Point, y_point: Point, a: Point, b: Point
    ) -> int:
        t = transcript.copy()
        t.absorb("dleq", G, x_point, h, y_point)
        t.absorb("dleq-commitment", a, b)
        return t.challenge("dleq-challenge")

    @classmethod
    def prove(
        cls,
        secret: int,
        x_point: Point,
        h: Point,
        y_point: Point,
        transcript: Transcript,
        rand: Rand | None = None,
    ) -> DleqProof:
        w = random_scalar(rand)
        c = cls._challenge(transcript, x_point, h, y_point, base(w), mul(h, w))
        return cls(c, w + c * secret)

    def verify(self, x_point: Point, h: Point, y_point: Point, transcript: Transcript) -> bool:
        c, z = self.challenge, self.response
        a = sub(base(z), mul(x_point, c))
        b = sub(mul(h, z), mul(y_point, c))
        return self._challenge(transcript, x_point, h, y_point, a, b) == c


@dataclass(frozen=True, slots=True)
class RecipientShareProof(_Scalars):
    """Knowledge of ``x, k`` with ``X = x·G``, ``R = k·G``, ``E = x·C + k·P``."""

    challenge: int
    response_x: int
    response_k: int

    FIELDS: ClassVar[tuple[str, ...]] = ("challenge", "response_x", "response_k")
    WIRE_BYTES: ClassVar[int] = 3 * SCALAR_BYTES

    @staticmethod
    def _challenge(
        transcript: Transcript,
        statement: tuple[Point, Point, Point, Point, Point],
        commitments: tuple[Point, Point, Point],
    ) -> int:
        t = transcript.copy()
        t.absorb("recipient-share", G, *statement)
        t.absorb("recipient-share-commitment", *commitments)
        return t.challenge("recipient-share-challenge")

    @classmethod
    def prove(
        cls,
        x: int,
        k: int,
        statement: tuple[Point, Point, Point, Point, Point],
        transcript: Transcript,
        rand: Rand | None = None,
    ) -> RecipientShareProof:
        """``statement`` is ``(X, R, C, P, E)``."""
        _x_point, _r_point, c_point, p_point, _e_point = statement
        wx, wk = random_scalar(rand), random_scalar(rand)
        commitments = (base(wx), base(wk), add(mul(c_point, wx), mul(p_point, wk)))
        c = cls._challenge(transcript, statement, commitments)
        return cls(c, wx + c * x, wk + c * k)

    def verify(
        self, statement: tuple[Point, Point, Point, Point, Point], transcript: Transcript
    ) -> bool:
        x_point, r_point, c_point, p_point, e_point = statement
        c, zx, zk = self.challenge, self.response_x, self.response_k
        commitments = (
            sub(base(zx), mul(x_point, c)),
            sub(base(zk), mul(r_point, c)),
            sub(add(mul(c_point, zx), mul(p_point, zk)), mul(e_point, c)),
        )
        return self._challenge(transcript, statement, commitments) == c
