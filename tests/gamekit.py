"""Helpers for the rules tests: applying and refusing actions, and properties over whole bot games."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xmas_tui.games import Game, IllegalAction
from xmas_tui.simulate import Playout, play_game


class NoRng:
    """An Rng stand-in that fails if a refused action draws randomness."""

    def __getattr__(self, name: str):
        raise AssertionError("a refused action must not draw randomness")


def act_in(game: Game, state, seat: int, action, rng=None) -> list:
    """Apply ``action`` (or its text) for ``seat``; returns the log. Without ``rng`` it may draw no randomness."""
    if isinstance(action, str):
        action = game.parse_action(action)
    return game.apply(state, seat, action, rng if rng is not None else NoRng())


def refusal(game: Game, state, seat: int, action) -> str:
    """Apply an action that must be refused; check nothing changed; return the rule named."""
    if isinstance(action, str):
        action = game.parse_action(action)
    before = game.digest(state)
    assert action not in game.legal_actions(state, seat)
    with pytest.raises(IllegalAction) as info:
        game.apply(state, seat, action, NoRng())
    assert game.digest(state) == before, "a refused action changed the state"
    assert info.value.rule
    return info.value.rule


def texts(log) -> str:
    return "\n".join(event.text for event in log)


def over_whole_games(game: Game, *, examples: int) -> Callable:
    """Run the test on ``examples`` games of ``game``: it takes a ``seed``, a number of
    ``players`` and hypothesis ``data`` (see ``play_checked_game``)."""
    return lambda test: settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])(
        given(
            seed=st.integers(0, 2**32),
            players=st.integers(game.min_players, game.max_players),
            data=st.data(),
        )(test)
    )


def play_checked_game(game: Game, players: int, seed: int, data, check, **play_args) -> Playout:
    """Play one whole game between random and smart bots drawn from ``data``, calling
    ``check(game, state, seat, action)`` before every action and on the final state;
    the game ends within ``game.max_actions``. ``play_args`` go on to ``play_game``."""
    bots = data.draw(st.lists(st.sampled_from(["random", "smart"]), min_size=players, max_size=players))
    playout = play_game(game, players, seed, bots, before_apply=check, **play_args)
    check(game, playout.state)
    assert len(playout.actions) <= game.max_actions
    return playout


def dealt(state) -> dict[int, str]:
    """Every card of a state by handle: the deal, wherever the cards went since."""
    cards = state.cards
    return {h: cards.face(h) for h in range(1, cards.next_handle) if h in cards}


def check_who_starts(game: Game, names: Sequence[str], question: str) -> None:
    """The table says who starts (option ``first``, seats counted from 1), asked in the lobby
    with ``question``; when nobody says, the first player is drawn at random; either way one
    seed deals the same cards, and deals them again alike."""
    from xmas_tui.games import Rng

    [option] = [o for o in game.table_options if o.name == "first"]
    assert option.label == question
    assert dict(option.choices) == {"nobody says (random)": None, "you": 1, "a bot": 2}
    n = len(names)
    drawn = {game.setup({}, names, Rng(f"first/{seed}")).first for seed in range(60)}
    assert drawn == set(range(n)), "when nobody says, every seat may start"
    for seed in range(12):
        unsaid = game.setup({}, names, Rng(f"first/{seed}"))
        for seat in range(1, n + 1):
            for value in (seat, [seat]):  # ``--option first=2`` reads as [2]
                said = game.setup({"first": value}, names, Rng(f"first/{seed}"))
                assert said.first == said.turn == seat - 1
                assert dealt(said) == dealt(unsaid), "who starts changes no card of the deal"
        again = game.setup({"first": 2}, names, Rng(f"first/{seed}"))
        assert game.digest(again) == game.digest(game.setup({"first": [2]}, names, Rng(f"first/{seed}")))
    for bad in (0, n + 1, "Ann", [1, 2], True):
        with pytest.raises(ValueError, match=f"the option first names the seat that starts, 1-{n}"):
            game.setup({"first": bad}, names, Rng(0))
