"""A frame draws only the widgets it changes, and writes only the cells that changed.

Textual repaints the parts of the screen that changed, but to do it, it renders every widget
inside the rectangle around all of them: a move that changes the status bar (the top line) and
the prompt (near the foot) renders every widget on the screen, each costing a few tenths of a
millisecond even when nothing of it changed. ``PartialCompositor`` renders only the lines of the widgets
that overlap a part that changed, and nothing behind a widget that covers all of it; the lines
written to the terminal are the same (a line of a widget that overlaps no changed part, or that
lies under another, writes nothing, in Textual as here).

While it knows what the terminal shows, it renders only the widgets that asked to be repainted
(and what lies inside them): a widget around or beside them that overlaps the part that changed
shows the same cells as before, which the terminal has already, so that part of it is left as it
is (the containers of a board, a box around a list whose line changed).

It also remembers what it last wrote to each part of each line, and leaves out of a frame the
lines whose parts would be written again the same: a widget repainted twice with the same
words (a dialog closed over the table repaints it whole, then the moves drawn under the dialog
arrive) costs the terminal nothing, and the key's repaint is over a frame sooner.

Owns: ``PartialCompositor``. Must not touch: what is drawn, or when (Textual decides that).
Textual is pinned: this replaces ``Compositor.render_partial_update`` of its version.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate, ReflowResult
from textual._context import visible_screen_stack
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

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
