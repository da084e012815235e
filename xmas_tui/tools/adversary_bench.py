"""``make adversary-bench``: seeded simulated tables, each with one bad program, for every strategy.

Every game in turn, at 3 to 6 players (as the game allows), one table a seed, with the program at
seat 2 playing the strategy. For each strategy it prints how many tables hung (goal 0), finished
wrong (0) or spun (0), and the share of the tables the attack met in play in which every honest
screen named it (100 %, where the attack is not provably harmless), beside the same tables with no
adversary (the baseline, measured in the same run: how long an honest table takes). The last line
is one JSON object.

    python -m xmas_tui.tools.adversary_bench --tables 1000 --workers 2

``--workers`` spreads the tables over processes (each table is seeded: the figures do not change).
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor

from xmas_tui.games import GAMES, get_game
from xmas_tui.tables.adversary import STRATEGIES, run_adversary
from xmas_tui.tables.simulation import simulate_network


def tables(count: int) -> list[tuple[str, int, int]]:
    """``count`` (game, players, seed) triples: every game in turn, 3-6 players as it allows."""
    ids = sorted(GAMES)
    out = []
    for seed in range(1, count + 1):
        game = get_game(ids[seed % len(ids)])
        players = max(game.min_players, min(game.max_players, 3 + seed % 4))
        out.append((game.id, max(3, players), seed))
    return out


def _run(job: tuple[str, int, str, int]) -> dict:
    game_id, players, name, seed = job
    return run_adversary(get_game(game_id), players, name, seed=seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="adversary-bench", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=40, help="seeded tables for each strategy")
    parser.add_argument("--strategy", choices=sorted(STRATEGIES), action="append",
                        help="only these strategies (default: all)")
    parser.add_argument("--workers", type=int, default=1, help="processes to spread the tables over")
    args = parser.parse_args(argv)
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    chosen = args.strategy or list(STRATEGIES)
    plan = tables(args.tables)
    started = time.perf_counter()
    for game_id, players, seed in plan[: max(1, len(plan) // 10)]:
        simulate_network(get_game(game_id), players, pace=0.3, seed=seed, bot="random")
    baseline = (time.perf_counter() - started) / max(1, len(plan) // 10)
    print(f"baseline: an honest table takes {baseline:.2f} s")
    figures = {}
    for name in chosen:
        started = time.perf_counter()
        jobs = [(g, p, name, s) for g, p, s in plan]
        runs = list(pool.map(_run, jobs, chunksize=8)) if pool is not None else [_run(job) for job in jobs]
        took = (time.perf_counter() - started) / len(runs) * args.workers  # (one process's time a table)
        row = {
            "tables": len(runs),
            "hangs": sum(r["hung"] for r in runs),
            "wrong": sum(r["wrong"] for r in runs),
            "spins": sum(r["spun"] for r in runs),
            # (of the tables the attack met in play: a game over before it struck has nothing to name)
            "named_pct": round(100 * sum(r["named"] for r in runs if r["attacked"])
                               / max(1, sum(r["attacked"] for r in runs)), 1),
            "harmless": STRATEGIES[name].harmless,
            "attacked_in_play": sum(r["attacked"] for r in runs),
            "stopped_tables": sum(r["stopped"] > 0 for r in runs),
            "s_per_table": round(took, 2),
            "failed": [f"{r['game']}/{r['players']}/seed {r['seed']}" for r in runs
                       if r["hung"] or r["wrong"] or r["spun"] or (r["attacked"] and not r["named"])][:5],
        }
        figures[name] = row
        print(f"{name:>18}: {row['tables']} tables, hangs {row['hangs']}, wrong {row['wrong']}, "
              f"spins {row['spins']}, named {row['named_pct']} %{' (harmless)' if row['harmless'] else ''}, "
              f"{row['attacked_in_play']} attacked in play, "
              f"{row['stopped_tables']} stopped cleanly, {took:.2f} s a table")
    if pool is not None:
        pool.shutdown()
    print(json.dumps({"tables_per_strategy": args.tables, "workers": args.workers,
                      "baseline_s_per_table": round(baseline, 2), "strategies": figures}))
    bad = any(r["hangs"] or r["wrong"] or r["spins"] or r["named_pct"] < 100 for r in figures.values())
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
