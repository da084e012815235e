"""One conformance test, run against every registered game (OpenSpiel's random_sim_test).

Random bot playouts from many seeds; at every step: legal actions are unique
and each applies; actions that are not legal raise and change nothing; cards
are never created or lost; no view shows a face its seat may not see; actions,
events and views survive msgpack unchanged. Every game ends within its bound,
and the same seed gives the same game.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xmas_tui.games import GAMES, ActionError, Event, Game, InvalidAction, Result, View
from xmas_tui.games.cards import may_see
from xmas_tui.games.engine import pack, plain, unpack
from xmas_tui.simulate import play_game

GAME_IDS = sorted(GAMES)


def player_counts(game: Game) -> list[int]:
    return list(range(game.min_players, game.max_players + 1))


def strings_in(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


class Checker:
    """Checks every step of a playout."""

    def __init__(self, game: Game, apply_every_legal: bool) -> None:
        self.game = game
        self.apply_every_legal = apply_every_legal
        self.pool: list = []
        self.components: list[str] | None = None
        self.steps = 0

    def __call__(self, game: Game, state, seat: int, chosen) -> None:
        self.steps += 1
        cards = state.cards
        faces = cards.component_faces()
        if self.components is None:
            self.components = faces
        assert faces == self.components, "cards were created or lost"
        acting = game.to_act(state)
        assert seat in acting
        legal_by_seat = {s: game.legal_actions(state, s) for s in range(len(state.players))}
        for s, legal in legal_by_seat.items():
            assert len(set(legal)) == len(legal), f"duplicate legal actions for seat {s}"
            assert bool(legal) == (s in acting), f"seat {s}: to_act and legal_actions disagree"
            for action in legal:
                assert game.parse_action(action.text()) == action
                assert game.parse_action(unpack(pack(action.to_wire()))) == action
        legal = legal_by_seat[seat]
        assert chosen in legal
        self.pool.extend(a for acts in legal_by_seat.values() for a in acts)
        before = game.digest(state)
        # Actions that are not legal now are refused and change nothing.
        for candidate in {*self.pool[-200:], *(a for acts in legal_by_seat.values() for a in acts)}:
            for s in range(len(state.players)):
                listed = candidate in legal_by_seat[s]
                if not game.open_actions:
                    assert game.is_legal(state, s, candidate) == listed, (s, candidate)
                if listed or (game.open_actions and game.is_legal(state, s, candidate)):
                    continue
                with pytest.raises(ActionError):
                    game.apply(state, s, candidate, _NO_RNG)
        with pytest.raises(InvalidAction):
            game.apply(state, seat, "not an action", _NO_RNG)  # type: ignore[arg-type]
        assert game.digest(state) == before, "a refused action changed the state"
        # Every legal action applies.
        if self.apply_every_legal:
            from xmas_tui.games import Rng

            for action in legal:
                trial = copy.deepcopy(state)
                events = game.apply(trial, seat, action, Rng(f"trial/{self.steps}"))
                assert all(isinstance(e, Event) for e in events)
        # Views show only what each seat may see, and survive the wire.
        for viewer in [*range(len(state.players)), None]:
            view = game.view(state, viewer)
            for handle, face in view.faces.items():
                assert may_see(cards.visibility(handle), viewer), f"view of {viewer} leaks handle {handle}"
                assert cards.face(handle) == face
            hidden = {
                cards.face(h)
                for z in cards.zones.values()
                for h in z
                if not may_see(cards.visibility(h), viewer)
            } - set(view.faces.values())
            leaked = strings_in(plain(view.public)) & hidden
            assert not leaked, f"public fields show hidden faces to {viewer}: {leaked}"
            wire = unpack(pack(view.to_wire()))
            assert View.from_wire(wire).to_wire() == view.to_wire()


class _NoRng:
    def __getattr__(self, name: str):
        raise AssertionError("a refused action must not draw randomness")


_NO_RNG = _NoRng()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_random_playouts_keep_every_invariant(game_id: str) -> None:
    game = GAMES[game_id]
    for players in player_counts(game):
        for seed in range(2):
            checker = Checker(game, apply_every_legal=seed == 0)
            playout = play_game(game, players, f"conf/{seed}", "random", before_apply=checker)
            result = playout.result
            assert len(result.scores) == players
            assert result.winners or game.cooperative, "only a cooperative game may end with no winner"
            assert all(0 <= w < players for w in result.winners)
            assert Result.from_wire(unpack(pack(result.to_wire()))) == result


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_game_closed_at_any_moment_has_a_standing(game_id: str) -> None:
    """Issue 27.2: a host may close the table before the end, and every game then ends with the
    scores as they stand, ranked as at its end (a cooperative game not yet won is not won)."""
    game = GAMES[game_id]
    for players in player_counts(game):
        seen = []

        def stands(game: Game, state, seat: int, action, players: int = players, seen: list = seen) -> None:
            standing = game.closed_result(state)
            assert standing.closed and len(standing.scores) == players
            assert all(0 <= w < players for w in standing.winners)
            assert standing.winners or game.cooperative
            assert Result.from_wire(unpack(pack(standing.to_wire()))) == standing
            seen.append(standing)

        playout = play_game(game, players, "closed", "random", before_apply=stands)
        assert seen and not playout.result.closed
        assert game.standing(playout.state) == playout.result  # at the end, the standing is the result


@pytest.mark.parametrize("game_id", GAME_IDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), data=st.data())
def test_every_game_ends_and_conserves_cards(game_id: str, seed: int, data) -> None:
    game = GAMES[game_id]
    players = data.draw(st.sampled_from(player_counts(game)))
    bots = data.draw(st.lists(st.sampled_from(["random", "smart"]), min_size=players, max_size=players))
    start: dict = {}

    def conserve(game: Game, state, seat: int, action) -> None:
        faces = state.cards.component_faces()
        start.setdefault("faces", faces)
        assert faces == start["faces"]

    playout = play_game(game, players, seed, bots, before_apply=conserve)
    assert len(playout.actions) <= game.max_actions


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_same_seed_same_game(game_id: str) -> None:
    game = GAMES[game_id]
    players = game.max_players
    a = play_game(game, players, 1234, "smart", keep_events=True)
    b = play_game(game, players, 1234, "smart", keep_events=True)
    assert a.actions == b.actions
    assert a.events == b.events
    assert game.digest(a.state) == game.digest(b.state)
    c = play_game(game, players, 1235, "smart")
    assert game.digest(c.state) != game.digest(a.state)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_events_round_trip(game_id: str) -> None:
    game = GAMES[game_id]
    playout = play_game(game, game.min_players, 7, "random", keep_events=True)
    for event in playout.events:
        assert Event.from_wire(unpack(pack(event.to_wire()))) == event


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_rules_and_rulings_are_written_down(game_id: str) -> None:
    game = GAMES[game_id]
    text = game.describe_rules()
    assert game.title in text
    assert len(game.rulings) >= 3
    for ruling in game.rulings:
        assert ruling.topic in text and ruling.ruling in text
