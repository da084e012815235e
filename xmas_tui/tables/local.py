"""A game against bots on this terminal: a table session with every seat in this process.

Owns: ``LocalTable``, the table a person plays against bots (alone, or with
others sharing the keyboard). It is the same host session a networked table
runs, with the people's seats in memory and bots at the others, dealt from a
seed the player may choose (``--seed``: the same seed deals the same game),
kept on disk after every move so it can be resumed (``LocalTable.resume``),
and audited and logged at the end like any other table. ``autoplay`` and
``bot_step`` set a table at a chosen moment for demos, screenshots and tests.

Must not touch: Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from netcode.fairplay import Ledger, Signer, digest, secret_from_seed
from netcode.runners import PeerRunner
from netcode.session.host import ActionApplied, HostSession, RuleError, TableSettings
from netcode.session.peer import TablePeer
from netcode.session.seat import SeatSession
from xmas_tui.bots import BotDriver
from xmas_tui.games import GAMES, ActionError, Game, View

from .kept import KeptGameError, forget_kept, keep_path, read_kept, write_kept
from .rules import GameRules
from .table import DEFAULT_PACE, SessionTable, Snapshot


class LocalTable(SessionTable):
    """The engine in this process: me at ``seat``, bots at the others.

    ``humans`` adds seats played by other people at this terminal (a shared
    keyboard): no bot plays them, ``send(action, seat=…)`` plays for them, and
    the view shown is ``seat``'s, so share a terminal only in a game whose screen
    shows nothing one of them may not see.

    In a game whose actions carry their own timing (``Game.open_actions``: a
    reaction time in milliseconds), bots seal their choice as soon as they may
    act; the pace is then the pause a board leaves between rounds.
    """

    def __init__(self, game: Game, players: Sequence[str], seat: int = 0, *, humans: Sequence[int] = (),
                 bot: str = "smart", seed: int | str = 0, pace: float = DEFAULT_PACE,
                 options: dict | None = None, keep: bool = False) -> None:
        """``keep``: keep the unfinished game on disk after every move (in `keep_path`), so it
        can be resumed after the terminal or the connection to it is lost."""
        humans = tuple(dict.fromkeys((seat, *humans)))
        if any(not 0 <= s < len(players) for s in humans):
            raise ValueError(f"seats are 0-{len(players) - 1}, not {list(humans)}")
        self.seed, self.bot, self.options = seed, bot, dict(options or {})
        self.humans = humans
        self.keep: Path | None = keep_path(game.id, seed) if keep else None
        settings = TableSettings(game.id, game.title, len(players), players[seat], dict(self.options),
                                 bot_pace=pace, auto_start=True)
        ledger = Ledger(game.id, digest("local-table", str(seed))[:8], secret_from_seed(seed),
                        options=dict(self.options))
        host = HostSession(
            settings, lambda names, fair_seed: GameRules(game, names, seed=fair_seed, bot=bot, options=self.options),
            ledger, Signer(), names=list(players), bot_seats=[s for s in range(len(players)) if s not in humans],
            rng_seed=seed,
        )  # fmt: skip
        self._host = host
        self.runner = PeerRunner(TablePeer.as_host(host))
        self.runner.table_listeners.add(self._host_news)
        sessions = {s: SeatSession(players[s], ledger.table_id, contribute=False) for s in humans}
        links = [self.runner.sit(sessions[s]) for s in humans]  # each sits in turn; the last deals
        super().__init__(game, links, pace=pace)

    # ------------------------------------------------------------ the whole table (demos, tests)
    @property
    def host(self) -> HostSession:
        return self._host

    @property
    def rules(self) -> GameRules:
        rules = self.host.rules
        assert isinstance(rules, GameRules)
        return rules

    @property
    def state(self) -> Any:
        """The whole state, hidden faces included: for demos and tests, never for a screen."""
        return self.rules.state

    @property
    def networked(self) -> bool:
        return False

    def seat_notes(self) -> dict[int, str]:
        return {}  # everyone not here is a bot, and nobody has a ping

    def refresh(self) -> None:
        """Show every seat the table again, after the state was changed by hand (tests, demos)."""
        self.rules.forget_views()
        self.runner.command(self.host.refresh)

    def set_pace(self, seconds: float) -> float:
        pace = super().set_pace(seconds)
        self.runner.command(lambda now: self.host.set_bot_pace(pace, now))
        return pace

    def bot_step(self) -> bool:
        """Let one bot whose turn it is act now; False if no bot may act."""
        return self.runner.play_bot()

    def autoplay(self, stop: Callable[[Snapshot], bool], *, bot: str = "smart", limit: int = 10_000) -> Snapshot:
        """Play every seat, those at this terminal with bots too, until ``stop(snapshot)`` or the end.

        For demos, screenshots and tests: it sets a table at an interesting moment."""
        rng = self.rules.rng
        mine = BotDriver(self.game.id, dict.fromkeys(self.humans, bot),
                         lambda s: rng.fork("autoplay" if s == self.humans[0] else f"autoplay/{s}"))
        views = {link.session.seat: link for link in self.links}

        def view_of(seat: int) -> View:
            return View.from_wire(views[seat].session.view)

        for _ in range(limit):
            snapshot = self.snapshot()
            if stop(snapshot) or snapshot.result is not None:
                return snapshot
            acting = [s for s in self.humans if s in snapshot.to_act and views[s].session.legal]
            if acting:
                seat = acting[0]
                mine.follow(view_of, [seat])
                legal = [self.game.parse_action(a) for a in views[seat].session.legal]
                link = views[seat]
                link.post(link.session.act(mine.choose(seat, view_of, legal).to_wire()))
            elif not self.bot_step():
                raise RuntimeError("nobody can act")
        raise RuntimeError(f"autoplay did not stop within {limit} actions")

    async def run(self) -> None:
        await self.runner.open()
        self._publish()
        try:
            await super().run()
        finally:
            await self.runner.close()

    # ------------------------------------------------------------ keeping
    def _host_news(self, events: list) -> None:
        if self.keep is None or not any(isinstance(e, ActionApplied) for e in events):
            return
        if self.host.finished:
            forget_kept(self.keep)
            return
        write_kept(self.keep, {
            "game": self.game.id, "players": list(self.players), "seat": self.humans[0],
            "humans": list(self.humans), "bot": self.bot, "seed": self.seed, "options": self.options,
            "pace": self.pace, "actions": [[s, a] for s, a in self.host.ledger.actions],
        })  # fmt: skip

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
        except (KeyError, TypeError, ValueError, ActionError, RuleError) as exc:
            raise KeptGameError(f"the unfinished game in {path} cannot be replayed ({exc})") from None
        try:
            table.runner.command(lambda now: table.host.replay(record["actions"], now))
        except (KeyError, TypeError, ValueError, ActionError, RuleError) as exc:
            table.runner.stop()  # it will not be played: its bots must not move, nor keep it again
            raise KeptGameError(f"the unfinished game in {path} cannot be replayed ({exc})") from None
        if table.host.finished:
            table.runner.stop()
            raise KeptGameError(f"the game in {path} is already over")
        return table

