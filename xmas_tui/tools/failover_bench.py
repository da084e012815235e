"""Failover benchmark: the game survives its host, in the simulator and across real processes.

``python -m xmas_tui.tools.failover_bench [--sims N] [--real N] [--json]``

* **Simulated** (``--sims``, default 1000): seeded whole tables of every game in virtual
  time, 3 to 5 players, sometimes a spectator, lossy links. Four runs in five kill the
  host's machine at a random moment; one in five splits the network for a while instead
  (the host alone, the host and one player, or a minority of the players cut off), then
  heals it, and whoever lost their game joins again from the lobby. Figures: runs,
  split-brains (two hosts acting in one term), actions lost (an action a peer that went on
  had in its record that the final record lacks), actions undone (made by a host cut off
  from most players, that the table went on without), digest agreement and passing
  audits. The baseline, in the same run, is the same seeds with nobody killed or cut off.
* **Real processes** (``--real``, default 0; ``make failover-bench`` runs 100): a headless
  host and three headless joiners on loopback, the host SIGKILLed mid-game, for each game
  in turn. Figures, p50 and p95 from the host's death: when the joiners noticed it (the
  channel's silence timeout: the floor, and the baseline), when the new host took over,
  and its first action.

Every process it starts announces on a loopback discovery port, never on the LAN.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from netcode.simulator.faults import LinkFaults
from xmas_tui.games import GAMES, get_game
from xmas_tui.tables.simulation import SimTable

GAME_IDS = sorted(GAMES)


# ---------------------------------------------------------------- simulated


def sim_table(seed: int, game_id: str, kind: str) -> SimTable:
    """One seeded table of ``game_id``: ``kind`` "kill" (the host dies), "split" (the network
    splits, then heals) or "none" (the baseline)."""
    game = get_game(game_id)
    r = random.Random(f"{seed}|{game_id}")
    players = r.randint(max(3, game.min_players), min(5, game.max_players))
    faults = LinkFaults(loss=r.choice([0.0, 0.03, 0.08]), delay=0.002, jitter=0.002, duplicate=0.01, reorder=0.01)
    table = SimTable(game, players, spectators=r.randint(0, 1), faults=faults, pace=0.3, seed=seed, bot="random",
                     turn_time=None if game.race_window else 5.0)
    at = r.uniform(1.0, 12.0)  # most games are still in play
    if kind == "kill":
        table.kill_host(at)
    elif kind == "split":
        others = list(range(1, players))
        r.shuffle(others)
        cut = r.choice([[0], [0, others[0]], others[: (players - 1) // 2]])
        table.split(at, cut, r.choice([0.3, 0.6, 1.0, 2.0, 3.5]))
    return table


def sim_run(seed: int, game_id: str, kind: str) -> dict:
    table = sim_table(seed, game_id, kind)
    ended = table.run(1800.0)
    figures = table.figures()
    ok = (ended and figures["finished"] and figures["digests_equal"] and figures["audits_ok"]
          and not figures["split_brains"] and not figures["actions_lost"])
    return {"game": game_id, "seed": seed, "kind": kind, "ok": ok, **{k: figures[k] for k in (
        "finished", "digests_equal", "audits_ok", "failovers", "split_brains", "actions_lost", "actions_undone",
        "virtual_seconds", "failures")}}


def sims(count: int, kind_of: Any = None) -> dict:
    """``count`` runs over every game in turn; ``kind_of(i)`` the kind of run ``i``."""
    kind_of = kind_of or (lambda i: "split" if i % 5 == 4 else "kill")
    started = time.perf_counter()
    runs = [sim_run(i // len(GAME_IDS), GAME_IDS[i % len(GAME_IDS)], kind_of(i)) for i in range(count)]
    kinds = Counter(run["kind"] for run in runs)
    return {
        "runs": len(runs), "kinds": dict(kinds),
        "ok": sum(run["ok"] for run in runs),
        "failovers": sum(run["failovers"] for run in runs),
        "split_brains": sum(run["split_brains"] for run in runs),
        "actions_lost": sum(run["actions_lost"] for run in runs),
        "actions_undone": sum(run["actions_undone"] for run in runs),
        "digests_agree": sum(run["digests_equal"] for run in runs),
        "audits_pass": sum(run["audits_ok"] for run in runs),
        "failed": [{k: run[k] for k in ("game", "seed", "kind", "failures")} for run in runs if not run["ok"]][:10],
        "seconds": round(time.perf_counter() - started, 1),
    }  # fmt: skip


# ---------------------------------------------------------------- real processes


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LoopbackTable:
    """A headless host and headless joiners of one game on loopback, each its own process,
    announcing on a loopback discovery port of their own."""

    CODE = "SNOW-7315"

    def __init__(self, game_id: str, joiners: int = 3, pace: float = 0.05) -> None:
        self.port = free_port()
        self.env = {**os.environ, "XMAS_TUI_DISCOVERY": f"127.0.0.1:{free_port()}"}
        self.host = self.cli("host", game_id, "--players", str(joiners + 1), "--code", self.CODE, "--port",
                             str(self.port), "--bind", "127.0.0.1", "--headless", "--pace", str(pace),
                             "--log", os.devnull)
        opened = self.host.stdout.readline() if self.host.stdout else ""
        if not opened:
            self.close()
            raise RuntimeError(f"the host did not open its table: {self.host.stderr.read() if self.host.stderr else ''}")
        self.opened = json.loads(opened)
        self.joiners = [self.cli("join", "--address", f"127.0.0.1:{self.port}", "--code", self.CODE.lower(),
                                 "--name", f"Elf {i + 1}", "--headless", "--pace", str(pace), "--log", os.devnull)
                        for i in range(joiners)]

    def wait_for_play(self) -> None:
        """Until the host says play has begun (the deal done, the first move made)."""
        line = self.host.stdout.readline() if self.host.stdout else ""
        if not line or json.loads(line).get("event") != "playing":
            raise RuntimeError(f"the host did not begin play: {line!r}")

    def cli(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "xmas_tui", *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env)

    def close(self) -> None:
        for process in [self.host, *getattr(self, "joiners", [])]:
            if process.poll() is None:
                process.kill()
            process.wait()
            for stream in (process.stdout, process.stderr):
                if stream:
                    stream.close()


def real_run(game_id: str, *, joiners: int = 3, pace: float = 0.05, kill_at: float = 1.0,
             timeout: float = 240.0) -> dict:
    """A headless host and ``joiners`` headless joiners of ``game_id`` on loopback; the host is
    SIGKILLed ``kill_at`` seconds after play began (its first move). Returns every joiner's
    JSON line and the times (seconds from the kill) each saw the host lost, the new host, its
    first action."""
    table = LoopbackTable(game_id, joiners, pace)
    host, players = table.host, table.joiners
    try:
        table.wait_for_play()
        time.sleep(kill_at)
        killed = time.monotonic()
        host.send_signal(signal.SIGKILL)
        lines, errors = [], []
        for player in players:
            out, err = player.communicate(timeout=timeout)
            if player.returncode != 0 or not out.strip():
                errors.append(err.strip()[-400:])
                continue
            lines.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        table.close()

    def first(what: str) -> float | None:
        times = [when for line in lines for name, when in line.get("timeline") or [] if name == what]
        return round(min(times) - killed, 4) if times else None

    return {
        "game": game_id, "joiners": joiners, "finished": len(lines), "errors": errors,
        "digests_equal": len({line["digest"] for line in lines}) == 1 and len(lines) == joiners,
        "audits_ok": all(line["audit"]["ok"] for line in lines) and len(lines) == joiners,
        "failovers": [line.get("failovers") for line in lines],
        "lost": first("lost"), "new_host": first("new host"), "first_action": first("first action"),
    }  # fmt: skip


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))], 3)


def reals(count: int, parallel: int = 2) -> dict:
    started = time.perf_counter()
    with ThreadPoolExecutor(parallel) as pool:
        runs = list(pool.map(lambda i: real_run(GAME_IDS[i % len(GAME_IDS)]), range(count)))
    figures: dict[str, Any] = {"runs": len(runs),
                               "finished_everywhere": sum(r["digests_equal"] and r["audits_ok"] for r in runs)}
    for what in ("lost", "new_host", "first_action"):
        values = [r[what] for r in runs if r[what] is not None]
        figures[what] = {"p50_s": percentile(values, 0.5), "p95_s": percentile(values, 0.95),
                         "max_s": round(max(values), 3) if values else None, "n": len(values)}
    figures["failed"] = [{k: r[k] for k in ("game", "finished", "errors")} for r in runs
                         if not (r["digests_equal"] and r["audits_ok"])][:5]
    figures["seconds"] = round(time.perf_counter() - started, 1)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.failover_bench")
    parser.add_argument("--sims", type=int, default=1000, help="seeded simulated tables (default 1000)")
    parser.add_argument("--baseline", type=int, default=100, help="of them, run again with no fault (default 100)")
    parser.add_argument("--real", type=int, default=0, help="real-process runs on loopback (default 0)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {}
    if args.sims:
        report["baseline"] = sims(min(args.baseline, args.sims), lambda i: "none")
        report["simulated"] = sims(args.sims)
    if args.real:
        report["real"] = reals(args.real)
    if args.json:
        print(json.dumps(report))
    else:
        for part, figures in report.items():
            print(f"{part}:")
            for key, value in figures.items():
                print(f"  {key}: {value}")
    simulated = report.get("simulated")
    failed = simulated is not None and simulated["ok"] != simulated["runs"]
    real = report.get("real")
    failed = failed or (real is not None and real["finished_everywhere"] != real["runs"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
