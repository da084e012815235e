"""Live real-time rounds at the host: one instant for every room, every press heard at once. Sans-IO.

Owns: ``LiveRounds``, the host's bookkeeping of a real-time round beyond the
bound on claims (``netcode.session.host.races``):

* the round's number, and the instant its room is drawn everywhere;
* **held messages**: from a round's opening, whatever the host sends a remote
  peer waits until that peer's room is due to leave (its room, and anything
  after it, in order), so each room arrives just before the instant and no peer
  learns it sooner than it must;
* **live shouts**: every seat's presses so far this round (a remote seat's
  arrive one by one and are bounded as they come; the host shouts each to
  everyone once it has accepted it), and the bots' presses, which are sealed as
  the room opens with their reaction times and are released as shouts each at
  its own time (a deadline of the host session, like any other).

Nothing here is shown before the host has accepted it, and a shout carries an
input (what was pressed, by whom, when), never a card's face.

Must not touch: sockets, clocks, games, what a message means (the host session
decides; this module only keeps and releases).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

Peer = Hashable


class LiveRounds:
    """The host's open real-time round: its instant, the held messages, the shouts."""

    def __init__(self) -> None:
        #: rounds opened so far (the open one's number)
        self.race = 0
        #: the open round's instant on the host's clock; None between rounds
        self.at: float | None = None
        #: seat -> its presses so far this round (the rules' wire form)
        self.so_far: dict[int, Any] = {}
        self._shouted: dict[int, set[tuple[int, str]]] = {}
        self._held: dict[Peer, tuple[float, list[Any]]] = {}
        self._bots: list[tuple[float, int, Any, int]] = []  # (when, seat, shout, ms)

    @property
    def open(self) -> bool:
        return self.at is not None

    # ------------------------------------------------------------ rounds
    def start(self, at: float, holds: Mapping[Peer, float]) -> int:
        """A round opens; its room is drawn at ``at``; each peer of ``holds`` gets nothing
        more before its time. Returns the round's number."""
        self.race += 1
        self.at = at
        self.so_far.clear()
        self._shouted.clear()
        self._bots.clear()
        for peer, when in holds.items():  # (anything still held from before stays first in line)
            earlier, messages = self._held.get(peer, (when, []))
            self._held[peer] = (max(when, earlier), messages)
        return self.race

    def end(self) -> None:
        """The round is settled: its shouts no longer matter (its record says it all)."""
        self.at = None
        self.so_far.clear()
        self._shouted.clear()
        self._bots.clear()

    # ------------------------------------------------------------ held messages
    def route(self, sends: list[tuple[Peer, Any]], free: type | tuple[type, ...] = ()) -> list[tuple[Peer, Any]]:
        """The sends that may leave now; those to a held peer wait, in order (but messages of
        the ``free`` kinds, which tell nothing of the room and must not wait: a ping)."""
        out = []
        for peer, message in sends:
            held = self._held.get(peer)
            if held is None or isinstance(message, free):
                out.append((peer, message))
            else:
                held[1].append(message)
        return out

    def release(self, now: float) -> list[tuple[Peer, Any]]:
        """What the peers whose time has come were held back, in order."""
        out = []
        for peer in [p for p, (when, _) in self._held.items() if when <= now]:
            _, messages = self._held.pop(peer)
            out += [(peer, message) for message in messages]
        return out

    def holding(self, peer: Peer) -> bool:
        return peer in self._held

    def retime(self, peer: Peer, when: float) -> None:
        """``peer``'s held messages leave at ``when`` instead."""
        if peer in self._held:
            self._held[peer] = (when, self._held[peer][1])

    def forget(self, peer: Peer) -> None:
        self._held.pop(peer, None)

    def next_deadline(self) -> float | None:
        times = [when for when, _ in self._held.values()] + [when for when, *_ in self._bots[:1]]
        return min(times, default=None)

    # ------------------------------------------------------------ shouts
    def fresh(self, seat: int, heard: Iterable[tuple[int, Any]]) -> list[tuple[int, Any]]:
        """Of a seat's inputs (``(ms, shout)``), those not shouted yet; they count as shouted now."""
        shouted = self._shouted.setdefault(seat, set())
        out = []
        for ms, shout in heard:
            key = (ms, repr(shout))
            if key not in shouted:
                shouted.add(key)
                out.append((ms, shout))
        return out

    def schedule(self, seat: int, heard: Iterable[tuple[int, Any]]) -> None:
        """A bot's sealed presses: each is shouted at its own time after the room's instant."""
        if self.at is None:
            return
        for ms, shout in self.fresh(seat, heard):
            self._bots.append((self.at + ms / 1000, seat, shout, ms))
        self._bots.sort(key=lambda b: (b[0], b[1]))

    @property
    def shouts_due(self) -> int:
        """How many of the bots' sealed presses are still to be shouted this round."""
        return len(self._bots)

    def due(self, now: float) -> list[tuple[int, Any, int]]:
        """The bots' shouts due by ``now``: (seat, shout, ms)."""
        out = []
        while self._bots and self._bots[0][0] <= now:
            _, seat, shout, ms = self._bots.pop(0)
            out.append((seat, shout, ms))
        return out
