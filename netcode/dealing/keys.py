"""The joint key: a joint-Feldman distributed key generation among the key holders.

Owns: each holder's personal key pair and its proof, signatures with it, the choice
of threshold, the DKG messages (``Dealing``, ``Complaint``), their checks, the judge
that names who lied, and the results (``JointKey``: the joint public key and every
holder's public share; each holder's secret share).

The n key holders are the human players' programs, numbered 1…n (the integrator maps
seats to holder indices and uses the holder index as the prover's seat in every
transcript this package makes for a holder). The protocol is Pedersen's joint
Feldman DKG (T. P. Pedersen, "A Threshold Cryptosystem without a Trusted Party",
EUROCRYPT '91, section 3; P. Feldman, "A Practical Scheme for Non-interactive
Verifiable Secret Sharing", FOCS '87), with a Schnorr proof of knowledge of each
constant term against rogue keys (as in FROST's key generation, Komlo and Goldberg,
SAC 2020, Figure 1, round 1):

1. Each holder i publishes its personal key ``P_i = p_i·G`` with a Schnorr proof.
2. Each holder i draws ``f_i(z) = a_{i,0} + a_{i,1}·z + … + a_{i,t−1}·z^{t−1}`` and
   publishes a ``Dealing``: the Feldman commitments ``A_{i,k} = a_{i,k}·G``, a Schnorr
   proof of ``a_{i,0}``, and for every holder j the share ``s_{i→j} = f_i(j)`` sealed
   end to end for j (the messages travel through the host, who must learn nothing):
   ECIES from standard parts, the Diffie–Hellman point ``p_i·P_j`` (rbcl),
   HKDF-SHA256 and ChaCha20-Poly1305 (``cryptography``), the key bound to the
   context (table, purpose, round), the dealer, the recipient, both personal keys
   and the dealer's commitments.
3. Holder j opens its share and checks ``s·G = Σ_k j^k·A_{i,k}``. On a failure it
   publishes a ``Complaint``: the pair's Diffie–Hellman point ``K = p_j·P_i`` with a
   Chaum–Pedersen proof that ``log_G P_j = log_{P_i} K``. With it every peer opens
   that one sealed share and checks it: ``judge`` names the liar, dealer or accuser.
4. ``PK = Σ_i A_{i,0}``; holder j's secret share ``x_j = Σ_i s_{i→j}``; every holder's
   public share ``X_j = Σ_i Σ_k j^k·A_{i,k}``, computable by anyone.

``threshold(n)`` is a majority, ⌊n/2⌋ + 1, at least 2 when n ≥ 2 (1 for a table with
one human). A majority, because the same t that must collude to read a face is the
number of holders that must stay for the table to go on: a majority keeps both a
minority coalition out and a minority of leavers harmless. The honest bound is:
**faces stay hidden unless t players' programs collude** (t of n: 2 of 2 or 3, 3 of
4 or 5, 4 of 6). Any t holders together can decrypt every card and compute every
beacon value in advance; fewer than t learn nothing about a face (the DDH assumption
in ristretto255). With n = 2 neither player can be dropped without stopping the table.

Caveats the integrator must keep:

* The DKG has the bias of joint-Feldman (Gennaro, Jarecki, Krawczyk and Rabin,
  "Secure Distributed Key Generation for Discrete-Log Based Cryptosystems",
  EUROCRYPT '99, section 3): the last dealer, or a dealer who gets itself
  disqualified, chooses between a few public keys. That does not help it decrypt
  (the same authors, "Secure Applications of Pedersen's Distributed Key Generation
  Protocol", CT-RSA 2003, show such keys are safe for threshold ElGamal-type uses).
  Stopping the table on any proved lie, rather than going on without the liar,
  leaves it no choice at all.
* Personal keys authenticate everything else, and the host relays every message: a
  host that swapped a player's personal key for its own would read that player's
  shares. The integrator must authenticate personal keys end to end (every screen
  shows ``fingerprint`` and the players compare it) and sign with them what proves
  no authorship by itself (``sign``): dealings and shuffles. Decryption, recipient and
  beacon shares and complaints prove knowledge of the holder's own secret, so they
  need no signature.

Must not touch: sockets, clocks, games.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, TypeVar

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .group import (
    ORDER,
    POINT_BYTES,
    SCALAR_BYTES,
    Point,
    Rand,
    WireReader,
    base,
    frame,
    index_bytes,
    lincomb,
    mul,
    random_scalar,
    scalar_bytes,
    scalar_from_bytes,
    sum_of,
)
from .proofs import Blame, DleqProof, SchnorrProof
from .transcript import Context, Transcript, check_context

DOMAIN = "xmas-tui/dealing/dkg"
SEALED_SHARE_BYTES = SCALAR_BYTES + 16
_NONCE = bytes(12)


def threshold(n: int) -> int:
    """The number of holders that must take part to open a face: a majority, ≥ 2 if n ≥ 2."""
    if n < 1:
        raise ValueError("a table needs at least one key holder")
    return 1 if n == 1 else max(2, n // 2 + 1)


def holder_context(context: Context, holder: int) -> dict[str, bytes | str | int]:
    """The transcript context of a proof by ``holder``: the table's context and its index.

    The caller's context names the table, purpose and round; the holder index is the
    prover's seat, set here so that no caller can forget it.
    """
    if "seat" in context:
        raise ValueError("a holder's context gets its seat from the holder index")
    if not isinstance(holder, int) or isinstance(holder, bool) or holder < 1:
        raise ValueError(f"holder indices start at 1, not {holder!r}")
    merged = {**context, "seat": holder}
    check_context(merged)
    return merged


# ------------------------------------------------------------- personal keys
@dataclass(frozen=True, slots=True)
class PersonalKey:
    """A holder's own key pair: ``public = secret·G``."""

    secret: int
    public: Point

    @classmethod
    def generate(cls, rand: Rand | None = None) -> PersonalKey:
        secret = random_scalar(rand)
        return cls(secret, base(secret))

    def prove(self, context: Context, rand: Rand | None = None) -> SchnorrProof:
        """The proof that goes with ``public`` when it is announced (context names the seat)."""
        return SchnorrProof.prove(
            self.secret, self.public, Transcript(f"{DOMAIN}/personal-key", context), rand
        )

    def __repr__(self) -> str:
        return f"PersonalKey(public={self.public!r})"


def verify_personal_key(public: Point, proof: SchnorrProof, context: Context) -> bool:
    return proof.verify(public, Transcript(f"{DOMAIN}/personal-key", context))


def sign(
    key: PersonalKey, message: bytes, context: Context, rand: Rand | None = None
) -> SchnorrProof:
    """A Schnorr signature on ``message`` by a personal key, bound to the context."""
    transcript = Transcript(f"{DOMAIN}/signature", context)
    transcript.absorb("message", message)
    return SchnorrProof.prove(key.secret, key.public, transcript, rand)


def verify_signature(
    public: Point, message: bytes, signature: SchnorrProof, context: Context
) -> bool:
    transcript = Transcript(f"{DOMAIN}/signature", context)
    transcript.absorb("message", message)
    return signature.verify(public, transcript)


# ------------------------------------------------------------------ dealings
@dataclass(frozen=True, slots=True)
class Dealing:
    """Holder ``dealer``'s contribution: Feldman commitments, a proof, sealed shares.

    ``sealed[j − 1]`` is ``s_{dealer→j}`` sealed for holder j (the dealer's own too).
    """

    dealer: int
    commitments: tuple[Point, ...]
    proof: SchnorrProof
    sealed: tuple[bytes, ...]

    def to_wire(self) -> bytes:
        return (
            index_bytes(self.dealer)
            + b"".join(a.encode() for a in self.commitments)
            + self.proof.to_wire()
            + b"".join(self.sealed)
        )

    @classmethod
    def from_wire(cls, data: bytes, n: int, t: int) -> Dealing:
        """A dealing for ``n`` holders and threshold ``t``; ``ValueError`` on any bad field."""
        size = 2 + t * POINT_BYTES + SchnorrProof.WIRE_BYTES + n * SEALED_SHARE_BYTES
        read = WireReader(data, size, f"a dealing for {n} holders, threshold {t},")
        dealer, commitments = read.index(), read.points(t)
        proof = SchnorrProof.from_wire(read.take(SchnorrProof.WIRE_BYTES))
        return cls(
            dealer, commitments, proof, tuple(read.take(SEALED_SHARE_BYTES) for _ in range(n))
        )


def _evaluate(coefficients: Sequence[int], z: int) -> int:
    value = 0
    for a in reversed(coefficients):
        value = (value * z + a) % ORDER
    return value


def _commitment_digest(commitments: Sequence[Point]) -> bytes:
    return hashlib.sha256(frame("feldman-commitments", *commitments)).digest()


def _seal_key(
    dh: Point,
    context: Context,
    dealer: int,
    recipient: int,
    personal_keys: Sequence[Point],
    commitments: Sequence[Point],
) -> tuple[ChaCha20Poly1305, bytes]:
    binding = frame(
        "xmas-tui/dealing/dkg-share",
        *(part for key in sorted(context) for part in (key, context[key])),
        "dealer",
        dealer,
        personal_keys[dealer - 1],
        "recipient",
        recipient,
        personal_keys[recipient - 1],
        _commitment_digest(commitments),
    )
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=binding).derive(dh.encode())
    return ChaCha20Poly1305(key), binding


def _proof_transcript(context: Context, dealer: int, commitments: Sequence[Point]) -> Transcript:
    transcript = Transcript(f"{DOMAIN}/constant-term", holder_context(context, dealer))
    transcript.absorb("feldman-commitments", *commitments)
    return transcript


def deal(
    dealer: int,
    key: PersonalKey,
    personal_keys: Sequence[Point],
    t: int,
    context: Context,
    rand: Rand | None = None,
) -> Dealing:
    """Holder ``dealer``'s dealing for the holders whose personal keys are given (1…n).

    ``context`` names the table, the purpose and the round (a fresh round for each
    attempt), not the seat.
    """
    n = len(personal_keys)
    if not 1 <= t <= n:
        raise ValueError(f"a threshold of {t} does not fit {n} holders")
    if not 1 <= dealer <= n or personal_keys[dealer - 1] != key.public:
        raise ValueError(f"holder {dealer}'s personal key is not the one given")
    coefficients = [random_scalar(rand) for _ in range(t)]
    commitments = tuple(base(a) for a in coefficients)
    proof = SchnorrProof.prove(
        coefficients[0], commitments[0], _proof_transcript(context, dealer, commitments), rand
    )
    sealed = []
    for j in range(1, n + 1):
        aead, binding = _seal_key(
            mul(personal_keys[j - 1], key.secret), context, dealer, j, personal_keys, commitments
        )
        sealed.append(aead.encrypt(_NONCE, scalar_bytes(_evaluate(coefficients, j)), binding))
    return Dealing(dealer, commitments, proof, tuple(sealed))


def check_dealing(
    dealing: Dealing, personal_keys: Sequence[Point], t: int, context: Context
) -> None:
    """The checks anyone can make of a dealing; ``Blame`` naming the dealer if one fails."""
    n = len(personal_keys)
    dealer = dealing.dealer
    if not 1 <= dealer <= n:
        raise Blame(dealer, f"there is no holder {dealer}")
    if len(dealing.commitments) != t:
        raise Blame(dealer, f"{len(dealing.commitments)} Feldman commitments for threshold {t}")
    if any(a.is_identity for a in dealing.commitments):
        raise Blame(dealer, "a Feldman commitment is the identity")
    if len(dealing.sealed) != n or any(len(s) != SEALED_SHARE_BYTES for s in dealing.sealed):
        raise Blame(dealer, "the sealed shares are not one per holder")
    if not dealing.proof.verify(
        dealing.commitments[0], _proof_transcript(context, dealer, dealing.commitments)
    ):
        raise Blame(dealer, "the proof of its constant term fails")


def expected_share_point(commitments: Sequence[Point], holder: int) -> Point:
    """``Σ_k holder^k·A_k``: where ``s·G`` must land for a right share (Feldman's check)."""
    return lincomb(list(commitments), [pow(holder, k, ORDER) for k in range(len(commitments))])


def _unseal(
    dealing: Dealing, holder: int, dh: Point, personal_keys: Sequence[Point], context: Context
) -> int:
    """The share sealed for ``holder``; ``Blame`` on the dealer if it does not open or check."""
    aead, binding = _seal_key(
        dh, context, dealing.dealer, holder, personal_keys, dealing.commitments
    )
    try:
        share = scalar_from_bytes(aead.decrypt(_NONCE, dealing.sealed[holder - 1], binding))
    except (InvalidTag, ValueError):
        raise Blame(dealing.dealer, f"its share for holder {holder} does not open") from None
    if base(share) != expected_share_point(dealing.commitments, holder):
        raise Blame(dealing.dealer, f"its share for holder {holder} fails Feldman's check")
    return share


def open_share(
    dealing: Dealing,
    holder: int,
    key: PersonalKey,
    personal_keys: Sequence[Point],
    context: Context,
) -> int:
    """Holder ``holder``'s share of a checked dealing; ``Blame`` on the dealer if it is wrong
    (then publish ``complain(…)``)."""
    if personal_keys[holder - 1] != key.public:
        raise ValueError(f"holder {holder}'s personal key is not the one given")
    return _unseal(
        dealing, holder, mul(personal_keys[dealing.dealer - 1], key.secret), personal_keys, context
    )


# ---------------------------------------------------------------- complaints
@dataclass(frozen=True, slots=True)
class Complaint:
    """Holder ``accuser`` says ``dealer``'s share for it is wrong, and shows the pair's key."""

    accuser: int
    dealer: int
    dh: Point
    proof: DleqProof

    WIRE_BYTES = 4 + POINT_BYTES + DleqProof.WIRE_BYTES

    def to_wire(self) -> bytes:
        return (
            index_bytes(self.accuser)
            + index_bytes(self.dealer)
            + self.dh.encode()
            + self.proof.to_wire()
        )

    @classmethod
    def from_wire(cls, data: bytes) -> Complaint:
        read = WireReader(data, cls.WIRE_BYTES, "a complaint")
        return cls(
            read.index(),
            read.index(),
            read.point(),
            DleqProof.from_wire(read.take(DleqProof.WIRE_BYTES)),
        )


def _complaint_transcript(context: Context, accuser: int, dealer: int) -> Transcript:
    transcript = Transcript(f"{DOMAIN}/complaint", holder_context(context, accuser))
    transcript.absorb("against", dealer)
    return transcript


def complain(
    dealing: Dealing,
    holder: int,
    key: PersonalKey,
    personal_keys: Sequence[Point],
    context: Context,
    rand: Rand | None = None,
) -> Complaint:
    """Holder ``holder``'s complaint against a dealing whose share for it was wrong."""
    dealer_key = personal_keys[dealing.dealer - 1]
    dh = mul(dealer_key, key.secret)
    proof = DleqProof.prove(
        key.secret,
        key.public,
        dealer_key,
        dh,
        _complaint_transcript(context, holder, dealing.dealer),
        rand,
    )
    return Complaint(holder, dealing.dealer, dh, proof)


def judge(
    complaint: Complaint, dealing: Dealing, personal_keys: Sequence[Point], t: int, context: Context
) -> int:
    """Who lied, the dealer or the accuser: every peer computes the same holder index."""
    n = len(personal_keys)
    accuser = complaint.accuser
    if not 1 <= accuser <= n:
        raise ValueError(f"there is no holder {accuser}")
    if complaint.dealer != dealing.dealer:
        raise ValueError("the complaint is about another dealing")
    try:
        check_dealing(dealing, personal_keys, t, context)
    except Blame:
        return dealing.dealer
    if not complaint.proof.verify(
        personal_keys[accuser - 1],
        personal_keys[dealing.dealer - 1],
        complaint.dh,
        _complaint_transcript(context, accuser, dealing.dealer),
    ):
        return accuser
    try:
        _unseal(dealing, accuser, complaint.dh, personal_keys, context)
    except Blame:
        return dealing.dealer
    return accuser


# ------------------------------------------------------------------- results
@dataclass(frozen=True, slots=True)
class JointKey:
    """The public result of the DKG: ``PK`` and every holder's public share ``X_j``."""

    t: int
    public: Point
    public_shares: tuple[Point, ...]
    dealers: tuple[int, ...]

    @property
    def n(self) -> int:
        return len(self.public_shares)

    def share_of(self, holder: int) -> Point:
        if not 1 <= holder <= self.n:
            raise ValueError(f"there is no holder {holder}")
        return self.public_shares[holder - 1]


def joint_key(dealings: Sequence[Dealing], n: int, t: int) -> JointKey:
    """The joint key from the qualified dealings (checked ones, one per dealer)."""
    dealers = tuple(sorted(d.dealer for d in dealings))
    if not dealings or len(set(dealers)) != len(dealers):
        raise ValueError("the joint key needs one dealing per qualified dealer")
    if any(len(d.commitments) != t for d in dealings):
        raise ValueError(f"every dealing must have {t} commitments")
    combined = [sum_of(d.commitments[k] for d in dealings) for k in range(t)]
    public = combined[0]
    if public.is_identity:
        raise ValueError("the joint key came out as the identity")
    shares = tuple(expected_share_point(combined, j) for j in range(1, n + 1))
    return JointKey(t, public, shares, dealers)


def secret_share(joint: JointKey, holder: int, shares: Mapping[int, int]) -> int:
    """Holder ``holder``'s secret ``x_j = Σ_i s_{i→j}`` over the qualified dealers, checked."""
    if sorted(shares) != list(joint.dealers):
        raise ValueError("a secret share needs one share from each qualified dealer")
    x = sum(shares.values()) % ORDER
    if base(x) != joint.share_of(holder):
        raise ValueError(f"holder {holder}'s shares do not add up to its public share")
    return x


def fingerprint(personal_keys: Sequence[Point], joint: JointKey) -> str:
    """128 bits of digest over everyone's personal key and the joint key, for the players
    to compare: a host that swapped a key shows different fingerprints on different screens."""
    digest = hashlib.sha256(
        frame(
            "xmas-tui/dealing/fingerprint",
            *personal_keys,
            joint.t,
            joint.public,
            *joint.public_shares,
        )
    ).hexdigest()
    return "-".join(digest[i : i + 4] for i in range(0, 32, 4))


# ------------------------------------------------------- threshold combining
def lagrange_at_zero(holders: Sequence[int]) -> list[int]:
    """Lagrange coefficients at 0 for the holder indices given (distinct, ≥ 1)."""
    coefficients = []
    for j in holders:
        numerator, denominator = 1, 1
        for m in holders:
            if m != j:
                numerator = numerator * m % ORDER
                denominator = denominator * (m - j) % ORDER
        coefficients.append(numerator * pow(denominator, -1, ORDER) % ORDER)
    return coefficients


def require_quorum(holders: Sequence[int], joint: JointKey) -> list[int]:
    """The first t of these holder indices; ``ValueError`` on a repeat, a stranger, or too few."""
    if len(set(holders)) != len(holders):
        raise ValueError("two shares from one holder")
    for j in holders:
        joint.share_of(j)
    if len(holders) < joint.t:
        raise ValueError(f"{len(holders)} valid shares, and {joint.t} are needed")
    return list(holders[: joint.t])


def combine_in_exponent(points: Mapping[int, Point], joint: JointKey) -> Point:
    """``Σ λ_j·P_j`` over t of the holders' points: ``x·B`` when each ``P_j = x_j·B``."""
    chosen = require_quorum(list(points), joint)
    return lincomb([points[j] for j in chosen], lagrange_at_zero(chosen))


H = TypeVar("H", bound="HoldersShare")


class HoldersShare(Protocol):
    """Anything a holder sends about one opening: it says which holder sent it."""

    @property
    def holder(self) -> int: ...


def distinct(shares: Sequence[H]) -> list[H]:
    """The shares as a list; ``ValueError`` if one holder sent two."""
    seen: set[int] = set()
    for share in shares:
        if share.holder in seen:
            raise ValueError(f"two shares from holder {share.holder}")
        seen.add(share.holder)
    return list(shares)


@dataclass(frozen=True, slots=True)
class ExponentShare:
    """Holder ``holder``'s ``x_j·B`` for a public base ``B``, with a Chaum–Pedersen proof
    that ``log_G X_j = log_B (x_j·B)``: a decryption share (``B = c1``) or a beacon share
    (``B = H_k``)."""

    holder: int
    share: Point
    proof: DleqProof

    WIRE_BYTES: ClassVar[int] = 2 + POINT_BYTES + DleqProof.WIRE_BYTES

    @classmethod
    def make(
        cls,
        holder: int,
        secret: int,
        base_point: Point,
        transcript: Transcript,
        rand: Rand | None = None,
    ) -> ExponentShare:
        share = mul(base_point, secret)
        return cls(
            holder,
            share,
            DleqProof.prove(secret, base(secret), base_point, share, transcript, rand),
        )

    def verify(self, joint: JointKey, base_point: Point, transcript: Transcript) -> bool:
        if not 1 <= self.holder <= joint.n:
            return False
        return self.proof.verify(joint.share_of(self.holder), base_point, self.share, transcript)

    def to_wire(self) -> bytes:
        return index_bytes(self.holder) + self.share.encode() + self.proof.to_wire()

    @classmethod
    def from_wire(cls, data: bytes) -> ExponentShare:
        read = WireReader(data, cls.WIRE_BYTES, "a holder's share")
        return cls(
            read.index(),
            read.point(allow_identity=True),
            DleqProof.from_wire(read.take(DleqProof.WIRE_BYTES)),
        )


def combine_exponent_shares(
    shares: Sequence[ExponentShare],
    joint: JointKey,
    check: Callable[[ExponentShare], bool] | None,
    what: str,
) -> Point:
    """``x·B`` from t distinct shares, each first checked (unless ``check`` is None);
    ``Blame`` names the author of a share that fails."""
    if check is not None:
        for share in shares:
            if not check(share):
                raise Blame(share.holder, f"its {what} share fails its proof")
    return combine_in_exponent({s.holder: s.share for s in distinct(shares)}, joint)
