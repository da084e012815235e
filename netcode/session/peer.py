"""A player's machine at a networked table: following its host, electing a new one, or
hosting. Sans-IO.

Owns: ``TablePeer``, which holds one seat's session and, when the host goes silent,
runs this machine's part of the election (``netcode.session.election``): it sends its
ballot to the candidate of the term, or, when it is the candidate, counts the ballots
and takes the table over, becoming a host node with its own seat in memory. Whatever
its role, it is driven alike: channel events (``on_channel``), my own seat's messages
(``post``), ``tick(now)`` at ``next_deadline()``; and each returns a ``PeerOutput``:
messages for peers, connections to open, whether to accept joins, and the events of my
seat and of the table.

Must not touch: sockets, clocks, asyncio, games (the game comes in through
``host_for``, which makes a new host's settings and rules).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from netcode.channel import Delivered, PeerGone
from netcode.fairplay import Ledger, Signer
from netcode.session.election import EARLY_BALLOT, Candidacy, Election, Member, Takeover, take_over
from netcode.session.host import HostEvent, HostSession, RulesFactory, SteppedDown, TableSettings
from netcode.session.messages import BadMessage, Ballot, Message, Welcome, decode
from netcode.session.node import HostNode, LocalPeer
from netcode.session.seat import (
    HandedOver,
    HostSilent,
    SeatEvent,
    SeatOutput,
    SeatSession,
    host_changed,
)
from netcode.session.seats import SeatState

Peer = Hashable
#: reasons a connection to the host ends that call for a new host (the others: it closed the table)
SILENT = frozenset({"silent", "unreachable"})

#: ``host_for(session)``: the settings and rules of a host taking the table of ``session`` over
HostFactory = Callable[[SeatSession], tuple[TableSettings, RulesFactory]]


@dataclass
class PeerOutput:
    sends: list[tuple[Peer, Message]] = field(default_factory=list)
    #: open a connection to these peers (as their joiner)
    connects: list[tuple[int, Any]] = field(default_factory=list)
    #: accept joins from now on (this machine hosts, or may)
    accept: bool = False
    seat_events: list[SeatEvent] = field(default_factory=list)
    host_events: list[HostEvent] = field(default_factory=list)
    #: this machine became the table's host just now
    promoted: bool = False
    #: this machine stopped hosting just now (it handed the table over, or lost touch)
    demoted: bool = False

    def extend(self, other: PeerOutput) -> None:
        self.sends += other.sends
        self.connects += other.connects
        self.accept = self.accept or other.accept
        self.seat_events += other.seat_events
        self.host_events += other.host_events
        self.promoted = self.promoted or other.promoted
        self.demoted = self.demoted or other.demoted


class TablePeer:
    """My machine at a networked table: my seat's session, and whichever role it plays."""

    def __init__(self, session: SeatSession, host_peer: int, local_id: int, *, host_for: HostFactory | None,
                 signer: Signer | None = None, heard: Callable[[Peer], float | None] | None = None) -> None:
        """``host_for`` makes what this machine needs to host the table (None: it never will, and
        a game whose host goes away ends); ``heard(peer)``: when the channel last heard a peer
        (the lease of this machine, should it host)."""
        self.session = session
        self.host_peer: int | None = host_peer
        self.local_id = local_id
        self.host_for = host_for
        self.signer = signer
        self.election: Election | None = None
        self.candidacy: Candidacy | None = None
        self.voted: dict[int, int] = {}  # term -> the peer my ballot went to
        self.node: HostNode | None = None
        self.me: LocalPeer | None = None
        self.heard = heard
        #: ballots that came before I heard my host's silence myself: peer -> (ballot, when)
        self.early: dict[Peer, tuple[Ballot, float]] = {}
        #: host changes this machine saw (a new host taking over)
        self.failovers = 0
        #: this machine's player handed the table over and leaves: it takes no part in electing
        self.leaving = False

    # ------------------------------------------------------------ facts
    @property
    def hosting(self) -> bool:
        return self.node is not None

    @property
    def electing(self) -> bool:
        return self.election is not None

    def next_deadline(self) -> float | None:
        if self.node is not None:
            return self.node.next_deadline()
        times = [t for t in (self.election.deadline if self.election else None,
                             self.candidacy.due() if self.candidacy else None) if t is not None]
        return min(times) if times else None

    # ------------------------------------------------------------ inputs
    def post(self, message: Message, now: float) -> PeerOutput:
        """My own seat's message, to whoever hosts (myself, when I do)."""
        out = PeerOutput()
        if self.node is not None and self.me is not None:
            out.sends += self.node.from_local(self.me, message, now)
            self._collect(out, now)
        elif self.host_peer is not None and self.election is None:
            out.sends.append((self.host_peer, message))
        return out

    def on_channel(self, event: Any, now: float, arrived: float | None = None) -> PeerOutput:
        """A channel event (a message whose datagram arrived at ``arrived``, if the caller knows)."""
        out = PeerOutput()
        if self.node is not None:
            out.sends += self.node.on_channel(event, now, arrived)
            self._collect(out, now)
            return out
        if isinstance(event, Delivered):
            if event.peer == self.host_peer and self.election is None:
                self._seat(self.session.receive(event.payload, now, arrived), out, now)
            else:
                self._stranger(event.peer, event.payload, now, out)
        elif isinstance(event, PeerGone) and event.peer == self.host_peer:
            if event.reason in SILENT and self._can_elect():
                self._elect(now, out)
            else:
                self._seat(self.session.host_lost(event.reason), out, now)
        return out

    def hand_over(self, now: float) -> PeerOutput:
        """My player leaves the table this machine hosts: the others elect the next host now."""
        out = PeerOutput()
        if self.node is not None:
            self.leaving = True
            out.sends += self.node.command(self.node.host.hand_over, now)
            self._collect(out, now)
        return out

    def tick(self, now: float) -> PeerOutput:
        out = PeerOutput()
        if self.node is not None:
            out.sends += self.node.tick(now)
            self._collect(out, now)
            return out
        if self.candidacy is not None and self.candidacy.ready(now):
            self._take_over(now, out)
        elif self.election is not None and now >= self.election.deadline:
            self.candidacy = None
            if self.election.next(now) is None:
                self._give_up(out, now)
            else:
                self._vote(now, out)
        return out

    # ------------------------------------------------------------ following
    def _seat(self, seat_out: Any, out: PeerOutput, now: float) -> None:
        for message in seat_out.sends:
            if self.host_peer is not None:
                out.sends.append((self.host_peer, message))
        for event in seat_out.events:
            if isinstance(event, HandedOver) and self._can_elect():
                self.session.gone = None  # not gone: we elect the next host at once
                self._elect(now, out, event.why)
            else:
                out.seat_events.append(event)

    def _can_elect(self) -> bool:
        """Whether a new host could take over: the deal shared the secret among two or more
        players at other machines, and the game is not over."""
        deal, session = self.session.deal, self.session
        return (self.host_for is not None and deal is not None and deal.holders >= 2 and session.final is None
                and len(self.members()) >= 2)

    def members(self) -> list[Member]:
        return [Member.from_wire(raw) for raw in self.session.members]

    def _stranger(self, peer: Peer, raw: Any, now: float, out: PeerOutput) -> None:
        """A message from a peer that is not my host: a ballot, or a new host's first words."""
        try:
            message = decode(raw)
        except BadMessage:
            self.session.drops["bad_message"] += 1
            return
        election = self.election
        if isinstance(message, Ballot):
            if election is None:  # a member noticed the host's silence before I did (or only it
                self.early[peer] = (message, now)  # lost the host): kept a moment for my own election
                return
            if election is not None and self.candidacy is None and message.term > election.term:
                candidate = election.candidate_of(message.term)
                if candidate is not None and candidate.peer == self.local_id:
                    election.attempt = message.term - election.base_term - 1  # it is my turn already
                    self._stand(now, out)
            if self.candidacy is not None:
                self.candidacy.add(peer, message, now)
                if self.candidacy.ready(now):
                    self._take_over(now, out)
            return
        if election is not None and isinstance(message, Welcome) and self.voted.get(message.term) == peer:
            self.election = None  # the one I voted for took over: it is my host now
            self.host_peer = peer
            self.failovers += 1
            self._seat(self.session.receive(raw, now), out, now)
            return
        self.session.drops["not_my_host"] += 1

    # ------------------------------------------------------------ electing
    def _elect(self, now: float, out: PeerOutput, why: str | None = None) -> None:
        session = self.session
        holders = session.deal.holders if session.deal is not None else None
        self.election = Election(self.members(), session.host_seat, session.term, now, holders)
        self.host_peer = None
        host = session.welcome.host if session.welcome is not None else "The host"
        out.seat_events.append(HostSilent(why or f"{host}'s machine went silent: the players are choosing a new host…"))
        self._vote(now, out)
        early, self.early = self.early, {}
        for peer, (ballot, when) in early.items():  # those who noticed first
            if now - when <= EARLY_BALLOT:
                self._stranger(peer, ballot.to_wire(), now, out)

    def _vote(self, now: float, out: PeerOutput) -> None:
        election = self.election
        assert election is not None
        candidate = election.candidate
        if candidate is None:
            self._give_up(out, now)
            return
        if candidate.peer == self.local_id:
            self._stand(now, out)
            return
        if self.voted.get(election.term) is None:  # one ballot a term
            self.voted[election.term] = candidate.peer
            out.connects.append((candidate.peer, candidate.address))
            out.sends.append((candidate.peer, self.session.ballot(election.term)))

    def _stand(self, now: float, out: PeerOutput) -> None:
        election = self.election
        assert election is not None and election.candidate is not None
        self.voted[election.term] = self.local_id
        self.candidacy = Candidacy(election, election.candidate, self.session.ballot(election.term), now)
        out.accept = True

    def _give_up(self, out: PeerOutput, now: float) -> None:
        self.election = self.candidacy = None
        self._seat(self.session.host_lost("silent"), out, now)

    # ------------------------------------------------------------ taking over
    def _take_over(self, now: float, out: PeerOutput) -> None:
        candidacy, session = self.candidacy, self.session
        assert candidacy is not None and session.welcome is not None and session.deal is not None
        verifier = session.verifier
        plan = take_over(candidacy, verifier.table_id, verifier.seed_commit or b"", session.keys)
        if plan is None:
            return  # not yet a majority of good ballots: wait for more, or for the deadline
        self.node = HostNode(self._resume(plan, candidacy.term, now), self.heard)
        out.sends += self.node.sit_local(session, now)  # my own seat, back with its rejoin token
        self.me = self.node.peer_of(session)
        self.election = self.candidacy = None
        self.host_peer = None
        self.failovers += 1
        host = self.node.host
        for peer, ballot in [*plan.voters.items(), *plan.watchers.items()]:
            if peer is not None:
                out.sends += self.node.receive(peer, ballot.to_wire(), now)
        out.sends += self.node.command(host.reshare, now)
        out.accept = out.promoted = True
        self._collect(out, now)

    def _resume(self, plan: Takeover, term: int, now: float) -> HostSession:
        session = self.session
        welcome, deal = session.welcome, session.deal
        assert welcome is not None and deal is not None
        assert self.host_for is not None
        settings, make_rules = self.host_for(session)
        ledger = Ledger(welcome.game, session.verifier.table_id, plan.secret, options=dict(welcome.options))
        for seat, (commit, nonce) in enumerate(zip(deal.nonce_commits, deal.nonces, strict=True)):
            if commit is not None:
                ledger.nonce_commits[seat] = commit
                if nonce is not None:
                    ledger.revealed[seat] = nonce
        if session.view is not None:
            names = list(session.view["public"]["players"])
        else:  # the host went before its first view reached me (a real-time game's first room waits)
            names = [row.name or "" for row in sorted(session.roster, key=lambda row: row.seat)]
        bots = [row.state is SeatState.BOT for row in session.roster]
        old = next((row.name for row in session.roster if row.seat == session.host_seat), None) or welcome.host
        note = host_changed(old, session.name, session.handover)
        return HostSession.resume(
            settings, make_rules, ledger, self.signer or Signer(), term=term, names=names,
            bots=bots, actions=plan.actions, log=session.log if session.view is not None else None,
            logged=len(session.actions), now=now, note=note,
            gone=session.host_seat,
        )  # fmt: skip

    def _collect(self, out: PeerOutput, now: float) -> None:
        node = self.node
        assert node is not None
        events = node.take_host_events()
        out.host_events += events
        seat_events = node.take_seat_events(self.me) if self.me is not None else []
        if any(isinstance(event, SteppedDown) for event in events):
            # this machine no longer hosts: its seat follows whoever the others elect (unless
            # its player is leaving)
            self.node = self.me = None
            out.demoted = True
            if self.leaving:
                out.seat_events += seat_events
            else:
                self._seat(SeatOutput(events=seat_events), out, now)
            return
        out.seat_events += seat_events
