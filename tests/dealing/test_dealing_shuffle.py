"""The proof of shuffle: an honest shuffle verifies, and a swapped, dropped or duplicated
card, a wrong re-encryption, a proof from another context or a bent proof field does not."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from dealkit import scripted, shuffle_context, table
from hypothesis import given, settings
from hypothesis import strategies as st

from netcode.dealing import cards
from netcode.dealing.elgamal import Ciphertext, decrypt, encrypt, reencrypt
from netcode.dealing.group import G, add, random_scalar
from netcode.dealing.shuffle import ShuffleProof, generators, prove_shuffle, shuffle, verify_shuffle

GAME = "test-game"
FACES = ["angel", "bell", "candle", "dove", "elf", "fir", "gift"]
decks = st.lists(st.sampled_from(FACES), min_size=1, max_size=6)
fast = settings(max_examples=8, deadline=None)


def faces_of(deck: list[Ciphertext]) -> Counter[str]:
    dealt = table(4)
    x = dealt.joint_secret()
    known = cards.Faces(GAME, FACES)
    return Counter(known.decode(decrypt(x, ct)) for ct in deck)


def shuffled(
    faces: list[str], seed: int
) -> tuple[list[Ciphertext], list[Ciphertext], ShuffleProof]:
    pk = table(4).joint.public
    deck = cards.initial_deck(pk, GAME, faces)
    new, proof = shuffle(pk, deck, shuffle_context(1), scripted(seed))
    return deck, new, proof


@fast
@given(decks, st.integers(0, 10**6))
def test_an_honest_shuffle_verifies_and_keeps_every_card(faces: list[str], seed: int) -> None:
    pk = table(4).joint.public
    deck, new, proof = shuffled(faces, seed)
    assert verify_shuffle(pk, deck, new, proof, shuffle_context(1))
    assert faces_of(new) == Counter(faces)
    assert not set(deck) & set(new)  # every card re-encrypted: none can be followed
    again = ShuffleProof.from_wire(proof.to_wire(), len(deck))
    assert again == proof and len(proof.to_wire()) == ShuffleProof.wire_bytes(len(deck))


@fast
@given(decks, st.integers(0, 10**6), st.data())
def test_a_swapped_card_is_caught(faces: list[str], seed: int, data: st.DataObject) -> None:
    pk = table(4).joint.public
    deck, new, proof = shuffled(faces, seed)
    i = data.draw(st.integers(0, len(new) - 1))
    other = data.draw(st.sampled_from([f for f in FACES if f not in faces] or ["zebra"]))
    swapped = [*new]
    swapped[i] = encrypt(pk, cards.encode(GAME, other), random_scalar())
    assert not verify_shuffle(pk, deck, swapped, proof, shuffle_context(1))


@fast
@given(st.lists(st.sampled_from(FACES), min_size=2, max_size=6, unique=True), st.integers(0, 10**6))
def test_a_dropped_or_duplicated_card_is_caught(faces: list[str], seed: int) -> None:
    pk = table(4).joint.public
    deck, new, proof = shuffled(faces, seed)
    duplicated = [*new]
    duplicated[0] = reencrypt(pk, new[1], random_scalar())  # card 0 dropped, card 1 twice
    assert not verify_shuffle(pk, deck, duplicated, proof, shuffle_context(1))
    assert not verify_shuffle(pk, deck, new[:-1], proof, shuffle_context(1))
    assert not verify_shuffle(pk, deck[:-1], new[:-1], proof, shuffle_context(1))


@fast
@given(decks, st.integers(0, 10**6), st.data())
def test_a_wrong_re_encryption_is_caught(faces: list[str], seed: int, data: st.DataObject) -> None:
    pk = table(4).joint.public
    deck, new, proof = shuffled(faces, seed)
    i = data.draw(st.integers(0, len(new) - 1))
    for bent in (
        Ciphertext(add(new[i].c1, G), new[i].c2),
        Ciphertext(new[i].c1, add(new[i].c2, G)),
    ):
        wrong = [*new]
        wrong[i] = bent
        assert not verify_shuffle(pk, deck, wrong, proof, shuffle_context(1))


@fast
@given(decks, st.integers(0, 10**6))
def test_a_proof_from_another_table_round_or_seat_is_refused(faces: list[str], seed: int) -> None:
    pk = table(4).joint.public
    deck, new, proof = shuffled(faces, seed)
    for elsewhere in (
        shuffle_context(2),
        shuffle_context(1, round_=2),
        shuffle_context(1, table="t"),
    ):
        assert not verify_shuffle(pk, deck, new, proof, elsewhere)
    assert not verify_shuffle(table(2).joint.public, deck, new, proof, shuffle_context(1))


FIELDS = ["c", "c_hat", "t1", "t2", "t3", "t4", "t_hat", "s1", "s2", "s3", "s4", "s_hat", "s_prime"]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(FIELDS), st.data())
def test_a_tampered_proof_field_is_refused(field: str, data: st.DataObject) -> None:
    pk = table(4).joint.public
    deck, new, proof = shuffled(["angel", "bell", "candle"], 7)
    value = getattr(proof, field)
    if isinstance(value, int):
        bent = value + data.draw(st.integers(1, 2**64))
    elif isinstance(value, tuple):
        i = data.draw(st.integers(0, len(value) - 1))
        item = value[i]
        changed = item + 1 if isinstance(item, int) else add(item, G)
        bent = (*value[:i], changed, *value[i + 1 :])
    else:
        bent = add(value, G)
    tampered = dataclasses.replace(proof, **{field: bent})
    assert not verify_shuffle(pk, deck, new, tampered, shuffle_context(1))


@pytest.mark.parametrize("field", ["c", "c_hat", "t_hat", "s_hat", "s_prime"])
def test_a_proof_with_a_vector_cut_short_is_refused(field: str) -> None:
    pk = table(4).joint.public
    deck, new, proof = shuffled(["angel", "bell", "candle"], 8)
    short = dataclasses.replace(proof, **{field: getattr(proof, field)[:-1]})
    assert not verify_shuffle(pk, deck, new, short, shuffle_context(1))


def test_a_cheating_shuffler_cannot_prove_a_swap_with_any_witness() -> None:
    pk = table(4).joint.public
    deck = cards.initial_deck(pk, GAME, ["angel", "bell", "candle"])
    randomness = [random_scalar() for _ in deck]
    permutation = [2, 0, 1]
    honest = [reencrypt(pk, deck[j], randomness[j]) for j in permutation]
    cheat = [*honest]
    cheat[1] = reencrypt(pk, deck[2], randomness[0])  # "angel" out, "candle" twice
    proof = prove_shuffle(pk, deck, cheat, permutation, randomness, shuffle_context(1))
    assert not verify_shuffle(pk, deck, cheat, proof, shuffle_context(1))
    with pytest.raises(ValueError):
        prove_shuffle(pk, deck, honest, [0, 0, 1], randomness, shuffle_context(1))
    proof = prove_shuffle(pk, deck, honest, permutation, randomness, shuffle_context(1))
    assert verify_shuffle(pk, deck, honest, proof, shuffle_context(1))


def test_the_generators_are_independent_of_each_other_and_of_the_context() -> None:
    h, hs = generators(shuffle_context(1), 5)
    assert len({h, *hs, G}) == 7
    assert generators(shuffle_context(2), 5)[1][0] != hs[0]
    assert generators(shuffle_context(1), 6)[1][:5] == hs


def test_the_wire_form_is_strict() -> None:
    deck, new, proof = shuffled(["angel", "bell"], 3)
    wire = proof.to_wire()
    with pytest.raises(ValueError):
        ShuffleProof.from_wire(wire, 3)
    with pytest.raises(ValueError):
        ShuffleProof.from_wire(wire[:-32] + (2**255).to_bytes(32, "little"), 2)
    with pytest.raises(ValueError):
        ShuffleProof.from_wire(bytes(ShuffleProof.wire_bytes(0)), 0)
    aliased = bytearray(wire)
    aliased[31] |= 0x80  # the first point, with the bit libsodium 1.0.18 ignores
    with pytest.raises(ValueError):
        ShuffleProof.from_wire(bytes(aliased), 2)
    with pytest.raises(ValueError):
        shuffle(table(4).joint.public, [], shuffle_context(1))
