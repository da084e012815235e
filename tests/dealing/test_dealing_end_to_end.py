"""A whole deal among four key holders (t = 3), everything on the wire form: the DKG, a
shuffle by each, every proof checked by every peer, a card opened to its owner, one
opened to all, a beacon value; then each attack the issue names is caught and its
author named."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from dealkit import scripted

from netcode.dealing import beacon, cards, keys, opening
from netcode.dealing.elgamal import Ciphertext, deck_from_wire, deck_to_wire, encrypt
from netcode.dealing.group import G, add, random_scalar
from netcode.dealing.proofs import Blame
from netcode.dealing.shuffle import ShuffleProof, shuffle, verify_shuffle

TABLE = "table-e2e"
GAME = "christmas-tree"
FACES = ["angel", "angel", "bauble", "bell", "candle", "gift", "star", "star"]
N = 4


@dataclass
class Holder:
    index: int
    key: keys.PersonalKey
    secret: int = 0


@dataclass
class Deal:
    holders: list[Holder]
    joint: keys.JointKey
    decks: list[list[Ciphertext]]  # the initial deck, then after each shuffle


def context(purpose: str, round_: int, seat: int | None = None) -> dict[str, str | int]:
    base = {"table": TABLE, "purpose": purpose, "round": round_}
    return base if seat is None else {**base, "seat": seat}


def run_dkg(rand: Callable[[], int]) -> tuple[list[Holder], keys.JointKey]:
    holders = [Holder(i, keys.PersonalKey.generate(rand)) for i in range(1, N + 1)]
    publics = [h.key.public for h in holders]
    t = keys.threshold(N)
    dkg = context("dkg", 0)
    wires = [keys.deal(h.index, h.key, publics, t, dkg, rand).to_wire() for h in holders]
    dealings = [keys.Dealing.from_wire(w, N, t) for w in wires]  # as every peer receives them
    for dealing in dealings:
        keys.check_dealing(dealing, publics, t, dkg)
    joint = keys.joint_key(dealings, N, t)
    for h in holders:
        shares = {d.dealer: keys.open_share(d, h.index, h.key, publics, dkg) for d in dealings}
        h.secret = keys.secret_share(joint, h.index, shares)
    return holders, joint


def shuffle_round(
    joint: keys.JointKey,
    deck: list[Ciphertext],
    round_: int,
    cheat: Callable[[int, list[Ciphertext], ShuffleProof], tuple[bytes, bytes] | None]
    | None = None,
) -> list[list[Ciphertext]]:
    """Each holder shuffles in turn; every peer checks each proof and names a failing one."""
    decks = [deck]
    for seat in range(1, N + 1):
        new, proof = shuffle(joint.public, decks[-1], context("shuffle", round_, seat))
        deck_wire, proof_wire = deck_to_wire(new), proof.to_wire()
        if cheat is not None:
            deck_wire, proof_wire = cheat(seat, new, proof) or (deck_wire, proof_wire)
        for _peer in range(N):
            received = deck_from_wire(deck_wire)
            proof = ShuffleProof.from_wire(proof_wire, len(received))
            if not verify_shuffle(
                joint.public, decks[-1], received, proof, context("shuffle", round_, seat)
            ):
                raise Blame(seat, "its shuffle proof fails")
        decks.append(received)
    return decks


@pytest.fixture(scope="module")
def deal() -> Deal:
    holders, joint = run_dkg(scripted(11))
    initial = cards.initial_deck(joint.public, GAME, FACES)
    return Deal(holders, joint, shuffle_round(joint, initial, 1))


def test_the_deal_opens_a_card_to_its_owner_one_to_all_and_a_beacon(deal: Deal) -> None:
    holders, joint, deck = deal.holders, deal.joint, deal.decks[-1]
    faces = cards.Faces(GAME, FACES)
    # card 0 goes to holder 2's seat: two others send recipient-bound shares, all peers check
    owner = holders[1]
    ct, ctx = deck[0], context("open", 100)
    sent = [
        opening.recipient_share(ct, h.index, h.secret, owner.key.public, ctx).to_wire()
        for h in holders[2:]
    ]
    received = [opening.RecipientShare.from_wire(w) for w in sent]
    for _peer in holders:
        assert all(
            opening.verify_recipient_share(ct, s, joint, owner.key.public, ctx) for s in received
        )
    private = faces.decode(
        opening.combine_private(
            ct, received, joint, owner.key, ctx, own=(owner.index, owner.secret)
        )
    )

    # card 1 is opened to everyone by three holders
    def open_to_all(ct: Ciphertext, round_: int) -> str:
        ctx = context("open", round_)
        shares = [opening.decryption_share(ct, h.index, h.secret, ctx) for h in holders[:3]]
        return faces.decode(opening.combine_public(ct, shares, joint, ctx))

    assert private in FACES and open_to_all(deck[1], 101) in FACES
    # the beacon: the same value whichever three holders answer
    values = {
        beacon.combine_beacon(
            TABLE, 1, [beacon.beacon_share(TABLE, 1, h.index, h.secret) for h in group], joint
        )
        for group in (holders[:3], holders[1:])
    }
    assert len(values) == 1
    # the whole deck still holds exactly the faces it started with
    assert sorted(open_to_all(ct, 200 + i) for i, ct in enumerate(deck)) == sorted(FACES)


def swapped_card(deal: Deal, new: list[Ciphertext]) -> list[Ciphertext]:
    return [encrypt(deal.joint.public, cards.encode(GAME, "star"), random_scalar()), *new[1:]]


def duplicated_card(deal: Deal, new: list[Ciphertext]) -> list[Ciphertext]:
    return [new[1], *new[1:]]


def wrong_reencryption(deal: Deal, new: list[Ciphertext]) -> list[Ciphertext]:
    return [Ciphertext(new[0].c1, add(new[0].c2, G)), *new[1:]]


def unshuffled(deal: Deal, new: list[Ciphertext]) -> list[Ciphertext]:
    return list(deal.decks[0])  # the deck it was given, passed on as it came


@pytest.mark.parametrize("cheat", [swapped_card, duplicated_card, wrong_reencryption, unshuffled])
def test_a_wrong_shuffle_is_caught_and_its_shuffler_named(
    deal: Deal, cheat: Callable[[Deal, list[Ciphertext]], list[Ciphertext]]
) -> None:
    def third_seat_cheats(
        seat: int, new: list[Ciphertext], proof: ShuffleProof
    ) -> tuple[bytes, bytes] | None:
        return (deck_to_wire(cheat(deal, new)), proof.to_wire()) if seat == 3 else None

    with pytest.raises(Blame) as caught:
        shuffle_round(deal.joint, deal.decks[0], 2, third_seat_cheats)
    assert caught.value.culprit == 3


def test_a_shuffle_proof_replayed_from_another_round_is_caught(deal: Deal) -> None:
    # seat 1 re-sends, in round 2, a shuffle of the same starting deck it made in round 1
    old_deck, old_proof = shuffle(deal.joint.public, deal.decks[0], context("shuffle", 1, 1))
    assert verify_shuffle(
        deal.joint.public, deal.decks[0], old_deck, old_proof, context("shuffle", 1, 1)
    )

    def replay(seat: int, new: list[Ciphertext], proof: ShuffleProof) -> tuple[bytes, bytes] | None:
        return (deck_to_wire(old_deck), old_proof.to_wire()) if seat == 1 else None

    with pytest.raises(Blame) as caught:
        shuffle_round(deal.joint, deal.decks[0], 2, replay)
    assert caught.value.culprit == 1


def test_a_wrong_decryption_share_is_caught_and_its_holder_named(deal: Deal) -> None:
    holders, joint = deal.holders, deal.joint
    ct, ctx = deal.decks[-1][2], context("open", 300)
    liar = holders[3]
    shares = [opening.decryption_share(ct, h.index, h.secret, ctx) for h in holders[:2]]
    forged = opening.decryption_share(ct, liar.index, liar.secret + 1, ctx)
    for _peer in holders:
        assert not opening.verify_decryption_share(ct, forged, joint, ctx)
    with pytest.raises(Blame) as caught:
        opening.combine_public(ct, [*shares, forged], joint, ctx)
    assert caught.value.culprit == liar.index
    owner = holders[0]
    forged_private = opening.recipient_share(ct, liar.index, liar.secret + 1, owner.key.public, ctx)
    with pytest.raises(Blame) as caught:
        opening.combine_private(
            ct,
            [
                forged_private,
                opening.recipient_share(ct, 2, holders[1].secret, owner.key.public, ctx),
            ],
            joint,
            owner.key,
            ctx,
            own=(1, owner.secret),
        )
    assert caught.value.culprit == liar.index


def test_a_decryption_share_replayed_from_another_round_is_caught(deal: Deal) -> None:
    holders, joint = deal.holders, deal.joint
    ct = deal.decks[-1][3]
    old = opening.decryption_share(ct, 2, holders[1].secret, context("open", 400))
    assert opening.verify_decryption_share(ct, old, joint, context("open", 400))
    assert not opening.verify_decryption_share(ct, old, joint, context("open", 401))
    with pytest.raises(Blame) as caught:
        opening.combine_public(
            ct,
            [
                old,
                *(
                    opening.decryption_share(ct, h.index, h.secret, context("open", 401))
                    for h in (holders[0], holders[2])
                ),
            ],
            joint,
            context("open", 401),
        )
    assert caught.value.culprit == 2
