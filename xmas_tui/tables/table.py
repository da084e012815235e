"""The seam between the UI and whoever runs the rules: a ``Table``.

Owns: the ``Table`` the UI talks to (send my action, press one input of a
real-time round as it is made, receive my view, who is at the table, how long
a seat has left to act), its ``Snapshot`` (everything one seat may know right
now: in a real-time round, also what was heard in it and when its room is to
be drawn), and ``SessionTable``, the one kind of table
there is: a seat's session at a table session, whether the host runs in this
process (a game against bots, or the host's own seat) or across the network.
The UI cannot tell which, and never holds the full state. Every word a peer sent
(names, the log, notes, refusals, the view's strings) leaves it ``plain``
(``xmas_tui.outside``): nothing in it that a terminal would obey.

Must not touch: Textual. It may use asyncio (waiting for a verdict).
"""

from __future__ import annotations

import asyncio
import functools
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

from netcode.session.seats import RosterRow, SeatState
from xmas_tui.games import Action, Event, Game, IllegalAction, Result, View
from xmas_tui.outside import plain, plain_data

if TYPE_CHECKING:  # (the sessions and the runner load with a table, not with the lobby's boards)
    from netcode.runners import SeatLink
    from netcode.session.seat import SeatEvent, SeatSession

DEFAULT_PACE = 0.9
MIN_PACE = 0.05
MAX_PACE = 4.0


@functools.cache
def _seat_events() -> ModuleType:
    """The seat's events (loaded with the first table session, not with the lobby's boards)."""
    from netcode.session import seat_events

    return seat_events


class HeardPress(NamedTuple):
    """A press heard in the open real-time round: who, what (the game's plain data), when (ms
    after the room was drawn, as the host counts it)."""

    seat: int
    shout: Any
    ms: int


@dataclass(frozen=True)
class Snapshot:
    """What my seat may know now: my view, my legal actions, who acts, the log, the result.

    ``seats`` lists every seat played from this terminal when several people
    share it (the view's seat first); empty means the view's seat alone.
    ``heard``: the presses heard so far in the open real-time round, in the order
    heard. ``room_in``: in how many seconds (from when the snapshot was made) this
    round's room is to be drawn, so that every terminal draws it at one instant.
    A snapshot carries its delta (``changed``): a screen redraws only what changed.
    """

    view: View
    legal: tuple[Action, ...]
    to_act: frozenset[int]
    log: tuple[Event, ...]
    result: Result | None
    seats: tuple[int, ...] = ()
    heard: tuple[HeardPress, ...] = ()
    room_in: float = 0.0
    #: what changed since the table's last snapshot, by field name ("view", "legal",
    #: "to_act", "log", "result", "heard", "room"); unchanged fields are the very objects
    #: the last snapshot held. None: a first snapshot (everything is new)
    changed: frozenset[str] | None = None

    #: a room this near is drawn at once (a timer that short would only be late)
    ROOM_NOW = 0.001

    @property
    def seat(self) -> int | None:
        return self.view.seat

    @property
    def room_waits(self) -> bool:
        """Whether this round's room is still to be drawn, at ``room_in`` (until then, nothing
        on screen may tell its cards: not the room, not the log)."""
        return self.room_in > self.ROOM_NOW

    @property
    def my_seats(self) -> tuple[int, ...]:
        """The seats played from this terminal."""
        if self.seats:
            return self.seats
        return () if self.seat is None else (self.seat,)

    @property
    def my_turn(self) -> bool:
        return bool(self.legal)


#: A function called with a fresh snapshot after every change.
SnapshotCallback = Callable[[Snapshot], None]


class Table(ABC):
    """A game table as one seat sees it."""

    game: Game
    seat: int | None
    players: tuple[str, ...]
    pace: float

    def __init__(self) -> None:
        from netcode.runners import Listeners

        self._watchers = Listeners()

    def subscribe(self, callback: SnapshotCallback) -> None:
        """Call ``callback`` with a fresh snapshot after every change."""
        self._watchers.add(callback)

    def unsubscribe(self, callback: SnapshotCallback) -> None:
        self._watchers.remove(callback)

    def _publish(self) -> None:
        if not self._watchers:
            return  # nobody to tell: a snapshot is made only when asked for
        self._watchers(self.snapshot())

    @property
    def problem(self) -> str | None:
        """Something the player must know now (the host went silent), or None."""
        return None

    def seat_notes(self) -> dict[int, str]:
        """A word per seat for the players panel (ping, away, bot); empty at a local table."""
        return {}

    def seconds_left(self, seat: int) -> float | None:
        """How long ``seat`` has left to act (a turn timer, a race window), or None."""
        return None

    def roster(self) -> list[RosterRow]:
        """Every seat: who sits there and in what state (here, away, idle, bot); empty at a
        local table."""
        return []

    @property
    def host_gone(self) -> str | None:
        """Why the game cannot go on (the host closed the table, or went silent), or None."""
        return None

    @property
    def networked(self) -> bool:
        return False

    def set_pace(self, seconds: float) -> float:
        self.pace = min(MAX_PACE, max(MIN_PACE, seconds))
        return self.pace

    @property
    def idle(self) -> bool:
        """Whether the table marked me idle (a bot plays for me until I press a key)."""
        return False

    def take_notices(self) -> list[str]:
        """What happened at the table that the player must be told once (a new host)."""
        return []

    def present(self) -> None:  # noqa: B027 - most tables have nobody to mark idle
        """The player pressed a key: if the table marked them idle, they are back."""

    @abstractmethod
    def snapshot(self) -> Snapshot: ...

    @abstractmethod
    async def send(self, action: Action, seat: int | None = None) -> None:
        """Play my action (or, with ``seat``, that of another player at this terminal);
        raises ``ActionError`` (with the rule broken) if it is refused."""

    async def press(self, action: Action, seat: int | None = None) -> None:  # noqa: B027 - most games have none
        """One input of my real-time round (an action of that one input), the moment it is made:
        everyone hears it at once; my sealed ``send`` closes the round later. Raises
        ``ActionError`` if it is refused."""

    @abstractmethod
    async def run(self) -> None:
        """Drive the table until the game ends."""


def plain_roster(roster: Sequence[RosterRow]) -> list[RosterRow]:
    """The roster a peer sent, its names ``plain``."""
    return [row if row.name is None else replace(row, name=plain(row.name, lines=False)) for row in roster]


def seat_notes(roster: Sequence[RosterRow]) -> dict[int, str]:
    """A word per seat for the players panel, from the roster."""
    notes = {}
    for row in roster:
        if row.state is SeatState.AWAY:
            notes[row.seat] = f"away: a bot plays in {row.hold_left:.0f} s" if row.hold_left is not None else "away"
        elif row.state is SeatState.IDLE:
            notes[row.seat] = "idle: a bot plays for now"
        elif row.state is SeatState.BOT:
            notes[row.seat] = "bot"
        elif row.ping_ms is not None:
            notes[row.seat] = f"{row.ping_ms:.0f} ms"
    return notes


class SessionTable(Table):
    """My seat at a table session (and the seats of anyone sharing my keyboard)."""

    def __init__(self, game: Game, links: Sequence[SeatLink], *, pace: float = 0.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.game = game
        self.links = list(links)
        self.pace = pace
        self.clock = clock
        self._events: list[Event] = []
        self._pending: dict[tuple[int, int], asyncio.Future[None]] = {}
        self._over = asyncio.Event()
        self._audit: dict | None = None
        self._silent: str | None = None  # the host went silent and a new one is being chosen
        #: the last snapshot made, and the session's data it was made from (the next is its delta)
        self._last: Snapshot | None = None
        self._made_from: dict[str, Any] = {}
        self._notices: list[str] = []
        for index, link in enumerate(self.links):
            link.listeners.add(lambda events, i=index: self._heard(i, events))

    # ------------------------------------------------------------ facts
    @property
    def session(self) -> SeatSession:
        return self.links[0].session

    @property
    def seat(self) -> int | None:  # type: ignore[override]  # (the Table's plain attribute, read from the session)
        return self.session.seat

    @property
    def seats(self) -> tuple[int, ...]:
        """Every seat played from this terminal, mine first (several people sharing a keyboard)."""
        return tuple(s for link in self.links if (s := link.session.seat) is not None)

    @property
    def players(self) -> tuple[str, ...]:  # type: ignore[override]  # (the Table's plain attribute, read from the view)
        view = self.session.view
        return tuple(plain(name, lines=False) for name in view["public"]["players"]) if view is not None else ()

    @property
    def ready(self) -> bool:
        """Whether the game has been dealt (a snapshot can be made)."""
        return self.session.dealt

    @property
    def over(self) -> bool:
        return self.session.final is not None or self.session.gone is not None

    @property
    def networked(self) -> bool:
        return True

    @property
    def problem(self) -> str | None:
        problem = self.session.alarm or self.session.gone or self._silent
        return None if problem is None else plain(problem)

    def take_notices(self) -> list[str]:
        """What happened at the table that the player must be told once (a new host)."""
        notices, self._notices = self._notices, []
        return [plain(notice) for notice in notices]

    def seat_notes(self) -> dict[int, str]:
        return seat_notes(self.session.roster)

    def roster(self) -> list[RosterRow]:
        return plain_roster(self.session.roster)

    @property
    def idle(self) -> bool:
        """Whether the table marked me idle (a bot plays for me until I press a key)."""
        seat = self.session.seat
        return any(row.seat == seat and row.state is SeatState.IDLE for row in self.session.roster)

    @property
    def host_gone(self) -> str | None:
        gone = self.session.gone
        return None if gone is None else plain(gone)

    def seconds_left(self, seat: int) -> float | None:
        deadline = self.session.clocks.get(seat)
        return None if deadline is None else max(0.0, deadline - self.clock())

    def snapshot(self) -> Snapshot:
        """My seat now, as a delta of the last snapshot: what did not change is reused as it
        was (a view whose zones did not change keeps its zones; legal actions are parsed
        only when they changed), and ``changed`` says what did."""
        session = self.session
        wire = session.view
        if wire is None:
            raise RuntimeError("the game has not been dealt yet")
        room_at = session.room_at
        last, made = self._last, self._made_from
        changed: set[str] = set()
        if last is None or wire is not made["view"]:
            view = self._view(wire, last.view if last is not None else None, made.get("view"))
            if last is None or view is not last.view:
                changed.add("view")
        else:
            view = last.view
        if last is not None and session.legal == made["legal"]:
            legal = last.legal
        else:
            legal = tuple(self.game.parse_action(a) for a in session.legal)
            changed.add("legal")
        to_act = frozenset(session.to_act)
        log = self._log()
        log = last.log if last is not None and len(log) == len(last.log) else tuple(log)
        result = (last.result if last is not None and session.result == made["result"] else
                  Result.from_wire(session.result) if session.result is not None else None)
        heard = (last.heard if last is not None and len(session.shouts) == len(last.heard) and
                 made["race"] == session.race else tuple(HeardPress(*plain_data(shout)) for shout in session.shouts))
        if last is not None:
            changed.update(name for name, now, before in (
                ("to_act", to_act, last.to_act), ("log", log, last.log), ("result", result, last.result),
                ("heard", heard, last.heard)) if now is not before and now != before)
            if room_at != made["room_at"]:
                changed.add("room")
        snapshot = Snapshot(
            view=view, legal=legal, to_act=to_act, log=log, result=result,
            seats=self.seats if len(self.links) > 1 else (), heard=heard,
            room_in=max(0.0, room_at - self.clock()) if room_at is not None else 0.0,
            changed=None if last is None else frozenset(changed),
        )  # fmt: skip
        self._last = snapshot
        self._made_from = {"view": wire, "legal": session.legal, "result": session.result, "race": session.race,
                           "room_at": room_at}
        return snapshot

    @staticmethod
    def _view(wire: dict, last: View | None, last_wire: dict | None) -> View:
        """``wire`` as a view, reusing what it shares with the last one (the host sends what
        changed: the parts it did not touch are the very objects they were). What is new is
        made ``plain``: a peer's words."""
        if last is None or last_wire is None or wire["seat"] != last.seat:
            return View.from_wire(plain_data(wire))
        public = last.public if wire["public"] is last_wire["public"] else plain_data(wire["public"])
        zones = (last.zones if wire["zones"] is last_wire["zones"] else
                 {name: tuple(cards) for name, cards in plain_data(wire["zones"]).items()})
        faces = last.faces if wire["faces"] is last_wire["faces"] else {h: f for h, f in plain_data(wire["faces"])}
        if public is last.public and zones is last.zones and faces is last.faces:
            return last
        return View(game=wire["game"], seat=wire["seat"], public=public, zones=zones, faces=faces)

    def _log(self) -> list[Event]:
        """The public log as events, converting only what arrived since last time."""
        wire = self.session.log
        if len(self._events) > len(wire):
            self._events = []
        self._events.extend(Event.from_wire(plain_data(e)) for e in wire[len(self._events) :])
        return self._events

    # ------------------------------------------------------------ acting
    def _link_for(self, seat: int | None) -> tuple[int, SeatLink]:
        if seat is None:
            return 0, self.links[0]
        for index, link in enumerate(self.links):
            if link.session.seat == seat:
                return index, link
        raise IllegalAction(f"Seat {seat + 1} is not played from this terminal.")

    async def send(self, action: Action, seat: int | None = None) -> None:
        index, link = self._link_for(seat)
        session = link.session
        await self._answered(index, link, session.act(action.to_wire()))

    async def press(self, action: Action, seat: int | None = None) -> None:
        index, link = self._link_for(seat)
        await self._answered(index, link, link.session.press(action.to_wire()))

    async def _answered(self, index: int, link: SeatLink, message: Any) -> None:
        """Post ``message`` (an action or a press) and wait for the host's verdict on it."""
        session = link.session
        if session.gone:
            raise IllegalAction(plain(session.gone))
        key = (index, message.id)
        verdict: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending[key] = verdict
        try:
            link.post(message)  # a host in this process answers before this returns
            await asyncio.wait_for(verdict, 5.0)
        except TimeoutError:
            raise IllegalAction("The host did not answer in time.") from None
        finally:
            self._pending.pop(key, None)

    def present(self) -> None:
        if self.idle:
            self.links[0].post(self.session.here())

    def _heard(self, index: int, events: list[SeatEvent]) -> None:
        seat_events = _seat_events()
        Answered, Ended, HandedOver = seat_events.Answered, seat_events.Ended, seat_events.HandedOver
        HostChanged, HostLost, HostSilent = seat_events.HostChanged, seat_events.HostLost, seat_events.HostSilent
        updated = seat_events.Updated
        for event in events:
            if type(event) is updated:  # (the usual news: a move; nothing below is about it)
                continue
            if isinstance(event, Answered):
                verdict = self._pending.get((index, event.id))
                if verdict is not None and not verdict.done():
                    if event.refused is None:
                        verdict.set_result(None)
                    else:
                        verdict.set_exception(IllegalAction(plain(event.refused)))
            elif isinstance(event, HostSilent):
                self._silent = event.why
            if isinstance(event, (HostLost, HandedOver, HostChanged)):
                self._silent = None
                if isinstance(event, HostChanged):
                    self._notices.append(event.why)
                why = event.why if not isinstance(event, HostChanged) else (
                    f"{event.why} Your last move may not have reached the old host: play it again if it is still your turn.")
                for verdict in self._pending.values():
                    if not verdict.done():
                        verdict.set_exception(IllegalAction(plain(why)))
            if isinstance(event, (Ended, HostLost, HandedOver)):
                self._over.set()
        if index == 0 and self.session.dealt:
            self._publish()

    async def run(self) -> None:
        await self._over.wait()

    # ------------------------------------------------------------ the end
    def audit(self) -> dict | None:
        """The end-of-game audit of my seat, its log written (``None`` before the end)."""
        if self.session.final is None:
            return None
        if self._audit is None:
            from .audit import finish, seat_log

            self._audit = finish(seat_log(self.session))
        return self._audit
