"""The app's colours: three themes (dark, light, projector) and the inks boards draw with.

Owns: the ``Theme`` objects the app registers, every colour the screens use by name (an
*ink*: ``gold``, ``leaf``, ``felt-line``…, the same names in the ``.tcss`` files as ``$gold``…),
``inks(node)`` for text styled in Python (it reads the app's current theme, so a board
redrawn after a change of theme takes the new colours), and the remembered choice.

The inks have a fourth spelling, in the terminal's own 16 colours (``ANSI_INKS``), for
Textual's ANSI themes; ``inks(node)`` gives each for Rich, and ``Inks.css`` for a Textual style.

Must not touch: tables or games. No screen or board writes a colour of its own: a new one
is added here, in all three themes and in ``ANSI_INKS``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from textual.dom import DOMNode
from textual.theme import Theme

from xmas_tui import files

#: ink -> (dark, light, projector). Foreground inks are drawn on the felt (the screen's
#: ground); an ink named ``…-ground`` is a ground of its own, for the text drawn on it.
INKS: dict[str, tuple[str, str, str]] = {
    # the table and its parts
    "felt": ("#0b1d13", "#f4f0e6", "#000000"),
    "felt-raised": ("#10291b", "#fbf8f1", "#0d0d0d"),
    "felt-card": ("#0f2a1a", "#ffffff", "#000000"),
    "felt-down": ("#123a22", "#d5e6d8", "#1c1c1c"),
    "felt-hover": ("#235233", "#c7dfcc", "#333333"),
    "felt-pick": ("#5c4d0f", "#ffe7a3", "#5a5a00"),
    "felt-line": ("#2e7d32", "#2e7d32", "#ffffff"),
    "felt-line-dim": ("#24452f", "#a9c7b0", "#808080"),
    "felt-ink-dim": ("#6f9a7a", "#4f7259", "#c0c0c0"),
    "felt-empty": ("#3c5a46", "#a0b4a6", "#808080"),
    "status-ground": ("#7a1f1f", "#a31515", "#a00000"),
    "alarm-ground": ("#b00020", "#d50000", "#ff0000"),
    "prompt-ground": ("#143823", "#e2ebe3", "#1a1a1a"),
    "prompt-live-ground": ("#1e5c33", "#1b6b2a", "#006400"),
    "on-ground": ("#fff6d5", "#ffffff", "#ffffff"),
    # words and numbers on the felt
    "gold": ("#ffd700", "#7a5300", "#ffff00"),
    "leaf": ("#9be39b", "#1b6b2a", "#00ff66"),
    "ember": ("#ff9f43", "#a84300", "#ff9900"),
    "berry": ("#ff6b6b", "#c62828", "#ff4444"),
    "rose": ("#ff9f9f", "#a33030", "#ff8080"),
    "ice": ("#9ad0ff", "#1556a8", "#66ffff"),
    "cream": ("#fff6d5", "#2b2b2b", "#ffffff"),
    "quote": ("#ffd7a0", "#7a4b00", "#ffe0a0"),
    "news": ("#c9b8a0", "#5e4a2e", "#e0e0e0"),
    "faded": ("#c77b7b", "#8e4a4a", "#ff9999"),
    "faded-leaf": ("#5f8f6a", "#6f8f76", "#a0a0a0"),
    "faded-berry": ("#7a5050", "#9e7777", "#a08080"),
    # the colours of cards, tokens and puzzles (hues readable on the felt)
    "red": ("#ff5a5a", "#c62828", "#ff4444"),
    "orange": ("#ff9f43", "#b84a00", "#ff9900"),
    "white": ("#f8f8f8", "#37474f", "#ffffff"),
    "pink": ("#ff8fab", "#ad1457", "#ff99cc"),
    "yellow": ("#ffe66d", "#8d6e00", "#ffff66"),
    "brown": ("#c8a165", "#6d4c2f", "#ddaa66"),
    "ginger": ("#d9904f", "#8a4f1d", "#ffaa55"),
    "sand": ("#e3c594", "#6b5431", "#ffdd99"),
    "green": ("#4cd964", "#1e7b34", "#33ff66"),
    "blue": ("#5ab4ff", "#1565c0", "#55bbff"),
    "sky": ("#7fd3ff", "#0b6a99", "#88ddff"),
    "violet": ("#c18cff", "#6a1b9a", "#cc99ff"),
    "lilac": ("#a99cff", "#4a3fb0", "#bbaaff"),
    "teal": ("#4fe3d9", "#00796b", "#44ffee"),
    "mint": ("#c8e6c9", "#33691e", "#ccffcc"),
    "grey": ("#d0d0d0", "#424242", "#e0e0e0"),
    "dragon": ("#ff4d4d", "#c00000", "#ff3333"),
    # grounds of their own (squares, badges): the text on each is chosen for it
    "gold-ground": ("#ffd700", "#ffd54f", "#ffff00"),
    "red-ground": ("#a31515", "#b71c1c", "#cc0000"),
    "green-ground": ("#2e7d32", "#2e7d32", "#008800"),
    "club-ground": ("#1e5c33", "#1e5c33", "#005500"),
    "grey-ground": ("#3a3a3a", "#424242", "#333333"),
    "brown-ground": ("#4a3620", "#5d4037", "#553300"),
    "sand-ground": ("#e3c594", "#e3c594", "#ffdd99"),
    "orange-ground": ("#ff9f43", "#ffb74d", "#ff9900"),
    "blue-ground": ("#1f3b7a", "#1f3b7a", "#0033aa"),
    "violet-ground": ("#5b2a7a", "#5b2a7a", "#660099"),
    "gift-ground": ("#2f6e45", "#2f6e45", "#114411"),
    "gift-ground-2": ("#143a24", "#1e5231", "#002200"),
    "tree-ground": ("#123d22", "#cfe8d4", "#002200"),
    "gifts-ground": ("#3d1616", "#f6d3d3", "#330000"),
    "ginger-ground": ("#3b2512", "#f0dcc7", "#331a00"),
    "sand-card-ground": ("#33291a", "#efe3cc", "#332200"),
    "snow-ground": ("#2b3a4a", "#dde6ef", "#002244"),
    "santa-ground": ("#a31515", "#fff0c2", "#660000"),
    "dragon-ground": ("#3a0d0d", "#fbd5d5", "#330000"),
    "gift-1": ("#c8e6c9", "#c8e6c9", "#ccffcc"),
    "gift-5": ("#9be39b", "#9be39b", "#00ff66"),
    "gift-25": ("#7fd3ff", "#7fd3ff", "#88ddff"),
    "gift-50": ("#b39ddb", "#d1c4e9", "#cc99ff"),
    "gift-100": ("#ffb74d", "#ffb74d", "#ff9900"),
    "gift-200": ("#ffd700", "#ffd700", "#ffff00"),
    "dark-ink": ("#0b1d13", "#0b1d13", "#000000"),
    "light-ink": ("#ffffff", "#ffffff", "#ffffff"),
}

#: ink -> its colour in the terminal's own 16 (Textual's ``ansi_…`` names), for Textual's ANSI
#: themes (``ansi-dark``, ``ansi-light``): a 16-colour terminal draws every ink in a colour of its
#: palette. Fewer colours: what a colour tells, a glyph or a word tells too. The card grounds are
#: the terminal's own ground there, so a card's symbol in its colour shows on every palette.
ANSI_INKS: dict[str, str] = {
    "felt": "ansi_default", "felt-raised": "ansi_default", "felt-card": "ansi_default",
    "felt-down": "ansi_black", "felt-hover": "ansi_bright_black", "felt-pick": "ansi_blue",
    "felt-line": "ansi_green", "felt-line-dim": "ansi_bright_black", "felt-ink-dim": "ansi_bright_black",
    "felt-empty": "ansi_bright_black", "status-ground": "ansi_red", "alarm-ground": "ansi_bright_red",
    "prompt-ground": "ansi_default", "prompt-live-ground": "ansi_green", "on-ground": "ansi_bright_white",
    "gold": "ansi_bright_yellow", "leaf": "ansi_bright_green", "ember": "ansi_yellow", "berry": "ansi_bright_red",
    "rose": "ansi_red", "ice": "ansi_bright_cyan", "cream": "ansi_default", "quote": "ansi_yellow",
    "news": "ansi_default", "faded": "ansi_red", "faded-leaf": "ansi_green", "faded-berry": "ansi_red",
    "red": "ansi_bright_red", "orange": "ansi_yellow", "white": "ansi_bright_white", "pink": "ansi_bright_magenta",
    "yellow": "ansi_bright_yellow", "brown": "ansi_yellow", "ginger": "ansi_yellow", "sand": "ansi_yellow",
    "green": "ansi_bright_green", "blue": "ansi_bright_blue", "sky": "ansi_bright_cyan", "violet": "ansi_magenta",
    "lilac": "ansi_bright_magenta", "teal": "ansi_cyan", "mint": "ansi_green", "grey": "ansi_white",
    "dragon": "ansi_bright_red",
    "gold-ground": "ansi_yellow", "red-ground": "ansi_red", "green-ground": "ansi_green", "club-ground": "ansi_green",
    "grey-ground": "ansi_bright_black", "brown-ground": "ansi_black", "sand-ground": "ansi_yellow",
    "orange-ground": "ansi_yellow", "blue-ground": "ansi_blue", "violet-ground": "ansi_magenta",
    "gift-ground": "ansi_black", "gift-ground-2": "ansi_default", "tree-ground": "ansi_default",
    "gifts-ground": "ansi_default", "ginger-ground": "ansi_default", "sand-card-ground": "ansi_default",
    "snow-ground": "ansi_default", "santa-ground": "ansi_red", "dragon-ground": "ansi_default",
    "gift-1": "ansi_green", "gift-5": "ansi_bright_green", "gift-25": "ansi_bright_cyan", "gift-50": "ansi_bright_magenta",
    "gift-100": "ansi_yellow", "gift-200": "ansi_bright_yellow",
    "dark-ink": "ansi_black", "light-ink": "ansi_bright_white",
}
#: the grounds among them: on a light terminal the foregrounds lose their brightness, not these
_GROUNDS = {name for name in ANSI_INKS if "ground" in name or name.startswith("felt")} | {"dark-ink", "light-ink"}

DARK, LIGHT, PROJECTOR = "xmas-dark", "xmas-light", "xmas-projector"
#: what a person types (``--theme light``) -> the theme's name in the app
THEME_NAMES = {"dark": DARK, "light": LIGHT, "projector": PROJECTOR}
DEFAULT_THEME = DARK


def _variables(index: int) -> dict[str, str]:
    return {name: colours[index] for name, colours in INKS.items()}


THEMES: tuple[Theme, ...] = (
    Theme(
        name=DARK, primary="#2e7d32", secondary="#7a1f1f", accent="#ffd700", warning="#ff9f43",
        error="#c0392b", success="#4ebf71", foreground="#e6e6e0", background="#0b1d13", surface="#10291b",
        panel="#143823", dark=True,
        variables={**_variables(0), "footer-key-foreground": "#ffd700", "block-cursor-background": "#2e7d32"},
    ),
    Theme(
        name=LIGHT, primary="#1b6b2a", secondary="#a31515", accent="#7a5300", warning="#a84300",
        error="#c62828", success="#2e7d32", foreground="#1d2a20", background="#f4f0e6", surface="#fbf8f1",
        panel="#e2ebe3", dark=False,
        variables={**_variables(1), "footer-key-foreground": "#a31515", "block-cursor-background": "#1b6b2a"},
    ),
    Theme(
        name=PROJECTOR, primary="#008800", secondary="#a00000", accent="#ffff00", warning="#ff9900",
        error="#ff3333", success="#00ff66", foreground="#ffffff", background="#000000", surface="#0d0d0d",
        panel="#1a1a1a", dark=True, text_alpha=1.0,
        variables={**_variables(2), "footer-key-foreground": "#ffff00", "block-cursor-background": "#008800"},
    ),
)


def default_inks() -> dict[str, str]:
    """The dark theme's inks: what a stock Textual theme falls back to."""
    return _variables(0)


def ansi_inks(dark: bool) -> dict[str, str]:
    """The inks in the terminal's 16 colours (a stock ANSI theme's): on a light terminal, each
    bright ink is drawn in its plain colour, which reads on white."""
    if dark:
        return dict(ANSI_INKS)
    return {name: colour if name in _GROUNDS else colour.replace("ansi_bright_", "ansi_")
            for name, colour in ANSI_INKS.items()}


class Inks(Mapping[str, str]):
    """The current theme's inks: ``ink.gold`` or ``ink["felt-line"]`` is a colour for Rich;
    ``ink.css("gold")`` the same colour for a Textual style (they spell the terminal's own
    16 colours differently: ``bright_yellow``, ``ansi_bright_yellow``)."""

    def __init__(self, variables: Mapping[str, str]) -> None:
        self._variables = variables

    def __getitem__(self, name: str) -> str:
        return self.css(name).removeprefix("ansi_")

    def css(self, name: str) -> str:
        """Ink ``name`` for a Textual style (``styles.background``, a border)."""
        return self._variables.get(name) or INKS[name][0]

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name.replace("_", "-")]

    def __iter__(self) -> Iterator[str]:
        return iter(INKS)

    def __len__(self) -> int:
        return len(INKS)


    def style(self, template: str) -> str:
        """A Rich style with every ``$ink`` in ``template`` made a colour: ``"bold $gold on $felt"``."""
        return _INK_NAME.sub(lambda found: self[found.group(1)], template)


_INK_NAME = re.compile(r"\$([a-z][a-z0-9-]*)")


def inks(node: DOMNode) -> Inks:
    """The inks of the theme ``node``'s app shows now."""
    return Inks(node.app.theme_variables)


# ---------------------------------------------------------------- the remembered choice

def _settings_file() -> Path:
    return files.app_data_dir() / "settings.json"


def remembered_theme() -> str:
    """The theme chosen last time (any name the app knows), or the dark one."""
    try:
        chosen = json.loads(_settings_file().read_text(encoding="utf-8")).get("theme")
    except (OSError, ValueError, AttributeError):
        return DEFAULT_THEME
    return chosen if isinstance(chosen, str) and len(chosen) < 64 else DEFAULT_THEME


def remember_theme(name: str) -> None:
    """Keep ``name`` as the theme to open with next time (a failure to write costs nothing)."""
    path = _settings_file()
    try:
        kept = path.read_text(encoding="utf-8") if path.exists() else None
        settings = json.loads(kept) if kept is not None else {}
        if not isinstance(settings, dict):
            settings = {}
    except (OSError, ValueError):
        kept, settings = None, {}
    settings["theme"] = name
    text = json.dumps(settings) + "\n"
    if text == kept:  # (already so: every start opens in the theme it keeps, and writes nothing)
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError:
        pass
