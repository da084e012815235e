"""The bar of keys at the foot of every screen: what each key does now.

Textual's ``Footer`` mounts a widget per key and builds them all again whenever the keys
change, a frame after the change; the game's keys change with every turn (they are shown
only while they do something). ``KeyBar`` is one line of text instead, written in the same
frame as the move that changed the keys, and repainted only if it reads differently; it
looks like the compact ``Footer`` (the same theme colours), and a click on a key presses it.

Owns: ``KeyBar``. Must not touch: what a key does, or when (the screens' bindings and their
``check_action`` decide that).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.content import Content
from textual.events import Click, MouseMove
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from .lines import LineStrips


@dataclass(frozen=True)
class ShownKey:
    """A key in the bar: what it shows, the key it presses, and where it is drawn."""

    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str
    start: int = 0
    end: int = 0


class KeyBar(Widget, can_focus=False):
    """The keys that do something now, and the command palette's key at the right."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        text-wrap: nowrap;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._keys: tuple[ShownKey, ...] = ()
        self._palette: ShownKey | None = None
        self._line = Content()
        self._strips = LineStrips()  # (the line of each turn drawn once: turns alternate)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        keys: list[ShownKey] = []
        palette: ShownKey | None = None
        seen: set[str] = set()
        app = self.app
        for pressed, active in screen.active_bindings.items():
            binding = active.binding
            shown = ShownKey(binding.key, app.get_key_display(binding), binding.description,
                             active.enabled, active.tooltip or binding.description)
            if app.ENABLE_COMMAND_PALETTE and pressed == app.COMMAND_PALETTE_BINDING:
                palette = shown
            elif binding.show and binding.action not in seen:  # one key an action, as Footer
                seen.add(binding.action)
                keys.append(shown)
        self._lay_out(keys, palette)

    def _lay_out(self, keys: list[ShownKey], palette: ShownKey | None) -> None:
        """Where each key goes on the line, and the line itself (repainted only if it reads
        differently)."""
        parts: list[Content] = []
        placed: list[ShownKey] = []
        at = 0
        for key in keys:
            label = self._label(key)
            placed.append(replace(key, start=at, end=at + label.cell_length))
            parts += [label, Content(" ")]
            at += label.cell_length + 1
        self._keys = tuple(placed)
        self._palette = palette
        line = Content("").join(parts)
        if line.plain != self._line.plain or list(line.spans) != list(self._line.spans):
            self._line = line
            self.refresh()

    @staticmethod
    def _label(key: ShownKey) -> Content:
        dim = "" if key.enabled else " dim"
        label = Content.styled(key.display, f"bold $footer-key-foreground on $footer-key-background{dim}")
        if key.description:
            label += Content.styled(f" {key.description}",
                                    f"$footer-description-foreground on $footer-description-background{dim}")
        return label

    def render(self) -> Content:
        line = self._line
        palette = self._palette
        if palette is None:
            return line
        right = Content.styled("▏", "$foreground 20%") + self._label(palette) + Content(" ")
        room = self.size.width - line.cell_length - right.cell_length
        return line + Content(" " * max(0, room)) + right if room >= 1 else line

    def render_line(self, y: int) -> Strip:
        if y:
            return Strip.blank(self.size.width, self.visual_style.rich_style)
        return self._strips.strip(self, self.render(), 1)

    # ------------------------------------------------------------ the mouse
    def _key_at(self, x: int) -> ShownKey | None:
        for key in self._keys:
            if key.start <= x < key.end:
                return key
        palette = self._palette
        if palette is not None and x >= self.size.width - 1 - self._label(palette).cell_length:
            return palette
        return None

    def on_click(self, event: Click) -> None:
        key = self._key_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: MouseMove) -> None:
        from . import paint  # (with the first table, or here: the lobby draws its line without it)

        key = self._key_at(event.x)
        paint.tip(self, key.tooltip if key is not None else None)
