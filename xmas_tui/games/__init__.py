"""Pure rules engines for the five games, and the registry that names them.

Owns: ``LISTINGS``, what is said of each game before its rules are loaded (its title and
player counts: the lobby's list, a kept game's line), and ``GAMES``, every game by id,
whose rules module is imported the first time the game is asked for, so the lobby of the
app loads no game it does not show (through ``Imported``, the lazy mapping the boards' registry
uses too).

Must not import Textual, asyncio, the network layer, or read clocks or files.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar

from .engine import (
    CARDS_OPTION,
    Action,
    ActionError,
    Event,
    Game,
    IllegalAction,
    InvalidAction,
    Result,
    Ruling,
    TableOption,
    View,
    count,
)
from .rng import Rng

T = TypeVar("T")


@dataclass(frozen=True)
class Listing:
    """A game as the registry lists it, without its rules (a test holds it to its ``Game``)."""

    id: str
    title: str
    min_players: int
    max_players: int
    #: its module in this package (``GAME`` there is the game)
    module: str


#: Every game, in the lobby's order.
LISTINGS: dict[str, Listing] = {
    listing.id: listing
    for listing in (
        Listing("chip-n-dale", "Chip 'n' Dale: Christmas Treasures", 2, 6, "chip_n_dale"),
        Listing("christmas-tree", "Christmas Tree", 2, 5, "christmas_tree"),
        Listing("dragons-chickens", "Dragons & Chickens", 2, 5, "dragons_chickens"),
        Listing("christmas-carol", "Disney: Mickey's Christmas Carol", 1, 4, "christmas_carol"),
        Listing("christmas-game", "The Christmas Game", 2, 6, "christmas_game"),
    )
}


class Imported(Mapping[str, T]):
    """Things by id, each imported the first time it is asked for (iterating, ``in`` and
    ``len`` import none): ``places`` gives each id's module in ``package`` and its name there.
    Every game here; every board in the UI."""

    def __init__(self, package: str, places: Mapping[str, tuple[str, str]]) -> None:
        self._package, self._places = package, places
        self._loaded: dict[str, T] = {}

    def __getitem__(self, key: str) -> T:
        found = self._loaded.get(key)
        if found is None:
            module, name = self._places[key]
            found = self._loaded[key] = getattr(importlib.import_module(f"{self._package}.{module}"), name)
        return found

    def __contains__(self, key: object) -> bool:
        return key in self._places

    def __iter__(self) -> Iterator[str]:
        return iter(self._places)

    def __len__(self) -> int:
        return len(self._places)


GAMES: Mapping[str, Game] = Imported(__name__, {id: (listing.module, "GAME") for id, listing in LISTINGS.items()})


def get_game(game_id: str) -> Game:
    """The registered game with this id, or a ``KeyError`` that lists the known ids."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise KeyError(
            f"unknown game {game_id!r}; choose one of: {', '.join(sorted(GAMES))}"
        ) from None


__all__ = [
    "CARDS_OPTION",
    "GAMES",
    "LISTINGS",
    "Action",
    "ActionError",
    "Event",
    "Game",
    "IllegalAction",
    "InvalidAction",
    "Listing",
    "Result",
    "Rng",
    "Ruling",
    "TableOption",
    "View",
    "count",
    "get_game",
]
