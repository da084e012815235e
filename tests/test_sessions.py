"""Table sessions as state machines: fed messages and time by hand, or whole tables in virtual time.

No test here sleeps or opens a socket: the host session and the seat sessions are driven
with an explicit clock, and whole networked tables run in the seeded in-memory network.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcode.channel import Delivered
from netcode.dealing.group import ORDER
from netcode.fairplay import Ledger, Signer, record_signed
from netcode.session.host import ActionApplied, HostSession, TableSettings
from netcode.session.host.races import FIRST_WAIT
from netcode.session.messages import (
    VERSION,
    Act,
    AskNonce,
    BadMessage,
    Dealt,
    Forged,
    Halt,
    Hello,
    Here,
    Mental,
    Missing,
    Order,
    Refused,
    Relay,
    Sealed,
    Snap,
    Verdict,
    Welcome,
    decode,
    parse_host_message,
    parse_seat_message,
)
from netcode.session.peer import TablePeer
from netcode.session.seat import SeatSession
from netcode.session.seats import SeatState
from netcode.session.wire import KINDS, MAX_DEPTH
from netcode.shares import Commitments, Share, rebuild, threshold
from netcode.simulator.faults import LinkFaults
from xmas_tui.games import GAMES, get_game
from xmas_tui.games.dragons_chickens import Presses
from xmas_tui.tables.rules import GameRules
from xmas_tui.tables.simulation import Drop, SimTable

CHIP = get_game("chip-n-dale")
TREE = get_game("christmas-tree")
DC = get_game("dragons-chickens")


# ---------------------------------------------------------------- messages


def test_every_message_kind_survives_its_own_wire_form() -> None:
    samples = [
        Hello(VERSION, "Ann", b"c" * 32, None, False),
        Act(3, ["flip", 2], None),
        Verdict(3, "It is not your turn."),
        Welcome(1, "chip-n-dale", "Chip", 4, "Holly", False, b"s" * 32, {}, 30.0, b"t" * 16, 2, b"k" * 32),
        Snap(1, [["stop"]], [1], 0, [["start", "Go.", None, None]], None, {"game": "x", "faces": []}, None,
             [[0, "Holly", "here", 3, None]], [[5, b"h" * 32]], [[5, b"s" * 32]], [[1, 12.5]], 0,
             [[1, ["flip", 3]]], [1, b"c" * 32, b"g" * 64]),
        Dealt([b"n" * 32, None], [b"m" * 32, None], ["seat 2 gave no nonce in time; the seed is made without it"],
              [1, b"a" * 32], 2, [b"x" * 32, b"c" * 32, b"d" * 32]),
        Forged(3, 2, "Grinch"),
        Hello(VERSION, "Ann", None, None, False, b"k" * 32, b"v" * 32),
        Act(4, ["#sealed", b"d" * 32], 1, b"s" * 64),
        Mental(b"share", 7, b"s" * 64),
        Order(2, ["flip", 2], 9, b"s" * 64),
        Sealed(1, b"d" * 32, 3, None),
        Relay(4, b"share", 7, b"s" * 64),
        Halt(2, "the host (Noel) passed on a move in Holly's name that Holly's program did not sign"),
        Missing(2, 12),
        AskNonce(3.0),
    ]
    for message in samples:
        assert decode(message.to_wire()) == message
    assert {type(m).KIND for m in samples} <= set(KINDS)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ({"t": "act"}, "malformed"),
        (["what"], "unknown_kind"),
        (["act", 1], "wrong_arity"),
        (["act", "one", ["stop"], None, None], "bad_field"),
        (["act", -1, ["stop"], None, None], "bad_field"),
        (["act", 1, ["stop"], 99, None], "bad_field"),
        (["hello", VERSION, "A" * 65, None, None, False, None, None], "bad_field"),
        (["hello", VERSION, "Ann", b"short", None, False, None, None], "bad_field"),
        (["hello", VERSION, "Ann", None, None, False, b"not a key", None], "bad_field"),
        (["hello", VERSION, "Ann", None, None, False, None, b"not a voice"], "bad_field"),
        (["mental", b"x" * (200 * 1024), 0, None], "bad_field"),
        (["act", 1, ["stop"], None, b"not a signature"], "bad_field"),
        (["act", 1, {1: "int keys"}, None, None], "bad_field"),
        (["act", 1, ["x"] * 0 + [[[[[[[[[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]]]]]]]]], None, None], "too_deep"),
    ],
)
def test_a_malformed_message_is_refused_with_a_reason(raw, reason: str) -> None:
    with pytest.raises(BadMessage) as refused:
        parse_seat_message(raw)
    assert refused.value.reason == reason


def test_nesting_far_beyond_the_recursion_limit_is_refused_at_the_depth_limit() -> None:
    deep: list = ["act", 1, None, None, None]
    nested: list = []
    deep[2] = nested
    for _ in range(50_000):  # far beyond Python's recursion limit
        nested.append([])
        nested = nested[0]
    with pytest.raises(BadMessage, match=f"deeper than {MAX_DEPTH}"):
        parse_seat_message(deep)


def test_every_field_of_plain_data_may_nest_to_the_depth_limit_and_no_deeper() -> None:
    def nested(depth: int) -> list:
        value: list = ["x"]
        for _ in range(depth - 1):
            value = [value]
        return value

    def snap(legal: list) -> list:
        return ["snap", 0, legal, [], 0, [], None, {}, None, None, [], [], [], 0, [], None]

    assert parse_seat_message(["act", 1, nested(MAX_DEPTH), None, None]).action == nested(MAX_DEPTH)
    assert parse_host_message(snap([nested(MAX_DEPTH)])).legal == [nested(MAX_DEPTH)]  # each legal action is data
    for raw in (["act", 1, nested(MAX_DEPTH + 1), None, None], snap([nested(MAX_DEPTH + 1)])):
        with pytest.raises(BadMessage, match=f"deeper than {MAX_DEPTH}"):
            decode(raw)


def test_a_seat_may_not_send_a_hosts_message_nor_a_host_a_seats() -> None:
    with pytest.raises(BadMessage, match="wrong_direction"):
        parse_seat_message(Verdict(1, None).to_wire())
    with pytest.raises(BadMessage, match="wrong_direction"):
        parse_host_message(Here().to_wire())


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8) | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(raw=plain | st.lists(plain, max_size=7).map(lambda rest: ["act", *rest]))
def test_anything_a_peer_sends_is_taken_or_dropped_and_counted_never_raised(raw) -> None:
    host, now = chip_host(2), 0.0
    seat(host, "p1", "Ann", now)
    before = sum(host.drops.values())
    host.receive("p1", raw, now)
    host.receive("stranger", raw, now)
    assert sum(host.drops.values()) >= before  # counted when refused; the host never raised


# ---------------------------------------------------------------- a host session by hand


def chip_host(seats: int, *, game=CHIP, **settings_args) -> HostSession:
    settings = TableSettings(game.id, game.title, seats, "Host", **settings_args)
    ledger = Ledger(game.id, b"table-01", b"s" * 32)
    return HostSession(settings, lambda names, seed: GameRules(game, names, seed=seed, bot="random"), ledger, Signer())


def seat(host: HostSession, peer: str, name: str, now: float, *, token: bytes | None = None,
         commit: bytes | None = None, local: bool = False):
    return host.receive(peer, Hello(VERSION, name, commit, token, False).to_wire(), now, local=local)


def sent_to(output, peer: str, kind: type) -> list:
    return [m for p, m in output.sends if p == peer and isinstance(m, kind)]


def test_a_host_needs_no_timer_while_nothing_can_happen() -> None:
    host = chip_host(3)
    assert host.next_deadline() is None
    seat(host, "p1", "Ann", 0.0)
    assert host.next_deadline() is None  # no polling: nothing is due until someone acts


def test_a_name_already_playing_is_refused_and_a_seat_needs_its_own_token_to_come_back() -> None:
    host = chip_host(2)
    out = seat(host, "p1", "Ann", 0.0)
    token = sent_to(out, "p1", Welcome)[0].token
    assert "already playing" in sent_to(seat(host, "p2", "ann", 0.0), "p2", Refused)[0].why
    host.peer_lost("p1", 1.0)
    assert host.seats[0].state is SeatState.OPEN  # before the deal a seat is simply freed
    seat(host, "p1", "Ann", 2.0)
    seat(host, "p2", "Bob", 2.0)
    host.start(2.0)
    host.peer_lost("p1", 3.0)
    assert sent_to(seat(host, "p3", "Ann", 4.0), "p3", Refused)[0].why.count("rejoin key")
    assert host.seats[0].state is SeatState.AWAY
    welcome = sent_to(seat(host, "p4", "Ann", 5.0, token=host.rejoin_token(0)), "p4", Welcome)[0]
    assert welcome.seat == 0 and host.seats[0].state is SeatState.HERE
    assert token != host.rejoin_token(1)


@pytest.mark.parametrize(
    "look_alike",
    ["Hоlly", "ΗΟLLY", "Ｈｏｌｌｙ", "𝐇𝐨𝐥𝐥𝐲", "Holly\ufe0f", "Hօlly"],  # Cyrillic о, Greek Η Ο, full width, bold, a variation selector, Armenian օ
)
def test_a_name_that_looks_like_a_seated_players_is_refused(look_alike: str) -> None:
    """"Hоlly" with a Cyrillic о reads as Holly on every screen: it takes no seat beside her,
    none kept for her, and not hers when she drops; a name that only looks close still sits."""
    host = chip_host(4)
    host.seats[3].name = "Noel"  # a seat kept for Noel, who has not come yet
    seat(host, "p1", "Holly", 0.0)
    why = sent_to(seat(host, "p2", look_alike, 0.0), "p2", Refused)[0].why
    assert "looks like 'Holly'" in why and "choose another name" in why
    assert sent_to(seat(host, "p3", "Nоel", 0.0), "p3", Refused)[0].why.startswith("'Nоel' looks like 'Noel'")
    assert "already playing" in sent_to(seat(host, "p4", "HOLLY", 0.0), "p4", Refused)[0].why
    assert sent_to(seat(host, "p5", "Holy", 0.0), "p5", Welcome)[0].seat == 1
    seat(host, "p6", "Noel", 0.0)
    host.start(1.0)
    host.peer_lost("p1", 2.0)
    assert "looks like 'Holly'" in sent_to(seat(host, "p7", look_alike, 3.0), "p7", Refused)[0].why
    assert [s.name for s in host.seats] == ["Holly", "Holy", "Bot 3", "Noel"]


def test_nobody_can_act_for_another_seat() -> None:
    host = chip_host(2)
    seat(host, "p1", "Ann", 0.0)
    seat(host, "p2", "Bob", 0.0)
    host.start(0.0)
    acting = min(host.rules.to_act())
    other = "p2" if acting == 0 else "p1"
    out = host.receive(other, Act(1, ["flip", 0], acting).to_wire(), 1.0)
    assert sent_to(out, other, Verdict)[0].refused == "You can only act for your own seat."
    assert not host.ledger.actions


def test_a_silent_nonce_costs_at_most_the_nonce_timeout() -> None:
    host = chip_host(2, nonce_timeout=1.0)
    seat(host, "p1", "Ann", 0.0, commit=b"a" * 32)
    seat(host, "p2", "Bob", 0.0, commit=b"b" * 32)
    host.start(10.0)
    assert host.rules is None and host.next_deadline() == 11.0
    host.tick(10.999)
    assert host.rules is None
    host.tick(11.0)
    assert host.rules is not None
    assert host.ledger.notes == [
        "seat 1 gave no nonce in time; the seed is made without it",
        "seat 2 gave no nonce in time; the seed is made without it",
    ]


def test_a_dropped_player_is_held_then_a_bot_plays_their_seat() -> None:
    host = chip_host(2, hold=30.0)
    seat(host, "p1", "Ann", 0.0)
    seat(host, "p2", "Bob", 0.0)
    host.start(0.0)
    host.peer_lost("p2", 5.0)
    assert host.seats[1].state is SeatState.AWAY and host.roster(15.0)[1].hold_left == 20.0
    assert host.next_deadline() == 35.0
    host.tick(34.9)
    assert host.seats[1].state is SeatState.AWAY
    host.tick(35.0)
    assert host.seats[1].state is SeatState.BOT
    assert any("did not come back" in entry[1] for entry in host.log)


def play_until_seat_acts(host: HostSession, seat_index: int, now: float) -> float:
    """Let the bots (seats not ``seat_index``) play until ``seat_index`` must act."""
    while seat_index not in host.rules.to_act():
        now += 1.0
        host.tick(now)
    return now


def test_a_turn_timer_lets_a_bot_play_one_turn_then_marks_the_seat_idle() -> None:
    host = chip_host(2, turn_time=20.0)
    seat(host, "p1", "Ann", 0.0)
    host.add_bots(1, 0.0)
    host.start(0.0)
    now = play_until_seat_acts(host, 0, 0.0)
    deadline = host.seats[0].act_by
    assert deadline == pytest.approx(now + 20.0, abs=1.0)
    host.tick(deadline)  # time is up: a bot plays this one turn, the player keeps the seat
    assert host.seats[0].covered and host.seats[0].state is SeatState.HERE
    assert any("time is up" in entry[1] for entry in host.log)
    moves = len(host.ledger.actions)
    now = deadline
    while host.seats[0].covered:
        now += 0.5
        host.tick(now)
    assert len(host.ledger.actions) > moves  # the bot played for Ann
    now = play_until_seat_acts(host, 0, now)
    host.tick(host.seats[0].act_by)  # a second time in a row
    assert host.seats[0].state is SeatState.IDLE
    assert host.roster(now)[0].state is SeatState.IDLE
    host.receive("p1", Here().to_wire(), now + 30)
    assert host.seats[0].state is SeatState.HERE


def test_a_players_own_move_restarts_their_timer_and_forgives_a_timeout() -> None:
    host = chip_host(2, turn_time=20.0)
    seat(host, "p1", "Ann", 0.0)
    host.add_bots(1, 0.0)
    host.start(0.0)
    now = play_until_seat_acts(host, 0, 0.0)
    host.seats[0].timeouts = 1
    out = host.receive("p1", Act(1, host.rules.legal(0)[0], None).to_wire(), now + 5)
    assert sent_to(out, "p1", Verdict)[0].refused is None
    assert host.seats[0].timeouts == 0
    if 0 in host.rules.to_act():
        assert host.seats[0].act_by == now + 5 + 20.0


def test_the_host_hands_a_seat_to_a_bot_and_gives_it_back() -> None:
    host = chip_host(2)
    seat(host, "p1", "Ann", 0.0)
    seat(host, "p2", "Bob", 0.0)
    host.start(0.0)
    host.hand_to_bot(1, 1.0)
    assert host.roster(1.0)[1].state is SeatState.BOT
    out = host.receive("p2", Act(7, ["flip", 0], None).to_wire(), 1.5)
    assert "A bot plays your seat" in sent_to(out, "p2", Verdict)[0].refused
    host.take_back(1, 2.0)
    assert host.roster(2.0)[1].state is SeatState.HERE


def release(host: HostSession) -> None:
    """Tick until every peer's held room has left (each just before the room's instant)."""
    while any(host.live.holding(peer) for peer in host.guests):
        host.tick(host.next_deadline())


def test_a_silent_racer_is_sealed_empty_when_its_window_ends() -> None:
    host = chip_host(2, game=DC, intermission=2.0, race_slack=1.0)
    seat(host, "p1", "Ann", 0.0)
    seat(host, "p2", "Bob", 0.0)
    host.start(0.0)
    assert host.rules.to_act() == frozenset({0, 1})
    at = host.live.at  # the instant every terminal draws the room: a moment after it opened
    assert at is not None and 0.0 < at <= FIRST_WAIT  # (the first waits for the pings to tell each link)
    release(host)  # each peer's room leaves just before it
    assert host.seats[0].act_by == at + DC.race_window + 1.0  # the round waits at most this long
    out = host.receive("p1", Act(1, Presses().to_wire(), None).to_wire(), 3.0)
    assert sent_to(out, "p1", Verdict)[0].refused is None
    host.tick(at + 5.999)
    assert 1 in host.rules.to_act()
    out = host.tick(at + 6.0)
    assert [e for e in out.table if isinstance(e, ActionApplied) and e.by == "silence"]
    assert "said nothing in time" in " ".join(entry[1] for entry in host.log)
    assert host.rules.state.phase == "pause" and host.rules.to_act() == frozenset({0, 1})
    assert host.seats[1].act_by == at + 6.0 + 2.0 + 1.0  # between rounds: the intermission and the slack
    host.receive("p1", Act(2, ["ready"], None).to_wire(), at + 7.0)
    for _ in range(3):  # Bob said nothing: the host makes him ready, and the next room opens
        host.tick(at + 9.0)  # (a ping due then leaves first, alone)
    assert host.rules.to_act() == frozenset({0, 1}) and host.rules.state.round == 2


def test_a_local_seat_is_never_raced_against_the_clock() -> None:
    """The player at the host's own keyboard cannot be stalled by any network."""
    host = chip_host(2, game=DC, intermission=2.0)
    seat(host, "me", "Ann", 0.0, local=True)
    seat(host, "p2", "Bob", 0.0)
    host.start(0.0)
    assert host.seats[0].act_by is None and host.seats[1].act_by is not None


def test_a_local_seat_sees_exactly_what_a_remote_one_would() -> None:
    host = chip_host(2)
    node = TablePeer.as_host(host)
    mine = SeatSession("Ann", b"table-01", host.ledger.commitment, game=CHIP.id)
    out = node.sit(mine, 0.0)
    out.extend(node.on_channel(Delivered("p2", Hello(VERSION, "Bob", None, None, False).to_wire()), 0.0))
    out.extend(node.command(host.start, 0.0))
    remote = SeatSession("Bob", b"table-01", host.ledger.commitment, game=CHIP.id)
    for peer, message in out.sends:
        assert peer == "p2"  # the local seat's messages never leave the node
        remote.receive(message.to_wire(), 0.1)
    assert mine.seat == 0 and remote.seat == 1
    assert mine.view["public"] == remote.view["public"] and mine.alarm is None and remote.alarm is None


# ---------------------------------------------------------------- whole tables in virtual time

FAULTS = LinkFaults(loss=0.08, delay=0.003, jitter=0.002, duplicate=0.02, reorder=0.02)


def run_table(game_id: str, seed: int, **options) -> SimTable:
    game = get_game(game_id)
    table = SimTable(game, options.pop("players", 3), faults=options.pop("faults", FAULTS), pace=0.2,
                     seed=seed, bot="random", **options)
    assert table.run(), f"{game_id} seed {seed} did not finish"
    return table


def assert_fair_and_equal(table: SimTable) -> None:
    figures = table.figures()
    assert figures["finished"], figures
    assert figures["digests_equal"], figures
    assert figures["audits_ok"], figures["failures"]


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("seed", range(24))
def test_a_lossy_table_ends_alike_on_every_peer(game_id: str, seed: int) -> None:
    """8 % loss, duplicates and reordering: every peer ends with the same public state and a passing
    audit, spectators included."""
    assert_fair_and_equal(run_table(game_id, seed, spectators=1))


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("seed", range(8))
def test_a_seat_that_drops_and_rejoins_gets_its_own_seat_and_view_back(game_id: str, seed: int) -> None:
    game = get_game(game_id)
    dropped = SimTable(game, 3, faults=FAULTS, pace=0.2, seed=100 + seed, bot="random", hold=1.0 + seed % 3)
    dropped.drop(Drop(1, at=2.0 + seed % 4, back_after=1.0 + seed % 5))
    assert dropped.run()
    assert_fair_and_equal(dropped)
    back = dropped.sessions[1]  # Elf 1's terminal, started again
    assert back.seat is not None and dropped.host.seats[back.seat].name == "Elf 1" and back.token is not None
    assert any(entry[1] == "Elf 1 is back." for entry in dropped.host.log)


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("seed", range(4))
def test_a_stalled_seat_never_holds_the_table(game_id: str, seed: int) -> None:
    """A player who never moves: the turn timer (or a race's window) moves the game on, and after
    two timeouts in a row a bot plays their seat."""
    game = get_game(game_id)
    table = run_table(game_id, 200 + seed, turn_time=None if game.race_window else 2.0, stalled=[2])
    assert_fair_and_equal(table)
    notes = " ".join(entry[1] for entry in table.host.log if entry[0] == "table")
    assert ("said nothing in time" if game.race_window else "run out twice") in notes


def test_the_same_seed_replays_the_same_table() -> None:
    first, second = run_table("christmas-tree", 7), run_table("christmas-tree", 7)
    assert first.figures() == second.figures()
    assert first.ledger.actions == second.ledger.actions
    assert run_table("christmas-tree", 8).ledger.actions != first.ledger.actions


def test_a_spectator_of_a_networked_table_sees_the_public_view_and_nothing_more() -> None:
    table = run_table("christmas-tree", 3, spectators=2)
    public = table.host.rules.view(None)
    for watcher in table.sessions[3:]:
        assert watcher.seat is None and watcher.legal == []
        assert watcher.view == public


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_any_seed_of_a_lossy_table_ends_alike(seed: int) -> None:
    assert_fair_and_equal(run_table("chip-n-dale", seed, faults=LinkFaults(loss=0.15, duplicate=0.05, reorder=0.05,
                                                                         delay=0.002, jitter=0.004)))


# ---------------------------------------------------------------- the record every seat keeps


def test_every_seat_keeps_the_record_of_play_signed_by_the_host() -> None:
    table = run_table("christmas-tree", 11, spectators=1)
    host = table.host
    for session in table.sessions:
        assert session.actions == [list(a) for a in session.final.fair["actions"]]
        count, chain, signature = session.signed
        assert count == len(session.actions) and chain == host.chain[count]
        assert record_signed(session.welcome.host_key, signature, table.table_id, 1, count, chain)
        assert not record_signed(session.welcome.host_key, signature, table.table_id, 2, count, chain)


def test_a_sealed_choice_stays_out_of_the_record_until_every_choice_is_opened() -> None:
    host = chip_host(3, game=DC)
    seat(host, "p1", "Ann", 0.0)
    seat(host, "p2", "Bob", 0.0)
    host.add_bots(1, 0.0)
    host.start(0.0)
    host.tick(0.0)  # the bot seals its presses as the room is revealed
    release(host)
    out = host.receive("p1", Act(1, Presses.of((0, 1, 500)).to_wire(), None).to_wire(), 1.0)
    assert len(host.ledger.actions) == 2 and host.recorded == 0  # Ann's and the bot's, both sealed
    assert all(m.actions == [] for p, m in out.sends if isinstance(m, Snap))
    out = host.receive("p2", Act(1, Presses().to_wire(), None).to_wire(), 2.0)  # the last: all opened
    assert host.recorded == 3
    assert [len(m.actions) for p, m in out.sends if isinstance(m, Snap)] == [3, 3]


def test_the_secret_is_shared_among_the_other_machines_and_any_majority_rebuilds_it() -> None:
    host = chip_host(4)
    for i, name in enumerate(["Ann", "Bob", "Cy"]):
        seat(host, f"p{i}", name, 0.0)
    seat(host, "me", "Host", 0.0, local=True)
    outs = host.start(0.0)
    shares = {p: Share.from_wire(m.share) for p, m in outs.sends if isinstance(m, Dealt) and m.share}
    assert sorted(shares) == ["p0", "p1", "p2"]  # the host's own seat holds none
    assert {m.holders for _, m in outs.sends if isinstance(m, Dealt)} == {3}
    published = {tuple(m.share_commitments) for _, m in outs.sends if isinstance(m, Dealt)}
    assert len(published) == 1  # every peer is given the same commitments
    commitments = Commitments.from_wire(list(published.pop()))
    table_id, commitment = host.ledger.table_id, host.ledger.commitment
    assert threshold(3) == 2 and commitments.threshold == 2
    assert all(commitments.checks(share) for share in shares.values())
    for pair in (["p0", "p1"], ["p1", "p2"], ["p0", "p2"]):
        assert rebuild([shares[p] for p in pair], commitments, table_id, commitment) == host.ledger.secret
    assert rebuild([shares["p0"]], commitments, table_id, commitment) is None  # one peer alone learns nothing
    # Issue 26: a share that reuses another's index with another value fails its own check, so it
    # can neither replace the real one nor spoil the rebuild.
    forged = Share(shares["p1"].index, (shares["p1"].value + 1) % ORDER)
    assert not commitments.checks(forged)
    assert rebuild([forged, shares["p0"]], commitments, table_id, commitment) is None  # too few good ones
    assert rebuild([forged, shares["p0"], shares["p1"]], commitments, table_id, commitment) == host.ledger.secret


def test_a_seat_notices_a_host_that_rewrites_the_record() -> None:
    table = run_table("chip-n-dale", 4)
    session = table.sessions[1]
    honest = [list(a) for a in session.actions]
    forged = Snap(session.seat, [], [], len(session.log), [], session.result, None, {}, None, [], [], [], 0,
                  [[honest[0][0], ["flip", 9]], *honest[1:]], None)
    session.receive(forged.to_wire(), 9999.0)
    assert session.alarm == "CHEATING DETECTED: the host rewrote the record of play it had sent"
