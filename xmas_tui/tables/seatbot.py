"""A bot at one seat of a table session, playing it as a person at a terminal would.

Owns: ``SeatBot``, which plays a seat through that seat's own session (so it
sees only what the seat sees: its view and its legal actions), at a pace of
its own, one action at a time, waiting for each verdict; and ``play_seat``,
which drives it in real time. The simulator drives the same ``SeatBot`` in
virtual time. Used by headless players and the simulator; a person's seat at a
networked table is never played by it (the host's bots do that).

Must not touch: Textual, sockets.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from netcode.session.messages import Act
from netcode.session.seat import Answered, HostChanged, SeatEvent, SeatSession, Updated
from xmas_tui.bots import BotDriver
from xmas_tui.games import Game, IllegalAction, Rng, View

from .table import SessionTable


class SeatBot:
    """Plays one seat through its session. Feed it the session's events (``heard``), ask it
    when it wants to move (``due``), and send what ``move`` returns."""

    def __init__(self, game: Game, kind: str, rng: Rng, *, pace: float = 0.0) -> None:
        self.game = game
        self.kind = kind
        self.rng = rng
        self.pace = pace
        self.driver: BotDriver | None = None  # made once the seat is known
        self.seat: int | None = None
        self.ready_at: float | None = None
        self.waiting: int | None = None  # the id of the action whose verdict we wait for
        self.moves = 0
        self._view: View | None = None

    def _view_of(self, seat: int) -> View:
        assert self._view is not None
        return self._view

    def heard(self, session: SeatSession, events: list[SeatEvent], now: float) -> None:
        """The seat's session changed: follow the game, and plan the next move."""
        for event in events:
            if isinstance(event, Answered) and event.id == self.waiting or isinstance(event, HostChanged):
                self.waiting = None  # answered, or the host that would have answered went away
        if self.driver is None and session.seat is not None:
            self.seat = session.seat
            self.driver = BotDriver(self.game.id, {session.seat: self.kind}, lambda _: self.rng)
        if self.driver is not None and session.view is not None and any(isinstance(e, Updated) for e in events):
            self._view = View.from_wire(session.view)
            self.driver.follow(self._view_of)
        if not self.wants(session):
            self.ready_at = None
        elif self.ready_at is None:
            self.ready_at = now + self.pace

    def wants(self, session: SeatSession) -> bool:
        return (bool(session.legal) and session.result is None and session.final is None
                and session.gone is None and self.waiting is None and self.driver is not None)

    def due(self) -> float | None:
        """When the bot will move (None: not its turn, or it waits for a verdict)."""
        return self.ready_at

    def move(self, session: SeatSession) -> Act | None:
        """The bot's action, to send to the host now (None if it has nothing to do)."""
        if not self.wants(session) or self._view is None:
            self.ready_at = None
            return None
        assert self.driver is not None and self.seat is not None
        legal = [self.game.parse_action(a) for a in session.legal]
        action = self.driver.choose(self.seat, self._view_of, legal)
        message = session.act(action.to_wire())
        self.waiting, self.ready_at = message.id, None
        self.moves += 1
        return message


async def play_seat(table: SessionTable, bot: SeatBot, *, wait: float = 120.0) -> None:
    """Let ``bot`` play my seat of ``table`` in real time until the game ends (or ``wait``)."""
    link = table.links[0]
    session = link.session
    changed = asyncio.Event()

    def heard(events: list[SeatEvent]) -> None:
        bot.heard(session, events, time.monotonic())
        changed.set()

    link.listeners.add(heard)
    bot.heard(session, [Updated()], time.monotonic())

    async def play() -> None:
        while not table.over:
            due = bot.due()
            if due is not None and time.monotonic() >= due:
                message = bot.move(session)
                if message is not None:
                    link.post(message)
                await asyncio.sleep(0)  # (the loop goes on between moves: a refused one is not tried in a spin)
                continue
            changed.clear()
            timeout = 0.5 if due is None else max(0.0, due - time.monotonic())
            try:
                await asyncio.wait_for(changed.wait(), timeout)
            except TimeoutError:
                pass
        if session.gone and session.final is None:
            raise IllegalAction(session.gone)

    try:
        await asyncio.wait_for(play(), wait)
    finally:
        link.listeners.remove(heard)


def rng_for(name: str, salt: Any) -> Rng:
    """A seat bot's randomness: its player's name and a salt of the caller's."""
    return Rng(f"{name}/{salt}")
