"""Colour is never the only signal: each board read with its colours stripped (the screen's
characters only) still says whose turn it is, what is selected, and what warns; and it says
the same words in a 16-colour ANSI theme as in the dark one, so nothing is told by colour alone."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from xmas_tui.games import get_game
from xmas_tui.tables.table import Snapshot
from xmas_tui.tools.screenshots import hold_rounds_still
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.screens.table import TableScreen

from .fitkit import screen_text
from .uikit import table_at, wait_for

SIZE = (80, 24)


@dataclass(frozen=True)
class Moment:
    """A board at a moment, the keys pressed then, and what its words must say there."""

    game: str
    players: int
    seed: int
    stop: Callable[[Snapshot], bool]
    keys: tuple[str, ...]
    says: tuple[str, ...]


def phase(name: str, **more: Callable[[Snapshot], bool]) -> Callable[[Snapshot], bool]:
    return lambda s: s.my_turn and s.view["phase"] == name and all(test(s) for test in more.values())


MOMENTS = {
    # whose turn (▶), two Treasures flipped this turn (said on their edges), Pluto counted in glyphs
    "chip-n-dale flip": Moment("chip-n-dale", 4, 7, phase("flip", two=lambda s: len(s.view["flipped"]) >= 2), (),
                               ("▶ Ann (you)", "flipped", "Pluto 1/3 ☻")),
    # the Treasure chosen to pass (▸), everyone to act (▶ for each)
    "chip-n-dale pass": Moment("chip-n-dale", 4, 3, phase("pass"), ("right",), ("▶ Ann (you)", "▶ Holly", "▸")),
    # paying: the type chosen (▸), the row paid onto and the row taken, in words
    "christmas-tree pay": Moment("christmas-tree", 3, 3, phase("pay", first=lambda s: s.view["paid"] == 1), (),
                                 ("▶ Ann (you)", "▸", "◀ pay here", "◀ taking", "paid ✓", "Pay from hand")),
    # the rows I may take (✓) and may not (✗)
    "christmas-tree take": Moment("christmas-tree", 4, 3, phase("turn"), (), ("▶ Ann (you)", "free ✓")),
    # the tile under the cursor (▸), a tile chosen (its edge says play), the next puzzle (◀ next)
    "christmas-carol choose": Moment("christmas-carol", 3, 33,
                                     lambda s: s.my_turn and s.view["phase"] == "draw" and not s.view.zone("drawn") and s.view["turns"] >= 4,
                                     ("d", "4", "2", "right"), ("▶ Ann (you)", "▸", "play", "◀ next")),
    # the choice highlighted (▸), my gifts ticked (✓)
    "christmas-game shop": Moment("christmas-game", 6, 46, phase("shop", many=lambda s: len(s.view["offer"]) > 2), (),
                                  ("▶ Ann (you)", "▸1", "✓$")),
    # a dragon, said in words on the board and on its card; I am still to act (the bots sealed)
    "dragons-chickens dragon": Moment("dragons-chickens", 4, 1, lambda s: s.view["round"] == 5, ("enter",),
                                      ("DRAGON!", "DRAGON▲▲", "▶ Ann (you)", "Go! the shield!")),
}


async def words_on_screen(moment: Moment, theme: str) -> str:
    table = table_at(get_game(moment.game), moment.players, moment.seed, moment.stop)
    app = XmasApp(table=table, theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.pause(0.3)
        for key in moment.keys:
            await pilot.press(key)
            await pilot.pause(0.1)
        hold_rounds_still(app)  # (a round's countdown says the same in both pictures)
        await pilot.pause(0.3)
        return screen_text(app)


@pytest.mark.parametrize("name", list(MOMENTS))
async def test_without_its_colours_a_board_still_says_whose_turn_what_is_chosen_and_what_warns(name: str) -> None:
    moment = MOMENTS[name]
    dark = await words_on_screen(moment, "dark")
    for words in moment.says:
        assert words in dark, f"{name}: {words!r} is not on the screen without its colours:\n{dark}"
    ansi = await words_on_screen(moment, "ansi-dark")
    assert ansi == dark, f"{name}: the 16-colour theme says other words than the dark one"


async def test_in_an_ansi_theme_every_ink_is_one_of_the_terminals_16_colours() -> None:
    """Textual's ANSI themes draw in the terminal's own palette: so do the boards' inks (for
    Textual styles and for Rich alike), on a dark terminal and, less bright, on a light one."""
    from xmas_tui.ui.theme import INKS, inks

    for theme, gold in (("ansi-dark", "bright_yellow"), ("ansi-light", "yellow")):
        app = XmasApp(table=table_at(get_game("chip-n-dale"), 3, 7, lambda s: s.my_turn), theme=theme)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda app=app: isinstance(app.screen, TableScreen))
            ink = inks(app.screen)
            assert all(ink.css(name).startswith("ansi_") for name in INKS)
            assert ink.gold == gold and ink.css("gold") == f"ansi_{gold}"
            assert app.screen.styles.background.ansi is not None or app.screen.styles.background.a == 0
