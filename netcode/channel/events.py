"""What the channel tells the application, and what it refuses.

Owns: the event classes a connection or an endpoint hands out (named after
what happened, as aioquic names its events) and the exceptions a send raises.

Must not touch: connection state, sockets, clocks. Events are plain data.
"""

from __future__ import annotations

from collections.abc import Hashable
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
    """A peer the endpoint did not know proved it knows the join code (host side;
    followed by `HandshakeCompleted`)."""

    peer: int
    address: Address


@dataclass(slots=True)
class PeerGone:
    """`peer` went silent ("silent"), never answered ("unreachable"), left ("closed"),
    or we closed it ("local"); or, before the handshake was done, could not prove it
    knows the code ("wrong_code"), refused us for now ("rate_limited") or was still
    too busy to let us in when we gave up ("busy"); or would have had to reuse a
    packet number ("exhausted")."""

    peer: int
    reason: str


@dataclass(slots=True)
class RttUpdated:
    """New smoothed round-trip estimate for `peer` (seconds), with the least raw round trip seen,
    the recent ones' spread above it (None until enough are known) and the least recent one."""

    peer: int
    rtt: float
    rttvar: float
    rto: float
    least: float = float("inf")
    spread: float | None = None
    recent_least: float = float("inf")


@dataclass(slots=True)
class HandshakeCompleted:
    """Both sides proved they know the join code: from now on every datagram between
    us and `peer` is sealed under keys of this pair alone (both sides get this)."""

    peer: int
    address: Address


#: What a joiner is told when the host's proof does not match the code it typed.
WRONG_CODE = "This table could not prove it knows the code: check the code."
#: ... when it gives up while the host was still asking it to wait (BUSY): never the code.
TABLE_BUSY = "The table is busy: try again in a moment."
#: ... when it gives up and the host never answered at all.
NO_ANSWER = (
    "The table did not answer: check that it is still open, and that the host's "
    "firewall lets UDP through."
)


@dataclass(slots=True)
class HandshakeFailed:
    """Joining `peer` failed before any key was agreed (joiner side); `text` says why
    in one sentence for a player. `PeerGone` with the same reason follows."""

    peer: int
    address: Address
    reason: str  # "wrong_code", "rate_limited" or "busy"
    text: str


@dataclass(slots=True)
class JoinAttemptFailed:
    """Someone at `source` tried to join and did not prove they know the code (host
    side): a wrong code, a guess, or an attempt abandoned half-way."""

    source: Hashable
    failures: int  # failed attempts from this source so far
    total: int  # failed attempts at this table so far
    reason: str  # "wrong_proof", "joiner_gave_up", "unconfirmed" or "evicted"

    @property
    def text(self) -> str:
        return failed_attempts_text(self.failures, self.source)


def failed_attempts_text(failures: int, source: Hashable) -> str:
    """ "3 failed join attempts from 127.0.0.1" """
    return f"{plural(failures, 'failed join attempt')} from {source}"


def plural(count: int, noun: str) -> str:
    """ "1 address", "3 addresses", "2 join attempts" """
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun}{'es' if noun.endswith(('s', 'x', 'sh', 'ch')) else 's'}"


Event = (
    Delivered
    | Unreliable
    | PeerJoined
    | PeerGone
    | RttUpdated
    | HandshakeCompleted
    | HandshakeFailed
    | JoinAttemptFailed
)


class SendQueueFull(Exception):
    """send_reliable was refused: too much is queued for this peer already."""


class PeerClosed(Exception):
    """The peer is gone; nothing more can be sent to it."""
