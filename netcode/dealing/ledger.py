"""One program's ledger of a no-peek deal: which encrypted card each handle is, the
shuffles the players make of them in turn, and the shares that open them.

Owns ``DealLedger``: the joint key, the ciphertext behind every handle of the game's
card model, the shuffle jobs (a new deck, or cards the rules shuffle again) that every
key holder takes part in, in holder order, each proving its shuffle; the openings of a
card to everyone (decryption shares) or to one seat (recipient-bound shares), each
checked on receipt, a wrong one raising ``Blame`` naming its holder; and the beacon's
shares (public randomness). It knows handles, faces as plain strings and holder
indices: no game, no seat's hand, no rule. Which card may be opened to whom is the
caller's to decide (its copy of the rules): a ledger makes a share for any handle it is
asked, so the caller must ask only what its own rules open.

Contexts (Fiat–Shamir) bind every proof to the table, the purpose, the round and the
prover: a shuffle's round is the first handle it makes, an opening's round the handle
it opens, a beacon's round its index.

Must not touch: sockets, clocks, games, the sessions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from . import beacon, opening
from .cards import Faces, encode, initial_deck
from .elgamal import Ciphertext, encrypt
from .group import Point, Rand
from .keys import JointKey, PersonalKey
from .proofs import Blame
from .shuffle import ShuffleProof, shuffle, verify_shuffle


@dataclass(frozen=True, slots=True)
class Holder:
    """This program's own key material: its holder index, personal key and secret share."""

    index: int
    personal: PersonalKey
    secret: int


@dataclass
class ShuffleJob:
    """Cards the holders shuffle in turn: from ``source`` to the ``handles`` they become."""

    key: int
    handles: tuple[int, ...]
    source: list[Ciphertext]
    #: (holder, the deck it made) so far, in holder order
    steps: list[tuple[int, list[Ciphertext]]] = field(default_factory=list)

    @property
    def current(self) -> list[Ciphertext]:
        return self.steps[-1][1] if self.steps else self.source


@dataclass
class _Opening:
    public: dict[int, opening.DecryptionShare] = field(default_factory=dict)


class DealLedger:
    """One program's part of a no-peek deal (see the module's docstring)."""

    def __init__(
        self,
        table: str,
        game: str,
        personal_keys: Sequence[Point],
        joint: JointKey,
        me: Holder | None,
        *,
        shufflers: Sequence[int] | None = None,
    ) -> None:
        self.table = table
        self.game = game
        #: the faces of every deck made so far, to read an opened card
        self.faces = Faces(game)
        self.personal_keys = tuple(personal_keys)
        self.joint = joint
        self.me = me
        #: holder indices that shuffle, in turn (every holder unless told)
        self.shufflers = tuple(shufflers) if shufflers is not None else tuple(range(1, joint.n + 1))
        #: holders whose programs left the table: they shuffle no more (``leave``)
        self.gone: set[int] = set()
        self.cts: dict[int, Ciphertext] = {}
        self.jobs: dict[int, ShuffleJob] = {}
        self._openings: dict[int, _Opening] = {}
        self._beacon: dict[int, dict[int, beacon.BeaconShare]] = {}
        #: figures: shares and proofs checked here, by kind
        self.checked: dict[str, int] = {"shuffle": 0, "public": 0, "private": 0, "beacon": 0}

    # ------------------------------------------------------------- contexts
    def _shuffle_context(self, key: int, holder: int) -> dict[str, str | int]:
        return {"table": self.table, "purpose": "shuffle", "round": key, "seat": holder}

    def _open_context(self, handle: int) -> dict[str, str | int]:
        return {"table": self.table, "purpose": "open", "round": handle}

    # ------------------------------------------------------------- shuffles
    def new_deck(self, key: int, faces: Sequence[str]) -> ShuffleJob:
        """The public deck of these faces (sorted, r = 1), for the holders to shuffle into
        handles ``key``, ``key + 1``, …"""
        self.faces.add(faces)
        source = initial_deck(self.joint.public, self.game, faces)
        return self._job(key, tuple(range(key, key + len(source))), source)

    def reshuffle(
        self, key: int, old: Sequence[int], new: Sequence[int], known: dict[int, str]
    ) -> ShuffleJob:
        """Cards ``old`` shuffled again into ``new``. A card that was never encrypted (set
        out face up) enters as its face encrypted with r = 1, which anyone can recompute."""
        source = []
        for handle in old:
            ct = self.cts.get(handle)
            if ct is None:
                if handle not in known:
                    raise ValueError(f"card {handle} has neither a ciphertext nor a known face")
                self.faces.add([known[handle]])
                ct = encrypt(self.joint.public, encode(self.game, known[handle]), 1)
            source.append(ct)
        return self._job(key, tuple(new), source)

    def _job(self, key: int, handles: tuple[int, ...], source: list[Ciphertext]) -> ShuffleJob:
        if key in self.jobs:
            return self.jobs[key]
        job = ShuffleJob(key, handles, source)
        self.jobs[key] = job
        return job

    def shuffler(self, key: int) -> int | None:
        """The holder whose turn it is to shuffle job ``key``; None once every one still at the
        table has (a holder that left is passed over: one honest shuffle hides the order)."""
        done = {holder for holder, _ in self.jobs[key].steps}
        return next((h for h in self.shufflers if h not in done and h not in self.gone), None)

    def leave(self, holder: int) -> None:
        """Holder ``holder``'s program left the table: the shuffles under way and to come pass it
        over (its shares are no longer waited for; t of the others still open every card)."""
        self.gone.add(holder)
        for job in self.jobs.values():
            self._finish(job)

    def make_shuffle(self, key: int, rand: Rand | None = None) -> tuple[list[Ciphertext], ShuffleProof]:
        """This holder's shuffle of job ``key`` (its turn), with its proof; taken here too."""
        cts, proof = self.shuffle_maker(key, rand)()
        self.made_shuffle(key, cts)
        return cts, proof

    def shuffle_maker(self, key: int, rand: Rand | None = None) -> Callable[[], tuple[list[Ciphertext], ShuffleProof]]:
        """The slow part of ``make_shuffle``, to run now or elsewhere: it reads nothing of this
        ledger once made (the deck as it stands now), so the ledger may be left waiting for
        it (``made_shuffle`` takes the deck it made)."""
        if self.me is None or self.shuffler(key) != self.me.index:
            raise ValueError("it is not this program's turn to shuffle")
        return partial(shuffle, self.joint.public, list(self.jobs[key].current),
                       self._shuffle_context(key, self.me.index), rand)

    def made_shuffle(self, key: int, cts: Sequence[Ciphertext]) -> None:
        """My shuffle of job ``key`` (``shuffle_maker``'s deck), taken."""
        job = self.jobs[key]
        assert self.me is not None and self.shuffler(key) == self.me.index, "a shuffle made out of turn"
        job.steps.append((self.me.index, list(cts)))
        self._finish(job)

    def take_shuffle(
        self, key: int, holder: int, cts: Sequence[Ciphertext], proof: ShuffleProof
    ) -> None:
        """Another holder's shuffle: checked, then the deck it makes; ``Blame`` if wrong."""
        self.took_shuffle(key, holder, cts, self.shuffle_check(key, holder, cts, proof)())

    def shuffle_check(
        self, key: int, holder: int, cts: Sequence[Ciphertext], proof: ShuffleProof
    ) -> Callable[[], bool]:
        """The slow part of ``take_shuffle``: whether the proof holds, to run now or elsewhere
        (like ``shuffle_maker``, it reads nothing of this ledger once made); ``Blame`` at once
        for a shuffle nobody is making or made out of turn."""
        job = self.jobs.get(key)
        if job is None:
            raise Blame(holder, f"it shuffled cards {key}… that nobody is shuffling")
        if self.shuffler(key) != holder:
            raise Blame(holder, "it shuffled out of turn")
        if len(cts) != len(job.source):
            return partial(bool, False)
        return partial(verify_shuffle, self.joint.public, list(job.current), list(cts), proof,
                       self._shuffle_context(key, holder))

    def took_shuffle(self, key: int, holder: int, cts: Sequence[Ciphertext], holds: bool) -> None:
        """Another holder's shuffle, its proof checked (``holds``: ``shuffle_check``'s answer):
        the deck it makes; ``Blame`` if the proof failed."""
        self.checked["shuffle"] += 1
        if not holds:
            raise Blame(holder, "its shuffle proof failed")
        job = self.jobs[key]
        job.steps.append((holder, list(cts)))
        self._finish(job)

    def _finish(self, job: ShuffleJob) -> None:
        if self.shuffler(job.key) is None:
            self.cts.update(zip(job.handles, job.current, strict=True))

    def shuffled(self, key: int) -> bool:
        return key in self.jobs and self.shuffler(key) is None

    def has(self, handle: int) -> bool:
        return handle in self.cts

    # ------------------------------------------------------------- openings
    def public_share(self, handle: int, rand: Rand | None = None) -> opening.DecryptionShare:
        """This holder's share opening ``handle`` to everyone (ask only what the rules open)."""
        if self.me is None:
            raise ValueError("this program holds no share of the key")
        return opening.decryption_share(
            self.cts[handle], self.me.index, self.me.secret, self._open_context(handle), rand
        )

    def take_public_share(self, handle: int, share: opening.DecryptionShare) -> str | None:
        """A share opening ``handle`` to everyone, checked (``Blame`` if wrong); the face
        once t distinct ones are in."""
        ct = self.cts[handle]
        self.checked["public"] += 1
        if not opening.verify_decryption_share(ct, share, self.joint, self._open_context(handle)):
            raise Blame(share.holder, f"its share opening card {handle} fails its proof")
        shares = self._openings.setdefault(handle, _Opening()).public
        shares.setdefault(share.holder, share)
        if len(shares) < self.joint.t:
            return None
        point = opening.combine_public(
            ct, list(shares.values()), self.joint, self._open_context(handle), checked=True
        )
        return self._decode(handle, point)

    def recipient_share(
        self, handle: int, recipient: Point, rand: Rand | None = None
    ) -> opening.RecipientShare:
        """This holder's share opening ``handle`` to the owner of ``recipient`` only."""
        if self.me is None:
            raise ValueError("this program holds no share of the key")
        return opening.recipient_share(
            self.cts[handle], self.me.index, self.me.secret, recipient,
            self._open_context(handle), rand,
        )  # fmt: skip

    def check_recipient_share(
        self, handle: int, share: opening.RecipientShare, recipient: Point
    ) -> None:
        """What every peer checks of a share for another: ``Blame`` if it is wrong."""
        self.checked["private"] += 1
        if not opening.verify_recipient_share(
            self.cts[handle], share, self.joint, recipient, self._open_context(handle)
        ):
            raise Blame(share.holder, f"its share for card {handle}'s recipient fails its proof")

    def open_private(
        self, handle: int, shares: Sequence[opening.RecipientShare], key: PersonalKey
    ) -> str:
        """The face of ``handle`` from shares made for this program (checked on receipt),
        with its own share where it holds one."""
        me = self.me
        own = (me.index, me.secret) if me is not None else None
        others = [s for s in shares if own is None or s.holder != own[0]]
        point = opening.combine_private(
            self.cts[handle], others, self.joint, key, self._open_context(handle),
            own=own, checked=True,
        )  # fmt: skip
        return self._decode(handle, point)

    def _decode(self, handle: int, point: Point) -> str:
        try:
            return self.faces.decode(point)
        except ValueError:
            raise ValueError(f"card {handle} opened to no card of the game") from None

    def public_shares_in(self, handle: int) -> set[int]:
        """The holders whose share opening ``handle`` to everyone is in."""
        opening = self._openings.get(handle)
        return set(opening.public) if opening is not None else set()

    def beacon_shares_in(self, k: int) -> set[int]:
        """The holders whose share of beacon value k is in (while it is being drawn)."""
        return set(self._beacon.get(k, {}))

    # --------------------------------------------------------------- beacon
    def beacon_share(self, k: int, rand: Rand | None = None) -> beacon.BeaconShare:
        if self.me is None:
            raise ValueError("this program holds no share of the key")
        return beacon.beacon_share(self.table, k, self.me.index, self.me.secret, rand)

    def take_beacon_share(self, k: int, share: beacon.BeaconShare) -> bytes | None:
        """A share of beacon value k, checked (``Blame`` if wrong); the value once t are in."""
        self.checked["beacon"] += 1
        if not beacon.verify_beacon_share(self.table, k, share, self.joint):
            raise Blame(share.holder, f"its share of public draw {k} fails its proof")
        shares = self._beacon.setdefault(k, {})
        shares.setdefault(share.holder, share)
        if len(shares) < self.joint.t:
            return None
        value = beacon.combine_beacon(self.table, k, list(shares.values()), self.joint, checked=True)
        del self._beacon[k]
        return value
