"""A sensible Mickey's Christmas Carol player: pushes its luck as far as it pays.

It sees only its own view, and that is enough to know the bag exactly: every
tile outside the bag lies face up (on the puzzles, in the box, in front of the
player), so the bag holds the rest.

It judges the tiles it could play by where they leave the table: Scrooge's
moves count most (a puzzle finished out of order costs its number, one
finished in order wins a space back), then every tile placed, a little more
for the lowest open puzzle, less for filling a higher puzzle to its last gap
(that last tile becomes a trap). Whether to draw again is an exact expectation
over the bag: stop now and play the best two, or draw and meet a Move Scrooge
tile (play everything, Scrooge moves), an Ignore tile (five puzzle tiles, no
risk) or another puzzle tile, and decide again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations_with_replacement

from xmas_tui.games import Action, View
from xmas_tui.games.christmas_carol import (
    AWAKE,
    IGNORE,
    MAX_DRAW,
    PLAY,
    TILES_PER_PUZZLE,
    TO_BAG,
    TO_BOX,
    Draw,
    Play,
    Stop,
    all_faces,
    puzzle_of,
)

from . import Bot, register_smart

#: What one space of Scrooge's clock is worth, against a tile placed.
STEP = 1.0
TILE = 0.3
#: A tile of the lowest open puzzle brings its in-order finish nearer.
LOWEST = 0.15
#: A higher puzzle one tile short while a lower one is open: its last tile is a trap.
TRAP = 0.25
#: A Move Scrooge tile that stays in the bag can strike again.
STAYS = 0.3
END = 100.0

ALL_FACES = Counter(all_faces())


class Table:
    """The table as the bot sees it at the start of a decision: progress, clock, bag."""

    def __init__(self, view: View) -> None:
        self.puzzles: tuple[int, ...] = tuple(view["puzzles"])
        self.scrooge: int = view["scrooge"]
        self.completed = frozenset(view["completed"])
        self.progress = {p: len(view.zone(f"puzzle.{p}")) for p in self.puzzles}
        bag = ALL_FACES - Counter(view.faces.values())
        self.bag_puzzles = tuple(sum(n for f, n in bag.items() if puzzle_of(f) == p) for p in self.puzzles)
        self.to_box, self.to_bag, self.ignore = bag[TO_BOX], bag[TO_BAG], bag[IGNORE]
        self._best: dict[tuple[int, ...], float] = {}
        self._stop_or_draw: dict[tuple[int, ...], float] = {}
        self._ignoring: dict[tuple[int, ...], float] = {}

    # -------------------------------------------------------------- judging a play
    def judge(self, counts: Sequence[int], extra_steps: int = 0) -> float:
        """The worth of playing ``counts[i]`` tiles of puzzle ``puzzles[i]``, lowest first."""
        progress = dict(self.progress)
        completed = set(self.completed)
        scrooge = self.scrooge
        value = 0.0
        lowest = next((p for p in self.puzzles if p not in completed), None)
        for p, n in zip(self.puzzles, counts, strict=True):
            for _ in range(n):
                value += TILE + (LOWEST if p == lowest else 0.0)
                progress[p] += 1
                if progress[p] < TILES_PER_PUZZLE:
                    continue
                in_order = all(q in completed for q in self.puzzles if q < p)
                completed.add(p)
                if len(completed) == len(self.puzzles):
                    return END
                moved = max(0, scrooge - 1) if in_order else scrooge + p
                value -= STEP * (moved - scrooge)
                scrooge = moved
                if scrooge >= AWAKE:
                    return -END
                lowest = next((q for q in self.puzzles if q not in completed), None)
        if extra_steps:
            scrooge += extra_steps
            if scrooge >= AWAKE:
                return -END
            value -= STEP * extra_steps
        for p in self.puzzles:
            if progress[p] == TILES_PER_PUZZLE - 1 and any(q not in completed for q in self.puzzles if q < p):
                value -= TRAP * p / 2
        return value

    def best(self, drawn: tuple[int, ...]) -> float:
        """The best play from these puzzle tiles (counts by puzzle): two of them, or all if fewer."""
        found = self._best.get(drawn)
        if found is None:
            found = max(self.judge(counts) for counts in self.plays(drawn))
            self._best[drawn] = found
        return found

    def plays(self, drawn: tuple[int, ...]) -> list[tuple[int, ...]]:
        """Every choice of tiles to play (as counts by puzzle)."""
        if sum(drawn) <= PLAY:
            return [drawn]
        have = [i for i, n in enumerate(drawn) for _ in range(n)]
        choices = set()
        for pair in combinations_with_replacement(sorted(set(have)), PLAY):
            counts = Counter(pair)
            if all(counts[i] <= drawn[i] for i in counts):
                choices.add(tuple(counts[i] for i in range(len(drawn))))
        return sorted(choices)

    # -------------------------------------------------------------- judging a draw
    def bag_left(self, drawn: tuple[int, ...], start: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(b - (d - s) for b, d, s in zip(self.bag_puzzles, drawn, start, strict=True))

    def value(self, drawn: tuple[int, ...], start: tuple[int, ...], tiles: int) -> float:
        """The worth of the best choice now: stop, or draw again (``tiles`` drawn so far)."""
        key = drawn
        found = self._stop_or_draw.get(key)
        if found is None:
            stop = self.best(drawn) if tiles else -2 * END
            found = max(stop, self.draw_value(drawn, start, tiles)) if tiles < MAX_DRAW else stop
            self._stop_or_draw[key] = found
        return found

    def draw_value(self, drawn: tuple[int, ...], start: tuple[int, ...], tiles: int) -> float:
        left = self.bag_left(drawn, start)
        total = sum(left) + self.to_box + self.to_bag + self.ignore
        if not total:
            return -2 * END
        value = 0.0
        if self.to_box or self.to_bag:
            wake = self.judge(drawn, extra_steps=1)
            value += (self.to_box * wake + self.to_bag * (wake - STAYS)) / total
        if self.ignore:
            value += self.ignore * self.ignoring(drawn, start) / total
        for i, n in enumerate(left):
            if n:
                more = drawn[:i] + (drawn[i] + 1,) + drawn[i + 1 :]
                value += n * self.value(more, start, tiles + 1) / total
        return value

    def ignoring(self, drawn: tuple[int, ...], start: tuple[int, ...]) -> float:
        """After an Ignore tile: puzzle tiles come until there are five, then the best two."""
        found = self._ignoring.get(drawn)
        if found is None:
            left = self.bag_left(drawn, start)
            total = sum(left)
            if sum(drawn) >= MAX_DRAW or not total:
                found = self.best(drawn) if sum(drawn) else 0.0
            else:
                found = sum(
                    n * self.ignoring(drawn[:i] + (drawn[i] + 1,) + drawn[i + 1 :], start)
                    for i, n in enumerate(left) if n
                ) / total
            self._ignoring[drawn] = found
        return found


class SmartBot(Bot):
    uses_view = True

    def choose(self, view: View | None, legal: Sequence[Action]) -> Action:
        assert view is not None
        table = Table(view)
        tiles = view.zone("drawn")
        drawn = tuple(sum(1 for h in tiles if puzzle_of(view.faces[h]) == p) for p in table.puzzles)
        if isinstance(legal[0], Play):  # choosing: every legal action is a Play
            plays = [a for a in legal if isinstance(a, Play)]
            return max(plays, key=lambda play: self._judge_play(table, view, play))
        if len(legal) == 1:
            return legal[0]
        stop = table.best(drawn)
        draw = table.draw_value(drawn, drawn, len(tiles))
        return Draw() if draw > stop else Stop()

    def _judge_play(self, table: Table, view: View, play: Play) -> float:
        counts = Counter(puzzle_of(view.faces[h]) for h in play.tiles)
        return table.judge(tuple(counts[p] for p in table.puzzles))


register_smart("christmas-carol", SmartBot)
