"""Portable deterministic randomness for every engine.

Owns: turning a seed into a stream of numbers that is identical on every
platform and every Python version (SHA-256 in counter mode, never
``random``), the unbiased ``below(n)`` and Fisher–Yates shuffles built on it.
Must not touch: clocks, the OS entropy pool, global state. An engine gets its
randomness only from the ``Rng`` it is handed, so a test or a network peer can
script or replay it.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .cards import FaceBook

T = TypeVar("T")

_DOMAIN = b"xmas-tui/rng/v1\x00"


def seed_bytes(seed: bytes | int | str) -> bytes:
    """The canonical byte form of a seed (ints are big-endian, strings UTF-8)."""
    if isinstance(seed, bytes):
        return seed
    if isinstance(seed, bool):  # bool is an int; refuse the surprise
        raise TypeError("a seed is bytes, int or str, not bool")
    if isinstance(seed, int):
        length = max(1, (seed.bit_length() + 8) // 8)
        return b"i" + seed.to_bytes(length, "big", signed=True)
    if isinstance(seed, str):
        return b"s" + seed.encode("utf-8")
    raise TypeError(f"a seed is bytes, int or str, not {type(seed).__name__}")


class RandomnessNeeded(Exception):
    """A move needs randomness its table has not drawn yet (a no-peek table draws it
    only once the move is fixed, and tries the move again)."""


class Rng:
    """A deterministic stream of random numbers from a seed.

    Each 32-byte SHA-256 block of ``key || counter`` yields four 64-bit words.
    ``draws`` counts the words used, so a replay can check it consumed the
    stream exactly as the original did.

    A no-peek table (see ``cards``) hands its games an ``Rng`` with a ``book``; its
    seed may be ``None`` until the table has drawn one: a number asked of it then
    raises ``RandomnessNeeded``.
    """

    __slots__ = ("_key", "_counter", "_words", "draws", "book")

    def __init__(self, seed: bytes | int | str | None, book: FaceBook | None = None) -> None:
        self._key = None if seed is None else hashlib.sha256(_DOMAIN + seed_bytes(seed)).digest()
        self._counter = 0
        self._words: list[int] = []
        self.draws = 0
        self.book = book

    def fork(self, label: str) -> Rng:
        """An independent stream named ``label``; this stream is not advanced."""
        if self._key is None:
            raise RandomnessNeeded(label)
        return Rng(self._key + b"/fork/" + label.encode("utf-8"), self.book)

    def word(self) -> int:
        """A uniform 64-bit unsigned integer."""
        if not self._words:
            if self._key is None:
                raise RandomnessNeeded("a number")
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._words = [
                int.from_bytes(block[i : i + 8], "big") for i in range(24, -1, -8)
            ]
        self.draws += 1
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, without modulo bias (rejection sampling)."""
        if not 1 <= n <= 1 << 64:
            raise ValueError("below(n) needs 1 <= n <= 2**64")
        if n == 1:
            return 0
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def roll(self, sides: int = 6) -> int:
        """A die roll in ``1..sides``."""
        return 1 + self.below(sides)

    def choice(self, items: Sequence[T]) -> T:
        """One item, uniformly."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place: Fisher–Yates, from the last position down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def chance(self, numerator: int, denominator: int) -> bool:
        """True with probability ``numerator/denominator`` (exact, integer)."""
        return self.below(denominator) < numerator
