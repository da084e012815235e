"""A player's side of a table: join with the code, send actions, receive my view.

Owns: finding the table (by its announcement or by probing a typed
``host:port``), the connection to the host (the join code proven both
ways), the join handshake, the latest snapshot the host sent for my seat
(the log assembled in order), the roster, answers to my actions, and
noticing a silent host.

Fair play: the client commits to a nonce in ``hello`` and reveals it when the
host asks (``deal?``); a ``Verifier`` keeps every card commitment and checks
every opening on receipt. A mismatch sets ``alarm`` at once (the UI shows it
in red). The replay of the whole game at the end needs the rules, so it lives
in ``xmas_tui.audit``; the secret and my nonce are checked here.

Messages from an older host epoch are dropped. Must not touch: games, the UI.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

from netcode import delta
from netcode.aio import AioEndpoint
from netcode.authority import EPOCH, PROTOCOL, Listeners
from netcode.channel import Delivered, Endpoint, HandshakeFailed, PeerGone
from netcode.discovery import TableInfo, probe
from netcode.fairplay import Verifier


class JoinError(Exception):
    """Joining failed: the message says why, in words for a player."""


class ActionRefused(Exception):
    """The host refused my action; the message names the rule."""


class ClientTable:
    """One seat (or a spectator) at a hosted table."""

    def __init__(self, address: tuple[str, int], code: str, name: str, info: TableInfo | None = None,
                 *, bind_host: str | None = None) -> None:
        self.address = address
        #: the local address to play from (default: every address of the host's family)
        self.bind_host = bind_host
        self.code = code
        self.name = name
        self.info = info
        self.seat: int | None = None
        self.welcome: dict | None = None
        self.snapshot: dict | None = None
        self.roster: list[dict] = []
        self.log: list[Any] = []
        self.final: dict | None = None
        self.host_gone: str | None = None
        self.verifier: Verifier | None = None
        #: the first fair-play failure seen during the game, for the player's screen
        self.alarm: str | None = None
        self.epoch = EPOCH
        self.received: list[Any] = []  # every payload, for audits and leak tests
        self.keep_received = False
        self.aio: AioEndpoint | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[None]] = {}
        self._welcome: asyncio.Future[dict] | None = None
        self._listeners = Listeners()

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.add(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.remove(listener)

    # -------------------------------------------------------------- joining
    async def join(self, timeout: float = 4.0) -> dict:
        """Find the table, connect and be seated. Raises ``JoinError`` with a reason."""
        if self.info is None:
            try:
                self.info = await probe(self.address, timeout=min(timeout, 2.0))
            except (TimeoutError, OSError) as exc:
                raise JoinError(
                    f"No table answered at {self.address[0]}:{self.address[1]}. Check the address and "
                    "that the host's firewall lets UDP through."
                ) from exc
        info = self.info
        endpoint = Endpoint(self.code, info.table_id, accept_unknown=False)
        self.verifier = Verifier(info.game, info.table_id, info.seed_commit or None)
        family_host = self.bind_host or ("::" if ":" in self.address[0] else "0.0.0.0")
        self._welcome = asyncio.get_running_loop().create_future()
        self.aio = await AioEndpoint.bind(endpoint, (family_host, 0), on_event=self._on_event)
        await self.aio.connect(info.peer, self.address)
        await self.aio.send_reliable(info.peer, {"t": "hello", "v": PROTOCOL, "name": self.name,
                                                    "nc": self.verifier.nonce_commit})
        try:
            welcome = await asyncio.wait_for(asyncio.shield(self._welcome), timeout)
        except TimeoutError:
            await self.close()
            raise JoinError("The table did not answer: check the join code (it is shown on the host's screen).") from None
        if welcome.get("t") == "refused":
            await self.close()
            why = welcome.get("why")
            raise JoinError(why if welcome.get("handshake") else f"The host refused: {why}")
        self.welcome = welcome
        self.seat = welcome.get("seat")
        self.verifier.seat = self.seat
        commit = welcome.get("commit")
        if self.verifier.seed_commit is None and isinstance(commit, bytes):
            self.verifier.seed_commit = commit
        elif commit != self.verifier.seed_commit:
            self._raise_alarm(["the host's welcome carries a different secret commitment from its announcement"])
        return welcome

    # -------------------------------------------------------------- acting
    async def act(self, action: Any, timeout: float = 5.0) -> None:
        """Send my action and wait for the host's verdict (``ActionRefused`` with the rule)."""
        if self.aio is None or self.info is None:
            raise ActionRefused("Not connected to a table.")
        if self.host_gone:
            raise ActionRefused(self.host_gone)
        ident = next(self._ids)
        verdict: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending[ident] = verdict
        await self.aio.send_reliable(self.info.peer, {"t": "act", "id": ident, "a": action})
        try:
            await asyncio.wait_for(verdict, timeout)
        except TimeoutError:
            raise ActionRefused("The host did not answer in time.") from None
        finally:
            self._pending.pop(ident, None)

    async def close(self) -> None:
        if self.aio is not None:
            await self.aio.close()
            self.aio = None

    # -------------------------------------------------------------- intake
    def _on_event(self, event: Any) -> None:
        """Every channel event, handled as its datagram arrives."""
        if isinstance(event, HandshakeFailed):  # e.g. the table could not prove the code
            self.host_gone = event.text
            if self._welcome is not None and not self._welcome.done():
                self._welcome.set_result({"t": "refused", "why": event.text, "handshake": True})
            return
        if isinstance(event, PeerGone):
            self.host_gone = self.host_gone or {
                "closed": "The host closed the table.",
                "local": "You left the table.",  # our own close(): nothing went wrong
            }.get(event.reason, "The host has gone silent: the game cannot go on without it.")
            if self._welcome is not None and not self._welcome.done():
                self._welcome.set_result({"t": "refused", "why": self.host_gone})
            for pending in self._pending.values():
                if not pending.done():
                    pending.set_exception(ActionRefused(self.host_gone))
            self._notify()
            return
        if not isinstance(event, Delivered) or not isinstance(event.payload, dict):
            return
        try:
            self._handle(event.payload)
        except (KeyError, TypeError, ValueError):
            self.aio.endpoint.note_drop("bad_message")  # type: ignore[union-attr]

    def _handle(self, msg: dict) -> None:
        if msg.get("epoch", 0) < self.epoch:
            self.aio.endpoint.note_drop("stale_epoch")  # type: ignore[union-attr]
            return
        self.epoch = msg["epoch"]
        if self.keep_received:
            self.received.append(msg)
        kind = msg.get("t")
        if kind in ("welcome", "refused"):
            if self._welcome is not None and not self._welcome.done():
                self._welcome.set_result(msg)
        elif kind == "deal?":
            if self.verifier is not None and self.aio is not None and self.info is not None:
                self.aio.send_reliable_nowait(self.info.peer, {"t": "nonce", "n": self.verifier.nonce})
            return
        elif kind == "snap":
            changed = msg.get("vd")
            if changed is not None:  # only what changed in my view since the last snapshot
                if self.snapshot is None:
                    raise ValueError("a view delta before any view")
                msg = {**msg, "view": delta.apply(self.snapshot["view"], changed)}
                del msg["vd"]  # (what arrived stays in `received` as it came)
            commits, openings = msg.get("commits", []), msg.get("open", [])
            if self.verifier is not None and (
                commits or openings or changed is None or delta.touches(changed, "faces")
            ):  # faces already checked, with nothing new to check them against, need no second look
                faces = {h: f for h, f in msg["view"]["faces"]}
                self._raise_alarm(self.verifier.receive(commits, openings, faces))
            at = msg["log_at"]
            self.log[at:] = msg["log"]
            if "roster" in msg:  # sent only when it changed
                self.roster = msg["roster"]
            self.snapshot = msg
        elif kind == "roster":
            self.roster = msg["roster"]
        elif kind == "final":
            fair = msg.get("fair")
            if self.verifier is not None and isinstance(fair, dict):
                self._raise_alarm(self.verifier.check_final(fair.get("secret", b""), fair.get("nonces", [])))
            self.final = msg
        elif kind in ("ack", "error"):
            pending = self._pending.get(msg.get("id"))  # type: ignore[arg-type]
            if pending is not None and not pending.done():
                if kind == "ack":
                    pending.set_result(None)
                else:
                    pending.set_exception(ActionRefused(str(msg.get("why"))))
            return
        self._notify()

    def _raise_alarm(self, alarms: list[str]) -> None:
        if alarms and self.alarm is None:
            more = f" (and {len(alarms) - 1} more)" if len(alarms) > 1 else ""
            self.alarm = f"CHEATING DETECTED: {alarms[0]}{more}"

    def _notify(self) -> None:
        self._listeners()
