"""A shared check: every ruling a game writes down is quoted by a test of its own."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from xmas_tui.games import Game


def assert_every_ruling_is_tested(game: Game, tests: Mapping[str, Callable[..., object]]) -> None:
    """``tests`` maps each ruling's topic to the test whose docstring quotes it word for word."""
    assert {r.topic for r in game.rulings} == set(tests)
    for ruling in game.rulings:
        doc = " ".join((tests[ruling.topic].__doc__ or "").split())
        assert f'Ruling "{ruling.topic}": {ruling.ruling}' in doc, ruling.topic
