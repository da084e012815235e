"""One program's copy of a game at a no-peek table: the rules on what everyone may know.

Owns ``Replica``: it sets the game up and applies each move on the card model's hidden
faces (``xmas_tui.games.cards``). A move that reads a face nobody has opened here, draws
a number or needs a seat's answer about its hidden cards stops (``NeedFace``,
``NeedRandom``, ``NeedClaim``), changing nothing; the table meets the need and the move
is tried again. After a move it says which faces the rules have just shown, and to
whom (``openings``): every program computes the same list from the same public state.
It says whether the rules open a card to a seat now (``may_open``: a program makes a
share for nothing else), and at the end it plays the whole game again holding every
seat's answers to the cards, all open by then (``audit``; ``replay_opened``, which a
game log's audit uses too). And ``OPENINGS``: which faces each game opens, when and to
whom, for the README.

Must not touch: sockets, clocks, asyncio, the UI, cryptography (the machine's).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xmas_tui.games import GAMES, Action, Event, Game, Rng
from xmas_tui.games.cards import (
    EVERYONE,
    SEALED_PREFIX,
    ClaimNeeded,
    FaceBook,
    FaceHidden,
)
from xmas_tui.games.engine import OPENINGS_AT_THE_END
from xmas_tui.games.rng import RandomnessNeeded

#: what each game opens, when and to whom (each game's ``openings``), for the README
OPENINGS: dict[str, str] = {game_id: GAMES[game_id].openings for game_id in GAMES}
#: at every game's end
AT_THE_END = OPENINGS_AT_THE_END


# ------------------------------------------------------------------ the replica
@dataclass(frozen=True)
class NeedFace:
    """The rules read card ``handle``'s face, which is not open here; ``visible``: who
    may see it at that moment (``EVERYONE``: the rules show it to all)."""

    handle: int
    visible: int


@dataclass(frozen=True)
class NeedRandom:
    """The move draws a number: public draw ``round`` is needed first."""

    round: int


@dataclass(frozen=True)
class NeedClaim:
    """The rules need seat ``seat``'s answer to ``question`` (ask ``key`` of this move)."""

    seat: int
    question: str
    key: tuple[int, int]


Need = NeedFace | NeedRandom | NeedClaim


@dataclass(frozen=True)
class Opening:
    """The rules have just shown ``handle`` to ``to`` (a seat; None: everyone)."""

    handle: int
    to: int | None


class RulesReadHidden(Exception):
    """A game's rules read a face that they show to nobody, or to some seats only: a game
    that cannot run at a no-peek table as it is (a bug of that game, never a player's)."""


class Replica:
    """One program's copy of the game at a no-peek table (see the module's docstring)."""

    def __init__(
        self, game: Game, options: Mapping[str, Any], players: Sequence[str], seat: int | None
    ) -> None:
        self.game = game
        self.options = dict(options)
        self.players = tuple(players)
        self.seat = seat
        self.book = FaceBook()
        self.book.owners = frozenset() if seat is None else frozenset((seat,))
        self.state: Any = None
        #: moves applied so far (a move's public draw is its index; setup's is -1)
        self.moves = 0
        #: public draws made so far: round -> value
        self.draws: dict[int, bytes] = {}
        #: what the last try stopped for
        self.need: Need | None = None
        #: (handle, seat) pairs already opened to a seat, so none is asked twice
        self._shown: set[tuple[int, int | None]] = set()
        #: the state as far as a stopped move got (what an opening mid-move is checked on)
        self.trial: Any = None
        #: the card model as the last stopped try left it (what it had shown by then)
        self._stopped_cards: Any = None
        self.log: list[Event] = []

    def _rng(self, round_: int) -> Rng:
        return Rng(self.draws.get(round_), self.book)

    def _try(self, run: Callable[[], Any]) -> Any:
        book = self.book
        book.strict = True
        book.move = -1 if self.state is None else self.moves
        book.asked = 0
        self._stopped_cards = None
        try:
            return run()
        except RandomnessNeeded:
            self.need = NeedRandom(book.move)
        except FaceHidden as hidden:
            self.need = NeedFace(hidden.handle, hidden.visible)
            self._stopped_cards = hidden.cards
        except ClaimNeeded as claim:
            self.need = NeedClaim(claim.seat, claim.question, claim.key)
        finally:
            book.strict = False
        return None

    def set_up(self) -> Need | None:
        """Set the game up; the need that stopped it, or None once it is set up."""
        self.need = None
        rng = self._rng(-1)
        state = self._try(lambda: self.game.setup(self.options, self.players, rng))
        if state is None:
            return self.need
        self.state = state
        self.log.extend(self.game.opening_events(state))
        return None

    def attempt(self, seat: int, action: Action) -> list[Event] | Need:
        """Apply a move the host ordered; the need that stopped it (nothing changed), or its
        events. ``ActionError`` as any table: the move breaks a rule."""
        self.need = None
        state = copy.deepcopy(self.state)
        rng = self._rng(self.moves)
        events = self._try(lambda: self.game.apply(state, seat, action, rng))
        if events is None:
            assert self.need is not None
            self.trial = state
            return self.need
        self.trial = None
        self.state = state
        self.moves += 1
        self.log.extend(events)
        return list(events)

    def openings(self) -> list[Opening]:
        """The faces the rules show now that are not open yet, and to whom: the same on
        every program (it reads only the public state)."""
        return self._openings(self.state.cards)

    def shown_so_far(self) -> list[Opening]:
        """The faces a stopped move (or set-up) has shown everyone so far that are not open
        yet (a real-time game's room: every card of it turns before the rules read one, and
        all of them open together). The same on every program."""
        if self._stopped_cards is None:
            return []
        return [o for o in self._openings(self._stopped_cards) if o.to is None]

    def _openings(self, cards: Any) -> list[Opening]:
        out = []
        for handle, mask in sorted(cards._seen.items()):
            if cards._faces[handle] is not None or handle in self.book.public or mask == 0:
                continue
            if mask == EVERYONE:
                if (handle, None) not in self._shown:
                    out.append(Opening(handle, None))
                continue
            for seat in range(len(self.players)):
                if mask >> seat & 1 and (handle, seat) not in self._shown:
                    out.append(Opening(handle, seat))
        return out

    def queued(self, opening: Opening) -> None:
        """An opening is under way: ``openings`` lists it no more."""
        self._shown.add((opening.handle, opening.to))

    def forget_shown(self, seat: int) -> None:
        """``seat`` was handed to another program: the cards shown to it are to open again
        (``openings`` lists them once more)."""
        self._shown = {shown for shown in self._shown if shown[1] != seat}

    def opened(self, opening: Opening, face: str | None) -> None:
        """An opening done: a public face is known to all, a private one to its seat only
        (``face`` None on the others, which only note it was done)."""
        self._shown.add((opening.handle, opening.to))
        if opening.to is None:
            assert face is not None
            self.book.public[opening.handle] = face
        elif face is not None:
            self.book.private[opening.handle] = face

    def may_open(self, handle: int, to: int | None) -> bool:
        """Whether the rules, as this program runs them, open ``handle`` to ``to`` now: the
        last move stopped on reading it shown to everyone, or the state shows it so."""
        if to is None and self.need == NeedFace(handle, EVERYONE):
            return True
        if to is None and self._stopped_cards is not None and self._stopped_cards._seen.get(handle) == EVERYONE:
            return True  # (shown to everyone by the move under way: a real-time room)
        state = self.trial if self.trial is not None else self.state
        if state is None:
            return False
        if to is None and self.trial is None and self.over:
            return handle in self.hidden()  # the game is over: every closed card opens
        mask = state.cards._seen.get(handle)
        if mask is None:
            return False
        if to is None:
            return bool(mask == EVERYONE)
        return bool(mask != EVERYONE and mask >> to & 1)

    @property
    def over(self) -> bool:
        return self.state is not None and self.game.result(self.state) is not None

    def claim(self, key: tuple[int, int]) -> Any:
        """This program's own answer to the ask that stopped the move."""
        return self.book.mine.pop(key)

    def take_claim(self, key: tuple[int, int], value: Any) -> None:
        self.book.claims[key] = value

    def hidden(self) -> list[int]:
        """Cards on the table whose face is open to no program as the public state goes."""
        cards = self.state.cards
        return [
            h for h in sorted(cards._seen)
            if cards._faces[h] is None and h not in self.book.public
            and not cards.where(h).startswith(SEALED_PREFIX)
        ]  # fmt: skip

    def audit(self, moves: Sequence[tuple[int, Action]]) -> None:
        """Play the game again from the start with every face opened so far, holding every
        seat's claims to what its cards, now open, say (``replay_opened``)."""
        replay_opened(self.game, self.options, self.players, self.book.public, self.book.claims, self.draws, moves)


def replay_opened(
    game: Game,
    options: Mapping[str, Any],
    players: Sequence[str],
    faces: Mapping[int, str],
    claims: Mapping[tuple[int, int], Any],
    draws: Mapping[int, bytes],
    moves: Sequence[tuple[int, Action]],
    *,
    closed: bool = False,
) -> tuple[Any, int]:
    """A no-peek game played again from the start with ``faces`` open, its public ``draws``,
    and every seat's answers held to the cards (``claims``); the state at the end, and how
    many answers could not be held to cards (``closed``: the table closed before its end, so
    a card an answer spoke of may never have opened; otherwise none).
    ``ClaimBroken`` names a false answer; ``FaceHidden`` if the rules read a card still
    closed; ``ActionError`` if a move breaks a rule."""
    book = FaceBook()
    book.public, book.claims, book.audit = dict(faces), dict(claims), True
    book.unchecked = 0 if closed else None

    def rng(round_: int) -> Rng:
        return Rng(draws.get(round_), book)

    state = game.setup(dict(options), list(players), rng(-1))
    for move, (seat, action) in enumerate(moves):
        book.move, book.asked = move, 0
        game.apply(state, seat, action, rng(move))
    return state, book.unchecked or 0
