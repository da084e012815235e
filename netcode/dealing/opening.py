"""Opening a card: threshold decryption with proofs, to everyone or to one seat only.

Owns the two ways a face comes out of a ciphertext ``(c1, c2)`` under the joint key:

* **Public opening.** Holder j publishes ``D_j = x_j·c1`` with a Chaum–Pedersen proof
  that ``log_G X_j = log_{c1} D_j`` (Chaum and Pedersen, CRYPTO '92). Any t valid
  shares give ``M = c2 − Σ λ_j·D_j`` (Lagrange at 0 over the holders' indices:
  threshold ElGamal decryption, Y. Desmedt and Y. Frankel, "Threshold
  Cryptosystems", CRYPTO '89; Pedersen, EUROCRYPT '91, section 4). This is the
  card-opening step of A. Barnett and N. P. Smart, "Mental Poker Revisited"
  (Cryptography and Coding 2003), with t-of-n shares in place of n-of-n.
* **Opening to one seat s**, with shares every peer checks on receipt and none can
  use: holder j publishes ``R_j = k_j·G`` and ``E_j = x_j·c1 + k_j·P_s`` (an ElGamal
  encryption of its decryption share under s's personal key ``P_s``) with the
  ``RecipientShareProof`` of knowledge of ``x_j, k_j`` (``X_j = x_j·G``, ``R_j = k_j·G``,
  ``E_j = x_j·c1 + k_j·P_s``). The recipient combines t of them (its own plain share
  ``x_s·c1`` where it is a holder) and removes ``p_s·Σ λ_j·R_j``. Only s can: the
  others would need ``p_s`` (computational Diffie–Hellman), and the proofs are zero
  knowledge, so a share tells nobody else anything about ``x_j·c1``. Barnett and
  Smart hand such shares over private channels, which a host relays and nobody can
  audit; these can be published and checked by all.

Every proof is bound to the context (table, purpose, round: which opening), the
holder's index as the prover's seat, the ciphertext, and for a private opening the
recipient's key. ``combine_public`` and ``combine_private`` check every share they are
given (unless the caller says it checked them on receipt), raise ``Blame`` naming the
author of a wrong one, and refuse fewer than t distinct valid shares.

A holder must only make shares for ciphertexts of the deal (the verified decks), as
the rules open them: a share for a ciphertext a peer hands in would decrypt whatever
that peer chose.

Must not touch: sockets, clocks, games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .elgamal import Ciphertext
from .group import (
    POINT_BYTES,
    Point,
    Rand,
    WireReader,
    add,
    base,
    index_bytes,
    lincomb,
    mul,
    random_scalar,
    sub,
)
from .keys import (
    ExponentShare,
    JointKey,
    PersonalKey,
    combine_exponent_shares,
    distinct,
    holder_context,
    lagrange_at_zero,
    require_quorum,
)
from .proofs import Blame, RecipientShareProof
from .transcript import Context, Transcript

DOMAIN = "xmas-tui/dealing/open"


def _transcript(kind: str, context: Context, holder: int, ct: Ciphertext) -> Transcript:
    transcript = Transcript(f"{DOMAIN}/{kind}", holder_context(context, holder))
    transcript.absorb("ciphertext", ct.c1, ct.c2)
    return transcript


# ------------------------------------------------------------ public opening
#: Holder j's ``D_j = x_j·c1`` for one ciphertext, with its Chaum–Pedersen proof.
DecryptionShare = ExponentShare


def decryption_share(
    ct: Ciphertext, holder: int, secret: int, context: Context, rand: Rand | None = None
) -> DecryptionShare:
    return ExponentShare.make(
        holder, secret, ct.c1, _transcript("public", context, holder, ct), rand
    )


def verify_decryption_share(
    ct: Ciphertext, share: DecryptionShare, joint: JointKey, context: Context
) -> bool:
    """Whether the share is right; a wrong one is its holder's fault."""
    if share.holder < 1:
        return False
    return share.verify(joint, ct.c1, _transcript("public", context, share.holder, ct))


def combine_public(
    ct: Ciphertext,
    shares: Sequence[DecryptionShare],
    joint: JointKey,
    context: Context,
    *,
    checked: bool = False,
) -> Point:
    """The plaintext point from t distinct valid shares (``Blame`` names a wrong one)."""

    def check(share: ExponentShare) -> bool:
        return verify_decryption_share(ct, share, joint, context)

    return sub(
        ct.c2, combine_exponent_shares(shares, joint, None if checked else check, "decryption")
    )


# ----------------------------------------------------------- private opening
@dataclass(frozen=True, slots=True)
class RecipientShare:
    """Holder ``holder``'s share for one recipient: ``R = k·G``, ``E = x_j·c1 + k·P_s``."""

    holder: int
    r: Point
    e: Point
    proof: RecipientShareProof

    WIRE_BYTES = 2 + 2 * POINT_BYTES + RecipientShareProof.WIRE_BYTES

    def to_wire(self) -> bytes:
        return index_bytes(self.holder) + self.r.encode() + self.e.encode() + self.proof.to_wire()

    @classmethod
    def from_wire(cls, data: bytes) -> RecipientShare:
        read = WireReader(data, cls.WIRE_BYTES, "a recipient share")
        return cls(
            read.index(),
            read.point(allow_identity=True),
            read.point(allow_identity=True),
            RecipientShareProof.from_wire(read.take(RecipientShareProof.WIRE_BYTES)),
        )


def _recipient_transcript(
    context: Context, holder: int, ct: Ciphertext, recipient: Point
) -> Transcript:
    transcript = _transcript("private", context, holder, ct)
    transcript.absorb("recipient", recipient)
    return transcript


def recipient_share(
    ct: Ciphertext,
    holder: int,
    secret: int,
    recipient: Point,
    context: Context,
    rand: Rand | None = None,
) -> RecipientShare:
    """Holder ``holder``'s share of ``ct`` that only the owner of ``recipient`` can use."""
    if recipient.is_identity:
        raise ValueError("a recipient's key is never the identity")
    k = random_scalar(rand)
    r, e = base(k), add(mul(ct.c1, secret), mul(recipient, k))
    statement = (base(secret), r, ct.c1, recipient, e)
    proof = RecipientShareProof.prove(
        secret, k, statement, _recipient_transcript(context, holder, ct, recipient), rand
    )
    return RecipientShare(holder, r, e, proof)


def verify_recipient_share(
    ct: Ciphertext, share: RecipientShare, joint: JointKey, recipient: Point, context: Context
) -> bool:
    """Whether the share is right (every peer can tell); a wrong one is its holder's fault."""
    if not 1 <= share.holder <= joint.n or recipient.is_identity:
        return False
    statement = (joint.share_of(share.holder), share.r, ct.c1, recipient, share.e)
    return share.proof.verify(
        statement, _recipient_transcript(context, share.holder, ct, recipient)
    )


def combine_private(
    ct: Ciphertext,
    shares: Sequence[RecipientShare],
    joint: JointKey,
    key: PersonalKey,
    context: Context,
    *,
    own: tuple[int, int] | None = None,
    checked: bool = False,
) -> Point:
    """The plaintext point, for the owner of ``key`` only.

    ``own`` is ``(holder, secret)`` where the recipient is itself a holder: its plain
    share counts among the t. ``Blame`` names the author of a wrong share.
    """
    if not checked:
        for share in shares:
            if not verify_recipient_share(ct, share, joint, key.public, context):
                raise Blame(share.holder, "its share for the recipient fails its proof")
    by_holder = {s.holder: s for s in distinct(shares)}
    if own is not None and own[0] in by_holder:
        raise ValueError("the recipient's own share came twice")
    if own is not None and base(own[1]) != joint.share_of(own[0]):
        raise ValueError(f"that is not holder {own[0]}'s secret share")
    chosen = require_quorum(([own[0]] if own is not None else []) + list(by_holder), joint)
    lambdas = lagrange_at_zero(chosen)
    others = [(j, lam) for j, lam in zip(chosen, lambdas, strict=True) if j in by_holder]
    masked = lincomb([by_holder[j].e for j, _ in others], [lam for _, lam in others])
    pads = lincomb([by_holder[j].r for j, _ in others], [lam for _, lam in others])
    decryption = sub(masked, mul(pads, key.secret))
    if own is not None:  # the recipient's own holder index comes first, so it is chosen
        decryption = add(decryption, mul(ct.c1, own[1] * lambdas[0]))
    return sub(ct.c2, decryption)
