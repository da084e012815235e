"""Deadlines: every timer of a hosted table, all kept by the host, and ``tick``.

Owns (a part of ``HostSession``): when ``tick`` must next be called and what it does
then. No client can stall a table: the host enforces the nonce timeout, the **hold** of
a player who dropped (then a bot plays the seat), the **turn timer** (``turn_time``:
when it runs out a bot plays that one turn and the player keeps the seat; after two in
a row the seat is idle and a bot plays until the player is back, ``Here``), and in a
real-time game the **race window** of every remote seat (the rules' window and
``race_slack``) and the pause between rounds (``intermission`` and ``race_slack``),
after which the seat is given the rules' silent action; and the roster's refresh when
a ping changes.

Must not touch: sockets, clocks, asyncio, any particular game.
"""

from __future__ import annotations

import enum
from typing import Final

from netcode.session.host.parts import HostParts
from netcode.session.host.rules import Rules
from netcode.session.seats import SeatState
from netcode.session.step import Step

_INF = float("inf")


class Unknown(enum.Enum):
    """The type of ``UNKNOWN`` (one value: the type checker narrows on it)."""

    UNKNOWN = "unknown"


#: the next deadline is not worked out yet (it is, when next asked)
UNKNOWN: Final = Unknown.UNKNOWN


class Deadlines(HostParts):
    """The timers of a ``HostSession``."""

    # (``_next``, declared in ``HostParts``: the next deadline, once worked out; ``UNKNOWN``
    # after any change)

    #: when the roster goes out again (a ping changed)
    _roster_due: float | None

    def _init_deadlines(self) -> None:
        self._next = UNKNOWN
        self._roster_due = None

    def next_deadline(self) -> float | None:
        """When ``tick`` must next be called (absolute time), or None."""
        if self._next is UNKNOWN:
            self._next = self._earliest_deadline()
        return self._next

    def _earliest_deadline(self) -> float | None:
        if self.stepped_down:
            return None
        when = _INF if self._lease_due is None else self._lease_due
        if self.lease.paused:
            return None if when == _INF else when
        if self.dealing and self._deal_by is not None:
            when = self._deal_by
        for seat in self.seats:
            for deadline in (seat.hold_until, seat.act_by):
                if deadline is not None and deadline < when:
                    when = deadline
        if self._roster_due is not None and self._roster_due < when:
            when = self._roster_due
        for due in (self.races.next_ping(), self.live.next_deadline()):
            if due is not None and due < when:
                when = due
        bot = self._bot_due()
        if bot < when:
            when = bot
        return None if when == _INF else when

    def tick(self, now: float) -> Step:
        """Do whatever is due by ``now``: the deal, holds, timers, windows, a bot's move.

        What must leave at its time leaves first and alone (the rest is done at the next
        call, at once): rooms held back for their peers, the pings (stamped with the time
        they leave), the bots' shouts. While the lease is in doubt nothing else is done."""
        if self._lease_due is not None and now >= self._lease_due:
            self._keep_lease(now)
        if self.stepped_down or self.lease.paused:
            return self._settle(now)
        if self._release(now) or self._ping(now):
            return self._take()
        shouts = self.live.due(now)
        for seat, shout, ms in shouts:
            self._shout(seat, shout, ms)
        if shouts:
            return self._take()
        if self.dealing and self._deal_by is not None and now >= self._deal_by:
            self._deal(now)
        for i, held in enumerate(self.seats):
            if held.hold_until is not None and now >= held.hold_until:
                held.state, held.hold_until, held.changing_hands = SeatState.BOT, None, False
                bot = self.rules is None or self.rules.bot_may_play(i)
                self._note(f"{held.name} did not come back" + (f": a bot plays seat {i + 1}." if bot else "."), i)
            if held.act_by is not None and now >= held.act_by:
                self._timed_out(i, now)
        if self._roster_due is not None and now >= self._roster_due:
            self._roster_due = None
            self._dirty = True
        if self._bot_due() <= now:
            self._bot_moves(now)
        return self._settle(now)

    def _timed_out(self, i: int, now: float) -> None:
        seat = self.seats[i]
        seat.act_by = None
        if self.rules is None or i not in self.rules.to_act():
            return
        if seat.racing:
            action = self.rules.silent_action(i)
            so_far = self.live.so_far.get(i) if self.live.open else None
            if so_far is None:
                self._note(f"{seat.name} said nothing in time.", i)
            else:  # what was heard stands
                self._note(f"{seat.name} did not seal their presses in time: what they pressed stands.", i)
                action, _ = self.rules.merge(i, so_far, action, None)
            self._apply(i, action, now, "silence")
            return
        if not self.rules.bot_may_play(i):  # (no bot can play it: the player's turn waits for them)
            return
        seat.timeouts += 1
        seat.covered = True
        if seat.timeouts >= 2:
            seat.state = SeatState.IDLE
            self._note(f"{seat.name} let the timer run out twice: a bot plays for them until "
                       "they press a key.", i)
        else:
            self._note(f"{seat.name}'s time is up: a bot plays this turn for them.", i)
        self._dirty = True

    def _arm_timers(self, rules: Rules, now: float) -> None:
        acting = rules.to_act() if rules.result() is None else frozenset()
        window = rules.window()
        turn_time = self.settings.turn_time
        for i, seat in enumerate(self.seats):
            if i not in acting or self._plays_by_bot(i) or seat.state is not SeatState.HERE:
                if i not in acting:
                    seat.covered = False
                seat.act_by = None
                continue
            if seat.act_by is not None:
                continue
            if window is not None:
                if not seat.local:
                    seat.racing = True
                    if rules.racing():  # from the room's instant
                        seat.act_by = (self.live.at or now) + window + self.settings.race_slack
                    else:  # between rounds: the seat says it is ready, or is made so
                        seat.act_by = now + self.settings.intermission + self.settings.race_slack
            elif turn_time is not None:
                seat.racing = False
                seat.act_by = now + turn_time

