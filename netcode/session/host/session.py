"""The host's table session: a whole hosted table as a state machine. Sans-IO.

Owns: ``HostSession``, which puts the host's jobs together, each in its own module of
this package: ``seating`` (who sits where, who watches, who may come back), ``dealing``
(the deal and the shares of the host's secret), ``play`` (actions checked, applied,
recorded and signed), ``racing`` (fair real-time rounds and live shouts), ``deadlines``
(every timer, and ``tick``), ``bots``, ``lease`` (the lease and the hand-over) and
``outbox`` (what every peer is sent); and ``TableSettings``, what a table is and how its
host runs it. Here it takes every message in and hands it to the job it is for.

It is driven by ``receive(peer, message, now)`` (a seat's message), ``peer_lost`` and
``peer_rtt`` (what the channel says of a connection), ``tick(now)`` when
``next_deadline()`` comes, and the host's own commands (``start``, ``hand_to_bot``,
``take_back``, ``set_bot_pace``, ``hand_over``). Each returns a ``Step`` (``netcode.session.step``): the messages
to send, to which peer, and the events for the application. It never reads a clock,
never touches a socket, and draws no randomness of its own (but the coefficients that
split its secret), so the same inputs give the same table, in real or virtual time.

A peer is any hashable name the caller gives a connection: a channel's peer id for a
remote seat, anything else for a seat in this process. The host knows no difference,
except that a **local** seat (``local=True`` at ``Hello``) is on the host's own machine
and no network can stall it.

Must not touch: sockets, clocks, asyncio, randomness, any particular game. The rules
come in through ``Rules`` (plain data in and out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from netcode.channel.events import RttUpdated
from netcode.fairplay import NONCE_TIMEOUT, Ledger, Signer
from netcode.session.host.bots import Bots
from netcode.session.host.deadlines import Deadlines
from netcode.session.host.dealing import Dealing
from netcode.session.host.lease import Leasing
from netcode.session.host.mental import MentalDealing
from netcode.session.host.outbox import Outbox
from netcode.session.host.play import Play
from netcode.session.host.racing import Racing
from netcode.session.host.rules import RulesFactory
from netcode.session.host.seating import Seating
from netcode.session.messages import (
    VERSION,
    Act,
    BadMessage,
    Ballot,
    Bye,
    Halt,
    Hello,
    Here,
    Mental,
    Nonce,
    Pong,
    Press,
    parse_seat_message,
)
from netcode.session.seats import SeatState
from netcode.session.step import Step

Peer = Hashable


@dataclass(frozen=True)
class TableSettings:
    """What a table is and how its host runs it."""

    game: str
    title: str
    seats: int
    host_name: str
    options: Mapping[str, Any] = field(default_factory=dict)
    #: seconds a dropped player's seat waits before a bot plays it
    hold: float = 30.0
    #: seconds between two bot moves (in a game of turns)
    bot_pace: float = 0.0
    #: seconds a player has for their move before a bot plays it (None: no timer)
    turn_time: float | None = None
    #: deal as soon as every seat is taken
    auto_start: bool = False
    nonce_timeout: float = NONCE_TIMEOUT
    #: a real-time game: the most seconds a remote seat may take between rounds (looking
    #: at the last round's result) before the host makes it ready for the next room
    intermission: float = 0.0
    #: a real-time round: seconds beyond the window a remote seat's presses may take to arrive
    race_slack: float = 1.0
    #: the players' programs deal and open the cards; the host's program sees no face the
    #: rules have not shown everyone (``mental``)
    no_peek: bool = False


class HostSession(Seating, Dealing, MentalDealing, Play, Racing, Deadlines, Bots, Leasing, Outbox):
    """One table, hosted. Sans-IO: feed it messages and time, send what it returns."""

    def __init__(self, settings: TableSettings, make_rules: RulesFactory, ledger: Ledger, signer: Signer, *,
                 bots: int = 0, names: Sequence[str | None] = (), bot_seats: Sequence[int] = (),
                 rng_seed: Any = None, term: int = 1) -> None:
        """``signer`` signs the record of play (a key of this host's own). ``bots``: how
        many seats bots take from the start (the first ones). ``names``: seats kept for these
        names (a player of that name sits there); ``bot_seats``: bots take these seats, under
        the names given. ``rng_seed``: deal from this seed instead of the fair one (a game
        against bots alone, reproducible by ``--seed``; its log says so). ``term``: which
        host of the table this is (1: its creator)."""
        self.settings = settings
        #: malformed or unexpected messages dropped, by reason
        self.drops: Counter[str] = Counter()
        self._init_seating(settings.seats, names, [*range(bots), *bot_seats])
        self._init_dealing(ledger, rng_seed)
        self._init_mental()
        self._init_play(make_rules, signer, term)
        self._init_racing()
        self._init_deadlines()
        self._init_bots(settings.bot_pace)
        self._init_leasing()
        self._init_outbox()

    @classmethod
    def resume(cls, settings: TableSettings, make_rules: RulesFactory, ledger: Ledger, signer: Signer, *,
               term: int, names: Sequence[str], bots: Sequence[bool], actions: Sequence[Sequence[Any]],
               log: Sequence[list[Any]] | None, logged: int, now: float, note: str, gone: int | None = None) -> HostSession:
        """A table taken over from a host that went away, in ``term``: dealt again from the same
        secret and nonces (``ledger``: so the same seed, the same cards, the same handles),
        the record of play replayed, and the public log as the new host had it (``log``,
        which covers the first ``logged`` actions; the later ones log afresh). Seats ``bots``
        marks stay bots; every other player is away until they come back (those who voted
        for this host do at once). Seat ``gone`` (the old host's own) is played by a bot at
        once, its machine known to be gone, until its player comes back and takes it."""
        host = cls(settings, make_rules, ledger, signer, names=names, term=term)
        for i, (seat, bot) in enumerate(zip(host.seats, bots, strict=True)):
            seat.sat = not bot
            seat.state = SeatState.BOT if bot or i == gone else SeatState.AWAY
            seat.hold_until = None if bot or i == gone else now + settings.hold
            seat.changing_hands = seat.state is SeatState.AWAY
        host._deal(now)  # the nonces as the first host took them: the same seed
        rules = host.rules
        assert rules is not None
        if log is not None:  # (None: the players saw nothing of the game yet; the deal logs afresh)
            host.log = list(log)
        for i, (seat, action) in enumerate(actions):
            mark = len(host.log)
            host._apply(seat, action, now, "replay")
            if i < logged:  # the log already says it
                del host.log[mark:]
        host._out = Step()  # what the replay would have sent: nobody is listening yet
        host._note(note)
        if gone is not None and not bots[gone]:
            host._note(f"A bot plays {names[gone]}'s seat until they come back.", gone)
        return host

    @property
    def taken(self) -> int:
        return sum(1 for seat in self.seats if seat.state is not SeatState.OPEN)

    def receive(self, peer: Peer, raw: Any, now: float, *, local: bool = False,
                arrived: float | None = None) -> Step:
        """A message from ``peer``; a malformed one is dropped and counted in ``drops``.
        ``arrived``: when its datagram reached this machine, if the runner knows (else ``now``):
        the time the bound on race claims counts from."""
        self._arrived = now if arrived is None else min(arrived, now)
        self._release(now)  # (a late timer: what was due leaves first)
        try:
            message = parse_seat_message(raw)
        except BadMessage as bad:
            self.drops[bad.reason] += 1
            return self._take()
        if isinstance(message, Hello):
            self._hello(peer, message, now, local)
        elif isinstance(message, Ballot):  # a vote that came too late: a player coming back
            self._hello(peer, Hello(VERSION, message.name, None, message.token, message.watch), now, local)
        elif peer not in self.guests:
            self.drops["not_seated"] += 1
        elif isinstance(message, Act):
            self._act_message(peer, message, now)
        elif isinstance(message, Nonce):
            self._nonce(peer, message, now)
        elif isinstance(message, Here):
            self._here(peer, now)
        elif isinstance(message, Bye):
            self._left(peer, now)
        elif isinstance(message, Press):
            self._press(peer, message)
        elif isinstance(message, Mental):
            self._mental(peer, message, now)
        elif isinstance(message, Halt):
            self._halted(peer, message)
        elif isinstance(message, Pong):
            self._pong(peer, message, now)
            return self._take()
        return self._settle(now)

    def peer_lost(self, peer: Peer, now: float) -> Step:
        """The channel says ``peer`` is gone (silent, closed, unreachable)."""
        self._left(peer, now)
        return self._settle(now)

    def peer_rtt(self, peer: Peer, measured: RttUpdated, now: float) -> Step:
        """What the channel measured of ``peer``'s round trips: the roster shows the estimate
        within a second, the races take the rest."""
        guest = self.guests.get(peer)
        rtt = measured.rtt
        if guest is not None:
            self.races.channel_rtt(peer, measured)
            self._name_liars(peer)
            if guest.rtt is None or round(guest.rtt * 1000) != round(rtt * 1000):
                if self._roster_due is None:
                    self._roster_due = now + 1.0
            guest.rtt = rtt
        return self._take()
