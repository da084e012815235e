"""A verifiable shuffle: re-encrypt and permute a deck, and prove it was done right.

Owns ``shuffle`` (a random permutation and re-encryption of every ciphertext, with
its proof), ``prove_shuffle`` (the proof for a given witness), ``verify_shuffle``,
the independent generators the proof needs, and ``ShuffleProof``'s wire form.

The proof is the Terelius–Wikström proof of a shuffle (B. Terelius and D. Wikström,
"Proofs of Restricted Shuffles", AFRICACRYPT 2010; D. Wikström, "A Commitment-
Consistent Proof of a Shuffle", ACISP 2009), exactly as the CHVote protocol
specification gives it in pseudo-code (R. Haenni, R. E. Koenig, P. Locher and
E. Dubuis, "CHVote Protocol Specification", IACR ePrint 2017/325, the mix-net
algorithms GenShuffle, GenPermutation, GenReEncryption, GenShuffleProof,
GenPermutationCommitment, GenCommitmentChain and CheckShuffleProof; the same
algorithms as R. Haenni, P. Locher, R. Koenig and E. Dubuis, "Pseudo-Code
Algorithms for Verifiable Re-Encryption Mix-Nets", FC 2017 Workshops, Algorithms 1-6).

Differences from the specification, none of which changes an equation:

* Additive notation: the spec's ``g^x`` is ``x·G``, its products are sums; its
  ciphertext ``(a, b) = (m·pk^r, g^r)`` is our ``(c2, c1) = (M + r·PK, r·G)``.
* Indices run from 0; ``ψ(i)`` is ``permutation[i]``: output i re-encrypts input ψ(i)
  (GenShuffle), and the re-encryption randomness ``r̃`` is indexed by input.
* The generators ``h`` and ``h_1…h_N`` are ``hash_to_point`` over the shuffle's context
  (table, purpose, round, seat), so nobody knows a discrete log among them or of G
  (the spec's GetGenerators does the same in its group).
* The challenges come from a ``Transcript`` bound to the context: ``u = (u_1…u_N)``
  after absorbing the public key, the generators, the input and output decks and the
  permutation commitment (GetChallenges); ``c`` after also absorbing the commitment
  chain and every ``t`` (GetNIZKPChallenge over ``y = (e, e', c, ĉ, pk)`` and ``t``).
  So a proof from another table, round or seat does not verify.

The proof is ``(t, s, c, ĉ)`` as in the spec: the permutation commitment ``c`` and the
commitment chain ``ĉ`` (N points each), ``t = (t1, t2, t3, (t4,1, t4,2), (t̂_1…t̂_N))``
and ``s = (s1, s2, s3, s4, (ŝ_1…ŝ_N), (s'_1…s'_N))``: 32·(5N + 9) bytes on the wire
(16,288 bytes for 100 cards), beside the 64·N bytes of the new deck.

The deal as a whole is the one of A. Barnett and N. P. Smart, "Mental Poker
Revisited" (Cryptography and Coding 2003): every player in turn re-encrypts and
permutes the deck under the joint key and proves it, and the deck stays hidden while
one shuffler keeps its permutation to itself. Cost (point multiplications, through
rbcl): about 4N fixed-base and 6N variable-base to shuffle and prove, 8N
variable-base and N fixed-base to verify.

Must not touch: sockets, clocks, games.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .elgamal import Ciphertext, reencrypt
from .group import (
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    Rand,
    WireReader,
    add,
    base,
    frame,
    hash_to_point,
    lincomb,
    mul,
    random_scalar,
    sub,
    sum_of,
)
from .proofs import scalars_from_wire, scalars_to_wire
from .transcript import Context, Transcript, check_context

DOMAIN = "xmas-tui/dealing/shuffle"


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """``(t, s, c, ĉ)`` of CHVote's GenShuffleProof (names as in the specification)."""

    c: tuple[Point, ...]
    c_hat: tuple[Point, ...]
    t1: Point
    t2: Point
    t3: Point
    t4: tuple[Point, Point]  # (on c1, on c2): the spec's (t4,2, t4,1)
    t_hat: tuple[Point, ...]
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]

    @staticmethod
    def wire_bytes(n: int) -> int:
        return (3 * n + 5) * POINT_BYTES + (2 * n + 4) * SCALAR_BYTES

    def to_wire(self) -> bytes:
        points = (*self.c, *self.c_hat, self.t1, self.t2, self.t3, *self.t4, *self.t_hat)
        return b"".join(p.encode() for p in points) + scalars_to_wire(
            self.s1, self.s2, self.s3, self.s4, *self.s_hat, *self.s_prime
        )

    @classmethod
    def from_wire(cls, data: bytes, n: int) -> ShuffleProof:
        """The proof for a deck of ``n`` cards; ``ValueError`` on any bad length or field."""
        if n < 1:
            raise ValueError("a shuffle proof is for at least one card")
        read = WireReader(data, cls.wire_bytes(n), f"a shuffle proof for {n} cards")
        points = read.points(3 * n + 5, allow_identity=True)
        scalars = scalars_from_wire(read.take((2 * n + 4) * SCALAR_BYTES), 2 * n + 4)
        return cls(
            c=tuple(points[:n]),
            c_hat=tuple(points[n : 2 * n]),
            t1=points[2 * n],
            t2=points[2 * n + 1],
            t3=points[2 * n + 2],
            t4=(points[2 * n + 3], points[2 * n + 4]),
            t_hat=tuple(points[2 * n + 5 :]),
            s1=scalars[0],
            s2=scalars[1],
            s3=scalars[2],
            s4=scalars[3],
            s_hat=tuple(scalars[4 : 4 + n]),
            s_prime=tuple(scalars[4 + n :]),
        )


# ---------------------------------------------------------------- generators
def _context_bytes(context: Context) -> bytes:
    check_context(context)
    return frame(*(part for key in sorted(context) for part in (key, context[key])))


@lru_cache(maxsize=64)
def _generators(context: bytes, n: int) -> tuple[Point, tuple[Point, ...], Point]:
    h = hash_to_point(f"{DOMAIN}/generator", context, 0)
    hs = tuple(hash_to_point(f"{DOMAIN}/generator", context, i) for i in range(1, n + 1))
    return h, hs, sum_of(hs)


def generators(context: Context, n: int) -> tuple[Point, tuple[Point, ...]]:
    """``h`` and ``h_1…h_n`` for this shuffle: independent, nobody knows their logs."""
    h, hs, _ = _generators(_context_bytes(context), n)
    return h, hs


def _transcript(
    context: Context,
    pk: Point,
    cts: Sequence[Ciphertext],
    new_cts: Sequence[Ciphertext],
    c: Sequence[Point],
) -> tuple[Transcript, list[int]]:
    """The transcript up to the challenges ``u`` (GetChallenges), and ``u``."""
    h, hs = generators(context, len(cts))
    transcript = Transcript(DOMAIN, context)
    transcript.absorb("public-key", pk)
    transcript.absorb("generators", h, *hs)
    transcript.absorb("input", *(p for ct in cts for p in (ct.c1, ct.c2)))
    transcript.absorb("output", *(p for ct in new_cts for p in (ct.c1, ct.c2)))
    transcript.absorb("permutation-commitment", *c)
    return transcript, transcript.challenges("u", len(cts))


def _final_challenge(transcript: Transcript, c_hat: Sequence[Point], t: Sequence[Point]) -> int:
    transcript.absorb("commitment-chain", *c_hat)
    transcript.absorb("t", *t)
    return transcript.challenge("c")


# -------------------------------------------------------------------- prover
def _below(m: int, rand: Rand | None) -> int:
    return (rand() if rand is not None else int.from_bytes(os.urandom(32), "little")) % m


def random_permutation(n: int, rand: Rand | None = None) -> list[int]:
    """A uniformly random permutation of 0…n−1 (Fisher–Yates; GenPermutation)."""
    permutation = list(range(n))
    for i in range(n - 1, 0, -1):
        j = _below(i + 1, rand)
        permutation[i], permutation[j] = permutation[j], permutation[i]
    return permutation


def shuffle(
    pk: Point, cts: Sequence[Ciphertext], transcript_context: Context, rand: Rand | None = None
) -> tuple[list[Ciphertext], ShuffleProof]:
    """Re-encrypt and permute the deck (GenShuffle), with its proof (GenShuffleProof)."""
    if not cts:
        raise ValueError("there is no deck to shuffle")
    check_context(transcript_context)
    permutation = random_permutation(len(cts), rand)
    randomness = [random_scalar(rand) for _ in cts]
    new_cts = [reencrypt(pk, cts[j], randomness[j]) for j in permutation]
    return new_cts, prove_shuffle(
        pk, cts, new_cts, permutation, randomness, transcript_context, rand
    )


def prove_shuffle(
    pk: Point,
    cts: Sequence[Ciphertext],
    new_cts: Sequence[Ciphertext],
    permutation: Sequence[int],
    randomness: Sequence[int],
    transcript_context: Context,
    rand: Rand | None = None,
) -> ShuffleProof:
    """GenShuffleProof for ``new_cts[i] = reencrypt(pk, cts[ψ(i)], randomness[ψ(i)])``."""
    n = len(cts)
    if not (len(new_cts) == len(permutation) == len(randomness) == n) or sorted(
        permutation
    ) != list(range(n)):
        raise ValueError("the witness does not fit the decks")
    h, hs = generators(transcript_context, n)
    # GenPermutationCommitment: c_{ψ(i)} = r_{ψ(i)}·G + h_i
    r = [0] * n
    c: list[Point] = [h] * n
    for i, j in enumerate(permutation):
        r[j] = random_scalar(rand)
        c[j] = add(base(r[j]), hs[i])
    transcript, u = _transcript(transcript_context, pk, cts, new_cts, c)
    u_prime = [u[j] for j in permutation]
    # GenCommitmentChain from ĉ_0 = h: ĉ_i = r̂_i·G + u'_i·ĉ_{i−1}
    r_hat = [random_scalar(rand) for _ in range(n)]
    c_hat: list[Point] = []
    previous = h
    for i in range(n):
        previous = add(base(r_hat[i]), mul(previous, u_prime[i]))
        c_hat.append(previous)
    # v_N = 1, v_i = u'_{i+1}·v_{i+1}
    v = [1] * n
    for i in range(n - 2, -1, -1):
        v[i] = u_prime[i + 1] * v[i + 1] % ORDER
    r_bar = sum(r) % ORDER
    r_hat_sum = sum(a * b for a, b in zip(r_hat, v, strict=True)) % ORDER
    r_tilde = sum(a * b for a, b in zip(r, u, strict=True)) % ORDER
    r_prime = sum(a * b for a, b in zip(randomness, u, strict=True)) % ORDER
    w1, w2, w3, w4 = (random_scalar(rand) for _ in range(4))
    w_hat = [random_scalar(rand) for _ in range(n)]
    w_prime = [random_scalar(rand) for _ in range(n)]
    t1 = base(w1)
    t2 = base(w2)
    t3 = add(base(w3), lincomb(hs, w_prime))
    t4 = (
        sub(lincomb([ct.c1 for ct in new_cts], w_prime), base(w4)),
        sub(lincomb([ct.c2 for ct in new_cts], w_prime), mul(pk, w4)),
    )
    t_hat = tuple(add(base(w_hat[i]), mul(c_hat[i - 1] if i else h, w_prime[i])) for i in range(n))
    challenge = _final_challenge(transcript, c_hat, (t1, t2, t3, *t4, *t_hat))
    return ShuffleProof(
        c=tuple(c),
        c_hat=tuple(c_hat),
        t1=t1,
        t2=t2,
        t3=t3,
        t4=t4,
        t_hat=t_hat,
        s1=(w1 + challenge * r_bar) % ORDER,
        s2=(w2 + challenge * r_hat_sum) % ORDER,
        s3=(w3 + challenge * r_tilde) % ORDER,
        s4=(w4 + challenge * r_prime) % ORDER,
        s_hat=tuple((w_hat[i] + challenge * r_hat[i]) % ORDER for i in range(n)),
        s_prime=tuple((w_prime[i] + challenge * u_prime[i]) % ORDER for i in range(n)),
    )


# ------------------------------------------------------------------ verifier
def verify_shuffle(
    pk: Point,
    cts: Sequence[Ciphertext],
    new_cts: Sequence[Ciphertext],
    proof: ShuffleProof,
    transcript_context: Context,
) -> bool:
    """CheckShuffleProof: whether ``new_cts`` is a re-encrypted permutation of ``cts``."""
    n = len(cts)
    if n < 1 or len(new_cts) != n:
        return False
    if not (
        len(proof.c)
        == len(proof.c_hat)
        == len(proof.t_hat)
        == len(proof.s_hat)
        == len(proof.s_prime)
        == n
    ):
        return False
    h, hs, hs_sum = _generators(_context_bytes(transcript_context), n)
    transcript, u = _transcript(transcript_context, pk, cts, new_cts, proof.c)
    t = (proof.t1, proof.t2, proof.t3, *proof.t4, *proof.t_hat)
    challenge = _final_challenge(transcript, proof.c_hat, t)
    minus_c = ORDER - challenge
    s_prime = list(proof.s_prime)
    u_product = 1
    for value in u:
        u_product = u_product * value % ORDER
    c_bar = sub(sum_of(proof.c), hs_sum)
    c_hat = sub(proof.c_hat[-1], mul(h, u_product))
    c_tilde = lincomb(proof.c, u)
    e_c1 = lincomb([ct.c1 for ct in cts], u)
    e_c2 = lincomb([ct.c2 for ct in cts], u)
    if proof.t1 != add(mul(c_bar, minus_c), base(proof.s1)):
        return False
    if proof.t2 != add(mul(c_hat, minus_c), base(proof.s2)):
        return False
    if proof.t3 != add(add(mul(c_tilde, minus_c), base(proof.s3)), lincomb(hs, s_prime)):
        return False
    t4_c1 = sub(
        add(mul(e_c1, minus_c), lincomb([ct.c1 for ct in new_cts], s_prime)), base(proof.s4)
    )
    t4_c2 = sub(
        add(mul(e_c2, minus_c), lincomb([ct.c2 for ct in new_cts], s_prime)), mul(pk, proof.s4)
    )
    if proof.t4 != (t4_c1, t4_c2):
        return False
    previous = h
    for i in range(n):
        current = proof.c_hat[i]
        expected = add(add(mul(current, minus_c), base(proof.s_hat[i])), mul(previous, s_prime[i]))
        if proof.t_hat[i] != expected:
            return False
        previous = current
    return True
