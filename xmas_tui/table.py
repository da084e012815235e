"""The seam between the UI and whoever runs the rules: a ``Table``.

Owns: the ``Table`` interface the UI talks to (send my action, receive my
view), its ``Snapshot`` (everything one seat may know right now), and
``LocalTable``, which runs the engine in-process with bots at a human pace,
for one person or for several sharing this terminal's keyboard.
A networked table implements the same interface; the UI cannot tell which,
and never holds the full state.

Must not touch: Textual. It may use asyncio (bots wait between moves).
"""

from __future__ import annotations

import asyncio
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netcode.fairplay import secret_from_seed

from . import files
from .audit import Recorder, data_dir, finish
from .bots import Bot, make_bot
from .games import GAMES, Action, ActionError, Event, Game, IllegalAction, Result, Rng, View

DEFAULT_PACE = 0.9
MIN_PACE = 0.05
MAX_PACE = 4.0


@dataclass(frozen=True)
class Snapshot:
    """What my seat may know now: my view, my legal actions, who acts, the log, the result.

    ``seats`` lists every seat played from this terminal when several people
    share it (the view's seat first); empty means the view's seat alone.
    """

    view: View
    legal: tuple[Action, ...]
    to_act: frozenset[int]
    log: tuple[Event, ...]
    result: Result | None
    seats: tuple[int, ...] = ()

    @property
    def seat(self) -> int | None:
        return self.view.seat

    @property
    def my_seats(self) -> tuple[int, ...]:
        """The seats played from this terminal."""
        if self.seats:
            return self.seats
        return () if self.seat is None else (self.seat,)

    @property
    def my_turn(self) -> bool:
        return bool(self.legal)


Listener = Callable[[Snapshot], None]


class Table(ABC):
    """A game table as one seat sees it."""

    game: Game
    seat: int
    players: tuple[str, ...]
    pace: float

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener`` with a fresh snapshot after every change."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _publish(self) -> None:
        if not self._listeners:
            return  # nobody to tell: a snapshot is made only when asked for
        snapshot = self.snapshot()
        for listener in list(self._listeners):
            listener(snapshot)

    @property
    def problem(self) -> str | None:
        """Something the player must know now (the host went silent), or None."""
        return None

    def seat_notes(self) -> dict[int, str]:
        """A word per seat for the players panel (ping, away, bot); empty at a local table."""
        return {}

    @property
    def networked(self) -> bool:
        return False

    def set_pace(self, seconds: float) -> float:
        self.pace = min(MAX_PACE, max(MIN_PACE, seconds))
        return self.pace

    @abstractmethod
    def snapshot(self) -> Snapshot: ...

    @abstractmethod
    async def send(self, action: Action) -> None:
        """Play my action; raises ``ActionError`` (with the rule broken) if it is refused."""

    async def send_as(self, seat: int, action: Action) -> None:
        """Play ``action`` for ``seat``, one of the seats played from this terminal."""
        if seat != self.seat:
            raise IllegalAction(f"Seat {seat + 1} is not played from this terminal.")
        await self.send(action)

    @abstractmethod
    async def run(self) -> None:
        """Drive the table until the game ends."""


KEPT_VERSION = 1


class KeptGameError(Exception):
    """An unfinished game on disk that cannot be resumed; the message says why, in one line."""


#: unfinished games kept at once (the oldest beyond this are let go)
KEEP_AT_MOST = 5


def kept_dir() -> Path:
    return data_dir().parent / "unfinished"


def keep_path(game_id: str, seed: int | str) -> Path:
    """Where a local game is kept while unfinished: a file of its own, so two terminals
    of one account (friends on one SSH box) never overwrite or finish each other's."""
    tag = "".join(c if c.isalnum() or c in "-_" else "_" for c in str(seed))[:40]
    return kept_dir() / f"{game_id}-{tag}.json"


def kept_games() -> list[Path]:
    """The unfinished games kept, newest first."""
    try:
        found = [(p.stat().st_mtime, p) for p in kept_dir().glob("*.json")]
    except OSError:
        return []
    return [p for _, p in sorted(found, reverse=True)]


def latest_kept() -> Path | None:
    """The unfinished game played last, if any."""
    games = kept_games()
    return games[0] if games else None


def read_kept(path: Path) -> dict:
    """The record of an unfinished game; `KeptGameError` (one line) if it is unreadable or not
    one: size, nesting and every field are checked first (``xmas_tui.files``)."""
    try:
        record, _ = files.load_json(path, files.KEPT_BYTES, "an unfinished game")
        if not isinstance(record, dict) or record.get("v") != KEPT_VERSION or record.get("game") not in GAMES:
            raise files.FileProblem(f"{path.name} is not an unfinished game this version can resume")
        files.conform(record, files.KEPT_GAME, path.name)
    except files.FileProblem as problem:
        raise KeptGameError(str(problem)) from None
    return record


def forget_kept(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


class LocalTable(Table):
    """The engine in this process: me at one seat, bots at the others.

    ``humans`` adds seats played by other people at this terminal (a shared
    keyboard): no bot plays them, ``send_as`` plays for them, and the view
    shown is ``seat``'s, so share a terminal only in a game whose screen shows
    nothing one of them may not see.

    In a game whose actions carry their own timing (``Game.open_actions``: a
    reaction time in milliseconds), bots seal their choice as soon as they may
    act; the pace is then the pause a board leaves between rounds.
    """

    def __init__(
        self,
        game: Game,
        players: Sequence[str],
        seat: int,
        *,
        humans: Sequence[int] = (),
        bot: str = "smart",
        seed: int | str = 0,
        pace: float = DEFAULT_PACE,
        options: dict | None = None,
        keep: bool = False,
    ) -> None:
        """``keep``: keep the unfinished game on disk after every move (in `keep_path`), so it
        can be resumed (`LocalTable.resume`) after the terminal or the connection to it is lost."""
        super().__init__()
        self.game = game
        self.players = tuple(players)
        self.seat = seat
        self.humans: tuple[int, ...] = tuple(dict.fromkeys((seat, *humans)))
        if any(not 0 <= s < len(self.players) for s in self.humans):
            raise ValueError(f"seats are 0-{len(self.players) - 1}, not {list(self.humans)}")
        self.pace = pace
        self.seed = seed
        self.bot = bot
        self.options = dict(options or {})
        self.keep = keep_path(game.id, seed) if keep else None
        self._actions: list[list[Any]] = []  # (seat, wire) of every action, for `keep`
        self._rng = Rng(seed)
        self._state = game.setup(options or {}, self.players, self._rng)
        # fair-play bookkeeping, so a local game has a log and an audit like a networked one
        self.recorder = Recorder(game, self.players, secret=secret_from_seed(seed), watch=[seat],
                                 rng_seed=seed, options=options)
        self.recorder.observe(self._state)
        self._audit: dict | None = None
        self.bots: dict[int, Bot] = {
            s: make_bot(game.id, bot, s, self._rng.fork(f"bot/{s}"))
            for s in range(len(self.players))
            if s not in self.humans
        }
        self._log: list[Event] = [Event("start", f"{game.title}: {', '.join(self.players)}.")]
        self._wake = asyncio.Event()
        self._observe()

    # -------------------------------------------------------------- reading
    def snapshot(self) -> Snapshot:
        game, state = self.game, self._state
        return Snapshot(
            view=game.view(state, self.seat),
            legal=tuple(game.legal_actions(state, self.seat)),
            to_act=game.to_act(state),
            log=tuple(self._log),
            result=game.result(state),
            seats=self.humans,
        )

    # -------------------------------------------------------------- acting
    async def send(self, action: Action) -> None:
        self._play(self.seat, action)

    async def send_as(self, seat: int, action: Action) -> None:
        if seat not in self.humans:
            raise IllegalAction(f"Seat {seat + 1} is not played from this terminal.")
        self._play(seat, action)

    def _play(self, seat: int, action: Action, *, replaying: bool = False) -> None:
        events = self.game.apply(self._state, seat, action, self._rng)
        wire = action.to_wire()
        self.recorder.record(seat, wire)
        self.recorder.observe(self._state)
        self._log.extend(events)
        self._observe()
        self._actions.append([seat, wire])
        if replaying:
            return
        self._keep()
        self._publish()
        self._wake.set()

    # -------------------------------------------------------------- keeping
    def _keep(self) -> None:
        """Write the game so far to ``keep`` (atomically), or remove it once the game is over."""
        if self.keep is None:
            return
        if self.game.result(self._state) is not None:
            forget_kept(self.keep)
            return
        record = {
            "v": KEPT_VERSION, "game": self.game.id, "players": list(self.players), "seat": self.seat,
            "humans": list(self.humans), "bot": self.bot, "seed": self.seed, "options": self.options,
            "pace": self.pace, "actions": self._actions,
        }  # fmt: skip
        try:
            self.keep.parent.mkdir(parents=True, exist_ok=True)
            part = self.keep.with_name(self.keep.name + ".part")
            part.write_text(json.dumps(record), encoding="utf-8")
            os.replace(part, self.keep)
        except OSError:
            return  # a game that cannot be kept still plays
        if len(self._actions) == 1:  # a new game's first move: let the oldest kept ones go
            for old in kept_games()[KEEP_AT_MOST:]:
                forget_kept(old)

    @classmethod
    def resume(cls, path: Path) -> LocalTable:
        """The game kept in ``path`` (by a table with ``keep``), replayed to where it stopped and
        kept on from there; `KeptGameError` if it cannot be."""
        record = read_kept(path)
        try:
            table = cls(
                GAMES[record["game"]], record["players"], record["seat"], humans=record["humans"],
                bot=record["bot"], seed=record["seed"], pace=record["pace"], options=record["options"] or None,
                keep=True,
            )  # fmt: skip
            for seat, wire in record["actions"]:
                table._play(seat, table.game.parse_action(wire), replaying=True)
        except (KeyError, TypeError, ValueError, ActionError) as exc:
            raise KeptGameError(f"the unfinished game in {path} cannot be replayed ({exc})") from None
        if table.game.result(table._state) is not None:
            raise KeptGameError(f"the game in {path} is already over")
        return table

    def audit(self) -> dict | None:
        """The end-of-game audit (the log written too); ``None`` before the end."""
        result = self.game.result(self._state)
        if result is None:
            return None
        if self._audit is None:
            self._audit = finish(self.recorder.log(self.seat, result))
        return self._audit

    def _observe(self) -> None:
        for bot in self.bots.values():
            if bot.uses_view:
                bot.observe(self.game.view(self._state, bot.seat))

    def bot_step(self) -> bool:
        """Let one bot whose turn it is act; False if no bot may act now."""
        acting = sorted(self.game.to_act(self._state) & self.bots.keys())
        if not acting:
            return False
        seat = acting[0]
        bot = self.bots[seat]
        legal = self.game.legal_actions(self._state, seat)
        view = self.game.view(self._state, seat) if bot.uses_view else None
        self._play(seat, bot.choose(view, legal))
        return True

    def autoplay(self, stop: Callable[[Snapshot], bool], *, bot: str = "smart", limit: int = 10_000) -> Snapshot:
        """Play every seat, those at this terminal with bots too, until ``stop(snapshot)`` or the end.

        For demos, screenshots and tests: it sets a table at an interesting moment.
        """
        me = make_bot(self.game.id, bot, self.seat, self._rng.fork("autoplay"))
        others = {s: make_bot(self.game.id, bot, s, self._rng.fork(f"autoplay/{s}")) for s in self.humans[1:]}
        for _ in range(limit):
            snapshot = self.snapshot()
            if stop(snapshot) or snapshot.result is not None:
                return snapshot
            acting = sorted(snapshot.to_act & others.keys())
            if snapshot.legal:
                me.observe(snapshot.view)
                self._play(self.seat, me.choose(snapshot.view, snapshot.legal))
            elif acting:
                seat = acting[0]
                view = self.game.view(self._state, seat)
                others[seat].observe(view)
                self._play(seat, others[seat].choose(view, self.game.legal_actions(self._state, seat)))
            elif not self.bot_step():
                raise RuntimeError("nobody can act")
        raise RuntimeError(f"autoplay did not stop within {limit} actions")

    async def run(self) -> None:
        self._publish()
        while self.game.result(self._state) is None:
            if self.game.to_act(self._state) & self.bots.keys():
                await asyncio.sleep(0 if self.game.open_actions else self.pace)
                self.bot_step()
            else:
                self._wake.clear()
                await self._wake.wait()
