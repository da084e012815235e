"""Fair play: commitments, the shared seed, and checking openings.

Owns the game-agnostic half of "nobody chooses the shuffle and nobody can lie
about a card":

* the host's **secret** ``S`` (32 random bytes) and its commitment
  ``H("seed-commit", table_id, S)``, published before any peer contributes;
* each peer's **nonce** ``N`` (32 random bytes), committed in ``hello`` as
  ``H("nonce", table_id, N)`` and revealed only when the host deals;
* the **seed** ``H("seed", S, seat count, for each seat: present? N)``: a seat
  whose nonce did not arrive (or did not match its commitment) is left out by
  a rule written in the public notes;
* **card commitments** ``H("card", game, table_id, handle, face, salt)`` with
  ``salt = H("salt", S, handle)``: made when a hidden card's handle is made,
  and opened (the salt) to whoever is later shown the face.

``H`` is SHA-256 over a domain label and length-prefixed parts, so no two
different inputs are encoded alike. ``Ledger`` is the host's bookkeeping,
``Verifier`` a peer's: it checks every opening as it arrives and the secret
and seed at the end. The replay of the game itself (which needs the rules)
lives with the games, not here.

Must not touch: games, the UI, sockets.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

DOMAIN = b"xmas-tui/fairplay/v1"
SECRET_BYTES = 32
NONCE_BYTES = 32
#: How long the host waits for the peers' nonces before dealing without them (a program answers
#: at once; the time is for a link that loses the answer, and for every program to tell a host
#: that dealt early without a nonce: see ``netcode.session.seat``).
NONCE_TIMEOUT = 3.0


def _part(value: bytes | str | int) -> bytes:
    # (the usual kinds by their exact type first: a bool is not an int here)
    if type(value) is bytes:
        data = b"b" + value
    elif type(value) is str:
        data = b"s" + value.encode("utf-8")
    elif type(value) is int:
        data = b"i" + str(value).encode()
    else:
        return _part_of(value)
    return len(data).to_bytes(4, "big") + data


def _part_of(value: bytes | str | int) -> bytes:
    if isinstance(value, bool):
        raise TypeError("no booleans in a commitment")
    if isinstance(value, int):
        data = b"i" + str(value).encode()
    elif isinstance(value, str):
        data = b"s" + value.encode("utf-8")
    else:
        data = b"b" + bytes(value)
    return len(data).to_bytes(4, "big") + data


_DOMAIN_PART = _part(DOMAIN)


def digest(label: str, *parts: bytes | str | int) -> bytes:
    """SHA-256 of the domain, a label and length-prefixed parts (unambiguous)."""
    return hashlib.sha256(b"".join([_DOMAIN_PART, _part(label), *map(_part, parts)])).digest()


def new_secret() -> bytes:
    return os.urandom(SECRET_BYTES)


def new_nonce() -> bytes:
    return os.urandom(NONCE_BYTES)


def secret_from_seed(seed: int | str) -> bytes:
    """A host secret fixed by a seed (``--seed``, tests); peers' nonces still mix in."""
    return digest("secret-from-seed", str(seed))


def seed_commitment(table_id: bytes, secret: bytes) -> bytes:
    return digest("seed-commit", table_id, secret)


def nonce_commitment(table_id: bytes, nonce: bytes) -> bytes:
    return digest("nonce", table_id, nonce)


def derive_seed(secret: bytes, nonces: Sequence[bytes | None]) -> bytes:
    """The game seed: the host secret and every seat's nonce (``None``: left out), in seat order."""
    parts: list[bytes | int] = [secret, len(nonces)]
    for nonce in nonces:
        parts += [0, b""] if nonce is None else [1, nonce]
    return digest("seed", *parts)


def card_salt(secret: bytes, handle: int) -> bytes:
    return digest("salt", secret, handle)


def card_commitment(game: str, table_id: bytes, handle: int, face: str, salt: bytes) -> bytes:
    return digest("card", game, table_id, handle, face, salt)


def left_out_note(seat: int, why: str = "gave no nonce in time") -> str:
    return f"seat {seat + 1} {why}; the seed is made without it"


def choose_nonces(
    table_id: bytes, seats: int, commits: Mapping[int, bytes], revealed: Mapping[int, bytes]
) -> tuple[list[bytes | None], list[str]]:
    """The nonces that go into the seed, and the public notes on those left out.

    A seat counts if it committed to a nonce and revealed one that matches.
    """
    nonces: list[bytes | None] = []
    notes: list[str] = []
    for seat in range(seats):
        commit, nonce = commits.get(seat), revealed.get(seat)
        if commit is None:
            nonces.append(None)
        elif nonce is None:
            nonces.append(None)
            notes.append(left_out_note(seat))
        elif nonce_commitment(table_id, nonce) != commit:
            nonces.append(None)
            notes.append(left_out_note(seat, "revealed a nonce that does not match its commitment"))
        else:
            nonces.append(nonce)
    return nonces, notes


# ---------------------------------------------------------------- the public record of play

#: The chain value before any action.
CHAIN_START = b"\0" * 32


def chain_action(previous: bytes, seat: int, action: bytes) -> bytes:
    """The action chain after one more action (``action``: its packed wire form): a hash
    over every action so far, so one signature covers the whole record."""
    return digest("action", previous, seat, action)


def record_chain(actions: Iterable[Sequence[Any]]) -> bytes:
    """The chain over a whole record of play (``[seat, action]`` in wire form)."""
    chain = CHAIN_START
    for seat, action in actions:
        chain = chain_action(chain, seat, _pack(action))
    return chain


_pack = msgpack.Packer().pack


def final_message(table_id: bytes, term: int, fair: Mapping[str, Any], result: Any) -> bytes:
    """What a host signs at the end of a game: the fair-play record (the secret, every nonce,
    the notes, every action) and the result, in ``term``. A game log carries all of it, so
    anyone can check the signature from the log alone."""
    actions = list(fair.get("actions") or [])
    rest = {
        "secret": (fair.get("secret") or b"").hex(),
        "nonces": [None if n is None else n.hex() for n in fair.get("nonces") or []],
        "notes": list(fair.get("notes") or []),
        "result": result,
    }
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return digest("final", table_id, term, len(actions), record_chain(actions), text)


def final_signed(public: bytes, signature: bytes, table_id: bytes, term: int, fair: Mapping[str, Any],
                 result: Any) -> bool:
    """Whether ``signature`` is the host's (``public``) over the end of the game."""
    return signed_by(public, signature, final_message(table_id, term, fair, result))


class _Key:
    """An Ed25519 key of this process's own (its private half never leaves it); ``public``
    is what others check its signatures with (``signed_by``)."""

    def __init__(self, private: Ed25519PrivateKey | None = None) -> None:
        self._private = private or Ed25519PrivateKey.generate()
        self.public = self._private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


class Signer(_Key):
    """The host's signing key for this table (Ed25519): it signs the record of play as it
    grows, so nobody but the host can add to it, and a new host can trust a record a peer
    hands it. The private key never leaves the host's process."""

    def sign_record(self, table_id: bytes, term: int, count: int, chain: bytes) -> bytes:
        return self._private.sign(record_message(table_id, term, count, chain))

    def sign_final(self, table_id: bytes, term: int, fair: Mapping[str, Any], result: Any) -> bytes:
        return self._private.sign(final_message(table_id, term, fair, result))


class Voice(_Key):
    """A player's program's own signing key at a no-peek table (Ed25519): it signs each move
    its seat makes and each message it says to the other programs, so that the host, which
    passes them on, can neither make one up in that seat's name, nor change, repeat, reorder
    or hold back one of them without every program seeing it. Its public half goes to the
    host in ``Hello`` and to every program at the deal."""

    def sign_move(self, table: str, seat: int, id: int, action: Any) -> bytes:
        return self._private.sign(move_message(table, seat, id, action))

    def sign_saying(self, table: str, author: int, n: int, data: bytes) -> bytes:
        return self._private.sign(saying_message(table, author, n, data))

    def kept(self) -> bytes:
        """Its private half, to keep on this machine (readable by its user alone) so that a
        program started again can take its seat back."""
        return self._private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())

    @classmethod
    def from_kept(cls, raw: bytes) -> Voice:
        return cls(Ed25519PrivateKey.from_private_bytes(raw))


def move_message(table: str, seat: int, id: int, action: Any) -> bytes:
    """What a seat's program signs for its move number ``id`` at the deal ``table``."""
    return digest("move", table, seat, id, msgpack.packb(action, use_bin_type=True))


def saying_message(table: str, author: int, n: int, data: bytes) -> bytes:
    """What a program signs for its ``n``-th message (from 0) to the others at ``table``."""
    return digest("saying", table, author, n, data)


def signed_by(public: bytes, signature: bytes | None, message: bytes) -> bool:
    """Whether ``signature`` is the Ed25519 key ``public``'s over ``message`` (a host's, or a
    program's voice); a missing or malformed one is not."""
    if signature is None:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def record_message(table_id: bytes, term: int, count: int, chain: bytes) -> bytes:
    return digest("record", table_id, term, count, chain)


def record_signed(public: bytes, signature: bytes, table_id: bytes, term: int, count: int, chain: bytes) -> bool:
    """Whether ``signature`` is the host's (``public``) over the record of ``count`` actions."""
    return signed_by(public, signature, record_message(table_id, term, count, chain))


# ---------------------------------------------------------------- the host


@dataclass
class Ledger:
    """The host's side: its secret, the nonces, and a commitment for every card made."""

    game: str
    table_id: bytes
    secret: bytes = field(default_factory=new_secret)
    nonce_commits: dict[int, bytes] = field(default_factory=dict)
    revealed: dict[int, bytes] = field(default_factory=dict)
    nonces: list[bytes | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seed: bytes | None = None
    #: (handle, commitment) in the order the handles were made
    commitments: list[tuple[int, bytes]] = field(default_factory=list)
    faces: dict[int, str] = field(default_factory=dict)
    #: (seat, action wire) in the order applied
    actions: list[tuple[int, object]] = field(default_factory=list)
    #: the game's table options (plain data), revealed with the rest for the replay
    options: dict[Any, Any] = field(default_factory=dict)

    @property
    def commitment(self) -> bytes:
        return seed_commitment(self.table_id, self.secret)

    def reveal_nonce(self, seat: int, nonce: object) -> bool:
        """Take a seat's revealed nonce; True if it matches the seat's commitment."""
        if not isinstance(nonce, bytes) or seat not in self.nonce_commits or seat in self.revealed:
            return False
        self.revealed[seat] = nonce
        return nonce_commitment(self.table_id, nonce) == self.nonce_commits[seat]

    def waiting_for(self) -> set[int]:
        return set(self.nonce_commits) - set(self.revealed)

    def fix_seed(self, seats: int) -> bytes:
        self.nonces, self.notes = choose_nonces(self.table_id, seats, self.nonce_commits, self.revealed)
        self.seed = derive_seed(self.secret, self.nonces)
        return self.seed

    def salt(self, handle: int) -> bytes:
        return card_salt(self.secret, handle)

    def made(self, cards: Iterable[tuple[int, str]]) -> list[tuple[int, bytes]]:
        """Commit to freshly made cards; returns the new (handle, commitment) pairs."""
        fresh = []
        for handle, face in cards:
            fresh.append((handle, card_commitment(self.game, self.table_id, handle, face, self.salt(handle))))
            self.faces[handle] = face
        self.commitments.extend(fresh)
        return fresh

    def public(self) -> dict[Any, Any]:
        """What the final message reveals: the secret, nonces, notes and action log."""
        return {
            "secret": self.secret,
            "nonce_commits": [self.nonce_commits.get(s) for s in range(len(self.nonces))],
            "nonces": list(self.nonces),
            "notes": list(self.notes),
            "actions": [[seat, action] for seat, action in self.actions],
            **({"options": self.options} if self.options else {}),
        }


# ---------------------------------------------------------------- a peer


@dataclass
class Verifier:
    """A peer's side: every commitment received, every opening checked on receipt."""

    game: str
    table_id: bytes
    seed_commit: bytes | None
    seat: int | None = None
    nonce: bytes = field(default_factory=new_nonce)
    commitments: dict[int, bytes] = field(default_factory=dict)
    #: handle -> (face, salt), every opening received
    openings: dict[int, tuple[str, bytes]] = field(default_factory=dict)
    alarms: list[str] = field(default_factory=list)
    checked_openings: int = 0

    @property
    def nonce_commit(self) -> bytes:
        return nonce_commitment(self.table_id, self.nonce)

    def receive(self, commits: Iterable[Sequence[Any]], openings: Iterable[Sequence[Any]], faces: Mapping[int, str]) -> list[str]:
        """Take a snapshot's new commitments and openings and check its faces; returns new alarms."""
        alarms: list[str] = []
        for handle, commit in commits:
            old = self.commitments.get(handle)
            if old is not None and old != commit:
                alarms.append(f"card #{handle}: the host changed its commitment")
            self.commitments.setdefault(handle, bytes(commit))
        salts = {int(handle): bytes(salt) for handle, salt in openings}
        known = self.openings
        for handle, face in faces.items():
            if handle in salts:
                salt = salts[handle]
                commit = self.commitments.get(handle)
                self.checked_openings += 1
                if commit is None:
                    alarms.append(f"card #{handle} was opened as {face!r} but was never committed")
                elif card_commitment(self.game, self.table_id, handle, face, salt) != commit:
                    alarms.append(f"card #{handle} was shown as {face!r}, which does not match its commitment")
                elif handle in known and known[handle][0] != face:
                    alarms.append(f"card #{handle} was shown as {face!r} after being opened as {known[handle][0]!r}")
                known.setdefault(handle, (face, salt))
                continue
            opened = known.get(handle)  # (the usual case: a face opened before, shown again)
            if opened is None:
                alarms.append(f"card #{handle} was shown as {face!r} without an opening")
            elif opened[0] != face:
                alarms.append(f"card #{handle} was shown as {face!r} after being opened as {opened[0]!r}")
        if salts:
            for handle in salts.keys() - faces.keys():
                alarms.append(f"card #{handle} was opened but its face was not shown")
        self.alarms.extend(alarms)
        return alarms

    def check_final(self, secret: bytes, nonces: Sequence[bytes | None]) -> list[str]:
        """The end: the secret against its commitment, and my nonce where it belongs."""
        failures = []
        if self.seed_commit is None or seed_commitment(self.table_id, secret) != self.seed_commit:
            failures.append("the host's revealed secret does not match the commitment it published before the deal")
        if self.seat is not None and self.seat < len(nonces):
            mine = nonces[self.seat]
            if mine is not None and mine != self.nonce:
                failures.append("the seed was made with a nonce for my seat that is not mine")
        return failures
