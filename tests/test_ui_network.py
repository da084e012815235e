"""Two apps in one process, one hosting and one joining, play a game over loopback."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from netcode.session.seats import SeatState
from netcode.tools.flood import Flood
from netcode.tools.guesses import guesses_that_fit
from xmas_tui.bots import make_bot
from xmas_tui.games import Result, Rng, get_game
from xmas_tui.tables.headless import summary
from xmas_tui.tables.network import JoinError, NetTable
from xmas_tui.tables.seatbot import play_seat
from xmas_tui.ui.app import XmasApp
from xmas_tui.ui.screens.dialogs import BotsFinishScreen, ConfirmScreen, EndScreen, HandOverScreen
from xmas_tui.ui.screens.lobby import LobbyScreen
from xmas_tui.ui.screens.network import HostScreen, JoinScreen, big, failed_joins_line
from xmas_tui.ui.screens.table import TableScreen

from .netkit import bot_for, free_port, joiner, loopback_host
from .test_ui import keys_for
from .uikit import bob_joins

CHIP = get_game("chip-n-dale")


@contextlib.asynccontextmanager
async def hosting(monkeypatch, *, players: int, pace: float, **options: object):  # noqa: ANN001, ANN201
    """An app hosting Chip 'n' Dale on loopback as Ann (her seat's bot ``pace`` seconds a move),
    once its table is open: ``(app, pilot)``."""
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    host = XmasApp(host=dict(game=CHIP, players=players, code="HOLY-2345", name="Ann", port=0, **options))
    host.pace = pace
    async with host.run_test(size=(80, 24)) as pilot:
        await until((pilot,), lambda: host.hosting is not None and host.hosting.table is not None, 10)
        yield host, pilot


@contextlib.asynccontextmanager
async def hosting_two_guests(monkeypatch):  # noqa: ANN001, ANN201
    """Ann hosts three seats in an app; Bob and Cy join from NetTables and the game is dealt, so
    she could hand the table over: ``(app, pilot, guests, their tables)``."""
    async with hosting(monkeypatch, players=3, pace=5.0) as (host, pilot):
        guests = [joiner(host.hosting, name, code="HOLY-2345") for name in ("Bob", "Cy")]
        try:
            tables = [await guest.join() for guest in guests]
            await pilot.press("ctrl+s")
            await until((pilot,), lambda: isinstance(host.screen, TableScreen) and all(t.ready for t in tables), 10)
            await until((pilot,), lambda: host.hosting.can_hand_over, 10)
            yield host, pilot, guests, tables
        finally:
            for guest in guests:
                await guest.close()


async def until(pilots, condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + max(seconds, 30.0)  # (what takes a second may take many on a busy machine)
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        for pilot in pilots:
            await pilot.pause(0.01)


async def test_a_host_and_a_joiner_play_a_whole_game_from_their_own_terminals(monkeypatch) -> None:
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    host = XmasApp(host=dict(game=CHIP, players=3, code="HOLY-2345", name="Ann", port=0))
    host.pace = 0.05  # the bot seat leaves the apps idle moments between moves
    joiner = XmasApp(join=dict(code="holy-2345", name="Bob"))
    players = {id(host): make_bot(CHIP.id, "smart", 0, Rng("ann")), id(joiner): make_bot(CHIP.id, "smart", 1, Rng("bob"))}
    async with host.run_test(size=(80, 24)) as ph, joiner.run_test(size=(80, 24)) as pj:
        pilots = (ph, pj)
        await until(pilots, lambda: isinstance(host.screen, HostScreen) and host.hosting is not None)
        code_text = str(host.screen.query_one("#code-big").render())
        assert big("HOLY-2345").splitlines()[0].strip() in code_text
        await until(pilots, lambda: isinstance(joiner.screen, JoinScreen) and bool(joiner.screen.heard))
        await pj.press("ctrl+t")
        await until(pilots, lambda: any(r.state is SeatState.HERE and r.name == "Bob" for r in host.hosting.roster()))
        await ph.press("ctrl+s")
        await until(pilots, lambda: isinstance(host.screen, TableScreen) and isinstance(joiner.screen, TableScreen))
        # Each terminal sees only its own seat.
        assert host.screen.snapshot.view.seat == 0 and joiner.screen.snapshot.view.seat == 1
        deadline = time.monotonic() + 300
        while not (isinstance(host.screen, EndScreen) and isinstance(joiner.screen, EndScreen)):
            assert time.monotonic() < deadline
            for app, pilot in ((host, ph), (joiner, pj)):
                screen = app.screen
                if not isinstance(screen, TableScreen):
                    continue
                snapshot = screen.snapshot
                if snapshot.my_turn and snapshot.result is None:
                    action = players[id(app)].choose(snapshot.view, list(snapshot.legal))
                    before = len(snapshot.log)
                    for key in keys_for(action, screen.board):
                        await asyncio.wait_for(pilot.press(key), 30)
                    await until(pilots, lambda s=screen, b=before: len(s.snapshot.log) > b or s.snapshot.result is not None or not s.snapshot.my_turn)
            await ph.pause(0.01)
        assert host.current.snapshot().result == joiner.current.snapshot().result


async def test_a_join_with_address_and_code_on_the_command_line_sits_down_at_once(monkeypatch) -> None:
    async with bob_joins(monkeypatch, 3) as (host, app, pilot):
        await until((pilot,), lambda: any(r.state is SeatState.HERE and r.name == "Bob" for r in host.roster()), 10)
        # (the host seats Bob a moment before his screen hears it)
        await until((pilot,), lambda: isinstance(app.screen, JoinScreen) and app.screen.joined is not None, 10)


@contextlib.asynccontextmanager
async def two_tables(monkeypatch, codes: dict[str, str]):  # noqa: ANN001, ANN201
    """Tables of Chip 'n' Dale hosted on this machine (host name: code), and Bob's join screen
    once it has heard them all: ``(hosts, app, pilot)``."""
    discovery = ("127.0.0.1", free_port())
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"{discovery[0]}:{discovery[1]}")
    hosts = {name: loopback_host(CHIP, 2, code=code, name=name, discovery=discovery) for name, code in codes.items()}
    app = XmasApp(join=dict(name="Bob"))
    try:
        for host in hosts.values():
            await host.open()
        async with app.run_test(size=(80, 24)) as pilot:
            await until((pilot,), lambda: isinstance(app.screen, JoinScreen) and len(app.screen.heard) == len(hosts), 10)
            yield hosts, app, pilot
    finally:
        for host in hosts.values():
            await host.close()


def attempts(host: NetTable) -> int:
    """Join handshakes begun at ``host``: a code tried there, right or wrong."""
    return host.runner.endpoint.counters["handshakes_started"]


async def test_the_join_screen_waits_in_the_code_field_and_enter_joins_the_table_it_opens(monkeypatch) -> None:
    """Two tables heard; the code typed (any typing of it) and Enter: Bob sits at the table
    that code opens, and the other host sees no attempt."""
    async with two_tables(monkeypatch, {"Holly": "SNOW-1234", "Noel": "STAR-2026"}) as (hosts, app, pilot):
        assert app.focused is app.screen.query_one("#code")
        await pilot.press(*"star 2026", "enter")
        await until((pilot,), lambda: app.screen.joined is not None, 10)
        assert any(r.name == "Bob" for r in hosts["Noel"].roster())
        assert attempts(hosts["Holly"]) == 0 and hosts["Noel"].failed_joins_total == 0


async def test_a_code_no_table_heard_opens_is_tried_nowhere_and_the_join_screen_keeps_listening(monkeypatch) -> None:
    async with two_tables(monkeypatch, {"Holly": "SNOW-1234", "Noel": "STAR-2026"}) as (hosts, app, pilot):
        await pilot.press(*"TREE-3579", "enter")  # (its tag fits neither: see test_net)
        status = app.screen.query_one("#join-status")
        await until((pilot,), lambda: "None of the 2 tables heard opens with code TREE-3579 yet" in str(status.render()), 5)
        assert app.screen.auto and app.screen.joined is None
        assert attempts(hosts["Holly"]) == attempts(hosts["Noel"]) == 0


async def test_when_two_tables_may_open_the_code_the_join_screen_asks_which(monkeypatch) -> None:
    """Two tables whose codes share a tag: Enter tries neither, says so and puts the list in
    Bob's hands; he chooses his with ↓ and Enter, and the other host sees no attempt."""
    twin = guesses_that_fit("SNOW-1234")[0]
    async with two_tables(monkeypatch, {"Holly": twin, "Noel": "SNOW-1234"}) as (hosts, app, pilot):
        await pilot.press(*"snow1234", "enter")
        status = app.screen.query_one("#join-status")
        await until((pilot,), lambda: "2 tables may open with code SNOW1234" in str(status.render()), 5)
        tables = app.screen.query_one("#tables")
        assert app.focused is tables and tables.highlighted == 0  # Holly's, first in the list
        assert app.screen.joined is None and attempts(hosts["Holly"]) == attempts(hosts["Noel"]) == 0
        await pilot.press("down", "enter")
        await until((pilot,), lambda: app.screen.joined is not None, 10)
        assert any(r.name == "Bob" for r in hosts["Noel"].roster())
        assert attempts(hosts["Holly"]) == 0


async def test_leaving_a_networked_game_asks_first_then_frees_the_seat(monkeypatch) -> None:
    """A joiner who leaves mid-game is asked first; once gone, the host marks the seat
    away (a bot takes it after the countdown) instead of waiting for them for ever."""
    async with bob_joins(monkeypatch, 2, pace=5.0) as (host, app, pilot):
        await until((pilot,), lambda: any(r.state is SeatState.HERE and r.name == "Bob" for r in host.roster()), 10)
        host.start()
        await until((pilot,), lambda: isinstance(app.screen, TableScreen), 10)
        await pilot.press("escape")
        await until((pilot,), lambda: isinstance(app.screen, ConfirmScreen) and app.screen.query("#confirm-question"))
        assert "bot takes your seat" in str(app.screen.query_one("#confirm-question").render())
        await pilot.press("escape")  # Escape once too often keeps the game
        await until((pilot,), lambda: isinstance(app.screen, TableScreen))
        assert all(r.state is not SeatState.AWAY for r in host.roster())
        session = app.current.session
        await pilot.press("escape", "y")
        await until((pilot,), lambda: isinstance(app.screen, LobbyScreen))
        await until((pilot,), lambda: any(r.name == "Bob" and r.state is SeatState.AWAY for r in host.roster()), 10)
        await until((pilot,), lambda: session.gone is not None, 5)
        assert session.gone == "You left the table."  # not "the host has gone silent"
        await pilot.pause(0.2)
        assert not [n for n in app._notifications if "silent" in str(n.message)]


async def test_a_host_who_closes_the_table_is_asked_and_the_joiner_is_told(monkeypatch) -> None:
    async with hosting(monkeypatch, players=2, pace=5.0) as (host, pilot):
        bob = joiner(host.hosting, "Bob", code="HOLY-2345")
        try:
            bob_table = await bob.join()
            await pilot.press("ctrl+s")
            await until((pilot,), lambda: isinstance(host.screen, TableScreen) and bob_table.ready, 10)
            await pilot.press("ctrl+q")  # quitting asks too
            await until((pilot,), lambda: isinstance(host.screen, ConfirmScreen) and host.screen.query("#confirm-question"))
            assert "ends the game for everyone" in str(host.screen.query_one("#confirm-question").render())
            await pilot.press("n")
            await until((pilot,), lambda: isinstance(host.screen, TableScreen))
            await pilot.press("escape", "y")
            # (issue 27.2) the game ends for everyone with the scores so far, audited and logged
            await until((pilot,), lambda: isinstance(host.screen, EndScreen))
            await until((pilot,), lambda: bob_table.session.final is not None, 10)
            result = Result.from_wire(bob_table.session.final.result)
            assert result.closed and len(result.scores) == 2
            assert bob_table.audit()["ok"] and host.current.audit()["ok"]
            assert "closed the table" in str(host.screen.query_one("#end-headline").render())
        finally:
            await bob.close()


async def test_a_host_who_leaves_hands_the_table_over_and_the_others_play_on(monkeypatch) -> None:
    """With two players at other machines, leaving asks whether to hand the table over: they
    elect a new host at once, are told who, and play the same game to its end."""
    async with hosting_two_guests(monkeypatch) as (host, pilot, guests, tables):
        await pilot.press("escape")
        await until((pilot,), lambda: isinstance(host.screen, HandOverScreen))
        await pilot.press("h")
        await until((pilot,), lambda: isinstance(host.screen, LobbyScreen))
        await until((pilot,), lambda: all(g.failovers == 1 for g in guests), 10)
        notices = [n for t in tables for n in t.take_notices()]
        assert notices and all(n.startswith("Ann left and handed the table over; ") for n in notices)
        # (issue 27.8: the new host's own screen says "you")
        assert sorted(n.split("; ")[1] for n in notices) == [f"{g.name} now hosts it." for g in guests if g.hosting] + [
            "you now host it."]
        for table in tables:  # the same game goes on: a bot has Ann's seat
            assert table.problem is None
            assert table.session.roster[0].state is SeatState.BOT
        await asyncio.gather(*(play_seat(t, bot_for(t, "random"), wait=120) for t in tables))
        assert len({t.session.final.digest for t in tables}) == 1
        assert all(summary(t, role="test")["audit"]["ok"] for t in tables)


async def test_a_host_who_hands_over_and_quits_is_told_so_in_the_terminal(monkeypatch) -> None:
    """Issue 27.8: Ctrl+Q, then Hand over, leaves the app; the terminal it leaves says what became
    of the table and how to sit down again (``run_app`` prints ``farewell``)."""
    async with hosting_two_guests(monkeypatch) as (host, pilot, guests, _):
        assert host.farewell is None
        await pilot.press("ctrl+q")
        await until((pilot,), lambda: isinstance(host.screen, HandOverScreen))
        await pilot.press("h")
        await until((pilot,), lambda: host.farewell is not None, 10)
        assert "You handed the table over" in host.farewell and "same name" in host.farewell
        await until((pilot,), lambda: all(g.failovers == 1 for g in guests), 10)


async def test_a_turn_timer_counts_down_plays_for_a_silent_player_and_lets_them_back(monkeypatch) -> None:
    """Everyone sees the countdown of the player to act; a bot plays a turn whose time ran out;
    after two in a row the player is told they are idle, and any key brings them back."""
    async with hosting(monkeypatch, players=2, pace=0.05, turn_time=1.0) as (host, pilot):
        await pilot.press("ctrl+s")  # a bot takes the other seat
        await until((pilot,), lambda: isinstance(host.screen, TableScreen), 10)
        screen = host.screen
        await until((pilot,), lambda: "⏱ you:" in str(screen.query_one("#status").render()), 20)
        await until((pilot,), lambda: host.current.idle, 30)  # two turns in a row left to the timer
        assert "Your time ran out twice" in str(screen.query_one("#status").render())
        log = "\n".join(e.text for e in screen.snapshot.log)
        assert "Ann's time is up: a bot plays this turn for them." in log
        assert "Ann let the timer run out twice" in log
        await pilot.press("left")  # any key
        await until((pilot,), lambda: not host.current.idle, 10)
        await until((pilot,), lambda: "Ann is back at the keyboard." in "\n".join(e.text for e in screen.snapshot.log), 10)


async def test_the_leave_question_shows_the_turn_timer_that_runs_on_under_it(monkeypatch) -> None:
    """The table does not stop for one player's question: the dialog says so, and counts down
    whose time runs, each second, as the status bar under it does."""
    async with hosting(monkeypatch, players=2, pace=0.05, turn_time=60.0) as (host, pilot):
        await pilot.press("ctrl+s")  # a bot takes the other seat
        await until((pilot,), lambda: isinstance(host.screen, TableScreen), 10)
        await until((pilot,), lambda: "⏱ you" in str(host.screen.query_one("#status").render()), 20)
        await pilot.press("escape")
        await until((pilot,), lambda: isinstance(host.screen, (ConfirmScreen, HandOverScreen)))
        line = host.screen.query_one("#dialog-clock")
        said = str(line.render())
        assert said.startswith("The game goes on while you choose: ⏱ your turn has ") and " s left." in said
        await until((pilot,), lambda: str(line.render()) != said, 5)  # (a second later, a second less)
        await pilot.press("n")  # stay: the game was never paused
        await until((pilot,), lambda: isinstance(host.screen, TableScreen))


async def test_the_host_hands_a_seat_to_a_bot_and_back_and_every_peer_sees_it(monkeypatch) -> None:
    async with hosting(monkeypatch, players=2, pace=5.0) as (host, pilot):
        bob = joiner(host.hosting, "Bob", code="HOLY-2345")
        try:
            await bob.join()
            await pilot.press("ctrl+s")
            await until((pilot,), lambda: isinstance(host.screen, TableScreen), 10)
            commands = {c.title: c for c in host.seat_commands()}
            assert set(commands) == {"Bot plays Ann", "Bot plays Bob"}
            commands["Bot plays Bob"].callback()
            await until((pilot,), lambda: bob.roster()[1].state is SeatState.BOT, 10)
            back = {c.title: c for c in host.seat_commands()}["Give Bob their seat back"]
            back.callback()
            await until((pilot,), lambda: bob.roster()[1].state is SeatState.HERE, 10)
            assert "The host hands Bob's seat to a bot." in [e[1] for e in bob.session.log]
        finally:
            await bob.close()


async def test_the_host_sees_each_failed_join_attempt_in_the_waiting_room_and_at_the_table(monkeypatch) -> None:
    """Issue 13: guessing is visible. A real joiner with a wrong code, on loopback: the host's
    waiting room says so at once ("1 failed join attempt from 127.0.0.1"), and so does the
    host's table, quietly under the players, as further attempts come in."""
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    host = XmasApp(host=dict(game=CHIP, players=2, code="HOLY-2345", name="Ann", port=0))
    host.pace = 5.0

    async def guess(code: str) -> None:
        intruder = joiner(host.hosting, "Grinch", code=code, address=("127.0.0.1", host.hosting.address[1]))
        try:
            with pytest.raises(JoinError, match="could not prove it knows the code"):
                await intruder.join(timeout=5.0)
        finally:
            await intruder.close()

    def shown(selector: str) -> str:
        return str(host.screen.query_one(selector).render())

    async with host.run_test(size=(80, 24)) as pilot:
        await until((pilot,), lambda: host.hosting is not None and host.hosting.table is not None, 10)
        assert shown("#host-failed") == ""  # nobody has tried yet: nothing is said
        first, second, third = guesses_that_fit("HOLY-2345", 3)  # (guesses whose tag fits: tried at the host)
        await guess(first)
        await until((pilot,), lambda: "1 failed join attempt from 127.0.0.1" in shown("#host-failed"), 5)
        await guess(second)
        await until((pilot,), lambda: "2 failed join attempts from 127.0.0.1" in shown("#host-failed"), 5)
        await pilot.press("ctrl+s")  # a bot takes the open seat
        await until((pilot,), lambda: isinstance(host.screen, TableScreen), 10)
        line = host.screen.query_one("#failed-joins")
        assert line.display and "2 failed join attempts from 127.0.0.1" in str(line.render())
        await guess(third)
        await until((pilot,), lambda: "3 failed join attempts from 127.0.0.1" in str(line.render()), 5)
        assert host.hosting.failed_joins_total == 3


def test_the_list_of_tables_says_whether_each_waits_plays_or_is_over() -> None:
    from xmas_tui.tables.network import TableInfo
    from xmas_tui.ui.screens.network import table_state

    waiting = TableInfo(b"table-01", CHIP.id, CHIP.title, "Ann", 4, 1, 4000, 7, code_tag=0)
    assert table_state(waiting) == ""
    assert table_state(waiting.__class__(**{**waiting.__dict__, "started": True})) == " · playing"
    assert table_state(waiting.__class__(**{**waiting.__dict__, "started": True, "over": True})) == " · game over"


def test_the_hosts_quiet_line_says_what_the_door_holds_before_who_failed() -> None:
    failed = ["3 failed join attempts from 127.0.0.1", "1 failed join attempt from 127.0.0.2"]
    assert failed_joins_line([], "") == ""
    assert failed_joins_line([], "busy: 2 join attempts waiting from 2 addresses") == (
        "⚠ busy: 2 join attempts waiting from 2 addresses")
    assert failed_joins_line(failed, "busy") == (
        "⚠ busy · 3 failed join attempts from 127.0.0.1 (and from 1 more address)")


async def test_the_host_sees_a_flood_at_the_door_that_holds_nothing(monkeypatch) -> None:
    """Issue 26: forged INITs from a hundred loopback addresses (127.0.0.2 onwards) that never
    answer the RETRY: the host's waiting room says the door turns them away, and counts no
    failed attempt of theirs."""
    monkeypatch.setenv("XMAS_TUI_DISCOVERY", f"127.0.0.1:{free_port()}")
    host = XmasApp(host=dict(game=CHIP, players=2, code="HOLY-2345", name="Ann", port=0))
    async with host.run_test(size=(80, 24)) as pilot:
        await until((pilot,), lambda: host.hosting is not None and host.hosting.table is not None, 10)
        shown = host.screen.query_one("#host-failed")
        flood = Flood(("127.0.0.1", host.hosting.address[1]), host.hosting.peer_id, sources=100)
        stop = asyncio.Event()
        flooding = asyncio.create_task(flood.run_async(500.0, stop))
        try:
            await until((pilot,), lambda: "unproven joins a second turned away" in str(shown.render()), 5)
        finally:
            stop.set()
            await flooding
            flood.close()
        assert str(shown.render()).startswith("⚠ ") and host.hosting.failed_joins_total == 0


async def test_the_last_player_at_a_hosted_table_lets_bots_finish_it(monkeypatch) -> None:
    """Issue 27.2: a host whose other seats are all bots is the last player: leaving asks whether
    bots should finish the game (or close it, or stay). Bots finish at once; the end screen
    follows, its result a real end (not closed early), audited."""
    async with hosting(monkeypatch, players=3, pace=5.0) as (host, pilot):
        await pilot.press("ctrl+s")  # bots take the open seats
        await until((pilot,), lambda: isinstance(host.screen, TableScreen) and host.current.snapshot().view is not None)
        await pilot.press("escape")
        await until((pilot,), lambda: isinstance(host.screen, BotsFinishScreen))
        await pilot.press("b")
        await until((pilot,), lambda: isinstance(host.screen, EndScreen), 120)
        result = host.current.snapshot().result
        assert result is not None and not result.closed
        assert any("leaves: bots finish the game" in e.text for e in host.current.snapshot().log)
        assert host.current.audit()["ok"]
