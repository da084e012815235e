"""Keypress-to-repaint benchmark: each board at 80×24, beside a bare Textual app, in one run.

``python -m xmas_tui.tools.ui_bench [--presses N] [--json]`` runs each app in a process of its
own on a pseudo-terminal of 80×24 with Textual's real terminal driver (as a player's terminal
would), types a key, and times from the key written to the last byte of the frame it caused
(the repaint is over when the terminal has been quiet for a moment). The key makes each board
draw its whole snapshot again (what every move costs the screen); in the bare Textual app it
changes one line of text. p50 and p99 of each are printed; the goal is p99 ≤ 16 ms, one frame
at 60 Hz.

Owns nothing of the product: it stands beside it, as a terminal would (Linux only).
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import time

from xmas_tui.serve.guests import set_size

SIZE = (80, 24)
#: the terminal is quiet this long after a frame: the repaint is over
QUIET = 0.03
GOAL_MS = 16.0
#: the key each app answers with a repaint (F5: a terminal sends ESC [ 1 5 ~)
KEY = b"\x1b[15~"

BOARD = """
import sys
from textual.binding import Binding
from xmas_tui.games import get_game
from xmas_tui.tables.local import LocalTable
from xmas_tui.ui.app import XmasApp, seat_names
from xmas_tui.ui.screens.table import TableScreen

game = get_game(sys.argv[1])
table = LocalTable(game, seat_names("Ann", 3), 0, seed=7, pace=4.0)
table.autoplay(lambda s: s.my_turn and len(s.log) > 6)


class Bench(XmasApp):
    BINDINGS = [Binding("f5", "redraw", "Redraw", show=False, priority=True)]

    def action_redraw(self) -> None:
        screen = self.screen
        if isinstance(screen, TableScreen):
            screen.show_snapshot(screen.snapshot)  # the whole board again, as after a move


Bench(table=table, theme="dark").run()
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

    def __init__(self, code: str, *args: str) -> None:
        self.master, slave = pty.openpty()
        set_size(slave, *SIZE)
        env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor"}
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
        done = self.drain()
        return None if done is None else (done - sent) * 1000

    def close(self) -> None:
        os.write(self.master, b"\x11")  # Ctrl+Q
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def measure(code: str, *args: str, presses: int) -> dict:
    terminal = Terminal(code, *args)
    try:
        terminal.settle()
        for _ in range(5):  # warm up
            terminal.press()
        times = [t for t in (terminal.press() for _ in range(presses)) if t is not None]
    finally:
        terminal.close()
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return {"p50_ms": round(statistics.median(times), 2), "p99_ms": round(p99, 2), "samples": len(times)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.ui_bench")
    parser.add_argument("--presses", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures: dict = {"size": list(SIZE), "goal_p99_ms": GOAL_MS, "bare_textual": measure(BARE, presses=args.presses)}
    figures["boards"] = {game: measure(BOARD, game, presses=args.presses) for game in GAMES}
    figures["all_within_goal"] = all(board["p99_ms"] <= GOAL_MS for board in figures["boards"].values())
    bare = figures["bare_textual"]
    print(f"keypress to repaint at {SIZE[0]}x{SIZE[1]}, {args.presses} presses each (p50 / p99):")
    print(f"  {'bare Textual app':<18} {bare['p50_ms']:6.2f} / {bare['p99_ms']:6.2f} ms")
    for game, board in figures["boards"].items():
        print(f"  {game:<18} {board['p50_ms']:6.2f} / {board['p99_ms']:6.2f} ms")
    print(f"goal: p99 <= {GOAL_MS:.0f} ms: {'met' if figures['all_within_goal'] else 'NOT met'} by every board")
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
