"""Keypress-to-repaint benchmark: each board at 80×24, drawn by stock Textual and by the quick
renderer, beside a bare Textual app, in one run.

``python -m xmas_tui.tools.ui_bench [--presses N] [--json]`` runs each app in a process of its
own on a pseudo-terminal of 80×24 with Textual's real terminal driver (as a player's terminal
would), types a key, and times from the key written to the last byte of the frame it caused
(the repaint is over when the terminal has been quiet for a moment). Each board runs twice,
one process after the other: with ``XMAS_TUI_STOCK_RENDER=1`` (stock Textual draws everything)
and without (the quick renderer, ``xmas_tui.ui.quick``, where this Textual was checked).

Each key is a move: the board's process first plays a game with bots at every seat and keeps
every snapshot my seat saw, then shows them on the table screen through a ``Replay`` table;
the key makes that table publish the next one, the way a table publishes a move (the screen
redraws whatever the move changed: the board, the players, the log, the status, the prompt,
the footer when the turn changes). In the bare Textual app the key changes one line of text.
p50 and p99 of each are printed, stock and quick side by side; the goal is p99 ≤ 16 ms, one
frame at 60 Hz, for the quick renderer. The last line (``--json``) holds both: ``boards`` (the
quick renderer, as before) and ``boards_stock``.

Owns nothing of the product: it stands beside it, as a terminal would (Linux only).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import time

from textual.binding import Binding

from xmas_tui.games import Action, get_game
from xmas_tui.serve.guests import set_size
from xmas_tui.tables.local import LocalTable
from xmas_tui.tables.table import Snapshot, Table
from xmas_tui.ui import quick
from xmas_tui.ui.app import XmasApp, seat_names

SIZE = (80, 24)
#: the terminal is quiet this long after a frame: the repaint is over
QUIET = 0.03
#: a key whose frame has not begun after this long drew nothing (a slow frame is still timed)
FIRST_BYTE = 2.0
GOAL_MS = 16.0
#: the key each app answers with a repaint (F5: a terminal sends ESC [ 1 5 ~)
KEY = b"\x1b[15~"
#: snapshots of the recorded game shown in turn (then from the first again)
MOVES = 60


class Replay(Table):
    """A game played already, shown again one move at a time: ``step`` publishes the next
    snapshot my seat saw, as a table does after a move."""

    def __init__(self, played: LocalTable, history: list[Snapshot]) -> None:
        super().__init__()
        self.game, self.seat, self.players, self.pace = played.game, played.seat, played.players, played.pace
        self.history = history
        self.at = 0

    def snapshot(self) -> Snapshot:
        return self.history[self.at]

    def step(self) -> None:
        self.at = (self.at + 1) % len(self.history)
        self._publish()

    async def send(self, action: Action, seat: int | None = None) -> None:
        """The recorded game goes on as it went: a move chosen here changes nothing."""

    async def run(self) -> None:
        await asyncio.Event().wait()


def recorded(game_id: str, moves: int = MOVES) -> Replay:
    """A game of ``game_id`` with bots at every seat (mine too), as my seat saw it: its first
    ``moves`` snapshots, the end left out (it opens the end screen)."""
    played = LocalTable(get_game(game_id), seat_names("Ann", 3), 0, seed=7, pace=4.0)
    history: list[Snapshot] = []

    def record(snapshot: Snapshot) -> bool:
        if snapshot.result is None:
            history.append(snapshot)
        return len(history) >= moves

    played.autoplay(record)
    return Replay(played, history)


class BoardBench(XmasApp):
    """The table screen over a ``Replay``: F5 shows the next move."""

    BINDINGS = [Binding("f5", "next_move", "Next move", show=False, priority=True)]

    def __init__(self, replay: Replay) -> None:
        super().__init__(table=replay, theme="dark")
        self.replay = replay

    def action_next_move(self) -> None:
        self.replay.step()


BOARD = """
import sys
from xmas_tui.tools.ui_bench import BoardBench, recorded

BoardBench(recorded(sys.argv[1])).run()
"""

BARE = """
from textual.app import App
from textual.binding import Binding
from textual.widgets import Footer, Static


class Bare(App):
    BINDINGS = [Binding("f5", "count", "Count", priority=True)]
    pressed = 0

    def compose(self):
        yield Static("pressed 0 times", id="line")
        yield Footer()

    def action_count(self) -> None:
        self.pressed += 1
        self.query_one("#line", Static).update(f"pressed {self.pressed} times")


Bare().run()
"""

GAMES = ("chip-n-dale", "christmas-tree", "dragons-chickens", "christmas-carol", "christmas-game")


class Terminal:
    """An app on a pseudo-terminal of its own: keys in, frames out."""

    def __init__(self, code: str, *args: str, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        set_size(slave, *SIZE)
        self.process = subprocess.Popen([sys.executable, "-c", code, *args], stdin=slave, stdout=slave,
                                        stderr=slave, env=env, start_new_session=True)
        os.close(slave)

    def drain(self, quiet: float = QUIET, most: float = 10.0) -> float | None:
        """Read until the terminal is quiet for ``quiet`` s; the time of the last byte read."""
        last = None
        deadline = time.perf_counter() + most
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([self.master], [], [], quiet)
            if not ready:
                return last
            try:
                if not os.read(self.master, 65536):
                    return last
            except OSError:
                return last
            last = time.perf_counter()
        return last

    def settle(self, seconds: float = 20.0) -> None:
        """Wait until the first screen is drawn and the terminal has gone quiet."""
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline and self.drain(quiet=0.5) is not None:
            pass

    def press(self) -> float | None:
        """Type the key; milliseconds until its repaint was over (None: nothing came)."""
        self.drain(quiet=0.005, most=1.0)  # nothing of an earlier frame left to read
        sent = time.perf_counter()
        os.write(self.master, KEY)
        ready, _, _ = select.select([self.master], [], [], FIRST_BYTE)  # however slow the frame
        done = self.drain() if ready else None
        return None if done is None else (done - sent) * 1000

    def close(self) -> None:
        os.write(self.master, b"\x11")  # Ctrl+Q
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def renderer_env(stock: bool) -> dict[str, str]:
    """The environment of an app's process: stock Textual's renderer, or the quick one."""
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
    env.pop(quick.STOCK_RENDER, None)
    if stock:
        env[quick.STOCK_RENDER] = "1"
    return env


def measure(code: str, *args: str, presses: int, stock: bool = False) -> dict:
    terminal = Terminal(code, *args, env=renderer_env(stock))
    try:
        terminal.settle()
        for _ in range(5):  # warm up
            terminal.press()
        timed = [terminal.press() for _ in range(presses)]
    finally:
        terminal.close()
    times = sorted(t for t in timed if t is not None)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return {"p50_ms": round(statistics.median(times), 2), "p99_ms": round(p99, 2), "samples": len(times),
            "drew_nothing": presses - len(times)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.ui_bench")
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    textual = quick.textual_version()
    renderer = quick.decide(textual, renderer_env(stock=False))[1]  # (what the quick column's processes run)
    figures: dict = {"size": list(SIZE), "goal_p99_ms": GOAL_MS, "textual": textual, "quick_renderer": renderer,
                     "bare_textual": measure(BARE, presses=args.presses), "boards": {}, "boards_stock": {}}
    for game in GAMES:  # (stock and quick one after the other, board by board: the same moment of the machine)
        figures["boards_stock"][game] = measure(BOARD, game, presses=args.presses, stock=True)
        figures["boards"][game] = measure(BOARD, game, presses=args.presses)
    figures["all_within_goal"] = all(board["p99_ms"] <= GOAL_MS for board in figures["boards"].values())
    figures["stock_all_within_goal"] = all(board["p99_ms"] <= GOAL_MS for board in figures["boards_stock"].values())
    bare = figures["bare_textual"]
    print(f"keypress to repaint at {SIZE[0]}x{SIZE[1]}, {args.presses} presses each, p50 / p99 in ms (Textual {textual}):")
    print(f"  {'':<18} {'stock Textual':>17}   {'quick renderer':>17}")
    print(f"  {'bare Textual app':<18} {bare['p50_ms']:7.2f} / {bare['p99_ms']:7.2f}")
    for game, board in figures["boards"].items():
        stock = figures["boards_stock"][game]
        print(f"  {game:<18} {stock['p50_ms']:7.2f} / {stock['p99_ms']:7.2f}   {board['p50_ms']:7.2f} / {board['p99_ms']:7.2f}")
    print(f"quick column: {renderer}")
    for name, key in (("quick renderer", "all_within_goal"), ("stock Textual", "stock_all_within_goal")):
        print(f"goal p99 <= {GOAL_MS:.0f} ms, {name}: {'met' if figures[key] else 'NOT met'} by every board")
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
