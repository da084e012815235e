"""Opening a card: t proved shares open it to everyone or to one seat only; fewer than t,
a wrong share, a share for someone else or from another round open nothing."""

from __future__ import annotations

import dataclasses

import pytest
from dealkit import OPEN, table

from netcode.dealing import cards, opening
from netcode.dealing.elgamal import encrypt
from netcode.dealing.group import G, add, lincomb, mul, random_scalar, sub
from netcode.dealing.keys import PersonalKey, lagrange_at_zero
from netcode.dealing.proofs import Blame

GAME = "test-game"
FACES = cards.Faces(GAME, ["angel", "bell", "candle"])


def card(face: str = "bell"):
    return encrypt(table(4).joint.public, cards.encode(GAME, face), random_scalar())


def test_any_t_valid_decryption_shares_open_a_card_to_everyone() -> None:
    dealt, ct = table(4), card()
    shares = [opening.decryption_share(ct, j, dealt.secrets[j - 1], OPEN) for j in (1, 2, 3, 4)]
    shares = [opening.DecryptionShare.from_wire(s.to_wire()) for s in shares]
    for subset in ([0, 1, 2], [1, 2, 3], [3, 0, 2]):
        chosen = [shares[i] for i in subset]
        assert FACES.decode(opening.combine_public(ct, chosen, dealt.joint, OPEN)) == "bell"
    with pytest.raises(ValueError, match="3 are needed"):
        opening.combine_public(ct, shares[:2], dealt.joint, OPEN)
    with pytest.raises(ValueError, match="two shares"):
        opening.combine_public(ct, [shares[0], shares[0], shares[1]], dealt.joint, OPEN)


def test_a_wrong_decryption_share_is_rejected_by_every_checker_and_its_author_named() -> None:
    dealt, ct = table(4), card()
    liar = 2
    wrong = opening.decryption_share(ct, liar, dealt.secrets[liar - 1] + 1, OPEN)
    assert not any(
        opening.verify_decryption_share(ct, wrong, dealt.joint, OPEN) for _peer in range(4)
    )
    # a right point with a proof made for another card or another round fails as well
    right = opening.decryption_share(ct, liar, dealt.secrets[liar - 1], OPEN)
    assert opening.verify_decryption_share(ct, right, dealt.joint, OPEN)
    assert not opening.verify_decryption_share(card(), right, dealt.joint, OPEN)
    assert not opening.verify_decryption_share(ct, right, dealt.joint, {**OPEN, "round": 4})
    assert not opening.verify_decryption_share(
        ct, dataclasses.replace(right, holder=3), dealt.joint, OPEN
    )
    assert not opening.verify_decryption_share(
        ct, dataclasses.replace(right, holder=9), dealt.joint, OPEN
    )
    others = [opening.decryption_share(ct, j, dealt.secrets[j - 1], OPEN) for j in (1, 3)]
    with pytest.raises(Blame) as caught:
        opening.combine_public(ct, [*others, wrong], dealt.joint, OPEN)
    assert caught.value.culprit == liar


def test_a_card_opened_to_one_seat_is_read_by_that_seat_alone() -> None:
    dealt, ct = table(4), card("candle")
    owner = 4  # holder 4 is the seat the rules open the card to
    key = dealt.personal[owner - 1]
    shares = [
        opening.recipient_share(ct, j, dealt.secrets[j - 1], key.public, OPEN) for j in (1, 2)
    ]
    shares = [opening.RecipientShare.from_wire(s.to_wire()) for s in shares]
    # every peer can check every share on receipt
    assert all(opening.verify_recipient_share(ct, s, dealt.joint, key.public, OPEN) for s in shares)
    own = (owner, dealt.secrets[owner - 1])
    face = opening.combine_private(ct, shares, dealt.joint, key, OPEN, own=own)
    assert FACES.decode(face) == "candle"
    # the t − 1 public shares and everything public do not give the face
    for guess in (sub(ct.c2, add(shares[0].e, shares[1].e)), sub(ct.c2, shares[0].e), ct.c2):
        with pytest.raises(ValueError):
            FACES.decode(guess)
    # t − 1 holders pooling their secrets get a wrong point
    colluders = [1, 2]
    pooled = lincomb(
        [mul(ct.c1, dealt.secrets[j - 1]) for j in colluders], lagrange_at_zero(colluders)
    )
    with pytest.raises(ValueError):
        FACES.decode(sub(ct.c2, pooled))
    # another player's key in place of the owner's gives a wrong point
    thief = dealt.personal[2]
    with pytest.raises(Blame):  # its shares are not for the thief
        opening.combine_private(ct, shares, dealt.joint, thief, OPEN, own=(3, dealt.secrets[2]))
    stolen = opening.combine_private(
        ct, shares, dealt.joint, thief, OPEN, own=(3, dealt.secrets[2]), checked=True
    )
    with pytest.raises(ValueError):
        FACES.decode(stolen)
    with pytest.raises(ValueError, match="secret share"):
        opening.combine_private(ct, shares, dealt.joint, key, OPEN, own=(owner, own[1] + 1))
    # without its own share the owner has t − 1 and is refused
    with pytest.raises(ValueError, match="3 are needed"):
        opening.combine_private(ct, shares, dealt.joint, key, OPEN)


def test_a_seat_that_holds_no_share_needs_t_shares() -> None:
    dealt, ct = table(4), card("angel")
    spectator = PersonalKey.generate()
    shares = [
        opening.recipient_share(ct, j, dealt.secrets[j - 1], spectator.public, OPEN)
        for j in (2, 3, 4)
    ]
    assert (
        FACES.decode(opening.combine_private(ct, shares, dealt.joint, spectator, OPEN)) == "angel"
    )
    with pytest.raises(ValueError):
        opening.combine_private(ct, shares[:2], dealt.joint, spectator, OPEN)


def test_a_wrong_recipient_share_is_rejected_by_every_checker_and_its_author_named() -> None:
    dealt, ct = table(4), card()
    owner = dealt.personal[3]
    liar = 1
    wrong = opening.recipient_share(ct, liar, dealt.secrets[liar - 1] + 7, owner.public, OPEN)
    assert not any(
        opening.verify_recipient_share(ct, wrong, dealt.joint, owner.public, OPEN)
        for _peer in range(4)
    )
    # a share altered on the way: E moved by G
    right = opening.recipient_share(ct, 2, dealt.secrets[1], owner.public, OPEN)
    moved = dataclasses.replace(right, e=add(right.e, G))
    assert not opening.verify_recipient_share(ct, moved, dealt.joint, owner.public, OPEN)
    # made for one seat, presented as for another; or from another round
    other = dealt.personal[2].public
    assert not opening.verify_recipient_share(ct, right, dealt.joint, other, OPEN)
    assert not opening.verify_recipient_share(
        ct, right, dealt.joint, owner.public, {**OPEN, "round": 9}
    )
    with pytest.raises(Blame) as caught:
        opening.combine_private(
            ct, [wrong, right], dealt.joint, owner, OPEN, own=(4, dealt.secrets[3])
        )
    assert caught.value.culprit == liar
    with pytest.raises(ValueError):
        opening.recipient_share(ct, 1, dealt.secrets[0], mul(G, 0), OPEN)
