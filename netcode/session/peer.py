"""One machine at a table, in whichever role it plays: the one thing every runner drives. Sans-IO.

Owns: ``TablePeer``, a machine at a table, and its roles:

* **host**: it runs a ``HostSession`` (the first host, or one elected when the host went
  away), with the seats played at this machine (its own player; every seat of a game
  against bots; people sharing a keyboard) linked to it in memory. A message on that
  link travels in its wire form and is decoded as strictly as from the network, so a
  seat here sees exactly what a remote one would. A **local game** is a host with no
  channel under it;
* **seat**: it follows a host at another machine with its one seat's session (a
  **watcher** is a seat with no seat, only the public view);
* **electing**: its host went silent, and it takes part in choosing the next one
  (``netcode.session.election``; the peer's part of it is ``netcode.session.electing``):
  it sends its ballot to the candidate of the term, or, when it is the candidate, counts
  the ballots and takes the table over, becoming its host (a host whose ``term`` is
  above 1 was elected).

Whatever its role, it is driven alike: channel events (``on_channel``), a seat's
messages (``post``), the host's commands (``command``), ``tick(now)`` at
``next_deadline()``; and each returns a ``Step`` (``netcode.session.step``). So the
first host and an elected host are the same code, and one runner drives every role.

Must not touch: sockets, clocks, asyncio, games (the game comes in through
``host_for``, which makes a new host's settings and rules).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from typing import Any

from netcode.channel import Delivered, HandshakeCompleted, PeerGone, RttUpdated
from netcode.fairplay import Signer
from netcode.session.electing import Electing
from netcode.session.election import Candidacy, Election, Member
from netcode.session.host import HostSession, SteppedDown
from netcode.session.messages import (
    BadMessage,
    Ballot,
    Forged,
    Halt,
    Message,
    Missing,
    Relay,
    Welcome,
    decode,
)
from netcode.session.seat import HandedOver, SeatSession
from netcode.session.step import HOST, Step, Work
from netcode.session.takeover import HostFactory

Peer = Hashable
#: reasons a connection to the host ends that call for a new host (the others: it closed the table)
SILENT = frozenset({"silent", "unreachable"})


class LocalPeer(str):
    """How a host names a seat played at its own machine (never a channel's peer id)."""


class TablePeer(Electing):
    """My machine at a table: the seats played here, and whichever role it plays."""

    def __init__(self, *, local_id: int | None = None, host_for: HostFactory | None = None,
                 signer: Signer | None = None, heard: Callable[[Peer], float | None] | None = None) -> None:
        """Made by ``as_host`` or ``as_seat``. ``local_id``: this machine's peer id on the channel
        (None: no channel, a local game); ``host_for`` makes what this machine needs to host the
        table should its host go away (None: it never will, and a game whose host goes away
        ends); ``heard(peer)``: when the channel last heard a peer (the lease of this machine,
        should it host)."""
        self.local_id = local_id
        self.host_for = host_for
        self.signer = signer
        self.heard = heard
        #: the seats played at this machine; 0 is the person at this terminal
        self.seats: list[SeatSession] = []
        #: the host session, while this machine hosts
        self.host: HostSession | None = None
        #: while following: the host's peer id and address
        self.host_peer: int | None = None
        self.host_address: Any = None
        self.election: Election | None = None
        self.candidacy: Candidacy | None = None
        self.voted: dict[int, int] = {}  # term -> the peer my ballot went to
        #: ballots that came before I heard my host's silence myself: peer -> (ballot, when)
        self.early: dict[Peer, tuple[Ballot, float]] = {}
        #: seat -> name of each player whose ballot carried a forged share (told by a candidate)
        self.forgers: dict[int, str] = {}
        #: host changes this machine saw (a new host taking over)
        self.failovers = 0
        #: this machine's player handed the table over and leaves: it takes no part in electing
        self.leaving = False
        #: it takes other players' machines' word straight (at a no-peek table: ``Halt``,
        #: ``Missing``), and the messages it sent one straight: ``(peer, n)``
        self._accepting = False
        self._answered: set[tuple[Peer, int]] = set()
        self._offload = False

    @classmethod
    def as_host(cls, host: HostSession, *, local_id: int | None = None, host_for: HostFactory | None = None,
                heard: Callable[[Peer], float | None] | None = None) -> TablePeer:
        """This machine hosts ``host`` from the start (its seats sit down with ``sit``)."""
        peer = cls(local_id=local_id, host_for=host_for, signer=host.signer, heard=heard)
        peer._become_host(host)
        return peer

    @classmethod
    def as_seat(cls, session: SeatSession, host_peer: int, host_address: Any, local_id: int, *,
                host_for: HostFactory | None = None, signer: Signer | None = None,
                heard: Callable[[Peer], float | None] | None = None) -> TablePeer:
        """This machine follows the host at ``host_peer`` (``host_address``) with ``session``
        (``begin`` connects and says hello)."""
        peer = cls(local_id=local_id, host_for=host_for, signer=signer, heard=heard)
        peer.seats = [session]
        peer.host_peer, peer.host_address = host_peer, host_address
        return peer

    # ------------------------------------------------------------ facts
    @property
    def offload(self) -> bool:
        """Whether this machine's sessions hand their slow work out in their steps
        (``Step.work``) for the runner to do off its loop, rather than do it as they go."""
        return self._offload

    @offload.setter
    def offload(self, value: bool) -> None:
        self._offload = value
        for session in self.seats:
            session.offload = value
        if self.host is not None:
            self.host.offload = value

    @property
    def session(self) -> SeatSession:
        """My own seat's session (the person at this terminal)."""
        return self.seats[0]

    @property
    def hosting(self) -> bool:
        return self.host is not None

    @property
    def electing(self) -> bool:
        return self.election is not None

    @property
    def role(self) -> str:
        """What this machine is now: "local game", "host", "elected host", "electing",
        "watcher" or "seat"."""
        if self.host is not None:
            if self.local_id is None:
                return "local game"
            return "host" if self.host.term == 1 else "elected host"
        if self.election is not None:
            return "electing"
        return "watcher" if self.seats and self.seats[0].watch else "seat"

    def next_deadline(self) -> float | None:
        if self.host is not None:
            stalls = [t for s in self.seats for t in (s.stall_deadline(), s.room_deadline()) if t is not None]
            due = self.host.next_deadline()
            return min([due, *stalls]) if due is not None else min(stalls, default=None)
        # (asked every time a datagram comes: written out, in the order the seats' deadlines
        # were always asked, without a generator per kind)
        seats = self.seats
        best = self.election.deadline if self.election else None
        due = self.candidacy.due() if self.candidacy else None
        if due is not None and (best is None or due < best):
            best = due
        for seat in seats:
            due = seat.stall_deadline()
            if due is not None and (best is None or due < best):
                best = due
        for seat in seats:
            due = seat.room_deadline()
            if due is not None and (best is None or due < best):
                best = due
        for seat in seats:
            due = seat.bots_deadline()
            if due is not None and (best is None or due < best):
                best = due
        return best

    # ------------------------------------------------------------ inputs
    def begin(self, now: float) -> Step:
        """A seat's first words: connect to the host and say hello (a host has none)."""
        step = Step()
        if self.host is None and self.host_peer is not None:
            step.connects.append((self.host_peer, self.host_address))
            step.send(self.host_peer, self.session.hello())
        return step

    def sit(self, session: SeatSession, now: float) -> Step:
        """Seat ``session`` at the table this machine hosts; its index here is its place in
        ``seats`` (the first one seated is the person at this terminal)."""
        assert self.host is not None, "only a host seats players at its own machine"
        session.index, session.offload = len(self.seats), self._offload
        self.seats.append(session)
        return self._sit_at_host(session.index, now)

    def post(self, message: Message, now: float, seat: int = 0) -> Step:
        """A message of the seat played here at ``seat`` to whoever hosts (this machine, when it
        does)."""
        if self.host is not None:
            return self._route(self.host.receive(self._local(seat), message.to_wire(), now, local=True), now)
        step = Step()
        if seat == 0 and self.host_peer is not None and self.election is None:
            step.send(self.host_peer, message)
        return step

    def on_channel(self, event: Any, now: float, arrived: float | None = None) -> Step:
        """A channel event (a message whose datagram arrived at ``arrived``, if the caller knows)."""
        host = self.host
        if host is not None:
            if isinstance(event, Delivered):
                return self._route(host.receive(event.peer, event.payload, now, arrived=arrived), now)
            if isinstance(event, PeerGone):
                return self._route(host.peer_lost(event.peer, now), now)
            if isinstance(event, RttUpdated):
                return self._route(host.peer_rtt(event.peer, event, now), now)
            if isinstance(event, HandshakeCompleted):
                return self._route(host.peer_address(event.peer, event.address, now), now)
            return Step()
        step = Step()
        if isinstance(event, Delivered):
            if event.peer == self.host_peer and self.election is None:
                self._follow(self.session.receive(event.payload, now, arrived), step, now)
            else:
                self._stranger(event.peer, event.payload, now, step)
        elif isinstance(event, PeerGone) and event.peer == self.host_peer:
            if event.reason in SILENT and self._can_elect():
                self._elect(now, step)
            else:
                self._follow(self.session.host_lost(event.reason), step, now)
        return step

    def command(self, run: Callable[[float], Step], now: float) -> Step:
        """One of the host's commands (``peer.command(peer.host.start, now)``), if this machine
        hosts."""
        return self._route(run(now), now) if self.host is not None else Step()

    def hand_over(self, now: float) -> Step:
        """My player leaves the table this machine hosts: the others elect the next host now."""
        if self.host is None:
            return Step()
        self.leaving = True
        return self._route(self.host.hand_over(now), now)

    def tick(self, now: float) -> Step:
        if self.host is not None:
            step = self._route(self.host.tick(now), now)
            for session in self.seats:  # (my own players' programs at a no-peek deal)
                stalled, released = session.stalled(now), session.release_room(now)
                step.seats += stalled.seats + released.seats
                step.work += stalled.work + released.work
                for _, message in released.sends:
                    step.extend(self.post(message, now, session.index))
            return step
        step = Step()
        for session in self.seats:
            self._follow(session.stalled(now), step, now)
            self._follow(session.release_room(now), step, now)
            self._follow(session.play_bots(now), step, now)  # (a watcher's program handed seats)
        if self.candidacy is not None and self.candidacy.ready(now):
            self._take_over(now, step)
        elif self.election is not None and now >= self.election.deadline:
            self.candidacy = None
            if self.election.next(now) is None:
                self._give_up(step, now)
            else:
                self._vote(now, step)
        return step

    def worked(self, work: Work, result: Any, now: float) -> Step:
        """The result of slow work a step handed out (``Step.work``): to the session whose
        program asked for it, which goes on from there."""
        step = Step()
        host = self.host
        if host is not None and (done := host.worked(work, result, now)) is not None:
            return self._route(done, now)
        for session in self.seats:
            answer = session.worked(work, result, now)
            if answer is None:
                continue
            if host is None:
                self._follow(answer, step, now)
                return step
            step.seats, step.work = answer.seats, answer.work
            for _, message in answer.sends:
                step.extend(self.post(message, now, session.index))
            return step
        return step

    def sent(self, peer: Peer, message: Message, now: float) -> None:
        """A message for a remote peer actually left at ``now`` (``HostSession.sent``)."""
        if self.host is not None:
            self.host.sent(peer, message, now)

    def forget_sent(self, peer: Peer) -> None:
        """The last messages to ``peer`` could not be sent: the host sends it all afresh."""
        if self.host is not None:
            self.host.forget_sent(peer)

    # ------------------------------------------------------------ hosting
    def _become_host(self, host: HostSession) -> None:
        self.host = host
        host.offload = self._offload
        if host.heard is None:
            host.heard = self.heard
        self.host_peer = None

    @staticmethod
    def _local(index: int) -> LocalPeer:
        return LocalPeer(f"local-{index}")

    def _sit_at_host(self, index: int, now: float) -> Step:
        session, host = self.seats[index], self.host
        assert host is not None, "a seat sits at the host only on the hosting machine"
        session.clock.same = True  # the host's own clock
        return self._route(host.receive(self._local(index), session.hello().to_wire(), now, local=True), now)

    def _route(self, first: Step, now: float) -> Step:
        """A host's step, with what it sends to the seats here delivered in memory (and their
        answers to the host, until nothing is left): what remains is for remote peers."""
        host = self.host
        assert host is not None
        step = Step()
        queue = deque([first])
        while queue:
            out = queue.popleft()
            step.table += out.table
            step.work += out.work
            for peer, message in out.sends:
                if not isinstance(peer, LocalPeer):
                    step.sends.append((peer, message))
                    continue
                index = int(peer.removeprefix("local-"))
                answer = self.seats[index].receive(message.to_wire(), now)
                step.seats += answer.seats
                step.work += answer.work
                for _, reply in answer.sends:
                    queue.append(host.receive(peer, reply.to_wire(), now, local=True))
        if any(isinstance(event, SteppedDown) for event in step.table):
            self._stepped_down(step, now)
        return step

    def _stepped_down(self, step: Step, now: float) -> None:
        """This machine no longer hosts: its seat follows whoever the others elect (unless its
        player is leaving); the other seats played here leave with it."""
        self.host = None
        step.hosting = False
        del self.seats[1:]
        if self.leaving:
            return
        mine = [event for index, event in step.seats if index == 0]
        step.seats = [(index, event) for index, event in step.seats if index != 0]
        for event in mine:
            if isinstance(event, HandedOver) and self._can_elect():
                self.session.gone = None  # not gone: we elect the next host at once
                self._elect(now, step, event.why)
            else:
                step.seats.append((0, event))

    # ------------------------------------------------------------ following
    def _follow(self, seat_step: Step, step: Step, now: float) -> None:
        """My seat's step while I follow a host elsewhere: its messages go to that host; a
        hand-over starts an election at once, if one can be held."""
        step.work += seat_step.work
        for _, message in seat_step.sends:
            if self.host_peer is not None:
                step.send(self.host_peer, message)
        for index, event in seat_step.seats:
            if isinstance(event, HandedOver) and self._can_elect():
                self.session.gone = None  # not gone: we elect the next host at once
                self._elect(now, step, event.why)
            else:
                step.seats.append((index, event))
        session = self.session
        if session.no_peek and not self._accepting:  # (another player's machine may tell me the game stopped)
            self._accepting = step.accept = True
        if session.tell is not None:
            self._tell_members(session.tell, step)
            session.tell = None
        for seat, n in session.asking:  # (straight from its machine: the host may hold it back)
            member = next((m for m in self.members() if m.seat == seat and m.address is not None), None)
            if member is not None and member.peer != self.local_id:
                step.connects.append((member.peer, member.address))
                step.send(member.peer, Missing(session.term, n))
        session.asking = []

    def _tell_members(self, halt: Halt, step: Step) -> None:
        """My program stopped the game: every other player's machine hears why from me, straight
        (the host may have sent a forgery to me alone, or hold back what I would say)."""
        host_seat = self.session.host_seat
        if self.host_peer is not None:  # (and the host: its log tells those at its own machine)
            step.send(self.host_peer, halt)
        for member in self.members():
            if member.peer != self.local_id and member.seat != host_seat and member.address is not None:
                step.connects.append((member.peer, member.address))
                step.send(member.peer, halt)

    def members(self) -> list[Member]:
        return [Member.from_wire(raw) for raw in self.session.members]

    def _stranger(self, peer: Peer, raw: Any, now: float, step: Step) -> None:
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
            if self.candidacy is None and message.term > election.term:
                candidate = election.candidate_of(message.term)
                if candidate is not None and candidate.peer == self.local_id:
                    election.attempt = message.term - election.base_term - 1  # it is my turn already
                    self._stand(now, step)
            if self.candidacy is not None:
                self._count(peer, message, now, step)
            return
        if isinstance(message, (Missing, Relay, Halt)):  # (another player's machine, straight: no-peek)
            member = next((m for m in self.members() if m.peer == peer), None)
            if member is None:
                self.session.drops["straight_from_a_stranger"] += 1
            elif isinstance(message, Missing):
                answer = self.session.answer_missing(message, now)
                if answer is not None and (peer, message.n) not in self._answered:  # (each once: no echo chamber)
                    self._answered.add((peer, message.n))
                    step.send(peer, answer)
            elif isinstance(message, Relay):
                self._follow(self.session.straight(message, member.seat, now), step, now)
            else:
                by = next((row.name for row in self.session.roster if row.seat == member.seat and row.name), None)
                self._follow(self.session.halt(message, by or f"seat {member.seat + 1}"), step, now)
            return
        if isinstance(message, Forged) and self.voted.get(message.term) == peer:
            self.forgers[message.seat] = message.name
            return
        if election is not None and isinstance(message, Welcome) and self.voted.get(message.term) == peer:
            self.election = None  # the one I voted for took over: it is my host now
            self.host_peer = peer
            self.failovers += 1
            self._follow(self.session.receive(raw, now), step, now)
            return
        self.session.drops["not_my_host"] += 1


__all__ = ["HOST", "HostFactory", "LocalPeer", "TablePeer"]
