"""Helpers for the no-peek tests: the curious host's search of everything a program holds."""

from __future__ import annotations

from collections.abc import Sequence

import msgpack

from netcode.dealing.elgamal import decrypt
from netcode.dealing.opening import DecryptionShare
from xmas_tui.games.cards import SEALED_PREFIX, may_see
from xmas_tui.tables.nopeek import Machine


def hidden_from(machine: Machine, seat: int | None) -> list[int]:
    """The cards on the table now whose face the rules have not shown ``seat``."""
    cards = machine.replica.state.cards
    return [h for h, mask in cards._seen.items() if not may_see(mask, seat)]


def never_shown(machine: Machine, seat: int | None) -> list[int]:
    """The cards hidden from ``seat`` now that the rules never showed it (a card seen face up
    and turned down again is known to all who saw it, as at a real table)."""
    replica = machine.replica
    return [
        h for h in hidden_from(machine, seat)
        if h not in replica.book.public and (h, seat) not in replica._shown
    ]


def search(machines: Sequence[Machine], seat: int | None) -> list[str]:
    """Everything ``machines`` (one curious party's programs, playing ``seat``) hold or were
    sent, searched for a face of a card the rules never showed ``seat``: in their states, in
    their books, in the shares they hold (enough public shares to open it), and in their own
    key shares used as if each were the whole key. Returns what was found."""
    found = []
    # the programs move at their own moments: a card any of them has seen the rules open (to
    # everyone, or to ``seat``) is no secret of theirs, whichever got there first
    opened = {h for m in machines for h in m.replica.book.public}
    opened |= {h for m in machines for (h, to) in m.replica._shown if to is None or to == seat}
    hidden = [h for h in never_shown(machines[0], seat) if h not in opened]
    public_shares: dict[int, set[int]] = {}
    own: set[int] = set()
    for machine in machines:
        if machine.ledger is not None and machine.ledger.me is not None:
            own.add(machine.ledger.me.index)
        for data in machine.received:
            parts = msgpack.unpackb(data, raw=False)
            if parts[0] == "public":
                public_shares.setdefault(parts[1], set()).add(DecryptionShare.from_wire(parts[2]).holder)
            elif parts[0] == "room":  # (a real-time room's shares, sent together at its instant)
                for handle, wire in parts[1]:
                    public_shares.setdefault(handle, set()).add(DecryptionShare.from_wire(wire).holder)
    for machine in machines:
        cards = machine.replica.state.cards
        ledger = machine.ledger
        assert ledger is not None
        for handle in hidden:
            if handle not in cards or cards.where(handle).startswith(SEALED_PREFIX):
                continue  # (a choice applied once every seat's was revealed: no secret any more)
            if cards._faces[handle] is not None:
                found.append(f"card {handle}'s face in a state")
            if handle in machine.replica.book.public or handle in machine.replica.book.private:
                found.append(f"card {handle}'s face in a book")
            ct = ledger.cts.get(handle)
            if ct is None:
                continue
            holders = public_shares.get(handle, set()) | own
            if len(holders) >= ledger.joint.t:
                found.append(f"card {handle}: {len(holders)} shares that open it")
            if ledger.me is not None:
                try:  # its own share alone, as if it were the whole key
                    ledger.faces.decode(decrypt(ledger.me.secret, ct))
                except ValueError:
                    pass
                else:
                    found.append(f"card {handle} opens with one key share alone")
    return sorted(set(found))
