"""Pure rules engines for the five games, and the registry that names them.

Must not import Textual, asyncio, the network layer, or read clocks or files.
"""

from __future__ import annotations

from .engine import (
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

GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    GAMES[game.id] = game
    return game


def get_game(game_id: str) -> Game:
    """The registered game with this id, or a ``KeyError`` that lists the known ids."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise KeyError(
            f"unknown game {game_id!r}; choose one of: {', '.join(sorted(GAMES))}"
        ) from None


def _register_all() -> None:
    from . import chip_n_dale

    register(chip_n_dale.GAME)
    for name in ("christmas_tree", "dragons_chickens", "christmas_carol", "christmas_game"):
        try:
            module = __import__(f"{__name__}.{name}", fromlist=["GAME"])
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        register(module.GAME)


_register_all()

__all__ = [
    "GAMES",
    "Action",
    "ActionError",
    "Event",
    "Game",
    "IllegalAction",
    "InvalidAction",
    "Result",
    "Rng",
    "Ruling",
    "TableOption",
    "View",
    "count",
    "get_game",
    "register",
]
