"""Disney: Mickey's Christmas Carol — the rules, and our rulings where the book is silent.

A cooperative push-your-luck game: draw tiles from a bag one at a time, stop
before a special tile moves Scrooge, and play two tiles to the shared puzzles.
Finish the four puzzles lowest to highest before Scrooge wakes up. Everyone
wins together or loses together.

The table, as zones of the card model:

* ``bag``: the tiles still to draw, face down to everyone;
* ``drawn``: the tiles the current player drew this turn, face up, in the order drawn;
* ``puzzle.<n>``: the tiles played to puzzle ``n`` (one of the four in use), face up;
* ``box``: what is out of the game, face up: the two puzzles set aside, and
  each "Move Scrooge 1" special tile returned to the box after it was drawn.

Scrooge's place is the public field ``scrooge``: the spaces he has moved
clockwise from 9 (Asleep); 11 is 8 (Awake), see ``hour()``.

Owns: this game's tiles, state, actions, rules and rulings.
Must not touch: the UI, the network, clocks; faces are read and shown only
through the card model (``Cards``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Any

from .cards import EVERYONE, NOBODY, Cards
from .engine import (
    Action,
    BaseState,
    Event,
    Result,
    Ruling,
    TableOption,
    TakingTurns,
    and_list,
    first_seat,
    first_seat_option,
    who_starts,
)
from .rng import Rng

# ---------------------------------------------------------------- the tiles

#: The six puzzles in the box, by the number in the Mickey at the top of each frame.
ALL_PUZZLES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
#: The puzzles of a first game: 5 and 6 go back to the box.
FIRST_GAME: tuple[int, ...] = (1, 2, 3, 4)
IN_PLAY = 4
TILES_PER_PUZZLE = 6
MAX_DRAW = 5
PLAY = 2

#: The three kinds of special tile (our names; the tiles are told apart by their pictures).
TO_BOX = "wake-to-box"  # Move Scrooge 1 and play ALL other tiles; then to the game box
TO_BAG = "wake-to-bag"  # Move Scrooge 1, play ALL other tiles, and return this tile to the bag
IGNORE = "ignore-specials"  # Ignore all special tiles this turn and return them to the bag
SPECIALS: dict[str, int] = {TO_BOX: 3, TO_BAG: 3, IGNORE: 1}
WAKERS = frozenset({TO_BOX, TO_BAG})

SPECIAL_NAMES: dict[str, str] = {
    TO_BOX: "Move Scrooge 1 and play ALL other tiles",
    TO_BAG: "Move Scrooge 1, play ALL other tiles, and return this tile to the bag",
    IGNORE: "Ignore all special tiles this turn and return them to the bag",
}
#: What the log calls each special tile.
SHORT_NAMES: dict[str, str] = {
    TO_BOX: "a Move Scrooge tile (box)",
    TO_BAG: "a Move Scrooge tile (bag)",
    IGNORE: "an Ignore tile",
}

#: The clock, from 9 (Asleep) clockwise round to 8 (Awake).
CLOCK: tuple[int, ...] = (9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8)
AWAKE = len(CLOCK) - 1  # 11 spaces from 9 to 8


def hour(scrooge: int) -> int:
    """The space on the clock Scrooge stands on, ``scrooge`` spaces clockwise from 9."""
    return CLOCK[scrooge]


def tile_face(puzzle: int, piece: int) -> str:
    """``"2-5"``: piece 5 of puzzle 2."""
    return f"{puzzle}-{piece}"


@cache
def puzzle_of(face: str) -> int:
    """The puzzle a tile belongs to, or 0 for a special tile."""
    if face in SPECIALS:
        return 0
    return int(face.partition("-")[0])


@cache
def piece_of(face: str) -> int:
    return int(face.partition("-")[2])


def all_faces() -> list[str]:
    """All 43 tiles: six for each of the six puzzles, and the seven special tiles."""
    tiles = [tile_face(p, k) for p in ALL_PUZZLES for k in range(1, TILES_PER_PUZZLE + 1)]
    return tiles + [kind for kind, n in SPECIALS.items() for _ in range(n)]


def tile_name(face: str) -> str:
    """How the log names a tile: ``"puzzle 2 (piece 5)"`` or the special tile's name."""
    if face in SPECIALS:
        return SHORT_NAMES[face]
    return f"a puzzle {puzzle_of(face)} tile"


def puzzle_zone(puzzle: int) -> str:
    return f"puzzle.{puzzle}"


def choose_puzzles(options: Mapping[str, Any]) -> tuple[int, ...]:
    """The four puzzles in use, lowest first: ``options["puzzles"]``, or 1-4."""
    chosen = options.get("puzzles", FIRST_GAME)
    if isinstance(chosen, str):
        chosen = [int(p) for p in chosen.replace(",", " ").split()]
    puzzles = tuple(sorted({int(p) for p in chosen}))
    if len(puzzles) != IN_PLAY or len(list(chosen)) != IN_PLAY or not set(puzzles) <= set(ALL_PUZZLES):
        raise ValueError(f"choose four different puzzles of 1-6, not {list(chosen)}")
    return puzzles


def listed(numbers: Sequence[int]) -> str:
    """``"2, 3 and 5"``."""
    return and_list([str(n) for n in numbers])


# ---------------------------------------------------------------- actions


@dataclass(frozen=True)
class Draw(Action):
    """Draw one tile from the bag (at most five a turn)."""

    kind = "draw"


@dataclass(frozen=True)
class Stop(Action):
    """Stop drawing early, and play what you drew."""

    kind = "stop"


@dataclass(frozen=True)
class Play(Action):
    """Play these drawn tiles (by handle, in the order drawn) to their puzzles; the rest go back to the bag."""

    kind = "play"
    tiles: tuple[int, ...]


DRAW = Draw()
STOP = Stop()

# ---------------------------------------------------------------- state


@dataclass
class State(BaseState):
    #: The youngest player: who took the first turn.
    first: int = 0
    #: Whose turn it is.
    turn: int = 0
    #: draw (draw a tile or stop) | choose (choose the tiles to play) | over
    phase: str = "draw"
    #: Spaces Scrooge has moved clockwise from 9 (Asleep); ``AWAKE`` is 8 (Awake).
    scrooge: int = 0
    #: The four puzzles in use, lowest first.
    puzzles: tuple[int, ...] = FIRST_GAME
    #: The puzzles completed, in the order they were completed.
    completed: tuple[int, ...] = ()
    #: An Ignore tile was drawn this turn: special tiles are set aside, drawing goes on.
    ignoring: bool = False
    #: Turns finished so far.
    turns: int = 0
    #: "" while playing, then "won" or "lost".
    outcome: str = ""


def drawn_puzzle_tiles(cards: Cards) -> list[int]:
    """The puzzle tiles in front of the current player, in the order drawn."""
    return [h for h in cards.zone("drawn") if puzzle_of(cards.face(h))]


def lowest_open(state: State) -> int | None:
    """The lowest puzzle in use that is not complete."""
    return next((p for p in state.puzzles if p not in state.completed), None)


# ---------------------------------------------------------------- the game


class ChristmasCarol(TakingTurns):
    id = "christmas-carol"
    title = "Disney: Mickey's Christmas Carol"
    min_players = 1
    max_players = 4
    cooperative = True
    table_options = (
        TableOption("puzzles", "Puzzles", (
            ("1 2 3 4 · the first game", None),
            ("2 3 4 5 · more challenging", [2, 3, 4, 5]),
            ("3 4 5 6 · most challenging", [3, 4, 5, 6]),
        )),
        first_seat_option("Who is youngest?"),
    )  # fmt: skip
    actions = (Draw, Stop, Play)
    # A bound, not a guess: a turn is at most five draws, a stop and a play.
    # Every turn plays a puzzle tile (24 at most) or moves Scrooge clockwise
    # (a special tile drawn first): he moves clockwise at most 11 spaces plus
    # one for each completion in order (4), so at most 15 such turns. So at most
    # 39 turns of at most 7 actions. Bot games take 20 to 60.
    max_actions = 300
    how_to_play = """
The bag holds the tiles of four puzzles (six each) and seven special tiles;
the other two puzzles stay in the box (puzzles 5 and 6 in a first game).
Scrooge starts on the clock's 9 (Asleep). Everyone plays together.

On your turn, draw tiles from the bag one at a time, up to five, and stop
whenever you choose. Then choose two of them to play to their puzzles and mix
the rest back into the bag.

Special tiles:
* Move Scrooge 1 and play ALL other tiles: stop drawing and play all the
  other tiles you drew; then Scrooge moves one space clockwise and this tile
  goes back to the game box.
* Move Scrooge 1, play ALL other tiles, and return this tile to the bag: the
  same, but this tile is mixed back into the bag.
* Ignore all special tiles: keep drawing until you have five puzzle tiles,
  ignoring special tiles. Choose two to play, then mix every other tile you
  drew this turn back into the bag, this one too.
If you played no puzzle tile on your turn, take another turn!

Completing a puzzle in order (every lower puzzle complete) moves Scrooge one
space counter-clockwise. Completing one out of order moves him clockwise by the
puzzle's number. If Scrooge reaches 8 (Awake), everyone loses; complete all
four puzzles first and everyone wins.

More Challenging Game: play with higher-numbered puzzles (the option
"puzzles", e.g. 3 4 5 6): a puzzle finished out of order costs more.
"""
    openings = (
        "The bag's tiles are hidden from everyone; each tile drawn opens to everyone as it "
        "comes out. The bag is shuffled again by every player when a special tile says so."
    )
    rulings = (
        Ruling("The special tiles", "The seven special tiles are 3 \"Move Scrooge 1 and play ALL other tiles\" (returned to the box once drawn), 3 \"Move Scrooge 1, play ALL other tiles, and return this tile to the bag\" and 1 \"Ignore all special tiles\", the one friendly tile."),
        Ruling("The number on a puzzle", "The number shown at the top of a puzzle is its own number (the one in the Mickey): finishing puzzle 4 out of order moves Scrooge 4 spaces clockwise, so higher puzzles are harsher."),
        Ruling("The clock", "Scrooge moves round a clock face: 9 (Asleep), 10, 11, 12, 1, 2 … 7, 8 (Awake). He wakes on the 11th space clockwise from where he starts."),
        Ruling("Scrooge asleep", "Scrooge never moves counter-clockwise past 9 (Asleep): a move back when he is on 9 is lost, never saved."),
        who_starts("who is youngest", quote="The youngest player takes the first turn!"),
        Ruling("Drawing at least one", "You must draw at least one tile before you stop; you may stop after any tile. After the fifth tile (without an Ignore tile) drawing ends by itself."),
        Ruling("Fewer than two tiles", "You play two tiles when you have two or more puzzle tiles in front of you; with fewer you play what you have. When there is nothing to choose (two or fewer puzzle tiles), they are played at once."),
        Ruling("Several tiles at once", "Tiles played together go to their puzzles lowest puzzle first, so finishing puzzles 1 and 2 in the same turn is in order. \"In order\" counts only the four puzzles in use."),
        Ruling("The Ignore tile", "After an Ignore tile the drawing goes on by itself (there is no risk left to weigh) until you have five puzzle tiles; Move Scrooge tiles drawn meanwhile do nothing: they are set aside and mixed back into the bag."),
        Ruling("An empty bag", "Drawing ends when the bag is empty, even short of five tiles (or of five puzzle tiles after an Ignore tile); you play what you drew."),
        Ruling("The end comes at once", "The game ends the moment Scrooge reaches 8 or the last puzzle is complete. The other tiles are played before a Move Scrooge tile moves him, so finishing the last puzzle with them wins first."),
        Ruling("Choosing the puzzles", "Any four of the six puzzles may be used (option \"puzzles\", default 1 2 3 4); the other two go to the box with their tiles. For a More Challenging Game choose higher-numbered puzzles."),
        Ruling("Solo play", "One player may play alone (1-4 players): the rules are the same, and taking another turn changes nothing."),
        Ruling("Winning together", "Everyone wins or nobody does: every player scores the number of puzzles completed, and when the players lose there is no winner."),
    )
    keys = (
        ("d", "draw a tile from the bag (click the bag too)"),
        ("s", "stop drawing; play what you drew, or choose two"),
        ("1-5", "choose (or unchoose) that drawn tile to play"),
        ("←/→, Space", "highlight a drawn tile and choose it"),
        ("Enter, p", "play the chosen tiles"),
    )

    # -------------------------------------------------------------- setup
    def setup(self, options: Mapping[str, Any], players: Sequence[str], rng: Rng) -> State:
        n = len(players)
        self.check_players(n)
        puzzles = choose_puzzles(options)
        first = first_seat(options, n, rng)
        state = State(players=tuple(players), first=first, turn=first, puzzles=puzzles)
        cards = state.cards
        faces = all_faces()
        cards.new_deck("bag", [f for f in faces if puzzle_of(f) in puzzles or f in SPECIALS], rng)
        cards.declare_zone("box")
        set_aside = [f for f in faces if puzzle_of(f) and puzzle_of(f) not in puzzles]
        cards.new_deck("box", set_aside, rng, visible=EVERYONE)  # face up: out of the game
        cards.declare_zone("drawn")
        for puzzle in puzzles:
            cards.declare_zone(puzzle_zone(puzzle))
        return state

    # -------------------------------------------------------------- queries
    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat != state.turn or state.phase == "over":
            return []
        cards = state.cards
        if state.phase == "draw":
            return [DRAW, STOP] if cards.zone("drawn") else [DRAW]
        tiles = drawn_puzzle_tiles(cards)
        return [Play(pair) for pair in combinations(tiles, min(PLAY, len(tiles)))]

    def is_legal(self, state: State, seat: int, action: Action) -> bool:
        if seat != state.turn or state.phase == "over":
            return False
        if type(action) is Draw:
            return state.phase == "draw"
        if type(action) is Stop:
            return state.phase == "draw" and bool(state.cards.zone("drawn"))
        if type(action) is Play:
            return state.phase == "choose" and self._why_not_play(state, action) == ""
        return False

    def why_illegal(self, state: State, seat: int, action: Action) -> str:
        if isinstance(action, Play):
            if state.phase != "choose":
                return "Choose two tiles to play once you have drawn: draw a tile, or stop drawing first."
            return self._why_not_play(state, action)
        if state.phase == "choose":
            return "You have drawn your tiles: choose two tiles to play to their matching puzzles."
        if isinstance(action, Stop):
            return "Draw up to five tiles from the bag: draw at least one before you stop."
        return "That is not a Mickey's Christmas Carol action."

    def _why_not_play(self, state: State, play: Play) -> str:
        tiles = drawn_puzzle_tiles(state.cards)
        need = min(PLAY, len(tiles))
        if len(set(play.tiles)) != len(play.tiles):
            return "Choose two different tiles to play."
        drawn = state.cards.zone("drawn")
        for handle in play.tiles:
            if handle not in drawn:
                return f"Play tiles you drew this turn: tile {handle} is not in front of you."
            if handle not in tiles:
                return "Play puzzle tiles: a special tile is never played to a puzzle."
        if len(play.tiles) != need:
            return f"Choose {'two tiles' if need == PLAY else 'your one puzzle tile'} to play, not {len(play.tiles)}."
        if list(play.tiles) != [h for h in tiles if h in play.tiles]:
            return "Name the tiles in the order you drew them."
        return ""

    def result(self, state: State) -> Result | None:
        return self.standing(state) if state.phase == "over" else None

    def standing(self, state: State) -> Result:
        n = len(state.players)
        done = len(state.completed)
        won = state.outcome == "won"
        where = f"Scrooge {'asleep' if state.scrooge == 0 else 'awake' if state.scrooge >= AWAKE else 'on ' + str(hour(state.scrooge))}"
        detail = f"{done} of {IN_PLAY} puzzles, {where}"
        return Result((done,) * n, tuple(range(n)) if won else (), "", (detail,) * n)

    # -------------------------------------------------------------- apply
    def _apply(self, state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
        log: list[Event] = []
        if isinstance(action, Draw):
            self._draw(state, seat, rng, log)
        elif isinstance(action, Stop):
            n = len(state.cards.zone("drawn"))
            log.append(Event("stop", f"{state.players[seat]} stops after {n} tile{'s' if n != 1 else ''}.", seat))
            self._choose_or_play(state, seat, rng, log)
        elif isinstance(action, Play):
            self._play(state, seat, list(action.tiles), rng, log)
        return log

    # -------------------------------------------------------------- flow
    def _draw(self, state: State, seat: int, rng: Rng, log: list[Event]) -> None:
        cards = state.cards
        name = state.players[seat]
        handle = cards.draw("bag", "drawn", visible=EVERYONE)
        assert handle is not None  # the draw phase never waits on an empty bag
        face = cards.face(handle)
        if face in WAKERS:
            rest = ", and every other tile is played" if len(cards.zone("drawn")) > 1 else ""
            log.append(Event("special", f"{name} draws {tile_name(face)}: no more drawing{rest}.", seat))
            self._wake(state, seat, handle, rng, log)
            return
        if face == IGNORE:
            state.ignoring = True
            log.append(Event("ignore", f"{name} draws {tile_name(face)}: drawing goes on to five puzzle tiles.", seat))
            self._draw_ignoring(state, seat, rng, log)
            return
        log.append(Event("draw", f"{name} draws {tile_name(face)}.", seat))
        if len(cards.zone("drawn")) >= MAX_DRAW or not cards.zone("bag"):
            if not cards.zone("bag"):
                log.append(Event("empty", "The bag is empty.", seat))
            self._choose_or_play(state, seat, rng, log)

    def _draw_ignoring(self, state: State, seat: int, rng: Rng, log: list[Event]) -> None:
        """After an Ignore tile: draw until five puzzle tiles, setting special tiles aside."""
        cards = state.cards
        name = state.players[seat]
        got: list[str] = []
        ignored = 0
        while len(drawn_puzzle_tiles(cards)) < MAX_DRAW and cards.zone("bag"):
            handle = cards.draw("bag", "drawn", visible=EVERYONE)
            assert handle is not None  # the loop draws only while the bag holds a tile
            face = cards.face(handle)
            if face in SPECIALS:
                ignored += 1
            else:
                got.append(face)
        if got:
            which = sorted({puzzle_of(f) for f in got})
            log.append(Event("draw", f"{name} draws {len(got)} more puzzle tile{'s' if len(got) != 1 else ''} (puzzle{'s' if len(which) != 1 else ''} {listed(which)}).", seat))
        if ignored:
            log.append(Event("ignored", f"{name} sets aside {ignored} special tile{'s' if ignored != 1 else ''}, ignored this turn.", seat))
        if not cards.zone("bag"):
            log.append(Event("empty", "The bag is empty.", seat))
        self._choose_or_play(state, seat, rng, log)

    def _choose_or_play(self, state: State, seat: int, rng: Rng, log: list[Event]) -> None:
        """Drawing is over: choose two tiles, or play at once when there is nothing to choose."""
        state.phase = "choose"
        tiles = drawn_puzzle_tiles(state.cards)
        if len(tiles) <= PLAY:
            self._play(state, seat, tiles, rng, log)

    def _wake(self, state: State, seat: int, special: int, rng: Rng, log: list[Event]) -> None:
        """A Move Scrooge tile: play ALL other tiles, then move Scrooge, then put the tile away."""
        cards = state.cards
        tiles = drawn_puzzle_tiles(cards)
        self._place(state, seat, tiles, log)
        if state.phase == "over":
            return
        self._move(state, 1, "the special tile", log)
        if state.phase == "over":
            return
        if cards.face(special) == TO_BOX:
            cards.move(special, "box", visible=EVERYONE)
            log.append(Event("box", "The Move Scrooge tile goes back to the game box.", seat))
        else:
            cards.move(special, "bag", visible=NOBODY)
            cards.shuffle(["bag"], rng)
            log.append(Event("mix", "The Move Scrooge tile is mixed back into the bag.", seat))
        self._end_turn(state, seat, bool(tiles), log)

    def _play(self, state: State, seat: int, tiles: list[int], rng: Rng, log: list[Event]) -> None:
        cards = state.cards
        self._place(state, seat, tiles, log)
        if state.phase == "over":
            return
        rest = list(cards.zone("drawn"))
        if rest:
            for handle in rest:
                cards.move(handle, "bag", visible=NOBODY)
            cards.shuffle(["bag"], rng)
            log.append(Event("mix", f"{len(rest)} tile{'s go' if len(rest) != 1 else ' goes'} back into the bag, mixed.", seat))
        self._end_turn(state, seat, bool(tiles), log)

    def _place(self, state: State, seat: int, tiles: list[int], log: list[Event]) -> None:
        """Play tiles to their puzzles, lowest puzzle first; completing a puzzle moves Scrooge."""
        cards = state.cards
        if not tiles:
            return
        by_puzzle = sorted(tiles, key=lambda h: puzzle_of(cards.face(h)))
        puzzles = [puzzle_of(cards.face(h)) for h in by_puzzle]
        which = sorted(set(puzzles))
        log.append(Event("play", f"{state.players[seat]} plays {'a tile' if len(tiles) == 1 else f'{len(tiles)} tiles'} to puzzle{'s' if len(which) != 1 else ''} {listed(which)}.", seat))
        for handle, puzzle in zip(by_puzzle, puzzles, strict=True):
            zone = puzzle_zone(puzzle)
            cards.move(handle, zone, visible=EVERYONE)
            if len(cards.zone(zone)) < TILES_PER_PUZZLE:
                continue
            in_order = all(p in state.completed for p in state.puzzles if p < puzzle)
            state.completed += (puzzle,)
            if len(state.completed) == IN_PLAY:
                log.append(Event("complete", f"Puzzle {puzzle} is complete: all four puzzles are done!", seat))
                self._over(state, "won", log)
                return
            if in_order:
                log.append(Event("complete", f"Puzzle {puzzle} is complete, in order.", seat))
                self._move(state, -1, f"puzzle {puzzle}", log)
            else:
                lower = [p for p in state.puzzles if p < puzzle and p not in state.completed]
                still = f"puzzle {lower[0]} is not" if len(lower) == 1 else f"puzzles {listed(lower)} are not"
                log.append(Event("complete", f"Puzzle {puzzle} is complete out of order ({still}).", seat))
                self._move(state, puzzle, f"puzzle {puzzle}", log)
            if state.phase == "over":
                return

    def _move(self, state: State, steps: int, why: str, log: list[Event]) -> None:
        """Move Scrooge ``steps`` clockwise (negative: counter-clockwise, never past 9)."""
        before = state.scrooge
        state.scrooge = max(0, min(AWAKE, before + steps))
        if steps < 0 and before == 0:
            log.append(Event("clock", "Scrooge is already asleep on 9: he stays there."))
        elif steps < 0:
            log.append(Event("clock", f"Scrooge moves back to {hour(state.scrooge)}, counter-clockwise."))
        elif state.scrooge >= AWAKE:
            log.append(Event("clock", f"Scrooge moves {steps} space{'s' if steps != 1 else ''} clockwise ({why}) to 8 and wakes up!"))
            self._over(state, "lost", log)
        else:
            left = AWAKE - state.scrooge
            log.append(Event("clock", f"Scrooge moves {steps} space{'s' if steps != 1 else ''} clockwise ({why}) to {hour(state.scrooge)}: {left} space{'s' if left != 1 else ''} from waking."))

    def _over(self, state: State, outcome: str, log: list[Event]) -> None:
        state.phase, state.outcome = "over", outcome
        state.turns += 1
        if outcome == "won":
            log.append(Event("over", "Everyone wins: the story is told before Scrooge wakes up!"))
        else:
            log.append(Event("over", "Scrooge is awake: everyone loses."))

    def _end_turn(self, state: State, seat: int, played: bool, log: list[Event]) -> None:
        state.turns += 1
        state.phase, state.ignoring = "draw", False
        if not played:
            log.append(Event("again", f"{state.players[seat]} played no puzzle tile and takes another turn!", seat))
            return
        state.turn = (seat + 1) % len(state.players)


GAME = ChristmasCarol()
