"""A no-peek seat whose player left, handed to the host's own program: its bot plays on with the
hand the other programs open to it, and nobody else learns a face.

Issue 29: "Split the joint key so that the table survives a player who drops: threshold
shares (t-of-n with verifiable shares)." and "A dropped seat's bot gets its hand the same
way, and is run on a peer that is not a competing player wherever the table has one."
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xmas_tui.games import get_game
from xmas_tui.tables.nopeek import Machine, NoPeekTable, TableStopped

from .nopeekkit import search
from .test_nopeek import NO_PEEK_GAMES, names


def _ends_alike(table: NoPeekTable) -> None:
    game = table.game
    assert table.result() is not None, "the game did not end"
    assert table.figures.audited, "a program did not audit the end"
    assert len({game.public_digest(m.replica.state) for m in table.present}) == 1, "the programs' tables differ"


@pytest.mark.parametrize("game_id", NO_PEEK_GAMES)
def test_a_seat_handed_on_plays_to_the_end_and_nobody_learns_more(game_id: str) -> None:
    game = get_game(game_id)
    n = min(4, game.max_players)
    table = NoPeekTable(game, names(n), runner=True, seed=game_id)
    runner = table.runner
    assert runner is not None
    moves = 0
    before: list[str] = []
    after: list[str] = []

    def leave_then_search(table: NoPeekTable) -> None:
        nonlocal moves
        moves += 1
        if moves == 4:
            before.extend(search([runner], None))  # (the host's program, before: no seat's card)
            table.drop(1)
            assert runner.seats == {1}
        elif moves > 4:
            after.extend(search([runner], 1))  # (after: Holly's cards, and nothing more)
            for machine in table.present[:-1]:
                after.extend(search([machine], machine.seat))

    table.play(after=leave_then_search)
    _ends_alike(table)
    assert before == [] and after == []
    assert all(m.handed == [(1, n)] for m in table.present)
    assert table.machines[1].seat in table.left


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_id=st.sampled_from(NO_PEEK_GAMES), n=st.integers(3, 5), seat=st.integers(0, 4),
       at=st.integers(1, 300))
def test_a_player_may_leave_at_any_message_and_the_game_still_ends_alike(game_id: str, n: int, seat: int,
                                                                          at: int) -> None:
    """Mid-move, mid-shuffle, mid-choice: whatever its program had sent is passed on, whatever it
    had not is not waited for, and every program goes the same way."""
    game = get_game(game_id)
    n = max(3, game.min_players, min(n, game.max_players))
    seat %= n
    count = 0
    table: NoPeekTable | None = None

    def leave_at(kind: str, author: Machine, data: bytes) -> bytes:
        nonlocal count
        if table is None:  # (the key is made before anyone may leave)
            return data
        count += 1
        if count == at and not table.left:
            table.drop(seat)
        return data

    table = NoPeekTable(game, names(n), runner=True, tamper=leave_at, seed=f"{game_id}/{at}")
    table.play()
    _ends_alike(table)
    if table.left:
        assert all(m.handed == [(seat, n)] for m in table.present)


def test_a_share_for_the_old_key_is_passed_over_and_a_wrong_one_still_named() -> None:
    """A share made for the seat's own program just before the host's order is not blamed; one
    that holds for no key the seat ever had still stops the table naming its author."""
    game = get_game("christmas-tree")
    table = NoPeekTable(game, names(3), runner=True, seed="old-key")
    for _ in range(3):
        table.play(max_moves=1)
    holly, ivy = table.machines[1], table.machines[2]
    handle = next(h for h, mask in holly.replica.state.cards._seen.items() if mask == 1 << 1)
    stale = ivy.private_share(handle, 1, holly.personal.public)
    assert stale is not None
    table.drop(1)
    runner = table.runner
    assert runner is not None
    runner.take(2, stale)
    assert runner.stopped is None, "a share made before the hand-over was blamed"
    wrong = ivy.private_share(handle, 1, table.machines[0].personal.public)  # (for Noel's key)
    assert wrong is not None
    runner.take(2, wrong)
    assert runner.culprit == 2 and runner.stopped is not None and runner.stopped.startswith("Ivy's share")


def test_a_seat_handed_on_while_its_program_is_here_stops_the_game_naming_the_host() -> None:
    game = get_game("christmas-game")
    table = NoPeekTable(game, names(3), runner=True, seed="here")
    table.play(max_moves=2)
    holly = table.machines[1]
    runner = table.runner
    assert runner is not None
    holly.hand(1, runner.seat, runner.personal.public)
    assert holly.culprit == 3
    assert holly.stopped == "the host handed Holly's seat to another program while it was here: the game stops here"


def test_a_seat_handed_on_with_too_few_programs_left_to_open_a_card_stops_the_game() -> None:
    """Two players hold the key two of two: a player gone leaves no card that can open. A host
    that hands the seat on anyway is named (the session closes such a table instead)."""
    game = get_game("christmas-carol")
    table = NoPeekTable(game, names(2), runner=True, seed="two")
    table.play(max_moves=2)
    with pytest.raises(TableStopped) as stopped:
        table.drop(1)
    assert stopped.value.culprit == 2
    assert "with fewer than 2 programs left to open a card" in str(stopped.value)


@pytest.mark.parametrize("game_id", NO_PEEK_GAMES)
def test_every_games_help_says_what_happens_to_a_seat_whose_player_left(game_id: str) -> None:
    """The ruling lives in one place (``OPENINGS_AT_THE_END``) and every game's help shows it."""
    text = get_game(game_id).describe_rules()
    assert "A player who leaves for good (their hold runs out) is played on by a bot on a watcher's program" in text
    assert "comes back within their hold takes the seat back, even with their program started again" in text
    assert "the game ends with the scores as they stood" in text
