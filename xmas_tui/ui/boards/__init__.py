"""Board widgets, one per game, by game id. A game is playable in the UI once it has one.

Owns: ``BOARDS``, each game's board class, whose module is imported the first time a table
(or a replay) asks for it, and ``LOCAL_PLAYERS``, what the lobby reads of a board before one
is loaded. Starting the app loads no board: the lobby draws none. Must not touch: the
engines' states (a board sees snapshots), the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from xmas_tui.games import Imported

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


BOARDS: Mapping[str, type[Board]] = Imported(__name__, _BOARD_CLASSES)

__all__ = ["BOARDS", "LOCAL_PLAYERS", "local_players"]
