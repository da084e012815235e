"""Join codes: every typing of a code is the same code, on every side, and a table's
announced tag gives away only a few bits of it."""

from __future__ import annotations

from collections import Counter

import pytest
from netcode_helpers import TABLE

from netcode.channel import Initiator, Responder
from netcode.codes import (
    CODE_ALPHABET,
    MIN_CODE,
    TAG_BITS,
    code_key,
    code_problem,
    code_tag,
    new_code,
)

SNOW = "SNOW-1234"


@pytest.mark.parametrize(
    "typed",
    [
        "SNOW-1234", "SNOW1234", "snow-1234", "SN0W 1234", "sn0w-l234", " Snow 12 34 ",
        "SNOW\u20131234",  # an en dash, as a word processor types it
        "SNOW\u22121234",  # a minus sign
        "ＳＮＯＷ－１２３４",  # full-width, as some input methods type it
    ],
)
def test_every_typing_of_a_code_is_the_same_code(typed: str) -> None:
    assert code_key(typed) == code_key(SNOW) == "SN0W1234"
    assert code_tag(typed) == code_tag(SNOW)
    assert code_problem(typed) is None


def test_look_alikes_are_read_as_digits() -> None:
    assert code_key("oil-OIL-lio") == "011011110"


@pytest.mark.parametrize("typed", ["SNOW1234", "snow-1234", "SN0W 1234"])
def test_the_handshake_opens_with_any_typing_of_the_hosts_code(typed: str) -> None:
    """SPAKE2 is keyed by the normal form: the joiner's typing and the host's agree."""
    joiner = Initiator(typed, TABLE, 2, 1)
    host = Responder(SNOW, TABLE, 2, 1, joiner.message)
    assert joiner.finish(host.message, host.proof)
    assert host.confirms(joiner.proof) and joiner.keys is not None


def test_another_code_does_not_open_the_handshake() -> None:
    joiner = Initiator("SNOW-1235", TABLE, 2, 1)
    host = Responder(SNOW, TABLE, 2, 1, joiner.message)
    assert not joiner.finish(host.message, host.proof)


def test_a_made_up_code_is_crockfords_base32_and_needs_no_reading_of_look_alikes() -> None:
    assert len(set(CODE_ALPHABET)) == 32 and not set(CODE_ALPHABET) & set("ILOU")
    for _ in range(200):
        code = new_code()
        assert len(code) == 9 and code[4] == "-" and set(code.replace("-", "")) <= set(CODE_ALPHABET)
        assert code_key(code) == code.replace("-", "")  # nothing in it is read as something else
        assert code_problem(code) is None


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("AB-CDE", f"needs at least {MIN_CODE} letters and digits (dashes not counted), not 5"),
        ("- - -", "a join code is letters and digits"),
        ("NOEL-2026!", "a join code is letters and digits"),
        ("X" * 33, "a join code is letters and digits"),
    ],
)
def test_a_code_that_cannot_be_one_says_why(typed: str, problem: str) -> None:
    said = code_problem(typed)
    assert said is not None and problem in said


def test_the_tag_is_a_few_bits_spread_over_every_value() -> None:
    tags = Counter(code_tag(f"TAG-{n:05d}") for n in range(20_000))
    assert set(tags) == set(range(2**TAG_BITS))
    assert max(tags.values()) < 2 * 20_000 / 2**TAG_BITS  # no value stands out for a guesser
