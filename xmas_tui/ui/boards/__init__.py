"""Board widgets, one per game, by game id. A game is playable in the UI once it has one."""

from __future__ import annotations

from .base import Board, PlayerLine
from .chip_n_dale import ChipNDaleBoard

BOARDS: dict[str, type[Board]] = {ChipNDaleBoard.game.id: ChipNDaleBoard}


def _load_optional() -> None:
    for module, cls in (
        ("christmas_tree", "ChristmasTreeBoard"),
        ("dragons_chickens", "DragonsChickensBoard"),
        ("christmas_carol", "ChristmasCarolBoard"),
        ("christmas_game", "ChristmasGameBoard"),
    ):
        try:
            mod = __import__(f"{__name__}.{module}", fromlist=[cls])
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{module}":
                raise
            continue
        board = getattr(mod, cls)
        BOARDS[board.game.id] = board


_load_optional()

__all__ = ["BOARDS", "Board", "PlayerLine"]
