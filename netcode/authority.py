"""The host of a table: seats, joining, and running the rules for everyone.

Owns: the host side of a table. It serves one ``Endpoint`` (every joiner
proves it knows the join code, and every datagram is sealed under keys of
that one peer), announces the table for discovery, answers hand-typed
probes, seats players by name, runs the rules through the ``Rules`` protocol
below, and sends each seat only its own view (spectators the public one).
An action is validated here; a refused one is answered to its sender alone,
with the rule it breaks.

A player who drops keeps their seat for ``hold`` seconds (everyone sees the
countdown), then a bot plays it; running the same join again (same name)
hands the seat back, with that seat's view.

Fair play (``netcode.fairplay``): the host commits to a secret before anyone
joins (in the announcement, the probe answer and ``welcome``); each player
commits to a nonce in ``hello`` and reveals it when the host deals
(``deal?``/``nonce``, at most ``NONCE_TIMEOUT`` seconds; a seat that does not
answer is left out of the seed by a note in the public log). Every card the
rules make is committed in the next snapshot to everyone; a face shown to a
seat comes with its opening (the salt) the first time. The final message
reveals the secret, the nonces and the action log, so every peer can replay
the game and check it.

Host election: the creator of a table is its host, at epoch 1; every message
from the host carries its epoch and clients drop messages from an older one.
When the host goes silent the peers notice within about a second (the
channel's heartbeats) and say so; keeping the game going after that is the
host-failover work that builds on this.

Must not touch: any particular game, the UI. The rules come in through
``Rules`` (plain data in, plain data out); bots are the rules' business.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from netcode import delta
from netcode.aio import AioEndpoint
from netcode.channel import (
    Delivered,
    Endpoint,
    PeerClosed,
    PeerGone,
    PeerJoined,
    RttUpdated,
    SendQueueFull,
)
from netcode.discovery import Announcer, ProbeAnswerer, TableInfo, discovery_address, is_probe
from netcode.fairplay import NONCE_BYTES, NONCE_TIMEOUT, Ledger, new_secret

PROTOCOL = 1
EPOCH = 1
MAX_NAME = 16


class RuleError(Exception):
    """An action the rules refuse; the message names the rule."""


class Rules(Protocol):
    """A running game as the host drives it, all in plain (msgpack-ready) data."""

    def to_act(self) -> frozenset[int]: ...

    def act(self, seat: int, action: Any) -> list[Any]:
        """Apply a wire action for ``seat``; return the events (wire); raise ``RuleError``."""

    def view(self, seat: int | None) -> Any:
        """The view of ``seat``: a mapping whose ``"faces"`` lists ``[handle, face]`` it may see."""

    def made(self) -> list[tuple[int, str]]:
        """The (handle, face) of every card made since the last call (to be committed)."""

    def legal(self, seat: int) -> list[Any]: ...

    def result(self) -> Any | None: ...

    def bot_action(self, seat: int) -> Any:
        """What a bot would play for ``seat`` now (wire form)."""

    def set_bot_seats(self, seats: frozenset[int]) -> None:
        """The seats bots play from now on (a bot follows the game only while it plays)."""

    def digest(self) -> str:
        """A hash of the public state: the same on every honest peer."""


#: ``make_rules(names, seed)``: the game dealt from the fair seed.
RulesFactory = Callable[[list[str], bytes], Rules]


@dataclass
class Seat:
    name: str | None = None
    peer: int | None = None
    #: open | here | away | bot
    state: str = "open"
    deadline: float | None = None


@dataclass
class Guest:
    """A connected peer: its seat (None for a spectator) and what it has been sent."""

    name: str
    seat: int | None
    log_sent: int = 0
    rtt: float | None = None
    welcomed: bool = False
    extra: dict = field(default_factory=dict)
    commits_sent: int = 0
    opened: set[int] = field(default_factory=set)
    #: the roster as last sent: snapshots carry it only when it changed
    roster_sent: list | None = None
    #: the view as last sent: later snapshots carry only what changed in it
    view_sent: dict | None = None


class Listeners:
    """Callbacks run after each change; one that fails is reported and the others still run.

    They run straight from a datagram's arrival, so a failing one must not
    keep the news from the rest (a screen that is closing, say, from the
    table that replaces it)."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[], None]] = []

    def add(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    def remove(self, callback: Callable[[], None]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def __call__(self) -> None:
        for callback in list(self._callbacks):
            try:
                callback()
            except Exception as exc:
                asyncio.get_running_loop().call_exception_handler(
                    {"message": f"a table listener failed: {callback!r}", "exception": exc}
                )


def clean_name(name: Any) -> str | None:
    if not isinstance(name, str):
        return None
    name = " ".join(name.split())[:MAX_NAME]
    return name if name and name.isprintable() else None


class HostTable:
    """Host a table: ``await serve()``, then ``await run()`` until the game ends."""

    def __init__(
        self,
        *,
        game: str,
        title: str,
        seats: int,
        code: str,
        host_name: str,
        make_rules: RulesFactory,
        bind: tuple[str, int] = ("0.0.0.0", 0),
        discovery: tuple[str, int] | None = None,
        announce: bool = True,
        bot_seats: int = 0,
        hold: float = 30.0,
        bot_delay: float = 0.0,
        auto_start: bool = False,
        table_id: bytes | None = None,
        secret: bytes | None = None,
        options: dict | None = None,
    ) -> None:
        self.game, self.title, self.code, self.host_name = game, title, code, host_name
        self.table_id = table_id or os.urandom(8)
        self.make_rules = make_rules
        self.ledger = Ledger(game, self.table_id, secret or new_secret(), options=dict(options or {}))
        self.dealing = False
        self.bind = bind
        self.discovery = discovery or discovery_address()
        self.announce = announce
        self.hold = hold
        self.bot_delay = bot_delay
        self.auto_start = auto_start
        self.seats = [Seat() for _ in range(seats)]
        for seat in self.seats[:bot_seats]:
            seat.state, seat.name = "bot", None
        self.guests: dict[int, Guest] = {}
        self.rules: Rules | None = None
        self.log: list[Any] = []
        self.finished = asyncio.Event()
        self.changed = asyncio.Event()
        self.endpoint = Endpoint(code, self.table_id, max_peers=64)
        self.probes = ProbeAnswerer()
        self.aio: AioEndpoint | None = None
        self.announcer: Announcer | None = None
        self._tasks: list[asyncio.Task] = []
        self._bot_seats: frozenset[int] | None = None
        self._pings_changed = False
        self._last_bot = 0.0
        self._listeners = Listeners()

    # -------------------------------------------------------------- facts
    @property
    def peer_id(self) -> int:
        return self.endpoint.local_id

    @property
    def address(self) -> tuple[str, int]:
        assert self.aio is not None
        return self.aio.address

    @property
    def started(self) -> bool:
        """True from the call to ``start()`` on (the deal may still wait for nonces)."""
        return self.rules is not None or self.dealing

    def info(self) -> TableInfo:
        taken = sum(1 for s in self.seats if s.state != "open")
        return TableInfo(
            self.table_id, self.game, self.title, self.host_name, len(self.seats), taken,
            self.address[1], self.peer_id, self.started, self.ledger.commitment,
        )  # fmt: skip

    def roster(self) -> list[dict]:
        now = time.monotonic()
        out = []
        for i, seat in enumerate(self.seats):
            guest = self.guests.get(seat.peer) if seat.peer is not None else None
            out.append({
                "seat": i,
                "name": seat.name or (f"Bot {i + 1}" if seat.state == "bot" else None),
                "state": seat.state,
                "ping_ms": round(guest.rtt * 1000) if guest and guest.rtt is not None else None,
                "countdown": round(max(0.0, seat.deadline - now), 1) if seat.deadline else None,
            })  # fmt: skip
        return out

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.add(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.remove(listener)

    # -------------------------------------------------------------- serving
    async def serve(self) -> None:
        """Open the socket and start announcing. Returns at once."""
        stream_host, port = self.bind
        self.aio = await AioEndpoint.bind(
            self.endpoint, (stream_host, port), on_foreign=self._foreign, on_event=self._on_event
        )
        if self.announce:
            self.announcer = Announcer(self.info(), self.discovery)
            await self.announcer.start()
        self._tasks = [asyncio.get_running_loop().create_task(self._ticks())]

    def _foreign(self, data: bytes, address: Any) -> bool:
        """Answer a hand-typed join's probe with the announcement; True if it was one."""
        if not is_probe(data) or self.aio is None:
            return False
        answer = self.probes.answer(data, address, time.monotonic(), self.info().encode())
        if answer is not None:
            self.aio.send_raw(answer, address)
        return True

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.announcer is not None:
            self.announcer.close()
        if self.aio is not None:
            await self.aio.close()

    async def run(self) -> None:
        """Wait for the game to end and every peer to have its last messages."""
        await self.finished.wait()
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline and any(
            conn.unacked for conn in self.endpoint.peers.values() if not conn.gone
        ):
            await asyncio.sleep(0.02)

    # -------------------------------------------------------------- the game
    def start(self) -> None:
        """Deal: open seats become bots, the players reveal their nonces, then everyone gets a view.

        With players at the table this asks for their nonces and deals when all
        have answered or after ``NONCE_TIMEOUT`` seconds; with bots alone it deals at once.
        """
        if self.started:
            return
        self.dealing = True
        for seat in self.seats:
            if seat.state == "open":
                seat.state = "bot"
        committed = {
            guest.seat for guest in self.guests.values()
            if guest.seat is not None and guest.seat in self.ledger.nonce_commits
        }  # fmt: skip
        for seat in set(self.ledger.nonce_commits) - committed:
            del self.ledger.nonce_commits[seat]  # the player left before the deal
        if not committed:
            self._deal()
            return
        for peer, guest in self.guests.items():
            if guest.seat in committed:
                self._send(peer, {"t": "deal?"})
        self._tasks.append(asyncio.get_running_loop().create_task(self._deal_soon()))

    async def _deal_soon(self) -> None:
        deadline = time.monotonic() + NONCE_TIMEOUT
        while self.rules is None and self.ledger.waiting_for() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        self._deal()

    def _deal(self) -> None:
        if self.rules is not None:
            return
        names = [s.name or f"Bot {i + 1}" for i, s in enumerate(self.seats)]
        for i, seat in enumerate(self.seats):
            seat.name = names[i]
        seed = self.ledger.fix_seed(len(self.seats))
        self.rules = self.make_rules(names, seed)
        self.ledger.made(self.rules.made())
        self.log.extend(["fair", note, None] for note in self.ledger.notes)
        self.dealing = False
        self._broadcast()

    def _send(self, peer: int, payload: dict, *, now: bool = False) -> bool:
        """Send reliably; False if the channel refused (the peer is gone or hopelessly behind).

        With ``now`` the datagrams leave before this returns, so each peer can
        start on its snapshot while the host still makes the next one."""
        if self.aio is None:
            return False
        payload["epoch"] = EPOCH
        try:
            if now:
                self.aio.send_reliable_now(peer, payload)
            else:
                self.aio.send_reliable_nowait(peer, payload)
        except (PeerClosed, SendQueueFull):
            self.endpoint.note_drop("send_refused")
            return False
        return True

    def _snapshot_for(self, guest: Guest, roster: list[dict], to_act: list[int], result: Any, memo: dict) -> dict:
        rules = self.rules
        assert rules is not None
        seat = guest.seat
        view = rules.view(seat)
        snap = {
            "t": "snap",
            "seat": seat,
            "legal": rules.legal(seat) if seat is not None else [],
            "to_act": to_act,
            "log_at": guest.log_sent,
            "log": self.log[guest.log_sent :],
            "result": result,
        }
        if guest.view_sent is None:
            snap["view"] = view
        else:  # what changed since the last snapshot: usually a few zones and faces
            snap["vd"] = delta.diff(guest.view_sent, view, memo)  # shared parts diffed once per broadcast
        guest.view_sent = view
        if roster != guest.roster_sent:
            snap["roster"] = roster
            guest.roster_sent = roster
        guest.log_sent = len(self.log)
        commitments = self.ledger.commitments
        snap["commits"] = [[h, c] for h, c in commitments[guest.commits_sent :]]
        guest.commits_sent = len(commitments)
        fresh = [h for h, _ in view["faces"] if h not in guest.opened]
        snap["open"] = [[h, self.ledger.salt(h)] for h in fresh]
        guest.opened.update(fresh)
        return snap

    def _broadcast(self) -> None:
        """Send every connected peer its own snapshot (or the roster before the deal)."""
        roster = self.roster()
        rules = self.rules
        if rules is not None:
            bot_seats = frozenset(i for i, seat in enumerate(self.seats) if seat.state == "bot")
            if bot_seats != self._bot_seats:
                self._bot_seats = bot_seats
                rules.set_bot_seats(bot_seats)
            to_act, result = sorted(rules.to_act()), rules.result()
        memo: dict = {}  # the views of one moment share parts: each is diffed once
        for peer, guest in self.guests.items():
            if not guest.welcomed:
                continue
            if rules is None:
                self._send(peer, {"t": "roster", "roster": roster, "game": self.game})
            else:
                # what this peer has been sent counts only if the send went out
                before = (guest.log_sent, guest.commits_sent, set(guest.opened), guest.view_sent, guest.roster_sent)
                if not self._send(peer, self._snapshot_for(guest, roster, to_act, result, memo), now=True):
                    guest.log_sent, guest.commits_sent, guest.opened, guest.view_sent, guest.roster_sent = before
        if rules is not None and result is not None and not self.finished.is_set():
            final = {"t": "final", "public": rules.view(None), "digest": rules.digest(),
                     "result": result, "fair": self.ledger.public()}
            for peer, guest in self.guests.items():
                if guest.welcomed:
                    self._send(peer, dict(final))
            self.finished.set()
        if self.announcer is not None:
            self.announcer.update(self.info())
        self.changed.set()
        self._listeners()

    def _act(self, seat: int, action: Any) -> None:
        assert self.rules is not None
        events = self.rules.act(seat, action)
        self.ledger.actions.append((seat, action))
        self.ledger.made(self.rules.made())
        self.log.extend(events)

    # -------------------------------------------------------------- intake
    def _on_event(self, event: Any) -> None:
        """Every channel event, handled as its datagram arrives (answers leave with the ack)."""
        try:
            self._handle(event)
        except Exception:  # a bad message must never stop the host
            self.endpoint.note_drop("bad_message")

    def _handle(self, event: Any) -> None:
        if isinstance(event, PeerJoined):
            return
        if isinstance(event, RttUpdated):
            guest = self.guests.get(event.peer)
            if guest is not None:
                if guest.rtt is None or round(guest.rtt * 1000) != round(event.rtt * 1000):
                    self._pings_changed = True  # shown in the roster within a second
                guest.rtt = event.rtt
            return
        if isinstance(event, PeerGone):
            self._left(event.peer)
            return
        if not isinstance(event, Delivered) or not isinstance(event.payload, dict):
            return
        peer, msg = event.peer, event.payload
        kind = msg.get("t")
        if kind == "hello":
            self._hello(peer, msg)
        elif kind == "act":
            self._action(peer, msg)
        elif kind == "nonce":
            self._nonce(peer, msg)
        elif kind == "bye":
            self._left(peer)
        else:
            self.endpoint.note_drop("unknown_message")

    def _hello(self, peer: int, msg: dict) -> None:
        name = clean_name(msg.get("name"))
        if name is None or msg.get("v") != PROTOCOL:
            self._send(peer, {"t": "refused", "why": "a player needs a printable name of 1-16 characters"})
            return
        seat = self._seat_for(name, peer)
        if seat == -1:
            self._send(peer, {"t": "refused", "why": f"{name!r} is already playing at this table; choose another name"})
            return
        self.guests[peer] = Guest(name, seat, welcomed=True)
        commit = msg.get("nc")
        if seat is not None and not self.started and isinstance(commit, bytes) and len(commit) == 32:
            self.ledger.nonce_commits[seat] = commit
        self._send(peer, {
            "t": "welcome", "seat": seat, "game": self.game, "title": self.title,
            "seats": len(self.seats), "host": self.host_name, "started": self.started,
            "commit": self.ledger.commitment,
        })  # fmt: skip
        if self.auto_start and not self.started and all(s.state != "open" for s in self.seats):
            self.start()
            return
        self._broadcast()

    def _nonce(self, peer: int, msg: dict) -> None:
        """A player's nonce, revealed for the deal (checked against its commitment when the seed is made)."""
        guest = self.guests.get(peer)
        nonce = msg.get("n")
        if guest is None or guest.seat is None or not self.dealing:
            return
        if isinstance(nonce, bytes) and len(nonce) == NONCE_BYTES:
            self.ledger.reveal_nonce(guest.seat, nonce)

    def _seat_for(self, name: str, peer: int) -> int | None:
        """The seat a player gets: their own again, else a free one; None: spectator; -1: name taken."""
        for i, seat in enumerate(self.seats):
            if seat.name == name:
                if seat.state == "here" and seat.peer in self.guests and seat.peer != peer:
                    return -1
                seat.peer, seat.state, seat.deadline = peer, "here", None
                return i
        if not self.started:
            for i, seat in enumerate(self.seats):
                if seat.state == "open":
                    seat.name, seat.peer, seat.state = name, peer, "here"
                    return i
        return None

    def _action(self, peer: int, msg: dict) -> None:
        guest = self.guests.get(peer)
        ident = msg.get("id")
        if guest is None or guest.seat is None or self.rules is None:
            self._send(peer, {"t": "error", "id": ident, "why": "Only a seated player can act, once the game has started."})
            return
        try:
            self._act(guest.seat, msg.get("a"))
        except RuleError as refused:
            self._send(peer, {"t": "error", "id": ident, "why": str(refused)})
            return
        self._send(peer, {"t": "ack", "id": ident})
        self._broadcast()

    def _left(self, peer: int) -> None:
        guest = self.guests.pop(peer, None)
        if guest is None or guest.seat is None:
            return
        seat = self.seats[guest.seat]
        if seat.peer != peer:
            return
        seat.peer = None
        if self.started:
            seat.state, seat.deadline = "away", time.monotonic() + self.hold
        else:
            seat.name, seat.state = None, "open"
        self._broadcast()

    # -------------------------------------------------------------- time
    async def _ticks(self) -> None:
        last_roster = 0.0
        while True:
            await asyncio.sleep(0.02)
            now = time.monotonic()
            changed = False
            for seat in self.seats:
                if seat.state == "away" and seat.deadline is not None and now >= seat.deadline:
                    seat.state, seat.deadline = "bot", None
                    changed = True
            rules = self.rules
            if rules is not None and rules.result() is None and now - self._last_bot >= self.bot_delay:
                for i in sorted(rules.to_act()):
                    if self.seats[i].state == "bot":
                        self._act(i, rules.bot_action(i))
                        self._last_bot = now
                        changed = True
                        break
            if not changed and now - last_roster >= 1.0 and (
                self._pings_changed or any(s.state == "away" for s in self.seats)
            ):
                self._pings_changed = False
                changed = True
            if changed:
                last_roster = now
                self._broadcast()
