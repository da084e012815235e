"""Choosing a new host when the host goes silent, and taking the table over. Sans-IO.

Owns: who may be the next host and in which order, terms, the ballot and its count,
and the takeover: everything that keeps a table alive when its host's machine goes
away, and that keeps two hosts from acting in one term.

* **Members.** The host tells every peer who the players at other machines are (their
  seat, channel peer id and address; ``Members``). They, and only they, hold shares of
  the host's secret (``netcode.shares``), so they are the ones who can take over.
* **Order and terms.** When the host goes silent, every peer takes the members in seat
  order, the old host's seat left out. The first is the candidate for the next term;
  if no new host speaks within ``ELECTION_TIMEOUT``, the next member is the candidate for
  the term after, and so on. Every peer computes the same order from the same members.
* **One ballot a term.** A player sends its ballot (who it is, the record of play as it
  has it and the host's signature over it, its share) to the one candidate it takes for
  the term, and to nobody else in that term. A spectator sends a watcher's ballot, which
  counts for nothing.
* **A majority first.** A candidate takes over only with ballots from a majority of the
  members (itself included), the same majority that rebuilds the secret; then it waits
  ``GRACE`` for the members still to come, so that the longest record reaches it. Two
  candidates of one term would need two majorities of the same members, and nobody votes
  twice in a term: so there is never more than one host in a term.
* **The takeover.** Each ballot's share is checked on arrival against the commitments of
  the old host's split (``netcode.shares``, Feldman): a forged one is refused and its
  sender named, and never counts. The secret is rebuilt from good shares and checked
  against the commitment the first host published before the deal; every
  ballot's rejoin token is checked against the seat it claims (a forged ballot is thrown
  away, and the majority counted again); the longest record of play whose signature the
  candidate can check against a host key it knows for that term is the one the new host
  replays. What no record holds (a sealed choice still hidden) is asked again.

Must not touch: sockets, clocks, asyncio, games.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from netcode.fairplay import digest, record_chain, record_signed
from netcode.session.messages import Ballot
from netcode.shares import Commitments, Share, rebuild, threshold

#: seconds a candidate has to take over before the next member's turn
ELECTION_TIMEOUT = 1.5
#: seconds a candidate with a majority waits for the other members' ballots
GRACE = 0.25
#: seconds a ballot that came before I heard my host's silence myself is kept for my own
#: election (a member may notice it a little before me; a stale ballot counts for nothing)
EARLY_BALLOT = 1.0



@dataclass(frozen=True, order=True)
class Member:
    """A player at another machine: one who can become host."""

    seat: int
    peer: int
    address: Any = None

    @classmethod
    def from_wire(cls, raw: Sequence[Any]) -> Member:
        seat, peer, address = raw
        return cls(seat, peer, tuple(address) if isinstance(address, list) else address)


class Election:
    """One peer's view of the search for a new host: the order, the term, the deadline."""

    def __init__(self, members: Sequence[Member], old_host_seat: int | None, term: int, now: float,
                 holders: int | None = None) -> None:
        """``holders``: how many players the old host split its secret among (default: the
        members); a majority of them decides, whoever of them is still at the table."""
        self.order = sorted(m for m in members if m.seat != old_host_seat)
        self.holders = len(self.order) if holders is None else holders
        self.base_term = term
        self.attempt = 0
        self.deadline = now + ELECTION_TIMEOUT

    @property
    def term(self) -> int:
        return self.base_term + 1 + self.attempt

    @property
    def candidate(self) -> Member | None:
        return self.order[self.attempt] if self.attempt < len(self.order) else None

    @property
    def quorum(self) -> int:
        return threshold(self.holders) if self.holders >= 2 else self.holders + 1

    def next(self, now: float) -> Member | None:
        """The candidate did not take over in time: the next member's turn, a term later."""
        self.attempt += 1
        self.deadline = now + ELECTION_TIMEOUT
        return self.candidate

    def candidate_of(self, term: int) -> Member | None:
        """The member every peer takes for the candidate of ``term`` (None: nobody)."""
        attempt = term - self.base_term - 1
        return self.order[attempt] if 0 <= attempt < len(self.order) else None


class Candidacy:
    """A candidate counting ballots for its term.

    A ballot whose share of the secret fails its check against the split's commitments is
    refused at once and its sender named (``forged``): it never counts toward the majority,
    so it can neither stop a takeover nor spoil the rebuild. A takeover tried and failed is
    not tried again until another ballot comes (``tried``): no timer re-fires without news.
    """

    def __init__(self, election: Election, me: Member, own: Ballot, now: float,
                 commitments: Commitments | None = None) -> None:
        self.election = election
        self.term = election.term
        self.me = me
        self.commitments = commitments
        self.ballots: dict[Hashable, Ballot] = {}
        #: seat -> name of each member whose ballot carried a forged share
        self.forged: dict[int, str] = {}
        self.majority_at: float | None = None
        self.tried = False
        self.add(None, own, now)

    def add(self, peer: Hashable, ballot: Ballot, now: float) -> bool:
        """Count a ballot (False if it is not for this term; a forged share is refused)."""
        if ballot.term != self.term:
            return False
        if not ballot.watch and ballot.share is not None and not self.share_checks(ballot.share):
            if ballot.seat is not None:
                self.forged[ballot.seat] = ballot.name
            return True
        self.ballots[peer] = ballot
        self.tried = False
        if self.majority_at is None and self.votes() >= self.election.quorum:
            self.majority_at = now
        return True

    def share_checks(self, raw: list[Any]) -> bool:
        """Whether a ballot's share is one of the old host's split (checked on its own)."""
        if self.commitments is None:
            return False
        try:
            return self.commitments.checks(Share.from_wire(raw))
        except ValueError:
            return False

    def votes(self) -> int:
        members = {m.seat for m in self.election.order}
        return len({b.seat for b in self.ballots.values() if not b.watch and b.seat in members})

    def due(self) -> float | None:
        return None if self.majority_at is None or self.tried else self.majority_at + GRACE

    def ready(self, now: float) -> bool:
        if self.majority_at is None or self.tried:
            return False
        return self.votes() == self.election.holders or now >= self.majority_at + GRACE


@dataclass
class Takeover:
    """What a candidate with a majority takes the table over with."""

    secret: bytes
    actions: list[list[Any]]
    voters: dict[Hashable, Ballot]
    watchers: dict[Hashable, Ballot]


def rejoin_token(secret: bytes, table_id: bytes, seat: int) -> bytes:
    """The token the host gave the player at ``seat`` (see ``HostSession.rejoin_token``)."""
    return digest("rejoin", secret, table_id, seat)[:16]


def checked_record(ballot: Ballot, table_id: bytes, keys: Mapping[int, bytes]) -> list[list[Any]] | None:
    """The ballot's record of play, if the signature that covers it is one the candidate can
    check (a host key it knows for that term) and it holds."""
    signed, key = ballot.signed, keys.get(ballot.signed_term)
    if signed is None or key is None:
        return [] if not ballot.actions else None
    count, chain, signature = signed
    if count != len(ballot.actions) or record_chain(ballot.actions) != chain:
        return None
    if not record_signed(key, signature, table_id, ballot.signed_term, count, chain):
        return None
    return [list(a) for a in ballot.actions]


def take_over(candidacy: Candidacy, table_id: bytes, commitment: bytes, keys: Mapping[int, bytes]) -> Takeover | None:
    """Rebuild the secret and choose the record; None if the ballots do not make a majority
    (too few good shares, or forged ballots thrown away). The shares were checked as they
    came (``Candidacy.add``)."""
    ballots, commitments = candidacy.ballots, candidacy.commitments
    shares = [Share.from_wire(b.share) for b in ballots.values() if b.share is not None and not b.watch]
    secret = rebuild(shares, commitments, table_id, commitment) if commitments is not None else None
    if secret is None:
        return None
    members = {m.seat for m in candidacy.election.order}
    voters = {peer: b for peer, b in ballots.items() if not b.watch and b.seat in members
              and b.token == rejoin_token(secret, table_id, b.seat)}
    if len({b.seat for b in voters.values()}) < candidacy.election.quorum:
        return None
    records = [r for b in voters.values() if (r := checked_record(b, table_id, keys)) is not None]
    actions = max(records, key=len, default=[])
    watchers = {peer: b for peer, b in ballots.items() if b.watch}
    return Takeover(secret, actions, voters, watchers)
