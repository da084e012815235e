"""The party screen (issue 18): themes, the big-screen view, any terminal size, and the
play-test findings, each driven through Textual's Pilot as a guest at the party would."""

from __future__ import annotations

import re

import pytest
from rich.color import Color, ColorSystem
from textual.color import Color as TextualColor

from xmas_tui.games import get_game
from xmas_tui.tables.local import LocalTable
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.boards.christmas_carol import turn_ended_by_scrooge
from xmas_tui.ui.screens.dialogs import ConfirmScreen, EndScreen, TooSmallScreen
from xmas_tui.ui.screens.lobby import GameConfig, LobbyScreen
from xmas_tui.ui.screens.network import HostScreen, JoinScreen, watching_line
from xmas_tui.ui.screens.table import TableScreen
from xmas_tui.ui.screens.watch import WatchScreen
from xmas_tui.ui.theme import INKS, THEMES, remembered_theme

from .netkit import free_port, joiner, loopback_host, until
from .uikit import bob_joins, catch_notes, table_at, wait_for

CHIP = get_game("chip-n-dale")


def drawn_in(app: XmasApp, colour: str) -> bool:
    """Whether anything on the screen is drawn in ``colour`` (as the terminal would show it)."""
    return colour.lower() in app.export_screenshot().lower()


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
        assert drawn_in(app, INKS["gold"][0]) and not drawn_in(app, INKS["gold"][1])
        app.theme = "xmas-light"
        await wait_for(pilot, lambda: drawn_in(app, INKS["gold"][1]))
        assert not drawn_in(app, INKS["gold"][0])
        assert app.screen.styles.background.hex.lower() == INKS["felt"][1]
    assert remembered_theme() == "xmas-light"
    again = XmasApp(table=table_at(get_game("chip-n-dale"), 3, 7, lambda s: s.my_turn))
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        assert again.theme == "xmas-light"


@pytest.mark.parametrize("word", ["dark", "light", "projector"])
async def test_an_app_opened_in_a_theme_draws_as_one_changed_to_it(word: str) -> None:
    """The app opens in its theme before anything is styled (its stylesheet parsed once, in
    its colours), doing itself what Textual does on a change of theme: its lobby is drawn
    exactly as that of an app opened in another theme and changed to this one on mount, as
    Textual changes it (the screenshots' way), with the same classes; and the theme opened
    with is remembered."""
    from xmas_tui.ui.theme import THEME_NAMES

    pictures, classes = [], []
    for app in (XmasApp(theme=word), XmasApp(theme="dark" if word != "dark" else "light")):
        app.chosen_theme = THEME_NAMES[word]  # (the second changes on mount)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda app=app: isinstance(app.screen, LobbyScreen))
            await pilot.pause(0.1)
            assert app.theme == THEME_NAMES[word]
            pictures.append(app.export_screenshot())
            classes.append(sorted(app.classes))
        assert remembered_theme() == THEME_NAMES[word]
    assert classes[0] == classes[1]
    assert pictures[0] == pictures[1]


async def test_the_command_palette_has_one_theme_entry_with_ours_first() -> None:
    """One "Theme" command (Textual's own is left out): it lists dark, light and projector,
    said in words, then Textual's themes; choosing one changes the colours."""
    from xmas_tui.ui.app import ThemeChoices

    app = XmasApp(theme="projector")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        assert app.theme == "xmas-projector"
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert titles.count("Theme") == 1 and not any(title.startswith("Theme:") for title in titles)
        choose = next(c for c in app.get_system_commands(app.screen) if c.title == "Theme")
        choose.callback()
        await pilot.pause(0.2)
        choices = ThemeChoices(app.screen).choices()
        names = [name for name, _, _ in choices]
        assert names[:3] == ["dark", "light", "projector"] and "ansi-dark" in names[3:]
        assert "a light terminal" in choices[1][1]
        choices[1][2]()  # light
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
            await wait_for(pilot, lambda: bool(screen.query("#watch-code")))  # (its side column, mounted)
            assert screen.query_one("#watch-code").display  # room for the code in big letters
            await wait_for(pilot, lambda: host.spectators() == ["Big screen"])  # (heard a moment after the screen)
            assert watching_line(host.spectators()) == "Watching: Big screen"
            assert all(face is None for _, face in screen.snapshot.view.cards("deck"))  # the public view
            await wait_for(pilot, lambda: screen.query_one("#players-panel").border_title == "Scores")
            # (its table screen is mounted once: one listener, one running table)
            assert screen.table._watchers._callbacks == [screen._on_table_changed]
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
            # (at 80 columns its side column is the table's, so a board keeps the width it is drawn for:
            # Dragons & Chickens' last round wrapped its rows when it was 32)
            assert app.screen.query_one("#side").size.width == 30
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
            await wait_for(pilot, lambda: isinstance(app.screen, JoinScreen) and app.screen.joined is not None, 15)
            assert any(r.name == "Bob" for r in host.roster())
    finally:
        await host.close()


# ---------------------------------------------------------------- idle, away, the host gone

async def test_the_prompt_says_a_player_is_away_and_when_a_bot_plays_for_them(monkeypatch) -> None:
    """Not "Bob is playing": "Bob is away: a bot plays in 12 s", and the players panel shows
    the countdown in full."""
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    app = XmasApp(host=dict(game=CHIP, players=2, code="HOLY-2345", name="Ann", port=0, options={"first": 2}))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.hosting is not None and app.hosting.table is not None)
        bob = joiner(app.hosting, "Bob", code="HOLY-2345")
        await bob.join()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await bob.close()  # Bob's laptop goes to sleep on his turn
        await wait_for(pilot, lambda: "Bob is away: a bot plays in" in str(app.screen.query_one("#prompt").render()))
        assert "Bob is playing" not in str(app.screen.query_one("#prompt").render())
        assert re.search(r"away: a bot plays in \d+ s", app.export_screenshot().replace("&#160;", " "))


async def test_when_the_host_closes_the_table_the_prompt_and_the_leave_question_say_so(monkeypatch) -> None:
    async with bob_joins(monkeypatch, 2, pace=5.0) as (host, app, pilot):
        await wait_for(pilot, lambda: any(r.name == "Bob" for r in host.roster()))
        host.start()
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await host.close()
        prompt = app.screen.query_one("#prompt")
        await wait_for(pilot, lambda: "The host closed the table." in str(prompt.render()))
        assert "Esc" in str(prompt.render()) and "lobby" in str(prompt.render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen) and app.screen.query("#confirm-question"))
        question = str(app.screen.query_one("#confirm-question").render())
        assert "The host closed the table." in question and "bot takes your seat" not in question
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_a_host_whose_waiting_room_seats_players_is_asked_before_closing(monkeypatch) -> None:
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    app = XmasApp(host=dict(game=CHIP, players=3, code="HOLY-2345", name="Ann", port=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.hosting is not None and app.hosting.table is not None)
        await pilot.press("ctrl+q")  # nobody sits yet: nothing to ask
        await wait_for(pilot, lambda: not app.is_running)
    app = XmasApp(host=dict(game=CHIP, players=3, code="HOLY-2345", name="Ann", port=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.hosting is not None and app.hosting.table is not None)
        bob = joiner(app.hosting, "Bob", code="HOLY-2345")
        try:
            await bob.join()
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen) and app.screen.query("#confirm-question"))
            assert "Bob already sits at your table" in str(app.screen.query_one("#confirm-question").render())
            await pilot.press("n")
            assert isinstance(app.screen, HostScreen)
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen) and app.screen.query("#confirm-question"))
            await pilot.press("y")
            await wait_for(pilot, lambda: not app.is_running)
        finally:
            await bob.close()


# ---------------------------------------------------------------- keys, toasts, notices

async def test_a_new_refusal_replaces_the_last_instead_of_piling_up() -> None:
    table = table_at(CHIP, 3, 7, lambda s: s.my_turn and s.view["phase"] == "flip" and not s.view["flipped"])
    app = XmasApp(table=table, theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        for _ in range(3):
            await pilot.press("s")  # stopping before two flips breaks a rule
            await pilot.pause(0.2)
        await wait_for(pilot, lambda: len(app._notifications) >= 1)
        assert len(app._notifications) == 1
        assert "flip at least 2" in next(iter(app._notifications)).message


async def test_the_footer_shows_the_game_keys_only_when_they_do_something() -> None:
    """Off my turn the game's keys leave the footer, yet a key pressed still says why not;
    Ctrl+Q is there, and Ctrl+C quits without Textual's stock message."""
    table = table_at(CHIP, 3, 7, lambda s: not s.my_turn, pace=4.0)
    app = XmasApp(table=table, theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        footer_keys = {b.binding.key for b in app.active_bindings.values() if b.binding.show and b.enabled}
        assert "s" not in footer_keys and "ctrl+q" in footer_keys
        notes = catch_notes(app)
        await pilot.press("s")
        await wait_for(pilot, lambda: bool(notes))
        assert "turn" in notes[-1].lower()
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running)
        assert not any("to quit the app" in note for note in notes)
    table = table_at(CHIP, 3, 7, lambda s: s.my_turn and s.view["phase"] == "flip" and len(s.view["flipped"]) >= 2)
    app = XmasApp(table=table, theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        footer_keys = {b.binding.key for b in app.active_bindings.values() if b.binding.show and b.enabled}
        assert {"1", "s"} <= footer_keys  # (s once two are flipped: it stops then)


async def test_the_game_kept_notice_appears_only_once_a_move_was_kept() -> None:
    """Before the first move nothing is written, so nothing is said to be kept."""
    app = XmasApp(GameConfig(CHIP, 3, "Ann", seed=7, pace=600.0))  # (no bot moves first, however busy the machine)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        notes = catch_notes(app)
        assert not app.current.keep.exists()
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await pilot.pause(0.2)
        assert not any("kept" in note for note in notes)
    app = XmasApp(GameConfig(CHIP, 3, "Ann", seed=7, pace=0.2))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        table = app.current
        await wait_for(pilot, lambda: table.keep.exists() or table.snapshot().my_turn)
        if not table.keep.exists():
            await pilot.press("1")  # my move: now the game is on disk
            await wait_for(pilot, lambda: table.keep.exists())
        notes = catch_notes(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: any("kept" in note for note in notes))


async def test_the_end_screen_gives_the_game_logs_full_path() -> None:
    table = table_at(CHIP, 3, 5, lambda s: False, pace=0.05)
    app = XmasApp(table=table, theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EndScreen), 60)
        audit = app.screen.query_one("#end-audit")
        await wait_for(pilot, lambda: "Game log:" in str(audit.render()))
        path = app.current.audit()["path"]
        assert path.startswith("/") and path in str(audit.render()).replace("\n", "")


# ---------------------------------------------------------------- the games' own findings

async def test_a_scrooge_tile_that_ends_the_turn_is_said_on_the_board() -> None:
    carol = get_game("christmas-carol")

    def scrooge_just_ended_a_turn(s) -> bool:
        return bool(s.log) and s.log[-1].kind != "special" and turn_ended_by_scrooge(s.log) is not None

    table = table_at(carol, 3, 1, scrooge_just_ended_a_turn)
    app = XmasApp(table=table, theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        moment = str(app.screen.query_one("#cc-moment").render())
        assert "Turn over" in moment and "drew a Move Scrooge tile: no more drawing" in moment


# ---------------------------------------------------------------- any terminal

async def test_below_80_by_24_a_notice_asks_for_a_larger_terminal_and_goes_when_there_is_room() -> None:
    table = table_at(CHIP, 3, 7, lambda s: s.my_turn)
    app = XmasApp(table=table, theme="dark")
    async with app.run_test(size=(70, 20)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TooSmallScreen)
                       and "larger" in str(app.screen.query_one("#too-small").render()))
        notice = str(app.screen.query_one("#too-small").render())
        assert "larger" in notice and "80×24" in notice and "70×20" in notice
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))


async def test_side_panels_grow_with_the_width() -> None:
    """At 120×40 the log no longer wraps at 26 columns beside empty space."""
    table = table_at(CHIP, 3, 7, lambda s: s.my_turn)
    app = XmasApp(table=table, theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert app.screen.query_one("#side").size.width == 30
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: app.screen.query_one("#side").size.width >= 45)
        assert app.screen.query_one("#log").size.width >= 40


# ---------------------------------------------------------------- the log from the deal

async def test_every_peer_logs_the_deal_the_first_star_event_and_what_was_collected() -> None:
    """The deal, the first Star event and what the first player collected never appeared on
    any peer: now they open every seat's log, local or networked, spectators' too."""
    host = loopback_host(CHIP, 3, code="STAR-2345", seed=4, options={"first": 1})
    mine = await host.open()
    joined = joiner(host, "Bob", code="STAR-2345")
    watcher = joiner(host, "Big screen", code="STAR-2345", watch=True)
    try:
        await joined.join()
        await watcher.join()
        host.start()
        await until(lambda: mine.ready and joined.table.ready and watcher.table.ready)
        for table in (mine, joined.table, watcher.table):
            texts = [event.text for event in table.snapshot().log]
            assert texts[1] == "Host takes the first turn."
            assert texts[2].startswith("Round 1: the Event is")
        local = LocalTable(CHIP, ["Ann", "Bo"], 0, seed=3, pace=4.0, options={"first": 1})
        texts = [event.text for event in local.snapshot().log]
        assert texts[1:4] == ["Ann takes the first turn.", "Round 1: the Event is “Collect three”.",
                              texts[3]] and texts[3].startswith("Ann takes the Star and collects ")
    finally:
        await watcher.close()
        await joined.close()
        await host.close()


def test_in_16_colours_no_word_sinks_into_the_felt() -> None:
    """A 16-colour terminal maps each colour to the nearest of its own: no ink drawn on the
    felt may map to the felt's colour, in any theme, or its words would vanish."""
    words_on_felt = [name for name in INKS if not name.endswith("-ground") and not name.startswith(("felt", "dark-", "light-", "gift-", "on-"))]
    assert {"gold", "leaf", "ember", "berry", "white", "yellow"} <= set(words_on_felt)
    for index, theme in enumerate(THEMES):
        felt = Color.parse(INKS["felt"][index]).downgrade(ColorSystem.STANDARD)
        for name in [*words_on_felt, "felt-line", "felt-ink-dim"]:
            ink = Color.parse(INKS[name][index]).downgrade(ColorSystem.STANDARD)
            assert ink.number != felt.number, (theme.name, name)


@pytest.mark.parametrize("theme", [theme.name for theme in THEMES])
async def test_a_chosen_treasure_is_dark_on_gold_in_every_theme(theme: str) -> None:
    """A chosen Treasure's place wears the gold ground; its words were in the Treasure's own
    ink, so a chosen Bell (gold) or Popcorn (yellow) vanished there. They are dark ink now,
    apart from the ground by a contrast of at least 4.5 in each theme."""
    from textual.app import App
    from textual.geometry import Region

    from xmas_tui.ui.boards.chip_n_dale import TreasureChip
    from xmas_tui.ui.theme import inks

    class Place(App):
        def compose(self):
            yield TreasureChip(classes="chip")

    app = Place()
    async with app.run_test(size=(30, 3)) as pilot:
        app.register_theme(next(t for t in THEMES if t.name == theme))
        app.theme = theme
        await pilot.pause()
        chip = app.query_one(TreasureChip)
        ink = inks(chip)
        for face in ("bell/1", "popcorn/0", "ornament-chip/1"):
            chip.show(1, face, True, ink)
            await pilot.pause()
            words = [s for s in chip.render_lines(Region(0, 0, *chip.outer_size))[0] if s.text.strip()]
            assert words and all(s.style.color.name == TextualColor.parse(ink.dark_ink).hex.lower() for s in words), face
            ground = TextualColor.parse(ink.gold_ground)
            assert all(s.style.bgcolor.name == ground.hex.lower() for s in words)
            assert _contrast(ground, TextualColor.parse(ink.dark_ink)) >= 4.5, (face, theme)


def _contrast(a: TextualColor, b: TextualColor) -> float:
    """WCAG's contrast ratio of two colours."""
    def luminance(colour: TextualColor) -> float:
        def channel(c: int) -> float:
            c = c / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


async def test_carol_s_news_of_the_clock_is_shown_whole_at_80_by_24() -> None:
    """The latest news of the clock ("Scrooge moves 1 space clockwise (the special tile) to
    10: 10 spaces from waking.") was one line cut off with an ellipsis at 80x24. It wraps into
    the rows the turn box has (the line of set-aside tiles is there only while some are), and
    only words that still do not fit would end in an ellipsis."""
    from rich.text import Text

    from xmas_tui.ui import paint

    carol = get_game("christmas-carol")

    def clock_moved_forward(s) -> bool:
        news = [e for e in s.log if e.kind in ("clock", "complete", "again", "special", "ignore", "over")]
        return bool(news) and "clockwise (" in news[-1].text and s.result is None and turn_ended_by_scrooge(s.log) is None

    table = table_at(carol, 3, 2, clock_moved_forward)
    app = XmasApp(table=table, theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.pause(0.1)
        news = next(e for e in reversed(app.screen.snapshot.log) if "clockwise (" in e.text).text
        moment = app.screen.query_one("#cc-moment", paint.Words)
        shown = " ".join(moment.render_line(y).text.strip() for y in range(moment.size.height))
        assert news in shown and "…" not in shown
        # (words that do not fit the rows it has end in an ellipsis on its last row)
        moment.update(Text("word " * 80))
        await pilot.pause()
        assert moment.render_line(moment.size.height - 1).text.rstrip().endswith("…")


@pytest.mark.parametrize("who", ["watcher", "player"])
@pytest.mark.parametrize("quit_from", ["table", "dialog", "after staying"])
async def test_every_screen_of_a_closed_table_keeps_a_way_out(monkeypatch, who: str, quit_from: str) -> None:
    """Issue 27.3: when the host's table goes away under a watcher or a player, Esc at once asks
    whether to go back to the lobby (n stays), and Ctrl+Q quits from the table, from that question
    and after choosing to stay: nothing left to lose, so nothing more is asked."""
    from xmas_tui.ui.screens.table import TableScreen

    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    host = loopback_host(get_game("chip-n-dale"), 3 if who == "watcher" else 2, code="STAR-2345", pace=5.0)
    await host.open()
    if who == "watcher":
        host.start()
    app = XmasApp(join=dict(code="star-2345", name="Big screen" if who == "watcher" else "Bob",
                            address=host.address, watch=who == "watcher"))
    async with app.run_test(size=(80, 24)) as pilot:
        if who == "player":
            await wait_for(pilot, lambda: any(r.name == "Bob" for r in host.roster()))
            host.start()
        playing = WatchScreen if who == "watcher" else TableScreen
        await wait_for(pilot, lambda: isinstance(app.screen, playing))
        await host.close()
        await wait_for(pilot, lambda: app.current is not None and app.current.host_gone is not None)
        if quit_from in ("dialog", "after staying"):
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen) and app.screen.query("#confirm-question"), 5)
            assert "The host closed the table." in str(app.screen.query_one("#confirm-question").render())
        if quit_from == "after staying":
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, playing), 5)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, 5)
