"""Fair races over a network: what a host can know of a seat's timing, and the bound it sets.

Owns: ``Link`` (one remote peer's round trips, as the host measured them with its
own pings: their minimum and their spread), ``RaceClock`` (the pings and what
they tell, the instant each real-time round's room is drawn everywhere, when
each peer was sent that room, and the earliest reaction time the host can
believe of a seat's claim), and the figures of the bound (``FRAME_MS``,
``JITTER_CAP_MS``, ``CLOCK_SLACK_MS``).

**Every terminal draws a room at one instant.** When a round opens (at ``S``)
the host picks the instant ``T`` at which every terminal draws its room, a
little later: late enough that the room can reach the slowest peer by then
(the first room, dealt at once, waits about a second for the pings to tell
each link: a link not yet measured is pinged ten times a second until it has
answered ``SETTLE`` of them, as NTP's ``iburst``; a peer's send time is worked
out again as each answer comes).
It tells every peer ``T`` (on the host's clock; each peer estimates the host's
clock from the pings, ``netcode.session.clock``) and sends each remote peer its
room only at ``R = T - lead``, where ``lead`` is half that peer's smallest
round trip, half its spread and a millisecond: each room arrives just before
``T``, and nobody holds a room long before the others see it.

**The bound, worked out.** Every seat measures its own reaction time ``c`` from
the moment its terminal drew the room, so latency costs an honest player
nothing; the host settles the round by those times. The host cannot see a
seat's clock, only its own:

* ``T``, and ``R``: when the room left for that seat;
* ``A``: when the seat's press arrived (the kernel's receive time where the
  platform tells it, so the host's own busy moments do not count against the
  seat);
* its own pings of that seat (``Ping``/``Pong``, answered at once): each a
  round trip, of which it keeps the smallest, ``r`` (a minimum-delay filter,
  as NTP's), and the spread of the recent ones above it, ``j``: their second
  largest, so one lost and resent datagram does not count, once the link has
  answered ``SETTLE`` pings; until then their largest (of two answers the
  second largest is the smallest, a spread of nothing). Each answer says
  how long it waited in the seat's program before it left (``held``: a busy
  terminal's delay, not the link's); the spread is taken without it, the
  smallest round trip with it. Until the pings have answered (the first room
  is dealt at once) the host takes the channel's estimate of the round trip,
  and the widest spread;
* the channel's acks of all the traffic to that seat: the least round trip
  they ever showed, and the spread of the recent ones (less the ack delay each
  says it added). ``r`` is the smaller of the pings' and the acks' least round
  trip, ``j`` the smaller of their spreads: a ping is one datagram a modified
  program can pick out and answer late, while its acks cover everything the
  host sends it, the rooms among them.

An honest seat draws the room at ``T`` (its estimate of it, off by at most
``e``), or when the room arrives if that is later, then a frame ``f`` later
starts its clock; its press takes the way up, at most half the round trip and
the spread::

    A <= max(T + e + f + c + r/2 + j,  R + r + j + f + c)

so the host believes no claim below

    ``bound = A - max(T + e + r/2 + j, R + r + j) - FRAME_MS``

with ``e = CLOCK_SLACK_MS + j/2``, and raises any lower claim to it (the game's
pure ``clamp``; the public log says so). An honest claim is never below it
while its link keeps within the spread the host has seen, half of it each way,
and its frame within ``FRAME_MS``. A lying client that knew the room from its
arrival (``R`` plus the way down) and claims less than it took gains at most
``lead + e + j + FRAME_MS - r/2 = 2j + FRAME_MS + 3 ms``: **twice its own link's
spread, a frame and three milliseconds**, whatever it claims (on a steady 2 ms
link, about 20 ms). It cannot learn the room sooner (it is sent at ``R``), nor shrink
``r`` (a ping cannot come back before it was sent; ``held`` only ever lowers
the spread). Answering pings late, all of them or some, or saying it held them
less than it did, moves neither ``r`` nor ``j``: the acks set them (and a seat
whose every recent answer trails its acks by over ``SLOW_PONGS_MS`` is named in
the public log). Delaying its acks too, of everything, makes its link *be* a
slower or more jittery one as far as anyone can measure: a steady delay moves
the room's sending with it (no gain beyond the above), a varying one widens
``j``, which is why the spread counts at most ``JITTER_CAP_MS``. A press that
arrives after a lost datagram was resent is clamped like a late shout.

Must not touch: sockets, clocks, games. Times are handed in by the host session.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from netcode.channel.events import RttUpdated

#: milliseconds allowed for a client's frame: from the room's instant to its drawing
FRAME_MS = 15.0
#: milliseconds more allowed at a no-peek table, where a terminal can draw the room only once
#: its program has checked the room's shares and opened its cards (a few verified proofs a
#: card: 5 to 21 ms measured on a busy 2-core machine)
OPEN_MS = 25.0
#: the most of a link's spread of round trips the bound allows for (milliseconds)
JITTER_CAP_MS = 60.0
#: milliseconds a seat's estimate of the host's clock may be off beyond half its link's spread
CLOCK_SLACK_MS = 2.0
#: how many of a link's recent round trips count toward its spread
SAMPLES = 32
#: seconds between two pings of one peer
PING_EVERY = 0.5
#: answers a link needs before its spread sets one round trip aside, and before it is pinged
#: at the ordinary pace: fewer tell too little of a jittery link's spread
SETTLE = 8
#: seconds between two pings while a link has answered fewer than ``SETTLE`` (NTP's ``iburst``)
BURST_EVERY = 0.1
#: the most pings a link is sent at ``BURST_EVERY`` (one that loses its answers cannot keep the pace up)
BURST_MOST = 2 * SETTLE
#: a ping unanswered for this long is forgotten (seconds)
PING_LOST = 5.0
#: the most round trip (milliseconds) the bound credits a link with: beyond it a program could
#: delay all it sends from its first datagram on and be credited as a slow link (a LAN's, even
#: a poor Wi-Fi's, are well under it); a link slower than this is clamped as if it were this fast
ROUND_TRIP_CAP_MS = 120.0
#: milliseconds by which the channel's recent least round trip may exceed its least ever before
#: the host says so in the public log (the bound keeps the least ever)
JUMP_MS = 50.0
#: milliseconds by which a peer's fastest answer to a ping may trail the channel's fastest ack
#: before the host names it (a busy terminal answers late now and then, never every time)
SLOW_PONGS_MS = 20.0
#: seconds a room is sent ahead of its instant beyond the way down and half the spread
AHEAD = 0.001
#: the least seconds from a round's opening to its instant when a remote peer races: the host
#: makes every peer's view first, then sends each its room from a moment with nothing else to do
HOST_WORK = 0.005
#: the most seconds a room's instant may lie after the round opened (a slower peer draws late)
MAX_LEAD = 0.25
#: seconds the first room waits for the pings of a peer not measured yet: its first ``SETTLE``
#: answered, on a round trip of up to 0.4 s
FIRST_WAIT = (SETTLE - 1) * BURST_EVERY + 0.4

Peer = Hashable


@dataclass
class Link:
    """The round trips to one peer, as the host's own pings measured them (seconds)."""

    #: recent round trips, less the time each ping waited in the peer's program
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=SAMPLES))
    smallest: float = math.inf
    #: how many pings it has been sent
    asked: int = 0
    #: the channel's smoothed estimate, until the host's own pings have answered
    channel: float | None = None
    #: the least raw round trip the channel's acks of all traffic have shown, and their recent
    #: spread above it (None until enough are known): what the peer cannot delay for one probe
    acked_least: float = math.inf
    acked_spread: float | None = None
    #: the least of the channel's recent round trips (the same stretch of time as ``recent``)
    acked_recent: float = math.inf
    #: what the peer was named for in the public log (each once): "pongs", "jump"
    named: set[str] = field(default_factory=set)

    def add(self, rtt: float, held: float = 0.0) -> None:
        """One ping's round trip, of which the peer says it held it ``held`` (never trusted to
        shorten the smallest round trip: only the spread is taken without it)."""
        self.recent.append(max(0.0, rtt - min(max(held, 0.0), rtt)))
        self.smallest = min(self.smallest, rtt)

    @property
    def measured(self) -> bool:
        return bool(self.recent) or self.channel is not None or self.acked_least < math.inf

    @property
    def least(self) -> float:
        """The smallest round trip known: the pings' or the channel's acks', whichever is less
        (a peer can delay its answers to pings, never make a round trip shorter than it was);
        before either, the channel's smoothed estimate. Never over ``ROUND_TRIP_CAP_MS``."""
        least = min(self.smallest, self.acked_least)
        least = least if least < math.inf else self.channel or 0.0
        return min(least, ROUND_TRIP_CAP_MS / 1000)

    @property
    def spread(self) -> float:
        """How far above the smallest round trip the recent ones go, capped at ``JITTER_CAP_MS``:
        the second largest, so one resent datagram does not count, once ``SETTLE`` have
        answered; the largest before (the second largest of two is the smallest). Never more
        than the channel's acks show of the same link (once they show it): answering some
        pings late widens nothing."""
        cap = JITTER_CAP_MS / 1000
        if self.acked_spread is not None:
            cap = min(cap, self.acked_spread)
        if len(self.recent) < 2:
            return cap
        high = sorted(self.recent)[-2 if self.settled else -1]
        return min(cap, max(0.0, high - self.least))

    @property
    def settled(self) -> bool:
        """Whether the host's own pings have answered often enough to tell a spread, and the
        channel's acks too where the channel has told anything of this link."""
        return len(self.recent) >= SETTLE and (self.acked_spread is not None or self.acked_least == math.inf)

    @property
    def bursting(self) -> bool:
        """Whether it is pinged at ``BURST_EVERY``: not settled, and not yet sent ``BURST_MOST``."""
        return not self.settled and self.asked < BURST_MOST

    @property
    def lead(self) -> float:
        """How long before a room's instant it must leave to arrive just in time (seconds)."""
        return self.least / 2 + self.spread / 2 + AHEAD

    def slow_pongs(self) -> float | None:
        """How much slower (seconds) than its link the peer has answered each of its last
        ``SETTLE`` pings, if by more than ``SLOW_PONGS_MS`` and its pings have settled: a program
        holding its answers back (less what it said it held them: an honest busy terminal says
        so)."""
        if not self.settled or self.acked_recent == math.inf:
            return None
        slower = min(list(self.recent)[-SETTLE:]) - self.acked_recent  # (a liar is named within 4 s)
        return slower if slower * 1000 > SLOW_PONGS_MS else None

    def jumped(self) -> tuple[float, float] | None:
        """(the least round trip ever, the least recent one), if the recent one is over
        ``JUMP_MS`` more: the link got slower, or a program started delaying all it sends."""
        if self.acked_recent == math.inf or self.acked_recent - self.acked_least <= JUMP_MS / 1000:
            return None
        return self.acked_least, self.acked_recent


class RaceClock:
    """The host's side of fair races: pings, each round's instant, and the bound on claims."""

    def __init__(self) -> None:
        self.links: dict[Peer, Link] = {}
        #: the instant (host clock) the open round's room is drawn everywhere; None between rounds
        self.room_at: float | None = None
        #: peer -> when the open round's room left for it
        self.sent: dict[Peer, float] = {}
        #: peer -> ping number -> [the time it is stamped with, the time it left]
        self._pings: dict[Peer, dict[int, list[float]]] = {}
        #: peer -> its last answered ping and round trip, echoed in the next ping
        self._answered: dict[Peer, list[Any]] = {}
        self._ids = itertools.count(1)
        self._next_ping: float | None = None

    # ------------------------------------------------------------ rounds
    def open_room(self, now: float, remote: Iterable[Peer]) -> tuple[float, dict[Peer, float]]:
        """A real-time round opens at ``now``: the instant its room is drawn everywhere, and
        when to send each remote peer its room (a local peer gets it at once)."""
        links = {peer: self._link(peer) for peer in remote}
        at = now
        if links:
            at += min(MAX_LEAD, HOST_WORK + max(link.lead for link in links.values()))
            if not all(link.settled for link in links.values()):  # the first room: let the pings speak
                at = max(at, now + FIRST_WAIT)
        self.room_at, self.sent = at, {}
        return at, {peer: self.send_at(peer, now) for peer in links}

    def send_at(self, peer: Peer, now: float) -> float:
        """When to send ``peer`` the open round's room, as its link is known at ``now``."""
        assert self.room_at is not None
        return max(now + HOST_WORK, self.room_at - self._link(peer).lead)

    def room_sent(self, peer: Peer, now: float) -> None:
        """The open round's room left for ``peer`` at ``now``."""
        self.sent[peer] = now

    def close_room(self) -> None:
        self.room_at, self.sent = None, {}

    def earliest_ms(self, peer: Peer, arrived: float, opening: float = 0.0) -> int | None:
        """The smallest reaction time (ms) the host can believe of a claim from ``peer`` that
        arrived at ``arrived``; None while the host knows no bound (no round open, the room
        not sent, no round trip measured). ``opening``: ms more for the seat's program to open
        the room (``OPEN_MS`` at a no-peek table)."""
        at, sent, link = self.room_at, self.sent.get(peer), self.links.get(peer)
        if at is None or sent is None or link is None or not link.measured:
            return None
        r, j = link.least, link.spread
        clock = CLOCK_SLACK_MS / 1000 + j / 2
        latest = max(at + clock + r / 2 + j, sent + r + j)
        return max(0, math.floor((arrived - latest) * 1000 - FRAME_MS - opening))

    def allowance_ms(self, peer: Peer) -> float | None:
        """What the bound allows ``peer`` beyond the room's instant and half its smallest round
        trip (ms): the clock slack, the spread and a frame."""
        link = self.links.get(peer)
        if link is None or not link.measured:
            return None
        return round(CLOCK_SLACK_MS + link.spread * 1500 + FRAME_MS, 1)

    # ------------------------------------------------------------ pings
    def next_ping(self) -> float | None:
        return self._next_ping

    def pings(self, peers: Iterable[Peer], now: float) -> list[tuple[Peer, int, list[Any] | None]]:
        """The pings due at ``now`` (one to each of ``peers``: its number, and the echo of the
        peer's last answered ping), or none before it is time: every ``PING_EVERY``, or every
        ``BURST_EVERY`` while a link is still bursting."""
        peers = list(peers)
        if not peers:
            self._next_ping = None
            return []
        if self._next_ping is not None and now < self._next_ping:
            return []
        out = []
        for peer in peers:
            self._link(peer).asked += 1
            waiting = self._pings.setdefault(peer, {})
            for n in [n for n, (stamped, _) in waiting.items() if now - stamped > PING_LOST]:
                del waiting[n]
            n = next(self._ids)
            waiting[n] = [now, now]
            out.append((peer, n, self._answered.get(peer)))
        bursting = any(self._link(peer).bursting for peer in peers)
        self._next_ping = now + (BURST_EVERY if bursting else PING_EVERY)
        return out

    def channel_rtt(self, peer: Peer, measured: RttUpdated) -> None:
        """What the channel measured of ``peer``'s round trips: its smoothed estimate (the
        bound's until pings answer), the least raw round trip its acks have shown, their recent
        spread and least."""
        link = self._link(peer)
        link.channel = measured.rtt
        link.acked_least = min(link.acked_least, measured.least)
        link.acked_recent = measured.recent_least
        if measured.spread is not None:
            link.acked_spread = measured.spread

    def ping_left(self, peer: Peer, n: int, now: float) -> None:
        """Ping ``n`` actually left for ``peer`` at ``now`` (the host's program may have been kept
        from sending it the moment it was stamped): its round trip counts from then."""
        times = self._pings.get(peer, {}).get(n)
        if times is not None:
            times[1] = max(times[0], now)

    def pong(self, peer: Peer, n: int, arrived: float, held: float = 0.0) -> bool:
        """``peer`` answered ping ``n`` (its answer arrived at ``arrived``, having waited
        ``held`` in the peer's program); False if it was never asked (dropped by the caller).
        The link counts the round trip from when the ping left; the echo (for the peer's
        reading of the host's clock) from the time the ping was stamped with."""
        times = self._pings.get(peer, {}).pop(n, None)
        if times is None:
            return False
        stamped, left = times
        self._link(peer).add(max(0.0, arrived - left), held)
        self._answered[peer] = [n, min(max(0.0, arrived - stamped), 60.0)]
        return True

    def forget(self, peer: Peer) -> None:
        for kept in (self._pings, self.links, self._answered, self.sent):
            kept.pop(peer, None)

    def _link(self, peer: Peer) -> Link:
        return self.links.setdefault(peer, Link())
