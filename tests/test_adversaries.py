"""One bad program at the table (issue 26.7): every scripted adversary, at seeded tables in
virtual time. Whatever one program does, the honest peers finish the same game, or stop with words
that name it; none hangs, spins or finishes wrong. ``make adversary-bench`` runs a thousand tables
a strategy; these are a few of each, small enough for the suite."""

from __future__ import annotations

import pytest

from xmas_tui.cli import ADVERSARIES
from xmas_tui.games import get_game
from xmas_tui.tables.adversary import STRATEGIES, run_adversary

TABLES = [("chip-n-dale", 4, 1), ("christmas-game", 3, 3), ("dragons-chickens", 3, 2)]


def test_the_command_line_knows_every_adversary() -> None:
    assert ADVERSARIES == tuple(STRATEGIES)


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize(("game_id", "players", "seed"), TABLES)
def test_one_bad_program_never_hangs_spins_or_bends_the_table(strategy: str, game_id: str, players: int,
                                                               seed: int) -> None:
    verdict = run_adversary(get_game(game_id), players, strategy, seed=seed)
    assert verdict["attacked"], "the attack met a game in play"
    assert not verdict["hung"] and not verdict["spun"] and not verdict["wrong"], verdict
    assert verdict["named"], verdict  # (a harmful attack is named on every honest screen)
    assert verdict["finished"] + verdict["stopped"] == verdict["honest"] > 0
    plan = STRATEGIES[strategy]
    if plan.harmless and not plan.kills_host:
        assert verdict["finished"] == verdict["honest"], "a flood or a replay changes nothing"


def test_with_an_honest_majority_a_forger_changes_nothing_but_is_named() -> None:
    """Four players: three hold shares and any two elect, so the table plays on without the
    forger's share, and the new host's log names it."""
    verdict = run_adversary(get_game("chip-n-dale"), 4, "forge-share", seed=5)
    assert verdict["finished"] == verdict["honest"] == 2 and verdict["named"]
