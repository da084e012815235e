"""Link fault models shared by the in-memory simulator and the UDP fault proxy.

Owns: the description of a lossy link (`LinkFaults`) and the seeded decision
maker that turns one sent datagram into zero, one or two delivery times
(`FaultyLink`). Loss follows a Gilbert-Elliott two-state chain, so both
independent and bursty (correlated) loss are one model.

Must not touch: sockets, clocks or event loops. Time is always an argument,
randomness always comes from the `random.Random` handed in, so a seed replays
a fault schedule exactly, in the simulator and in the proxy alike.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GilbertElliott:
    """Two-state loss chain: Good and Bad, each with its own loss probability.

    `p` is P(Good -> Bad) and `r` is P(Bad -> Good), drawn once per datagram;
    `loss_good` and `loss_bad` are the loss probabilities inside each state.
    """

    p: float
    r: float
    loss_good: float = 0.0
    loss_bad: float = 1.0

    @classmethod
    def from_rate(cls, loss: float, correlation: float = 0.0) -> GilbertElliott:
        """The simple Gilbert chain with mean loss `loss` in which a datagram
        after a lost one is lost with probability `correlation + (1 - correlation) * loss`
        (netem's ``loss 10% 25%`` reads as ``from_rate(0.10, 0.25)``)."""
        if not 0.0 <= loss < 1.0 or not 0.0 <= correlation < 1.0:
            raise ValueError("loss and correlation must lie in [0, 1)")
        r = (1.0 - correlation) * (1.0 - loss)
        p = loss * (1.0 - correlation)
        return cls(p=p, r=r)

    @property
    def mean_loss(self) -> float:
        if self.p + self.r == 0.0:
            return self.loss_good
        bad = self.p / (self.p + self.r)
        return (1.0 - bad) * self.loss_good + bad * self.loss_bad


@dataclass(frozen=True, slots=True)
class LinkFaults:
    """What one direction of a link does to datagrams.

    delay and jitter are seconds: each datagram waits ``delay + U(-jitter, +jitter)``
    (never below zero). ``delay_max`` > 0 instead draws the wait uniformly from
    ``[delay, delay_max]`` (KCP's test link). With ``fifo`` no datagram overtakes
    an earlier one, as on KCP's simulated link; otherwise jitter reorders.
    ``reorder`` is the probability that a datagram is held back an extra
    ``reorder_delay`` seconds, so later ones overtake it. ``duplicate`` is the
    probability that a datagram arrives twice (the copy has its own delay).
    """

    loss: float = 0.0
    loss_correlation: float = 0.0
    gilbert_elliott: GilbertElliott | None = None
    delay: float = 0.0
    delay_max: float = 0.0
    jitter: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    reorder_delay: float = 0.01
    fifo: bool = False

    def loss_chain(self) -> GilbertElliott:
        if self.gilbert_elliott is not None:
            return self.gilbert_elliott
        return GilbertElliott.from_rate(self.loss, self.loss_correlation)

    @property
    def clean(self) -> bool:
        return self == LinkFaults()


class FaultyLink:
    """One direction of a link: decides the fate of each datagram sent on it."""

    __slots__ = ("faults", "rng", "_chain", "_bad", "_last_delivery")

    def __init__(self, faults: LinkFaults, rng: random.Random) -> None:
        self.faults = faults
        self.rng = rng
        self._chain = faults.loss_chain()
        self._bad = False
        self._last_delivery = 0.0

    def _lost(self) -> bool:
        chain = self._chain
        if chain.p == 0.0 and chain.loss_good == 0.0:
            return False
        rng = self.rng
        if self._bad:
            if rng.random() < chain.r:
                self._bad = False
        elif rng.random() < chain.p:
            self._bad = True
        rate = chain.loss_bad if self._bad else chain.loss_good
        return rate > 0.0 and rng.random() < rate

    def _delay(self) -> float:
        f = self.faults
        rng = self.rng
        if f.delay_max > f.delay:
            wait = rng.uniform(f.delay, f.delay_max)
        else:
            wait = f.delay
        if f.jitter:
            wait += rng.uniform(-f.jitter, f.jitter)
        if f.reorder and rng.random() < f.reorder:
            wait += f.reorder_delay
        return max(0.0, wait)

    def schedule(self, now: float) -> list[float]:
        """Delivery times for one datagram sent at `now` (empty if it is lost)."""
        if self._lost():
            return []
        times = [now + self._delay()]
        f = self.faults
        if f.duplicate and self.rng.random() < f.duplicate:
            times.append(now + self._delay())
        if f.fifo:
            ordered = []
            for t in sorted(times):
                # strictly after the previous one, so timer ties cannot reorder
                t = max(t, self._last_delivery + 1e-6)
                self._last_delivery = t
                ordered.append(t)
            times = ordered
        return times


#: a link that carries nothing at all: one side of a network split
CUT = LinkFaults(gilbert_elliott=GilbertElliott(p=0.0, r=0.0, loss_good=1.0))
