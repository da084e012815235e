"""A seat's machine becomes the table's host: the host session it resumes the game with.

Owns ``resumed_host``: from what a player's seat session knows (its welcome, the deal's
nonces, the names, who is a bot, the public log) and what the ballots brought
(``Takeover``: the old host's secret rebuilt, the longest record of play), the
``HostSession`` that deals the same cards again, replays the record and goes on, with
the note every screen shows (the new host; a forged share refused).

Must not touch: sockets, clocks, asyncio, games (they come in through ``host_for``).
"""

from __future__ import annotations

from collections.abc import Callable

from netcode.fairplay import Ledger, Signer
from netcode.session.election import Takeover
from netcode.session.host import HostSession, RulesFactory, TableSettings
from netcode.session.seat import SeatSession, host_changed
from netcode.session.seats import SeatState

#: ``host_for(session)``: the settings and rules of a host taking the table of ``session`` over
HostFactory = Callable[[SeatSession], tuple[TableSettings, RulesFactory]]


def resumed_host(session: SeatSession, plan: Takeover, term: int, now: float, host_for: HostFactory,
                 signer: Signer | None, forgers: dict[int, str]) -> HostSession:
    """The host session ``session``'s machine takes the table over with, in ``term``."""
    welcome, deal = session.welcome, session.deal
    assert welcome is not None and deal is not None
    settings, make_rules = host_for(session)
    ledger = Ledger(welcome.game, session.verifier.table_id, plan.secret, options=dict(welcome.options))
    for seat, (commit, nonce) in enumerate(zip(deal.nonce_commits, deal.nonces, strict=True)):
        if commit is not None:
            ledger.nonce_commits[seat] = commit
            if nonce is not None:
                ledger.revealed[seat] = nonce
    if session.view is not None:
        names = list(session.view["public"]["players"])
    else:  # the host went before its first view reached me (a real-time game's first room waits)
        names = [row.name or "" for row in sorted(session.roster, key=lambda row: row.seat)]
    bots = [row.state is SeatState.BOT for row in session.roster]
    old = next((row.name for row in session.roster if row.seat == session.host_seat), None) or welcome.host
    note = host_changed(old, session.name, session.handover)
    if forgers:
        named = " and ".join(sorted(set(forgers.values())))
        note += f" {named}'s program sent a forged share of the old host's secret: it was refused."
    return HostSession.resume(
        settings, make_rules, ledger, signer or Signer(), term=term, names=names,
        bots=bots, actions=plan.actions, log=session.log if session.view is not None else None,
        logged=len(session.actions), now=now, note=note,
        gone=session.host_seat,
    )  # fmt: skip
