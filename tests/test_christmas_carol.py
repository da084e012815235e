"""Disney: Mickey's Christmas Carol — one test per rule of the rulebook and per ruling.

Every test quotes, in its docstring, the rulebook sentence or the ruling it
checks. Precise situations are built with ``GAME.setup`` and a fixed ``Rng``,
then rearranged by ``table()`` below: it lays chosen tiles on the puzzles,
puts chosen tiles on top of the bag in the order they will be drawn, and sets
Scrooge, so the tiles in play are always exactly the game's 43.
"""

from __future__ import annotations

from collections import Counter
from functools import partial

import pytest
from hypothesis import strategies as st

from xmas_tui.games import InvalidAction, Rng
from xmas_tui.games.cards import EVERYONE, NOBODY, may_see
from xmas_tui.games.christmas_carol import (
    AWAKE,
    CLOCK,
    GAME,
    IGNORE,
    SPECIALS,
    TO_BAG,
    TO_BOX,
    Draw,
    Play,
    Stop,
    all_faces,
    hour,
    puzzle_of,
    puzzle_zone,
)
from xmas_tui.simulate import play_game

from .gamekit import act_in, check_who_starts, over_whole_games, play_checked_game, refusal, texts
from .rulings import assert_every_ruling_is_tested

NAMES = ("Holly", "Noel", "Ivy", "Jasper")


# ---------------------------------------------------------------- helpers


def table(
    players: int = 2,
    *,
    placed: dict[int, int] | None = None,
    draws: list[str] | tuple[str, ...] = (),
    scrooge: int = 0,
    completed: tuple[int, ...] = (),
    boxed: int = 0,
    only: list[str] | None = None,
    puzzles: tuple[int, ...] | None = None,
    seed: int = 0,
):
    """A table from ``GAME.setup`` rearranged, at the start of seat 0's turn.

    ``placed[p]`` tiles lie on puzzle ``p`` (pieces 1, 2, …); ``draws`` are the
    next tiles out of the bag, first drawn first; ``boxed`` Move Scrooge (box)
    tiles are already back in the box; with ``only`` the bag holds nothing but
    ``draws`` and ``only`` (every other tile goes to the puzzles or the box, so
    the count stays 43).
    """
    rng = Rng(f"christmas-carol-test/{seed}")
    options = {"puzzles": puzzles} if puzzles else {}
    state = GAME.setup(options, NAMES[:players], rng)
    cards = state.cards

    def take(face: str) -> int:
        return next(h for h in cards.zone("bag") if cards.face(h) == face)

    for puzzle, n in (placed or {}).items():
        for piece in range(1, n + 1):
            cards.move(take(f"{puzzle}-{piece}"), puzzle_zone(puzzle), visible=EVERYONE)
    for _ in range(boxed):
        cards.move(take(TO_BOX), "box", visible=EVERYONE)
    picked: list[int] = []
    for face in draws:
        handle = next(h for h in cards.zone("bag") if cards.face(h) == face and h not in picked)
        picked.append(handle)
    if only is not None:
        keep = set(picked)
        for face in only:
            keep.add(next(h for h in cards.zone("bag") if cards.face(h) == face and h not in keep))
        for handle in [h for h in cards.zone("bag") if h not in keep]:
            face = cards.face(handle)
            where = puzzle_zone(puzzle_of(face)) if puzzle_of(face) else "box"
            cards.move(handle, where, visible=EVERYONE)
    for handle in reversed(picked):
        cards.move(handle, "bag")
    state.scrooge = scrooge
    state.completed = completed
    state.first = state.turn = 0
    return state, rng


act = partial(act_in, GAME)


refused = partial(refusal, GAME)


def draw(state, rng, n: int = 1, seat: int = 0) -> list:
    log: list = []
    for _ in range(n):
        log += act(state, seat, Draw(), rng)
    return log


def drawn(state) -> list[str]:
    return state.cards.faces("drawn")


def progress(state, puzzle: int) -> int:
    return len(state.cards.zone(puzzle_zone(puzzle)))


def play(state, rng, *faces: str, seat: int = 0) -> list:
    """Play the drawn tiles with these faces (each face once, in the order drawn)."""
    cards = state.cards
    wanted = Counter(faces)
    handles = []
    for h in cards.zone("drawn"):
        if wanted[cards.face(h)]:
            wanted[cards.face(h)] -= 1
            handles.append(h)
    return act(state, seat, Play(tuple(handles)), rng)


def tiles_in_bag(state) -> Counter[str]:
    return Counter(state.cards.faces("bag"))


# ---------------------------------------------------------------- components and set up


def test_there_are_43_tiles_six_for_each_of_six_puzzles_and_seven_special() -> None:
    """Separate the tiles according to their backs. There are six tiles for each puzzle
    frame and seven special tiles. (6 Puzzle Frames, 43 Tiles.)"""
    faces = all_faces()
    assert len(faces) == 43
    by_puzzle = Counter(puzzle_of(f) for f in faces)
    assert by_puzzle == {1: 6, 2: 6, 3: 6, 4: 6, 5: 6, 6: 6, 0: 7}
    state = GAME.setup({}, NAMES[:2], Rng("count"))
    assert state.cards.component_faces() == sorted(faces)


def test_for_your_first_game_return_puzzles_5_and_6_to_the_box() -> None:
    """Choose two puzzles to return to the game box, including their frames and tiles—they
    won't be used this game. For your first game, return puzzles 5 and 6."""
    state = GAME.setup({}, NAMES[:3], Rng("first game"))
    assert state.puzzles == (1, 2, 3, 4)
    box = Counter(puzzle_of(f) for f in state.cards.faces("box"))
    assert box == {5: 6, 6: 6}
    assert not any(puzzle_of(f) in (5, 6) for f in state.cards.faces("bag"))
    assert set(state.cards.zones) >= {puzzle_zone(p) for p in (1, 2, 3, 4)}
    assert not {puzzle_zone(5), puzzle_zone(6)} & set(state.cards.zones)


def test_all_the_other_tiles_go_in_the_bag_mixed_and_unseen() -> None:
    """Place all the other tiles in the bag and mix them up. Place the bag nearby."""
    orders = set()
    for seed in range(5):
        state = GAME.setup({}, NAMES[:2], Rng(f"bag/{seed}"))
        bag = state.cards.faces("bag")
        assert len(bag) == 31 and Counter(bag) == Counter(f for f in all_faces() if puzzle_of(f) in (0, 1, 2, 3, 4))
        orders.add(tuple(bag))
        for viewer in (0, 1, None):
            view = GAME.view(state, viewer)
            assert not set(view.zone("bag")) & set(view.faces)
            assert len(view.zone("bag")) == 31
    assert len(orders) == 5


def test_scrooge_starts_on_the_9_asleep_space() -> None:
    """Place the Clock board in the center of the play area and place the Scrooge mover on
    the 9 (Asleep) space."""
    state = GAME.setup({}, NAMES[:4], Rng("clock"))
    assert state.scrooge == 0 and hour(state.scrooge) == 9
    assert GAME.view(state, None)["scrooge"] == 0


def test_the_puzzle_frames_lie_from_lowest_to_highest_and_are_shared() -> None:
    """Arrange the four puzzle frames around the Clock board from lowest to highest number
    (in the Mickey at the top of the frame). All the puzzles are shared by the players."""
    state = GAME.setup({"puzzles": [6, 2, 4, 3]}, NAMES[:2], Rng("frames"))
    assert state.puzzles == (2, 3, 4, 6)
    # Shared: a tile on a puzzle is seen by every seat and by spectators.
    state, rng = table(2, draws=["2-1"], puzzles=(2, 3, 4, 6))
    draw(state, rng)
    act(state, 0, Stop(), rng)
    for viewer in (0, 1, None):
        assert GAME.view(state, viewer).faces_in(puzzle_zone(2)) == ["2-1"]


def test_the_youngest_player_takes_the_first_turn_or_else_a_seat_drawn_at_random() -> None:
    """The youngest player takes the first turn!

    Ruling "Who starts": The table says who is youngest: the lobby asks, and the option
    "first" names that seat (seats count from 1). When nobody says, the program cannot
    know, so the first player is drawn at random when the game is set up. Play goes
    clockwise (seat order) from the first player."""
    check_who_starts(GAME, NAMES[:4], "Who is youngest?")
    state = GAME.setup({"first": 2, "puzzles": [3, 4, 5, 6]}, NAMES[:4], Rng("first/0"))
    assert GAME.to_act(state) == {1} and state.puzzles == (3, 4, 5, 6)
    state = GAME.setup({}, NAMES[:4], Rng("first/0"))
    assert state.turn == state.first
    # Clockwise: seat order.
    state, rng = table(4, draws=["1-1", "1-2"])
    draw(state, rng)
    act(state, 0, Stop(), rng)
    assert state.turn == 1


# ---------------------------------------------------------------- your turn


def test_draw_one_tile_at_a_time_up_to_five_in_front_of_you() -> None:
    """One at a time, draw up to five tiles from the bag and place them in front of you."""
    state, rng = table(3, draws=["1-1", "2-1", "3-1", "4-1", "1-2"])
    for n in range(1, 6):
        log = draw(state, rng)
        assert len(drawn(state)) == n
        assert f"Holly draws a puzzle {puzzle_of(drawn(state)[-1])} tile." in texts(log)
        for viewer in (0, 1, 2, None):  # in front of you: face up for the table
            assert GAME.view(state, viewer).faces_in("drawn") == drawn(state)
    assert drawn(state) == ["1-1", "2-1", "3-1", "4-1", "1-2"]
    # The fifth tile ends the drawing: now two are chosen.
    assert state.phase == "choose"
    assert refused(state, 0, Draw()).startswith("You have drawn your tiles")


def test_you_can_stop_drawing_early() -> None:
    """You're trying to draw pieces from lower-numbered puzzles, but you can stop drawing
    early to avoid the special tiles that move Scrooge!"""
    state, rng = table(2, draws=["1-1", "2-1", "3-1", TO_BOX])
    draw(state, rng, 3)
    log = act(state, 0, Stop(), rng)
    assert "Holly stops after 3 tiles." in texts(log)
    assert state.phase == "choose" and state.scrooge == 0
    assert TO_BOX in state.cards.faces("bag")


def test_choose_two_tiles_to_play_and_mix_the_rest_back_into_the_bag() -> None:
    """Choose two tiles to play to their matching puzzles and mix the rest back into the bag."""
    state, rng = table(2, draws=["1-1", "2-1", "3-1", "4-1"])
    draw(state, rng, 4)
    act(state, 0, Stop(), rng)
    legal = GAME.legal_actions(state, 0)
    assert len(legal) == 6 and all(isinstance(a, Play) and len(a.tiles) == 2 for a in legal)
    rest = [h for h in state.cards.zone("drawn") if state.cards.face(h) in ("3-1", "4-1")]
    log = play(state, rng, "1-1", "2-1")
    assert [progress(state, p) for p in (1, 2, 3, 4)] == [1, 1, 0, 0]
    assert state.cards.zone("drawn") == []
    assert tiles_in_bag(state)["3-1"] == 1 and tiles_in_bag(state)["4-1"] == 1
    assert len(state.cards.zone("bag")) == 29
    # Mixed: the tiles went back face down, under new names nobody can follow.
    assert not set(rest) & set(state.cards.zone("bag"))
    assert all(state.cards.visibility(h) == NOBODY for h in state.cards.zone("bag"))
    assert "Holly plays 2 tiles to puzzles 1 and 2." in texts(log)
    assert "2 tiles go back into the bag, mixed." in texts(log)


def test_now_it_is_the_next_players_turn() -> None:
    """Now it's the next player's turn!"""
    state, rng = table(3, draws=["1-1", "1-2", "1-3"])
    draw(state, rng, 2)
    act(state, 0, Stop(), rng)
    assert state.turn == 1 and state.phase == "draw" and state.turns == 1
    assert GAME.to_act(state) == {1}
    assert refused(state, 0, Draw()) == "It is not your turn."
    draw(state, rng, seat=1)
    act(state, 1, Stop(), rng)
    assert state.turn == 2


# ---------------------------------------------------------------- special tiles


def test_move_scrooge_1_and_play_all_other_tiles_then_return_it_to_the_box() -> None:
    """Move Scrooge 1 and play ALL other tiles. If you draw this tile, stop drawing but play
    ALL other tiles you drew this turn. Then move Scrooge one space clockwise and return this
    tile to the game box."""
    state, rng = table(2, draws=["1-1", "2-1", "3-1", TO_BOX, "1-2"])
    log = draw(state, rng, 4)
    assert [progress(state, p) for p in (1, 2, 3, 4)] == [1, 1, 1, 0]
    assert state.scrooge == 1 and hour(state.scrooge) == 10
    assert state.cards.faces("box").count(TO_BOX) == 1
    assert TO_BOX not in state.cards.faces("bag") or state.cards.faces("bag").count(TO_BOX) == 2
    assert state.cards.zone("drawn") == [] and state.turn == 1
    assert "Holly draws a Move Scrooge tile (box): no more drawing, and every other tile is played." in texts(log)
    assert "Holly plays 3 tiles to puzzles 1, 2 and 3." in texts(log)
    assert "Scrooge moves 1 space clockwise (the special tile) to 10: 10 spaces from waking." in texts(log)
    assert "The Move Scrooge tile goes back to the game box." in texts(log)


def test_move_scrooge_1_play_all_other_tiles_and_return_this_tile_to_the_bag() -> None:
    """Move Scrooge 1, play ALL other tiles, and return this tile to the bag. If you draw
    this tile, stop drawing but play ALL other tiles you drew this turn. Then move Scrooge one
    space clockwise and mix this tile into the bag."""
    state, rng = table(2, draws=["4-1", TO_BAG, "1-1"], scrooge=2)
    special = next(h for h in state.cards.zone("bag") if state.cards.face(h) == TO_BAG)
    draw(state, rng, 2)
    assert progress(state, 4) == 1 and state.scrooge == 3
    assert tiles_in_bag(state)[TO_BAG] == 3 and TO_BAG not in state.cards.faces("box")
    assert special not in state.cards  # mixed in: renamed, face down
    assert all(state.cards.visibility(h) == NOBODY for h in state.cards.zone("bag"))
    assert state.turn == 1


def test_ignore_all_special_tiles_and_draw_until_five_puzzle_tiles() -> None:
    """Ignore all special tiles this turn and return them to the bag. If you draw this tile,
    continue drawing until you have five puzzle tiles—ignore any special tiles. Choose two to
    play, then mix ALL other tiles you drew this turn into the bag, including this one."""
    state, rng = table(2, draws=["1-1", IGNORE, TO_BOX, "2-1", TO_BAG, "3-1", "4-1", "1-2", "2-2"])
    log = draw(state, rng)
    log += draw(state, rng)
    assert drawn(state) == ["1-1", IGNORE, TO_BOX, "2-1", TO_BAG, "3-1", "4-1", "1-2"]
    assert state.phase == "choose" and state.scrooge == 0 and state.ignoring
    assert "Holly draws an Ignore tile: drawing goes on to five puzzle tiles." in texts(log)
    assert "Holly sets aside 2 special tiles, ignored this turn." in texts(log)
    # Only puzzle tiles can be chosen.
    assert all(all(puzzle_of(state.cards.face(h)) for h in a.tiles) for a in GAME.legal_actions(state, 0))
    play(state, rng, "1-1", "1-2")
    assert progress(state, 1) == 2
    bag = tiles_in_bag(state)
    assert bag[IGNORE] == 1 and bag[TO_BOX] == 3 and bag[TO_BAG] == 3
    assert bag["2-1"] == bag["3-1"] == bag["4-1"] == 1
    assert state.cards.faces("box").count(TO_BOX) == 0 and state.scrooge == 0
    assert not state.ignoring and state.turn == 1


def test_if_you_did_not_play_any_puzzle_tiles_take_another_turn() -> None:
    """Note: If you didn't play any puzzle tiles on your turn, take another turn!"""
    state, rng = table(3, draws=[TO_BOX, "1-1"])
    log = draw(state, rng)
    assert state.scrooge == 1
    assert state.turn == 0 and state.phase == "draw" and state.turns == 1
    assert "Holly played no puzzle tile and takes another turn!" in texts(log)
    draw(state, rng)
    act(state, 0, Stop(), rng)
    assert state.turn == 1


# ---------------------------------------------------------------- completing puzzles


def test_completing_a_puzzle_in_order_moves_scrooge_one_space_counter_clockwise() -> None:
    """When you complete a puzzle in the correct order (lowest to highest), move Scrooge one
    space counter-clockwise."""
    state, rng = table(2, placed={1: 5}, draws=["1-6"], scrooge=3)
    draw(state, rng)
    act(state, 0, Stop(), rng)
    assert state.completed == (1,) and state.scrooge == 2
    # Puzzle 2 next, after puzzle 1: in order too.
    state, rng = table(2, placed={2: 5}, completed=(1,), draws=["2-6"], scrooge=5)
    draw(state, rng)
    log = act(state, 0, Stop(), rng)
    assert state.completed == (1, 2) and state.scrooge == 4
    assert "Puzzle 2 is complete, in order." in texts(log)
    assert "Scrooge moves back to 1, counter-clockwise." in texts(log)


def test_completing_a_puzzle_out_of_order_moves_scrooge_clockwise_by_its_number() -> None:
    """When you complete a puzzle in the wrong order (there's a puzzle with a lower number
    that hasn't been completed yet), move Scrooge clockwise the number of spaces shown at the
    top of the puzzle you just completed."""
    state, rng = table(2, placed={3: 5}, draws=["3-6"], scrooge=1)
    draw(state, rng)
    log = act(state, 0, Stop(), rng)
    assert state.completed == (3,) and state.scrooge == 4 and hour(4) == 1
    assert "Puzzle 3 is complete out of order (puzzles 1 and 2 are not)." in texts(log)
    assert "Scrooge moves 3 spaces clockwise (puzzle 3) to 1: 7 spaces from waking." in texts(log)


# ---------------------------------------------------------------- end of game


def test_if_scrooge_reaches_8_awake_everyone_loses() -> None:
    """If Scrooge reaches the 8 (Awake) space, Scrooge wakes up and all the players lose!"""
    state, rng = table(3, draws=["1-1", TO_BAG], scrooge=AWAKE - 1)
    log = draw(state, rng, 2)
    assert state.scrooge == AWAKE and hour(state.scrooge) == 8
    assert state.phase == "over" and state.outcome == "lost"
    assert "Scrooge is awake: everyone loses." in texts(log)
    result = GAME.result(state)
    assert result is not None and result.winners == ()
    assert GAME.to_act(state) == frozenset() and GAME.legal_actions(state, 0) == []
    assert refused(state, 0, Draw()) == "The game is over."


def test_complete_all_four_puzzles_before_scrooge_wakes_and_everyone_wins() -> None:
    """If the players complete all four puzzles before Scrooge wakes up, all the players win!"""
    state, rng = table(3, placed={1: 6, 2: 6, 3: 6, 4: 5}, completed=(1, 2, 3), draws=["4-6"], scrooge=9)
    draw(state, rng)
    log = act(state, 0, Stop(), rng)
    assert state.phase == "over" and state.outcome == "won"
    assert "Everyone wins: the story is told before Scrooge wakes up!" in texts(log)
    result = GAME.result(state)
    assert result is not None and result.winners == (0, 1, 2)


def test_a_more_challenging_game_uses_higher_numbered_puzzles() -> None:
    """Once you know how to play, you can increase the difficulty of the game by playing with
    higher-numbered puzzles. If you complete a puzzle in the wrong order, Scrooge will move
    more quickly toward waking up!"""
    state, rng = table(2, puzzles=(3, 4, 5, 6), placed={5: 5}, draws=["5-6"])
    assert Counter(puzzle_of(f) for f in state.cards.faces("box")) == {1: 6, 2: 6}
    draw(state, rng)
    act(state, 0, Stop(), rng)
    assert state.scrooge == 5  # puzzle 5 early: five spaces, where puzzle 3 of a first game costs three


# ---------------------------------------------------------------- rulings


def test_the_seven_special_tiles() -> None:
    """Ruling "The special tiles": The seven special tiles are 3 "Move Scrooge 1 and play ALL
    other tiles" (returned to the box once drawn), 3 "Move Scrooge 1, play ALL other tiles, and
    return this tile to the bag" and 1 "Ignore all special tiles", the one friendly tile."""
    assert SPECIALS == {TO_BOX: 3, TO_BAG: 3, IGNORE: 1}
    assert Counter(f for f in all_faces() if not puzzle_of(f)) == SPECIALS


def test_the_number_on_a_puzzle_is_its_own_number() -> None:
    """Ruling "The number on a puzzle": The number shown at the top of a puzzle is its own
    number (the one in the Mickey): finishing puzzle 4 out of order moves Scrooge 4 spaces
    clockwise, so higher puzzles are harsher."""
    for puzzle in (2, 3, 4):
        state, rng = table(2, placed={puzzle: 5}, draws=[f"{puzzle}-6"])
        draw(state, rng)
        act(state, 0, Stop(), rng)
        assert state.scrooge == puzzle


def test_the_clock_has_eleven_spaces_from_asleep_to_awake() -> None:
    """Ruling "The clock": Scrooge moves round a clock face: 9 (Asleep), 10, 11, 12, 1, 2 … 7,
    8 (Awake). He wakes on the 11th space clockwise from where he starts."""
    assert CLOCK == (9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8)
    assert AWAKE == 11 and hour(0) == 9 and hour(3) == 12 and hour(4) == 1 and hour(AWAKE) == 8
    # Ten single steps leave him asleep on 7; the eleventh wakes him.
    state, rng = table(2, draws=[TO_BAG], scrooge=10)
    assert hour(state.scrooge) == 7
    draw(state, rng)
    assert state.outcome == "lost"


def test_scrooge_on_9_does_not_move_counter_clockwise() -> None:
    """Ruling "Scrooge asleep": Scrooge never moves counter-clockwise past 9 (Asleep): a move
    back when he is on 9 is lost, never saved."""
    state, rng = table(2, placed={1: 5, 3: 5}, draws=["1-6"])
    draw(state, rng)
    log = act(state, 0, Stop(), rng)
    assert state.scrooge == 0
    assert "Scrooge is already asleep on 9: he stays there." in texts(log)
    # Nothing was saved: the next out-of-order finish costs its full number.
    state.turn = 0
    state.cards.move(next(h for h in state.cards.zone("bag") if state.cards.face(h) == "3-6"), "bag")
    draw(state, rng)
    act(state, 0, Stop(), rng)
    assert state.scrooge == 3


def test_you_must_draw_at_least_one_tile() -> None:
    """Ruling "Drawing at least one": You must draw at least one tile before you stop; you may
    stop after any tile. After the fifth tile (without an Ignore tile) drawing ends by itself."""
    state, rng = table(2, draws=["1-1", "2-1", "3-1", "4-1", "1-2"])
    assert GAME.legal_actions(state, 0) == [Draw()]
    assert "draw at least one before you stop" in refused(state, 0, Stop())
    draw(state, rng)
    assert GAME.legal_actions(state, 0) == [Draw(), Stop()]
    draw(state, rng, 4)
    assert state.phase == "choose"


def test_with_fewer_than_two_puzzle_tiles_you_play_what_you_have() -> None:
    """Ruling "Fewer than two tiles": You play two tiles when you have two or more puzzle tiles
    in front of you; with fewer you play what you have. When there is nothing to choose (two or
    fewer puzzle tiles), they are played at once."""
    state, rng = table(2, draws=["2-1"])
    draw(state, rng)
    log = act(state, 0, Stop(), rng)
    assert progress(state, 2) == 1 and state.turn == 1
    assert "Noel" not in texts(log) and "Holly plays a tile to puzzle 2." in texts(log)
    state, rng = table(2, draws=["2-1", "3-1"])
    draw(state, rng, 2)
    act(state, 0, Stop(), rng)
    assert progress(state, 2) == progress(state, 3) == 1 and state.turn == 1
    # With three, exactly two: neither one nor three.
    state, rng = table(2, draws=["2-1", "3-1", "4-1"])
    draw(state, rng, 3)
    act(state, 0, Stop(), rng)
    one = (state.cards.zone("drawn")[0],)
    assert "Choose two tiles to play, not 1" in refused(state, 0, Play(one))
    assert "Choose two tiles to play, not 3" in refused(state, 0, Play(tuple(state.cards.zone("drawn"))))


def test_tiles_played_together_go_lowest_puzzle_first() -> None:
    """Ruling "Several tiles at once": Tiles played together go to their puzzles lowest puzzle
    first, so finishing puzzles 1 and 2 in the same turn is in order. "In order" counts only
    the four puzzles in use."""
    state, rng = table(2, placed={1: 5, 2: 5}, draws=["2-6", "1-6"], scrooge=4)
    draw(state, rng, 2)
    log = act(state, 0, Stop(), rng)
    assert state.completed == (1, 2) and state.scrooge == 2
    assert texts(log).index("Puzzle 1 is complete") < texts(log).index("Puzzle 2 is complete")
    # With puzzles 3-6 in use, puzzle 3 is the lowest: finishing it first is in order.
    state, rng = table(2, puzzles=(3, 4, 5, 6), placed={3: 5}, draws=["3-6"], scrooge=4)
    draw(state, rng)
    act(state, 0, Stop(), rng)
    assert state.completed == (3,) and state.scrooge == 3


def test_after_an_ignore_tile_drawing_goes_on_by_itself() -> None:
    """Ruling "The Ignore tile": After an Ignore tile the drawing goes on by itself (there is no
    risk left to weigh) until you have five puzzle tiles; Move Scrooge tiles drawn meanwhile do
    nothing: they are set aside and mixed back into the bag."""
    state, rng = table(2, draws=[IGNORE, TO_BAG, "1-1", TO_BOX, "1-2", "2-1", "3-1", "4-1"])
    draw(state, rng)  # one action: the Ignore tile and everything after it
    assert state.phase == "choose"
    assert [f for f in drawn(state) if puzzle_of(f)] == ["1-1", "1-2", "2-1", "3-1", "4-1"]
    assert drawn(state).count(TO_BAG) == 1 and drawn(state).count(TO_BOX) == 1
    play(state, rng, "1-1", "1-2")
    assert state.scrooge == 0 and tiles_in_bag(state)[TO_BOX] == 3 and tiles_in_bag(state)[IGNORE] == 1


def test_drawing_ends_when_the_bag_is_empty() -> None:
    """Ruling "An empty bag": Drawing ends when the bag is empty, even short of five tiles (or
    of five puzzle tiles after an Ignore tile); you play what you drew."""
    state, rng = table(2, placed={1: 6, 2: 6, 3: 4}, completed=(1, 2), draws=["3-5", "4-1", "4-2"], only=[])
    assert len(state.cards.zone("bag")) == 3
    log = draw(state, rng, 3)
    assert "The bag is empty." in texts(log)
    assert state.phase == "choose" and len(drawn(state)) == 3
    # After an Ignore tile, short of five puzzle tiles: the two drawn are played.
    state, rng = table(2, placed={1: 6, 2: 6, 3: 6, 4: 2}, completed=(1, 2, 3), draws=[IGNORE, "4-3", TO_BAG, "4-4"], only=[])
    log = draw(state, rng)
    assert "The bag is empty." in texts(log) and "Holly plays 2 tiles to puzzle 4." in texts(log)
    assert state.outcome == "won"


def test_the_game_ends_at_once_and_the_tiles_are_played_before_scrooge_moves() -> None:
    """Ruling "The end comes at once": The game ends the moment Scrooge reaches 8 or the last
    puzzle is complete. The other tiles are played before a Move Scrooge tile moves him, so
    finishing the last puzzle with them wins first."""
    state, rng = table(2, placed={1: 6, 2: 6, 3: 6, 4: 5}, completed=(1, 2, 3), draws=["4-6", TO_BOX], scrooge=AWAKE - 1)
    draw(state, rng, 2)
    assert state.outcome == "won" and state.scrooge == AWAKE - 1
    # An out-of-order finish that wakes him ends the game before the Move Scrooge step.
    state, rng = table(2, placed={4: 5}, draws=["4-6", TO_BOX], scrooge=8)
    log = draw(state, rng, 2)
    assert state.outcome == "lost" and "Scrooge moves 4 spaces clockwise (puzzle 4) to 8 and wakes up!" in texts(log)
    assert "the special tile" not in texts(log)


def test_any_four_puzzles_may_be_chosen() -> None:
    """Ruling "Choosing the puzzles": Any four of the six puzzles may be used (option "puzzles",
    default 1 2 3 4); the other two go to the box with their tiles. For a More Challenging Game
    choose higher-numbered puzzles."""
    for chosen in ([1, 3, 5, 6], "2 4 5 6", (3, 4, 5, 6)):
        state = GAME.setup({"puzzles": chosen}, NAMES[:2], Rng("choose"))
        assert len(state.puzzles) == 4
        assert {puzzle_of(f) for f in state.cards.faces("bag")} - {0} == set(state.puzzles)
        assert state.cards.component_faces() == sorted(all_faces())
    for bad in ([1, 2, 3], [1, 2, 3, 7], [1, 1, 2, 3], [1, 2, 3, 4, 5]):
        with pytest.raises(ValueError, match="four different puzzles"):
            GAME.setup({"puzzles": bad}, NAMES[:2], Rng("bad"))


def test_one_player_plays_alone() -> None:
    """Ruling "Solo play": One player may play alone (1-4 players): the rules are the same, and
    taking another turn changes nothing."""
    assert (GAME.min_players, GAME.max_players) == (1, 4)
    with pytest.raises(ValueError):
        GAME.setup({}, NAMES[:1] * 5, Rng("five"))
    state, rng = table(1, draws=["1-1", "1-2"])
    draw(state, rng)
    act(state, 0, Stop(), rng)
    assert state.turn == 0 and state.turns == 1
    for seed in range(5):
        result = play_game(GAME, 1, f"solo/{seed}", "smart").result
        assert result.scores[0] in range(5) and result.winners in ((), (0,))


def test_everyone_wins_or_nobody_does() -> None:
    """Ruling "Winning together": Everyone wins or nobody does: every player scores the number
    of puzzles completed, and when the players lose there is no winner."""
    assert GAME.cooperative
    state, rng = table(4, placed={3: 5}, draws=["3-6"], scrooge=9)
    draw(state, rng)
    act(state, 0, Stop(), rng)
    result = GAME.result(state)
    assert result is not None and result.winners == () and result.scores == (1, 1, 1, 1)
    assert result.details[0] == "1 of 4 puzzles, Scrooge awake"
    outcomes = {bool(play_game(GAME, 3, f"together/{seed}", "smart").result.winners) for seed in range(12)}
    assert outcomes == {True, False}


# ---------------------------------------------------------------- refusals


def test_illegal_actions_name_the_rule_and_change_nothing() -> None:
    """An illegal action is refused with the rule it breaks, and changes nothing."""
    state, rng = table(2, draws=["1-1", "2-1", "3-1"])
    assert "draw at least one" in refused(state, 0, Stop())
    assert "once you have drawn" in refused(state, 0, Play(()))
    assert refused(state, 1, Draw()) == "It is not your turn."
    draw(state, rng, 3)
    act(state, 0, Stop(), rng)
    a, b, c = state.cards.zone("drawn")
    assert "Choose two different tiles" in refused(state, 0, Play((a, a)))
    assert "tile 999 is not in front of you" in refused(state, 0, Play((a, 999)))
    assert "in the order you drew them" in refused(state, 0, Play((b, a)))
    assert "choose two tiles to play" in refused(state, 0, Draw())
    assert "choose two tiles to play" in refused(state, 0, Stop())
    # A special tile set aside is never played.
    state, rng = table(2, draws=[IGNORE, "1-1", "1-2", "1-3", "2-1", "2-2"])
    draw(state, rng)
    ignore = state.cards.zone("drawn")[0]
    assert "a special tile is never played" in refused(state, 0, Play((ignore, state.cards.zone("drawn")[1])))


def test_malformed_actions_are_invalid() -> None:
    """A malformed action is a different error from an illegal one."""
    for raw in ["draw 3", "stop now", "play one two", "fly", ""]:
        with pytest.raises(InvalidAction):
            GAME.parse_action(raw)
    assert GAME.parse_action("play 4 7") == Play((4, 7))
    assert Play((4, 7)).text() == "play 4 7" and Play((4, 7)).to_wire() == ["play", [4, 7]]
    assert GAME.parse_action(["draw"]) == Draw()


# ---------------------------------------------------------------- every ruling is tested

RULING_TESTS = {
    "The special tiles": test_the_seven_special_tiles,
    "The number on a puzzle": test_the_number_on_a_puzzle_is_its_own_number,
    "The clock": test_the_clock_has_eleven_spaces_from_asleep_to_awake,
    "Scrooge asleep": test_scrooge_on_9_does_not_move_counter_clockwise,
    "Who starts": test_the_youngest_player_takes_the_first_turn_or_else_a_seat_drawn_at_random,
    "Drawing at least one": test_you_must_draw_at_least_one_tile,
    "Fewer than two tiles": test_with_fewer_than_two_puzzle_tiles_you_play_what_you_have,
    "Several tiles at once": test_tiles_played_together_go_lowest_puzzle_first,
    "The Ignore tile": test_after_an_ignore_tile_drawing_goes_on_by_itself,
    "An empty bag": test_drawing_ends_when_the_bag_is_empty,
    "The end comes at once": test_the_game_ends_at_once_and_the_tiles_are_played_before_scrooge_moves,
    "Choosing the puzzles": test_any_four_puzzles_may_be_chosen,
    "Solo play": test_one_player_plays_alone,
    "Winning together": test_everyone_wins_or_nobody_does,
}


def test_every_ruling_has_its_test() -> None:
    """Every ruling in ``ChristmasCarol.rulings`` is checked by a test that quotes it."""
    assert_every_ruling_is_tested(GAME, RULING_TESTS)


# ---------------------------------------------------------------- properties over whole games


def check_table(game, state, seat=None, action=None) -> None:
    """At every moment: the 43 tiles are all accounted for, Scrooge is on the clock, the bag is
    face down to everyone and every other tile face up to everyone, and no view shows more."""
    cards = state.cards
    assert cards.component_faces() == sorted(all_faces())
    assert sum(len(z) for z in cards.zones.values()) == 43
    assert 0 <= state.scrooge <= AWAKE
    assert (state.scrooge == AWAKE) == (state.outcome == "lost")
    for puzzle in state.puzzles:
        faces = cards.faces(puzzle_zone(puzzle))
        assert len(faces) <= 6 and all(puzzle_of(f) == puzzle for f in faces)
        assert (len(faces) == 6) == (puzzle in state.completed)
    for viewer in [*range(len(state.players)), None]:
        view = GAME.view(state, viewer)
        assert not set(view.zone("bag")) & set(view.faces)
        for zone, handles in view.zones.items():
            if zone != "bag":
                assert all(view.faces[h] == cards.face(h) for h in handles)
        for handle, face in view.faces.items():
            assert may_see(cards.visibility(handle), viewer) and cards.face(handle) == face
        hidden = set(cards.faces("bag"))
        assert not hidden & {v for v in view.public.values() if isinstance(v, str)}


@over_whole_games(GAME, examples=60)
def test_tiles_are_conserved_scrooge_stays_on_the_clock_and_every_game_ends(seed: int, players: int, data) -> None:
    """Place all the other tiles in the bag and mix them up. (Whatever the players do, every
    tile stays somewhere, the bag stays unseen, and the game ends with a win or a loss.)"""
    puzzles = data.draw(st.sampled_from([(1, 2, 3, 4), (3, 4, 5, 6), (1, 3, 5, 6)]))
    playout = play_checked_game(GAME, players, seed, data, check_table, options={"puzzles": puzzles})
    state = playout.state
    assert state.phase == "over" and state.outcome in ("won", "lost")
    assert (state.outcome == "won") == (len(state.completed) == 4)
    assert playout.result.scores == (len(state.completed),) * players


def test_the_smart_bot_clearly_beats_random_players() -> None:
    """Work together to tell the story of Mickey's Christmas Carol by completing all four
    puzzles in order before Scrooge wakes up! (Sensible players win far more often.)"""
    games = 150
    rates = {}
    for kind in ("random", "smart"):
        wins = sum(bool(play_game(GAME, 2, f"bot-rate/{i}", kind).result.winners) for i in range(games))
        rates[kind] = wins / games
    assert rates["smart"] > rates["random"] + 0.15, rates
    assert rates["smart"] > 0.3, rates
