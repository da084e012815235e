"""Python's garbage collector while the app runs: when a collection may stop a frame.

Owns: ``settle_memory`` (no frame waits for a full garbage collection), ``hold_collections``,
``release_collections`` and ``tidy_memory`` (nor for a collection of the older generations
in the middle of a move), and ``starting``/``started`` (nor does start-up: Python collects
nothing by itself until the first screen is drawn). The screens and ``paint`` name
these; this module imports no Textual, so the command line can hold collections before it
loads the app. Must not touch: what is drawn, tables, games.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from weakref import WeakSet


def settle_memory() -> None:
    """Collect garbage once, now, and set aside what is left (the app, its screens, the game
    just dealt): Python's full collections then walk only what is made after, instead of
    stopping a frame for 50 ms to walk everything. What was set aside at the last game is
    looked at again first, so a party playing game after game leaks nothing. For a moment
    nobody waits on, such as the first frame of a game."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


#: Python's own rule: a generation is collected after this many collections of the one below
OLDER_EVERY = 10
#: while a game is shown, the youngest generation is collected by Python itself only after this
#: many new objects (a move makes a few thousand; ``tidy_memory`` collects it between moves)
YOUNG_HELD = 100_000
#: the screens that hold collections back (a screen that goes without saying so lets go too)
_holders: WeakSet[object] = WeakSet()
_thresholds: tuple[int, int, int] | None = None


def hold_collections(holder: object) -> None:
    """While a game is shown, Python collects nothing by itself in the middle of a move: its
    youngest generation (a few tenths of a millisecond, three to five times a move) waits until
    ``YOUNG_HELD`` objects have been made, its two older ones (1 to 7 ms) wait for ever; and
    ``tidy_memory`` collects each between moves instead, as often as Python would have (a
    keypress waited for them when they fell in its move). ``release_collections`` undoes it
    once every holder has let go."""
    global _thresholds
    if not _holders:
        _thresholds = gc.get_threshold()
        gc.set_threshold(max(YOUNG_HELD, _thresholds[0]), 1 << 30, 1 << 30)
    _holders.add(holder)


def release_collections(holder: object | None = None) -> None:
    if holder is not None:
        _holders.discard(holder)
    if not _holders and _thresholds is not None and gc.get_threshold()[1] == 1 << 30:
        gc.set_threshold(*_thresholds)


def holding() -> int:
    """How many screens hold collections back now."""
    return len(_holders)


def tidy_memory() -> None:
    """Collect the generations that are due (by Python's count): for a moment between moves,
    such as just after a move's frame has gone out."""
    release_collections()  # (if every holder has gone)
    made, young, older = gc.get_count()
    if older >= OLDER_EVERY:
        gc.collect(2)
    elif young >= OLDER_EVERY:
        gc.collect(1)
    elif _thresholds is not None and made >= _thresholds[0]:
        gc.collect(0)


class _Starting:
    """The holder of collections while the app starts (a set of holders keeps no plain object)."""


STARTING = _Starting()


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """Start-up (loading Textual and the app, reading the stylesheet, drawing the first
    screen) makes some 400,000 objects that all live on, and Python walked them again and
    again, in over a hundred collections (a sixth of the time to the lobby). The command line
    loads and runs the app inside this: collections wait until the app says ``started``, or
    until this is left, whatever happened (a refused argument, a test's app that never ran)."""
    hold_collections(STARTING)
    try:
        yield
    finally:
        release_collections(STARTING)


def started() -> None:
    """The first screen is drawn: collections run again, and what start-up made is set
    aside (``gc.freeze``), so that Python's full collections walk only what is made after.
    It is not collected first: that is a full walk of everything, and the first game's
    ``settle_memory`` looks at it again anyway. Nothing if start-up was not held (a test,
    a served guest's app)."""
    if STARTING in _holders:
        release_collections(STARTING)
        gc.freeze()
