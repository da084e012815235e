"""What a host needs of a game: the ``Rules`` protocol, in plain data. Sans-IO.

Owns: ``Rules``, a running game as the host drives it (every value msgpack-ready,
actions and views in their wire forms), ``RuleError`` (an action the rules refuse,
naming the rule) and ``RulesFactory`` (how a host deals a game from the fair seed).
Whoever starts a table hands the host a factory; the host never knows which game it runs.

Must not touch: sockets, clocks, asyncio, any particular game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class RuleError(Exception):
    """An action the rules refuse; the message names the rule."""


class Rules(Protocol):
    """A running game as the host drives it, all in plain (msgpack-ready) data."""

    def to_act(self) -> frozenset[int]: ...

    def dealt(self) -> bool:
        """Whether the game is set up (a no-peek deal takes the players' programs a moment)."""

    def close(self) -> None:
        """The host closes the table before the end: no more moves, and ``result`` is the
        standing (the scores so far, marked closed)."""

    def act(self, seat: int, action: Any) -> list[Any]:
        """Apply a wire action for ``seat``; return the log entries; raise ``RuleError``."""

    def view(self, seat: int | None) -> Any:
        """The view of ``seat``: a mapping whose ``"faces"`` lists ``[handle, face]`` it may see."""

    def made(self) -> list[tuple[int, str]]:
        """The (handle, face) of every card made since the last call (to be committed)."""

    def legal(self, seat: int) -> list[Any]: ...

    def result(self) -> Any | None: ...

    def bot_action(self, seat: int) -> Any:
        """What a bot would play for ``seat`` now (wire form)."""

    def bot_may_play(self, seat: int) -> bool:
        """Whether a bot can play ``seat`` at all (at a no-peek table, only a seat whose hand
        the host's program was dealt: nobody else holds a player's hand)."""

    def set_bot_seats(self, seats: frozenset[int]) -> None:
        """The seats bots play from now on (a bot follows the game only while it plays)."""

    def silent_action(self, seat: int) -> Any:
        """What a seat that said nothing in its race window does (wire form)."""

    def sealed_pending(self) -> bool:
        """Whether some seat's sealed choice is still unopened (the actions that made it stay
        out of the record of play until it is)."""

    def window(self) -> float | None:
        """Seconds a seat has to act in a real-time round; None in a game of turns."""

    def racing(self) -> bool:
        """Whether a real-time round is open now (False between rounds, and in a game of turns)."""

    def press(self, seat: int, so_far: Any | None, press: Any, earliest_ms: int | None) -> tuple[Any, list[Any]]:
        """``seat``'s real-time action so far (``so_far``; None at first) with one more input,
        ``press`` (wire forms), its claimed time no sooner than ``earliest_ms`` (the host's
        bound; None: none); and what was raised (plain data, for the public log).
        ``RuleError`` names the rule it breaks; pure."""

    def merge(self, seat: int, so_far: Any | None, action: Any, earliest_ms: int | None) -> tuple[Any, list[Any]]:
        """The action that closes ``seat``'s real-time round: what it pressed so far stands, and
        ``action`` adds what it had not pressed, no sooner than ``earliest_ms``; and what was
        raised. ``RuleError`` if that is not legal now; pure."""

    def heard(self, seat: int, action: Any) -> list[tuple[int, Any]]:
        """What the table hears of a real-time action: each input as plain data (never a face)
        with its time in ms from the room's instant, in time order; pure."""

    def digest(self) -> str:
        """A hash of the public state: the same on every honest peer."""

    def opening(self) -> list[Any]:
        """The log entries of the deal (who plays, what the table shows)."""


#: ``make_rules(names, seed)``: the game dealt from the fair seed.
RulesFactory = Callable[[list[str], Any], Rules]


