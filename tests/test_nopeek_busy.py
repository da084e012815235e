"""A program busy with a proof is not a program gone.

Found trying issue 29 on one shared machine (the SSH-box party): six 2-player no-peek tables
of Dragons & Chickens and four busy loops on two cores, and three tables hung, their joiners
saying "The host has gone silent". A program checking or making a shuffle's proof (0.2 s of
CPU for a 109-card deck, 0.6-0.9 s of wall time on that machine) stopped its event loop for
longer than the channel's silence timeout (0.8 s), and its peers took it for gone.

Now a program hands each proof out (``Step.work``): the asyncio runner does it on a worker
thread while its loop goes on answering the channel, and the simulator does it in virtual
time; whatever comes in meanwhile waits its turn in the program. These tests make each proof
take longer than the silence timeout and play whole tables through it.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from netcode.channel.config import Config
from netcode.dealing import ledger
from xmas_tui.games import get_game
from xmas_tui.tables.audit import audit_log, normal, seat_log
from xmas_tui.tables.seatbot import play_seat
from xmas_tui.tables.simulation import SimTable

from .netkit import bot_for, joiner, loopback_host

#: longer than the channel takes to call a silent peer gone
SLOW = Config().silence_timeout + 0.3


@pytest.mark.parametrize("game_id", ["dragons-chickens", "christmas-game"])
def test_proofs_that_take_longer_than_the_silence_timeout_hold_nothing_up_in_virtual_time(game_id: str) -> None:
    """Every proof, made or checked, takes ``SLOW`` virtual seconds on its machine: messages
    come in meanwhile and wait their turn (``held_back``), and the table plays to the end with
    every program agreeing, every audit passing and nobody taken for gone."""
    game = get_game(game_id)
    table = SimTable(game, 3, no_peek=True, pace=0.3, seed=11, work_time=SLOW)
    assert table.run(3600), "the table did not finish"
    finals = [s.final for s in table.sessions]
    assert all(f is not None for f in finals) and len({f.digest for f in finals}) == 1
    for session in table.sessions:
        assert session.alarm is None and session.halted is None
        assert audit_log(normal(seat_log(session)))["ok"]
    machines = [s.mental.machine for s in table.sessions] + [table.host.rules.machine]  # type: ignore[union-attr]
    assert all(m.audited for m in machines[:-1])
    assert sum(m.held_back for m in machines) > 0, "nothing ever came in while a proof was under way"
    assert table.host.term == 1, "the host was taken for gone"


def _slow_real_table() -> list:
    """The host on this thread's event loop, the joiner on another thread's: two machines
    (a loop stopped on one leaves the other's running, as on two terminals)."""
    joined: list = []
    failed: list[BaseException] = []

    async def host_side() -> object:
        host = loopback_host(get_game("christmas-carol"), 2, code="SLOW-TEST", auto_start=True, seed=5, no_peek=True)
        mine = await host.open()
        thread = threading.Thread(target=lambda: _join_in_own_loop(host, joined, failed))
        thread.start()
        try:
            await play_seat(mine, bot_for(mine, "sensible"), wait=90)
            await host.finish()
        finally:
            await asyncio.to_thread(thread.join, 100)
            await host.close()
        return mine.links[0].session

    mine = asyncio.run(host_side())
    if failed:
        raise failed[0]
    return [mine, *joined]


def _join_in_own_loop(host: object, joined: list, failed: list[BaseException]) -> None:
    async def play() -> None:
        seat = joiner(host, "Holly", code="slow-test")  # type: ignore[arg-type]
        try:
            table = await seat.join(timeout=10)
            await play_seat(table, bot_for(table, "sensible"), wait=90)
            joined.append(table.links[0].session)
        finally:
            await seat.close()

    try:
        asyncio.run(play())
    except BaseException as error:  # noqa: BLE001  (reported on the test's thread)
        failed.append(error)


def test_real_peers_go_on_answering_while_each_proof_takes_longer_than_the_silence_timeout(monkeypatch) -> None:
    """Real peers on loopback (one process, one event loop, as if on one busy machine), each
    the deal's first four proof checks slowed to ``SLOW`` seconds each on the thread that does
    them: a loop stopped that long would have both machines take the other for gone; the game
    plays to the end."""
    real = ledger.verify_shuffle
    slowed = []

    def slow_verify(*args, **kwargs):  # (the thread that checks sleeps; the loop must not)
        if len(slowed) < 4:  # (the deal's first checks: the table is long gone by then, or never)
            slowed.append(1)
            time.sleep(SLOW)
        return real(*args, **kwargs)

    monkeypatch.setattr(ledger, "verify_shuffle", slow_verify)
    sessions = _slow_real_table()
    assert len(slowed) == 4, "too few proofs were checked"
    finals = [s.final for s in sessions]
    assert all(f is not None for f in finals) and len({f.digest for f in finals}) == 1
    for session in sessions:
        assert session.alarm is None and session.gone is None
