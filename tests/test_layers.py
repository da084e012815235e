"""The layers point one way: engines are pure, the network knows no game."""

from __future__ import annotations

import ast
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def imported_modules(folder: pathlib.Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in folder.rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


@pytest.mark.parametrize(
    ("folder", "forbidden"),
    [
        # (no files either: a personal cards file is read by xmas_tui.files, and checked here)
        ("xmas_tui/games", {"textual", "asyncio", "netcode", "socket", "time", "random", "rich", "os", "pathlib", "io", "tomllib", "json"}),
        ("xmas_tui/bots", {"textual", "asyncio", "netcode", "socket", "time", "random"}),
        ("netcode", {"xmas_tui", "textual"}),
        # the UI reaches tables only through the Table seam and its facades (xmas_tui.tables)
        ("xmas_tui/ui", {"netcode", "socket", "asyncio_dgram"}),
        # boards read an event's data, never its English text
        ("xmas_tui/ui/boards", {"re"}),
        # sessions are state machines: no sockets, no clocks, no event loop
        ("netcode/session", {"asyncio", "socket", "time", "random", "os", "asyncio_dgram"}),
        # the simulator runs whole tables in virtual time: no sockets, no clocks, no event loop
        ("netcode/simulator", {"asyncio", "socket", "time", "os", "asyncio_dgram"}),
        # the dealing's cryptography is sans-IO, its randomness os.urandom (or a test's source)
        ("netcode/dealing", {"asyncio", "socket", "time", "random", "asyncio_dgram", "secrets"}),
    ],
)
def test_layer_imports_nothing_it_must_not(folder: str, forbidden: set[str]) -> None:
    path = ROOT / folder
    assert path.is_dir()
    offenders = {
        module: sorted(names & forbidden)
        for module, names in imported_modules(path).items()
        if names & forbidden
    }
    assert not offenders, f"{folder} imports what it must not: {offenders}"


def test_engines_never_import_the_rest_of_the_app() -> None:
    for module in imported_modules(ROOT / "xmas_tui/games"):
        text = (ROOT / module).read_text()
        assert "xmas_tui.ui" not in text and "xmas_tui.bots" not in text, module


def test_no_test_and_no_process_a_test_starts_can_announce_on_the_lan() -> None:
    """conftest.py points discovery at loopback before any test runs, and children inherit it."""
    assert os.environ["XMAS_TUI_DISCOVERY"].startswith("127.0.0.1:")
    code = "from netcode.discovery import discovery_address; print(discovery_address()[0])"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "127.0.0.1"


def test_the_product_imports_no_tool() -> None:
    """Benchmarks, fault proxies and screenshot scenes are tools: the product never needs them."""
    offenders = {}
    for package in ("xmas_tui", "netcode"):
        for path in (ROOT / package).rglob("*.py"):
            if "tools" in path.relative_to(ROOT).parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = ([alias.name for alias in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
                bad = [name for name in names if name.startswith(("xmas_tui.tools", "netcode.tools"))]
                if bad:
                    offenders[str(path.relative_to(ROOT))] = bad
    assert not offenders, f"the product imports tools: {offenders}"
