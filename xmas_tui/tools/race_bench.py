"""The race bench: fair Dragons & Chickens races over real links, in real processes on loopback.

Owns: the bench behind ``make race-bench``. This process hosts the table (on
127.0.0.1); every seat is a process of its own that joins it by address,
through the project's UDP fault proxy (``netcode.tools.faultproxy``, one process
per link): ``fast`` at 2 ms one way, ``slow`` at 50 ± 10 ms one way, a
``forger`` on a 2 ms link of its own, and a ``watcher`` on the slow link that
presses nothing and only times the rooms' arrival. The honest seats press the
right answer after scripted reaction times, measured from the moment each drew
its room (the table's instant, or the room's arrival if that came later), with
the fast and the slow seat always more than the tie window apart; the forger
waits from the room's arrival (always longer than both) and then claims 0 ms. A
second table seats the fast seat with a stalled one that never seals, for a
few rounds.

The forger lies about its link as well, a way per table in turn (``LIARS``): it
answers the host's pings at once, or 50, 200 or 500 ms late saying it held them
0 ms; it answers pings before they come (guessing their numbers) on top of the
real answers; it forges answers (unknown numbers, absurd holding times) and
answers 200 ms late; or it holds back every datagram (the room's acks
among them) for 200 ms after each room arrives. ``liars`` gives, per way, the
races it played, its largest gain and whether the host named it.

Figures: ``races`` (rooms both honest seats raced), ``true_first_wins`` (the
share in which the honest seat that truly reacted first was counted first),
``honest_clamped`` (honest claims the host raised), ``max_forger_gain_ms``
(the most the forger's counted time fell short of its real wait),
``stalled_round_s`` (the longest round with a stalled seat, from the instant
its room was drawn to its settling), ``tie_window_ms``, ``reveal_spread_p99_ms`` (across the 4
peers: the last arrival of a room less the first, its 99th percentile, beside
the links' own one-way spread as the baseline) and ``links``. The last line
printed is one JSON object.

Must not touch: any address but loopback (the fault proxy refuses others).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from netcode.session.seat import Ended, HostLost, Updated
from xmas_tui.games import get_game
from xmas_tui.games.dragons_chickens import (
    CHEST,
    NAME,
    SHIELD,
    TIE_MS,
    Presses,
    card,
    counts_of,
    most_abundant,
)

DC = get_game("dragons-chickens")
#: the forger's ways of lying about its link, one per table in turn: (name, pongs delayed (ms),
#: what else). Each also claims 0 ms for a press it made well after its room arrived.
LIARS = (
    ("pongs at once", 0, None),
    ("pongs 50 ms late", 50, None),
    ("pongs 200 ms late", 200, None),
    ("pongs 500 ms late", 500, None),
    ("pongs early", 0, "early"),
    ("pongs forged", 200, "forged"),
    ("room acks 200 ms late", 0, "room-acks"),
)
CODE = "RACE-BNCH"
LINKS = {"fast": ["--delay", "0.002"], "slow": ["--delay", "0.05", "--jitter", "0.01"]}
SEATS = (("fast", "fast"), ("slow", "slow"), ("forger", "fast"), ("watcher", "slow"))
#: rounds the stalled table plays
STALLED_ROUNDS = 3


def schedule(seed: int, rnd: int) -> dict[str, int]:
    """The scripted reaction times (ms) of one room: the fast and the slow seat more than the
    tie window apart, the forger's wait beyond both (and beyond what it could gain)."""
    rng = random.Random(f"{seed}/{rnd}")
    fast = rng.randint(250, 700)
    gap = rng.randint(2 * TIE_MS, 150) * rng.choice((-1, 1))
    slow = max(200, fast + gap)
    if abs(slow - fast) <= TIE_MS:
        slow = fast + 2 * TIE_MS
    forger = max(fast, slow) + 60 + rng.randint(0, 400)
    return {"fast": fast, "slow": slow, "forger": forger}


def answer(view: dict) -> tuple[int, int]:
    """The right press for the room on the table: the shield, the chest, or the treasure."""
    faces = dict(view["faces"])
    revealed = []
    for zone, handles in view["zones"].items():
        if zone.startswith("table.") and handles and handles[-1] in faces:
            revealed.append(faces[handles[-1]])
    if any(card(f).dragon for f in revealed):
        return SHIELD, 0
    leaders = most_abundant(counts_of(revealed))
    return (CHEST, 0) if len(leaders) != 1 else (NAME, leaders[0])


# ---------------------------------------------------------------- one seat (a process of its own)


def lie(runner: Any, liar: int, loop: asyncio.AbstractEventLoop) -> dict[str, float]:
    """Make this seat's program lie about its link as ``LIARS[liar]`` says; returns the state the
    room-acks liar keeps (until when its datagrams are held back)."""
    from netcode.session.messages import Pong

    _, late_ms, how = LIARS[liar]
    holding = {"until": 0.0}
    send_message = runner._send
    rng = random.Random(liar)

    def send(aio: Any, peer: int, message: Any) -> None:
        if not isinstance(message, Pong):
            send_message(aio, peer, message)
            return
        answer = Pong(message.n, 60.0 if how == "forged" else 0.0)  # "I held it for a minute"
        if late_ms:
            loop.call_later(late_ms / 1000, send_message, aio, peer, answer)
        else:
            send_message(aio, peer, answer)
        if how == "early":  # the next pings' answers, before they come
            for ahead in (1, 2, 3, 5, 8):
                send_message(aio, peer, Pong(message.n + ahead, 0.0))
        elif how == "forged":
            send_message(aio, peer, Pong(rng.randrange(1 << 30), -5.0))

    runner._send = send
    if how == "room-acks":
        aio = runner.aio
        send_datagrams = aio._send

        def hold(datagrams: list) -> None:
            late = holding["until"] - time.monotonic()
            if late > 0:
                loop.call_later(late, send_datagrams, list(datagrams))
            else:
                send_datagrams(datagrams)

        aio._send = hold
    return holding


async def seat_main(role: str, address: tuple[str, int], code: str, name: str, seed: int, liar: int = 0) -> None:
    from xmas_tui.tables.network import NetTable

    joined = NetTable.joined(address, code, name, bind_host="127.0.0.1")
    await joined.join(timeout=10.0)
    session = joined.session
    runner = joined.runner
    assert runner is not None
    loop = asyncio.get_running_loop()
    holding = lie(runner, liar, loop) if role == "forger" else {"until": 0.0}
    done = asyncio.Event()
    records: dict[int, dict] = {}  # round -> what this seat saw and did
    state = {"round": 0, "ready_for": 0}

    def press(rnd: int, since: float, kind: int, target: int) -> None:
        """The scripted press: live, then sealed at once (as a terminal does when its window
        closes; the host counts the live one)."""
        view = session.view
        if view is None or view["public"]["round"] != rnd or view["public"]["phase"] != "race":
            return
        waited = round((time.monotonic() - since) * 1000)
        claimed = 0 if role == "forger" else waited
        presses = Presses.of((kind, target, claimed)).to_wire()
        runner.post(session.press(presses))
        sent = time.monotonic()
        runner.post(session.act(presses))
        records.setdefault(rnd, {"round": rnd}).update(true_ms=waited, claimed_ms=claimed, sent=sent)

    def drawn(rnd: int, arrived: float, planned: float) -> None:
        """The room is drawn (at the table's instant): the honest seats' clocks start now."""
        now = time.monotonic()
        records.setdefault(rnd, {"round": rnd}).update(arrived=arrived, drawn=now, planned=planned)
        if role == "watcher":
            runner.post(session.act(Presses().to_wire()))
            return
        if role == "forger":  # it knew the room when it arrived: its wait counts from then
            return
        kind, target = answer(session.view)
        loop.call_later(schedule(seed, rnd)[role] / 1000, press, rnd, now, kind, target)

    def heard(events: list) -> None:
        if any(isinstance(e, (Ended, HostLost)) for e in events):
            done.set()
            return
        if not any(isinstance(e, Updated) for e in events) or session.view is None:
            return
        public = session.view["public"]
        rnd, phase = public["round"], public["phase"]
        if role == "stalled":
            return
        if phase == "race" and rnd != state["round"] and session.seat in session.to_act:
            state["round"] = rnd
            arrived = min(time.monotonic(), session._arrived)  # (when its datagram came, where known)
            if LIARS[liar][2] == "room-acks" and role == "forger":
                holding["until"] = arrived + 0.2
            planned = session.room_at if session.room_at is not None else arrived
            loop.call_at(max(planned, arrived), drawn, rnd, arrived, planned)
            if role == "forger":  # a modified program: it reacts from the room's arrival
                kind, target = answer(session.view)
                loop.call_later(schedule(seed, rnd)[role] / 1000, press, rnd, arrived, kind, target)
        elif phase == "pause" and state["ready_for"] != rnd and session.seat in session.to_act and session.legal:
            state["ready_for"] = rnd  # ready (or, burned with a chicken, the cheaper offer)
            runner.post(session.act(session.legal[0]))

    joined.subscribe(heard)
    await done.wait()
    await joined.close()
    print(json.dumps({"role": role, "records": list(records.values())}), flush=True)


# ---------------------------------------------------------------- the bench


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_proxy(upstream: int, args: list[str], seed: int) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "netcode.tools.faultproxy", "--upstream", f"127.0.0.1:{upstream}",
         "--seed", str(seed), *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    if not line or line[0] != "listening":
        raise RuntimeError("the fault proxy did not start")
    return proc, int(line[2])


def start_seat(role: str, port: int, seed: int, liar: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "xmas_tui.tools.race_bench", "seat", role, f"127.0.0.1:{port}", str(seed), str(liar)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip


@dataclass
class Game:
    """What the host saw of one table: each seat's counted first input per round, the rounds'
    openings and settlings, and the clamps it logged."""

    counted: dict[int, dict[int, int]] = field(default_factory=dict)  # round -> seat -> ms
    opened: dict[int, float] = field(default_factory=dict)
    settled: dict[int, float] = field(default_factory=dict)
    clamps: list[dict] = field(default_factory=list)
    seat_of: dict[str, int] = field(default_factory=dict)  # role -> seat
    #: the smallest round trip the host's pings measured, per role (ms)
    least_rtt_ms: dict[str, float] = field(default_factory=dict)
    #: every bound the host set, and what from (for ``--details``)
    bounds: list[dict] = field(default_factory=list)
    #: the host's notes naming a program that answers pings slower than its link
    named: list[str] = field(default_factory=list)


async def host_table(players: int, port: int, seats: list[tuple[str, int]], seed: int,
                     *, rounds: int | None = None, liar: int = 0) -> tuple[Game, dict[str, dict]]:
    """Host one table on ``port`` and seat ``seats`` (role, the port it joins through); returns what
    the host saw and each seat's own records."""
    from xmas_tui.tables.network import NetTable

    hosted = NetTable.hosted(DC, players, code=CODE, name="Host", port=port, bind_host="127.0.0.1",
                         auto_start=True, announce=False, seed=seed)
    await hosted.open(sit=False)
    game = Game()
    enough = asyncio.Event()

    def news(events: list) -> None:
        rules = hosted.host.rules
        if rules is None:
            return
        state = rules.state
        now = time.monotonic()
        if state.phase == "race":  # the round opens at the instant every terminal draws its room
            game.opened.setdefault(state.round, hosted.host.live.at or now)
        elif state.phase == "pause":
            game.settled.setdefault(state.round, now)
        if rounds is not None and len(game.settled) >= rounds:
            enough.set()
        if hosted.host.finished:
            enough.set()

    def measured() -> None:  # the host's own pings of each seat, while the seats are still here
        for peer, guest in hosted.host.guests.items():
            link = hosted.host.races.links.get(peer)
            if link is not None and link.recent:
                game.least_rtt_ms[guest.name.lower()] = link.smallest * 1000

    hosted.subscribe(news)
    bounds = game.bounds
    races = hosted.host.races
    believe = races.earliest_ms

    def earliest_ms(peer, arrived):  # every bound the host sets, with what it was set from
        result = believe(peer, arrived)
        link = races.links.get(peer)
        guest = hosted.host.guests.get(peer)
        if result is not None and link is not None and guest is not None:
            bounds.append({"seat": guest.seat, "arrived": arrived, "at": races.room_at, "sent": races.sent.get(peer),
                           "r": link.least, "j": link.spread, "answers": len(link.recent), "bound": result})
        return result

    races.earliest_ms = earliest_ms
    procs = [start_seat(role, through, seed, liar) for role, through in seats]
    try:
        await asyncio.wait_for(enough.wait(), timeout=900)
        measured()
    finally:
        await hosted.finish()
        await hosted.close()
    outputs = {}
    for proc, (role, _) in zip(procs, seats, strict=True):
        try:
            out, _ = await asyncio.to_thread(proc.communicate, timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        lines = [line for line in (out or "").splitlines() if line.startswith("{")]
        outputs[role] = json.loads(lines[-1]) if lines else {"role": role, "records": []}
    rnd = 1
    pressed: set[int] = set()
    for seat, action in hosted.host.ledger.actions:
        parsed = DC.parse_action(action)
        if isinstance(parsed, Presses):
            inputs = parsed.inputs(seat)
            if inputs:
                game.counted.setdefault(rnd, {})[seat] = inputs[0].ms
            pressed.add(seat)
            if len(pressed) == players:
                rnd, pressed = rnd + 1, set()
    game.clamps = [e[3] for e in hosted.host.log if e[0] == "table" and e[3] and "clamped" in e[3]]
    game.named = [e[1] for e in hosted.host.log if e[0] == "table" and "answers the host's pings" in str(e[1])]
    game.seat_of = {(s.name or "").lower(): i for i, s in enumerate(hosted.host.seats)}
    return game, outputs


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def bench(races_wanted: int, seed: int, details: dict | None = None) -> dict[str, Any]:
    """The figures; ``details`` (if given) receives every clamp and every forger's gain."""
    port = free_udp_port()
    proxies = {name: start_proxy(port, args, seed + i) for i, (name, args) in enumerate(LINKS.items())}
    through = {name: p for name, (_, p) in proxies.items()}
    order = [role for role, _ in SEATS]
    races = firsts = honest_clamped = 0
    gains: list[int] = []
    liars: list[dict[str, Any]] = [{"strategy": name, "races": 0, "max_gain_ms": None, "named": False}
                                   for name, _, _ in LIARS]
    spreads: list[float] = []  # the rooms' drawing across the 4 peers
    arrivals_spread: list[float] = []  # the rooms' arrival across the 4 peers
    late: list[float] = []  # how far after the instant each room was drawn
    baseline: list[float] = []
    try:
        game_seed = seed
        while races < races_wanted or game_seed - seed < len(LIARS):  # every liar gets a table
            liar = (game_seed - seed) % len(LIARS)
            game, outputs = await host_table(4, port, [(role, through[link]) for role, link in SEATS], game_seed,
                                             liar=liar)
            told = liars[liar]
            told["named"] = bool(told["named"] or any(name.startswith("Forger") for name in game.named))
            seat_of = game.seat_of
            least = game.least_rtt_ms
            if "slow" in least and "fast" in least:  # the links' own difference of one way
                baseline.append((least["slow"] - least["fast"]) / 2)
            for rnd, counted in game.counted.items():
                fast, slow = seat_of["fast"], seat_of["slow"]
                if fast in counted and slow in counted:
                    races += 1
                    planned = schedule(game_seed, rnd)
                    truly_first = fast if planned["fast"] < planned["slow"] else slow
                    counted_first = fast if counted[fast] < counted[slow] else slow
                    firsts += truly_first == counted_first
            honest = [c for c in game.clamps if c["clamped"] in (seat_of["fast"], seat_of["slow"])]
            honest_clamped += len(honest)
            if details is not None:
                details.setdefault("clamps", []).extend({"seed": game_seed, **c} for c in game.clamps)
                details.setdefault("bounds", []).extend({"seed": game_seed, **b} for b in game.bounds)
                details.setdefault("seats", {})[game_seed] = {"seat_of": seat_of, "outputs": outputs}
            forged = {r["round"]: r for r in outputs["forger"]["records"]}
            for rnd, record in forged.items():
                ms = game.counted.get(rnd, {}).get(seat_of["forger"])
                if ms is not None and "true_ms" in record:
                    gains.append(record["true_ms"] - ms)
                    told["races"] += 1
                    told["max_gain_ms"] = max(told["max_gain_ms"] or -10**9, record["true_ms"] - ms)
                    if details is not None:
                        details.setdefault("gains", []).append([game_seed, rnd, record["true_ms"], ms])
            drawn: dict[int, list[float]] = {}
            came: dict[int, list[float]] = {}
            for role in order:
                for record in outputs[role]["records"]:
                    if "drawn" in record:
                        drawn.setdefault(record["round"], []).append(record["drawn"])
                        came.setdefault(record["round"], []).append(record["arrived"])
                        late.append((record["drawn"] - record["planned"]) * 1000)
            spreads += [(max(a) - min(a)) * 1000 for a in drawn.values() if len(a) == len(order)]
            arrivals_spread += [(max(a) - min(a)) * 1000 for a in came.values() if len(a) == len(order)]
            game_seed += 1
        stalled, _ = await host_table(2, port, [("fast", through["fast"]), ("stalled", through["fast"])],
                                      seed, rounds=STALLED_ROUNDS)
        stalled_round = max(stalled.settled[r] - stalled.opened[r] for r in stalled.settled if r in stalled.opened)
    finally:
        for proc, _ in proxies.values():
            if proc.stdin is not None:
                proc.stdin.close()
        for proc, _ in proxies.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return {
        "races": races,
        "true_first_wins": round(firsts / races, 4) if races else 0.0,
        "honest_clamped": honest_clamped,
        "max_forger_gain_ms": max(gains) if gains else None,
        "liars": liars,
        "stalled_round_s": round(stalled_round, 2),
        "tie_window_ms": TIE_MS,
        "reveal_spread_p99_ms": round(percentile(spreads, 99), 1),
        "reveal_spread_p50_ms": round(percentile(spreads, 50), 1),
        "arrival_spread_p99_ms": round(percentile(arrivals_spread, 99), 1),
        "drawn_after_instant_p99_ms": round(percentile(late, 99), 1),
        "baseline_one_way_difference_ms": round(sum(baseline) / len(baseline), 1) if baseline else None,
        "links": {"fast": "2 ms one way", "slow": "50 ± 10 ms one way", "forger": "2 ms one way",
                  "watcher": "50 ± 10 ms one way", "stalled": "2 ms one way, never seals"},
    }


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "seat":
        role, address, seed, liar = argv[1], argv[2], int(argv[3]), int(argv[4])
        host, _, port = address.rpartition(":")
        asyncio.run(seat_main(role, (host, int(port)), CODE, role.capitalize(), seed, liar))
        return
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.race_bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--races", type=int, default=200,
                        help="rooms raced by both honest seats, at least (the forger lies a way per table in turn)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--details", metavar="PATH", help="write every clamp and every forger's gain here (JSON)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    details: dict | None = {} if args.details else None
    with tempfile.TemporaryDirectory() as data:  # the seats' rejoin keys go here, not in the player's folder
        os.environ["XDG_DATA_HOME"] = data
        figures = asyncio.run(bench(args.races, args.seed, details))
    if args.details:
        with open(args.details, "w", encoding="utf-8") as out:
            json.dump(details, out)
    figures["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(figures, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
