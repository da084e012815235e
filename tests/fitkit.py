"""Reading a screen as a person reads it: which words each widget shows whole, and which it
cuts (the fit tests at 80×24 and the monochrome tests use it).

A widget's words are the text it was given to show (its content, a list's lines, a border's
title); what it shows is the screen's cells that are its own (not covered by another widget,
not clipped by its container). A word is cut when the widget was given it but the screen does
not show it whole, or when a shown line ends in part of a word with no ellipsis after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.errors import NoWidget
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from xmas_tui.ui.quick import screen_strips

ELLIPSIS = "…"


def screen_cells(screen: Screen) -> list[list[str]]:
    """The screen's characters, a list a line and a character a cell (a wide character's second
    cell is "")."""
    lines = []
    for line in screen_strips(screen):
        cells: list[str] = []
        for strip in line:
            for segment in strip:
                if segment.control:
                    continue
                for char in segment.text:
                    cells.append(char)
                    cells.extend([""] * (cell_len(char) - 1))
        lines.append(cells)
    return lines


def screen_text(app: App) -> str:
    """The screen as text, a line a row (trailing blanks stripped)."""
    return "\n".join("".join(cells).rstrip() for cells in screen_cells(app.screen))


def owners(screen: Screen) -> list[list[Widget | None]]:
    """Which widget each cell of the screen shows (the topmost there)."""
    width, height = screen.size
    out: list[list[Widget | None]] = []
    for y in range(height):
        row: list[Widget | None] = []
        for x in range(width):
            try:
                row.append(screen.get_widget_at(x, y)[0])
            except NoWidget:
                row.append(None)
        out.append(row)
    return out


def plain(content: object) -> str | None:
    """The words of a widget's content, if they are words (None: a table or another visual)."""
    if isinstance(content, str):
        try:
            return Content.from_markup(content).plain
        except Exception:  # (not markup after all)
            return content
    if isinstance(content, (Text, Content)):
        return content.plain
    return None


def given_words(widget: Widget) -> str | None:
    """The words ``widget`` was given to show, as text (None: it shows no words of its own)."""
    if isinstance(widget, Static) and type(widget).render is Static.render:
        return plain(widget.content)
    return plain(widget.render())  # (a widget that draws its own lines: a list, the log)


@dataclass(frozen=True)
class Cut:
    """A word a widget does not show whole."""

    widget: str
    word: str
    why: str

    def __str__(self) -> str:
        return f"{self.widget}: {self.word!r} ({self.why})"


def name_of(widget: Widget) -> str:
    return f"{type(widget).__name__}#{widget.id}" if widget.id else type(widget).__name__


def _shown(cells: list[list[str]], own: list[list[Widget | None]], widget: Widget, region: Region) -> list[str]:
    """The lines of ``region`` that ``widget`` shows (a cell another widget covers is a blank)."""
    lines = []
    for y in range(max(0, region.y), min(len(cells), region.bottom)):
        row = cells[y]
        chars = [row[x] if x < len(row) and own[y][x] is widget else " " for x in range(max(0, region.x), min(len(row), region.right))]
        lines.append("".join(chars))
    return lines


def _check(widget: Widget, given: str, lines: list[str], what: str, *, edges: bool = True) -> list[Cut]:
    cuts = []
    shown = {word for line in lines for word in line.split()}
    for word in given.split():
        if word not in shown:
            cuts.append(Cut(name_of(widget), word, f"{what}: given, not shown whole"))
    wanted = set(given.split())
    for line in lines if edges else ():
        words = line.split()
        if words and not line.endswith(" ") and words[-1] not in wanted and not words[-1].endswith(ELLIPSIS):
            cuts.append(Cut(name_of(widget), words[-1], f"{what}: a line ends mid-word"))
    return cuts


def cut_words(app: App, *, under: Widget | None = None) -> list[Cut]:
    """Every word a widget of the current screen (or of ``under``) was given but does not show
    whole, in its body or in its border's titles."""
    screen = app.screen
    cells = screen_cells(screen)
    own = owners(screen)
    on_screen = {w for row in own for w in row if w is not None}
    root = under or screen
    cuts: list[Cut] = []
    for widget in [root, *root.query("*")]:
        if widget not in on_screen or not widget.display:
            continue
        region = widget.region
        if widget.border_title or widget.border_subtitle:
            for label, y in ((widget.border_title, region.y), (widget.border_subtitle, region.bottom - 1)):
                words = plain(label) if label else None
                if words:
                    cuts += _check(widget, words, _shown(cells, own, widget, Region(region.x, y, region.width, 1)), "border",
                                   edges=False)
        if widget.children and not isinstance(widget, Static):
            continue  # (a container: its own widgets say their words)
        given = given_words(widget)
        if given:
            cuts += _check(widget, given, _shown(cells, own, widget, widget.content_region), "words")
    return cuts
