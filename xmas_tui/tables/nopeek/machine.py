"""One program at a no-peek table, driven only by what its host orders and relays. Sans-IO.

Owns ``Machine``: a player's program (and the bots it runs) at a no-peek table. Its host
orders the moves (``order``; a simultaneous choice first as a digest, ``sealed``) and
relays every program's messages to every other (``take``, stamped with the author's
seat); the machine answers with its own messages, for the host to relay. Every machine
sees the same orders and messages in the same order, so every replica goes the same
way; nothing else moves it.

What it does, each time something comes in:

* the joint key: its dealing (``begin``), then everyone's checked and its share opened;
* the shuffles: a deck or a reshuffle its replica made is shuffled by every key holder
  in turn; on its turn it shuffles and proves, and it checks every other proof (with
  ``offload``, the caller does each proof, made or checked, off its loop: ``work``, then
  ``worked``; meanwhile what comes in waits its turn);
* a move's needs: its beacon share for a number drawn, its decryption share for a face
  the rules show everyone, its own answer for an ask about a seat it plays, and, where
  its own answer reads a card the move has just shown that seat, a ``want`` for it;
* the openings a move leaves (``Replica.openings``): a decryption share for a face shown
  to everyone, a recipient share for one shown to another seat; and, for a seat it plays,
  the face put together from the others' shares;
* simultaneous choices: a digest of each seat's choice goes round first; once every
  seat to act has one, each reveals its choice (``reveal``), checked against its digest;
* the end: every card still closed opens, and the replica plays the game again holding
  every seat's answers to them (``audited``).

A share is made only for a card its own replica opens to that seat or to everyone now,
and a number only for the draw its replica stopped on: a host that asks for more gets
nothing (``refused`` counts it). A wrong message (a proof that fails, a digest that does
not match, one that does not parse, an answer for a seat its author does not play) stops
the machine with one line naming its author (``stopped``, ``culprit``).

Its jobs apart from the loop live beside it, each a mixin of ``Machine``: the shares it
gives and takes (``openings.py``), the simultaneous choices (``choices.py``) and a seat
handed on (``handing.py``); the messages' wire form and ``Stopped`` are ``wire.py``'s.

Wire form of a message (msgpack list): ``["dealing", wire]``, ``["shuffle", key, deck,
proof]``, ``["public", handle, share]``, ``["private", handle, seat, share]``, ``["beacon",
round, share]``, ``["claim", move, ask, seat, question, value]``, ``["want", handle, seat]``, ``["reveal",
seat, action, salt]``.

Must not touch: sockets, clocks, asyncio, the UI.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import msgpack

from netcode.dealing import keys
from netcode.dealing.beacon import BeaconShare
from netcode.dealing.elgamal import Ciphertext, deck_from_wire, deck_to_wire
from netcode.dealing.group import Point, Rand
from netcode.dealing.ledger import DealLedger, Holder
from netcode.dealing.opening import DecryptionShare, RecipientShare
from netcode.dealing.proofs import Blame
from netcode.dealing.shuffle import ShuffleProof
from netcode.session.step import Work
from xmas_tui.bots import Bot
from xmas_tui.games import Action, ActionError, Event, Game
from xmas_tui.games.cards import EVERYONE, ClaimBroken

from .choices import Choices
from .handing import Handing
from .openings import Openings
from .replica import NeedClaim, NeedFace, NeedRandom, Opening, Replica
from .wire import MAX_MESSAGE, Stopped, blame_line, commit_digest, pack

__all__ = ["MAX_MESSAGE", "Machine", "Stopped", "blame_line", "commit_digest", "pack"]


class Machine(Openings, Choices, Handing):
    """One program at a no-peek table (see the module's docstring)."""

    def __init__(
        self,
        game: Game,
        options: Mapping[str, Any],
        players: Sequence[str],
        seat: int,
        *,
        table: str,
        holders: Sequence[int],
        runs: Mapping[int, int] | None = None,
        bots: Mapping[int, Bot] | None = None,
        rand: Rand | None = None,
        personal: keys.PersonalKey | None = None,
        hold_rooms: bool = False,
    ) -> None:
        """``seat``: the seat this program plays, or one past the last seat for the host's own
        program (which plays no seat of its own, only bots); ``holders``: the seats of the
        programs that hold the joint key, in holder order; ``runs``: seat -> the program (its
        seat) that plays it (bots included; a seat of its own by default); ``bots``: the bots
        this program runs, by seat (its own seat's bot plays it in a simulation);
        ``personal``: its personal key (made here if not given); ``hold_rooms``: in a real-time
        game, hold its shares of each room until told the room's instant has come
        (``release_room``: a networked table; a table in one process opens rooms at once)."""
        self.game = game
        self.players = tuple(players)
        self.seat = seat
        self.table = table
        self.holders = tuple(holders)
        self.runs = dict(runs) if runs is not None else {s: s for s in range(len(players))}
        self.seats = frozenset(s for s, program in self.runs.items() if program == seat)
        self.bots = dict(bots or {})
        self.rand = rand
        self.replica = Replica(game, options, players, seat if seat < len(players) else None)  # (host, watcher: no seat)
        self.replica.book.owners = self.seats
        self.personal = personal if personal is not None else keys.PersonalKey.generate(rand)
        self.ledger: DealLedger | None = None
        #: a real-time game: a move's cards shown to everyone open together (its room), and
        #: with ``hold_rooms`` my shares of them wait for the room's instant
        self.timed = game.race_window is not None
        self.hold_rooms = hold_rooms and self.timed
        self._held: list[list[Any]] = []
        self._released: int | None = None
        #: rooms begun so far (the host numbers its rounds the same way), and the last one's move
        self.rooms = 0
        self._room_key: int | None = None
        #: the programs whose shares of the room under way came in, in order (the host times
        #: each seat's room by them)
        self.room_from: list[int] = []
        # the key: every holder's personal key, the dealings in, my own
        self._personal_keys: list[Point] = []
        self._recipients: dict[int, Point] = {}
        self._dealings: dict[int, keys.Dealing] = {}
        self._dkg_context: dict[str, str | int | bytes] = {"table": table, "purpose": "dkg", "round": 0}
        # the moves: ordered, the one being made, and whether it should be tried again
        self.queue: deque[tuple[Any, ...]] = deque()
        self.current: tuple[Any, ...] | None = None
        self._fresh = False
        # what this machine has already given (a share, an answer, a shuffle), by what for
        self._given: set[tuple[Any, ...]] = set()
        # openings under way, in order; and a private one's shares for a seat it plays
        self.pending: list[Opening] = []
        self._private: dict[int, list[RecipientShare]] = {}
        # simultaneous choices: digests by seat, my own (action, salt), reveals by seat
        self._digests: dict[int, bytes] = {}
        self._mine: dict[int, tuple[Any, bytes]] = {}
        self._revealed: dict[int, Any] = {}
        self._early: dict[int, tuple[int, Any, bytes]] = {}
        #: a real-time round: what the host heard of a seat's presses as they were made, and
        #: the least time it can believe of the rest (``sealed``; merged as the choice opens)
        self._merges: dict[int, tuple[Any, int | None]] = {}
        # answers come in (by move and ask) before this replica reaches the ask
        self._claims: dict[tuple[int, int], tuple[int, str, Any]] = {}
        self._ending = False
        #: programs gone from the table (their seats handed on), and each handed seat's former
        #: recipient keys (a share made for one before the hand-over is passed over, not blamed)
        self.gone: set[int] = set()
        self._former: dict[int, list[Point]] = {}
        #: seats handed on, in order: (seat, the program that plays it now); messages not taken
        self.handed: list[tuple[int, int]] = []
        self.ignored = 0
        #: what it sends the host to relay, until the caller takes it (``drain``)
        self.outbox: list[bytes] = []
        #: every message it was handed, as it came
        self.received: list[bytes] = []
        #: the events of every move made, in order; moves the rules refused
        self.events: list[Event] = []
        self.refused_moves: list[tuple[int, Any, str]] = []
        #: shares asked of it that its rules do not open
        self.refused: list[str] = []
        self.stopped: str | None = None
        self.culprit: int | None = None
        self.audited = False
        #: taking the deal so far as it was, my own messages among them (a program started
        #: again with its keys kept): it says nothing until ``caught_up``, and takes its own
        #: messages as given
        self.replaying = False
        #: moves made, in order: (seat, action) — what the audit replays
        self.moves: list[tuple[int, Action]] = []
        #: hand each shuffle's proof, made or checked, to the caller to do (``work``, then
        #: ``worked``: off the event loop) rather than do it here and now; until it comes
        #: back, whatever comes in waits its turn (``_later``)
        self.offload = False
        self._work: tuple[Work, Callable[[Any], None], int | None] | None = None
        self._work_out: list[Work] = []
        self._later: deque[tuple[Callable[[], None], int | None]] = deque()
        #: what came in while a proof was under way elsewhere, and so waited its turn
        self.held_back = 0

    # ------------------------------------------------------------------ helpers
    @property
    def name(self) -> str:
        """This program's name in its lines (its player's; the host; a watcher)."""
        return self._name(self.seat)

    @property
    def holder(self) -> int | None:
        return self.holders.index(self.seat) + 1 if self.seat in self.holders else None

    def _holder_of(self, author: int) -> int:
        if author not in self.holders:
            raise Stopped(f"{self._name(author)} sent a share but holds no part of the key", author)
        return self.holders.index(author) + 1

    def _name(self, seat: int | None) -> str:
        if seat is not None and 0 <= seat < len(self.players):
            return self.players[seat]
        if seat == len(self.players):
            return "the host"
        return "a watcher" if seat is not None and seat > len(self.players) else "someone"

    def _send(self, *parts: Any) -> None:
        self.outbox.append(pack(*parts))

    def drain(self) -> list[bytes]:
        out, self.outbox = self.outbox, []
        return out

    @property
    def _my_openings(self) -> list[Opening]:
        """The openings under way whose face this machine waits for (to everyone, or to a
        seat it plays)."""
        return [o for o in self.pending if o.to is None or o.to in self.seats]

    @property
    def idle(self) -> bool:
        """No move under way or waiting, nothing of mine still opening, and no proof under way
        elsewhere (what came in meanwhile, a move among it, is still to be taken)."""
        return self.current is None and not self.queue and not self._my_openings and self.ledger is not None \
            and self._work is None

    # ------------------------------------------------------------------ the key
    def begin(self, personal_keys: Mapping[int, Point], recipients: Mapping[int, Point]) -> list[bytes]:
        """The host names every holder's personal key (by seat) and each seat's recipient key:
        this machine deals its part of the joint key."""
        self._personal_keys = [personal_keys[s] for s in self.holders]
        self._recipients = dict(recipients)
        holder = self.holder
        if holder is not None and not self.replaying:  # (replaying: my dealing comes as it was)
            t = keys.threshold(len(self.holders))
            dealing = keys.deal(holder, self.personal, self._personal_keys, t, self._dkg_context, self.rand)
            self._dealings[holder] = dealing
            self._send("dealing", dealing.to_wire())
        self._key_if_complete()
        return self.drain()

    def _take_dealing(self, author: int, wire: bytes) -> None:
        holder = self._holder_of(author)
        n, t = len(self.holders), keys.threshold(len(self.holders))
        dealing = keys.Dealing.from_wire(wire, n, t)
        if dealing.dealer != holder:
            raise Blame(holder, "its dealing names another holder")
        keys.check_dealing(dealing, self._personal_keys, t, self._dkg_context)
        self._dealings.setdefault(holder, dealing)
        self._key_if_complete()

    def _key_if_complete(self) -> None:
        n = len(self.holders)
        if self.ledger is not None or len(self._dealings) < n:
            return
        t = keys.threshold(n)
        dealings = [self._dealings[h] for h in sorted(self._dealings)]
        joint = keys.joint_key(dealings, n, t)
        me = None
        holder = self.holder
        if holder is not None:
            shares = {
                d.dealer: keys.open_share(d, holder, self.personal, self._personal_keys, self._dkg_context)
                for d in dealings
            }
            me = Holder(holder, self.personal, keys.secret_share(joint, holder, shares))
        self.ledger = DealLedger(self.table, self.game.id, self._personal_keys, joint, me)
        self.current, self._fresh = ("setup",), True

    # ------------------------------------------------------------------ orders
    def order(self, seat: int, action: Any, *, silent: bool = False, heard: Any = None) -> list[bytes]:
        """The host orders ``seat``'s move (wire form); ``silent``: the rules' silent action of
        a real-time game, which the host gives a seat that said nothing in time (checked here
        to be just that), merged with what it ``heard`` the seat press as it went."""
        if silent:
            return self._guard(lambda: self._queue(("silent", seat, action, (heard, None) if heard else None)))
        return self._guard(lambda: self._queue(("move", seat, action)))

    def sealed(self, seat: int, digest: bytes, heard: Any = None, bound: int | None = None) -> list[bytes]:
        """The host orders ``seat``'s simultaneous choice, as its digest only; in a real-time
        round with what the host heard it press as it went (``heard``) and the least reaction
        time it can believe of the rest (``bound``, ms), which the choice is merged with."""
        return self._guard(lambda: self._queue(("sealed", seat, bytes(digest), heard, bound)))

    def release_room(self) -> list[bytes]:
        """The room's instant has come (the host said when): my shares of it go out together."""
        def run() -> None:
            if self.current is not None:
                self._released = self._move_key()
            if self._held:  # (the others need mine, even where theirs opened the room here)
                self._send("room", self._held)
                self._held = []

        return self._guard(run)

    @property
    def room_waiting(self) -> bool:
        """A real-time game's move waits for its room to open (the host names its instant)."""
        need = self.replica.need
        return (self.timed and self.current is not None and not self._ending and isinstance(need, NeedFace)
                and need.visible == EVERYONE)

    @property
    def holding(self) -> bool:
        """Whether my shares of a room wait for its instant (not while a proof of mine is under
        way elsewhere: their release would wait behind it; they go once it is done)."""
        return bool(self._held) and self._work is None

    def _move_key(self) -> int:
        return self.replica.moves if self.replica.state is not None else -1

    def caught_up(self) -> list[bytes]:
        """The deal so far is in (``replaying``): from here this program gives what it still
        owes (a share, an answer, a shuffle its turn had come to) and plays on."""
        def run() -> None:
            self.replaying = False
            self._fresh = True

        return self._guard(run)

    def _queue(self, entry: tuple[Any, ...]) -> None:
        self.queue.append(entry)

    # ------------------------------------------------------------------ messages
    def take(self, author: int, data: bytes) -> list[bytes]:
        """Another program's message, relayed by the host; what this machine sends back."""
        self.received.append(data)

        def run() -> None:
            if author in self.gone:  # (sent before it left, passed on after: not waited for, not taken)
                self.ignored += 1
                return
            if len(data) > MAX_MESSAGE:
                raise ValueError("it is too long")
            try:
                parts = msgpack.unpackb(data, raw=False)
            except (msgpack.UnpackException, ValueError) as bad:
                raise ValueError("it is no msgpack list") from bad
            if not isinstance(parts, list) or not parts or not isinstance(parts[0], str):
                raise ValueError("it is no message")
            self._dispatch(author, parts)

        return self._guard(run, author)

    def _guard(self, run: Callable[[], None], author: int | None = None) -> list[bytes]:
        if self.stopped is not None:
            return []
        if self._work is not None:  # (a proof under way elsewhere: this waits its turn)
            self._later.append((run, author))
            self.held_back += 1
            return []
        try:
            run()
            self._advance()
        except Stopped as stop:
            self._stop(str(stop), stop.culprit)
        except Blame as blame:
            culprit = self.holders[blame.culprit - 1] if 1 <= blame.culprit <= len(self.holders) else author
            self._stop(f"{blame_line(self._name(culprit), blame.reason)}: the game stops here", culprit)
        except ClaimBroken as broken:
            self._stop(
                f"{self._name(broken.seat)} said something false of its cards ({broken.question})"
                f"{', as the cards opened at the end show' if self._ending else ''}: the game stops here",
                broken.seat,
            )
        except (ValueError, TypeError, KeyError, IndexError) as bad:
            self._stop(f"{self._name(author)} sent a message that does not parse ({bad}): the game stops here", author)
        return self.drain()

    def _stop(self, line: str, culprit: int | None) -> None:
        self.stopped, self.culprit = line, culprit

    # ------------------------------------------------------------------ slow work
    def _work_on(self, run: Callable[[], Any], then: Callable[[Any], None], author: int | None) -> None:
        """``run`` (a shuffle's proof made or checked), then ``then`` with its result: here and
        now, or, with ``offload``, once the caller hands the result back (``worked``)."""
        if not self.offload:
            then(run())
            return
        work = Work(run, self)
        self._work = (work, then, author)
        self._work_out.append(work)

    def work(self) -> list[Work]:
        """The slow work this machine has handed out since last asked (``offload``)."""
        out, self._work_out = self._work_out, []
        return out

    def owns(self, work: Work) -> bool:
        """Whether ``work`` is the one this machine waits for."""
        return self._work is not None and self._work[0] is work

    def worked(self, work: Work, result: Any) -> list[bytes]:
        """``work``'s result (or the exception it raised): the machine goes on from there, then
        takes what came in meanwhile, in order, until it hands out work again."""
        if not self.owns(work):
            return []
        assert self._work is not None
        _, then, author = self._work
        self._work = None

        def run() -> None:
            if isinstance(result, Exception):
                raise result
            then(result)

        out = self._guard(run, author)
        while self._later and self._work is None and self.stopped is None:
            queued, who = self._later.popleft()
            out += self._guard(queued, who)
        return out

    def _dispatch(self, author: int, parts: list[Any]) -> None:
        kind = parts[0]
        if kind == "dealing":
            _, wire = parts
            self._take_dealing(author, bytes(wire))
            return
        ledger = self.ledger
        if ledger is None:
            raise ValueError(f"a {kind!r} before the key was made")
        if kind == "shuffle":
            _, key, deck, proof = parts
            cts, holder = deck_from_wire(bytes(deck)), self._holder_of(author)
            check = ledger.shuffle_check(key, holder, cts, ShuffleProof.from_wire(bytes(proof), len(cts)))
            self._work_on(check, partial(self._took_shuffle, author, key, holder, cts), author)
        elif kind == "public":
            _, handle, wire = parts
            self._take_public(handle, DecryptionShare.from_wire(bytes(wire)), author)
            self._mine_given(author, ("open", Opening(handle, None)))
        elif kind == "room":
            _, shares = parts
            if not isinstance(shares, list) or not shares:
                raise ValueError("a room with no share")
            self.room_from.append(author)
            for handle, wire in shares:
                self._take_public(handle, DecryptionShare.from_wire(bytes(wire)), author)
                self._mine_given(author, ("open", Opening(handle, None)))
        elif kind == "private":
            _, handle, seat, wire = parts
            self._take_private(handle, seat, RecipientShare.from_wire(bytes(wire)), author)
            if self._mine_given(author, ("open", Opening(handle, seat))) and Opening(handle, seat) in self.pending:
                self.pending.remove(Opening(handle, seat))  # (the recipient's to put together)
        elif kind == "beacon":
            _, round_, wire = parts
            share = BeaconShare.from_wire(bytes(wire))
            self._check_author(share.holder, author)
            self._take_beacon(round_, share)
            self._mine_given(author, ("beacon", round_))
        elif kind == "claim":
            _, move, ask, seat, question, value = parts
            if self.runs.get(seat) != author:
                raise Stopped(f"{self._name(author)} answered for a seat it does not play", author)
            self._claims[(move, ask)] = (seat, question, value)
            self._mine_given(author, ("claim", (move, ask)))
            self._fresh = True
        elif kind == "want":
            _, handle, seat = parts
            if self.runs.get(seat) != author:
                raise Stopped(f"{self._name(author)} asked for a card of a seat it does not play", author)
            self._open(Opening(handle, seat))
            self._mine_given(author, ("want", Opening(handle, seat)))
        elif kind == "reveal":
            _, seat, action, salt = parts
            self._mine_given(author, ("reveal", seat))  # (before: the last reveal of a round clears them)
            self._take_reveal(author, seat, action, bytes(salt))
        else:
            raise ValueError(f"{kind!r} is no message of a no-peek table")

    def _took_shuffle(self, author: int, key: int, holder: int, cts: list[Ciphertext], holds: bool) -> None:
        assert self.ledger is not None
        self.ledger.took_shuffle(key, holder, cts, holds)
        self._mine_given(author, ("shuffle", key))
        self._fresh = True

    def _mine_given(self, author: int, given: tuple[Any, ...]) -> bool:
        """A message of my own program's, taken as the deal so far comes in (``replaying``): what
        it gave stands as given. True if it was mine."""
        if author != self.seat:
            return False
        self._given.add(given)
        return True

    def _check_author(self, holder: int, author: int) -> None:
        if holder != self._holder_of(author):
            raise Stopped(f"{self._name(author)} sent a share in another holder's name", author)

    # ------------------------------------------------------------------ the loop
    def _advance(self) -> None:
        ledger = self.ledger
        if ledger is None:
            return
        while self.stopped is None and self._work is None:
            self._jobs()
            if self._work is not None:  # (a shuffle of mine under way: the rest once it is made)
                return
            self._give_shares()
            if self.current is None:
                if self._ending:
                    self._end_if_opened()
                    return
                if not self.queue:
                    return
                entry = self.queue.popleft()
                if entry[0] == "sealed":
                    self._sealed(entry[1], entry[2], entry[3], entry[4])
                    continue
                self.current, self._fresh = entry, True
            if not self._fresh:
                return
            self._fresh = False
            self._attempt()

    def _attempt(self) -> None:
        current = self.current
        assert current is not None
        replica = self.replica
        if current[0] == "setup":
            need = replica.set_up()
            if need is not None:
                self._meet(need)
                return
            self.events.extend(replica.log)  # what the deal did
        else:
            kind, seat, wire = current[:3]
            clamped: list[Event] = []
            try:
                action = self.game.parse_action(wire)
                if kind == "silent":
                    self._check_silent(seat, action)
                if len(current) > 3 and current[3] is not None:
                    action, clamped = self._merged(seat, action, *current[3])
                result = replica.attempt(seat, action)
            except ActionError as refused:
                self.refused_moves.append((seat, wire, str(refused)))
                self.current = None
                return
            if not isinstance(result, list):
                self._meet(result)
                return
            self.events.extend(clamped + result)
            self.moves.append((seat, action))
            if self._digests:  # (a silent move may have been the last the others' choices waited for)
                self._reveal_if_complete()
        self.current = None
        self._jobs()
        for opening in replica.openings():
            self._open(opening)
        if replica.over:
            self._ending = True
            for handle in replica.hidden():
                if self.ledger is not None and self.ledger.has(handle):
                    self._open(Opening(handle, None))

    def _meet(self, need: Any) -> None:
        """Give what this machine can towards the need that stopped the move."""
        self._jobs()
        ledger = self.ledger
        assert ledger is not None
        if isinstance(need, NeedRandom):
            if ("beacon", need.round) not in self._given and ledger.me is not None and not self.replaying:
                self._given.add(("beacon", need.round))
                share = ledger.beacon_share(need.round + 1, self.rand)
                self._send("beacon", need.round, share.to_wire())
                self._take_beacon(need.round, share)
        elif isinstance(need, NeedFace) and need.visible == EVERYONE:
            self._open(Opening(need.handle, None))
            if self.timed and self._room_key != self._move_key():  # (a new room: every program counts it)
                self._room_key = self._move_key()
                self.rooms += 1
            if self.timed:  # (the whole room opens at once)
                for opening in self.replica.shown_so_far():
                    self._open(opening)
            self._give_shares()
        elif isinstance(need, NeedFace):
            mine = [s for s in sorted(self.seats) if need.visible >> s & 1]
            if not mine:
                raise Stopped(f"{self.game.title}'s rules read a card hidden from this program", None)
            opening = Opening(need.handle, mine[0])
            if opening not in self.pending and ("want", opening) not in self._given and not self.replaying:
                self._given.add(("want", opening))
                self._send("want", need.handle, mine[0])
                self._open(opening)
        elif isinstance(need, NeedClaim) and need.seat in self.seats and need.key not in self._claims:
            if ("claim", need.key) not in self._given and not self.replaying:
                self._given.add(("claim", need.key))
                value = self.replica.claim(need.key)
                self._send("claim", need.key[0], need.key[1], need.seat, need.question, value)
                self.replica.take_claim(need.key, value)
                self._fresh = True
        elif isinstance(need, NeedClaim) and need.key in self._claims:
            seat, question, value = self._claims.pop(need.key)
            if (seat, question) != (need.seat, need.question):
                raise Stopped(f"{self._name(self.runs.get(seat))} answered for the wrong seat", self.runs.get(seat))
            self.replica.take_claim(need.key, value)
            self._fresh = True

    def _jobs(self) -> None:
        """Register the decks and reshuffles my replica has made; shuffle on my turn."""
        ledger = self.ledger
        assert ledger is not None
        book = self.replica.book
        for key, faces in book.decks.items():
            if key not in ledger.jobs:
                ledger.new_deck(key, faces)
        for key, (old, new) in book.reshuffles.items():
            if key not in ledger.jobs:
                ledger.reshuffle(key, old, new, book.public)
        holder = self.holder
        for key in sorted(ledger.jobs):
            if self._work is not None:  # (one at a time: the next once it is done)
                return
            if holder is not None and ledger.shuffler(key) == holder and ("shuffle", key) not in self._given \
                    and not self.replaying:
                self._given.add(("shuffle", key))
                self._work_on(ledger.shuffle_maker(key, self.rand), partial(self._made_shuffle, key), None)

    def _made_shuffle(self, key: int, made: tuple[list[Ciphertext], ShuffleProof]) -> None:
        assert self.ledger is not None
        cts, proof = made
        self.ledger.made_shuffle(key, cts)
        self._send("shuffle", key, deck_to_wire(cts), proof.to_wire())
        self._fresh = True

    def _end_if_opened(self) -> None:
        if self.audited or any(o.to is None for o in self.pending):
            return
        self.replica.audit(self.moves)
        self.audited = True

    @property
    def busy(self) -> bool:
        """Whether this machine waits for another program's message (a move or the deal under
        way, an opening of its own seat's card, a choice to reveal)."""
        return self.stopped is None and self.ledger is not None and not (self.idle and not self._digests)

    def waiting_for(self) -> list[str]:
        """The players whose programs this machine waits for now, by name (for the line that
        says who held the table up)."""
        ledger = self.ledger
        if ledger is None:
            missing = [s for s in self.holders if self.holders.index(s) + 1 not in self._dealings]
            return [self._name(s) for s in missing]
        for key in sorted(ledger.jobs):
            turn = ledger.shuffler(key)
            if turn is not None:
                return [self._name(self.holders[turn - 1])]
        need = self.replica.need if self.current is not None else None
        have: set[int] = set()
        if isinstance(need, NeedRandom):
            have = ledger.beacon_shares_in(need.round + 1)
        elif isinstance(need, NeedFace) and need.visible == EVERYONE:
            have = ledger.public_shares_in(need.handle)
        elif isinstance(need, NeedClaim):
            return [self._name(self.runs.get(need.seat))]
        elif self._digests:
            acting = self.game.to_act(self.replica.state)
            waiting = sorted({self.runs.get(s, s) for s in acting if s not in self._revealed})
            return [self._name(s) for s in waiting]
        else:
            mine = self._my_openings
            if not mine:
                return []
            have = ledger.public_shares_in(mine[0].handle) if mine[0].to is None else {
                s.holder for s in self._private.get(mine[0].handle, [])}
        return [self._name(seat) for i, seat in enumerate(self.holders)
                if i + 1 not in have and seat != self.seat and seat not in self.gone]

    def legal(self, seat: int) -> list[Any]:
        """``seat``'s legal moves now (wire forms): none while a move is being made or this
        machine stopped, after the end, or once its simultaneous choice is sent."""
        state = self.replica.state
        if self.stopped is not None or not self.idle or state is None or self.has_chosen(seat):
            return []
        if seat not in self.game.to_act(state) or self.game.result(state) is not None:
            return []
        return [a.to_wire() for a in self.game.legal_actions(state, seat)]

    # ------------------------------------------------------------------ bots
    def choose(self, seat: int | None = None) -> Action:
        """What the bot of ``seat`` (a seat this program plays; its own by default) plays now."""
        seat = self.seat if seat is None else seat
        state = self.replica.state
        legal = self.game.legal_actions(state, seat)
        view = self.game.view(state, seat)
        bot = self.bots[seat]
        bot.observe(view)
        return bot.choose(view, legal)
