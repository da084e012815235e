"""The party screen (issue 18): themes, the big-screen view, any terminal size, and the
play-test findings, each driven through Textual's Pilot as a guest at the party would."""

from __future__ import annotations

from rich.text import Text

from xmas_tui.games import get_game
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.screens.network import JoinScreen, watching_line
from xmas_tui.ui.screens.table import PlayersPanel, TableScreen
from xmas_tui.ui.screens.watch import WatchScreen
from xmas_tui.ui.theme import INKS, THEMES, remembered_theme

from .netkit import free_port, loopback_host
from .uikit import table_at, wait_for

CHIP = get_game("chip-n-dale")


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


# ---------------------------------------------------------------- the big screen

async def test_the_big_screen_watches_a_table_in_play_and_the_host_lists_it(monkeypatch) -> None:
    """`xmas-tui watch --address … --code …`: a spectator's place, the public table large,
    labelled Watching, with the join code for latecomers; the host's screen lists it."""
    host = loopback_host(CHIP, 3, code="STAR-2345")
    await host.open()
    host.start()  # bots take the open seats
    app = XmasApp(join=dict(code="star-2345", name="Big screen", address=host.address, watch=True))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen))
            screen = app.screen
            assert screen.snapshot.seat is None and not screen.snapshot.legal
            banner = str(screen.query_one("#watch-banner").render())
            assert "WATCHING" in banner and "STAR-2345" in banner and f":{host.address[1]}" in banner
            assert screen.query_one("#watch-code").display  # room for the code in big letters
            assert host.spectators() == ["Big screen"]
            assert watching_line(host.spectators()) == "Watching: Big screen"
            assert all(face is None for _, face in screen.snapshot.view.cards("deck"))  # the public view
    finally:
        await host.close()


async def test_a_latecomer_at_a_full_table_in_play_is_told_they_are_watching() -> None:
    host = loopback_host(CHIP, 2, code="STAR-2345")
    await host.open()
    host.start()
    app = XmasApp(join=dict(code="STAR-2345", name="Late Larry", address=host.address))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, WatchScreen))
            assert app.screen.watching.latecomer
            await wait_for(pilot, lambda: any("you are watching" in n.message for n in app._notifications))
            assert "WATCHING" in str(app.screen.query_one("#watch-banner").render())
    finally:
        await host.close()


async def test_join_with_only_a_code_joins_the_one_table_heard_at_once(monkeypatch) -> None:
    """`xmas-tui join --code CODE` with exactly one table on the LAN sits down, as --address does."""
    discovery = ("127.0.0.1", free_port())
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"{discovery[0]}:{discovery[1]}")
    host = loopback_host(CHIP, 3, code="STAR-2345", discovery=discovery)
    await host.open()
    app = XmasApp(join=dict(code="STAR-2345", name="Bob"))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: any(r.name == "Bob" for r in host.roster()), 15)
            assert isinstance(app.screen, JoinScreen) and app.screen.joined is not None
    finally:
        await host.close()
