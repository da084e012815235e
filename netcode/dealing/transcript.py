"""Fiat–Shamir transcripts: every challenge bound to the context and all public inputs.

Owns: ``Transcript``, the one place challenges come from. A transcript starts from a
domain (which protocol) and a context that must name the table, the purpose, the
round or step, and the prover's seat; the proofs then absorb every public input of
their statement (keys, ciphertexts in and out, commitments), each under a tag and
length-prefixed (``group.frame``), before any challenge is drawn. So a proof made at
one table, in one round, by one seat, for one purpose, does not verify anywhere else:
that is what stops a proof replayed from another round.

Challenges are SHA-512 of the running state (``challenge``) or SHAKE-256 expanded from
it (``challenges``), 64 bytes per scalar reduced mod ℓ: the bias is below 2⁻²⁵⁹.
Drawing a challenge absorbs its label, so later challenges depend on earlier ones.

The construction is the strong Fiat–Shamir transform of Bernhard, Pereira and
Warinschi, "How Not to Prove Yourself: Pitfalls of the Fiat–Shamir Heuristic and
Applications to Helios" (ASIACRYPT 2012): hash the whole statement, not only the
prover's commitments.

Must not touch: sockets, clocks, games.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from .group import ORDER, Part, frame

#: What every context must name.
REQUIRED = ("table", "purpose", "round", "seat")

Context = Mapping[str, bytes | str | int]


def check_context(context: Context) -> None:
    """``ValueError`` unless the context names the table, purpose, round and seat."""
    missing = [key for key in REQUIRED if key not in context]
    if missing:
        raise ValueError(f"a proof's context must name {', '.join(missing)}")
    for key, value in context.items():
        if not isinstance(key, str):
            raise ValueError("context keys are strings")
        if isinstance(value, bool) or not isinstance(value, bytes | str | int):
            raise ValueError(f"context value {key!r} must be bytes, str or int")


class Transcript:
    """A running hash of a proof's domain, context and public inputs."""

    __slots__ = ("_state",)

    def __init__(self, domain: str, context: Context) -> None:
        check_context(context)
        self._state = hashlib.sha512(frame("xmas-tui/dealing/transcript", domain, len(context)))
        for key in sorted(context):
            self._state.update(frame(key, context[key]))

    def copy(self) -> Transcript:
        other = object.__new__(Transcript)
        other._state = self._state.copy()
        return other

    def absorb(self, tag: str, *parts: Part) -> None:
        """Take in one tagged public input (any number of parts, each length-prefixed)."""
        self._state.update(frame("absorb", tag, len(parts), *parts))

    def challenge(self, label: str) -> int:
        """A challenge scalar bound to everything absorbed so far."""
        return self.challenges(label, 1)[0]

    def challenges(self, label: str, n: int) -> list[int]:
        """``n`` challenge scalars bound to everything absorbed so far."""
        if n < 1:
            raise ValueError("ask for at least one challenge")
        state = self._state.copy()
        state.update(frame("challenge", label, n))
        stream = hashlib.shake_256(state.digest()).digest(64 * n)
        self._state.update(frame("drawn", label, n))
        return [int.from_bytes(stream[64 * i : 64 * i + 64], "little") % ORDER for i in range(n)]
