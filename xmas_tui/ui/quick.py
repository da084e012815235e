"""The quick renderer: the one module that reaches into Textual's private parts, and only on
the Textual versions it was checked against.

Textual repaints the parts of the screen that changed, but to do it, it renders every widget
inside the rectangle around all of them: a move that changes the status bar (the top line) and
the prompt (near the foot) renders every widget on the screen, each costing a few tenths of a
millisecond even when nothing of it changed. ``PartialCompositor`` renders only the lines of the
widgets that overlap a part that changed, and nothing behind a widget that covers all of it; the
lines written to the terminal are the same (a line of a widget that overlaps no changed part, or
that lies under another, writes nothing, in Textual as here).

While it knows what the terminal shows, it renders only the widgets that asked to be repainted
(and what lies inside them): a widget around or beside them that overlaps the part that changed
shows the same cells as before, which the terminal has already, so that part of it is left as it
is (the containers of a board, a box around a list whose line changed).

It also remembers what it last wrote to each part of each line, and leaves out of a frame the
lines whose parts would be written again the same: a widget repainted twice with the same words
(a dialog closed over the table repaints it whole, then the moves drawn under the dialog arrive)
costs the terminal nothing, and the key's repaint is over a frame sooner.

A box's lines of words are put between its border and padding with the pieces made once a render
(``QuickLines``), a line of a log that moves is not drawn again (``ReusedLines``), a widget that
never scrolls is not laid out twice when it is resized (``Unscrolled``), a border's title repaints
its line only (``set_label``), and words that Rich draws are not made into Textual's visual too
(``hold_content``).

Every piece draws what stock Textual draws, cell for cell (``tests/test_ui_repaint.py`` compares
them in a terminal emulator). Whether it is on is decided once, at import (``ON``): only on a
Textual version in ``CHECKED``, and never with ``XMAS_TUI_STOCK_RENDER=1`` set. Off, nothing
here touches Textual's private parts, and every screen is stock Textual's: the same, slower.

Owns: ``ON`` and ``WHY`` (whether the quick renderer is on, and why: ``decide``, ``CHECKED``,
``textual_version``), ``PartialCompositor`` with ``install`` and ``forget`` (a screen's frames),
the quick styles caches behind ``QuickLines`` and ``ReusedLines``, ``Unscrolled``,
``set_label``, ``hold_content``, and what checks them against stock Textual (``frames``,
``stock_frame``, ``stock_lines``, ``draws_quick_lines``). Must not touch: what is drawn, or when (Textual and the
screens decide that). No other module may name a private part of Textual
(``tests/test_layers.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import textual
from rich.segment import Segment
from textual.content import Content
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style as TextualStyle
from textual.widget import Widget

#: the Textual versions whose private parts the quick renderer was checked against
CHECKED = frozenset({"8.2.8"})
#: set to 1, the quick renderer is off whatever the version (stock Textual draws everything)
STOCK_RENDER = "XMAS_TUI_STOCK_RENDER"


def decide(installed: str, environ: Mapping[str, str]) -> tuple[bool, str]:
    """Whether the quick renderer is on for this Textual version and environment, and why."""
    if environ.get(STOCK_RENDER, "").strip() not in ("", "0"):
        return False, f"stock Textual {installed} ({STOCK_RENDER} is set)"
    if installed not in CHECKED:
        checked = ", ".join(sorted(CHECKED))
        return False, f"stock Textual {installed} (the quick renderer was checked against {checked} only)"
    return True, f"quick renderer on Textual {installed}"


def textual_version() -> str:
    """The installed Textual's version: from the name of its ``dist-info`` folder beside it, as
    an installer leaves it (``importlib.metadata`` would add tens of milliseconds to the start),
    else from ``importlib.metadata``."""
    site = os.path.dirname(os.path.dirname(os.path.abspath(textual.__file__)))
    try:
        infos = [name for name in os.listdir(site) if name.startswith("textual-") and name.endswith(".dist-info")]
    except OSError:
        infos = []
    if len(infos) == 1:
        return infos[0].removeprefix("textual-").removesuffix(".dist-info")
    from importlib.metadata import version

    return version("textual")


ON, WHY = decide(textual_version(), os.environ)

if ON or TYPE_CHECKING:
    from textual._border import get_box
    from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate, ReflowResult
    from textual._context import visible_screen_stack
    from textual._segment_tools import make_blank
    from textual._styles_cache import StylesCache
else:  # (stock Textual: nothing private is imported, and the classes made from these are never used)
    Compositor = StylesCache = object

Chops = list[dict[int, Strip | None]]
#: a part of a line that a widget in front holds, left as the terminal shows it
_KEPT = Strip([])


class PartialCompositor(Compositor):
    """A screen's compositor whose partial updates render only the widgets they touch."""

    def __init__(self) -> None:
        super().__init__()
        self._touched: list[Region] | None = None
        #: what the terminal shows, by line and cut (as last written), and the cuts it was cut at
        self._written: Chops | None = None
        self._written_cuts: list[list[int]] | None = None
        #: the widgets that asked to be repainted since the last frame, and the parts they made dirty
        self._repainted: set[Widget] = set()
        self._repainted_parts: set[Region] = set()
        #: while a frame is rendered: whether a widget is drawn again (None: every one is)
        self._drawn_again: dict[Widget, bool] | None = None

    def forget(self) -> None:
        """Another screen is drawn over this one: what the terminal shows is not known any more
        (the next frame is drawn whole). A screen calls it when it is suspended."""
        self._written = self._written_cuts = None

    def update_widgets(self, widgets: set[Widget]) -> None:
        before = self._dirty_regions.copy()
        super().update_widgets(widgets)
        self._repainted |= widgets
        self._repainted_parts |= self._dirty_regions - before

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        self._repainted_parts.clear()  # (a part a layout made dirty is drawn whole)
        return super().reflow(parent, size)

    def reflow_visible(self, parent: Widget, size: Size) -> set[Widget]:
        self._repainted_parts.clear()  # (nor one a scroll did)
        return super().reflow_visible(parent, size)

    def _knows_the_rest(self, update_regions: set[Region]) -> bool:
        """Whether every cell of this frame that no repainted widget draws is on the terminal
        already: every dirty part was made dirty by a widget asking to be repainted, none by a
        layout that moved something (the terminal shows the rest as it is composed, as Textual
        keeps it: each frame writes every dirty part)."""
        return update_regions <= self._repainted_parts

    def _draws_again(self, widget: Widget) -> bool:
        """Whether ``widget`` or a widget it lies in asked to be repainted (a repainted
        container repaints what is inside it: the screen, when the whole of it is repainted)."""
        drawn = self._drawn_again
        if drawn is None:
            return True
        again = drawn.get(widget)
        if again is None:
            parent = widget.parent
            again = widget in self._repainted or (isinstance(parent, Widget) and self._draws_again(parent))
            drawn[widget] = again
        return again

    def render_update(self, full: bool = False, screen_stack: list | None = None, simplify: bool = False) -> object:
        if (
            not full and not simplify and self._written is not None and self._written_cuts is self.cuts
            and self.size.region in self._dirty_regions
        ):  # the whole screen is to be repainted, as the terminal shows it: only what changed is written
            visible_screen_stack.set([] if screen_stack is None else screen_stack)
            return self.render_partial_update()
        return super().render_update(full, screen_stack, simplify)

    def render_full_update(self, simplify: bool = False) -> LayoutUpdate:
        screen_region = self.size.region
        self._dirty_regions.clear()
        self._repainted.clear()
        self._repainted_parts.clear()
        chops = self._render_chops(screen_region, lambda y: True)
        if simplify:  # (a screenshot: nothing is written)
            return LayoutUpdate([[Strip.join(line.values()).simplify().discard_meta()] for line in chops], screen_region)
        self._written, self._written_cuts = [dict(line) for line in chops], self.cuts
        # (a line's strips in order, as Textual's own compositor hands them: its stub wants a list)
        return LayoutUpdate([line.values() for line in chops], screen_region)  # type: ignore[misc]

    def _unwritten(self, spans: list[tuple[int, int, int]], chops: Chops) -> list[tuple[int, int, int]]:
        """The spans that would write something the terminal does not show already."""
        written, cuts = self._written, self.cuts
        if written is None:
            return spans
        if self._written_cuts is not cuts:  # laid out anew: a part cut where it was is known still
            written = self._written = _recut(written, self._written_cuts, cuts)
            self._written_cuts = cuts
        new = []
        for y, x1, x2 in spans:
            was, line_cuts, same = written[y], cuts[y], True
            for index, (x, strip) in enumerate(chops[y].items()):
                end = line_cuts[index + 1]
                if strip is None or x >= x2 or end <= x1:
                    continue
                if x1 <= x and end <= x2:  # written whole
                    if was.get(x) != strip:
                        was[x], same = strip, False
                else:  # written in part: what the terminal shows there is not known as a whole
                    was[x], same = None, False
            if not same:
                new.append((y, x1, x2))
        return new

    def render_partial_update(self) -> ChopsUpdate | None:
        screen_region = self.size.region
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        knows_the_rest = self._knows_the_rest(update_regions)
        self._repainted_parts.clear()
        if not update_regions:
            self._repainted.clear()
            return None
        crop = Region.from_union(update_regions).intersection(screen_region)
        spans = list(self._regions_to_spans(update_regions))
        is_rendered_line = {y for y, _, _ in spans}.__contains__
        self._touched = list(update_regions)
        self._drawn_again = {} if knows_the_rest else None
        try:
            chops = self._render_chops(crop, is_rendered_line)
        finally:
            self._touched = self._drawn_again = None
            self._repainted.clear()
        spans = self._unwritten(spans, chops)
        if not spans:
            return None  # (all of it is on the terminal already)
        chop_ends = [cut_set[1:] for cut_set in self.cuts]
        return ChopsUpdate(chops, spans, chop_ends)

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        """Each widget's lines to write, front to back; none behind a widget that covers all of
        them (a board's dialog over the whole table), which would be rendered for nothing."""
        touched = self._touched
        if touched is None:  # (a whole frame)
            whole = crop or self.size.region
            for widget, (region, clip) in self.visible_widgets.items():
                shown = region.intersection(clip)
                if not shown or not whole.overlaps(shown):
                    continue
                x, y, width, height = shown
                yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))
                if shown.contains_region(whole):
                    return
            return
        for widget, (region, clip) in self.visible_widgets.items():
            shown = region.intersection(clip)
            if not shown:
                continue
            x, top, width, height = shown
            bottom = top + height
            rows = set()  # (the lines of it that are written: the rest would be rendered for nothing)
            for part in touched:
                if shown.overlaps(part):
                    rows.update(range(max(top, part.y), min(bottom, part.bottom)))
            again = self._draws_again(widget)
            for first, end in _runs(rows):
                lines = Region(x, first, width, end - first)
                if again:
                    yield region, lines, widget.render_lines(Region(x - region.x, first - region.y, width, end - first))
                else:  # (the same as the terminal shows: it holds its parts, for nothing behind it to fill)
                    yield region, lines, None
            if all(shown.contains_region(part) for part in touched):
                return

    def _render_chops(self, crop: Region, is_rendered_line: Callable[[int], bool]) -> Chops:
        """Textual's chops (each line's parts, each from the front-most widget there), where a
        widget that yields no lines (None) holds its parts and leaves them unwritten."""
        cuts = self.cuts
        chops: Chops = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        kept = False
        for region, clip, strips in self._get_renders(crop):
            render_region = region.intersection(clip)
            render_x = render_region.x
            first_cut, last_cut = render_region.column_span
            for y in render_region.line_range:
                if not is_rendered_line(y):
                    continue
                line = chops[y]
                final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                if strips is None:
                    kept = True
                    for cut in final_cuts[:-1]:
                        if line.get(cut) is None:
                            line[cut] = _KEPT
                    continue
                strip = strips[y - render_region.y]
                for cut, part in zip(final_cuts, strip.divide([cut - render_x for cut in final_cuts[1:]]), strict=False):
                    if line.get(cut) is None:
                        line[cut] = part
        if kept:
            for line in chops:
                for x, part in line.items():
                    if part is _KEPT:
                        line[x] = None  # (the terminal shows it)
        return chops


def _recut(written: Chops, old_cuts: list[list[int]] | None, cuts: list[list[int]]) -> Chops:
    """What the terminal shows, by the new ``cuts`` of each line: each part that lies between
    the same two cuts as before (what lies elsewhere is not known as a whole)."""
    if old_cuts is None or len(old_cuts) != len(cuts):
        return [{} for _ in cuts]
    recut: Chops = []
    for was, old, new in zip(written, old_cuts, cuts, strict=True):
        if old == new:
            recut.append(was)
            continue
        old_ends = dict(zip(old, old[1:], strict=False))
        new_ends = zip(new, new[1:], strict=False)
        recut.append({x: was.get(x) for x, end in new_ends if old_ends.get(x) == end and was.get(x) is not None})
    return recut


def _runs(rows: set[int]) -> Iterable[tuple[int, int]]:
    """The runs of consecutive numbers in ``rows``, as (first, end) pairs, in order."""
    start = end = None
    for row in sorted(rows):
        if row == end:
            end += 1
            continue
        if start is not None:
            yield start, end
        start, end = row, row + 1
    if start is not None:
        yield start, end


def install(screen: Screen) -> None:
    """``screen`` draws its frames with a ``PartialCompositor`` (a move renders only the widgets
    it changed); off, with Textual's own. Called as the screen is made, before it is composed."""
    if ON:
        screen._compositor = PartialCompositor()


def forget(screen: Screen) -> None:
    """Another screen is drawn over ``screen``: its next frame is drawn whole (see
    ``PartialCompositor.forget``). Nothing to do with Textual's own compositor."""
    compositor = frames(screen)
    if compositor is not None:
        compositor.forget()


def frames(screen: Screen) -> PartialCompositor | None:
    """The ``PartialCompositor`` that draws ``screen``'s frames, if ``install`` gave it one."""
    compositor = screen._compositor if ON else None
    return compositor if isinstance(compositor, PartialCompositor) else None


class _QuickStylesCache(StylesCache):
    """A widget's styles cache that puts a line of words between its border and padding as
    Textual does, with the border's and the padding's pieces made once a render, not once a
    line (Textual looks up a line's every style again: three quarters of the cost of a line of
    words). Anything it does not cover (an outline, a hatch, a tint, an opacity) and the lines
    of the border and padding themselves are drawn by Textual."""

    def __init__(self) -> None:
        super().__init__()
        #: while a render lasts: (the gutter, the pieces left and right of a line of words, their
        #: ground), or False if Textual draws every line; None until its first line
        self._frame: tuple[Any, tuple[Segment, ...], tuple[Segment, ...], Any] | bool | None = None

    def render(self, *args: Any, **kwargs: Any) -> list[Strip]:
        self._frame = None  # (its styles, its size or the colours under it may have changed)
        return super().render(*args, **kwargs)

    def _frame_of(self, styles: Any, padding: Any, base_background: Any, background: Any, opacity: float) -> Any:
        """The gutter, the pieces left and right of each line of words, and the ground of the
        words; False if Textual has to draw them."""
        if opacity != 1.0 or styles.text_opacity != 1.0 or styles.tint.a or any(edge for edge, _ in styles.outline):
            return False
        if styles.has_rule("hatch") and styles.hatch != "none":
            return False
        inner, outer = self.get_inner_outer(base_background, background)
        ground = inner.rich_style
        _, (right_edge, right_colour), _, (left_edge, left_colour) = styles.border
        _, pad_right, _, pad_left = padding
        left: list[Segment] = []
        right: list[Segment] = []
        if left_edge:
            left.append(get_box(left_edge, inner, outer, TextualStyle(foreground=base_background + left_colour))[1][0])
        if pad_left:
            left.append(make_blank(pad_left, ground))
        if pad_right:
            right.append(make_blank(pad_right, ground))
        if right_edge:
            right.append(get_box(right_edge, inner, outer, TextualStyle(foreground=base_background + right_colour))[1][2])
        return styles.gutter, tuple(left), tuple(right), ground

    def _frame_for(self, styles: Any, padding: Any, rest: tuple) -> Any:
        """This render's frame (``_frame_of``), made at its first line."""
        frame = self._frame
        if frame is None:
            base_background, background, _, _, _, opacity, *_ = rest
            frame = self._frame = self._frame_of(styles, padding, base_background, background, opacity)
        return frame

    def render_line(self, styles: Any, y: int, size: Any, content_size: Any, padding: Any, *rest: Any) -> Strip:
        frame = self._frame_for(styles, padding, rest)
        if frame is False:
            return super().render_line(styles, y, size, content_size, padding, *rest)
        gutter, left, right, ground = frame  # type: ignore[misc]  # (not False: a frame of four)
        top = gutter.top
        if not top <= y < size.height - gutter.bottom:  # (a line of the border or the padding)
            return super().render_line(styles, y, size, content_size, padding, *rest)
        content_width, content_height = content_size
        if y - top < content_height:
            words = rest[2](y - top).adjust_cell_length(content_width, ground)
        else:
            words = Strip.blank(content_width, ground)
        return Strip([*left, *words, *right], size.width)


class QuickLines(Widget):
    """A widget whose lines of words are put in their border and padding by ``_QuickStylesCache``
    (off: by Textual). Name it after the widget's own class, as ``Unscrolled``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if ON and type(self._styles_cache) is StylesCache:
            self._styles_cache = _QuickStylesCache()


class _ReusingStylesCache(_QuickStylesCache):
    """A widget's styles cache (its lines with their border and padding) that draws a line of
    words it drew before, at another height, as it drew it then: a content line is its words'
    strip between the same left and right edges wherever it lies. Anything else that changes
    a line (its style, its size) repaints the whole widget, which empties this cache."""

    def __init__(self) -> None:
        super().__init__()
        self._made: dict[int, tuple[Strip, Strip]] = {}  # id of a words' strip -> (it, the line drawn)

    def clear(self) -> None:
        super().clear()
        self._made = {}

    def render_line(self, styles: Any, y: int, size: Any, content_size: Any, padding: Any, *rest: Any) -> Strip:
        frame = self._frame_for(styles, padding, rest)
        top = frame[0].top if frame else styles.gutter.top  # type: ignore[index]  # (a frame of four)
        if not top <= y < top + content_size.height:  # (a border or padding line)
            return super().render_line(styles, y, size, content_size, padding, *rest)
        base_background, background, render_content_line, *others = rest
        words = render_content_line(y - top)
        made = self._made.get(id(words))
        if made is not None and made[0] is words:
            return made[1]
        line = super().render_line(styles, y, size, content_size, padding, base_background, background, lambda _: words, *others)
        if len(self._made) > 4 * content_size.height + 64:
            self._made = {}  # (the lines no longer shown are let go)
        self._made[id(words)] = (words, line)
        return line


class ReusedLines(Widget):
    """A widget whose lines of words move (a log that scrolls up a line a move): a line drawn
    once is drawn again where it moves to at no cost (``_ReusingStylesCache``; off, Textual
    draws it again), if the widget gives the same strip for the same words and repaints its
    content region, not itself, when its words change (``refresh_words``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if ON:
            self._styles_cache = _ReusingStylesCache()

    def refresh_words(self) -> None:
        """Repaint every line of words (not the border, nor the padding)."""
        width, height = self.size
        if width and height:
            self.refresh(Region(0, 0, width, height))
        else:
            self.refresh()


class Unscrolled(Widget):
    """A widget that never scrolls, whose size a move may change (the players panel grows, the
    log under it shrinks): the frame of that layout paints it at its new size, and that is all.
    Textual would also set its virtual size there and, as for a scrolling widget, ask for a
    second layout that paints it again, the same, a frame later; a widget that does not scroll
    never reads its virtual size, so it is set quietly (off: Textual lays it out twice).

    Name it after the widget's own class (``class Words(Static, Unscrolled)``): Textual styles
    a widget as its first base, so first it would lose that class's rules (``Static``'s)."""

    if ON:

        def _size_updated(self, size: Any, virtual_size: Any, container_size: Any, layout: bool = True) -> bool:
            return super()._size_updated(size, virtual_size, container_size, layout=False)


def set_label(widget: Widget, text: str | Content | None, *, top: bool) -> bool:
    """Set ``widget``'s border title (``top``) or subtitle as Textual's ``border_title`` does,
    without repainting the widget: the caller repaints the line it is on. False if it was not
    set (off: the caller sets it as Textual does, a whole repaint)."""
    if not ON:
        return False
    label = None if text is None else widget.render_str(text).expand_tabs(4).split()[0]
    if top:
        widget._border_title = label
    else:
        widget._border_subtitle = label
    return True


def hold_content(static: Widget, content: object) -> bool:
    """``static`` (a ``Static`` whose ``render_line`` draws its words itself) holds ``content``
    without Textual making its visual of it (a visual is made only if Textual asks for it); the
    caller repaints it. False if it was not set (off: the caller updates it as Textual does)."""
    if not ON:
        return False
    # (Static's private fields, the one place they are named: checked against the Textual versions listed)
    static._Static__content = content  # type: ignore[attr-defined]
    static._Static__visual = None  # type: ignore[attr-defined]
    return True


# What checks the quick renderer against stock Textual (tests/test_ui_repaint.py)


def stock_frame(compositor: PartialCompositor) -> LayoutUpdate:
    """The whole screen as stock Textual draws it afresh: every widget's lines rendered again
    (none taken from what its styles cache kept), by Textual's own ``Compositor``."""
    for widget in compositor.visible_widgets:
        widget._styles_cache.clear()
    return Compositor.render_full_update(compositor)


def stock_lines(widget: Widget, crop: Region) -> list[Strip]:
    """``widget``'s lines in ``crop`` as Textual's own styles cache draws them."""
    quick = widget._styles_cache
    widget._styles_cache = StylesCache()
    try:
        return widget.render_lines(crop)
    finally:
        widget._styles_cache = quick


def draws_quick_lines(widget: Widget) -> bool:
    """Whether ``widget``'s lines are put in their border and padding by the quick styles cache."""
    return ON and isinstance(widget._styles_cache, _QuickStylesCache)


def screen_strips(screen: Screen) -> list[Strip]:
    """What ``screen`` shows now, a strip a line, as its compositor would draw it whole (to
    read the screen's characters back in a test, with the quick renderer on or off)."""
    return list(screen._compositor.render_full_update().strips)
