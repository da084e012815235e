"""The joint key: an honest DKG gives one key and consistent shares; a lying dealer or a
lying accuser is named by every peer alike; nothing the host relays opens a share."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from dealkit import DKG, scripted, table

from netcode.dealing import keys
from netcode.dealing.group import IDENTITY, ORDER, base, mul, random_scalar, scalar_bytes
from netcode.dealing.proofs import Blame


def test_the_threshold_is_a_majority_and_never_one_with_two_players() -> None:
    assert [keys.threshold(n) for n in range(1, 9)] == [1, 2, 2, 3, 3, 4, 4, 5]
    with pytest.raises(ValueError):
        keys.threshold(0)


@pytest.mark.parametrize(("n", "t"), [(1, 1), (2, 2), (4, 3)])
def test_an_honest_dkg_gives_one_key_that_any_t_holders_share(n: int, t: int) -> None:
    dealt = table(n, t)
    joint = dealt.joint
    assert joint.public == keys.joint_key(list(reversed(dealt.dealings)), n, t).public
    x = dealt.joint_secret()
    assert base(x) == joint.public
    for j, secret in enumerate(dealt.secrets, start=1):
        assert base(secret) == joint.share_of(j)
    for subset in itertools.combinations(range(1, n + 1), t):
        lambdas = keys.lagrange_at_zero(list(subset))
        assert (
            sum(lam * dealt.secrets[j - 1] for lam, j in zip(lambdas, subset, strict=True)) % ORDER
            == x
        )
    if t > 1:  # fewer than t shares interpolate to something else
        subset = list(range(1, t))
        lambdas = keys.lagrange_at_zero(subset)
        assert (
            sum(lam * dealt.secrets[j - 1] for lam, j in zip(lambdas, subset, strict=True)) % ORDER
            != x
        )


def test_personal_keys_and_signatures_are_bound_to_their_seat() -> None:
    key = keys.PersonalKey.generate()
    seat = {"table": "table-7", "purpose": "hello", "round": 0, "seat": 2}
    proof = key.prove(seat)
    assert keys.verify_personal_key(key.public, proof, seat)
    assert not keys.verify_personal_key(key.public, proof, {**seat, "seat": 3})
    signature = keys.sign(key, b"deck digest", seat)
    assert keys.verify_signature(key.public, b"deck digest", signature, seat)
    assert not keys.verify_signature(key.public, b"deck digest!", signature, seat)
    assert not keys.verify_signature(key.public, b"deck digest", signature, {**seat, "round": 1})
    assert not keys.verify_signature(
        keys.PersonalKey.generate().public, b"deck digest", signature, seat
    )
    assert "secret" not in repr(key)


def cheating_dealing(dealt, dealer: int, victim: int, *, garbage: bool = False) -> keys.Dealing:
    """The dealer's own code: a dealing that is right for everyone except ``victim``."""
    t, publics = dealt.t, dealt.publics
    key = dealt.personal[dealer - 1]
    coefficients = [random_scalar() for _ in range(t)]
    commitments = tuple(base(a) for a in coefficients)
    honest = keys.deal(dealer, key, publics, t, DKG)  # for its proof's shape only
    proof = keys.SchnorrProof.prove(
        coefficients[0], commitments[0], keys._proof_transcript(DKG, dealer, commitments)
    )
    sealed = list(honest.sealed)
    for j in range(1, dealt.n + 1):
        share = keys._evaluate(coefficients, j) + (1 if j == victim else 0)
        aead, binding = keys._seal_key(
            mul(publics[j - 1], key.secret), DKG, dealer, j, publics, commitments
        )
        sealed[j - 1] = aead.encrypt(bytes(12), scalar_bytes(share), binding)
    if garbage:
        sealed[victim - 1] = bytes(keys.SEALED_SHARE_BYTES)
    return keys.Dealing(dealer, commitments, proof, tuple(sealed))


@pytest.mark.parametrize("garbage", [False, True])
def test_a_dealer_who_sends_a_wrong_share_is_named_by_every_peer(garbage: bool) -> None:
    dealt = table(4)
    bad = cheating_dealing(dealt, dealer=2, victim=3, garbage=garbage)
    keys.check_dealing(bad, dealt.publics, dealt.t, DKG)  # the public checks cannot see it
    for j in (1, 2, 4):
        keys.open_share(bad, j, dealt.personal[j - 1], dealt.publics, DKG)
    with pytest.raises(Blame) as caught:
        keys.open_share(bad, 3, dealt.personal[2], dealt.publics, DKG)
    assert caught.value.culprit == 2
    complaint = keys.complain(bad, 3, dealt.personal[2], dealt.publics, DKG)
    complaint = keys.Complaint.from_wire(complaint.to_wire())
    verdicts = {keys.judge(complaint, bad, dealt.publics, dealt.t, DKG) for _peer in range(4)}
    assert verdicts == {2}


def test_an_accuser_who_lies_about_an_honest_dealing_is_named() -> None:
    dealt = table(4)
    honest = dealt.dealings[0]
    complaint = keys.complain(honest, 3, dealt.personal[2], dealt.publics, DKG)
    assert keys.judge(complaint, honest, dealt.publics, dealt.t, DKG) == 3


def test_an_accuser_who_shows_a_made_up_key_is_named() -> None:
    dealt = table(4)
    bad = cheating_dealing(dealt, dealer=1, victim=3)
    real = keys.complain(bad, 3, dealt.personal[2], dealt.publics, DKG)
    forged = dataclasses.replace(real, dh=base(random_scalar()))
    assert keys.judge(forged, bad, dealt.publics, dealt.t, DKG) == 3
    # a complaint made in another DKG round does not count in this one
    replay = keys.complain(bad, 3, dealt.personal[2], dealt.publics, {**DKG, "round": 1})
    assert keys.judge(replay, bad, dealt.publics, dealt.t, DKG) == 3


def test_a_dealing_that_fails_the_public_checks_names_its_dealer() -> None:
    dealt = table(4)
    dealing = dealt.dealings[1]
    copied = dataclasses.replace(dealt.dealings[0], dealer=2)  # someone else's commitments
    short = dataclasses.replace(dealing, commitments=dealing.commitments[:-1])
    unsealed = dataclasses.replace(dealing, sealed=dealing.sealed[:-1])
    proofless = dataclasses.replace(dealing, proof=dealt.dealings[0].proof)
    for bad in (copied, short, unsealed, proofless):
        with pytest.raises(Blame) as caught:
            keys.check_dealing(bad, dealt.publics, dealt.t, DKG)
        assert caught.value.culprit == 2
    with pytest.raises(Blame):  # a dealing from another round
        keys.check_dealing(dealing, dealt.publics, dealt.t, {**DKG, "round": 9})


def test_sealed_shares_open_only_for_their_recipient_pair_and_round() -> None:
    dealt = table(4)
    dealing = dealt.dealings[0]
    # the host relays every sealed share; moved to another holder's slot it does not open
    moved = dataclasses.replace(dealing, sealed=(dealing.sealed[1], *dealing.sealed[1:]))
    with pytest.raises(Blame):
        keys.open_share(moved, 1, dealt.personal[0], dealt.publics, DKG)
    with pytest.raises(Blame):
        keys.open_share(dealing, 2, dealt.personal[1], dealt.publics, {**DKG, "table": "x"})
    share = keys.open_share(dealing, 2, dealt.personal[1], dealt.publics, DKG)
    assert scalar_bytes(share) not in dealing.to_wire()


def test_dealings_and_complaints_travel_in_a_strict_wire_form() -> None:
    dealt = table(4)
    dealing = dealt.dealings[2]
    wire = dealing.to_wire()
    assert keys.Dealing.from_wire(wire, 4, 3) == dealing
    assert len(wire) == 2 + 3 * 32 + 64 + 4 * 48
    with pytest.raises(ValueError):
        keys.Dealing.from_wire(wire[:-1], 4, 3)
    with pytest.raises(ValueError):
        keys.Dealing.from_wire(wire, 4, 2)
    with pytest.raises(ValueError, match="identity"):
        keys.Dealing.from_wire(wire[:2] + bytes(32) + wire[34:], 4, 3)


def test_results_refuse_what_does_not_add_up() -> None:
    dealt = table(4)
    with pytest.raises(ValueError):
        keys.joint_key([dealt.dealings[0], dealt.dealings[0]], 4, 3)
    shares = {
        d.dealer: keys.open_share(d, 1, dealt.personal[0], dealt.publics, DKG)
        for d in dealt.dealings
    }
    assert keys.secret_share(dealt.joint, 1, shares) == dealt.secrets[0]
    with pytest.raises(ValueError):
        keys.secret_share(dealt.joint, 1, {**shares, 1: shares[1] + 1})
    with pytest.raises(ValueError):
        keys.secret_share(dealt.joint, 1, {1: shares[1]})
    with pytest.raises(ValueError):
        keys.deal(1, dealt.personal[1], dealt.publics, 3, DKG)
    with pytest.raises(ValueError, match="seat"):
        keys.holder_context({**DKG, "seat": 1}, 1)
    assert IDENTITY not in dealt.joint.public_shares


def test_the_fingerprint_changes_when_any_personal_key_is_swapped() -> None:
    dealt = table(4)
    honest = keys.fingerprint(dealt.publics, dealt.joint)
    swapped = [*dealt.publics[:3], keys.PersonalKey.generate(scripted(5)).public]
    assert keys.fingerprint(swapped, dealt.joint) != honest
    assert len(honest.replace("-", "")) == 32
