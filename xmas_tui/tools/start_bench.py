"""Start-up benchmark: time from a cold start to the lobby on screen, and its memory.

``python -m xmas_tui.tools.start_bench [--runs N] [--json]`` starts the app headless
in a fresh process until its lobby is mounted, and a bare Textual app the
same way in the same run, and prints both and their ratio; and the most memory
each process held (its peak RSS, as the kernel counts it), and their ratio.
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
from textual.app import App
async def ready(pilot):
    from xmas_tui.ui.screens.lobby import LobbyScreen
    while not isinstance(pilot.app.screen, LobbyScreen):
        await pilot.pause(0.001)
    await pilot.pause()
    pilot.app.exit()
run = App.run
App.run = lambda app, **_: run(app, headless=True, size=(80, 24), auto_pilot=ready)
from xmas_tui.cli import main
main([])
"""

BARE = """
from textual.app import App
from textual.widgets import Footer, Static
class Bare(App):
    def compose(self):
        yield Static("hello")
        yield Footer()
app = Bare()
async def ready(pilot):
    await pilot.pause()
    app.exit()
app.run(headless=True, size=(80, 24), auto_pilot=ready)
"""


#: ru_maxrss counts KiB on Linux, bytes on macOS
RSS_BYTES = 1 if sys.platform == "darwin" else 1024


def time_start(code: str) -> tuple[float, int]:
    """Seconds from starting ``code`` in a fresh Python until it exits, and its peak RSS in
    bytes (the child's own, from wait4: not the largest of every child so far)."""
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code])
    stuck = threading.Timer(60, child.kill)
    stuck.start()
    try:
        _, status, usage = os.wait4(child.pid, 0)
    finally:
        stuck.cancel()
    elapsed = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, child.args)
    return elapsed, usage.ru_maxrss * RSS_BYTES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.start_bench")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    time_start(XMAS)  # warm the file cache and bytecode
    bare_runs = [time_start(BARE) for _ in range(args.runs)]
    xmas_runs = [time_start(XMAS) for _ in range(args.runs)]
    bare, xmas = (statistics.median(t for t, _ in runs) for runs in (bare_runs, xmas_runs))
    bare_rss, xmas_rss = (statistics.median(rss for _, rss in runs) for runs in (bare_runs, xmas_runs))
    figures = {
        "runs": args.runs,
        "lobby_median_ms": round(xmas * 1000, 1),
        "bare_textual_median_ms": round(bare * 1000, 1),
        "ratio": round(xmas / bare, 2),
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
            f"peak RSS: lobby {figures['lobby_rss_mib']} MiB; bare Textual app: "
            f"{figures['bare_textual_rss_mib']} MiB; ratio {figures['rss_ratio']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
