"""Transcripts: a challenge depends on the whole context and every input, unambiguously."""

from __future__ import annotations

import pytest

from netcode.dealing.group import ORDER, G, base
from netcode.dealing.transcript import Transcript

CONTEXT = {"table": "t1", "purpose": "open", "round": 4, "seat": 2}


def challenge(context: dict, *absorbs: tuple) -> int:
    transcript = Transcript("test", context)
    for tag, *parts in absorbs:
        transcript.absorb(tag, *parts)
    return transcript.challenge("c")


def test_the_context_must_name_table_purpose_round_and_seat() -> None:
    for missing in ("table", "purpose", "round", "seat"):
        with pytest.raises(ValueError, match=missing):
            Transcript("test", {k: v for k, v in CONTEXT.items() if k != missing})
    with pytest.raises(ValueError):
        Transcript("test", {**CONTEXT, "seat": 1.5})


def test_every_part_of_the_context_changes_the_challenge() -> None:
    base_challenge = challenge(CONTEXT)
    for key, other in (("table", "t2"), ("purpose", "beacon"), ("round", 5), ("seat", 3)):
        assert challenge({**CONTEXT, key: other}) != base_challenge
    assert challenge({**CONTEXT, "extra": b""}) != base_challenge
    assert challenge(dict(reversed(CONTEXT.items()))) == base_challenge
    assert Transcript("other", CONTEXT).challenge("c") != base_challenge


def test_absorbing_is_unambiguous() -> None:
    one = challenge(CONTEXT, ("a", G, base(2)))
    two = challenge(CONTEXT, ("a", G), ("a", base(2)))
    assert one != two
    assert challenge(CONTEXT, ("a", "b")) != challenge(CONTEXT, ("ab",))


def test_challenges_are_in_range_distinct_and_chained() -> None:
    transcript = Transcript("test", CONTEXT)
    copy = transcript.copy()
    many = transcript.challenges("u", 5)
    assert len(set(many)) == 5 and all(0 <= u < ORDER for u in many)
    assert transcript.challenge("c") != copy.challenge("c")  # drawing u changed the state
    assert Transcript("test", CONTEXT).challenges("u", 5) == many
    with pytest.raises(ValueError):
        transcript.challenges("u", 0)
