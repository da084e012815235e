"""The seats of a table and the roster everyone sees: who sits where, and how they play.

Owns: ``SeatState`` (the one list of states a seat can be in), ``Seat`` (the host's
record of one seat: its player, its connection, its deadlines), ``RosterRow`` (what
every peer is told about a seat), and ``clean_name``.

A seat is **open** until someone sits down; **here** while its player is connected and
playing; **away** for the hold after its player dropped (a countdown everyone sees),
then **bot**; **idle** when its player let the turn timer run out twice in a row (a bot
plays until the player presses a key); **bot** when a bot plays it: an empty seat at the
deal, a player who never came back, or a seat the host handed to a bot.

Must not touch: sockets, clocks, games. Deadlines are numbers handed in by the session.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

#: The longest name a player may have.
MAX_NAME = 16


class SeatState(StrEnum):
    OPEN = "open"
    HERE = "here"
    AWAY = "away"
    IDLE = "idle"
    BOT = "bot"

    @property
    def played_by_bot(self) -> bool:
        return self in (SeatState.BOT, SeatState.IDLE)


@dataclass
class Seat:
    """One seat as the host keeps it."""

    name: str | None = None
    #: the connection of the player sitting here (None: nobody connected)
    peer: Hashable | None = None
    state: SeatState = SeatState.OPEN
    #: a seat away until this time, then a bot plays it
    hold_until: float | None = None
    #: the seat must act by this time (its turn timer, or its window in a race)
    act_by: float | None = None
    #: the act_by deadline is a race window (the rules' silent action), not a turn timer
    racing: bool = False
    #: a bot plays this seat's current turn, because its turn timer ran out
    covered: bool = False
    #: turn timers run out in a row
    timeouts: int = 0
    #: the seat's player is on this host's machine (no network can stall them)
    local: bool = False
    #: a player sat here (and was given the rejoin token that gets them back)
    sat: bool = False
    #: away only while the table changes hands (a new host took it over): its player sitting
    #: down again is no news, so nobody is told they are back
    changing_hands: bool = False

    def leave(self) -> None:
        self.peer = None
        self.act_by = None
        self.covered = False


@dataclass(frozen=True)
class RosterRow:
    """What every peer is told about one seat."""

    seat: int
    name: str | None
    state: SeatState
    ping_ms: int | None = None
    #: seconds left of an away player's hold, when it was sent
    hold_left: float | None = None

    def to_wire(self) -> list[Any]:
        return [self.seat, self.name, self.state.value, self.ping_ms, self.hold_left]

    @classmethod
    def from_wire(cls, raw: list[Any]) -> RosterRow:
        seat, name, state, ping, hold = raw
        return cls(seat, name, SeatState(state), ping, hold)


def clean_name(name: Any) -> str | None:
    """A player's name, its spaces tidied and cut to ``MAX_NAME``; None if unusable."""
    if not isinstance(name, str):
        return None
    name = " ".join(name.split())[:MAX_NAME]
    return name if name and name.isprintable() else None


def bot_name(seat: int) -> str:
    return f"Bot {seat + 1}"
