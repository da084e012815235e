"""The notice over every screen while the terminal is too small for them.

Owns: ``MIN_SIZE`` (the smallest terminal every screen fits) and ``TooSmallScreen`` (the
request to enlarge the terminal). The app checks the size at every start and resize, so this
loads with the lobby; the other dialogs (``dialogs``, which names these too) load when one
is first opened. Must not touch: a table, an engine's state, the screens under it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

#: the smallest terminal every screen fits (columns, lines)
MIN_SIZE = (80, 24)


class TooSmallScreen(ModalScreen[None]):
    """Over everything while the terminal is smaller than 80×24: a clear request to enlarge it,
    instead of clipped boards. It goes by itself once the terminal is big enough."""

    BINDINGS = [Binding("ctrl+q", "app.quit", "Quit", key_display="^q", id="small.quit")]

    def compose(self) -> ComposeResult:
        yield Static(id="too-small")

    def on_mount(self) -> None:
        self.show_size()

    def on_resize(self) -> None:
        self.show_size()

    def show_size(self) -> None:
        width, height = self.app.size
        need_w, need_h = MIN_SIZE
        self.query_one("#too-small", Static).update(
            f"Please make this terminal larger.\n\nxmas-tui needs {need_w}×{need_h}; this one is "
            f"{width}×{height}.\n\nEverything comes back as it was once there is room."
        )
