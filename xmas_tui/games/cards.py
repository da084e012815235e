"""The one card model every game shares: handles, zones, faces, visibility.

Everything secret in these games is the face of a card (or tile, or a sealed
choice written on a card). So a game's state keeps its cards here and nowhere
else:

* the **structure** is public: named zones ("deck", "tree.3", "hand.1", …)
  holding cards named by **handles**, opaque integers;
* the **face table** maps each handle to its face (a short string), and a
  visibility mask says who may see that face *now*: nobody, some seats, or
  everyone (spectators included).

``Cards.view(seat)`` is the only way faces leave: the structure with the faces
that seat may see. No game writes its own redaction.

Rules of the model:

* The top of a zone is its **last** element (``deck[-1]`` is drawn first).
* A **shuffle renames**: shuffled cards get fresh handles, so nobody can follow
  a card through it, and their faces become hidden from everyone.
* Turning a card face down hides it from everyone, even those who saw it: the
  model never remembers for a player.
* A **sealed choice** (a secret simultaneous decision) is a card whose face is
  the choice, in the zone ``sealed.<seat>``, visible to its owner only. Sealed
  cards are not game components and are left out of ``component_count``.

**Hidden faces.** At a no-peek table (``xmas_tui.tables.nopeek``) no program holds
the faces nobody has opened: the rules run on what everyone may know. There the
``Rng`` a game is set up with carries a ``FaceBook``, and then:

* ``new_deck`` and ``shuffle`` make cards whose face is unknown here (``None`` in
  the face table), and tell the book which deck or which old cards they are, so
  the players can shuffle the encrypted cards together; ``rng`` orders nothing;
* a face is read through the book, which holds the faces opened to everyone, and
  the ones opened to this program's seat (those only outside ``strict`` reading,
  which the rules' own moves use, so every program decides alike);
* reading a face the book has not got raises ``FaceHidden``, naming the card and
  who may see it now: the table opens it, if the rules allow, and tries again.

A game needs no change for this but one: a face it may read must be opened, by
the rules, to everyone (or to the program reading it) before it is read. Where a rule
needs a fact about one seat's hidden cards that the rules make public (that a player
holds a set, which card of a kind it pays with), the game asks it with ``ask``: a
program that holds every face computes it; at a no-peek table the seat's own program
answers (its **claim**), every program takes the answer, and the claim is checked as
the cards it speaks of open, at the latest when every card is opened at the end
(``check_claim`` on the spot; a replay of the whole game at the end for the rest).

Must not touch: rules of any particular game, clocks, I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from .rng import Rng

T = TypeVar("T")

#: Visibility masks: bit ``s`` set means seat ``s`` may see the face.
NOBODY = 0
#: Everyone, spectators included (all bits set).
EVERYONE = -1

SEALED_PREFIX = "sealed."

def seat_mask(*seats: int) -> int:
    """The visibility mask for exactly these seats."""
    mask = 0
    for seat in seats:
        mask |= 1 << seat
    return mask


def may_see(mask: int, seat: int | None) -> bool:
    """Whether ``seat`` (``None`` for a spectator) may see a face with this mask."""
    if mask == EVERYONE:
        return True
    return seat is not None and bool(mask >> seat & 1)


class CardError(Exception):
    """A misuse of the card model by an engine (a bug, never a player's error)."""


class FaceHidden(Exception):
    """The rules read a face this program does not know (a no-peek table): ``handle``
    and who may see it now (``visible``, a mask); ``cards``: the card model that read it,
    as the rules left it (what else they have shown so far)."""

    def __init__(self, handle: int, visible: int, cards: Cards | None = None) -> None:
        super().__init__(f"the face of card {handle} is not open here")
        self.handle = handle
        self.visible = visible
        self.cards = cards


class ClaimNeeded(Exception):
    """The rules need seat ``seat``'s answer to ``question`` about its hidden cards (a
    no-peek table): ``key`` names this ask of this move."""

    def __init__(self, seat: int, question: str, key: tuple[int, int]) -> None:
        super().__init__(f"seat {seat + 1} must say: {question}")
        self.seat = seat
        self.question = question
        self.key = key


class ClaimBroken(Exception):
    """Seat ``seat``'s answer to ``question`` was false: the cards it spoke of, opened,
    say otherwise. Never raised where one program holds every face."""

    def __init__(self, seat: int, question: str) -> None:
        super().__init__(f"seat {seat + 1}'s answer to {question!r} was false")
        self.seat = seat
        self.question = question


class FaceBook:
    """The faces one program knows at a no-peek table, kept apart from the state so
    that an ``apply`` tried again after an opening finds them.

    ``public``: faces opened to everyone; ``private``: faces opened to this program's
    seat only; ``strict``: read only ``public`` (the rules' moves). ``decks`` and
    ``reshuffles`` say where hidden cards came from: a new deck (its first handle ->
    its faces, sorted) or a shuffle (its first new handle -> (old handles, new
    handles)); the table turns each into a shuffle of encrypted cards."""

    __slots__ = (
        "public", "private", "strict", "decks", "deck_zones", "reshuffles",
        "owners", "move", "asked", "claims", "mine", "audit", "unchecked",
    )  # fmt: skip

    def __init__(self) -> None:
        self.public: dict[int, str] = {}
        self.private: dict[int, str] = {}
        self.strict = False
        self.decks: dict[int, tuple[str, ...]] = {}
        #: the zone each deck was made in (its first handle -> zone)
        self.deck_zones: dict[int, str] = {}
        self.reshuffles: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        #: the seats this program plays (its own, and bots it runs): it answers their asks
        self.owners: frozenset[int] = frozenset()
        #: the move being made (-1: the set-up) and the asks made in it so far
        self.move = -1
        self.asked = 0
        #: every seat's answers, by (move, ask): what every program takes
        self.claims: dict[tuple[int, int], Any] = {}
        #: this program's own answers, by (move, ask), until the table takes them
        self.mine: dict[tuple[int, int], Any] = {}
        #: replaying with every face open: compute each answer and hold it to the claim
        self.audit = False
        #: replaying a game closed before its end (not every face opened): the answers about
        #: cards that never opened are taken as given and counted here (None: none may be)
        self.unchecked: int | None = None

    def lookup(self, handle: int) -> str | None:
        """The face the rules may read here (``strict``: only one opened to everyone)."""
        return self.public.get(handle) if self.strict else self.known(handle)

    def known(self, handle: int) -> str | None:
        """The face opened here, to everyone or to this program's seat."""
        face = self.public.get(handle)
        return face if face is not None else self.private.get(handle)


class Cards:
    """Zones of handles, the face table and who may see each face."""

    __slots__ = ("zones", "_faces", "_seen", "_where", "_next", "book")

    def __init__(self) -> None:
        self.zones: dict[str, list[int]] = {}
        #: handle -> face; None for a face this program does not hold (a no-peek table)
        self._faces: dict[int, str | None] = {}
        self._seen: dict[int, int] = {}
        self._where: dict[int, str] = {}
        self._next = 1
        #: the faces opened here, at a no-peek table (None: this program holds every face)
        self.book: FaceBook | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Cards:
        """A copy to try a move on: its own zones and tables, the same book."""
        other = Cards.__new__(Cards)
        other.zones = {name: list(cards) for name, cards in self.zones.items()}
        other._faces = dict(self._faces)
        other._seen = dict(self._seen)
        other._where = dict(self._where)
        other._next = self._next
        other.book = self.book
        return other

    def _read(self, handle: int) -> str:
        face = self._faces[handle]
        if face is None:
            face = self.book.lookup(handle) if self.book is not None else None
            if face is None:
                raise FaceHidden(handle, self._seen[handle], self)
        return face

    # ----------------------------------------------------------------- making
    def _make(self, zone: str, face: str | None, visible: int) -> int:
        if face is not None and not isinstance(face, str):
            raise CardError(f"a face is a string, not {type(face).__name__}")
        handle = self._next
        self._next += 1
        self._faces[handle] = face
        self._seen[handle] = visible
        self._where[handle] = zone
        self.zones.setdefault(zone, []).append(handle)
        return handle

    def new_deck(self, zone: str, faces: Iterable[str], rng: Rng, *, visible: int = NOBODY) -> list[int]:
        """Create cards in ``zone``, face down (or seen by ``visible``), shuffled before
        they get handles.

        Handles are given in the shuffled order, so a handle says nothing about
        the face behind it. At a no-peek table (``rng.book``) a deck face down to
        everyone is made of unknown faces, which the players shuffle together.
        """
        order = list(faces)
        book = rng.book
        if book is not None:
            self.book = book
            if visible == NOBODY:
                first = self._next
                book.decks[first] = tuple(sorted(order))
                book.deck_zones[first] = zone
                return [self._make(zone, None, NOBODY) for _ in order]
            order.sort()  # seen from the start: its order is no secret to keep
            handles = [self._make(zone, face, visible) for face in order]
            if visible == EVERYONE:
                book.public.update(zip(handles, order, strict=True))
            return handles
        rng.shuffle(order)
        return [self._make(zone, face, visible) for face in order]

    def declare_zone(self, zone: str) -> None:
        """Make an empty zone exist, so views show it before it holds a card."""
        self.zones.setdefault(zone, [])

    # -------------------------------------------------------------- reading
    def zone(self, zone: str) -> list[int]:
        """The handles in a zone, bottom to top (a live list: do not mutate)."""
        return self.zones.get(zone, _EMPTY)

    def face(self, handle: int) -> str:
        """The face of a card. Engines know every face (but at a no-peek table, where a
        face not opened here raises ``FaceHidden``); views do not."""
        try:
            return self._read(handle)
        except KeyError:
            raise CardError(f"no card has handle {handle}") from None

    def faces(self, zone: str) -> list[str]:
        return [self._read(h) for h in self.zone(zone)]

    def where(self, handle: int) -> str:
        try:
            return self._where[handle]
        except KeyError:
            raise CardError(f"no card has handle {handle}") from None

    def visibility(self, handle: int) -> int:
        return self._seen[handle]

    def is_public(self, handle: int) -> bool:
        return self._seen[handle] == EVERYONE

    def __contains__(self, handle: object) -> bool:
        return handle in self._faces

    @property
    def next_handle(self) -> int:
        """The handle the next card made will get (handles only grow)."""
        return self._next

    def top(self, zone: str) -> int | None:
        cards = self.zone(zone)
        return cards[-1] if cards else None

    def component_count(self) -> int:
        """How many game components exist (sealed choices are not components)."""
        return sum(
            len(cards) for name, cards in self.zones.items() if not name.startswith(SEALED_PREFIX)
        )

    def component_faces(self) -> list[str]:
        """Every component's face, sorted: a fingerprint of the whole set."""
        return sorted(
            self._read(h)
            for name, cards in self.zones.items()
            if not name.startswith(SEALED_PREFIX)
            for h in cards
        )

    # --------------------------------------------------------------- moving
    def move(self, handle: int, to: str, *, visible: int | None = None, index: int | None = None) -> None:
        """Move a card to the top of ``to`` (or to ``index``), optionally setting who sees it."""
        source = self.where(handle)
        self.zones[source].remove(handle)
        target = self.zones.setdefault(to, [])
        if index is None:
            target.append(handle)
        else:
            target.insert(index, handle)
        self._where[handle] = to
        if visible is not None:
            self._seen[handle] = visible

    def draw(self, source: str, to: str, *, visible: int | None = None) -> int | None:
        """Move the top card of ``source`` to ``to``; ``None`` if ``source`` is empty."""
        handle = self.top(source)
        if handle is not None:
            self.move(handle, to, visible=visible)
        return handle

    # ----------------------------------------------------------- visibility
    def show(self, handle: int, seat: int | None = None) -> None:
        """Let one seat see a face, or everyone when ``seat`` is ``None``."""
        if seat is None:
            self._seen[handle] = EVERYONE
        elif self._seen[handle] != EVERYONE:
            self._seen[handle] |= 1 << seat

    def hide(self, handle: int) -> None:
        """Turn a card face down: nobody may see it any more."""
        self._seen[handle] = NOBODY

    def set_visible(self, handle: int, mask: int) -> None:
        self._seen[handle] = mask

    # -------------------------------------------------------------- shuffle
    def shuffle(self, zones: Sequence[str], rng: Rng, *, into: str | None = None) -> list[int]:
        """Shuffle the cards of ``zones`` together and give them fresh handles.

        With ``into``, every card ends in that zone (e.g. the discard pile
        becomes the deck); otherwise each zone keeps its size and the cards
        are dealt back in order. The shuffled cards are face down to everyone.
        Returns the new handles, in the order dealt.
        """
        old = [h for z in zones for h in self.zone(z)]
        sizes = [len(self.zone(z)) for z in zones]
        faces: list[str | None]
        if self.book is not None:  # a no-peek table: the players shuffle the cards themselves
            first = self._next
            self.book.reshuffles[first] = (tuple(old), tuple(range(first, first + len(old))))
            faces = [None] * len(old)
        else:
            faces = [self._faces[h] for h in old]
            rng.shuffle(faces)
        for handle in old:
            del self._faces[handle], self._seen[handle], self._where[handle]
        for z in zones:
            self.zones[z] = []
        fresh: list[int] = []
        if into is not None:
            self.zones.setdefault(into, [])
            fresh = [self._make(into, face, NOBODY) for face in faces]
        else:
            it = iter(faces)
            for z, size in zip(zones, sizes, strict=True):
                fresh.extend(self._make(z, next(it), NOBODY) for _ in range(size))
        return fresh

    # ---------------------------------------------------------------- claims
    def ask(self, seat: int, question: str, answer: Callable[[], T]) -> T:
        """A fact about ``seat``'s hidden cards that the rules make public: ``answer()`` where
        this program holds the faces; at a no-peek table, the seat's claim (see the module's
        docstring). ``answer`` must return plain data and read only ``seat``'s cards and the
        public table."""
        book = self.book
        if book is None:
            return answer()
        key = (book.move, book.asked)
        book.asked += 1
        if book.audit:
            try:
                value = answer()
            except FaceHidden:
                if book.unchecked is None or key not in book.claims:
                    raise
                book.unchecked += 1  # (the table closed before these cards opened)
                return cast(T, book.claims[key])
            if key in book.claims and book.claims[key] != value:
                raise ClaimBroken(seat, question)
            return value
        if key in book.claims:
            return cast(T, book.claims[key])
        if seat in book.owners:
            strict, book.strict = book.strict, False
            try:
                book.mine[key] = answer()
            finally:
                book.strict = strict
        raise ClaimNeeded(seat, question, key)

    @staticmethod
    def check_claim(seat: int, holds: bool, question: str) -> None:
        """Hold a seat's claim to the faces it spoke of, once they are open."""
        if not holds:
            raise ClaimBroken(seat, question)

    # ------------------------------------------------------- sealed choices
    def seal(self, seat: int, choice: str) -> int:
        """Record a secret choice of ``seat``: a card only that seat may see."""
        zone = f"{SEALED_PREFIX}{seat}"
        if self.zone(zone):
            raise CardError(f"seat {seat} has already sealed a choice")
        return self._make(zone, choice, seat_mask(seat))

    def sealed(self, seat: int) -> str | None:
        """The sealed choice of ``seat`` (engine side), or ``None``."""
        cards = self.zone(f"{SEALED_PREFIX}{seat}")
        return self._read(cards[0]) if cards else None

    def has_sealed(self) -> bool:
        """Whether some seat's sealed choice is still on the table, unopened."""
        return any(cards for name, cards in self.zones.items() if name.startswith(SEALED_PREFIX))

    def unseal_all(self) -> dict[int, str]:
        """Open every sealed choice at once and remove them from the table."""
        opened: dict[int, str] = {}
        for name in [z for z in self.zones if z.startswith(SEALED_PREFIX)]:
            for handle in self.zones.pop(name):
                opened[int(name[len(SEALED_PREFIX) :])] = self._read(handle)
                del self._faces[handle], self._seen[handle], self._where[handle]
        return opened

    # ----------------------------------------------------------------- view
    def view(self, seat: int | None) -> tuple[dict[str, tuple[int, ...]], dict[int, str]]:
        """Every zone's handles, and the faces ``seat`` (``None``: a spectator) may see now."""
        return {name: tuple(cards) for name, cards in self.zones.items()}, self.visible(seat)

    def visible(self, seat: int | None) -> dict[int, str]:
        """The faces ``seat`` (``None``: a spectator) may see now: the only part of a view
        that differs between seats."""
        faces = self._faces
        if self.book is not None:
            return self._visible_here(seat)
        if seat is None:
            return cast("dict[int, str]", {h: faces[h] for h, mask in self._seen.items() if mask == EVERYONE})
        bit = 1 << seat
        return cast("dict[int, str]", {h: faces[h] for h, mask in self._seen.items() if mask & bit})

    def _visible_here(self, seat: int | None) -> dict[int, str]:
        """``visible`` at a no-peek table: the faces ``seat`` may see that are open here."""
        book = self.book
        assert book is not None
        out: dict[int, str] = {}
        for handle, mask in self._seen.items():
            if may_see(mask, seat):
                face = self._faces[handle]
                if face is None:
                    face = book.known(handle)
                if face is not None:
                    out[handle] = face
        return out

    def snapshot(self) -> list[Any]:
        """The full table (faces and visibility included) as plain data, for digests."""
        return [
            self._next,
            sorted(
                (name, [(h, self._faces[h], self._seen[h]) for h in cards])
                for name, cards in self.zones.items()
            ),
        ]


_EMPTY: list[int] = []
