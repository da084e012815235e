"""The outbox: what every peer of a hosted table is sent, and when.

Owns (a part of ``HostSession``): the output of each call (``_out``, handed back by
``_take``), ``_settle`` (after any change: the secret shared afresh if the players
changed, the lease armed, the bots told, a real-time room opened or closed, the timers
armed, and every peer sent its news), and what each guest is sent: the members (who
could take over), the lobby before the deal, then its own ``Snap`` (its view, whole the
first time and then what changed, its legal actions, the new log entries, the new card
commitments and the openings of faces it is shown for the first time, the clocks, the
record of play and the host's signature over it), and at the end a ``Final`` with the
public view, its digest, the result and the fair-play record for the audit. What a peer
whose room is held back is sent waits for its room (``UNHELD`` messages excepted).

Must not touch: sockets, clocks, asyncio, any particular game.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from netcode import delta
from netcode.session.host.deadlines import UNKNOWN
from netcode.session.host.events import GameOver, TableChanged
from netcode.session.host.parts import HostParts
from netcode.session.host.rules import Rules
from netcode.session.host.seating import Guest
from netcode.session.messages import (
    Dealt,
    Final,
    Handover,
    Lobby,
    Members,
    NonceTaken,
    Ping,
    Refused,
    Snap,
    Welcome,
)
from netcode.session.seats import SeatState
from netcode.session.step import Step

Peer = Hashable

#: what a peer is sent at once even while its room is held back: nothing in them tells of a
#: room, and each must not wait (a ping's time is its point; the deal's record and the
#: members and the roster let a peer take the table over if this host dies before the first
#: room leaves; a handover is this host's last word)
UNHELD = (Ping, Dealt, Members, Lobby, Handover, NonceTaken, Welcome, Refused)


class _Moment:
    """What the snapshots of one moment share, each part made once for every peer: the roster,
    who acts, the result, the clocks; the views' shared parts, diffed once (``memo``: see
    ``delta.diff``); the new commitments and actions from each place a peer's last snapshot
    left off (the same for nearly all of them), and the salt of each face opened."""

    __slots__ = ("rules", "roster", "to_act", "result", "clocks", "memo", "commits", "actions", "salts")

    def __init__(self, rules: Rules, roster: list[Any], to_act: list[Any], result: Any, clocks: list[Any]) -> None:
        self.rules, self.roster, self.to_act, self.result, self.clocks = rules, roster, to_act, result, clocks
        self.memo: dict[Any, Any] = {}
        self.commits: dict[int, list[Any]] = {}
        self.actions: dict[int, list[Any]] = {}
        self.salts: dict[int, bytes] = {}


class Outbox(HostParts):
    """What a ``HostSession`` sends."""

    #: what this call produced so far
    _out: Step
    #: something changed since every peer was last sent its news
    _dirty: bool

    def _init_outbox(self) -> None:
        self._out = Step()
        self._dirty = False

    def _take(self) -> Step:
        """What this call produced; every public method ends here (so the next deadline is
        worked out afresh when next asked). What a held peer is sent waits for its room."""
        self._next = UNKNOWN
        out, self._out = self._out, Step()
        out.sends = self.live.route(out.sends, free=UNHELD)
        return out

    def _settle(self, now: float) -> Step:
        """After any change: timers follow who acts, and every peer gets its news."""
        if self.settings.no_peek and self.rules is not None:
            self._pump_mental()  # what the host's program said, and the moves it made
        if not self._dirty:
            return self._take()
        self._dirty = False
        if not self.stepped_down:
            self._reshare_if_changed()
        self._arm_lease(now)
        if self.stepped_down:  # the players elect among themselves now: this host says no more
            return self._take()
        rules = self.rules
        if rules is not None and not self.finished and not self.lease.paused:
            bots = frozenset(i for i in range(len(self.seats)) if self._plays_by_bot(i))
            orphans = [i for i in bots if self.seats[i].state is SeatState.BOT and not rules.bot_may_play(i)
                       and i not in self.seat_runners]  # (a watcher's program plays it)
            if orphans and rules.result() is None:  # (a no-peek table: a program that is no player's takes them)
                orphans = [i for i in orphans if not self.take_seat(i)]
                if orphans:  # (too few key holders left to open their hands)
                    names = " and ".join(self.seats[i].name or f"seat {i + 1}" for i in orphans)
                    rules.close()
                    self._note(f"{names} left, and no bot can take their seat: at a no-peek table too few "
                               "players' programs are left to open their hand. The game ends with the scores "
                               "as they stood.")
            if bots != self._bot_seats:
                self._bot_seats = bots
                rules.set_bot_seats(bots)
            racing = self.real_time and rules.racing() and rules.result() is None
            if racing and not self.live.open:
                self._open_room(now)
            elif not racing and self.live.open:
                self.live.end()
                self.races.close_room()
            self._arm_timers(rules, now)
        self._broadcast(now)
        self._out.table.append(TableChanged())
        return self._take()

    def _broadcast(self, now: float) -> None:
        roster = [row.to_wire() for row in self.roster(now)]
        members = self.members()
        message: Members | None = None
        for peer, guest in self.guests.items():
            if guest.members_sent != members:
                if message is None:
                    own = next((i for i, seat in enumerate(self.seats) if seat.local and seat.peer is not None), None)
                    message = Members(self.term, own, members)
                self._out.send(peer, message)
                guest.members_sent = members
        rules = self.rules
        if rules is None or not rules.dealt():  # (the players' programs are still dealing)
            lobby = Lobby(roster)
            for peer in self.guests:
                self._out.send(peer, lobby)
            return
        result = rules.result()
        to_act = sorted(rules.to_act()) if result is None else []
        clocks = [[i, round(max(0.0, seat.act_by - now), 3)] for i, seat in enumerate(self.seats)
                  if seat.act_by is not None]
        moment = _Moment(rules, roster, to_act, result, clocks)
        for peer, guest in self.guests.items():
            self._out.send(peer, self._snap_for(guest, moment))
        if result is None:
            return
        if not self.finished:
            self.finished = True
            for seat in self.seats:
                seat.act_by = seat.hold_until = None
            self._out.table.append(GameOver(result))
        final: Final | None = None
        for peer, guest in self.guests.items():  # a player back after the end gets it too
            if not guest.final_sent:
                if final is None:
                    fair = self.ledger.public()
                    if self.rng_seed is not None:
                        fair["rng_seed"] = self.rng_seed
                    signature = self.signer.sign_final(self.ledger.table_id, self.term, fair, result)
                    final = Final(rules.view(None), rules.digest(), result, fair, signature)
                self._out.send(peer, final)
                guest.final_sent = True

    def _snap_for(self, guest: Guest, moment: _Moment) -> Snap:
        seat = guest.seat
        rules, result = moment.rules, moment.result
        view = rules.view(seat)
        whole = changes = None
        if guest.view_sent is None:
            whole = view
        else:  # what changed since the last snapshot: usually a few zones and faces
            changes = delta.diff(guest.view_sent, view, moment.memo)
        guest.view_sent = view
        roster = moment.roster
        sent_roster = None
        if roster != guest.roster_sent:
            sent_roster = guest.roster_sent = roster
        log = self.log[guest.log_sent :]
        log_at, guest.log_sent = guest.log_sent, len(self.log)
        commitments = self.ledger.commitments
        commits = moment.commits.get(guest.commits_sent)
        if commits is None:
            commits = moment.commits[guest.commits_sent] = [[h, c] for h, c in commitments[guest.commits_sent :]]
        guest.commits_sent = len(commitments)
        openings: list[Any] = []
        # (a no-peek deal's faces are proved by their shares; faces as they were in the last
        # snapshot were all opened to this peer then)
        if not self.settings.no_peek and (changes is None or delta.touches(changes, "faces")):
            opened, salts = guest.opened, moment.salts
            fresh = [h for h, _ in view["faces"] if h not in opened]
            for h in fresh:
                salt = salts.get(h)
                if salt is None:
                    salt = salts[h] = self.ledger.salt(h)
                openings.append([h, salt])
            opened.update(fresh)
        recorded = self.recorded
        actions_at = guest.actions_sent
        actions = moment.actions.get(actions_at)
        if actions is None:
            actions = moment.actions[actions_at] = [[s, a] for s, a in self.ledger.actions[actions_at:recorded]]
        guest.actions_sent = recorded
        signed = None
        if guest.signed_sent != recorded:
            signed, guest.signed_sent = self.signature(), recorded
        return Snap(
            seat, rules.legal(seat) if seat is not None and result is None else [], moment.to_act, log_at, log,
            result, whole, changes, sent_roster, commits, openings, moment.clocks, actions_at, actions, signed,
        )  # fmt: skip

    def forget_sent(self, peer: Peer) -> None:
        """The last messages to ``peer`` could not be sent: send it everything afresh next time."""
        guest = self.guests.get(peer)
        if guest is not None:
            guest.log_sent = guest.commits_sent = guest.actions_sent = 0
            guest.signed_sent = -1
            guest.opened.clear()
            guest.view_sent = guest.roster_sent = guest.members_sent = None
            guest.final_sent = False
            self._dirty = True

