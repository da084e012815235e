"""A table peer's part while its host has gone silent: electing the next one. Sans-IO.

Owns ``Electing``, the mixin of ``TablePeer`` (``netcode.session.peer``) that holds an
election when the host goes silent (or hands the table over): whether one can be held
(``_can_elect``), the ballot to the candidate of each term (``_vote``), standing as the
candidate and counting the ballots (``_stand``, ``_count``; a forged share names its
sender to every voter), giving up when nobody can take over (``_give_up``), and taking
the table over as its new host (``_take_over``: a ``HostSession`` resumed from the
ballots, with my own seat sat back at it). The election's rules (who stands in which
term, when a term ends, what a majority of good ballots is) are
``netcode.session.election``'s; the resumed host is ``netcode.session.takeover``'s.

Must not touch: sockets, clocks, asyncio, games.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

from netcode.session.election import EARLY_BALLOT, Candidacy, Election, Member, take_over
from netcode.session.messages import Ballot, Forged
from netcode.session.seat import HostSilent
from netcode.session.step import Step
from netcode.session.takeover import resumed_host

if TYPE_CHECKING:
    from netcode.fairplay import Signer
    from netcode.session.host import HostSession
    from netcode.session.seat import SeatSession
    from netcode.session.takeover import HostFactory

Peer = Hashable


class Electing:
    """What a ``TablePeer`` does to elect its next host (see the module's docstring)."""

    if TYPE_CHECKING:  # (the peer's own, read here)
        local_id: int | None
        host_for: HostFactory | None
        signer: Signer | None
        host: HostSession | None
        host_peer: int | None
        election: Election | None
        candidacy: Candidacy | None
        voted: dict[int, int]
        early: dict[Peer, tuple[Ballot, float]]
        forgers: dict[int, str]
        failovers: int

        @property
        def session(self) -> SeatSession: ...
        def members(self) -> list[Member]: ...
        def command(self, run: Callable[[float], Step], now: float) -> Step: ...
        def _become_host(self, host: HostSession) -> None: ...
        def _sit_at_host(self, index: int, now: float) -> Step: ...
        def _route(self, first: Step, now: float) -> Step: ...
        def _follow(self, seat_step: Step, step: Step, now: float) -> None: ...
        def _stranger(self, peer: Peer, raw: Any, now: float, step: Step) -> None: ...

    def _can_elect(self) -> bool:
        """Whether a new host could take over: the deal shared the secret among two or more
        players at other machines, and the game is not over."""
        session = self.session
        deal = session.deal
        return (self.host_for is not None and self.local_id is not None and deal is not None and deal.holders >= 2
                and session.share_commitments is not None
                and session.final is None and len(self.members()) >= 2)

    def _elect(self, now: float, step: Step, why: str | None = None) -> None:
        session = self.session
        holders = session.deal.holders if session.deal is not None else None
        self.election = Election(self.members(), session.host_seat, session.term, now, holders)
        self.host_peer = None
        host = session.welcome.host if session.welcome is not None else "The host"
        step.seats.append((0, HostSilent(why or f"{host}'s machine went silent: the players are choosing a new host…")))
        self._vote(now, step)
        early, self.early = self.early, {}
        for peer, (ballot, when) in early.items():  # those who noticed first
            if now - when <= EARLY_BALLOT:
                self._stranger(peer, ballot.to_wire(), now, step)

    def _vote(self, now: float, step: Step) -> None:
        election = self.election
        assert election is not None
        candidate = election.candidate
        if candidate is None:
            self._give_up(step, now)
            return
        if candidate.peer == self.local_id:
            self._stand(now, step)
            return
        if self.voted.get(election.term) is None:  # one ballot a term
            self.voted[election.term] = candidate.peer
            step.connects.append((candidate.peer, candidate.address))
            step.send(candidate.peer, self.session.ballot(election.term))

    def _stand(self, now: float, step: Step) -> None:
        election = self.election
        assert election is not None and election.candidate is not None and self.local_id is not None
        self.voted[election.term] = self.local_id
        self.candidacy = Candidacy(election, election.candidate, self.session.ballot(election.term), now,
                                   self.session.share_commitments)
        step.accept = True

    def _count(self, peer: Peer, ballot: Ballot, now: float, step: Step) -> None:
        """A ballot for my candidacy: counted, or, with a forged share, refused, and its
        sender named to every player who voted for me."""
        candidacy = self.candidacy
        assert candidacy is not None
        forged = dict(candidacy.forged)
        candidacy.add(peer, ballot, now)
        for seat, name in candidacy.forged.items():
            if seat not in forged:
                self.forgers[seat] = name
                for voter in candidacy.ballots:
                    if voter is not None:
                        step.send(voter, Forged(candidacy.term, seat, name))
        if candidacy.ready(now):
            self._take_over(now, step)

    def _give_up(self, step: Step, now: float) -> None:
        """No new host can be chosen: the table stops here, naming a forger if there was one."""
        self.election = self.candidacy = None
        if self.forgers:
            names = " and ".join(sorted(set(self.forgers.values())))
            why = (f"The game cannot go on: {names}'s program sent a forged share of the host's secret, "
                   "so too few good shares are left to choose a new host.")
            self._follow(self.session.host_lost("forged", why), step, now)
            return
        self._follow(self.session.host_lost("silent"), step, now)

    # ------------------------------------------------------------ taking over
    def _take_over(self, now: float, step: Step) -> None:
        candidacy, session = self.candidacy, self.session
        assert candidacy is not None and session.welcome is not None and session.deal is not None
        verifier = session.verifier
        plan = take_over(candidacy, verifier.table_id, verifier.seed_commit or b"", session.keys)
        if plan is None:  # not yet a majority of good ballots: wait for another, or for the deadline
            candidacy.tried = True
            return
        assert self.host_for is not None
        self._become_host(resumed_host(session, plan, candidacy.term, now, self.host_for, self.signer,
                                       self.forgers))
        self.election = self.candidacy = None
        self.failovers += 1
        step.extend(self._sit_at_host(0, now))  # my own seat, back with its rejoin token
        host = self.host
        assert host is not None
        for peer, ballot in [*plan.voters.items(), *plan.watchers.items()]:
            if peer is not None:
                step.extend(self._route(host.receive(peer, ballot.to_wire(), now), now))
        step.extend(self.command(host.reshare, now))
        step.accept = True
        step.hosting = True
