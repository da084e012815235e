"""The sans-IO channel: delivery, acks, retransmission, limits, liveness."""

from __future__ import annotations

import pytest
from netcode_helpers import (
    A_ID,
    A_TO_B,
    B_ID,
    B_TO_A,
    KEYS_A,
    KEYS_B,
    TABLE,
    Pair,
    keyed_pair,
    kind_in,
    kind_sent,
    make_pair,
)

from netcode.channel import (
    Config,
    Connection,
    Delivered,
    Endpoint,
    PeerClosed,
    PeerGone,
    PeerJoined,
    RttUpdated,
    SendQueueFull,
    Unreliable,
)
from netcode.envelope import Kind, Opener, Sealer
from netcode.simulator.faults import LinkFaults

LAN = LinkFaults(delay=0.0005)


def send_all(pair: Pair, messages: list, start: float = 0.01, gap: float = 0.005) -> None:
    for i, message in enumerate(messages):
        pair.net.call_at(start + i * gap, lambda m=message: pair.a.send_reliable(B_ID, m))


def test_messages_arrive_in_order_exactly_once_on_a_clean_link(code: str) -> None:
    pair = make_pair(code, LAN)
    messages = [{"n": i, "text": "ho" * i} for i in range(50)]
    send_all(pair, messages)
    pair.run(5.0, lambda: len(pair.delivered("b")) == 50)
    assert pair.delivered("b") == messages
    assert isinstance(pair.got_b[0], PeerJoined)
    assert pair.got_b[0].peer == A_ID


def test_every_payload_kind_survives_the_trip(code: str) -> None:
    pair = make_pair(code, LAN)
    payloads = [None, True, 7, -3, 2.5, "snow", b"\x00\xff", [1, [2, [3]]], {"a": {"b": b"c"}}]
    send_all(pair, payloads)
    pair.run(2.0, lambda: len(pair.delivered("b")) == len(payloads))
    assert pair.delivered("b") == payloads


def test_a_large_message_is_fragmented_and_reassembled(code: str) -> None:
    pair = make_pair(code, LinkFaults(loss=0.2, delay=0.002, jitter=0.001), seed=3)
    big = bytes(range(256)) * 200  # 51 kB, about 47 fragments
    send_all(pair, [b"before", big, b"after"])
    pair.run(30.0, lambda: len(pair.delivered("b")) == 3)
    assert pair.delivered("b") == [b"before", big, b"after"]
    assert max(pair.node_a.sent_bytes, 1) and all(
        len(d) <= 1200 for d in _datagrams_of(pair.a, big)
    )


def _datagrams_of(endpoint: Endpoint, payload: bytes) -> list[bytes]:
    probe = Connection(KEYS_A, 9, B_ID, "x", 0.0, endpoint.config)
    probe.send_reliable(payload)
    return [d for d, _ in probe.datagrams_to_send(0.0)]


def test_too_large_or_unencodable_messages_are_refused_at_the_sender(code: str) -> None:
    conn = Connection(KEYS_A, A_ID, B_ID, "b", 0.0, Config(max_message=10_000))
    with pytest.raises(ValueError):
        conn.send_reliable(b"x" * 10_001)
    with pytest.raises(TypeError):
        conn.send_reliable({1: "int keys are refused by the strict decoder"})
    with pytest.raises(TypeError):
        conn.send_reliable(object())
    with pytest.raises(ValueError):
        conn.send_unreliable(b"x" * 2000)


def test_unreliable_messages_are_delivered_beside_reliable_ones(code: str) -> None:
    pair = make_pair(code, LAN)
    for i in range(5):
        pair.net.call_at(0.01 * i, lambda i=i: pair.a.send_unreliable(B_ID, {"ping": i}))
    send_all(pair, ["r0", "r1"])
    pair.run(1.0)
    pings = [e.payload["ping"] for e in pair.got_b if isinstance(e, Unreliable)]
    assert pings == [0, 1, 2, 3, 4]
    assert pair.delivered("b") == ["r0", "r1"]


def test_a_duplicated_datagram_is_dropped_as_a_replay(code: str) -> None:
    a, b = keyed_pair()
    a.send_reliable("once")
    (data, _), *_ = a.datagrams_to_send(0.0)
    b.receive_datagram(data, "a", 0.001)
    b.receive_datagram(data, "a", 0.002)
    assert [e.payload for e in b.events() if isinstance(e, Delivered)] == ["once"]
    assert b.drops["replay"] == 1


def test_round_trips_are_measured_and_reported(code: str) -> None:
    pair = make_pair(code, LinkFaults(delay=0.010))
    send_all(pair, list(range(20)), gap=0.02)
    pair.run(2.0)
    conn = pair.a.peers[B_ID]
    assert conn.srtt == pytest.approx(0.020, abs=0.002)
    assert conn.rto >= pair.a.config.min_rto
    assert any(isinstance(e, RttUpdated) for e in pair.got_a)


def _one_way() -> tuple[Connection, Connection]:
    a, b = keyed_pair()
    b.datagrams_to_send(0.0)  # b's first heartbeat (lost): b has spoken, so none is due for a while
    return a, b


def test_a_lone_message_is_acked_within_the_ack_delay_not_at_once(code: str) -> None:
    a, b = _one_way()
    a.send_reliable("news")
    (data, _), = a.datagrams_to_send(0.0)
    b.receive_datagram(data, "a", 0.001)
    assert b.datagrams_to_send(0.001) == []  # nothing to say yet: the ack waits for company
    assert b.next_timer() == pytest.approx(0.001 + b.config.max_ack_delay)
    (ack, _), = b.datagrams_to_send(0.003)
    env = Opener(B_TO_A, B_ID).open(ack)
    assert env.kind is Kind.ACK and env.ack == 1
    assert env.ack_delay == pytest.approx(2000, abs=1)  # microseconds it was held


def test_an_answer_carries_the_ack_at_once(code: str) -> None:
    a, b = _one_way()
    a.send_reliable("question")
    (data, _), = a.datagrams_to_send(0.0)
    b.receive_datagram(data, "a", 0.001)
    b.send_reliable("answer")
    (reply, _), = b.datagrams_to_send(0.001)
    env = Opener(B_TO_A, B_ID).open(reply)
    assert env.kind is Kind.DATA and env.ack == 1 and env.ack_delay == 0


@pytest.mark.parametrize("case", ["heartbeat", "second packet", "out of order"])
def test_probes_gaps_and_a_second_packet_are_acked_at_once(code: str, case: str) -> None:
    a, b = _one_way()
    sealer = Sealer(A_TO_B, A_ID)
    if case == "heartbeat":
        datagrams = [sealer.seal(1, 0, 0, 0, Kind.HEARTBEAT, None)]
    elif case == "second packet":
        datagrams = [sealer.seal(seq, 0, 0, 0, Kind.DATA, [[[seq - 1, b"\xa1x"]], []]) for seq in (1, 2)]
    else:  # packet 1 went missing: tell the sender now
        datagrams = [sealer.seal(2, 0, 0, 0, Kind.DATA, [[[1, b"\xa1x"]], []])]
    for data in datagrams:
        b.receive_datagram(data, "a", 0.001)
    (ack, _), = b.datagrams_to_send(0.001)
    assert Opener(B_TO_A, B_ID).open(ack).kind is Kind.ACK


def test_the_ack_delay_is_taken_off_the_round_trip(code: str) -> None:
    a, b = _one_way()
    a.send_reliable("probe")  # answered at once: the least round trip seen, 2 ms
    (data, _), = a.datagrams_to_send(0.0)
    b.receive_datagram(data, "a", 0.001)
    b.send_reliable("answer")
    (reply, _), = b.datagrams_to_send(0.001)
    a.receive_datagram(reply, "b", 0.002)
    a.datagrams_to_send(0.002)
    assert a.srtt == pytest.approx(0.002)
    for step in range(1, 30):  # then news b never answers: each ack waits 2 ms
        t = step * 0.01
        a.send_reliable(step)
        (data, _), = a.datagrams_to_send(t)
        b.receive_datagram(data, "a", t + 0.001)
        (ack, _), = b.datagrams_to_send(t + 0.003)
        a.receive_datagram(ack, "b", t + 0.004)
        a.datagrams_to_send(t + 0.004)
    assert a.latest_rtt == pytest.approx(0.004)  # what the clock saw
    assert a.srtt == pytest.approx(0.002, abs=2e-5)  # the link, without the wait


def _trips(a: Connection, b: Connection, held: list[float], start: float = 0.0) -> None:
    """``a`` sends ``len(held)`` messages, 10 ms apart, over a 1 ms link each way; ``b`` answers
    each after holding it ``held[i]`` seconds (saying it held it 0 s: a modified program)."""
    for i, extra in enumerate(held):
        t = start + i * 0.01
        a.send_reliable(i)
        (data, _), = a.datagrams_to_send(t)
        b.receive_datagram(data, "a", t + 0.001)
        b.send_reliable(i)
        (reply, _), = b.datagrams_to_send(t + 0.001)
        a.receive_datagram(reply, "b", t + 0.002 + extra)
        a.datagrams_to_send(t + 0.002 + extra)


def test_the_spread_is_told_once_enough_round_trips_are_known(code: str) -> None:
    a, b = _one_way()
    _trips(a, b, [i / 1000 for i in range(7)])  # 0-6 ms more than the least
    assert a.spread is None
    _trips(a, b, [0.003, 0.004], start=0.1)
    assert a.spread == pytest.approx(0.005)  # the second largest above the least (twice the median's: 6 ms)
    told = [e for e in iter(a.next_event, None) if isinstance(e, RttUpdated)]
    assert told and told[-1].least == pytest.approx(0.002) and told[-1].spread is not None, "told at once"


def test_acks_held_back_at_moments_a_peer_picks_widen_no_spread(code: str) -> None:
    """Issue 26.2's room-ack liar: it holds back its acks for 200 ms at a few moments (while a
    room is open, say). The spread stays the link's; only holding most of them would widen it."""
    a, b = _one_way()
    _trips(a, b, [0.2 if i % 8 == 0 else 0.0 for i in range(32)])
    assert a.min_rtt == pytest.approx(0.002) and a.spread == pytest.approx(0.0)
    _trips(a, b, [0.02 * (i % 3) for i in range(32)], start=1.0)  # a jittery link: 0, 20, 40 ms
    assert a.spread == pytest.approx(0.04)


def test_the_timeout_has_a_lan_floor(code: str) -> None:
    pair = make_pair(code, LinkFaults(delay=0.0001))
    send_all(pair, list(range(20)))
    pair.run(1.0)
    assert pair.a.peers[B_ID].rto == pytest.approx(0.030)


def test_resends_back_off_by_half_each_time_when_nothing_gets_through(code: str) -> None:
    conn = Connection(KEYS_A, A_ID, B_ID, "b", 0.0, Config(redundancy=0))
    conn.send_reliable("lost")
    times = []
    now = 0.0
    while now < 3.0:
        out = conn.datagrams_to_send(now)
        if any(kind_in(d, A_TO_B, A_ID) is Kind.DATA for d, _ in out):
            times.append(now)
        now = conn.next_timer()
        conn.handle_timer(now)
    gaps = [round(b - a, 4) for a, b in zip(times, times[1:], strict=False)]
    assert gaps[:4] == [0.25, 0.375, 0.5625, 0.8438]  # initial 250 ms, then 1.5x


def test_one_lost_datagram_is_repaired_by_the_next_one_not_by_a_timeout(code: str) -> None:
    pair = make_pair(code, LinkFaults(delay=0.005))
    dropped = []
    original = pair.net._transmit

    def drop_first_data(src, dst, data):  # noqa: ANN001
        if src == "a" and kind_sent(data, pair.a, B_ID) is Kind.DATA and not dropped:
            dropped.append(data)
            pair.net.stats["datagrams_lost"] += 1
            return
        original(src, dst, data)

    pair.net._transmit = drop_first_data  # type: ignore[method-assign]
    send_all(pair, ["m0", "m1", "m2"], gap=0.016)
    pair.run(0.2, lambda: len(pair.delivered("b")) == 3)
    assert dropped
    assert pair.delivered("b") == ["m0", "m1", "m2"]
    assert pair.net.now < 0.05  # well before the 250 ms initial timeout
    assert pair.a.counters["timeouts"] == 0


def test_a_loss_revealed_by_later_acks_is_resent_before_the_timeout(code: str) -> None:
    # no redundancy: only fast retransmit or the timeout can repair
    pair = make_pair(code, LinkFaults(delay=0.010), config=Config(redundancy=0))
    original = pair.net._transmit
    data_sent = []

    def drop_fifth_data(src, dst, data):  # noqa: ANN001
        if src == "a" and kind_sent(data, pair.a, B_ID) is Kind.DATA:
            data_sent.append(data)
            if len(data_sent) == 5:
                return
        original(src, dst, data)

    pair.net._transmit = drop_fifth_data  # type: ignore[method-assign]
    send_all(pair, list(range(20)), gap=0.005)
    pair.run(2.0, lambda: len(pair.delivered("b")) == 20)
    assert pair.delivered("b") == list(range(20))
    assert pair.a.counters["fast_resends"] == 1
    assert pair.a.counters["timeouts"] == 0


def test_lossy_links_without_redundancy_still_deliver_everything(code: str) -> None:
    pair = make_pair(code, LinkFaults(loss=0.3, delay=0.010), seed=5, config=Config(redundancy=0))
    send_all(pair, list(range(200)), gap=0.01)
    pair.run(30.0, lambda: len(pair.delivered("b")) == 200)
    assert pair.delivered("b") == list(range(200))
    assert pair.a.counters["fast_resends"] > 0


def test_the_send_queue_is_bounded(code: str) -> None:
    conn = Connection(KEYS_A, A_ID, B_ID, "b", 0.0, Config(max_pending=10))
    for i in range(10):
        conn.send_reliable(i)
    with pytest.raises(SendQueueFull):
        conn.send_reliable(10)


def test_a_slow_reader_stalls_delivery_without_losing_anything(code: str) -> None:
    config = Config(max_events=8)
    a = Endpoint(code, TABLE, A_ID, config)
    b = Endpoint(code, TABLE, B_ID, config)
    a.connect(B_ID, "b", 0.0)
    for i in range(40):
        a.send_reliable(B_ID, i)
    now = 0.0
    for _ in range(20):
        now += 0.01
        for data, _ in a.datagrams_to_send(now):
            b.receive_datagram(data, "a", now)
        for data, _ in b.datagrams_to_send(now):
            a.receive_datagram(data, "b", now)
        a.handle_timer(now)
        b.handle_timer(now)
    assert len(b._events) <= 8  # PeerJoined plus deliveries, never more
    got = []
    while len(got) < 40:
        now += 0.01
        got += [e.payload for e in b.events() if isinstance(e, Delivered)]
        for data, _ in a.datagrams_to_send(now):
            b.receive_datagram(data, "a", now)
        for data, _ in b.datagrams_to_send(now):
            a.receive_datagram(data, "b", now)
        a.handle_timer(now)
        b.handle_timer(now)
        assert now < 30
    assert got == list(range(40))


def test_units_beyond_the_reorder_window_are_not_taken_or_acked(code: str) -> None:
    conn = Connection(KEYS_B, B_ID, A_ID, "a", 0.0, Config(window=16))
    sealer = Sealer(A_TO_B, A_ID)
    conn.receive_datagram(sealer.seal(1, 0, 0, 0, Kind.DATA, [[[5, b"\xa1x"]], []]), "a", 0.0)
    conn.receive_datagram(sealer.seal(2, 0, 0, 0, Kind.DATA, [[[16, b"\xa1y"]], []]), "a", 0.0)
    assert sorted(conn._recv_buffer) == [5]
    assert conn.drops["beyond_window"] == 1
    assert conn._acks.ack_fields() == (1, 0)  # packet 2 is not acknowledged


def test_a_silent_host_is_declared_gone_within_a_second(code: str) -> None:
    pair = make_pair(code, LinkFaults(delay=0.001))
    send_all(pair, list(range(10)))
    pair.run(2.0)
    pair.node_b.crash()
    crashed_at = pair.net.now
    pair.run(crashed_at + 2.0, lambda: bool(pair.gone("a")))
    (gone,) = pair.gone("a")
    assert gone.peer == B_ID and gone.reason == "silent"
    assert pair.net.now - crashed_at <= 1.0


def test_a_stall_of_this_program_is_not_its_peers_silence(code: str) -> None:
    """A timer that fires long after it was due means this program could not run (a busy or
    suspended machine): nothing could be heard meanwhile, so the time lost is not counted as the
    peer's silence. A peer that stays silent after that is still declared gone."""
    a = Endpoint(code, TABLE, A_ID)
    a.attach(B_ID, "b", KEYS_A, 0.0)
    conn = a.peers[B_ID]
    conn.last_heard = 10.0
    a.handle_timer(11.0, 10.3)  # a heartbeat due at 10.3 ran at 11.0: 0.7 s this program could not run
    assert not conn.gone and conn.last_heard == pytest.approx(10.7)
    a.handle_timer(11.4, 11.4)  # on time: 0.7 s of silence since what counts
    assert not conn.gone
    a.handle_timer(11.51, 11.5)  # (0.01 s late is no stall) and 0.81 s of silence: gone
    assert conn.gone and a.next_event() is not None


@pytest.mark.parametrize("busy", [False, True])
def test_no_false_alarm_at_ten_percent_bursty_loss(code: str, busy: bool) -> None:
    faults = LinkFaults(loss=0.10, loss_correlation=0.25, delay=0.002, jitter=0.001)
    pair = make_pair(code, faults, seed=11)
    if busy:
        send_all(pair, list(range(3000)), gap=0.02)
    pair.run(120.0)
    assert pair.gone("a") == [] and pair.gone("b") == []
    if busy:
        assert pair.delivered("b") == list(range(3000))


def test_a_peer_that_never_answers_is_unreachable(code: str) -> None:
    conn = Connection(KEYS_A, A_ID, B_ID, "b", 0.0, Config(connect_timeout=3.0))
    now = 0.0
    while not conn.gone:
        conn.datagrams_to_send(now)
        now = conn.next_timer()
        conn.handle_timer(now)
    assert now == pytest.approx(3.0)
    assert [e for e in conn.events() if isinstance(e, PeerGone)][0].reason == "unreachable"
    with pytest.raises(PeerClosed):
        conn.send_reliable("too late")


def test_closing_tells_the_other_side_and_late_datagrams_are_ignored(code: str) -> None:
    pair = make_pair(code, LinkFaults(delay=0.001))
    send_all(pair, ["hi"])
    pair.run(0.5)
    late = [d for d, _ in _capture(pair, lambda: pair.a.send_reliable(B_ID, "late"))]
    pair.net.call_at(pair.net.now, lambda: pair.a.close(B_ID, pair.net.now))
    pair.run(pair.net.now + 0.5)
    assert [g.reason for g in pair.gone("a")] == ["local"]
    assert [g.reason for g in pair.gone("b")] == ["closed"]
    assert A_ID not in pair.b.peers
    before = pair.b.drops["departed_peer"]  # the spare CLOSE copies landed here
    for data in late:
        pair.b.receive_datagram(data, "a", pair.net.now)
    assert pair.b.drops["departed_peer"] == before + len(late)
    assert A_ID not in pair.b.peers


def _capture(pair: Pair, action) -> list:  # noqa: ANN001
    """Datagrams A would send right after `action`, taken off the network."""
    action()
    return pair.a.datagrams_to_send(pair.net.now)


def test_one_endpoint_serves_every_seat_of_a_table(code: str) -> None:
    from netcode.simulator.network import SimNetwork

    net = SimNetwork(7, LinkFaults(loss=0.1, delay=0.003, jitter=0.002, duplicate=0.05))
    host = Endpoint(code, TABLE, 1)
    got: dict[int, list] = {}

    def host_events(_node, event) -> None:  # noqa: ANN001
        if isinstance(event, Delivered):
            got.setdefault(event.peer, []).append(event.payload)
            for peer in host.peers:  # relay every move to every seat
                host.send_reliable(peer, [event.peer, event.payload])

    net.add("host", host, host_events)
    seats = {}
    seen: dict[int, list] = {}
    for seat in (2, 3, 4, 5):
        endpoint = Endpoint(code, TABLE, seat)
        endpoint.connect(1, "host", 0.0)
        seats[seat] = endpoint
        seen[seat] = []
        net.add(f"seat{seat}", endpoint, lambda _n, e, s=seat: seen[s].append(e.payload)
                if isinstance(e, Delivered) else None)  # fmt: skip
        for i in range(20):
            net.call_at(
                0.1 + 0.01 * i, lambda e=endpoint, i=i, s=seat: e.send_reliable(1, f"{s}:{i}")
            )
    net.run(30.0, lambda: all(len(v) == 80 for v in seen.values()))
    for seat in seats:
        assert got[seat] == [f"{seat}:{i}" for i in range(20)]
        mine = [m for p, m in seen[seat] if p == seat]
        assert mine == [f"{seat}:{i}" for i in range(20)]
        assert len(seen[seat]) == 80


def test_an_endpoint_admits_only_so_many_strangers(code: str) -> None:
    from netcode.simulator.network import SimNetwork

    net = SimNetwork(1, LinkFaults(delay=0.001))
    host = Endpoint(code, TABLE, 1, max_peers=2)
    net.add("host", host)
    for peer in (2, 3, 4):
        joiner = Endpoint(code, TABLE, peer, accept_unknown=False)
        net.add(("p", peer), joiner)
        net.call_at(0.01 * peer, lambda j=joiner, p=peer: j.connect(1, "host", 0.01 * p))
    net.run(1.0)
    assert sorted(host.peers) == [2, 3]
    assert host.drops["too_many_peers"] >= 1
    closed = Endpoint(code, TABLE, 1, accept_unknown=False)
    joiner = Endpoint(code, TABLE, 2)
    joiner.connect(1, "closed", 0.0)
    (init, _), = joiner.datagrams_to_send(0.0)
    closed.receive_datagram(init, "p", 0.0)
    assert closed.peers == {} and closed.drops["unexpected_handshake"] == 1
