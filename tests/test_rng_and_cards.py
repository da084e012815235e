"""The shared foundations: portable randomness and the one card model."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xmas_tui.games.cards import EVERYONE, NOBODY, CardError, Cards, may_see, seat_mask
from xmas_tui.games.rng import Rng, seed_bytes

# ------------------------------------------------------------------ rng


def test_the_same_seed_gives_the_same_numbers_on_every_platform() -> None:
    """Known answers: SHA-256 in counter mode, never Python's ``random``."""
    assert [Rng(1).word() for _ in range(1)] == [18392707971372845763]
    r = Rng(1)
    assert [r.word() for _ in range(3)] == [18392707971372845763, 13419033844985286733, 13249580153771849583]
    r = Rng("abc")
    assert [r.below(10) for _ in range(10)] == [0, 6, 9, 3, 8, 2, 3, 3, 9, 5]
    items = list(range(10))
    Rng(b"\x00").shuffle(items)
    assert items == [4, 7, 1, 8, 9, 2, 6, 3, 5, 0]


def test_the_first_word_is_the_documented_hash() -> None:
    key = hashlib.sha256(b"xmas-tui/rng/v1\x00" + seed_bytes(1)).digest()
    block = hashlib.sha256(key + (0).to_bytes(8, "big")).digest()
    assert Rng(1).word() == int.from_bytes(block[:8], "big")


def test_seeds_of_different_types_differ() -> None:
    assert Rng(1).word() != Rng("1").word() != Rng(b"1").word()
    with pytest.raises(TypeError):
        Rng(True)  # type: ignore[arg-type]


def test_below_is_unbiased() -> None:
    """A chi-square test over 60,000 draws of below(6) (critical value 20.5 at p=0.001, 5 d.f.)."""
    r = Rng("bias")
    counts = Counter(r.below(6) for _ in range(60_000))
    expected = 10_000
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in range(6))
    assert set(counts) == set(range(6))
    assert chi2 < 20.5


def test_a_shuffle_reaches_every_order_evenly() -> None:
    """Fisher–Yates over below(): all 24 orders of 4 cards, each about 1/24 of the time."""
    r = Rng("perm")
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(24_000):
        cards = [0, 1, 2, 3]
        r.shuffle(cards)
        counts[tuple(cards)] += 1
    assert len(counts) == 24
    chi2 = sum((n - 1000) ** 2 / 1000 for n in counts.values())
    assert chi2 < 49.7  # p=0.001, 23 d.f.


@given(st.integers(1, 2**64), st.binary(max_size=8))
def test_below_stays_in_range(n: int, seed: bytes) -> None:
    assert 0 <= Rng(seed).below(n) < n


def test_below_refuses_what_it_cannot_draw_fairly() -> None:
    for n in (0, -3, 2**64 + 1):
        with pytest.raises(ValueError):
            Rng(1).below(n)


def test_a_fork_is_independent_and_does_not_advance() -> None:
    a, b = Rng(5), Rng(5)
    fork = a.fork("bots")
    assert a.word() == b.word()
    assert fork.word() != Rng(5).fork("other").word()


# ------------------------------------------------------------------ cards


def deck(n: int = 10) -> Cards:
    cards = Cards()
    cards.new_deck("deck", [f"c{i}" for i in range(n)], Rng("deck"))
    return cards


def test_new_cards_are_face_down_and_handles_say_nothing_of_faces() -> None:
    cards = deck()
    faces, _ = cards.view(0)
    assert cards.view(0)[1] == {} and cards.view(None)[1] == {}
    assert [cards.face(h) for h in cards.zone("deck")] != [f"c{i}" for i in range(10)]
    assert len(faces["deck"]) == 10


def test_visibility_nobody_one_seat_everyone() -> None:
    cards = deck()
    a, b = cards.zone("deck")[-2:]
    cards.show(a, 1)
    cards.show(b)
    assert cards.view(1)[1] == {a: cards.face(a), b: cards.face(b)}
    assert cards.view(0)[1] == {b: cards.face(b)}
    assert cards.view(None)[1] == {b: cards.face(b)}
    cards.hide(b)
    assert cards.view(0)[1] == {}
    assert may_see(seat_mask(2, 3), 3) and not may_see(seat_mask(2, 3), None)
    assert may_see(EVERYONE, None) and not may_see(NOBODY, 0)


def test_a_shuffle_renames_every_card_and_hides_it() -> None:
    cards = deck()
    before = list(cards.zone("deck"))
    for h in before:
        cards.show(h)
    fresh = cards.shuffle(["deck"], Rng("again"))
    assert not set(before) & set(fresh)
    assert cards.view(None)[1] == {}
    assert sorted(cards.faces("deck")) == sorted(f"c{i}" for i in range(10))
    for old in before:
        assert old not in cards


def test_a_shuffle_of_several_zones_keeps_their_sizes() -> None:
    cards = deck(6)
    for i in range(3):
        cards.draw("deck", f"tree.{i}")
    cards.shuffle(["tree.0", "tree.1", "tree.2"], Rng(3))
    assert [len(cards.zone(f"tree.{i}")) for i in range(3)] == [1, 1, 1]
    assert cards.component_count() == 6


def test_a_sealed_choice_is_seen_by_its_owner_only_until_all_are_opened() -> None:
    cards = deck(2)
    cards.seal(0, "left")
    cards.seal(1, "right")
    assert "left" in cards.view(0)[1].values() and "left" not in cards.view(1)[1].values()
    assert cards.component_count() == 2
    with pytest.raises(CardError):
        cards.seal(0, "again")
    assert cards.unseal_all() == {0: "left", 1: "right"}
    assert cards.sealed(0) is None


def test_moving_a_card_keeps_it_and_can_change_who_sees_it() -> None:
    cards = deck(3)
    h = cards.draw("deck", "hand.1", visible=seat_mask(1))
    assert h is not None and cards.where(h) == "hand.1"
    assert h in cards.view(1)[1] and h not in cards.view(0)[1]
    assert cards.draw("empty", "x") is None
    with pytest.raises(CardError):
        cards.face(999)
