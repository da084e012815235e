"""The join handshake and the keys it gives: who can join, open and forge what.

Joins run in the simulator (virtual time, seeded faults) unless the test says
otherwise; a wrong code is refused to the joiner with one clear sentence, and
counted, slowed and shown at the host."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from netcode_helpers import CODE, HOST, TABLE, Table, faulty_links, proven_init

from netcode.channel import (
    WRONG_CODE,
    Config,
    Delivered,
    Endpoint,
    HandshakeCompleted,
    HandshakeFailed,
    Initiator,
    JoinAttemptFailed,
    PeerGone,
    PeerJoined,
    Responder,
    SessionKeys,
)
from netcode.codes import code_key
from netcode.envelope import REPLY, SEALED, Dropped, Kind, Opener, Sealer, pack_confirm
from netcode.simulator.faults import LinkFaults


def same_keys(host: Endpoint, joiner: Endpoint) -> bool:
    mine, theirs = joiner.peers[HOST].keys, host.peers[joiner.local_id].keys
    return mine is not None and theirs is not None and (mine.send, mine.receive) == (
        theirs.receive, theirs.send
    )


# -- the exchange -------------------------------------------------------------------------


def test_a_joiner_with_the_code_is_seated_and_both_sides_hold_mirrored_keys() -> None:
    table = Table()
    joiner = table.join(2, code=f"  {CODE.lower()} ")  # case and spaces do not matter
    joiner.send_reliable(HOST, {"t": "hello"})
    table.net.run(1.0)
    assert same_keys(table.host, joiner)
    assert [type(e) for e in table.events["host"][:3]] == [PeerJoined, HandshakeCompleted, Delivered]
    assert table.of(("192.0.2.1", 2), HandshakeCompleted)[0].peer == HOST
    assert table.host.failed_attempts == {}


def test_each_pair_gets_keys_of_its_own() -> None:
    table = Table()
    joiners = [table.join(peer) for peer in (2, 3, 4)]
    table.net.run(1.0)
    keys = [table.host.peers[j.local_id].keys for j in joiners]
    secrets = [k.send for k in keys] + [k.receive for k in keys]  # type: ignore[union-attr]
    assert len(set(secrets)) == 6


def test_a_wrong_code_is_refused_to_the_joiner_and_counted_by_the_host() -> None:
    table = Table()
    table.join(2, code="WRONG-CODE")
    table.net.run(1.0)
    (failed,) = table.of(("192.0.2.1", 2), HandshakeFailed)
    assert (failed.reason, failed.text) == ("wrong_code", WRONG_CODE)
    assert [g.reason for g in table.of(("192.0.2.1", 2), PeerGone)] == ["wrong_code"]
    assert table.net.now < 2.0 and table.host.peers == {}
    (attempt,) = table.of("host", JoinAttemptFailed)
    assert (attempt.source, attempt.failures, attempt.total, attempt.reason) == (
        "192.0.2.1", 1, 1, "joiner_gave_up"
    )
    assert attempt.text == "1 failed join attempt from 192.0.2.1"


def test_a_host_that_does_not_know_the_code_cannot_seat_a_joiner() -> None:
    table = Table(host_code="OTHER-CODE")
    joiner = table.join(2)
    joiner.send_reliable(HOST, {"t": "hello", "name": "Noel"})
    table.net.run(2.0)
    assert table.of(("192.0.2.1", 2), HandshakeFailed)[0].text == WRONG_CODE
    assert table.of("host", Delivered) == [] and table.host.peers == {}


def test_a_table_id_other_than_the_hosts_never_opens_it() -> None:
    """The exchange is bound to the table: the right code for another table fails."""
    table = Table()
    stranger = Endpoint(CODE, b"table-2", 2, accept_unknown=False)
    table.net.add("s", stranger, lambda _n, e: table.events.setdefault("s", []).append(e))
    stranger.connect(HOST, "host", 0.0)
    table.net.run(1.0)
    assert table.host.peers == {} and table.host.failed_attempts_total == 1


def test_a_guesser_who_never_confirms_is_counted_when_the_attempt_expires() -> None:
    """A fake joiner can check the host's proof against its one guess and go quiet:
    that attempt still counts as failed once the host stops waiting."""
    table = Table()
    guesser = Endpoint("GUESS-1234", TABLE, 9, accept_unknown=False)
    guesser.connect(HOST, "host", 0.0)
    init = proven_init(table.host, guesser, ("198.51.100.66", 1))
    table.host.receive_datagram(init, ("198.51.100.66", 1), 0.0)
    (reply, _), = table.host.datagrams_to_send(0.0)
    assert reply[0] == REPLY and len(reply) < len(init)
    timer = table.host.next_timer()
    assert timer is not None and timer <= Config().handshake_timeout
    table.host.handle_timer(timer)
    assert table.host.failed_attempts == {"198.51.100.66": 1}
    assert [e.reason for e in table.host.events() if isinstance(e, JoinAttemptFailed)] == ["unconfirmed"]


def test_a_wrong_proof_is_a_failed_attempt_at_once() -> None:
    table = Table()
    guesser = Endpoint(CODE, TABLE, 9, accept_unknown=False)
    guesser.connect(HOST, "host", 0.0)
    init = proven_init(table.host, guesser, ("198.51.100.66", 1))
    table.host.receive_datagram(init, ("198.51.100.66", 1), 0.0)
    table.host.receive_datagram(pack_confirm(9, HOST, bytes(16)), ("198.51.100.66", 1), 0.01)
    assert table.host.peers == {} and table.host.failed_attempts == {"198.51.100.66": 1}


def test_a_repeated_init_is_answered_alike_and_starts_no_second_exchange() -> None:
    table = Table()
    joiner = Endpoint(CODE, TABLE, 2, accept_unknown=False)
    joiner.connect(HOST, "host", 0.0)
    init = proven_init(table.host, joiner, ("192.0.2.1", 2))
    answers = []
    for _ in range(3):
        table.host.receive_datagram(init, ("192.0.2.1", 2), 0.0)
        answers += [d for d, _ in table.host.datagrams_to_send(0.0)]
    assert len(set(answers)) == 1 and table.host.counters["handshakes_started"] == 1


# -- under loss, duplication and reordering ---------------------------------------------

#: patient, so that even a link in a long bad spell ends in a join, never a timeout
PATIENT = Config(connect_timeout=300.0, silence_timeout=300.0, handshake_timeout=300.0)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(link=faulty_links, seed=st.integers(0, 2**32 - 1), joiners=st.integers(1, 3))
def test_the_handshake_completes_over_any_faulty_link_with_the_same_keys_both_sides(
    link: LinkFaults, seed: int, joiners: int
) -> None:
    table = Table(link, seed, PATIENT)
    seated = [table.join(10 + i) for i in range(joiners)]
    for joiner in seated:
        joiner.send_reliable(HOST, joiner.local_id)
    table.net.run(300.0, lambda: len(table.of("host", Delivered)) == joiners)
    assert sorted(e.payload for e in table.of("host", Delivered)) == [j.local_id for j in seated]
    assert all(same_keys(table.host, joiner) for joiner in seated)
    for address in table.events:  # each side said so once, whatever was repeated
        assert len(table.of(address, HandshakeCompleted)) == (joiners if address == "host" else 1)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(link=faulty_links, seed=st.integers(0, 2**32 - 1), code=st.text(min_size=1, max_size=12))
def test_a_wrong_code_never_completes_over_any_faulty_link(
    link: LinkFaults, seed: int, code: str
) -> None:
    if code_key(code) == code_key(CODE):
        return
    table = Table(link, seed, Config(connect_timeout=20.0))
    joiner = table.join(2, code=code)
    joiner.send_reliable(HOST, "let me in")
    table.net.run(30.0)
    assert table.host.peers == {} and table.of("host", Delivered) == []
    assert table.of("host", HandshakeCompleted) == table.of(("192.0.2.1", 2), HandshakeCompleted) == []
    assert [g.reason for g in table.of(("192.0.2.1", 2), PeerGone)] in (["wrong_code"], ["unreachable"])


# -- guessing is slow and visible ----------------------------------------------------------


def wrong_attempt(table: Table, peer: int, source: str = "198.51.100.66") -> Endpoint:
    return table.join(peer, code="GUESS-0000", address=(source, peer))


def test_after_five_failures_an_address_gets_one_attempt_per_five_seconds() -> None:
    table = Table()
    for peer in range(100, 105):
        wrong_attempt(table, peer)
        table.net.run(table.net.now + 0.5)
    assert table.host.failed_attempts == {"198.51.100.66": 5}
    sixth = wrong_attempt(table, 105)
    table.net.run(table.net.now + 0.5)
    (refused,) = table.of(("198.51.100.66", 105), HandshakeFailed)
    assert refused.reason == "rate_limited" and "wait" in refused.text
    assert sixth.peers == {} and table.host.drops["rate_limited"] == 1
    assert table.host.failed_attempts == {"198.51.100.66": 5}  # a refused try is not a guess
    friend = table.join(200, address=("192.0.2.9", 1))  # another address is not slowed
    table.net.run(table.net.now + 0.5)
    assert friend.peers[HOST].keys is not None
    table.net.run(table.net.now + 5.0)
    wrong_attempt(table, 106)  # five seconds on: one more attempt is heard
    table.net.run(table.net.now + 0.5)
    assert table.host.failed_attempts == {"198.51.100.66": 6}
    assert table.host.describe_failed_attempts() == ["6 failed join attempts from 198.51.100.66"]


def test_many_failures_at_a_table_slow_every_new_attempt() -> None:
    table = Table(config=Config(table_failures_before_limit=3))
    for i in range(3):
        wrong_attempt(table, 100 + i, source=f"10.6.6.{i}")
        table.net.run(table.net.now + 0.2)
    assert table.host.failed_attempts_total == 3
    table.net.run(table.net.now + 1.0)
    rushed = [table.join(300 + i, address=("192.0.2.101", 300 + i)) for i in range(3)]
    table.net.run(table.net.now + 0.5)
    assert sum(j.peers[HOST].keys is not None for j in rushed) == 1  # one a second
    assert table.host.drops["rate_limited"] >= 2
    table.net.run(table.net.now + 3.0)  # the others were asked to wait, and came back
    assert all(j.peers[HOST].keys is not None for j in rushed)


def test_friends_on_one_machine_may_join_at_once() -> None:
    table = Table()
    friends = [table.join(400 + i, address=("127.0.0.1", 400 + i), at=0.0) for i in range(7)]
    table.net.run(3.0)
    assert all(f.peers[HOST].keys is not None for f in friends)
    assert table.host.failed_attempts == {}


# -- one peer's keys never open or forge another's traffic -----------------------------


def seated_pair() -> tuple[Table, Endpoint, Endpoint, list[tuple[object, object, bytes]]]:
    """A host with joiners A (2) and C (3), and every datagram that crossed the LAN."""
    table = Table()
    wire: list[tuple[object, object, bytes]] = []
    transmit = table.net._transmit

    def tap(src, dst, data):  # noqa: ANN001
        wire.append((src, dst, data))
        transmit(src, dst, data)

    table.net._transmit = tap  # type: ignore[method-assign]
    a, c = table.join(2), table.join(3)
    table.net.run(0.5)
    for peer in (2, 3):
        table.host.send_reliable(peer, {"your": "hand", "for": peer})
    a.send_reliable(HOST, "from A")
    c.send_reliable(HOST, "from C")
    table.net.run(1.0)
    return table, a, c, wire


def test_a_peer_holding_its_own_keys_cannot_open_another_peers_datagrams() -> None:
    table, a, c, wire = seated_pair()
    a_keys = a.peers[HOST].keys
    assert a_keys is not None
    to_c = [data for src, dst, data in wire if src == "host" and dst == ("192.0.2.1", 3) and data[0] == SEALED]
    from_c = [data for src, dst, data in wire if src == ("192.0.2.1", 3) and data[0] == SEALED]
    assert to_c and from_c
    for data in to_c:
        for key in (a_keys.send, a_keys.receive):
            try:
                Opener(key, HOST).open(data)
            except Dropped as refused:
                assert refused.reason == "bad_tag"
            else:
                raise AssertionError("A's key opened a datagram meant for C")


def test_a_peer_cannot_forge_a_datagram_as_another_peer() -> None:
    table, a, c, _ = seated_pair()
    a_keys = a.peers[HOST].keys
    assert a_keys is not None
    before = table.host.drops["bad_tag"]
    conn_c = table.host.peers[3]
    forged = Sealer(a_keys.send, 3).seal(10_000, 0, 0, 0, Kind.CLOSE, None)  # "C leaves"
    table.host.receive_datagram(forged, ("192.0.2.1", 2), table.net.now)
    assert table.host.drops["bad_tag"] == before + 1
    assert not conn_c.gone and 3 in table.host.peers


def test_replayed_reflected_and_redirected_datagrams_are_dropped_and_counted() -> None:
    table, a, c, wire = seated_pair()
    late = table.join(4)  # a peer that joined just now: A's packet numbers are ahead of its own
    table.net.run(table.net.now + 0.05)
    now = table.net.now
    from_a = [data for src, dst, data in wire if src == ("192.0.2.1", 2) and data[0] == SEALED]
    to_a = [data for src, dst, data in wire if src == "host" and dst == ("192.0.2.1", 2) and data[0] == SEALED]
    replay = table.host.drops["replay"] + table.host.drops["stale"]
    table.host.receive_datagram(from_a[-1], ("192.0.2.1", 2), now)  # replayed
    assert table.host.drops["replay"] + table.host.drops["stale"] == replay + 1
    a.receive_datagram(from_a[-1], "host", now)  # reflected to its sender
    assert a.drops["reflected"] == 1
    for other in (c, late):  # the host's datagrams to A, sent on to another peer
        drops, events = sum(other.drops.values()), len(other.ready)
        for data in to_a:
            other.receive_datagram(data, "host", now)
        assert sum(other.drops.values()) == drops + len(to_a) and len(other.ready) == events
    # (a packet number the other peer has seen counts as a replay before any decryption)
    assert late.drops["bad_tag"] > 0


def test_a_peer_moves_only_on_an_authentic_datagram_newer_than_any_seen() -> None:
    table, a, _, wire = seated_pair()
    conn = table.host.peers[2]
    from_a = [data for src, dst, data in wire if src == ("192.0.2.1", 2) and data[0] == SEALED]
    table.host.receive_datagram(from_a[0], ("203.0.113.66", 1), table.net.now)  # old: no move
    assert conn.address == ("192.0.2.1", 2)
    a.send_reliable(HOST, "from my new address")
    fresh = [d for d, _ in a.datagrams_to_send(table.net.now)]
    table.host.receive_datagram(fresh[0], ("192.0.2.1", 2222), table.net.now)  # A's NAT moved
    assert conn.address == ("192.0.2.1", 2222)
    assert conn.counters["path_changes"] == 1


def test_a_connection_closes_rather_than_reuse_a_packet_number() -> None:
    """The nonce is the packet number: past the limit nothing more is sealed."""
    table = Table(config=Config(max_packet_number=20))
    numbers: list[int] = []
    transmit = table.net._transmit

    def tap(src, dst, data):  # noqa: ANN001
        if src == ("192.0.2.1", 2) and data[0] == SEALED:
            numbers.append(int.from_bytes(data[9:17], "big"))
        transmit(src, dst, data)

    table.net._transmit = tap  # type: ignore[method-assign]
    joiner = table.join(2)

    def send(i: int) -> None:
        conn = joiner.peers.get(HOST)
        if conn is not None and not conn.gone:
            joiner.send_reliable(HOST, i)

    for i in range(50):
        table.net.call_at(0.3 + 0.05 * i, lambda i=i: send(i))
    table.net.run(5.0)
    assert [g.reason for g in table.of(("192.0.2.1", 2), PeerGone)] == ["exhausted"]
    assert sorted(numbers) == sorted(set(numbers)) and max(numbers) == 20


def test_session_keys_never_show_in_a_repr() -> None:
    keys = SessionKeys(b"s" * 32, b"r" * 32)
    assert "sss" not in repr(keys) and "rrr" not in repr(keys)


def test_a_reply_that_is_no_spake2_message_leaves_the_join_as_it_was() -> None:
    """A forged REPLY with a bad element is dropped; the host's real REPLY still works."""
    joiner = Initiator(CODE, TABLE, 2, HOST)
    host = Responder(CODE, TABLE, 2, HOST, joiner.message)
    try:
        joiner.finish(b"B" + b"\xff" * 32, host.proof)
    except Dropped as dropped:
        assert dropped.reason == "bad_handshake"
    else:
        raise AssertionError("a bad element was taken")
    assert joiner.finish(host.message, host.proof) and host.confirms(joiner.proof)
    assert joiner.keys is not None and (joiner.keys.send, joiner.keys.receive) == (
        host.keys.receive, host.keys.send
    )
