"""The host's own program at a no-peek table, as its session drives it: ``NoPeekRules``.

Owns ``NoPeekRules``: the ``Rules`` a ``HostSession`` runs when its table deals no-peek
(``netcode.session.host.mental``). It is one ``Machine`` that plays no seat of its own,
only the bots (their hands open to it and to nobody else), and holds no part of the joint
key (so hosting adds no share to anyone's count). It orders each move to every program
(``Order``; a simultaneous choice as its digest first, ``Sealed``), relays what it says
itself (``Relay`` from the host's id), and hands the session the log lines of each move
once every program has what it needs to make it. While a move is being made nobody is
to act; a seat's legal moves are its own program's to list (the host does not know its
hand), but for the bots'.

Must not touch: sockets, clocks, asyncio, the UI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from netcode.dealing import keys
from netcode.dealing.group import Point
from netcode.session.host import RuleError
from netcode.session.host.mental import SEALED
from netcode.session.messages import Keyed, Order, Relay, Sealed, SeatTaken
from netcode.session.step import Work
from xmas_tui.bots import make_bot
from xmas_tui.games import ActionError, Event, Game, Rng
from xmas_tui.games.engine import public_digest

from ..rules import live_press
from .machine import Machine


def rules_factory(game: Game, *, bot: str = "smart", options: Mapping[str, Any] | None = None) -> Any:
    """The factory a host deals with: ``GameRules`` from the fair seed, or, when the host's
    table deals no-peek, its own program (``NoPeekRules``)."""
    from xmas_tui.tables.rules import GameRules

    def make(names: list[str], seed: Any) -> Any:
        if is_no_peek_deal(seed):
            return NoPeekRules(game, names, seed, options=options, bot=bot)
        return GameRules(game, names, seed=seed, bot=bot, options=options)

    return make


def is_no_peek_deal(seed: Any) -> bool:
    """Whether a rules factory was handed a no-peek deal (``HostSession._mental_seed``)."""
    return isinstance(seed, Mapping) and seed.get("no_peek") is True


class NoPeekRules:
    """The host's program at a no-peek table (see the module's docstring)."""

    def __init__(self, game: Game, players: Sequence[str], deal: Mapping[str, Any], *,
                 options: Mapping[str, Any] | None = None, bot: str = "smart") -> None:
        self.game = game
        self.players = tuple(players)
        n = len(players)
        self.host_id = n
        holders = [int(s) for s in deal["holders"]]
        raw_keys = {int(s): bytes(k) for s, k in deal["keys"].items()}
        if not holders:
            raise RuleError("A no-peek deal needs at least one player's program to hold the key.")
        self.runs = {s: (s if s in holders else n) for s in range(n)}
        self.personal = keys.PersonalKey.generate()
        personal_keys = {s: Point.decode(raw_keys[s]) for s in holders}
        recipients = {s: personal_keys[s] if self.runs[s] == s else self.personal.public for s in range(n)}
        self.bot = bot
        bots = {s: make_bot(game.id, bot, s, Rng(f"no-peek/bot/{s}/{deal['table']}")) for s in range(n)
                if self.runs[s] == n}
        self.machine = Machine(
            game, dict(options or {}), players, n, table=str(deal["table"]), holders=holders,
            runs=self.runs, bots=bots, personal=self.personal,
        )  # fmt: skip
        self._keyed = Keyed(
            str(deal["table"]), list(players), holders, [raw_keys[s] for s in holders],
            [self.runs[s] for s in range(n)], [recipients[s].encode() for s in range(n)],
        )  # fmt: skip
        self._sends: list[Order | Sealed | Relay | SeatTaken] = []
        self._relay(self.machine.begin(personal_keys, recipients))
        self._logged = 0
        #: a real-time round: seat -> what the host heard it press and the bound on the rest,
        #: for the digest it sends next (``merge``, then ``act``)
        self._merging: dict[int, tuple[Any, int | None]] = {}
        self._rooms_seen = 0
        self.closed = False
        self.watching: frozenset[int] = frozenset()

    # ------------------------------------------------------------ its own part
    def _relay(self, messages: list[bytes]) -> None:
        self._sends.extend(Relay(self.host_id, data) for data in messages)

    def keyed(self) -> Keyed:
        return self._keyed

    def take(self, author: int, data: bytes) -> None:
        self._relay(self.machine.take(author, data))

    @property
    def offload(self) -> bool:
        return self.machine.offload

    @offload.setter
    def offload(self, value: bool) -> None:
        self.machine.offload = value

    def work(self) -> list[Work]:
        return self.machine.work()

    def worked(self, work: Work, result: Any) -> bool:
        """``work``'s result, if it is my machine's (True: it was)."""
        if not self.machine.owns(work):
            return False
        self._relay(self.machine.worked(work, result))
        return True

    def drain(self) -> tuple[list[Order | Sealed | Relay | SeatTaken], list[Any]]:
        sends, self._sends = self._sends, []
        events = self.machine.events[self._logged :]
        self._logged = len(self.machine.events)
        return sends, [e.to_wire() for e in events]

    def stopped(self) -> str | None:
        return self.machine.stopped

    def hand(self, seat: int, runner: tuple[int, bytes, bytes] | None = None, pace: float = 0.0) -> bool:
        """``seat``'s player's program (or the watcher's that ran it) has left for good: from now
        on a bot plays it on ``runner``, a watcher's program ``(id, personal key, voice)``, or on
        this program (None); the others open its cards to that program's key (``SeatTaken``).
        False where that cannot be: before the deal is done, or with fewer than t programs
        still holding a key share (no card could open any more)."""
        machine, n = self.machine, len(self.players)
        ledger = machine.ledger
        if ledger is None or self._state is None or machine.stopped is not None or not 0 <= seat < n:
            return False
        gone = self.runs[seat]
        if machine.holders_left(leaving=gone) < ledger.joint.t:
            return False
        if runner is None:
            program, key, voice = self.host_id, self.personal.public, None
        else:
            program, voice = runner[0], runner[2]
            try:
                key = Point.decode(runner[1])
            except ValueError:
                return False
        if program == gone:
            return True
        if runner is None:
            machine.bots[seat] = make_bot(self.game.id, self.bot, seat, Rng(f"no-peek/handed/{seat}/{machine.table}"))
        self.runs[seat] = program
        self._sends.append(SeatTaken(seat, program, key.encode(), voice, pace))
        self._relay(machine.hand(seat, program, key))
        return True

    def rehand(self, seat: int) -> bool:
        """``seat``'s player is back with its program started again (its keys kept): a choice it
        sent as a digest and never revealed is void, as every program hears in order (a
        ``SeatTaken`` to the same program); it chooses again. False: nothing to void."""
        machine = self.machine
        if not machine.unrevealed(seat):
            return False
        program = self.runs[seat]
        key = machine.recipient(seat)
        self._sends.append(SeatTaken(seat, program, key.encode(), None, 0.0))
        self._relay(machine.hand(seat, program, key))
        return True

    @property
    def _state(self) -> Any:
        return self.machine.replica.state

    def _ready(self) -> bool:
        machine = self.machine
        return machine.stopped is None and machine.idle and self._state is not None and not self.closed

    # ------------------------------------------------------------ the Rules protocol
    def dealt(self) -> bool:
        return self._state is not None

    def to_act(self) -> frozenset[int]:
        if not self._ready():
            return frozenset()
        # (a seat whose choice went round as a digest waits for the others: until every digest
        # is in and revealed, however many moves are made meanwhile, a silent one among them)
        return frozenset(s for s in self.game.to_act(self._state) if not self.machine.has_chosen(s))

    def close(self) -> None:
        self.closed = True

    def act(self, seat: int, action: Any) -> list[Any]:
        if self.closed:
            raise RuleError("The host closed the table: the game is over.")
        if self.machine.stopped is not None:
            raise RuleError(self.machine.stopped)
        if seat not in self.to_act():
            raise RuleError("Wait: the last move is still being dealt, or it is not your turn.")
        acting = self.game.to_act(self._state)
        machine = self.machine
        heard, bound = self._merging.pop(seat, (None, None))
        if isinstance(action, list) and len(action) == 2 and action[0] == SEALED and isinstance(action[1], bytes):
            digest = action[1]
        elif self._is_silent(seat, action):  # (a real-time game: the host's word that it said nothing in time)
            self._sends.append(Order(seat, action, silent=True, heard=heard))
            self._relay(machine.order(seat, action, silent=True, heard=heard))
            return []
        elif len(acting) > 1 and self.runs.get(seat) == self.host_id:  # a bot's choice: digest first
            try:
                digest = machine.commit(seat, self.game.parse_action(action))
            except ActionError as refused:
                raise RuleError(str(refused)) from None
        elif len(acting) > 1:
            raise RuleError("A choice made at the same time as others goes as its digest first.")
        else:
            self._sends.append(Order(seat, action))
            self._relay(machine.order(seat, action))
            return []
        self._sends.append(Sealed(seat, digest, heard=heard, bound=bound))
        self._relay(machine.sealed(seat, digest, heard, bound))
        return []

    def _is_silent(self, seat: int, action: Any) -> bool:
        """Whether ``action`` is the silent action of a real-time game for a seat the host's
        program does not play (its deadline passed: the host gives it that, unsigned)."""
        if self.game.race_window is None or self.runs.get(seat) == self.host_id:
            return False
        try:
            return bool(self.game.parse_action(action) == self.game.silent_action(self._state, seat))
        except ActionError:
            return False

    def view(self, seat: int | None) -> dict[Any, Any]:
        if self._state is None:
            return {"game": self.game.id, "seat": seat, "public": {}, "zones": {}, "faces": []}
        return self.game.view(self._state, seat).to_wire()

    def made(self) -> list[tuple[int, str]]:
        return []

    def legal(self, seat: int) -> list[Any]:
        if self.closed or self.runs.get(seat) != self.host_id:
            return []  # (a player's legal moves are its own program's to list)
        return self.machine.legal(seat)

    def result(self) -> dict[Any, Any] | None:
        state = self._state
        if state is None:
            return None
        result = self.game.result(state) if self.machine.audited else None
        if result is None and self.closed:
            result = self.game.closed_result(state)
        return result.to_wire() if result is not None else None

    def bot_may_play(self, seat: int) -> bool:
        return self.runs.get(seat) == self.host_id

    def bot_action(self, seat: int) -> Any:
        if self.runs.get(seat) != self.host_id:
            raise RuleError("At a no-peek table a bot can play only a seat it was dealt.")
        return self.machine.choose(seat).to_wire()

    def set_bot_seats(self, seats: frozenset[int]) -> None:
        self.watching = frozenset(seats)

    def silent_action(self, seat: int) -> Any:
        return self.game.silent_action(self._state, seat).to_wire()

    def sealed_pending(self) -> bool:
        return False

    def window(self) -> float | None:
        return self.game.race_window

    def racing(self) -> bool:
        """A real-time round is on: its room is waiting to open (the host names its instant:
        the players' programs send their shares of it then) or open."""
        machine = self.machine
        if machine.stopped is not None or self.closed:
            return False
        return machine.room_waiting or (self._state is not None and self.game.racing(self._state))

    def shares_needed(self, program: int) -> int:
        """How many other programs' shares of a room ``program`` needs to open it."""
        ledger = self.machine.ledger
        if ledger is None:
            return 0
        holds = program in self.machine.holders and program not in self.machine.gone
        return ledger.joint.t - holds

    def room_from(self) -> list[int]:
        """The programs whose shares of the room under way came in since last asked, in order."""
        fresh = self.machine.room_from[self._rooms_seen :]
        self._rooms_seen = len(self.machine.room_from)
        return fresh

    def press(self, seat: int, so_far: Any | None, press: Any, earliest_ms: int | None) -> tuple[Any, list[Any]]:
        """One input of a real-time round, as it is made (the room is public: the game's pure
        ``press`` on the public state)."""
        if not (self.machine.idle and self._state is not None and self.game.racing(self._state)):
            raise RuleError("A press counts only while a real-time round is open.")
        return live_press(self.game, self._state, seat, so_far, press, earliest_ms)

    def merge(self, seat: int, so_far: Any | None, action: Any, earliest_ms: int | None) -> tuple[Any, list[Any]]:
        """A seat's choice closing its real-time round comes as a digest: what was heard of it
        and the bound go with its order (``Sealed``), and every program merges them as the
        choice opens (the log says what was raised)."""
        self._merging[seat] = (so_far, earliest_ms)
        return action, []

    def heard(self, seat: int, action: Any) -> list[tuple[int, Any]]:
        """What the table hears of a bot's real-time action (a player's comes as a digest)."""
        if isinstance(action, list) and action and action[0] == SEALED:
            return []
        try:
            return self.game.heard(self.game.parse_action(action))
        except ActionError:
            return []

    def digest(self) -> str:
        return public_digest(self.view(None))

    def opening(self) -> list[Any]:
        start = Event("start", f"{self.game.title}: {', '.join(self.players)}. The players' programs deal: "
                               "no program sees a card the rules have not shown it.")
        return [start.to_wire()]
