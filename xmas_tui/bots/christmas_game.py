"""A sensible Christmas Game shopper: buys what it needs, keeps money for the dear gifts.

It sees only its own view (money, receipts and tokens are public; it needs no
card faces). Its judgement:

* On a gift square it buys the gift it still needs, unless that would leave
  too little for a dearer gift it still lacks, could afford now, and is
  fairly likely (``NEAR``) to land on with its next roll: cheap gifts have
  many squares, the $100 and $200 only three each. Otherwise it buys at
  once: money spent on gifts is money SALES TAX cannot halve (in trials,
  keeping a fixed reserve for the dear gifts did no better than this).
* At an Early bird sale it buys the dearest gift it needs and can afford.
* Made to return a receipt, it gives back a duplicate if it has one, else its
  cheapest gift.
* As Secret Santa it picks the player furthest from finishing their shopping
  (the $10 helps them least).
"""

from __future__ import annotations

from collections.abc import Sequence

from xmas_tui.games import Action, Rng, View
from xmas_tui.games.christmas_game import BOARD, SQUARES, Buy, Decline, Pick, Return, Square, needs

from . import Bot, register_smart

#: The chance of each total of two dice.
TOTALS: dict[int, float] = {t: (6 - abs(t - 7)) / 36 for t in range(2, 13)}
#: Keep the money for a dearer gift whose square the next roll reaches this often.
NEAR = 0.1


def chance_of_square(position: int, value: int) -> float:
    """The chance that the next roll from ``position`` lands on a gift square of ``value``."""
    square = Square("gift", value)
    return sum(p for t, p in TOTALS.items() if BOARD[(position + t) % SQUARES] == square)


def keep_for_later(money: int, price: int, missing: Sequence[int], position: int) -> bool:
    """Whether to decline a gift of ``price``: buying it would leave too little for a
    dearer gift still missing, affordable now, whose square is near."""
    left = money - price
    return any(
        money >= v > left and chance_of_square(position, v) > NEAR for v in missing if v > price
    )


class SmartBot(Bot):
    def choose(self, view: View | None, legal: Sequence[Action]) -> Action:
        assert view is not None
        first = legal[0]
        if len(legal) == 1:
            return first
        me = self.seat
        money = view["money"][me]
        gifts = list(view["gifts"][me])
        missing = needs(gifts)
        if isinstance(first, Buy) or isinstance(first, Decline):
            buys = [a for a in legal if isinstance(a, Buy)]
            if len(buys) > 1:  # a sale: the dearest gift we can afford
                return max(buys, key=lambda a: a.value)
            buy = buys[0]
            if keep_for_later(money, buy.value, missing, view["position"][me]):
                return next(a for a in legal if isinstance(a, Decline))
            return buy
        if isinstance(first, Return):
            values = [a.value for a in legal if isinstance(a, Return)]
            twice = [v for v in values if gifts.count(v) > 1]
            return Return(min(twice) if twice else min(values))
        if isinstance(first, Pick):
            everyone = view["gifts"]
            picks = [a for a in legal if isinstance(a, Pick)]
            return min(picks, key=lambda a: (len(set(everyone[a.seat])), a.seat))
        return first


def make(seat: int, rng: Rng) -> Bot:
    return SmartBot(seat, rng)


register_smart("christmas-game", make)
