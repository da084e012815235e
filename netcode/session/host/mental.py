"""A no-peek deal: the host orders and relays; the players' programs deal and open the cards.

Owns (a part of ``HostSession``): at a no-peek table (``TableSettings.no_peek``), each
seated player's personal key (from its ``Hello``); the deal's start (``Keyed``: who holds
the joint key, who plays each seat, every program's key); relaying every program's
``Mental`` message to every other program (``Relay``, stamped with its author's seat,
and to the host's own program, which plays the bots; a watcher's program gets them all
too, and checks every proof); and ordering each move to every
program (``Order``; a simultaneous choice as its digest first, ``Sealed``). The rules
here are the host's own program (``MentalRules``): it knows the public cards and the
bots' hands, never a player's; what it sends goes out as relays from the host's id (one
past the last seat). A move's log lines come when that program has made it. A seat whose
player's program left for good is taken by the host's program (``take_seat``): its bot
plays it on, and the others open that seat's cards to it.

Must not touch: sockets, clocks, asyncio, any particular game, any face.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Hashable
from typing import Any, Protocol, cast

from netcode.session.host.parts import HostParts
from netcode.session.host.rules import Rules
from netcode.session.host.seating import AT_TABLE
from netcode.session.messages import (
    SEALED,
    Act,
    CatchUp,
    Halt,
    Keyed,
    Mental,
    Order,
    Relay,
    Sealed,
    SeatTaken,
)
from netcode.session.step import Step, Work
from netcode.session.voices import Voices

Peer = Hashable

__all__ = ["SEALED", "MentalDealing", "MentalRules", "deal_id"]


class MentalRules(Rules, Protocol):
    """The host's own program at a no-peek table, behind the ``Rules`` protocol, and more."""

    #: whether it hands its slow proofs out (``work``) rather than do them as it goes
    offload: bool

    def keyed(self) -> Keyed:
        """The message that starts the deal (the host's program has begun its part)."""

    def work(self) -> list[Work]:
        """The slow work it has handed out since last asked (``offload``)."""

    def worked(self, work: Work, result: Any) -> bool:
        """``work``'s result, if it is this program's (True: it was)."""

    def take(self, author: int, data: bytes) -> None:
        """Another program's message, relayed."""

    def drain(self) -> tuple[list[Order | Sealed | Relay], list[Any]]:
        """What the host's program sends (orders, and relays of its own messages), and the
        log entries of the moves it has made since last asked."""

    def stopped(self) -> str | None:
        """The line every screen shows when a program sent something wrong (None: all well)."""

    def room_from(self) -> list[int]:
        """The programs whose shares of a real-time room came in since last asked, in order."""

    def shares_needed(self, program: int) -> int:
        """How many other programs' shares of a room ``program`` needs to open it."""

    def rehand(self, seat: int) -> bool:
        """``seat``'s player is back with its program started again: a choice it sent as a digest
        and never revealed is void (``SeatTaken`` to the same program); False: none to void."""

    def hand(self, seat: int, runner: tuple[int, bytes, bytes] | None = None, pace: float = 0.0) -> bool:
        """Play ``seat`` (the program that ran it gone for good) with a bot from now on: on
        ``runner``, a watcher's program ``(id, key, voice)``, or on the host's own (None); its
        cards opened to that program by the others (``SeatTaken``); False where no card could
        open any more (fewer than t key holders left) or the deal is not done."""


def deal_id(ledger_table_id: bytes | str, term: int) -> str:
    """The id every proof of this table's deal is bound to."""
    raw = ledger_table_id if isinstance(ledger_table_id, bytes) else ledger_table_id.encode()
    return hashlib.sha256(b"xmas-tui/no-peek/table\x00" + raw + term.to_bytes(4, "big")).hexdigest()[:32]


class MentalDealing(HostParts):
    """The no-peek deal of a ``HostSession``."""

    #: seat -> its program's personal key and its voice (players who sat with them)
    mental_keys: dict[int, bytes]
    mental_voices: dict[int, bytes]
    #: the message that started the deal, and every one since that went to every program, in
    #: order (a watcher who comes later is sent them all: its program checks the game so far)
    _keyed: Keyed | None
    _stream: list[Keyed | Order | Sealed | Relay | SeatTaken]
    #: every seat's voice, and what each has said (checked before anything is passed on)
    _voices: Voices | None
    #: seat -> the id and signature of its move the rules are ordering now
    _move_signatures: dict[int, tuple[int, bytes | None]]
    #: the seats whose programs said they stopped the game (each logged once)
    _halts: set[int]
    #: the seats taken from players whose programs left (``take_seat``), those a watcher's
    #: program runs (by seat: the watcher), and the ids of watchers' programs given seats
    seats_taken: set[int]
    seat_runners: dict[int, Peer]
    programs: dict[Peer, int]
    #: the host's program hands its slow proofs out in the steps (``Step.work``), for whoever
    #: runs this session to do off its loop (the asyncio runner sets it)
    offload: bool

    def _init_mental(self) -> None:
        self.offload = False
        self.mental_keys = {}
        self.mental_voices = {}
        self._keyed = None
        self._stream = []
        self._voices = None
        self._move_signatures = {}
        self._halts = set()
        self.seats_taken: set[int] = set()
        self.seat_runners: dict[int, Peer] = {}
        self.programs: dict[Peer, int] = {}
        self._mental_moment: tuple[frozenset[int], bool, bool] | None = None
        self._mental_stop_logged = False

    @property
    def no_peek(self) -> bool:
        return self.settings.no_peek

    def _mental_seed(self, names: list[str]) -> dict[str, Any]:
        """What the rules factory needs to deal a no-peek game: the holders and their keys."""
        holders = sorted(
            s for s in self.mental_keys
            if self.seats[s].state in AT_TABLE and self.seats[s].peer is not None
        )  # fmt: skip
        return {
            "no_peek": True,
            "table": deal_id(self.ledger.table_id, self.term),
            "names": names,
            "holders": holders,
            "keys": {s: self.mental_keys[s] for s in holders},
        }

    def _mental_started(self) -> None:
        """The deal begins: every program hears who holds the key and who plays each seat."""
        rules = self._mental_rules()
        keyed = rules.keyed()
        voices = [self.mental_voices.get(s) if keyed.runs[s] == s else None for s in range(len(keyed.names))]
        self._keyed = dataclasses.replace(keyed, voices=voices)
        self._voices = Voices(keyed.table, voices, [str(n) for n in keyed.names])
        self._stream = [self._keyed]
        for peer in self.guests:  # watchers too: their programs check every proof as well
            self._out.send(peer, self._keyed)
        self._pump_mental()

    def _mental_rules(self) -> MentalRules:
        rules = self.rules
        assert rules is not None and hasattr(rules, "keyed")
        return cast(MentalRules, rules)

    def _mental(self, peer: Peer, message: Mental, now: float) -> None:
        """A program's message: to every other program, the host's own included."""
        guest = self.guests[peer]
        author = guest.seat if guest.seat is not None else self.programs.get(peer)
        if not self.no_peek or self.rules is None or author is None:
            self.drops["unasked_mental"] += 1
            return
        if self._voices is None or self._voices.saying(author, message.n, message.data, message.signature):
            self.drops["unvoiced_mental"] += 1  # (its program's own voice must sign it, in order)
            return
        relay = Relay(author, message.data, message.n, message.signature)
        self._stream.append(relay)
        for other in self.guests:
            if other != peer:
                self._out.send(other, relay)
        rules = self._mental_rules()
        rules.offload = self.offload
        rules.take(author, message.data)
        self._rooms_then(rules, now)

    def _rooms_then(self, rules: MentalRules, now: float) -> None:
        for shared in rules.room_from():  # (a real-time room's shares: each peer's room left with them)
            self._room_share(shared, now, rules.shares_needed)
        self._pump_mental()

    def worked(self, work: Work, result: Any, now: float) -> Step | None:
        """The result of slow work the host's program handed out (``Step.work``), if it is its
        own: it goes on from there."""
        rules = self.rules
        if not self.no_peek or rules is None or not self._mental_rules().worked(work, result):
            return None
        self._rooms_then(self._mental_rules(), now)
        return self._settle(now)

    def _catch_up(self, peer: Peer, seat: int | None) -> None:
        """A watcher come after the deal began, or a player back with its program started again
        (its keys kept): every message of the deal so far, in the order every program had them,
        its own among them (``CatchUp`` says how many), so its program takes the game from the
        start as the others did. A choice the player sent as a digest and never revealed is void
        (its program knows it no more): every program hears so in order, and it chooses again."""
        if not self._stream:
            return
        self._out.send(peer, CatchUp(len(self._stream)))
        for message in self._stream:
            self._out.send(peer, message)
        if seat is not None and self._mental_rules().rehand(seat):
            self._pump_mental()

    def _halted(self, peer: Peer, message: Halt) -> None:
        """A player's program stopped the game (it told every other player's machine too): the
        public log says who and why, once."""
        guest = self.guests[peer]
        if not self.no_peek or guest.seat is None or guest.seat in self._halts:
            self.drops["unasked_halt"] += 1
            return
        self._halts.add(guest.seat)
        self.log.append(["stopped", f"{guest.name}'s program stopped the game: {message.why}", guest.seat, None])
        self._dirty = True

    def take_seat(self, seat: int) -> bool:
        """``seat``'s player left for good (or the watcher whose program ran it): a bot plays it
        on, on a program that is no player's: a watcher's, where one is at the table (the first
        to come), else the host's own (it runs the bots already). The other programs open the
        seat's cards to that program, as every program is told in order (``SeatTaken``).
        False where it cannot."""
        watcher = next((peer for peer, g in self.guests.items() if g.seat is None and g.key is not None
                        and g.voice is not None), None)  # fmt: skip
        runner = None
        if watcher is not None:
            guest = self.guests[watcher]
            program = self.programs.setdefault(watcher, len(self.seats) + 1 + len(self.programs))
            assert guest.key is not None and guest.voice is not None
            runner = (program, guest.key, guest.voice)
        if not self._mental_rules().hand(seat, runner, self.bot_pace):
            return False
        self.seats_taken.add(seat)
        place = self.seats[seat]
        if runner is not None:
            self.seat_runners[seat] = watcher
            who = f"{self.guests[watcher].name}'s machine (watching)"
        else:
            self.seat_runners.pop(seat, None)
            who = "the host's program"
        program, voice = (runner[0], runner[2]) if runner is not None else (len(self.seats), None)
        if self._voices is not None:
            self._voices.hand(seat, program, voice)
        self._note(f"A bot on {who} plays {place.name}'s seat from here on: the other players' programs open "
                   f"{place.name}'s cards to it, and to nobody else.", seat)
        self._pump_mental()
        return True

    def _runner_left(self, peer: Peer) -> None:
        """A watcher whose program ran seats left: those seats go to another (``take_seat``)."""
        for seat in [s for s, p in self.seat_runners.items() if p == peer]:
            del self.seat_runners[seat]
            self._dirty = True

    def _voiced_act(self, seat: int, act: Act) -> str | None:
        """A player's move at a no-peek table must be signed by its program's voice, with an id
        above its last: every program checks it when the host orders it. Why not (None: it is)."""
        if self._voices is None:
            return "Wait: the deal has not begun."
        if self._voices.move(seat, act.id, act.action, act.signature) is not None:
            return "Your program's signature on this move does not hold."
        self._move_signatures[seat] = (act.id, act.signature)
        return None

    def _pump_mental(self) -> None:
        """Send what the host's program has to say, and log the moves it has made."""
        rules = self._mental_rules()
        self._out.work += rules.work()
        sends, entries = rules.drain()
        for i, message in enumerate(sends):
            if isinstance(message, (Order, Sealed)) and message.seat in self._move_signatures:
                id, signature = self._move_signatures.pop(message.seat)  # (as its program signed it)
                sends[i] = dataclasses.replace(message, id=id, signature=signature)
        for message in sends:
            self._stream.append(message)
            for peer in self.guests:
                self._out.send(peer, message)
        if entries:
            self.log.extend(entries)
            self._dirty = True
        moment = (rules.to_act(), rules.result() is not None, rules.racing())
        if moment != self._mental_moment:  # a move made, the next one free, a room to open, or the end audited
            self._mental_moment = moment
            self._dirty = True
        stopped = rules.stopped()
        if stopped is not None and not self._mental_stop_logged:
            self._mental_stop_logged = True
            self.log.append(["stopped", stopped, None, None])
            self._dirty = True
