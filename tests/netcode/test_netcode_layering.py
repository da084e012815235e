"""netcode stands alone at run time (tests/test_layers.py checks its imports
statically): no games, no Textual, and every module says what it owns."""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import netcode

ROOT = Path(netcode.__file__).parent
MODULES = sorted(m.name for m in pkgutil.walk_packages(netcode.__path__, "netcode."))


def test_importing_all_of_netcode_pulls_in_neither_games_nor_textual() -> None:
    names = ", ".join(MODULES)
    code = f"import json, sys, {names}; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
    )
    roots = {name.split(".")[0] for name in loaded}
    assert "xmas_tui" not in roots
    assert "textual" not in roots


def test_every_module_says_what_it_owns_and_must_not_touch() -> None:
    modules = [path for path in ROOT.rglob("*.py") if path.name != "__init__.py"]
    assert len(modules) >= 10
    for path in modules:
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc, path
        assert "Owns" in doc and "Must not touch" in doc, path
