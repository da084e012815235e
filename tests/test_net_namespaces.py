"""A table found by broadcast across a bridge, in network namespaces this test creates.

Two hosts (namespaces) hang off a bridge (a third namespace); the joiner has
no address, only the code, and finds the table by the host's broadcast on the
bridge's own subnet. Nothing leaves the namespaces. Needs root and iproute2;
skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid

import pytest

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None, reason="needs root and iproute2 (ip netns)"
)

SUBNET = "10.77.{n}.{host}"  # inside the test's own namespaces only


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


@pytest.fixture
def lan():
    """Namespaces a and b joined by a bridge in namespace br; yields their names and addresses."""
    tag = uuid.uuid4().hex[:6]
    n = int(tag[:2], 16) % 200 + 10
    names = {k: f"xt{k}{tag}" for k in ("a", "b", "br")}
    try:
        for ns in names.values():
            ip("netns", "add", ns)
        ip("-n", names["br"], "link", "add", "br0", "type", "bridge")
        ip("-n", names["br"], "link", "set", "br0", "up")
        addresses = {}
        for i, side in enumerate(("a", "b"), start=1):
            ip("link", "add", f"v{side}{tag}", "netns", names[side], "type", "veth", "peer", "name", f"p{side}{tag}", "netns", names["br"])
            ip("-n", names["br"], "link", "set", f"p{side}{tag}", "master", "br0", "up")
            address = SUBNET.format(n=n, host=i)
            ip("-n", names[side], "addr", "add", f"{address}/24", "brd", "+", "dev", f"v{side}{tag}")
            ip("-n", names[side], "link", "set", f"v{side}{tag}", "up")
            ip("-n", names[side], "link", "set", "lo", "up")
            addresses[side] = address
        yield names, addresses, SUBNET.format(n=n, host=255)
    finally:
        for ns in names.values():
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)


def test_a_player_discovers_a_table_by_broadcast_and_plays_it(lan) -> None:
    names, addresses, broadcast = lan
    discovery = f"{broadcast}:47474"
    env = {**os.environ}
    env.pop("XMAS_TUI_DISCOVERY", None)

    def run(ns: str, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-m", "xmas_tui", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip

    host = run(names["a"], "host", "chip-n-dale", "--players", "2", "--code", "STAR-2026",
               "--discovery", discovery, "--headless", "--name", "Holly")  # fmt: skip
    joiner = run(names["b"], "join", "--code", "STAR-2026", "--discovery", discovery, "--headless", "--name", "Noel")
    try:
        outs = []
        for proc in (host, joiner):
            out, err = proc.communicate(timeout=180)
            assert proc.returncode == 0, err[-2000:]
            outs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in (host, joiner):
            if proc.poll() is None:
                proc.kill()
    assert outs[0]["digest"] == outs[1]["digest"]
    assert {outs[0]["seat"], outs[1]["seat"]} == {1, 2}
