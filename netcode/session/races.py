"""Fair races over a network: what a host can know of a seat's timing, and the bound it sets.

Owns: ``Link`` (one remote peer's round trips, as the host measured them with its
own pings: their minimum and their spread), ``RaceClock`` (when each racing seat
was sent the message that opened its round, the pings in flight, and the
earliest reaction time the host can believe of a seat's claim), and the figures
of the bound (``FRAME_MS``, ``JITTER_CAP_MS``).

**The bound, worked out.** In a real-time round every seat measures its own
reaction time ``c`` from the moment its terminal drew the room, so latency costs
an honest player nothing; the host settles the round by those times. The host
cannot see a seat's clock, only its own:

* ``S``: when it sent the seat the message that opened the round (the room);
* ``A``: when that seat's press arrived;
* its own pings of that seat (``Ping``/``Pong``, answered at once): each a round
  trip ``r``, of which it keeps the smallest, ``r_min`` (a minimum-delay
  filter, as NTP's), and the spread of the recent ones above it, ``j`` (their
  second largest minus the smallest, so one lost and resent datagram does not
  count). Until its pings have answered (the first room is dealt at once) it
  takes the channel's own estimate of the round trip, and the widest spread.

An honest press took the room's way down, the player's reaction and the press's
way up, plus the frame ``f`` the terminal took to draw the room::

    A - S = d_down + f + c + d_up = r + f + c        (r: this round trip)

so ``c = A - S - r - f`` with ``r`` somewhere in ``[r_min, r_min + j]``. The host
believes no claim below

    ``bound = A - S - r_min - j - FRAME_MS``

and raises any lower claim to it (the game's pure ``clamp``; the public log says
so). An honest claim is never below it while its round trip is within the spread
the host has seen and its frame within ``FRAME_MS``. A lying client that waits
``W`` after the room reached it and claims 0 ms is counted at
``W + (r - r_min) - j - FRAME_MS`` at the least: it gains at most ``j +
FRAME_MS`` (the jitter of its own link, and a frame), whatever it claims. It cannot
learn the room before ``S`` (the next room is sent only when it opens), nor shrink
``r_min`` (a ping cannot come back before it was sent). It can make its link look
more jittery by answering some pings late: that is why the spread counts at most
``JITTER_CAP_MS``, which is then all such a client can gain. A press that arrives
after a lost datagram was resent is clamped like a late shout.

Every terminal draws a room when it arrives, so rooms appear ``d_down`` apart on
fast and slow links; each reaction is timed from its own terminal's drawing, so
that costs nobody a race.

Must not touch: sockets, clocks, games. Times are handed in by the host session.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

#: milliseconds allowed for a client's frame: from the room's arrival to its drawing
FRAME_MS = 15.0
#: the most of a link's spread of round trips the bound allows for (milliseconds)
JITTER_CAP_MS = 60.0
#: how many of a link's recent round trips count toward its spread
SAMPLES = 32
#: seconds between two pings of one peer
PING_EVERY = 0.5
#: a ping unanswered for this long is forgotten (seconds)
PING_LOST = 5.0

Peer = Hashable


@dataclass
class Link:
    """The round trips to one peer, as the host's own pings measured them (seconds)."""

    recent: deque[float] = field(default_factory=lambda: deque(maxlen=SAMPLES))
    smallest: float = math.inf
    #: the channel's smoothed estimate, until the host's own pings have answered
    channel: float | None = None

    def add(self, rtt: float) -> None:
        self.recent.append(rtt)
        self.smallest = min(self.smallest, rtt)

    @property
    def measured(self) -> bool:
        return bool(self.recent) or self.channel is not None

    @property
    def least(self) -> float:
        """The smallest round trip known: the pings', else the channel's estimate."""
        return self.smallest if self.recent else self.channel or 0.0

    @property
    def spread(self) -> float:
        """How far above the smallest round trip the recent ones go (the second largest,
        so one resent datagram does not count), capped at ``JITTER_CAP_MS``."""
        if len(self.recent) < 2:
            return JITTER_CAP_MS / 1000
        high = sorted(self.recent)[-2]
        return min(JITTER_CAP_MS / 1000, max(0.0, high - self.smallest))


class RaceClock:
    """The host's side of fair races: round openings, pings, and the bound on claims."""

    def __init__(self) -> None:
        self.links: dict[Peer, Link] = {}
        #: seat -> when the message that opened its round was sent
        self.opened: dict[int, float] = {}
        self._pings: dict[Peer, dict[int, float]] = {}
        self._ids = itertools.count(1)
        self._next_ping: float | None = None

    # ------------------------------------------------------------ rounds
    def open(self, seat: int, now: float) -> None:
        """``seat`` was sent the opening of a round at ``now``."""
        self.opened[seat] = now

    def close(self, seat: int) -> None:
        self.opened.pop(seat, None)

    def earliest_ms(self, seat: int, peer: Peer, now: float) -> int | None:
        """The smallest reaction time (ms) the host can believe of ``seat``'s claim arriving
        at ``now`` from ``peer``; None while the host knows no bound (no round open, no
        round trip measured)."""
        opened = self.opened.get(seat)
        link = self.links.get(peer)
        if opened is None or link is None or not link.measured:
            return None
        allowed = link.least + link.spread
        return max(0, math.floor((now - opened - allowed) * 1000 - FRAME_MS))

    def allowance_ms(self, peer: Peer) -> float | None:
        """What the bound allows ``peer`` beyond its smallest round trip (ms)."""
        link = self.links.get(peer)
        return None if link is None or not link.measured else link.spread * 1000 + FRAME_MS

    # ------------------------------------------------------------ pings
    def next_ping(self) -> float | None:
        return self._next_ping

    def pings(self, peers: Iterable[Peer], now: float) -> list[tuple[Peer, int]]:
        """The pings due at ``now`` (one to each of ``peers``), or none before it is time."""
        peers = list(peers)
        if not peers:
            self._next_ping = None
            return []
        if self._next_ping is not None and now < self._next_ping:
            return []
        self._next_ping = now + PING_EVERY
        out = []
        for peer in peers:
            waiting = self._pings.setdefault(peer, {})
            for n in [n for n, sent in waiting.items() if now - sent > PING_LOST]:
                del waiting[n]
            n = next(self._ids)
            waiting[n] = now
            out.append((peer, n))
        return out

    def channel_rtt(self, peer: Peer, rtt: float) -> None:
        """The channel's own estimate of ``peer``'s round trip: the bound's until pings answer."""
        self.links.setdefault(peer, Link()).channel = rtt

    def pong(self, peer: Peer, n: int, now: float) -> bool:
        """``peer`` answered ping ``n``; False if it was never asked (dropped by the caller)."""
        sent = self._pings.get(peer, {}).pop(n, None)
        if sent is None:
            return False
        self.links.setdefault(peer, Link()).add(now - sent)
        return True

    def forget(self, peer: Peer) -> None:
        self._pings.pop(peer, None)
        self.links.pop(peer, None)
