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

The beacon uses the same joint secret that decrypts the cards, on hashed points: no
shuffle can make a card's ``c1`` equal to some ``H_k`` (that would take a discrete log).
So the holders must only ever open ciphertexts of the deal itself, never one a peer
hands in: a "card" with ``c1 = H_k`` would give beacon value k away early.

Must not touch: sockets, clocks, games.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from .group import Point, Rand, frame, hash_to_point
from .keys import ExponentShare, JointKey, combine_exponent_shares, holder_context
from .transcript import Transcript

DOMAIN = "xmas-tui/dealing/beacon"


def beacon_point(table: bytes | str, k: int) -> Point:
    """``H_k``: the point whose multiple by the joint secret makes value k."""
    return hash_to_point(DOMAIN, table, "beacon", k)


def _transcript(table: bytes | str, k: int, holder: int) -> Transcript:
    return Transcript(
        DOMAIN, holder_context({"table": table, "purpose": "beacon", "round": k}, holder)
    )


#: Holder j's ``x_j·H_k`` with its Chaum–Pedersen proof.
BeaconShare = ExponentShare


def beacon_share(
    table: bytes | str, k: int, holder: int, secret: int, rand: Rand | None = None
) -> BeaconShare:
    return ExponentShare.make(
        holder, secret, beacon_point(table, k), _transcript(table, k, holder), rand
    )


def verify_beacon_share(table: bytes | str, k: int, share: BeaconShare, joint: JointKey) -> bool:
    if share.holder < 1:
        return False
    return share.verify(joint, beacon_point(table, k), _transcript(table, k, share.holder))


def combine_beacon(
    table: bytes | str,
    k: int,
    shares: Sequence[BeaconShare],
    joint: JointKey,
    *,
    checked: bool = False,
) -> bytes:
    """Value k (32 bytes) from t distinct valid shares; ``Blame`` names a wrong one."""

    def check(share: ExponentShare) -> bool:
        return verify_beacon_share(table, k, share, joint)

    value_point = combine_exponent_shares(shares, joint, None if checked else check, "beacon")
    return hashlib.sha256(frame(DOMAIN, table, k, value_point)).digest()
