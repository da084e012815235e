"""A seat's estimate of its host's clock, from the pings the host already sends. Sans-IO.

Owns: ``HostClock``. The host stamps every ``Ping`` with its own clock (``at``)
and, in the next one, echoes the round trip it measured for an earlier ping.
The seat knows when that ping arrived here (``arrived``, its own clock) and how
long it held it before answering (``held``), so each echo is one sample::

    delay  = rtt - held                       (the time on the wire, both ways)
    offset = at + delay / 2 - arrived         (host clock - my clock)

and, as NTP's clock filter does, the sample with the smallest delay among the
recent ones is believed (its two ways were the least queued, so the most
alike): its error is at most half its delay, and on a link that is as fast one
way as the other, far less. ``local(instant)`` turns a host-clock instant (the
moment a real-time round's room is drawn everywhere) into this seat's clock,
when the estimate is good enough; otherwise the room is drawn as it arrives.
A seat on the host's own machine shares its clock (``same``).

Must not touch: sockets, clocks (every time is handed in), games.
"""

from __future__ import annotations

from collections import deque

#: how many recent samples the filter chooses from (at two pings a second: 16 s)
SAMPLES = 32
#: pings remembered while their echo is awaited
REMEMBERED = 64
#: an estimate whose best sample took longer than this (seconds) is not good enough to draw by
GOOD_ENOUGH = 0.25
#: the longest a seat waits for a room's instant after the room arrived (seconds)
LONGEST_WAIT = 1.5


class HostClock:
    """How the host's clock reads against mine, from the host's pings and their echoes."""

    def __init__(self) -> None:
        #: True for a seat on the host's own machine: one clock, no estimate needed
        self.same = False
        self._pinged: dict[int, tuple[float, float, float]] = {}  # n -> (at, arrived, held)
        self._samples: deque[tuple[float, float]] = deque(maxlen=SAMPLES)  # (delay, offset)

    def pinged(self, n: int, at: float, arrived: float, held: float) -> None:
        """Ping ``n``, sent at ``at`` (host clock), arrived at ``arrived`` (mine) and answered
        ``held`` seconds later."""
        self._pinged[n] = (at, arrived, held)
        if len(self._pinged) > REMEMBERED:
            del self._pinged[min(self._pinged)]

    def echoed(self, n: int, rtt: float) -> None:
        """The host measured ``rtt`` for ping ``n``: one sample, if I remember that ping."""
        ping = self._pinged.pop(n, None)
        if ping is None:
            return
        at, arrived, held = ping
        delay = max(0.0, rtt - held)
        self._samples.append((delay, at + delay / 2 - arrived))

    @property
    def offset(self) -> float | None:
        """The host's clock less mine (seconds), from the best recent sample; None before one."""
        if self.same:
            return 0.0
        if not self._samples:
            return None
        return min(self._samples)[1]

    @property
    def error(self) -> float | None:
        """The most the offset can be wrong by (half the best sample's delay), in seconds."""
        if self.same:
            return 0.0
        return min(self._samples)[0] / 2 if self._samples else None

    def local(self, instant: float, arrived: float) -> float:
        """When (my clock) to draw what the host draws at ``instant`` (its clock), for a room
        that arrived at ``arrived``: that instant if the estimate is good, never before the
        room arrived nor more than ``LONGEST_WAIT`` after; else at once."""
        offset = self.offset
        if offset is None or not self.good:
            return arrived
        return min(max(arrived, instant - offset), arrived + LONGEST_WAIT)

    @property
    def good(self) -> bool:
        """Whether the estimate of the host's clock is good enough to draw a room by."""
        return self.offset is not None and self.error is not None and self.error <= GOOD_ENOUGH / 2
