"""Chip 'n' Dale: Christmas Treasures — one test per rule of the rulebook and per ruling.

Every test quotes, in its docstring, the rulebook sentence or the ruling it
checks. Precise situations are built with ``GAME.setup`` and a fixed ``Rng``,
then rearranged by the helpers below: they move cards between zones and swap
faces between face-down cards, so the 60 faces always stay the same.
"""

from __future__ import annotations

import copy
from collections import Counter
from functools import partial

import pytest

from xmas_tui.games import InvalidAction, Rng
from xmas_tui.games.cards import EVERYONE, NOBODY, SEALED_PREFIX
from xmas_tui.games.chip_n_dale import (
    EVENTS,
    GAME,
    PLUTO_LIMIT,
    SLOT_ZONES,
    STAR_EVENTS,
    TREE_SLOTS,
    Collect,
    Continue,
    Discard,
    Flip,
    Give,
    Pass,
    Peek,
    Stop,
    Take,
    all_faces,
    collection_zone,
    events_for,
    right_of,
    score,
    treasure,
)
from xmas_tui.simulate import play_game

from .gamekit import act_in, check_who_starts, over_whole_games, play_checked_game, refusal
from .rulings import assert_every_ruling_is_tested

NAMES = ("Holly", "Noel", "Ivy", "Jasper", "Carol", "Rudy")
ALL_FACES = sorted(all_faces())
EVENT_IDS = tuple(eid for eid, _, _ in EVENTS)


# ---------------------------------------------------------------- helpers


def arrange(state, *, tree=(), deck_top=()) -> None:
    """Give chosen faces to tree slots (``None`` skips a slot) and to the top of the deck.

    ``deck_top[0]`` is the next card drawn. Faces are swapped with face-down
    cards elsewhere in the deck or tree, so the multiset of 60 faces is kept.
    """
    cards = state.cards
    targets = [(cards.zone(SLOT_ZONES[slot])[0], face) for slot, face in enumerate(tree) if face]
    deck = cards.zone("deck")
    targets += [(deck[-1 - i], face) for i, face in enumerate(deck_top)]
    fixed = {handle for handle, _ in targets}
    pool = [
        h for zone in ("deck", *SLOT_ZONES) for h in cards.zone(zone) if cards.visibility(h) == NOBODY
    ]
    for handle, face in targets:
        if cards._faces[handle] == face:
            continue
        donor = next((h for h in pool if h not in fixed and cards._faces[h] == face), None)
        assert donor is not None, f"no spare face-down {face} to arrange"
        cards._faces[handle], cards._faces[donor] = face, cards._faces[handle]


def fresh(players: int = 3, *, seed: int = 0, first: int = 0, tree=(), deck_top=()):
    """A table from ``GAME.setup``, at the start of ``first``'s turn in a round with no Event.

    Setup's opening Event is undone: collected and discarded cards go back on
    top of the deck face down, so every card is in the deck or the tree.
    """
    rng = Rng(f"chip-n-dale-test/{seed}")
    state = GAME.setup({}, NAMES[:players], rng)
    cards = state.cards
    for zone in [*(collection_zone(s) for s in range(players)), "discard"]:
        for handle in list(cards.zone(zone)):
            cards.move(handle, "deck", visible=NOBODY)
    state.first = state.turn = first
    state.events, state.event, state.round, state.turns_taken, state.star = (), None, 1, 0, None
    state.phase, state.flipped, state.plutos, state.caught, state.peeked = "flip", (), 0, False, ()
    state.to_collect = 0
    arrange(state, tree=tree, deck_top=deck_top)
    return state, rng


def give(state, seat: int, *faces: str) -> list[int]:
    """Put cards with these faces (from the bottom of the deck) face up in a collection."""
    cards = state.cards
    handles = []
    for face in faces:
        handle = next(h for h in cards.zone("deck") if cards.face(h) == face)
        cards.move(handle, collection_zone(seat), visible=EVERYONE)
        handles.append(handle)
    return handles


act = partial(act_in, GAME)


refused = partial(refusal, GAME)


def viewers(state) -> list[int | None]:
    return [*range(len(state.players)), None]


def seen_by(state, handle: int) -> set[int | None]:
    """The viewers (seats and the spectator ``None``) whose view shows this card's face."""
    return {v for v in viewers(state) if handle in GAME.view(state, v).faces}


def tree_handles(state) -> list[int]:
    return [h for zone in SLOT_ZONES for h in state.cards.zone(zone)]


def slot_handle(state, slot: int) -> int:
    return state.cards.zone(SLOT_ZONES[slot])[0]


def plain_turn(state, rng) -> list:
    """Play the current turn plainly: flip the lowest face-down slots, stop after two, collect."""
    log: list = []
    start = (state.round, state.turns_taken)
    while (state.round, state.turns_taken) == start and state.phase in ("flip", "collect"):
        seat = state.turn
        legal = GAME.legal_actions(state, seat)
        action = Stop() if Stop() in legal else legal[0]
        log += act(state, seat, action, rng)
    return log


def next_round(state, rng, *events: str) -> list:
    """Make the current turn the round's last, play it plainly, and start the next round.

    The turn flips and collects tree slots 0 and 1; the refill then draws the
    top two deck cards into them, before the next Event is flipped.
    """
    if sum(treasure(state.cards.face(slot_handle(state, s)))[1] for s in (0, 1)) >= PLUTO_LIMIT:
        arrange(state, tree=["acorn/0", "acorn/0"])
    state.events = tuple(events)
    state.turns_taken = len(state.players) - 1
    return plain_turn(state, rng)


def finished(state):
    """End the game where it stands (for checking results of chosen collections)."""
    state.events, state.event, state.phase = (), None, "over"
    return GAME.result(state)


ZERO_TREE = ["acorn/0", "bell/0", "popcorn/0", "acorn/0", "popcorn/0", "acorn/0"]


# ---------------------------------------------------------------- components and set up


def test_the_game_has_60_treasure_cards_and_6_event_cards() -> None:
    """Contents: 60 Treasure Cards, 6 Event Cards, Star Token, Game Board, Instructions."""
    assert len(all_faces()) == 60
    assert len(EVENTS) == 6
    for players in range(GAME.min_players, GAME.max_players + 1):
        state = GAME.setup({}, NAMES[:players], Rng(players))
        assert state.cards.component_count() == 60
        assert state.cards.component_faces() == ALL_FACES
        assert len(state.events) + 1 == len(events_for(players))


def test_the_sixty_treasures_ruling_fixes_the_mix() -> None:
    """Contents: 60 Treasure Cards ...

    Ruling "The 60 Treasures": 8 each of Chip Ornament, Dale Ornament, Chip Candy Cane
    and Dale Candy Cane, 12 Popcorn, 10 Acorns, 6 Bells. 30 cards show no Pluto, 22 show
    one, 8 show two (see the table in the help)."""
    faces = all_faces()
    kinds = Counter(treasure(f)[0] for f in faces)
    assert kinds == {
        "ornament-chip": 8,
        "ornament-dale": 8,
        "candy-chip": 8,
        "candy-dale": 8,
        "popcorn": 12,
        "acorn": 10,
        "bell": 6,
    }
    plutos = Counter(treasure(f)[1] for f in faces)
    assert plutos == {0: 30, 1: 22, 2: 8}
    ruling = next(r for r in GAME.rulings if r.topic == "The 60 Treasures").ruling
    assert "12 Popcorn, 10 Acorns, 6 Bells" in ruling and "30 cards show no Pluto" in ruling


def test_shuffle_the_treasure_cards_and_place_them_in_a_deck_face_down() -> None:
    """Shuffle the Treasure cards and place them in a deck face down on the board."""
    orders = set()
    for seed in range(5):
        state = GAME.setup({}, NAMES[:3], Rng(f"deck/{seed}"))
        deck = state.cards.zone("deck")
        assert deck
        for viewer in viewers(state):
            assert not set(deck) & set(GAME.view(state, viewer).faces)
        orders.add(tuple(state.cards.faces("deck")))
    assert len(orders) == 5, "the deck is shuffled differently for different seeds"
    again = GAME.setup({}, NAMES[:3], Rng("deck/0"))
    assert tuple(again.cards.faces("deck")) in orders, "the same seed deals the same deck"


def test_draw_six_treasure_cards_face_down_to_form_the_tree() -> None:
    """Draw six Treasure cards from the deck without looking at them. Place the cards
    face down on the board to form the tree, as shown."""
    assert TREE_SLOTS == 6
    for players in (2, 4, 6):
        state = GAME.setup({}, NAMES[:players], Rng(f"tree/{players}"))
        cards = state.cards
        assert [len(cards.zone(z)) for z in SLOT_ZONES] == [1] * 6
        for handle in tree_handles(state):
            assert seen_by(state, handle) == set(), "nobody looks at the tree"
        # The opening Event (Collect three) drew three more for the first player.
        assert len(cards.zone("deck")) == 60 - 6 - 3


def test_the_star_token_starts_at_the_top_of_the_tree() -> None:
    """Place the Star token at the top of the tree."""
    state, rng = fresh(3, tree=ZERO_TREE)
    assert state.star is None
    next_round(state, rng, "discard-tree")
    # A non-star Event leaves the Star token on the tree for the whole round.
    for _ in range(3):
        assert state.star is None
        plain_turn(state, rng)


def test_stack_the_event_cards_in_order_event_1_on_top() -> None:
    """Stack the Event cards in order, with EVENT 1 on the top and EVENT 6 on the bottom.

    Ruling "Event order": The Events are numbered in the order the sheet lists them:
    1 Collect three, 2 Peek, 3 Swap, 4 Each player collects two, 5 Discard the tree,
    6 Flip the tree."""
    assert EVENT_IDS == ("collect-three", "peek", "swap", "collect-two", "discard-tree", "flip-tree")
    assert STAR_EVENTS == {"collect-three", "peek", "swap"}
    state = GAME.setup({}, NAMES[:3], Rng(1))
    assert state.event == "collect-three"
    assert state.events == EVENT_IDS[1:]


def test_a_two_or_three_player_game_keeps_all_six_events() -> None:
    """Stack the Event cards in order, with EVENT 1 on the top and EVENT 6 on the bottom.
    (Only 4, 5 and 6 players remove Events.)"""
    for players in (2, 3):
        assert events_for(players) == EVENT_IDS
        state = GAME.setup({}, NAMES[:players], Rng(players))
        assert (state.event, *state.events) == EVENT_IDS


def test_a_four_player_game_removes_the_bottom_event() -> None:
    """In a 4-player game, remove the bottom card so there are only five Events."""
    assert events_for(4) == EVENT_IDS[:5]
    state = GAME.setup({}, NAMES[:4], Rng(4))
    assert (state.event, *state.events) == EVENT_IDS[:5]
    assert "flip-tree" not in state.events


def test_a_five_or_six_player_game_removes_the_bottom_two_events() -> None:
    """In a 5- or 6-player game, remove the bottom two cards so there are only four Events."""
    for players in (5, 6):
        assert events_for(players) == EVENT_IDS[:4]
        state = GAME.setup({}, NAMES[:players], Rng(players))
        assert (state.event, *state.events) == EVENT_IDS[:4]


def test_whoever_last_ate_a_candy_cane_starts_or_else_a_seat_drawn_at_random() -> None:
    """The player who last ate a candy cane takes the first turn.

    Ruling "Who starts": The table says who last ate a candy cane: the lobby asks, and the
    option "first" names that seat (seats count from 1). When nobody says, the program
    cannot know, so the first player is drawn at random when the game is set up. Play goes
    clockwise (seat order) from the first player."""
    check_who_starts(GAME, NAMES[:4], "Who last ate a candy cane?")
    firsts = Counter()
    for seed in range(80):
        state = GAME.setup({}, NAMES[:4], Rng(f"first/{seed}"))
        firsts[state.first] += 1
        assert state.turn == state.first
        assert GAME.to_act(state) == {state.first}
    assert min(firsts.values()) >= 10, "every seat is about equally likely to start"
    state = GAME.setup({"first": 3}, NAMES[:4], Rng("first/0"))
    assert GAME.to_act(state) == {2}


# ---------------------------------------------------------------- rounds


def record_game(players: int, seed, bots="smart"):
    """Play a bot game, noting (round, event, turn, turns_taken, star, phase) before each action."""
    steps: list[tuple] = []

    def hook(game, state, seat, action) -> None:
        steps.append((state.round, state.event, state.turn, state.turns_taken, state.star, state.phase, seat))

    playout = play_game(GAME, players, seed, bots, before_apply=hook, keep_events=True)
    return steps, playout


def test_at_the_start_of_each_round_flip_the_top_event() -> None:
    """The game is played in rounds. At the start of each round, flip the top Event face up.
    Once all players have taken a turn, start a new round by flipping the next Event."""
    for players in range(2, 7):
        steps, playout = record_game(players, f"rounds/{players}")
        order = events_for(players)
        for rnd, event, *_ in steps:
            assert event == order[rnd - 1]
        assert [r for r, *_ in steps] == sorted(r for r, *_ in steps)
        assert playout.state.round == len(order)


def test_in_clockwise_order_each_player_takes_one_turn() -> None:
    """Then, in clockwise order, each player takes one turn."""
    for players in range(2, 7):
        for seed in range(2):
            steps, playout = record_game(players, f"clockwise/{players}/{seed}", "random")
            first = playout.state.first
            turns = set()
            for rnd, _, turn, taken, _, phase, seat in steps:
                assert 0 <= taken < players
                assert turn == (first + taken) % players
                if phase != "pass":
                    assert seat == turn
                    turns.add((rnd, taken))
            # Every turn either acted or found the tree empty.
            empty = sum(1 for e in playout.events if e.kind == "empty")
            assert len(turns) + empty == players * len(events_for(players))


# ---------------------------------------------------------------- on your turn


def test_flip_treasures_one_at_a_time() -> None:
    """Flip Treasures. One at a time, flip Treasures in the tree face up."""
    state, rng = fresh(3, tree=ZERO_TREE)
    assert GAME.legal_actions(state, 0) == [Flip(s) for s in range(6)]
    log = act(state, 0, "flip 2", rng)
    flipped = slot_handle(state, 2)
    assert seen_by(state, flipped) == set(viewers(state)), "a flipped Treasure is face up"
    assert GAME.view(state, None).face(flipped) == "popcorn/0"
    for slot in (0, 1, 3, 4, 5):
        assert seen_by(state, slot_handle(state, slot)) == set()
    assert [e.kind for e in log] == ["flip"] and "Popcorn" in log[0].text
    assert state.flipped == (2,) and state.phase == "flip"
    assert "already face up" in refused(state, 0, Flip(2))


def test_do_not_flip_from_the_deck() -> None:
    """(Do not flip from the deck.)"""
    state, rng = fresh(3, tree=ZERO_TREE)
    deck_top = state.cards.top("deck")
    for slot in (6, 7, -1, 60):
        assert "do not flip from the deck" in refused(state, 0, Flip(slot))
    for action in GAME.legal_actions(state, 0):
        assert isinstance(action, Flip) and 0 <= action.slot < TREE_SLOTS
    # An empty tree slot cannot be flipped either.
    state.cards.move(slot_handle(state, 4), "discard", visible=EVERYONE)
    assert "do not flip from the deck" in refused(state, 0, Flip(4))
    act(state, 0, "flip 0", rng)
    act(state, 0, "flip 1", rng)
    assert seen_by(state, deck_top) == set()


@pytest.mark.parametrize("flips", [2, 3, 4, 5])
def test_you_may_stop_flipping_whenever_you_choose(flips: int) -> None:
    """You may stop flipping whenever you choose."""
    state, rng = fresh(3, tree=ZERO_TREE)
    for slot in range(flips):
        act(state, 0, Flip(slot), rng)
    assert Stop() in GAME.legal_actions(state, 0)
    log = act(state, 0, Stop(), rng)
    assert [e.kind for e in log] == ["stop"]
    assert state.phase == "collect" and state.to_collect == 2
    assert set(GAME.legal_actions(state, 0)) == {Collect(s) for s in range(flips)}


def test_you_must_flip_two_treasures_before_you_stop() -> None:
    """Ruling "Flipping before you stop": You must flip at least two Treasures before you
    stop (or every card in the tree if it holds fewer), because you collect two face-up
    Treasures. When every card in the tree is face up you stop."""
    state, rng = fresh(3, tree=ZERO_TREE)
    assert "at least 2" in refused(state, 0, Stop())
    act(state, 0, "flip 0", rng)
    assert "at least 2" in refused(state, 0, Stop())
    act(state, 0, "flip 1", rng)
    assert Stop() in GAME.legal_actions(state, 0)
    # Every card face up: the flipping stops by itself.
    for slot in range(2, 6):
        act(state, 0, Flip(slot), rng)
    assert state.phase == "collect" and state.to_collect == 2
    # A tree of one card: flip it, then collect it.
    state, rng = fresh(3, tree=ZERO_TREE)
    for slot in range(1, 6):
        state.cards.move(slot_handle(state, slot), "discard", visible=EVERYONE)
    assert "at least 1" in refused(state, 0, Stop())
    act(state, 0, "flip 0", rng)
    assert state.phase == "collect" and state.to_collect == 1
    taken = slot_handle(state, 0)
    act(state, 0, "collect 0", rng)
    assert state.cards.where(taken) == collection_zone(0) and state.turn == 1


@pytest.mark.parametrize(
    "faces",
    [("acorn/1", "bell/1", "popcorn/1"), ("acorn/2", "bell/0", "popcorn/1"), ("acorn/2", "bell/2")],
)
def test_pluto_catches_you_on_the_third_face(faces: tuple[str, ...]) -> None:
    """However, if you flip Treasures showing a total of three or more Pluto faces, Pluto
    caught you in the tree and you must stop flipping!"""
    state, rng = fresh(3, tree=[*faces, *ZERO_TREE[len(faces):]])
    for slot in range(len(faces) - 1):
        act(state, 0, Flip(slot), rng)
        assert not state.caught and state.plutos < 3
        assert Flip(len(faces) - 1) in GAME.legal_actions(state, 0), "under three faces you may flip on"
    log = act(state, 0, Flip(len(faces) - 1), rng)
    assert state.caught and state.plutos >= PLUTO_LIMIT
    assert "caught" in [e.kind for e in log]
    assert state.phase == "collect" and state.to_collect == 1
    assert "collect" in refused(state, 0, Flip(5))
    assert "collect" in refused(state, 0, Stop())


def test_pluto_counts_only_the_treasures_flipped_this_turn() -> None:
    """Ruling "Pluto": Pluto catches you when the Treasures you flipped this turn show three
    or more Pluto faces in total; you collect one of your face-up Treasures."""
    state, rng = fresh(3, tree=["acorn/2", "bell/0", "popcorn/1", "acorn/0", "acorn/0", "acorn/0"])
    act(state, 0, "flip 0", rng)
    act(state, 0, "flip 1", rng)
    act(state, 0, "stop", rng)
    act(state, 0, "collect 0", rng)
    act(state, 0, "collect 1", rng)
    # Seat 1 starts afresh: the two Pluto faces seat 0 flipped do not count.
    assert state.turn == 1 and state.plutos == 0 and not state.caught
    act(state, 1, "flip 2", rng)
    assert state.plutos == 1 and not state.caught and state.phase == "flip"


def test_if_pluto_caught_you_collect_only_one_treasure() -> None:
    """Collect Treasures. Choose two face-up Treasures in the tree to collect. If Pluto
    caught you, collect only one Treasure."""
    state, rng = fresh(3, tree=["acorn/1", "bell/1", "popcorn/1", *ZERO_TREE[3:]])
    for slot in range(3):
        act(state, 0, Flip(slot), rng)
    assert set(GAME.legal_actions(state, 0)) == {Collect(0), Collect(1), Collect(2)}
    bell = slot_handle(state, 1)
    left = [slot_handle(state, 0), slot_handle(state, 2)]
    act(state, 0, "collect 1", rng)
    assert state.cards.zone(collection_zone(0)) == [bell]
    assert state.turn == 1 and state.phase == "flip", "one Treasure, and the turn is over"
    for handle in left:
        assert state.cards.where(handle).startswith("tree.") and seen_by(state, handle) == set()


def test_choose_two_face_up_treasures_in_the_tree_to_collect() -> None:
    """Choose two face-up Treasures in the tree to collect. ... Place any Treasures you
    collect face up in front of you."""
    state, rng = fresh(3, tree=ZERO_TREE)
    for slot in range(3):
        act(state, 0, Flip(slot), rng)
    act(state, 0, "stop", rng)
    assert "face-up" in refused(state, 0, Collect(3)), "a face-down Treasure cannot be collected"
    first, second = slot_handle(state, 2), slot_handle(state, 0)
    act(state, 0, "collect 2", rng)
    assert state.phase == "collect" and state.turn == 0, "a second Treasure to collect"
    assert "face-up" in refused(state, 0, Collect(2)), "that slot was just emptied"
    act(state, 0, "collect 0", rng)
    assert state.cards.zone(collection_zone(0)) == [first, second]
    for handle in (first, second):
        assert seen_by(state, handle) == set(viewers(state))
    assert state.turn == 1


def test_flip_any_remaining_treasures_face_down_again() -> None:
    """Refill the Tree. Flip any remaining Treasures face down again.

    The memory rule: a face turned down is hidden again from everyone, even the player
    who flipped it; it keeps its place (and handle), so players must remember it."""
    state, rng = fresh(3, tree=ZERO_TREE)
    for slot in range(4):
        act(state, 0, Flip(slot), rng)
    remaining = {slot: slot_handle(state, slot) for slot in (2, 3)}
    act(state, 0, "stop", rng)
    act(state, 0, "collect 0", rng)
    for handle in remaining.values():
        assert seen_by(state, handle) == set(viewers(state)), "still face up while collecting"
    act(state, 0, "collect 1", rng)
    for slot, handle in remaining.items():
        assert slot_handle(state, slot) == handle
        assert seen_by(state, handle) == set()
        assert state.cards.visibility(handle) == NOBODY
    assert state.flipped == () and state.plutos == 0


def test_refill_the_tree_from_the_deck_leaving_the_cards_face_down() -> None:
    """Then draw Treasures from the deck, leaving them face down, to refill the tree."""
    state, rng = fresh(3, tree=ZERO_TREE)
    deck = list(state.cards.zone("deck"))
    act(state, 0, "flip 1", rng)
    act(state, 0, "flip 4", rng)
    act(state, 0, "stop", rng)
    act(state, 0, "collect 4", rng)
    act(state, 0, "collect 1", rng)
    assert slot_handle(state, 1) == deck[-1] and slot_handle(state, 4) == deck[-2]
    assert state.cards.zone("deck") == deck[:-2]
    assert len(tree_handles(state)) == 6
    for handle in tree_handles(state):
        assert seen_by(state, handle) == set()


def test_if_the_deck_runs_out_shuffle_the_discards_to_make_a_new_deck() -> None:
    """If the deck runs out, shuffle the discarded cards to make a new deck.

    Ruling "Discarded Treasures": When the deck runs out, the discard pile is shuffled face
    down into a new deck. The shuffle gives the cards fresh handles, so nobody can follow one."""
    state, rng = fresh(3, tree=ZERO_TREE)
    cards = state.cards
    for handle in list(cards.zone("deck"))[:-1]:
        cards.move(handle, "discard", visible=EVERYONE)
    last = cards.top("deck")
    old_discards = list(cards.zone("discard"))
    discard_faces = sorted(cards.faces("discard"))
    act(state, 0, "flip 0", rng)
    act(state, 0, "flip 1", rng)
    act(state, 0, "stop", rng)
    act(state, 0, "collect 0", rng)
    log = act(state, 0, "collect 1", rng)
    assert "reshuffle" in [e.kind for e in log]
    assert slot_handle(state, 0) == last, "the old deck is used up first"
    new_deck = cards.zone("deck")
    assert cards.zone("discard") == []
    assert all(h not in cards for h in old_discards), "reshuffled cards get fresh handles"
    refilled = slot_handle(state, 1)
    assert refilled not in old_discards
    assert sorted([*cards.faces("deck"), cards.face(refilled)]) == discard_faces
    for handle in [*new_deck, refilled]:
        assert seen_by(state, handle) == set()
    assert cards.component_faces() == ALL_FACES


def test_now_it_is_the_next_players_turn() -> None:
    """Now it's the next player's turn."""
    state, rng = fresh(4, first=2, tree=ZERO_TREE)
    for expected in (2, 3, 0, 1):
        assert state.turn == expected and GAME.to_act(state) == {expected}
        plain_turn(state, rng)


# ---------------------------------------------------------------- events


def test_a_star_event_is_done_by_every_player_before_their_turn() -> None:
    """When an Event with the Star symbol is flipped, the first player takes the Star token
    from the tree and does the Event before taking their turn."""
    state = GAME.setup({}, NAMES[:3], Rng("star/0"))
    rng = Rng("star/1")
    first = state.first
    for i in range(3):
        seat = (first + i) % 3
        assert state.turn == seat and state.star == seat
        assert state.phase == "discard" and len(state.cards.zone(collection_zone(seat))) == 3
        act(state, seat, Discard(state.cards.zone(collection_zone(seat))[0]), rng)
        assert state.phase == "flip"
        plain_turn(state, rng)
    assert state.event == "peek"


def test_the_star_token_passes_to_the_next_player() -> None:
    """After their turn, they pass the Star token to the next player, who does the same."""
    for players in (2, 4, 6):
        steps, _ = record_game(players, f"star/{players}")
        for _, event, turn, _, star, _, _ in steps:
            if event in STAR_EVENTS:
                assert star == turn
            else:
                assert star is None


def test_after_the_last_player_the_star_token_goes_back_to_the_top_of_the_tree() -> None:
    """After the last player takes their turn, place the Star token back at the top of the
    tree."""
    state, rng = fresh(3, tree=ZERO_TREE)
    state.event, state.star = "swap", 0
    log = next_round(state, rng, "collect-two")
    assert "star" in [e.kind for e in log]
    assert state.event == "collect-two" and state.star is None


def test_a_non_star_event_is_done_once_before_the_first_turn() -> None:
    """When an Event without the Star symbol is flipped, do the Event immediately and only
    once, before the first player takes their turn."""
    state, rng = fresh(3, first=1, tree=ZERO_TREE)
    log = next_round(state, rng, "discard-tree")
    assert [e.kind for e in log].count("discard-tree") == 1
    assert state.turn == 1 and state.phase == "flip" and state.flipped == ()
    discards = list(state.cards.zone("discard"))
    assert len(discards) == 6
    for _ in range(3):
        log = plain_turn(state, rng)
        assert "discard-tree" not in [e.kind for e in log]
        assert state.cards.zone("discard") == discards


def test_do_not_peek_unless_the_event_says_to() -> None:
    """Note: Do not peek at the cards in the tree or on top of the deck unless the Event
    specifically says to."""
    seen = []

    def hook(game, state, seat, action) -> None:
        if state.event != "peek":
            assert state.peeked == () and not isinstance(action, Peek)
        if state.phase == "flip" and not state.flipped and not state.peeked:
            for viewer in viewers(state):
                faces = GAME.view(state, viewer).faces
                assert not set(tree_handles(state)) & set(faces)
                assert not set(state.cards.zone("deck")) & set(faces)
            seen.append(seat)

    for players in (2, 3, 5):
        bots = ["smart", "random"] * 3
        play_game(GAME, players, f"no-peek/{players}", bots[:players], before_apply=hook)
    assert seen


# ---------------------------------------------------------------- the six Event cards


def test_collect_three_treasures_from_the_top_of_the_deck_then_discard_one() -> None:
    """Star Event: Collect three. Before your turn, collect three Treasures from the top of
    the deck. Then discard one of your Treasures.

    Ruling "Discarded Treasures": Discarded Treasures go face up to a discard pile beside
    the deck. When the deck runs out, the discard pile is shuffled face down into a new
    deck."""
    state, rng = fresh(3, tree=ZERO_TREE)
    deck = list(state.cards.zone("deck"))
    next_round(state, rng, "collect-three")  # seat 0's last turn collected slots 0 and 1
    mine = state.cards.zone(collection_zone(0))
    assert mine[2:] == [deck[-3], deck[-4], deck[-5]], "the top three, after the refill's two"
    for handle in mine:
        assert seen_by(state, handle) == set(viewers(state))
    assert state.phase == "discard" and GAME.to_act(state) == {0}
    assert set(GAME.legal_actions(state, 0)) == {Discard(h) for h in mine}
    assert "discard" in refused(state, 0, Flip(2))
    other = give(state, 1, "bell/0")[0]
    assert "not one of your Treasures" in refused(state, 0, Discard(other))
    old = mine[0]
    act(state, 0, Discard(old), rng)
    assert state.cards.zone("discard") == [old]
    assert seen_by(state, old) == set(viewers(state))
    assert len(state.cards.zone(collection_zone(0))) == 4
    assert state.phase == "flip" and state.turn == 0


def test_peek_at_two_treasures_in_the_tree() -> None:
    """Star Event: Peek. Before your turn, peek at two Treasures in the tree."""
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng, "peek")
    assert state.phase == "peek" and state.star == 0
    assert set(GAME.legal_actions(state, 0)) == {Peek(s) for s in range(6)}
    assert "peek" in refused(state, 0, Flip(0))
    act(state, 0, "peek 3", rng)
    a = slot_handle(state, 3)
    assert seen_by(state, a) == {0}, "the peeker alone sees it"
    assert "two different" in refused(state, 0, Peek(3))
    act(state, 0, "peek 5", rng)
    b = slot_handle(state, 5)
    assert seen_by(state, b) == {0}
    assert state.phase == "flip" and state.turn == 0
    faces = GAME.view(state, 0).faces
    assert set(tree_handles(state)) & set(faces) == {a, b}
    for viewer in (1, 2, None):
        assert not set(tree_handles(state)) & set(GAME.view(state, viewer).faces)


def test_peeked_faces_are_hidden_again_at_your_first_flip() -> None:
    """Ruling "Peek": You choose the two tree slots one at a time. Their faces stay visible
    to you alone until you flip your first Treasure; after that you must remember them. If
    the tree holds fewer than two cards you peek at what is there."""
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng, "peek")
    act(state, 0, "peek 0", rng)
    act(state, 0, "peek 4", rng)
    a, b = slot_handle(state, 0), slot_handle(state, 4)
    act(state, 0, "flip 2", rng)
    assert seen_by(state, a) == set() and seen_by(state, b) == set()
    assert state.peeked == ()
    act(state, 0, "flip 4", rng)
    assert seen_by(state, b) == set(viewers(state)), "flipping a peeked card shows it to all"
    # A tree of one card: peek at what is there, then flip.
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng, "peek")
    for slot in range(1, 6):
        state.cards.move(slot_handle(state, slot), "discard", visible=EVERYONE)
    act(state, 0, "peek 0", rng)
    assert state.phase == "flip" and seen_by(state, slot_handle(state, 0)) == {0}


def test_swap_one_of_your_treasures_with_a_treasure_in_the_tree() -> None:
    """Star Event: Swap. Before your turn, swap one of your Treasures with a Treasure in the
    tree.

    Ruling "Swap": The Treasure you take from the tree comes face up into your collection;
    yours goes face down into its slot. The swap is part of the Event, so you must make it if
    you have a Treasure and the tree has a card."""
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng, "swap")
    mine = list(state.cards.zone(collection_zone(0)))
    assert state.phase == "give" and state.star == 0 and len(mine) == 2
    assert set(GAME.legal_actions(state, 0)) == {Give(h) for h in mine}
    assert "swap" in refused(state, 0, Flip(0)), "the swap is not optional"
    assert "swap" in refused(state, 0, Stop())
    given_card = mine[1]
    act(state, 0, Give(given_card), rng)
    assert state.phase == "take"
    assert set(GAME.legal_actions(state, 0)) == {Take(s) for s in range(6)}
    taken = slot_handle(state, 3)
    act(state, 0, "take 3", rng)
    assert state.cards.zone(collection_zone(0)) == [mine[0], taken]
    assert seen_by(state, taken) == set(viewers(state))
    assert slot_handle(state, 3) == given_card
    assert seen_by(state, given_card) == set(), "the given Treasure goes face down"
    assert state.phase == "flip" and state.turn == 0
    plain_turn(state, rng)
    # Seat 1 has no Treasure to swap: the Event passes them by.
    assert state.turn == 1 and state.star == 1
    assert state.cards.zone(collection_zone(1)) == [] and state.phase == "flip"


def test_each_player_collects_two_treasures_from_the_top_of_the_deck() -> None:
    """Each player collects two. Each player collects two Treasures from the top of the
    deck."""
    state, rng = fresh(3, first=1, tree=ZERO_TREE)
    deck = list(state.cards.zone("deck"))
    next_round(state, rng, "collect-two")
    # The refill took deck[-1] and deck[-2]; then seats 1, 2, 0 collect two each.
    assert state.cards.zone(collection_zone(1))[-2:] == [deck[-3], deck[-4]]
    assert state.cards.zone(collection_zone(2)) == [deck[-5], deck[-6]]
    assert state.cards.zone(collection_zone(0)) == [deck[-7], deck[-8]]
    for handle in deck[-8:-2]:
        assert seen_by(state, handle) == set(viewers(state))
    assert state.phase == "pass" and GAME.to_act(state) == {0, 1, 2}
    assert state.star is None


def test_all_players_pass_one_treasure_at_the_same_time() -> None:
    """Then, at the same time, all players pass one of their Treasures to the player on
    their right.

    Ruling "Passing right": Choices are secret until everyone has chosen."""
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng, "collect-two")
    mine = {s: list(state.cards.zone(collection_zone(s))) for s in range(3)}
    assert set(GAME.legal_actions(state, 1)) == {Pass(h) for h in mine[1]}
    assert "not one of your Treasures" in refused(state, 1, Pass(mine[2][0]))
    # What the others see does not depend on what seat 1 chose.
    other = copy.deepcopy(state)
    act(state, 1, Pass(mine[1][0]), rng)
    act(other, 1, Pass(mine[1][1]), Rng("unused"))
    for viewer in (0, 2, None):
        assert GAME.view(state, viewer).to_wire() == GAME.view(other, viewer).to_wire()
    assert GAME.view(state, 1).to_wire() != GAME.view(other, 1).to_wire(), "seat 1 sees its own choice"
    assert GAME.public_digest(state) == GAME.public_digest(other)
    assert GAME.to_act(state) == {0, 2}
    assert "already chosen" in refused(state, 1, Pass(mine[1][1])), "a choice is final"
    assert {s: list(state.cards.zone(collection_zone(s))) for s in range(3)} == mine, "nothing moves yet"
    act(state, 2, Pass(mine[2][1]), rng)
    assert {s: list(state.cards.zone(collection_zone(s))) for s in range(3)} == mine
    log = act(state, 0, Pass(mine[0][0]), rng)
    assert [e.kind for e in log].count("pass") == 3
    assert not any(z.startswith(SEALED_PREFIX) for z in state.cards.zones)
    assert state.phase == "flip" and state.turn == state.first
    assert state.cards.component_faces() == ALL_FACES


def test_the_passed_treasures_go_to_the_player_on_the_right() -> None:
    """...all players pass one of their Treasures to the player on their right.

    Ruling "Passing right": Play goes clockwise, so the player on your right is the player
    before you in turn order. Choices are secret until everyone has chosen; a player with
    no Treasures passes nothing."""
    assert [right_of(s, 4) for s in range(4)] == [3, 0, 1, 2]
    state, rng = fresh(4, tree=ZERO_TREE)
    next_round(state, rng, "collect-two")
    passed = {s: state.cards.zone(collection_zone(s))[-1] for s in range(4)}
    for seat in range(4):
        act(state, seat, Pass(passed[seat]), rng)
    for seat, handle in passed.items():
        assert state.cards.where(handle) == collection_zone((seat - 1) % 4)
        assert seen_by(state, handle) == set(viewers(state))


def test_a_player_with_no_treasures_passes_nothing() -> None:
    """Ruling "Passing right": a player with no Treasures passes nothing.

    Ruling "An empty deck": Events draw what is left."""
    state, rng = fresh(3, tree=ZERO_TREE)
    cards = state.cards
    deck = cards.zone("deck")
    for i, handle in enumerate(list(deck)[:-6]):
        cards.move(handle, collection_zone(i % 2), visible=EVERYONE)
    # Six cards left: the refill takes two, seats 0 and 1 collect two each, seat 2 none.
    assert len(deck) == 6 and cards.zone("discard") == []
    next_round(state, rng, "collect-two")
    assert cards.zone(collection_zone(2)) == [] and cards.zone("deck") == []
    assert GAME.to_act(state) == {0, 1}
    assert GAME.legal_actions(state, 2) == []
    a = cards.zone(collection_zone(0))[0]
    b = cards.zone(collection_zone(1))[0]
    act(state, 0, Pass(a), rng)
    act(state, 1, Pass(b), rng)
    assert cards.where(a) == collection_zone(2) and cards.where(b) == collection_zone(0)
    assert cards.component_faces() == ALL_FACES


def test_discard_the_tree_then_refill_it_from_the_deck() -> None:
    """Discard the tree. Discard all the Treasures in the tree. Then refill the tree from the
    deck."""
    state, rng = fresh(3, tree=ZERO_TREE)
    deck = list(state.cards.zone("deck"))
    old_tree = [deck[-1], deck[-2], *tree_handles(state)[2:]]  # after the last turn's refill
    next_round(state, rng, "discard-tree")
    assert state.cards.zone("discard") == old_tree
    for handle in old_tree:
        assert seen_by(state, handle) == set(viewers(state)), "discards lie face up"
    assert tree_handles(state) == [deck[-3 - i] for i in range(6)]
    for handle in tree_handles(state):
        assert seen_by(state, handle) == set()
    assert state.phase == "flip" and state.turn == 0


def test_flip_the_tree_shows_every_face_then_shuffles_it_face_down() -> None:
    """Flip the tree. Flip all the Treasures in the tree face up. Then flip them face down,
    shuffle them, and replace them in the tree.

    Ruling "Flip the tree": Everyone sees the six faces until the first player shuffles the
    tree; the shuffled Treasures get new places, so nobody can follow them."""
    orders = set()
    for seed in range(6):
        state, rng = fresh(3, seed=seed, first=2, tree=ZERO_TREE)
        state.turn = 2
        next_round(state, rng, "flip-tree")
        old = tree_handles(state)
        faces = [state.cards.face(h) for h in old]
        assert state.phase == "tree-shown" and GAME.to_act(state) == {2}
        for viewer in viewers(state):
            assert [GAME.view(state, viewer).face(h) for h in old] == faces
        assert "continue" in refused(state, 2, Flip(0))
        assert "not your turn" in refused(state, 0, Continue())
        act(state, 2, "continue", rng)
        new = tree_handles(state)
        assert len(new) == 6 and not set(new) & set(old)
        assert all(h not in state.cards for h in old), "fresh handles: nobody can follow a card"
        assert sorted(state.cards.face(h) for h in new) == sorted(faces)
        for handle in new:
            assert seen_by(state, handle) == set()
        assert state.phase == "flip" and state.turn == 2
        orders.add(tuple(state.cards.face(h) for h in new))
    assert len(orders) > 1, "the tree is shuffled"


# ---------------------------------------------------------------- the end


def test_the_game_ends_when_no_events_are_left() -> None:
    """At the end of the last round, when there are no more Events to flip, the game is
    over."""
    state, rng = fresh(3, tree=ZERO_TREE)
    assert GAME.result(state) is None
    log = next_round(state, rng)
    assert "end" in [e.kind for e in log]
    assert state.phase == "over" and GAME.to_act(state) == frozenset()
    assert GAME.result(state) is not None
    assert refused(state, 1, Flip(0)) == "The game is over."
    for players in range(2, 7):
        playout = play_game(GAME, players, f"end/{players}", "random")
        assert playout.state.round == len(events_for(players))
        assert playout.state.events == () and playout.state.phase == "over"


def test_score_the_points_on_the_treasure_cards_you_collected() -> None:
    """Score the points on the Treasure cards you collected (see SCORING). The player with
    the most points wins!"""
    state, _ = fresh(3)
    give(state, 0, "bell/0", "acorn/1")
    give(state, 1, "popcorn/0", "popcorn/1", "popcorn/2")
    give(state, 2, "ornament-chip/0", "ornament-dale/2", "acorn/0")
    result = finished(state)
    assert result.scores == (3, 5, 4)
    assert result.winners == (1,) and result.tiebreak == ""


def test_tie_goes_to_the_player_with_more_treasure_cards() -> None:
    """In the case of a tie, the tied player with more Treasure cards wins."""
    state, _ = fresh(3)
    give(state, 0, "bell/0", "bell/1", "acorn/0")
    give(state, 1, "bell/2", "acorn/1", "acorn/2", "acorn/0")
    give(state, 2, "acorn/0")
    result = finished(state)
    assert result.scores == (5, 5, 1)
    assert result.winners == (1,) and result.tiebreak == "more Treasure cards"


def test_a_tie_on_points_and_cards_is_a_shared_win() -> None:
    """Ruling "Ties": Most points wins; then the tied player with more Treasure cards; if
    still tied, the tied players share the win."""
    state, _ = fresh(3)
    give(state, 0, "bell/0", "acorn/0")
    give(state, 1, "acorn/1", "bell/1")
    give(state, 2, "bell/2", "popcorn/0")
    result = finished(state)
    assert result.scores == (3, 3, 2)
    assert result.winners == (0, 1) and result.tiebreak == "shared win"


# ---------------------------------------------------------------- scoring


def total(*faces: str) -> int:
    return score(faces).total


def test_each_chip_n_dale_set_of_ornaments_scores_3() -> None:
    """Ornaments. Each Chip 'n' Dale set of Ornaments scores 3 points. A single Ornament or
    two Ornaments showing the same character are worth no points."""
    assert total("ornament-chip/0", "ornament-dale/0") == 3
    assert total("ornament-chip/0") == 0
    assert total("ornament-dale/1", "ornament-dale/0") == 0
    assert total("ornament-chip/0", "ornament-chip/1") == 0
    assert score(["ornament-chip/0", "ornament-dale/1"]).ornaments == 3


def test_each_chip_n_dale_set_of_candy_canes_scores_3() -> None:
    """Candy Canes. Each Chip 'n' Dale set of Candy Canes scores 3 points. A single Candy
    Cane or two Candy Canes showing the same character are worth no points."""
    assert total("candy-chip/0", "candy-dale/2") == 3
    assert total("candy-dale/0") == 0
    assert total("candy-chip/0", "candy-chip/0") == 0
    assert total("candy-dale/0", "candy-dale/1") == 0
    assert total("candy-chip/0", "ornament-dale/0") == 0, "a set is of one kind of Treasure"


def test_each_set_of_three_popcorn_scores_5() -> None:
    """Popcorn. Each set of three Popcorn scores 5 points. A single Popcorn or two Popcorn
    are worth no points."""
    assert total("popcorn/0") == 0
    assert total("popcorn/0", "popcorn/1") == 0
    assert total("popcorn/0", "popcorn/1", "popcorn/2") == 5
    assert total(*["popcorn/0"] * 5) == 5


def test_each_acorn_scores_1() -> None:
    """Acorns. Each Acorn scores 1 point."""
    assert total("acorn/0") == 1
    assert total("acorn/0", "acorn/1", "acorn/2") == 3


def test_each_bell_scores_2() -> None:
    """Bells. Each Bell scores 2 points."""
    assert total("bell/0") == 2
    assert total("bell/0", "bell/2") == 4


def test_you_may_score_multiple_sets_of_the_same_type() -> None:
    """You may score multiple sets of the same type..."""
    assert total(*["ornament-chip/0"] * 2, *["ornament-dale/0"] * 2) == 6
    assert total(*["candy-chip/0"] * 3, *["candy-dale/1"] * 3) == 9
    assert total(*["popcorn/0"] * 6) == 10
    assert total(*["popcorn/0"] * 9) == 15


def test_each_treasure_card_can_be_scored_only_once() -> None:
    """...but each Treasure card can be scored only once."""
    # One Chip Ornament cannot make two sets with two Dale Ornaments.
    assert total("ornament-chip/0", "ornament-dale/0", "ornament-dale/1") == 3
    # Four Popcorn make one set, not two overlapping ones.
    assert total(*["popcorn/0"] * 4) == 5
    assert total(*["candy-chip/0"] * 3, "candy-dale/0") == 3


def test_pluto_faces_are_ignored_when_scoring() -> None:
    """Pluto faces are ignored when scoring."""
    for kind in ("acorn", "bell", "popcorn", "ornament-chip", "candy-dale"):
        assert total(f"{kind}/0") == total(f"{kind}/1") == total(f"{kind}/2")
    assert total("popcorn/2", "popcorn/2", "popcorn/1") == 5
    assert total("bell/2", "acorn/2") == 3


def test_the_rulebooks_scoring_example_scores_exactly_10() -> None:
    """Scoring example from the sheet: 5 points + 3 points + 0 points + 2 points = 10 points.
    The extra Popcorn, the second Ornament showing Dale, and the two Candy Canes showing Chip
    are worth no points because they are not part of a complete set."""
    example = [
        "popcorn/0", "popcorn/1", "popcorn/0", "popcorn/2",
        "ornament-chip/0", "ornament-dale/0", "ornament-dale/1",
        "candy-chip/0", "candy-chip/1",
        "bell/0",
    ]  # fmt: skip
    result = score(example)
    assert (result.popcorn, result.ornaments, result.candy_canes, result.bells) == (5, 3, 0, 2)
    assert result.acorns == 0
    assert result.total == 10


def test_scoring_is_a_pure_function_of_the_faces() -> None:
    """Score the points on the Treasure cards you collected (see SCORING)."""
    faces = ["bell/1", "popcorn/0", "acorn/2", "popcorn/1", "candy-chip/0", "popcorn/2", "candy-dale/0"]
    frozen = list(faces)
    expected = score(faces)
    assert faces == frozen, "scoring does not change its input"
    assert score(reversed(faces)) == expected
    assert score(iter(faces)) == expected
    assert score(tuple(sorted(faces))) == expected
    assert expected.total == 2 + 5 + 1 + 3
    assert score([]).total == 0


# ---------------------------------------------------------------- illegal actions


def _moments():
    """(name, state, seat, action, words the refusal must contain), as a turn goes on."""
    state, rng = fresh(3, tree=ZERO_TREE)
    yield "stop too early", state, 0, Stop(), "at least 2"
    yield "flip the deck", state, 0, Flip(6), "do not flip from the deck"
    yield "collect before stopping", state, 0, Collect(0), "flip a Treasure in the tree or stop"
    yield "out of turn", state, 1, Flip(0), "It is not your turn."
    yield "discard out of phase", state, 0, Discard(state.cards.zone("deck")[0]), "flip a Treasure"
    state, rng = fresh(3, tree=ZERO_TREE)
    act(state, 0, "flip 0", rng)
    yield "flip twice", state, 0, Flip(0), "already face up"
    act(state, 0, "flip 1", rng)
    act(state, 0, "stop", rng)
    yield "collect face down", state, 0, Collect(4), "face-up"
    yield "flip after stopping", state, 0, Flip(4), "collect a face-up Treasure"
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng, "collect-three")
    yield "discard from the deck", state, 0, Discard(state.cards.zone("deck")[0]), "not one of your Treasures"
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng, "peek")
    yield "continue during peek", state, 0, Continue(), "peek"
    act(state, 0, "peek 2", rng)
    yield "peek twice", state, 0, Peek(2), "two different"
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng, "swap")
    yield "take before giving", state, 0, Take(0), "swap into the tree"
    act(state, 0, Give(state.cards.zone(collection_zone(0))[0]), rng)
    yield "give twice", state, 0, Give(state.cards.zone(collection_zone(0))[0]), "swap with"
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng, "collect-two")
    yield "flip during the pass", state, 0, Flip(0), "pass to your right"
    yield "pass another's card", state, 0, Pass(state.cards.zone(collection_zone(1))[0]), "not one of your"
    state, rng = fresh(3, tree=ZERO_TREE)
    next_round(state, rng)
    yield "play after the end", state, 0, Stop(), "The game is over."


SITUATIONS = [
    "stop too early",
    "flip the deck",
    "collect before stopping",
    "out of turn",
    "discard out of phase",
    "flip twice",
    "collect face down",
    "flip after stopping",
    "discard from the deck",
    "continue during peek",
    "peek twice",
    "take before giving",
    "give twice",
    "flip during the pass",
    "pass another's card",
    "play after the end",
]


@pytest.mark.parametrize("name", SITUATIONS)
def test_illegal_actions_name_the_rule_and_change_nothing(name: str) -> None:
    """Refused actions raise and change nothing; ``rule`` names the rule broken."""
    # The moments share one table as it goes on: stop the walk at the named one.
    _, state, seat, action, words = next(case for case in _moments() if case[0] == name)
    rule = refused(state, seat, action)
    assert words in rule, rule


def test_malformed_actions_are_invalid() -> None:
    """An action must be one of the game's actions, well formed."""
    state, rng = fresh(3, tree=ZERO_TREE)
    before = GAME.digest(state)
    for raw in ("flip", "flip x", "fly 2", "collect 1 2", ""):
        with pytest.raises(InvalidAction):
            GAME.apply(state, 0, GAME.parse_action(raw), rng)
    with pytest.raises(InvalidAction):
        GAME.apply(state, 7, Flip(0), rng)
    assert GAME.digest(state) == before


# ---------------------------------------------------------------- every ruling has its test

def test_an_empty_deck_and_discard_pile_leave_the_tree_unfilled() -> None:
    """Ruling "An empty deck": If the deck and the discard pile are both empty, the tree is
    not refilled and Events draw what is left; a player whose turn finds an empty tree
    collects nothing."""
    state, rng = fresh(3, tree=ZERO_TREE)
    cards = state.cards
    for i, handle in enumerate(list(cards.zone("deck"))):
        cards.move(handle, collection_zone(1 + i % 2), visible=EVERYONE)
    for slot in range(2, 6):
        cards.move(slot_handle(state, slot), collection_zone(0), visible=EVERYONE)
    state.events = ("collect-three",)
    sizes = [len(cards.zone(collection_zone(s))) for s in range(3)]
    act(state, 0, "flip 0", rng)
    act(state, 0, "flip 1", rng)  # every card is face up: collect
    act(state, 0, "collect 0", rng)
    log = act(state, 0, "collect 1", rng)
    assert tree_handles(state) == [] and cards.zone("deck") == []
    assert [e.seat for e in log if e.kind == "empty"] == [1, 2]
    assert [len(cards.zone(collection_zone(s))) for s in range(3)] == [sizes[0] + 2, *sizes[1:]]
    # Collect three with nothing to draw: the first player still discards one Treasure.
    assert state.event == "collect-three" and state.phase == "discard" and state.turn == 0
    discarded = cards.zone(collection_zone(0))[0]
    log = act(state, 0, Discard(discarded), rng)
    # Seat 0 then finds an empty tree; the refill shuffles the one discard into a new deck.
    assert [e.kind for e in log][:3] == ["discard", "empty", "reshuffle"]
    assert len(tree_handles(state)) == 1 and discarded not in cards
    assert cards.zone("deck") == [] and cards.zone("discard") == []
    assert state.turn == 1 and state.phase == "discard", "seat 1 draws nothing but discards"
    assert cards.component_faces() == ALL_FACES


RULING_TESTS = {
    "The 60 Treasures": test_the_sixty_treasures_ruling_fixes_the_mix,
    "Who starts": test_whoever_last_ate_a_candy_cane_starts_or_else_a_seat_drawn_at_random,
    "Flipping before you stop": test_you_must_flip_two_treasures_before_you_stop,
    "Pluto": test_pluto_counts_only_the_treasures_flipped_this_turn,
    "Event order": test_stack_the_event_cards_in_order_event_1_on_top,
    "Discarded Treasures": test_collect_three_treasures_from_the_top_of_the_deck_then_discard_one,
    "Peek": test_peeked_faces_are_hidden_again_at_your_first_flip,
    "Swap": test_swap_one_of_your_treasures_with_a_treasure_in_the_tree,
    "Passing right": test_the_passed_treasures_go_to_the_player_on_the_right,
    "Flip the tree": test_flip_the_tree_shows_every_face_then_shuffles_it_face_down,
    "An empty deck": test_an_empty_deck_and_discard_pile_leave_the_tree_unfilled,
    "Ties": test_a_tie_on_points_and_cards_is_a_shared_win,
}


def test_every_ruling_has_its_test() -> None:
    """Every ruling in ``ChipNDale.rulings`` is checked by a test that quotes it."""
    assert_every_ruling_is_tested(GAME, RULING_TESTS)


# ---------------------------------------------------------------- properties over whole games


def check_table(game, state, seat=None, action=None) -> None:
    """What every view shows, at one moment of a game."""
    cards = state.cards
    n = len(state.players)
    assert cards.component_count() == 60
    assert cards.component_faces() == ALL_FACES
    sealed = {s: cards.zone(f"{SEALED_PREFIX}{s}")[0] for s in range(n) if cards.zone(f"{SEALED_PREFIX}{s}")}
    if sealed:
        assert state.phase == "pass"
    for viewer in viewers(state):
        view = GAME.view(state, viewer)
        faces = view.faces
        # (a) collections, discards and a Treasure being swapped lie face up for all.
        face_up = [h for s in range(n) for h in view.zone(collection_zone(s))]
        face_up += [*view.zone("discard"), *view.zone("swap")]
        for handle in face_up:
            assert faces.get(handle) == cards.face(handle)
        # ... the deck never shows a face ...
        assert not set(view.zone("deck")) & set(faces)
        # ... and a tree card shows only when flipped, or to the peeker while peeking.
        for slot, zone in enumerate(SLOT_ZONES):
            for handle in view.zone(zone):
                shown = (
                    slot in state.flipped
                    or state.phase == "tree-shown"
                    or (viewer == state.turn and slot in state.peeked)
                )
                assert (handle in faces) == shown, (viewer, slot, state.phase)
                if shown:
                    assert faces[handle] == cards.face(handle)
        # (b) a sealed choice is seen by its owner alone.
        for owner, handle in sealed.items():
            assert (handle in faces) == (viewer == owner)


@over_whole_games(GAME, examples=30)
def test_every_view_shows_exactly_what_its_seat_may_see(seed: int, players: int, data) -> None:
    """Note: Do not peek at the cards in the tree or on top of the deck unless the Event
    specifically says to. (And: Place any Treasures you collect face up in front of you.)"""
    playout = play_checked_game(GAME, players, seed, data, check_table)
    state = playout.state
    # (c) the result is the score of each collection.
    collections = [state.cards.faces(collection_zone(s)) for s in range(players)]
    totals = [score(c).total for c in collections]
    assert playout.result.scores == tuple(totals)
    best = max(totals)
    leaders = [s for s in range(players) if totals[s] == best]
    most = max(len(collections[s]) for s in leaders)
    assert playout.result.winners == tuple(s for s in leaders if len(collections[s]) == most)
    # (d) no card is ever created or lost.
    assert state.cards.component_count() == 60


def test_the_smart_bot_beats_random_players_clearly() -> None:
    """The player with the most points wins! (A player who remembers and weighs Pluto's
    risk should win far more than a quarter of four-player games.)"""
    wins = 0
    for game in range(100):
        smart = game % 4
        bots = ["random"] * 4
        bots[smart] = "smart"
        playout = play_game(GAME, 4, f"smart-vs-random/{game}", bots)
        wins += smart in playout.result.winners
    assert wins > 60, f"the smart bot won only {wins} of 100 games"
