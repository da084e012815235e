"""No-peek tables over the network: the host orders and relays, the players' programs deal.

Issue 29: "The host runs the rules and no more" — "A curious host. A test drives a host
session through whole games of every game (in the simulator) and searches everything the
host program holds or receives for any face of another seat's card before the rules open
it." And: "Real processes on loopback for each game."
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from netcode.session.messages import VERSION, Hello, Refused
from xmas_tui.games import get_game
from xmas_tui.tables.audit import audit_log, normal
from xmas_tui.tables.simulation import SimTable

from .netkit import free_port, results_of, run_table
from .nopeekkit import search

#: the games of turns (Dragons & Chickens, played in real time: ``test_nopeek_races``)
TURN_GAMES = ("chip-n-dale", "christmas-carol", "christmas-game", "christmas-tree")


def _curious_host(table: SimTable) -> list[str]:
    """Everything the host's machine holds or received, the host's own player's program
    included, searched for a face of a card never shown to the host's player."""
    host_program = table.host.rules.machine  # type: ignore[union-attr]
    own = table.sessions[0].mental.machine  # type: ignore[union-attr]
    return search([own, host_program], 0)


@pytest.mark.parametrize("game_id", TURN_GAMES)
def test_a_no_peek_table_plays_to_the_end_and_the_host_learns_no_hidden_face(game_id: str) -> None:
    game = get_game(game_id)
    table = SimTable(game, 4 if game.max_players >= 4 else 3, no_peek=True, pace=0.2, seed=3)
    found: list[str] = []
    checks = 0
    original = table.host._pump_mental

    def pump() -> None:  # the search after every step of the host's program
        nonlocal checks
        original()
        rules = table.host.rules
        own = table.sessions[0].mental
        if rules is not None and rules.machine.replica.state is not None and own.machine is not None \
                and own.machine.replica.state is not None:  # fmt: skip
            found.extend(_curious_host(table))
            checks += 1

    table.host._pump_mental = pump  # type: ignore[method-assign]
    assert table.run(3600), "the table did not finish"
    assert checks > 20
    assert sorted(set(found)) == []
    finals = [s.final for s in table.sessions]
    assert all(f is not None for f in finals)
    assert len({f.digest for f in finals if f is not None}) == 1
    for session in table.sessions:
        assert session.alarm is None and not session.drops
        assert session.welcome is not None and session.welcome.no_peek
    assert table.host.rules.machine.audited  # type: ignore[union-attr]
    assert not table.host.shares, "a no-peek host splits no secret"


def test_the_host_program_is_sent_no_private_share_and_makes_none() -> None:
    """What the host relays: the private shares for a player's card go to every program, and
    only that player's program can use them; the host's program holds no key share."""
    table = SimTable(get_game("christmas-tree"), 3, no_peek=True, pace=0.2, seed=4)
    assert table.run(3600)
    host_program = table.host.rules.machine  # type: ignore[union-attr]
    assert host_program.ledger is not None and host_program.ledger.me is None
    assert host_program.replica.book.private == {}  # it plays no seat (no bots at this table)
    for session in table.sessions:
        machine = session.mental.machine  # type: ignore[union-attr]
        seat = session.seat
        for handle in machine.replica.book.private:
            assert (handle, seat) in machine.replica._shown


def test_a_program_without_a_key_cannot_sit_at_a_no_peek_table() -> None:
    table = SimTable(get_game("christmas-carol"), 3, no_peek=True, pace=0.2)
    step = table.host.receive("stranger", Hello(VERSION, "Noel", None, None, False, None).to_wire(), 0.0)
    refused = [m for _, m in step.sends if isinstance(m, Refused)]
    assert refused and "no-peek" in refused[0].why


def test_a_no_peek_log_is_audited_again_from_the_file_and_a_changed_answer_fails() -> None:
    table = SimTable(get_game("christmas-tree"), 3, no_peek=True, pace=0.2, seed=5)
    assert table.run(3600)
    from xmas_tui.tables.audit import seat_log

    log = normal(seat_log(table.sessions[1]))
    verdict = audit_log(log)
    assert verdict["ok"], verdict["failures"]
    assert verdict["checked"]["answers"] > 10 and verdict["checked"]["actions"] > 10
    claims = log["no_peek"]["claims"]
    flipped = next(i for i, (_, _, value) in enumerate(claims) if isinstance(value, bool))
    claims[flipped][2] = not claims[flipped][2]
    assert not audit_log(log)["ok"]


@pytest.mark.parametrize("game_id", ["chip-n-dale", "christmas-tree"])
def test_real_peers_on_loopback_deal_no_peek(game_id: str) -> None:
    results, _ = asyncio.run(run_table(game_id, 3, no_peek=True))
    assert {r["digest"] for r in results} == {results[0]["host_digest"]}
    for result in results:
        assert result["audit"]["ok"], result["audit"]["failures"]
        assert result["drops"] == {}
        assert "opened cards" in result["audit"]["summary"]


def _xmas(*args: str) -> subprocess.Popen:
    env = {**os.environ, "XMAS_TUI_DISCOVERY": f"127.0.0.1:{free_port()}"}
    return subprocess.Popen([sys.executable, "-m", "xmas_tui", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.parametrize("game_id", [*TURN_GAMES, "dragons-chickens"])
def test_real_processes_deal_no_peek(game_id: str, tmp_path) -> None:
    port = free_port()
    host = _xmas("host", game_id, "--headless", "--players", "2", "--code", "ELFS-2345", "--port", str(port),
                 "--bind", "127.0.0.1", "--no-peek", "--log", str(tmp_path / "host.json"))
    try:
        first = host.stdout.readline() if host.stdout else ""
        assert '"event": "table"' in first, host.stderr.read() if host.stderr else ""
        joined = _xmas("join", "--headless", "--address", f"127.0.0.1:{port}", "--code", "elfs2345", "--name", "Holly",
                       "--log", str(tmp_path / "join.json"))
        results = results_of({"host": host, "join": joined}, timeout=120)
    finally:
        if host.poll() is None:
            host.kill()
    assert results["host"]["digest"] == results["join"]["digest"]
    for result in results.values():
        assert result["audit"]["ok"] and "opened cards" in result["audit"]["summary"]
    verified = subprocess.run([sys.executable, "-m", "xmas_tui", "verify", str(tmp_path / "join.json")],
                              capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and "Fair play: OK" in verified.stdout


def test_a_program_that_holds_its_messages_back_is_named_within_the_stall_time() -> None:
    """"It never leaves a peer waiting with no deadline": Elf 2's program stops answering
    after a few moves; every other screen names it within ``MENTAL_STALL``."""
    from netcode.session.seat import MENTAL_STALL

    table = SimTable(get_game("christmas-tree"), 3, no_peek=True, pace=0.2, seed=6)
    program = table.sessions[2].mental
    machine_moves = lambda: len(program.machine.moves) if program.machine is not None else 0  # noqa: E731
    for name in ("take", "order", "sealed"):
        real = getattr(program, name)

        def silent(*args, _real=real):
            said = _real(*args)
            return [] if machine_moves() >= 4 else said

        setattr(program, name, silent)
    assert not table.run(300)
    for session in (table.sessions[0], table.sessions[1]):
        assert session.alarm is not None, "nobody said whom the deal waits for"
        assert "Elf 2's program" in session.alarm and f"{MENTAL_STALL:.0f} s" in session.alarm
    assert table.sessions[0].final is None


def test_a_watcher_checks_every_proof_too() -> None:
    """A watcher's program gets every message of the deal and checks every proof; its
    audit replays the game like a player's."""
    table = SimTable(get_game("chip-n-dale"), 3, spectators=1, no_peek=True, pace=0.2, seed=7)
    assert table.run(3600)
    watcher = table.sessions[-1]
    assert watcher.seat is None and watcher.alarm is None
    machine = watcher.mental.machine  # type: ignore[union-attr]
    assert machine.audited and machine.ledger is not None
    assert machine.ledger.checked["shuffle"] >= 3 and machine.ledger.checked["public"] > 20
    assert machine.replica.book.private == {}  # it was shown no card of anyone's
    assert table.figures()["audits_ok"]


def test_simulate_network_no_peek_from_the_command_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "xmas_tui", "simulate", "christmas-game", "--network", "--no-peek",
                           "--players", "3", "--loss", "0.1", "--json"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "XMAS_TUI_DISCOVERY": "127.0.0.1:9"})
    assert proc.returncode == 0, proc.stderr
    import json

    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["no_peek"] and figures["digests_equal"] and figures["audits_ok"] and figures["lost"] > 0


# ---------------------------------------------------------------- voices: the host speaks for nobody


def test_every_programs_voice_checks_what_the_host_passes_on() -> None:
    """Issue 26: "whatever one program sends, the honest peers ... stop with a clear message naming
    what went wrong and who did it." A move or a message in a seat's name must be signed by that
    seat's program, and its messages come in order: what a host makes up, changes, repeats or
    holds back is named."""
    from netcode.fairplay import Voice
    from netcode.session.voices import Voices

    holly, noel = Voice(), Voice()
    voices = Voices("t1", [holly.public, noel.public, None], ["Holly", "Noel", "Bot"])
    move = ["play", 3]
    assert voices.move(0, 1, move, holly.sign_move("t1", 0, 1, move)) is None
    assert voices.move(0, 1, move, holly.sign_move("t1", 0, 1, move)) == "Holly's move 1 a second time"
    assert voices.move(0, 2, ["play", 4], holly.sign_move("t1", 0, 2, move)) == (
        "a move in Holly's name that Holly's program did not sign")
    assert voices.move(1, 1, move, holly.sign_move("t1", 1, 1, move)) is not None  # (Holly's voice, Noel's seat)
    assert voices.move(1, 1, move, noel.sign_move("t2", 1, 1, move)) is not None  # (another table's move)
    assert voices.move(2, 7, move, None) is None  # (a bot's move: the host's program plays it)
    said = [noel.sign_saying("t1", 1, n, b"share %d" % n) for n in range(3)]
    assert voices.saying(1, 0, b"share 0", said[0]) is None
    assert voices.saying(1, 2, b"share 2", said[2]) == "Noel's message 3 while holding back message 2"
    assert voices.saying(1, 0, b"share 0", said[0]) == "Noel's message 1 a second time"
    assert voices.saying(1, 1, b"share X", said[1]) == "a message in Noel's name that Noel's program did not sign"
    assert voices.saying(1, 1, b"share 1", said[1]) is None
    assert voices.saying(3, 0, b"the host's own", None) is None  # (the host's program speaks for itself)


def test_a_host_refuses_a_move_its_players_program_did_not_sign() -> None:
    """The host checks a player's signature before it orders the move, so an honest host never
    passes on what every program would refuse."""
    from netcode.session.messages import Act, Verdict

    table = SimTable(get_game("christmas-game"), 3, no_peek=True, pace=0.5, seed=4)
    host = table.host
    table.net.run(120, stop=lambda: host.rules is not None and bool(host.rules.to_act() - {0}))
    seat = min(host.rules.to_act() - {0})  # type: ignore[union-attr]
    peer = next(p for p, g in host.guests.items() if g.seat == seat)
    step = host.receive(peer, Act(99, ["play", 1], None, b"\0" * 64).to_wire(), table.net.now)
    verdicts = [m for p, m in step.sends if p == peer and isinstance(m, Verdict)]
    assert verdicts == [Verdict(99, "Your program's signature on this move does not hold.")]
    assert seat in host.rules.to_act()  # type: ignore[union-attr]  # (nothing was played)


def test_a_host_that_names_another_voice_for_a_seat_is_caught_by_that_seats_program() -> None:
    from netcode.fairplay import Voice

    table = SimTable(get_game("chip-n-dale"), 3, no_peek=True, pace=0.2, seed=5)
    host, started = table.host, table.host._mental_started

    def lying() -> None:  # (at the deal: the host's own voice for Elf 2's seat)
        host.mental_voices[2] = Voice().public
        started()

    host._mental_started = lying  # type: ignore[method-assign]
    table.net.run(30)
    victim = next(s for s in table.sessions if s.seat == 2)
    assert victim.halted == "the host (Host) named another voice for my seat: it could speak in my name"
    assert victim.alarm is not None and victim.alarm.startswith("CHEATING DETECTED")
    others = [s for s in table.sessions[1:] if s is not victim]
    assert all(s.halted is not None and victim.name in s.halted for s in others), [s.halted for s in others]


@pytest.mark.parametrize("game_id", ["chip-n-dale", "christmas-tree"])
def test_a_player_gone_for_good_is_played_on_by_a_bot_on_the_host_program(game_id: str) -> None:
    """Issue 29: "A dropped seat's bot gets its hand the same way". Once a player's hold runs
    out, the host's own program (no player: it runs the bots) takes the seat; the two programs
    left (t = 2 of 3) open the seat's cards to it, and the game plays to its end, audited."""
    from xmas_tui.tables.audit import audit_seat

    table = SimTable(get_game(game_id), 3, no_peek=True, pace=3, seed=2, hold=10.0)
    table.net.run(20)
    table.nodes[2].crash()
    table.dead.add(2)
    gone = table.sessions[2].name
    table.net.run(3600, stop=lambda: all(s.final is not None for s in table.sessions[:2]))
    host_program = table.host.rules.machine  # type: ignore[union-attr]
    assert 2 in host_program.seats and host_program.handed == [(2, 3)]
    for session in table.sessions[:2]:
        assert session.final is not None and session.result is not None and not session.result.get("closed")
        assert session.halted is None and session.alarm is None, session.alarm
        assert any(f"A bot on the host's program plays {gone}'s seat" in entry[1] for entry in session.log)
        verdict = audit_seat(session)
        assert verdict["ok"], verdict["summary"]
        machine = session.mental.machine  # type: ignore[union-attr]
        assert search([machine], session.seat) == []
    assert len({s.final.digest for s in table.sessions[:2] if s.final is not None}) == 1


@pytest.mark.parametrize("game_id", ["chip-n-dale", "christmas-game"])
def test_a_player_gone_for_good_is_played_on_by_a_watchers_program_where_one_watches(game_id: str) -> None:
    """Issue 29: "[A dropped seat's bot] is run on a peer that is not a competing player
    wherever the table has one." A watcher's program takes the seat: its voice signs the
    bot's moves and its messages, the cards open to it, and the host's program learns none."""
    from xmas_tui.tables.audit import audit_seat

    table = SimTable(get_game(game_id), 3, spectators=1, no_peek=True, pace=3, seed=2, hold=10.0)
    table.net.run(20)
    table.nodes[2].crash()
    table.dead.add(2)
    gone = table.sessions[2].name
    table.net.run(3600, stop=lambda: all(s.final is not None for s in table.sessions if s is not table.sessions[2]))
    watcher = table.sessions[3]
    machine = watcher.mental.machine  # type: ignore[union-attr]
    assert watcher.program_id == 4 and machine.seats == {2}
    host_program = table.host.rules.machine  # type: ignore[union-attr]
    assert host_program.handed == [(2, 4)] and not host_program.seats
    assert host_program.replica.book.private == {} and search([host_program], None) == []
    assert search([machine], 2) == []  # (Elf 2's cards, and nothing more)
    for session in table.sessions[:2]:
        assert session.final is not None and session.result is not None and not session.result.get("closed")
        assert session.halted is None and session.alarm is None, session.alarm
        assert any(f"A bot on Watcher 1's machine (watching) plays {gone}'s seat" in entry[1] for entry in session.log)
        assert audit_seat(session)["ok"]
    assert watcher.halted is None and watcher.final is not None


def test_a_watcher_that_ran_a_seat_and_left_hands_it_on_to_the_host_program() -> None:
    table = SimTable(get_game("christmas-tree"), 3, spectators=1, no_peek=True, pace=3, seed=3, hold=10.0)
    table.net.run(20)
    table.nodes[2].crash()
    table.dead.add(2)
    table.net.run(3600, stop=lambda: table.sessions[3].program_id is not None)
    table.net.run(10)
    table.nodes[3].crash()
    table.dead.add(3)
    table.net.run(3600, stop=lambda: all(s.final is not None for s in table.sessions[:2]))
    host_program = table.host.rules.machine  # type: ignore[union-attr]
    assert host_program.handed == [(2, 4), (2, 3)] and host_program.seats == {2}
    for session in table.sessions[:2]:
        assert session.final is not None and session.halted is None and session.alarm is None
        assert any("A bot on the host's program plays Elf 2's seat" in entry[1] for entry in session.log)


def test_a_player_back_with_a_new_program_without_its_keys_is_told_why_and_the_game_goes_on() -> None:
    """A program started again without the keys its seat was dealt with (its seat file gone)
    holds no part of the deal: it is told so in one line, and the game goes on without it. It
    used to be seated, and then stopped every screen crying that the host cheated, or hung the
    table."""
    from xmas_tui.tables.simulation import Drop

    table = SimTable(get_game("christmas-tree"), 3, no_peek=True, pace=3, seed=5, hold=20.0)
    table.drop(Drop(seat_index=2, at=20.0, back_after=3.0))
    table.net.run(3600, stop=lambda: all(s.final is not None for s in table.sessions[:2]))
    for session in table.sessions[:2]:
        assert session.final is not None and session.halted is None and session.alarm is None
    assert table.sessions[2].refused == (
        "Seat 3 is Elf 2's, dealt no-peek by the program that sat down with it: this program has not its "
        "keys, so it holds no part of that deal and cannot take the seat back. Choose another name to watch.")


@pytest.mark.parametrize(("game_id", "how"), [("christmas-tree", "restart"), ("christmas-tree", "split"),
                                              ("chip-n-dale", "restart"), ("dragons-chickens", "restart")])
def test_a_player_back_with_its_programs_keys_takes_the_seat_back_and_plays_on(game_id: str, how: str) -> None:
    """A program started again with the keys kept on its machine (or a terminal that lost the
    host and joined again) takes its seat back: the host sends it the deal so far, its own
    messages among them, its program takes them as they were and plays on; a choice it had
    sent as a digest and not revealed is void, and it chooses again. Every screen ends alike."""
    from xmas_tui.tables.simulation import Drop

    table = SimTable(get_game(game_id), 3, no_peek=True, pace=1, seed=5, hold=30.0)
    if how == "restart":
        table.drop(Drop(seat_index=2, at=12.0, back_after=3.0, kept=True))
    else:
        table.split(12.0, [2], heal_after=6.0)
    assert table.run(3600)
    figures = table.figures()
    assert figures["digests_equal"] and figures["audits_ok"], figures
    back = table.sessions[2]
    assert back.refused is None and back.final is not None and back.alarm is None and back.halted is None
    assert back.mental.machine.audited
    assert any(e[1] == "Elf 2 is back." for e in table.host.log)
    assert not table.host.seats_taken


def test_a_player_back_after_their_seat_was_taken_is_told_it_cannot_be_taken_back() -> None:
    from xmas_tui.tables.simulation import Drop

    table = SimTable(get_game("christmas-game"), 3, no_peek=True, pace=3, seed=5, hold=10.0)
    table.drop(Drop(seat_index=2, at=20.0, back_after=15.0))  # (the hold runs out at 30 s)
    table.net.run(3600, stop=lambda: all(s.final is not None for s in table.sessions[:2]))
    assert all(s.final is not None and s.halted is None for s in table.sessions[:2])
    back = table.sessions[2]
    assert back.refused == ("Seat 3 went to a bot when Elf 2's hold ran out: at a no-peek "
                            "table it cannot be taken back. Choose another name to watch.")


def test_a_host_that_takes_the_seat_of_a_player_still_here_is_caught_on_every_screen() -> None:
    """The host could say a player left and play their seat itself: that player's program hears
    the order too, stops the game naming the host, and tells every other machine straight."""
    table = SimTable(get_game("christmas-tree"), 3, no_peek=True, pace=3, seed=6, hold=10.0)
    table.net.run(20)
    host = table.host
    assert host.take_seat(2)  # (a modified host: Elf 2 is still here)
    host._dirty = True
    table.net.run(30)
    victim = table.sessions[2]
    assert victim.halted == "the host (Host) handed my seat to its own program while I am here: the game stops here"
    assert victim.alarm is not None and victim.alarm.startswith("CHEATING DETECTED")
    other = table.sessions[1]
    assert other.halted is not None and other.halted.startswith("Elf 2's program stopped the game: the host (Host)")
    assert any(entry[0] == "stopped" and "handed my seat" in entry[1] for entry in host.log)  # (the host's own screen)


@pytest.mark.parametrize("game_id", ["christmas-carol", "christmas-tree"])
def test_a_player_gone_for_good_from_two_ends_a_no_peek_game_with_the_scores_as_they_stood(game_id: str) -> None:
    """Two players hold the key two of two: with one gone no card can open, so no bot can take
    the seat: once the hold runs out the game ends closed for everyone, audited like any end
    (an answer about cards that never opened is taken as given, and said so)."""
    from xmas_tui.tables.audit import audit_seat

    table = SimTable(get_game(game_id), 2, no_peek=True, pace=3, seed=2, hold=10.0)
    table.net.run(20)
    table.nodes[1].crash()
    table.dead.add(1)
    gone = table.sessions[1].name
    table.net.run(400, stop=lambda: table.sessions[0].final is not None)
    session = table.sessions[0]
    assert session.final is not None and session.result is not None and session.result["closed"]
    assert any(f"{gone} left, and no bot can take their seat" in entry[1] for entry in session.log)
    assert not any("a bot plays seat" in entry[1] for entry in session.log)
    verdict = audit_seat(session)
    assert verdict["ok"], verdict["summary"]


@pytest.mark.parametrize("game_id", ["christmas-tree", "dragons-chickens"])
def test_a_watcher_who_comes_after_the_deal_checks_the_whole_game_so_far(game_id: str) -> None:
    """A watcher who sits down mid-game is sent every message of the deal so far, in the order
    every program had them: its program checks them all, and it follows the game to the end
    (before, it saw a move before any deal and cried cheat)."""
    table = SimTable(get_game(game_id), 3, no_peek=True, pace=0.3, seed=8)
    late: list = []
    table.net.call_later(8.0, lambda: late.append((len(table.host._stream),
                                                   table._join(3, "Late", player=False, watch=True))))
    assert table.run(3600)
    ((said_before, watcher),) = late
    assert said_before > 10, "the watcher came after the deal and some moves"
    assert watcher.final is not None and watcher.alarm is None and watcher.halted is None and not watcher.drops
    machine = watcher.mental.machine
    assert machine is not None and machine.audited and machine.replica.moves > 5
    assert watcher.final.digest == table.sessions[0].final.digest
