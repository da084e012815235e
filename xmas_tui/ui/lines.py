"""Lines rendered once: the strips of a widget made of lines, each drawn while it is shown.

Owns: ``LineStrips`` (each line of a widget of lines rendered once), ``text_strip`` (a line of
rich words drawn by Rich), ``line_key`` and ``text_key`` (what a line draws). ``paint`` names
them too, for the screens and boards; they are here, apart, so that the bar of keys at the foot
of the lobby (``keybar``) draws its line without loading ``paint`` and the quick renderer, which
load with the first table. Must not touch: what is drawn (the screens and boards decide that),
tables, games, and any private part of Textual.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from rich.text import Text
from textual.content import Content
from textual.strip import Strip
from textual.style import Style as TextualStyle
from textual.visual import Visual
from textual.widget import Widget

_UNREVERSED = TextualStyle(reverse=False)


def text_key(text: Text) -> tuple:
    """What a rich ``Text`` draws: its words, their styles and how it is laid out."""
    return (text.plain, tuple(text.spans), text.style, text.justify, text.overflow, text.no_wrap, text.end)


def line_key(line: Content | Text) -> tuple:
    """What a line draws: its words and their styles (a ``Content`` compares its words only)."""
    if isinstance(line, Text):
        return text_key(line)
    return (line.plain, tuple(line.spans))


def text_strip(widget: Widget, text: Text, width: int, style: Any, *, pad: bool = False) -> Strip:
    """One line of rich ``text`` on ``widget`` in ``style`` (a Textual style): its words in
    their own styles over ``style``, cut to ``width`` cells (and padded to it, if ``pad``). What
    Textual draws for it (``Visual.to_strips``), made by Rich at a third of the cost (Textual
    also marks each piece with where it lies, to select text with the mouse, which a line of a
    board does not offer)."""
    base = style.rich_style
    console = widget.app.console
    segments: Iterable[Segment]
    if not text.spans:  # (Rich draws a text's own style under its spans only)
        own = console.get_style(text.style) if text.style else None
        segments = [Segment(text.plain, base + own if own else base)] if text.plain else []
    else:
        segments = Segment.simplify(  # (a piece for each change of style, as Textual cuts them)
            Segment(words, base + own if own is not None else base) for words, own, _ in text.render(console, end="")
        )
    strip = Strip(segments)
    if pad:
        return strip.adjust_cell_length(width, (style + _UNREVERSED).rich_style)
    return strip.crop(0, width) if strip.cell_length > width else strip


class LineStrips:
    """The strips of a widget made of lines, each line rendered once while it is shown: a move
    that changes one line of the players panel, or moves every line of the log up by one,
    renders the new lines only (Textual renders the whole text again). A ``Content`` line is
    rendered as Textual renders it (``Visual.to_strips``), so the cells are the same; a rich
    ``Text`` line as ``text_strip`` renders it."""

    def __init__(self) -> None:
        self._strips: dict[tuple, Strip] = {}
        self._made_for: tuple | None = None  # (width, style)

    def strip(self, widget: Widget, line: Content | Text, shown: int, style: Any = None) -> Strip:
        """``line`` of ``widget`` (which shows ``shown`` lines), rendered at its width and style;
        or, given a ``style`` (a line of its own look), in that style and padded to the width."""
        width, base = widget.size.width, widget.visual_style
        if self._made_for != (width, base):
            self._made_for = (width, base)
            self._strips = {}
        elif len(self._strips) > 4 * shown + 64:
            self._strips = {}  # (the lines no longer shown are let go)
        key = line_key(line) if style is None else (line_key(line), style)
        strip = self._strips.get(key)
        if strip is None:
            if isinstance(line, Text):
                strip = text_strip(widget, line, width, base if style is None else style, pad=style is not None)
            else:
                strips = Visual.to_strips(widget, line, width, None, base if style is None else style, pad=style is not None)
                strip = strips[0] if strips else Strip.blank(0)
            self._strips[key] = strip
        return strip
