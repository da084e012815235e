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

``--no-peek``: every table, the stalled one too, deals no-peek (``make race-bench``
runs it after the ordinary bench). The seats join as they always do (a joiner's
program deals when the host's welcome says the table is no-peek); the host sends
no room, and each player's program sends its shares of a room at the instant the
host names, so a seat's room comes when its program holds enough shares to open
it: a seat draws its room when the view its program makes first shows the round
in its race (or at its reading of the instant, were that later), and its clocks
start there as above; the forger's wait counts from the arrival of the share that
let its program open the room. What counted is each program's move, the seat's
sealed presses merged with what the host heard (the record of play holds digests).
Its JSON adds ``no_peek`` (true), ``rooms``, ``host_program_open_ms`` (p50, p99,
min: from each room's instant to when the host's program held enough shares to
open it, both on the host's clock), ``seats_after_instant_ms`` (per seat: its
draw against its own reading of the instant, over the rooms whose word came once
it could read the host's clock, with how many came before, ``drawn_unclocked``;
its program's opening against the host's instant itself; and its reading's
error: these processes share one monotonic clock), ``before_instant`` (rooms any
program could open before their instant: must be 0), ``rooms_unmatched``,
``refused`` and ``refusals`` (the host's refusals of the seats' presses and
moves), ``stalled_rounds_settled`` and ``stopped`` (every table a program stopped
before its end, and why: the bench ends such a table there). At no-peek
``drawn_after_instant_p99_ms`` counts only the rooms a seat could time by its
reading of the host's clock (it draws when its program can open the room, not at
that reading). ``--details`` adds, at no-peek, each table's instants and the
host's program's openings; beside each bound, when the relay that completed that
seat's room really left; and in each seat's records when its program came to the
room, let its shares go, got the datagram that let it open the room, and opened it.

Must not touch: any address but loopback (the fault proxy refuses others); the
host's and the seats' programs, which it only watches (it wraps their sessions'
entry points to time them, and the forger's program's sending, as before).
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
    from netcode.session.seat import Answered
    from xmas_tui.tables.network import NetTable

    # (at a no-peek table too: the host's welcome says so, and my program deals from then on)
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
    opened, reached, gone, clocked = watch_rooms(session)  # no-peek: when my program could first open each room
    refused: list[str] = []  # the host's refusals of my presses and moves

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
        refused.extend(e.refused for e in events if isinstance(e, Answered) and e.refused)
        if any(isinstance(e, (Ended, HostLost)) for e in events):
            done.set()
            return
        if not any(isinstance(e, Updated) for e in events) or session.view is None:
            return
        public = session.view["public"]
        rnd, phase = public["round"], public["phase"]
        if role == "stalled":
            return
        # the room is here: at a no-peek table, when my program has opened it (the view it makes
        # shows the round; the host's word of who acts may come a moment later)
        here = session.no_peek or session.seat in session.to_act
        if phase == "race" and rnd != state["round"] and here:
            state["round"] = rnd
            arrived = min(time.monotonic(), session._arrived)  # (when its datagram came, where known)
            if LIARS[liar][2] == "room-acks" and role == "forger":
                holding["until"] = arrived + 0.2
            planned = session.room_at if session.room_at is not None else arrived
            if session.no_peek:  # which room of my program's, when it could open it (and when the
                room = session.mental.machine.rooms  # datagram came that let it), and which race
                when, came = opened.get(room, (None, None))
                records.setdefault(rnd, {"round": rnd}).update(room=room, race=session.race, opened=when,
                                                               completed=came, reached=reached.get(room),
                                                               released=gone.get(room),
                                                               good=clocked.get(session.race))
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
    print(json.dumps({"role": role, "no_peek": session.no_peek, "records": list(records.values()),
                      "refused": refused}), flush=True)


def watch_rooms(session: Any) -> tuple[dict[int, tuple[float, float]], dict[int, float], dict[int, float],
                                       dict[int, bool]]:
    """At a no-peek table, by the room's number (my program's count of rooms, which is the
    host's count of races; monotonic times): when my program could first open each room (its
    machine stopped waiting for the room's shares) and when the datagram that let it came
    (every share comes through ``_mental``, so it is timed there); when it came to the room
    (made its shares of it, to hold until the instant); and when it let them go. And, by race,
    whether the seat could read the host's clock when the race's ``Opens`` came (if not,
    ``room_at`` is when it came)."""
    from netcode.session.messages import Opens

    opened: dict[int, tuple[float, float]] = {}
    reached: dict[int, float] = {}  # (when its program came to the room: made its shares, to hold)
    gone: dict[int, float] = {}  # (when it let them go)
    clocked: dict[int, bool] = {}
    waiting: dict[str, int] = {}
    take = session._mental
    told = session._take

    def heard_of(message: Any, now: float, out: Any) -> None:
        if isinstance(message, Opens):
            clocked.setdefault(message.race, session.clock.good)
        told(message, now, out)

    def look() -> None:
        program = session.mental
        machine = program.machine if program is not None else None
        if machine is None:
            return
        if machine.room_waiting:
            waiting["room"] = machine.rooms
            reached.setdefault(machine.rooms, time.monotonic())
        elif "room" in waiting:
            opened.setdefault(waiting.pop("room"), (time.monotonic(), session._arrived))

    def timed(message: Any, out: Any, now: float) -> None:
        look()
        take(message, out, now)
        look()

    program = session.mental
    release = program.release_room

    def released() -> list[bytes]:  # (when my program's shares of the room went: the instant, as I read it)
        said = release()
        if said and program.machine is not None:
            gone.setdefault(program.machine.rooms, time.monotonic())
        return said

    session._mental = timed
    session._take = heard_of
    program.release_room = released
    return opened, reached, gone, clocked


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
    #: a no-peek table: each race's instant (host clock), when the host's program could first
    #: open each room (by its count of rooms, the host's count of races), and each round's race
    instants: dict[int, float] = field(default_factory=dict)
    host_opened: dict[int, float] = field(default_factory=dict)
    race_of: dict[int, int] = field(default_factory=dict)
    #: why the game stopped before its end (a no-peek table's program stopping it), if it did
    stopped: str | None = None
    #: a no-peek table: (the room's instant, peer) -> when the relay that gave that peer's program
    #: enough shares really left (the bound counts from when the host took the share in)
    left: dict[tuple[float, Any], float] = field(default_factory=dict)


async def host_table(players: int, port: int, seats: list[tuple[str, int]], seed: int,
                     *, rounds: int | None = None, liar: int = 0,
                     no_peek: bool = False) -> tuple[Game, dict[str, dict]]:
    """Host one table on ``port`` and seat ``seats`` (role, the port it joins through); returns what
    the host saw and each seat's own records. ``no_peek``: the table deals no-peek (its deal is
    the players' programs' shuffle, which no seed chooses)."""
    from xmas_tui.tables.network import NetTable

    hosted = NetTable.hosted(DC, players, code=CODE, name="Host", port=port, bind_host="127.0.0.1",
                             auto_start=True, announce=False, seed=seed, no_peek=no_peek)
    await hosted.open(sit=False)
    game = Game()
    enough = asyncio.Event()
    if no_peek:
        watch_host_program(hosted.host, game)

    def news(events: list) -> None:
        rules = hosted.host.rules
        if rules is None:
            return
        state = rules.machine.replica.state if no_peek else rules.state
        if state is None:
            return
        now = time.monotonic()
        if state.phase == "race":  # the round opens at the instant every terminal draws its room
            game.opened.setdefault(state.round, hosted.host.live.at or now)
            game.race_of.setdefault(state.round, hosted.host.live.race)
        elif state.phase == "pause":
            game.settled.setdefault(state.round, now)
        if rounds is not None and len(game.settled) >= rounds:
            enough.set()
        if hosted.host.finished:
            enough.set()
        if no_peek and game.stopped is None:  # (a program stopped the game: no round settles any more)
            game.stopped = next((e[1] for e in hosted.host.log if e[0] == "stopped"), None)
            if game.stopped is not None:
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

    def earliest_ms(peer, arrived, opening=0.0):  # every bound the host sets, with what it was set from
        result = believe(peer, arrived, opening)
        link = races.links.get(peer)
        guest = hosted.host.guests.get(peer)
        if result is not None and link is not None and guest is not None:
            bounds.append({"seat": guest.seat, "arrived": arrived, "at": races.room_at, "sent": races.sent.get(peer),
                           "r": link.least, "j": link.spread, "answers": len(link.recent), "bound": result,
                           **({"left": game.left.get((races.room_at, peer))} if no_peek else {})})
        return result

    races.earliest_ms = earliest_ms
    if no_peek:
        watch_relays(hosted.runner, races, game)
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
    # what counted: the record of play; at a no-peek table it holds sealed digests, and the moves
    # as every program made them (each seat's presses merged with what the host heard) are its
    # program's
    moves = hosted.host.rules.machine.moves if no_peek else hosted.host.ledger.actions
    for seat, action in moves:
        parsed = action if no_peek else DC.parse_action(action)
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


def watch_host_program(host: Any, game: Game) -> None:
    """At a no-peek table: when the host's program could first open each room (its machine
    stopped waiting for the room's shares: it held t of them), on the host's clock, beside the
    instant the host named. Every share reaches it through the session's ``_mental``."""
    take = host._mental
    waiting: dict[str, int] = {}

    def look(now: float) -> None:
        rules = host.rules
        machine = getattr(rules, "machine", None)
        if machine is None:
            return
        if host.live.open and host.live.at is not None:
            game.instants.setdefault(host.live.race, host.live.at)
        if machine.room_waiting:
            waiting["room"] = machine.rooms
        elif "room" in waiting:
            game.host_opened.setdefault(waiting.pop("room"), now)

    def timed(peer: Any, message: Any, now: float) -> None:
        look(now)
        take(peer, message, now)
        look(now)

    host._mental = timed


def watch_relays(runner: Any, races: Any, game: Game) -> None:
    """At a no-peek table: when the relay that gave each peer's program enough shares of a room
    really left this machine (the first relay to it once the host counted its room sent)."""
    from netcode.session.messages import Relay

    send = runner._send

    def timed(aio: Any, peer: Any, message: Any) -> None:
        send(aio, peer, message)
        at = races.room_at
        if isinstance(message, Relay) and at is not None and peer in races.sent:
            game.left.setdefault((at, peer), time.monotonic())

    runner._send = timed


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def bench(races_wanted: int, seed: int, details: dict | None = None, *, no_peek: bool = False) -> dict[str, Any]:
    """The figures; ``details`` (if given) receives every clamp and every forger's gain.
    ``no_peek``: every table deals no-peek (``RoomTimes`` adds its figures)."""
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
    rooms = RoomTimes(order) if no_peek else None
    try:
        game_seed = seed
        while races < races_wanted or game_seed - seed < len(LIARS):  # every liar gets a table
            liar = (game_seed - seed) % len(LIARS)
            game, outputs = await host_table(4, port, [(role, through[link]) for role, link in SEATS], game_seed,
                                             liar=liar, no_peek=no_peek)
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
                if no_peek:
                    details.setdefault("rooms", {})[game_seed] = {"instants": game.instants,
                                                                  "host_opened": game.host_opened}
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
                        if not no_peek or record.get("good"):  # (no-peek: drawn when its program could open it,
                            late.append((record["drawn"] - record["planned"]) * 1000)  # not at its reading)
            spreads += [(max(a) - min(a)) * 1000 for a in drawn.values() if len(a) == len(order)]
            arrivals_spread += [(max(a) - min(a)) * 1000 for a in came.values() if len(a) == len(order)]
            if rooms is not None:
                rooms.table(game_seed, game, outputs)
            game_seed += 1
        stalled, _ = await host_table(2, port, [("fast", through["fast"]), ("stalled", through["fast"])],
                                      seed, rounds=STALLED_ROUNDS, no_peek=no_peek)
        stalled_round = max((stalled.settled[r] - stalled.opened[r] for r in stalled.settled if r in stalled.opened),
                            default=None)
        if rooms is not None:
            rooms.stalled(stalled)
    finally:
        for proc, _ in proxies.values():
            if proc.stdin is not None:
                proc.stdin.close()
        for proc, _ in proxies.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    figures = {
        "races": races,
        "true_first_wins": round(firsts / races, 4) if races else 0.0,
        "honest_clamped": honest_clamped,
        "max_forger_gain_ms": max(gains) if gains else None,
        "liars": liars,
        "stalled_round_s": round(stalled_round, 2) if stalled_round is not None else None,
        "tie_window_ms": TIE_MS,
        "reveal_spread_p99_ms": round(percentile(spreads, 99), 1),
        "reveal_spread_p50_ms": round(percentile(spreads, 50), 1),
        "arrival_spread_p99_ms": round(percentile(arrivals_spread, 99), 1),
        "drawn_after_instant_p99_ms": round(percentile(late, 99), 1),
        "baseline_one_way_difference_ms": round(sum(baseline) / len(baseline), 1) if baseline else None,
        "links": {"fast": "2 ms one way", "slow": "50 ± 10 ms one way", "forger": "2 ms one way",
                  "watcher": "50 ± 10 ms one way", "stalled": "2 ms one way, never seals"},
    }
    if rooms is not None:
        figures.update(rooms.figures())
    return figures


class RoomTimes:
    """At a no-peek table, when each room could first be opened, against the instant the host
    named for it (ms; below 0: before it). The host's program is timed on the host's clock
    (this process); a seat's draw against its own reading of the host's clock (``room_at``,
    as ``drawn_after_instant_p99_ms``; only the rooms whose ``Opens`` came once it could read
    it, the others counted apart), and its program's opening against the host's instant itself:
    every process here reads the one system-wide monotonic clock (Linux's ``CLOCK_MONOTONIC``,
    as the spreads above already take), so a seat's reading of the host's clock is checked too
    (``clock_error``)."""

    def __init__(self, roles: list[str]) -> None:
        self.roles = roles
        self.host_ms: list[float] = []
        self.drawn_ms: dict[str, list[float]] = {role: [] for role in roles}
        self.opened_ms: dict[str, list[float]] = {role: [] for role in roles}
        self.clock_ms: dict[str, list[float]] = {role: [] for role in roles}
        #: rooms a seat drew before it could read the host's clock (its first, as a rule)
        self.unclocked: dict[str, int] = dict.fromkeys(roles, 0)
        #: (table, race) of every room some program could open before its instant
        self.early: set[tuple[int, int]] = set()
        self.rooms = 0
        #: rooms whose number a seat's program and the host disagree on, or that it drew unopened
        self.unmatched = 0
        self.refused: list[str] = []
        #: every table a program stopped before its end: which, after how many rounds, and why
        self.stops: list[dict[str, Any]] = []
        self.stalled_rounds = 0

    def stalled(self, game: Game) -> None:
        """The stalled seat's table: how many of its rounds settled, and whether it stopped."""
        self.stalled_rounds = len(game.settled)
        if game.stopped is not None:
            self.stops.append({"table": "stalled", "rounds_settled": len(game.settled), "why": game.stopped})

    def table(self, table: int, game: Game, outputs: dict[str, dict]) -> None:
        if game.stopped is not None:
            self.stops.append({"table": table, "rounds_settled": len(game.settled), "why": game.stopped})
        for role in self.roles:
            if not outputs[role].get("no_peek"):
                raise RuntimeError(f"the {role} seat did not sit at a no-peek table")
        for race, at in game.instants.items():
            opened = game.host_opened.get(race)
            if opened is None:
                continue
            self.rooms += 1
            self.host_ms.append((opened - at) * 1000)
            if opened < at:
                self.early.add((table, race))
        for role in self.roles:
            self.refused += outputs[role].get("refused", [])
            for record in outputs[role]["records"]:
                if "drawn" not in record:
                    continue
                if record.get("good"):  # (else its reading of the instant is when the word came)
                    self.drawn_ms[role].append((record["drawn"] - record["planned"]) * 1000)
                else:
                    self.unclocked[role] += 1
                race, opened = record.get("race"), record.get("opened")
                instant = game.instants.get(race)
                if instant is None or opened is None or record.get("room") != race \
                        or game.race_of.get(record["round"]) != race:  # fmt: skip
                    self.unmatched += 1
                    continue
                self.opened_ms[role].append((opened - instant) * 1000)
                if record.get("good"):
                    self.clock_ms[role].append((record["planned"] - instant) * 1000)
                if opened < instant:
                    self.early.add((table, race))

    def figures(self) -> dict[str, Any]:
        def spread(values: list[float]) -> dict[str, float | None]:
            if not values:
                return {"p50": None, "p99": None, "min": None}
            return {"p50": round(percentile(values, 50), 1), "p99": round(percentile(values, 99), 1),
                    "min": round(min(values), 1)}

        return {
            "no_peek": True,
            "rooms": self.rooms,
            "host_program_open_ms": spread(self.host_ms),
            "seats_after_instant_ms": {role: {"drawn": spread(self.drawn_ms[role]),
                                              "drawn_unclocked": self.unclocked[role],
                                              "opened": spread(self.opened_ms[role]),
                                              "clock_error": spread(self.clock_ms[role])}
                                       for role in self.roles},
            "before_instant": len(self.early),
            "rooms_unmatched": self.unmatched,
            "refused": len(self.refused),
            "refusals": sorted(set(self.refused)),
            "stalled_rounds_settled": self.stalled_rounds,
            "stopped": self.stops,
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
    parser.add_argument("--no-peek", action="store_true",
                        help="every table deals no-peek: the players' programs open each room at its instant")
    args = parser.parse_args(argv)
    started = time.monotonic()
    details: dict | None = {} if args.details else None
    with tempfile.TemporaryDirectory() as data:  # the seats' rejoin keys go here, not in the player's folder
        os.environ["XDG_DATA_HOME"] = data
        figures = asyncio.run(bench(args.races, args.seed, details, no_peek=args.no_peek))
    if args.details:
        with open(args.details, "w", encoding="utf-8") as out:
            json.dump(details, out)
    figures["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(figures, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
