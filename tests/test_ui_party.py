"""The party screen (issue 18): themes, the big-screen view, any terminal size, and the
play-test findings, each driven through Textual's Pilot as a guest at the party would."""

from __future__ import annotations

from rich.text import Text

from xmas_tui.games import get_game
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.screens.table import PlayersPanel, TableScreen
from xmas_tui.ui.theme import INKS, THEMES, remembered_theme

from .uikit import table_at, wait_for


def colours_in(widget) -> set[str]:
    """Every colour a widget's text is drawn in (as ``#rrggbb``)."""
    text = widget.content
    assert isinstance(text, Text)
    found = set()
    for span in text.spans:
        style = span.style
        colour = getattr(style, "color", None) if not isinstance(style, str) else None
        if colour is not None and colour.triplet is not None:
            found.add(colour.triplet.hex)
        if isinstance(style, str):
            found.update(word for word in style.split() if word.startswith("#"))
    return found


def test_every_theme_has_every_ink_and_the_three_are_apart() -> None:
    """A board asks for an ink by name: each theme must have each one, and the light theme
    must not draw words in the dark theme's pale colours (unreadable on a light ground)."""
    dark, light, projector = (theme.variables for theme in THEMES)
    for theme in THEMES:
        assert set(INKS) <= set(theme.variables), theme.name
    for word in ("gold", "leaf", "ember", "berry", "cream", "white", "yellow"):
        assert dark[word] != light[word], word
    assert projector["felt"] == "#000000" and projector["gold"] == "#ffff00"


async def test_a_board_redraws_in_the_light_theme_and_the_choice_is_remembered() -> None:
    """Under a light theme names, counts and hands were dark grey on dark green. Now the
    players panel takes the theme's inks, a change of theme redraws it at once, and the
    next start opens in the theme chosen last."""
    table = table_at(get_game("chip-n-dale"), 3, 7, lambda s: s.my_turn)
    app = XmasApp(table=table, theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        panel = app.screen.query_one(PlayersPanel)
        assert INKS["gold"][0] in colours_in(panel)
        app.theme = "xmas-light"
        await wait_for(pilot, lambda: INKS["gold"][1] in colours_in(panel))
        assert INKS["gold"][0] not in colours_in(panel)
        assert app.screen.styles.background.hex.lower() == INKS["felt"][1]
    assert remembered_theme() == "xmas-light"
    again = XmasApp(table=table_at(get_game("chip-n-dale"), 3, 7, lambda s: s.my_turn))
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        assert again.theme == "xmas-light"


async def test_the_command_palette_offers_the_three_themes() -> None:
    app = XmasApp(theme="projector")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        assert app.theme == "xmas-projector"
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert {"Theme: dark", "Theme: light", "Theme: projector"} <= set(titles)
        light = next(c for c in app.get_system_commands(app.screen) if c.title == "Theme: light")
        light.callback()
        await pilot.pause(0.1)
        assert app.theme == "xmas-light"
