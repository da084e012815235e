"""Bot players: pure policies over one seat's view, and the one way they are driven.

Owns: the ``Bot`` protocol, the generic random bot, the registry that maps
(game, kind) to a bot, and ``BotDriver``: the bots of some seats of one game,
each shown only its own seat's view, used alike by a table's host, the
simulator, a headless seat and the demos. A bot is given only what its seat
may see (its ``View``) and the legal actions; it never touches the state.

Must not touch: the engines' states, the UI, the network, clocks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from xmas_tui.games import Action, Rng, View

#: The bots a player may choose, weakest first (the lobby's Bots row, ``--bot``).
BOT_KINDS = ("easy", "sensible", "hard", "random")
#: The levels, and the share of moves (in per cent) a level plays carelessly: a random legal
#: move instead of its game's strategy (Dragons & Chickens has levels of its own: reaction times).
SLIPS = {"easy": 50, "sensible": 15, "hard": 0}
#: The name earlier versions gave the strategy played without a slip (kept games, scripts).
LEGACY = "smart"


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


class CarelessBot(Bot):
    """A game's strategy that now and then (``slips`` per cent of its moves) plays a random
    legal move instead: how the levels of a game of turns differ."""

    def __init__(self, inner: Bot, slips: int, rng: Rng) -> None:
        super().__init__(inner.seat, rng)
        self.inner = inner
        self.slips = slips
        self.uses_view = inner.uses_view

    def observe(self, view: View) -> None:
        self.inner.observe(view)

    def choose(self, view: View | None, legal: Sequence[Action]) -> Action:
        if self.slips and self.rng.chance(self.slips, 100):
            return legal[self.rng.below(len(legal))]
        return self.inner.choose(view, legal)


class RandomBot(Bot):
    """Chooses uniformly among the legal actions. Every game has one."""

    uses_view = False

    def choose(self, view: View | None, legal: Sequence[Action]) -> Action:
        return legal[self.rng.below(len(legal))]


BotFactory = Callable[[int, Rng], Bot]
_SMART: dict[str, BotFactory] = {}
_LEVELS: dict[str, dict[str, BotFactory]] = {}


def register_smart(game_id: str, factory: BotFactory) -> None:
    """A game's strategy: the hard level plays it always, the others with slips."""
    _SMART[game_id] = factory


def register_levels(game_id: str, levels: Mapping[str, BotFactory]) -> None:
    """A game whose levels are bots of their own (easy, sensible, hard)."""
    _LEVELS[game_id] = dict(levels)


def make_bot(game_id: str, kind: str, seat: int, rng: Rng) -> Bot:
    """A bot of ``kind`` (one of ``BOT_KINDS``, or the legacy "smart") for ``seat`` of ``game_id``."""
    if kind == "random":
        return RandomBot(seat, rng)
    if kind not in SLIPS and kind != LEGACY:
        raise KeyError(f"unknown bot {kind!r}; choose one of: {', '.join(BOT_KINDS)}")
    _load()
    levels = _LEVELS.get(game_id)
    if levels is not None:
        return levels["sensible" if kind == LEGACY else kind](seat, rng)
    factory = _SMART.get(game_id)
    if factory is None:
        raise KeyError(f"no strategy for {game_id!r}")
    strategy = factory(seat, rng)
    slips = SLIPS.get(kind, 0)
    return CarelessBot(strategy, slips, rng.fork("slips")) if slips else strategy


class BotDriver:
    """Bots at some seats of one game: each follows the game through its own seat's view
    (``follow``) and chooses among that seat's legal actions (``choose``).

    ``kinds`` maps each seat to its kind of bot; ``rng_for(seat)`` gives each its own
    randomness, so a seat's bot plays the same whoever else is at the table."""

    def __init__(self, game_id: str, kinds: Mapping[int, str], rng_for: Callable[[int], Rng]) -> None:
        self.bots: dict[int, Bot] = {seat: make_bot(game_id, kind, seat, rng_for(seat)) for seat, kind in kinds.items()}

    def __contains__(self, seat: object) -> bool:
        return seat in self.bots

    def watching(self, seats: Iterable[int] | None = None) -> list[int]:
        """The seats (of ``seats``, or all) whose bots read their view."""
        chosen = self.bots if seats is None else seats
        return [seat for seat in chosen if seat in self.bots and self.bots[seat].uses_view]

    def follow(self, view_of: Callable[[int], View], seats: Iterable[int] | None = None) -> None:
        """Show each watching bot (of ``seats``, or all) the table as its seat sees it now."""
        for seat in self.watching(seats):
            self.bots[seat].observe(view_of(seat))

    def choose(self, seat: int, view_of: Callable[[int], View], legal: Sequence[Action]) -> Action:
        """The bot of ``seat`` picks one of ``legal``, seeing only ``view_of(seat)``."""
        bot = self.bots[seat]
        return bot.choose(view_of(seat) if bot.uses_view else None, legal)


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
