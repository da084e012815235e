"""Pure rules engines for the five games, and the registry that names them.

Owns: ``LISTINGS``, what is said of each game before its rules are loaded (its title and
player counts: the lobby's list, a kept game's line), and ``GAMES``, every game by id,
whose rules module is imported the first time the game is asked for, so the lobby of the
app loads no game it does not show.

Must not import Textual, asyncio, the network layer, or read clocks or files.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

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


class Registry(Mapping[str, Game]):
    """Every listed game by id; a game's module is imported when the game is first asked for
    (iterating, ``in`` and ``len`` load none)."""

    def __init__(self) -> None:
        self._loaded: dict[str, Game] = {}

    def __getitem__(self, game_id: str) -> Game:
        game = self._loaded.get(game_id)
        if game is None:
            module = importlib.import_module(f"{__name__}.{LISTINGS[game_id].module}")
            game = self._loaded[game_id] = module.GAME
        return game

    def __contains__(self, game_id: object) -> bool:
        return game_id in LISTINGS

    def __iter__(self) -> Iterator[str]:
        return iter(LISTINGS)

    def __len__(self) -> int:
        return len(LISTINGS)


GAMES: Mapping[str, Game] = Registry()


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
