"""Start-up benchmark: time from a cold start to the lobby on screen.

``python -m xmas_tui.tools.start_bench [--runs N] [--json]`` starts the app headless
in a fresh process until its lobby is mounted, and a bare Textual app the
same way in the same run, and prints both and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

XMAS = """
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.screens.lobby import LobbyScreen
app = XmasApp()
async def ready(pilot):
    while not isinstance(app.screen, LobbyScreen):
        await pilot.pause(0.001)
    await pilot.pause()
    app.exit()
app.run(headless=True, size=(80, 24), auto_pilot=ready)
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


def time_start(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.start_bench")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    time_start(XMAS)  # warm the file cache and bytecode
    bare = [time_start(BARE) for _ in range(args.runs)]
    xmas = [time_start(XMAS) for _ in range(args.runs)]
    figures = {
        "runs": args.runs,
        "lobby_median_ms": round(statistics.median(xmas) * 1000, 1),
        "bare_textual_median_ms": round(statistics.median(bare) * 1000, 1),
        "ratio": round(statistics.median(xmas) / statistics.median(bare), 2),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"lobby on screen: {figures['lobby_median_ms']} ms; bare Textual app: "
            f"{figures['bare_textual_median_ms']} ms; ratio {figures['ratio']} (median of {args.runs})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
