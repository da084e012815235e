"""The join handshake: SPAKE2 keyed by the join code, then keys per direction.

Owns: the password a join code stands for, the identities that bind one exchange to one
table and both peers, the key schedule, and each role's state for one
attempt: `Initiator` (the joiner) and `Responder` (the host). The datagrams
they travel in are `netcode.envelope`'s; when to send them, retry them and
give up is the connection's (joiner) and the admission's (host).

The exchange, joiner A and host B::

    A -> B  INIT     X* (A's SPAKE2 message)
    B -> A  REPLY    Y* (B's message), B's proof
    A -> B  CONFIRM  A's proof            (then sealed datagrams)

Both sides run SPAKE2 (the ``spake2`` package, Ed25519 group) with the join
code as password and identities that name the table and both peer ids, so
an exchange is good for one table and one pair only. From SPAKE2's shared
key, HKDF-SHA256 derives four independent values: the host's proof, the
joiner's proof, the joiner-to-host key and the host-to-joiner key
(ChaCha20-Poly1305, 32 bytes each). The host proves first: a joiner checks
that proof before it says anything that depends on the key, so a fake host
learns from one attempt only whether its one guess was right, and a fake
joiner learns the same from the host's proof. Nothing on the wire lets
anyone test a guess offline: that is what SPAKE2 is for.

Must not touch: sockets, clocks, connection state. Every cryptographic part
is a standard one (``spake2``, ``cryptography``); nothing here is a primitive.
"""

from __future__ import annotations

import hmac
import os
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from spake2 import SPAKE2_A, SPAKE2_B

from netcode.codes import code_key
from netcode.envelope import PROOF, Dropped, digest

_LABEL = b"xmas-tui channel v3"
_KEY = 32


def normalise_code(join_code: str) -> bytes:
    """The password a join code stands for: its one normal form (`netcode.codes.code_key`:
    no case, spaces or dashes, O is 0, I and L are 1), UTF-8."""
    return code_key(join_code).encode("utf-8")


@dataclass(frozen=True, slots=True, repr=False)
class SessionKeys:
    """One peer's keys toward one other peer: what it seals with, what it opens with."""

    send: bytes
    receive: bytes

    def __repr__(self) -> str:
        return "SessionKeys(<hidden>)"


@dataclass(frozen=True, slots=True, repr=False)
class _Schedule:
    host_proof: bytes
    joiner_proof: bytes
    joiner_keys: SessionKeys
    host_keys: SessionKeys


def _identities(table_id: bytes, joiner: int, host: int) -> tuple[bytes, bytes]:
    table = bytes([len(table_id)]) + table_id
    return (
        _LABEL + b" joiner " + table + joiner.to_bytes(8, "big"),
        _LABEL + b" host " + table + host.to_bytes(8, "big"),
    )


def _schedule(shared: bytes, joiner_identity: bytes, host_identity: bytes) -> _Schedule:
    material = HKDF(
        algorithm=hashes.SHA256(),
        length=2 * PROOF + 2 * _KEY,
        salt=_LABEL,
        info=joiner_identity + host_identity,
    ).derive(shared)
    host_proof, joiner_proof = material[:PROOF], material[PROOF : 2 * PROOF]
    to_host = material[2 * PROOF : 2 * PROOF + _KEY]
    to_joiner = material[2 * PROOF + _KEY :]
    return _Schedule(
        host_proof, joiner_proof, SessionKeys(to_host, to_joiner), SessionKeys(to_joiner, to_host)
    )


class Initiator:
    """The joiner's side of one attempt: its message, then the host's answer checked."""

    __slots__ = ("joiner", "host", "message", "keys", "proof", "_spake", "_redo", "_identities")

    def __init__(self, join_code: str, table_id: bytes, joiner: int, host: int) -> None:
        self.joiner = joiner
        self.host = host
        self._identities = _identities(table_id, joiner, host)
        password = normalise_code(join_code)
        drawn: list[bytes] = []

        def entropy(count: int) -> bytes:
            drawn.append(os.urandom(count))
            return drawn[-1]

        def again() -> SPAKE2_A:
            """The same exchange afresh (same secret scalar): `finish` may be tried again."""
            replay = iter(drawn)
            fresh = SPAKE2_A(password, *self._identities, entropy_f=lambda _count: next(replay))
            fresh.start()
            return fresh

        self._spake = SPAKE2_A(password, *self._identities, entropy_f=entropy)
        self.message: bytes = self._spake.start()
        self._redo = again
        #: set once the host proved it knows the code
        self.keys: SessionKeys | None = None
        self.proof = b""

    def finish(self, message: bytes, host_proof: bytes) -> bool:
        """Take the host's REPLY: True if the host proved it knows the code (the keys and
        our own proof are then set), False if it did not. A message that is no SPAKE2
        message at all raises `Dropped` and leaves the attempt as it was."""
        try:
            shared = self._spake.finish(message)
        except Exception:  # the library's refusals of a bad element come in several types
            self._spake = self._redo()
            raise Dropped("bad_handshake") from None
        schedule = _schedule(shared, *self._identities)
        if not hmac.compare_digest(schedule.host_proof, host_proof):
            return False
        self.keys = schedule.joiner_keys
        self.proof = schedule.joiner_proof
        return True


class Responder:
    """The host's side of one attempt, computed as the INIT arrives.

    Raises `Dropped` if the joiner's message is no SPAKE2 message at all."""

    __slots__ = ("joiner", "host", "init_message", "message", "proof", "keys", "_joiner_proof")

    def __init__(
        self, join_code: str, table_id: bytes, joiner: int, host: int, init_message: bytes
    ) -> None:
        self.joiner = joiner
        self.host = host
        self.init_message = init_message
        identities = _identities(table_id, joiner, host)
        spake = SPAKE2_B(normalise_code(join_code), *identities)
        self.message: bytes = spake.start()
        try:
            shared = spake.finish(init_message)
        except Exception:  # the library's refusals of a bad element come in several types
            raise Dropped("bad_handshake") from None
        schedule = _schedule(shared, *identities)
        self.proof = schedule.host_proof
        self.keys = schedule.host_keys
        self._joiner_proof = schedule.joiner_proof

    def confirms(self, joiner_proof: bytes) -> bool:
        """Whether the joiner's CONFIRM proves it knows the code."""
        return hmac.compare_digest(self._joiner_proof, joiner_proof)

    def reply_digest(self) -> bytes:
        """What the joiner echoes in an ABORT of this attempt."""
        return digest(self.message)
