"""Tables across terminals: hosting one, joining one, finding them on the LAN.

Owns: ``HostedTable`` (a table this machine hosts: the host session with the
host's own seat in this process, served on the channel and announced on the
LAN), ``JoinedTable`` (my seat at a table hosted elsewhere), ``TableFinder``
(the tables heard on the LAN), join codes, and the seat keys a player keeps
per table so that only they can take their seat back after a drop.

These are the facades the UI uses: it hosts, joins, adds bots, starts,
hands seats to bots and closes through them, and plays through the
``SessionTable`` each gives it. Nothing here decides anything about the table:
the sessions in ``netcode.session`` do.

Must not touch: Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import socket
import time
from collections.abc import Callable
from pathlib import Path

from netcode.channel import Endpoint, JoinAttemptFailed
from netcode.discovery import (
    Announcements,
    Heard,
    TableInfo,
    discovery_address,
    parse_address,
    probe,
)
from netcode.fairplay import Ledger, Signer, new_secret, secret_from_seed
from netcode.runners import HostRunner, JoinError, Listeners, LocalSeat, SeatRunner
from netcode.session.host import HostSession, RulesFactory, TableSettings
from netcode.session.node import HostNode
from netcode.session.peer import HostFactory
from netcode.session.seat import SeatSession
from netcode.session.seats import RosterRow, SeatState
from xmas_tui.games import Game, get_game

from .audit import data_dir
from .rules import GameRules
from .table import DEFAULT_PACE, SessionTable

__all__ = ["Heard", "HostedTable", "JoinError", "JoinedTable", "RosterRow", "SeatState", "TableFinder",
           "lan_address", "new_code", "parse_address"]

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
#: seconds a real-time round's result stays on every screen before the next room opens
#: (a board's pause between rounds at the default pace)
INTERMISSION = 3 * DEFAULT_PACE


def lan_address() -> str:
    """This machine's address on the LAN, for players who type ``host:port`` (no packet is sent)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as route:
        route.connect(("192.0.2.1", 9))  # TEST-NET: connect() on UDP only picks a route
        return route.getsockname()[0]
    return "127.0.0.1"


def takeover_host(game: Game, bot: str = "sensible", hold: float = 30.0, pace: float = 0.0) -> HostFactory:
    """What a player's machine needs to take a table of ``game`` over if its host goes away:
    the table's settings as its welcome told them, and our engine with bots (``pace``: the
    seconds a bot takes for a move, so people can follow it)."""

    def host_for(session: SeatSession) -> tuple[TableSettings, RulesFactory]:
        welcome = session.welcome
        assert welcome is not None
        options = dict(welcome.options)
        settings = TableSettings(game.id, game.title, welcome.seats, session.name, options, hold=hold,
                                 bot_pace=pace, turn_time=welcome.turn_time, intermission=INTERMISSION)
        return settings, lambda names, seed: GameRules(game, names, seed=seed, bot=bot, options=options)

    return host_for


def new_code() -> str:
    """A short join code a person can read out: ``XKCD-42QZ``."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


class HostedTable:
    """A table this machine hosts on the LAN, its own player at seat 1 (index 0)."""

    def __init__(self, game: Game, players: int, *, code: str, name: str, port: int = 0,
                 bind_host: str = "0.0.0.0", discovery: tuple[str, int] | None = None, bot: str = "smart",
                 bots: int = 0, hold: float = 30.0, pace: float = 0.0, turn_time: float | None = None,
                 auto_start: bool = False, seed: int | None = None, options: dict | None = None,
                 announce: bool = True) -> None:
        self.game, self.code, self.name = game, code, name
        self.table_id = os.urandom(8)
        options = dict(options or {})
        secret = secret_from_seed(seed) if seed is not None else new_secret()
        self.ledger = Ledger(game.id, self.table_id, secret, options=options)
        settings = TableSettings(
            game.id, game.title, players, name, options, hold=hold, bot_pace=pace, turn_time=turn_time,
            auto_start=auto_start, intermission=INTERMISSION,
        )  # fmt: skip
        session = HostSession(settings, lambda names, seed: GameRules(game, names, seed=seed, bot=bot, options=options),
                              self.ledger, Signer(), bot_seats=range(1, 1 + bots))
        self.runner = HostRunner(
            HostNode(session), endpoint=Endpoint(code, self.table_id, max_peers=64),
            bind=(bind_host, port), info=self.info,
            discovery=(discovery or discovery_address()) if announce else None,
        )  # fmt: skip
        self.me: LocalSeat | None = None
        self.table: SessionTable | None = None
        self._failed_join_callbacks: dict[Callable[[str], None], Callable[[JoinAttemptFailed], None]] = {}

    @property
    def host(self) -> HostSession:
        return self.runner.host

    async def open(self, *, sit: bool = True) -> SessionTable | None:
        """Open the table on the LAN and sit the host's own player down; returns their table.
        With ``sit`` False this machine only hosts: every seat is for someone who joins."""
        await self.runner.open()
        if not sit:
            return None
        seat = SeatSession(self.name, self.table_id, self.ledger.commitment, game=self.game.id)
        self.me = LocalSeat(self.runner, seat)
        self.table = SessionTable(self.game, [self.me])
        return self.table

    # ------------------------------------------------------------ facts
    @property
    def address(self) -> tuple[str, int]:
        return self.runner.address

    @property
    def join_address(self) -> str:
        """``HOST:PORT`` as another machine types it: this machine's LAN address, or the
        address the table is bound to if it is bound to one."""
        host, port = self.address
        return f"{lan_address() if host in ('0.0.0.0', '::') else host}:{port}"

    @property
    def started(self) -> bool:
        return self.host.started

    @property
    def peer_id(self) -> int:
        assert self.runner.endpoint is not None
        return self.runner.endpoint.local_id

    def info(self) -> TableInfo:
        host = self.host
        return TableInfo(
            self.table_id, self.game.id, self.game.title, self.name, len(host.seats), host.taken,
            self.address[1], self.peer_id, host.started, self.ledger.commitment,
        )  # fmt: skip

    def roster(self) -> list[RosterRow]:
        return self.host.roster(time.monotonic())

    def spectators(self) -> list[str]:
        """The names of those watching this table (a big screen, latecomers)."""
        return self.host.spectators()

    def has_player(self, seat: int) -> bool:
        """Whether a person sat at ``seat`` (so a bot playing it can give it back)."""
        return self.host.seats[seat].sat

    def subscribe(self, callback: Callable[[list], None]) -> None:
        """Call ``callback`` with the host's events after every change (seats, the deal, moves)."""
        self.runner.host_listeners.add(callback)

    def unsubscribe(self, callback: Callable[[list], None]) -> None:
        self.runner.host_listeners.remove(callback)

    # ------------------------------------------------------------ failed joins
    def failed_joins(self) -> list[str]:
        """Who tried to join without the code, one line per address, the most attempts first:
        "3 failed join attempts from 127.0.0.1" (empty if nobody)."""
        endpoint = self.runner.endpoint
        return endpoint.describe_failed_attempts() if endpoint is not None else []

    def door(self) -> str:
        """What the door holds now, one line ("" if nothing): "busy: 16 join attempts waiting
        from 4 addresses", "9800 unproven joins a second turned away"."""
        endpoint = self.runner.endpoint
        return endpoint.describe_door(time.monotonic()) if endpoint is not None else ""

    @property
    def failed_joins_total(self) -> int:
        """Failed join attempts at this table, from every address."""
        endpoint = self.runner.endpoint
        return endpoint.failed_attempts_total if endpoint is not None else 0

    def subscribe_failed_joins(self, callback: Callable[[str], None]) -> None:
        """Call ``callback`` as each join attempt fails, with what it says of its address
        ("2 failed join attempts from 127.0.0.1")."""
        self._failed_join_callbacks[callback] = lambda event: callback(event.text)
        self.runner.join_failures.add(self._failed_join_callbacks[callback])

    def unsubscribe_failed_joins(self, callback: Callable[[str], None]) -> None:
        wrapped = self._failed_join_callbacks.pop(callback, None)
        if wrapped is not None:
            self.runner.join_failures.remove(wrapped)

    # ------------------------------------------------------------ the host's commands
    def start(self) -> None:
        """Deal now: bots take the open seats."""
        self.runner.command(self.host.start)

    def add_bots(self, count: int) -> None:
        self.runner.command(lambda now: self.host.add_bots(count, now))

    def hand_to_bot(self, seat: int) -> None:
        self.runner.command(lambda now: self.host.hand_to_bot(seat, now))

    def take_back(self, seat: int) -> None:
        self.runner.command(lambda now: self.host.take_back(seat, now))

    @property
    def can_hand_over(self) -> bool:
        """Whether the players at other machines could take the table over if I left."""
        return self.host.can_hand_over

    def hand_over(self) -> None:
        """I leave: the players at other machines elect the next host among themselves now
        (``close`` then lets them have the handover before the socket goes)."""
        self.runner.command(self.host.hand_over)

    async def finish(self) -> None:
        """Wait (a few seconds at most) until every peer has the game's last messages."""
        await self.runner.flush()

    async def close(self) -> None:
        if self.host.stepped_down:
            await self.runner.flush()
        await self.runner.close()


class JoinedTable:
    """My seat (or a spectator's place) at a table another machine hosts."""

    def __init__(self, address: tuple[str, int], code: str, name: str, info: TableInfo | None = None, *,
                 bind_host: str | None = None, watch: bool = False, discovery: tuple[str, int] | None = None,
                 bot: str = "sensible", pace: float = 0.0) -> None:
        """``discovery``: where to announce the table should this machine take it over (its host
        gone); ``bot`` and ``pace``: how bots play then, and the seconds each move takes."""
        self.address, self.code, self.name, self.info = address, code, name, info
        self.bind_host, self.watch, self.discovery, self.bot, self.pace = bind_host, watch, discovery, bot, pace
        self.runner: SeatRunner | None = None
        self.table: SessionTable | None = None
        self._listening = Listeners()  # those who subscribed before the join: told from its first message

    async def join(self, timeout: float = 4.0) -> SessionTable:
        """Find the table, connect and be seated; ``JoinError`` says why not, in words."""
        if self.info is None:
            try:
                self.info = await probe(self.address, timeout=min(timeout, 2.0))
            except (TimeoutError, OSError) as exc:
                raise JoinError(
                    f"No table answered at {self.address[0]}:{self.address[1]}. Check the address and "
                    "that the host's firewall lets UDP through."
                ) from exc
        info = self.info
        kept = recall_seat(info.table_id, self.name)
        session = SeatSession(self.name, info.table_id, info.seed_commit or None, game=info.game,
                              nonce=kept.get("nonce"), token=kept.get("token"), watch=self.watch)
        endpoint = Endpoint(self.code, info.table_id, accept_unknown=False)
        self.runner = SeatRunner(
            session, self.address, info.peer, endpoint, bind_host=self.bind_host,
            host_for=takeover_host(get_game(info.game), self.bot, pace=self.pace), info=self._hosting_info,
            discovery=self.discovery or discovery_address(),
        )  # fmt: skip
        self.runner.listeners.add(self._listening)
        await self.runner.join(timeout)
        if session.seat is not None and session.token is not None:
            remember_seat(info.table_id, self.name, session.token, session.verifier.nonce)
        self.table = SessionTable(get_game(session.welcome.game), [self.runner])  # type: ignore[union-attr]
        return self.table

    @property
    def session(self) -> SeatSession:
        assert self.runner is not None
        return self.runner.session

    @property
    def can_hand_over(self) -> bool:
        """Whether this machine hosts the table now (it took it over) and the other players
        could take it over in turn if I left."""
        node = self.runner.peer.node if self.runner is not None else None
        return node is not None and node.host.can_hand_over

    def hand_over(self) -> None:
        """I leave the table this machine hosts: the others elect the next host now."""
        if self.runner is not None:
            self.runner.hand_over()

    @property
    def failovers(self) -> int:
        """How many times another machine took this table over while I sat at it."""
        return self.runner.peer.failovers if self.runner is not None else 0

    def _hosting_info(self) -> TableInfo:
        """The announcement of this table once this machine hosts it."""
        runner = self.runner
        assert runner is not None and runner.aio is not None and self.info is not None
        node = runner.peer.node
        host = node.host if node is not None else None
        return TableInfo(
            self.info.table_id, self.info.game, self.info.title, self.name, self.info.seats,
            host.taken if host is not None else self.info.taken, runner.aio.address[1], runner.endpoint.local_id,
            True, self.info.seed_commit,
        )  # fmt: skip

    @property
    def seat(self) -> int | None:
        return self.session.seat

    @property
    def game(self) -> Game:
        return get_game(self.session.welcome.game)  # type: ignore[union-attr]

    @property
    def host_name(self) -> str:
        return self.session.welcome.host  # type: ignore[union-attr]

    def roster(self) -> list[RosterRow]:
        return list(self.session.roster)

    @property
    def problem(self) -> str | None:
        return self.session.alarm or self.session.gone

    def subscribe(self, callback: Callable[[list], None]) -> None:
        """Call ``callback`` with my seat's events after every change (from the join's first
        message on, if subscribed before joining)."""
        self._listening.add(callback)

    def unsubscribe(self, callback: Callable[[list], None]) -> None:
        self._listening.remove(callback)

    async def close(self) -> None:
        if self.runner is not None:
            await self.runner.close()


class TableFinder:
    """The tables heard on the LAN (or at the discovery address given), newest first."""

    def __init__(self, discovery: tuple[str, int] | None = None) -> None:
        self._heard = Announcements(discovery)

    async def start(self) -> None:
        await self._heard.start()

    def current(self) -> list[Heard]:
        return self._heard.current()

    async def changed(self, timeout: float) -> None:
        await self._heard.changed(timeout)

    def close(self) -> None:
        self._heard.close()


async def find_table(code: str, discovery: tuple[str, int] | None, game_id: str | None,
                     timeout: float = 5.0) -> tuple[str, int]:
    """The address of an announced table (of ``game_id``, if given)."""
    finder = TableFinder(discovery)
    await finder.start()
    try:
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            for heard in finder.current():
                if game_id is None or heard.info.game == game_id:
                    return heard.address
            await finder.changed(0.2)
        raise TimeoutError("no table was announced on the LAN; give --address HOST:PORT")
    finally:
        finder.close()


# ---------------------------------------------------------------- seat keys

#: seat keys kept at once (the oldest beyond this are let go)
KEEP_SEATS = 64


def _seat_file(table_id: bytes, name: str) -> Path:
    tag = "".join(c if c.isalnum() else "_" for c in name.casefold())[:32]
    return data_dir().parent / "seats" / f"{table_id.hex()}-{tag}.json"


def remember_seat(table_id: bytes, name: str, token: bytes, nonce: bytes) -> None:
    """Keep my rejoin token and nonce for this table, readable by me alone."""
    path = _seat_file(table_id, name)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump({"token": token.hex(), "nonce": nonce.hex()}, out)
        kept = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[KEEP_SEATS:]:
            old.unlink()


def recall_seat(table_id: bytes, name: str) -> dict[str, bytes]:
    """My rejoin token and nonce for this table, if I sat there before (else empty)."""
    try:
        raw = json.loads(_seat_file(table_id, name).read_text(encoding="utf-8"))
        return {"token": bytes.fromhex(raw["token"]), "nonce": bytes.fromhex(raw["nonce"])}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
