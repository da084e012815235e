"""One of our engines as a table's host runs it: plain data in and out, bots included.

Owns: ``GameRules``, which puts a ``Game`` behind the game-agnostic
``netcode.session.host.Rules`` protocol: it deals from the seed the host hands
it, applies wire actions (a refusal becomes ``RuleError`` naming the rule),
makes each seat's view (the parts every seat shares once per move), lists the
cards made since it was last asked (for the fair-play commitments), and lets
the bots of the seats bots play choose, each seeing only its own view; and
``made_since``, the cards a move made (for the commitments); and ``opening``, the
public log's first lines (a replay starts its log with them too). The one digest of
a public view every peer compares is ``games.engine.public_digest``.

Must not touch: sockets, clocks, Textual.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from netcode.session.host import RuleError
from xmas_tui.bots import BotDriver
from xmas_tui.games import ActionError, Event, Game, Rng, View
from xmas_tui.games.engine import public_digest


def made_since(cards: Any, upto: int) -> tuple[list[tuple[int, str]], int]:
    """The cards made with handles from ``upto`` on that still exist, and the next ``upto``.

    Handles are numbered in order, so this finds every card a deal, a shuffle or a
    sealed choice made (one made and gone within a single action was never seen).
    """
    top = cards.next_handle
    return [(h, cards.face(h)) for h in range(upto, top) if h in cards], top


def opening(game: Game, players: Sequence[str], state: Any) -> list[Event]:
    """The public log's first lines: the game and its players, then what the deal did."""
    return [Event("start", f"{game.title}: {', '.join(players)}."), *game.opening_events(state)]


def live_press(game: Game, state: Any, seat: int, so_far: Any | None, press: Any,
               earliest_ms: int | None) -> tuple[Any, list[Any]]:
    """One input of a real-time round, as it is made, on ``state`` (wire forms in and out: what
    ``seat`` has pressed so far, and the claims raised to ``earliest_ms``); ``RuleError`` in
    words for one the rules refuse. The host's rules of either kind of table press so."""
    try:
        before = game.parse_action(so_far) if so_far is not None else None
        pressed, clamped = game.press(state, seat, before, game.parse_action(press), earliest_ms)
    except ActionError as refused:
        raise RuleError(str(refused)) from None
    return pressed.to_wire(), [list(c) for c in clamped]


class GameRules:
    """One of our engines as the host runs it (see ``netcode.session.host.Rules``)."""

    def __init__(self, game: Game, players: Sequence[str], *, seed: Any, bot: str = "smart",
                 options: Mapping[str, Any] | None = None) -> None:
        self.game = game
        self.rng = Rng(seed)
        self.players = tuple(players)
        self.state = game.setup(dict(options or {}), list(players), self.rng)
        self.bots = BotDriver(game.id, dict.fromkeys(range(len(players)), bot),
                              lambda seat: self.rng.fork(f"bot/{seat}"))
        #: the seats whose bots follow the game (the host says which seats bots play)
        self.watching: frozenset[int] = frozenset()
        self._made_upto = 1
        self._moves = 0  # actions applied: the views' shared parts are made once per move
        self.closed = False  # the host closed the table before the end
        self._common_at = -1
        self._common: tuple[Any, Any] = ({}, {})

    def forget_views(self) -> None:
        """The state was changed by hand (a test, a demo): make every view afresh."""
        self._common_at = -1

    def _view(self, seat: int) -> View:
        return self.game.view(self.state, seat)

    # ------------------------------------------------------------ the Rules protocol
    def set_bot_seats(self, seats: frozenset[int]) -> None:
        """Bots play ``seats`` from now on: only they need to watch each move.
        A bot that takes a seat over starts from what the seat can see now."""
        fresh = seats - self.watching
        self.watching = frozenset(seats)
        self.bots.follow(self._view, sorted(fresh))

    def made(self) -> list[tuple[int, str]]:
        fresh, self._made_upto = made_since(self.state.cards, self._made_upto)
        return fresh

    def opening(self) -> list[Any]:
        return [e.to_wire() for e in opening(self.game, self.players, self.state)]

    def to_act(self) -> frozenset[int]:
        return frozenset() if self.closed else self.game.to_act(self.state)

    def dealt(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True

    def act(self, seat: int, action: Any) -> list[Any]:
        if self.closed:
            raise RuleError("The host closed the table: the game is over.")
        try:
            events = self.game.apply(self.state, seat, self.game.parse_action(action), self.rng)
        except ActionError as refused:
            raise RuleError(str(refused)) from None
        self._moves += 1
        self.bots.follow(self._view, sorted(self.watching))
        return [e.to_wire() for e in events]

    def view(self, seat: int | None) -> dict:
        if self._common_at == self._moves:  # public fields and zones: once per move, for every seat
            return View.wire(self.game.id, seat, self._common, self.game.view_faces(self.state, seat))
        view = self.game.view(self.state, seat)
        self._common = view.common_wire()
        self._common_at = self._moves
        return view.to_wire(self._common)

    def legal(self, seat: int) -> list[Any]:
        return [] if self.closed else [a.to_wire() for a in self.game.legal_actions(self.state, seat)]

    def result(self) -> dict | None:
        result = self.game.result(self.state)
        if result is None and self.closed:  # (the scores as they stood)
            result = self.game.closed_result(self.state)
        return result.to_wire() if result is not None else None

    def bot_may_play(self, seat: int) -> bool:
        return True

    def bot_action(self, seat: int) -> Any:
        if seat not in self.watching:
            self.set_bot_seats(self.watching | {seat})
        legal = self.game.legal_actions(self.state, seat)
        return self.bots.choose(seat, self._view, legal).to_wire()

    def silent_action(self, seat: int) -> Any:
        return self.game.silent_action(self.state, seat).to_wire()

    def sealed_pending(self) -> bool:
        return self.state.cards.has_sealed()

    def window(self) -> float | None:
        return self.game.race_window

    def racing(self) -> bool:
        return self.game.racing(self.state)

    def press(self, seat: int, so_far: Any | None, press: Any, earliest_ms: int | None) -> tuple[Any, list[Any]]:
        return live_press(self.game, self.state, seat, so_far, press, earliest_ms)

    def merge(self, seat: int, so_far: Any | None, action: Any, earliest_ms: int | None) -> tuple[Any, list[Any]]:
        """What ``seat`` pressed so far with ``action``; an action refused here is refused in
        words (``RuleError``), as ``act`` would."""
        try:
            parsed = self.game.parse_action(action)
            before = self.game.parse_action(so_far) if so_far is not None else None
            merged, clamped = self.game.merge(self.state, seat, before, parsed, earliest_ms)
        except ActionError as refused:
            raise RuleError(str(refused)) from None
        if not self.game.is_legal(self.state, seat, merged):
            raise RuleError(self.game.why_illegal(self.state, seat, merged))
        return merged.to_wire(), [list(c) for c in clamped]

    def heard(self, seat: int, action: Any) -> list[tuple[int, Any]]:
        try:
            return self.game.heard(self.game.parse_action(action))
        except ActionError:
            return []

    def digest(self) -> str:
        return public_digest(self.view(None))
