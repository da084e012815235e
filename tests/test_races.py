"""Fair races over a network: the host's bound on claimed reaction times, and the pause
between rounds. Sans-IO: the host session is fed messages and time by hand, so every
link below (its delays, its jitter, a liar's waiting) is exact."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from netcode.fairplay import Ledger, Signer
from netcode.session.host import HostSession, TableSettings
from netcode.session.messages import VERSION, Act, Hello, Ping, Pong, Snap, Verdict
from netcode.session.races import FRAME_MS, JITTER_CAP_MS, Link, RaceClock
from xmas_tui.games import Rng, get_game
from xmas_tui.games.dragons_chickens import (
    CHEST,
    GAME,
    NAME,
    SHIELD,
    WINDOW_MS,
    Clamp,
    Presses,
    Ready,
    clamp_presses,
)
from xmas_tui.tables.rules import GameRules

DC = get_game("dragons-chickens")


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


# ---------------------------------------------------------------- the host's bound


def race_host(**settings_args) -> HostSession:
    settings = TableSettings(DC.id, DC.title, 2, "Host", intermission=2.0, race_slack=1.0, **settings_args)
    ledger = Ledger(DC.id, b"table-01", b"s" * 32)
    return HostSession(settings, lambda names, seed: GameRules(DC, names, seed=seed, bot="random"), ledger, Signer())


def hello(host: HostSession, peer: str, name: str, now: float):
    return host.receive(peer, Hello(VERSION, name, None, None, False).to_wire(), now)


def answer_pings(host: HostSession, out, rtts: dict[str, float], now: float) -> float:
    """Answer every ping in ``out`` after its peer's round trip; returns the time it is then."""
    latest = now
    for peer, message in out.sends:
        if isinstance(message, Ping) and peer in rtts:
            host.receive(peer, Pong(message.n).to_wire(), now + rtts[peer])
            latest = max(latest, now + rtts[peer])
    return latest


def measured_table(rtts_over_time: dict[str, list[float]]) -> tuple[HostSession, float]:
    """A dealt two-seat table whose host has pinged each peer once per listed round trip."""
    host = race_host()
    hello(host, "p1", "Ann", 0.0)
    hello(host, "p2", "Bob", 0.0)
    out = host.start(0.0)
    now = 0.0
    for i in range(max(len(r) for r in rtts_over_time.values())):
        answer_pings(host, out, {p: r[i % len(r)] for p, r in rtts_over_time.items()}, now)
        now = host.next_deadline() or now
        out = host.tick(now)
    return host, now


def reopen(host: HostSession, now: float) -> float:
    """End the open round (both seats press nothing) and open the next one; returns when it opened."""
    for i, peer in enumerate(("p1", "p2")):
        host.receive(peer, Act(100 + i, Presses().to_wire(), None).to_wire(), now)
    for i, peer in enumerate(("p1", "p2")):
        host.receive(peer, Act(200 + i, Ready().to_wire(), None).to_wire(), now)
    assert host.rules.racing()
    return now


def press(host: HostSession, peer: str, presses: Presses, at: float) -> str | None:
    out = host.receive(peer, Act(7, presses.to_wire(), None).to_wire(), at)
    return [m for p, m in out.sends if p == peer and isinstance(m, Verdict)][0].refused


def clamp_notes(host: HostSession) -> list[dict]:
    return [entry[3] for entry in host.log if entry[0] == "table" and entry[3] and "clamped" in entry[3]]


def test_the_host_pings_every_remote_racer_and_keeps_its_smallest_round_trip() -> None:
    host, _ = measured_table({"p1": [0.004, 0.006, 0.005], "p2": [0.11, 0.09, 0.1]})
    assert abs(host.races.links["p1"].smallest - 0.004) < 1e-9
    assert abs(host.races.links["p2"].smallest - 0.09) < 1e-9
    assert abs(host.races.links["p2"].spread - 0.01) < 1e-9  # the second largest above the smallest


def test_a_liar_who_waits_two_seconds_and_claims_zero_is_counted_from_what_the_host_saw() -> None:
    """The issue's forger: waits 2 s after each reveal, then claims 0 ms."""
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    opened = reopen(host, now + 1)
    arrived = opened + 0.004 + 2.0
    assert press(host, "p1", Presses.of((NAME, 1, 0)), arrived) is None
    note = clamp_notes(host)[-1]
    bound = note["bound_ms"]
    assert note["clamped"] == 0 and note["claims"] == [[NAME, 1, 0, bound]]
    assert 2000 - (0 + JITTER_CAP_MS + FRAME_MS) <= bound <= 2000, "it gains at most a frame and its jitter"
    assert 2000 - bound <= FRAME_MS + 1, "on a steady link, no more than a frame"


def test_the_public_log_says_when_a_claim_was_clamped() -> None:
    host, now = measured_table({"p1": [0.004] * 4, "p2": [0.004] * 4})
    opened = reopen(host, now + 1)
    press(host, "p1", Presses.of((SHIELD, 0, 1)), opened + 1.0)
    entry = [e for e in host.log if e[0] == "table" and e[3] and "clamped" in e[3]][-1]
    assert entry[2] == 0 and "Ann's claimed time was below what the host can believe" in entry[1]


def test_a_local_player_is_never_clamped() -> None:
    host = race_host()
    host.receive("me", Hello(VERSION, "Ann", None, None, False).to_wire(), 0.0, local=True)
    hello(host, "p2", "Bob", 0.0)
    host.start(0.0)
    host.receive("me", Act(1, Presses.of((NAME, 0, 0)).to_wire(), None).to_wire(), 3.0)
    assert clamp_notes(host) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 0.010), min_size=8, max_size=8), st.lists(st.floats(0.0, 0.010), min_size=8, max_size=8),
       st.integers(0, 7), st.integers(150, 3000), st.floats(0.0, 0.010))
def test_property_an_honest_player_on_a_jittery_link_is_never_clamped(downs, ups, which, reaction, frame) -> None:
    """50 ± 10 ms each way: a round trip of 80-120 ms. An honest claim whose round trip is
    among those the host has seen, drawn within a frame, always stands."""
    trips = [0.080 + 0.02 * (d / 0.01) / 2 + 0.02 * (u / 0.01) / 2 for d, u in zip(downs, ups, strict=True)]
    host, now = measured_table({"p1": [0.004], "p2": trips})
    opened = reopen(host, now + 1)
    link = host.races.links["p2"]
    trip = min(trips[which], link.smallest + link.spread)  # within what the host has seen
    arrived = opened + trip + frame + reaction / 1000
    assert press(host, "p2", Presses.of((NAME, 3, reaction)), arrived) is None
    assert clamp_notes(host) == []


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 3000), st.floats(0.080, 0.120), st.integers(0, 3000))
def test_property_a_liar_gains_at_most_its_own_jitter_and_a_frame(waited, trip, claimed) -> None:
    trips = [0.080, 0.120, 0.100, 0.095, 0.110, 0.085]
    host, now = measured_table({"p1": [0.004], "p2": trips})
    opened = reopen(host, now + 1)
    press(host, "p2", Presses.of((NAME, 3, claimed)), opened + trip + waited / 1000)
    seat, action = host.ledger.actions[-1]
    assert seat == 1
    counted = {i.kind: i.ms for i in DC.parse_action(action).inputs(seat)}[NAME]
    link = host.races.links["p2"]
    assert waited - counted <= link.spread * 1000 + FRAME_MS + 2  # whole milliseconds, rounded down


def test_a_link_with_one_answer_is_given_the_widest_spread() -> None:
    link = Link()
    link.add(0.05)
    assert link.spread == JITTER_CAP_MS / 1000


def test_without_a_round_open_there_is_no_bound() -> None:
    clock = RaceClock()
    clock.channel_rtt("p", 0.05)
    assert clock.earliest_ms(0, "p", 10.0) is None
    clock.open(0, 9.0)
    assert clock.earliest_ms(0, "p", 10.0) == int(1000 - 50 - JITTER_CAP_MS - FRAME_MS)


def test_a_seat_answers_every_ping_at_once() -> None:
    from netcode.session.seat import SeatSession

    seat = SeatSession("Ann", b"table-01")
    out = seat.receive(Ping(42).to_wire(), 1.0)
    assert out.sends == [Pong(42)]


def test_an_unasked_pong_is_dropped_and_counted() -> None:
    host = race_host()
    hello(host, "p1", "Ann", 0.0)
    host.receive("p1", Pong(999).to_wire(), 1.0)
    assert host.drops["unasked_pong"] == 1


def test_snapshots_still_reach_every_racer() -> None:
    host = race_host()
    hello(host, "p1", "Ann", 0.0)
    out = hello(host, "p2", "Bob", 0.0)
    out = host.start(0.0)
    assert {p for p, m in out.sends if isinstance(m, Snap)} == {"p1", "p2"}


def test_the_race_bench_scripts_the_honest_seats_beyond_the_tie_window_and_the_forger_behind_both() -> None:
    from xmas_tui.games.dragons_chickens import TIE_MS
    from xmas_tui.tools.race_bench import schedule

    for rnd in range(1, 300):
        times = schedule(7, rnd)
        assert abs(times["fast"] - times["slow"]) > TIE_MS
        assert times["forger"] > max(times["fast"], times["slow"]) + FRAME_MS + JITTER_CAP_MS / 2
