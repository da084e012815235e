"""The host of a table: ``HostSession`` and what it speaks (see ``session``).

Owns nothing itself: it names what the rest of the code uses of the host. Its modules
each own one job of hosting (``session`` says which).

Must not touch: sockets, clocks, asyncio, games.
"""

from netcode.session.host.events import (
    ActionApplied,
    GameOver,
    HostEvent,
    SteppedDown,
    TableChanged,
)
from netcode.session.host.rules import RuleError, Rules, RulesFactory
from netcode.session.host.seating import Guest
from netcode.session.host.session import HostSession, TableSettings

__all__ = ["ActionApplied", "GameOver", "Guest", "HostEvent", "HostSession", "RuleError", "Rules",
           "RulesFactory", "SteppedDown", "TableChanged", "TableSettings"]
