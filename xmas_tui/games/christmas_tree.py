"""Christmas Tree — the rules, and our rulings where the book is silent.

A set-collection game with hidden hands and a wild card: take a row of face-up
Item cards (paying a card onto each row you skip), or play sets of three or
more of a type to score. Every set you score makes the other players discard
half of that type at once (Surprise!), and you draw a card for each card they
lose, in time to play it in the same turn.

The table, as zones of the card model:

* ``deck`` (face down) and ``discard`` (face up);
* ``row.0`` … ``row.4``, the five rows of 1, 2, 3, 5 and 7 cards, face up;
* ``hand.<seat>``, visible to that seat only (everyone sees how many);
* ``points.<seat>``, the cards kept face down as Points: a seat's score is the
  size of this zone, which every view shows.

Rows and seats are numbered from 0 in actions (``take 0`` takes the first row);
the log speaks of rows 1 to 5, as the rulebook does.

Owns: this game's state, actions, rules, scoring and rulings.
Must not touch: the UI, the network, clocks; faces are read and shown only
through the card model (``Cards``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from .cards import EVERYONE, NOBODY, Cards, seat_mask
from .engine import (
    Action,
    BaseState,
    Event,
    Result,
    Ruling,
    TakingTurns,
    and_list,
    count,
    first_seat,
    first_seat_option,
    rank_winners,
    who_starts,
)
from .rng import Rng

# ---------------------------------------------------------------- the cards

#: The five ordinary Item types (15 cards each) and the wild Santa Claus (14 cards).
ITEMS: tuple[str, ...] = ("tree", "gifts", "gingerbread", "reindeer", "snowman")
SANTA = "santa"
#: Every face, ordinary Items first; public fields name a type by its index here
#: (a face string in a public field would read as a leaked card).
TYPES: tuple[str, ...] = (*ITEMS, SANTA)
COPIES: dict[str, int] = {**{item: 15 for item in ITEMS}, SANTA: 14}

#: Each type's name for one card, and for several (``named`` counts them).
NAMES: dict[str, str] = {
    "tree": "Christmas Tree",
    "gifts": "Gift Box",
    "gingerbread": "Gingerbread Man",
    "reindeer": "Reindeer",
    "snowman": "Snowman",
    SANTA: "Santa Claus",
}
PLURALS: dict[str, str] = {
    "tree": "Christmas Trees",
    "gifts": "Gift Boxes",
    "gingerbread": "Gingerbread Men",
    "reindeer": "Reindeer",
    "snowman": "Snowmen",
    SANTA: "Santa Claus",
}

HAND_SIZE = 3
ROW_SIZES: tuple[int, ...] = (1, 2, 3, 5, 7)
ROWS = len(ROW_SIZES)
ROW_ZONES = tuple(f"row.{row}" for row in range(ROWS))
#: Points that end the game, by number of players.
TARGETS: dict[int, int] = {2: 7, 3: 6, 4: 5, 5: 4}


def all_faces(removed: str | None = None) -> list[str]:
    """The Item cards in play: all 89, or 74 with one ordinary type removed."""
    return [face for face in TYPES if face != removed for _ in range(COPIES[face])]


def set_points(size: int) -> int:
    """Points for a set of ``size`` cards: 1/2/3 for 3/5/6; a 4 scores 1, a 7 or more 3."""
    if size < 3:
        return 0
    if size < 5:
        return 1
    return 2 if size == 5 else 3


def hand_zone(seat: int) -> str:
    return f"hand.{seat}"


def points_zone(seat: int) -> str:
    return f"points.{seat}"


def row_zone(row: int) -> str:
    return ROW_ZONES[row]


def named(item: str, n: int) -> str:
    """``n`` cards of a type in words: ``1 Gift Box``, ``2 Gift Boxes``."""
    return count(n, NAMES[item], PLURALS[item])


def counted(names: Mapping[str, int]) -> str:
    """``"2 Reindeer and 1 Santa Claus"``: a public list of faces (never call it on hidden ones)."""
    return and_list([named(face, n) for face, n in names.items() if n]) or "nothing"


def face_list(faces: Sequence[str]) -> str:
    return counted(Counter(faces))


# ---------------------------------------------------------------- actions


@dataclass(frozen=True)
class Take(Action):
    """A. Take one row (0-4): free for the first row, else pay one card per row skipped."""

    kind = "take"
    row: int


@dataclass(frozen=True)
class Pay(Action):
    """Pay one card of this type from your hand onto the next row you skip (top row first)."""

    kind = "pay"
    item: str


@dataclass(frozen=True)
class Play(Action):
    """B. Play a set: ``naturals`` cards of ``item`` and ``santas`` Santa Claus (wild).

    A set of Santa Claus alone is ``Play("santa", 0, n)``.
    """

    kind = "play"
    item: str
    naturals: int
    santas: int


@dataclass(frozen=True)
class Done(Action):
    """Stop playing sets: end your turn, or finish your final plays."""

    kind = "done"


# ---------------------------------------------------------------- state


@dataclass
class State(BaseState):
    #: The starting player; the last player of each round is the one before.
    first: int = 0
    #: Whose turn it is (in the final plays: who is playing their last sets).
    turn: int = 0
    #: turn (take a row or play a set) | pay | play (more sets, or done) | final | over
    phase: str = "turn"
    #: While paying: the row being taken, and how many rows have been paid so far.
    taking: int = -1
    paid: int = 0
    #: Points that end the game.
    target: int = 0
    #: The type removed in a 2-player game (an index into ``TYPES``), or -1.
    removed: int = -1
    #: Why the game is ending: "" (not yet), "points" or "supply".
    ending: str = ""
    #: Turns played so far.
    turns: int = 0


def points(cards: Cards, seat: int) -> int:
    return len(cards.zone(points_zone(seat)))


def last_player(state: State) -> int:
    """The player whose turn ends each round: the one before the starting player."""
    return (state.first - 1) % len(state.players)


# ---------------------------------------------------------------- the game


class ChristmasTree(TakingTurns):
    id = "christmas-tree"
    title = "Christmas Tree"
    min_players = 2
    max_players = 5
    table_options = (first_seat_option("Who is youngest?"),)
    actions = (Take, Pay, Play, Done)
    # A bound, not a guess: every take (at most 5 actions with its payments)
    # draws at least one card, or exhausts the supply and ends the game after the
    # round. Cards reach the discard pile (and so the deck again) only in a turn
    # in which someone scores, at most 89 per turn, and there are at most 21 such
    # turns (17 before someone reaches the target, 4 after). So there are at most
    # 62 + 21 * 89 takes, and at most 89 sets (each keeps a card for good): fewer
    # than 10,000 actions. Bot games take 50 to 80.
    max_actions = 10_000
    how_to_play = """
89 Item cards: 15 each of Christmas Tree, Gift Boxes, Gingerbread Man, Reindeer
and Snowman, and 14 Santa Claus. Each player is dealt 3 cards, kept hidden;
five rows of 1, 2, 3, 5 and 7 cards are laid face up. With two players one
ordinary type is removed.

On your turn, do one of two things:

A. Take one row of cards into your hand. The 1st row is free no matter how many
cards it holds. For a lower row, pay 1 card from your hand onto each row you
skip from the top (the paid cards stay on those rows). Then refill the row you
took from the deck. When the deck runs out, the discard pile is shuffled into a
new deck. There is no limit to the cards in your hand.

B. Play one or more sets from your hand. A set is 3 or more cards of one type;
Santa Claus is wild. A set of 3/5/6 cards scores 1/2/3 Points: keep that many
of its cards face down as your Points (discard the Santa Claus first, if able)
and discard the rest.

Surprise! After you score a set, every other player holding 2 or more cards of
that type discards half of them (rounded down), and you draw one card from the
deck for each card discarded, before you play another set. A set of Santa Claus
alone makes every other player discard ALL their Santa Claus instead.

When someone reaches 7/6/5/4 Points with 2/3/4/5 players, the game ends after
the last player's turn. Then everyone may play sets from their hand one last
time (no Surprise!). Most Points wins; then most cards in hand; then the tied
players share the victory.
"""
    openings = (
        "A hand opens to its owner only, card by card as it is dealt or drawn; the rows open "
        "to everyone. A card paid, a set played and a card a surprise takes open to everyone. "
        "What the rules need of a hidden hand (whether it holds a set, which cards a surprise "
        "takes) is its owner's answer, held to the cards when they open, at the latest at "
        "the end."
    )
    rulings = (
        Ruling("The 2-player game", "One ordinary type of 15 cards, drawn at random, is removed (74 cards remain). The rulebook's \"16 cards\" is a misprint: no type has 16 cards, and Santa Claus is never removed, since the game needs its wild card.", quote="Note: In a 2-player game, remove one type of Item cards (16 cards) from the game."),
        who_starts("who is youngest", quote="The youngest player is the starting player and you are ready to play!"),
        Ruling("No passing", "On your turn you must take a row or play a set; you may not do nothing. Only a player who can do neither (possible only once the supply is exhausted) has their turn skipped."),
        Ruling("Paying for a row", "You choose which card goes onto each skipped row, the top row first, one card at a time; paid cards lie face up and belong to that row. You may take a row only if you hold a card for every row you skip, so you can never be left unable to pay; once you have chosen a row you must pay for it."),
        Ruling("Empty rows", "A row is refilled from the deck, then from the reshuffled discard pile. If both are empty a row stays short or empty, and an empty row cannot be taken."),
        Ruling("Supply exhausted", "If a row cannot be refilled to its size because the deck and the discard pile are both empty, the game ends after the last player's turn, as if someone had reached the target. So every game ends, even one in which nobody scores."),
        Ruling("Sets of 4, and of 7 or more", "Any 3 or more cards of one type are a set. A set scores for the largest size it reaches: 3 or 4 cards 1 Point, 5 cards 2 Points, 6 or more cards 3 Points."),
        Ruling("Santa Claus in a set", "A set of an ordinary type needs at least one card of that type; any number of Santa Claus may join it. Santa Claus alone always form a Santa Claus set."),
        Ruling("Keeping Santa Claus as Points", "You keep the type's own cards as Points first and discard the Santa Claus; if the set has fewer of its own cards than the Points it scores, Santa Claus make up the rest (a set of 1 Snowman and 5 Santa Claus keeps the Snowman and 2 Santa Claus)."),
        Ruling("Several sets in one turn", "You may play as many sets as you like in your turn, of the same or different types, and then say you are done. Taking a row and playing sets are never mixed in one turn."),
        Ruling("Surprise! after each set", "Surprise! comes as soon as you score a set, before you play another: two sets of Reindeer in one turn make two Reindeer Surprise!s (a player holding 4 Reindeer discards 2, then 1 of the 2 left), and the cards you draw as a reward are yours to play in the same turn."),
        Ruling("Who is surprised", "Only the other players (the scorer is the one rewarded), and only the scoring type's own cards count: a Santa Claus in hand is not a Reindeer. Half is rounded down: 2 or 3 cards lose 1, 4 or 5 lose 2."),
        Ruling("The Santa Claus Surprise!", "After a set of Santa Claus alone, every other player discards all their Santa Claus, even a single one, and you draw one card for each, as in any Surprise!."),
        Ruling("The Surprise! draw", "The reward is always drawn (the book's \"you can draw\" is a reward, and a card in hand never costs Points). If the deck runs out during it, the discard pile, including the cards just discarded, is shuffled into a new deck; so there are always enough cards to draw.", quote="Then, for each card they have discarded, you can draw one card from the deck as a reward."),
        Ruling("The last turn", "\"After the last player's turn\" means the round is completed, so everyone gets the same number of turns: the last player is the one before the starting player. If the target is reached in the last player's turn, the game ends after it."),
        Ruling("The final plays", "At the end each player in turn, from the starting player, may play any sets from their hand (scored as usual, no Surprise!) and then says done; a player with no set to play is skipped."),
        Ruling("Points and ties", "Points cards lie face down (their faces are hidden even from their owner), but everyone sees how many each player has, and how many cards each player holds. Most Points wins; then most cards in hand; then the tied players share the victory."),
    )
    keys = (
        ("1-5", "take that row (row 1 is free; then pay 1 card onto each row you skip)"),
        ("t g b r n s", "while paying: pay with a Tree, Gifts, Gingerbread, Reindeer, Snowman or Santa"),
        ("←/→, Enter", "while paying: highlight a type in your hand and pay with it"),
        ("↑/↓, p", "highlight one of the sets you can play and play it (Enter plays it too)"),
        ("d", "done: end your turn, or finish your final plays"),
    )

    # -------------------------------------------------------------- setup
    def setup(self, options: Mapping[str, Any], players: Sequence[str], rng: Rng) -> State:
        n = len(players)
        self.check_players(n)
        removed = ITEMS[rng.below(len(ITEMS))] if n == 2 else None
        first = first_seat(options, n, rng)
        state = State(
            players=tuple(players),
            first=first,
            turn=first,
            target=TARGETS[n],
            removed=TYPES.index(removed) if removed else -1,
        )
        cards = state.cards
        cards.new_deck("deck", all_faces(removed), rng)
        cards.declare_zone("discard")
        for seat in range(n):
            cards.declare_zone(points_zone(seat))
            for _ in range(HAND_SIZE):
                cards.draw("deck", hand_zone(seat), visible=seat_mask(seat))
        for row, size in enumerate(ROW_SIZES):
            cards.declare_zone(row_zone(row))
            for _ in range(size):
                cards.draw("deck", row_zone(row), visible=EVERYONE)
        dealt = [Event("first", f"{state.players[first]} is the starting player.", first)]
        if removed:
            dealt.append(Event("removed", f"With two players the {NAMES[removed]} cards are left out."))
        state.note_deal(dealt)
        return state

    # -------------------------------------------------------------- queries
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat != state.turn or state.phase == "over":
            return []
        cards = state.cards
        phase = state.phase
        if phase == "pay":
            held = self._hand_counts(cards, seat)
            return [Pay(item) for item in TYPES if item in held]
        acts: list[Action] = []
        if phase == "turn":
            acts += [Take(row) for row in self._takeable_rows(cards, seat)]
        acts += sets_in(self._hand_counts(cards, seat))
        if phase in ("play", "final"):
            acts.append(Done())
        return acts

    def is_legal(self, state: State, seat: int, action: Action) -> bool:
        if seat != state.turn:
            return False
        phase = state.phase
        if type(action) is Take:
            return phase == "turn" and action.row in self._takeable_rows(state.cards, seat)
        cards = state.cards
        if type(action) is Pay:
            return phase == "pay" and cards.ask(
                seat, f"holds a {action.item}", lambda: self._hand_counts(cards, seat)[action.item] > 0
            )
        if type(action) is Play:
            return phase in ("turn", "play", "final") and cards.ask(
                seat, f"holds {action.text()}", lambda: is_set(self._hand_counts(cards, seat), action)
            )
        if type(action) is Done:
            return phase in ("play", "final")
        return False

    def why_illegal(self, state: State, seat: int, action: Action) -> str:
        phase = state.phase
        cards = state.cards
        if phase == "pay":
            row = state.paid + 1
            if isinstance(action, Pay):
                return f"Take a row: pay with a card from your hand — you hold no {PLURALS.get(action.item, repr(action.item))}."
            return f"Take a row: you must first pay 1 card from your hand onto row {row}, which you skip."
        if phase == "final" and not isinstance(action, Play):
            return "When the game ends, you may only play the remaining cards in your hand to score Points, then say done."
        if isinstance(action, Take):
            if phase != "turn":
                return "On your turn perform one of the two actions: you have played cards to score, so you cannot also take a row."
            if not 0 <= action.row < ROWS:
                return "Take one row of cards: there are five rows, 0 to 4 (the 1st to the 5th)."
            if not cards.zone(row_zone(action.row)):
                return f"Take one row of cards: row {action.row + 1} is empty."
            held = len(cards.zone(hand_zone(seat)))
            return (
                f"To take cards from row {action.row + 1} you must pay 1 card from your hand "
                f"for each row you skip from the top ({action.row}); you hold {held}."
            )
        if isinstance(action, Pay):
            return "Pay only when you take a row below the 1st: pay 1 card for each row you skip."
        if isinstance(action, Play):
            return cards.ask(
                seat, f"why {action.text()} is no set", lambda: why_not_set(self._hand_counts(cards, seat), action)
            )
        if isinstance(action, Done):
            return "On your turn, perform one of the two actions: take one row of cards or play cards to score Points (you may not pass)."
        return "That is not a Christmas Tree action."

    def result(self, state: State) -> Result | None:
        return self.standing(state) if state.phase == "over" else None

    def standing(self, state: State) -> Result:
        cards = state.cards
        n = len(state.players)
        scores = [points(cards, s) for s in range(n)]
        held = [len(cards.zone(hand_zone(s))) for s in range(n)]
        winners, tiebreak = rank_winners(scores, [("more cards in hand", held)])
        details = tuple(
            f"{p} Point{'s' if p != 1 else ''}, {h} card{'s' if h != 1 else ''} in hand"
            for p, h in zip(scores, held, strict=True)
        )
        return Result(tuple(scores), winners, tiebreak, details)

    # -------------------------------------------------------------- apply
    def _apply(self, state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
        log: list[Event] = []
        cards = state.cards
        name = state.players[seat]
        if isinstance(action, Take):
            if action.row == 0:
                self._take_row(state, seat, 0, rng, log)
            else:
                state.phase, state.taking, state.paid = "pay", action.row, 0
                log.append(Event("choose-row", f"{name} chooses row {action.row + 1} and pays for the rows above it.", seat))
        elif isinstance(action, Pay):
            question = f"which {action.item} it pays"
            hand = cards.zone(hand_zone(seat))
            (handle,) = self._own_cards(state, seat, question, lambda: [
                next(h for h in reversed(hand) if cards.face(h) == action.item)
            ])  # fmt: skip
            cards.move(handle, row_zone(state.paid), visible=EVERYONE)
            cards.check_claim(seat, cards.face(handle) == action.item, question)
            log.append(Event("pay", f"{name} pays a {NAMES[action.item]} onto row {state.paid + 1}.", seat))
            state.paid += 1
            if state.paid == state.taking:
                self._take_row(state, seat, state.taking, rng, log)
        elif isinstance(action, Play):
            self._play_set(state, seat, action, rng, log)
            if not self._has_set(state, seat):
                self._done(state, seat, rng, log)
            elif state.phase == "turn":
                state.phase = "play"
        elif isinstance(action, Done):
            self._done(state, seat, rng, log)
        return log

    # -------------------------------------------------------------- flow
    def _take_row(self, state: State, seat: int, row: int, rng: Rng, log: list[Event]) -> None:
        cards = state.cards
        zone = row_zone(row)
        taken = list(cards.zone(zone))
        faces = [cards.face(h) for h in taken]
        for handle in taken:
            cards.move(handle, hand_zone(seat), visible=seat_mask(seat))
        log.append(Event("take", f"{state.players[seat]} takes row {row + 1}: {face_list(faces)}.", seat))
        drawn = [self._draw(state, zone, EVERYONE, rng, log) for _ in range(ROW_SIZES[row])]
        got = [cards.face(h) for h in drawn if h is not None]
        if got:
            log.append(Event("refill", f"Row {row + 1} is refilled: {face_list(got)}."))
        if len(got) < ROW_SIZES[row] and not state.ending:
            state.ending = "supply"
            log.append(Event("supply", f"The deck and the discard pile are empty: the game ends after {state.players[last_player(state)]}'s turn."))
        state.taking, state.paid = -1, 0
        self._end_turn(state, rng, log)

    def _play_set(self, state: State, seat: int, play: Play, rng: Rng, log: list[Event]) -> None:
        cards = state.cards
        hand = cards.zone(hand_zone(seat))
        want = {play.item: play.naturals, SANTA: play.santas} if play.item != SANTA else {SANTA: play.santas}
        size = play.naturals + play.santas
        score = set_points(size)
        question = f"which cards make {play.text()}"

        def pick() -> list[int]:
            picked: dict[str, list[int]] = {face: [] for face in want}
            for handle in reversed(hand):
                face = cards.face(handle)
                if face in want and len(picked[face]) < want[face]:
                    picked[face].append(handle)
            return [h for face in want for h in picked[face]]

        shown = self._own_cards(state, seat, question, pick)
        for handle in shown:  # the set is laid out for all to see
            cards.show(handle)
        faces = [cards.face(h) for h in shown]
        cards.check_claim(seat, len(shown) == size and Counter(faces) == Counter(want), question)
        # Keep the type's own cards as Points first; Santa Claus only if the set is short of them.
        ordered = [h for h in shown if cards.face(h) == play.item] + [
            h for h in shown if cards.face(h) == SANTA and play.item != SANTA
        ]
        kept, thrown = ordered[:score], ordered[score:]
        for handle in kept:
            cards.move(handle, points_zone(seat), visible=NOBODY)
        for handle in thrown:
            cards.move(handle, "discard", visible=EVERYONE)
        who = state.players[seat]
        what = counted(want) if play.item != SANTA else f"{play.santas} Santa Claus"
        total = points(cards, seat)
        log.append(Event(
            "score",
            f"{who} plays {what} and scores {score} Point{'s' if score > 1 else ''} ({total} in all).",
            seat,
        ))
        if state.phase == "final":
            return
        if total >= state.target and not state.ending:
            state.ending = "points"
            log.append(Event("target", f"{who} has {total} Points: the game ends after {state.players[last_player(state)]}'s turn.", seat))
        self._surprise(state, seat, play.item, rng, log)

    def _done(self, state: State, seat: int, rng: Rng, log: list[Event]) -> None:
        if state.phase == "final":
            if self._has_set(state, seat):
                log.append(Event("done", f"{state.players[seat]} keeps the rest of their hand.", seat))
            self._next_final(state, seat, log)
            return
        self._end_turn(state, rng, log)

    def _surprise(self, state: State, seat: int, item: str, rng: Rng, log: list[Event]) -> None:
        cards = state.cards
        n = len(state.players)
        lost = 0
        for other in ((seat + i) % n for i in range(1, n)):
            question = f"which {PLURALS[item]} the surprise takes"
            dropped = self._own_cards(state, other, question, partial(surprise_drop, cards, other, item))
            drop = len(dropped)
            if not drop:
                continue
            for handle in dropped:
                cards.move(handle, "discard", visible=EVERYONE)
            cards.check_claim(other, all(cards.face(h) == item for h in dropped), question)
            lost += drop
            log.append(Event("surprise", f"Surprise! {state.players[other]} discards {named(item, drop)}.", other,
                             {"item": item, "cards": drop}))
        if not lost:
            log.append(Event("surprise", f"Surprise! Nobody has to discard {PLURALS[item]}.", None,
                             {"item": item, "cards": 0}))
            return
        for _ in range(lost):
            self._draw(state, hand_zone(seat), seat_mask(seat), rng, log)
        log.append(Event("reward", f"{state.players[seat]} draws {lost} card{'s' if lost > 1 else ''} as a reward.", seat,
                         {"cards": lost}))

    def _end_turn(self, state: State, rng: Rng, log: list[Event]) -> None:
        state.turns += 1
        n = len(state.players)
        seat = state.turn
        while True:
            if state.ending and seat == last_player(state):
                log.append(Event("end", "The game ends: everyone may play the sets in their hand one last time."))
                self._next_final(state, None, log)
                return
            seat = (seat + 1) % n
            state.turn, state.phase = seat, "turn"
            if self._takeable_rows(state.cards, seat) or self._has_set(state, seat):
                return
            log.append(Event("skip", f"{state.players[seat]} can neither take a row nor play a set.", seat))

    def _next_final(self, state: State, after: int | None, log: list[Event]) -> None:
        """Hand the final plays to the next player after ``after`` (``None``: from the
        starting player) who has a set to play; when nobody is left, the game is over."""
        n = len(state.players)
        start = 0 if after is None else (after - state.first) % n + 1
        for offset in range(start, n):
            seat = (state.first + offset) % n
            if self._has_set(state, seat):
                state.turn, state.phase = seat, "final"
                return
        state.phase = "over"
        result = self.result(state)
        assert result is not None  # the game is over
        winners = result.winners
        names = " and ".join(state.players[w] for w in winners)
        log.append(Event("over", f"{names} win{'s' if len(winners) == 1 else ''}!"))

    def _draw(self, state: State, to: str, visible: int, rng: Rng, log: list[Event]) -> int | None:
        cards = state.cards
        if not cards.zone("deck") and cards.zone("discard"):
            cards.shuffle(["discard"], rng, into="deck")
            log.append(Event("reshuffle", "The deck ran out: the discard pile is shuffled into a new deck."))
        return cards.draw("deck", to, visible=visible)

    # -------------------------------------------------------------- helpers
    def _hand_counts(self, cards: Cards, seat: int) -> Counter[str]:
        return Counter(cards.faces(hand_zone(seat)))

    def _has_set(self, state: State, seat: int) -> bool:
        """Whether ``seat`` holds a set: its own answer where its hand is hidden (a claim,
        checked when the hand opens)."""
        cards = state.cards
        return cards.ask(seat, "holds a set", lambda: has_set(self._hand_counts(cards, seat)))

    @staticmethod
    def _own_cards(state: State, seat: int, question: str, pick: Callable[[], list[int]]) -> list[int]:
        """Cards of ``seat``'s hand it picks (its answer where its hand is hidden): distinct
        cards of that hand, or its claim is broken."""
        cards = state.cards
        picked = cards.ask(seat, question, pick)
        hand = hand_zone(seat)
        cards.check_claim(
            seat,
            isinstance(picked, list)
            and len(set(picked)) == len(picked)
            and all(isinstance(h, int) and h in cards and cards.where(h) == hand for h in picked),
            question,
        )
        return picked

    def _takeable_rows(self, cards: Cards, seat: int) -> list[int]:
        held = len(cards.zone(hand_zone(seat)))
        return [row for row in range(min(ROWS, held + 1)) if cards.zone(ROW_ZONES[row])]


# ---------------------------------------------------------------- sets


def sets_in(counts: Mapping[str, int]) -> list[Play]:
    """Every set these cards can form: per type, each count of its own cards and of Santa Claus."""
    return list(_sets(tuple(counts.get(face, 0) for face in TYPES)))


@lru_cache(maxsize=4096)
def _sets(held: tuple[int, ...]) -> tuple[Play, ...]:
    santas = held[-1]
    plays: list[Play] = []
    for item, held_n in zip(ITEMS, held, strict=False):
        for naturals in range(1, held_n + 1):
            plays.extend(Play(item, naturals, s) for s in range(max(0, 3 - naturals), santas + 1))
    plays.extend(Play(SANTA, 0, s) for s in range(3, santas + 1))
    return tuple(plays)


def surprise_drop(cards: Cards, seat: int, item: str) -> list[int]:
    """The cards of ``item`` a surprise takes from ``seat``'s hand: every Santa Claus, or
    half (rounded down) of another type when it holds two or more; the latest drawn go."""
    mine = [h for h in cards.zone(hand_zone(seat)) if cards.face(h) == item]
    drop = len(mine) if item == SANTA else (len(mine) // 2 if len(mine) >= 2 else 0)
    return mine[len(mine) - drop :]


def has_set(counts: Mapping[str, int]) -> bool:
    """Whether these cards can form any set (cheaper than listing them)."""
    santas = counts.get(SANTA, 0)
    return santas >= 3 or any(0 < counts.get(item, 0) and counts[item] + santas >= 3 for item in ITEMS)


def is_set(counts: Mapping[str, int], play: Play) -> bool:
    return why_not_set(counts, play) == ""


def why_not_set(counts: Mapping[str, int], play: Play) -> str:
    """The rule a play breaks with these cards in hand, or "" if it is a set."""
    item, naturals, santas = play.item, play.naturals, play.santas
    if item not in TYPES:
        return f"There is no Item type {item!r} (the types are: {', '.join(TYPES)})."
    if naturals < 0 or santas < 0:
        return "Play cards to score: a set is made of cards from your hand."
    if item == SANTA and naturals:
        return "A set of Santa Claus alone counts its cards as Santa Claus: play santa 0 N."
    if item != SANTA and naturals < 1:
        return f"A set of {PLURALS[item]} needs at least one {NAMES[item]}; Santa Claus alone form a Santa Claus set."
    if naturals + santas < 3:
        return "3 or more cards of the same type can form a set (Santa Claus is wild)."
    if item != SANTA and counts.get(item, 0) < naturals:
        return f"You do not hold {named(item, naturals)}."
    if counts.get(SANTA, 0) < santas:
        return f"You do not hold {santas} Santa Claus."
    return ""


GAME = ChristmasTree()
