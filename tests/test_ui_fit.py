"""Every board fits 80×24 with the most seats its game allows: through a whole recorded bot
game, no panel cuts a word it was given (a panel that cannot show everything shows what fits
and says so), and whoever acts now is always in the players panel. The end of the game too."""

from __future__ import annotations

import pytest

from xmas_tui.games import get_game
from xmas_tui.tables.local import LocalTable
from xmas_tui.tables.table import Snapshot
from xmas_tui.tools.ui_bench import GAMES, BoardBench, Replay
from xmas_tui.ui.app import seat_names
from xmas_tui.ui.screens.dialogs import EndScreen
from xmas_tui.ui.screens.table import PlayersPanel, TableScreen

from .fitkit import cut_words, screen_text
from .uikit import wait_for

SIZE = (80, 24)
#: states looked at in each game: spread over the whole game, and each part of my turn
SAMPLES = 40


def whole_game(game_id: str, seed: int = 7) -> tuple[LocalTable, list[Snapshot]]:
    """A game with the most seats its game allows, bots at every seat (mine too), as my seat
    saw it, move by move to the end."""
    game = get_game(game_id)
    played = LocalTable(game, seat_names("Ann", game.max_players), 0, seed=seed, pace=4.0)
    history: list[Snapshot] = []
    played.autoplay(lambda s: history.append(s) is not None)
    return played, history


def sampled(history: list[Snapshot]) -> list[Snapshot]:
    """Some states of a game: spread over it, the first of each part of my turn and of each
    part of the others', the one with the most choices; the end last."""
    during = [s for s in history if s.result is None]
    chosen = set(range(0, len(during), max(1, len(during) // SAMPLES)))
    firsts: dict[tuple, int] = {}
    for index, s in enumerate(during):
        firsts.setdefault((s.view.public.get("phase"), s.my_turn), index)
    chosen |= set(firsts.values())
    chosen.add(max(range(len(during)), key=lambda i: len(during[i].legal)))
    return [during[i] for i in sorted(chosen)] + [s for s in history if s.result is not None][:1]


def acting_names(snapshot: Snapshot) -> list[str]:
    players = snapshot.view["players"]
    return [players[seat] for seat in sorted(snapshot.to_act)]


@pytest.mark.parametrize("game_id", GAMES)
async def test_every_board_fits_80_by_24_with_the_most_seats_through_a_whole_game(game_id: str) -> None:
    played, history = whole_game(game_id)
    states = sampled(history)
    replay = Replay(played, states)
    app = BoardBench(replay)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        assert isinstance(screen, TableScreen)
        for number, snapshot in enumerate(states):
            if number:
                await pilot.press("f5")
                await wait_for(pilot, lambda s=snapshot: screen.snapshot is s)
            await pilot.pause(0.05)
            if snapshot.result is not None:
                await wait_for(pilot, lambda: isinstance(app.screen, EndScreen))
                await pilot.pause(0.3)  # (the fair-play verdict comes a moment later)
                cuts = cut_words(app)
                assert not cuts, f"the end of the game cuts words:\n{screen_text(app)}\n" + "\n".join(map(str, cuts))
                continue
            if app.screen is not screen:
                continue  # (a round's result over the table: it is looked at below)
            cuts = cut_words(app)
            assert not cuts, f"state {number} cuts words:\n{screen_text(app)}\n" + "\n".join(map(str, cuts))
            panel = screen.query_one(PlayersPanel)
            shown = str(panel.render())
            for name in acting_names(snapshot)[:1]:
                assert name in shown, f"{name} acts but is not in the players panel:\n{screen_text(app)}"


@pytest.mark.parametrize("game_id", GAMES)
async def test_the_lobby_names_a_kept_game_of_any_length_whole(game_id: str) -> None:
    """The lobby's line about an unfinished game ("^r resumes …", its game's title and how many
    moves in) fits, for the longest title too."""
    from xmas_tui.ui.app import XmasApp
    from xmas_tui.ui.screens.lobby import LobbyScreen

    game = get_game(game_id)
    kept = LocalTable(game, seat_names("Ann", game.max_players), 0, seed=3, keep=True)
    kept.autoplay(lambda s: len(s.log) > 40)
    app = XmasApp()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        about = app.screen.query_one("#lobby-about")
        await wait_for(pilot, lambda: "resumes" in str(about.render()))
        assert game.title in str(about.render())
        assert not cut_words(app, under=about)


@pytest.mark.parametrize("turn", [5, 2])
async def test_six_players_the_panel_shows_whoever_acts_says_how_many_more_and_the_wheel_scrolls(turn: int) -> None:
    """Six players' lines do not fit beside the board at 80×24: the panel keeps whoever acts in
    view, says on its edge how many players are out of view and where, and the mouse wheel
    brings the others in, a whole player at a time, never losing whoever acts."""
    from textual.events import MouseScrollDown, MouseScrollUp

    from xmas_tui.ui.app import XmasApp

    from .uikit import table_at

    chip = get_game("chip-n-dale")
    table = table_at(chip, 6, 7, lambda s: s.view["turn"] == turn and s.view["round"] >= 3 and s.view["phase"] == "flip")
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.pause(0.1)
        panel = app.screen.query_one(PlayersPanel)
        players = table.players

        def shown() -> list[int]:
            heads = [line[2:] for line in str(panel.render()).split("\n") if not line.startswith("    ")]
            return [seat for seat, name in enumerate(players) if any(head.startswith(name) for head in heads)]

        seen = set()
        for wheel in [MouseScrollUp] * 6 + [MouseScrollDown] * 6:
            seats = shown()
            seen.add(tuple(seats))
            assert turn in seats and f"▶ {players[turn]}" in str(panel.render())
            assert seats == list(range(seats[0], seats[-1] + 1)) and len(seats) < len(players)
            above, below = seats[0], len(players) - 1 - seats[-1]
            arrows = " ".join(part for part in (f"↑{above}" if above else "", f"↓{below}" if below else "") if part)
            assert panel.border_subtitle == f"{arrows} more {'player' if above + below == 1 else 'players'}"
            assert not cut_words(app, under=panel)
            panel.post_message(wheel(panel, 1, 1, 0, 0, 0, False, False, False))
            await pilot.pause(0.05)
        assert len(seen) > 1 or turn == len(players) - 1  # (whoever acts last leaves no room to scroll)


def test_a_players_note_is_never_broken_between_its_words() -> None:
    """A ping ("4 ms") that has no room at the end of a name's line starts the next line whole."""
    from rich.text import Text

    from xmas_tui.ui.screens.table import flowed

    pieces = [Text("Jasper (you) ★"), Text("12 points"), Text("4 ms")]
    lines = [line.plain for line in flowed(PlayersPanel(), Text("▶ "), pieces, 26)]
    assert lines == ["▶ Jasper (you) ★", "  12 points  4 ms"]
    lines = [line.plain for line in flowed(PlayersPanel(), Text("▶ "), pieces, 30)]
    assert lines == ["▶ Jasper (you) ★  12 points", "  4 ms"]
