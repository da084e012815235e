"""Faces as points, and the public starting deck anyone can recompute."""

from __future__ import annotations

from collections import Counter

import pytest
from dealkit import table

from netcode.dealing import cards
from netcode.dealing.elgamal import Ciphertext, deck_from_wire, deck_to_wire, decrypt
from netcode.dealing.group import G


def test_faces_decode_and_a_point_that_is_no_card_is_refused() -> None:
    faces = cards.Faces("carol", ["ghost", "bell", "ghost"])
    assert len(faces) == 2 and "ghost" in faces
    assert faces.decode(cards.encode("carol", "bell")) == "bell"
    assert cards.encode("carol", "bell") != cards.encode("tree", "bell")
    with pytest.raises(ValueError, match="no card"):
        faces.decode(cards.encode("tree", "bell"))
    with pytest.raises(ValueError):
        faces.decode(G)


def test_the_initial_deck_is_public_sorted_and_holds_every_copy() -> None:
    dealt = table(4)
    faces = ["star", "bell", "star", "angel"]
    deck = cards.initial_deck(dealt.joint.public, "tree", faces)
    assert deck == cards.initial_deck(dealt.joint.public, "tree", reversed(faces))
    assert all(ct.c1 == G for ct in deck)
    known = cards.Faces("tree", faces)
    x = dealt.joint_secret()
    assert [known.decode(decrypt(x, ct)) for ct in deck] == sorted(faces)
    assert Counter(known.decode(decrypt(x, ct)) for ct in deck) == Counter(faces)


def test_decks_travel_as_64_byte_ciphertexts_strictly_decoded() -> None:
    deck = cards.initial_deck(table(4).joint.public, "tree", ["a", "b"])
    wire = deck_to_wire(deck)
    assert len(wire) == 128 and deck_from_wire(wire) == deck
    assert Ciphertext.from_wire(wire[:64]) == deck[0]
    for bad in (wire[:-1], wire[:32]):
        with pytest.raises(ValueError):
            deck_from_wire(bad)
    with pytest.raises(ValueError):
        deck_from_wire(wire, max_cards=1)
    aliased = bytearray(wire)
    aliased[63] |= 0x80
    with pytest.raises(ValueError):
        deck_from_wire(bytes(aliased))
