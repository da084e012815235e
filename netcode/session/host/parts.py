"""The parts of a host: what each job of ``HostSession`` uses of the others. For the type checker only.

Owns: ``HostParts``, the base of every job's mixin (``seating``, ``dealing``, ``play``, ``racing``,
``deadlines``, ``bots``, ``lease``, ``outbox``). Each job keeps its own state and methods in its own
module; a job that reads another's state or calls another's method finds it declared here, so the
type checker checks each mixin alone as it will be put together in ``HostSession`` (and checks that
the declarations here match the real ones). At run time the class is empty.

Must not touch: anything at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections import Counter

    from netcode.fairplay import Ledger, Signer
    from netcode.session.host.deadlines import Unknown
    from netcode.session.host.lease import Lease
    from netcode.session.host.live import LiveRounds
    from netcode.session.host.races import RaceClock
    from netcode.session.host.rules import Rules, RulesFactory
    from netcode.session.host.seating import Guest
    from netcode.session.host.session import TableSettings
    from netcode.session.messages import Act
    from netcode.session.seats import RosterRow, Seat
    from netcode.session.step import Step
    from netcode.shares import Share

Peer = Hashable


class HostParts:
    """What the jobs of a ``HostSession`` use of each other (declared for the type checker)."""

    if TYPE_CHECKING:
        # HostSession
        drops: Counter[str]
        # Deadlines
        _next: float | None | Unknown
        settings: TableSettings
        # Seating
        guests: dict[Peer, Guest]
        seats: list[Seat]
        def members(self) -> list[list[Any]]: ...
        def roster(self, now: float) -> list[RosterRow]: ...
        # Dealing
        _deal_by: float | None
        dealing: bool
        ledger: Ledger
        rng_seed: Any
        shares: dict[int, Share]
        def _deal(self, now: float) -> None: ...
        def _reshare_if_changed(self) -> None: ...
        mental_keys: dict[int, bytes]
        mental_voices: dict[int, bytes]
        seats_taken: set[int]
        seat_runners: dict[int, Peer]
        programs: dict[Peer, int]
        def _runner_left(self, peer: Peer) -> None: ...
        _move_signatures: dict[int, tuple[int, bytes | None]]
        def _voiced_act(self, seat: int, act: Act) -> str | None: ...
        def _mental_seed(self, names: list[str]) -> dict[str, Any]: ...
        def _mental_started(self) -> None: ...
        def _pump_mental(self) -> None: ...
        def take_seat(self, seat: int) -> bool: ...
        def _send_dealt(self, peer: Peer) -> None: ...
        def _start(self, now: float) -> None: ...
        @property
        def started(self) -> bool: ...
        # Play
        _last_action: float
        finished: bool
        log: list[list[Any]]
        make_rules: RulesFactory
        refused: int
        rules: Rules | None
        signer: Signer
        term: int
        def _apply(self, seat: int, action: Any, now: float, by: str) -> None: ...
        def _held_back(self, peer: Peer, id: int) -> bool: ...
        def _note(self, text: str, seat: int | None = None) -> None: ...
        @property
        def real_time(self) -> bool: ...
        @property
        def recorded(self) -> int: ...
        def signature(self) -> list[Any]: ...
        # Racing
        live: LiveRounds
        races: RaceClock
        def _clamped(self, seat: int, peer: Peer, earliest: int | None, clamped: list[Any]) -> None: ...
        def _earliest(self, peer: Peer) -> int | None: ...
        def _open_room(self, now: float) -> None: ...
        def _room_share(self, author: int, now: float, needed: Callable[[int], int]) -> None: ...
        def _ping(self, now: float) -> bool: ...
        def _release(self, now: float) -> bool: ...
        def _shout(self, seat: int, shout: Any, ms: int) -> None: ...
        def _shout_fresh(self, seat: int, action: Any) -> None: ...
        def _name_liars(self, peer: Peer) -> None: ...
        # Deadlines
        def _arm_timers(self, rules: Rules, now: float) -> None: ...
        # Bots
        _bot_seats: frozenset[int] | None
        bot_pace: float
        def _bot_due(self) -> float: ...
        def _bot_moves(self, now: float) -> None: ...
        def _plays_by_bot(self, i: int) -> bool: ...
        # Leasing
        _lease_due: float | None
        lease: Lease
        stepped_down: bool
        def _arm_lease(self, now: float) -> None: ...
        def _keep_lease(self, now: float) -> None: ...
        # Outbox
        _out: Step
        def _settle(self, now: float) -> Step: ...
        def _take(self) -> Step: ...
