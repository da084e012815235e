"""The parts of a connection: what each of ``Connection``'s mixins uses of the others. For the type checker only.

Owns: ``ConnectionParts``, the base of ``Joining``, ``Sending``, ``Receiving`` and ``LossRecovery``.
Each mixin keeps its own state (in the connection's slots, listed in its ``STATE``) and methods;
one that reads another's state or calls another's method finds it declared here, so the type
checker checks each mixin alone as it will be put together in ``Connection`` (and checks that
the declarations here match the real ones). At run time the class is empty and has no slots.

Must not touch: anything at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections import Counter, deque

    from netcode.channel.config import Address, Config
    from netcode.channel.events import Event
    from netcode.channel.handshake import Initiator
    from netcode.channel.receiving import SeqWindow
    from netcode.channel.recovery import Sent
    from netcode.channel.sending import OutUnit
    from netcode.envelope import Decoder, HandshakePacket, Opener, Sealer


class ConnectionParts:
    """What the mixins of a ``Connection`` use of each other (declared for the type checker)."""

    if not TYPE_CHECKING:
        # The state lives in ``Connection``'s slots, which the type checker cannot work out
        # (they are put together from each mixin's ``STATE``): to it, this base has none, so
        # it lets the mixins set their state.
        __slots__ = ()

    if TYPE_CHECKING:
        # Connection
        local_id: int
        peer_id: int
        address: Address
        config: Config
        created: float
        drops: Counter[str]
        gone_reason: str | None
        _counters: Counter[str]
        _events: deque[Event]
        @property
        def gone(self) -> bool: ...
        def _push(self, event: Event) -> bool: ...
        def _set_gone(self, reason: str) -> None: ...
        # Joining
        _initiator: Initiator | None
        def _handshake_datagrams(self, now: float) -> list[tuple[bytes, Address]]: ...
        def receive_handshake(self, packet: HandshakePacket, address: Address, now: float) -> None: ...
        # Joining, and Sending and Receiving (which use them)
        _sealer: Sealer | None
        _opener: Opener | None
        # Sending
        _ack_eliciting: int
        _resend: set[int]
        _unacked: dict[int, OutUnit]
        def datagrams_to_send(self, now: float) -> list[tuple[bytes, Address]]: ...
        # Receiving
        _acks: SeqWindow
        _highest_at: float
        _payload_decoder: Decoder
        # LossRecovery
        rto: float
        _copy_interval: float
        _acks_in: list[tuple[int, int, int, float]]
        _sent: dict[int, Sent]
        def _apply_acks(self) -> None: ...
        def _record(self, seq: int, now: float, units: tuple[int, ...]) -> None: ...
        def _unit_rto(self, unit: OutUnit) -> float: ...
