"""Fair play: commit-reveal for the seed and every hidden card, and the audit.

A cheating host is caught in every case: by the player on receipt where it can
be (a face or salt that does not match its commitment), by the end-of-game
audit otherwise (a seed, a shuffle or a die that is not the committed one, a
secret that is not the committed one). Network tests use 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcode.fairplay import (
    Ledger,
    Verifier,
    card_commitment,
    card_salt,
    choose_nonces,
    derive_seed,
    nonce_commitment,
    seed_commitment,
)
from netcode.session.messages import AskNonce
from netcode.session.seat import SeatSession
from xmas_tui.games import GAMES, get_game
from xmas_tui.tables.audit import (
    LogError,
    audit_log,
    read_log,
    seat_log,
    verify_file,
    with_checksum,
    write_log,
)
from xmas_tui.tables.headless import summary
from xmas_tui.tables.rules import GameRules
from xmas_tui.tables.seatbot import play_seat
from xmas_tui.tables.simulation import play_in_memory

from .netkit import bot_for, free_port, joiner, loopback_host, run_table, until

TABLE = b"table-01"

# ---------------------------------------------------------------- the pieces


def test_a_commitment_binds_the_face_and_the_salt() -> None:
    salt = card_salt(b"s" * 32, 7)
    commit = card_commitment("chip-n-dale", TABLE, 7, "acorn", salt)
    assert commit == card_commitment("chip-n-dale", TABLE, 7, "acorn", salt)
    assert commit != card_commitment("chip-n-dale", TABLE, 7, "bell", salt)
    assert commit != card_commitment("chip-n-dale", TABLE, 8, "acorn", salt)
    assert commit != card_commitment("chip-n-dale", TABLE, 7, "acorn", card_salt(b"t" * 32, 7))
    # length-prefixed parts: no two inputs run together
    assert card_commitment("ab", TABLE, 1, "c", salt) != card_commitment("a", TABLE, 1, "bc", salt)


def test_the_verifier_checks_openings_on_receipt() -> None:
    ledger = Ledger("g", TABLE)
    [(h, c)] = ledger.made([(5, "star")])
    peer = Verifier("g", TABLE, ledger.commitment, seat=0)
    assert peer.receive([[h, c]], [[h, ledger.salt(h)]], {h: "star"}) == []
    assert peer.receive([], [], {h: "star"}) == []  # shown again: still the opened face
    assert "after being opened" in peer.receive([], [], {h: "bell"})[0]
    other = Verifier("g", TABLE, ledger.commitment, seat=1)
    assert "does not match its commitment" in other.receive([[h, c]], [[h, ledger.salt(h)]], {h: "bell"})[0]
    third = Verifier("g", TABLE, ledger.commitment, seat=2)
    assert "does not match its commitment" in third.receive([[h, c]], [[h, b"x" * 32]], {h: "star"})[0]
    assert "without an opening" in Verifier("g", TABLE, None).receive([[h, c]], [], {h: "star"})[0]


def test_the_seed_needs_the_secret_and_every_nonce() -> None:
    a, b = os.urandom(32), os.urandom(32)
    s = os.urandom(32)
    base = derive_seed(s, [a, b])
    assert base != derive_seed(s, [a, None]) != derive_seed(s, [None, b])
    assert base != derive_seed(os.urandom(32), [a, b])
    assert derive_seed(s, [a, b]) != derive_seed(s, [b, a])  # seat order counts


def test_a_peer_that_copies_a_commitment_or_a_nonce_gains_nothing() -> None:
    a = os.urandom(32)
    commit_a = nonce_commitment(TABLE, a)
    # Bob copies Ann's commitment but cannot open it: he is left out, by a written rule.
    nonces, notes = choose_nonces(TABLE, 3, {0: commit_a, 1: commit_a}, {0: a, 1: os.urandom(32)})
    assert nonces == [a, None, None]
    assert notes == ["seat 2 revealed a nonce that does not match its commitment; the seed is made without it"]
    # Had he learnt Ann's nonce itself, the seed still hangs on the host's secret,
    # and Ann's contribution is still in it: he can neither predict nor cancel it.
    s1, s2 = os.urandom(32), os.urandom(32)
    assert derive_seed(s1, [a, a]) != derive_seed(s2, [a, a])
    assert derive_seed(s1, [a, a]) != derive_seed(s1, [None, a])
    # a copied commitment reveals nothing about the nonce behind it
    assert a not in commit_a and len(commit_a) == 32


def test_the_secret_commitment_changes_with_the_secret_and_the_table() -> None:
    s = os.urandom(32)
    assert seed_commitment(TABLE, s) != seed_commitment(b"table-02", s)
    assert seed_commitment(TABLE, s) != seed_commitment(TABLE, os.urandom(32))


# ---------------------------------------------------------------- honest games, logs


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game_id=st.sampled_from(sorted(GAMES)),
    secret=st.binary(min_size=32, max_size=32),
    seed=st.integers(0, 10**6),
    players=st.integers(0, 10),
    present=st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_an_honest_game_always_passes_its_audit_and_its_log_round_trips(
    tmp_path_factory, game_id: str, secret: bytes, seed: int, players: int, present: list[bool]
) -> None:
    game = get_game(game_id)
    n = game.min_players + players % (game.max_players - game.min_players + 1)
    nonces = [seed.to_bytes(4, "big") + bytes([i]) * 28 if present[i] else None for i in range(n)]
    sessions = play_in_memory(game, n, secret=secret, nonces=nonces, seed=seed)
    for session in sessions:  # every seat, and a spectator
        verdict = audit_log(seat_log(session))
        assert verdict["ok"], verdict["failures"]
        assert verdict["checked"]["commitments"] > 0 and verdict["checked"]["result"] == 1
    path = write_log(seat_log(sessions[0]), tmp_path_factory.mktemp("logs") / "game.json")
    assert read_log(path) == json.loads(path.read_text())
    assert verify_file(path)["ok"]


def test_changing_any_byte_of_a_log_makes_verify_refuse_it(tmp_path) -> None:
    game = get_game("chip-n-dale")
    sessions = play_in_memory(game, 3, secret=b"k" * 32, nonces=[b"n" * 32, None, None])
    path = write_log(seat_log(sessions[1]), tmp_path / "log.json")
    raw = path.read_bytes()
    for at in range(0, len(raw), max(1, len(raw) // 60)):
        changed = bytearray(raw)
        changed[at] = (changed[at] + 1) % 256
        path.write_bytes(bytes(changed))
        with pytest.raises(LogError):
            verify_file(path)


def test_a_rewritten_log_with_a_fresh_checksum_still_fails_its_audit(tmp_path) -> None:
    game = get_game("chip-n-dale")
    sessions = play_in_memory(game, 3, secret=b"k" * 32, nonces=[b"n" * 32, None, None])
    log = seat_log(sessions[0])
    handle, face, salt = log["openings"][0]
    other = next(f for _, f, _ in log["openings"] if f != face)
    log["openings"][0] = [handle, other, salt]
    path = write_log(with_checksum(log), tmp_path / "forged.json")
    verdict = verify_file(path)
    assert not verdict["ok"] and "replayed game says" in verdict["failures"][0]


# ---------------------------------------------------------------- over the network


async def test_an_honest_network_game_passes_every_peers_audit() -> None:
    outputs, host = await run_table("chip-n-dale", 3)
    for out in outputs:
        assert out["audit"]["ok"], out["audit"]["failures"]
        assert out["audit"]["checked"]["openings"] > 0
    assert host.ledger.nonces and all(n is not None for n in host.ledger.nonces)
    assert host.ledger.notes == []


class Silent(SeatSession):
    """A seat whose program never reveals its nonce."""

    def _take(self, message, now, out) -> None:
        if not isinstance(message, AskNonce):
            super()._take(message, now, out)


async def test_a_peer_withholding_its_nonce_cannot_stall_the_table(monkeypatch) -> None:
    from xmas_tui.tables import network

    game = get_game("chip-n-dale")
    host = loopback_host(game, 2, auto_start=True)
    mine = await host.open()
    bob = joiner(host, "Bob")
    try:
        loop = asyncio.get_running_loop()
        started = loop.time()
        monkeypatch.setattr(network, "SeatSession", Silent)
        bob_table = await bob.join()
        monkeypatch.undo()
        await asyncio.gather(play_seat(mine, bot_for(mine, "random"), wait=60),
                             play_seat(bob_table, bot_for(bob_table, "random"), wait=60))
        await host.finish()
        assert host.ledger.notes == ["seat 2 gave no nonce in time; the seed is made without it"]
        assert host.ledger.nonces[0] is not None and host.ledger.nonces[1] is None
        assert ["fair", host.ledger.notes[0], None, None] in mine.session.log
        assert loop.time() - started < 30
        for table in (mine, bob_table):
            verdict = summary(table, role="test")["audit"]
            assert verdict["ok"], verdict["failures"]
    finally:
        await bob.close()
        await host.close()


async def test_a_host_that_takes_a_nonce_then_leaves_it_out_is_caught() -> None:
    """The host said Bob's nonce was in, then dealt without it (to choose between two seeds):
    Bob's screen says so at the deal, and his log fails its audit."""
    game = get_game("chip-n-dale")
    host = loopback_host(game, 2, auto_start=True)
    mine = await host.open()
    host.ledger.reveal_nonce = lambda seat, nonce: None  # taken, and thrown away
    bob = joiner(host, "Bob")
    try:
        bob_table = await bob.join()
        await until(lambda: bob_table.session.deal is not None, 10.0, "the deal")
        assert bob_table.problem == "CHEATING DETECTED: the host took my nonce, then left it out of the seed"
        await asyncio.gather(play_seat(mine, bot_for(mine, "random"), wait=60),
                             play_seat(bob_table, bot_for(bob_table, "random"), wait=60))
        await host.finish()
        verdict = summary(bob_table, role="test")["audit"]
        assert not verdict["ok"] and "left it out of the seed" in verdict["failures"][0]
    finally:
        await bob.close()
        await host.close()


async def test_a_final_message_the_host_did_not_sign_is_caught() -> None:
    game = get_game("christmas-tree")
    host = loopback_host(game, 2, auto_start=True)
    mine = await host.open()
    host.host.signer.sign_final = lambda *args: b"\0" * 64
    bob = joiner(host, "Bob")
    try:
        bob_table = await bob.join()
        await asyncio.gather(play_seat(mine, bot_for(mine, "random"), wait=60),
                             play_seat(bob_table, bot_for(bob_table, "random"), wait=60))
        await host.finish()
        assert bob_table.problem == "CHEATING DETECTED: the host's signature over the end of the game does not hold"
        assert not summary(bob_table, role="test")["audit"]["ok"]
    finally:
        await bob.close()
        await host.close()


def test_the_host_signs_the_game_log_and_a_changed_result_breaks_it(tmp_path) -> None:
    """The host's Ed25519 signature covers the secret, the nonces, the notes, every action and
    the result: a log whose result or notes were rewritten (checksum and all) fails it."""
    sessions = play_in_memory(get_game("chip-n-dale"), 3, secret=b"k" * 32, nonces=[b"n" * 32, None, None])
    log = seat_log(sessions[0])
    assert len(bytes.fromhex(log["signature"])) == 64 and log["term"] == 1
    assert audit_log(log)["ok"]
    noted = {**log, "notes": ["nobody was left out"]}
    assert "signature over the end of the game does not hold" in audit_log(noted)["failures"][-1]
    flipped = {**log, "result": {**log["result"], "winners": [1]}}
    assert any("signature" in f for f in audit_log(flipped)["failures"])


def cheat_rules(hosted, rules_class=None, seed=None) -> None:
    """Make the host deal with other rules or another seed than the fair one."""
    session = hosted.host
    original = session.make_rules

    def make(names, fair_seed):
        rules = original(names, seed if seed is not None else fair_seed)
        if rules_class is not None:
            rules.__class__ = rules_class
        return rules

    session.make_rules = make


def failures_of(outputs) -> list[str]:
    return [f for out in outputs for f in out["audit"]["failures"]]


async def test_a_host_that_swaps_a_face_is_caught_on_receipt() -> None:
    class Swapping(GameRules):
        def view(self, seat):
            view = super().view(seat)
            if seat == 1 and view["faces"]:
                cards = self.state.cards
                handle, face = view["faces"][0]
                other = next((cards.face(h) for z in cards.zones.values() for h in z if cards.face(h) != face), None)
                view["faces"][0] = [handle, other]
            return view

    joined: list = []
    outputs, _ = await run_table("chip-n-dale", 3, record=lambda host: cheat_rules(host, Swapping), bot="random",
                                 joined_out=joined)  # fmt: skip
    swapped = next(j for j in joined if j.seat == 1)
    honest = next(j for j in joined if j.seat == 2)
    assert swapped.session.alarm and swapped.session.alarm.startswith("CHEATING DETECTED")
    assert honest.session.alarm is None
    assert not outputs[1]["audit"]["ok"]
    assert any("does not match its commitment" in f or "after being opened" in f for f in outputs[1]["audit"]["failures"])


async def test_a_host_that_sends_a_wrong_salt_is_caught_on_receipt() -> None:
    def record(hosted) -> None:
        session = hosted.host
        honest = session._snap_for

        def snap_for(guest, *shared):
            snap = honest(guest, *shared)
            openings = [[h, b"\0" * 32 if h % 5 == 0 else salt] for h, salt in snap.openings]
            return dataclasses.replace(snap, openings=openings)

        session._snap_for = snap_for

    joined: list = []
    outputs, _ = await run_table("chip-n-dale", 3, record=record, bot="random", joined_out=joined)
    assert all(j.session.alarm for j in joined)
    assert all("does not match its commitment" in j.session.alarm for j in joined)
    assert all(not out["audit"]["ok"] for out in outputs)


async def test_a_host_that_shuffles_with_its_own_seed_is_caught_by_the_audit() -> None:
    joined: list = []
    outputs, _ = await run_table("chip-n-dale", 3, record=lambda host: cheat_rules(host, seed=b"stacked deck"),
                                 bot="random", joined_out=joined)  # fmt: skip
    assert all(j.session.alarm is None for j in joined)  # every opening matched what it committed
    assert all(not out["audit"]["ok"] for out in outputs)
    assert any("does not match the replayed deal" in f for f in failures_of(outputs))


async def test_a_host_that_changes_a_random_draw_is_caught_by_the_audit() -> None:
    class Loaded(GameRules):
        def act(self, seat, action):
            self.rng.word()  # a die thrown again: every later draw differs
            return super().act(seat, action)

    outputs, _ = await run_table("chip-n-dale", 3, record=lambda host: cheat_rules(host, Loaded), bot="random")
    assert all(not out["audit"]["ok"] for out in outputs)
    assert failures_of(outputs)


async def test_a_host_that_reveals_another_secret_is_caught_by_the_audit() -> None:
    def record(hosted) -> None:
        honest = hosted.ledger.public

        def public():
            return {**honest(), "secret": os.urandom(32)}

        hosted.ledger.public = public

    joined: list = []
    outputs, _ = await run_table("chip-n-dale", 2, record=record, bot="random", joined_out=joined)
    assert all("does not match the commitment it published" in j.session.alarm for j in joined)
    for out in outputs:
        assert not out["audit"]["ok"]
        assert "does not match the commitment it published" in out["audit"]["failures"][0]


# ---------------------------------------------------------------- the command line


def test_headless_host_and_join_write_logs_that_verify_offline(tmp_path) -> None:
    from tests.test_net import cli

    port = free_port()
    env = {**os.environ, "XMAS_TUI_DISCOVERY": f"127.0.0.1:{free_port()}"}
    host_log, join_log = tmp_path / "host.json", tmp_path / "join.json"
    host = cli("host", "chip-n-dale", "--players", "2", "--code", "SNOW-7315", "--port", str(port),
               "--bind", "127.0.0.1", "--headless", "--log", str(host_log), env=env)  # fmt: skip
    join = cli("join", "--address", f"127.0.0.1:{port}", "--code", "snow-7315", "--name", "Elf",
               "--headless", "--log", str(join_log), env=env)  # fmt: skip
    try:
        outputs = []
        for proc in (host, join):
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err[-2000:]
            outputs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in (host, join):
            if proc.poll() is None:
                proc.kill()
    for out, path in zip(outputs, (host_log, join_log), strict=True):
        assert out["audit"]["ok"], out["audit"]["failures"]
        assert out["log"] == str(path)
    import subprocess
    import sys

    ok = subprocess.run([sys.executable, "-m", "xmas_tui", "verify", str(join_log)], capture_output=True, text=True, env=env)
    assert ok.returncode == 0 and ok.stdout.startswith("Fair play: OK (checked"), ok.stdout + ok.stderr
    raw = join_log.read_text()
    join_log.write_text(raw.replace('"seat": 1', '"seat": 0', 1))
    bad = subprocess.run([sys.executable, "-m", "xmas_tui", "verify", str(join_log)], capture_output=True, text=True, env=env)
    assert bad.returncode == 1 and "the log was changed after it was written" in bad.stderr


def test_verify_names_every_failure_of_a_forged_log(tmp_path, capsys) -> None:
    from xmas_tui.cli import main

    game = get_game("christmas-tree")
    sessions = play_in_memory(game, 3, secret=b"k" * 32, nonces=[b"n" * 32, b"m" * 32, None])
    log = seat_log(sessions[0])
    log["secret"] = (b"j" * 32).hex()
    path = write_log(with_checksum(log), tmp_path / "forged.json")
    assert main(["verify", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "FAILED" in out and "does not match the commitment it published" in err
    assert main(["verify", str(tmp_path / "missing.json")]) == 2  # not a log at all: a bad argument
    assert "cannot read" in capsys.readouterr().err


def test_a_log_cannot_swap_in_a_seed_of_its_own_when_players_gave_nonces() -> None:
    game = get_game("chip-n-dale")
    sessions = play_in_memory(game, 2, secret=b"k" * 32, nonces=[b"n" * 32, b"m" * 32])
    log = seat_log(sessions[0])
    log["rng_seed"] = 7
    verdict = audit_log(log)
    assert not verdict["ok"] and "players gave nonces" in verdict["failures"][0]


# ---------------------------------------------------------------- local games, announcements, screens


def test_a_local_game_writes_a_log_that_verifies(tmp_path, monkeypatch) -> None:
    from xmas_tui.tables import audit
    from xmas_tui.tables.local import LocalTable

    game = get_game("christmas-tree")
    table = LocalTable(game, ["You", "Holly", "Ivy"], 0, seed=5, pace=0.05)
    assert table.audit() is None  # not before the end
    table.autoplay(lambda snapshot: False)
    monkeypatch.setattr(audit, "log_path", str(tmp_path / "local.json"))
    verdict = table.audit()
    assert verdict["ok"], verdict["failures"]
    assert verdict["path"] == str(tmp_path / "local.json")
    assert verify_file(verdict["path"])["ok"]
    # the same seed still deals the same game as before fair play
    from xmas_tui.games import Rng

    again = LocalTable(game, ["You", "Holly", "Ivy"], 0, seed=5, pace=0.05)
    assert game.digest(again.state) == game.digest(game.setup({}, ["You", "Holly", "Ivy"], Rng(5)))


async def test_the_secret_commitment_is_announced_before_anyone_joins() -> None:
    from netcode.discovery import TableInfo

    game = get_game("chip-n-dale")
    host = loopback_host(game, 2)
    await host.open()
    try:
        info = TableInfo.decode(host.info().encode())
        assert info.seed_commit == host.ledger.commitment == seed_commitment(host.table_id, host.ledger.secret)
        ann = joiner(host, "Ann")
        ann.info = info
        await ann.join()
        assert ann.session.welcome.seed_commit == info.seed_commit and ann.problem is None
        assert host.ledger.nonce_commits[1] == ann.session.verifier.nonce_commit
        await ann.close()
    finally:
        await host.close()


def test_a_mismatch_is_the_tables_problem_at_once() -> None:
    from netcode.session.seat import SeatSession
    from xmas_tui.tables.table import SessionTable

    class Link:
        listeners = None

        def __init__(self, session):
            from netcode.runners import Listeners

            self.session, self.listeners = session, Listeners()

        def post(self, message):
            pass

    session = SeatSession("Ann", TABLE, None, game="chip-n-dale")
    ledger = Ledger("chip-n-dale", TABLE)
    [(h, c)] = ledger.made([(3, "acorn")])
    session.verifier = Verifier("chip-n-dale", TABLE, ledger.commitment, seat=0)
    table = SessionTable(get_game("chip-n-dale"), [Link(session)])
    assert table.problem is None
    session._alarm(session.verifier.receive([[h, c]], [[h, ledger.salt(h)]], {h: "bell"}))
    assert table.problem.startswith("CHEATING DETECTED: card #3 was shown as 'bell'")


async def test_a_spectator_checks_the_public_faces_and_passes_the_audit() -> None:
    game = get_game("christmas-tree")
    host = loopback_host(game, 2, auto_start=True, pace=0.01)
    mine = await host.open()
    bob, eve = joiner(host, "Bob"), joiner(host, "Eve")
    try:
        bob_table = await bob.join()
        eve_table = await eve.join()
        assert eve.seat is None
        await asyncio.gather(play_seat(mine, bot_for(mine, "random"), wait=60),
                             play_seat(bob_table, bot_for(bob_table, "random"), wait=60))
        await until(lambda: eve_table.over, 10, "the spectator's final message")
        verdict = summary(eve_table, role="watch")["audit"]
        assert verdict["ok"], verdict["failures"]
        assert verdict["checked"]["openings"] > 0 and eve.problem is None
    finally:
        await bob.close()
        await eve.close()
        await host.close()


async def test_a_table_option_is_revealed_and_replayed_by_every_peer() -> None:
    """A networked More Challenging Game: the options travel with the fair-play record, so the audit
    deals the same puzzles the host did."""
    joined: list = []
    outputs, host = await run_table("christmas-carol", 2, bot="random", joined_out=joined,
                                    options={"puzzles": [3, 4, 5, 6]})  # fmt: skip
    assert all(out["audit"]["ok"] for out in outputs), failures_of(outputs)
    for seat in joined:
        assert seat.session.final.fair["options"] == {"puzzles": [3, 4, 5, 6]}
        assert list(seat.session.view["public"]["puzzles"]) == [3, 4, 5, 6]
    assert host.ledger.public()["options"] == {"puzzles": [3, 4, 5, 6]}
