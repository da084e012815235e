"""Board widgets, one per game, by game id. A game is playable in the UI once it has one.

Owns: ``BOARDS``, each game's board class, whose module is imported the first time a table
(or a replay) asks for it, and ``LOCAL_PLAYERS``, what the lobby reads of a board before one
is loaded. Starting the app loads no board: the lobby draws none. Must not touch: the
engines' states (a board sees snapshots), the network.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (a board's module, and the base it stands on, load with the first table)
    from .base import Board

#: Each game's board: (its module in this package, its class), in the lobby's order.
_BOARD_CLASSES = {
    "chip-n-dale": ("chip_n_dale", "ChipNDaleBoard"),
    "christmas-tree": ("christmas_tree", "ChristmasTreeBoard"),
    "dragons-chickens": ("dragons_chickens", "DragonsChickensBoard"),
    "christmas-carol": ("christmas_carol", "ChristmasCarolBoard"),
    "christmas-game": ("christmas_game", "ChristmasGameBoard"),
}

#: How many people may share a keyboard at a game's table (its board's ``local_players``,
#: one key block each; a test holds the two equal); a game not named here has one.
LOCAL_PLAYERS = {"dragons-chickens": 3}


def local_players(game_id: str) -> int:
    """How many people may share this keyboard in the game ``game_id`` (1: just one)."""
    return LOCAL_PLAYERS.get(game_id, 1)


class Boards(Mapping[str, "type[Board]"]):
    """Every game's board class by game id; a board's module is imported when the board is
    first asked for (iterating, ``in`` and ``len`` load none)."""

    def __init__(self) -> None:
        self._loaded: dict[str, type[Board]] = {}

    def __getitem__(self, game_id: str) -> type[Board]:
        board = self._loaded.get(game_id)
        if board is None:
            module, name = _BOARD_CLASSES[game_id]
            board = self._loaded[game_id] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        return board

    def __contains__(self, game_id: object) -> bool:
        return game_id in _BOARD_CLASSES

    def __iter__(self) -> Iterator[str]:
        return iter(_BOARD_CLASSES)

    def __len__(self) -> int:
        return len(_BOARD_CLASSES)


BOARDS: Mapping[str, type[Board]] = Boards()

__all__ = ["BOARDS", "LOCAL_PLAYERS", "local_players"]
