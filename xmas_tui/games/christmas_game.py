"""The Christmas Game — the rules, our printed board and cards, and our rulings.

A roll-and-move shopping race: roll two dice, move clockwise round a board of
40 squares, buy gifts on gift squares, draw Santa, Scrooge and Reindeer cards,
and be the first to own a $1, $5, $25, $50, $100 and a $200 gift.

The rulebook prints neither the board nor the cards, so they are ours, and
they are all in one place below: ``BOARD`` (the squares, clockwise from
START) and ``CARDS`` (the three decks of 12). ``printed_board()`` and
``printed_cards()`` render them for the rules screen.

The table, as zones of the card model:

* ``santa.deck``, ``scrooge.deck``, ``reindeer.deck``: face down;
* ``santa.discard`` and the others: face up, the cards already read;
* ``card``: the card drawn last, face up for everyone, until the next is drawn.

Everything else (money, gift receipts, tokens, the dice) is public structure.
Money is amounts only; the BANK never runs out, and ``bank`` counts what it
has taken in less what it has paid out since the deal, so that the players'
money, CHRISTMAS CLUB and ``bank`` always add up to what was dealt.

Owns: this game's board, cards, state, actions, rules and rulings.
Must not touch: the UI, the network, clocks; card faces are read and shown
only through the card model (``Cards``); dice and shuffles come from ``rng``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from .cards import EVERYONE
from .engine import Action, BaseState, Event, Result, Ruling, TableOption, TakingTurns, rank_winners
from .rng import Rng

# ---------------------------------------------------------------- money and gifts

#: Each player's $280: 5 x $1, 5 x $5, 5 x $10 and 4 x $50 (amounts only).
START_MONEY = 5 * 1 + 5 * 5 + 5 * 10 + 4 * 50
#: CHRISTMAS CLUB's deposit at the beginning, and its refill after each withdrawal.
CLUB_DEPOSIT = 50
START_BONUS = 50
#: The six gifts on every shopping list.
GIFTS: tuple[int, ...] = (1, 5, 25, 50, 100, 200)
#: A safety limit far beyond any real game: the game ends when someone completes their
#: shopping (or wins on SUPER SHOPPER); only a game still going after this many rounds
#: stops here (see the ruling "A game that never ends"). The longest of 50,000 bot games
#: (``xmas-tui simulate christmas-game --games 5000 --seed 2024``, random and smart bots,
#: 2-6 players) took 118 rounds.
ROUND_LIMIT = 1_000
POSTAGE = 5
WRAPPING = 2

# ---------------------------------------------------------------- the printed board


class Square(NamedTuple):
    kind: str  # start gift santa scrooge reindeer club tax super jam post wrap
    value: int = 0  # a gift square's price

    @property
    def name(self) -> str:
        if self.kind == "gift":
            return f"${self.value} gift"
        return SQUARE_NAMES[self.kind]


SQUARE_NAMES: dict[str, str] = {
    "start": "START",
    "santa": "Santa",
    "scrooge": "Scrooge",
    "reindeer": "Reindeer",
    "club": "CHRISTMAS CLUB",
    "tax": "SALES TAX",
    "super": "SUPER SHOPPER",
    "jam": "TRAFFIC JAM",
    "post": "POST OFFICE",
    "wrap": "GIFT WRAP",
}

# fmt: off
#: The board, clockwise from START: 24 gift squares (more cheap than dear), three
#: squares for each deck, and one of each special square; TRAFFIC JAM, CHRISTMAS
#: CLUB and SUPER SHOPPER sit in the corners.
BOARD: tuple[Square, ...] = (
    Square("start"),  Square("gift", 1),  Square("santa"),    Square("gift", 1),   Square("gift", 5),
    Square("reindeer"), Square("gift", 5), Square("scrooge"), Square("gift", 25),  Square("gift", 1),
    Square("jam"),    Square("gift", 5),  Square("post"),     Square("gift", 25),  Square("gift", 50),
    Square("santa"),  Square("gift", 1),  Square("gift", 50), Square("scrooge"),   Square("gift", 100),
    Square("club"),   Square("gift", 5),  Square("reindeer"), Square("gift", 25),  Square("gift", 200),
    Square("gift", 1), Square("santa"),   Square("gift", 50), Square("gift", 100), Square("wrap"),
    Square("super"),  Square("gift", 5),  Square("gift", 25), Square("scrooge"),   Square("gift", 200),
    Square("reindeer"), Square("gift", 50), Square("tax"),    Square("gift", 100), Square("gift", 200),
)
# fmt: on
SQUARES = len(BOARD)


def square_of(kind: str) -> int:
    """The one square of a special kind (START, TRAFFIC JAM, …)."""
    return next(i for i, sq in enumerate(BOARD) if sq.kind == kind)


START, JAM, CLUB, SUPER, TAX = (square_of(k) for k in ("start", "jam", "club", "super", "tax"))

# ---------------------------------------------------------------- the printed cards

DECKS: tuple[str, ...] = ("santa", "scrooge", "reindeer")
DECK_NAMES: dict[str, str] = {"santa": "Santa", "scrooge": "Scrooge", "reindeer": "Reindeer"}

#: An effect: (what, amount or square kind). What:
#: collect (from the BANK), pay (to CHRISTMAS CLUB), pay-bank, collect-each and
#: pay-each (from or to every other player), advance (clockwise to the next
#: square of that kind, collecting $50 if passing START), go (sent straight
#: there, never passing START), back (move back N squares), receipt (a gift
#: receipt of that value from the BANK), per-gift (pay N to CHRISTMAS CLUB for
#: each receipt held), and the three choices: shop (buy one gift you still need
#: now), return (give one receipt back to the BANK), pick (choose another
#: player: you each collect N from the BANK).
Effect = tuple[str, Any]


class Card(NamedTuple):
    deck: str
    title: str
    text: str
    effect: Effect = ("none", 0)
    #: Reindeer cards: the dice totals that are lucky, and the two outcomes.
    lucky_on: tuple[int, ...] = ()
    lucky: Effect = ("none", 0)
    unlucky: Effect = ("none", 0)
    #: One of the party's own cards (``personal_cards``): its text is theirs, its effect
    #: is printed after it in the game's words.
    personal: bool = False

    @classmethod
    def of(cls, raw: Card | Sequence[Any]) -> Card:
        """A card from itself or from its plain form in a view that came over the network."""
        if isinstance(raw, Card):
            return raw
        deck, title, text, effect, lucky_on, lucky, unlucky, *personal = raw
        return cls(deck, title, text, tuple(effect), tuple(lucky_on), tuple(lucky), tuple(unlucky), bool(personal and personal[0]))


SEVEN_UP = tuple(range(7, 13))
EIGHT_UP = tuple(range(8, 13))
EVEN = (2, 4, 6, 8, 10, 12)
ODD = (3, 5, 7, 9, 11)

# fmt: off
#: Every card, by face. Santa is mostly kind, Scrooge mostly costly; a Reindeer
#: card is read, then the dice say lucky or unlucky. No Reindeer fine or reward
#: exceeds $20 (the rulebook's limit for the personal cards).
CARDS: dict[str, Card] = {
    "santa-01": Card("santa", "A full stocking", "Santa fills your stocking: collect $20 from the BANK.", ("collect", 20)),
    "santa-02": Card("santa", "Christmas bonus", "Your Christmas bonus arrives: collect $25 from the BANK.", ("collect", 25)),
    "santa-03": Card("santa", "Letter from the North Pole", "Advance to START and collect $50.", ("advance", "start")),
    "santa-04": Card("santa", "Elves at work", "Santa's elves made you a gift: take a $5 gift receipt from the BANK.", ("receipt", 5)),
    "santa-05": Card("santa", "Found in the sleigh", "A small gift fell from the sleigh: take a $1 gift receipt from the BANK.", ("receipt", 1)),
    "santa-06": Card("santa", "Early bird sale", "You may buy one gift you still need now, paying its price to the BANK.", ("shop", 0)),
    "santa-07": Card("santa", "Secret Santa", "Choose another player: you each collect $10 from the BANK.", ("pick", 10)),
    "santa-08": Card("santa", "Sleigh ride", "Santa gives you a lift: advance to SUPER SHOPPER.", ("advance", "super")),
    "santa-09": Card("santa", "Christmas cards", "Every player sends you a card with $5 inside: collect $5 from each player.", ("collect-each", 5)),
    "santa-10": Card("santa", "To the mall", "Advance to the next $25 gift square.", ("advance", "gift-25")),
    "santa-11": Card("santa", "Ho ho ho!", "Advance to CHRISTMAS CLUB and claim what is in it.", ("advance", "club")),
    "santa-12": Card("santa", "Coal in your stocking", "You were naughty this year: pay $10 to CHRISTMAS CLUB.", ("pay", 10)),
    "scrooge-01": Card("scrooge", "Bah, humbug!", "Scrooge scowls at your spending: pay $20 to CHRISTMAS CLUB.", ("pay", 20)),
    "scrooge-02": Card("scrooge", "The rent is due", "Scrooge collects the rent: pay $30 to the BANK.", ("pay-bank", 30)),
    "scrooge-03": Card("scrooge", "Stuck behind a bus", "Go to TRAFFIC JAM. Do not pass START.", ("go", "jam")),
    "scrooge-04": Card("scrooge", "Forgot the list", "Go back 3 squares.", ("back", 3)),
    "scrooge-05": Card("scrooge", "Too extravagant", "Scrooge makes you take a gift back: return one gift receipt of your choice to the BANK. No refund.", ("return", 0)),
    "scrooge-06": Card("scrooge", "Share and share alike", "Pay each player $5.", ("pay-each", 5)),
    "scrooge-07": Card("scrooge", "Cards to mail", "Go to the POST OFFICE. Do not pass START.", ("go", "post")),
    "scrooge-08": Card("scrooge", "Overdue bills", "Pay $15 to CHRISTMAS CLUB.", ("pay", 15)),
    "scrooge-09": Card("scrooge", "Counting house", "Scrooge counts your gifts: pay $5 to CHRISTMAS CLUB for each gift receipt you hold.", ("per-gift", 5)),
    "scrooge-10": Card("scrooge", "The taxman", "Go to SALES TAX. Do not pass START.", ("go", "tax")),
    "scrooge-11": Card("scrooge", "Wrapping to do", "Go to GIFT WRAP. Do not pass START.", ("go", "wrap")),
    "scrooge-12": Card("scrooge", "A change of heart", "Scrooge is visited by three spirits: collect $10 from the BANK.", ("collect", 10)),
    "reindeer-01": Card("reindeer", "Dasher", "Dasher dashes you to the shops.", lucky_on=SEVEN_UP, lucky=("collect", 15), unlucky=("pay", 5)),
    "reindeer-02": Card("reindeer", "Dancer", "Dancer waltzes through the crowds.", lucky_on=EVEN, lucky=("collect", 10), unlucky=("pay", 10)),
    "reindeer-03": Card("reindeer", "Prancer", "Prancer prances on the roof.", lucky_on=SEVEN_UP, lucky=("receipt", 1), unlucky=("pay", 5)),
    "reindeer-04": Card("reindeer", "Vixen", "Vixen finds a bargain.", lucky_on=EIGHT_UP, lucky=("collect", 20), unlucky=("pay", 5)),
    "reindeer-05": Card("reindeer", "Comet", "Comet streaks across the sky.", lucky_on=ODD, lucky=("collect", 10), unlucky=("pay", 10)),
    "reindeer-06": Card("reindeer", "Cupid", "Cupid brings a present from a friend.", lucky_on=SEVEN_UP, lucky=("receipt", 5), unlucky=("pay", 10)),
    "reindeer-07": Card("reindeer", "Donner", "Donner thunders past the tills.", lucky_on=EVEN, lucky=("collect", 15), unlucky=("pay", 15)),
    "reindeer-08": Card("reindeer", "Blitzen", "Blitzen drops the shopping bags.", lucky_on=EIGHT_UP, lucky=("collect", 10), unlucky=("pay", 20)),
    "reindeer-09": Card("reindeer", "Rudolph", "Rudolph's nose lights the way home.", lucky_on=SEVEN_UP, lucky=("collect", 20), unlucky=("pay", 5)),
    "reindeer-10": Card("reindeer", "Olive", "Olive, the other reindeer, helps you carry.", lucky_on=ODD, lucky=("collect", 5), unlucky=("pay", 5)),
    "reindeer-11": Card("reindeer", "Clarice", "Clarice sings carols outside the shops.", lucky_on=EVEN, lucky=("collect-each", 2), unlucky=("pay-each", 2)),
    "reindeer-12": Card("reindeer", "Sparkle", "Sparkle spills the hot cocoa.", lucky_on=SEVEN_UP, lucky=("collect", 10), unlucky=("pay-bank", 10)),
}
# fmt: on
FACES: tuple[str, ...] = tuple(CARDS)


def personal_face(deck: str, number: int) -> str:
    """The face of the table's ``number``-th personal card (from 1): ``scrooge-own-3``."""
    return f"{deck}-own-{number}"


def card_of(face: str, personal: Sequence[Any] = ()) -> Card:
    """The card with this face: one of ours, or one of the table's own (``State.personal``,
    which a view may carry as plain data)."""
    _, own, number = face.rpartition("-own-")
    if own and number.isdigit() and 1 <= int(number) <= len(personal):
        return Card.of(personal[int(number) - 1])
    return CARDS[face]


def deck_zone(deck: str) -> str:
    return f"{deck}.deck"


def discard_zone(deck: str) -> str:
    return f"{deck}.discard"


CARD_ZONE = "card"


def money_text(amount: int) -> str:
    return f"${amount}"


def effect_text(effect: Effect) -> str:
    """An effect in words, as a card prints it (the Reindeer outcomes, the personal cards)."""
    what, n = effect
    if what in ("advance", "go"):
        square = SQUARE_NAMES.get(n, "the next $25 gift square" if n == "gift-25" else str(n))
        return f"advance to {square}" if what == "advance" else f"go to {square}, without passing START"
    return {
        "collect": f"collect ${n} from the BANK",
        "pay": f"pay ${n} to CHRISTMAS CLUB",
        "pay-bank": f"pay ${n} to the BANK",
        "collect-each": f"collect ${n} from each player",
        "pay-each": f"pay each player ${n}",
        "receipt": f"take a ${n} gift receipt from the BANK",
        "per-gift": f"pay ${n} to CHRISTMAS CLUB for each gift receipt you hold",
        "pick": f"choose another player: you each collect ${n} from the BANK",
        "back": f"go back {n} square{'s' if n != 1 else ''}",
        "shop": "you may buy one gift you still need now",
        "return": "return one gift receipt of your choice to the BANK",
    }.get(what, what)


def upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def lucky_text(totals: tuple[int, ...]) -> str:
    if totals == EVEN:
        return "an even total"
    if totals == ODD:
        return "an odd total"
    return f"{totals[0]} or more"


def card_text(card: Card) -> str:
    """A card's whole printed text."""
    if card.deck != "reindeer":
        return f"{card.text} ({upper_first(effect_text(card.effect))}.)" if card.personal else card.text
    return (
        f"{card.text} Roll: {lucky_text(card.lucky_on)} is lucky: {effect_text(card.lucky)}; "
        f"otherwise unlucky: {effect_text(card.unlucky)}."
    )


def printed_board() -> str:
    """The board as the rules screen prints it: each square by number, clockwise from START."""
    cells = [f"{i:>2} {sq.name}" for i, sq in enumerate(BOARD)]
    rows = [cells[i : i + 4] for i in range(0, SQUARES, 4)]
    return "\n".join("  ".join(f"{c:<18}" for c in row).rstrip() for row in rows)


def printed_cards() -> str:
    lines: list[str] = []
    for deck in DECKS:
        lines.append(f"{DECK_NAMES[deck]} cards:")
        lines += [f"  {card.title}: {card_text(card)}" for card in CARDS.values() if card.deck == deck]
    return "\n".join(lines)


# ---------------------------------------------------------------- actions


@dataclass(frozen=True)
class Roll(Action):
    """Roll the two dice: to move, to leave TRAFFIC JAM, on SUPER SHOPPER, or after a Reindeer card."""

    kind = "roll"


@dataclass(frozen=True)
class Buy(Action):
    """Buy the gift of this price (on its gift square, or as a card allows)."""

    kind = "buy"
    value: int


@dataclass(frozen=True)
class Decline(Action):
    """Do not buy the gift on offer."""

    kind = "decline"


@dataclass(frozen=True)
class Return(Action):
    """Give one gift receipt of this value back to the BANK (as a Scrooge card says)."""

    kind = "return"
    value: int


@dataclass(frozen=True)
class Pick(Action):
    """Choose another player (as a Santa card says)."""

    kind = "pick"
    seat: int


# ---------------------------------------------------------------- state


@dataclass
class State(BaseState):
    #: Each player's money, square and gift receipts (values, duplicates kept, in the order got).
    money: tuple[int, ...] = ()
    position: tuple[int, ...] = ()
    gifts: tuple[tuple[int, ...], ...] = ()
    #: -1 if not in TRAFFIC JAM, else how many rolls to leave it have failed.
    jammed: tuple[int, ...] = ()
    #: Seats of players 15 and under (the table option "young").
    young: tuple[int, ...] = ()
    #: The table's own cards (the table option "cards"), shuffled into their decks with
    #: ours: the card with face ``personal_face(deck, n)`` is ``personal[n - 1]``. Public,
    #: as our printed cards are: what a deck holds is known, only its order is not.
    personal: tuple[Card, ...] = ()
    club: int = CLUB_DEPOSIT
    #: The BANK's takings less its payments since the deal (negative: it paid out more).
    bank: int = 0
    first: int = 0
    turn: int = 0
    #: roll | jam | shop | return | pick | reindeer | super | over
    phase: str = "roll"
    #: The last dice rolled (empty before the first roll), who rolled them, and what for.
    dice: tuple[int, ...] = ()
    roller: int = -1
    rolled_for: str = ""
    #: Doubles rolled in a row this turn, and whether this move earns another roll.
    doubles: int = 0
    extra: bool = False
    #: The gifts on offer while shopping (prices).
    offer: tuple[int, ...] = ()
    #: The amount a Secret Santa card pays each of the two players.
    gift_money: int = 0
    round: int = 1
    turns: int = 0
    #: Why the game ended: "" (not yet), "shopping", "super" or "rounds"; and who won outright.
    ending: str = ""
    winner: int = -1


def distinct(gifts: Sequence[int]) -> int:
    return len(set(gifts))


def needs(gifts: Sequence[int]) -> list[int]:
    """The gift prices still missing from a shopping list."""
    return [v for v in GIFTS if v not in gifts]


def receipts_text(gifts: Sequence[int]) -> str:
    return " ".join(f"${v}" for v in sorted(gifts)) or "no gifts"


# ---------------------------------------------------------------- the game


RULES = """
Each player starts with $280 (5 x $1, 5 x $5, 5 x $10, 4 x $50). CHRISTMAS CLUB
starts with a $50 deposit. The winner is the first to own a $1, $5, $25, $50,
$100 and $200 gift.

On your turn roll two dice and move clockwise. On a gift square you may buy
that gift if you own none of that price yet: the money goes to the BANK and
you get a gift receipt. Gift squares belong to everybody. Cards may give you a
second gift of a price you own; you may never buy one.

Santa, Scrooge and Reindeer squares: draw that card. After a Reindeer card,
roll the dice: lucky or unlucky, as the card says. Your party's own cards
(a cards file: --cards FILE, or cards.toml in the data folder) are shuffled
into their decks with ours. Other squares:
  START           collect $50 each time you land on or pass it.
  CHRISTMAS CLUB  take all the money in it; the BANK puts $50 back.
  SALES TAX       lose half your money (rounded down) to the BANK.
  SUPER SHOPPER   roll at once: a 2 or 12 wins the game outright.
  TRAFFIC JAM     wait for your next turn; then you need a 7 or doubles to
                  leave (players 15 and under leave on their second roll).
  POST OFFICE     pay $5 postage to CHRISTMAS CLUB.
  GIFT WRAP       pay $2 to CHRISTMAS CLUB for each gift receipt you hold.

Money for gifts goes to the BANK; every other payment goes to CHRISTMAS CLUB
unless a card says otherwise. Nobody ever leaves the game: a player who cannot
pay pays what they have, the rest is forgiven, and they keep their gifts.
Gift receipts have no cash value and are never traded.

Doubles give another roll, except when they land you on (or you are sent to)
POST OFFICE, GIFT WRAP or TRAFFIC JAM. Three doubles in a row: go to SALES TAX
without passing START. The Reindeer and SUPER SHOPPER rolls never give another
roll and never count as doubles in a row; but if the roll that brought you
there was a double, you roll again.
"""


def _rules_text() -> str:
    return (
        RULES.strip()
        + "\n\nThe board (clockwise from START)\n--------------------------------\n"
        + printed_board()
        + "\n\nThe cards (12 in each deck)\n---------------------------\n"
        + printed_cards()
    )


class ChristmasGame(TakingTurns):
    id = "christmas-game"
    title = "The Christmas Game"
    min_players = 2
    table_options = (
        TableOption("young", "Your age", (("over 15", None), ("15 or under", [1]))),
        TableOption("cards", "Your cards", ()),  # (a file of them: --cards FILE, or the data folder's cards.toml)
    )
    max_players = 6
    actions = (Roll, Buy, Decline, Return, Pick)
    # A bound, not a guess: a game lasts at most ROUND_LIMIT rounds of at most 6
    # turns; a turn has at most 3 moves (the third double goes to SALES TAX),
    # and a move at most 3 actions: its roll, a SUPER SHOPPER or Reindeer roll,
    # and a choice (a card that moves you can chain through one more card, and
    # Reindeer cards offer no choice). So at most 1,000 * 6 * 9 = 54,000 actions;
    # the longest of 50,000 bot games took 615.
    max_actions = ROUND_LIMIT * 6 * 9
    how_to_play = _rules_text()
    openings = (
        "The three decks are hidden from everyone; a card drawn opens to everyone. The dice "
        "are public draws no program can choose. A deck run out is shuffled again by every "
        "player."
    )
    rulings = (
        Ruling("The board and the cards", "The rulebook prints neither, so ours are printed above: 40 squares clockwise from START (24 gift squares, more cheap than dear; three each of Santa, Scrooge and Reindeer; one of each special square) and three decks of 12 cards. A deck that runs out is made again by shuffling its discards."),
        Ruling("Who starts", "The starting player is drawn at random when the game is set up, and play goes clockwise (seat order)."),
        Ruling("Buying is optional", "On a gift square you may buy its gift or decline. You may buy only with enough money for the whole price; a gift you already own (by purchase or from a card) is not offered again."),
        Ruling("Personalizing cards", "The party's own cards are the rulebook's blank cards: a TOML file of them (see the README), given with --cards FILE or kept as cards.toml in the data folder, is shuffled into the decks with ours, at most 12 in each deck. Each card names its deck, its words and what it does in the game's own terms, and the file is checked before any game starts: no game starts until every card is right. No fine or reward exceeds $20: an amount is $1 to $20, one paid to or by each player at most $4 (5 players at $4 is $20), a gift receipt $1 or $5; a card moves you back 1 to 6 squares, or to a square that is not a card's. A Reindeer card names its lucky totals and both outcomes (money or a gift receipt). At a networked table everyone plays with the host's cards, which travel with the table's fair-play record. None of our printed Reindeer cards' fines or rewards exceeds $20 either."),
        Ruling("Ages and TRAFFIC JAM", "Nobody's age can be asked over a network, so everyone is treated as over 15 unless the table option \"young\" lists the seats of players 15 and under (seats count from 1). Such a player's second roll in TRAFFIC JAM always moves them out, by its total."),
        Ruling("Leaving TRAFFIC JAM", "Landing on or being sent to TRAFFIC JAM ends your turn. On each later turn you roll once: a 7 or doubles moves you out by that roll, and doubles then give another roll as usual (the rulebook's exceptions do not include leaving); any other roll ends your turn where you are."),
        Ruling("POST OFFICE and GIFT WRAP", "POST OFFICE: pay $5 postage to CHRISTMAS CLUB. GIFT WRAP: pay $2 to CHRISTMAS CLUB for each gift receipt you hold. Either way a double that brought you there gives no other roll."),
        Ruling("Three doubles", "The third double in a row does not move you by the dice: you advance straight to SALES TAX, collect nothing at START, pay the tax, and your turn ends."),
        Ruling("Moving by cards", "\"Advance\" moves you clockwise and collects $50 if you pass START; \"go to\" sends you straight there without passing START; \"go back\" never collects. Wherever a card puts you, you do what that square says, as if you had landed there (SUPER SHOPPER included)."),
        Ruling("Paying when short", "Whoever cannot pay in full pays all they have and is bankrupt for the rest, which is forgiven at once and never owed later. A card that pays every player is paid to them in turn from your left until your money runs out."),
        Ruling("A bankrupt player", "A bankrupt player takes their turns as usual, draws cards, collects money, keeps every gift, and may buy again as soon as they have the whole price. Gift receipts are never sold, traded or lent."),
        Ruling("Receipts from cards", "A gift receipt from a card counts towards your shopping like a bought one, so a card can complete your shopping and win the game; a second receipt of a price you own is kept but adds nothing. Scrooge's \"Too extravagant\" takes back the receipt you choose; with none, it does nothing."),
        Ruling("A game that never ends", f"The game ends when someone completes their shopping, or wins on SUPER SHOPPER, however long it takes. Only so that a program's game cannot go on forever (players who never buy, say), a game still going after round {ROUND_LIMIT:,} stops there: the most different gifts wins, then the most money, then the tied players share the win. No real game comes near: the longest of 50,000 bot games took 118 rounds.", quote="The player first completing his shopping is the winner."),
    )
    keys = (
        ("r, Enter", "roll the dice (to move, to leave TRAFFIC JAM, on SUPER SHOPPER, after a Reindeer card)"),
        ("b / n", "buy the gift on offer / no thanks"),
        ("1-7", "choose that option in the bar under the board (a gift, a receipt to return, a player)"),
        ("←/→, Enter", "highlight an option in the bar and choose it"),
    )

    # -------------------------------------------------------------- setup
    def setup(self, options: Mapping[str, Any], players: Sequence[str], rng: Rng) -> State:
        n = len(players)
        self.check_players(n)
        given = sorted(set(options.get("young", ())))
        if any(not isinstance(s, int) or not 1 <= s <= n for s in given):
            raise ValueError(f"the option young lists seats 1-{n} (seats count from 1), not {given}")
        young = tuple(s - 1 for s in given)
        from .personal_cards import personal_deck  # (it builds on this module's cards)

        personal = personal_deck(options.get("cards", []))
        first = rng.below(n)
        state = State(
            players=tuple(players),
            money=(START_MONEY,) * n,
            position=(START,) * n,
            gifts=((),) * n,
            jammed=(-1,) * n,
            young=young,
            personal=personal,
            first=first,
            turn=first,
        )
        cards = state.cards
        for deck in DECKS:
            own = [personal_face(deck, i) for i, card in enumerate(personal, 1) if card.deck == deck]
            cards.new_deck(deck_zone(deck), [*(f for f in FACES if CARDS[f].deck == deck), *own], rng)
            cards.declare_zone(discard_zone(deck))
        cards.declare_zone(CARD_ZONE)
        return state

    # -------------------------------------------------------------- queries
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat != state.turn:
            return []
        phase = state.phase
        if phase in ("roll", "jam", "reindeer", "super"):
            return [Roll()]
        if phase == "shop":
            return [*(Buy(v) for v in state.offer), Decline()]
        if phase == "return":
            return [Return(v) for v in sorted(set(state.gifts[seat]))]
        if phase == "pick":
            return [Pick(s) for s in range(len(state.players)) if s != seat]
        return []

    def is_legal(self, state: State, seat: int, action: Action) -> bool:
        if seat != state.turn:
            return False
        phase = state.phase
        if type(action) is Roll:
            return phase in ("roll", "jam", "reindeer", "super")
        if type(action) is Buy:
            return phase == "shop" and action.value in state.offer
        if type(action) is Decline:
            return phase == "shop"
        if type(action) is Return:
            return phase == "return" and action.value in state.gifts[seat]
        if type(action) is Pick:
            return phase == "pick" and action.seat != seat and 0 <= action.seat < len(state.players)
        return False

    def why_illegal(self, state: State, seat: int, action: Action) -> str:
        phase = state.phase
        doing = {
            "roll": "It is your turn: roll the dice and move clockwise.",
            "jam": "You are in TRAFFIC JAM: roll the dice (you need a seven or doubles to advance).",
            "reindeer": "Roll the dice after reading your REINDEER card to see if you're lucky or unlucky.",
            "super": "A 2 or 12 rolled immediately upon landing on SUPER SHOPPER produces an instant winner: roll the dice.",
            "shop": "Buy the gift on offer or decline it.",
            "return": "Return one gift receipt of your choice to the BANK, as the Scrooge card says.",
            "pick": "Choose another player, as the Santa card says.",
        }[phase]
        if isinstance(action, Buy):
            if phase != "shop":
                return f"He can purchase gifts only when he lands on gift squares. {doing}"
            if action.value not in GIFTS:
                return f"There is no ${action.value} gift: the gifts are $1, $5, $25, $50, $100 and $200."
            if action.value in state.gifts[seat]:
                return f"Once a player owns a gift of a particular value, he is prohibited from purchasing another of the same value: you own a ${action.value} gift."
            price = action.value
            if state.offer and len(state.offer) == 1 and price != state.offer[0]:
                return f"He can purchase gifts only when he lands on gift squares: this square sells the ${state.offer[0]} gift."
            if state.money[seat] < price:
                return f"A bankrupt player can begin purchasing gifts the instant he once again has money: the ${price} gift costs ${price} and you have ${state.money[seat]}."
            return f"The ${price} gift is not on offer now."
        if isinstance(action, Decline):
            return f"There is nothing to decline. {doing}"
        if isinstance(action, Return):
            if phase != "return":
                return f"Players are prohibited from trading cards or gifts, except as required by instructions on cards drawn. {doing}"
            return f"You hold no ${action.value} gift receipt to return."
        if isinstance(action, Pick):
            if phase != "pick":
                return f"No card asks you to choose a player now. {doing}"
            if action.seat == seat:
                return "Choose another player: not yourself."
            return f"There is no seat {action.seat}."
        if isinstance(action, Roll):
            return f"Not now: {doing[0].lower()}{doing[1:]}"
        return "That is not a Christmas Game action."

    def result(self, state: State) -> Result | None:
        return self.standing(state) if state.phase == "over" else None

    def standing(self, state: State) -> Result:
        n = len(state.players)
        scores = [distinct(state.gifts[s]) for s in range(n)]
        if state.winner >= 0:
            winners: tuple[int, ...] = (state.winner,)
            tiebreak = ""
        else:
            winners, tiebreak = rank_winners(scores, [("more money", state.money)])
        details = []
        for s in range(n):
            how = f"{receipts_text(state.gifts[s])} · ${state.money[s]}"
            if s == state.winner and state.ending == "super":
                how = f"SUPER SHOPPER! · {how}"
            details.append(how)
        return Result(tuple(scores), winners, tiebreak, tuple(details))

    # -------------------------------------------------------------- apply
    def _apply(self, state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
        log: list[Event] = []
        phase = state.phase
        if isinstance(action, Roll):
            dice = (rng.roll(), rng.roll())
            state.dice, state.roller, state.rolled_for = dice, seat, phase
            if phase == "roll":
                self._move_roll(state, seat, dice, rng, log)
            elif phase == "jam":
                self._jam_roll(state, seat, dice, rng, log)
            elif phase == "reindeer":
                self._reindeer_roll(state, seat, dice, rng, log)
            else:
                self._super_roll(state, seat, dice, rng, log)
        elif isinstance(action, Buy):
            self._buy(state, seat, action.value, log)
            self._end_move(state, seat, log)
        elif isinstance(action, Decline):
            what = f"the ${state.offer[0]} gift" if len(state.offer) == 1 else "the sale"
            log.append(Event("decline", f"{state.players[seat]} declines {what}.", seat))
            self._end_move(state, seat, log)
        elif isinstance(action, Return):
            self._return(state, seat, action.value, log)
            self._end_move(state, seat, log)
        elif isinstance(action, Pick):
            amount = state.gift_money
            log.append(Event("pick", f"{state.players[seat]} chooses {state.players[action.seat]}: each collects ${amount} from the BANK.", seat))
            self._collect(state, seat, amount)
            self._collect(state, action.seat, amount)
            state.gift_money = 0
            self._end_move(state, seat, log)
        return log

    # -------------------------------------------------------------- rolls
    def _move_roll(self, state: State, seat: int, dice: tuple[int, ...], rng: Rng, log: list[Event]) -> None:
        name = state.players[seat]
        a, b = dice
        double = a == b
        if double:
            state.doubles += 1
        if double and state.doubles == 3:
            log.append(Event("roll", f"{name} rolls {a} and {b}: three doubles in a row! Advance to SALES TAX without passing START.", seat))
            state.extra = False
            self._place(state, seat, TAX)
            self._land(state, seat, rng, log)
            if state.phase != "over":
                self._end_turn(state, log)
            return
        state.extra = double
        extra = " (doubles)" if double else ""
        log.append(Event("roll", f"{name} rolls {a} and {b}{extra}.", seat))
        self._walk(state, seat, a + b, log)
        self._settle(state, seat, rng, log)

    def _jam_roll(self, state: State, seat: int, dice: tuple[int, ...], rng: Rng, log: list[Event]) -> None:
        name = state.players[seat]
        a, b = dice
        total, double = a + b, a == b
        second = seat in state.young and state.jammed[seat] >= 1
        if total == 7 or double or second:
            why = "doubles" if double else ("a seven" if total == 7 else "a second roll, on a bicycle")
            log.append(Event("roll", f"{name} rolls {a} and {b}: {why}, out of TRAFFIC JAM!", seat))
            state.jammed = _put(state.jammed, seat, -1)
            if double:
                state.doubles = 1
            state.extra = double
            self._walk(state, seat, total, log)
            self._settle(state, seat, rng, log)
            return
        state.jammed = _put(state.jammed, seat, state.jammed[seat] + 1)
        still = " A second roll will get you out." if seat in state.young else ""
        log.append(Event("jam", f"{name} rolls {a} and {b}: still stuck in TRAFFIC JAM.{still}", seat))
        state.extra = False
        self._end_turn(state, log)

    def _reindeer_roll(self, state: State, seat: int, dice: tuple[int, ...], rng: Rng, log: list[Event]) -> None:
        card = card_of(state.cards.face(state.cards.zone(CARD_ZONE)[-1]), state.personal)
        a, b = dice
        total = a + b
        lucky = total in card.lucky_on
        outcome = card.lucky if lucky else card.unlucky
        word = "lucky" if lucky else "unlucky"
        state.phase = "roll"
        log.append(Event("reindeer", f"{state.players[seat]} rolls {a} and {b} for {card.title}: {word}! {upper_first(effect_text(outcome))}.", seat))
        self._effect(state, seat, outcome, rng, log)
        self._settle(state, seat, rng, log, landed=False)

    def _super_roll(self, state: State, seat: int, dice: tuple[int, ...], rng: Rng, log: list[Event]) -> None:
        a, b = dice
        name = state.players[seat]
        state.phase = "roll"
        if a + b in (2, 12):
            log.append(Event("super", f"{name} rolls {a} and {b}: SUPER SHOPPER! {name} wins at once!", seat))
            self._game_over(state, seat, "super", log)
            return
        log.append(Event("super", f"{name} rolls {a} and {b} on SUPER SHOPPER: no luck.", seat))
        self._settle(state, seat, rng, log, landed=False)

    # -------------------------------------------------------------- moving
    def _walk(self, state: State, seat: int, steps: int, log: list[Event]) -> None:
        """Move clockwise, collecting $50 on landing on or passing START."""
        old = state.position[seat]
        new = (old + steps) % SQUARES
        self._place(state, seat, new)
        if old + steps >= SQUARES:
            self._collect(state, seat, START_BONUS)
            how = "lands on" if new == START else "passes"
            log.append(Event("start", f"{state.players[seat]} {how} START and collects $50.", seat))

    def _place(self, state: State, seat: int, square: int) -> None:
        state.position = _put(state.position, seat, square)

    def _settle(self, state: State, seat: int, rng: Rng, log: list[Event], *, landed: bool = True) -> None:
        """Do what the square says (if just arrived), then end the move unless a choice waits."""
        if landed:
            self._land(state, seat, rng, log)
        if state.phase in ("roll", "jam"):
            self._end_move(state, seat, log)

    def _land(self, state: State, seat: int, rng: Rng, log: list[Event]) -> None:
        """Follow the directions of the square ``seat`` is on. Leaves ``phase`` at
        roll/jam when the move is over, or at the decision it waits for."""
        name = state.players[seat]
        square = BOARD[state.position[seat]]
        kind = square.kind
        state.phase = "roll"
        if kind == "gift":
            value = square.value
            if value in state.gifts[seat]:
                log.append(Event("land", f"{name} lands on a ${value} gift square and already owns a ${value} gift.", seat))
            elif state.money[seat] < value:
                log.append(Event("land", f"{name} lands on a ${value} gift square but has only ${state.money[seat]}.", seat))
            else:
                log.append(Event("land", f"{name} lands on a ${value} gift square.", seat))
                state.phase, state.offer = "shop", (value,)
        elif kind in DECKS:
            self._draw(state, seat, kind, rng, log)
        elif kind == "club":
            amount = state.club
            self._gain(state, seat, amount)
            state.club = CLUB_DEPOSIT
            state.bank -= CLUB_DEPOSIT
            log.append(Event("club", f"{name} claims CHRISTMAS CLUB: ${amount}! The BANK puts $50 back.", seat))
        elif kind == "tax":
            tax = state.money[seat] // 2
            self._spend(state, seat, tax)
            state.bank += tax
            log.append(Event("tax", f"{name} pays SALES TAX: half their money, ${tax}, to the BANK.", seat))
        elif kind == "super":
            log.append(Event("land", f"{name} lands on SUPER SHOPPER: roll a 2 or 12 to win!", seat))
            state.phase = "super"
        elif kind == "jam":
            log.append(Event("jam", f"{name} is stuck in TRAFFIC JAM until a seven or doubles.", seat))
            state.jammed = _put(state.jammed, seat, 0)
            state.extra = False
        elif kind == "post":
            paid = self._pay_club(state, seat, POSTAGE)
            log.append(Event("post", f"{name} mails Christmas cards at the POST OFFICE: ${paid} postage to CHRISTMAS CLUB.", seat))
            self._short(state, seat, POSTAGE, paid, log)
            state.extra = False
        elif kind == "wrap":
            held = len(state.gifts[seat])
            cost = WRAPPING * held
            paid = self._pay_club(state, seat, cost)
            log.append(Event("wrap", f"{name} wraps {held} gift{'s' if held != 1 else ''} at GIFT WRAP: ${paid} to CHRISTMAS CLUB.", seat))
            self._short(state, seat, cost, paid, log)
            state.extra = False

    def _draw(self, state: State, seat: int, deck: str, rng: Rng, log: list[Event]) -> None:
        cards = state.cards
        for shown in list(cards.zone(CARD_ZONE)):
            cards.move(shown, discard_zone(card_of(cards.face(shown), state.personal).deck), visible=EVERYONE)
        if not cards.zone(deck_zone(deck)):
            cards.shuffle([discard_zone(deck)], rng, into=deck_zone(deck))
            log.append(Event("shuffle", f"The {DECK_NAMES[deck]} cards ran out: their discards are shuffled into a new deck."))
        handle = cards.draw(deck_zone(deck), CARD_ZONE, visible=EVERYONE)
        assert handle is not None
        card = card_of(cards.face(handle), state.personal)
        log.append(Event("card", f"{state.players[seat]} draws a {DECK_NAMES[deck]} card, “{card.title}”: {card_text(card)}", seat))
        if deck == "reindeer":
            state.phase = "reindeer"
            return
        self._effect(state, seat, card.effect, rng, log)

    def _effect(self, state: State, seat: int, effect: Effect, rng: Rng, log: list[Event]) -> None:
        what, n = effect
        name = state.players[seat]
        count = len(state.players)
        if what == "collect":
            self._collect(state, seat, n)
        elif what in ("pay", "pay-bank"):
            paid = self._pay_club(state, seat, n) if what == "pay" else self._pay_bank(state, seat, n)
            self._short(state, seat, n, paid, log)
        elif what == "per-gift":
            cost = n * len(state.gifts[seat])
            paid = self._pay_club(state, seat, cost)
            log.append(Event("pay", f"{name} holds {len(state.gifts[seat])} gift receipts and pays ${paid}.", seat))
            self._short(state, seat, cost, paid, log)
        elif what == "collect-each":
            for other in ((seat + i) % count for i in range(1, count)):
                paid = self._spend(state, other, n)
                self._gain(state, seat, paid)
                self._short(state, other, n, paid, log)
        elif what == "pay-each":
            owed = n * (count - 1)
            total = 0
            for other in ((seat + i) % count for i in range(1, count)):
                paid = self._spend(state, seat, n)
                self._gain(state, other, paid)
                total += paid
            self._short(state, seat, owed, total, log)
        elif what == "receipt":
            had = n in state.gifts[seat]
            state.gifts = _put(state.gifts, seat, (*state.gifts[seat], n))
            again = " (a second one)" if had else ""
            log.append(Event("receipt", f"{name} takes a ${n} gift receipt{again}: {distinct(state.gifts[seat])} of 6 gifts.", seat))
            self._check_shopping(state, seat, log)
        elif what == "shop":
            offer = tuple(v for v in needs(state.gifts[seat]) if v <= state.money[seat])
            if offer:
                state.phase, state.offer = "shop", offer
            else:
                log.append(Event("shop", f"{name} cannot afford any gift still needed.", seat))
        elif what == "return":
            if state.gifts[seat]:
                state.phase = "return"
            else:
                log.append(Event("return", f"{name} has no gift to take back.", seat))
        elif what == "pick":
            state.phase, state.gift_money = "pick", n
        elif what == "advance":
            target = self._next_square(state.position[seat], n)
            self._walk(state, seat, (target - state.position[seat]) % SQUARES or SQUARES, log)
            self._land(state, seat, rng, log)
        elif what == "go":
            self._place(state, seat, square_of(n))
            self._land(state, seat, rng, log)
        elif what == "back":
            self._place(state, seat, (state.position[seat] - n) % SQUARES)
            self._land(state, seat, rng, log)

    @staticmethod
    def _next_square(position: int, target: str) -> int:
        test: Callable[[Square], bool]
        if target.startswith("gift-"):
            value = int(target[5:])
            test = lambda sq: sq.kind == "gift" and sq.value == value  # noqa: E731
        else:
            test = lambda sq: sq.kind == target  # noqa: E731
        return next((position + i) % SQUARES for i in range(1, SQUARES + 1) if test(BOARD[(position + i) % SQUARES]))

    # -------------------------------------------------------------- money
    def _gain(self, state: State, seat: int, amount: int) -> None:
        state.money = _put(state.money, seat, state.money[seat] + amount)

    def _spend(self, state: State, seat: int, amount: int) -> int:
        """Take up to ``amount`` from ``seat``; returns what was actually paid."""
        paid = min(amount, state.money[seat])
        state.money = _put(state.money, seat, state.money[seat] - paid)
        return paid

    def _collect(self, state: State, seat: int, amount: int) -> None:
        """``seat`` collects from the BANK."""
        self._gain(state, seat, amount)
        state.bank -= amount

    def _pay_club(self, state: State, seat: int, amount: int) -> int:
        paid = self._spend(state, seat, amount)
        state.club += paid
        return paid

    def _pay_bank(self, state: State, seat: int, amount: int) -> int:
        paid = self._spend(state, seat, amount)
        state.bank += paid
        return paid

    def _short(self, state: State, seat: int, owed: int, paid: int, log: list[Event]) -> None:
        if paid < owed:
            log.append(Event("bankrupt", f"{state.players[seat]} is bankrupt: pays ${paid} of ${owed}, and the rest is forgiven.", seat))

    # -------------------------------------------------------------- gifts
    def _buy(self, state: State, seat: int, value: int, log: list[Event]) -> None:
        self._pay_bank(state, seat, value)
        state.gifts = _put(state.gifts, seat, (*state.gifts[seat], value))
        state.offer = ()
        log.append(Event("buy", f"{state.players[seat]} buys a ${value} gift: {distinct(state.gifts[seat])} of 6.", seat))
        self._check_shopping(state, seat, log)

    def _return(self, state: State, seat: int, value: int, log: list[Event]) -> None:
        held = list(state.gifts[seat])
        # A duplicate goes back first, so the receipt returned is the last one got.
        del held[len(held) - 1 - held[::-1].index(value)]
        state.gifts = _put(state.gifts, seat, tuple(held))
        log.append(Event("return", f"{state.players[seat]} returns a ${value} gift receipt to the BANK: {distinct(held)} of 6 gifts.", seat))

    def _check_shopping(self, state: State, seat: int, log: list[Event]) -> None:
        if not needs(state.gifts[seat]):
            log.append(Event("done", f"{state.players[seat]} has all six gifts: Christmas shopping done!", seat))
            self._game_over(state, seat, "shopping", log)

    # -------------------------------------------------------------- turns
    def _end_move(self, state: State, seat: int, log: list[Event]) -> None:
        if state.phase == "over":
            return
        state.offer = ()
        if state.extra:
            state.extra = False
            state.phase = "roll"
            log.append(Event("again", f"Doubles: {state.players[seat]} rolls again.", seat))
            return
        self._end_turn(state, log)

    def _end_turn(self, state: State, log: list[Event]) -> None:
        if state.phase == "over":
            return
        n = len(state.players)
        state.turns += 1
        state.doubles, state.extra, state.offer = 0, False, ()
        state.turn = (state.turn + 1) % n
        if state.turn == state.first:
            if state.round >= ROUND_LIMIT:
                log.append(Event("limit", f"Round {ROUND_LIMIT:,} is over: the game ends, and the most gifts wins."))
                self._game_over(state, -1, "rounds", log)
                return
            state.round += 1
        state.phase = "jam" if state.jammed[state.turn] >= 0 else "roll"

    def _game_over(self, state: State, winner: int, why: str, log: list[Event]) -> None:
        state.phase, state.ending, state.winner = "over", why, winner
        state.offer, state.extra = (), False
        result = self.result(state)
        assert result is not None
        names = " and ".join(state.players[w] for w in result.winners)
        log.append(Event("over", f"{names} win{'s' if len(result.winners) == 1 else ''}!"))


def _put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


GAME = ChristmasGame()
