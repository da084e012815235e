"""Play: actions checked, applied, recorded and signed.

Owns (a part of ``HostSession``): the running game (``rules``), the public log, and
the record of play. An ``Act`` is checked against the seat of the peer that sent it
(one peer can only act for its own seat); the rules refuse an illegal one with the rule
it breaks, answered to that peer alone (``Verdict``). Each accepted action goes into the
fair-play ledger and the public log. **The record of play**, kept by every peer so that
any of them could take the table over: an action joins it once no seat's sealed choice
hides it any more (so a sealed choice is never shown before its time), and the host's
Ed25519 signature covers the whole record (a chain of hashes) under its ``term``.

Must not touch: sockets, clocks, asyncio, any particular game.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import msgpack

from netcode.fairplay import CHAIN_START, Signer, chain_action
from netcode.session.host.events import ActionApplied
from netcode.session.host.parts import HostParts
from netcode.session.host.rules import RuleError, Rules, RulesFactory
from netcode.session.messages import Act, Verdict
from netcode.session.seats import SeatState
from netcode.session.step import Step

packb = msgpack.Packer().pack

Peer = Hashable


class Play(HostParts):
    """The game, the log and the record of play of a ``HostSession``."""

    make_rules: RulesFactory
    #: the game, once dealt
    rules: Rules | None
    #: the public log: ``[kind, text, seat, data]`` entries, in order
    log: list[list[Any]]
    #: signs the record of play (a key of this host's own)
    signer: Signer
    #: which host of the table this is (1: its creator)
    term: int
    #: the record of play: ``chain[i]`` covers the first ``i`` actions; only actions
    #: nobody's sealed choice hides any more are in it (``recorded`` of them)
    chain: list[bytes]
    _signature: tuple[int, bytes] | None
    #: every peer's messages refused by the rules, for the host's figures
    refused: int
    #: actions this host applied itself (not replayed from an earlier host's record)
    acted: int
    #: the game is over (its final message went out)
    finished: bool
    #: when the last action was applied (a bot's next move counts from it)
    _last_action: float

    def _init_play(self, make_rules: RulesFactory, signer: Signer, term: int) -> None:
        self.make_rules = make_rules
        self.rules = None
        self.log = []
        self.signer = signer
        self.term = term
        self.chain = [CHAIN_START]
        self._signature = None
        self.refused = 0
        self.acted = 0
        self.finished = False
        self._last_action = -float("inf")

    @property
    def real_time(self) -> bool:
        return self.rules is not None and self.rules.window() is not None

    def _act_message(self, peer: Peer, act: Act, now: float) -> None:
        guest = self.guests[peer]
        seat = guest.seat if act.seat is None else act.seat
        # (a watcher's program playing, with its bot, a no-peek seat handed to it: take_seat)
        runner = seat is not None and self.rules is not None and self.seat_runners.get(seat) == peer
        if not runner and (guest.seat is None or self.rules is None or seat != guest.seat):
            why = ("Only a seated player can act, once the game has started." if seat == guest.seat
                   else "You can only act for your own seat.")
            self._out.send(peer, Verdict(act.id, why))
            return
        assert seat is not None and self.rules is not None
        place = self.seats[seat]
        if not runner and place.state is SeatState.BOT:
            self._out.send(peer, Verdict(act.id, "A bot plays your seat now; the host can give it back to you."))
            return
        if not runner and self._held_back(peer, act.id):
            return
        if self.settings.no_peek and (unvoiced := self._voiced_act(seat, act)) is not None:
            self._out.send(peer, Verdict(act.id, unvoiced))
            return
        action = act.action
        try:
            if self.live.open and self.rules.racing():  # a real-time round: bounded, and heard
                earliest = self._earliest(peer)
                action, clamped = self.rules.merge(seat, self.live.so_far.get(seat), action, earliest)
                self._clamped(seat, peer, earliest, clamped)
                self._shout_fresh(seat, action)
            self._apply(seat, action, now, "bot" if runner else "player")
        except RuleError as refused:
            self.refused += 1
            self._move_signatures.pop(seat, None)
            self._out.send(peer, Verdict(act.id, str(refused)))
            return
        if not runner:
            if place.state is SeatState.IDLE:
                place.state = SeatState.HERE
            place.timeouts, place.covered, place.act_by = 0, False, None
        self._out.send(peer, Verdict(act.id, None))

    def _apply(self, seat: int, action: Any, now: float, by: str) -> None:
        """Apply an action through the rules (``RuleError`` if refused) and record it."""
        rules = self.rules
        assert rules is not None
        entries = rules.act(seat, action)
        self.ledger.actions.append((seat, action))
        self.ledger.made(rules.made())
        self.log.extend(entries)
        if not rules.sealed_pending():  # nobody's choice is hidden any more: into the record
            chain = self.chain
            for s, a in self.ledger.actions[len(chain) - 1 :]:
                chain.append(chain_action(chain[-1], s, packb(a)))
        self._last_action = now
        self._dirty = True
        if by != "replay":
            self.acted += 1
        self._out.table.append(ActionApplied(seat, action, by))

    @property
    def recorded(self) -> int:
        """How many actions the record of play holds."""
        return len(self.chain) - 1

    def signature(self) -> list[Any]:
        """The host's signature over the record so far: ``[count, chain, signature]``."""
        count = self.recorded
        if self._signature is None or self._signature[0] != count:
            self._signature = (count, self.signer.sign_record(self.ledger.table_id, self.term, count, self.chain[count]))
        return [count, self.chain[count], self._signature[1]]

    def _held_back(self, peer: Peer, id: int) -> bool:
        """Refuse a move while this host has stepped down or its lease is in doubt; True if so."""
        if not (self.stepped_down or self.lease.paused):
            return False
        why = ("This machine no longer hosts the table." if self.stepped_down else
               "Play waits: the host cannot hear most players' machines just now. Try again in a moment.")
        self._out.send(peer, Verdict(id, why))
        return True

    def replay(self, actions: Sequence[tuple[int, Any]], now: float) -> Step:
        """Apply recorded actions in order (a kept game resumed); ``RuleError`` if one is refused
        (and then nothing of the replay is told: the table is no good)."""
        try:
            for seat, action in actions:
                self._apply(seat, action, now, "replay")
        except RuleError:
            self._out = Step()
            raise
        return self._settle(now)

    def refresh(self, now: float) -> Step:
        """Send every peer its news again: after a change made to the game outside the session
        (a demo or a test setting a table up by hand)."""
        self._dirty = True
        return self._settle(now)

    def settle(self, now: float) -> Step:
        """Send what the last commands changed (after ``play_bot``, say)."""
        return self._settle(now)

    def _note(self, text: str, seat: int | None = None) -> None:
        self.log.append(["table", text, seat, None])
        self._dirty = True

