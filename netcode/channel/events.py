"""What the channel tells the application, and what it refuses.

Owns: the event classes a connection or an endpoint hands out (named after
what happened, as aioquic names its events) and the exceptions a send raises.

Must not touch: connection state, sockets, clocks. Events are plain data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netcode.channel.config import Address


@dataclass(slots=True)
class Delivered:
    """A reliable message from `peer`, in order, exactly once."""

    peer: int
    payload: Any


@dataclass(slots=True)
class Unreliable:
    """An unreliable message from `peer` (may be lost or reordered, never duplicated)."""

    peer: int
    payload: Any


@dataclass(slots=True)
class PeerJoined:
    """An endpoint heard from a peer it did not know yet."""

    peer: int
    address: Address


@dataclass(slots=True)
class PeerGone:
    """`peer` went silent ("silent"), never answered ("unreachable"), left ("closed"),
    or we closed it ("local")."""

    peer: int
    reason: str


@dataclass(slots=True)
class RttUpdated:
    """New smoothed round-trip estimate for `peer` (seconds)."""

    peer: int
    rtt: float
    rttvar: float
    rto: float


Event = Delivered | Unreliable | PeerJoined | PeerGone | RttUpdated


class SendQueueFull(Exception):
    """send_reliable was refused: too much is queued for this peer already."""


class PeerClosed(Exception):
    """The peer is gone; nothing more can be sent to it."""
