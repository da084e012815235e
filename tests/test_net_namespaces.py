"""Tables found by broadcast across a bridge, in network namespaces this test creates.

Two machines (namespaces) hang off a bridge (a third namespace); several
programs run on each. The joiners have no address, only their codes, and find
their tables by the hosts' broadcasts on the bridge's own subnet. Nothing
leaves the namespaces. Needs root and iproute2; skipped elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid

import pytest

from .netkit import results_of

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


def test_players_discover_their_own_tables_by_broadcast_and_play_them(lan) -> None:
    """Two hosts in one namespace, two joiners in the other, all started together: every
    joiner hears both tables by broadcast (both bound the discovery port), joins the one its
    code opens, and no host counts a failed join attempt."""
    names, addresses, broadcast = lan
    discovery = f"{broadcast}:47474"
    env = {**os.environ, "XMAS_TUI_DISCOVERY": discovery}  # the bridge's own subnet, inside the namespaces

    def run(ns: str, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, "-m", "xmas_tui", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip

    codes = {"Holly": "STAR-2026", "Noel": "SNOW-1234"}  # (their tags differ: see test_net)
    procs = {("host", name): run(names["a"], "host", "chip-n-dale", "--players", "2", "--code", code,
                                  "--discovery", discovery, "--headless", "--name", name)
             for name, code in codes.items()}  # fmt: skip
    procs |= {("join", name): run(names["b"], "join", "--code", code, "--discovery", discovery, "--headless",
                                  "--name", f"Guest of {name}")
              for name, code in codes.items()}  # fmt: skip
    results = results_of(procs, timeout=180)
    for name in codes:
        host, guest = results["host", name], results["join", name]
        assert host["failed_joins"] == 0 and guest["digest"] == host["digest"]
        assert {host["seat"], guest["seat"]} == {1, 2}
