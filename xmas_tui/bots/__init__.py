"""Bot players: pure policies over one seat's view.

Owns: the ``Bot`` protocol, the generic random bot, and the registry that
maps (game, kind) to a bot. A bot is given only what its seat may see (its
``View``) and the legal actions; it never touches the state.

Must not touch: the engines' states, the UI, the network, clocks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xmas_tui.games import Action, Rng, View

BOT_KINDS = ("random", "smart")


class Bot:
    """A player that chooses from the legal actions, seeing only its own view.

    ``observe`` is called with every view its seat gets (bots that remember
    use it); ``choose`` is called when the seat must act. ``uses_view`` False
    lets a simulator skip building views for a bot that ignores them.
    """

    uses_view = True

    def __init__(self, seat: int, rng: Rng) -> None:
        self.seat = seat
        self.rng = rng

    def observe(self, view: View) -> None:
        """See the table as it is now (called after every change, when ``uses_view``)."""

    def choose(self, view: View | None, legal: Sequence[Action]) -> Action:
        raise NotImplementedError


class RandomBot(Bot):
    """Chooses uniformly among the legal actions. Every game has one."""

    uses_view = False

    def choose(self, view: View | None, legal: Sequence[Action]) -> Action:
        return legal[self.rng.below(len(legal))]


BotFactory = Callable[[int, Rng], Bot]
_SMART: dict[str, BotFactory] = {}


def register_smart(game_id: str, factory: BotFactory) -> None:
    _SMART[game_id] = factory


def make_bot(game_id: str, kind: str, seat: int, rng: Rng) -> Bot:
    """A bot of ``kind`` ("random" or "smart") for ``seat`` of ``game_id``."""
    if kind == "random":
        return RandomBot(seat, rng)
    if kind == "smart":
        _load()
        factory = _SMART.get(game_id)
        if factory is None:
            raise KeyError(f"no smart bot for {game_id!r}")
        return factory(seat, rng)
    raise KeyError(f"unknown bot {kind!r}; choose one of: {', '.join(BOT_KINDS)}")


_loaded = False


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in ("chip_n_dale", "christmas_tree", "dragons_chickens", "christmas_carol", "christmas_game"):
        try:
            __import__(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
