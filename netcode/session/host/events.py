"""What a host session tells its application: its events, and the output of one call. Sans-IO.

Owns: the host's events (the table changed, an action was applied, the game is over,
this machine stopped hosting) and ``Output``, what one call into a host session
produced: the messages to send, to which peer, and those events.

Must not touch: sockets, clocks, asyncio, games.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from netcode.session.messages import Message

Peer = Hashable



@dataclass(frozen=True)
class TableChanged:
    """The seats, the roster or the phase changed (the host's screen redraws)."""


@dataclass(frozen=True)
class ActionApplied:
    """``seat`` played ``action`` (wire form); ``by`` is "player", "bot", "timer" or "silence"."""

    seat: int
    action: Any
    by: str


@dataclass(frozen=True)
class GameOver:
    result: Any


@dataclass(frozen=True)
class SteppedDown:
    """This machine stopped hosting: its player handed the table over (``deliberate``), or it
    lost touch with most players. The players it still reaches elect the next host; the
    runner lets the last messages go out, then closes."""

    deliberate: bool


HostEvent = TableChanged | ActionApplied | GameOver | SteppedDown


@dataclass
class Output:
    """What one call produced: messages to send, and events for the application."""

    sends: list[tuple[Peer, Message]] = field(default_factory=list)
    events: list[HostEvent] = field(default_factory=list)

    def send(self, peer: Peer, message: Message) -> None:
        self.sends.append((peer, message))


