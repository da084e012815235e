"""Chip 'n' Dale: Christmas Treasures — the rules, and our rulings where the book is silent.

A push-your-luck memory game: flip treasures in the tree one at a time, stop
before Pluto's faces reach three, collect two, and remember what you saw.

Owns: this game's state, actions, rules, scoring and rulings.
Must not touch: the UI, the network, clocks; faces are read and shown only
through the card model (``Cards``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from .cards import EVERYONE, NOBODY
from .engine import (
    Action,
    BaseState,
    Event,
    Game,
    Result,
    Ruling,
    count,
    first_seat,
    first_seat_option,
    rank_winners,
    who_starts,
)
from .rng import Rng

TREE_SLOTS = 6
PLUTO_LIMIT = 3

# ---------------------------------------------------------------- the treasures

#: Treasure kinds, their display names, and how many cards carry 0, 1 and 2 Pluto faces.
#: The rulebook gives 60 cards but not their mix: this table is our ruling.
DISTRIBUTION: dict[str, tuple[int, int, int]] = {
    "ornament-chip": (4, 3, 1),
    "ornament-dale": (4, 3, 1),
    "candy-chip": (4, 3, 1),
    "candy-dale": (4, 3, 1),
    "popcorn": (6, 4, 2),
    "acorn": (6, 3, 1),
    "bell": (2, 3, 1),
}

NAMES: dict[str, str] = {
    "ornament-chip": "Chip Ornament",
    "ornament-dale": "Dale Ornament",
    "candy-chip": "Chip Candy Cane",
    "candy-dale": "Dale Candy Cane",
    "popcorn": "Popcorn",
    "acorn": "Acorn",
    "bell": "Bell",
}


def all_faces() -> list[str]:
    """The 60 treasure faces: ``kind/plutos``."""
    faces = []
    for kind, counts in DISTRIBUTION.items():
        for plutos, many in enumerate(counts):
            faces += [f"{kind}/{plutos}"] * many
    return faces


@cache
def treasure(face: str) -> tuple[str, int]:
    """``("bell", 2)`` from ``"bell/2"``: the kind and its Pluto faces."""
    kind, _, plutos = face.partition("/")
    return kind, int(plutos)


@cache
def face_name(face: str) -> str:
    kind, plutos = treasure(face)
    marks = f" ({plutos} Pluto{'s' if plutos > 1 else ''})" if plutos else ""
    return f"{NAMES[kind]}{marks}"


# ---------------------------------------------------------------- scoring


@dataclass(frozen=True)
class Score:
    ornaments: int
    candy_canes: int
    popcorn: int
    acorns: int
    bells: int

    @property
    def total(self) -> int:
        return self.ornaments + self.candy_canes + self.popcorn + self.acorns + self.bells

    def describe(self) -> str:
        parts = [
            (self.ornaments, "ornaments"),
            (self.candy_canes, "candy canes"),
            (self.popcorn, "popcorn"),
            (self.acorns, "acorns"),
            (self.bells, "bells"),
        ]
        return " + ".join(f"{name} {points}" for points, name in parts if points) or "nothing"


def score(faces: Iterable[str]) -> Score:
    """Score a collection. Pure: a function of the faces alone.

    Chip+Dale Ornament pairs 3, Chip+Dale Candy Cane pairs 3, Popcorn triples
    5, Acorns 1 each, Bells 2 each; each card scores once; Pluto faces ignored.
    """
    kinds = Counter(treasure(face)[0] for face in faces)
    return Score(
        ornaments=3 * min(kinds["ornament-chip"], kinds["ornament-dale"]),
        candy_canes=3 * min(kinds["candy-chip"], kinds["candy-dale"]),
        popcorn=5 * (kinds["popcorn"] // 3),
        acorns=kinds["acorn"],
        bells=2 * kinds["bell"],
    )


# ---------------------------------------------------------------- events

#: The Event stack, top (Event 1) to bottom (Event 6): (id, star?, text).
EVENTS: tuple[tuple[str, bool, str], ...] = (
    ("collect-three", True, "Before your turn, collect three Treasures from the top of the deck. Then discard one of your Treasures."),
    ("peek", True, "Before your turn, peek at two Treasures in the tree."),
    ("swap", True, "Before your turn, swap one of your Treasures with a Treasure in the tree."),
    ("collect-two", False, "Each player collects two Treasures from the top of the deck. Then, at the same time, all players pass one of their Treasures to the player on their right."),
    ("discard-tree", False, "Discard all the Treasures in the tree. Then refill the tree from the deck."),
    ("flip-tree", False, "Flip all the Treasures in the tree face up. Then flip them face down, shuffle them, and replace them in the tree."),
)
EVENT_TEXT = {eid: text for eid, _, text in EVENTS}
STAR_EVENTS = frozenset(eid for eid, star, _ in EVENTS if star)
EVENT_TITLES = {
    "collect-three": "Collect three",
    "peek": "Peek",
    "swap": "Swap",
    "collect-two": "Each player collects two",
    "discard-tree": "Discard the tree",
    "flip-tree": "Flip the tree",
}


def events_for(players: int) -> tuple[str, ...]:
    """The Event stack for this many players: 4 players drop the bottom card, 5-6 the bottom two."""
    keep = 6 if players <= 3 else 5 if players == 4 else 4
    return tuple(eid for eid, _, _ in EVENTS[:keep])


# ---------------------------------------------------------------- actions


@dataclass(frozen=True)
class Flip(Action):
    """Flip the face-down Treasure in a tree slot (0-5)."""

    kind = "flip"
    slot: int


@dataclass(frozen=True)
class Stop(Action):
    """Stop flipping and collect."""

    kind = "stop"


@dataclass(frozen=True)
class Collect(Action):
    """Collect the face-up Treasure in a tree slot."""

    kind = "collect"
    slot: int


@dataclass(frozen=True)
class Discard(Action):
    """Collect-three event: discard one of your Treasures (by handle)."""

    kind = "discard"
    card: int


@dataclass(frozen=True)
class Peek(Action):
    """Peek event: look at a face-down Treasure in a tree slot."""

    kind = "peek"
    slot: int


@dataclass(frozen=True)
class Give(Action):
    """Swap event, first half: the Treasure of yours that goes into the tree."""

    kind = "give"
    card: int


@dataclass(frozen=True)
class Take(Action):
    """Swap event, second half: the tree slot whose Treasure you take."""

    kind = "take"
    slot: int


@dataclass(frozen=True)
class Pass(Action):
    """Collect-two event: secretly choose the Treasure you pass to your right."""

    kind = "pass"
    card: int


@dataclass(frozen=True)
class Continue(Action):
    """Flip-the-tree event: everyone has seen the tree; shuffle it face down."""

    kind = "continue"


# The slot actions, made once (legal_actions is the hot path of every simulation).
FLIPS = tuple(Flip(s) for s in range(TREE_SLOTS))
COLLECTS = tuple(Collect(s) for s in range(TREE_SLOTS))
PEEKS = tuple(Peek(s) for s in range(TREE_SLOTS))
TAKES = tuple(Take(s) for s in range(TREE_SLOTS))
STOP = Stop()
CONTINUE = Continue()
ONE_SEAT = tuple(frozenset((seat,)) for seat in range(8))
NOBODY_ACTS: frozenset[int] = frozenset()

# ---------------------------------------------------------------- state


@dataclass
class State(BaseState):
    first: int = 0
    #: Events still face down, top first.
    events: tuple[str, ...] = ()
    #: The Event face up this round.
    event: str | None = None
    round: int = 0
    #: The seat whose turn it is (during the whole-table events: the first player).
    turn: int = 0
    turns_taken: int = 0
    #: flip | collect | discard | peek | give | take | pass | tree-shown | over
    phase: str = "flip"
    #: Seat holding the Star token, or None when it rests on the tree.
    star: int | None = None
    #: Tree slots flipped face up this turn, and their Pluto faces so far.
    flipped: tuple[int, ...] = ()
    plutos: int = 0
    caught: bool = False
    to_collect: int = 0
    #: Tree slots peeked at this turn (their faces visible to the turn's player until they flip).
    peeked: tuple[int, ...] = ()


SLOT_ZONES = tuple(f"tree.{slot}" for slot in range(TREE_SLOTS))


def slot_zone(slot: int) -> str:
    return SLOT_ZONES[slot]


def collection_zone(seat: int) -> str:
    return f"collection.{seat}"


def right_of(seat: int, players: int) -> int:
    """Our ruling: turns go clockwise, so the player on your right is the one before you."""
    return (seat - 1) % players


# ---------------------------------------------------------------- the game


class ChipNDale(Game):
    id = "chip-n-dale"
    title = "Chip 'n' Dale: Christmas Treasures"
    min_players = 2
    max_players = 6
    table_options = (first_seat_option("Who last ate a candy cane?"),)
    actions = (Flip, Stop, Collect, Discard, Peek, Give, Take, Pass, Continue)
    max_actions = 1_000
    how_to_play = """
Flip Treasures in the tree of six one at a time, and stop whenever you choose.
If the Treasures you flipped show three or more Pluto faces, Pluto caught you:
you must stop, and you collect only one Treasure instead of two. Then the rest
of the tree turns face down again and is refilled from the deck (the discards
are shuffled into a new deck when it runs out).

Each round starts by flipping the next Event. A Star Event (Collect three,
Peek, Swap) is done by every player before their own turn, the Star token
passing from player to player. Any other Event (Each player collects two,
Discard the tree, Flip the tree) is done once, before the first turn. Two or
three players use all six Events, four players five, five or six players four.
When no Event is left to flip, the game ends.

Scoring: each Chip + Dale pair of Ornaments 3, each Chip + Dale pair of Candy
Canes 3, each three Popcorn 5, each Acorn 1, each Bell 2. Each card scores
once; Pluto faces do not score. Most points wins; a tie goes to the tied
player with more Treasure cards.
"""
    openings = (
        "The tree's Treasures are dealt face down to nobody. A flipped or collected Treasure "
        "opens to everyone as it turns; a peek opens that one card to the player peeking "
        "only. When the Event flips the tree and shuffles it, every player shuffles it again; so too "
        "the discard pile when the deck runs out."
    )
    rulings = (
        Ruling("The 60 Treasures", "8 each of Chip Ornament, Dale Ornament, Chip Candy Cane and Dale Candy Cane, 12 Popcorn, 10 Acorns, 6 Bells. 30 cards show no Pluto, 22 show one, 8 show two (see the table in the help)."),
        who_starts("who last ate a candy cane", quote="The player who last ate a candy cane takes the first turn."),
        Ruling("Flipping before you stop", "You must flip at least two Treasures before you stop (or every card in the tree if it holds fewer), because you collect two face-up Treasures. When every card in the tree is face up you stop."),
        Ruling("Pluto", "Pluto catches you when the Treasures you flipped this turn show three or more Pluto faces in total; you collect one of your face-up Treasures."),
        Ruling("Event order", "The Events are numbered in the order the sheet lists them: 1 Collect three, 2 Peek, 3 Swap, 4 Each player collects two, 5 Discard the tree, 6 Flip the tree."),
        Ruling("Discarded Treasures", "Discarded Treasures go face up to a discard pile beside the deck. When the deck runs out, the discard pile is shuffled face down into a new deck."),
        Ruling("Peek", "You choose the two tree slots one at a time. Their faces stay visible to you alone until you flip your first Treasure; after that you must remember them. If the tree holds fewer than two cards you peek at what is there."),
        Ruling("Swap", "The Treasure you take from the tree comes face up into your collection; yours goes face down into its slot. The swap is part of the Event, so you must make it if you have a Treasure and the tree has a card."),
        Ruling("Passing right", "Play goes clockwise, so the player on your right is the player before you in turn order. Choices are secret until everyone has chosen; a player with no Treasures passes nothing."),
        Ruling("Flip the tree", "Everyone sees the six faces until the first player shuffles the tree; the shuffled Treasures get new places, so nobody can follow them."),
        Ruling("An empty deck", "If the deck and the discard pile are both empty, the tree is not refilled and Events draw what is left; a player whose turn finds an empty tree collects nothing."),
        Ruling("Ties", "Most points wins; then the tied player with more Treasure cards; if still tied, the tied players share the win."),
    )
    keys = (
        ("1-6", "flip / collect / peek / take the Treasure in that tree slot"),
        ("s", "stop flipping and collect"),
        ("←/→, Enter", "choose one of your Treasures (discard, swap, pass)"),
        ("c", "continue after the tree is shown"),
    )

    # -------------------------------------------------------------- setup
    def setup(self, options: Mapping[str, Any], players: Sequence[str], rng: Rng) -> State:
        n = len(players)
        self.check_players(n)
        state = State(players=tuple(players), first=first_seat(options, n, rng), events=events_for(n))
        cards = state.cards
        cards.new_deck("deck", all_faces(), rng)
        cards.declare_zone("discard")
        for seat in range(n):
            cards.declare_zone(collection_zone(seat))
        for slot in range(TREE_SLOTS):
            cards.draw("deck", slot_zone(slot), visible=NOBODY)
        state.turn = state.first
        dealt: list[Event] = [Event("first", f"{state.players[state.first]} takes the first turn.", state.first)]
        self._start_round(state, rng, dealt)
        state.note_deal(dealt)
        return state

    # -------------------------------------------------------------- queries
    def to_act(self, state: State) -> frozenset[int]:
        if state.phase == "over":
            return NOBODY_ACTS
        if state.phase == "pass":
            return frozenset(self._passers(state))
        return ONE_SEAT[state.turn]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state.phase == "pass":
            if seat not in self._passers(state):
                return []
        elif seat != state.turn or state.phase == "over":
            return []
        cards = state.cards
        phase = state.phase
        if phase == "flip":
            acts: list[Action] = [FLIPS[s] for s in self._face_down_slots(state)]
            if self._may_stop(state):
                acts.append(STOP)
            return acts
        if phase == "collect":
            return [COLLECTS[s] for s in state.flipped if cards.zones[SLOT_ZONES[s]]]
        if phase in ("discard", "give", "pass"):
            kind = {"discard": Discard, "give": Give, "pass": Pass}[phase]
            return [kind(h) for h in cards.zone(collection_zone(seat))]
        if phase == "peek":
            return [PEEKS[s] for s in self._face_down_slots(state) if s not in state.peeked]
        if phase == "take":
            return [TAKES[s] for s in range(TREE_SLOTS) if cards.zones[SLOT_ZONES[s]]]
        if phase == "tree-shown":
            return [CONTINUE]
        return []

    def is_legal(self, state: State, seat: int, action: Action) -> bool:
        if seat != state.turn and state.phase != "pass":
            return False
        if state.phase == "flip" and type(action) is Flip:
            slot = action.slot
            return 0 <= slot < TREE_SLOTS and bool(state.cards.zones[SLOT_ZONES[slot]]) and slot not in state.flipped
        if state.phase == "flip" and type(action) is Stop:
            return self._may_stop(state)
        if state.phase == "collect" and type(action) is Collect:
            return action.slot in state.flipped and bool(state.cards.zones[SLOT_ZONES[action.slot]])
        return action in self.legal_actions(state, seat)

    def why_illegal(self, state: State, seat: int, action: Action) -> str:
        phase = state.phase
        expected = {
            "flip": "flip a Treasure in the tree or stop",
            "collect": "collect a face-up Treasure",
            "discard": "discard one of your Treasures (Collect three)",
            "peek": "peek at a face-down Treasure in the tree",
            "give": "choose one of your Treasures to swap into the tree",
            "take": "choose a Treasure in the tree to swap with",
            "pass": "choose a Treasure to pass to your right",
            "tree-shown": "continue once you have seen the tree",
        }[phase]
        if phase == "flip" and isinstance(action, Stop):
            need = min(2, self._tree_count(state))
            return f"Flip Treasures: you must flip at least {need} Treasures before you stop, since you collect two."
        if phase == "flip" and isinstance(action, Flip):
            if not 0 <= action.slot < TREE_SLOTS or not state.cards.zones[SLOT_ZONES[action.slot]]:
                return "Flip Treasures: flip Treasures in the tree (do not flip from the deck); that slot is empty."
            return "Flip Treasures: that Treasure is already face up."
        if phase == "collect" and isinstance(action, Collect):
            return "Collect Treasures: choose face-up Treasures in the tree to collect."
        if phase in ("discard", "give", "pass") and hasattr(action, "card"):
            return "That card is not one of your Treasures."
        if phase == "peek" and isinstance(action, Peek):
            return "Peek: peek at two different face-down Treasures in the tree."
        if phase == "take" and isinstance(action, Take):
            return "Swap: that tree slot is empty."
        return f"Now you must {expected}."

    def why_waiting(self, state: State, seat: int) -> str:
        if state.phase == "pass" and state.cards.sealed(seat) is not None:
            return "You have already chosen the Treasure you pass; the others are still choosing."
        return "It is not your turn."

    def result(self, state: State) -> Result | None:
        return self.standing(state) if state.phase == "over" else None

    def standing(self, state: State) -> Result:
        cards = state.cards
        collections = [cards.faces(collection_zone(s)) for s in range(len(state.players))]
        scores = [score(c) for c in collections]
        totals = [s.total for s in scores]
        winners, tiebreak = rank_winners(
            totals, [("more Treasure cards", [len(c) for c in collections])]
        )
        details = tuple(f"{s.describe()} ({count(len(c), 'card')})" for s, c in zip(scores, collections, strict=True))
        return Result(tuple(totals), winners, tiebreak, details)

    # -------------------------------------------------------------- apply
    def _apply(self, state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
        log: list[Event] = []
        cards = state.cards
        name = state.players[seat]
        if isinstance(action, Flip):
            self._forget_peeks(state)
            handle = cards.zones[SLOT_ZONES[action.slot]][0]
            cards.show(handle)
            face = cards.face(handle)
            state.flipped += (action.slot,)
            state.plutos += treasure(face)[1]
            log.append(Event("flip", f"{name} flips {face_name(face)}.", seat))
            if state.plutos >= PLUTO_LIMIT:
                state.caught = True
                log.append(Event("caught", f"Pluto caught {name} in the tree! They collect only one Treasure.", seat))
                self._to_collect(state, 1, rng, log)
            elif not self._face_down_slots(state):
                self._to_collect(state, 2, rng, log)
        elif isinstance(action, Stop):
            log.append(Event("stop", f"{name} stops flipping.", seat))
            self._to_collect(state, 2, rng, log)
        elif isinstance(action, Collect):
            handle = cards.zones[SLOT_ZONES[action.slot]][0]
            cards.move(handle, collection_zone(seat), visible=EVERYONE)
            log.append(Event("collect", f"{name} collects {face_name(cards.face(handle))}.", seat))
            state.flipped = tuple(s for s in state.flipped if s != action.slot)
            state.to_collect -= 1
            if state.to_collect == 0 or not state.flipped:
                self._end_turn(state, rng, log)
        elif isinstance(action, Discard):
            cards.move(action.card, "discard", visible=EVERYONE)
            log.append(Event("discard", f"{name} discards {face_name(cards.face(action.card))}.", seat))
            self._begin_flipping(state, rng, log)
        elif isinstance(action, Peek):
            handle = cards.zones[SLOT_ZONES[action.slot]][0]
            cards.show(handle, seat)
            state.peeked += (action.slot,)
            log.append(Event("peek", f"{name} peeks at the Treasure in slot {action.slot + 1}.", seat))
            if len(state.peeked) >= 2 or not self.legal_actions(state, seat):
                self._begin_flipping(state, rng, log)
        elif isinstance(action, Give):
            state.phase = "take"
            state.peeked = ()
            # Remember the card on the table: it waits on the tree's edge, face up, until the take.
            cards.move(action.card, "swap", visible=EVERYONE)
            log.append(Event("give", f"{name} offers {face_name(cards.face(action.card))} to the tree.", seat))
        elif isinstance(action, Take):
            zone = slot_zone(action.slot)
            taken = cards.zone(zone)[0]
            given = cards.zone("swap")[0]
            cards.move(taken, collection_zone(seat), visible=EVERYONE)
            cards.move(given, zone, visible=NOBODY)
            log.append(Event("swap", f"{name} swaps it for {face_name(cards.face(taken))} from slot {action.slot + 1}.", seat))
            self._begin_flipping(state, rng, log)
        elif isinstance(action, Pass):
            cards.seal(seat, str(action.card))
            log.append(Event("pass-chosen", f"{name} has chosen a Treasure to pass.", seat))
            if not self._passers(state):
                self._resolve_passes(state, rng, log)
        elif isinstance(action, Continue):
            occupied = [slot_zone(s) for s in range(TREE_SLOTS) if cards.zones[SLOT_ZONES[s]]]
            cards.shuffle(occupied, rng)
            log.append(Event("shuffle-tree", "The tree is flipped face down and shuffled.", seat))
            self._begin_turn(state, state.first, rng, log)
        return log

    # -------------------------------------------------------------- flow
    def _start_round(self, state: State, rng: Rng, log: list[Event]) -> None:
        if not state.events:
            state.event = None
            state.phase = "over"
            log.append(Event("end", "No Events are left to flip: the game is over."))
            return
        state.event, state.events = state.events[0], state.events[1:]
        state.round += 1
        state.turns_taken = 0
        state.turn = state.first
        event = state.event
        log.append(Event("event", f"Round {state.round}: the Event is “{EVENT_TITLES[event]}”."))
        cards = state.cards
        if event == "collect-two":
            for seat in self._turn_order(state):
                drawn = [self._draw_deck(state, collection_zone(seat), EVERYONE, rng, log) for _ in range(2)]
                got = [h for h in drawn if h is not None]
                if got:
                    names = " and ".join(face_name(cards.face(h)) for h in got)
                    log.append(Event("collect", f"{state.players[seat]} collects {names}.", seat))
            if self._passers(state):
                state.phase = "pass"
                log.append(Event("pass", "Everyone now secretly chooses a Treasure to pass to their right."))
                return
        elif event == "discard-tree":
            for slot in range(TREE_SLOTS):
                for handle in list(cards.zones[SLOT_ZONES[slot]]):
                    cards.move(handle, "discard", visible=EVERYONE)
            log.append(Event("discard-tree", "The whole tree is discarded."))
            self._refill(state, rng, log)
        elif event == "flip-tree":
            shown = []
            for slot in range(TREE_SLOTS):
                for handle in cards.zones[SLOT_ZONES[slot]]:
                    cards.show(handle)
                    shown.append(f"{slot + 1}: {face_name(cards.face(handle))}")
            if shown:
                state.phase = "tree-shown"
                log.append(Event("flip-tree", "The tree is flipped face up — " + ", ".join(shown) + "."))
                return
        self._begin_turn(state, state.first, rng, log)

    def _begin_turn(self, state: State, seat: int, rng: Rng, log: list[Event]) -> None:
        state.turn = seat
        state.flipped, state.plutos, state.caught, state.peeked = (), 0, False, ()
        cards = state.cards
        name = state.players[seat]
        event = state.event
        if event in STAR_EVENTS:
            state.star = seat
            mine = cards.zone(collection_zone(seat))
            if event == "collect-three":
                drawn = [self._draw_deck(state, collection_zone(seat), EVERYONE, rng, log) for _ in range(3)]
                got = [h for h in drawn if h is not None]
                if got:
                    names = ", ".join(face_name(cards.face(h)) for h in got)
                    log.append(Event("collect", f"{name} takes the Star and collects {names}.", seat))
                if mine:
                    state.phase = "discard"
                    return
            elif event == "peek" and self._face_down_slots(state):
                state.phase = "peek"
                return
            elif event == "swap" and mine and self._tree_count(state):
                state.phase = "give"
                return
        self._begin_flipping(state, rng, log)

    def _begin_flipping(self, state: State, rng: Rng, log: list[Event]) -> None:
        if self._tree_count(state) == 0:
            log.append(Event("empty", f"The tree is empty: {state.players[state.turn]} collects nothing.", state.turn))
            self._end_turn(state, rng, log)
            return
        state.phase = "flip"

    def _to_collect(self, state: State, count: int, rng: Rng, log: list[Event]) -> None:
        state.phase = "collect"
        state.to_collect = min(count, len(state.flipped))

    def _end_turn(self, state: State, rng: Rng, log: list[Event]) -> None:
        self._forget_peeks(state)
        self._refill(state, rng, log)
        state.flipped, state.plutos, state.caught, state.to_collect = (), 0, False, 0
        state.turns_taken += 1
        n = len(state.players)
        if state.turns_taken >= n:
            if state.star is not None:
                log.append(Event("star", "The Star token goes back to the top of the tree."))
            state.star = None
            self._start_round(state, rng, log)
            return
        self._begin_turn(state, (state.turn + 1) % n, rng, log)

    def _refill(self, state: State, rng: Rng, log: list[Event]) -> None:
        cards = state.cards
        for slot in range(TREE_SLOTS):
            zone = slot_zone(slot)
            if cards.zone(zone):
                cards.hide(cards.zone(zone)[0])
            else:
                self._draw_deck(state, zone, NOBODY, rng, log)

    def _draw_deck(self, state: State, to: str, visible: int, rng: Rng, log: list[Event]) -> int | None:
        cards = state.cards
        if not cards.zone("deck") and cards.zone("discard"):
            cards.shuffle(["discard"], rng, into="deck")
            log.append(Event("reshuffle", "The deck ran out: the discards are shuffled into a new deck."))
        return cards.draw("deck", to, visible=visible)

    def _resolve_passes(self, state: State, rng: Rng, log: list[Event]) -> None:
        n = len(state.players)
        cards = state.cards
        for seat, choice in sorted(state.cards.unseal_all().items()):
            handle = int(choice)
            to = right_of(seat, n)
            cards.move(handle, collection_zone(to), visible=EVERYONE)
            log.append(Event("pass", f"{state.players[seat]} passes {face_name(cards.face(handle))} to {state.players[to]}.", seat))
        self._begin_turn(state, state.first, rng, log)

    # -------------------------------------------------------------- helpers
    def _forget_peeks(self, state: State) -> None:
        cards = state.cards
        for slot in state.peeked:
            for handle in cards.zones[SLOT_ZONES[slot]]:
                if not cards.is_public(handle):
                    cards.hide(handle)
        state.peeked = ()

    def _turn_order(self, state: State) -> list[int]:
        n = len(state.players)
        return [(state.first + i) % n for i in range(n)]

    def _tree_count(self, state: State) -> int:
        zones = state.cards.zones
        return len([z for z in SLOT_ZONES if zones[z]])

    def _face_down_slots(self, state: State) -> list[int]:
        zones, flipped = state.cards.zones, state.flipped
        return [s for s, z in enumerate(SLOT_ZONES) if zones[z] and s not in flipped]

    def _may_stop(self, state: State) -> bool:
        return len(state.flipped) >= min(2, self._tree_count(state))

    def _passers(self, state: State) -> list[int]:
        cards = state.cards
        return [
            s for s in range(len(state.players))
            if cards.zone(collection_zone(s)) and cards.sealed(s) is None
        ]


GAME = ChipNDale()
