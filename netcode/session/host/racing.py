"""The host's side of real-time rounds: fair races and live shouts.

Owns (a part of ``HostSession``): the glue between the table and ``races`` (the pings
and the bound on claims) and ``live`` (rooms held back, bots' shouts scheduled).

* **Fair races**: the host pings every remote peer, picks the instant each real-time
  round's room is drawn everywhere (``Opens``) and sends each remote peer its room just
  in time for it (``live`` holds the rest back), and raises a claimed reaction time
  below what it can believe to that bound, through the rules' pure ``press`` and
  ``merge``; the public log says so (a ``table`` entry whose data names the seat, the
  claims and the bound).
* **Live shouts**: a seat's presses may come one by one as they are made (``Press``);
  the host bounds each as it arrives, keeps the seat's presses so far (the rules'
  ``press``), and tells everyone at once (``Shout``). A bot's presses, sealed as the
  room opens, are shouted each at its own time. The seat's sealed ``Act`` then closes
  its round with what was heard (the rules' ``merge``).

Must not touch: sockets, clocks, asyncio, any particular game.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from netcode.session.host.live import LiveRounds
from netcode.session.host.parts import HostParts
from netcode.session.host.races import OPEN_MS, RaceClock
from netcode.session.host.rules import RuleError
from netcode.session.messages import Message, Opens, Ping, Pong, Press, Shout, Snap, Verdict
from netcode.session.seats import SeatState

Peer = Hashable


class Racing(HostParts):
    """The real-time rounds of a ``HostSession``."""

    #: pings, round trips and the bound on claims, per remote peer
    races: RaceClock
    #: the open round: its instant, the rooms held back, what was pressed so far
    live: LiveRounds
    #: peers whose room was released and not yet said to have left (``sent``)
    _room_leaving: set[Peer]
    #: when the message being handled arrived (the kernel's time, where the runner knows it)
    _arrived: float

    def _init_racing(self) -> None:
        self.races = RaceClock()
        self.live = LiveRounds()
        self._room_leaving = set()
        self._arrived = 0.0
        self._room_shares: list[int] = []

    def _pong(self, peer: Peer, message: Pong, now: float) -> None:
        """A peer's answer to a ping: its round trip, and, if its room waits, when it leaves."""
        if not self.races.pong(peer, message.n, self._arrived, message.held):
            self.drops["unasked_pong"] += 1
            return
        self._name_liars(peer)
        if self.live.holding(peer):  # its room leaves as its link is now known
            self.live.retime(peer, self.races.send_at(peer, now))

    def _name_liars(self, peer: Peer) -> None:
        """Say in the public log, once each, that a seat's program answers pings slower than its
        link carries everything else, or that its link's round trip jumped (neither gains it
        anything: the bound takes the link's least round trip ever)."""
        link = self.races.links.get(peer)
        guest = self.guests.get(peer)
        if link is None or guest is None or guest.seat is None or not self.real_time:
            return
        slower = link.slow_pongs() if "pongs" not in link.named else None
        if slower is not None:
            link.named.add("pongs")
            self._note(f"{guest.name}'s program answers the host's pings {round(slower * 1000)} ms slower than "
                       "its link carries everything else: its races are timed by its link, not by its answers.",
                       guest.seat)
        jumped = link.jumped() if "jump" not in link.named else None
        if jumped is not None:
            link.named.add("jump")
            least, now_least = (round(t * 1000) for t in jumped)
            self._note(f"{guest.name}'s round trip rose from {least} ms to {now_least} ms: their races are "
                       f"still timed by the {least} ms their link showed before.", guest.seat)

    def sent(self, peer: Peer, message: Message, now: float) -> None:
        """``message`` actually left for ``peer`` at ``now`` (the runner says so, for the messages
        whose time matters): a ping's round trip and a room's departure count from then, not from
        when this session made them (a busy machine may keep its program from sending at once)."""
        if isinstance(message, Ping):
            self.races.ping_left(peer, message.n, now)
        elif isinstance(message, Snap) and peer in self._room_leaving:
            self._room_leaving.discard(peer)
            self.races.room_sent(peer, now)

    def _press(self, peer: Peer, press: Press) -> None:
        """One input of a seat's real-time round, as it is made: bounded, kept, heard by all."""
        guest = self.guests[peer]
        seat, rules = guest.seat, self.rules
        if seat is None or rules is None or not self.live.open or not rules.racing():
            self._out.send(peer, Verdict(press.id, "A press counts only while a real-time round is open."))
            return
        if self.seats[seat].state is SeatState.BOT:
            self._out.send(peer, Verdict(press.id, "A bot plays your seat now; the host can give it back to you."))
            return
        if self._held_back(peer, press.id):
            return
        earliest = self._earliest(peer)
        try:
            so_far, clamped = rules.press(seat, self.live.so_far.get(seat), press.action, earliest)
        except RuleError as refused:
            self.refused += 1
            self._out.send(peer, Verdict(press.id, str(refused)))
            return
        self._clamped(seat, peer, earliest, clamped)
        self.live.so_far[seat] = so_far
        self._shout_fresh(seat, so_far)
        self._out.send(peer, Verdict(press.id, None))

    def _shout_fresh(self, seat: int, action: Any) -> None:
        """Tell everyone what ``seat`` has pressed that they have not heard yet."""
        assert self.rules is not None
        for ms, shout in self.live.fresh(seat, self.rules.heard(seat, action)):
            self._shout(seat, shout, ms)

    def _shout(self, seat: int, shout: Any, ms: int) -> None:
        message = Shout(self.live.race, seat, shout, ms)
        for peer in self.guests:
            self._out.send(peer, message)

    def _release(self, now: float) -> bool:
        """Send what was held back for the peers whose room is due; True if anything was."""
        released = self.live.release(now)
        for peer in {peer for peer, _ in released}:
            self.races.room_sent(peer, now)  # (the runner may say when it really left: ``sent``)
            self._room_leaving.add(peer)
        self._out.sends += released
        return bool(released)

    def _open_room(self, now: float) -> None:
        """A real-time round opens: its instant, each remote peer's room held until it is due."""
        remote = [peer for peer, guest in self.guests.items() if not guest.local]
        at, holds = self.races.open_room(now, remote)
        if self.settings.no_peek:  # (the players' programs send their shares of the room at its
            holds = {}             # instant themselves: the host holds nothing that tells it)
            self._room_shares = []
        race = self.live.start(at, holds)
        for peer in self.guests:
            self._out.send(peer, Opens(race, at, max(0.0, at - now)))

    def _room_share(self, author: int, now: float, needed: Callable[[int], int]) -> None:
        """A no-peek table: ``author``'s shares of the open room were just passed on to everyone.
        A remote peer's room left the host with the share that gave its program enough to open
        it (its own share counts, where it holds one: ``needed`` says how many others' a program
        needs): its claims are bounded from then."""
        shares = self._room_shares
        shares.append(author)
        if not self.live.open:
            return
        for peer, guest in self.guests.items():
            program = guest.seat if guest.seat is not None else self.programs.get(peer)
            if guest.local or program is None or peer in self.races.sent:
                continue
            if sum(1 for a in shares if a != program) >= needed(program):
                self.races.room_sent(peer, now)

    def _earliest(self, peer: Peer) -> int | None:
        """The bound on a claim of ``peer``'s arriving now (None for a seat on this machine)."""
        guest = self.guests[peer]
        opening = OPEN_MS if self.settings.no_peek else 0.0  # (its program opens the room first)
        return None if guest.local else self.races.earliest_ms(peer, self._arrived, opening)

    def _clamped(self, seat: int, peer: Peer, earliest: int | None, clamped: list[Any]) -> None:
        """The public log says which claims were raised to the bound."""
        if not clamped:
            return
        place = self.seats[seat]
        self.log.append(["table", f"{place.name}'s claimed time was below what the host can believe: "
                         f"counted from {earliest} ms.", seat,
                         {"clamped": seat, "bound_ms": earliest, "claims": clamped,
                          "allowance_ms": self.races.allowance_ms(peer)}])
        self._dirty = True

    def _ping(self, now: float) -> bool:
        """Ping every remote peer (players and watchers) due a ping, in a real-time game;
        True if any was."""
        timing = not self.finished and self.real_time
        peers = [p for p, g in self.guests.items() if not g.local] if timing else []
        pings = self.races.pings(peers, now)
        for peer, n, echo in pings:
            self._out.send(peer, Ping(n, now, echo))
        return bool(pings)

