"""The retry cookie: a host's proof, kept by nobody, that it heard an INIT from an address.

Owns: the host's cookie key, minting the cookie a RETRY carries, and checking
the one an INIT brings back.

As in QUIC's Retry (RFC 9000 §8.1) and DTLS's HelloVerifyRequest (RFC 6347
§4.2.1), a host answers an INIT that has no good cookie with a RETRY and keeps
nothing: no attempt, no record of the source, no SPAKE2. A joiner that
receives at the address it sends from repeats its INIT with the cookie, and
only then does the host spend anything on it. A flood from forged source
addresses never sees a RETRY, so it never gets past this door.

A cookie is ``window ‖ HMAC-SHA256(key, window ‖ source address ‖ joiner id ‖
host id ‖ SPAKE2 message)``, cut to `COOKIE` bytes: the window is the time
cut into `Config.cookie_lifetime` slices (four bytes, in the clear, so a check
costs one MAC), the address is the whole socket address (IP and port), and the
rest is the INIT itself, so a cookie is good for one INIT from one address,
for between one and two windows. The key is drawn afresh by each host and
never leaves it. The MAC is the standard library's ``hmac``; nothing here is
a primitive of our own.

Must not touch: attempts and rate limits (`admission`), the wire layout
(`netcode.envelope` packs the cookie), sockets and clocks (``now`` comes in).
"""

from __future__ import annotations

import hmac
import math
import os

from netcode.channel.config import Address
from netcode.envelope import COOKIE, HandshakePacket

_LABEL = b"xmas-tui retry cookie v4"
_WINDOW = 4  # bytes of the window's number, in the clear
_TAG = COOKIE - _WINDOW
_WRAP = 1 << (8 * _WINDOW)


def address_bytes(address: Address) -> bytes:
    """An address as the MAC sees it: its text form (a socket address is a tuple of str and int)."""
    return repr(address).encode("utf-8", "backslashreplace")


class Cookies:
    """Mints and checks the cookies of one host (its own key; nothing remembered)."""

    __slots__ = ("_key", "_lifetime")

    def __init__(self, lifetime: float, key: bytes | None = None) -> None:
        if not lifetime > 0:
            raise ValueError("a cookie's lifetime must be positive")
        self._key = key if key is not None else os.urandom(32)
        self._lifetime = lifetime

    def _window(self, now: float) -> int:
        return math.floor(now / self._lifetime) % _WRAP

    def _tag(self, window: bytes, packet: HandshakePacket, address: Address) -> bytes:
        ids = packet.sender.to_bytes(8, "big") + packet.receiver.to_bytes(8, "big")
        text = b"".join((_LABEL, window, address_bytes(address), b"\0", ids, packet.message))
        return hmac.digest(self._key, text, "sha256")[:_TAG]

    def mint(self, packet: HandshakePacket, address: Address, now: float) -> bytes:
        """The cookie for this INIT from this address, good for one to two lifetimes from now."""
        window = self._window(now).to_bytes(_WINDOW, "big")
        return window + self._tag(window, packet, address)

    def check(self, packet: HandshakePacket, address: Address, now: float) -> str | None:
        """None if the INIT's cookie is good (minted by us, for this INIT from this
        address, lately); else why not: "no_cookie", "expired_cookie" or "bad_cookie"."""
        cookie = packet.cookie
        if not cookie:
            return "no_cookie"
        age = (self._window(now) - int.from_bytes(cookie[:_WINDOW], "big")) % _WRAP
        if age > 1:
            return "expired_cookie"
        if not hmac.compare_digest(cookie[_WINDOW:], self._tag(cookie[:_WINDOW], packet, address)):
            return "bad_cookie"
        return None
