"""Tables across terminals: hosting one, joining one, finding them on the LAN.

Owns: ``NetTable`` (a networked table as this machine sits at it: hosting it,
served on the channel and announced on the LAN, or joined to its host),
``TableFinder`` (the tables heard on the LAN and on this machine) and
``find_table`` (the one table a join code may open), join codes (made up and
checked by ``netcode.codes``, one normal form everywhere), and the seat keys a
player keeps per table so that only they can take their seat back after a drop.

``NetTable`` is the one facade the UI uses for a networked table, whether this
machine hosts it or joined it (and whichever it does later: a joiner may be elected
to host): it hosts, joins, adds bots, starts, hands seats to bots, hands the table
over and closes through it, and plays through the ``SessionTable`` it gives.
Nothing here decides anything about the table: the sessions in ``netcode.session``
do.

Must not touch: Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from netcode.channel import Endpoint, JoinAttemptFailed
from netcode.codes import MIN_CODE, code_key, code_problem, code_tag, new_code
from netcode.discovery import (
    HEARD_ALL_AFTER,
    Announcements,
    HeardTable,
    TableInfo,
    discovery_address,
    parse_address,
    probe,
)
from netcode.fairplay import Ledger, Signer, Voice, new_secret, secret_from_seed
from netcode.runners import JoinError, Listeners, PeerRunner
from netcode.session.host import HostSession, RulesFactory, TableSettings
from netcode.session.peer import HostFactory, TablePeer
from netcode.session.seat import SeatSession
from netcode.session.seats import RosterRow, SeatState
from xmas_tui import files
from xmas_tui.games import Game, get_game
from xmas_tui.outside import plain

from .nopeek.rules import rules_factory
from .nopeek.seat import SeatProgram
from .table import DEFAULT_PACE, SessionTable, plain_roster

__all__ = ["MIN_CODE", "HeardTable", "JoinError", "NetTable", "RosterRow", "SeatState", "SeveralTables", "TableFinder",
           "code_key", "code_problem", "find_table", "lan_address", "new_code", "parse_address"]

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
        return settings, rules_factory(game, bot=bot, options=options)

    return host_for


class NetTable:
    """A networked table as this machine sits at it, whether it hosts it or joined it.

    One facade whatever this machine's role, and whatever it becomes: a joiner whose host
    went away may be elected to host, and from then on the host's commands are its own
    (``hosting`` says so at every moment). ``NetTable.hosted`` opens a table this machine
    hosts, its own player at seat 1 (index 0); ``NetTable.joined`` joins one hosted
    elsewhere (found by ``address``)."""

    def __init__(self, runner: PeerRunner | None, game_id: str, name: str, code: str, info: TableInfo | None = None,
                 *, address: tuple[str, int] | None = None) -> None:
        """Made by ``hosted`` or ``joined``; ``runner`` is None until a joiner joins."""
        self._runner = runner
        self.game_id = game_id
        self.name = name
        self.code = code
        #: what the table's announcement said (a joiner), or says (a host: see ``info()``)
        self.heard_info = info
        #: where the table's host is (a joiner)
        self.address_joined = address
        self.table: SessionTable | None = None
        self._listening = Listeners()  # told of every change of the table and of my seat
        #: how a joiner joins: code, local address, watch, discovery, bot, pace
        self._join_with: tuple[str, str, bool, tuple[str, int], str, float] | None = None
        self._failed_join_callbacks: dict[Callable[[str], None], Callable[[JoinAttemptFailed], None]] = {}
        if runner is not None:
            self._listen(runner)

    def _listen(self, runner: PeerRunner) -> None:
        runner.table_listeners.add(self._listening)
        runner.seat_listeners.setdefault(0, Listeners()).add(self._listening)

    @property
    def runner(self) -> PeerRunner:
        """What runs this machine's part of the table (a joiner has one once it joined)."""
        if self._runner is None:
            raise RuntimeError("the table is not joined yet")
        return self._runner

    # ------------------------------------------------------------ making one
    @classmethod
    def hosted(cls, game: Game, players: int, *, code: str, name: str, port: int = 0, bind_host: str = "0.0.0.0",
               discovery: tuple[str, int] | None = None, bot: str = "smart", bots: int = 0, hold: float = 30.0,
               pace: float = 0.0, turn_time: float | None = None, auto_start: bool = False, seed: int | None = None,
               options: dict | None = None, announce: bool = True, no_peek: bool = False) -> NetTable:
        """A table this machine hosts, on the LAN (``open`` opens it). ``no_peek``: the players'
        programs deal and open the cards, so this machine's program sees none of theirs."""
        table_id = os.urandom(8)
        options = dict(options or {})
        secret = secret_from_seed(seed) if seed is not None else new_secret()
        ledger = Ledger(game.id, table_id, secret, options=options)
        settings = TableSettings(
            game.id, game.title, players, name, options, hold=hold, bot_pace=pace, turn_time=turn_time,
            auto_start=auto_start, intermission=INTERMISSION, no_peek=no_peek,
        )  # fmt: skip
        session = HostSession(settings, rules_factory(game, bot=bot, options=options), ledger, Signer(),
                              bot_seats=range(1, 1 + bots))
        endpoint = Endpoint(code, table_id, max_peers=64)
        peer = TablePeer.as_host(session, local_id=endpoint.local_id, heard=endpoint.last_heard)
        table = cls(PeerRunner(peer, endpoint=endpoint, bind=(bind_host, port),
                               discovery=(discovery or discovery_address()) if announce else None), game.id, name,
                    code)
        table.runner.info = table.info
        return table

    @classmethod
    def joined(cls, address: tuple[str, int], code: str, name: str, info: TableInfo | None = None, *,
               bind_host: str | None = None, watch: bool = False, discovery: tuple[str, int] | None = None,
               bot: str = "sensible", pace: float = 0.0) -> NetTable:
        """My seat (or a spectator's place) at a table another machine hosts (``join`` joins it).
        ``discovery``: where to announce the table should this machine take it over (its host
        gone); ``bot`` and ``pace``: how bots play then, and the seconds each move takes."""
        table = cls(None, info.game if info is not None else "", name, code, info, address=address)
        table._join_with = (code, bind_host or ("::" if ":" in address[0] else "0.0.0.0"), watch,
                            discovery or discovery_address(), bot, pace)
        return table

    async def open(self, *, sit: bool = True) -> SessionTable | None:
        """Open the table this machine hosts on the LAN and sit the host's own player down;
        returns their table. With ``sit`` False this machine only hosts: every seat is for
        someone who joins."""
        host = self.host
        assert host is not None, "only a host opens a table"
        await self.runner.open()
        if not sit:
            return None
        seat = SeatSession(self.name, host.ledger.table_id, host.ledger.commitment, game=self.game_id,
                           mental=SeatProgram())
        self.table = SessionTable(get_game(self.game_id), [self.runner.sit(seat)])
        if seat.token is not None:  # (the host's own player can sit down again after a hand-over or a crash)
            remember_seat(host.ledger.table_id, self.name, seat.token, seat.verifier.nonce, seat)
        return self.table

    async def join(self, timeout: float = 4.0) -> SessionTable:
        """Find the table, connect and be seated; ``JoinError`` says why not, in words."""
        assert self.address_joined is not None and self._join_with is not None, "only a joiner joins"
        code, bind_host, watch, discovery, bot, pace = self._join_with
        address = self.address_joined
        if self.heard_info is None:
            try:
                self.heard_info = await probe(address, timeout=min(timeout, 2.0))
            except (TimeoutError, OSError) as exc:
                raise JoinError(
                    f"No table answered at {address[0]}:{address[1]}. Check the address and "
                    "that the host's firewall lets UDP through."
                ) from exc
        info = self.heard_info
        refuse_other_code(info, code, address)
        self.game_id = info.game
        kept = recall_seat(info.table_id, self.name)
        program, voice = kept_program(kept)
        session = SeatSession(self.name, info.table_id, info.seed_commit or None, game=info.game,
                              nonce=kept.get("nonce"), token=kept.get("token"), watch=watch,
                              mental=program, voice=voice)
        endpoint = Endpoint(code, info.table_id, accept_unknown=False)
        peer = TablePeer.as_seat(session, info.peer, address, endpoint.local_id,
                                 host_for=takeover_host(get_game(info.game), bot, pace=pace), signer=Signer(),
                                 heard=endpoint.last_heard)
        runner = PeerRunner(peer, endpoint=endpoint, bind=(bind_host, 0), info=self.info, discovery=discovery)
        self._listen(runner)
        self._runner = runner
        await runner.join(timeout)
        if session.seat is not None and session.token is not None:
            remember_seat(info.table_id, self.name, session.token, session.verifier.nonce, session)
        assert session.welcome is not None, "a joined table was welcomed"
        self.game_id = session.welcome.game
        self.table = SessionTable(get_game(self.game_id), [runner.link(0)])
        return self.table

    # ------------------------------------------------------------ facts
    @property
    def hosting(self) -> bool:
        """Whether this machine hosts the table now (from the start, or elected)."""
        return self.host is not None

    @property
    def host(self) -> HostSession | None:
        """The host session, while this machine hosts the table."""
        return self._runner.host if self._runner is not None else None

    @property
    def session(self) -> SeatSession:
        """My own seat's session."""
        return self.runner.session

    @property
    def ledger(self) -> Ledger:
        """The host's fair-play ledger, while this machine hosts the table."""
        host = self.host
        assert host is not None, "only the host keeps the ledger"
        return host.ledger

    @property
    def table_id(self) -> bytes:
        return self.ledger.table_id if self.hosting else self.session.verifier.table_id

    @property
    def seat(self) -> int | None:
        return self.session.seat

    @property
    def game(self) -> Game:
        return get_game(self.game_id)

    @property
    def host_name(self) -> str:
        welcome = self.session.welcome
        return plain(welcome.host, lines=False) if welcome is not None else self.name

    @property
    def address(self) -> tuple[str, int]:
        """Where the table is: this machine's socket while it hosts, else its host's address (as
        joined; after a change of host, where the new host is)."""
        if self.hosting or self.address_joined is None:
            return self.runner.address
        return self._host_address() or self.address_joined

    def _host_address(self) -> tuple[str, int] | None:
        runner = self._runner
        peer = runner.peer if runner is not None else None
        if peer is None or peer.host_peer is None or runner.endpoint is None:
            return None
        connection = runner.endpoint.peers.get(peer.host_peer)
        address = getattr(connection, "address", None)
        return tuple(address[:2]) if isinstance(address, tuple) else None

    @property
    def join_address(self) -> str:
        """``HOST:PORT`` as another machine types it: this machine's LAN address, or the
        address the table is bound to if it is bound to one."""
        host, port = self.runner.address if self.hosting else self.address
        return f"{lan_address() if host in ('0.0.0.0', '::') else host}:{port}"

    @property
    def started(self) -> bool:
        host = self.host
        return host.started if host is not None else self.session.dealt

    @property
    def peer_id(self) -> int:
        assert self.runner.endpoint is not None
        return self.runner.endpoint.local_id

    @property
    def failovers(self) -> int:
        """How many times another machine took this table over while I sat at it."""
        return self._runner.peer.failovers if self._runner is not None else 0

    @property
    def problem(self) -> str | None:
        problem = self.session.alarm or self.session.gone
        return None if problem is None else plain(problem)

    def info(self) -> TableInfo:
        """The table's announcement, as this machine makes it while it hosts."""
        host = self.host
        assert host is not None, "only a host announces the table"
        heard = self.heard_info
        title = heard.title if heard is not None else self.game.title
        return TableInfo(
            host.ledger.table_id, self.game_id, title, self.name, len(host.seats), host.taken,
            self.address[1], self.peer_id, host.started, host.ledger.commitment, code_tag=code_tag(self.code),
            over=host.finished,
        )  # fmt: skip

    def roster(self) -> list[RosterRow]:
        host = self.host
        return host.roster(time.monotonic()) if host is not None else plain_roster(self.session.roster)

    def spectators(self) -> list[str]:
        """The names of those watching this table (a big screen, latecomers), while I host it."""
        host = self.host
        return host.spectators() if host is not None else []

    def has_player(self, seat: int) -> bool:
        """Whether a person sat at ``seat`` (so a bot playing it can give it back)."""
        host = self.host
        return host is not None and host.seats[seat].sat

    def subscribe(self, callback: Callable[[list], None]) -> None:
        """Call ``callback`` with the events of every change: of the table while this machine
        hosts it (seats, the deal, moves), and of my seat (from the join's first message on)."""
        self._listening.add(callback)

    def unsubscribe(self, callback: Callable[[list], None]) -> None:
        self._listening.remove(callback)

    # ------------------------------------------------------------ failed joins
    def failed_joins(self) -> list[str]:
        """Who tried to join without the code, one line per address, the most attempts first:
        "3 failed join attempts from 127.0.0.1" (empty if nobody, or if I do not host)."""
        endpoint = self._runner.endpoint if self._runner is not None else None
        return endpoint.describe_failed_attempts() if endpoint is not None and self.hosting else []

    def door(self) -> str:
        """What the door holds now, one line ("" if nothing): "busy: 16 join attempts waiting
        from 4 addresses", "9800 unproven joins a second turned away"."""
        endpoint = self._runner.endpoint if self._runner is not None else None
        return endpoint.describe_door(time.monotonic()) if endpoint is not None and self.hosting else ""

    @property
    def failed_joins_total(self) -> int:
        """Failed join attempts at this table, from every address (while I host it)."""
        endpoint = self._runner.endpoint if self._runner is not None else None
        return endpoint.failed_attempts_total if endpoint is not None and self.hosting else 0

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
    def _command(self, run: Callable[[HostSession, float], Any]) -> None:
        host = self.host
        if host is not None:
            self.runner.command(lambda now: run(host, now))

    def start(self) -> None:
        """Deal now: bots take the open seats."""
        self._command(lambda host, now: host.start(now))

    def add_bots(self, count: int) -> None:
        self._command(lambda host, now: host.add_bots(count, now))

    def hand_to_bot(self, seat: int) -> None:
        self._command(lambda host, now: host.hand_to_bot(seat, now))

    def take_back(self, seat: int) -> None:
        self._command(lambda host, now: host.take_back(seat, now))

    def finish_with_bots(self) -> None:
        """The last player here leaves the game this machine hosts: bots play it to its end now."""
        if self.hosting:
            self._command(lambda host, now: host.finish_with_bots(now))

    def others_playing(self) -> bool:
        """Whether anyone but this machine's player holds a seat (here, or away and awaited)."""
        mine = self.table.seat if self.table is not None else None
        return any(row.seat != mine and row.state in (SeatState.HERE, SeatState.AWAY) for row in self.roster())

    def close_game(self) -> None:
        """End the game this machine hosts for everyone now, with the scores as they stand
        (``close`` then waits until every peer has the end)."""
        if self.hosting:
            self._command(lambda host, now: host.close_game(now))

    @property
    def can_hand_over(self) -> bool:
        """Whether this machine hosts the table and the players at other machines could take
        it over if I left."""
        host = self.host
        return host is not None and host.can_hand_over

    def hand_over(self) -> None:
        """I leave the table this machine hosts: the players at other machines elect the next
        host among themselves now (``close`` then lets them have the handover first)."""
        if self.hosting:
            self.runner.hand_over()

    async def finish(self) -> None:
        """Wait (a few seconds at most) until every peer has the game's last messages."""
        if self._runner is not None:
            await self._runner.flush()

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.close()


class TableFinder:
    """The tables heard on the LAN and on this machine (or at the discovery address given)."""

    def __init__(self, discovery: tuple[str, int] | None = None) -> None:
        self._heard = Announcements(discovery)
        self._since: float | None = None

    async def start(self) -> None:
        await self._heard.start()
        self._since = time.monotonic()

    def current(self) -> list[HeardTable]:
        return self._heard.current()

    def for_code(self, code: str, game_id: str | None = None) -> list[HeardTable]:
        """The tables heard that ``code`` may open (of ``game_id``, if given)."""
        return [h for h in self.current() if h.info.may_open(code) and game_id in (None, h.info.game)]

    @property
    def settled(self) -> bool:
        """Whether every table announcing has been heard by now (so one that fits a code is
        the only one)."""
        return self._since is not None and time.monotonic() - self._since >= HEARD_ALL_AFTER

    async def changed(self, timeout: float) -> None:
        await self._heard.changed(timeout)

    def close(self) -> None:
        self._heard.close()


def describe_table(heard: HeardTable) -> str:
    """A table heard, in a few words: "Holly's Chip 'n' Dale: Christmas Treasures at 10.0.0.5:4000"."""
    return f"{heard.info.host}'s {heard.info.title} at {heard.address[0]}:{heard.address[1]}"


class SeveralTables(JoinError):
    """More than one table heard may open the code: the player chooses (``tables``)."""

    def __init__(self, code: str, tables: list[HeardTable]) -> None:
        self.tables = tables
        listed = "; ".join(describe_table(h) for h in tables)
        super().__init__(f"{len(tables)} tables may open with code {code}: {listed}. "
                         "Choose yours with --address HOST:PORT")


def refuse_other_code(info: TableInfo, code: str, address: tuple[str, int]) -> None:
    """``JoinError`` if ``code`` cannot open the table ``info`` tells of: it is never tried
    there (the host would count a failed attempt and warn of it)."""
    if not info.may_open(code):
        raise JoinError(f"The code {code} does not open {info.host}'s table at {address[0]}:{address[1]}: "
                        "check the code on the host's screen.")


async def find_table(code: str, discovery: tuple[str, int] | None, game_id: str | None,
                     timeout: float = 5.0) -> HeardTable:
    """The one table heard that ``code`` may open (of ``game_id``, if given), once every table
    announcing has been heard; ``SeveralTables`` if more than one may, TimeoutError if none."""
    finder = TableFinder(discovery)
    await finder.start()
    try:
        clock = asyncio.get_running_loop().time
        deadline = clock() + timeout
        while clock() < deadline:
            fitting = finder.for_code(code, game_id)
            if len(fitting) > 1:
                raise SeveralTables(code, fitting)
            if fitting and finder.settled:
                return fitting[0]
            await finder.changed(0.2)
        others = len([h for h in finder.current() if game_id in (None, h.info.game)])
        if others:
            raise TimeoutError(f"none of the {others} table{'s' * (others > 1)} heard opens with code {code}: "
                               "check the code, or give --address HOST:PORT")
        raise TimeoutError("no table was announced on the LAN; give --address HOST:PORT")
    finally:
        finder.close()


# ---------------------------------------------------------------- seat keys

#: seat keys kept at once (the oldest beyond this are let go)
KEEP_SEATS = 64


def _seat_file(table_id: bytes, name: str) -> Path:
    tag = "".join(c if c.isalnum() else "_" for c in name.casefold())[:32]
    return files.app_data_dir() / "seats" / f"{table_id.hex()}-{tag}.json"


def remember_seat(table_id: bytes, name: str, token: bytes, nonce: bytes, session: SeatSession | None = None) -> None:
    """Keep my rejoin token and nonce for this table, readable by me alone; and my program's
    keys (its personal key and its voice: ``session``'s), should the table deal no-peek, so
    that my program started again takes the seat back and plays on."""
    path = _seat_file(table_id, name)
    kept = {"token": token.hex(), "nonce": nonce.hex()}
    if session is not None and isinstance(session.mental, SeatProgram) and session.voice is not None:
        kept |= {"personal": session.mental.kept().hex(), "voice": session.voice.kept().hex()}
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump(kept, out)
        files_kept = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files_kept[KEEP_SEATS:]:
            old.unlink()


def recall_seat(table_id: bytes, name: str) -> dict[str, bytes]:
    """My rejoin token and nonce for this table, and my program's keys, if I sat there before
    (else empty)."""
    try:
        raw = json.loads(_seat_file(table_id, name).read_text(encoding="utf-8"))
        return {key: bytes.fromhex(raw[key]) for key in ("token", "nonce", "personal", "voice") if key in raw}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def kept_program(kept: dict[str, bytes]) -> tuple[SeatProgram, Voice | None]:
    """My program, with the keys it sat down with where they were kept (else new ones)."""
    try:
        if "personal" in kept and "voice" in kept:
            return SeatProgram.from_kept(kept["personal"]), Voice.from_kept(kept["voice"])
    except ValueError:
        pass
    return SeatProgram(), None
