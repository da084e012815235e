"""Seating: who sits where at a hosted table, who watches, and who may take a seat back.

Owns (a part of ``HostSession``): the seats and the guests (every connected peer, its
seat or none, and what it has been sent), ``Hello`` (a player seated in the first open
seat before the deal, a player given their own seat back with the rejoin token it was
given, a latecomer made a spectator; names cleaned, a name already playing refused in
words), a player leaving or dropping (their seat waits ``hold`` seconds, then a bot
plays it), ``Here`` (an idle player back at the keyboard), the roster, the spectators,
and the members: the players at other machines who could take the table over.

Must not touch: sockets, clocks, asyncio, randomness, any particular game.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from netcode.fairplay import digest
from netcode.session.host.parts import HostParts
from netcode.session.lookalike import name_key
from netcode.session.messages import VERSION, Hello, Opens, Refused, Welcome
from netcode.session.seats import RosterRow, Seat, SeatState, bot_name, clean_name
from netcode.session.step import Step

Peer = Hashable
#: a player connected and at the table (an idle one too: a bot plays their turns for now)
AT_TABLE = (SeatState.HERE, SeatState.IDLE)


@dataclass
class Guest:
    """A connected peer: its seat (None for a spectator) and what it has been sent."""

    name: str
    seat: int | None
    local: bool = False
    rtt: float | None = None
    #: where this peer's datagrams come from, as the transport names it (members learn it)
    address: Any = None
    #: the members as last sent to this peer
    members_sent: list[Any] | None = None
    log_sent: int = 0
    commits_sent: int = 0
    opened: set[int] = field(default_factory=set)
    #: the roster as last sent: snapshots carry it only when it changed
    roster_sent: list[Any] | None = None
    #: the view as last sent: later snapshots carry only what changed in it
    view_sent: dict[Any, Any] | None = None
    #: the final message went to this peer
    final_sent: bool = False
    #: its program's personal key and voice (a watcher's too, at a no-peek table: it may be
    #: handed a seat whose player left)
    key: bytes | None = None
    voice: bytes | None = None
    #: actions of the record of play sent, and up to where the host's signature was
    actions_sent: int = 0
    signed_sent: int = -1


def _plain_address(address: Any) -> Any:
    """An address as the wire carries it (a tuple becomes a list; ``Member`` turns it back)."""
    return list(address) if isinstance(address, tuple) else address


class Seating(HostParts):
    """The seats and the guests of a ``HostSession``."""

    seats: list[Seat]
    guests: dict[Peer, Guest]
    #: where each peer is, as the transport names it (a guest learns it when it sits)
    _addresses: dict[Peer, Any]

    def _init_seating(self, seats: int, names: Any, bot_seats: Any) -> None:
        self.seats = [Seat() for _ in range(seats)]
        for seat, name in zip(self.seats, names, strict=False):
            seat.name = name
        for i in bot_seats:
            self.seats[i].state = SeatState.BOT
        self.guests = {}
        self._addresses = {}

    def roster(self, now: float) -> list[RosterRow]:
        rows = []
        for i, seat in enumerate(self.seats):
            guest = self.guests.get(seat.peer) if seat.peer is not None else None
            ping = round(guest.rtt * 1000) if guest is not None and guest.rtt is not None else None
            hold = round(max(0.0, seat.hold_until - now), 1) if seat.hold_until is not None else None
            name = seat.name or (bot_name(i) if seat.state is SeatState.BOT else None)
            rows.append(RosterRow(i, name, seat.state, ping, hold))
        return rows

    def spectators(self) -> list[str]:
        """The names of the guests watching (no seat), in the order they came."""
        return [guest.name for guest in self.guests.values() if guest.seat is None]

    def rejoin_token(self, seat: int) -> bytes:
        """What a player must show to take seat ``seat`` back: known only to whoever sat there."""
        return digest("rejoin", self.ledger.secret, self.ledger.table_id, seat)[:16]

    def peer_address(self, peer: Peer, address: Any, now: float) -> Step:
        """Where ``peer`` is (the transport's name for it): members tell each other, so that
        they can elect a new host if this one goes."""
        self._addresses[peer] = address
        guest = self.guests.get(peer)
        if guest is not None:
            guest.address = address
            self._dirty = True
        return self._settle(now)

    def members(self) -> list[list[Any]]:
        """The players at other machines who could take over: ``[seat, peer, address]``."""
        return sorted([guest.seat, peer, _plain_address(guest.address)] for peer, guest in self.guests.items()
                      if guest.seat is not None and not guest.local and isinstance(peer, int)
                      and guest.address is not None and self.seats[guest.seat].state in AT_TABLE)

    def _hello(self, peer: Peer, hello: Hello, now: float, local: bool) -> None:
        name = clean_name(hello.name)
        if hello.version != VERSION:
            self._out.send(peer, Refused("This table runs another version of xmas-tui: "
                                          "every player needs the same version."))
            return
        if name is None:
            self._out.send(peer, Refused("A player needs a printable name of 1-16 characters."))
            return
        if peer in self.guests:
            self.drops["hello_again"] += 1
            return
        if self.stepped_down:
            self._out.send(peer, Refused("This machine no longer hosts the table: find it again in the lobby."))
            return
        seat = None if hello.watch else self._seat_for(name, peer, hello.token, local, now, hello.key, hello.voice)
        if isinstance(seat, str):
            self._out.send(peer, Refused(seat))
            return
        if seat is not None and self.settings.no_peek and (hello.key is None or hello.voice is None):
            self._out.send(peer, Refused("This table deals no-peek, and this program cannot take part in the deal."))
            return
        self.guests[peer] = Guest(name, seat, local, address=self._addresses.get(peer), key=hello.key, voice=hello.voice)
        if seat is not None and not self.started and hello.nonce_commit is not None:
            self.ledger.nonce_commits[seat] = hello.nonce_commit
        if seat is not None and hello.key is not None and not self.started:
            self.mental_keys[seat] = hello.key
            if hello.voice is not None:
                self.mental_voices[seat] = hello.voice
        s = self.settings
        self._out.send(peer, Welcome(
            seat, s.game, s.title, len(self.seats), s.host_name, self.started, self.ledger.commitment,
            dict(s.options), s.turn_time, self.rejoin_token(seat) if seat is not None else None,
            self.term, self.signer.public, s.no_peek,
        ))  # fmt: skip
        if self.rules is not None:
            self._send_dealt(peer)
            if s.no_peek:  # (a watcher come after the deal began, or a player back: all of it so far)
                self._catch_up(peer, seat)
        if self.live.open and self.live.at is not None:  # in the middle of a real-time round
            self.races.room_sent(peer, now)
            self._out.send(peer, Opens(self.live.race, self.live.at, max(0.0, self.live.at - now)))
        if s.auto_start and not self.started and all(p.state is not SeatState.OPEN for p in self.seats):
            self._start(now)
        self._dirty = True

    def _seat_for(self, name: str, peer: Peer, token: bytes | None, local: bool, now: float,
                  key: bytes | None = None, voice: bytes | None = None) -> int | None | str:
        """The seat a player gets: their own again, else a free one before the deal;
        None: a spectator; a str: why they are refused."""
        folded = name_key(name)
        for i, seat in enumerate(self.seats):
            if seat.name is None or name_key(seat.name) != folded:
                continue
            if seat.name.casefold() != name.casefold():  # another name that reads the same
                return f"{name!r} looks like {seat.name!r}, who has a seat at this table: choose another name."
            if not seat.sat:
                if seat.state is SeatState.OPEN:  # a seat kept for this name
                    self._sit(i, name, peer, local)
                    return i
                continue  # a bot of that name
            if seat.peer is not None and seat.peer in self.guests:
                return f"{name!r} is already playing at this table; choose another name."
            if token != self.rejoin_token(i):
                return (f"Seat {i + 1} is {seat.name}'s: only their own terminal can take it back "
                        "(its rejoin key did not match). Choose another name to watch.")
            if i in self.seats_taken:  # (its cards were opened to the host's program: no way back)
                return (f"Seat {i + 1} went to a bot when {seat.name}'s hold ran out: at a "
                        "no-peek table it cannot be taken back. Choose another name to watch.")
            if self.settings.no_peek and self.started and i in self.mental_keys and (
                    key != self.mental_keys[i] or voice != self.mental_voices.get(i)):
                # (a new program, its keys not kept: it holds no part of the deal, so it cannot play on with it)
                return (f"Seat {i + 1} is {seat.name}'s, dealt no-peek by the program that sat down with it: "
                        "this program has not its keys, so it holds no part of that deal and cannot take the "
                        "seat back. Choose another name to watch.")
            self._sit(i, name, peer, local)
            if self.started and not seat.changing_hands:
                self._note(f"{seat.name} is back.", i)
            seat.changing_hands = False
            return i
        if self.started:
            return None
        for i, seat in enumerate(self.seats):
            if seat.state is SeatState.OPEN and seat.name is None:
                self._sit(i, name, peer, local)
                return i
        return None

    def _sit(self, i: int, name: str, peer: Peer, local: bool) -> None:
        seat = self.seats[i]
        seat.name, seat.peer, seat.local, seat.state, seat.sat = name, peer, local, SeatState.HERE, True
        seat.hold_until, seat.timeouts, seat.covered, seat.act_by = None, 0, False, None

    def _left(self, peer: Peer, now: float) -> None:
        self._runner_left(peer)
        guest = self.guests.pop(peer, None)
        self.races.forget(peer)
        self.live.forget(peer)
        if guest is None or guest.seat is None:
            self._dirty = self._dirty or guest is not None  # a spectator fewer: the host's list changes
            return
        seat = self.seats[guest.seat]
        if seat.peer != peer:
            return
        seat.leave()
        if not self.started:
            seat.name, seat.state, seat.sat = None, SeatState.OPEN, False
            self.ledger.nonce_commits.pop(guest.seat, None)
        elif not self.finished:
            if seat.state is SeatState.HERE:
                seat.state, seat.hold_until = SeatState.AWAY, now + self.settings.hold
                self._note(f"{seat.name} is away: a bot plays their seat in {self.settings.hold:.0f} s "
                           "unless they come back.", guest.seat)
        self._dirty = True

    def _here(self, peer: Peer, now: float) -> None:
        guest = self.guests[peer]
        if guest.seat is None:
            return
        seat = self.seats[guest.seat]
        if seat.state is SeatState.IDLE:
            seat.state, seat.timeouts = SeatState.HERE, 0
            self._note(f"{seat.name} is back at the keyboard.", guest.seat)
            self._dirty = True

