"""A no-peek table: every program runs the rules on what everyone may know, the players
shuffle the encrypted cards together, and a face leaves its ciphertext only as the
rules open it, to everyone or to one seat.

Owns:

* ``Replica``: one program's copy of a game. It sets the game up and applies each move
  on the card model's hidden faces (``xmas_tui.games.cards``): a move that reads a face
  nobody has opened here, or draws a number, stops (``NeedFace``, ``NeedRandom``); the
  table opens the face or draws the number, and the move is tried again from where it
  was. After a move it says which faces the rules have just shown, and to whom
  (``openings``): every program computes the same list from the same public state.
* ``Program``: one player's program: its replica, its share of the joint key and its
  ledger of encrypted cards (``netcode.dealing.ledger``), its bot. It takes messages as
  bytes, checks every proof in them, and makes a share only for a card its own replica
  opens, or a number its own replica draws: a host asking for more gets nothing.
* ``NoPeekTable``: a whole table in one process, for tests and the simulator: the DKG,
  the shuffles in turn, the host ordering moves, simultaneous choices committed before
  any is revealed, every message handed over as bytes and kept per receiver (what a
  program learns is what it holds and what it was sent). A wrong proof stops the table
  naming its author, as every screen would.

Which faces a game opens, when and to whom, is the game's own (its rules set who may
see a card); ``OPENINGS`` writes it down per game for the help and the README.

Must not touch: sockets, clocks, asyncio, the UI. Randomness: the players' own key
material and shuffles (``os.urandom`` through ``netcode.dealing``), and the bots' seeded
choices.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from netcode.dealing import keys
from netcode.dealing.beacon import BeaconShare
from netcode.dealing.elgamal import deck_from_wire, deck_to_wire
from netcode.dealing.group import Point, Rand
from netcode.dealing.ledger import DealLedger, Holder
from netcode.dealing.opening import DecryptionShare, RecipientShare
from netcode.dealing.proofs import Blame
from netcode.dealing.shuffle import ShuffleProof
from xmas_tui.bots import Bot, make_bot
from xmas_tui.games import Action, Event, Game, Rng
from xmas_tui.games.cards import (
    EVERYONE,
    SEALED_PREFIX,
    ClaimBroken,
    ClaimNeeded,
    FaceBook,
    FaceHidden,
)
from xmas_tui.games.rng import RandomnessNeeded

#: per game: which faces the rules open, when, and to whom (help and README)
OPENINGS: dict[str, str] = {
    "chip-n-dale": (
        "The tree's Treasures are dealt face down to nobody. A flipped or collected Treasure "
        "opens to everyone as it turns; a peek opens that one card to the player peeking "
        "only. The tree is shuffled again by every player between rounds."
    ),
    "christmas-carol": (
        "The bag's tiles are hidden from everyone; each tile drawn opens to everyone as it "
        "comes out. The bag is shuffled again by every player when a special tile says so."
    ),
    "christmas-game": (
        "The three decks are hidden from everyone; a card drawn opens to everyone. The dice "
        "are public draws no program can choose. A deck run out is shuffled again by every "
        "player."
    ),
    "christmas-tree": (
        "A hand opens to its owner only, card by card as it is dealt or drawn; the rows open "
        "to everyone. A card paid or thrown away opens to everyone."
    ),
    "dragons-chickens": (
        "Every pile is dealt face down to nobody; each room's cards open to everyone at the "
        "moment the room opens. The cards under the Dragon card stay closed."
    ),
}


# ------------------------------------------------------------------ the replica
@dataclass(frozen=True)
class NeedFace:
    """The rules read card ``handle``'s face, which is not open here; ``visible``: who
    may see it at that moment (``EVERYONE``: the rules show it to all)."""

    handle: int
    visible: int


@dataclass(frozen=True)
class NeedRandom:
    """The move draws a number: public draw ``round`` is needed first."""

    round: int


@dataclass(frozen=True)
class NeedClaim:
    """The rules need seat ``seat``'s answer to ``question`` (ask ``key`` of this move)."""

    seat: int
    question: str
    key: tuple[int, int]


Need = NeedFace | NeedRandom | NeedClaim


@dataclass(frozen=True)
class Opening:
    """The rules have just shown ``handle`` to ``to`` (a seat; None: everyone)."""

    handle: int
    to: int | None


class RulesReadHidden(Exception):
    """A game's rules read a face that they show to nobody, or to some seats only: a game
    that cannot run at a no-peek table as it is (a bug of that game, never a player's)."""


class Replica:
    """One program's copy of the game at a no-peek table (see the module's docstring)."""

    def __init__(
        self, game: Game, options: Mapping[str, Any], players: Sequence[str], seat: int | None
    ) -> None:
        self.game = game
        self.options = dict(options)
        self.players = tuple(players)
        self.seat = seat
        self.book = FaceBook()
        self.book.owner = seat
        self.state: Any = None
        #: moves applied so far (a move's public draw is its index; setup's is -1)
        self.moves = 0
        #: public draws made so far: round -> value
        self.draws: dict[int, bytes] = {}
        #: what the last try stopped for
        self.need: Need | None = None
        #: (handle, seat) pairs already opened to a seat, so none is asked twice
        self._shown: set[tuple[int, int | None]] = set()
        #: the state as far as a stopped move got (what an opening mid-move is checked on)
        self.trial: Any = None
        self.log: list[Event] = []

    def _rng(self, round_: int) -> Rng:
        return Rng(self.draws.get(round_), self.book)

    def _try(self, run: Callable[[], Any]) -> Any:
        book = self.book
        book.strict = True
        book.move = -1 if self.state is None else self.moves
        book.asked = 0
        try:
            return run()
        except RandomnessNeeded:
            self.need = NeedRandom(book.move)
        except FaceHidden as hidden:
            self.need = NeedFace(hidden.handle, hidden.visible)
        except ClaimNeeded as claim:
            self.need = NeedClaim(claim.seat, claim.question, claim.key)
        finally:
            book.strict = False
        return None

    def set_up(self) -> Need | None:
        """Set the game up; the need that stopped it, or None once it is set up."""
        self.need = None
        rng = self._rng(-1)
        state = self._try(lambda: self.game.setup(self.options, self.players, rng))
        if state is None:
            return self.need
        self.state = state
        self.log.extend(self.game.opening_events(state))
        return None

    def attempt(self, seat: int, action: Action) -> list[Event] | Need:
        """Apply a move the host ordered; the need that stopped it (nothing changed), or its
        events. ``ActionError`` as any table: the move breaks a rule."""
        self.need = None
        state = copy.deepcopy(self.state)
        rng = self._rng(self.moves)
        events = self._try(lambda: self.game.apply(state, seat, action, rng))
        if events is None:
            assert self.need is not None
            self.trial = state
            return self.need
        self.trial = None
        self.state = state
        self.moves += 1
        self.log.extend(events)
        return list(events)

    def openings(self) -> list[Opening]:
        """The faces the rules show now that are not open yet, and to whom: the same on
        every program (it reads only the public state)."""
        cards = self.state.cards
        out = []
        for handle, mask in sorted(cards._seen.items()):
            if cards._faces[handle] is not None or handle in self.book.public or mask == 0:
                continue
            if mask == EVERYONE:
                out.append(Opening(handle, None))
                continue
            for seat in range(len(self.players)):
                if mask >> seat & 1 and (handle, seat) not in self._shown:
                    out.append(Opening(handle, seat))
        return out

    def opened(self, opening: Opening, face: str | None) -> None:
        """An opening done: a public face is known to all, a private one to its seat only
        (``face`` None on the others, which only note it was done)."""
        if opening.to is None:
            assert face is not None
            self.book.public[opening.handle] = face
        else:
            self._shown.add((opening.handle, opening.to))
            if face is not None:
                self.book.private[opening.handle] = face

    def may_open(self, handle: int, to: int | None) -> bool:
        """Whether the rules, as this program runs them, open ``handle`` to ``to`` now: the
        last move stopped on reading it shown to everyone, or the state shows it so."""
        if to is None and self.need == NeedFace(handle, EVERYONE):
            return True
        state = self.trial if self.trial is not None else self.state
        if state is None:
            return False
        mask = state.cards._seen.get(handle)
        if mask is None:
            return False
        if to is None:
            return bool(mask == EVERYONE)
        return bool(mask != EVERYONE and mask >> to & 1)

    def may_draw(self, round_: int) -> bool:
        return self.need == NeedRandom(round_)

    def claim(self, key: tuple[int, int]) -> Any:
        """This program's own answer to the ask that stopped the move."""
        return self.book.mine.pop(key)

    def take_claim(self, key: tuple[int, int], value: Any) -> None:
        self.book.claims[key] = value

    def hidden(self) -> list[int]:
        """Cards on the table whose face is open to no program as the public state goes."""
        cards = self.state.cards
        return [
            h for h in sorted(cards._seen)
            if cards._faces[h] is None and h not in self.book.public
            and not cards.where(h).startswith(SEALED_PREFIX)
        ]  # fmt: skip

    def audit(self, moves: Sequence[tuple[int, Action]]) -> None:
        """Play the game again from the start with every face opened so far, holding every
        seat's claims to what its cards, now open, say. ``ClaimBroken`` names a false one;
        ``FaceHidden`` if a claim spoke of a card still closed."""
        again = Replica(self.game, self.options, self.players, None)
        book = again.book
        book.public = dict(self.book.public)
        book.claims = dict(self.book.claims)
        book.audit = True
        again.draws = dict(self.draws)
        again._audit_run(moves)

    def _audit_run(self, moves: Sequence[tuple[int, Action]]) -> None:
        book = self.book
        book.move, book.asked = -1, 0
        self.state = self.game.setup(self.options, self.players, self._rng(-1))
        for seat, action in moves:
            book.move, book.asked = self.moves, 0
            self.game.apply(self.state, seat, action, self._rng(self.moves))
            self.moves += 1

    def view(self) -> Any:
        return self.game.view(self.state, self.seat)

    def legal(self) -> list[Action]:
        assert self.seat is not None
        return self.game.legal_actions(self.state, self.seat)


# ------------------------------------------------------------------ a program
def _pack(*parts: Any) -> bytes:
    return msgpack.packb(list(parts), use_bin_type=True)


class Program:
    """One player's program at a no-peek table (see the module's docstring)."""

    def __init__(self, seat: int, name: str, replica: Replica, bot: Bot, rand: Rand | None = None) -> None:
        self.seat = seat
        self.name = name
        self.replica = replica
        self.bot = bot
        #: where its secrets come from (None: the system's; a test scripts them)
        self.rand = rand
        self.personal = keys.PersonalKey.generate(rand)
        self.ledger: DealLedger | None = None
        #: every message this program was handed, as it came
        self.received: list[bytes] = []
        #: a private opening's shares, by handle, until t are in
        self._private: dict[int, list[RecipientShare]] = {}
        #: refusals: a share asked for that this program's rules do not open
        self.refused: list[str] = []

    @property
    def holder(self) -> int:
        return self.seat + 1

    # -- what it makes
    def shuffle(self, key: int) -> bytes:
        assert self.ledger is not None
        cts, proof = self.ledger.make_shuffle(key, self.rand)
        return _pack("shuffle", key, self.holder, deck_to_wire(cts), proof.to_wire())

    def public_share(self, handle: int) -> bytes | None:
        assert self.ledger is not None
        if not self.replica.may_open(handle, None):
            self.refused.append(f"card {handle} to everyone")
            return None
        return _pack("public", handle, self.ledger.public_share(handle, self.rand).to_wire())

    def private_share(self, handle: int, seat: int, recipient: Point) -> bytes | None:
        assert self.ledger is not None
        if not self.replica.may_open(handle, seat):
            self.refused.append(f"card {handle} to seat {seat + 1}")
            return None
        share = self.ledger.recipient_share(handle, recipient, self.rand)
        return _pack("private", handle, seat, share.to_wire())

    def claim(self, key: tuple[int, int]) -> bytes:
        return _pack("claim", list(key), self.seat, self.replica.claim(key))

    def beacon_share(self, round_: int) -> bytes | None:
        assert self.ledger is not None
        if not self.replica.may_draw(round_):
            self.refused.append(f"public draw {round_}")
            return None
        return _pack("beacon", round_, self.ledger.beacon_share(round_ + 1, self.rand).to_wire())

    # -- what it takes
    def receive(self, data: bytes, recipients: Sequence[Point]) -> Any:
        """One message; what it completes (a face, a draw), or None. ``Blame`` names the
        author of a wrong one; ``ValueError`` for one that does not parse."""
        self.received.append(data)
        assert self.ledger is not None
        ledger = self.ledger
        parts = msgpack.unpackb(data, raw=False)
        kind = parts[0]
        if kind == "shuffle":
            _, key, holder, deck, proof = parts
            cts = deck_from_wire(deck)
            ledger.take_shuffle(key, holder, cts, ShuffleProof.from_wire(proof, len(cts)))
            return None
        if kind == "public":
            _, handle, wire = parts
            return ledger.take_public_share(handle, DecryptionShare.from_wire(wire))
        if kind == "private":
            _, handle, seat, wire = parts
            share = RecipientShare.from_wire(wire)
            ledger.check_recipient_share(handle, share, recipients[seat])
            if seat != self.seat or share.holder == self.holder:
                return None  # another's card, or its own share, which it has in plain
            shares = self._private.setdefault(handle, [])
            if all(s.holder != share.holder for s in shares):
                shares.append(share)
            own = 1 if self.holder <= ledger.joint.n else 0
            if len(shares) + own < ledger.joint.t:
                return None
            del self._private[handle]
            return ledger.open_private(handle, shares, self.personal)
        if kind == "claim":
            _, key, seat, value = parts
            self.replica.take_claim((key[0], key[1]), value)
            return None
        if kind == "beacon":
            _, round_, wire = parts
            return ledger.take_beacon_share(round_ + 1, BeaconShare.from_wire(wire))
        raise ValueError(f"{kind!r} is no message of a no-peek table")

    def choose(self) -> Action:
        replica = self.replica
        legal = replica.legal()
        view = replica.view()
        self.bot.observe(view)
        return self.bot.choose(view, legal)


# ------------------------------------------------------------------ the table
class TableStopped(Exception):
    """The table stopped: ``blame`` names whose message was wrong (the screens' line)."""

    def __init__(self, line: str, culprit: int | None) -> None:
        super().__init__(line)
        self.culprit = culprit


@dataclass
class Figures:
    moves: int = 0
    shuffles: int = 0
    openings_public: int = 0
    openings_private: int = 0
    draws: int = 0
    commits: int = 0
    claims: int = 0
    openings_end: int = 0
    audited: bool = False
    bytes: int = 0
    checked: dict[str, int] = field(default_factory=dict)


#: hooks a test may set to break one program's messages: (kind, program, bytes) -> bytes
Tamper = Callable[[str, "Program", bytes], bytes]


class NoPeekTable:
    """A whole no-peek table in one process (see the module's docstring)."""

    def __init__(
        self,
        game: Game,
        players: Sequence[str],
        *,
        options: Mapping[str, Any] | None = None,
        bot: str = "random",
        seed: str = "no-peek",
        host: int = 0,
        table_id: str | None = None,
        tamper: Tamper | None = None,
        scripted: bool = False,
    ) -> None:
        """``scripted``: every program's secrets come from ``seed`` (a test that must replay
        one game); otherwise from the system, as at a real table."""
        self.game = game
        self.players = tuple(players)
        self.options = dict(options if options is not None else game.options_from(len(players)))
        self.host = host
        self.table_id = table_id or (f"scripted/{seed}" if scripted else os.urandom(8).hex())
        self.tamper = tamper
        self.figures = Figures()
        #: every move ordered, in order: (seat, action)
        self.moves: list[tuple[int, Action]] = []
        n = len(self.players)
        self.programs = [
            Program(
                seat, self.players[seat], Replica(game, self.options, self.players, seat),
                make_bot(game.id, bot, seat, Rng(f"{seed}/bot/{seat}")),
                _scripted(f"{seed}/{seat}") if scripted else None,
            )
            for seat in range(n)
        ]  # fmt: skip
        self._dkg()
        self._set_up()

    # -------------------------------------------------------------- wiring
    @property
    def recipients(self) -> list[Point]:
        return [p.personal.public for p in self.programs]

    def _broadcast(self, kind: str, author: Program, data: bytes | None) -> list[Any]:
        """Hand ``data`` to every program (its author too, but a shuffle, which its author has
        taken as it made it); what each completed. A wrong message stops the table naming its
        author."""
        if data is None:
            return []
        if self.tamper is not None:
            data = self.tamper(kind, author, data)
        self.figures.bytes += len(data) * len(self.programs)
        done: list[Any] = []
        for program in self.programs:
            if program is author and kind == "shuffle proof":
                done.append(None)
                continue
            try:
                done.append(program.receive(data, self.recipients))
            except Blame as blame:
                culprit = self.programs[blame.culprit - 1]
                raise TableStopped(
                    f"{culprit.name}'s {kind} failed ({blame.reason}): the game stops here",
                    culprit.seat,
                ) from None
            except ValueError as bad:
                raise TableStopped(
                    f"{author.name} sent a {kind} that does not parse ({bad}): the game stops here",
                    author.seat,
                ) from None
        return done

    def _dkg(self) -> None:
        n = len(self.programs)
        t = keys.threshold(n)
        context: dict[str, str | int | bytes] = {"table": self.table_id, "purpose": "dkg", "round": 0}
        publics = self.recipients
        dealings = [keys.deal(p.holder, p.personal, publics, t, context, p.rand) for p in self.programs]
        for dealing in dealings:
            keys.check_dealing(dealing, publics, t, context)
        joint = keys.joint_key(dealings, n, t)
        for p in self.programs:
            shares = {d.dealer: keys.open_share(d, p.holder, p.personal, publics, context) for d in dealings}
            secret = keys.secret_share(joint, p.holder, shares)
            p.ledger = DealLedger(
                self.table_id, self.game.id, publics, joint, Holder(p.holder, p.personal, secret)
            )
        self.joint = joint

    # -------------------------------------------------------------- steps
    def _set_up(self) -> None:
        while True:
            needs = [p.replica.set_up() for p in self.programs]
            if all(need is None for need in needs):
                break
            self._meet(needs)
        self._after_move()

    def _meet(self, needs: Sequence[Need | Events | None]) -> None:
        """Every program stopped for the same need: meet it (or stop the table)."""
        claim = next((n for n in needs if isinstance(n, NeedClaim)), None)
        if claim is not None:
            own = needs[claim.seat]
            others = [n for seat, n in enumerate(needs) if seat != claim.seat]
            if (isinstance(own, NeedFace) and own.visible != EVERYONE and own.visible >> claim.seat & 1
                    and all(n == claim for n in others)):
                # the answer reads a card the move has just shown its owner: open it first
                self._jobs()
                self._open(Opening(own.handle, claim.seat))
                return
        need = needs[self.host]
        if any(other != need for other in needs):
            raise TableStopped(f"the programs disagree on the rules ({needs}): the game stops here", None)
        self._jobs()
        if isinstance(need, NeedClaim):
            owner = self.programs[need.seat]
            self._broadcast("claim", owner, owner.claim(need.key))
            self.figures.claims += 1
        elif isinstance(need, NeedRandom):
            self._draw(need.round)
        elif isinstance(need, NeedFace):
            if need.visible != EVERYONE:
                raise RulesReadHidden(
                    f"{self.game.title}: the rules read card {need.handle}'s face, shown to "
                    f"{'nobody' if need.visible == 0 else 'some seats only'}"
                )
            self._open(Opening(need.handle, None))

    def _jobs(self) -> None:
        """Shuffle every deck and reshuffle the rules have made, each player in turn."""
        host = self.programs[self.host]
        book = host.replica.book
        assert host.ledger is not None
        pending = [key for key in sorted(book.decks) if not host.ledger.shuffled(key)]
        pending += [key for key in sorted(book.reshuffles) if not host.ledger.shuffled(key)]
        for key in sorted(pending):
            for program in self.programs:
                ledger = program.ledger
                assert ledger is not None
                own = program.replica.book
                if key in own.decks:
                    ledger.new_deck(key, own.decks[key])
                else:
                    old, new = own.reshuffles[key]
                    ledger.reshuffle(key, old, new, own.public)
            while (turn := host.ledger.shuffler(key)) is not None:
                author = self.programs[turn - 1]
                self._broadcast("shuffle proof", author, author.shuffle(key))
            self.figures.shuffles += 1

    def _draw(self, round_: int) -> None:
        values: list[Any] = []
        for program in self.programs:
            values = self._broadcast("share of a public draw", program, program.beacon_share(round_))
            if values and values[0] is not None:
                break
        if not values or values[0] is None:
            raise TableStopped(f"public draw {round_} got too few shares", None)
        for program in self.programs:
            program.replica.draws[round_] = values[0]
        self.figures.draws += 1

    def _open(self, opening: Opening) -> None:
        faces: list[Any] = []
        for program in self.programs:
            if opening.to is None:
                data = program.public_share(opening.handle)
            elif program.seat == opening.to:
                continue  # its own share it uses in plain
            else:
                data = program.private_share(opening.handle, opening.to, self.recipients[opening.to])
            faces = self._broadcast("decryption share", program, data)
            if any(face is not None for face in faces):
                break
        if opening.to is None:
            if not faces or faces[0] is None:
                raise TableStopped(f"card {opening.handle} got too few shares to open", None)
            for program in self.programs:
                program.replica.opened(opening, faces[0])
            self.figures.openings_public += 1
        else:
            face = faces[opening.to] if faces else None
            if face is None:
                raise TableStopped(f"card {opening.handle} got too few shares to open", None)
            for program in self.programs:
                program.replica.opened(opening, face if program.seat == opening.to else None)
            self.figures.openings_private += 1

    def _after_move(self) -> None:
        self._jobs()
        lists = [p.replica.openings() for p in self.programs]
        if any(other != lists[self.host] for other in lists):
            raise TableStopped("the programs disagree on what the rules show: the game stops here", None)
        for opening in lists[self.host]:
            self._open(opening)

    def order(self, seat: int, action: Action) -> list[Event]:
        """The host orders ``seat``'s move: every program applies it (drawing and opening
        what it needs), then the faces it shows are opened."""
        while True:
            try:
                results = [p.replica.attempt(seat, action) for p in self.programs]
            except ClaimBroken as broken:
                raise TableStopped(
                    f"{self.players[broken.seat]} said something false of its cards "
                    f"({broken.question}): the game stops here",
                    broken.seat,
                ) from None
            events = results[self.host]
            if isinstance(events, list) and all(isinstance(r, list) for r in results):
                break
            self._meet(results)
        self.figures.moves += 1
        self.moves.append((seat, action))
        self._after_move()
        return events

    def commit_and_reveal(self, moves: Mapping[int, Action]) -> dict[int, bytes]:
        """Simultaneous choices: each seat's digest goes round before any move is shown,
        then each move is checked against its digest. The digests, by seat."""
        digests: dict[int, bytes] = {}
        salts: dict[int, bytes] = {}
        for seat, action in moves.items():
            rand = self.programs[seat].rand
            salts[seat] = os.urandom(16) if rand is None else rand().to_bytes(64, "little")[:16]
            digests[seat] = _commit(action, salts[seat])
        self.figures.commits += len(moves)
        for seat, action in moves.items():
            if _commit(action, salts[seat]) != digests[seat]:
                raise TableStopped(f"{self.players[seat]}'s choice does not match its commitment", seat)
        return digests

    def result(self) -> Any:
        return self.game.result(self.programs[self.host].replica.state)

    def finish(self) -> None:
        """The game is over: every card still closed is opened to everyone, and each program
        plays the whole game again holding every claim to the cards it spoke of."""
        host = self.programs[self.host].replica
        for handle in host.hidden():
            ledger = self.programs[self.host].ledger
            if ledger is not None and ledger.has(handle):
                for program in self.programs:
                    program.replica.need = NeedFace(handle, EVERYONE)
                self._open(Opening(handle, None))
                self.figures.openings_end += 1
        for program in self.programs:
            program.replica.need = None
            try:
                program.replica.audit(self.moves)
            except ClaimBroken as broken:
                raise TableStopped(
                    f"{self.players[broken.seat]} said something false of its cards "
                    f"({broken.question}), as the cards opened at the end show",
                    broken.seat,
                ) from None
        self.figures.audited = True

    def play(self, max_moves: int | None = None, *, after: Callable[[NoPeekTable], None] | None = None) -> Any:
        """Play the game out with every seat's bot on its own program; the result."""
        limit = max_moves if max_moves is not None else self.game.max_actions
        host = self.programs[self.host].replica
        for _ in range(limit):
            if self.game.result(host.state) is not None:
                break
            acting = sorted(self.game.to_act(host.state))
            if not acting:
                break
            moves = {seat: self.programs[seat].choose() for seat in acting}
            if len(moves) > 1:
                self.commit_and_reveal(moves)
            for seat, action in moves.items():
                if seat in self.game.to_act(host.state):
                    self.order(seat, action)
                    if after is not None:
                        after(self)
        if self.game.result(host.state) is not None:
            self.finish()
        ledger = self.programs[self.host].ledger
        if ledger is not None:
            self.figures.checked = dict(ledger.checked)
        return self.result()


Events = list[Event]


def _scripted(seed: str) -> Rand:
    """Scalars from a seed, for a table a test replays (never at a real one)."""
    counter = itertools.count()
    return lambda: int.from_bytes(hashlib.sha512(f"{seed}/{next(counter)}".encode()).digest(), "little")


def _commit(action: Action, salt: bytes) -> bytes:
    return hashlib.sha256(b"xmas-tui/no-peek/choice\x00" + _pack(action.to_wire(), salt)).digest()
