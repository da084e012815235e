"""Fair races over a network: the host's bound on claimed reaction times, every room drawn at one
instant, live shouts, and the pause between rounds. Sans-IO: the host session is fed messages and
time by hand, so every link below (its delays, its jitter, a liar's waiting) is exact."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcode.channel.events import RttUpdated
from netcode.fairplay import Ledger, Signer
from netcode.session.clock import LONGEST_WAIT, HostClock
from netcode.session.host import HostSession, TableSettings
from netcode.session.host.races import (
    AHEAD,
    BURST_EVERY,
    BURST_MOST,
    CLOCK_SLACK_MS,
    FIRST_WAIT,
    FRAME_MS,
    HOST_WORK,
    JITTER_CAP_MS,
    MAX_LEAD,
    PING_EVERY,
    ROUND_TRIP_CAP_MS,
    SETTLE,
    Link,
    RaceClock,
)
from netcode.session.messages import (
    VERSION,
    Act,
    Dealt,
    Hello,
    Opens,
    Ping,
    Pong,
    Press,
    Shout,
    Snap,
    Verdict,
)
from netcode.session.seat import SeatSession
from netcode.session.step import HOST
from xmas_tui.games import Rng, get_game
from xmas_tui.games.dragons_chickens import (
    CHEST,
    GAME,
    NAME,
    SHIELD,
    SLAP,
    WINDOW_MS,
    Clamp,
    Presses,
    Ready,
    all_faces,
    clamp_presses,
)
from xmas_tui.tables.rules import GameRules

DC = get_game("dragons-chickens")
PEERS = ("p1", "p2")


# ---------------------------------------------------------------- the engine's pure clamp


def test_a_claim_no_sooner_than_the_bound_stands_as_it_is() -> None:
    presses = Presses.of((NAME, 2, 400), (CHEST, 0, 900))
    assert clamp_presses(presses, 400) == (presses, ())


def test_a_claim_below_the_bound_counts_at_the_bound_and_says_so() -> None:
    bounded, clamps = clamp_presses(Presses.of((SHIELD, 0, 0), (NAME, 2, 700)), 350)
    assert bounded == Presses.of((SHIELD, 0, 350), (NAME, 2, 700))
    assert clamps == (Clamp(SHIELD, 0, 0, 350),)


def test_a_claim_the_host_saw_arrive_after_the_room_closed_is_dropped() -> None:
    bounded, clamps = clamp_presses(Presses.of((NAME, 2, 10)), WINDOW_MS + 1)
    assert bounded == Presses() and clamps == (Clamp(NAME, 2, 10, None),)


@given(st.lists(st.tuples(st.sampled_from([NAME, CHEST, SHIELD]), st.integers(0, WINDOW_MS)), max_size=3,
                unique_by=lambda x: x[0]), st.integers(0, WINDOW_MS))
def test_property_clamping_never_makes_a_claim_sooner_and_touches_nothing_above_the_bound(inputs, bound) -> None:
    presses = Presses.of(*((kind, 0, ms) for kind, ms in inputs))
    bounded, clamps = clamp_presses(presses, bound)
    after = {i.kind: i.ms for i in bounded.inputs(0)}
    for kind, ms in inputs:
        assert after[kind] == max(ms, bound)
    assert len(clamps) == sum(ms < bound for _, ms in inputs)


# ---------------------------------------------------------------- between rounds


def test_the_next_room_opens_only_when_every_player_has_seen_the_last_round() -> None:
    """Ruling "Between rounds": nobody learns a room before the moment it opens."""
    state = GAME.setup({}, ["Marta", "Ignacio"], Rng(3))
    rng = Rng(1)
    GAME.apply(state, 0, Presses(), rng)
    GAME.apply(state, 1, Presses(), rng)
    assert state.phase == "pause" and state.round == 1
    tops = [state.cards.top(f"table.{s}") for s in range(2)]
    GAME.apply(state, 0, Ready(), rng)
    assert state.phase == "pause" and GAME.to_act(state) == {1}
    assert [state.cards.top(f"table.{s}") for s in range(2)] == tops, "no new card is turned yet"
    assert "Between rounds" in GAME.why_illegal(state, 1, Presses())
    GAME.apply(state, 1, Ready(), rng)
    assert state.phase == "race" and state.round == 2 and GAME.to_act(state) == {0, 1}


# ---------------------------------------------------------------- a table driven by hand

_ids = itertools.count(100)


def race_host(players: int = 2, bots: int = 0) -> HostSession:
    settings = TableSettings(DC.id, DC.title, players, "Host", intermission=2.0, race_slack=1.0)
    ledger = Ledger(DC.id, b"table-01", b"s" * 32)
    return HostSession(settings, lambda names, seed: GameRules(DC, names, seed=seed, bot="sensible"), ledger,
                       Signer(), bot_seats=range(players - bots, players))


def hello(host: HostSession, peer: str, name: str, now: float, *, local: bool = False):
    return host.receive(peer, Hello(VERSION, name, None, None, False).to_wire(), now, local=local)


def answer_pings(host: HostSession, out, rtts: dict[str, float], now: float) -> None:
    """Answer every ping in ``out`` after its peer's round trip."""
    for peer, message in out.sends:
        if isinstance(message, Ping) and peer in rtts:
            host.receive(peer, Pong(message.n, 0.0).to_wire(), now + rtts[peer])


def acks(least: float, spread: float, recent: float | None = None) -> RttUpdated:
    """What the channel tells of a link whose acks showed ``least`` as the least round trip ever,
    ``spread`` above it, and ``recent`` (default: ``least``) as the least of late."""
    recent = least if recent is None else recent
    return RttUpdated(0, recent + spread / 2, spread / 2, 0.2, least, spread, recent)


def measured_table(rtts_over_time: dict[str, list[float]], *, bots: int = 0,
                   acked: dict[str, tuple[float, float]] | None = None) -> tuple[HostSession, float]:
    """A dealt table (two remote seats, then ``bots`` bots) whose host has pinged each peer once
    per listed round trip; returns it and the time it is then. ``acked`` gives, per peer, the
    least round trip and the spread the channel's acks of all traffic showed."""
    host = race_host(2 + bots, bots)
    hello(host, "p1", "Ann", 0.0)
    hello(host, "p2", "Bob", 0.0)
    for peer, (least, spread) in (acked or {}).items():
        host.peer_rtt(peer, acks(least, spread), 0.0)
    out = host.start(0.0)
    now = 0.0
    for i in range(max(len(r) for r in rtts_over_time.values())):
        answer_pings(host, out, {p: r[i % len(r)] for p, r in rtts_over_time.items()}, now)
        target = host.races.next_ping()
        while (due := host.next_deadline()) is not None and due < target:
            host.tick(due)  # rooms leave, bots press
        now = target
        out = host.tick(now)
    return host, now


def send(host: HostSession, peer: str, message, at: float):
    return host.receive(peer, message.to_wire(), at)


def settle_round(host: HostSession, now: float) -> None:
    """Every remote seat presses nothing (the bots have sealed), then says it is ready."""
    for peer in PEERS:
        if host.rules.racing() and host.guests[peer].seat in host.rules.to_act():
            send(host, peer, Act(next(_ids), Presses().to_wire(), None), now)
    for peer in PEERS:
        if host.guests[peer].seat in host.rules.to_act():
            send(host, peer, Act(next(_ids), Ready().to_wire(), None), now)


def open_room(host: HostSession, now: float) -> tuple[float, dict[str, float]]:
    """End the open round and open the next at ``now``; the held rooms leave when due.
    Returns the room's instant and when each peer's room left."""
    settle_round(host, now)
    assert host.rules.racing() and host.live.at is not None
    at = host.live.at
    while (due := host.next_deadline()) is not None and due <= at and host.races.sent.keys() != set(PEERS):
        host.tick(due)
    return at, dict(host.races.sent)


def press(host: HostSession, peer: str, presses: Presses, at: float) -> str | None:
    out = host.receive(peer, Act(next(_ids), presses.to_wire(), None).to_wire(), at)
    return [m for p, m in out.sends if p == peer and isinstance(m, Verdict)][0].refused


def clamp_notes(host: HostSession) -> list[dict]:
    return [entry[3] for entry in host.log if entry[0] == "table" and entry[3] and "clamped" in entry[3]]


def counted(host: HostSession, seat: int, kind: int) -> int:
    last = [a for s, a in host.ledger.actions if s == seat][-1]
    return {i.kind: i.ms for i in DC.parse_action(last).inputs(seat)}[kind]


# ---------------------------------------------------------------- the host's pings


def test_the_host_pings_every_remote_racer_and_keeps_its_smallest_round_trip() -> None:
    host, _ = measured_table({"p1": [0.004, 0.006, 0.005] * 3,
                              "p2": [0.11, 0.09, 0.1, 0.095, 0.1, 0.09, 0.13, 0.1]})
    assert abs(host.races.links["p1"].smallest - 0.004) < 1e-9
    assert abs(host.races.links["p2"].smallest - 0.09) < 1e-9
    assert abs(host.races.links["p2"].spread - 0.02) < 1e-9  # the second largest above the smallest


def test_a_link_that_has_answered_few_pings_is_given_their_largest_spread() -> None:
    """Of two answers the second largest is the smallest: a 50 +/- 10 ms link read as no spread
    at all, and an honest player's first room was clamped. Until ``SETTLE`` have answered the
    largest counts; then one round trip (a resent datagram) is set aside."""
    link = Link()
    for rtt in (0.0904, 0.105):
        link.add(rtt)
    assert not link.settled and abs(link.spread - 0.0146) < 1e-9
    for rtt in (0.095, 0.1, 0.092, 0.098, 0.097):
        link.add(rtt)
    assert len(link.recent) == SETTLE - 1 and abs(link.spread - 0.0146) < 1e-9
    link.add(0.099)
    assert link.settled and abs(link.spread - (0.1 - 0.0904)) < 1e-9


def test_a_link_is_pinged_ten_times_a_second_until_it_has_answered_enough() -> None:
    """NTP's iburst: a new link is pinged every ``BURST_EVERY`` until it has answered ``SETTLE``
    pings, then every ``PING_EVERY``; one that never answers is burst at most ``BURST_MOST`` times."""
    clock = RaceClock()
    now, due = 0.0, []
    for _ in range(SETTLE + 2):  # (each next ping is timed as one leaves, before it is answered)
        (peer, n, _), = clock.pings(["p"], now)
        assert clock.pings(["p"], now + BURST_EVERY / 2) == [], "not before it is time"
        clock.pong(peer, n, now + 0.05)
        due.append(clock.next_ping() - now)
        now = clock.next_ping()
    assert [round(d, 9) for d in due] == [BURST_EVERY] * SETTLE + [PING_EVERY] * 2
    silent = RaceClock()
    now, gaps = 0.0, []
    for _ in range(BURST_MOST + 2):
        assert len(silent.pings(["q"], now)) == 1
        gaps.append(silent.next_ping() - now)
        now = silent.next_ping()
    assert [round(g, 9) for g in gaps] == [BURST_EVERY] * (BURST_MOST - 1) + [PING_EVERY] * 3


def test_the_first_room_waits_until_a_slow_jittery_link_has_answered_enough_pings() -> None:
    """The first room is dealt at once and drawn ``FIRST_WAIT`` later: by then the pings of a
    50 +/- 10 ms link (a round trip of up to 120 ms) have answered ``SETTLE`` times, so its
    spread is read from enough of them before the first claim is bounded."""
    host = race_host()
    hello(host, "p1", "Ann", 0.0)
    hello(host, "p2", "Bob", 0.0)
    out = host.start(0.0)
    at = host.live.at
    assert at == FIRST_WAIT
    trips = itertools.cycle([0.080, 0.120, 0.110, 0.095, 0.118, 0.085, 0.100, 0.090, 0.105, 0.097])
    now = 0.0
    while set(host.races.sent) != set(PEERS):
        rtt = next(trips)
        answer_pings(host, out, {"p1": 0.004, "p2": rtt}, now)
        now = host.next_deadline()
        out = host.tick(now)
    assert now <= at
    slow = host.races.links["p2"]
    assert slow.settled and len(slow.recent) >= SETTLE
    assert abs(slow.spread - (0.118 - 0.080)) < 1e-9, "the second largest: the 120 ms answer set aside"


def test_a_ping_held_by_a_busy_terminal_widens_no_spread_and_never_shortens_the_round_trip() -> None:
    """A busy seat's program answers late and says so: the link's spread is the wire's, and its
    smallest round trip (the bound's foundation) is what the host measured, held or not."""
    link = Link()
    for rtt, held in ((0.004, 0.0), (0.034, 0.030), (0.005, 0.0), (0.054, 0.050), (0.004, 0.0)):
        link.add(rtt, held)
    assert abs(link.smallest - 0.004) < 1e-9 and link.spread < 0.0015
    liar = Link()
    for rtt in (0.004, 0.005, 0.004):
        liar.add(rtt, held=rtt)  # "I held it the whole time"
    assert abs(liar.smallest - 0.004) < 1e-9 and liar.spread == 0.0


def test_an_unasked_pong_is_dropped_and_counted() -> None:
    host = race_host()
    hello(host, "p1", "Ann", 0.0)
    host.receive("p1", Pong(999, 0.0).to_wire(), 1.0)
    assert host.drops["unasked_pong"] == 1


def test_a_seat_answers_every_ping_at_once_and_says_how_long_it_held_it() -> None:
    seat = SeatSession("Ann", b"table-01")
    out = seat.receive(Ping(42, 7.0, None).to_wire(), 1.003, arrived=1.0)
    [(to, pong)] = out.sends
    assert to is HOST and pong.n == 42 and abs(pong.held - 0.003) < 1e-9


# ---------------------------------------------------------------- one instant for every room


def test_each_remote_peer_is_sent_its_room_just_in_time_for_the_instant() -> None:
    """Every terminal draws a new room at the same instant: the host sends each remote peer its
    room half its round trip (and half its spread, and a millisecond) before it, the slowest
    first; the host's own player gets it at once and draws at the instant too."""
    host, now = measured_table({"p1": [0.004] * SETTLE,
                                "p2": [0.080, 0.100, 0.090, 0.080, 0.085, 0.090, 0.080, 0.085]})
    at, sent = open_room(host, now + 1)
    fast, slow = host.races.links["p1"], host.races.links["p2"]
    assert abs(at - (now + 1 + HOST_WORK + slow.lead)) < 1e-9 and at - (now + 1) <= MAX_LEAD
    assert abs(slow.lead - (0.040 + 0.010 / 2 + AHEAD)) < 1e-9  # spread: the second largest, 90 ms
    assert abs(sent["p1"] - (at - fast.lead)) < 1e-9 and abs(sent["p2"] - (at - slow.lead)) < 1e-9
    assert sent["p2"] < sent["p1"], "the slow link's room leaves first"


def test_a_held_peer_is_sent_nothing_before_its_room_and_everything_in_order_after() -> None:
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.080] * 4})
    settle_round(host, now + 1)
    at = host.live.at
    held = host.tick(now + 1 + HOST_WORK / 2)
    assert not [m for p, m in held.sends if p == "p1" and isinstance(m, (Snap, Opens))]
    out = host.tick(at - host.races.links["p1"].lead)
    kinds = [type(m) for p, m in out.sends if p == "p1"]
    assert kinds[0] is Opens and Snap in kinds, "the instant, then the room"
    assert kinds.index(Opens) < kinds.index(Snap)
    assert [m for p, m in out.sends if p == "p1" and isinstance(m, Opens)][0].at == at


def test_the_deal_reaches_every_seat_at_once_while_its_first_room_is_held() -> None:
    """The first room waits about a second for the pings; the deal's record (with each
    player's share of the secret) must not wait with it, or a host that died
    in that second would leave nobody able to take the table over."""
    host = race_host(4)
    hello(host, "p1", "Ann", 0.0)
    hello(host, "p2", "Bob", 0.0)
    hello(host, "p3", "Cy", 0.0)
    out = host.start(0.0)
    for peer in (*PEERS, "p3"):
        kinds = [type(m) for p, m in out.sends if p == peer]
        assert Dealt in kinds, kinds
        assert Snap not in kinds and Opens not in kinds, "the room itself is still held"
    assert host.live.holding("p1") and host.live.holding("p2")


def test_a_local_seat_draws_its_room_at_the_instant_too() -> None:
    from netcode.session.peer import TablePeer

    host = race_host(2)
    node = TablePeer.as_host(host)
    me = SeatSession("Ann", b"table-01")
    node.sit(me, 0.0)
    hello(host, "p2", "Bob", 0.0)
    node.command(host.start, 0.0)
    assert me.room_at == host.live.at and host.live.at > 0.0, "the local seat knows the host's clock"


def test_a_seat_turns_the_hosts_instant_into_its_own_clock_by_the_pings() -> None:
    """An NTP-style minimum-delay filter: the host stamps each ping and echoes its round trip;
    the sample with the smallest delay wins, so one slow ping does not skew the clock."""
    offset = 1000.0  # the host's clock reads 1000 s ahead of mine
    clock = HostClock()
    assert clock.local(2000.0, arrived=5.0) == 5.0, "no estimate yet: draw as it arrives"
    for n, (down, up) in enumerate(((0.040, 0.041), (0.055, 0.045), (0.041, 0.040), (0.060, 0.030)), 1):
        sent = 10.0 * n  # host clock, minus the offset, is mine
        clock.pinged(n, sent + offset, arrived=sent + down, held=0.001)
        clock.echoed(n, down + 0.001 + up)
    assert abs(clock.offset - offset) < 0.001
    instant = 50.2 + offset
    assert abs(clock.local(instant, arrived=50.15) - 50.2) < 0.001
    assert clock.local(instant, arrived=50.25) == 50.25, "a room that came late is drawn as it comes"
    assert clock.local(instant + 9, arrived=50.15) == 50.15 + LONGEST_WAIT, "no host can make a seat wait long"


def test_a_seat_draws_each_room_at_the_instant_the_host_names() -> None:
    seat = SeatSession("Ann", b"table-01")
    seat.clock.same = True
    seat.receive(Opens(3, 12.5).to_wire(), 12.46)
    assert seat.race == 3 and seat.room_at == 12.5 and seat.shouts == []


# ---------------------------------------------------------------- the bound


def honest_arrival(at: float, sent: float, down: float, up: float, frame: float, late: float, reaction: int) -> float:
    """When an honest seat's press reaches the host: its room arrives ``down`` after it left,
    it is drawn at the instant (``late`` after it, its clock's error) or as it arrives, a
    frame later the clock starts, and the press takes ``up`` back."""
    drawn = max(at + late, sent + down) + frame
    return drawn + reaction / 1000 + up


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(0.0, 0.010), min_size=8, max_size=8), st.lists(st.floats(0.0, 0.010), min_size=8, max_size=8),
       st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, FRAME_MS / 1000),
       st.integers(150, 3000))
def test_property_an_honest_player_on_a_jittery_link_is_never_clamped(downs, ups, d, u, e, frame, reaction) -> None:
    """50 ± 10 ms each way: a round trip of 80-120 ms. An honest claim whose ways are each within
    half the round trip and the spread the host has seen, drawn within a frame of its (estimated)
    instant, always stands."""
    trips = [0.080 + dn + up for dn, up in zip(downs, ups, strict=True)]
    host, now = measured_table({"p1": [0.004], "p2": trips})
    at, sent = open_room(host, now + 1)
    link = host.races.links["p2"]
    r, j = link.smallest, link.spread
    late = e * (CLOCK_SLACK_MS / 1000 + j / 2)
    arrived = honest_arrival(at, sent["p2"], r / 2 + d * j, r / 2 + u * j, frame, late, reaction)
    assert press(host, "p2", Presses.of((NAME, 3, reaction)), arrived) is None
    assert clamp_notes(host) == []


def test_an_honest_player_whose_room_came_late_is_not_clamped() -> None:
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.080, 0.120, 0.100, 0.090]})
    at, sent = open_room(host, now + 1)
    link = host.races.links["p2"]
    down = link.smallest / 2 + link.spread  # the room took the whole spread: it came after the instant
    assert sent["p2"] + down > at
    arrived = honest_arrival(at, sent["p2"], down, link.smallest / 2, FRAME_MS / 1000, 0.0, 400)
    assert press(host, "p2", Presses.of((NAME, 3, 400)), arrived) is None and clamp_notes(host) == []


def test_a_liar_who_waits_two_seconds_and_claims_zero_is_counted_from_what_the_host_saw() -> None:
    """The issue's forger: waits 2 s after its room arrived, then claims 0 ms."""
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    at, sent = open_room(host, now + 1)
    arrived = sent["p1"] + 0.002 + 2.0 + 0.002
    assert press(host, "p1", Presses.of((NAME, 1, 0)), arrived) is None
    note = clamp_notes(host)[-1]
    bound = note["bound_ms"]
    assert note["clamped"] == 0 and note["claims"] == [[NAME, 1, 0, bound]]
    link = host.races.links["p1"]
    assert 2000 - bound <= 2 * link.spread * 1000 + FRAME_MS + 3 + 1, "twice its jitter, a frame, 3 ms"
    assert 2000 - bound <= 25, "on a steady 2 ms link, under 25 ms"


@pytest.mark.parametrize("late_ms", [0, 50, 200, 500])
def test_a_liar_who_answers_pings_late_gains_no_more_than_an_honest_link_allows(late_ms) -> None:
    """Issue 26.2's forger: its pongs leave ``late_ms`` late saying it held them 0 ms, so its
    link looks slow and the host used to send it its room early and believe its claims less
    (223 ms gained at 200 ms). The channel's acks of all other traffic show the 2 ms link: the
    host takes the smaller round trip, so the room leaves on time and the bound holds."""
    trip = 0.004 + late_ms / 1000
    host, now = measured_table({"p1": [trip] * SETTLE, "p2": [0.004] * SETTLE},
                               acked={"p1": (0.004, 0.001), "p2": (0.004, 0.001)})
    at, sent = open_room(host, now + 1)
    assert at - sent["p1"] <= 0.004 / 2 + 0.001 / 2 + AHEAD + 1e-9, "its room leaves no earlier than the honest one's"
    arrived = sent["p1"] + 0.002 + 2.0 + 0.002  # knew the room on arrival, waited 2 s, claims 0
    press(host, "p1", Presses.of((NAME, 1, 0)), arrived)
    assert 2000 - clamp_notes(host)[-1]["bound_ms"] <= 25, "a gain of at most 25 ms"
    named = [e for e in host.log if e[0] == "table" and "answers the host's pings" in e[1]]
    if late_ms > 20:
        assert len(named) == 1 and named[0][2] == 0 and f"{late_ms} ms slower" in named[0][1]
    else:
        assert named == []


def test_a_liar_who_answers_some_pings_late_widens_no_spread_the_acks_do_not_show() -> None:
    host, now = measured_table({"p1": [0.004, 0.064, 0.004, 0.064] * 3, "p2": [0.004] * SETTLE},
                               acked={"p1": (0.004, 0.002), "p2": (0.004, 0.002)})
    assert host.races.links["p1"].spread == pytest.approx(0.002)
    at, sent = open_room(host, now + 1)
    press(host, "p1", Presses.of((NAME, 1, 0)), sent["p1"] + 0.002 + 2.0 + 0.002)
    assert 2000 - clamp_notes(host)[-1]["bound_ms"] <= 25


def test_an_honest_jittery_link_keeps_its_spread_and_is_not_named() -> None:
    """The acks of a 50 ± 10 ms link spread as its pings do: the smaller of the two is the pings'."""
    trips = [0.080, 0.120, 0.100, 0.095, 0.110, 0.085, 0.118, 0.09]
    host, now = measured_table({"p1": [0.004] * SETTLE, "p2": trips}, acked={"p2": (0.079, 0.042)})
    link = host.races.links["p2"]
    assert link.least == pytest.approx(0.079) and link.spread == pytest.approx(0.118 - 0.079)
    assert not [e for e in host.log if e[0] == "table" and "answers the host's pings" in e[1]]


def test_a_link_takes_the_least_round_trip_of_pings_and_acks_and_the_smaller_spread() -> None:
    link = Link()
    for trip in [0.08, 0.1, 0.085, 0.08, 0.13, 0.09, 0.08, 0.08]:
        link.add(trip)
    assert link.least == pytest.approx(0.08) and link.spread == pytest.approx(0.02)
    link.acked_least, link.acked_spread, link.acked_recent = 0.003, 0.004, 0.003
    assert link.least == 0.003 and link.spread == 0.004
    assert link.slow_pongs() == pytest.approx(0.077)
    link.acked_least, link.acked_spread, link.acked_recent = 0.1, 0.1, 0.1  # acks slower than pings
    assert link.least == pytest.approx(0.08) and link.spread == pytest.approx(0.02)
    assert link.slow_pongs() is None and link.jumped() is None


def test_no_link_is_credited_with_more_than_the_cap() -> None:
    """A program that delays all it sends from its first datagram is a slow link to anyone who
    measures it: what it can be credited is capped."""
    link = Link()
    for trip in [0.4] * SETTLE:
        link.add(trip)
    link.acked_least = link.acked_recent = 0.4
    assert link.least == ROUND_TRIP_CAP_MS / 1000


def test_a_round_trip_that_jumps_is_said_in_the_public_log_and_credits_nothing() -> None:
    host, now = measured_table({"p1": [0.004] * SETTLE, "p2": [0.004] * SETTLE},
                               acked={"p1": (0.004, 0.001), "p2": (0.004, 0.001)})
    host.peer_rtt("p1", acks(0.004, 0.001, recent=0.204), now)  # it now delays everything by 200 ms
    assert host.races.links["p1"].least == 0.004
    said = [e for e in host.log if e[0] == "table" and "round trip rose" in e[1]]
    assert len(said) == 1 and said[0][2] == 0 and "from 4 ms to 204 ms" in said[0][1]
    host.peer_rtt("p1", acks(0.004, 0.001, recent=0.204), now + 1)
    assert len([e for e in host.log if e[0] == "table" and "round trip rose" in e[1]]) == 1, "once"


def test_the_public_log_says_when_a_claim_was_clamped() -> None:
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    at, _ = open_room(host, now + 1)
    press(host, "p1", Presses.of((SHIELD, 0, 1)), at + 1.0)
    entry = [e for e in host.log if e[0] == "table" and e[3] and "clamped" in e[3]][-1]
    assert entry[2] == 0 and "Ann's claimed time was below what the host can believe" in entry[1]


def test_a_local_player_is_never_clamped() -> None:
    host = race_host()
    hello(host, "me", "Ann", 0.0, local=True)
    hello(host, "p2", "Bob", 0.0)
    host.start(0.0)
    host.receive("me", Act(1, Presses.of((NAME, 0, 0)).to_wire(), None).to_wire(), 3.0, local=True)
    assert clamp_notes(host) == []


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 3000), st.floats(0.040, 0.060), st.floats(0.040, 0.060), st.integers(0, 3000))
def test_property_a_liar_gains_at_most_twice_its_jitter_a_frame_and_three_ms(waited, down, up, claimed) -> None:
    """A modified program that knew its room the moment it arrived, waited and claimed anything."""
    trips = [0.080, 0.120, 0.100, 0.095, 0.110, 0.085]
    host, now = measured_table({"p1": [0.004], "p2": trips})
    at, sent = open_room(host, now + 1)
    press(host, "p2", Presses.of((NAME, 3, claimed)), sent["p2"] + down + waited / 1000 + up)
    link = host.races.links["p2"]
    assert waited - counted(host, 1, NAME) <= round(2 * link.spread * 1000 + FRAME_MS + 3) + 1  # whole ms


def test_a_link_with_one_answer_is_given_the_widest_spread() -> None:
    link = Link()
    link.add(0.05)
    assert link.spread == JITTER_CAP_MS / 1000


def test_without_a_round_open_there_is_no_bound() -> None:
    clock = RaceClock()
    clock.channel_rtt("p", RttUpdated(0, 0.05, 0.0, 0.2))
    assert clock.earliest_ms("p", 10.0) is None
    at, holds = clock.open_room(9.0, ["p"])
    assert clock.earliest_ms("p", 10.0) is None, "nor before its room has left"
    clock.room_sent("p", holds["p"])
    assert at == 9.0 + FIRST_WAIT, "the first room waits for the pings to tell the link"
    j = JITTER_CAP_MS / 1000
    arrived = at + 1.0
    expected = int((arrived - (at + CLOCK_SLACK_MS / 1000 + j / 2 + 0.025 + j)) * 1000 - FRAME_MS)
    assert clock.earliest_ms("p", arrived) == expected


def test_snapshots_still_reach_every_racer() -> None:
    host = race_host()
    hello(host, "p1", "Ann", 0.0)
    hello(host, "p2", "Bob", 0.0)
    host.start(0.0)
    sent = set()
    while host.live.holding("p1") or host.live.holding("p2"):
        sent |= {p for p, m in host.tick(host.next_deadline()).sends if isinstance(m, Snap)}
    assert sent == {"p1", "p2"}


# ---------------------------------------------------------------- live shouts


def honest(at: float, ms: int) -> float:
    """When an honest press made ``ms`` after the instant reaches the host over a 2 ms link."""
    return at + FRAME_MS / 1000 + ms / 1000 + 0.002


def shouts(out) -> list[tuple[str, Shout]]:
    return [(p, m) for p, m in out.sends if isinstance(m, Shout)]


def test_a_press_the_host_accepted_is_heard_by_everyone_at_once() -> None:
    """The rulebook's second example needs it: Pablo shouts "chalice!", Marta hears it and grabs
    the chest. A press is shouted to every peer the moment the host has it, as counted."""
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    at, _ = open_room(host, now + 1)
    out = send(host, "p1", Press(1, Presses.of((NAME, 5, 420)).to_wire()), at + 0.424 + FRAME_MS / 1000)
    heard = shouts(out)
    assert {p for p, _ in heard} == {"p1", "p2"}
    assert {(m.seat, tuple(m.shout), m.ms) for _, m in heard} == {(0, (NAME, 5), 420)}
    assert [m for p, m in out.sends if isinstance(m, Verdict)][0].refused is None
    assert 0 in host.rules.to_act(), "a press is heard; the seat seals its round later"
    out = send(host, "p2", Press(2, Presses.of((CHEST, 0, 600)).to_wire()), at + 0.604 + FRAME_MS / 1000)
    assert {(m.seat, tuple(m.shout), m.ms) for _, m in shouts(out)} == {(1, (CHEST, 0), 600)}


def test_a_press_is_bounded_before_it_is_heard() -> None:
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    at, _ = open_room(host, now + 1)
    out = send(host, "p1", Press(1, Presses.of((NAME, 5, 0)).to_wire()), at + 1.0)
    (_, shout), *_ = shouts(out)
    assert shout.ms == clamp_notes(host)[-1]["bound_ms"] > 900


def test_nobodys_press_is_heard_before_the_host_accepted_it() -> None:
    """One voice and two hands: a second shout in a round is refused, and nobody hears it."""
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    at, _ = open_room(host, now + 1)
    send(host, "p1", Press(1, Presses.of((NAME, 5, 420)).to_wire()), honest(at, 420))
    out = send(host, "p1", Press(2, Presses.of((NAME, 2, 520)).to_wire()), honest(at, 520))
    assert not shouts(out)
    assert "One voice and two hands" in [m for p, m in out.sends if isinstance(m, Verdict)][0].refused
    for peer in PEERS:  # the round is settled: between rounds nothing is heard
        send(host, peer, Act(next(_ids), Presses().to_wire(), None), at + 2)
    assert not host.rules.racing()
    out = send(host, "p1", Press(3, Presses.of((NAME, 2, 100)).to_wire()), at + 2.1)
    assert not shouts(out) and [m for p, m in out.sends if isinstance(m, Verdict)][0].refused


def test_the_sealed_round_keeps_what_was_heard() -> None:
    """A seat's sealed presses close its round: what the table heard stands, the seal adds the rest."""
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    at, _ = open_room(host, now + 1)
    send(host, "p1", Press(1, Presses.of((NAME, 5, 420)).to_wire()), honest(at, 420))
    out = send(host, "p1", Act(2, Presses.of((NAME, 5, 300), (SLAP, 1, 700)).to_wire(), None), at + 2.0)
    assert [m for p, m in out.sends if isinstance(m, Verdict)][0].refused is None
    assert counted(host, 0, NAME) == 420, "the shout heard stands"
    assert counted(host, 0, SLAP) >= 1900 - 25, "a press made at the seal is bounded at the seal"
    assert {tuple(m.shout) for _, m in shouts(out)} == {(SLAP, 1)}


def test_a_board_that_seals_after_its_linger_is_never_clamped() -> None:
    """A terminal seals a player's presses 1.5 s after the first: each press went to the host
    as it was made, so the late seal does not make them late."""
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    at, _ = open_room(host, now + 1)
    first = at + FRAME_MS / 1000 + 0.500 + 0.002
    send(host, "p1", Press(1, Presses.of((NAME, 5, 500)).to_wire()), first)
    assert press(host, "p1", Presses.of((NAME, 5, 500)), first + 1.5) is None
    assert clamp_notes(host) == [] and counted(host, 0, NAME) == 500


def test_a_seat_that_pressed_but_never_sealed_keeps_what_it_pressed() -> None:
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    at, _ = open_room(host, now + 1)
    send(host, "p1", Press(1, Presses.of((NAME, 5, 420)).to_wire()), honest(at, 420))
    deadline = host.seats[0].act_by
    while host.rules.racing():
        host.tick(deadline)  # (what else is due then goes first)
    assert counted(host, 0, NAME) == 420
    assert "what they pressed stands" in " ".join(e[1] for e in host.log)


def test_a_bots_presses_are_heard_each_at_its_own_time() -> None:
    """Bots seal their presses as the room opens; each is shouted when its time comes after the
    instant, never sooner (a deadline of the host session)."""
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4}, bots=1)
    clock = now + 1
    settle_round(host, clock)
    while host.live.at is None:  # the bot is ready too
        clock = host.next_deadline()
        host.tick(clock)
    at = host.live.at
    heard: list[tuple[float, Shout]] = []
    while (due := host.next_deadline()) is not None and due < at + WINDOW_MS / 1000:
        clock = due
        heard += [(clock, m) for p, m in shouts(host.tick(clock)) if p == "p1"]
    bot = [a for s, a in host.ledger.actions if s == 2][-1]
    timed = DC.heard(DC.parse_action(bot))
    assert timed and [(m.seat, m.ms) for _, m in heard] == [(2, ms) for ms, _ in timed]
    for when, shout in heard:
        assert abs(when - (at + shout.ms / 1000)) < 1e-9


def test_no_shout_shows_a_face() -> None:
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4}, bots=1)
    faces = set(all_faces())
    clock = now
    said = []
    for _ in range(3):
        settle_round(host, clock + 1)
        clock += 1
        while (due := host.next_deadline()) is not None and due < clock + 6:
            clock = due
            said += [m for _, m in shouts(host.tick(clock))]
    assert said
    for shout in said:
        assert not any(face in repr(shout.to_wire()) for face in faces)


def test_a_seat_hears_only_the_shouts_of_its_open_round() -> None:
    seat = SeatSession("Ann", b"table-01")
    seat.receive(Opens(4, 1.0).to_wire(), 0.9)
    out = seat.receive(Shout(4, 1, [NAME, 5], 420).to_wire(), 1.5)
    seat.receive(Shout(3, 1, [NAME, 2], 300).to_wire(), 1.6)
    assert seat.shouts == [(1, [NAME, 5], 420)] and out.seats
    seat.receive(Opens(5, 8.0).to_wire(), 7.9)
    assert seat.shouts == []


# ---------------------------------------------------------------- the bench's script


def test_the_race_bench_scripts_the_honest_seats_beyond_the_tie_window_and_the_forger_behind_both() -> None:
    from xmas_tui.games.dragons_chickens import TIE_MS
    from xmas_tui.tools.race_bench import schedule

    for rnd in range(1, 300):
        times = schedule(7, rnd)
        assert abs(times["fast"] - times["slow"]) > TIE_MS
        assert times["forger"] > max(times["fast"], times["slow"]) + FRAME_MS + JITTER_CAP_MS / 2
