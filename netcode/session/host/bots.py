"""Bots: which seats bots play, and their moves.

Owns (a part of ``HostSession``): bots play open seats, away seats after the hold, idle
and covered seats and any seat the host hands them (``hand_to_bot``, until
``take_back``), one move every ``bot_pace`` seconds (at once in a real-time game, whose
actions carry their own timing; a bot's presses are then shouted each at its own time).

Must not touch: sockets, clocks, asyncio, any particular game (a bot's choice is the
rules' ``bot_action``).
"""

from __future__ import annotations

from netcode.session.host.deadlines import UNKNOWN
from netcode.session.host.parts import HostParts
from netcode.session.seats import SeatState, bot_name
from netcode.session.step import Step

_INF = float("inf")


class Bots(HostParts):
    """The bots of a ``HostSession``."""

    #: seconds between two bot moves (in a game of turns)
    bot_pace: float
    #: the seats the rules were last told bots play
    _bot_seats: frozenset[int] | None

    def _init_bots(self, pace: float) -> None:
        self.bot_pace = pace
        self._bot_seats = None

    def hand_to_bot(self, seat: int, now: float) -> Step:
        """A bot plays ``seat`` from now on, until ``take_back``."""
        place = self.seats[seat]
        if place.state is not SeatState.BOT:
            place.state, place.hold_until, place.act_by, place.covered = SeatState.BOT, None, None, False
            self._note(f"The host hands {place.name or bot_name(seat)}'s seat to a bot.", seat)
        return self._settle(now)

    def finish_with_bots(self, now: float) -> Step:
        """The last player leaves a game in play and lets the bots finish it: every seat a
        player holds goes to a bot, and bots move at once (the end goes to anyone watching)."""
        if self.rules is not None and not self.finished:
            for i, place in enumerate(self.seats):
                if not place.state.played_by_bot:
                    place.state, place.hold_until, place.act_by, place.covered = SeatState.BOT, None, None, False
                    self._note(f"{place.name or bot_name(i)} leaves: bots finish the game.", i)
            self.bot_pace = 0.0
            self._dirty = True
        return self._settle(now)

    def close_game(self, now: float) -> Step:
        """The host's player closes the table before the end: the game ends for everyone with
        the scores as they stand (signed, audited and logged like any end)."""
        rules = self.rules
        if rules is not None and not self.finished:
            rules.close()
            self._note("The host closed the table before the end: these are the scores as they stood.")
            self._dirty = True
        return self._settle(now)

    def take_back(self, seat: int, now: float) -> Step:
        """Give ``seat`` back to its player (who plays it again if connected, or is away)."""
        place = self.seats[seat]
        if place.state.played_by_bot and place.name is not None:
            if place.peer is not None and place.peer in self.guests:
                place.state, place.timeouts = SeatState.HERE, 0
                self._note(f"{place.name} plays their seat again.", seat)
            elif self.started:
                place.state, place.hold_until = SeatState.AWAY, now + self.settings.hold
        return self._settle(now)

    def add_bots(self, count: int, now: float) -> Step:
        """Bots take ``count`` open seats before the deal."""
        for seat in self.seats:
            if count and seat.state is SeatState.OPEN:
                seat.state, count = SeatState.BOT, count - 1
        return self._settle(now)

    def set_bot_pace(self, pace: float, now: float) -> Step:
        self.bot_pace = pace
        return self._take()

    def play_bot(self, now: float) -> bool:
        """Let one bot that may act play now, whatever the pace; False if none may."""
        self._next = UNKNOWN
        seat = self._next_bot()
        if seat is None or self.rules is None:  # (a bot may act only at a dealt table)
            return False
        self._apply(seat, self.rules.bot_action(seat), now, "bot")
        return True

    def _plays_by_bot(self, i: int) -> bool:
        seat = self.seats[i]
        return seat.state.played_by_bot or seat.covered

    def _next_bot(self) -> int | None:
        rules = self.rules
        if rules is None or self.finished:
            return None
        for i in sorted(rules.to_act()):
            if self._plays_by_bot(i) and rules.bot_may_play(i):
                return i
        return None

    def _bot_due(self) -> float:
        if self._next_bot() is None:
            return _INF
        return self._last_action + (0.0 if self.real_time else self.bot_pace)

    def _bot_moves(self, now: float) -> None:
        """One bot move (every bot that may act, in a real-time game)."""
        rules = self.rules
        assert rules is not None
        if self.real_time:
            for i in sorted(rules.to_act()):
                if self._plays_by_bot(i) and rules.bot_may_play(i):
                    action = rules.bot_action(i)
                    self._apply(i, action, now, "bot")
                    if self.live.open:  # sealed now, heard at its own times
                        self.live.schedule(i, rules.heard(i, action))
            return
        seat = self._next_bot()
        if seat is not None:
            self._apply(seat, rules.bot_action(seat), now, "timer" if self.seats[seat].covered else "bot")

