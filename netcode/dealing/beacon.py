"""Public randomness that nobody can bias and fewer than t holders cannot predict.

Owns the beacon: value k of a table is ``SHA-256(domain, table, k, x·H_k)`` where
``H_k = hash_to_point(table, "beacon", k)`` and ``x`` is the joint secret. Holder j
publishes ``B_j = x_j·H_k`` with a Chaum–Pedersen proof that ``log_G X_j = log_{H_k}
B_j``; any t valid shares give ``x·H_k`` by Lagrange interpolation in the exponent.

This is the Diffie–Hellman threshold coin of C. Cachin, K. Kursawe and V. Shoup,
"Random Oracles in Constantinople: Practical Asynchronous Byzantine Agreement Using
Cryptography" (PODC 2000; J. Cryptology 18(3), 2005, section 4). The value is unique:
every set of t valid shares gives the same one, so withholding a share cannot change
it, only delay it (a share is owed, and its absence is its holder's to answer for).
What remains: t colluding holders can compute a value before the others, and so
know it early; nobody can choose it.

Must not touch: sockets, clocks, games.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from .group import POINT_BYTES, Point, Rand, base, frame, hash_to_point, mul
from .keys import JointKey, combine_in_exponent, holder_context
from .proofs import Blame, DleqProof
from .transcript import Transcript

DOMAIN = "xmas-tui/dealing/beacon"


def beacon_point(table: bytes | str, k: int) -> Point:
    """``H_k``: the point whose multiple by the joint secret makes value k."""
    return hash_to_point(DOMAIN, table, "beacon", k)


def _transcript(table: bytes | str, k: int, holder: int) -> Transcript:
    return Transcript(
        DOMAIN, holder_context({"table": table, "purpose": "beacon", "round": k}, holder)
    )


@dataclass(frozen=True, slots=True)
class BeaconShare:
    """Holder ``holder``'s ``x_j·H_k`` with its proof."""

    holder: int
    share: Point
    proof: DleqProof

    WIRE_BYTES = 2 + POINT_BYTES + DleqProof.WIRE_BYTES

    def to_wire(self) -> bytes:
        return self.holder.to_bytes(2, "big") + self.share.encode() + self.proof.to_wire()

    @classmethod
    def from_wire(cls, data: bytes) -> BeaconShare:
        if len(data) != cls.WIRE_BYTES:
            raise ValueError(f"a beacon share is {cls.WIRE_BYTES} bytes")
        holder = int.from_bytes(data[:2], "big")
        if holder < 1:
            raise ValueError("holder indices start at 1")
        return cls(
            holder,
            Point.decode(data[2 : 2 + POINT_BYTES], allow_identity=True),
            DleqProof.from_wire(data[2 + POINT_BYTES :]),
        )


def beacon_share(
    table: bytes | str, k: int, holder: int, secret: int, rand: Rand | None = None
) -> BeaconShare:
    h = beacon_point(table, k)
    share = mul(h, secret)
    proof = DleqProof.prove(secret, base(secret), h, share, _transcript(table, k, holder), rand)
    return BeaconShare(holder, share, proof)


def verify_beacon_share(table: bytes | str, k: int, share: BeaconShare, joint: JointKey) -> bool:
    if not 1 <= share.holder <= joint.n:
        return False
    return share.proof.verify(
        joint.share_of(share.holder),
        beacon_point(table, k),
        share.share,
        _transcript(table, k, share.holder),
    )


def combine_beacon(
    table: bytes | str,
    k: int,
    shares: Sequence[BeaconShare],
    joint: JointKey,
    *,
    checked: bool = False,
) -> bytes:
    """Value k (32 bytes) from t distinct valid shares; ``Blame`` names a wrong one."""
    if not checked:
        for share in shares:
            if not verify_beacon_share(table, k, share, joint):
                raise Blame(share.holder, "its beacon share fails its proof")
    points: dict[int, Point] = {}
    for share in shares:
        if share.holder in points:
            raise ValueError(f"two shares from holder {share.holder}")
        points[share.holder] = share.share
    value_point = combine_in_exponent(points, joint)
    return hashlib.sha256(frame(DOMAIN, table, k, value_point)).digest()
