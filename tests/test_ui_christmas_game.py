"""The Christmas Game board, driven with Textual's Pilot: a whole game through the keys, the mouse, refusals."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from xmas_tui.bots import make_bot
from xmas_tui.games import Action, Rng, View, get_game
from xmas_tui.games.christmas_game import BOARD, CARD_ZONE, CARDS, Buy, Decline, Pick, Return, Roll
from xmas_tui.games.engine import pack, unpack
from xmas_tui.tables.local import LocalTable
from xmas_tui.tables.table import Snapshot
from xmas_tui.ui.app import XmasApp, seat_names
from xmas_tui.ui.boards.christmas_game import (
    LOOK,
    RING_LINES,
    ChristmasGameBoard,
    ring_position,
    token_spot,
)
from xmas_tui.ui.screens.lobby import GameConfig, LobbyScreen
from xmas_tui.ui.screens.table import TableScreen

from .uikit import (
    assert_refused,
    catch_notes,
    my_turn,
    play_through_keys,
    table_at,
    text_of,
    wait_for,
)

XGAME = get_game("christmas-game")
SIZE = (80, 24)


def ring_lines(app: XmasApp) -> list[str]:
    """The ring as drawn, a line of text for each of its lines."""
    return [text_of(app, f"#cg-ring-{number}") for number in range(RING_LINES)]


def keys_for(action: Action, board: ChristmasGameBoard, presses: Counter[str]) -> list[str]:
    """The keys a person presses on the board for ``action``: a letter where there is one
    (Enter for every other roll), else the number of its place in the bar."""
    if isinstance(action, Roll):
        return ["enter"] if presses["r"] > presses["enter"] else ["r"]
    if isinstance(action, Decline):
        return ["n"]
    if isinstance(action, Buy) and len(board.snapshot.view["offer"]) == 1:
        return ["b"]
    return [str(board.options.index(action) + 1)]


async def test_a_whole_game_of_the_christmas_game_through_the_keys() -> None:
    app = XmasApp(GameConfig(XGAME, players=3, name="Ann", bot="smart", seed=8, pace=0.01))
    me = make_bot(XGAME.id, "smart", 0, Rng("ui-player"))
    used: Counter[str] = Counter()
    async with app.run_test(size=SIZE) as pilot:
        result, _, _ = await play_through_keys(
            pilot,
            app,
            lambda snapshot, board: me.choose(snapshot.view, list(snapshot.legal)),
            lambda action, board: keys_for(action, board, used),
            used=used,
        )
        assert result is not None and len(result.scores) == 3
        assert used["roll"] >= 10 and used["buy"] >= 1, used
        assert used["r"] >= 1 and used["enter"] >= 1 and used["b"] >= 1, used
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_an_illegal_key_names_the_rule_and_changes_nothing() -> None:
    table = table_at(XGAME, 3, 1, my_turn("roll"))
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        notes = catch_notes(app)
        for key, rule in (
            ("b", "He can purchase gifts only when he lands on gift squares"),
            ("n", "There is nothing to decline"),
        ):
            await assert_refused(pilot, table, notes, pilot.press(key), rule)


async def test_the_mouse_rolls_and_buys_from_the_bar() -> None:
    table = table_at(XGAME, 3, 3, my_turn("shop"))
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        offer = screen.snapshot.view["offer"]
        assert len(offer) == 1
        bar = text_of(app, "#cg-bar")
        assert bar.index(f"Buy the ${offer[0]} gift") < bar.index("No thanks")
        await pilot.click("#cg-bar", offset=(2, 0))  # the first choice
        await wait_for(pilot, lambda: offer[0] in screen.snapshot.view["gifts"][0])
        assert any(e.kind == "buy" and e.seat == 0 for e in screen.snapshot.log)
        assert f"${offer[0]}" in text_of(app, "#cg-mine")


async def test_card_choices_are_numbered_in_the_bar() -> None:
    def choosing(s: Snapshot) -> bool:
        return s.my_turn and (s.view["phase"] in ("return", "pick") or (s.view["phase"] == "shop" and len(s.view["offer"]) > 1))

    for seed in range(40):
        table = table_at(XGAME, 4, seed, choosing)
        if table.snapshot().result is None:
            break
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        board = screen.board
        legal = list(screen.snapshot.legal)
        choices = [a for a in legal if isinstance(a, (Buy, Return, Pick))]
        assert choices and board.options == legal
        card = CARDS[screen.snapshot.view.faces_in(CARD_ZONE)[-1]]
        assert card.title in text_of(app, "#cg-card")
        # The last choice, by its number; the highlight follows ← and →.
        await pilot.press("right")
        assert board.cursor == 1 % len(legal)
        before = len(screen.snapshot.log)
        await pilot.press(str(legal.index(choices[-1]) + 1))
        await wait_for(pilot, lambda: len(screen.snapshot.log) > before)
        assert screen.snapshot.log[before].seat == 0


async def test_the_ring_shows_every_token_on_its_square() -> None:
    table = table_at(XGAME, 4, 5, lambda s: s.my_turn and s.view["turns"] >= 6 and s.view["phase"] == "roll")
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        view = app.screen.snapshot.view
        ring = ring_lines(app)
        for seat, square in enumerate(view["position"]):
            line, col = token_spot(square)
            cell = ring[line][col : col + 4]
            assert view["players"][seat][0] in cell or "+" in cell, (seat, square, cell)
        # Every square's label sits where the ring puts it (START bottom-right).
        assert ring_position(0) == (12, 40) and ring[12][40:44] == " GO "
        assert ring_position(10)[1] == 0 and ring[12][0:4] == "JAM "
        assert BOARD[20].kind == "club" and ring[0][0:4] == "CLB "
        assert "CHRISTMAS CLUB" in "\n".join(ring) and f"${view['club']}" in "\n".join(ring)
        # The dice say who rolled them, though the turn has passed on.
        roller = view["players"][view["roller"]]
        assert view["roller"] != view["turn"] and f"{roller} rolled" in "\n".join(ring)
        assert "Round" in text_of(app, "#status")


async def test_every_square_of_the_top_and_bottom_rows_reads_on_its_own_at_80x24() -> None:
    """At 80 columns the top row ran together ("$100WRAPSUPR"): now each square of a row is
    three columns and a blank one, its label a price or a word of at most three letters that
    the infield's key explains, in every theme."""
    table = table_at(XGAME, 4, 5, lambda s: s.my_turn and s.view["phase"] == "roll")
    rows: dict[int, list[tuple[int, int]]] = {0: [], 12: []}
    for square in range(len(BOARD)):
        line, col = ring_position(square)
        if line in rows:
            rows[line].append((col, square))
    for theme in ("dark", "light", "projector"):
        app = XmasApp(table=table, theme=theme)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda app=app: isinstance(app.screen, TableScreen))
            ring = ring_lines(app)
            for line, squares in rows.items():
                assert len(ring[line].split()) == len(squares) == 11, (theme, ring[line])
                for col, square in squares:
                    cell = ring[line][col : col + 4]
                    assert cell[3] == " " and cell[:3].strip(), (theme, square, cell)
                    kind = BOARD[square].kind
                    assert cell[:3].strip() == (str(BOARD[square].value) if kind == "gift" else LOOK[kind][0])
            key = "\n".join(ring)
            assert all(words in key for words in ("CLB Club", "WRP Wrap", "SUP Super", "★ Santa"))
            assert "gift prices in $" in app.screen.query_one("#cg-ring").border_title


class WireTable(LocalTable):
    """A local table whose views cross the wire first, as a networked table's do (lists, not tuples)."""

    def snapshot(self) -> Snapshot:
        snap = super().snapshot()
        view = View.from_wire(unpack(pack(snap.view.to_wire())))
        return replace(snap, view=view)


async def test_the_board_plays_from_views_that_crossed_the_wire() -> None:
    table = WireTable(XGAME, seat_names("Ann", 3), 0, seed=6, pace=0.01)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        assert isinstance(screen.snapshot.view["money"], list)
        me = make_bot(XGAME.id, "smart", 0, Rng("wire"))
        used: Counter[str] = Counter()
        for _ in range(12):
            await wait_for(pilot, lambda: screen.snapshot.my_turn or screen.snapshot.result is not None)
            if screen.snapshot.result is not None:
                break
            snapshot = screen.snapshot
            action = me.choose(snapshot.view, list(snapshot.legal))
            before = len(snapshot.log)
            for key in keys_for(action, screen.board, used):
                await pilot.press(key)
                used[key] += 1
            await wait_for(pilot, lambda b=before: len(screen.snapshot.log) > b)
        assert used["r"] + used["enter"] >= 6
