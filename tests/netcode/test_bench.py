"""The benchmark scenarios: their figures, their goals, and the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from netcode.tools.channel_bench import SCENARIOS, judge, main, run_sim

KEYS = {
    "scenario", "p50_ms", "p99_ms", "max_ms", "mean_ms", "sent", "delivered",
    "duplicates", "order_errors", "wire_bytes_per_payload_byte",
}  # fmt: skip


@pytest.mark.parametrize(("name", "messages"), [("kcp", 1000), ("turbulent", 1200), ("soak", 200)])
def test_each_lossy_scenario_meets_its_goals_in_the_simulator(name: str, messages: int) -> None:
    scenario = SCENARIOS[name]
    result = run_sim(scenario, messages, seed=1)
    assert KEYS <= set(result)
    assert result["sent"] == result["delivered"] == messages
    assert all(judge(scenario, result).values()), result


def test_json_output_ends_with_one_object_with_the_agreed_keys(capsys) -> None:  # noqa: ANN001
    main(["kcp", "--sim", "--messages", "50", "--json"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    result = json.loads(last)
    assert KEYS <= set(result) and result["scenario"] == "kcp"


def run_cli(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "netcode.tools.channel_bench", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_echo_runs_between_processes_with_the_raw_baseline_beside_it() -> None:
    result = run_cli("echo", "--messages", "30")
    assert KEYS <= set(result) and KEYS <= set(result["raw"])
    assert result["delivered"] == result["raw"]["delivered"] == 30
    assert result["mode"] == "processes"
    assert "added_p50_us" in result


def test_a_lossy_scenario_runs_through_the_fault_proxy() -> None:
    result = run_cli("kcp", "--messages", "25")
    assert result["mode"] == "processes+faultproxy"
    assert result["delivered"] == 25 and result["order_errors"] == 0
    assert result["proxy"]["up_received"] > 0


def test_the_join_bench_times_handshakes_beside_a_raw_round_trip() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "netcode.tools.join_bench", "handshake", "--count", "5", "--json"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["handshakes"] == 5 and result["failed"] == 0
    assert result["p50_ms"] > result["raw_round_trip"]["p50_ms"]
    assert result["computation"]["p50_ms"] > 0


def test_the_join_bench_runs_a_simulated_table_with_a_baseline_beside_it() -> None:
    from netcode.tools.join_bench import run_table

    result = run_table(peers=4, moves=20, pace=1.0, loss=0.1, seed=2)
    assert result["complete"] and result["virtual_seconds"] >= 20
    assert {"wall_seconds", "baseline_wall_seconds", "virtual_over_wall"} <= set(result)


def test_the_join_bench_times_joins_under_a_flood_beside_joins_without_one() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "netcode.tools.join_bench", "flood", "--joins", "2", "--rate", "1000",
         "--sources", "10", "--json"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["scenario"] == "flood" and result["seated"] == result["baseline"]["seated"] == 2
    assert result["inits_sent"] > 500 and result["init_rate_answered"] > 0
    assert {"p50_ms", "p99_ms", "max_ms", "host_cpu_percent", "host_cpu_percent_baseline"} <= set(result)
    assert result["host_handshakes_started"] == 4  # the joins' own, none of the flood's
