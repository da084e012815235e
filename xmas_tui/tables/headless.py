"""Playing a networked table with no terminal: a bot plays my seat, a JSON line tells the end.

Owns: ``headless_host`` and ``headless_join`` (``xmas-tui host/join --headless``)
and ``summary``, the JSON object a headless seat prints at the end: the game,
my seat, the result, the public digest (the same on every honest peer), the
fair-play verdict and where the game log went (and, for the host, the join
attempts that failed at its table).

SIGTERM (or Ctrl+C) to a machine that hosts a game in play hands the table over when
the others can take it (they elect a new host and play on; the JSON line then says
``"handed_over": true``), and otherwise closes it for everyone.

Must not touch: Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
from collections.abc import Callable
from typing import Any

from netcode.session.host import ActionApplied
from xmas_tui.games import Game, IllegalAction
from xmas_tui.games.engine import public_digest

from .audit import audit_seat, write_log
from .network import NetTable, find_table, lan_address
from .seatbot import SeatBot, play_seat, rng_for
from .table import SessionTable


def summary(table: SessionTable, *, role: str, log: str | None | bool = False, **extra: Any) -> dict:
    """The JSON line of a headless seat at the end of its game. Every seat it names is counted
    from 1, as people count seats (``seat``, null for a spectator; the result's ``winners``);
    the result's ``scores`` and ``details`` are lists in seat order.

    ``log``: ``False`` writes no log, ``None`` writes it to the default place, else to that path.
    A log that cannot be written is said in ``log_error``: the result is printed all the same."""
    session = table.session
    final = session.final
    assert final is not None
    verdict = audit_seat(session)
    record = verdict.pop("log")
    written: dict[str, str] = {}
    if log is not False:
        try:
            written["log"] = str(write_log(record, log))
        except OSError as exc:
            written["log_error"] = f"the game log could not be written: {exc.strerror or exc}"
    return {
        "game": table.game.id, "seat": None if session.seat is None else session.seat + 1, "role": role,
        "result": {**final.result, "winners": [winner + 1 for winner in final.result["winners"]]},
        "digest": public_digest(final.public), "host_digest": final.digest,
        "drops": dict(session.drops), "audit": verdict, **extra, **written,
    }  # fmt: skip


def seat_bot(table: SessionTable, bot: str, name: str, pace: float) -> SeatBot:
    return SeatBot(table.game, bot, rng_for(name, secrets.token_hex(4)), pace=pace)


class HandedOverError(Exception):
    """This machine's player left the table it hosted, handing it over to the others."""


async def play_until_asked_to_leave(table: SessionTable, bot: SeatBot, hosting: NetTable,
                                    wait: float) -> None:
    """``play_seat``, except that SIGTERM or Ctrl+C hands the table over if this machine hosts
    it and the others can take it (``HandedOverError``), and otherwise stops playing."""
    loop = asyncio.get_running_loop()
    playing = asyncio.ensure_future(play_seat(table, bot, wait=wait))
    handed = False

    def leave() -> None:
        nonlocal handed
        if hosting.can_hand_over and not handed:
            handed = True
            hosting.hand_over()  # my seat hears the handover: play_seat ends
        else:
            playing.cancel()

    signals = [signal.SIGTERM, signal.SIGINT]
    for each in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError):  # (no signals off the main thread)
            loop.add_signal_handler(each, leave)
    try:
        await playing
    except IllegalAction:
        if handed:
            raise HandedOverError from None
        raise
    except asyncio.CancelledError:
        raise IllegalAction("Stopped: the table is closed.") from None
    finally:
        for each in signals:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(each)


async def headless_host(game: Game, players: int, *, code: str, name: str, port: int, bot: str, bots: int,
                        discovery: tuple[str, int] | None, bind_host: str = "0.0.0.0", hold: float = 30.0,
                        seed: int | None = None, wait: float = 3600.0, log: str | None = None,
                        options: dict | None = None, pace: float = 0.0, turn_time: float | None = None,
                        opened: Callable[[dict], None] | None = None, no_peek: bool = False) -> dict:
    """Host a table whose own seat a bot plays; deal when every seat is taken.
    ``opened`` is told where the table is (its code and address) as soon as it is open, then
    once more when play begins (the deal is done and its first move made)."""
    hosted = NetTable.hosted(game, players, code=code, name=name, port=port, bind_host=bind_host,
                         discovery=discovery, bot=bot, bots=bots, auto_start=True, hold=hold, seed=seed,
                         options=options, pace=pace, turn_time=turn_time, no_peek=no_peek)
    table = await hosted.open()
    try:
        if opened is not None:
            bound = hosted.address[0]
            where = lan_address() if bound in ("0.0.0.0", "::", "") else bound
            opened({"event": "table", "game": game.id, "code": code, "address": f"{where}:{hosted.address[1]}",
                    "seats": players})
            def playing(events: list) -> None:
                if any(isinstance(event, ActionApplied) for event in events):
                    hosted.unsubscribe(playing)
                    opened({"event": "playing", "game": game.id})

            hosted.subscribe(playing)
        if players == 1 + bots:
            hosted.start()
        try:
            await play_until_asked_to_leave(table, seat_bot(table, bot, name, pace), hosted, wait)
        except HandedOverError:
            return {"game": game.id, "seat": 1, "role": "host", "handed_over": True, "failovers": 0}
        except TimeoutError:
            if not hosted.started:
                raise TimeoutError(f"nobody took the open seats within {wait:.0f} s; the table is closed") from None
            raise TimeoutError(f"the game did not end within {wait:.0f} s; the table is closed") from None
        await hosted.finish()
        drops = dict(hosted.runner.endpoint.drops) if hosted.runner.endpoint else {}
        return summary(table, role="host", log=log, code=code, port=hosted.address[1], host_drops=drops, failovers=0,
                       failed_joins=hosted.failed_joins_total)
    finally:
        await hosted.close()


async def headless_join(game_id: str | None, *, address: tuple[str, int] | None, code: str, name: str,
                        bot: str, discovery: tuple[str, int] | None = None, wait: float = 3600.0,
                        log: str | None = None, pace: float = 0.0) -> dict:
    """Join a table (at ``address``, or the one heard that ``code`` may open) and let a bot play
    my seat; return the JSON summary."""
    info = None
    if address is None:
        heard = await find_table(code, discovery, game_id)
        address, info = heard.address, heard.info
    joined = NetTable.joined(address, code, name, info=info, discovery=discovery, bot=bot, pace=pace)
    try:
        table = await joined.join()
        if table.seat is None:
            raise IllegalAction("The table is full and playing: there is no seat for a headless player.")
        try:
            await play_until_asked_to_leave(table, seat_bot(table, bot, name, pace), joined, wait)
        except HandedOverError:
            return {"game": table.game.id, "seat": table.seat + 1, "role": "join", "handed_over": True,
                    "failovers": joined.failovers}
        assert joined.runner is not None
        return summary(table, role="join", log=log, failovers=joined.failovers,
                       timeline=[[what, round(when, 4)] for what, when in joined.runner.timeline])
    finally:
        await joined.close()

