"""A host's lease: it acts only while the players it cannot hear could not choose another
host. Sans-IO.

Owns: the rule that keeps a host cut off from most of its players (a network split,
a laptop walking out of the Wi-Fi's range) from playing on while they elect a new host
among themselves (``netcode.session.election``).

The players at other machines who hold shares of the host's secret elect a new host
when the host has been silent to them for the channel's silence timeout (0.8 s), and
only with a majority of them (``threshold``). So the host checks, every ``CHECK_EVERY``
seconds, when it last heard each of those players: if so many have been silent for
``LEASE`` (less than the silence timeout) that they could make that majority, it
**pauses**: it applies no action, moves no bot and lets no timer run, before any of
them can even notice its silence. Play goes on as soon as it hears them again. After
``STEP_DOWN`` seconds paused it **steps down**: it tells whoever still hears it to elect
the next host (who, if the others already chose one, finds that one), and stops
hosting. The players who elected are never contradicted by the host they left; the
moves the paused host made in the ``LEASE`` before it paused, seen only by the players
on its side of the split, are undone when those players find the new host.

A player silent for longer than any election it could have started lasts (``give_up``)
has given that election up: it no longer counts against the lease, and the host splits
its secret afresh among the others. So players who leave one after another, minutes
apart, never pause a table; only a majority silent at about the same moment does.

``Leasing`` is the part of ``HostSession`` that keeps the lease, and the hand-over: a
host whose player leaves (``hand_over``) or whose lease runs out steps down, tells
every peer (``Handover``), and says no more; the players elect the next host.

Must not touch: sockets, clocks, asyncio, games.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from enum import Enum

from netcode.channel.config import Config
from netcode.session.election import EARLY_BALLOT, ELECTION_TIMEOUT
from netcode.session.host.events import SteppedDown
from netcode.session.host.parts import HostParts
from netcode.session.messages import Handover
from netcode.session.step import Step
from netcode.shares import threshold

#: seconds without a word from a player before the host counts them as unheard
#: (below the channel's silence timeout, so the host pauses before anyone elects)
LEASE = 0.4
#: seconds between two checks of the lease while it matters
CHECK_EVERY = 0.1
#: seconds paused before the host gives the table up to the players it still hears
STEP_DOWN = 2.0
#: seconds of silence after which a player is heard as gone by its peers
SILENCE = Config().silence_timeout


def give_up(holders: int) -> float:
    """Seconds after which a silent player is out of any election it could have started at a
    table whose secret ``holders`` players share (every candidate's turn, and a margin)."""
    return SILENCE + ELECTION_TIMEOUT * holders + EARLY_BALLOT + 1.0


class LeaseVerdict(Enum):
    HOLD = "hold"  # play on
    PAUSE = "pause"  # too many players unheard: stop acting now
    PAUSED = "paused"  # still paused
    RESUME = "resume"  # heard again: play on
    STEP_DOWN = "step down"  # paused too long: hand the table to those who still hear us


class Lease:
    """One host's lease: whether it may act, checked against when it last heard its players."""

    def __init__(self) -> None:
        self.paused_since: float | None = None
        #: seat -> when a check first found it unheard
        self.unheard_since: dict[int, float] = {}
        #: seats silent for longer than any election they could have started
        self.given_up: set[int] = set()

    @property
    def paused(self) -> bool:
        return self.paused_since is not None

    def check(self, heard: Mapping[int, float | None], now: float) -> LeaseVerdict:
        """``heard``: for each seat holding a share of the secret, when this host last heard
        its player (None: not connected). Seats silent past ``give_up`` join ``given_up``."""
        holders = len(heard)
        unheard = 0
        for seat, last in heard.items():
            if last is not None and now - last <= LEASE:
                self.unheard_since.pop(seat, None)
                self.given_up.discard(seat)
                continue
            since = self.unheard_since.setdefault(seat, now)
            if now - since < give_up(holders):
                unheard += 1
            else:
                self.given_up.add(seat)
        if holders >= 2 and unheard >= threshold(holders):
            if self.paused_since is None:
                self.paused_since = now
                return LeaseVerdict.PAUSE
            return LeaseVerdict.STEP_DOWN if now - self.paused_since >= STEP_DOWN else LeaseVerdict.PAUSED
        if self.paused_since is not None:
            return LeaseVerdict.RESUME
        return LeaseVerdict.HOLD

    def resume(self, now: float) -> float:
        """End the pause; returns how long it lasted (the deadlines it held move by as much)."""
        since, self.paused_since = self.paused_since, None
        return 0.0 if since is None else now - since


Peer = Hashable


class Leasing(HostParts):
    """The lease and the hand-over of a ``HostSession``."""

    #: paused while it cannot hear most players
    lease: Lease
    #: when the lease is checked next (None: it does not matter now)
    _lease_due: float | None
    #: ``heard(peer)``: when this host last heard ``peer`` on the channel (None: never), as
    #: the transport tells it; without it (a table in one process) there is no lease
    heard: Callable[[Peer], float | None] | None
    #: this machine no longer hosts: it handed the table over or stepped down
    stepped_down: bool

    def _init_leasing(self) -> None:
        self.lease = Lease()
        self._lease_due = None
        self.heard = None
        self.stepped_down = False

    @property
    def paused(self) -> bool:
        """Play waits: this host cannot hear enough players to be sure it is still their host."""
        return self.lease.paused

    def _keep_lease(self, now: float) -> None:
        """Pause, play on or step down, by when each player holding a share was last heard."""
        heard = self.heard
        assert heard is not None
        last = {seat: heard(self.seats[seat].peer) if self.seats[seat].peer in self.guests else None
                for seat in self.shares}
        given_up = set(self.lease.given_up)
        verdict = self.lease.check(last, now)
        if self.lease.given_up != given_up:  # a player out of any election: split the secret afresh
            self._dirty = True
        if verdict is LeaseVerdict.PAUSE:
            self._dirty = True
        elif verdict is LeaseVerdict.RESUME:
            self._unpause(now)
        elif verdict is LeaseVerdict.STEP_DOWN:
            self._step_down(now, deliberate=False)
        self._lease_due = None if self.stepped_down else now + CHECK_EVERY

    def _unpause(self, now: float) -> None:
        """Play goes on: every deadline moves on by the time play waited."""
        waited = self.lease.resume(now)
        for seat in self.seats:
            if seat.hold_until is not None:
                seat.hold_until += waited
            if seat.act_by is not None:
                seat.act_by += waited
        if self._deal_by is not None:
            self._deal_by += waited
        self._last_action += waited
        self._dirty = True

    def _arm_lease(self, now: float) -> None:
        """Check the lease while another player could take the table over."""
        if (self.heard is None or self.rules is None or self.finished or self.stepped_down
                or len(self.shares) < 2):
            self._lease_due = None
            if self.lease.paused:
                self._unpause(now)
        elif self._lease_due is None:
            self._lease_due = now + CHECK_EVERY

    def hand_over(self, now: float) -> Step:
        """This host's player leaves: the players at other machines elect the next host now
        (before the deal, or with nobody to take over, the table simply closes)."""
        self._step_down(now, deliberate=True)
        return self._settle(now)

    @property
    def can_hand_over(self) -> bool:
        """Whether a player at another machine could take the table over if this host left."""
        return self.rules is not None and not self.finished and len(self.shares) >= 2

    def _step_down(self, now: float, *, deliberate: bool) -> None:
        if self.stepped_down:
            return
        self.stepped_down = True
        self._lease_due = None
        for seat in self.seats:
            seat.act_by = seat.hold_until = None
        handover = Handover(self.term, deliberate)
        for peer in self.guests:
            self._out.send(peer, handover)
        self._out.table.append(SteppedDown(deliberate))
        self._dirty = True

