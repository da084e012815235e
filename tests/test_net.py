"""Games across peers: real processes and sockets on loopback, a lossy link, and leaks.

Every datagram goes to 127.0.0.1 (discovery included: it is pointed at a
loopback port here); the namespace test lives in test_net_namespaces.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from netcode import delta
from netcode.client import ClientTable, JoinError
from netcode.discovery import Listener, probe
from netcode.tools.faults import LinkFaults
from xmas_tui.games import GAMES, get_game
from xmas_tui.games.cards import may_see
from xmas_tui.net import public_digest

from .netkit import free_port, loopback_host, run_table


def cli(*args: str, env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "xmas_tui", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    )  # fmt: skip


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_four_processes_play_a_whole_game_on_loopback(game_id: str) -> None:
    """A headless host and three headless joiners finish with one public digest."""
    port = free_port()
    env = {**os.environ, "XMAS_TUI_DISCOVERY": f"127.0.0.1:{free_port()}"}
    host = cli("host", game_id, "--players", "4", "--code", "SNOW-7315", "--port", str(port),
               "--bind", "127.0.0.1", "--headless", env=env)  # fmt: skip
    joiners = []
    try:
        for i in range(3):
            joiners.append(cli("join", "--address", f"127.0.0.1:{port}", "--code", "snow-7315",
                               "--name", f"Elf {i}", "--headless", env=env))  # fmt: skip
        outputs = []
        for proc in [host, *joiners]:
            out, err = proc.communicate(timeout=240)
            assert proc.returncode == 0, err[-2000:]
            outputs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in [host, *joiners]:
            if proc.poll() is None:
                proc.kill()
    assert sorted(o["seat"] for o in outputs) == [0, 1, 2, 3]
    assert len({o["digest"] for o in outputs}) == 1
    assert all(o["game"] == game_id for o in outputs)
    assert all(o["result"] == outputs[0]["result"] for o in outputs)
    assert all(o["host_digest"] == o["digest"] for o in outputs[1:])


async def test_a_game_completes_through_the_fault_proxy_at_ten_percent_loss() -> None:
    faults = LinkFaults(loss=0.10, delay=0.002, jitter=0.002, duplicate=0.02, reorder=0.02)
    outputs, host = await run_table("chip-n-dale", 3, through_proxy=faults)
    assert len({o["digest"] for o in outputs}) == 1
    assert outputs[0]["digest"] == host.rules.digest()


async def test_no_message_to_a_seat_carries_a_face_it_may_not_see() -> None:
    """Every message sent to each seat, checked against the host's card table at that moment."""
    checked = {"messages": 0, "faces": 0}
    problems: list[str] = []

    def record(host) -> None:
        original = host._send
        views: dict[int, dict] = {}  # each peer's view as it can rebuild it from what it was sent

        def send(peer: int, payload: dict, **options: bool) -> bool:
            guest = host.guests.get(peer)
            if payload.get("t") in ("snap", "final") and guest is not None and host.rules is not None:
                seat = guest.seat if payload["t"] == "snap" else None
                if payload["t"] == "final":
                    view = payload["public"]
                elif "vd" in payload:
                    view = delta.apply(views[peer], payload["vd"])
                else:
                    view = payload["view"]
                cards = host.rules.state.cards
                checked["messages"] += 1
                for handle, face in view["faces"]:
                    checked["faces"] += 1
                    if not may_see(cards.visibility(handle), seat) or cards.face(handle) != face:
                        problems.append(f"seat {seat} was sent handle {handle} = {face}")
                hidden = {cards.face(h) for z in cards.zones.values() for h in z if not may_see(cards.visibility(h), seat)}
                visible = {face for _, face in view["faces"]}
                text = json.dumps([view["public"], payload.get("log", []), payload.get("vd")])
                for face in hidden - visible:
                    if f'"{face}"' in text:
                        problems.append(f"seat {seat} was sent the hidden face {face} outside the card table")
                sent = original(peer, payload, **options)
                if sent and payload["t"] == "snap":
                    views[peer] = view
                return sent
            return original(peer, payload, **options)

        host._send = send

    for game_id in sorted(GAMES):
        await run_table(game_id, 3, record=record, bot="random")
    assert checked["messages"] > 100 and checked["faces"] > 100
    assert not problems, problems[:5]


async def test_a_wrong_join_code_is_refused_within_two_seconds_and_seen_by_the_host() -> None:
    game = get_game("chip-n-dale")
    host = loopback_host(game, 2, code="RIGHT-CODE")
    await host.serve()
    try:
        intruder = ClientTable(host.address, "WRONG-CODE", "Grinch", info=host.info())
        clock = asyncio.get_running_loop().time
        started = clock()
        with pytest.raises(JoinError, match="could not prove it knows the code: check the code"):
            await intruder.join(timeout=10.0)
        assert clock() - started < 2.0
        while host.endpoint.failed_attempts_total == 0 and clock() - started < 4.0:
            await asyncio.sleep(0.01)  # the joiner's ABORT is on its way
        assert host.guests == {} and host.endpoint.peers == {}
        assert host.endpoint.describe_failed_attempts() == ["1 failed join attempt from 127.0.0.1"]
    finally:
        await host.close()


async def test_a_typed_address_is_probed_and_joined() -> None:
    game = get_game("chip-n-dale")
    host = loopback_host(game, 2)
    await host.serve()
    try:
        info = await probe(host.address)
        assert info.game == "chip-n-dale" and info.seats == 2 and info.port == host.address[1]
        client = ClientTable(host.address, "abcd-2345", "Ann")
        welcome = await client.join()
        assert welcome["seat"] == 0
        await client.close()
    finally:
        await host.close()


async def test_a_lobby_hears_a_table_within_a_second() -> None:
    game = get_game("christmas-tree" if "christmas-tree" in GAMES else "chip-n-dale")
    discovery = ("127.0.0.1", free_port())
    listener = Listener(discovery)
    await listener.start()
    host = loopback_host(game, 3, name="Holly", discovery=discovery)
    await host.serve()
    try:
        loop = asyncio.get_running_loop()
        started = loop.time()
        while not listener.current():
            assert loop.time() - started < 1.0
            await listener.changed(0.1)
        heard = listener.current()[0]
        assert heard.info.host == "Holly" and heard.info.game == game.id and heard.info.free == 3
        assert heard.address == host.address
    finally:
        await host.close()
        listener.close()


async def test_a_dropped_player_gets_a_countdown_then_a_bot_then_their_seat_back() -> None:
    game = get_game("chip-n-dale")
    host = loopback_host(game, 2, hold=0.5, auto_start=True, bot_delay=0.05)
    await host.serve()
    ann = ClientTable(host.address, "ABCD-2345", "Ann", info=host.info())
    bob = ClientTable(host.address, "ABCD-2345", "Bob", info=host.info())
    try:
        await ann.join()
        await bob.join()
        assert host.started
        await bob.close()  # Bob's terminal closes
        for _ in range(100):
            if host.seats[1].state == "away":
                break
            await asyncio.sleep(0.01)
        assert host.seats[1].state == "away" and host.roster()[1]["countdown"] is not None
        await asyncio.sleep(0.7)
        assert host.seats[1].state == "bot"
        again = ClientTable(host.address, "ABCD-2345", "Bob", info=host.info())
        welcome = await again.join()
        assert welcome["seat"] == 1 and host.seats[1].state == "here"
        for _ in range(200):
            if again.snapshot is not None:
                break
            await asyncio.sleep(0.01)
        assert again.snapshot is not None and again.snapshot["view"]["seat"] == 1
        await again.close()
    finally:
        await ann.close()
        await host.close()


async def test_an_illegal_action_is_answered_to_its_sender_alone() -> None:
    from netcode.client import ActionRefused

    game = get_game("chip-n-dale")
    host = loopback_host(game, 2, auto_start=True)
    await host.serve()
    ann = ClientTable(host.address, "ABCD-2345", "Ann", info=host.info())
    bob = ClientTable(host.address, "ABCD-2345", "Bob", info=host.info())
    try:
        await ann.join()
        await bob.join()
        for _ in range(200):
            if ann.snapshot and bob.snapshot:
                break
            await asyncio.sleep(0.01)
        waiting = ann if host.rules.to_act() != {0} else bob
        other = bob if waiting is ann else ann
        other.keep_received = True
        before = len(other.received)
        with pytest.raises(ActionRefused, match="not your turn"):
            await waiting.act(["stop"])
        await asyncio.sleep(0.05)
        assert not any(m.get("t") == "error" for m in other.received[before:])
    finally:
        await ann.close()
        await bob.close()
        await host.close()


def test_the_public_digest_is_the_hash_of_the_public_view() -> None:
    assert public_digest({"a": 1}) == public_digest({"a": 1}) != public_digest({"a": 2})


async def test_a_latecomer_watches_as_a_spectator_with_the_public_view() -> None:
    game = get_game("chip-n-dale")
    host = loopback_host(game, 2, auto_start=True)
    await host.serve()
    clients = [ClientTable(host.address, "ABCD-2345", n, info=host.info()) for n in ("Ann", "Bob", "Cy")]
    try:
        for client in clients:
            await client.join()
        cy = clients[2]
        assert cy.seat is None
        for _ in range(200):
            if cy.snapshot is not None:
                break
            await asyncio.sleep(0.01)
        assert cy.snapshot["view"]["seat"] is None and cy.snapshot["legal"] == []
        from netcode.client import ActionRefused

        with pytest.raises(ActionRefused, match="seated player"):
            await cy.act(["stop"])
    finally:
        for client in clients:
            await client.close()
        await host.close()


async def test_messages_from_an_older_host_epoch_are_dropped() -> None:
    client = ClientTable(("127.0.0.1", 9), "CODE", "Ann")
    client.epoch = 2

    class Counter(dict):
        def note_drop(self, reason: str) -> None:
            self[reason] = self.get(reason, 0) + 1

    class Fake:
        endpoint = Counter()

    client.aio = Fake()  # type: ignore[assignment]
    client._handle({"t": "snap", "epoch": 1, "log_at": 0, "log": [], "roster": []})
    assert client.snapshot is None and Fake.endpoint["stale_epoch"] == 1
    client.aio = None


async def test_a_silent_host_is_noticed_within_about_a_second() -> None:
    game = get_game("chip-n-dale")
    host = loopback_host(game, 2)
    await host.serve()
    client = ClientTable(host.address, "ABCD-2345", "Ann", info=host.info())
    await client.join()
    try:
        # The host machine vanishes: no goodbye, its socket just stops answering.
        for task in host._tasks:
            task.cancel()
        host.aio.abort()
        started = asyncio.get_running_loop().time()
        while client.host_gone is None:
            assert asyncio.get_running_loop().time() - started < 1.5
            await asyncio.sleep(0.01)
        assert "silent" in client.host_gone
    finally:
        await client.close()


async def test_a_seated_player_sees_their_ping_while_the_table_waits() -> None:
    """Nothing else happens at a waiting table, yet every seat's ping reaches the roster within a second or two."""
    host = loopback_host(get_game("chip-n-dale"), 3)
    await host.serve()
    ann = ClientTable(host.address, "ABCD-2345", "Ann", info=host.info(), bind_host="127.0.0.1")
    try:
        await ann.join()
        deadline = asyncio.get_running_loop().time() + 5.0
        while not (ann.roster and ann.roster[ann.seat]["ping_ms"] is not None):
            assert asyncio.get_running_loop().time() < deadline, ann.roster
            await asyncio.sleep(0.05)
        assert isinstance(ann.roster[ann.seat]["ping_ms"], int)
    finally:
        await ann.close()
        await host.close()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_hosts_views_are_the_engines_views(game_id: str) -> None:
    """The host makes the shared parts of a move's views once and only the faces per seat;
    every seat's view must still be exactly what the engine's generic ``view()`` gives."""
    from xmas_tui.net import GameRules

    game = get_game(game_id)
    players = [f"P{i}" for i in range(game.max_players)]
    rules = GameRules(game, players, seed=7, bot="random")
    seats = [None, *range(len(players))]
    for _ in range(60):
        for seat in seats:  # the first view of a move makes the shared parts
            assert rules.view(seat) == game.view(rules.state, seat).to_wire()
        if rules.result() is not None:
            break
        seat = min(rules.to_act())
        rules.act(seat, rules.bot_action(seat))
