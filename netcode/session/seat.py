"""A player's side of a table session: my seat, my view, my checks. Sans-IO.

Owns: one seat's (or a spectator's) state at a hosted table, as a state
machine fed the host's messages (``receive(message, now)``) and the news that
the host is gone (``host_lost``); the messages a seat sends (``hello``,
``act``, ``press`` (one input of a real-time round, as it is made), ``here``,
``bye``, the nonce when the host deals, and the answer to each of the host's
pings, at once); and the events for whoever shows the table (defined in
``netcode.session.seat_events``): seated, turned away, updated, a shout heard,
an action's verdict, the end, the host lost. At a no-peek table its part of the
deal is ``NoPeekSeat`` (``netcode.session.seat_nopeek``).

What it keeps: the welcome (my seat, the game, the table's settings, my
rejoin token), my view (assembled from the host's whole views and deltas),
my legal actions, who acts, the public log in order, the roster, the clocks
(when each seat to act must have acted, in my own clock), the result and the
final message; and, in a real-time game, the host's clock as the pings tell
it (``netcode.session.clock``), the open round's number, the moment (my clock)
its room is to be drawn (``room_at``: the host's instant, where the estimate is
good; else as it arrived), and the shouts heard in it.

Fair play: the seat commits to a nonce in ``Hello`` and reveals it when the
host deals; a ``Verifier`` keeps every card commitment and checks every face
I am shown against it on receipt; the secret and my nonce are checked in the
final message; a nonce the host left out before its time was up is named. The
first failure becomes ``alarm`` at once (the player's screen shows it in red). The replay of the whole game needs the rules, so it
lives with the games.

Must not touch: sockets, clocks, asyncio, any particular game.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

from netcode import delta
from netcode.channel import Delivered, PeerGone
from netcode.fairplay import Verifier, Voice, final_signed, left_out_note
from netcode.session.clock import HostClock
from netcode.session.messages import (
    VERSION,
    Act,
    AskNonce,
    BadMessage,
    Ballot,
    Bye,
    CatchUp,
    Dealt,
    Final,
    Handover,
    Hello,
    Here,
    Keyed,
    Lobby,
    Members,
    Message,
    Nonce,
    NonceTaken,
    Opens,
    Order,
    Ping,
    Pong,
    Press,
    Refused,
    Relay,
    Sealed,
    SeatTaken,
    Shout,
    Snap,
    Verdict,
    Welcome,
    parse_host_message,
)
from netcode.session.seat_events import (
    HOST_GONE,
    HOST_SILENT,
    Answered,
    Ended,
    HandedOver,
    HostChanged,
    HostLost,
    HostSilent,
    Seated,
    SeatEvent,
    ShoutHeard,
    TurnedAway,
    Updated,
    host_changed,
)
from netcode.session.seat_nopeek import (
    MENTAL_ASK,
    MENTAL_STALL,
    SENT_A_WHILE_AGO,
    MentalProgram,
    NoPeekSeat,
)
from netcode.session.seats import RosterRow
from netcode.session.step import HOST, Step
from netcode.shares import Commitments, Share

__all__ = [
    "HOST_GONE", "HOST_SILENT", "MENTAL_ASK", "MENTAL_STALL", "SENT_A_WHILE_AGO", "Answered", "Ended",
    "HandedOver", "HostChanged", "HostLost", "HostSilent", "MentalProgram", "SeatEvent", "SeatSession",
    "Seated", "ShoutHeard", "TurnedAway", "Updated", "host_changed",
]  # fmt: skip

class SeatSession(NoPeekSeat):
    """My place at a hosted table. Sans-IO: feed it the host's messages, send what it returns."""

    def __init__(self, name: str, table_id: bytes, seed_commit: bytes | None = None, *,
                 game: str = "", nonce: bytes | None = None, token: bytes | None = None,
                 watch: bool = False, contribute: bool = True, mental: MentalProgram | None = None,
                 voice: Voice | None = None) -> None:
        """``seed_commit``: the host's commitment as announced (checked against the welcome).
        ``nonce`` and ``token``: kept from an earlier sitting at this table, to rejoin it.
        ``contribute``: whether my nonce goes into the seed (not at a game dealt from a
        seed the player chose). ``mental``: my program, should the table deal no-peek, and
        ``voice`` its voice (both kept from an earlier sitting, to take a no-peek seat back)."""
        self.name = name
        self._init_no_peek(mental, voice)
        #: this seat's place among the seats played at its machine (0: the person at the terminal)
        self.index = 0
        self.watch = watch
        self.contribute = contribute and not watch
        self.token = token
        self.verifier = (Verifier(game, table_id, seed_commit or None) if nonce is None
                         else Verifier(game, table_id, seed_commit or None, nonce=nonce))
        self.welcome: Welcome | None = None
        self.refused: str | None = None
        self.view: dict[Any, Any] | None = None
        #: the view as the host sent it (what its next change applies to); ``view`` adds what
        #: my program alone knows at a no-peek table
        self._host_view: dict[Any, Any] | None = None
        self.legal: list[Any] = []
        self.to_act: list[int] = []
        self.result: dict[Any, Any] | None = None
        self.log: list[list[Any]] = []
        self.roster: list[RosterRow] = []
        #: seat -> the time (my clock) by which it must act (turn timers, race windows)
        self.clocks: dict[int, float] = {}
        self.final: Final | None = None
        #: the record of play as the host sent it: ``[seat, action]`` in the order applied,
        #: and the host's latest signature over it (``[count, chain, signature]``)
        self.actions: list[list[Any]] = []
        self.signed: list[Any] | None = None
        #: what the host told of the deal (nonces, notes) and my share of its secret
        self.deal: Dealt | None = None
        #: what every share of the host's secret is checked against (None: no shares)
        self.share_commitments: Commitments | None = None
        #: the table's hosts so far: term -> the key that signs its record of play
        self.keys: dict[int, bytes] = {}
        #: which host signed ``signed``
        self.signed_term = 0
        #: who could take over (``Members``): the host's seat, and the players at other machines
        self.host_seat: int | None = None
        self.members: list[list[Any]] = []
        self.gone: str | None = None
        #: the last host's ``Handover``, if it stopped hosting rather than going silent
        self.handover: Handover | None = None
        #: every host change I saw: ``[term, new host's name, actions recorded by then, why]``
        self.handovers: list[list[Any]] = []
        self.alarm: str | None = None
        self.revealed_nonce = False
        #: when the host asked for the nonces (my clock) and how long it said it would wait
        self._asked: tuple[float, float] | None = None
        #: the host said my nonce is in: left out of the seed after that, it is caught
        self.nonce_taken = False
        self.drops: Counter[str] = Counter()
        #: every message received, when ``keep_received`` (leak tests, audits)
        self.received: list[Message] = []
        self.keep_received = False
        #: the host's clock against mine; the open real-time round, when to draw its room (my
        #: clock), and what was heard in it: ``(seat, shout, ms)``
        self.clock = HostClock()
        self.race = 0
        self.room_at: float | None = None
        self.shouts: list[tuple[int, Any, int]] = []
        self._arrived = 0.0
        self._ids = itertools.count(1)

    # ------------------------------------------------------------ facts
    @property
    def seat(self) -> int | None:
        return self.welcome.seat if self.welcome is not None else None

    @property
    def dealt(self) -> bool:
        return self.view is not None

    @property
    def the_host(self) -> str:
        """How a red line names my host: "the host (Noel)"."""
        return f"the host ({self.welcome.host if self.welcome is not None else '?'})"

    @property
    def term(self) -> int:
        return self.welcome.term if self.welcome is not None else 0

    def ballot(self, term: int) -> Ballot:
        """My ballot for the next host, in ``term``: who I am, the record as I have it, my share."""
        deal = self.deal
        return Ballot(term, self.seat, self.name, self.token, self.actions, self.signed, max(1, self.signed_term),
                      deal.share if deal is not None else None, self.seat is None)

    # ------------------------------------------------------------ what I send
    def hello(self) -> Hello:
        commit = self.verifier.nonce_commit if self.contribute else None
        key = self.mental.key if self.mental is not None else None  # (a watcher's may be handed a seat)
        voice = self.voice.public if self.voice is not None and key is not None else None
        return Hello(VERSION, self.name, commit, self.token, self.watch, key, voice)

    @property
    def no_peek(self) -> bool:
        return self.welcome is not None and self.welcome.no_peek

    def act(self, action: Any, seat: int | None = None) -> Act:
        """My action (wire form); its ``id`` comes back in an ``Answered`` event. At a no-peek
        table a choice made at the same time as others goes as its digest first."""
        mine = self.seat if seat is None else seat
        id = next(self._ids)
        if self.no_peek and self.mental is not None and mine is not None:
            action = self.mental.outgoing(mine, action)
            if self.voice is not None and self.voices is not None:
                return Act(id, action, seat, self.voice.sign_move(self.voices.table, mine, id, action))
        return Act(id, action, seat)

    def press(self, action: Any) -> Press:
        """One input of my real-time round (wire form), the moment it is made; its ``id`` comes
        back in an ``Answered`` event."""
        return Press(next(self._ids), action)

    def here(self) -> Here:
        return Here()

    def bye(self) -> Bye:
        return Bye()

    # ------------------------------------------------------------ what I receive
    def receive(self, raw: Any, now: float, arrived: float | None = None) -> Step:
        """A message from the host; a malformed one is dropped and counted in ``drops``.
        ``arrived``: when its datagram reached this machine, if the runner knows (else ``now``)."""
        out = Step()
        try:
            message = parse_host_message(raw)
            if self.keep_received:
                self.received.append(message)
            self._arrived = now if arrived is None else min(arrived, now)
            self._take(message, now, out)
        except BadMessage as bad:
            self.drops[bad.reason] += 1
        except (KeyError, TypeError, ValueError, IndexError):  # a delta or roster that does not fit
            self.drops["bad_content"] += 1
        return out

    def host_lost(self, reason: str, why: str | None = None) -> Step:
        """The channel says the host is gone (``closed``, ``local``, ``silent``…); ``why``, if
        given, is what the player is told."""
        out = Step()
        if self.gone is None and self.final is None:
            self.gone = why or HOST_GONE.get(reason, HOST_SILENT)
            out.seats.append((self.index, HostLost(self.gone)))
        return out

    def on_channel(self, event: Any, now: float, arrived: float | None = None) -> Step:
        """A channel event from the host's connection: its message, or that it is gone."""
        if isinstance(event, Delivered):
            return self.receive(event.payload, now, arrived)
        if isinstance(event, PeerGone):
            return self.host_lost(event.reason)
        return Step()

    def _take(self, message: Message, now: float, out: Step) -> None:
        arrived = self._arrived  # when the message's datagram came (``receive``)
        if isinstance(message, Shout):
            if message.race == self.race:
                self.shouts.append((message.seat, message.shout, message.ms))
                out.seats.append((self.index, ShoutHeard(message.seat, message.shout, message.ms)))
        elif isinstance(message, Snap):
            self._snap(message, now)
            out.seats.append((self.index, Updated()))
        elif isinstance(message, Verdict):
            out.seats.append((self.index, Answered(message.id, message.refused)))
        elif isinstance(message, Lobby):
            self.roster = [RosterRow.from_wire(row) for row in message.roster]
            out.seats.append((self.index, Updated()))
        elif isinstance(message, Welcome):
            before = self.welcome
            self._welcome(message)
            if before is not None and message.term > before.term:
                why = host_changed(before.host, message.host, self.handover, me=self.name)
                self.handover, self.gone = None, None
                self.handovers.append([message.term, message.host, len(self.actions), why])
                out.seats.append((self.index, HostChanged(message.term, why)))
            else:
                out.seats.append((self.index, Seated(message)))
        elif isinstance(message, Dealt):
            if self.deal is None:
                self._check_nonces_left_out(message, now)
            self.deal = message
            self._check_my_nonce(message.nonces)
            self._check_my_share(message)
        elif isinstance(message, NonceTaken):
            self.nonce_taken = True
        elif isinstance(message, Handover):
            host = self.welcome.host if self.welcome is not None else "The host"
            if host == self.name:  # the host's own seat (no other player may take the host's name)
                why = ("You handed the table over." if message.deliberate else
                       "Your machine lost touch with most players, so it stopped hosting and they play on "
                       "with a new host. Find the table in the lobby and join it again: your seat waits for you.")
            elif message.deliberate:
                why = f"{host} left the table and handed it over: the players are choosing a new host…"
            else:
                why = f"{host}'s machine lost touch with most players and stopped hosting."
            if self.gone is None and self.final is None:
                self.handover, self.gone = message, why
                out.seats.append((self.index, HandedOver(why)))
        elif isinstance(message, Members):
            self.host_seat, self.members = message.host_seat, message.members
        elif isinstance(message, AskNonce):
            self._asked = (now, message.within)
            if self.seat is not None and self.contribute:
                self.revealed_nonce = True
                out.send(HOST, Nonce(self.verifier.nonce))
        elif isinstance(message, Final):
            fair = message.fair
            if not self.no_peek:  # (a no-peek deal's cards were proved as they opened)
                self._alarm(self.verifier.check_final(fair.get("secret", b""), fair.get("nonces", [])))
            self._check_my_nonce(fair.get("nonces", []))
            key = self.keys.get(self.term)
            if key is None or not final_signed(key, message.signature, self.verifier.table_id, self.term, fair,
                                               message.result):
                self._alarm(["the host's signature over the end of the game does not hold"], keep=True)
            if list(fair.get("actions", []))[: len(self.actions)] != self.actions:
                self._alarm(["the host's final record of play is not the one it sent during the game"])
            self.final = message
            out.seats.append((self.index, Ended(message)))
        elif isinstance(message, Refused):
            self.refused = message.why
            out.seats.append((self.index, TurnedAway(message.why)))
        elif isinstance(message, Ping):
            held = now - arrived
            self.clock.pinged(message.n, message.at, arrived, held)
            if message.echo is not None:
                self.clock.echoed(*message.echo)
            out.send(HOST, Pong(message.n, held))
        elif isinstance(message, Opens):
            self.race, self.shouts = message.race, []
            self.room_at = self.clock.local(message.at, arrived)
            if self.no_peek:  # (my program's shares of the room wait for its instant, as my clock
                # tells the host's; else as long after it came as the host sent it ahead)
                at = self.room_at if self.clock.good else arrived + message.lead
                self.room_opens(message.race, at, out, now)
        elif isinstance(message, (Keyed, Order, Sealed, Relay, SeatTaken)):
            self._mental(message, out, now)
        elif isinstance(message, CatchUp):
            self.catch_up(message)

    def _welcome(self, welcome: Welcome) -> None:
        if self.welcome is not None and welcome.term > self.welcome.term:
            self._forget_sealed()
            self.clock = HostClock()  # another machine, another clock: learnt afresh from its pings
            self.race, self.room_at, self.shouts = 0, None, []
        self.keys[welcome.term] = welcome.host_key
        verifier = self.verifier
        if verifier.game and verifier.game != welcome.game:
            self._alarm([f"the table was announced as {verifier.game!r} but the host deals {welcome.game!r}"])
        verifier.game = welcome.game
        if verifier.seed_commit is None:
            verifier.seed_commit = welcome.seed_commit
        elif welcome.seed_commit != verifier.seed_commit:
            self._alarm(["the host's welcome carries a different secret commitment from its announcement"])
        verifier.seat = welcome.seat
        if welcome.token is not None:
            self.token = welcome.token
        self.welcome = welcome

    def _check_nonces_left_out(self, dealt: Dealt, now: float) -> None:
        """The host deals once every nonce is in, or once the time it gave is up. A nonce left
        out "not in time" when the deal came well before that time means the host dealt early
        without it (it could then have chosen between seeds): every player's program sees it.
        My own program knows too whether my nonce matched. (A host that waits its whole time
        and then leaves a nonce out cannot be told from a link that lost it: a no-peek table
        leaves a host no nonce to drop.)"""
        waited, within = (now - self._asked[0], self._asked[1]) if self._asked is not None else (0.0, 0.0)
        early = self._asked is not None and waited < within / 2  # (half its time: a slow link is not blamed)
        names = {row.seat: row.name for row in self.roster if row.name}
        for s, (commit, nonce) in enumerate(zip(dealt.nonce_commits, dealt.nonces, strict=False)):
            if commit is None or nonce is not None:
                continue
            late = left_out_note(s) in dealt.notes
            if s == self.seat and self.revealed_nonce and not late:
                self._alarm([f"{self.the_host} left my nonce out of the seed saying it did not match its "
                             "commitment; it did"], keep=True)
            elif late and early:
                self._alarm([f"{self.the_host} dealt {waited:.1f} s after asking, without "
                             f"{names.get(s, f'seat {s + 1}')}'s nonce, before its {within:.0f} s were up: "
                             "it could have chosen the deal"], keep=True)

    def _check_my_nonce(self, nonces: Sequence[bytes | None]) -> None:
        """A nonce the host said was in must be in the seed."""
        seat = self.seat
        if self.nonce_taken and seat is not None and seat < len(nonces) and nonces[seat] is None:
            self._alarm(["the host took my nonce, then left it out of the seed"], keep=True)

    def _snap(self, snap: Snap, now: float) -> None:
        if snap.view is not None:
            view = snap.view
        elif snap.changes is not None and self._host_view is not None:
            view = delta.apply(self._host_view, snap.changes)  # only what changed since the last one
        else:
            raise ValueError("a snapshot with neither a view nor a change to one")
        if snap.log_at > len(self.log):
            raise ValueError("the log skips entries")
        if self.verifier is not None and not self.no_peek and (
            snap.commits or snap.openings or snap.view is not None or delta.touches(snap.changes or {}, "faces")
        ):  # faces already checked, with nothing new to check them against, need no second look
            faces = dict(view["faces"])  # ([handle, face] pairs)
            self._alarm(self.verifier.receive(snap.commits, snap.openings, faces))
        self._host_view = self.view = view
        self.legal = snap.legal
        self.to_act = snap.to_act
        self.result = snap.result
        self.log[snap.log_at :] = snap.log
        self._record(snap)
        if snap.roster is not None:  # sent only when it changed
            self.roster = [RosterRow.from_wire(row) for row in snap.roster]
        self.clocks = {seat: now + left for seat, left in snap.clocks}
        self._mine_in_view()

    def _forget_sealed(self) -> None:
        """A new host replays only the record of play: sealed choices still hidden when the old
        host went are asked again, so their cards' commitments and openings no longer hold."""
        if self.view is None:
            return
        for name, handles in self.view["zones"].items():
            if name.startswith("sealed."):
                for handle in handles:
                    self.verifier.commitments.pop(handle, None)
                    self.verifier.openings.pop(handle, None)

    def _record(self, snap: Snap) -> None:
        """The record of play grows; what was sent before must never change."""
        at, actions = snap.actions_at, snap.actions
        if at > len(self.actions):
            raise ValueError("the record of play skips actions")
        overlap = self.actions[at : at + len(actions)]
        if overlap != actions[: len(overlap)]:
            self._alarm(["the host rewrote the record of play it had sent"])
        self.actions[at:] = actions
        if snap.signed is not None:
            self.signed, self.signed_term = snap.signed, self.term

    def _check_my_share(self, dealt: Dealt) -> None:
        """Keep the commitments of the host's split, and check my own share against them: a
        host that gave me a share of nothing would leave the table unable to take over."""
        self.share_commitments = None
        if not dealt.share_commitments:
            return
        try:
            commitments = Commitments.from_wire(dealt.share_commitments)
            mine = Share.from_wire(dealt.share) if dealt.share is not None else None
        except ValueError:
            self._alarm(["the host's shares of its secret are not well formed"], keep=True)
            return
        self.share_commitments = commitments
        if mine is not None and not commitments.checks(mine):
            self._alarm(["the host gave me a share of its secret that does not match its commitments"], keep=True)

    def _alarm(self, alarms: list[str], *, keep: bool = False) -> None:
        """Show the first alarm in red; with ``keep``, the game log records them too (the ones
        the audit cannot find again on its own)."""
        if keep:
            self.verifier.alarms.extend(a for a in alarms if a not in self.verifier.alarms)
        if alarms and self.alarm is None:
            more = f" (and {len(alarms) - 1} more)" if len(alarms) > 1 else ""
            self.alarm = f"CHEATING DETECTED: {alarms[0]}{more}"
