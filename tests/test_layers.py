"""The layers point one way: engines are pure, the network knows no game."""

from __future__ import annotations

import ast
import functools
import os
import pathlib
import subprocess
import sys
from collections.abc import Iterable

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


# ---------------------------------------------------------------- Textual's private parts

#: the one module that may reach into Textual's private parts (and only where it was checked)
SEAM = "xmas_tui/ui/quick.py"


#: what a test may watch of Textual that it offers no public way to see, and why
WATCHED_IN_TESTS = {
    "_notifications": "the notifications on screen now (a refusal replaces the last one)",
    "_display": "when a frame is written (a race's clock starts after the frame with the cards)",
    "_exit": "os._exit, in a forked child (the name is the os module's; Textual has one too)",
}
#: named like private names, but the public API of named tuples
_NAMED_TUPLE = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name not in _NAMED_TUPLE | {"_"}


def _class_names(tree: ast.AST) -> Iterable[tuple[ast.ClassDef, str]]:
    """Each private name a class's body defines or reaches on ``self``/``cls`` (a method, a
    class attribute, ``self._x``), as Python spells it (``self.__x`` in ``Static``: ``_Static__x``)."""
    for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        in_body = {id(target) for statement in cls.body if isinstance(statement, ast.Assign | ast.AnnAssign)
                   for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])}
        for node in ast.walk(cls):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                name = node.name
            elif isinstance(node, ast.Name) and id(node) in in_body:
                name = node.id
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                name = node.attr
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "super":
                name = node.attr
            else:
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{cls.name.lstrip('_')}{name}"
            if _private(name):
                yield cls, name


@functools.cache
def textual_private() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """Textual's private modules, and every private name each of its classes defines (read
    from the installed Textual's source, so a new version's new names are known too)."""
    import textual

    root = pathlib.Path(textual.__file__).parent
    modules: set[str] = set()
    by_class: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if any(_private(part) for part in parts):
            modules.add(".".join(("textual", *parts)).removesuffix(".__init__"))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        dotted = ".".join(("textual", *parts)).removesuffix(".__init__")
        for cls, name in _class_names(tree):
            by_class.setdefault(f"{dotted}.{cls.name}", set()).add(name)
    return frozenset(modules), {cls: frozenset(names) for cls, names in by_class.items()}


@functools.cache
def _tree(path: pathlib.Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _ours() -> Iterable[pathlib.Path]:
    for folder in ("xmas_tui", "netcode", "tests"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def private_textual_reaches(path: pathlib.Path, ours: frozenset[str], watched: frozenset[str] = frozenset()) -> list[str]:
    """What ``path`` names of Textual's private parts: a private module imported, or a private
    name of a Textual class reached on something else than ``self`` (``screen._compositor``)
    or as a string (``setattr(w, "_border_title", …)``), unless our own code defines that name
    too (then it is ours). A class's own body is checked against its Textual bases, at run time
    (``test_no_widget_of_ours_overrides_or_reaches_textual_private_names``)."""
    modules, by_class = textual_private()
    theirs = frozenset().union(*by_class.values()) - ours - watched
    found = []
    for node in ast.walk(_tree(path)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            found += [f"{line}: import {a.name}" for a in node.names if any(a.name == m or a.name.startswith(m + ".") for m in modules)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]  # (from textual import _x)
            found += [f"{line}: from {node.module} import …"] if any(name in modules for name in imported) else []
        elif isinstance(node, ast.Attribute) and node.attr in theirs:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(f"{line}: .{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in theirs:
            found.append(f"{line}: {node.value!r}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules:
            found.append(f"{line}: {node.value!r}")
    return found


def our_private_names() -> frozenset[str]:
    names: set[str] = set()
    for path in _ours():
        names.update(name for _, name in _class_names(_tree(path)))
    return frozenset(names)


def test_only_the_quick_renderer_names_textual_s_private_parts() -> None:
    """Everything but ``xmas_tui/ui/quick.py`` (which turns itself off on a Textual it was not
    checked against) uses Textual's public API: no private module, no private attribute of a
    Textual object (tests may watch only ``WATCHED_IN_TESTS``). The seam itself is caught by the
    same check, so the check can fail."""
    ours, watched = our_private_names(), frozenset(WATCHED_IN_TESTS)
    offenders = {
        where: found
        for path in _ours()
        if (where := str(path.relative_to(ROOT))) not in (SEAM, "tests/test_layers.py")
        and (found := private_textual_reaches(path, ours, watched if where.startswith("tests/") else frozenset()))
    }
    assert not offenders, f"only {SEAM} may name Textual's private parts: {offenders}"
    seam = private_textual_reaches(ROOT / SEAM, ours)
    assert any("textual._compositor" in f for f in seam) and any("._compositor" in f for f in seam), seam


def test_no_widget_of_ours_overrides_or_reaches_textual_private_names() -> None:
    """No class of ours built on a Textual class (a widget, a screen, the app) defines or
    reaches on ``self`` a private name of those Textual classes (overriding ``_size_updated``,
    swapping ``self._styles_cache``), outside the quick renderer."""
    import importlib
    import inspect

    _, by_class = textual_private()
    offenders: dict[str, list[str]] = {}
    seam_hits: list[str] = []
    for path in sorted((ROOT / "xmas_tui").rglob("*.py")):
        if path.name == "__main__.py":
            continue
        module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"))
        for cls_node, name in _class_names(_tree(path)):
            cls = getattr(module, cls_node.name, None)
            if not inspect.isclass(cls):
                continue
            bases = [f"{base.__module__}.{base.__qualname__}" for base in cls.__mro__ if base.__module__.split(".")[0] == "textual"]
            if any(name in by_class.get(base, ()) for base in bases):
                where = f"{path.relative_to(ROOT)}:{cls_node.name}"
                (seam_hits if str(path.relative_to(ROOT)) == SEAM else offenders.setdefault(where, [])).append(name)
    assert not offenders, f"only {SEAM} may override or reach Textual's private names: {offenders}"
    assert {"_size_updated", "_styles_cache"} <= set(seam_hits), seam_hits


def test_the_lobby_loads_no_network_crypto_or_sessions() -> None:
    """Issue 28.6: start-up imports what the lobby needs and nothing else; the channel, the
    sessions, the runner and the cryptography load when a table is opened."""
    import subprocess
    import sys

    heavy = ("netcode", "cryptography", "rbcl", "spake2", "asyncssh", "msgpack", "xmas_tui.tables.audit",
             "xmas_tui.tables.network", "xmas_tui.tables.local", "xmas_tui.simulate")
    code = ("import sys, xmas_tui.ui.app, xmas_tui.ui.screens.lobby; "
            f"print(sorted(m for m in sys.modules for h in {heavy!r} if m == h or m.startswith(h + '.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


#: the app, started as ``xmas-tui`` starts it (its command line, with no arguments; Textual's run
#: made headless), until its lobby is drawn; then the modules it loaded, the stylesheets it
#: read, and Python's collection thresholds before and once the lobby was drawn (JSON)
LOBBY_DRAWN = """
import gc, json, sys
from textual.app import App
rule = gc.get_threshold()
seen = {}
async def drawn(pilot):
    from xmas_tui.ui.screens.lobby import LobbyScreen
    while not isinstance(pilot.app.screen, LobbyScreen):
        await pilot.pause(0.01)
    await pilot.pause()
    seen.update(css=[path for path, _ in pilot.app.stylesheet.source], rule=gc.get_threshold(),
                frozen=gc.get_freeze_count())
    pilot.app.exit()
run = App.run
App.run = lambda app, **_: run(app, headless=True, size=(80, 24), auto_pilot=drawn)
from xmas_tui.cli import main
main([])
print(json.dumps({"modules": sorted(sys.modules), "rule_before": rule, **seen}))
"""


def test_the_lobby_loads_no_board_no_other_game_no_markdown_and_no_table_stylesheet() -> None:
    """Issue 28.6: the lobby draws no board, shows one game and no rules, so start-up loads no
    board module (each loads with its first table), no rules module but the game on show's (a
    game's rules load when the lobby shows it), and no Markdown widget or parser (they load
    with the rules screen), no table or screen of one (nor the TOML parser of a cards file);
    and it reads app.tcss but not a table's or the network screens'
    stylesheet (each loads with its first screen: fewer rules to parse and to match). The
    lobby's list of games comes from the registries' listings. Python's collections, held
    while the app starts, run again once the lobby is drawn."""
    import json

    from xmas_tui.games import LISTINGS

    child = subprocess.run([sys.executable, "-c", LOBBY_DRAWN], capture_output=True, text=True, check=True, timeout=120)
    drawn = json.loads(child.stdout.splitlines()[-1])
    loaded = set(drawn["modules"])
    assert "xmas_tui.ui.screens.lobby" in loaded  # (the lobby was drawn)
    stylesheets = sorted(pathlib.Path(path).name for path in drawn["css"] if path.endswith(".tcss"))
    assert stylesheets == ["app.tcss"]
    # (start-up held Python's collections; the drawn lobby let go, and set aside what it made)
    assert drawn["rule"] == drawn["rule_before"] and drawn["frozen"] > 0
    boards = sorted(m for m in loaded if m.startswith("xmas_tui.ui.boards."))
    shown = next(iter(LISTINGS.values()))
    others = sorted(f"xmas_tui.games.{listing.module}" for listing in LISTINGS.values() if listing is not shown)
    markdown = sorted(m for m in loaded if m.split(".")[0] in ("markdown_it", "mdurl", "linkify_it")
                      or m == "textual.widgets._markdown")
    assert boards == [], "the lobby loads boards"
    assert sorted(loaded & set(others)) == [], "the lobby loads the rules of games it does not show"
    assert markdown == [], "the lobby loads the Markdown widget"
    later = {"xmas_tui.ui.screens.table", "xmas_tui.ui.screens.watch", "xmas_tui.ui.screens.network",
             "xmas_tui.ui.screens.replay", "xmas_tui.tables.table", "tomllib"}
    assert sorted(loaded & later) == [], "the lobby loads a table's screens, a table or a TOML parser"
    # nor the network, its sessions and cryptography, a game's digest (msgpack), the bots' drivers, the
    # audit; nor the dialogs (with the rules' text), nor the quick renderer and ``paint`` (the table's)
    lazy = ("netcode", "cryptography", "rbcl", "spake2", "asyncssh", "msgpack", "xmas_tui.tables.audit",
            "xmas_tui.tables.network", "xmas_tui.tables.local", "xmas_tui.simulate", "xmas_tui.ui.screens.dialogs",
            "xmas_tui.rules_text", "xmas_tui.ui.paint", "xmas_tui.ui.quick")
    assert sorted(m for m in loaded for h in lazy if m == h or m.startswith(h + ".")) == [], "the lobby loads what a table needs"


def test_the_listings_say_what_their_games_and_boards_say() -> None:
    """The registries stand in for the modules they load late: each listing's title and player
    counts are its game's, and a board's ``local_players`` is what the lobby reads of it."""
    from xmas_tui.games import GAMES, LISTINGS
    from xmas_tui.ui.boards import BOARDS, local_players

    assert list(GAMES) == list(LISTINGS) and list(BOARDS) == list(LISTINGS)
    for game_id, listing in LISTINGS.items():
        game = GAMES[game_id]
        assert (listing.id, listing.title, listing.min_players, listing.max_players) == (
            game.id, game.title, game.min_players, game.max_players)
        assert BOARDS[game_id].game is game
        assert local_players(game_id) == getattr(BOARDS[game_id], "local_players", 1)
