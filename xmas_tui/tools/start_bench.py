"""Start-up benchmark: time from a cold start to the lobby on screen, and its memory.

``python -m xmas_tui.tools.start_bench [--runs N] [--json]`` starts the app headless
in a fresh process until its lobby is mounted, and a bare Textual app the
same way in the same run, and prints both and their ratio; and the most memory
each process held (its peak RSS, as the kernel counts it), and their ratio.

The first figure is each process's whole life, its exit too (Python's last garbage
collection, the modules torn down: tens of milliseconds); beside it, the time from
starting the process until its screen was drawn, which the process says (its clock
read when its pilot had seen the screen drawn, against the one read before it started).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

#: ``xmas-tui`` with no arguments, as the command starts it (its command line, then the app),
#: but headless: Textual's run is given the headless terminal and the pilot that waits for the lobby
XMAS = """
import time
from textual.app import App
drawn = []
async def ready(pilot):
    from xmas_tui.ui.screens.lobby import LobbyScreen
    while not isinstance(pilot.app.screen, LobbyScreen):
        await pilot.pause(0.001)
    await pilot.pause()
    drawn.append(time.time())
    pilot.app.exit()
run = App.run
App.run = lambda app, **_: run(app, headless=True, size=(80, 24), auto_pilot=ready)
from xmas_tui.cli import main
main([])
print("drawn", repr(drawn[0]))
"""

BARE = """
import time
from textual.app import App
from textual.widgets import Footer, Static
class Bare(App):
    def compose(self):
        yield Static("hello")
        yield Footer()
app = Bare()
drawn = []
async def ready(pilot):
    await pilot.pause()
    drawn.append(time.time())
    app.exit()
app.run(headless=True, size=(80, 24), auto_pilot=ready)
print("drawn", repr(drawn[0]))
"""


#: ru_maxrss counts KiB on Linux, bytes on macOS
RSS_BYTES = 1 if sys.platform == "darwin" else 1024


def time_start(code: str) -> tuple[float, float, int]:
    """Seconds from starting ``code`` in a fresh Python until it exits, and until it says its
    screen was drawn (``drawn TIME`` on its output), and its peak RSS in bytes (the child's
    own, from wait4: not the largest of every child so far)."""
    spawned = time.time()
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    stuck = threading.Timer(60, child.kill)
    stuck.start()
    assert child.stdout is not None
    try:
        said = child.stdout.read().split()  # (until it exits: a full pipe never stops it)
        _, status, usage = os.wait4(child.pid, 0)
    finally:
        stuck.cancel()
        child.stdout.close()
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, child.args)
    drawn = float(said[said.index("drawn") + 1]) - spawned
    return elapsed, drawn, usage.ru_maxrss * RSS_BYTES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.start_bench")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    time_start(XMAS)  # warm the file cache and bytecode
    bare_runs = [time_start(BARE) for _ in range(args.runs)]
    xmas_runs = [time_start(XMAS) for _ in range(args.runs)]
    bare, xmas = (statistics.median(t for t, _, _ in runs) for runs in (bare_runs, xmas_runs))
    bare_drawn, xmas_drawn = (statistics.median(d for _, d, _ in runs) for runs in (bare_runs, xmas_runs))
    bare_rss, xmas_rss = (statistics.median(rss for _, _, rss in runs) for runs in (bare_runs, xmas_runs))
    figures = {
        "runs": args.runs,
        "lobby_median_ms": round(xmas * 1000, 1),
        "bare_textual_median_ms": round(bare * 1000, 1),
        "ratio": round(xmas / bare, 2),
        "lobby_drawn_median_ms": round(xmas_drawn * 1000, 1),
        "bare_textual_drawn_median_ms": round(bare_drawn * 1000, 1),
        "drawn_ratio": round(xmas_drawn / bare_drawn, 2),
        "lobby_rss_mib": round(xmas_rss / 2**20, 1),
        "bare_textual_rss_mib": round(bare_rss / 2**20, 1),
        "rss_ratio": round(xmas_rss / bare_rss, 2),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"lobby on screen: {figures['lobby_median_ms']} ms; bare Textual app: "
            f"{figures['bare_textual_median_ms']} ms; ratio {figures['ratio']} (median of {args.runs})"
        )
        print(
            f"until drawn (the exit left out): lobby {figures['lobby_drawn_median_ms']} ms; bare Textual app: "
            f"{figures['bare_textual_drawn_median_ms']} ms; ratio {figures['drawn_ratio']}"
        )
        print(
            f"peak RSS: lobby {figures['lobby_rss_mib']} MiB; bare Textual app: "
            f"{figures['bare_textual_rss_mib']} MiB; ratio {figures['rss_ratio']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
