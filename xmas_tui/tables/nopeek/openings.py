"""The openings of a no-peek program: every share it gives and takes. Sans-IO.

Owns ``Openings``, the mixin of ``Machine`` (``machine.py``) that opens cards: an opening
queued on every machine at the same point (``_open``); this program's share of each, made
only for a card its own rules open to that seat or to everyone now (``_share_for``; a
public share of a real-time room held until the room's instant, ``_holds_room``); the
others' shares taken and checked (``_take_public``, ``_take_private``, ``_take_beacon``:
a share in another holder's name, or one that fails its proof, is blamed on its author,
but for one made for a seat's former key before its author heard the seat was handed
on); and a face put together once t shares are in, a private one only for a seat this
program plays (``_private_if_complete``).

Must not touch: sockets, clocks, asyncio, the UI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from netcode.dealing.beacon import BeaconShare
from netcode.dealing.group import Point
from netcode.dealing.opening import DecryptionShare, RecipientShare
from netcode.dealing.proofs import Blame

from .replica import Opening
from .wire import pack

if TYPE_CHECKING:
    from netcode.dealing import keys
    from netcode.dealing.group import Rand
    from netcode.dealing.ledger import DealLedger

    from .replica import Replica


class Openings:
    """The shares a ``Machine`` gives and takes (see the module's docstring)."""

    if TYPE_CHECKING:  # (the machine's own, read here)
        seat: int
        seats: frozenset[int]
        rand: Rand | None
        personal: keys.PersonalKey
        replica: Replica
        ledger: DealLedger | None
        pending: list[Opening]
        replaying: bool
        hold_rooms: bool
        current: tuple[Any, ...] | None
        outbox: list[bytes]
        refused: list[str]
        _given: set[tuple[Any, ...]]
        _recipients: dict[int, Point]
        _former: dict[int, list[Point]]
        _private: dict[int, list[RecipientShare]]
        _held: list[list[Any]]
        _released: int | None
        _ending: bool
        _fresh: bool

        def _name(self, seat: int | None) -> str: ...
        def _move_key(self) -> int: ...
        def _check_author(self, holder: int, author: int) -> None: ...

    def _open(self, opening: Opening) -> None:
        """Queue an opening (every machine does, at the same point) and give my share."""
        if opening in self.pending:
            return
        self.pending.append(opening)
        self.replica.queued(opening)

    def _give_shares(self) -> None:
        ledger = self.ledger
        assert ledger is not None
        for opening in list(self.pending):
            if not ledger.has(opening.handle) or ("open", opening) in self._given:
                continue
            if opening.to is not None and opening.to in self.seats:
                self._given.add(("open", opening))  # my own plain share serves there
                self._private_if_complete(opening.handle, opening.to)
                continue
            if ledger.me is None:  # no share to give: another seat's card is no business of mine
                self._given.add(("open", opening))
                if opening.to is not None:
                    self.pending.remove(opening)
                continue
            if self.replaying:  # (mine comes as it was, or is given once caught up)
                continue
            self._given.add(("open", opening))
            made = self._share_for(opening, self._recipients.get(opening.to) if opening.to is not None else None)
            if made is None:
                continue
            if made[1] is not None and self._holds_room():
                self._held.append([opening.handle, made[1].to_wire()])
            else:
                self.outbox.append(made[0])
            if made[1] is not None:
                self._take_public(opening.handle, made[1], self.seat)
            else:
                self.pending.remove(opening)  # the recipient's to put together

    def _share_for(self, opening: Opening, recipient: Point | None) -> tuple[bytes, DecryptionShare | None] | None:
        """My share for ``opening`` (its message, and the share itself if it opens the card to
        everyone), if my rules open it now; else None, and the refusal counted."""
        handle, to = opening.handle, opening.to
        if self.ledger is None or not self.replica.may_open(handle, to):
            self.refused.append(f"card {handle} to {'everyone' if to is None else self._name(to)}")
            return None
        if to is None:
            share = self.ledger.public_share(handle, self.rand)
            return pack("public", handle, share.to_wire()), share
        assert recipient is not None
        return pack("private", handle, to, self.ledger.recipient_share(handle, recipient, self.rand).to_wire()), None

    def _holds_room(self) -> bool:
        """Whether a share to everyone made now waits for its room's instant."""
        return self.hold_rooms and not self._ending and self.current is not None and \
            self._released != self._move_key()

    def public_share(self, handle: int) -> bytes | None:
        """My share opening ``handle`` to everyone, if my rules open it now (else None)."""
        made = self._share_for(Opening(handle, None), None)
        return made[0] if made is not None else None

    def private_share(self, handle: int, seat: int, recipient: Point) -> bytes | None:
        """My share opening ``handle`` to ``seat``, if my rules show it that seat now."""
        made = self._share_for(Opening(handle, seat), recipient)
        return made[0] if made is not None else None

    def _take_public(self, handle: int, share: DecryptionShare, author: int) -> None:
        assert self.ledger is not None
        self._check_author(share.holder, author)
        if handle in self.replica.book.public:
            return
        face = self.ledger.take_public_share(handle, share)
        if face is not None:
            opening = Opening(handle, None)
            self.replica.opened(opening, face)
            if opening in self.pending:
                self.pending.remove(opening)
            self._fresh = True

    def _take_beacon(self, round_: int, share: BeaconShare) -> None:
        """A share of public draw ``round_`` (beacon value ``round_ + 1``: the set-up's is -1),
        checked; the draw once enough are in."""
        assert self.ledger is not None
        value = self.ledger.take_beacon_share(round_ + 1, share)
        if value is not None:
            self.replica.draws[round_] = value
            self._fresh = True

    def _take_private(self, handle: int, seat: int, share: RecipientShare, author: int) -> None:
        assert self.ledger is not None
        self._check_author(share.holder, author)
        try:
            self.ledger.check_recipient_share(handle, share, self._recipients[seat])
        except Blame:
            if not self._made_before_handover(handle, seat, share):
                raise
            return
        if seat not in self.seats:
            return
        shares = self._private.setdefault(handle, [])
        if all(s.holder != share.holder for s in shares):
            shares.append(share)
        self._private_if_complete(handle, seat)

    def _made_before_handover(self, handle: int, seat: int, share: RecipientShare) -> bool:
        """Whether a share for ``seat`` that fails against its program's key holds for a key it
        had before it was handed on (made before its author heard of the hand-over)."""
        assert self.ledger is not None
        for key in self._former.get(seat, []):
            try:
                self.ledger.check_recipient_share(handle, share, key)
            except Blame:
                continue
            return True
        return False

    def _private_if_complete(self, handle: int, seat: int) -> None:
        ledger = self.ledger
        assert ledger is not None
        opening = Opening(handle, seat)
        if opening not in self.pending or not ledger.has(handle):
            return
        shares = [s for s in self._private.get(handle, []) if ledger.me is None or s.holder != ledger.me.index]
        if len(shares) + (ledger.me is not None) < ledger.joint.t:
            return
        face = ledger.open_private(handle, shares, self.personal)
        self._private.pop(handle, None)
        self.replica.opened(opening, face)
        self.pending.remove(opening)
        self._fresh = True
