"""Dragons & Chickens: every rule of the rulebook, every ruling, and the round's pure resolution.

Tests are named after the rulebook's sentences and quote them. The rulebook's
examples (Pablo shouts "Diamond!"; Marta grabs the chest in the crown/chalice
tie; Ignacio, last on the shield, loses his diamonds and rings) are played
through ``resolve_round`` and through the engine. Property tests throw random
timings at the resolution.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xmas_tui.bots import RandomBot
from xmas_tui.bots.dragons_chickens import SKILLS, Skill, SmartBot
from xmas_tui.games import IllegalAction, InvalidAction, Rng
from xmas_tui.games.cards import EVERYONE, NOBODY, Cards
from xmas_tui.games.dragons_chickens import (
    CHEST,
    DRAGON,
    GAME,
    NAME,
    REPRESENTATIVE_MS,
    ROOM,
    SHIELD,
    SLAP,
    TIE_MS,
    TREASURES,
    WINDOW_MS,
    Feed,
    Input,
    Offer,
    Outcome,
    Presses,
    Ready,
    RoundRecord,
    State,
    all_faces,
    card,
    counts_of,
    dragon_for,
    dragon_offers,
    last_round,
    loot_zone,
    make_face,
    most_abundant,
    pile_zone,
    resolve_round,
    table_zone,
)
from xmas_tui.games.engine import pack, unpack
from xmas_tui.simulate import play_game

T = {name: i for i, name in enumerate(TREASURES)}
MARTA, IGNACIO, PABLO = 0, 1, 2
FIRST_COME = (0, 1, 2, 3, 4)


# ---------------------------------------------------------------- helpers


def face(a: str, b: str, **marks: int | bool) -> str:
    a, b = sorted((a, b), key=T.__getitem__)
    return make_face(a, b, **marks)  # type: ignore[arg-type]


def shout(seat: int, treasure: str, ms: int) -> Input:
    return Input(seat, NAME, T[treasure], ms)


def chest(seat: int, ms: int) -> Input:
    return Input(seat, CHEST, 0, ms)


def shield(seat: int, ms: int) -> Input:
    return Input(seat, SHIELD, 0, ms)


def slap(seat: int, owner: int, ms: int) -> Input:
    return Input(seat, SLAP, owner, ms)


def resolve(revealed: dict[int, str], *inputs: Input, seats: int = 3, priority: Sequence[int] | None = None) -> Outcome:
    return resolve_round(revealed, inputs, tuple(priority) if priority is not None else FIRST_COME[:seats])


def verdict(outcome: Outcome, seat: int, kind: int) -> str:
    return next(v.what for v in outcome.verdicts if v.seat == seat and v.kind == kind)


def presses(*inputs: Input) -> Presses:
    return Presses.of(*((i.kind, i.target, i.ms) for i in inputs))


def put(cards: Cards, zone: str, faces: Sequence[str], visible: int) -> list[int]:
    handles = []
    for f in faces:
        handle = cards.new_deck(zone, [f], Rng("put"))[0]
        cards.set_visible(handle, visible)
        handles.append(handle)
    return handles


def table(
    piles: Sequence[Sequence[str]],
    loots: Sequence[Sequence[str]] | None = None,
    room: Sequence[str] = (),
    names: Sequence[str] = ("Marta", "Ignacio", "Pablo", "Ana", "Luis"),
) -> State:
    """A table set by hand: piles listed top card first, then every top card revealed."""
    n = len(piles)
    state = State(players=tuple(names[:n]))
    cards = state.cards
    for seat, pile in enumerate(piles):
        put(cards, pile_zone(seat), list(reversed(pile)), NOBODY)
        cards.declare_zone(table_zone(seat))
        put(cards, loot_zone(seat), (loots or [[]] * n)[seat], EVERYONE)
    put(cards, ROOM, room, EVERYONE)
    cards.declare_zone(DRAGON)
    GAME.reveal(state, [])
    return state


def play_round(state: State, by_seat: dict[int, Sequence[Input]], seed: str = "round",
               feed: dict[int, bool] | None = None) -> list:
    """Every seat submits its presses (seats not named press nothing), then says it is ready;
    a burned seat with a choice gives the dragon a chicken or not as ``feed`` says (else the
    cheaper offer, as a seat that says nothing does)."""
    rng = Rng(seed)
    events = []
    for seat in range(len(state.players)):
        events += GAME.apply(state, seat, presses(*by_seat.get(seat, ())), rng)
    if state.phase == "pause":
        for seat in range(len(state.players)):
            if feed is not None and seat in feed:
                events += GAME.apply(state, seat, Feed(int(feed[seat])), rng)
            else:
                events += GAME.apply(state, seat, GAME.silent_action(state, seat), rng)
    return events


def loot(state: State, seat: int) -> list[str]:
    return state.cards.faces(loot_zone(seat))


def record(state: State) -> RoundRecord:
    rec = last_round(GAME.view(state, None).public)
    assert rec is not None
    return rec


# ---------------------------------------------------------------- components and setup


def test_the_109_treasure_cards_ruling() -> None:
    """Components: "109 Treasure cards (and chickens!)"; our ruling fixes their composition."""
    faces = all_faces()
    cards = [card(f) for f in faces]
    assert len(faces) == 109
    assert all(c.treasures[0] != c.treasures[1] for c in cards), "two different treasures on every card"
    assert counts_of(faces) == (37, 37, 36, 36, 36, 36)
    assert sum(c.chicken for c in cards) == 15
    assert sum(c.torch for c in cards) == 15
    assert Counter(c.dragon for c in cards if c.dragon) == {1: 3, 2: 3, 3: 3}
    assert sum(c.chicken and c.torch for c in cards) == 3
    assert sum(bool(c.dragon) and c.torch for c in cards) == 3
    assert not any(c.chicken and c.dragon for c in cards)
    for size in (1, 2, 3):  # each treasure once per dragon size
        assert counts_of(f for f in faces if card(f).dragon == size) == (1,) * 6
    assert face("ring", "diamond", dragon=3) in faces, "Ignacio's dragon card is in the deck"
    assert all_faces() == faces, "the table is deterministic"


def test_every_card_shows_two_treasures_of_six_kinds() -> None:
    """"On each card there are two treasures, each of which can be one of six types: ring,
    pearl, crown, gold, diamond and chalice." """
    assert TREASURES == ("ring", "pearl", "crown", "gold", "diamond", "chalice")
    c = card("ring+pearl/chicken/dragon2/torch")
    assert c.treasures == (0, 1) and c.chicken and c.dragon == 2 and c.torch


@pytest.mark.parametrize(("players", "each", "left"), [(2, 54, 1), (3, 36, 1), (4, 27, 1), (5, 21, 4)])
def test_deal_all_the_treasure_cards_in_an_equal_number(players: int, each: int, left: int) -> None:
    """"Deal all the Treasure cards in an equal number to all players. [...] If there are any
    cards left over, put them under the Dragon card." """
    state = GAME.setup({}, [f"P{i}" for i in range(players)], Rng(players))
    cards = state.cards
    for seat in range(players):
        assert len(cards.zone(pile_zone(seat))) + len(cards.zone(table_zone(seat))) == each
        assert not any(cards.is_public(h) for h in cards.zone(pile_zone(seat)))
    assert len(cards.zone(DRAGON)) == left
    assert not any(cards.is_public(h) for h in cards.zone(DRAGON)), "the leftovers stay face down"
    assert cards.component_count() == 109


def test_players_ruling() -> None:
    """Ruling "Players": 2 to 5."""
    with pytest.raises(ValueError):
        GAME.setup({}, ["Solo"], Rng(1))
    with pytest.raises(ValueError):
        GAME.setup({}, [f"P{i}" for i in range(6)], Rng(1))


def test_everyone_at_the_same_time_reveals_the_first_card_of_their_deck() -> None:
    """"everyone, at the same time, reveals the first card of their deck face up in front of
    them. You must flip the cards so that all players see them at once." """
    state = GAME.setup({}, ["Marta", "Ignacio", "Pablo"], Rng(7))
    assert state.round == 1 and state.phase == "race"
    assert GAME.to_act(state) == {0, 1, 2}, "every seat races at once"
    spectator = GAME.view(state, None)
    for seat in range(3):
        (handle,) = spectator.zone(table_zone(seat))
        assert spectator.face(handle) is not None
        assert not any(spectator.face(h) for h in spectator.zone(pile_zone(seat)))


# ---------------------------------------------------------------- naming the most abundant


def test_pablo_shouts_diamond_and_takes_all_the_cards() -> None:
    """"Marta reveals a card with a diamond and a chalice; Ignacio, a card with a crown and a
    diamond; and Pablo, a card with a ring and a pearl. Pablo quickly shouts "Diamond!" taking
    all the cards, since diamond was the treasure there was the most in the room." """
    revealed = {MARTA: face("diamond", "chalice"), IGNACIO: face("crown", "diamond"), PABLO: face("ring", "pearl")}
    outcome = resolve(revealed, shout(PABLO, "diamond", 480))
    assert (outcome.how, outcome.winner, outcome.named) == ("named", PABLO, T["diamond"])
    assert outcome.counts[T["diamond"]] == 2 and most_abundant(outcome.counts) == (T["diamond"],)
    assert outcome.counted == (MARTA, IGNACIO, PABLO)


def test_pablo_takes_all_the_cards_into_his_booty() -> None:
    """"[they] will take all the cards that have been played that round, and put them face-up
    next to him or her. They then become part of his/her precious booty." """
    state = table([["diamond+chalice", "ring+gold"], ["crown+diamond", "ring+gold"], ["ring+pearl", "ring+gold"]])
    events = play_round(state, {PABLO: [shout(PABLO, "diamond", 480)]})
    assert sorted(loot(state, PABLO)) == sorted(["diamond+chalice", "crown+diamond", "ring+pearl"])
    assert all(state.cards.is_public(h) for h in state.cards.zone(loot_zone(PABLO)))
    assert any("Pablo shouts Diamond at 480 ms" in e.text for e in events)
    assert state.round == 2, "the next room is revealed at once"


def test_the_first_adventurer_who_names_the_most_abundant_treasure_wins() -> None:
    """"the first adventurer who says, out loud, which treasure is the most abundant [...]
    will take all the cards" """
    revealed = {0: face("diamond", "chalice"), 1: face("crown", "diamond"), 2: face("ring", "pearl")}
    outcome = resolve(revealed, shout(0, "diamond", 700), shout(1, "diamond", 650), shout(2, "diamond", 900))
    assert outcome.winner == 1
    assert verdict(outcome, 0, NAME) == "late" and verdict(outcome, 2, NAME) == "late"


def test_marta_grabs_the_chest_when_crown_and_chalice_tie() -> None:
    """"Marta reveals a crown and a chalice; Ignacio, a chalice and a pearl; and Pablo, a crown
    and a diamond. Pablo shouts "chalice!", but Marta realizes that there are the same number of
    chalices and crowns, so she grabs the treasure chest, therefore winning all the cards." """
    revealed = {MARTA: face("crown", "chalice"), IGNACIO: face("chalice", "pearl"), PABLO: face("crown", "diamond")}
    outcome = resolve(revealed, shout(PABLO, "chalice", 500), chest(MARTA, 900))
    assert (outcome.how, outcome.winner) == ("chest", MARTA)
    assert most_abundant(outcome.counts) == (T["crown"], T["chalice"])
    assert verdict(outcome, PABLO, NAME) == "tied-kind"


def test_it_does_not_matter_if_another_has_already_named_a_tied_treasure() -> None:
    """"It does not matter if another adventurer has already named one of the most abundant
    treasures out loud. If you grab the treasure chest first, you take them all!" """
    state = table([["crown+chalice"], ["pearl+chalice"], ["crown+diamond"]])
    play_round(state, {PABLO: [shout(PABLO, "chalice", 500)], MARTA: [chest(MARTA, 900)]})
    assert len(loot(state, MARTA)) == 3 and not loot(state, PABLO)


def test_naming_a_tied_treasure_does_not_count_and_costs_nothing() -> None:
    """Ruling "A wrong shout or grab": naming one of the tied treasures in a tie simply does
    not count; that player may still grab the chest."""
    revealed = {0: face("crown", "chalice"), 1: face("chalice", "pearl"), 2: face("crown", "diamond")}
    outcome = resolve(revealed, shout(2, "chalice", 500), chest(2, 800), chest(0, 900))
    assert outcome.winner == 2 and outcome.how == "chest"


def test_a_wrong_shout_puts_you_out_of_the_race() -> None:
    """Ruling "A wrong shout or grab": shouting a treasure that is not the most abundant puts
    you out of that round's race: your later grab is ignored."""
    revealed = {0: face("crown", "chalice"), 1: face("chalice", "pearl"), 2: face("crown", "diamond")}
    outcome = resolve(revealed, shout(2, "diamond", 300), chest(2, 400), chest(0, 900))
    assert verdict(outcome, 2, NAME) == "wrong" and verdict(outcome, 2, CHEST) == "out"
    assert outcome.winner == 0


def test_a_wrong_chest_grab_puts_you_out_of_the_race() -> None:
    """Ruling "A wrong shout or grab": grabbing the chest when one treasure is the most
    abundant puts you out: your later shout is ignored."""
    revealed = {0: face("diamond", "chalice"), 1: face("crown", "diamond"), 2: face("ring", "pearl")}
    outcome = resolve(revealed, chest(1, 300), shout(1, "diamond", 400), shout(2, "diamond", 900))
    assert verdict(outcome, 1, CHEST) == "wrong" and verdict(outcome, 1, NAME) == "out"
    assert outcome.winner == 2


def test_cards_nobody_wins_stay_in_the_room_for_the_next_winner() -> None:
    """Ruling "Cards nobody wins": they stay face up in the room, go to the next player who
    wins a room, and never count toward abundance."""
    state = table([["ring+pearl", "gold+diamond"], ["ring+crown", "crown+gold"], ["ring+gold", "pearl+gold"]])
    play_round(state, {})
    first = record(state)
    assert first.outcome.how == "nobody" and len(first.to_room) == 3
    assert len(state.cards.zone(ROOM)) == 3 and all(state.cards.is_public(h) for h in state.cards.zone(ROOM))
    # Round 2: gold 3 (the room's three rings do not count), Ignacio names it.
    play_round(state, {IGNACIO: [shout(IGNACIO, "gold", 600)]})
    assert record(state).outcome.winner == IGNACIO
    assert len(loot(state, IGNACIO)) == 6 and not state.cards.zone(ROOM)
    assert set(record(state).taken) >= set(first.to_room)


def test_cards_left_in_the_room_at_the_end_go_under_the_dragon() -> None:
    """Ruling "Cards nobody wins": cards still in the room at the end go under the Dragon card."""
    state = table([["ring+pearl"], ["ring+crown"]])
    play_round(state, {})
    assert state.phase == "over"
    assert len(state.cards.zone(DRAGON)) == 2 and not state.cards.zone(ROOM)


def test_nobody_acting_in_time_wins_nothing() -> None:
    """Ruling "Cards nobody wins": when nobody names the right treasure or grabs the chest in
    time the cards stay in the room."""
    revealed = {0: face("ring", "pearl"), 1: face("ring", "crown")}
    outcome = resolve(revealed, shout(0, "pearl", 300), seats=2)
    assert outcome.how == "nobody" and outcome.winner is None


# ---------------------------------------------------------------- the dragon


def test_when_a_dragon_shows_no_treasure_by_naming_nor_by_the_chest() -> None:
    """"When a dragon shows up on the cards, you cannot get any treasure by naming the most
    abundant one nor by taking the chest." """
    revealed = {0: face("ring", "diamond", dragon=3), 1: face("ring", "pearl"), 2: face("ring", "gold")}
    outcome = resolve(revealed, shout(1, "ring", 200), chest(2, 300), shield(0, 400), shield(1, 500), shield(2, 600))
    assert outcome.how == "dragon" and outcome.winner is None
    assert verdict(outcome, 1, NAME) == "dragon" and verdict(outcome, 2, CHEST) == "dragon"


def test_ignacio_last_on_the_shield_loses_his_diamonds_and_rings() -> None:
    """"Ignacio is left out since he was the last one to put his hand on the shield. [...] Since
    in this case it was a diamond and a ring, he takes all the cards from his loot that have
    diamonds or rings and places them under the Dragon card." """
    dragon = face("ring", "diamond", dragon=3)
    revealed = {MARTA: face("pearl", "gold"), IGNACIO: dragon, PABLO: face("crown", "chalice")}
    outcome = resolve(revealed, shield(MARTA, 350), shield(PABLO, 420), shield(IGNACIO, 610))
    assert [(b.seat, b.dragon, b.why) for b in outcome.burns] == [(IGNACIO, IGNACIO, "top")]
    booty = [face("ring", "pearl"), face("gold", "crown"), face("diamond", "chalice"), face("pearl", "gold")]
    assert dragon_offers(booty, dragon) == (Offer((0, 2), False),)

    state = table(
        [[face("pearl", "gold"), "ring+pearl"], [dragon, "ring+pearl"], [face("crown", "gold"), "ring+pearl"]],
        loots=[[], booty, []],
    )
    play_round(state, {MARTA: [shield(MARTA, 350)], PABLO: [shield(PABLO, 420)], IGNACIO: [shield(IGNACIO, 610)]})
    assert sorted(loot(state, IGNACIO)) == sorted([face("gold", "crown"), face("pearl", "gold")])
    lost = state.cards.faces(DRAGON)
    assert sorted(lost) == sorted([face("ring", "pearl"), face("diamond", "chalice")])
    assert all(state.cards.is_public(h) for h in state.cards.zone(DRAGON)), "the burned cards were face up"
    (loss,) = record(state).losses
    assert loss.seat == IGNACIO and not loss.chicken and len(loss.cards) == 2


def test_everyone_has_to_put_their_open_hand_on_the_shield() -> None:
    """Ruling "Out of reach of the shield": "everyone has to put their open hand on top of the
    shield" — whoever has no hand on it within the window is burned, every one of them."""
    revealed = {0: face("ring", "diamond", dragon=3), 1: face("ring", "pearl"), 2: face("ring", "gold")}
    outcome = resolve(revealed, shield(1, 400))
    assert sorted(b.seat for b in outcome.burns) == [0, 2]
    assert all(b.why == "outside" for b in outcome.burns)


def test_the_dragon_takes_from_the_loot_as_it_was_before_the_round() -> None:
    """Ruling "Out of reach of the shield": the dragon takes from the loot as it was before the
    round's cards were shared out (a dark room stolen this round is safe)."""
    dragon = face("ring", "diamond", dragon=3)
    state = table([[dragon], [face("ring", "pearl", torch=True)]], loots=[[], [face("gold", "crown")]])
    play_round(state, {0: [shield(0, 300)], 1: [shield(1, 500), slap(1, 1, 520)]})
    assert loot(state, 1) == [face("gold", "crown"), face("ring", "pearl", torch=True)]


def test_the_room_of_a_dragon_stays_in_the_room() -> None:
    """Ruling "Cards nobody wins": with a dragon out, the round's cards (but stolen dark rooms)
    stay in the room for the next winner."""
    state = table([[face("ring", "diamond", dragon=3), "ring+pearl"], [face("crown", "gold", torch=True), "ring+gold"]])
    play_round(state, {0: [shield(0, 300), slap(0, 1, 360)], 1: [shield(1, 500)]})
    rec = record(state)
    assert rec.outcome.how == "dragon"
    assert [state.cards.face(h) for h in rec.to_room] == [face("ring", "diamond", dragon=3)]
    assert loot(state, 0) == [face("crown", "gold", torch=True)]


def test_with_several_dragons_the_easiest_to_see_counts() -> None:
    """"If by any chance the dragon appears on more than one card during the same round, the
    player will give up the treasures that appear on the card where the dragon is easier to
    see." Ruling "Easiest to see": the largest dragon."""
    revealed = {0: face("ring", "gold", dragon=1), 1: face("pearl", "gold", dragon=3), 2: face("ring", "crown", dragon=2)}
    outcome = resolve(revealed, shield(1, 300), shield(2, 400), shield(0, 900))
    (burn,) = outcome.burns
    assert burn.seat == 0 and burn.dragon == 1


def test_equal_dragons_the_one_nearest_the_burned_player_counts() -> None:
    """Ruling "Easiest to see": between dragons of the same size, the burned player's own card,
    then the next player's clockwise."""
    revealed = {0: face("ring", "diamond", dragon=3), 2: face("pearl", "gold", dragon=3), 3: face("ring", "pearl")}
    assert dragon_for(revealed, 0, 4) == 0
    assert dragon_for(revealed, 2, 4) == 2
    assert dragon_for(revealed, 1, 4) == 2
    assert dragon_for(revealed, 3, 4) == 0


# ---------------------------------------------------------------- chickens


def test_just_give_away_the_chicken_and_the_dragon_will_be_satisfied() -> None:
    """"If you had the misfortune to be the one that did not fit behind the shield, you can
    still avoid giving part of your treasures to the dragon if one of your treasures is a
    chicken. Just give away the chicken and the Dragon will be satisfied." """
    dragon = face("ring", "diamond", dragon=3)
    booty = [face("ring", "pearl"), face("gold", "crown", chicken=True), face("diamond", "chalice")]
    assert dragon_offers(booty, dragon) == (Offer((1,), True), Offer((0, 2), False))
    state = table([["pearl+gold", "ring+pearl"], [dragon, "ring+pearl"]], loots=[booty, []])
    play_round(state, {1: [shield(1, 300)], 0: [shield(0, 700)]}, feed={0: True})
    assert sorted(loot(state, 0)) == sorted([face("ring", "pearl"), face("diamond", "chalice")])
    assert state.cards.faces(DRAGON) == [face("gold", "crown", chicken=True)]
    assert record(state).losses[0].chicken
    assert "Marta gives up a chicken instead of Ring or Diamond" in " ".join(record(state).lines)


CHICKENS = """Ruling "Chickens": A player the dragon burns, with a chicken in their loot, chooses between rounds: give the dragon their most recently won chicken, or every card it wants. The cheaper is offered first (fewer cards, then fewer chickens) and is what a player who says nothing in time gives. There is nothing to choose when the dragon wants no card, or wants that very chicken alone."""


def burned_with_a_chicken() -> State:
    """Marta is last on the shield; her loot holds two Ring or Diamond cards and a chicken."""
    dragon = face("ring", "diamond", dragon=3)
    booty = [face("ring", "pearl"), face("gold", "crown", chicken=True), face("diamond", "chalice")]
    state = table([["pearl+gold", "ring+pearl"], [dragon, "ring+pearl"]], loots=[booty, []])
    rng = Rng("round")
    GAME.apply(state, 1, presses(shield(1, 300)), rng)
    GAME.apply(state, 0, presses(shield(0, 700)), rng)
    return state


def test_chickens_ruling_the_burned_player_chooses_the_cheaper_offered_first() -> None:
    """"you can still avoid giving part of your treasures to the dragon if one of your treasures
    is a chicken. Just give away the chicken and the Dragon will be satisfied."
    Ruling "Chickens": A player the dragon burns, with a chicken in their loot, chooses between
    rounds: give the dragon their most recently won chicken, or every card it wants. The cheaper
    is offered first (fewer cards, then fewer chickens) and is what a player who says nothing in
    time gives. There is nothing to choose when the dragon wants no card, or wants that very
    chicken alone."""
    assert " ".join(CHICKENS.split()) in " ".join((test_chickens_ruling_the_burned_player_chooses_the_cheaper_offered_first.__doc__ or "").split())
    state = burned_with_a_chicken()
    assert state.phase == "pause" and GAME.to_act(state) == {0, 1}
    assert GAME.legal_actions(state, 0) == [Feed(1), Feed(0)], "the chicken (1 card) before 2 cards"
    assert GAME.legal_actions(state, 1) == [Ready()]
    assert loot(state, 0) and not state.cards.faces(DRAGON), "nothing is taken before she chooses"
    (loss,) = record(state).losses
    assert loss.choosing and "Marta chooses: a chicken, or the cards showing Ring or Diamond" in " ".join(record(state).lines)
    with pytest.raises(IllegalAction, match="Chickens: the dragon is waiting"):
        GAME.apply(state, 0, Ready(), Rng(0))
    with pytest.raises(IllegalAction, match="Chickens: only a player the dragon burned"):
        GAME.apply(state, 1, Feed(1), Rng(0))
    assert GAME.silent_action(state, 0) == Feed(1), "saying nothing gives the cheaper"
    events = GAME.apply(state, 0, Feed(0), Rng(0))
    assert sorted(state.cards.faces(DRAGON)) == sorted([face("ring", "pearl"), face("diamond", "chalice")])
    assert loot(state, 0) == [face("gold", "crown", chicken=True)]
    assert [e.kind for e in events] == ["feed"] and events[0].data == {"chicken": False, "cards": 2}
    (loss,) = record(state).losses
    assert not loss.choosing and not loss.chicken and len(loss.cards) == 2
    assert GAME.to_act(state) == {1}, "feeding the dragon is being ready for the next room"
    GAME.apply(state, 1, Ready(), Rng(0))
    assert state.phase == "race" and state.round == 2


def test_chickens_ruling_the_most_recently_won_chicken_is_offered() -> None:
    """Ruling "Chickens": the most recently won chicken; the cheaper offer first (fewer cards,
    then fewer chickens)."""
    dragon = face("ring", "diamond", dragon=3)
    booty = [face("gold", "crown", chicken=True), face("ring", "pearl"), face("diamond", "chalice"), face("pearl", "gold", chicken=True)]
    assert dragon_offers(booty, dragon) == (Offer((3,), True), Offer((1, 2), False))
    one = [face("ring", "pearl"), face("gold", "crown", chicken=True)]
    assert dragon_offers(one, dragon) == (Offer((0,), False), Offer((1,), True)), "1 card, no chicken, first"
    mine = [face("ring", "gold", chicken=True), face("crown", "pearl", chicken=True)]
    assert dragon_offers(mine, dragon) == (Offer((0,), False), Offer((1,), True)), "a tie: the treasures first"


def test_chickens_ruling_nothing_to_choose() -> None:
    """Ruling "Chickens": there is nothing to choose when the dragon wants no card, or wants that
    very chicken alone."""
    dragon = face("ring", "diamond", dragon=3)
    assert dragon_offers([face("gold", "crown", chicken=True)], dragon) == (Offer((), False),)
    assert dragon_offers([face("ring", "gold", chicken=True), face("crown", "pearl")], dragon) == (Offer((0,), False),)
    assert dragon_offers([face("ring", "pearl"), face("diamond", "gold")], dragon) == (Offer((0, 1), False),)


def test_chickens_in_the_last_round_are_still_offered() -> None:
    """Ruling "Chickens": a dragon in the last room still lets the burned player choose before
    the game ends."""
    dragon = face("ring", "diamond", dragon=3)
    booty = [face("ring", "pearl"), face("gold", "crown", chicken=True), face("diamond", "chalice")]
    state = table([["pearl+gold"], [dragon]], loots=[booty, []])
    play_round(state, {1: [shield(1, 300)], 0: [shield(0, 700)]}, feed={0: False})
    assert state.phase == "over"
    assert loot(state, 0) == [face("gold", "crown", chicken=True)]
    assert GAME.result(state).scores[0] == 1  # type: ignore[union-attr]


def test_every_bot_gives_the_dragon_the_cheaper_offer() -> None:
    """A sensible choice: every level of bot feeds the dragon what costs it least."""
    from xmas_tui.bots import make_bot
    from xmas_tui.games import View

    for level in ("easy", "sensible", "hard"):
        state = burned_with_a_chicken()
        bot = make_bot(GAME.id, level, 0, Rng(level))
        assert bot.choose(GAME.view(state, 0), GAME.legal_actions(state, 0)) == Feed(1)
        assert isinstance(GAME.view(state, 0), View)


# ---------------------------------------------------------------- dark rooms


def test_anyone_can_put_their_hand_over_a_card_with_an_unlit_torch_to_steal_it() -> None:
    """"any adventurer can put their hand over a card with an unlit torch, to steal it." Ruling
    "Dark rooms": the thief takes that card alone."""
    revealed = {0: face("diamond", "chalice"), 1: face("crown", "diamond", torch=True), 2: face("ring", "pearl")}
    outcome = resolve(revealed, slap(2, 1, 900), shout(0, "diamond", 500))
    assert [(t.thief, t.owner) for t in outcome.thefts] == [(2, 1)]
    state = table([[revealed[0]], [revealed[1]], [revealed[2]]])
    play_round(state, {0: [shout(0, "diamond", 500)], 2: [slap(2, 1, 900)]})
    assert loot(state, 2) == [revealed[1]]
    assert sorted(loot(state, 0)) == sorted([revealed[0], revealed[2]])


def test_you_can_put_your_hand_on_your_own_card_to_win_it() -> None:
    """"And, yes, you can put your hand on your own card in order to win it." """
    revealed = {0: face("ring", "pearl", torch=True), 1: face("crown", "gold")}
    outcome = resolve(revealed, slap(0, 0, 300), seats=2)
    assert [(t.thief, t.owner) for t in outcome.thefts] == [(0, 0)]


def test_a_dark_room_slapped_before_the_naming_no_longer_counts() -> None:
    """"If a player puts his hand over a card with an unlit torch before anyone names the most
    abundant treasure in the room out loud, this card no longer counts when determining the
    most abundant treasure." """
    revealed = {0: face("diamond", "chalice"), 1: face("crown", "diamond", torch=True), 2: face("ring", "pearl")}
    # Diamond 2 is the most abundant; with Ignacio's dark room gone every treasure ties at 1.
    outcome = resolve(revealed, slap(2, 1, 300), shout(0, "diamond", 500), chest(1, 700))
    assert verdict(outcome, 0, NAME) == "tied-kind"
    assert (outcome.how, outcome.winner, outcome.counted) == ("chest", 1, (0, 2))
    assert outcome.thefts[0].counted is False
    unslapped = resolve(revealed, shout(0, "diamond", 500), chest(1, 700))
    assert unslapped.winner == 0 and verdict(unslapped, 1, CHEST) == "late"


def test_the_slap_changes_the_most_abundant_treasure() -> None:
    """"this card no longer counts": a slap can turn the answer into a tie."""
    revealed = {0: face("crown", "chalice"), 1: face("crown", "diamond", torch=True), 2: face("chalice", "pearl")}
    # Crown 2, chalice 2: a tie; after the slap crown 1, chalice 2: chalice.
    before = resolve(revealed, shout(0, "chalice", 500), slap(2, 1, 600))
    assert before.how == "nobody" and verdict(before, 0, NAME) == "tied-kind"
    after = resolve(revealed, slap(2, 1, 300), shout(0, "chalice", 500))
    assert after.winner == 0 and after.named == T["chalice"]


def test_slapped_after_the_naming_the_result_will_not_change() -> None:
    """"If the most abundant treasure has already been named, the result will not change even if
    a card with a dark room is drawn, and even if it contains the treasure in question." Ruling
    "Dark rooms": the card is stolen all the same."""
    revealed = {0: face("diamond", "chalice"), 1: face("crown", "diamond", torch=True), 2: face("ring", "pearl")}
    outcome = resolve(revealed, shout(2, "diamond", 400), slap(0, 1, 420))
    assert outcome.winner == 2 and outcome.counts[T["diamond"]] == 2
    assert outcome.thefts[0].thief == 0 and outcome.thefts[0].counted is True


def test_one_hand_on_the_shield_and_the_other_on_the_dark_room() -> None:
    """"If a Dragon shows up on one of the cards, you have to run, but you do have two hands,
    right? [...] placing one hand on the shield and the other one on the dark room card." """
    revealed = {0: face("ring", "diamond", dragon=3), 1: face("gold", "crown", torch=True), 2: face("ring", "pearl")}
    outcome = resolve(revealed, shield(1, 300), slap(1, 1, 310), shield(2, 350), shield(0, 600))
    assert verdict(outcome, 1, SHIELD) == "safe" and verdict(outcome, 1, SLAP) == "stole"
    assert outcome.burns[0].seat == 0


def test_a_dragon_on_a_stolen_dark_room_still_woke_up() -> None:
    """Ruling "Dark rooms": a dragon on a stolen card still woke up."""
    revealed = {0: face("crown", "chalice", dragon=3, torch=True), 1: face("ring", "pearl")}
    outcome = resolve(revealed, slap(1, 0, 200), shield(1, 300), shout(0, "ring", 250), seats=2)
    assert outcome.how == "dragon" and outcome.burns[0].seat == 0 and outcome.burns[0].dragon == 0


def test_a_slap_on_a_card_without_an_unlit_torch_misses() -> None:
    """Ruling "Dark rooms": a slap on a card without an unlit torch misses and costs nothing."""
    revealed = {0: face("diamond", "chalice"), 1: face("crown", "diamond"), 2: face("ring", "pearl")}
    outcome = resolve(revealed, slap(0, 1, 200), shout(0, "diamond", 400))
    assert verdict(outcome, 0, SLAP) == "missed" and not outcome.thefts and outcome.winner == 0


def test_the_first_hand_on_a_dark_room_gets_it() -> None:
    """Ruling "Dark rooms": a later hand on the same card gets nothing."""
    revealed = {0: face("diamond", "chalice", torch=True), 1: face("crown", "diamond")}
    outcome = resolve(revealed, slap(1, 0, 300), slap(0, 0, 500), seats=2)
    assert outcome.thefts[0].thief == 1
    assert verdict(outcome, 0, SLAP) == "beaten"


def test_with_every_card_stolen_there_is_nothing_to_name() -> None:
    """Ruling "Dark rooms": if every card has been stolen, there is nothing left to name."""
    revealed = {0: face("diamond", "chalice", torch=True), 1: face("crown", "diamond", torch=True)}
    outcome = resolve(revealed, slap(0, 0, 200), slap(1, 1, 210), shout(0, "diamond", 400), chest(1, 500), seats=2)
    assert outcome.how == "nobody"
    assert verdict(outcome, 0, NAME) == "empty" and verdict(outcome, 1, CHEST) == "empty"


# ---------------------------------------------------------------- timing


def test_inputs_within_10_ms_are_a_tie_broken_by_the_rounds_draw() -> None:
    """Ruling "Within 10 ms": the round's random seat order breaks the tie; its first seat wins."""
    revealed = {0: face("diamond", "chalice"), 1: face("crown", "diamond"), 2: face("ring", "pearl")}
    race = (shout(0, "diamond", 500), shout(2, "diamond", 500 + TIE_MS))
    assert resolve(revealed, *race, priority=(2, 1, 0)).winner == 2
    assert resolve(revealed, *race, priority=(0, 1, 2)).winner == 0
    outcome = resolve(revealed, *race, priority=(2, 1, 0))
    assert outcome.ties == (("the room", (0, 2), 2),)
    assert verdict(outcome, 0, NAME) == "lost-tie"
    apart = (shout(0, "diamond", 500), shout(2, "diamond", 500 + TIE_MS + 1))
    assert resolve(revealed, *apart, priority=(2, 1, 0)).winner == 0


def test_a_tie_on_the_shield_puts_the_draws_last_seat_on_top() -> None:
    """Ruling "Within 10 ms": on the shield, the round's last seat of the draw is on top."""
    revealed = {0: face("ring", "diamond", dragon=3), 1: face("ring", "pearl"), 2: face("ring", "gold")}
    hands = (shield(0, 300), shield(1, 700), shield(2, 705))
    assert resolve(revealed, *hands, priority=(1, 2, 0)).burns[0].seat == 2
    assert resolve(revealed, *hands, priority=(2, 1, 0)).burns[0].seat == 1


def test_a_tie_on_a_dark_room_goes_to_the_draws_first_seat() -> None:
    """Ruling "Within 10 ms": two hands on one dark room."""
    revealed = {0: face("ring", "pearl", torch=True), 1: face("crown", "gold")}
    hands = (slap(0, 0, 300), slap(1, 0, 305))
    assert resolve(revealed, *hands, priority=(1, 0)).thefts[0].thief == 1
    assert resolve(revealed, *hands, priority=(0, 1)).thefts[0].thief == 0


def test_a_hand_and_a_shout_at_the_same_millisecond_the_hand_landed_first() -> None:
    """Ruling "Within 10 ms": a hand on a card and a shout at the very same millisecond."""
    revealed = {0: face("crown", "chalice"), 1: face("crown", "diamond", torch=True), 2: face("chalice", "pearl")}
    outcome = resolve(revealed, shout(0, "chalice", 500), slap(2, 1, 500))
    assert outcome.winner == 0 and outcome.named == T["chalice"]


def test_the_rounds_draw_is_public_and_from_the_game_rng() -> None:
    """Ruling "Within 10 ms": the draw is shown with the round."""
    state = GAME.setup({}, ["Marta", "Ignacio", "Pablo"], Rng(3))
    play_round(state, {}, seed="draw")
    rec = record(state)
    assert sorted(rec.priority) == [0, 1, 2] and rec.round == 1


# ---------------------------------------------------------------- presses: legal, illegal, sealed


def test_presses_have_a_text_form_and_a_wire_form() -> None:
    action = Presses.of((SLAP, 2, 300), (NAME, T["diamond"], 450))
    assert action.text() == "presses 3 2 300 0 4 450"
    assert GAME.parse_action(action.text()) == action
    assert GAME.parse_action(unpack(pack(action.to_wire()))) == action
    assert GAME.parse_action("presses") == Presses()


@pytest.mark.parametrize(
    "raw",
    ["presses 0 4", "presses 9 0 100", "presses 0 6 100", "presses 1 2 100", "presses 2 1 100", "presses 3 1 -5", "presses a b c", "presses" + " 0 1 100" * 5],
)
def test_malformed_presses_are_invalid(raw: str) -> None:
    with pytest.raises(InvalidAction):
        GAME.parse_action(raw)


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        (Presses.of((NAME, 0, 300), (NAME, 1, 400)), "at most one shout"),
        (Presses.of((SHIELD, 0, 300), (SHIELD, 0, 400)), "one hand on the shield"),
        (Presses.of((NAME, 0, WINDOW_MS + 1)), "too late"),
        (Presses.of((SLAP, 4, 300)), "no card in front of seat 5"),
    ],
)
def test_illegal_presses_name_the_rule_and_change_nothing(action: Presses, rule: str) -> None:
    state = GAME.setup({}, ["Marta", "Ignacio", "Pablo"], Rng(5))
    before = GAME.digest(state)
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(state, 0, action, Rng(1))
    assert rule in raised.value.rule
    assert GAME.digest(state) == before


def test_one_set_of_presses_per_round() -> None:
    state = GAME.setup({}, ["Marta", "Ignacio", "Pablo"], Rng(5))
    GAME.apply(state, 0, Presses(), Rng(1))
    assert GAME.to_act(state) == {1, 2}
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, Presses(), Rng(1))


def test_any_well_formed_presses_are_legal_and_the_representatives_too() -> None:
    state = GAME.setup({}, ["Marta", "Ignacio", "Pablo"], Rng(5))
    for action in GAME.legal_actions(state, 0):
        assert GAME.is_legal(state, 0, action)
    assert GAME.is_legal(state, 0, Presses.of((NAME, 3, 1), (CHEST, 0, 2), (SHIELD, 0, 3), (SLAP, 1, WINDOW_MS)))
    assert {ms for a in GAME.legal_actions(state, 0) for ms in a.codes[2::3]} <= {ms + d for ms in REPRESENTATIVE_MS for d in (0, 60)}


def test_the_random_player_runs_for_the_shield_when_a_dragon_is_out() -> None:
    """With a dragon out, the representatives are the shield and the dark rooms, never a shout."""
    state = table([[face("ring", "diamond", dragon=3)], [face("gold", "crown", torch=True)]])
    kinds = {a.codes[i] for a in GAME.legal_actions(state, 0) for i in range(0, len(a.codes), 3)}
    assert kinds == {SHIELD, SLAP}


def test_presses_are_sealed_until_everyone_has_pressed() -> None:
    """Everyone reacts to the same reveal without seeing anyone else's presses."""
    state = GAME.setup({}, ["Marta", "Ignacio", "Pablo"], Rng(5))
    secret = Presses.of((CHEST, 0, 1234))
    GAME.apply(state, 0, secret, Rng(1))
    assert secret.text() in GAME.view(state, 0).faces.values()
    for viewer in (1, 2, None):
        view = GAME.view(state, viewer)
        assert secret.text() not in view.faces.values()
        assert "1234" not in repr(view.to_wire())
    GAME.apply(state, 1, Presses(), Rng(1))
    GAME.apply(state, 2, Presses(), Rng(1))
    rec = record(state)
    assert any(v.seat == 0 and v.kind == CHEST and v.ms == 1234 for v in rec.outcome.verdicts)


def test_the_last_round_survives_the_wire() -> None:
    state = GAME.setup({}, ["Marta", "Ignacio", "Pablo"], Rng(11))
    for seat in range(3):
        GAME.apply(state, seat, GAME.legal_actions(state, seat)[-1], Rng(seat))
    local = last_round(GAME.view(state, 0).public)
    wired = last_round(unpack(pack(GAME.view(state, 0).to_wire()))["public"])
    assert local == wired and local is not None and local.lines


# ---------------------------------------------------------------- an empty pile, the end


def test_an_empty_pile_reveals_nothing_but_still_races() -> None:
    """Ruling "An empty pile": the player may shout, grab, slap, and must reach the shield."""
    state = table([[face("diamond", "chalice"), face("ring", "diamond", dragon=3)], [], [face("crown", "diamond"), "ring+pearl"]])
    assert not state.cards.zone(table_zone(1)) and GAME.to_act(state) == {0, 1, 2}
    with pytest.raises(IllegalAction, match="no card in front of seat 2"):
        GAME.apply(state, 0, Presses.of((SLAP, 1, 300)), Rng(1))
    play_round(state, {1: [shout(1, "diamond", 300)]})
    assert len(loot(state, 1)) == 2
    play_round(state, {0: [shield(0, 300)], 2: [shield(2, 400)]})
    assert [b.seat for b in record(state).outcome.burns] == [1]
    assert not loot(state, 1), "both of her cards showed a diamond"


def test_the_game_continues_until_all_adventurers_have_run_out_of_cards() -> None:
    """"The game continues until there are no more rooms to explore because all adventurers
    have run out of cards." """
    state = table([["ring+pearl", "gold+diamond"], ["ring+crown", "crown+gold"]])
    play_round(state, {0: [shout(0, "ring", 300)]})
    assert state.phase == "race" and GAME.result(state) is None
    play_round(state, {1: [chest(1, 300)]})
    assert state.phase == "over" and not GAME.to_act(state)
    assert GAME.result(state) is not None


def test_the_player_who_obtained_the_most_treasures_wins() -> None:
    """"The player who obtained the most treasures, regardless of their type, will be the
    winner of the game." """
    state = table([["ring+pearl"], ["ring+crown"]], loots=[["gold+diamond"] * 3, ["ring+pearl/chicken"] * 2])
    play_round(state, {0: [shout(0, "ring", 300)]})
    result = GAME.result(state)
    assert result is not None and result.scores == (5, 2) and result.winners == (0,)


def test_a_tie_goes_to_the_player_with_the_most_chickens() -> None:
    """"If there is a tie, the winner is the player with the most chickens." Ruling "Ties":
    then a shared win."""
    state = table([["ring+pearl"], ["gold+crown"]], loots=[["gold+diamond", "ring+pearl/chicken"], ["ring+pearl/chicken"] * 2])
    play_round(state, {})
    result = GAME.result(state)
    assert result is not None and result.scores == (2, 2)
    assert result.winners == (1,) and result.tiebreak == "most chickens"
    state = table([["ring+pearl"], ["gold+crown"]], loots=[["gold+diamond"], ["ring+pearl"]])
    play_round(state, {})
    result = GAME.result(state)
    assert result is not None and result.winners == (0, 1) and result.tiebreak == "shared win"


def test_every_ruling_is_written_down() -> None:
    topics = {r.topic for r in GAME.rulings}
    assert topics == {
        "Players", "The 109 Treasure cards", "Timed presses", "Easiest to see", "A wrong shout or grab",
        "Within 10 ms", "Cards nobody wins", "Out of reach of the shield", "Chickens", "Dark rooms",
        "An empty pile", "Ties", "Between rounds", "Claims over a network", "Bot levels",
        "At a no-peek table",  # (tested in test_nopeek_races)
    }


def test_the_rulings_state_the_network_bound_and_the_bot_levels_as_the_code_has_them() -> None:
    """Ruling "Claims over a network" and "Bot levels": the figures are the code's own."""
    from netcode.session.host import races
    from xmas_tui.games import dragons_chickens as dc

    assert (dc.NETWORK_JITTER_CAP_MS, dc.NETWORK_FRAME_MS, dc.NETWORK_CLOCK_SLACK_MS, dc.NETWORK_OPEN_MS) == (
        races.JITTER_CAP_MS, races.FRAME_MS, races.CLOCK_SLACK_MS, races.OPEN_MS)
    for level, skill in (("easy", SKILLS["easy"]), ("sensible", SKILLS["normal"]), ("hard", SKILLS["hard"])):
        assert dc.BOT_REACTIONS[level] == (skill.mean_ms - 2 * skill.spread_ms, skill.mean_ms + 2 * skill.spread_ms)
    assert {s.per_card_ms for s in SKILLS.values()} <= {40, 60, 90} and dc.BOT_PER_CARD == "40-90 ms"
    text = " ".join(r.ruling for r in GAME.rulings)
    assert "15 rounds of 100, sensible ones in 7, hard ones in 2" in text
    assert [SKILLS[k].mistakes for k in ("easy", "normal", "hard")] == [15, 7, 2]


# ---------------------------------------------------------------- properties

FACES = sorted(set(all_faces()))


@st.composite
def rounds(draw: st.DrawFn, dragons: bool = True, slaps: bool = True) -> tuple[dict[int, str], list[Input], tuple[int, ...]]:
    """A random room (2-5 seats, some may have no card) and random timed inputs."""
    seats = draw(st.integers(2, 5))
    pool = FACES if dragons else [f for f in FACES if not card(f).dragon]
    revealed = {s: draw(st.sampled_from(pool)) for s in range(seats) if draw(st.integers(0, 5))}
    times = st.integers(0, WINDOW_MS)
    inputs: list[Input] = []
    for seat in range(seats):
        if draw(st.booleans()):
            inputs.append(Input(seat, NAME, draw(st.integers(0, 5)), draw(times)))
        if draw(st.booleans()):
            inputs.append(Input(seat, CHEST, 0, draw(times)))
        if draw(st.booleans()):
            inputs.append(Input(seat, SHIELD, 0, draw(times)))
        if slaps and revealed and draw(st.booleans()):
            inputs.append(Input(seat, SLAP, draw(st.sampled_from(sorted(revealed))), draw(times)))
    priority = tuple(draw(st.permutations(range(seats))))
    return revealed, inputs, priority


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_property_no_card_is_created_or_lost(case) -> None:
    revealed, inputs, priority = case
    outcome = resolve_round(revealed, inputs, priority)
    stolen = [t.owner for t in outcome.thefts]
    assert len(stolen) == len(set(stolen)) and set(stolen) <= set(revealed)
    assert all(card(revealed[s]).torch for s in stolen)
    rest = set(revealed) - set(stolen)
    # Every card goes to exactly one place: its thief, the winner, or the room.
    if outcome.winner is not None:
        assert outcome.how in ("named", "chest")
    assert outcome.winner is None or not any(card(f).dragon for f in revealed.values())
    assert len(stolen) + len(rest) == len(revealed)


@settings(max_examples=300, deadline=None)
@given(rounds(dragons=False, slaps=False))
def test_property_the_winner_is_the_earliest_correct_claim(case) -> None:
    revealed, inputs, priority = case
    # Spread the times so that no two claims are within the tolerance.
    inputs = [i._replace(ms=(TIE_MS + 1) * 2 * n) for n, i in enumerate(reversed(inputs))]
    outcome = resolve_round(revealed, inputs, priority)
    counts = counts_of(revealed.values())
    leaders = most_abundant(counts)
    wrong: set[int] = set()
    expected = None
    for i in sorted(inputs, key=lambda i: i.ms):
        if i.kind not in (NAME, CHEST) or i.seat in wrong or not leaders:
            continue
        tied = len(leaders) > 1
        if (i.kind == CHEST) == tied and (tied or i.target == leaders[0]):
            expected = i
            break
        if (i.kind == CHEST and not tied) or (i.kind == NAME and i.target not in leaders):
            wrong.add(i.seat)
    assert outcome.winner == (expected.seat if expected else None)
    if expected:
        assert outcome.win_ms == expected.ms
        assert outcome.how == ("named" if expected.kind == NAME else "chest")


@settings(max_examples=300, deadline=None)
@given(rounds(dragons=False))
def test_property_an_earlier_slap_takes_the_card_out_of_the_count(case) -> None:
    revealed, inputs, priority = case
    outcome = resolve_round(revealed, inputs, priority)
    if outcome.win_ms is None:
        return
    first_hand = {}
    for i in sorted(inputs, key=lambda i: i.ms):
        if i.kind == SLAP and card(revealed[i.target]).torch:
            first_hand.setdefault(i.target, i.ms)
    expected = tuple(s for s in sorted(revealed) if first_hand.get(s, WINDOW_MS + 1) > outcome.win_ms)
    assert outcome.counted == expected
    assert outcome.counts == counts_of(revealed[s] for s in expected)
    leaders = most_abundant(outcome.counts)
    if outcome.how == "named":
        assert leaders == (outcome.named,)
    else:
        assert len(leaders) > 1
    for t in outcome.thefts:
        assert t.counted == (first_hand[t.owner] > outcome.win_ms)


@settings(max_examples=200, deadline=None)
@given(rounds(), st.randoms(use_true_random=False))
def test_property_the_order_inputs_arrive_in_does_not_matter(case, shuffler) -> None:
    revealed, inputs, priority = case
    first = resolve_round(revealed, inputs, priority)
    again = list(inputs)
    shuffler.shuffle(again)
    assert resolve_round(revealed, again, priority) == first


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_property_the_dragon_burns_the_outsiders_or_the_last_hand(case) -> None:
    revealed, inputs, priority = case
    if not any(card(f).dragon for f in revealed.values()):
        return
    outcome = resolve_round(revealed, inputs, priority)
    assert outcome.how == "dragon" and outcome.winner is None
    hands = {i.seat: i.ms for i in inputs if i.kind == SHIELD}
    outside = [s for s in range(len(priority)) if s not in hands]
    if outside:
        assert [b.seat for b in outcome.burns] == outside
    elif hands:
        (burn,) = outcome.burns
        assert max(hands.values()) - hands[burn.seat] <= TIE_MS
    for burn in outcome.burns:
        size = card(revealed[burn.dragon]).dragon
        assert size == max(card(f).dragon for f in revealed.values())


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 5), data=st.data())
def test_property_a_whole_game_of_arbitrary_presses_conserves_every_card(seed: int, players: int, data) -> None:
    state = GAME.setup({}, [f"P{i}" for i in range(players)], Rng(seed))
    rng = Rng(f"game/{seed}")
    start = state.cards.component_faces()
    times = st.integers(0, WINDOW_MS)
    while GAME.to_act(state):
        for seat in sorted(GAME.to_act(state)):
            if state.phase == "pause":  # ready, or (burned, with a chicken) either offer
                GAME.apply(state, seat, data.draw(st.sampled_from(GAME.legal_actions(state, seat))), rng)
                continue
            revealed = GAME.revealed(state)
            kinds = data.draw(st.lists(st.sampled_from([NAME, CHEST, SHIELD, SLAP]), unique=True, max_size=4))
            inputs = []
            for kind in kinds:
                if kind == NAME:
                    target = data.draw(st.integers(0, 5))
                elif kind == SLAP:
                    target = data.draw(st.sampled_from(sorted(revealed)))
                else:
                    target = 0
                inputs.append((kind, target, data.draw(times)))
            GAME.apply(state, seat, Presses.of(*inputs), rng)
        assert state.cards.component_faces() == start
    zones = state.cards.zones
    assert sum(len(zones[loot_zone(s)]) for s in range(players)) + len(zones[DRAGON]) == 109


# ---------------------------------------------------------------- bots


def smart_view(piles: Sequence[Sequence[str]]) -> tuple[State, object]:
    state = table(piles)
    return state, GAME.view(state, 0)


def test_the_smart_bot_names_the_most_abundant_treasure() -> None:
    careful = Skill(mean_ms=450, spread_ms=90, per_card_ms=40, mistakes=0, slaps=0)
    state, view = smart_view([[face("diamond", "chalice")], [face("crown", "diamond")], [face("ring", "pearl")]])
    action = SmartBot(0, Rng(1), careful).choose(view, GAME.legal_actions(state, 0))
    assert isinstance(action, Presses) and action.codes[:2] == (NAME, T["diamond"])
    state, view = smart_view([[face("crown", "chalice")], [face("chalice", "pearl")], [face("crown", "diamond")]])
    assert SmartBot(0, Rng(1), careful).choose(view, []).codes[:2] == (CHEST, 0)
    state, view = smart_view([[face("crown", "chalice")], [face("ring", "diamond", dragon=3)]])
    assert SmartBot(0, Rng(1), careful).choose(view, []).codes[:2] == (SHIELD, 0)


def test_the_smart_bot_counts_its_own_slap_first() -> None:
    eager = Skill(mean_ms=450, spread_ms=90, per_card_ms=40, mistakes=0, slaps=100)
    # Crown 2 and chalice 2 tie; after its own slap of the dark room, chalice leads.
    state, view = smart_view([[face("crown", "chalice")], [face("crown", "diamond", torch=True)], [face("chalice", "pearl")]])
    action = SmartBot(0, Rng(1), eager).choose(view, [])
    inputs = action.inputs(0)
    assert [i.kind for i in inputs] == [SLAP, NAME] and inputs[1].target == T["chalice"]
    assert inputs[0].ms < inputs[1].ms
    assert GAME.is_legal(state, 0, action)


def test_bot_reaction_times_follow_their_skill() -> None:
    for name, skill in SKILLS.items():
        bot = SmartBot(0, Rng(name), name)
        times = [bot.reaction(skill.mean_ms) for _ in range(400)]
        mean = sum(times) / len(times)
        assert abs(mean - skill.mean_ms) < skill.spread_ms / 4, name
        assert min(times) >= skill.fastest_ms and max(times) <= WINDOW_MS
    assert SKILLS["hard"].mean_ms < SKILLS["normal"].mean_ms < SKILLS["easy"].mean_ms


def duel(bots: Sequence, seed: int) -> tuple[int, ...]:
    """Play one game between bot instances, each fed only its own view."""
    state = GAME.setup({}, [f"P{i}" for i in range(len(bots))], Rng(seed))
    rng = Rng(f"duel/{seed}")
    while GAME.to_act(state):
        for seat in sorted(GAME.to_act(state)):
            bot = bots[seat]
            view = GAME.view(state, seat) if bot.uses_view else None
            GAME.apply(state, seat, bot.choose(view, GAME.legal_actions(state, seat)), rng)
    result = GAME.result(state)
    assert result is not None
    return result.winners


def test_hard_bots_beat_easy_bots_and_smart_bots_beat_random_ones() -> None:
    hard_wins = sum(duel([SmartBot(0, Rng(f"h{g}"), "hard"), SmartBot(1, Rng(f"e{g}"), "easy")], g) == (0,) for g in range(12))
    assert hard_wins >= 9
    smart_wins = sum(duel([SmartBot(0, Rng(f"s{g}")), RandomBot(1, Rng(f"r{g}"))], g) == (0,) for g in range(12))
    assert smart_wins >= 9


def test_smart_bots_play_whole_games() -> None:
    for players in range(2, 6):
        playout = play_game(GAME, players, f"smart/{players}", "smart")
        rounds = 109 // players  # every seat presses once a round, and is ready once between rounds
        pressed = sum(isinstance(a, Presses) for _, a in playout.actions)
        between = len(playout.actions) - pressed  # ready, or a burned player's choice
        assert pressed == players * rounds
        assert between in (players * (rounds - 1), players * rounds), "and after the last, only to feed a dragon"
        assert 0 < sum(playout.result.scores) <= 109
