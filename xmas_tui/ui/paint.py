"""Drawing only what changed: every screen redraws a whole snapshot, Textual repaints the rest.

A move changes a few words of a board; redrawing the whole snapshot into Textual would repaint
every widget and lay the screen out again, after every move. So each screen says what every
part shows, and these helpers touch a widget only when what it shows has changed, and ask for
a layout only when the widget's size follows its content.

Owns: ``show`` (a ``Static``'s content), ``title`` and ``subtitle`` (a border's), ``tip`` (a
tooltip), ``wear`` and ``wear_edge`` (colours of a look that comes and goes), ``same``
(whether two contents draw alike), ``Panel`` (a box of widgets whose own lines are drawn
quickly), ``wrapped`` and ``Words`` (rich words drawn by Rich), and ``line_region`` (one line
to repaint). ``LineStrips`` (each line of a widget of lines rendered once), ``text_strip`` and
``line_key`` are ``lines``'s, and ``Unscrolled``, ``QuickLines`` and ``ReusedLines`` the quick
renderer's (``quick``), named here too for the screens and boards; ``settle_memory``,
``hold_collections`` and ``tidy_memory`` (when the garbage collector may stop a frame) are
``memory``'s, named here too for the screens. Must not touch: what is drawn (the screens and
boards decide that), tables, games, and any private part of Textual (only ``quick`` does, and
only where it was checked).
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from rich.segment import Segment
from rich.text import Text
from textual.color import Color
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from xmas_tui.ui import quick

# (named here too, for the screens and boards: ``lines``'s, which the lobby's bar of keys loads alone)
from xmas_tui.ui.lines import LineStrips as LineStrips
from xmas_tui.ui.lines import line_key as line_key
from xmas_tui.ui.lines import text_key
from xmas_tui.ui.lines import text_strip as text_strip

# (named here too, for the screens: the collector's timing is ``memory``'s, which loads no Textual)
from xmas_tui.ui.memory import OLDER_EVERY as OLDER_EVERY
from xmas_tui.ui.memory import YOUNG_HELD as YOUNG_HELD
from xmas_tui.ui.memory import hold_collections as hold_collections
from xmas_tui.ui.memory import holding as holding
from xmas_tui.ui.memory import release_collections as release_collections
from xmas_tui.ui.memory import settle_memory as settle_memory
from xmas_tui.ui.memory import tidy_memory as tidy_memory
from xmas_tui.ui.quick import QuickLines, Unscrolled
from xmas_tui.ui.quick import ReusedLines as ReusedLines  # (named here too, for the boards)

#: what each widget was last given, by what it was given (content, title, subtitle, tip)
_shown: WeakKeyDictionary[Widget, dict[str, object]] = WeakKeyDictionary()
_NOTHING = object()


def same(a: object, b: object) -> bool:
    """Whether ``a`` and ``b`` draw alike: equal strings, or texts with the same words in the
    same styles. Anything else (a Rich table, say) is never taken to be the same."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, Text) and isinstance(b, Text):
        return text_key(a) == text_key(b)
    if isinstance(a, Content) and isinstance(b, Content):
        return a.plain == b.plain and list(a.spans) == list(b.spans)
    if isinstance(a, str | int | float | tuple):
        return a == b
    return False


def _changed(widget: Widget, what: str, value: object) -> bool:
    """Note that ``widget`` shows ``value`` as its ``what``; False if it showed it already."""
    shown = _shown.setdefault(widget, {})
    if same(shown.get(what, _NOTHING), value):
        return False
    shown[what] = value
    return True


def sized_by_content(widget: Widget) -> bool:
    """Whether ``widget``'s size follows what it shows (an ``auto`` height or width): a change
    of content may then move everything below or beside it."""
    styles = widget.styles
    height, width = styles.height, styles.width
    return height is None or height.is_auto or (width is not None and width.is_auto)


def show(widget: Static, content: Any) -> bool:
    """``widget`` shows ``content``: repainted only if that changes what it shows, and the
    screen laid out again only if its size changes with it (a widget whose height follows its
    lines, with a new line or one fewer). True if it was repainted. A string is shown as its
    words, never read as markup (it may hold a player's name)."""
    if isinstance(content, str):
        content = Text(content)
    if not _changed(widget, "content", content):
        return False
    if not sized_by_content(widget):
        widget.update(content, layout=False)
        return True
    size = widget.content_size
    width = widget.styles.width
    if not size.width or (width is not None and width.is_auto) or not widget.is_mounted:
        widget.update(content, layout=True)
        return True
    widget.update(content, layout=False)  # (as many lines as before: a layout would move nothing)
    if widget.get_content_height(size, size, size.width) != size.height:
        widget.refresh(layout=True)  # a line more or fewer: what is below it moves
    return True


def title(widget: Widget, text: str | None) -> None:
    """``widget``'s border title, set only when it changes (and only its border's top line
    repainted: not a box's every line, and every widget in it)."""
    if _changed(widget, "title", text):
        _set_label(widget, "border_title", text, top=True)


def subtitle(widget: Widget, text: str | None) -> None:
    """``widget``'s border subtitle, set only when it changes (its bottom line repainted)."""
    if _changed(widget, "subtitle", text):
        _set_label(widget, "border_subtitle", text, top=False)


def _set_label(widget: Widget, name: str, text: str | None, *, top: bool) -> None:
    """Set a border's label and repaint the line it is on (``quick.set_label``); a widget not
    laid out yet, or with no border there, or with the quick renderer off, is repainted whole.
    The label is its words, never read as markup (it may hold a player's name)."""
    label = None if text is None else Content(text)
    border = widget.styles.border_top if top else widget.styles.border_bottom
    if border[0] and widget.outer_size and quick.set_label(widget, label, top=top):
        widget.refresh(_edge_line(widget, top=top))
    else:
        setattr(widget, name, label)  # (Textual's own setter: a whole repaint)


def _edge_line(widget: Widget, *, top: bool) -> Region:
    """The top or bottom line of ``widget``'s border, to repaint it alone."""
    gutter = widget.styles.gutter
    return line_region(widget, -gutter.top if top else widget.outer_size.height - gutter.top - 1)


def tip(widget: Widget, text: str | None) -> None:
    """``widget``'s tooltip, set only when it changes: its words, never read as markup."""
    if _changed(widget, "tip", text):
        widget.tooltip = None if text is None else Text(text)


def wear_edge(widget: Widget, colour: str | None = None) -> None:
    """``widget``'s border (of the kind its stylesheet gives it) and its title in ``colour``,
    over its stylesheet's (None: the stylesheet's own), set only when it changes; only the
    border is repainted (a box that lights up on my turn, say): a class would match the whole
    stylesheet again, and repaint the box and every widget in it."""
    if not _changed(widget, "edge", colour):
        return
    styles = widget.styles
    for rule in _EDGES:
        kind, _ = styles.base.get_rule(rule) or ("", None)
        styles.set_rule(rule, None if colour is None or not kind else (kind, Color.parse(colour)))
    styles.set_rule("border_title_color", None if colour is None else Color.parse(colour))
    width, height = widget.outer_size
    if not widget.is_mounted or not width or not height:
        widget.refresh()
        return
    left, top = -styles.gutter.left, -styles.gutter.top
    widget.refresh(
        _edge_line(widget, top=True), _edge_line(widget, top=False),
        Region(left, top, 1, height), Region(left + width - 1, top, 1, height),
    )


_EDGES = ("border_top", "border_right", "border_bottom", "border_left")


def wear(widget: Widget, ground: str | None = None, ink: str | None = None, style: str | None = None) -> None:
    """``widget`` wears this ground, ink and text style over its stylesheet's (None: the
    stylesheet's own), set only when they change: a look that comes and goes every turn (the
    prompt on my turn) then costs its repaint, not the whole stylesheet matched again (1-2 ms
    a move, as a class)."""
    if _changed(widget, "worn", (ground, ink, style)):
        styles = widget.styles
        # (Textual's style setters take None to mean "the stylesheet's own"; their stubs say Color only)
        styles.background, styles.color, styles.text_style = ground, ink, style  # type: ignore[assignment]
        if ink is None:  # (the stylesheet's ink again, which may be the ground's contrast: "auto")
            styles.clear_rule("auto_color")
        else:
            styles.auto_color = False


class Panel(Vertical, QuickLines):
    """A column of widgets in a box (a border, a title): its own lines (the border's sides, the
    padding) are drawn by the quick renderer (``QuickLines``) when it lights up or its title changes."""


def line_region(widget: Widget, y: int) -> Region:
    """Content line ``y`` of ``widget`` from border to border, to repaint that line alone."""
    return Region(-widget.styles.gutter.left, y, widget.outer_size.width, 1)


def wrapped(widget: Widget, text: Text, width: int, *, overflow: str = "fold", no_wrap: bool = False) -> list[Text]:
    """``text`` as the lines it takes at ``width`` on ``widget``: wrapped where a word ends (a
    line broken there loses its trailing blanks, as in Textual), or cut if ``no_wrap``."""
    console = widget.app.console
    lines: list[Text] = []
    for paragraph in text.split("\n", allow_blank=True):
        # (Rich's wrap takes any of its overflow words; its stub names a narrower literal type)
        pieces = list(paragraph.wrap(console, width, overflow=overflow, no_wrap=no_wrap))  # type: ignore[arg-type]
        for piece in pieces[:-1]:
            piece.rstrip()
        lines += pieces
    return lines


def _drawn_by_rich(content: object) -> bool:
    """Whether ``Words`` draws ``content`` itself: a rich ``Text``, or a string with no markup."""
    return isinstance(content, Text) or (isinstance(content, str) and "[" not in content)


class Words(Static, Unscrolled, QuickLines):
    """A ``Static`` whose words (a rich ``Text``, or a string with no markup) are wrapped and
    drawn by Rich, as ``text_strip`` draws a line: the same cells as Textual draws, at a third
    of the cost, which a move pays for every line of the status, the prompt and a board that
    it changes. Anything else (markup, a ``Content``, a table; words aligned other than left or
    centre, and top) is drawn by Textual, as a ``Static`` is."""

    def __init__(self, content: Any = "", **static: Any) -> None:
        super().__init__(content, **static)
        self._drawn: tuple[tuple, list[Strip]] | None = None  # (what was drawn, its lines)
        self._as_text: tuple[object, Text] | None = None  # (a string's words, as a Text made once)
        self._wrapped: tuple[Text, tuple, list[Text]] | None = None  # (words, (width, how), their lines)

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        if _drawn_by_rich(content) and quick.hold_content(self, content):  # (Textual makes its visual only if it needs it)
            self.refresh(layout=layout)
        else:
            super().update(content, layout=layout)

    def _rich_text(self) -> Text | None:
        """The words as a rich ``Text``, if Rich draws them here (None: Textual does)."""
        content = self.content
        styles = self.styles
        if not _drawn_by_rich(content) or styles.text_align not in ("left", "start", "center"):
            return None
        if tuple(styles.content_align) != ("left", "top"):
            return None
        if isinstance(content, Text):
            return content
        if self._as_text is None or self._as_text[0] is not content:  # (one Text a string: the lines drawn are kept)
            self._as_text = (content, Text(content))
        return self._as_text[1]

    def _lines_at(self, text: Text, width: int) -> list[Text]:
        """``text`` wrapped at ``width``, once for the layout (its height) and the frame."""
        styles = self.styles
        overflow = styles.text_overflow if styles.text_overflow in ("fold", "ellipsis") else "crop"
        key = (width, overflow, styles.text_wrap)
        kept = self._wrapped
        if kept is None or kept[0] is not text or kept[1] != key:
            kept = self._wrapped = (text, key, wrapped(self, text, width, overflow=overflow, no_wrap=styles.text_wrap == "nowrap"))
        return kept[2]

    def _fitted(self, lines: list[Text], width: int) -> list[Text]:
        """Wrapped lines that the widget's height cuts short (a box of a fixed height) end in an
        ellipsis on its last line, as a line too long for its width does (``text-overflow:
        ellipsis``): the words are seen to go on, not cut off mid-sentence."""
        height = self.size.height
        if self.styles.text_overflow != "ellipsis" or self.styles.text_wrap == "nowrap" or not 0 < height < len(lines):
            return lines
        last = lines[height - 1].copy()
        for more in lines[height:]:  # (the words after it fill its row, cut where an ellipsis ends it)
            if last.cell_len > width:
                break
            last.append(" ")
            last.append_text(more)
        last.truncate(width, overflow="ellipsis")
        return [*lines[: height - 1], last]

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        text = self._rich_text()
        if text is None or not width:
            return super().get_content_height(container, viewport, width)
        return len(self._lines_at(text, width))

    def render_line(self, y: int) -> Strip:
        text = self._rich_text()
        if text is None:
            return super().render_line(y)
        width, style = self.size.width, self.visual_style
        key = (text, width, style, self.styles.text_wrap, self.styles.text_overflow, self.styles.text_align, self.size.height)
        drawn = self._drawn
        if drawn is None or drawn[0][0] is not text or drawn[0][1:] != key[1:]:
            lines = [text_strip(self, line, width, style) for line in self._fitted(self._lines_at(text, width), width)]
            if self.styles.text_align == "center":
                lines = [_centred(line, width, style.rich_style) for line in lines]
            drawn = self._drawn = (key, lines)
        lines = drawn[1]
        return lines[y] if y < len(lines) else Strip.blank(width, style.rich_style)


def _centred(line: Strip, width: int, ground: Any) -> Strip:
    """``line`` in the middle of ``width`` cells of ``ground``: half the room on its left, the
    rest on its right, as Textual centres words."""
    left = max(0, (width - line.cell_length) // 2)
    if left:
        line = Strip([Segment(" " * left, ground), *line])
    return line.adjust_cell_length(width, ground)
