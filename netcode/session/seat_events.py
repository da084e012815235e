"""What a seat's session tells whoever shows the table: its events, and the words for a host gone.

Owns the events a ``SeatSession`` (``netcode.session.seat``) returns in a ``Step``'s
``seats`` (seated, turned away, updated, a shout heard, an action's verdict, the end, the
host silent, handed over, changed or lost), and the lines a player reads when the host goes.

Must not touch: sockets, clocks, asyncio, any particular game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netcode.session.messages import Final, Handover, Welcome


@dataclass(frozen=True)
class Seated:
    """The host seated me (``welcome.seat`` None: I watch)."""

    welcome: Welcome


@dataclass(frozen=True)
class TurnedAway:
    why: str


@dataclass(frozen=True)
class Updated:
    """My view, the log, the roster or the clocks changed."""


@dataclass(frozen=True)
class ShoutHeard:
    """In the open real-time round, ``seat`` pressed ``shout`` (plain data) at ``ms``."""

    seat: int
    shout: Any
    ms: int


@dataclass(frozen=True)
class Answered:
    """The host's verdict on my action ``id``: accepted (``refused`` None) or the rule broken."""

    id: int
    refused: str | None


@dataclass(frozen=True)
class Ended:
    final: Final


@dataclass(frozen=True)
class HostSilent:
    """The host went silent and the players are choosing a new one; ``why`` says it."""

    why: str


@dataclass(frozen=True)
class HandedOver:
    """The host stopped hosting (it handed the table over, or lost touch with most players):
    my machine elects the next host at once, if it can; ``why`` says it for a person."""

    why: str


@dataclass(frozen=True)
class HostChanged:
    """Another player's machine hosts the table now, in ``term``; ``why`` says it for a person."""

    term: int
    why: str


@dataclass(frozen=True)
class HostLost:
    """The host is gone; ``why`` says it for a person."""

    why: str


SeatEvent = (Seated | TurnedAway | Updated | ShoutHeard | Answered | Ended | HostSilent | HandedOver | HostChanged
             | HostLost)

#: what a player is told when the host went away, by the channel's reason
HOST_GONE = {
    "closed": "The host closed the table.",
    "local": "You left the table.",
}
HOST_SILENT = "The host has gone silent: the game cannot go on without it."


def host_changed(old: str, new: str, handover: Handover | None, me: str | None = None) -> str:
    """What every screen and the public log say when ``new`` takes the table over from ``old``
    (on the screen of ``me``, the new host's own player: "you now host…")."""
    hosts = "you now host" if new == me else f"{new} now hosts"
    if handover is not None and handover.deliberate:
        return f"{old} left and handed the table over; {hosts} it."
    if handover is not None:
        return f"{old}'s machine lost touch with the table; {hosts} it."
    return f"{old}'s machine went away; {hosts} the table."
