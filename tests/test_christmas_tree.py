"""Christmas Tree — one test per rule of the rulebook and per ruling.

Every test quotes, in its docstring, the rulebook sentence or the ruling it
checks. Precise situations are built with ``GAME.setup`` and a fixed ``Rng``,
then rearranged by ``table()`` below: it gathers every card into the deck and
deals chosen faces to hands, rows, the discard pile, Points and the top of the
deck, so the cards in play are always exactly the game's cards.
"""

from __future__ import annotations

from collections import Counter
from functools import partial

import pytest

from xmas_tui.games import InvalidAction, Rng
from xmas_tui.games.cards import EVERYONE, NOBODY, may_see, seat_mask
from xmas_tui.games.christmas_tree import (
    COPIES,
    GAME,
    ITEMS,
    ROW_SIZES,
    ROW_ZONES,
    SANTA,
    TARGETS,
    TYPES,
    Done,
    Pay,
    Play,
    Take,
    all_faces,
    counted,
    hand_zone,
    last_player,
    points_zone,
    set_points,
    sets_in,
)
from xmas_tui.simulate import play_game

from .gamekit import act_in, check_who_starts, over_whole_games, play_checked_game, refusal, texts
from .rulings import assert_every_ruling_is_tested

NAMES = ("Holly", "Noel", "Ivy", "Jasper", "Carol")


# ---------------------------------------------------------------- helpers


def table(
    players: int = 3,
    *,
    hands: dict[int, list[str]] | None = None,
    rows: dict[int, list[str]] | None = None,
    deck: list[str] | tuple[str, ...] = (),
    discard: list[str] | tuple[str, ...] = (),
    points: dict[int, list[str]] | None = None,
    first: int = 0,
    rest: str = "deck",
    seed: int = 0,
):
    """A table from ``GAME.setup`` rearranged: the start of ``first``'s turn.

    Hands are empty unless given; rows not given are dealt full from the bottom
    of the deck; ``deck[0]`` is the next card drawn; every other card stays in
    the deck, or goes to ``rest`` (e.g. a hand, to empty the supply).
    """
    rng = Rng(f"christmas-tree-test/{seed}")
    state = GAME.setup({}, NAMES[:players], rng)
    cards = state.cards
    for zone in list(cards.zones):
        if zone != "deck":
            for handle in list(cards.zone(zone)):
                cards.move(handle, "deck", visible=NOBODY)
    placed: set[int] = set()

    def put(face: str, zone: str, visible: int) -> int:
        handle = next(h for h in cards.zone("deck") if h not in placed and cards.face(h) == face)
        cards.move(handle, zone, visible=visible)
        placed.add(handle)
        return handle

    for seat, faces in (hands or {}).items():
        for face in faces:
            put(face, hand_zone(seat), seat_mask(seat))
    for seat, faces in (points or {}).items():
        for face in faces:
            put(face, points_zone(seat), NOBODY)
    for face in discard:
        put(face, "discard", EVERYONE)
    for row, faces in (rows or {}).items():
        for face in faces:
            put(face, ROW_ZONES[row], EVERYONE)
    for face in reversed(list(deck)):
        put(face, "deck", NOBODY)
    for row, size in enumerate(ROW_SIZES):
        if rows is None or row not in rows:
            for _ in range(size):
                handle = next(h for h in cards.zone("deck") if h not in placed)
                cards.move(handle, ROW_ZONES[row], visible=EVERYONE)
    if rest != "deck":
        seat = int(rest.split(".")[1])
        visible = seat_mask(seat) if rest.startswith("hand.") else NOBODY
        for handle in [h for h in cards.zone("deck") if h not in placed]:
            cards.move(handle, rest, visible=visible)
    state.first = state.turn = first
    state.phase = "turn"
    return state, rng


act = partial(act_in, GAME)


refused = partial(refusal, GAME)


def hand(state, seat: int) -> Counter[str]:
    return Counter(state.cards.faces(hand_zone(seat)))


def row(state, index: int) -> list[str]:
    return state.cards.faces(ROW_ZONES[index])


def score(state, seat: int) -> int:
    return len(state.cards.zone(points_zone(seat)))


def finish_round(state, rng) -> list:
    """Every player takes the first row until the final plays begin."""
    log: list = []
    while state.phase in ("turn", "play", "pay"):
        seat = state.turn
        log += act(state, seat, Done() if state.phase == "play" else Take(0), rng)
    return log


# ---------------------------------------------------------------- components and set up


def test_there_are_89_item_cards() -> None:
    """Item cards x89 (15 each of Christmas Tree, Gift Boxes, Gingerbread Man, Reindeer,
    and Snowman; 14 Santa Claus)."""
    assert len(all_faces()) == 89
    assert COPIES == {"tree": 15, "gifts": 15, "gingerbread": 15, "reindeer": 15, "snowman": 15, "santa": 14}
    for players in (3, 4, 5):
        state = GAME.setup({}, NAMES[:players], Rng(players))
        assert state.cards.component_faces() == sorted(all_faces())
        assert state.removed == -1


def test_deal_3_to_each_player_as_their_hand_cards_kept_hidden() -> None:
    """Shuffle all Item cards and deal 3 to each player as their hand cards (kept hidden
    from other players)."""
    state = GAME.setup({}, NAMES[:4], Rng("deal"))
    for seat in range(4):
        handles = state.cards.zone(hand_zone(seat))
        assert len(handles) == 3
        for viewer in [0, 1, 2, 3, None]:
            view = GAME.view(state, viewer)
            assert view.zone(hand_zone(seat)) == tuple(handles)  # everyone sees how many
            assert all((h in view.faces) == (viewer == seat) for h in handles)


def test_lay_down_5_rows_of_1_2_3_5_and_7_cards() -> None:
    """Lay down 5 rows of cards on the table with 1, 2, 3, 5, and 7 cards in each row."""
    state = GAME.setup({}, NAMES[:3], Rng("rows"))
    assert [len(state.cards.zone(z)) for z in ROW_ZONES] == [1, 2, 3, 5, 7]
    spectator = GAME.view(state, None)
    for zone in ROW_ZONES:
        assert all(h in spectator.faces for h in state.cards.zone(zone))


def test_the_remaining_cards_form_a_supply_deck() -> None:
    """The remaining cards form a supply deck."""
    for players in (2, 3, 4, 5):
        state = GAME.setup({}, NAMES[:players], Rng(players))
        total = 74 if players == 2 else 89
        deck = state.cards.zone("deck")
        assert len(deck) == total - 3 * players - 18
        for viewer in [*range(players), None]:
            assert not set(deck) & set(GAME.view(state, viewer).faces)


def test_in_a_2_player_game_remove_one_type_of_item_cards() -> None:
    """Note: In a 2-player game, remove one type of Item cards (16 cards) from the game.

    Ruling "The 2-player game": One ordinary type of 15 cards, drawn at random, is
    removed (74 cards remain). The rulebook's "16 cards" is a misprint: no type has 16
    cards, and Santa Claus is never removed, since the game needs its wild card."""
    removed = set()
    for seed in range(40):
        state = GAME.setup({}, NAMES[:2], Rng(f"two/{seed}"))
        gone = TYPES[state.removed]
        assert gone in ITEMS
        faces = Counter(state.cards.component_faces())
        assert sum(faces.values()) == 74
        assert faces[gone] == 0 and faces[SANTA] == 14
        assert all(faces[item] == 15 for item in ITEMS if item != gone)
        removed.add(gone)
    assert removed == set(ITEMS)
    assert all(n != 16 for n in COPIES.values())


def test_the_youngest_player_starts_or_else_a_seat_drawn_at_random() -> None:
    """The youngest player is the starting player and you are ready to play!

    Ruling "Who starts": The table says who is youngest: the lobby asks, and the option
    "first" names that seat (seats count from 1). When nobody says, the program cannot
    know, so the first player is drawn at random when the game is set up. Play goes
    clockwise (seat order) from the first player."""
    check_who_starts(GAME, NAMES[:4], "Who is youngest?")
    check_who_starts(GAME, NAMES[:2], "Who is youngest?")  # the type removed is drawn first
    state = GAME.setup({"first": 4}, NAMES[:4], Rng("first/0"))
    assert GAME.to_act(state) == {3} and last_player(state) == 2


def test_players_take_turns_in_clockwise_order() -> None:
    """Players take turns in clockwise order."""
    state, rng = table(4, first=2)
    seen = []
    for _ in range(6):
        seen.append(state.turn)
        act(state, state.turn, "take 0", rng)
    assert seen == [2, 3, 0, 1, 2, 3]


# ---------------------------------------------------------------- A. take one row


def test_choose_one_row_and_take_all_cards_into_your_hand() -> None:
    """Choose one row and take all cards into your hand."""
    state, rng = table(3, hands={0: ["tree", "tree"]}, rows={2: ["snowman", "reindeer", "santa"]})
    handles = list(state.cards.zone(ROW_ZONES[2]))
    act(state, 0, "take 2", rng)
    act(state, 0, "pay tree", rng)
    act(state, 0, "pay tree", rng)
    assert hand(state, 0) == Counter(["snowman", "reindeer", "santa"])
    for h in handles:
        assert state.cards.where(h) == hand_zone(0)
        assert state.cards.visibility(h) == seat_mask(0)


def test_the_first_row_is_free_no_matter_how_many_cards() -> None:
    """The 1st row is free no matter how many cards there are."""
    state, rng = table(3, rows={0: ["tree", "gifts", "snowman", "santa", "reindeer", "tree"]})
    assert state.cards.zone(hand_zone(0)) == []
    act(state, 0, "take 0", rng)
    assert hand(state, 0) == Counter(["tree", "gifts", "snowman", "santa", "reindeer", "tree"])
    assert state.turn == 1


def test_pay_1_card_to_the_1st_row_to_take_the_2nd_row() -> None:
    """Example: Pay 1 card to the 1st row if you want to take cards from the 2nd row."""
    state, rng = table(3, hands={0: ["gifts"]}, rows={0: ["tree"], 1: ["snowman", "snowman"]})
    act(state, 0, "take 1", rng)
    assert state.phase == "pay" and state.turn == 0
    assert GAME.legal_actions(state, 0) == [Pay("gifts")]
    act(state, 0, "pay gifts", rng)
    assert row(state, 0) == ["tree", "gifts"]
    assert hand(state, 0) == Counter(snowman=2)


def test_pay_1_card_to_each_of_the_1st_and_2nd_rows_to_take_the_3rd_row() -> None:
    """Pay 1 card to each of the 1st and 2nd rows if you want to take cards from the 3rd
    row. So on and so forth."""
    state, rng = table(
        3,
        hands={0: ["gifts", "reindeer", "tree", "tree"]},
        rows={0: ["snowman"], 1: ["snowman", "santa"], 4: ["gingerbread"] * 7},
    )
    act(state, 0, "take 4", rng)
    for paid in ("reindeer", "gifts", "tree", "tree"):
        act(state, 0, f"pay {paid}", rng)
    assert row(state, 0) == ["snowman", "reindeer"]
    assert row(state, 1) == ["snowman", "santa", "gifts"]
    assert row(state, 2)[-1] == "tree" and row(state, 3)[-1] == "tree"
    assert hand(state, 0) == Counter(gingerbread=7)


def test_you_must_pay_for_each_row_you_skip_so_you_cannot_take_a_row_you_cannot_pay_for() -> None:
    """To take cards from the 2nd to the 5th rows, you must pay 1 card from your hand for
    each row you skip from the top.

    Ruling "Paying for a row": You choose which card goes onto each skipped row, the top
    row first, one card at a time; paid cards lie face up and belong to that row. You may
    take a row only if you hold a card for every row you skip, so you can never be left
    unable to pay; once you have chosen a row you must pay for it."""
    state, rng = table(3, hands={0: ["tree", "reindeer", "reindeer"]})
    assert [a for a in GAME.legal_actions(state, 0) if isinstance(a, Take)] == [
        Take(0), Take(1), Take(2), Take(3)
    ]
    rule = refused(state, 0, "take 4")
    assert "pay 1 card from your hand for each row you skip" in rule and "you hold 3" in rule
    act(state, 0, "take 2", rng)
    # Committed: only paying is allowed now, with a card you hold.
    assert set(GAME.legal_actions(state, 0)) == {Pay("tree"), Pay("reindeer")}
    assert "pay 1 card from your hand onto row 1" in refused(state, 0, "take 0")
    assert "pay 1 card" in refused(state, 0, "play reindeer 2 1")
    assert "you hold no Snowmen" in refused(state, 0, "pay snowman")
    act(state, 0, "pay reindeer", rng)
    assert row(state, 0)[-1] == "reindeer"
    assert state.cards.is_public(state.cards.zone(ROW_ZONES[0])[-1])
    act(state, 0, "pay tree", rng)
    assert row(state, 1)[-1] == "tree"
    assert state.turn == 1
    assert hand(state, 0)["reindeer"] == 1


def test_paid_cards_belong_to_the_row() -> None:
    """Pay 1 card to the 1st row if you want to take cards from the 2nd row (the paid
    card then lies in that row, for whoever takes it)."""
    state, rng = table(3, hands={0: ["santa"]}, rows={0: ["tree"]})
    act(state, 0, "take 1", rng)
    act(state, 0, "pay santa", rng)
    act(state, 1, "take 0", rng)
    assert hand(state, 1) == Counter(["tree", "santa"])


def test_there_is_no_limit_to_the_number_of_cards_in_your_hand() -> None:
    """Note: There is no limit to the number of cards in your hand."""
    state, rng = table(3, hands={0: ["tree", "gifts", "snowman", "reindeer"] * 5})
    act(state, 0, "take 0", rng)
    assert sum(hand(state, 0).values()) == 21


def test_refill_the_chosen_row_to_1_2_3_5_7_cards() -> None:
    """Refill the chosen row with cards from the supply deck. Refill to 1/2/3/5/7 cards
    for rows 1~5."""
    for index, size in enumerate(ROW_SIZES):
        state, rng = table(3, hands={0: ["tree"] * 4}, deck=["snowman"] * 7)
        log = act(state, 0, f"take {index}", rng)
        for _ in range(index):
            log += act(state, 0, "pay tree", rng)
        assert row(state, index) == ["snowman"] * size
        assert all(state.cards.is_public(h) for h in state.cards.zone(ROW_ZONES[index]))
        assert f"Row {index + 1} is refilled: {size} {'Snowman' if size == 1 else 'Snowmen'}." in texts(log)
        # The rows paid onto are not refilled: they keep their card and the paid one.
        for skipped in range(index):
            assert len(row(state, skipped)) == ROW_SIZES[skipped] + 1


def test_if_the_supply_deck_runs_out_shuffle_the_discard_pile_to_form_a_new_deck() -> None:
    """Note: If the supply deck runs out, shuffle all cards in the discard pile to form a
    new deck."""
    state, rng = table(
        3, hands={0: ["tree"]}, deck=["gifts"], discard=["reindeer"] * 6, rest="hand.2"
    )
    old = set(state.cards.zone("discard"))
    log = act(state, 0, "take 1", rng)
    log += act(state, 0, "pay tree", rng)
    assert "The deck ran out: the discard pile is shuffled into a new deck." in texts(log)
    assert row(state, 1) == ["gifts", "reindeer"]
    assert state.cards.zone("discard") == []
    assert len(state.cards.zone("deck")) == 5
    # A shuffle renames: no card keeps the handle it had in the discard pile.
    assert not old & {*state.cards.zone("deck"), *state.cards.zone(ROW_ZONES[1])}


def test_an_empty_row_cannot_be_taken_and_a_short_row_stays_short() -> None:
    """Refill the chosen row with cards from the supply deck.

    Ruling "Empty rows": A row is refilled from the deck, then from the reshuffled
    discard pile. If both are empty a row stays short or empty, and an empty row cannot
    be taken."""
    state, rng = table(
        3,
        hands={0: ["tree", "tree"], 2: ["santa"]},
        rows={0: ["snowman"], 1: [], 2: ["gifts"] * 3},
        deck=["reindeer", "reindeer"],
        rest="points.2",
    )
    assert Take(1) not in GAME.legal_actions(state, 0)
    assert "row 2 is empty" in refused(state, 0, "take 1")
    act(state, 0, "take 2", rng)
    act(state, 0, "pay tree", rng)
    act(state, 0, "pay tree", rng)
    assert row(state, 2) == ["reindeer", "reindeer"]  # short: the supply ran out
    assert row(state, 1) == ["tree"]
    act(state, 1, "take 0", rng)
    assert row(state, 0) == []
    assert [a for a in GAME.legal_actions(state, 2) if isinstance(a, Take)] == [Take(1)]
    assert "row 1 is empty" in refused(state, 2, "take 0")


def test_when_the_supply_is_exhausted_the_game_ends_after_the_round() -> None:
    """If the supply deck runs out, shuffle all cards in the discard pile to form a new deck.

    Ruling "Supply exhausted": If a row cannot be refilled to its size because the deck
    and the discard pile are both empty, the game ends after the last player's turn, as
    if someone had reached the target. So every game ends, even one in which nobody
    scores."""
    state, rng = table(3, first=0, hands={2: ["tree"]}, deck=["gifts"], rest="points.2")
    act(state, 0, "take 0", rng)
    assert state.ending == ""  # the row was refilled with the last card
    log = act(state, 1, "take 0", rng)
    assert state.ending == "supply"
    assert "The deck and the discard pile are empty: the game ends after Ivy's turn." in texts(log)
    assert state.turn == 2 and state.phase == "turn"  # the round goes on
    act(state, 2, "take 1", rng)
    log = act(state, 2, "pay tree", rng)
    assert "The game ends" in texts(log)
    assert state.phase == "over"  # nobody holds a set for the final plays
    assert GAME.result(state) is not None


# ---------------------------------------------------------------- B. play cards to score Points


def test_3_or_more_cards_of_the_same_type_can_form_a_set() -> None:
    """3 or more cards of the same type can form a set."""
    state, rng = table(3, hands={0: ["reindeer", "reindeer", "tree", "gifts", "snowman"]})
    assert not [a for a in GAME.legal_actions(state, 0) if isinstance(a, Play)]
    assert "3 or more cards of the same type can form a set" in refused(state, 0, "play reindeer 2 0")
    assert "You do not hold 3 Reindeer" in refused(state, 0, "play reindeer 3 0")
    state, rng = table(3, hands={0: ["reindeer"] * 3})
    assert [a for a in GAME.legal_actions(state, 0) if isinstance(a, Play)] == [Play("reindeer", 3, 0)]


@pytest.mark.parametrize(("size", "scored"), [(3, 1), (5, 2), (6, 3)])
def test_score_1_2_3_points_for_each_set_of_3_5_6_cards(size: int, scored: int) -> None:
    """Score 1/2/3 Points for each set of 3/5/6 cards of the same type that you have played."""
    state, rng = table(3, hands={0: ["snowman"] * size + ["tree"]})
    log = act(state, 0, f"play snowman {size} 0", rng)
    assert score(state, 0) == scored
    assert state.cards.faces(points_zone(0)) == ["snowman"] * scored
    assert state.cards.faces("discard") == ["snowman"] * (size - scored)
    assert f"Holly plays {size} Snowmen and scores {scored} Point" in texts(log)


def test_sets_of_4_and_of_7_or_more() -> None:
    """3 or more cards of the same type can form a set. Score 1/2/3 Points for each set of
    3/5/6 cards.

    Ruling "Sets of 4, and of 7 or more": Any 3 or more cards of one type are a set. A set
    scores for the largest size it reaches: 3 or 4 cards 1 Point, 5 cards 2 Points, 6 or
    more cards 3 Points."""
    assert [set_points(n) for n in range(0, 11)] == [0, 0, 0, 1, 1, 2, 3, 3, 3, 3, 3]
    for size, scored in [(4, 1), (7, 3), (9, 3)]:
        state, rng = table(3, hands={0: ["gifts"] * size})
        act(state, 0, f"play gifts {size} 0", rng)
        assert score(state, 0) == scored
        assert len(state.cards.zone("discard")) == size - scored


def test_rulebook_example_three_gingerbread_man_score_one_point() -> None:
    """Example: You played 3 Gingerbread Man to score 1 Point. You keep one of the cards
    facedown as your Point and discard the other two."""
    state, rng = table(3, hands={0: ["gingerbread"] * 3 + ["tree"]})
    act(state, 0, "play gingerbread 3 0", rng)
    assert score(state, 0) == 1
    (kept,) = state.cards.zone(points_zone(0))
    assert state.cards.face(kept) == "gingerbread"
    assert state.cards.visibility(kept) == NOBODY
    assert state.cards.faces("discard") == ["gingerbread", "gingerbread"]
    assert all(state.cards.is_public(h) for h in state.cards.zone("discard"))
    assert hand(state, 0) == Counter(tree=1)


def test_play_one_or_more_sets_in_one_turn() -> None:
    """Play one or more sets of cards from your hand to score Points.

    Ruling "Several sets in one turn": You may play as many sets as you like in your
    turn, of the same or different types, and then say you are done. Taking a row and
    playing sets are never mixed in one turn."""
    state, rng = table(3, hands={0: ["tree"] * 3 + ["reindeer"] * 6 + ["gifts"]})
    act(state, 0, "play tree 3 0", rng)
    assert state.turn == 0 and state.phase == "play"
    assert Done() in GAME.legal_actions(state, 0)
    assert "you cannot also take a row" in refused(state, 0, "take 0")
    act(state, 0, "play reindeer 3 0", rng)
    act(state, 0, "play reindeer 3 0", rng)  # two sets of one type
    assert score(state, 0) == 3
    # Nothing left to play: the turn ends by itself.
    assert state.turn == 1
    state, rng = table(3, hands={0: ["tree"] * 4})
    act(state, 0, "play tree 3 0", rng)
    assert state.turn == 1  # a single tree is no set


def test_santa_claus_is_a_wild_card_in_any_set() -> None:
    """Santa Claus is a wild card. You can use it in any set of cards to score."""
    for item in ITEMS:
        state, rng = table(3, hands={0: [item, item, SANTA]})
        assert Play(item, 2, 1) in GAME.legal_actions(state, 0)
        act(state, 0, f"play {item} 2 1", rng)
        assert score(state, 0) == 1
    state, rng = table(3, hands={0: ["snowman"] * 3 + [SANTA] * 3})
    act(state, 0, "play snowman 3 3", rng)
    assert score(state, 0) == 3


def test_santa_claus_used_to_score_are_discarded_instead_of_kept() -> None:
    """Note: If you have used any Santa Claus card to score, put them in the discard pile
    instead of keeping them for Points, if able."""
    state, rng = table(3, hands={0: ["snowman"] * 4 + [SANTA] * 2})
    act(state, 0, "play snowman 4 2", rng)
    assert state.cards.faces(points_zone(0)) == ["snowman"] * 3
    assert Counter(state.cards.faces("discard")) == Counter(snowman=1, santa=2)


def test_santa_claus_make_up_the_points_a_set_is_short_of() -> None:
    """Note: ... put them in the discard pile instead of keeping them for Points, if able.

    Ruling "Keeping Santa Claus as Points": You keep the type's own cards as Points first
    and discard the Santa Claus; if the set has fewer of its own cards than the Points it
    scores, Santa Claus make up the rest (a set of 1 Snowman and 5 Santa Claus keeps the
    Snowman and 2 Santa Claus)."""
    state, rng = table(3, hands={0: ["snowman"] + [SANTA] * 5})
    act(state, 0, "play snowman 1 5", rng)
    assert score(state, 0) == 3
    assert Counter(state.cards.faces(points_zone(0))) == Counter(snowman=1, santa=2)
    assert state.cards.faces("discard") == [SANTA] * 3


def test_a_set_of_a_type_needs_a_card_of_that_type() -> None:
    """Santa Claus is a wild card. You can also play a set composed entirely of Santa Claus
    cards.

    Ruling "Santa Claus in a set": A set of an ordinary type needs at least one card of
    that type; any number of Santa Claus may join it. Santa Claus alone always form a
    Santa Claus set."""
    state, rng = table(3, hands={0: ["tree"] + [SANTA] * 4})
    assert "needs at least one Christmas Tree" in refused(state, 0, "play tree 0 3")
    assert "santa 0 N" in refused(state, 0, "play santa 1 2")
    plays = set(a for a in GAME.legal_actions(state, 0) if isinstance(a, Play))
    assert plays == {
        Play("tree", 1, 2), Play("tree", 1, 3), Play("tree", 1, 4),
        Play(SANTA, 0, 3), Play(SANTA, 0, 4),
    }
    assert plays == set(sets_in(hand(state, 0)))
    act(state, 0, "play tree 1 4", rng)
    assert score(state, 0) == 2


def test_points_are_kept_face_down_and_everyone_sees_how_many() -> None:
    """Keep a number of cards from those you just played in front of you (facedown) as
    your Points. (And: your hand cards are kept hidden from other players.)

    Ruling "Points and ties": Points cards lie face down (their faces are hidden even from
    their owner), but everyone sees how many each player has, and how many cards each
    player holds. Most Points wins; then most cards in hand; then the tied players share
    the victory."""
    state, rng = table(3, hands={0: ["reindeer"] * 5 + ["tree"], 1: ["gifts", "gifts"]})
    act(state, 0, "play reindeer 5 0", rng)
    for viewer in [0, 1, 2, None]:
        view = GAME.view(state, viewer)
        assert len(view.zone(points_zone(0))) == 2
        assert not set(view.zone(points_zone(0))) & set(view.faces)
        assert len(view.zone(hand_zone(0))) == 1 and len(view.zone(hand_zone(1))) == 2
        assert (view.zone(hand_zone(1))[0] in view.faces) == (viewer == 1)
    # Ties: points, then cards in hand, then shared.
    state, _ = table(3, hands={0: ["tree"], 1: ["tree", "gifts"], 2: ["gifts"] * 5},
                     points={0: ["tree"] * 3, 1: ["gifts"] * 3, 2: ["reindeer"] * 2})
    state.phase = "over"
    result = GAME.result(state)
    assert result.scores == (3, 3, 2)
    assert result.winners == (1,) and result.tiebreak == "more cards in hand"
    state.cards.move(state.cards.zone(hand_zone(2))[0], hand_zone(0), visible=seat_mask(0))
    result = GAME.result(state)
    assert result.winners == (0, 1) and result.tiebreak == "shared win"


# ---------------------------------------------------------------- Surprise!


def test_surprise_makes_each_holder_of_two_or_more_discard_half_rounded_down() -> None:
    """After you score, if any player has 2 or more cards of that scoring type in their
    hand, they must discard half of them! (Rounded down)"""
    state, rng = table(
        5,
        hands={
            0: ["reindeer"] * 3,
            1: ["reindeer", "tree"],
            2: ["reindeer"] * 2,
            3: ["reindeer"] * 3 + ["gifts"],
            4: ["reindeer"] * 5,
        },
    )
    log = act(state, 0, "play reindeer 3 0", rng)
    assert [hand(state, s)["reindeer"] for s in range(1, 5)] == [1, 1, 2, 3]
    assert hand(state, 1)["tree"] == 1 and hand(state, 3)["gifts"] == 1
    text = texts(log)
    assert "Surprise! Noel discards" not in text
    assert "Surprise! Ivy discards 1 Reindeer." in text
    assert "Surprise! Jasper discards 1 Reindeer." in text
    assert "Surprise! Carol discards 2 Reindeer." in text
    assert Counter(state.cards.faces("discard")) == Counter(reindeer=2 + 4)


def test_for_each_card_discarded_you_draw_one_card_from_the_deck() -> None:
    """Then, for each card they have discarded, you can draw one card from the deck as a
    reward."""
    state, rng = table(
        3,
        hands={0: ["gifts"] * 3, 1: ["gifts"] * 4, 2: ["gifts"] * 2},
        deck=["snowman", "tree", "santa", "reindeer"],
    )
    top = list(reversed(state.cards.zone("deck")[-3:]))
    log = act(state, 0, "play gifts 3 0", rng)
    assert hand(state, 0) == Counter(snowman=1, tree=1, santa=1)
    for handle in top:
        assert state.cards.where(handle) == hand_zone(0)
        assert state.cards.visibility(handle) == seat_mask(0)
    assert state.cards.faces("deck")[-1] == "reindeer"
    text = texts(log)
    assert "Holly draws 3 cards as a reward." in text
    # The log is public: it never names the cards drawn.
    assert "Snowman" not in text and "Santa" not in text


def test_surprise_spares_the_scorer_and_counts_only_that_type() -> None:
    """After you score, if any player has 2 or more cards of that scoring type in their
    hand, they must discard half of them!

    Ruling "Who is surprised": Only the other players (the scorer is the one rewarded),
    and only the scoring type's own cards count: a Santa Claus in hand is not a Reindeer. Half is rounded down: 2 or 3
    cards lose 1, 4 or 5 lose 2."""
    state, rng = table(
        3, hands={0: ["reindeer"] * 5 + ["tree"], 1: ["reindeer", SANTA, SANTA], 2: ["reindeer"] * 3},
        deck=["gifts"],
    )
    log = act(state, 0, "play reindeer 3 0", rng)  # Ivy loses 1, Holly draws Gifts: no set left, the turn ends
    assert state.turn == 1
    assert hand(state, 0)["reindeer"] == 2  # the scorer keeps theirs
    assert hand(state, 1) == Counter(reindeer=1, santa=2)
    assert hand(state, 2)["reindeer"] == 2
    assert "Surprise! Noel" not in texts(log)


def test_surprise_comes_after_each_set_scored_and_its_reward_is_yours_to_play_at_once() -> None:
    """After you score, if any player has 2 or more cards of that scoring type in their
    hand, they must discard half of them! (Rounded down) Then, for each card they have
    discarded, you can draw one card from the deck as a reward.

    Ruling "Surprise! after each set": Surprise! comes as soon as you score a set, before
    you play another: two sets of Reindeer in one turn make two Reindeer Surprise!s (a
    player holding 4 Reindeer discards 2, then 1 of the 2 left), and the cards you draw as a
    reward are yours to play in the same turn."""
    state, rng = table(
        3,
        hands={0: ["reindeer"] * 6 + ["tree"] * 2, 1: ["reindeer"] * 4 + ["tree"] * 2},
        deck=["tree", "gifts", "snowman", "gingerbread"],
    )
    log = act(state, 0, "play reindeer 3 0", rng)
    # at once: Noel discards half of 4, and Holly draws 2, a Christmas Tree among them
    assert [e.text for e in log if e.kind == "surprise"] == ["Surprise! Noel discards 2 Reindeer."]
    assert hand(state, 1)["reindeer"] == 2
    assert hand(state, 0) == Counter(reindeer=3, tree=3, gifts=1)
    assert state.phase == "play" and state.turn == 0
    log = act(state, 0, "play reindeer 3 0", rng)
    assert [e.text for e in log if e.kind == "surprise"] == ["Surprise! Noel discards 1 Reindeer."]
    assert hand(state, 1) == Counter(reindeer=1, tree=2)  # 3 Reindeer lost in all, not 2
    # the Christmas Tree drawn as a reward completes a set, played in the same turn
    assert hand(state, 0) == Counter(tree=3, gifts=1, snowman=1)
    log = act(state, 0, "play tree 3 0", rng)
    assert "Surprise! Noel discards 1 Christmas Tree." in texts(log)
    assert score(state, 0) == 3 and hand(state, 0) == Counter(gifts=1, snowman=1, gingerbread=1)
    assert state.turn == 1  # no set left: the turn is over, and no Surprise! comes at its end


def test_a_set_of_santa_claus_alone_makes_the_others_discard_all_their_santa_claus() -> None:
    """You can also play a set composed entirely of Santa Claus cards. When you do so, all
    the other players must discard ALL of the Santa Claus in their hands.

    Ruling "The Santa Claus Surprise!": After a set of Santa Claus alone, every other
    player discards all their Santa Claus, even a single one, and you draw one card for
    each, as in any Surprise!."""
    state, rng = table(
        4, hands={0: [SANTA] * 3 + ["tree"], 1: [SANTA, "gifts"], 2: [SANTA] * 3, 3: ["tree"] * 2}
    )
    log = act(state, 0, "play santa 0 3", rng)
    assert score(state, 0) == 1
    assert state.cards.faces(points_zone(0)) == [SANTA]
    assert hand(state, 1) == Counter(gifts=1) and hand(state, 2) == Counter()
    assert hand(state, 3) == Counter(tree=2)
    assert sum(hand(state, 0).values()) == 1 + 4
    text = texts(log)
    assert "Surprise! Noel discards 1 Santa Claus." in text
    assert "Surprise! Ivy discards 3 Santa Claus." in text
    assert "Holly draws 4 cards as a reward." in text


def test_the_surprise_draw_reshuffles_the_discard_pile_when_the_deck_runs_out() -> None:
    """Then, for each card they have discarded, you can draw one card from the deck as a
    reward. If the supply deck runs out, shuffle all cards in the discard pile to form a
    new deck.

    Ruling "The Surprise! draw": The reward is always drawn (the book's "you can draw" is
    a reward, and a card in hand never costs Points). If the deck runs out during it, the
    discard pile, including the cards just discarded, is shuffled into a new deck; so
    there are always enough cards to draw."""
    state, rng = table(
        3, hands={0: ["tree"] * 3, 1: ["tree"] * 4, 2: ["tree"] * 5}, deck=["gifts"], rest="points.2"
    )
    log = act(state, 0, "play tree 3 0", rng)
    # Noel loses 2, Ivy 2: four cards to draw, one in the deck, and 2 + 4 in the discard pile.
    assert "The deck ran out: the discard pile is shuffled into a new deck." in texts(log)
    assert Counter(state.cards.faces(hand_zone(0))) == Counter(gifts=1, tree=3)
    assert len(state.cards.zone("deck")) == 3
    assert state.cards.zone("discard") == []
    assert "Holly draws 4 cards as a reward." in texts(log)


# ---------------------------------------------------------------- game end


def items_in_play(players: int, seed: int = 0) -> list[str]:
    """The ordinary types in a ``table(players, seed=seed)`` (2 players remove one)."""
    state, _ = table(players, seed=seed)
    return [item for item in ITEMS if state.removed < 0 or TYPES[state.removed] != item]


@pytest.mark.parametrize(("players", "target"), sorted(TARGETS.items()))
def test_the_game_ends_after_the_last_players_turn_when_someone_reaches_the_target(
    players: int, target: int
) -> None:
    """When someone scores at least 7/6/5/4 Points in a 2/3/4/5-player game, the game will
    end after the last player's turn."""
    item = items_in_play(players)[0]
    state, rng = table(players, first=0, hands={0: [item] * 3}, points={0: [SANTA] * (target - 2)})
    act(state, 0, f"play {item} 3 0", rng)
    assert score(state, 0) == target - 1 and state.ending == ""
    state, rng = table(players, first=0, hands={0: [item] * 3}, points={0: [SANTA] * (target - 1)})
    log = act(state, 0, f"play {item} 3 0", rng)
    assert state.ending == "points"
    last = NAMES[players - 1]
    assert f"Holly has {target} Points: the game ends after {last}'s turn." in texts(log)
    turns = []
    while state.phase == "turn":
        turns.append(state.turn)
        act(state, state.turn, "take 0", rng)
    assert turns == list(range(1, players))
    assert state.phase in ("final", "over")


def test_after_the_last_players_turn_means_the_round_is_completed() -> None:
    """...the game will end after the last player's turn.

    Ruling "The last turn": "After the last player's turn" means the round is completed, so
    everyone gets the same number of turns: the last player is the one before the starting
    player. If the target is reached in the last player's turn, the game ends after it."""
    # Starting player Ivy (2): the last player is Noel (1). Jasper (3) reaches the target.
    state, rng = table(4, first=2, hands={3: ["tree"] * 3}, points={3: [SANTA] * 4})
    act(state, 2, "take 0", rng)
    log = act(state, 3, "play tree 3 0", rng)
    assert "the game ends after Noel's turn" in texts(log)
    order = []
    while state.phase == "turn":
        order.append(state.turn)
        act(state, state.turn, "take 0", rng)
    assert order == [0, 1]
    # Reached in the last player's own turn: the game ends right after it.
    state, rng = table(4, first=2, hands={1: ["tree"] * 3}, points={1: [SANTA] * 4})
    state.turn = 1
    log = act(state, 1, "play tree 3 0", rng)
    assert "The game ends" in texts(log)
    assert state.phase in ("final", "over")


def test_at_the_end_all_players_play_their_remaining_cards_with_no_surprise() -> None:
    """When the game ends, all players have a final chance to play the remaining cards in
    their hand to score Points (no Surprise! during this process). Then, the player with
    the most Points wins!"""
    state, rng = table(
        3,
        first=0,
        hands={0: ["tree"] * 3, 1: ["reindeer"] * 6 + ["tree"] * 2, 2: ["gifts"] * 5 + ["reindeer"] * 2},
        points={0: [SANTA] * 5},
        rows={0: ["snowman"]},
        deck=["tree", "snowman", "gifts"],
    )
    act(state, 0, "play tree 3 0", rng)  # 6 Points: the end; Noel loses a Christmas Tree
    assert hand(state, 1)["tree"] == 1
    act(state, 1, "take 0", rng)
    act(state, 2, "take 0", rng)
    assert state.phase == "final" and state.turn == 1  # Holly has no set left: skipped
    assert Done() in GAME.legal_actions(state, 1)
    assert not [a for a in GAME.legal_actions(state, 1) if isinstance(a, Take)]
    assert "you may only play the remaining cards in your hand" in refused(state, 1, "take 0")
    log = act(state, 1, "play reindeer 6 0", rng)
    assert state.turn == 2
    log += act(state, 2, "play gifts 5 0", rng)
    assert "Surprise" not in texts(log)
    assert hand(state, 2)["reindeer"] == 2  # Noel's Reindeer set surprised nobody
    assert state.phase == "over"
    result = GAME.result(state)
    assert result.scores == (6, 3, 2) and result.winners == (0,)
    assert GAME.to_act(state) == frozenset()


def test_final_plays_go_in_turn_order_and_skip_players_without_a_set() -> None:
    """When the game ends, all players have a final chance to play the remaining cards in
    their hand to score Points.

    Ruling "The final plays": At the end each player in turn, from the starting player,
    may play any sets from their hand (scored as usual, no Surprise!) and then says done;
    a player with no set to play is skipped."""
    state, rng = table(
        3,
        first=1,
        hands={0: ["snowman"] * 4, 1: ["tree"], 2: ["gifts"] * 6 + [SANTA] * 2},
    )
    state.ending = "points"
    state.turn = 0  # Holly, the last player, ends her turn
    act(state, 0, "take 0", rng)
    assert state.phase == "final" and state.turn == 2  # Noel (1) has no set: skipped
    act(state, 2, "play gifts 3 0", rng)
    assert state.turn == 2
    log = act(state, 2, "done", rng)  # keeps 3 Gift Boxes and 2 Santa Claus for the tie-break
    assert "Ivy keeps the rest of their hand." in texts(log)
    assert state.turn == 0 and state.phase == "final"
    act(state, 0, "play snowman 4 0", rng)
    assert state.phase == "over"
    assert GAME.result(state).scores == (1, 0, 1)
    assert GAME.result(state).winners == (2,)  # more cards in hand


def test_you_may_not_pass() -> None:
    """On your turn, perform one of the two actions: A. Take one row of cards, B. Play
    cards to score Points.

    Ruling "No passing": On your turn you must take a row or play a set; you may not do
    nothing. Only a player who can do neither (possible only once the supply is
    exhausted) has their turn skipped."""
    state, rng = table(3, hands={0: ["tree"] * 3})
    assert Done() not in GAME.legal_actions(state, 0)
    assert "you may not pass" in refused(state, 0, "done")
    # The supply is gone and row 1 is empty: Noel, with an empty hand, can do nothing.
    state, rng = table(
        3, hands={0: ["tree"], 2: ["gifts"]}, rows={0: ["snowman"]}, rest="points.2"
    )
    log = act(state, 0, "take 0", rng)
    assert state.ending == "supply"
    assert "Noel can neither take a row nor play a set." in texts(log)
    assert state.turn == 2


# ---------------------------------------------------------------- refusals


REFUSALS = [
    ("take 7", {}, "there are five rows"),
    ("take 3", {0: ["tree"]}, "for each row you skip"),
    ("pay tree", {0: ["tree"]}, "Pay only when you take a row below the 1st"),
    ("play tree 3 0", {0: ["tree", "tree"]}, "You do not hold 3 Christmas Tree"),
    ("play tree 2 1", {0: ["tree", "tree"]}, "You do not hold 1 Santa Claus"),
    ("play star 3 0", {0: ["tree"]}, "There is no Item type 'star'"),
    ("play tree -1 5", {0: ["tree"]}, "a set is made of cards from your hand"),
    ("done", {0: ["tree"]}, "you may not pass"),
]


@pytest.mark.parametrize(("action", "hands", "rule"), REFUSALS)
def test_illegal_actions_name_the_rule_and_change_nothing(action: str, hands, rule: str) -> None:
    """An illegal action is refused with the rule it breaks, and changes nothing."""
    state, _ = table(3, hands=hands)
    assert rule in refused(state, 0, action)
    assert refused(state, 1, "take 0") == "It is not your turn."


def test_malformed_actions_are_invalid() -> None:
    """A malformed action is a different error from an illegal one."""
    for raw in ["take", "take first", "play tree 3", "pay", "fly 3", ""]:
        with pytest.raises(InvalidAction):
            GAME.parse_action(raw)
    assert GAME.parse_action("play reindeer 2 1") == Play("reindeer", 2, 1)
    assert Play("reindeer", 2, 1).text() == "play reindeer 2 1"
    assert Take(3).to_wire() == ["take", 3] and Pay("tree").text() == "pay tree"


# ---------------------------------------------------------------- every ruling is tested

RULING_TESTS = {
    "The 2-player game": test_in_a_2_player_game_remove_one_type_of_item_cards,
    "Who starts": test_the_youngest_player_starts_or_else_a_seat_drawn_at_random,
    "No passing": test_you_may_not_pass,
    "Paying for a row": test_you_must_pay_for_each_row_you_skip_so_you_cannot_take_a_row_you_cannot_pay_for,
    "Empty rows": test_an_empty_row_cannot_be_taken_and_a_short_row_stays_short,
    "Supply exhausted": test_when_the_supply_is_exhausted_the_game_ends_after_the_round,
    "Sets of 4, and of 7 or more": test_sets_of_4_and_of_7_or_more,
    "Santa Claus in a set": test_a_set_of_a_type_needs_a_card_of_that_type,
    "Keeping Santa Claus as Points": test_santa_claus_make_up_the_points_a_set_is_short_of,
    "Several sets in one turn": test_play_one_or_more_sets_in_one_turn,
    "Surprise! after each set": test_surprise_comes_after_each_set_scored_and_its_reward_is_yours_to_play_at_once,
    "Who is surprised": test_surprise_spares_the_scorer_and_counts_only_that_type,
    "The Santa Claus Surprise!": test_a_set_of_santa_claus_alone_makes_the_others_discard_all_their_santa_claus,
    "The Surprise! draw": test_the_surprise_draw_reshuffles_the_discard_pile_when_the_deck_runs_out,
    "The last turn": test_after_the_last_players_turn_means_the_round_is_completed,
    "The final plays": test_final_plays_go_in_turn_order_and_skip_players_without_a_set,
    "Points and ties": test_points_are_kept_face_down_and_everyone_sees_how_many,
}


def test_every_ruling_has_its_test() -> None:
    """Every ruling in ``ChristmasTree.rulings`` is checked by a test that quotes it."""
    assert_every_ruling_is_tested(GAME, RULING_TESTS)


# ---------------------------------------------------------------- properties over whole games


def check_table(game, state, seat=None, action=None) -> None:
    """What every view shows at one moment: hands to their owner only, no Points face, no
    deck face, rows and discards to all; and the cards in play never change."""
    cards = state.cards
    n = len(state.players)
    removed = TYPES[state.removed] if state.removed >= 0 else None
    assert cards.component_faces() == sorted(all_faces(removed))
    for viewer in [*range(n), None]:
        view = GAME.view(state, viewer)
        faces = view.faces
        for s in range(n):
            for handle in view.zone(hand_zone(s)):
                assert (handle in faces) == (viewer == s), (viewer, s)
            assert not set(view.zone(points_zone(s))) & set(faces)
        assert not set(view.zone("deck")) & set(faces)
        for zone in (*ROW_ZONES, "discard"):
            for handle in view.zone(zone):
                assert faces[handle] == cards.face(handle)
        for handle, face in faces.items():
            assert may_see(cards.visibility(handle), viewer) and cards.face(handle) == face


@over_whole_games(GAME, examples=40)
def test_no_view_shows_another_players_hand_and_cards_are_conserved(seed: int, players: int, data) -> None:
    """Shuffle all Item cards and deal 3 to each player as their hand cards (kept hidden
    from other players)."""
    playout = play_checked_game(GAME, players, seed, data, check_table)
    state = playout.state
    assert playout.result.scores == tuple(score(state, s) for s in range(players))


def test_a_game_in_which_nobody_ever_scores_still_ends() -> None:
    """(Every game ends: see the ruling "Supply exhausted".) Players who only ever take rows
    empty the supply, and the game ends after that round."""
    for players in range(GAME.min_players, GAME.max_players + 1):
        rng = Rng(f"hoarders/{players}")
        state = GAME.setup({}, NAMES[:players], rng)
        for _ in range(GAME.max_actions):
            if state.phase in ("final", "over"):
                break
            legal = GAME.legal_actions(state, state.turn)
            takes = [a for a in legal if isinstance(a, (Take, Pay))]
            act(state, state.turn, takes[-1] if takes else legal[0], rng)
        assert state.ending == "supply"
        assert state.cards.zone("deck") == [] and state.cards.zone("discard") == []


def test_the_smart_bot_beats_random_players_clearly() -> None:
    """Then, the player with the most Points wins! (A player who builds big sets and weighs
    Surprise! should win far more than its share against random players.)"""
    for players in range(GAME.min_players, GAME.max_players + 1):
        wins = 0.0
        games = 50
        for game in range(games):
            smart = game % players
            bots = ["random"] * players
            bots[smart] = "smart"
            result = play_game(GAME, players, f"smart-vs-random/{players}/{game}", bots).result
            if smart in result.winners:
                wins += 1 / len(result.winners)
        assert wins / games > 0.7, f"{players} players: the smart bot won only {wins} of {games}"


def test_the_log_counts_cards_in_words_one_and_many() -> None:
    """One card of a type is named in the singular, several in the plural (1 Gift Box, 2 Gift Boxes)."""
    assert counted({"gifts": 1, "gingerbread": 2}) == "1 Gift Box and 2 Gingerbread Men"
    assert counted({"gifts": 2, "snowman": 1, SANTA: 3}) == "2 Gift Boxes, 1 Snowman and 3 Santa Claus"
