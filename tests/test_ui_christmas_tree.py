"""The Christmas Tree board, driven with Textual's Pilot: keys, the mouse, and what my seat may see."""

from __future__ import annotations

import re
from collections import Counter

from xmas_tui.bots import make_bot
from xmas_tui.games import Action, Rng, get_game
from xmas_tui.games.christmas_tree import SANTA, TYPES, Done, Pay, Play, Take
from xmas_tui.tables.table import Snapshot
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.boards.base import LineBox
from xmas_tui.ui.boards.christmas_tree import PAY_KEYS, ChristmasTreeBoard, offered_sets, set_words
from xmas_tui.ui.screens.lobby import GameConfig, LobbyScreen
from xmas_tui.ui.screens.table import TableScreen

from .uikit import (
    assert_refused,
    catch_notes,
    my_turn,
    play_through_keys,
    settled_screenshot,
    table_at,
    text_of,
    wait_for,
)

TREE = get_game("christmas-tree")
SIZE = (80, 24)


def my_hand(snapshot: Snapshot) -> Counter[str]:
    return Counter(snapshot.view.faces_in("hand.0"))


def keys_for(action: Action, board: ChristmasTreeBoard) -> list[str]:
    """The keys a person presses on the Christmas Tree board for ``action``."""
    if isinstance(action, Take):
        return [str(action.row + 1)]
    if isinstance(action, Pay):
        held = board.held_types()
        # Enter over the highlighted type when it is the one; its own key otherwise.
        if held and held[board.hand_cursor] == action.item:
            return ["enter"]
        return [PAY_KEYS[action.item]]
    if isinstance(action, Play):
        steps = (board.offered.index(action) - board.set_cursor) % len(board.offered)
        return ["down"] * steps + ["p"]
    assert isinstance(action, Done)
    return ["d"]


def board_of(app: XmasApp) -> ChristmasTreeBoard:
    return app.screen.query_one(ChristmasTreeBoard)


async def test_a_whole_game_of_christmas_tree_through_the_keys() -> None:
    app = XmasApp(GameConfig(TREE, players=3, name="Ann", bot="smart", seed=8, pace=0.01))
    me = make_bot(TREE.id, "smart", 0, Rng("ui-player"))

    def choose(snapshot: Snapshot, board: ChristmasTreeBoard) -> Action:
        # I choose among what the board offers: every take, pay and done, and its list of sets.
        legal = [a for a in snapshot.legal if not isinstance(a, Play) or a in board.offered]
        return me.choose(snapshot.view, legal)

    async with app.run_test(size=SIZE) as pilot:
        result, used, _ = await play_through_keys(pilot, app, choose, keys_for)
        assert result is not None and len(result.scores) == 3
        assert used["take"] >= 3 and used["pay"] >= 1 and used["play"] >= 1, used
        assert used["enter"] >= 1 and used["p"] >= 1, used
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))


async def test_an_illegal_key_names_the_rule_and_changes_nothing() -> None:
    table = table_at(TREE, 3, 1, my_turn("turn"))
    assert sum(my_hand(table.snapshot()).values()) == 3
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        notes = catch_notes(app)
        for key, rule in (
            ("5", "for each row you skip from the top (4); you hold 3"),
            ("d", "you may not pass"),
            ("t", "Pay only when you take a row below the 1st"),
            ("p", "3 or more cards of the same type can form a set"),
        ):
            await assert_refused(pilot, table, notes, pilot.press(key), rule)
        # A click is refused the same way: I hold no Tree to make a set of.
        await assert_refused(pilot, table, notes, pilot.click("#ct-hand-lines", offset=(2, TYPES.index("tree"))), "needs at least one Christmas Tree")
        # Once a row is chosen it must be paid for: taking another is refused too.
        await pilot.press("3")
        await wait_for(pilot, lambda: table.snapshot().view["phase"] == "pay")
        await assert_refused(pilot, table, notes, pilot.press("1"), "you must first pay 1 card from your hand onto row 1")


async def test_the_mouse_takes_a_row_and_pays_for_it() -> None:
    table = table_at(TREE, 3, 2, my_turn("turn"))
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        screen = app.screen
        held = my_hand(screen.snapshot)
        await pilot.click("#ct-row-lines", offset=(2, 1))
        await wait_for(pilot, lambda: screen.snapshot.view["phase"] == "pay")
        assert app.screen.query_one("#ct-row-lines", LineBox).line_look(1) == "pick"  # the row being taken
        item = next(t for t in TYPES if held[t])
        paid_onto_row_1 = len(screen.snapshot.view.zone("row.0")) + 1
        await pilot.click("#ct-hand-lines", offset=(2, TYPES.index(item)))
        await wait_for(pilot, lambda: not screen.snapshot.my_turn)
        view = screen.snapshot.view
        assert len(view.zone("row.0")) == paid_onto_row_1 and view.faces_in("row.0")[-1] == item
        assert any(e.kind == "take" and e.seat == 0 for e in screen.snapshot.log)


async def test_the_mouse_plays_a_set_from_the_list_and_from_the_hand() -> None:
    def two_kinds_of_set(s: Snapshot) -> bool:
        return my_turn("turn")(s) and len({p.item for p in offered_sets(my_hand(s))}) >= 2

    def my_scores() -> list[str]:
        return [e.text for e in app.screen.snapshot.log if e.kind == "score" and e.seat == 0]

    app = XmasApp(table=table_at(TREE, 3, 1, two_kinds_of_set))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        board = board_of(app)
        hand = my_hand(app.screen.snapshot)

        def sets_left_after(play: Play) -> list[Play]:
            rest = hand - Counter({play.item: play.naturals, SANTA: play.santas})
            return [p for p in offered_sets(rest) if p.item != play.item]

        # A set from the list that leaves a set of another type in my hand.
        slot = next(i for i, p in enumerate(board.offered) if sets_left_after(p))
        first = board.offered[slot]
        later = sets_left_after(first)
        await pilot.click("#ct-set-lines", offset=(2, slot))
        await wait_for(pilot, lambda: len(my_scores()) == 1)
        assert my_scores()[0].startswith(f"Ann plays {set_words(first)} and scores")
        assert app.screen.snapshot.view["phase"] == "play"
        # A click on a type in my hand plays its biggest set.
        await pilot.click("#ct-hand-lines", offset=(2, TYPES.index(later[0].item)))
        await wait_for(pilot, lambda: len(my_scores()) == 2)
        assert my_scores()[1].startswith(f"Ann plays {set_words(later[0])} and scores")


async def test_my_screen_shows_other_players_only_as_counts() -> None:
    table = table_at(TREE, 4, 40, lambda s: s.my_turn and s.view["turns"] >= 8)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        await pilot.pause(0.1)
        snapshot = app.screen.snapshot
        # The players panel: a name, Points and how many cards; never a face.
        lines = text_of(app, "#players-panel").splitlines()
        for seat, name in enumerate(table.players[1:], start=1):
            at = next(i for i, line in enumerate(lines) if name in line)
            assert re.fullmatch(rf"\s*(▶ )?{name}( ⚑)?\s+\d+ points?\s*", lines[at])
            held = len(snapshot.view.zone(f"hand.{seat}"))
            assert re.fullmatch(rf"\s*{held} cards? in hand\s*", lines[at + 1])
        # My hand panel: my own counts, type by type.
        mine = my_hand(snapshot)
        for item, line in zip(TYPES, text_of(app, "#ct-hand-lines").splitlines(), strict=True):
            assert line.rstrip().endswith(str(mine[item]))
        # Change every face in the other hands: not one cell on my screen may change.
        before = await settled_screenshot(pilot, app)
        cards = table.state.cards
        for seat in range(1, 4):
            for handle in cards.zone(f"hand.{seat}"):
                cards._faces[handle] = TYPES[(TYPES.index(cards._faces[handle]) + 1) % len(TYPES)]
        table.refresh()
        await pilot.pause(0.1)
        assert await settled_screenshot(pilot, app) == before
        # The same change to my own hand shows at once (the comparison can see a change).
        for handle in cards.zone("hand.0"):
            cards._faces[handle] = TYPES[(TYPES.index(cards._faces[handle]) + 1) % len(TYPES)]
        table.refresh()
        await pilot.pause(0.1)
        assert app.export_screenshot() != before


async def test_a_surprise_that_took_my_cards_is_spelled_out_on_my_turn() -> None:
    def surprised(s: Snapshot) -> bool:
        return my_turn("turn")(s) and any(e.kind == "surprise" and e.seat == 0 for e in s.log[-6:])

    app = XmasApp(table=table_at(TREE, 4, 40, surprised))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        moment = text_of(app, "#ct-moment")
        assert moment.startswith(" Surprise! ")
        assert "Ivy scored ★, draws 6" in moment and "you −3★" in moment


async def test_my_own_surprise_is_spelled_out_at_once_while_i_play_on() -> None:
    """After you score, … they must discard half of them! Then, for each card they have
    discarded, you can draw one card from the deck as a reward. (Each set makes its
    Surprise! at once, so the board shows it while I may play on.)"""

    def after_my_surprise(s: Snapshot) -> bool:
        return my_turn("play")(s) and s.log[-1].kind == "reward"

    app = XmasApp(table=table_at(TREE, 3, 38, after_my_surprise))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        moment = text_of(app, "#ct-moment")
        assert moment.startswith(" Surprise! ") and "you scored Ψ, draw 4" in moment
        assert "Holly −2Ψ" in moment and "Noel −2Ψ" in moment
        prompt = text_of(app, "#prompt")
        assert "Each set makes a Surprise! at once. Press d when you are done." in prompt


async def test_the_final_plays_are_announced() -> None:
    app = XmasApp(table=table_at(TREE, 3, 4, my_turn("final")))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert "Final plays" in text_of(app, "#status")
        assert "no Surprise!" in text_of(app, "#ct-moment")
        assert "Final plays" in text_of(app, "#prompt")


async def test_the_rows_say_their_keys_take_a_row_only_on_my_turn() -> None:
    """"Rows · 1-5 take" is said while 1-5 take a row: on my turn, not while another player
    takes one (the keys then only say why not)."""
    app = XmasApp(table=table_at(TREE, 3, 6, lambda s: not s.my_turn and s.view["phase"] == "turn"), theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        rows = app.screen.query_one("#ct-rows")
        assert rows.border_title == "Rows"
    app = XmasApp(table=table_at(TREE, 3, 6, my_turn("turn")), theme="dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        assert app.screen.query_one("#ct-rows").border_title == "Rows · 1-5 take"


async def test_while_paying_for_a_row_the_key_bar_offers_paying_only() -> None:
    """Taking a row and playing sets are not what my turn is for while I pay: the bar says how
    to pay, and leaves out Take, Play and Done."""
    from xmas_tui.ui.keybar import KeyBar

    table = table_at(TREE, 3, 3, lambda s: my_turn("pay")(s) and s.view["paid"] == 0)
    app = XmasApp(table=table)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        bar = str(app.screen.query_one(KeyBar).render())
        assert "←→⏎ Pay" in bar
        assert "Take" not in bar and "Play" not in bar and "Done" not in bar
