"""Games across terminals: an engine handed to the network, and a networked ``Table``.

Owns: ``GameRules`` (one of our engines, with bots for seats nobody plays,
behind the game-agnostic ``netcode.authority.Rules`` protocol), ``NetTable``
(the UI's ``Table`` for a seat at a hosted table), join codes, and the
headless host and join used by ``xmas-tui host/join --headless``.

Must not touch: Textual.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Sequence
from typing import Any

from netcode.authority import HostTable, RuleError
from netcode.client import ActionRefused, ClientTable
from netcode.discovery import Listener
from netcode.fairplay import secret_from_seed

from .audit import made_since
from .bots import Bot, make_bot
from .games import Action, ActionError, Event, Game, IllegalAction, Result, Rng, View
from .games.engine import pack
from .table import Snapshot, Table

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I


def new_code() -> str:
    """A short join code a person can read out: ``XKCD-42QZ``."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def public_digest(public_view: dict) -> str:
    """A hash of the public view: every honest peer computes the same."""
    return hashlib.sha256(pack(public_view)).hexdigest()


class GameRules:
    """One of our engines as the host runs it: plain data in and out, bots included."""

    def __init__(self, game: Game, players: Sequence[str], *, seed: bytes | int | str | None = None, bot: str = "smart",
                 options: dict | None = None) -> None:
        self.game = game
        self.seed = seed if seed is not None else secrets.randbelow(2**62)
        self.rng = Rng(self.seed)
        self.state = game.setup(options or {}, list(players), self.rng)
        self.bots: dict[int, Bot] = {
            seat: make_bot(game.id, bot, seat, self.rng.fork(f"bot/{seat}")) for seat in range(len(players))
        }
        #: the seats whose bots follow the game (the host says which seats bots play)
        self.watching: frozenset[int] = frozenset(self.bots)
        self._made_upto = 1
        self._moves = 0  # actions applied: the views' shared parts are made once per move
        self._common_at = -1
        self._common: tuple[Any, Any] = ({}, {})
        self._observe()

    def set_bot_seats(self, seats: frozenset[int]) -> None:
        """Bots play ``seats`` from now on: only they need to watch each move.

        A bot that takes a seat over starts from what the seat can see now."""
        fresh = seats - self.watching
        self.watching = frozenset(seats)
        self._observe(fresh)

    def made(self) -> list[tuple[int, str]]:
        """Every card made since the last call, as (handle, face), for the host's commitments."""
        fresh, self._made_upto = made_since(self.state.cards, self._made_upto)
        return fresh

    def _observe(self, seats: frozenset[int] | None = None) -> None:
        for seat in self.watching if seats is None else seats:
            bot = self.bots[seat]
            if bot.uses_view:
                bot.observe(self.game.view(self.state, seat))

    def to_act(self) -> frozenset[int]:
        return self.game.to_act(self.state)

    def act(self, seat: int, action: Any) -> list[Any]:
        try:
            parsed = self.game.parse_action(action)
            events = self.game.apply(self.state, seat, parsed, self.rng)
        except ActionError as refused:
            raise RuleError(str(refused)) from None
        self._moves += 1
        self._observe()
        return [e.to_wire() for e in events]

    def view(self, seat: int | None) -> dict:
        if self._common_at == self._moves:  # public fields and zones: once per move, for every seat
            return View.wire(self.game.id, seat, self._common, self.game.view_faces(self.state, seat))
        view = self.game.view(self.state, seat)
        self._common = view.common_wire()
        self._common_at = self._moves
        return view.to_wire(self._common)

    def legal(self, seat: int) -> list[Any]:
        return [a.to_wire() for a in self.game.legal_actions(self.state, seat)]

    def result(self) -> dict | None:
        result = self.game.result(self.state)
        return result.to_wire() if result is not None else None

    def bot_action(self, seat: int) -> Any:
        if seat not in self.watching:
            self.set_bot_seats(self.watching | {seat})
        bot = self.bots[seat]
        legal = self.game.legal_actions(self.state, seat)
        view = self.game.view(self.state, seat) if bot.uses_view else None
        return bot.choose(view, legal).to_wire()

    def digest(self) -> str:
        return public_digest(self.view(None))


def make_host(
    game: Game,
    players: int,
    *,
    code: str,
    name: str,
    port: int = 0,
    bind_host: str = "0.0.0.0",
    discovery: tuple[str, int] | None = None,
    bot: str = "smart",
    bot_seats: int = 0,
    bot_delay: float = 0.0,
    hold: float = 30.0,
    auto_start: bool = False,
    seed: int | None = None,
    options: dict | None = None,
) -> HostTable:
    return HostTable(
        game=game.id, title=game.title, seats=players, code=code, host_name=name,
        make_rules=lambda names, fair_seed: GameRules(game, names, seed=fair_seed, bot=bot, options=options),
        bind=(bind_host, port), discovery=discovery, bot_seats=bot_seats, bot_delay=bot_delay,
        hold=hold, auto_start=auto_start, secret=secret_from_seed(seed) if seed is not None else None,
        options=options,
    )  # fmt: skip


class NetTable(Table):
    """My seat at a hosted table, behind the same interface as a local one."""

    def __init__(self, game: Game, client: ClientTable, *, pace: float = 0.0) -> None:
        super().__init__()
        self.game = game
        self.client = client
        self.seat = client.seat  # type: ignore[assignment]  # None for a spectator
        self.pace = pace
        self.players = ()
        self._events: list[Event] = []
        self._done = asyncio.Event()
        self._audit: dict | None = None
        client.subscribe(self._changed)

    def _changed(self) -> None:
        snapshot = self.client.snapshot
        if snapshot is not None:
            self.players = tuple(snapshot["view"]["public"]["players"])
            self._publish()
        if self.client.final is not None or self.client.host_gone:
            self._done.set()

    @property
    def problem(self) -> str | None:
        return self.client.alarm or self.client.host_gone

    def audit(self) -> dict | None:
        """The end-of-game audit of this seat (``None`` before the final message)."""
        if self.client.final is None:
            return None
        if self._audit is None:
            from .audit import client_log, finish

            self._audit = finish(client_log(self.client))
        return self._audit

    @property
    def networked(self) -> bool:
        return True

    def seat_notes(self) -> dict[int, str]:
        notes = {}
        for row in self.client.roster:
            if row["state"] == "away":
                notes[row["seat"]] = f"away, bot in {row['countdown']:.0f}s" if row.get("countdown") is not None else "away"
            elif row["state"] == "bot":
                notes[row["seat"]] = "bot"
            elif row.get("ping_ms") is not None:
                notes[row["seat"]] = f"{row['ping_ms']:.0f} ms"
        return notes

    @property
    def ready(self) -> bool:
        return self.client.snapshot is not None

    def snapshot(self) -> Snapshot:
        snap = self.client.snapshot
        if snap is None:
            raise RuntimeError("the game has not started yet")
        view = View.from_wire(snap["view"])
        return Snapshot(
            view=view,
            legal=tuple(self.game.parse_action(a) for a in snap["legal"]),
            to_act=frozenset(snap["to_act"]),
            log=tuple(self._log()),
            result=Result.from_wire(snap["result"]) if snap["result"] is not None else None,
        )

    def _log(self) -> list[Event]:
        """The public log as events, converting only what arrived since last time."""
        wire = self.client.log
        if len(self._events) > len(wire):
            self._events = []
        self._events.extend(Event.from_wire(e) for e in wire[len(self._events) :])
        return self._events

    async def send(self, action: Action) -> None:
        try:
            await self.client.act(action.to_wire())
        except ActionRefused as refused:
            raise IllegalAction(str(refused)) from None

    async def run(self) -> None:
        await self._done.wait()


# ---------------------------------------------------------------- headless


async def headless_host(game: Game, players: int, *, code: str, name: str, port: int, bot: str,
                        bots: int, discovery: tuple[str, int] | None, bind_host: str = "0.0.0.0",
                        hold: float = 30.0, seed: int | None = None, wait: float = 120.0,
                        log: str | None = None, options: dict | None = None) -> dict:
    """Host a table whose own seat a bot plays; start when every seat is taken."""
    host = make_host(game, players, code=code, name=name, port=port, bind_host=bind_host,
                     discovery=discovery, bot=bot, bot_seats=1 + bots, auto_start=True, hold=hold, seed=seed,
                     options=options)
    await host.serve()
    try:
        if players == 1 + bots:
            host.start()
        await asyncio.wait_for(host.finished.wait(), wait)
        await host.run()
        assert host.rules is not None
        from .audit import audit_log, host_log, write_log

        record = host_log(host)
        verdict = audit_log(record)
        return {
            "game": game.id, "seat": 0, "role": "host", "code": code, "port": host.address[1],
            "result": host.rules.result(), "digest": host.rules.digest(),
            "drops": dict(host.endpoint.drops), "audit": verdict, "log": str(write_log(record, log)),
        }
    finally:
        await host.close()


async def play_seat(client: ClientTable, game: Game, bot: str, *, wait: float = 120.0) -> None:
    """Let a bot play my seat (seeing only my view) until the host's final message."""
    table = NetTable(game, client)
    me: Bot | None = None

    async def play() -> None:
        nonlocal me
        while client.final is None:
            if client.host_gone:
                raise ActionRefused(client.host_gone)
            if table.ready:
                snap = table.snapshot()
                if snap.legal and snap.result is None:
                    if me is None:
                        me = make_bot(game.id, bot, table.seat, Rng(f"{client.name}/{secrets.token_hex(4)}"))
                    me.observe(snap.view)
                    try:
                        await table.send(me.choose(snap.view, list(snap.legal)))
                    except IllegalAction:
                        pass  # the table moved on meanwhile: look again
                    continue
            await wait_change(client, 0.5)

    await asyncio.wait_for(play(), wait)


def summary(client: ClientTable, game: Game, *, log: str | None | bool = False) -> dict:
    """The JSON line of a headless seat: game, seat, result, the public digest and the audit.

    ``log``: ``False`` writes no log, ``None`` writes it to the default place, else to that path.
    """
    from .audit import audit_client, write_log

    final = client.final
    assert final is not None
    verdict = audit_client(client)
    record = verdict.pop("log")
    written = {"log": str(write_log(record, log))} if log is not False else {}
    return {
        "game": game.id, "seat": client.seat, "role": "join",
        "result": client.snapshot["result"] if client.snapshot else None,
        "digest": public_digest(final["public"]), "host_digest": final["digest"],
        "drops": dict(client.aio.endpoint.drops) if client.aio else {},
        "audit": verdict, **written,
    }  # fmt: skip


async def headless_join(game_id: str | None, *, address: tuple[str, int] | None, code: str, name: str,
                        bot: str, discovery: tuple[str, int] | None = None, wait: float = 120.0,
                        log: str | None = None) -> dict:
    """Join a table and let a bot play my seat; return the JSON summary."""
    from .games import get_game

    if address is None:
        address = await find_table(code, discovery, game_id)
    client = ClientTable(address, code, name)
    try:
        welcome = await client.join()
        game = get_game(welcome["game"])
        await play_seat(client, game, bot, wait=wait)
        return summary(client, game, log=log)
    finally:
        await client.close()


async def wait_change(client: ClientTable, timeout: float) -> None:
    changed = asyncio.Event()
    client.subscribe(changed.set)
    try:
        await asyncio.wait_for(changed.wait(), timeout)
    except TimeoutError:
        pass
    finally:
        client._listeners.remove(changed.set)


async def find_table(code: str, discovery: tuple[str, int] | None, game_id: str | None, timeout: float = 5.0) -> tuple[str, int]:
    """The address of an announced table (of ``game_id``, if given) that this code opens."""
    listener = Listener(discovery)
    await listener.start()
    try:
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            for heard in listener.current():
                if game_id is None or heard.info.game == game_id:
                    return heard.address
            await listener.changed(0.2)
        raise TimeoutError("no table was announced on the LAN; give --address HOST:PORT")
    finally:
        listener.close()
