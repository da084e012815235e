"""The host's table session: seating, the deal, the rules, every deadline. Sans-IO.

Owns: the whole logic of hosting a table, as a state machine. It is driven by
``receive(peer, message, now)`` (a seat's message), ``peer_lost`` and
``peer_rtt`` (what the channel says of a connection), ``tick(now)`` when
``next_deadline()`` comes, and the host's own commands (``start``,
``hand_to_bot``, ``take_back``, ``set_bot_pace``). Each returns an ``Output``:
the messages to send, to which peer, and the events for the application. It
never reads a clock, never touches a socket, and draws no randomness of its
own, so the same inputs give the same table, in real or virtual time.

A peer is any hashable name the caller gives a connection: a channel's peer id
for a remote seat, anything else for a seat in this process. The host knows no
difference, except that a **local** seat (``local=True`` at ``Hello``) is on
the host's own machine and no network can stall it.

What it does:

* **Seating.** ``Hello`` seats a player in the first open seat before the deal,
  gives a player their own seat back (with the rejoin token it was given), or
  makes a latecomer a spectator. Names are cleaned; a name already playing is
  refused in words.
* **The deal** (``netcode.fairplay``): the host committed to its secret before
  anyone joined; each player committed to a nonce in ``Hello`` and is asked to
  reveal it (``AskNonce``); the host deals when every nonce is in or
  ``nonce_timeout`` has passed, leaving out (by a public note) those that did
  not answer. Open seats become bots.
* **Play.** An ``Act`` is checked against the seat of the peer that sent it
  (one peer can only act for its own seat); the rules refuse an illegal one
  with the rule it breaks, answered to that peer alone (``Verdict``). Each
  accepted action goes into the fair-play ledger, and every peer gets its own
  ``Snap``: its view (whole the first time, then what changed), its legal
  actions, the new log entries, the new card commitments and the openings of
  faces it is shown for the first time.
* **Deadlines, all enforced here** (no client can stall a table):
  the nonce timeout; the **hold** of a player who dropped (then a bot plays
  the seat); the **turn timer** (``turn_time``: when it runs out a bot plays
  that one turn and the player keeps the seat; after two in a row the seat is
  idle and a bot plays until the player is back, ``Here``); and in a
  real-time game the **race window** of every remote seat (the rules' window
  and ``race_slack``) and the pause between rounds (``intermission`` and
  ``race_slack``), after which the seat is given the rules' silent action.
* **Fair races** (``netcode.session.races``): the host pings every remote
  peer, picks the instant each real-time round's room is drawn everywhere
  (``Opens``) and sends each remote peer its room just in time for it
  (``netcode.session.live`` holds the rest back), and raises a claimed
  reaction time below what it can believe to that bound, through the rules'
  pure ``press`` and ``merge``; the public log says so (a ``table`` entry whose data names
  the seat, the claims and the bound).
* **Live shouts**: a seat's presses may come one by one as they are made
  (``Press``); the host bounds each as it arrives, keeps the seat's presses so
  far (the rules' ``press``), and tells everyone at once (``Shout``). A bot's
  presses, sealed as the room opens, are shouted each at its own time. The
  seat's sealed ``Act`` then closes its round with what was heard (the rules'
  ``merge``).
* **Bots** play open seats, away seats after the hold, idle and covered seats
  and any seat the host hands them, one move every ``bot_pace`` seconds (at
  once in a real-time game, whose actions carry their own timing).
* **The record of play**, kept by every peer so that any of them could take
  the table over: each ``Snap`` carries the actions applied since the last one
  (an action joins the record once no seat's sealed choice hides it any more,
  so a sealed choice is never shown before its time) and the host's Ed25519
  signature over the whole record (a chain of hashes), under its ``term``.
  After the deal a ``Dealt`` tells every peer the nonces and notes of the seed,
  and each player at another machine its share of the host's secret
  (``netcode.shares``: any majority of them rebuilds it, one alone learns
  nothing). Splitting the secret draws random coefficients: the one randomness
  a session uses, and nothing but the secret they rebuild depends on it.
* **The end**: a ``Final`` to every peer with the public view, its digest, the
  result and the fair-play record for the audit.

Must not touch: sockets, clocks, asyncio, randomness, any particular game.
The rules come in through ``Rules`` (plain data in and out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgpack

from netcode import delta
from netcode.fairplay import (
    CHAIN_START,
    NONCE_BYTES,
    NONCE_TIMEOUT,
    Ledger,
    Signer,
    chain_action,
    digest,
)
from netcode.session.lease import CHECK_EVERY, Lease
from netcode.session.lease import Verdict as LeaseVerdict
from netcode.session.live import LiveRounds
from netcode.session.lookalike import name_key
from netcode.session.messages import (
    VERSION,
    Act,
    AskNonce,
    BadMessage,
    Ballot,
    Bye,
    Dealt,
    Final,
    Handover,
    Hello,
    Here,
    Lobby,
    Members,
    Message,
    Nonce,
    NonceTaken,
    Opens,
    Ping,
    Pong,
    Press,
    Refused,
    Shout,
    Snap,
    Verdict,
    Welcome,
    parse_seat_message,
)
from netcode.session.races import RaceClock
from netcode.session.seats import RosterRow, Seat, SeatState, bot_name, clean_name
from netcode.shares import Share, split

packb = msgpack.Packer().pack

Peer = Hashable
_INF = float("inf")
_UNKNOWN = object()
#: a player connected and at the table (an idle one too: a bot plays their turns for now)
_AT_TABLE = (SeatState.HERE, SeatState.IDLE)


class RuleError(Exception):
    """An action the rules refuse; the message names the rule."""


class Rules(Protocol):
    """A running game as the host drives it, all in plain (msgpack-ready) data."""

    def to_act(self) -> frozenset[int]: ...

    def act(self, seat: int, action: Any) -> list[Any]:
        """Apply a wire action for ``seat``; return the log entries; raise ``RuleError``."""

    def view(self, seat: int | None) -> Any:
        """The view of ``seat``: a mapping whose ``"faces"`` lists ``[handle, face]`` it may see."""

    def made(self) -> list[tuple[int, str]]:
        """The (handle, face) of every card made since the last call (to be committed)."""

    def legal(self, seat: int) -> list[Any]: ...

    def result(self) -> Any | None: ...

    def bot_action(self, seat: int) -> Any:
        """What a bot would play for ``seat`` now (wire form)."""

    def set_bot_seats(self, seats: frozenset[int]) -> None:
        """The seats bots play from now on (a bot follows the game only while it plays)."""

    def silent_action(self, seat: int) -> Any:
        """What a seat that said nothing in its race window does (wire form)."""

    def sealed_pending(self) -> bool:
        """Whether some seat's sealed choice is still unopened (the actions that made it stay
        out of the record of play until it is)."""

    def window(self) -> float | None:
        """Seconds a seat has to act in a real-time round; None in a game of turns."""

    def racing(self) -> bool:
        """Whether a real-time round is open now (False between rounds, and in a game of turns)."""

    def press(self, seat: int, so_far: Any | None, press: Any, earliest_ms: int | None) -> tuple[Any, list[Any]]:
        """``seat``'s real-time action so far (``so_far``; None at first) with one more input,
        ``press`` (wire forms), its claimed time no sooner than ``earliest_ms`` (the host's
        bound; None: none); and what was raised (plain data, for the public log).
        ``RuleError`` names the rule it breaks; pure."""

    def merge(self, seat: int, so_far: Any | None, action: Any, earliest_ms: int | None) -> tuple[Any, list[Any]]:
        """The action that closes ``seat``'s real-time round: what it pressed so far stands, and
        ``action`` adds what it had not pressed, no sooner than ``earliest_ms``; and what was
        raised. ``RuleError`` if that is not legal now; pure."""

    def heard(self, seat: int, action: Any) -> list[tuple[int, Any]]:
        """What the table hears of a real-time action: each input as plain data (never a face)
        with its time in ms from the room's instant, in time order; pure."""

    def digest(self) -> str:
        """A hash of the public state: the same on every honest peer."""

    def opening(self) -> list[Any]:
        """The log entries of the deal (who plays, what the table shows)."""


#: ``make_rules(names, seed)``: the game dealt from the fair seed.
RulesFactory = Callable[[list[str], Any], Rules]


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


# ---------------------------------------------------------------- what comes out


@dataclass(frozen=True)
class TableChanged:
    """The seats, the roster or the phase changed (the host's screen redraws)."""


@dataclass(frozen=True)
class ActionApplied:
    """``seat`` played ``action`` (wire form); ``by`` is "player", "bot", "timer" or "silence"."""

    seat: int
    action: Any
    by: str


@dataclass(frozen=True)
class GameOver:
    result: Any


@dataclass(frozen=True)
class SteppedDown:
    """This machine stopped hosting: its player handed the table over (``deliberate``), or it
    lost touch with most players. The players it still reaches elect the next host; the
    runner lets the last messages go out, then closes."""

    deliberate: bool


HostEvent = TableChanged | ActionApplied | GameOver | SteppedDown


@dataclass
class Output:
    """What one call produced: messages to send, and events for the application."""

    sends: list[tuple[Peer, Message]] = field(default_factory=list)
    events: list[HostEvent] = field(default_factory=list)

    def send(self, peer: Peer, message: Message) -> None:
        self.sends.append((peer, message))


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
    members_sent: list | None = None
    log_sent: int = 0
    commits_sent: int = 0
    opened: set[int] = field(default_factory=set)
    #: the roster as last sent: snapshots carry it only when it changed
    roster_sent: list | None = None
    #: the view as last sent: later snapshots carry only what changed in it
    view_sent: dict | None = None
    #: the final message went to this peer
    final_sent: bool = False
    #: actions of the record of play sent, and up to where the host's signature was
    actions_sent: int = 0
    signed_sent: int = -1


# ---------------------------------------------------------------- the session


#: what a peer is sent at once even while its room is held back: nothing in them tells of a
#: room, and each must not wait (a ping's time is its point; the deal's record and the
#: members and the roster let a peer take the table over if this host dies before the first
#: room leaves;
#: a handover is this host's last word)
UNHELD = (Ping, Dealt, Members, Lobby, Handover, NonceTaken, Welcome, Refused)


class HostSession:
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
        self.make_rules = make_rules
        self.ledger = ledger
        self.signer = signer
        self.term = term
        self.rng_seed = rng_seed
        #: the record of play: ``chain[i]`` covers the first ``i`` actions; only actions
        #: nobody's sealed choice hides any more are in it (``recorded`` of them)
        self.chain: list[bytes] = [CHAIN_START]
        self._signature: tuple[int, bytes] | None = None
        self.seats = [Seat() for _ in range(settings.seats)]
        for seat, name in zip(self.seats, names, strict=False):
            seat.name = name
        for i in [*range(bots), *bot_seats]:
            self.seats[i].state = SeatState.BOT
        self.guests: dict[Peer, Guest] = {}
        self.rules: Rules | None = None
        self.log: list[list] = []
        self.bot_pace = settings.bot_pace
        self.drops: Counter[str] = Counter()
        #: every peer's messages refused by the rules, for the host's figures
        self.refused = 0
        self.dealing = False
        self.finished = False
        self._deal_by: float | None = None
        self._last_action = -_INF
        self._bot_seats: frozenset[int] | None = None
        self._roster_due: float | None = None
        self._next: object = _UNKNOWN  # the next deadline, once worked out
        self._addresses: dict[Peer, Any] = {}
        self.shares: dict[int, Share] = {}
        self.races = RaceClock()
        #: paused while it cannot hear most players (``netcode.session.lease``)
        self.lease = Lease()
        self._lease_due: float | None = None
        #: ``heard(peer)``: when this host last heard ``peer`` on the channel (None: never), as
        #: the transport tells it; without it (a table in one process) there is no lease
        self.heard: Callable[[Peer], float | None] | None = None
        #: this machine no longer hosts: it handed the table over or stepped down
        self.stepped_down = False
        #: actions this host applied itself (not replayed from an earlier host's record)
        self.acted = 0
        self.live = LiveRounds()
        #: peers whose room was released and not yet said to have left (``sent``)
        self._room_leaving: set[Peer] = set()
        #: when the message being handled arrived (the kernel's time, where the runner knows it)
        self._arrived = 0.0
        self._out = Output()

    @classmethod
    def resume(cls, settings: TableSettings, make_rules: RulesFactory, ledger: Ledger, signer: Signer, *,
               term: int, names: Sequence[str], bots: Sequence[bool], actions: Sequence[Sequence[Any]],
               log: Sequence[list] | None, logged: int, now: float, note: str, gone: int | None = None) -> HostSession:
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
        host._out = Output()  # what the replay would have sent: nobody is listening yet
        host._note(note)
        if gone is not None and not bots[gone]:
            host._note(f"A bot plays {names[gone]}'s seat until they come back.", gone)
        return host

    def reshare(self, now: float) -> Output:
        """Split the secret afresh among the players at other machines now (a new host, once
        its voters are back) and tell every peer."""
        if self.rules is not None:
            self._share_secret()
            for peer in self.guests:
                self._send_dealt(peer)
        return self._settle(now)

    # ------------------------------------------------------------ facts
    @property
    def started(self) -> bool:
        """True from ``start`` on (the deal may still wait for nonces)."""
        return self.rules is not None or self.dealing

    @property
    def taken(self) -> int:
        return sum(1 for seat in self.seats if seat.state is not SeatState.OPEN)

    @property
    def real_time(self) -> bool:
        return self.rules is not None and self.rules.window() is not None

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

    def next_deadline(self) -> float | None:
        """When ``tick`` must next be called (absolute time), or None."""
        if self._next is _UNKNOWN:
            self._next = self._earliest_deadline()
        return self._next  # type: ignore[return-value]

    def _earliest_deadline(self) -> float | None:
        if self.stepped_down:
            return None
        when = _INF if self._lease_due is None else self._lease_due
        if self.lease.paused:
            return None if when == _INF else when
        if self.dealing and self._deal_by is not None:
            when = self._deal_by
        for seat in self.seats:
            for deadline in (seat.hold_until, seat.act_by):
                if deadline is not None and deadline < when:
                    when = deadline
        if self._roster_due is not None and self._roster_due < when:
            when = self._roster_due
        for due in (self.races.next_ping(), self.live.next_deadline()):
            if due is not None and due < when:
                when = due
        bot = self._bot_due()
        if bot < when:
            when = bot
        return None if when == _INF else when

    # ------------------------------------------------------------ inputs
    def receive(self, peer: Peer, raw: Any, now: float, *, local: bool = False,
                arrived: float | None = None) -> Output:
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
        elif isinstance(message, Pong):
            if not self.races.pong(peer, message.n, self._arrived, message.held):
                self.drops["unasked_pong"] += 1
            elif self.live.holding(peer):  # its room leaves as its link is now known
                self.live.retime(peer, self.races.send_at(peer, now))
            return self._take()
        return self._settle(now)

    def peer_lost(self, peer: Peer, now: float) -> Output:
        """The channel says ``peer`` is gone (silent, closed, unreachable)."""
        self._left(peer, now)
        return self._settle(now)

    def peer_address(self, peer: Peer, address: Any, now: float) -> Output:
        """Where ``peer`` is (the transport's name for it): members tell each other, so that
        they can elect a new host if this one goes."""
        self._addresses[peer] = address
        guest = self.guests.get(peer)
        if guest is not None:
            guest.address = address
            self._dirty = True
        return self._settle(now)

    def members(self) -> list[list]:
        """The players at other machines who could take over: ``[seat, peer, address]``."""
        return sorted([guest.seat, peer, guest.address] for peer, guest in self.guests.items()
                      if guest.seat is not None and not guest.local and isinstance(peer, int)
                      and guest.address is not None and self.seats[guest.seat].state in _AT_TABLE)

    def _holders(self) -> set[int]:
        """The seats that should hold shares of the secret: every player at another machine
        who is at the table, and those who hold one and dropped (they may only be cut off,
        and electing: their share stays counted until their hold runs out)."""
        here = {i for i, seat in enumerate(self.seats)
                if seat.state in _AT_TABLE and not seat.local and seat.peer is not None}
        away = {i for i in self.shares if self.seats[i].state is SeatState.AWAY and i not in self.lease.given_up}
        return here | away

    def peer_rtt(self, peer: Peer, rtt: float, now: float) -> Output:
        """A new round-trip estimate: the roster shows it within a second."""
        guest = self.guests.get(peer)
        if guest is not None:
            self.races.channel_rtt(peer, rtt)
            if guest.rtt is None or round(guest.rtt * 1000) != round(rtt * 1000):
                if self._roster_due is None:
                    self._roster_due = now + 1.0
            guest.rtt = rtt
        return self._take()

    def sent(self, peer: Peer, message: Message, now: float) -> None:
        """``message`` actually left for ``peer`` at ``now`` (the runner says so, for the messages
        whose time matters): a ping's round trip and a room's departure count from then, not from
        when this session made them (a busy machine may keep its program from sending at once)."""
        if isinstance(message, Ping):
            self.races.ping_left(peer, message.n, now)
        elif isinstance(message, Snap) and peer in self._room_leaving:
            self._room_leaving.discard(peer)
            self.races.room_sent(peer, now)

    def tick(self, now: float) -> Output:
        """Do whatever is due by ``now``: the deal, holds, timers, windows, a bot's move.

        What must leave at its time leaves first and alone (the rest is done at the next
        call, at once): rooms held back for their peers, the pings (stamped with the time
        they leave), the bots' shouts. While the lease is in doubt nothing else is done."""
        if self._lease_due is not None and now >= self._lease_due:
            self._keep_lease(now)
        if self.stepped_down or self.lease.paused:
            return self._settle(now)
        if self._release(now) or self._ping(now):
            return self._take()
        shouts = self.live.due(now)
        for seat, shout, ms in shouts:
            self._shout(seat, shout, ms)
        if shouts:
            return self._take()
        if self.dealing and self._deal_by is not None and now >= self._deal_by:
            self._deal(now)
        for i, seat in enumerate(self.seats):
            if seat.hold_until is not None and now >= seat.hold_until:
                seat.state, seat.hold_until = SeatState.BOT, None
                self._note(f"{seat.name} did not come back: a bot plays seat {i + 1}.", i)
            if seat.act_by is not None and now >= seat.act_by:
                self._timed_out(i, now)
        if self._roster_due is not None and now >= self._roster_due:
            self._roster_due = None
            self._dirty = True
        if self._bot_due() <= now:
            self._bot_moves(now)
        return self._settle(now)

    # ------------------------------------------------------------ the lease
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

    def hand_over(self, now: float) -> Output:
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
        self._out.events.append(SteppedDown(deliberate))
        self._dirty = True

    # ------------------------------------------------------------ the host's commands
    def start(self, now: float) -> Output:
        """Deal: open seats become bots, the players reveal their nonces, then play begins.

        With players at the table this asks for their nonces and deals when all have
        answered or after ``nonce_timeout``; with bots alone it deals at once."""
        self._start(now)
        return self._settle(now)

    def _start(self, now: float) -> None:
        if self.started:
            return
        self.dealing = True
        for seat in self.seats:
            if seat.state is SeatState.OPEN:
                seat.state = SeatState.BOT
        seated = {g.seat for g in self.guests.values() if g.seat is not None}
        for seat in set(self.ledger.nonce_commits) - seated:
            del self.ledger.nonce_commits[seat]  # the player left before the deal
        if not self.ledger.nonce_commits:
            self._deal(now)
        else:
            self._deal_by = now + self.settings.nonce_timeout
            for peer, guest in self.guests.items():
                if guest.seat in self.ledger.nonce_commits:
                    self._out.send(peer, AskNonce())
        self._dirty = True

    def hand_to_bot(self, seat: int, now: float) -> Output:
        """A bot plays ``seat`` from now on, until ``take_back``."""
        place = self.seats[seat]
        if place.state is not SeatState.BOT:
            place.state, place.hold_until, place.act_by, place.covered = SeatState.BOT, None, None, False
            self._note(f"The host hands {place.name or bot_name(seat)}'s seat to a bot.", seat)
        return self._settle(now)

    def take_back(self, seat: int, now: float) -> Output:
        """Give ``seat`` back to its player (who plays it again if connected, or is away)."""
        place = self.seats[seat]
        if place.state.played_by_bot and place.name is not None:
            if place.peer is not None and place.peer in self.guests:
                place.state, place.timeouts = SeatState.HERE, 0
                self._note(f"{place.name} plays their seat again.", seat)
            elif self.started:
                place.state, place.hold_until = SeatState.AWAY, now + self.settings.hold
        return self._settle(now)

    def add_bots(self, count: int, now: float) -> Output:
        """Bots take ``count`` open seats before the deal."""
        for seat in self.seats:
            if count and seat.state is SeatState.OPEN:
                seat.state, count = SeatState.BOT, count - 1
        return self._settle(now)

    def set_bot_pace(self, pace: float, now: float) -> Output:
        self.bot_pace = pace
        return self._take()

    def play_bot(self, now: float) -> bool:
        """Let one bot that may act play now, whatever the pace; False if none may."""
        self._next = _UNKNOWN
        seat = self._next_bot()
        if seat is None:
            return False
        self._apply(seat, self.rules.bot_action(seat), now, "bot")  # type: ignore[union-attr]
        return True

    def replay(self, actions: Sequence[tuple[int, Any]], now: float) -> Output:
        """Apply recorded actions in order (a kept game resumed); ``RuleError`` if one is refused."""
        for seat, action in actions:
            self._apply(seat, action, now, "replay")
        return self._settle(now)

    def refresh(self, now: float) -> Output:
        """Send every peer its news again: after a change made to the game outside the session
        (a demo or a test setting a table up by hand)."""
        self._dirty = True
        return self._settle(now)

    def settle(self, now: float) -> Output:
        """Send what the last commands changed (after ``play_bot``, say)."""
        return self._settle(now)

    # ------------------------------------------------------------ seating
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
        seat = None if hello.watch else self._seat_for(name, peer, hello.token, local, now)
        if isinstance(seat, str):
            self._out.send(peer, Refused(seat))
            return
        self.guests[peer] = Guest(name, seat, local, address=self._addresses.get(peer))
        if seat is not None and not self.started and hello.nonce_commit is not None:
            self.ledger.nonce_commits[seat] = hello.nonce_commit
        s = self.settings
        self._out.send(peer, Welcome(
            seat, s.game, s.title, len(self.seats), s.host_name, self.started, self.ledger.commitment,
            dict(s.options), s.turn_time, self.rejoin_token(seat) if seat is not None else None,
            self.term, self.signer.public,
        ))  # fmt: skip
        if self.rules is not None:
            self._send_dealt(peer)
        if self.live.open and self.live.at is not None:  # in the middle of a real-time round
            self.races.room_sent(peer, now)
            self._out.send(peer, Opens(self.live.race, self.live.at))
        if s.auto_start and not self.started and all(p.state is not SeatState.OPEN for p in self.seats):
            self._start(now)
        self._dirty = True

    def _seat_for(self, name: str, peer: Peer, token: bytes | None, local: bool, now: float) -> int | None | str:
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
            self._sit(i, name, peer, local)
            if self.started:
                self._note(f"{seat.name} is back.", i)
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

    def _nonce(self, peer: Peer, message: Nonce, now: float) -> None:
        guest = self.guests[peer]
        if guest.seat is None or not self.dealing or len(message.nonce) != NONCE_BYTES:
            self.drops["unasked_nonce"] += 1
            return
        self.ledger.reveal_nonce(guest.seat, message.nonce)
        self._out.send(peer, NonceTaken())
        if not self.ledger.waiting_for():
            self._deal(now)

    # ------------------------------------------------------------ the deal and play
    def _deal(self, now: float) -> None:
        if self.rules is not None:
            return
        names = [seat.name or bot_name(i) for i, seat in enumerate(self.seats)]
        for i, seat in enumerate(self.seats):
            seat.name = names[i]
        seed = self.ledger.fix_seed(len(self.seats))
        self.rules = self.make_rules(names, seed if self.rng_seed is None else self.rng_seed)
        self.ledger.made(self.rules.made())
        self.log.extend(self.rules.opening())
        self.log.extend(["fair", note, None, None] for note in self.ledger.notes)
        self.dealing = False
        self._deal_by = None
        self._last_action = now
        self._ping(now)
        self._dirty = True
        self._share_secret()
        for peer in self.guests:
            self._send_dealt(peer)

    def _share_secret(self) -> None:
        """Split the secret among the players at other machines, so one can take over."""
        holders = sorted(self._holders())
        self.shares = {}
        if len(holders) >= 2 and self.rng_seed is None:
            self.shares = dict(zip(holders, split(self.ledger.secret, len(holders)), strict=True))

    def _reshare_if_changed(self) -> None:
        """A player came back, left for good or was given to a bot: split the secret afresh
        among those at the table now, so the majority that can take over is a majority of
        them (the old shares are of another split and rebuild nothing with the new ones)."""
        if self.rules is None or self.finished or self.rng_seed is not None:
            return
        holders = self._holders()
        if holders != set(self.shares) and (len(holders) >= 2 or self.shares):
            self._share_secret()
            for peer in self.guests:
                self._send_dealt(peer)

    def _send_dealt(self, peer: Peer) -> None:
        """The record a peer needs to follow the deal (and, with its share, to take over)."""
        guest = self.guests[peer]
        ledger = self.ledger
        seats = range(len(self.seats))
        share = self.shares.get(guest.seat) if guest.seat is not None else None
        self._out.send(peer, Dealt(
            [ledger.nonce_commits.get(s) for s in seats], list(ledger.nonces), list(ledger.notes),
            share.to_wire() if share is not None and not guest.local else None, len(self.shares),
        ))  # fmt: skip

    def _act_message(self, peer: Peer, act: Act, now: float) -> None:
        guest = self.guests[peer]
        seat = guest.seat if act.seat is None else act.seat
        if guest.seat is None or self.rules is None or seat != guest.seat:
            why = ("Only a seated player can act, once the game has started." if seat == guest.seat
                   else "You can only act for your own seat.")
            self._out.send(peer, Verdict(act.id, why))
            return
        place = self.seats[seat]
        if place.state is SeatState.BOT:
            self._out.send(peer, Verdict(act.id, "A bot plays your seat now; the host can give it back to you."))
            return
        if self._held_back(peer, act.id):
            return
        action = act.action
        try:
            if self.live.open and self.rules.racing():  # a real-time round: bounded, and heard
                earliest = self._earliest(peer)
                action, clamped = self.rules.merge(seat, self.live.so_far.get(seat), action, earliest)
                self._clamped(seat, peer, earliest, clamped)
                self._shout_fresh(seat, action)
            self._apply(seat, action, now, "player")
        except RuleError as refused:
            self.refused += 1
            self._out.send(peer, Verdict(act.id, str(refused)))
            return
        if place.state is SeatState.IDLE:
            place.state = SeatState.HERE
        place.timeouts, place.covered, place.act_by = 0, False, None
        self._out.send(peer, Verdict(act.id, None))

    def _apply(self, seat: int, action: Any, now: float, by: str) -> None:
        """Apply an action through the rules (``RuleError`` if refused) and record it."""
        rules = self.rules
        assert rules is not None
        entries = rules.act(seat, action)
        self.ledger.actions.append((seat, action))
        self.ledger.made(rules.made())
        self.log.extend(entries)
        if not rules.sealed_pending():  # nobody's choice is hidden any more: into the record
            chain = self.chain
            for s, a in self.ledger.actions[len(chain) - 1 :]:
                chain.append(chain_action(chain[-1], s, packb(a)))
        self._last_action = now
        self._dirty = True
        if by != "replay":
            self.acted += 1
        self._out.events.append(ActionApplied(seat, action, by))

    @property
    def recorded(self) -> int:
        """How many actions the record of play holds."""
        return len(self.chain) - 1

    def signature(self) -> list:
        """The host's signature over the record so far: ``[count, chain, signature]``."""
        count = self.recorded
        if self._signature is None or self._signature[0] != count:
            self._signature = (count, self.signer.sign_record(self.ledger.table_id, self.term, count, self.chain[count]))
        return [count, self.chain[count], self._signature[1]]

    def _held_back(self, peer: Peer, id: int) -> bool:
        """Refuse a move while this host has stepped down or its lease is in doubt; True if so."""
        if not (self.stepped_down or self.lease.paused):
            return False
        why = ("This machine no longer hosts the table." if self.stepped_down else
               "Play waits: the host cannot hear most players' machines just now. Try again in a moment.")
        self._out.send(peer, Verdict(id, why))
        return True

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
        race = self.live.start(at, holds)
        for peer in self.guests:
            self._out.send(peer, Opens(race, at))

    def _earliest(self, peer: Peer) -> int | None:
        """The bound on a claim of ``peer``'s arriving now (None for a seat on this machine)."""
        guest = self.guests[peer]
        return None if guest.local else self.races.earliest_ms(peer, self._arrived)

    def _clamped(self, seat: int, peer: Peer, earliest: int | None, clamped: list) -> None:
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

    def _timed_out(self, i: int, now: float) -> None:
        seat = self.seats[i]
        seat.act_by = None
        if self.rules is None or i not in self.rules.to_act():
            return
        if seat.racing:
            action = self.rules.silent_action(i)
            so_far = self.live.so_far.get(i) if self.live.open else None
            if so_far is None:
                self._note(f"{seat.name} said nothing in time.", i)
            else:  # what was heard stands
                self._note(f"{seat.name} did not seal their presses in time: what they pressed stands.", i)
                action, _ = self.rules.merge(i, so_far, action, None)
            self._apply(i, action, now, "silence")
            return
        seat.timeouts += 1
        seat.covered = True
        if seat.timeouts >= 2:
            seat.state = SeatState.IDLE
            self._note(f"{seat.name} let the timer run out twice: a bot plays for them until "
                       "they press a key.", i)
        else:
            self._note(f"{seat.name}'s time is up: a bot plays this turn for them.", i)
        self._dirty = True

    def _plays_by_bot(self, i: int) -> bool:
        seat = self.seats[i]
        return seat.state.played_by_bot or seat.covered

    def _next_bot(self) -> int | None:
        rules = self.rules
        if rules is None or self.finished:
            return None
        for i in sorted(rules.to_act()):
            if self._plays_by_bot(i):
                return i
        return None

    def _bot_due(self) -> float:
        if self._next_bot() is None:
            return _INF
        return self._last_action + (0.0 if self.real_time else self.bot_pace)

    def _bot_moves(self, now: float) -> None:
        """One bot move (every bot that may act, in a real-time game)."""
        rules = self.rules
        assert rules is not None
        if self.real_time:
            for i in sorted(rules.to_act()):
                if self._plays_by_bot(i):
                    action = rules.bot_action(i)
                    self._apply(i, action, now, "bot")
                    if self.live.open:  # sealed now, heard at its own times
                        self.live.schedule(i, rules.heard(i, action))
            return
        seat = self._next_bot()
        if seat is not None:
            self._apply(seat, rules.bot_action(seat), now, "timer" if self.seats[seat].covered else "bot")

    def _note(self, text: str, seat: int | None = None) -> None:
        self.log.append(["table", text, seat, None])
        self._dirty = True

    # ------------------------------------------------------------ sending
    _dirty = False

    def _take(self) -> Output:
        """What this call produced; every public method ends here (so the next deadline is
        worked out afresh when next asked). What a held peer is sent waits for its room."""
        self._next = _UNKNOWN
        out, self._out = self._out, Output()
        out.sends = self.live.route(out.sends, free=UNHELD)
        return out

    def _settle(self, now: float) -> Output:
        """After any change: timers follow who acts, and every peer gets its news."""
        if not self._dirty:
            return self._take()
        self._dirty = False
        if not self.stepped_down:
            self._reshare_if_changed()
        self._arm_lease(now)
        if self.stepped_down:  # the players elect among themselves now: this host says no more
            return self._take()
        rules = self.rules
        if rules is not None and not self.finished and not self.lease.paused:
            bots = frozenset(i for i in range(len(self.seats)) if self._plays_by_bot(i))
            if bots != self._bot_seats:
                self._bot_seats = bots
                rules.set_bot_seats(bots)
            racing = self.real_time and rules.racing() and rules.result() is None
            if racing and not self.live.open:
                self._open_room(now)
            elif not racing and self.live.open:
                self.live.end()
                self.races.close_room()
            self._arm_timers(rules, now)
        self._broadcast(now)
        self._out.events.append(TableChanged())
        return self._take()

    def _arm_timers(self, rules: Rules, now: float) -> None:
        acting = rules.to_act() if rules.result() is None else frozenset()
        window = rules.window()
        turn_time = self.settings.turn_time
        for i, seat in enumerate(self.seats):
            if i not in acting or self._plays_by_bot(i) or seat.state is not SeatState.HERE:
                if i not in acting:
                    seat.covered = False
                seat.act_by = None
                continue
            if seat.act_by is not None:
                continue
            if window is not None:
                if not seat.local:
                    seat.racing = True
                    if rules.racing():  # from the room's instant
                        seat.act_by = (self.live.at or now) + window + self.settings.race_slack
                    else:  # between rounds: the seat says it is ready, or is made so
                        seat.act_by = now + self.settings.intermission + self.settings.race_slack
            elif turn_time is not None:
                seat.racing = False
                seat.act_by = now + turn_time

    def _broadcast(self, now: float) -> None:
        roster = [row.to_wire() for row in self.roster(now)]
        members = self.members()
        message: Members | None = None
        for peer, guest in self.guests.items():
            if guest.members_sent != members:
                if message is None:
                    own = next((i for i, seat in enumerate(self.seats) if seat.local and seat.peer is not None), None)
                    message = Members(self.term, own, members)
                self._out.send(peer, message)
                guest.members_sent = members
        rules = self.rules
        if rules is None:
            lobby = Lobby(roster)
            for peer in self.guests:
                self._out.send(peer, lobby)
            return
        result = rules.result()
        to_act = sorted(rules.to_act()) if result is None else []
        clocks = [[i, round(max(0.0, seat.act_by - now), 3)] for i, seat in enumerate(self.seats)
                  if seat.act_by is not None]
        memo: dict = {}  # the views of one moment share parts: each is diffed once
        for peer, guest in self.guests.items():
            self._out.send(peer, self._snap_for(guest, rules, roster, to_act, result, clocks, memo))
        if result is None:
            return
        if not self.finished:
            self.finished = True
            for seat in self.seats:
                seat.act_by = seat.hold_until = None
            self._out.events.append(GameOver(result))
        final: Final | None = None
        for peer, guest in self.guests.items():  # a player back after the end gets it too
            if not guest.final_sent:
                if final is None:
                    fair = self.ledger.public()
                    if self.rng_seed is not None:
                        fair["rng_seed"] = self.rng_seed
                    signature = self.signer.sign_final(self.ledger.table_id, self.term, fair, result)
                    final = Final(rules.view(None), rules.digest(), result, fair, signature)
                self._out.send(peer, final)
                guest.final_sent = True

    def _snap_for(self, guest: Guest, rules: Rules, roster: list, to_act: list, result: Any,
                  clocks: list, memo: dict) -> Snap:
        seat = guest.seat
        view = rules.view(seat)
        whole = changes = None
        if guest.view_sent is None:
            whole = view
        else:  # what changed since the last snapshot: usually a few zones and faces
            changes = delta.diff(guest.view_sent, view, memo)
        guest.view_sent = view
        sent_roster = None
        if roster != guest.roster_sent:
            sent_roster = guest.roster_sent = roster
        log = self.log[guest.log_sent :]
        log_at, guest.log_sent = guest.log_sent, len(self.log)
        commitments = self.ledger.commitments
        commits = [[h, c] for h, c in commitments[guest.commits_sent :]]
        guest.commits_sent = len(commitments)
        fresh = [h for h, _ in view["faces"] if h not in guest.opened]
        openings = [[h, self.ledger.salt(h)] for h in fresh]
        guest.opened.update(fresh)
        recorded = self.recorded
        actions_at = guest.actions_sent
        actions = [[s, a] for s, a in self.ledger.actions[actions_at:recorded]]
        guest.actions_sent = recorded
        signed = None
        if guest.signed_sent != recorded:
            signed, guest.signed_sent = self.signature(), recorded
        return Snap(
            seat, rules.legal(seat) if seat is not None and result is None else [], to_act, log_at, log,
            result, whole, changes, sent_roster, commits, openings, clocks, actions_at, actions, signed,
        )  # fmt: skip

    def forget_sent(self, peer: Peer) -> None:
        """The last messages to ``peer`` could not be sent: send it everything afresh next time."""
        guest = self.guests.get(peer)
        if guest is not None:
            guest.log_sent = guest.commits_sent = guest.actions_sent = 0
            guest.signed_sent = -1
            guest.opened.clear()
            guest.view_sent = guest.roster_sent = guest.members_sent = None
            guest.final_sent = False
            self._dirty = True
