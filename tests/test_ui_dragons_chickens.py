"""Dragons & Chickens on screen: keys pressed against bots, timed from the painted reveal."""

from __future__ import annotations

import time

import pytest
from textual import events

from xmas_tui.cli import local_names, main
from xmas_tui.games import IllegalAction, get_game
from xmas_tui.games.dragons_chickens import (
    CHEST,
    LINGER_MS,
    NAME,
    SHIELD,
    SLAP,
    WINDOW_MS,
    Presses,
    card,
    counts_of,
    last_round,
    most_abundant,
)
from xmas_tui.names import default_name
from xmas_tui.tables.local import LocalTable
from xmas_tui.ui.app import XmasApp, seat_names
from xmas_tui.ui.boards.base import BoxRow
from xmas_tui.ui.boards.dragons_chickens import DragonsChickensBoard
from xmas_tui.ui.boards.dragons_chickens_keys import BLOCKS, Window
from xmas_tui.ui.boards.dragons_chickens_round import DragonsChickensRound
from xmas_tui.ui.screens.table import TableScreen

from .uikit import wait_for

DC = get_game("dragons-chickens")
FAST = 0.05  # the table's pace: the result stays up 0.15 s between rounds


def board_of(app: XmasApp) -> DragonsChickensBoard:
    screen = app.screen
    assert isinstance(screen, TableScreen)
    return screen.query_one(DragonsChickensBoard)


def result_shown(app: XmasApp) -> bool:
    """Whether the last round's result is up, over the table."""
    shown = app.screen.query(DragonsChickensRound)
    return bool(shown) and shown.first().shown


def window_open(app: XmasApp, rnd: int | None = None) -> bool:
    if not app.screen_stack or not any(isinstance(s, TableScreen) for s in app.screen_stack):
        return False
    window = board_of(app).window
    return window is not None and (rnd is None or window.round == rnd)

def before_round(rnd: int):
    """Stop where round ``rnd`` is next: the last round's result up, between rounds (or the first room)."""
    return lambda s: s.view["round"] == rnd or (s.view["round"] == rnd - 1 and s.view["phase"] == "pause")


def app_at_round(rnd: int, seed: int = 1) -> XmasApp:
    """A 4-seat table (Ann at seat 0, bots waiting) played forward to just before round ``rnd``."""
    table = LocalTable(DC, seat_names("Ann", 4), 0, seed=seed, pace=4.0)
    table.autoplay(before_round(rnd))
    return XmasApp(table=table)


async def open_window(pilot, app: XmasApp, rnd: int | None = None) -> DragonsChickensBoard:
    """Dismiss the last round's result and wait until the reveal of ``rnd`` takes presses.

    At a fast pace the result dismisses itself after a moment, which a busy
    machine may let pass unseen: then there is nothing left to dismiss."""
    await wait_for(pilot, lambda: result_shown(app) or window_open(app, rnd))
    if result_shown(app):
        await pilot.press("enter")
    await wait_for(pilot, lambda: window_open(app, rnd))
    return board_of(app)



def right_key(board: DragonsChickensBoard, block: int = 0) -> tuple[str, int, int]:
    """The key a sharp player presses for the room on the board: (key, input, target)."""
    keys = BLOCKS[block]
    revealed = board.revealed()
    if any(card(f).dragon for f in revealed.values()):
        return keys.shield, SHIELD, 0
    leaders = most_abundant(counts_of(revealed.values()))
    if len(leaders) > 1:
        return keys.chest, CHEST, 0
    return keys.treasures[leaders[0]], NAME, leaders[0]


def key_times(log: list[tuple[str, float]]):
    def hook(message) -> None:
        if isinstance(message, events.Key) and (message.key, message.time) not in log:
            log.append((message.key, message.time))

    return hook


def rendered(app: XmasApp) -> str:
    board = board_of(app)
    return "\n".join(str(w.render()) for w in board.query("Static"))


# ---------------------------------------------------------------- the window, with a made-up clock


def test_the_clock_starts_when_the_reveal_is_drawn_and_earlier_keys_do_not_count() -> None:
    window = Window(3, opened_at=100.0, seats=[0], dragon=False, cards=[0, 1, 2])
    assert window.press(0, NAME, 4, at=99.98) == "early"
    assert window.press(0, NAME, 4, at=100.612) == "ok"
    assert window.seal(0) == Presses.of((NAME, 4, 612))


def test_your_presses_are_sealed_a_moment_after_your_first_one() -> None:
    window = Window(1, opened_at=10.0, seats=[0], dragon=False, cards=[0, 1])
    assert window.closes_at(0) == pytest.approx(10.0 + WINDOW_MS / 1000), "no press: the whole window"
    window.press(0, SLAP, 1, at=10.4)
    assert window.closes_at(0) == pytest.approx(10.4 + LINGER_MS / 1000)
    window.press(0, NAME, 2, at=10.9)
    assert window.due(10.4 + LINGER_MS / 1000 - 0.01) == []
    assert window.due(10.4 + LINGER_MS / 1000) == [0]
    assert window.press(0, NAME, 3, at=11.0) == "again", "one voice: a second shout does nothing"
    assert window.seal(0) == Presses.of((SLAP, 1, 400), (NAME, 2, 900))
    assert window.press(0, CHEST, 0, at=11.1) == "sealed"


def test_a_dragon_round_waits_for_the_shield() -> None:
    window = Window(1, opened_at=0.0, seats=[0], dragon=True, cards=[0, 1])
    window.press(0, SLAP, 1, at=0.3)
    assert window.closes_at(0) == pytest.approx(WINDOW_MS / 1000), "a slap alone does not close it"
    window.press(0, SHIELD, 0, at=1.2)
    assert window.closes_at(0) == pytest.approx(1.2 + LINGER_MS / 1000)


def test_nothing_counts_after_the_room_closes() -> None:
    window = Window(1, opened_at=0.0, seats=[0], dragon=False, cards=[0, 1])
    assert window.press(0, NAME, 0, at=WINDOW_MS / 1000 + 0.01) == "closed"
    assert window.press(0, SLAP, 4, at=1.0) == "no-card"


# ---------------------------------------------------------------- whole rounds through the keys


async def test_rounds_against_bots_name_you_and_your_reaction_time() -> None:
    table = LocalTable(DC, seat_names("Ann", 4), 0, seed=11, pace=FAST)
    app = XmasApp(table=table)
    keys: list[tuple[str, float]] = []
    async with app.run_test(size=(80, 24), message_hook=key_times(keys)) as pilot:
        for _ in range(3):
            await wait_for(pilot, lambda: window_open(app))
            board = board_of(app)
            window = board.window
            assert window is not None
            rnd = window.round
            key, kind, target = right_key(board)
            await pilot.press(key)
            pressed = [t for k, t in keys if k == key][-1]
            await wait_for(pilot, lambda b=board, r=rnd: b.round_seen > r or b.snapshot.result is not None)
            record = last_round(board.snapshot.view.public)
            assert record is not None and record.round == rnd
            mine = [v for v in record.outcome.verdicts if v.seat == 0]
            ms = round((pressed - window.opened_at) * 1000)
            assert [(v.kind, v.target, v.ms) for v in mine] == [(kind, target, ms)]
            assert any("Ann " in line and f"at {ms} ms" in line for line in record.lines)
            assert f"{ms} ms Ann" in " ".join(rendered(app).split()), "the last round on the board"
            assert any("Ann " in e.text and f"at {ms} ms" in e.text for e in board.snapshot.log)


async def test_a_dragon_round_stays_open_until_your_hand_is_on_the_shield() -> None:
    app = app_at_round(5)  # Ivy's card shows a medium dragon
    async with app.run_test(size=(80, 24)) as pilot:
        board = await open_window(pilot, app, 5)
        assert "DRAGON" in rendered(app)
        await pilot.press("2")  # a shout: nothing while a dragon is out, and it does not close the window
        shouted = time.monotonic()
        await wait_for(pilot, lambda: time.monotonic() > shouted + LINGER_MS / 1000 + 0.2)
        assert board.window is not None and not board.window.hands[0].sealed
        assert 0 in board.snapshot.to_act
        await pilot.press("8")
        await wait_for(pilot, lambda: board.round_seen > 5)
        record = last_round(board.snapshot.view.public)
        assert record is not None and record.outcome.how == "dragon"
        verdicts = {v.kind: v.what for v in record.outcome.verdicts if v.seat == 0}
        assert verdicts[NAME] == "dragon"
        assert verdicts[SHIELD] in ("safe", "top")


async def test_two_players_share_the_keyboard_and_count_in_the_order_their_keys_arrive() -> None:
    table = LocalTable(DC, ["Ann", "Bo"], 0, humans=(0, 1), seed=4, pace=FAST)  # (no bot to beat them on a busy machine)
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: window_open(app, 1))
        board = board_of(app)
        assert board.window is not None and set(board.window.hands) == {0, 1}
        text = rendered(app)
        assert "Ann" in text and "Bo" in text and "q" in text and "u chest" in text
        bo_key, kind, target = right_key(board, block=1)
        ann_key, _, _ = right_key(board, block=0)
        await pilot.press(bo_key)
        await pilot.pause(0.05)  # well over 10 ms later: not a tie
        await pilot.press(ann_key)
        await wait_for(pilot, lambda: board.round_seen > 1)
        record = last_round(board.snapshot.view.public)
        assert record is not None
        by_seat = {v.seat: v for v in record.outcome.verdicts if v.seat in (0, 1) and v.kind == kind}
        assert by_seat[1].ms + 10 < by_seat[0].ms
        assert (by_seat[1].kind, by_seat[1].target) == (kind, target)
        assert by_seat[1].what == "won" or record.outcome.how == "dragon"
        assert by_seat[0].what in ("late", "safe")


async def test_keys_before_the_reveal_is_drawn_do_not_count_and_the_clock_starts_after_the_frame() -> None:
    table = LocalTable(DC, seat_names("Ann", 4), 0, seed=1, pace=4.0)
    table.autoplay(before_round(25))
    app = XmasApp(table=table)
    keys: list[tuple[str, float]] = []
    async with app.run_test(size=(80, 24), message_hook=key_times(keys)) as pilot:
        await wait_for(pilot, lambda: result_shown(app))
        board = board_of(app)
        frames: list[float] = []
        show = app._display

        def display(screen, renderable) -> None:
            frames.append(time.monotonic())
            show(screen, renderable)

        app._display = display  # type: ignore[method-assign]
        reveal = board._reveal
        revealed_at: list[float] = []

        def spy(rnd: int) -> None:
            revealed_at.append(time.monotonic())
            reveal(rnd)

        board._reveal = spy  # type: ignore[method-assign]
        await pilot.press("1", "3")  # mashed while last round's result is up: not counted
        await pilot.press("enter")
        await wait_for(pilot, lambda: window_open(app, 25))
        window = board.window
        assert window is not None and revealed_at
        assert any(revealed_at[0] < f <= window.opened_at for f in frames), "stamped after a frame with the cards"
        assert all(t < window.opened_at for k, t in keys if k in "13"), "the mashed keys came before"
        assert window.hands[0].inputs == {}
        key, kind, target = right_key(board)
        await pilot.press(key)
        pressed = [t for k, t in keys if k == key][-1]
        assert window.hands[0].inputs == {kind: (target, round((pressed - window.opened_at) * 1000))}


async def test_a_bots_sealed_presses_are_heard_each_at_its_own_time_and_never_sooner() -> None:
    """Live shouts: the bots seal their presses as the room opens; each is shouted to the table
    when its time comes (after the instant the room was drawn), never before."""
    table = LocalTable(DC, seat_names("Ann", 4), 0, seed=6, pace=FAST)
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: window_open(app, 1))
        board = board_of(app)
        assert board.snapshot.to_act == frozenset({0}), "the bots sealed at once"
        sealed = {s: DC.parse_action(table.state.cards.sealed(s)) for s in (1, 2, 3)}  # the test may look; the board may not
        timed = sorted((inp.ms, seat) for seat, presses in sealed.items() for inp in presses.inputs(seat))
        opened = table.host.live.at
        for seat in sealed:
            for handle in board.snapshot.view.zone(f"sealed.{seat}"):
                assert board.snapshot.view.face(handle) is None
        for _ in range(40):  # what has been heard at any moment is what was due by then, never more
            await pilot.pause(0.05)
            due = (time.monotonic() - opened) * 1000
            heard = [(h.ms, h.seat) for h in board.snapshot.heard]
            assert all(ms <= due for ms, _ in heard)
            shown = rendered(app)
            for ms, seat in timed:
                if ms > due + 50:
                    assert f"{ms} ms {short_name(board, seat)}" not in shown
        await wait_for(pilot, lambda: len(board.snapshot.heard) == len(timed))
        assert sorted((h.ms, h.seat) for h in board.snapshot.heard) == timed
        assert f"{board.player_name(board.snapshot.heard[-1].seat)}: " in str(board.query_one("#dc-head").render())


def short_name(board: DragonsChickensBoard, seat: int) -> str:
    from xmas_tui.ui.boards.dragons_chickens_text import short

    return short(board.player_name(seat), 6)


async def test_my_press_is_heard_by_the_table_as_i_make_it() -> None:
    """Live shouts: my press goes to the table the moment I make it (not when my presses are
    sealed), and comes back to every screen as a shout."""
    table = LocalTable(DC, seat_names("Ann", 4), 0, seed=6, pace=FAST)
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        board = await open_window(pilot, app, 1)
        key, kind, target = right_key(board)
        await pilot.press(key)
        await wait_for(pilot, lambda: any(h.seat == 0 for h in board.snapshot.heard))
        assert board.window is not None and not board.window.hands[0].sealed, f"heard {LINGER_MS} ms before the seal"
        assert 0 in table.host.rules.to_act()
        (mine,) = [h for h in board.snapshot.heard if h.seat == 0]
        assert mine.shout == [kind, target] and mine.ms == board.window.hands[0].inputs[kind][1]


async def test_a_click_on_the_dark_room_slaps_it_and_a_click_on_a_key_presses_it() -> None:
    app = app_at_round(25)  # Ivy's card is the dark room
    async with app.run_test(size=(80, 24)) as pilot:
        board = await open_window(pilot, app, 25)
        await pilot.click("#dc-row-0", offset=(3 * 12 + 4, 2))  # (Ivy's card: the fourth in the row)
        await wait_for(pilot, lambda: SLAP in board.window.hands[0].inputs)
        assert board.window.hands[0].inputs[SLAP][0] == 3
        chest = 7 + 3 * 6  # after the name and the six treasures of the legend
        await pilot.click("#dc-hands", offset=(chest, 0))
        await wait_for(pilot, lambda: CHEST in board.window.hands[0].inputs)


# ---------------------------------------------------------------- the table, the command line, the help


async def test_a_shared_table_plays_every_human_seat_from_here_and_bots_the_rest() -> None:
    table = LocalTable(DC, ["Ann", "Bo", "Cy"], 0, humans=(0, 1), seed=2)
    assert table.snapshot().seats == (0, 1) and table.snapshot().my_seats == (0, 1)
    assert [seat.state.value for seat in table.host.seats] == ["here", "here", "bot"]
    with pytest.raises(IllegalAction, match="not played from this terminal"):
        await table.send(Presses(), seat=2)
    await table.send(Presses.of((SHIELD, 0, 300)), seat=1)
    assert 1 not in table.snapshot().to_act
    table.autoplay(lambda s: s.view["round"] == 3)
    assert table.snapshot().view["round"] == 3


def test_the_names_of_the_people_at_one_keyboard() -> None:
    assert local_names(None, 1) == [default_name()]
    assert local_names(["Ann"], 3) == ["Ann", "Player 2", "Player 3"]
    assert local_names(None, 2) == ["Player 1", "Player 2"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chip-n-dale", "--local-players", "2"], "played by one person at a terminal"),
        (["play", "dragons-chickens", "--local-players", "4"], "at most 3 people share a keyboard"),
        (["play", "dragons-chickens", "--players", "2", "--local-players", "3"], "more than the 2 seats"),
        (["play", "dragons-chickens", "--local-players", "2", "--name", "Ann", "--name", "ANN"], "different names"),
        (["play", "dragons-chickens", "--name", "Ann", "--name", "Bo"], "2 names for 1 player"),
    ],
)
def test_a_bad_shared_keyboard_is_one_clear_line(args, message, capsys) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_the_rules_show_the_window_ruling_and_every_key_block(capsys) -> None:
    assert main(["rules", "dragons-chickens"]) == 0
    out = capsys.readouterr().out
    timed = next(r.ruling for r in DC.rulings if r.topic == "Timed presses")
    assert "sealed 1.5 s after your first one" in timed and "share one keyboard" in timed
    assert timed in " ".join(out.split())  # (wrapped to the terminal)
    keys = "\n".join(f"{key} {what}" for key, what in DC.keys)
    for block in BLOCKS:
        assert " ".join(block.treasures) in keys or "-".join(block.treasures[::5]) in keys
        for key in (block.chest, block.shield, block.slap):
            assert key in keys


async def test_with_two_dark_rooms_out_the_slap_waits_for_the_key_shown_on_the_card() -> None:
    app = app_at_round(10)  # two dark rooms
    async with app.run_test(size=(80, 24)) as pilot:
        board = await open_window(pilot, app, 10)
        darks = sorted(s for s, f in board.revealed().items() if card(f).torch)
        assert len(darks) == 2
        await pilot.press("9")
        assert board.window.hands[0].inputs == {}
        for seat in darks:
            assert str(seat + 1) in board.query_one("#dc-row-0", BoxRow).boxes[seat].subtitle.plain
        await pilot.press(str(darks[1] + 1))
        assert board.window.hands[0].inputs[SLAP][0] == darks[1]
        assert NAME not in board.window.hands[0].inputs, "the key picked the card, it was no shout"


async def test_the_last_room_ends_the_game_with_the_final_scores() -> None:
    from xmas_tui.games.dragons_chickens import pile_zone
    from xmas_tui.ui.screens.dialogs import EndScreen

    table = LocalTable(DC, seat_names("Ann", 4), 0, seed=3, pace=FAST)
    table.autoplay(lambda s: s.view["phase"] == "race" and not s.view.zone(pile_zone(0)))
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        board = await open_window(pilot, app)
        key, _, _ = right_key(board)
        await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(app.screen, EndScreen))
        assert board.snapshot.result is not None and board.window is None
        assert "game over" in board.status_line()


async def test_the_lobby_deals_dragons_and_chickens_against_bots() -> None:
    from textual.widgets import Select

    from xmas_tui.ui.screens.lobby import LobbyScreen

    app = XmasApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        app.screen.query_one("#game", Select).value = DC.id
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: window_open(app, 1))
        assert board_of(app).snapshot.view.game == DC.id


def in_the_lobby(app: XmasApp) -> bool:
    from xmas_tui.ui.screens.lobby import LobbyScreen

    return isinstance(app.screen, LobbyScreen)


@pytest.mark.parametrize(
    ("keys", "done"),
    [
        (("escape", "y"), in_the_lobby),  # leaving a game in play is asked first
        (("ctrl+q",), lambda app: not app.is_running),  # a local game is kept: nothing is asked
    ],
    ids=["escape-leaves-for-the-lobby", "ctrl-q-quits-though-the-result-is-a-dialog"],
)
async def test_between_rounds_the_keys_of_the_table_still_work(keys, done) -> None:
    table = LocalTable(DC, seat_names("Ann", 4), 0, seed=1, pace=4.0)
    table.autoplay(before_round(3))
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: result_shown(app))
        await pilot.press(*keys)
        await wait_for(pilot, lambda: done(app))


async def test_the_pace_keys_say_what_they_change_in_a_real_time_game() -> None:
    """Bots here react within each round's window: +/- sets how long a result stays up."""
    table = LocalTable(DC, seat_names("Ann", 4), 0, seed=1, pace=3.0)
    app = XmasApp(table=table)
    notes: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))
        app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
        await pilot.press("plus")
        await pilot.pause(0.05)
    assert table.pace == pytest.approx(2.0)
    assert notes == ["Each round's result now stays up 6.0 s (Enter: next room at once)."]


async def test_the_lobby_seats_people_sharing_the_keyboard() -> None:
    """Two people at one keyboard, each with their own keys, chosen in the lobby (not only
    with --local-players): seats 0 and 1 are theirs, bots take the rest."""
    from textual.widgets import Select

    from xmas_tui.ui.screens.lobby import LobbyScreen

    app = XmasApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LobbyScreen))
        lobby = app.screen
        assert not lobby.query("#keyboard")  # Chip 'n' Dale is one person's game per terminal
        lobby.query_one("#game", Select).value = DC.id
        await wait_for(pilot, lambda: bool(lobby.query("#keyboard")))
        lobby.query_one("#keyboard", Select).value = 2
        await pilot.pause()
        assert lobby.local == 2
        assert str(lobby.query_one("#players", Select).selection) == "4"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: window_open(app, 1))
        table = app.current
        assert table.humans == (0, 1) and [s.state.value for s in table.host.seats] == ["here", "here", "bot", "bot"]
        assert table.players[:2] == (default_name(), "Player 2")


async def test_a_burned_player_with_a_chicken_chooses_what_the_dragon_gets() -> None:
    """Ruling "Chickens": the burned player chooses between rounds, the cheaper offered first;
    here Ann gives the dragon the cards it wants (her second key) and keeps her chicken."""
    from xmas_tui.games.cards import EVERYONE
    from xmas_tui.games.dragons_chickens import DRAGON, loot_zone, pile_zone

    table = LocalTable(DC, seat_names("Ann", 4), 0, seed=3, pace=FAST)
    table.autoplay(lambda s: s.view["phase"] == "race" and any(card(f).dragon for f in DC.revealed(table.state).values()))
    state = table.state
    dragon = next(f for f in DC.revealed(state).values() if card(f).dragon)
    wanted = set(card(dragon).treasures)
    cards = state.cards
    hidden = [h for s in (1, 2, 3) for h in cards.zone(pile_zone(s))]  # taken from the bots' piles, for the test
    chicken = next(h for h in hidden if card(cards.face(h)).chicken and not wanted & set(card(cards.face(h)).treasures))
    treasures = [h for h in hidden if wanted & set(card(cards.face(h)).treasures) and not card(cards.face(h)).chicken][:2]
    for handle in (*treasures, chicken):
        cards.move(handle, loot_zone(0), visible=EVERYONE)
    table.refresh()
    app = XmasApp(table=table)
    async with app.run_test(size=(80, 24)) as pilot:
        board = await open_window(pilot, app)
        await pilot.press(BLOCKS[0].chest)  # not the shield: Ann is burned
        await wait_for(pilot, lambda: result_shown(app))
        dialog = app.screen.query_one(DragonsChickensRound)
        assert 0 in dialog.choices

        def shown() -> str:
            return dialog.query_one("#dc-choice").render().plain

        await wait_for(pilot, lambda: "the dragon is hungry" in shown())
        assert shown().index("your chicken") < shown().index("the 2 cards it wants"), "the cheaper first"
        await pilot.press(BLOCKS[0].treasures[1])  # the second offer: the cards
        await wait_for(pilot, lambda: set(treasures) <= set(table.state.cards.zone(DRAGON)))
        assert chicken in table.state.cards.zone(loot_zone(0))
        assert "Ann loses 2 cards showing" in " ".join(e.text for e in table.snapshot().log)
        assert board.fed == {0}, "and she was ready: her choice is not sent twice"


async def test_a_player_looks_through_their_loot_and_sees_what_each_dragon_would_take() -> None:
    """The table as the rulebook has it: a player's loot lies face up in front of them; here
    ``v`` shows it, with how many cards a dragon on each pair would take (or a chicken)."""
    from xmas_tui.games.dragons_chickens import dragon_offers, loot_zone
    from xmas_tui.ui.boards.dragons_chickens_round import DragonsChickensLoot
    from xmas_tui.ui.boards.dragons_chickens_text import dragon_faces

    app = app_at_round(20)
    async with app.run_test(size=(80, 24)) as pilot:
        board = await open_window(pilot, app, 20)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, DragonsChickensLoot))
        loot = board.snapshot.view.faces_in(loot_zone(0))
        text = app.screen.query_one("#dc-loot-text").render().plain
        assert f"{len(loot)} card" in text and "If a dragon burned you now" in text
        for face in dragon_faces():
            wants = next(offer for offer in dragon_offers(loot, face) if not offer.chicken)
            assert f"takes {len(wants.lost)} card" in text
        await pilot.press("tab")
        assert str(app.screen.query_one("#dc-loot-box").border_title).startswith(f"{board.player_name(1)}'s loot")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TableScreen))


def test_ring_and_pearl_differ_by_shape_not_only_by_colour() -> None:
    """The table as the rulebook has it: every treasure has a symbol of its own shape, one cell
    wide, so a screen without colour tells them apart: Ring a hollow ring ○, Pearl a solid ●."""
    from rich.console import Console

    from xmas_tui.games.dragons_chickens import TREASURE_NAMES
    from xmas_tui.ui.boards.dragons_chickens_text import SYMBOLS, card_body
    from xmas_tui.ui.theme import Inks

    assert SYMBOLS[:2] == ("○", "●") and len(set(SYMBOLS)) == len(TREASURE_NAMES)
    console = Console(width=20, color_system=None)
    assert all(console.measure(symbol).maximum == 1 for symbol in SYMBOLS)
    plain = card_body(Inks({}), "ring+pearl").plain  # the theme's default inks
    assert "○ Ring" in plain and "● Pearl" in plain


async def test_a_room_drawn_at_an_instant_is_told_in_the_log_no_sooner() -> None:
    """A networked table names the instant every terminal draws the next room (``room_in``):
    the log's line that names the room's cards waits for that instant too, or a player who
    reads the log could count the room before the others see it."""
    import dataclasses

    from xmas_tui.games import Event
    from xmas_tui.ui.screens.table import GameLog

    app = app_at_round(3)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_window(pilot, app, 3)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        screen.table.unsubscribe(screen._on_table_changed)  # (only this snapshot comes now)
        shown = screen.snapshot
        room = Event("reveal", "Round 4 — My-trea-sure! Ann Crown & Gold; Holly Ring & Ring.")
        screen.show_snapshot(dataclasses.replace(shown, log=(*shown.log, room), room_in=0.4))

        def told() -> bool:
            return any("Crown & Gold; Holly Ring" in line.plain for line in screen.query_one(GameLog)._entries)

        await pilot.pause(0.15)
        assert not told(), "the room's cards were in the log before the room was drawn"
        await wait_for(pilot, told, seconds=2.0)
