"""The party's own cards for The Christmas Game: what a personal card may say, checked.

The rulebook: "Blank Santa, Scrooge, and Reindeer cards are provided for you to
personalize. Put yourself, your family and friends into THE CHRISTMAS GAME™. Fines or
rewards on these cards should not exceed $20."

A personal card is plain data: a table of a TOML file (read by ``xmas_tui.files``), then,
checked and written out in full (``normal_cards``), the table option ``cards`` of The
Christmas Game, which travels with the table's fair-play record so that every peer's
audit deals the same decks. ``personal_deck`` turns the option into ``Card``s at setup;
the engine checks it again there, since a log or a peer could carry anything. Every
problem is one line naming the file (or the option) and the card, and all of them are
found at once, so a party fixes its file in one go.

A card, in TOML (``[[card]]`` once per card)::

    deck = "Scrooge"                    # Santa, Scrooge or Reindeer
    title = "Bob's Secret Santa"        # optional: shown with the card
    text = "Bob forgot the Secret Santa."
    effect = "pay"                      # what it does, in the engine's own terms (EFFECTS)
    amount = 10                         # dollars (at most $20), squares for "back"
    to = "TRAFFIC JAM"                  # for "advance" and "go": a special square

A Reindeer card is read, then the dice say: ``lucky_on`` ("7 or more", "8 or more",
"even" or "odd"; 7 or more unless it says), ``effect``/``amount`` when lucky and
``unlucky``/``unlucky_amount`` otherwise, each a payment, a reward or a gift receipt.

Owns: the rules of a personal card, the problems with it, and the faces of personal cards.
Must not touch: files, the UI; this game's own printed cards are in ``christmas_game``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .christmas_game import DECKS, EIGHT_UP, EVEN, ODD, SEVEN_UP, SQUARE_NAMES, Card
from .engine import CARDS_OPTION

#: The most a fine or a reward may be, as the rulebook says; a card paid to or by each of
#: up to 5 other players names at most $4, so that it too stays within $20.
MOST_MONEY = 20
MOST_EACH = MOST_MONEY // 5
#: Personal cards in one deck (as many again as we print), and in all.
PER_DECK = 12
MOST_CARDS = PER_DECK * len(DECKS)
MOST_TEXT = 120
MOST_TITLE = 30
MOST_BACK = 6
DEFAULT_TITLE = "A personal card"

#: The engine's kinds of effect a personal card may have, and what its amount is. (Not
#: "per-gift": its fine grows with the gifts held, past any limit a card could name.)
MONEY = ("collect", "pay", "pay-bank", "collect-each", "pay-each", "pick")
EACH = ("collect-each", "pay-each")
EFFECTS: dict[str, str] = {
    **{kind: "dollars" for kind in MONEY},
    "receipt": "dollars",  # a gift receipt of that value: $1 or $5 (the gifts of at most $20)
    "back": "squares",
    "advance": "square",
    "go": "square",
    "shop": "",
    "return": "",
}
#: A Reindeer card's outcomes are payments, rewards and gift receipts, as ours are.
REINDEER_EFFECTS = ("collect", "pay", "pay-bank", "collect-each", "pay-each", "receipt")
RECEIPTS = (1, 5)
#: The squares a card may send you to: the special squares (never another card's square).
TARGETS: dict[str, str] = {
    name.casefold(): kind for kind, name in SQUARE_NAMES.items() if kind not in DECKS
} | {kind: kind for kind in SQUARE_NAMES if kind not in DECKS}
LUCKY: dict[str, tuple[int, ...]] = {"7 or more": SEVEN_UP, "8 or more": EIGHT_UP, "even": EVEN, "odd": ODD}
FIELDS = ("deck", "title", "text", "effect", "amount", "to", "lucky_on", "unlucky", "unlucky_amount")
#: The table option that carries them.
OPTION = CARDS_OPTION


class CardsProblem(ValueError):
    """Personal cards that cannot be played: one line per problem (``lines``)."""

    def __init__(self, lines: Sequence[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = list(lines)


def normal_cards(raw: Any, source: str) -> list[dict[str, Any]]:
    """The cards of ``raw`` (a TOML file's tables, or the table option), checked and written
    out in full: every field there, in its one spelling. ``CardsProblem`` lists every problem,
    each line naming ``source`` and the card."""
    if isinstance(raw, Mapping):  # a whole file: nothing but its [[card]] tables
        extra = sorted(str(key) for key in raw if key != "card")
        if extra:
            raise CardsProblem([f"{source}: {extra[0]!r} is not a part of a cards file (each card is a [[card]] table)"])
        raw = raw.get("card", [])
    if not isinstance(raw, list):
        raise CardsProblem([f"{source}: the cards are a list of [[card]] tables, not {type(raw).__name__}"])
    if len(raw) > MOST_CARDS:
        raise CardsProblem([f"{source}: {len(raw)} cards are too many (at most {MOST_CARDS}, {PER_DECK} in each deck)"])
    problems: list[str] = []
    cards: list[dict[str, Any]] = []
    for number, entry in enumerate(raw, 1):
        card, said = _card(entry)
        problems += [f"{source}, card {number}: {problem}" for problem in said]
        cards.append(card)
    for deck in DECKS:
        count = sum(1 for card in cards if card.get("deck") == deck)
        if count > PER_DECK:
            problems.append(f"{source}: {count} {deck.title()} cards are too many (at most {PER_DECK} in a deck)")
    if problems:
        raise CardsProblem(problems)
    return cards


def _card(entry: Any) -> tuple[dict[str, Any], list[str]]:
    """One card written out in full, and what is wrong with it."""
    if not isinstance(entry, Mapping):
        return {}, [f"a card is a table of deck, text, effect and amount, not {type(entry).__name__}"]
    problems = [f"{key!r} is not a field of a card (they are: {', '.join(FIELDS)})" for key in entry if key not in FIELDS]
    card: dict[str, Any] = {}
    deck = entry.get("deck")
    if not isinstance(deck, str) or deck.casefold() not in DECKS:
        problems.append(f"the deck is Santa, Scrooge or Reindeer, not {_shown(deck)}")
    else:
        card["deck"] = deck.casefold()
    for field, most, default in (("text", MOST_TEXT, None), ("title", MOST_TITLE, DEFAULT_TITLE)):
        value = entry.get(field, default)
        if not isinstance(value, str) or not value.strip():
            problems.append(f"a card needs its {field}, in words")
        elif len(value) > most or not value.isprintable():
            problems.append(f"the {field} is at most {most} characters on one line")
        else:
            card[field] = " ".join(value.split())
    reindeer = card.get("deck") == "reindeer"
    kinds = REINDEER_EFFECTS if reindeer else tuple(EFFECTS)
    problems += _effect(entry, card, "effect", "amount", kinds)
    if reindeer:
        lucky = entry.get("lucky_on", "7 or more")
        if not isinstance(lucky, str) or lucky.casefold() not in LUCKY:
            problems.append(f"a Reindeer card is lucky on {', '.join(LUCKY)}, not {_shown(lucky)}")
        else:
            card["lucky_on"] = lucky.casefold()
        problems += _effect(entry, card, "unlucky", "unlucky_amount", kinds)
    else:
        problems += [f"{field!r} is for Reindeer cards" for field in ("lucky_on", "unlucky", "unlucky_amount") if field in entry]
    return card, problems


def _effect(entry: Mapping[str, Any], card: dict[str, Any], field: str, amount_field: str, kinds: Sequence[str]) -> list[str]:
    """Check one effect and its amount (or square) into ``card``; the problems."""
    what = entry.get(field)
    if not isinstance(what, str) or what not in kinds:
        return [f"the {field} is one of {', '.join(kinds)}, not {_shown(what)}"]
    card[field] = what
    measure = EFFECTS[what]
    amount = entry.get(amount_field)
    if measure in ("", "square"):
        problems = [f"{what!r} takes no {amount_field}"] if amount_field in entry else []
        if measure == "square":
            to = entry.get("to")
            kind = TARGETS.get(to.casefold()) if isinstance(to, str) else None
            if kind is None:
                squares = ", ".join(SQUARE_NAMES[k] for k in dict.fromkeys(TARGETS.values()))
                return [*problems, f"{what!r} goes to one of {squares}, not {_shown(to)}"]
            card["to"] = kind
        elif "to" in entry:
            problems.append(f"'to' is for 'advance' and 'go' cards, not {what!r}")
        return problems
    if "to" in entry:
        return [f"'to' is for 'advance' and 'go' cards, not {what!r}"]
    if not isinstance(amount, int) or isinstance(amount, bool):
        return [f"{what!r} needs its {amount_field}, a whole number of {measure}, not {_shown(amount)}"]
    if measure == "squares" and not 1 <= amount <= MOST_BACK:
        return [f"a card moves you back 1 to {MOST_BACK} squares, not {amount}"]
    if what == "receipt" and amount not in RECEIPTS:
        return [f"a gift receipt from a card is $1 or $5 (a gift of at most ${MOST_MONEY}), not ${amount}"]
    if what in EACH and amount > MOST_EACH:
        return [f"{what!r} names at most ${MOST_EACH} (from each of up to 5 players: ${MOST_MONEY}), not ${amount}"]
    if measure == "dollars" and amount > MOST_MONEY:
        return [f"an amount is at most ${MOST_MONEY}, not ${amount}"]
    if measure == "dollars" and amount < 1:
        return [f"an amount is at least $1, not ${amount}"]
    card[amount_field] = amount
    return []


def _shown(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, str):
        return repr(value) if len(value) <= 24 else f"{value[:24]!r}…"
    return repr(value) if isinstance(value, (int, float, bool)) else f"a {type(value).__name__}"


def personal_deck(option: Any) -> tuple[Card, ...]:
    """The ``Card``s of the table option ``cards`` (checked again: it may come from anyone)."""
    cards = normal_cards(option, f"the option {OPTION}")
    return tuple(_as_card(card) for card in cards)


def _as_card(card: Mapping[str, Any]) -> Card:
    deck = card["deck"]

    def effect(field: str, amount_field: str) -> tuple[str, Any]:
        what = card[field]
        return (what, card["to"]) if EFFECTS[what] == "square" else (what, card.get(amount_field, 0))

    if deck == "reindeer":
        return Card(deck, card["title"], card["text"], lucky_on=LUCKY[card["lucky_on"]],
                    lucky=effect("effect", "amount"), unlucky=effect("unlucky", "unlucky_amount"), personal=True)  # fmt: skip
    return Card(deck, card["title"], card["text"], effect("effect", "amount"), personal=True)
