"""The table benchmark: a host and one process per peer on loopback, baselines beside it."""

from __future__ import annotations

import json
import math
import subprocess
import sys

KEYS = {
    "mode", "peers", "actions", "snapshot_bytes", "p50_ms", "p99_ms", "mean_ms", "max_ms",
    "raw_echo_p50_ms", "raw_echo_p99_ms", "raw_fan_out_p50_ms", "raw_fan_out_p99_ms",
    "p50_ratio_to_raw_echo", "p50_ratio_to_raw_fan_out",
}  # fmt: skip


def test_processes_mode_times_every_action_and_ends_with_one_json_line() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "xmas_tui.tools.table_bench",
            "--peers",
            "2",
            "--actions",
            "20",
            "--json",
            "--timeout",
            "45",
            "--blocks",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert KEYS <= set(result)
    assert result["mode"] == "processes" and result["peers"] == 2
    assert result["actions"] == 20 and result["refused"] == 0
    assert result["snapshot_bytes"] > 0
    assert result["blocks"] == 2 and len(result["block_ratios_to_raw_echo"]) == 2
    for key in KEYS - {"mode", "peers", "actions", "snapshot_bytes"}:
        assert math.isfinite(result[key]) and result[key] > 0, key
    assert 0 <= result["actions_no_opening"] <= result["actions"]  # (their p50 too, if there were any)
    assert (result["p50_ms_no_opening"] is None) == (result["actions_no_opening"] == 0)
