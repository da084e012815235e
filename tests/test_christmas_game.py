"""The Christmas Game — one test per rule of the rulebook and per ruling.

Every test quotes, in its docstring, the rulebook sentence or the ruling it
checks. Precise situations are built with ``GAME.setup`` and then arranged by
``table()`` below (tokens, money, gifts, whose turn); the dice are scripted
with ``Dice``, which stands in for the ``Rng`` and hands out chosen rolls, and
``on_top()`` puts a chosen card on top of its deck. The board, by square:

     0 START   1 $1    2 Santa    3 $1    4 $5    5 Reindeer  6 $5     7 Scrooge  8 $25   9 $1
    10 JAM    11 $5   12 POST    13 $25  14 $50  15 Santa    16 $1    17 $50    18 Scrooge 19 $100
    20 CLUB   21 $5   22 Reindeer 23 $25 24 $200 25 $1       26 Santa 27 $50    28 $100 29 WRAP
    30 SUPER  31 $5   32 $25     33 Scrooge 34 $200 35 Reindeer 36 $50 37 TAX   38 $100 39 $200
"""

from __future__ import annotations

from collections import Counter
from functools import partial

import pytest

from xmas_tui.games import InvalidAction, Rng
from xmas_tui.games.cards import EVERYONE, NOBODY
from xmas_tui.games.christmas_game import (
    BOARD,
    CARD_ZONE,
    CARDS,
    CLUB,
    DECKS,
    FACES,
    GAME,
    GIFTS,
    JAM,
    ROUND_LIMIT,
    START_MONEY,
    SUPER,
    TAX,
    Buy,
    Decline,
    Pick,
    Return,
    Roll,
    deck_zone,
    discard_zone,
    printed_board,
    printed_cards,
)
from xmas_tui.simulate import play_game, simulate

from .gamekit import act_in, over_whole_games, play_checked_game, refusal, texts
from .rulings import assert_every_ruling_is_tested

NAMES = ("Holly", "Noel", "Ivy", "Jasper", "Carol", "Rudy")
DEALT = {n: START_MONEY * n + 50 for n in range(2, 7)}


# ---------------------------------------------------------------- helpers


class Dice:
    """An Rng whose dice roll the given numbers, in order (shuffles stay random)."""

    def __init__(self, *rolls: int) -> None:
        self.rolls = list(rolls)
        self.rng = Rng("dice")

    def roll(self, sides: int = 6) -> int:
        assert self.rolls, "the test rolled more dice than it scripted"
        return self.rolls.pop(0)

    def __getattr__(self, name: str):
        return getattr(self.rng, name)


def table(
    players: int = 3,
    *,
    turn: int = 0,
    at: dict[int, int] | None = None,
    money: dict[int, int] | None = None,
    gifts: dict[int, tuple[int, ...]] | None = None,
    options: dict | None = None,
    seed: int = 0,
):
    """A table from ``GAME.setup``, at the start of ``turn``'s turn (who also started the round)."""
    state = GAME.setup(options or {}, NAMES[:players], Rng(f"christmas-game-test/{seed}"))
    state.first = state.turn = turn
    for seat, square in (at or {}).items():
        state.position = (*state.position[:seat], square, *state.position[seat + 1 :])
    for seat, amount in (money or {}).items():
        state.bank += state.money[seat] - amount  # the BANK takes or gives the difference
        state.money = (*state.money[:seat], amount, *state.money[seat + 1 :])
    for seat, held in (gifts or {}).items():
        state.gifts = (*state.gifts[:seat], tuple(held), *state.gifts[seat + 1 :])
    return state


def on_top(state, face: str) -> None:
    """Put the card ``face`` on top of its deck, so it is drawn next."""
    cards = state.cards
    zone = deck_zone(CARDS[face].deck)
    handle = next(h for h in cards.zone(zone) if cards.face(h) == face)
    cards.move(handle, zone)


act = partial(act_in, GAME)


def roll(state, seat: int, *dice: int) -> str:
    """Roll these dice for ``seat``; returns the log's text."""
    return texts(act(state, seat, Roll(), Dice(*dice)))


refused = partial(refusal, GAME)


def total(state) -> int:
    return sum(state.money) + state.club + state.bank


def drawn(state) -> str:
    """The face of the card drawn last."""
    return state.cards.face(state.cards.zone(CARD_ZONE)[-1])


# ---------------------------------------------------------------- money and set up


def test_each_player_receives_280_and_christmas_club_50() -> None:
    """Each player receives $280, consisting of 5 $1's, 5 $5's, 5 $10's, and 4 $50's.
    CHRISTMAS CLUB receives a $50 deposit at the beginning of the game."""
    assert START_MONEY == 5 * 1 + 5 * 5 + 5 * 10 + 4 * 50 == 280
    for players in range(2, 7):
        state = GAME.setup({}, NAMES[:players], Rng(players))
        assert state.money == (280,) * players
        assert state.club == 50
        assert state.gifts == ((),) * players
        assert state.position == (0,) * players


def test_each_player_must_purchase_six_gifts() -> None:
    """He must purchase a $1 gift, a $5 gift, a $25 gift, a $50 gift, a $100 gift, and a $200
    gift. The game is over when one person completes his shopping."""
    assert GIFTS == (1, 5, 25, 50, 100, 200)
    state = table(3, at={0: 36}, gifts={0: (1, 5, 25, 100, 200)})
    roll(state, 0, 1, 2)  # to 39: a $200 gift, owned
    assert state.phase != "over" and state.turn == 1
    state = table(3, at={0: 33}, gifts={0: (1, 5, 25, 100, 200)})
    log = roll(state, 0, 1, 2)  # to 36: the $50 gift
    assert state.phase == "shop"
    log = texts(act(state, 0, Buy(50)))
    assert "all six gifts" in log and "Holly wins!" in log
    assert state.phase == "over" and GAME.to_act(state) == frozenset()
    result = GAME.result(state)
    assert result.winners == (0,) and result.scores[0] == 6


def test_players_move_clockwise_in_turn() -> None:
    """Each player selects a token and moves clockwise around the board."""
    state = table(3, turn=1)
    roll(state, 1, 2, 1)
    assert state.position == (0, 3, 0)
    act(state, 1, Decline())
    assert state.turn == 2
    roll(state, 2, 1, 3)
    act(state, 2, Decline())
    assert state.position == (0, 3, 4) and state.turn == 0


def test_gifts_can_be_purchased_only_on_gift_squares() -> None:
    """He can purchase gifts only when he lands on gift squares. These are the squares that
    have 1, 5, 25, 50, 100, and 200 printed on them."""
    gifts = Counter(sq.value for sq in BOARD if sq.kind == "gift")
    assert set(gifts) == set(GIFTS)
    state = table(3)
    assert "can purchase gifts only when he lands on gift squares" in refused(state, 0, Buy(1))
    roll(state, 0, 2, 2)  # to 4: the $5 gift
    assert GAME.legal_actions(state, 0) == [Buy(5), Decline()]
    assert "this square sells the $5 gift" in refused(state, 0, Buy(1))


def test_the_banker_gives_a_gift_receipt_and_the_money_goes_to_the_bank() -> None:
    """Upon purchasing a gift, the banker gives the player a gift receipt showing the value of
    the purchase. ... All money used to buy gifts goes into the BANK."""
    state = table(3)
    roll(state, 0, 3, 5)  # to 8: the $25 gift
    club, bank = state.club, state.bank
    log = texts(act(state, 0, Buy(25)))
    assert state.gifts[0] == (25,)
    assert state.money[0] == 255 and state.bank == bank + 25 and state.club == club
    assert log == "Holly buys a $25 gift: 1 of 6."


def test_landing_on_santa_scrooge_or_reindeer_draws_that_card() -> None:
    """If he lands on Santa, Scrooge, or the Reindeer, he draws the appropriate card."""
    for square, deck in ((2, "santa"), (7, "scrooge"), (5, "reindeer")):
        state = table(3, at={0: (square - 3) % 40})
        size = len(state.cards.zone(deck_zone(deck)))
        log = roll(state, 0, 1, 2)
        assert len(state.cards.zone(deck_zone(deck))) == size - 1
        assert CARDS[drawn(state)].deck == deck
        assert f"draws a {deck.capitalize()} card" in log


def test_the_decks_are_face_down_and_a_drawn_card_is_public() -> None:
    """If he lands on Santa, Scrooge, or the Reindeer, he draws the appropriate card.
    (The decks are face down; the card drawn is read out to everyone.)"""
    state = table(3)
    for viewer in (0, 1, 2, None):
        view = GAME.view(state, viewer)
        for deck in DECKS:
            assert len(view.zone(deck_zone(deck))) == 12
            assert not set(view.zone(deck_zone(deck))) & set(view.faces)
    on_top(state, "santa-01")
    roll(state, 0, 1, 1)  # to Santa
    for viewer in (0, 1, 2, None):
        assert GAME.view(state, viewer).faces_in(CARD_ZONE) == ["santa-01"]


def test_payments_other_than_gifts_go_to_christmas_club_unless_the_card_says_otherwise() -> None:
    """All payments by players for anything other than gifts go into CHRISTMAS CLUB, unless the
    card instructs otherwise."""
    state = table(3, at={0: 5})
    on_top(state, "scrooge-01")  # pay $20 to CHRISTMAS CLUB
    roll(state, 0, 1, 1)
    assert state.money[0] == 260 and state.club == 70
    state = table(3, at={0: 5})
    on_top(state, "scrooge-02")  # pay $30 to the BANK
    bank = state.bank
    roll(state, 0, 1, 1)
    assert state.money[0] == 250 and state.club == 50 and state.bank == bank + 30


def test_no_player_ever_leaves_the_game_and_unmet_obligations_are_forgiven() -> None:
    """In the Christmas spirit, no player ever leaves the game, even if he has no money to meet
    an obligation. ... No amount is due either the BANK or other players for obligations he
    couldn't meet while bankrupt.

    Ruling "Paying when short": Whoever cannot pay in full pays all they have and is bankrupt
    for the rest, which is forgiven at once and never owed later. A card that pays every
    player is paid to them in turn from your left until your money runs out."""
    state = table(3, at={0: 4}, money={0: 3})
    on_top(state, "scrooge-01")  # pay $20
    log = roll(state, 0, 1, 2)
    assert state.money[0] == 0 and state.club == 53
    assert "Holly is bankrupt: pays $3 of $20, and the rest is forgiven." in log
    assert state.turn == 1  # Holly plays on
    state = table(4, turn=1, at={1: 4}, money={1: 7})
    on_top(state, "scrooge-06")  # pay each player $5
    roll(state, 1, 1, 2)
    assert state.money == (280, 0, 285, 282)  # Ivy (left of Noel) first, then Jasper, then Holly
    # Later money is never taken for the old debt.
    state = table(3, at={0: 38}, money={0: 0})
    roll(state, 0, 1, 2)  # passes START: +$50
    assert state.money[0] == 50


def test_a_bankrupt_player_plays_on_and_buys_again_once_he_has_money() -> None:
    """A bankrupt player continues to play, and can begin purchasing gifts the instant he once
    again has money.

    Ruling "A bankrupt player": A bankrupt player takes their turns as usual, draws cards,
    collects money, keeps every gift, and may buy again as soon as they have the whole price.
    Gift receipts are never sold, traded or lent."""
    state = table(3, at={0: 38}, money={0: 0}, gifts={0: (100, 200)})
    log = roll(state, 0, 1, 2)  # passes START (+$50), lands on 1: the $1 gift
    assert "passes START and collects $50" in log
    assert state.phase == "shop" and GAME.legal_actions(state, 0) == [Buy(1), Decline()]
    act(state, 0, Buy(1))
    assert state.gifts[0] == (100, 200, 1) and state.money[0] == 49
    # Not enough for the whole price: no offer, and a Buy is refused.
    state = table(3, at={0: 35}, money={0: 40}, gifts={0: (1,)})
    log = roll(state, 0, 1, 2)  # to 38: the $100 gift
    assert "lands on a $100 gift square but has only $40" in log
    assert state.turn == 1


def test_a_bankrupt_player_keeps_his_gifts_and_receipts_have_no_cash_value() -> None:
    """A bankrupt player keeps all the gifts he had previously purchased. He is not forced to
    sell them to the BANK or to give them to an individual to whom he owes money. Gift receipts
    have no cash or loan value. They cannot be traded to the BANK or to another player for
    cash."""
    state = table(3, at={0: 5}, money={0: 0}, gifts={0: (1, 5, 25)})
    on_top(state, "scrooge-06")  # pay each player $5
    roll(state, 0, 1, 1)
    assert state.gifts[0] == (1, 5, 25) and state.money == (0, 280, 280)
    assert {cls.kind for cls in GAME.actions} == {"roll", "buy", "decline", "return", "pick"}


def test_a_player_may_not_buy_a_second_gift_of_a_value_he_owns() -> None:
    """Once a player owns a gift of a particular value, he is prohibited from purchasing
    another of the same value."""
    state = table(3, gifts={0: (5,)})
    log = roll(state, 0, 1, 3)  # to 4: the $5 gift
    assert "already owns a $5 gift" in log
    assert state.turn == 1
    state = table(3, at={0: 39}, gifts={0: (5, 25)})
    on_top(state, "santa-06")  # Early bird sale
    roll(state, 0, 1, 2)  # to 2: Santa
    assert state.phase == "shop"
    assert Buy(5) not in GAME.legal_actions(state, 0) and Buy(1) in GAME.legal_actions(state, 0)
    assert "prohibited from purchasing another of the same value" in refused(state, 0, Buy(5))


def test_cards_may_give_two_gifts_of_the_same_price() -> None:
    """He may, however, wind up with two or more gifts of the same price as a result of
    instructions or opportunities on cards drawn."""
    state = table(3, at={0: 0}, gifts={0: (5,)})
    on_top(state, "santa-04")  # a $5 gift receipt
    log = roll(state, 0, 1, 1)
    assert state.gifts[0] == (5, 5)
    assert "takes a $5 gift receipt (a second one): 1 of 6 gifts" in log


def test_gift_squares_belong_to_everybody() -> None:
    """Gift squares belong to everybody. If a player purchases a specific gift, a player later
    landing on the exact same square can also purchase that gift."""
    state = table(3, at={0: 6, 1: 6})
    roll(state, 0, 1, 1)  # to 8: the $25 gift
    act(state, 0, Buy(25))
    roll(state, 0, 1, 2)  # doubles earned another roll: to 11
    act(state, 0, Decline())
    roll(state, 1, 1, 1)
    assert GAME.legal_actions(state, 1) == [Buy(25), Decline()]
    act(state, 1, Buy(25))
    assert state.gifts[0] == (25,) and state.gifts[1] == (25,)


def test_players_may_not_trade_gifts_except_as_cards_require() -> None:
    """Players are prohibited from trading cards or gifts among themselves, except as required
    by instructions on cards drawn."""
    state = table(3, gifts={0: (1, 5)})
    rule = refused(state, 0, Return(5))
    assert "prohibited from trading cards or gifts" in rule
    assert "No card asks you to choose a player" in refused(state, 0, Pick(1))


# ---------------------------------------------------------------- special squares


def test_a_2_or_12_on_super_shopper_wins_at_once() -> None:
    """Super Shopper. A 2 or 12 rolled immediately upon landing on SUPER SHOPPER produces an
    instant winner, regardless of how little money or few gifts the player has at the time of
    his roll."""
    for dice in ((1, 1), (6, 6)):
        state = table(3, at={0: 27}, money={0: 0})
        log = roll(state, 0, 1, 2)  # to 30
        assert state.position[0] == SUPER and state.phase == "super" and state.turn == 0
        assert "roll a 2 or 12 to win" in log
        log = roll(state, 0, *dice)
        assert state.phase == "over" and GAME.result(state).winners == (0,)
        assert "SUPER SHOPPER! Holly wins at once!" in log
        assert GAME.result(state).scores[0] == 0
    state = table(3, at={0: 27})
    roll(state, 0, 1, 2)
    log = roll(state, 0, 1, 2)
    assert "no luck" in log and state.phase == "roll" and state.turn == 1


def test_a_double_on_the_super_shopper_roll_gives_no_extra_turn() -> None:
    """Rolling a double on this special roll does not entitle player to an extra turn."""
    state = table(3, at={0: 27})
    roll(state, 0, 1, 2)
    roll(state, 0, 3, 3)
    assert state.turn == 1 and state.doubles == 0


def test_traffic_jam_waits_for_the_next_turn_then_needs_a_seven_or_doubles() -> None:
    """Traffic Jam. A player must wait for his next turn before trying to maneuver out of
    traffic. He needs a seven or doubles to advance. He must stay in TRAFFIC JAM until he gets
    these, regardless of how long it takes."""
    state = table(2, at={0: 6})
    log = roll(state, 0, 2, 2)  # doubles, to 10: TRAFFIC JAM
    assert state.position[0] == JAM and state.jammed[0] == 0
    assert "stuck in TRAFFIC JAM" in log and state.turn == 1
    roll(state, 1, 1, 2)
    act(state, 1, Decline())
    for attempt in range(1, 6):
        assert state.phase == "jam" and state.turn == 0
        log = roll(state, 0, 1, 3)
        assert "still stuck" in log and state.position[0] == JAM and state.jammed[0] == attempt
        assert state.turn == 1
        state.turn, state.phase = 0, "jam"  # Noel's turn passes
    log = roll(state, 0, 3, 4)  # a seven
    assert "a seven, out of TRAFFIC JAM" in log
    assert state.position[0] == 17 and state.jammed[0] == -1


def test_players_15_and_under_advance_on_their_second_roll() -> None:
    """However, players 15 and under, because they are more likely to be riding bicycles, may
    automatically advance on their SECOND roll if their first roll was unsuccessful.

    Ruling "Ages and TRAFFIC JAM": Nobody's age can be asked over a network, so everyone is
    treated as over 15 unless the table option "young" lists the seats of players 15 and
    under (seats count from 1). Such a player's second roll in TRAFFIC JAM always moves them out, by its total."""
    state = GAME.setup({}, NAMES[:2], Rng(1))
    assert state.young == ()
    with pytest.raises(ValueError):
        GAME.setup({"young": [3]}, NAMES[:2], Rng(1))
    with pytest.raises(ValueError):
        GAME.setup({"young": [0]}, NAMES[:2], Rng(1))  # seats count from 1
    assert GAME.setup({"young": [2]}, NAMES[:2], Rng(1)).young == (1,)
    for young in (True, False):
        state = table(2, at={0: JAM}, options={"young": [1] if young else []})
        state.jammed = (0, -1)
        state.phase = "jam"
        log = roll(state, 0, 1, 3)
        assert "still stuck" in log
        state.turn, state.phase = 0, "jam"  # Noel's turn passes
        log = roll(state, 0, 1, 4)
        if young:
            assert "a second roll, on a bicycle, out of TRAFFIC JAM" in log
            assert state.position[0] == JAM + 5
        else:
            assert state.position[0] == JAM and state.jammed[0] == 2


def test_reindeer_roll_after_reading_the_card() -> None:
    """Reindeer. Roll the dice after reading your REINDEER card to see if you're lucky or
    unlucky."""
    for dice, money in (((4, 5), 295), ((1, 2), 275)):
        state = table(3, at={0: 3})
        on_top(state, "reindeer-01")  # Dasher: 7 or more, collect $15; else pay $5
        log = roll(state, 0, 1, 1)
        assert "Dasher" in log and state.phase == "reindeer" and state.turn == 0
        assert GAME.legal_actions(state, 0) == [Roll()]
        log = roll(state, 0, *dice)
        assert state.money[0] == money
        assert ("lucky! Collect $15" in log) if money > 280 else ("unlucky! Pay $5 to CHRISTMAS CLUB" in log)


def test_a_reindeer_double_gives_no_extra_turn_but_a_double_that_led_there_does() -> None:
    """A double on this roll does not produce an extra turn. But roll again if a double landed
    you or sent you to REINDEER in the first place."""
    state = table(3, at={0: 2})
    on_top(state, "reindeer-01")
    roll(state, 0, 1, 2)  # not a double, to 5
    roll(state, 0, 3, 3)  # a Reindeer double
    assert state.turn == 1
    state = table(3, at={0: 3})
    on_top(state, "reindeer-01")
    roll(state, 0, 1, 1)  # a double, to 5
    log = roll(state, 0, 1, 2)
    assert state.turn == 0 and state.phase == "roll" and "Holly rolls again" in log


def test_christmas_club_pays_out_and_is_replenished_from_the_bank() -> None:
    """If a player lands on or is sent to CHRISTMAS CLUB, he claims all the money deposited
    there. Replenish CHRISTMAS CLUB with $50 from the BANK after each withdrawal."""
    state = table(3, at={0: 17})
    state.club, state.bank = 85, state.bank - 35
    bank = state.bank
    log = roll(state, 0, 1, 2)  # to 20
    assert state.position[0] == CLUB and state.money[0] == 280 + 85
    assert state.club == 50 and state.bank == bank - 50
    assert "claims CHRISTMAS CLUB: $85! The BANK puts $50 back." in log
    state = table(3, at={0: 13})
    on_top(state, "santa-11")  # Advance to CHRISTMAS CLUB
    roll(state, 0, 1, 1)
    assert state.position[0] == CLUB and state.money[0] == 330 and state.club == 50


def test_collect_50_on_landing_on_or_passing_start_and_no_more() -> None:
    """Collect $50 each time you land on or pass START. There is no bonus for landing directly
    on the START square."""
    state = table(3, at={0: 37})
    log = roll(state, 0, 1, 2)  # to 0
    assert state.position[0] == 0 and state.money[0] == 330
    assert "Holly lands on START and collects $50." in log
    state = table(3, at={0: 37})
    log = roll(state, 0, 2, 4)  # to 3
    assert state.money[0] == 330 and "passes START" in log


def test_sales_tax_takes_half_rounded_down_to_the_bank() -> None:
    """Sales Tax. Lose one-half your money to the BANK. If player has an amount of money not
    evenly divisible by two, drop the fractions. Thus, a player with $5 would pay $2 to the
    BANK."""
    state = table(3, at={0: 33}, money={0: 5})
    bank = state.bank
    log = roll(state, 0, 1, 3)  # to 37
    assert state.position[0] == TAX and state.money[0] == 3 and state.bank == bank + 2
    assert "pays SALES TAX: half their money, $2, to the BANK" in log


# ---------------------------------------------------------------- doubles


def test_doubles_give_an_extra_turn() -> None:
    """Doubles usually entitle you to an extra turn, but be careful."""
    state = table(3)
    log = roll(state, 0, 2, 2)  # to 4: $5 gift
    act(state, 0, Buy(5))
    assert state.turn == 0 and state.phase == "roll" and state.doubles == 1
    roll(state, 0, 2, 3)  # to 9: $1 gift
    act(state, 0, Decline())
    assert state.turn == 1
    assert "rolls 2 and 2 (doubles)" in log


def test_three_doubles_in_a_row_go_to_sales_tax_without_passing_start() -> None:
    """Advance to SALES TAX without passing START if you roll three doubles in a row.

    Ruling "Three doubles": The third double in a row does not move you by the dice: you
    advance straight to SALES TAX, collect nothing at START, pay the tax, and your turn ends."""
    state = table(3, at={0: 0})
    roll(state, 0, 2, 2)  # 4: $5
    act(state, 0, Decline())
    roll(state, 0, 1, 1)  # 6: $5
    act(state, 0, Decline())
    assert state.doubles == 2 and state.turn == 0
    money = state.money[0]
    log = roll(state, 0, 5, 5)
    assert "three doubles in a row" in log
    assert state.position[0] == TAX and state.money[0] == money - money // 2
    assert "START" not in log.split("three doubles")[1].replace("without passing START", "")
    assert state.turn == 1 and state.doubles == 0


def test_doubles_landing_on_post_office_gift_wrap_or_traffic_jam_give_no_extra_roll() -> None:
    """Doubles do not entitle you to an extra roll when they result in your landing on or being
    sent to POST OFFICE, GIFT WRAP, or TRAFFIC JAM."""
    for start, square in ((10, "post"), (27, "wrap"), (8, "jam")):
        state = table(3, at={0: start})
        roll(state, 0, 1, 1)
        assert BOARD[state.position[0]].kind == square
        assert state.turn == 1, square
    for face, square in (("scrooge-07", "post"), ("scrooge-11", "wrap"), ("scrooge-03", "jam")):
        state = table(3, at={0: 5})
        on_top(state, face)
        roll(state, 0, 1, 1)  # a double, to 7: Scrooge sends you
        assert BOARD[state.position[0]].kind == square and state.turn == 1, face


def test_reindeer_and_super_shopper_doubles_do_not_count_towards_three() -> None:
    """Rolling of doubles as part of a REINDEER card or as a result of a SUPER SHOPPER roll do
    not entitle you to an extra roll. Nor does such a double count as one of three straight
    doubles that would send you to SALES TAX."""
    state = table(3, at={0: 1})
    on_top(state, "reindeer-01")
    roll(state, 0, 2, 2)  # double 1: to 5, Reindeer
    roll(state, 0, 6, 6)  # a Reindeer double: not counted
    assert state.doubles == 1 and state.turn == 0
    roll(state, 0, 3, 3)  # double 2: to 11, $5 gift
    act(state, 0, Decline())
    assert state.doubles == 2 and state.turn == 0 and state.position[0] == 11
    state = table(3, at={0: 26})
    roll(state, 0, 2, 2)  # double 1: to 30, SUPER SHOPPER
    roll(state, 0, 2, 2)  # a SUPER SHOPPER double: no win, not counted
    assert state.doubles == 1 and state.turn == 0 and state.phase == "roll"


def test_only_a_double_before_the_reindeer_or_super_shopper_roll_gives_another_roll() -> None:
    """Only if the roll prior to the REINDEER or SUPER SHOPPER roll was a double would the first
    player roll again."""
    state = table(3, at={0: 27})
    roll(state, 0, 1, 2)  # not a double, to 30
    roll(state, 0, 3, 4)
    assert state.turn == 1
    state = table(3, at={0: 26})
    roll(state, 0, 2, 2)  # a double, to 30
    log = roll(state, 0, 3, 4)
    assert state.turn == 0 and "Holly rolls again" in log


# ---------------------------------------------------------------- winning


def test_the_first_player_to_complete_his_shopping_wins() -> None:
    """The player first completing his shopping is the winner."""
    state = table(3, turn=1, at={1: 34}, gifts={0: (1, 5, 25, 50, 100), 1: (1, 5, 25, 50, 100)})
    roll(state, 1, 2, 3)  # to 39: $200
    act(state, 1, Buy(200))
    result = GAME.result(state)
    assert result.winners == (1,) and result.scores == (5, 6, 0)
    assert result.details[1] == "$1 $5 $25 $50 $100 $200 · $80"


# ---------------------------------------------------------------- rulings


def test_the_printed_board_and_cards() -> None:
    """Ruling "The board and the cards": The rulebook prints neither, so ours are printed above:
    40 squares clockwise from START (24 gift squares, more cheap than dear; three each of
    Santa, Scrooge and Reindeer; one of each special square) and three decks of 12 cards. A
    deck that runs out is made again by shuffling its discards."""
    kinds = Counter(sq.kind for sq in BOARD)
    assert len(BOARD) == 40 and BOARD[0].kind == "start"
    assert kinds["gift"] == 24 and kinds["santa"] == kinds["scrooge"] == kinds["reindeer"] == 3
    assert all(kinds[k] == 1 for k in ("start", "club", "tax", "super", "jam", "post", "wrap"))
    values = Counter(sq.value for sq in BOARD if sq.kind == "gift")
    assert [values[v] for v in GIFTS] == sorted((values[v] for v in GIFTS), reverse=True)
    assert values[1] > values[200]
    decks = Counter(card.deck for card in CARDS.values())
    assert decks == {"santa": 12, "scrooge": 12, "reindeer": 12}
    text = GAME.describe_rules()
    assert printed_board() in text and printed_cards() in text
    assert all(card.title in text for card in CARDS.values())
    # Santa is mostly kind, Scrooge mostly costly.
    kind = {"collect", "receipt", "shop", "pick", "collect-each", "advance"}
    assert sum(c.effect[0] in kind for c in CARDS.values() if c.deck == "santa") >= 10
    assert sum(c.effect[0] not in kind for c in CARDS.values() if c.deck == "scrooge") >= 10
    # A deck runs out: its discards become a new deck.
    state = table(3)
    for _ in range(12):
        state.position, state.turn, state.phase = (0, 0, 0), 0, "roll"
        act(state, 0, Roll(), Dice(2, 3))  # to 5: Reindeer
        act(state, 0, Roll(), Dice(1, 2))
    assert state.cards.zone(deck_zone("reindeer")) == []
    state.position, state.turn, state.phase = (0, 0, 0), 0, "roll"
    log = roll(state, 0, 2, 3)
    assert "The Reindeer cards ran out: their discards are shuffled into a new deck." in log
    assert len(state.cards.zone(deck_zone("reindeer"))) == 11
    assert sorted(state.cards.component_faces()) == sorted(FACES)


def test_the_starting_player_is_drawn_at_random() -> None:
    """Ruling "Who starts": The starting player is drawn at random when the game is set up, and
    play goes clockwise (seat order)."""
    firsts = Counter()
    for seed in range(60):
        state = GAME.setup({}, NAMES[:4], Rng(f"first/{seed}"))
        assert state.turn == state.first and GAME.to_act(state) == {state.first}
        firsts[state.first] += 1
    assert set(firsts) == {0, 1, 2, 3}


def test_buying_is_optional() -> None:
    """Ruling "Buying is optional": On a gift square you may buy its gift or decline. You may
    buy only with enough money for the whole price; a gift you already own (by purchase or
    from a card) is not offered again."""
    state = table(3)
    roll(state, 0, 3, 5)  # to 8: $25
    log = texts(act(state, 0, Decline()))
    assert "Holly declines the $25 gift." in log
    assert state.gifts[0] == () and state.money[0] == 280 and state.turn == 1
    state = table(3, at={0: 33}, money={0: 49})
    roll(state, 0, 1, 2)  # to 36: $50, one short
    assert state.turn == 1 and state.gifts[0] == ()
    state = table(3, at={0: 33}, gifts={0: (50,)})
    roll(state, 0, 1, 2)
    assert state.turn == 1


def test_leaving_traffic_jam_with_doubles_gives_another_roll() -> None:
    """Ruling "Leaving TRAFFIC JAM": Landing on or being sent to TRAFFIC JAM ends your turn. On
    each later turn you roll once: a 7 or doubles moves you out by that roll, and doubles then
    give another roll as usual (the rulebook's exceptions do not include leaving); any other
    roll ends your turn where you are."""
    state = table(3, at={0: JAM})
    state.jammed, state.phase = (0, -1, -1), "jam"
    log = roll(state, 0, 2, 2)  # doubles: out, to 14 ($50)
    assert "doubles, out of TRAFFIC JAM" in log and state.position[0] == 14
    act(state, 0, Decline())
    assert state.turn == 0 and state.phase == "roll" and state.doubles == 1
    state = table(3, at={0: JAM})
    state.jammed, state.phase = (0, -1, -1), "jam"
    roll(state, 0, 5, 3)
    assert state.turn == 1 and state.position[0] == JAM


def test_post_office_and_gift_wrap() -> None:
    """Ruling "POST OFFICE and GIFT WRAP": POST OFFICE: pay $5 postage to CHRISTMAS CLUB. GIFT
    WRAP: pay $2 to CHRISTMAS CLUB for each gift receipt you hold. Either way a double that
    brought you there gives no other roll."""
    state = table(3, at={0: 9})
    log = roll(state, 0, 1, 2)  # to 12
    assert state.money[0] == 275 and state.club == 55 and state.turn == 1
    assert "mails Christmas cards at the POST OFFICE: $5 postage to CHRISTMAS CLUB" in log
    state = table(3, at={0: 27}, gifts={0: (1, 5, 5, 25)})
    log = roll(state, 0, 1, 1)  # to 29
    assert state.money[0] == 272 and state.club == 58 and state.turn == 1
    assert "wraps 4 gifts at GIFT WRAP: $8 to CHRISTMAS CLUB" in log


def test_three_doubles_collect_nothing_at_start() -> None:
    """Ruling "Three doubles": The third double in a row does not move you by the dice: you
    advance straight to SALES TAX, collect nothing at START, pay the tax, and your turn ends."""
    state = table(3, at={0: 38}, money={0: 100})
    state.doubles = 2
    log = roll(state, 0, 4, 4)  # by the dice, to 6 past START; instead to 37
    assert state.position[0] == TAX and state.money[0] == 50 and "collects" not in log
    assert state.turn == 1


def test_moving_by_cards() -> None:
    """Ruling "Moving by cards": "Advance" moves you clockwise and collects $50 if you pass
    START; "go to" sends you straight there without passing START; "go back" never collects.
    Wherever a card puts you, you do what that square says, as if you had landed there (SUPER
    SHOPPER included)."""
    state = table(3, at={0: 24})
    on_top(state, "santa-03")  # advance to START
    log = roll(state, 0, 1, 1)  # to 26: Santa
    assert state.position[0] == 0 and state.money[0] == 330 and "lands on START and collects $50" in log
    state = table(3, at={0: 31})
    on_top(state, "scrooge-10")  # go to SALES TAX
    roll(state, 0, 1, 1)  # to 33: Scrooge
    assert state.position[0] == TAX and state.money[0] == 140
    state = table(3, at={0: 24})
    on_top(state, "santa-10")  # advance to the next $25 gift: 32
    roll(state, 0, 1, 1)
    assert state.position[0] == 32 and state.phase == "shop"
    state = table(3, at={0: 24})
    on_top(state, "santa-08")  # advance to SUPER SHOPPER
    roll(state, 0, 1, 1)
    assert state.position[0] == SUPER and state.phase == "super"
    state = table(3, at={0: 16})
    on_top(state, "scrooge-04")  # go back 3: from 18 to 15, Santa
    on_top(state, "santa-01")
    log = roll(state, 0, 1, 1)
    assert state.position[0] == 15 and state.money[0] == 300 and "A full stocking" in log
    state = table(3, at={0: 5})
    on_top(state, "scrooge-03")  # go to TRAFFIC JAM, from 7
    roll(state, 0, 1, 1)
    assert state.position[0] == JAM and state.jammed[0] == 0 and state.money[0] == 280


def test_receipts_from_cards_count_and_can_be_taken_back() -> None:
    """Ruling "Receipts from cards": A gift receipt from a card counts towards your shopping like
    a bought one, so a card can complete your shopping and win the game; a second receipt of a
    price you own is kept but adds nothing. Scrooge's "Too extravagant" takes back the receipt
    you choose; with none, it does nothing."""
    state = table(3, at={0: 0}, gifts={0: (5, 25, 50, 100, 200)})
    on_top(state, "santa-05")  # a $1 gift receipt
    log = roll(state, 0, 1, 1)
    assert state.phase == "over" and GAME.result(state).winners == (0,) and "all six gifts" in log
    state = table(3, at={0: 5}, gifts={0: (1, 5, 5, 100)})
    on_top(state, "scrooge-05")
    roll(state, 0, 1, 1)
    assert state.phase == "return" and GAME.legal_actions(state, 0) == [Return(1), Return(5), Return(100)]
    assert "You hold no $25 gift receipt" in refused(state, 0, Return(25))
    log = texts(act(state, 0, Return(5)))
    assert state.gifts[0] == (1, 5, 100) and "returns a $5 gift receipt to the BANK: 3 of 6 gifts" in log
    state = table(3, at={0: 4})
    on_top(state, "scrooge-05")
    log = roll(state, 0, 1, 2)
    assert "has no gift to take back" in log and state.turn == 1


def test_card_choices_are_actions() -> None:
    """(Player decisions are actions: the Early bird sale and Secret Santa offer choices.)
    Players are prohibited from trading cards or gifts among themselves, except as required by
    instructions on cards drawn."""
    state = table(3, money={0: 60})
    on_top(state, "santa-06")  # Early bird sale
    roll(state, 0, 1, 1)
    assert GAME.legal_actions(state, 0) == [Buy(1), Buy(5), Buy(25), Buy(50), Decline()]
    assert "costs $100 and you have $60" in refused(state, 0, Buy(100))
    act(state, 0, Buy(50))
    assert state.gifts[0] == (50,) and state.money[0] == 10
    state = table(3, at={0: 13})
    on_top(state, "santa-07")  # Secret Santa
    roll(state, 0, 1, 1)
    assert GAME.legal_actions(state, 0) == [Pick(1), Pick(2)]
    assert "not yourself" in refused(state, 0, Pick(0))
    log = texts(act(state, 0, Pick(2)))
    assert state.money == (290, 280, 290)
    assert "Holly chooses Ivy: each collects $10 from the BANK." in log


def test_only_a_game_that_never_ends_stops_at_the_safety_limit() -> None:
    """Winning: The player first completing his shopping is the winner.

    Ruling "A game that never ends": The game ends when someone completes their shopping, or
    wins on SUPER SHOPPER, however long it takes. Only so that a program's game cannot go on
    forever (players who never buy, say), a game still going after round 1,000 stops there:
    the most different gifts wins, then the most money, then the tied players share the win.
    No real game comes near: the longest of 50,000 bot games took 118 rounds."""
    assert ROUND_LIMIT == 1_000
    # Round 40 (where the game once stopped) ends like any other round: play goes on.
    state = table(2, turn=0, money={0: 100, 1: 100}, gifts={0: (1,), 1: (1,)})
    state.round = 40
    roll(state, 0, 1, 2)
    roll(state, 1, 1, 2)
    assert state.phase == "roll" and state.round == 41 and GAME.result(state) is None
    state = table(3, turn=1, gifts={0: (1, 5, 5), 1: (1, 5), 2: (1, 25)}, money={0: 100, 1: 100, 2: 120})
    state.round = ROUND_LIMIT
    for seat in (1, 2):
        roll(state, seat, 1, 2)  # to 3: the $1 gift, owned
    assert state.phase == "roll" and state.turn == 0
    log = roll(state, 0, 1, 2)
    assert state.phase == "over" and "Round 1,000 is over" in log
    result = GAME.result(state)
    assert result.scores == (2, 2, 2) and result.winners == (2,) and result.tiebreak == "more money"
    state = table(2, turn=0, money={0: 100, 1: 100}, gifts={0: (1,), 1: (1,)})
    state.round = ROUND_LIMIT
    roll(state, 0, 1, 2)
    roll(state, 1, 1, 2)
    assert GAME.result(state).winners == (0, 1) and GAME.result(state).tiebreak == "shared win"


def test_no_bot_game_comes_near_the_safety_limit() -> None:
    """The game is over when one person completes his shopping. (Measured: games of smart
    and random bots, 2 to 6 players, all end by the rulebook's own means, far inside the
    safety limit of the ruling "A game that never ends".)"""
    for bot in ("random", "smart"):
        for players in range(GAME.min_players, GAME.max_players + 1):
            figures = simulate(GAME, 60, players, 7, bot)
            assert figures["most_rounds"] < ROUND_LIMIT // 5, figures
            assert figures["longest_actions"] < GAME.max_actions // 20, figures
    for seed in range(40):
        state = play_game(GAME, 2, f"ends/{seed}", "random").state
        assert state.ending in ("shopping", "super") and state.round < ROUND_LIMIT


# ---------------------------------------------------------------- errors


def test_illegal_actions_name_the_rule_and_change_nothing() -> None:
    """An illegal action raises naming the rule it breaks and changes nothing."""
    state = table(3)
    assert refused(state, 1, Roll()) == "It is not your turn."
    assert "nothing to decline" in refused(state, 0, Decline())
    roll(state, 0, 3, 5)
    assert "Not now: buy the gift on offer" in refused(state, 0, Roll())
    assert "There is no $7 gift" in refused(state, 0, Buy(7))


def test_malformed_actions_are_invalid() -> None:
    """A malformed action is a different error from an illegal one."""
    for raw in ["buy", "buy lots", "pick", "fly", ""]:
        with pytest.raises(InvalidAction):
            GAME.parse_action(raw)
    assert GAME.parse_action("buy 25") == Buy(25)
    assert Pick(2).text() == "pick 2" and Roll().to_wire() == ["roll"]


# ---------------------------------------------------------------- every ruling is tested

RULING_TESTS = {
    "The board and the cards": test_the_printed_board_and_cards,
    "Who starts": test_the_starting_player_is_drawn_at_random,
    "Buying is optional": test_buying_is_optional,
    "Ages and TRAFFIC JAM": test_players_15_and_under_advance_on_their_second_roll,
    "Leaving TRAFFIC JAM": test_leaving_traffic_jam_with_doubles_gives_another_roll,
    "POST OFFICE and GIFT WRAP": test_post_office_and_gift_wrap,
    "Three doubles": test_three_doubles_collect_nothing_at_start,
    "Moving by cards": test_moving_by_cards,
    "Paying when short": test_no_player_ever_leaves_the_game_and_unmet_obligations_are_forgiven,
    "A bankrupt player": test_a_bankrupt_player_plays_on_and_buys_again_once_he_has_money,
    "Receipts from cards": test_receipts_from_cards_count_and_can_be_taken_back,
    "A game that never ends": test_only_a_game_that_never_ends_stops_at_the_safety_limit,
}


def test_every_ruling_has_its_test() -> None:
    """Every ruling in ``ChristmasGame.rulings`` is checked by a test that quotes it."""
    from .test_personal_cards import (
        test_the_partys_own_cards_are_shuffled_into_their_decks as personal,
    )

    assert_every_ruling_is_tested(GAME, {**RULING_TESTS, "Personalizing cards": personal})


# ---------------------------------------------------------------- properties over whole games


def check_table(game, state, seat=None, action=None, *, faces=FACES) -> None:
    """At every step: the money adds up to what was dealt, nobody's money (nor the CLUB's) is
    negative, the 36 cards (and the table's own: ``faces``) are all there, decks are face
    down to every seat, and the card drawn last is face up to all."""
    n = len(state.players)
    assert total(state) == DEALT[n]
    assert all(m >= 0 for m in state.money) and state.club >= 0
    cards = state.cards
    assert sorted(cards.component_faces()) == sorted(faces)
    for deck in DECKS:
        assert all(cards.visibility(h) == NOBODY for h in cards.zone(deck_zone(deck)))
        assert all(cards.visibility(h) == EVERYONE for h in cards.zone(discard_zone(deck)))
    assert len(cards.zone(CARD_ZONE)) <= 1
    assert all(cards.visibility(h) == EVERYONE for h in cards.zone(CARD_ZONE))
    for viewer in [*range(n), None]:
        view = GAME.view(state, viewer)
        assert set(view.faces) == {h for z in (CARD_ZONE, *map(discard_zone, DECKS)) for h in cards.zone(z)}
    assert all(set(g) <= set(GIFTS) for g in state.gifts)
    assert 1 <= state.round <= ROUND_LIMIT


@over_whole_games(GAME, examples=40)
def test_money_and_cards_are_conserved_and_every_game_ends(seed: int, players: int, data) -> None:
    """All money used to buy gifts goes into the BANK. All payments by players for anything
    other than gifts go into CHRISTMAS CLUB, unless the card instructs otherwise. (So the
    players' money, CHRISTMAS CLUB and the BANK's takings always add up to what was dealt.)"""
    playout = play_checked_game(GAME, players, seed, data, check_table)
    state = playout.state
    result = playout.result
    assert result.scores == tuple(len(set(g)) for g in state.gifts)
    if state.ending == "shopping":
        assert result.winners == (state.winner,) and result.scores[state.winner] == 6
    else:  # bots' games never come near the safety limit
        assert state.ending == "super" and result.winners == (state.winner,)


def test_a_game_of_players_who_never_buy_still_ends() -> None:
    """(Every game ends: see the ruling "A game that never ends".) Players who decline every
    gift stop at the safety limit, unless SUPER SHOPPER crowns one of them first."""
    for players in (2, 6):
        rng = Rng(f"misers/{players}")
        state = GAME.setup({}, NAMES[:players], rng)
        for _ in range(GAME.max_actions):
            if state.phase == "over":
                break
            legal = GAME.legal_actions(state, state.turn)
            act(state, state.turn, Decline() if Decline() in legal else legal[0], rng)
        assert state.phase == "over" and state.ending in ("rounds", "super")


def test_the_smart_bot_beats_random_players_clearly() -> None:
    """The player first completing his shopping is the winner. (A shopper who buys what it
    needs and keeps money for a dear gift within reach wins far more than its share against
    random players.)"""
    for players in range(GAME.min_players, GAME.max_players + 1):
        wins = 0.0
        games = 80
        for game in range(games):
            smart = game % players
            bots = ["random"] * players
            bots[smart] = "smart"
            result = play_game(GAME, players, f"smart-vs-random/{players}/{game}", bots).result
            if smart in result.winners:
                wins += 1 / len(result.winners)
        assert wins / games > 1 / players + 0.12, f"{players} players: the smart bot won only {wins} of {games}"
