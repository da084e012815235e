"""The deal and fair play: nobody chooses the shuffle, and a new host could take over.

Owns (a part of ``HostSession``): ``start``, the nonces and the deal
(``netcode.fairplay``): the host committed to its secret before anyone joined; each
player committed to a nonce in ``Hello`` and is asked to reveal it (``AskNonce``); the
host deals when every nonce is in or ``nonce_timeout`` has passed, leaving out (by a
public note) those that did not answer. Open seats become bots. After the deal a
``Dealt`` tells every peer the nonces and notes of the seed, and each player at another
machine its share of the host's secret (``netcode.shares``: any majority of them
rebuilds it, one alone learns nothing), split afresh whenever the players at the table
change. Splitting the secret draws random coefficients: the one randomness a session
uses, and nothing but the secret they rebuild depends on it.

Must not touch: sockets, clocks, asyncio, any particular game.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from netcode.fairplay import NONCE_BYTES, Ledger
from netcode.session.host.parts import HostParts
from netcode.session.host.seating import AT_TABLE
from netcode.session.messages import AskNonce, Dealt, Nonce, NonceTaken
from netcode.session.seats import SeatState, bot_name
from netcode.session.step import Step
from netcode.shares import Commitments, Share, split

Peer = Hashable


class Dealing(HostParts):
    """The deal of a ``HostSession``, and the shares of its secret."""

    ledger: Ledger
    #: deal from this seed instead of the fair one (a game against bots alone, ``--seed``)
    rng_seed: Any
    #: ``start`` was called and the nonces are awaited
    dealing: bool
    #: when the deal goes ahead without the nonces still awaited
    _deal_by: float | None
    #: seat -> its share of the secret (players at other machines only)
    shares: dict[int, Share]
    #: what every share of this split is checked against (None: no split)
    share_commitments: Commitments | None

    def _init_dealing(self, ledger: Ledger, rng_seed: Any) -> None:
        self.ledger = ledger
        self.rng_seed = rng_seed
        self.dealing = False
        self._deal_by = None
        self.shares = {}
        self.share_commitments = None

    @property
    def started(self) -> bool:
        """True from ``start`` on (the deal may still wait for nonces)."""
        return self.rules is not None or self.dealing

    def start(self, now: float) -> Step:
        """Deal: open seats become bots, the players reveal their nonces, then play begins.

        With players at the table this asks for their nonces and deals when all have
        answered or after ``nonce_timeout``; with bots alone it deals at once."""
        self._start(now)
        return self._settle(now)

    def _start(self, now: float) -> None:
        if self.started:
            return
        self.dealing = True
        for seat in self.seats:
            if seat.state is SeatState.OPEN:
                seat.state = SeatState.BOT
        seated = {g.seat for g in self.guests.values() if g.seat is not None}
        for gone in set(self.ledger.nonce_commits) - seated:
            del self.ledger.nonce_commits[gone]  # the player left before the deal
        if not self.ledger.nonce_commits:
            self._deal(now)
        else:
            self._deal_by = now + self.settings.nonce_timeout
            for peer, guest in self.guests.items():
                if guest.seat in self.ledger.nonce_commits:
                    self._out.send(peer, AskNonce(self.settings.nonce_timeout))
        self._dirty = True

    def reshare(self, now: float) -> Step:
        """Split the secret afresh among the players at other machines now (a new host, once
        its voters are back) and tell every peer."""
        if self.rules is not None:
            self._share_secret()
            for peer in self.guests:
                self._send_dealt(peer)
        return self._settle(now)

    def _holders(self) -> set[int]:
        """The seats that should hold shares of the secret: every player at another machine
        who is at the table, and those who hold one and dropped (they may only be cut off,
        and electing: their share stays counted until their hold runs out)."""
        here = {i for i, seat in enumerate(self.seats)
                if seat.state in AT_TABLE and not seat.local and seat.peer is not None}
        away = {i for i in self.shares if self.seats[i].state is SeatState.AWAY and i not in self.lease.given_up}
        return here | away

    def _nonce(self, peer: Peer, message: Nonce, now: float) -> None:
        guest = self.guests[peer]
        if guest.seat is None or not self.dealing or len(message.nonce) != NONCE_BYTES:
            self.drops["unasked_nonce"] += 1
            return
        self.ledger.reveal_nonce(guest.seat, message.nonce)
        self._out.send(peer, NonceTaken())
        if not self.ledger.waiting_for():
            self._deal(now)

    def _deal(self, now: float) -> None:
        if self.rules is not None:
            return
        names = [seat.name or bot_name(i) for i, seat in enumerate(self.seats)]
        for i, seat in enumerate(self.seats):
            seat.name = names[i]
        seed = self.ledger.fix_seed(len(self.seats))
        if self.settings.no_peek:  # the players' programs deal: the rules get who holds the key
            self.rules = self.make_rules(names, self._mental_seed(names))
        else:
            self.rules = self.make_rules(names, seed if self.rng_seed is None else self.rng_seed)
        self.ledger.made(self.rules.made())
        self.log.extend(self.rules.opening())
        self.log.extend(["fair", note, None, None] for note in self.ledger.notes)
        self.dealing = False
        self._deal_by = None
        self._last_action = now
        self._ping(now)
        self._dirty = True
        self._share_secret()
        for peer in self.guests:
            self._send_dealt(peer)
        if self.settings.no_peek:
            self._mental_started()

    def _share_secret(self) -> None:
        """Split the secret among the players at other machines, so one can take over (not at
        a no-peek table: its host holds no secret of the cards)."""
        holders = sorted(self._holders())
        self.shares, self.share_commitments = {}, None
        if len(holders) >= 2 and self.rng_seed is None and not self.settings.no_peek:
            shares, self.share_commitments = split(self.ledger.secret, len(holders))
            self.shares = dict(zip(holders, shares, strict=True))

    def _reshare_if_changed(self) -> None:
        """A player came back, left for good or was given to a bot: split the secret afresh
        among those at the table now, so the majority that can take over is a majority of
        them (the old shares are of another split and rebuild nothing with the new ones)."""
        if self.rules is None or self.finished or self.rng_seed is not None or self.settings.no_peek:
            return
        holders = self._holders()
        if holders != set(self.shares) and (len(holders) >= 2 or self.shares):
            self._share_secret()
            for peer in self.guests:
                self._send_dealt(peer)

    def _send_dealt(self, peer: Peer) -> None:
        """The record a peer needs to follow the deal (and, with its share, to take over)."""
        guest = self.guests[peer]
        ledger = self.ledger
        seats = range(len(self.seats))
        share = self.shares.get(guest.seat) if guest.seat is not None else None
        self._out.send(peer, Dealt(
            [ledger.nonce_commits.get(s) for s in seats], list(ledger.nonces), list(ledger.notes),
            share.to_wire() if share is not None and not guest.local else None, len(self.shares),
            self.share_commitments.to_wire() if self.share_commitments is not None else [],
        ))  # fmt: skip

