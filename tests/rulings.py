"""A shared check: every ruling a game writes down is quoted by a test of its own, and so is
the rulebook's sentence that a ruling departs from."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from xmas_tui.games import Game


def assert_every_ruling_is_tested(game: Game, tests: Mapping[str, Callable[..., object]]) -> None:
    """``tests`` maps each ruling's topic to the test whose docstring quotes it word for word
    (and quotes the rulebook's sentence too, where the ruling departs from one)."""
    assert {r.topic for r in game.rulings} == set(tests)
    for ruling in game.rulings:
        doc = " ".join((tests[ruling.topic].__doc__ or "").split())
        assert f'Ruling "{ruling.topic}": {ruling.ruling}' in doc, ruling.topic
        assert " ".join(ruling.quote.split()) in doc, f"{ruling.topic}: the rulebook's sentence"
        assert ruling.quote in game.describe_rules()
