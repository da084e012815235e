"""When a datagram reached this machine: the kernel's receive time, on the monotonic clock.

Owns: ``ArrivalClock``. A busy event loop (or a busy machine) handles a
datagram some milliseconds after it arrived; the kernel notes the arrival
itself. On Linux a UDP socket tells the receive time of the last datagram read
from it (``SIOCGSTAMPNS``, on the wall clock: turned to monotonic time by
reading both clocks at once). A handler that runs straight from its datagram's
read (as the asyncio shell's do) asks right then. Elsewhere, or when the answer
is not believable, the clock says None and the caller takes the time it handles
the datagram. Used by the runners (the bound on race claims counts from real
arrivals) and by the fault proxy (its delays count from them too).

Must not touch: sessions, games; it only reads a socket's timestamp.
"""

from __future__ import annotations

import socket
import struct
import sys
import time
from typing import Any

try:
    import fcntl
except ImportError:  # not on Windows: arrivals are then taken when they are handled
    fcntl = None  # type: ignore[assignment]  # (no module: checked before each use)

#: Linux's ioctl for the kernel's receive time of the last datagram read from a socket
SIOCGSTAMPNS = 0x8907
#: an arrival older than this (seconds) is not believed (a clock stepped, a stale stamp)
OLDEST = 1.0
#: what the ioctl fills: seconds and nanoseconds
_STAMP = struct.Struct("qq")
_ROOM = bytes(_STAMP.size)


class ArrivalClock:
    """When the datagram last read from one socket reached this machine (``time.monotonic``)."""

    def __init__(self, sock: socket.socket | Any | None) -> None:
        linux = fcntl is not None and sys.platform.startswith("linux")
        self.fileno: int | None = sock.fileno() if sock is not None and linux else None
        if self.fileno is not None:
            try:  # the first call switches the socket's timestamps on
                fcntl.ioctl(self.fileno, SIOCGSTAMPNS, bytes(16))
            except OSError:
                pass

    def __call__(self) -> float | None:
        if self.fileno is None:
            return None
        try:
            seconds, nanoseconds = _STAMP.unpack(fcntl.ioctl(self.fileno, SIOCGSTAMPNS, _ROOM))
        except OSError:
            return None
        age = time.time() - (seconds + nanoseconds / 1e9)
        now = time.monotonic()
        return now - age if 0.0 <= age <= OLDEST else None

    @classmethod
    def of_transport(cls, transport: Any) -> ArrivalClock:
        """The arrival clock of an asyncio datagram transport's socket."""
        return cls(transport.get_extra_info("socket") if transport is not None else None)

    @classmethod
    def of(cls, aio: Any) -> ArrivalClock:
        """The arrival clock of an ``AioEndpoint``'s socket."""
        return cls.of_transport(getattr(aio, "_transport", None))  # the endpoint's own: read, never written
