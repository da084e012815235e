"""What a host session tells its application: its events. Sans-IO.

Owns: the host's events (the table changed, an action was applied, the game is over,
this machine stopped hosting), which a host's ``Step`` carries in ``table``.

Must not touch: sockets, clocks, asyncio, games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
