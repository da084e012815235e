"""Faces as group elements, and the public deck every deal starts from.

Owns: ``encode(game, face)``, the point a face is (``hash_to_point`` over the game and
the face, so no face is a known multiple of another); ``Faces``, the decoder for a
known set of faces (a point that is no card is a ``ValueError``); and
``initial_deck``, the encrypted deck anyone can recompute: the faces in sorted order,
each encrypted with the public randomness r = 1, ``(G, M + PK)``. Hiding starts with
the first shuffle, whose re-encryption nobody else knows. This is the card encoding
and the open deck of Barnett and Smart, "Mental Poker Revisited" (2003).

Faces are names (plain strings) as the games give them; a deck may hold a face
several times.

Must not touch: sockets, clocks, games (faces arrive as plain strings).
"""

from __future__ import annotations

from collections.abc import Iterable

from .elgamal import Ciphertext, encrypt
from .group import Point, hash_to_point

DOMAIN = "xmas-tui/dealing/card"


def encode(game: str, face: str) -> Point:
    return hash_to_point(DOMAIN, game, face)


class Faces:
    """The faces a game can deal, to read an opened point back as a face."""

    __slots__ = ("game", "_by_point")

    def __init__(self, game: str, faces: Iterable[str] = ()) -> None:
        self.game = game
        self._by_point: dict[Point, str] = {}
        self.add(faces)

    def add(self, faces: Iterable[str]) -> None:
        """Learn more faces (a deck the game makes later)."""
        known = set(self._by_point.values())
        for face in set(faces) - known:
            point = encode(self.game, face)
            if point in self._by_point:
                raise ValueError(f"faces {face!r} and {self._by_point[point]!r} encode alike")
            self._by_point[point] = face

    def decode(self, point: Point) -> str:
        """The face ``point`` is; ``ValueError`` if it is none of this game's faces."""
        try:
            return self._by_point[point]
        except KeyError:
            raise ValueError(f"{point!r} is no card of {self.game}") from None

    def __contains__(self, face: object) -> bool:
        return face in self._by_point.values()

    def __len__(self) -> int:
        return len(self._by_point)


def initial_deck(pk: Point, game: str, faces: Iterable[str]) -> list[Ciphertext]:
    """The public starting deck: every face, in sorted order, encrypted with r = 1."""
    return [encrypt(pk, encode(game, face), 1) for face in sorted(faces)]
