"""A frame draws only the widgets it changes.

Textual repaints the parts of the screen that changed, but to do it, it renders every widget
inside the rectangle around all of them: a move that changes the status bar (the top line) and
the prompt (near the foot) renders every widget on the screen, each costing a few tenths of a
millisecond even when nothing of it changed. ``PartialCompositor`` renders only the widgets that
overlap a part that changed; the lines written to the terminal are the same (a widget that
overlaps no changed part writes nothing, in Textual as here).

Owns: ``PartialCompositor``. Must not touch: what is drawn, or when (Textual decides that).
Textual is pinned: this replaces ``Compositor.render_partial_update`` of its version.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip


class PartialCompositor(Compositor):
    """A screen's compositor whose partial updates render only the widgets they touch."""

    def __init__(self) -> None:
        super().__init__()
        self._touched: list[Region] | None = None

    def render_partial_update(self) -> ChopsUpdate | None:
        screen_region = self.size.region
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not update_regions:
            return None
        crop = Region.from_union(update_regions).intersection(screen_region)
        spans = list(self._regions_to_spans(update_regions))
        is_rendered_line = {y for y, _, _ in spans}.__contains__
        self._touched = list(update_regions)
        try:
            chops = self._render_chops(crop, is_rendered_line)
        finally:
            self._touched = None
        chop_ends = [cut_set[1:] for cut_set in self.cuts]
        return ChopsUpdate(chops, spans, chop_ends)

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        touched = self._touched
        if touched is None:
            yield from super()._get_renders(crop)
            return
        for widget, (region, clip) in self.visible_widgets.items():
            shown = region.intersection(clip)
            if not shown or not any(shown.overlaps(part) for part in touched):
                continue  # (none of its lines is written)
            x, y, width, height = shown
            yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))
