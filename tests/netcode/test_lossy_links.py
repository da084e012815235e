"""Delivery is complete, in order and without duplicates over any faulty link.

Hypothesis draws the fault schedule (loss, bursty loss, delay, jitter,
duplication, reordering, FIFO or not), the messages (tiny to fragmented) and
the seed; the simulator runs it in virtual time, the join handshake included
(the thousand-link timing runs on keys agreed beforehand: it measures the
channel alone).
"""

from __future__ import annotations

import random
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from netcode_helpers import A_ID, B_ID, Pair, faulty_links, make_pair

from netcode.channel import Config, Event, HandshakeCompleted
from netcode.simulator.faults import LinkFaults

# Loss up to 40% would make the 0.8 s silence alarm fire now and then: that
# is its job, and other tests cover it; here only delivery is under test.
PATIENT = Config(silence_timeout=120.0, connect_timeout=120.0)

sizes = st.lists(
    st.one_of(st.integers(0, 64), st.integers(300, 1500), st.integers(2000, 12_000)),
    max_size=25,
)


def payloads(tag: str, lengths: list[int]) -> list[bytes]:
    return [f"{tag}{i}:".encode() + bytes([i % 251]) * n for i, n in enumerate(lengths)]


def exchange(code: str, link: LinkFaults, up: list[int], down: list[int], seed: int, *,
             joined: bool = False):  # fmt: skip
    waiting: list[bytes] = []  # B's messages, held until A has joined it

    def b_heard(pair: Pair, event: Event) -> None:
        if isinstance(event, HandshakeCompleted):
            _flush(pair, waiting)

    pair = make_pair(code, link, seed=seed, config=PATIENT, on_b=b_heard, joined=joined)
    sent_up = payloads("a", up)
    sent_down = payloads("b", down)
    rng = random.Random(seed)
    t = 0.0
    for message in sent_up:
        t += rng.uniform(0, 0.03)
        pair.net.call_at(t, lambda m=message: pair.a.send_reliable(B_ID, m))
    t = 0.0
    for message in sent_down:
        t += rng.uniform(0, 0.03)
        pair.net.call_at(t, lambda m=message: (waiting.append(m), _flush(pair, waiting)))

    def done() -> bool:
        return len(pair.delivered("b")) >= len(sent_up) and len(pair.delivered("a")) >= len(
            sent_down
        )

    pair.run(600.0, done)
    pair.run(pair.net.now + 1.0)  # late duplicates must change nothing
    return pair, sent_up, sent_down


def _flush(pair: Pair, waiting: list[bytes]) -> None:
    """B speaks to A once A has joined it (B is the host: it knows A only then)."""
    if A_ID in pair.b.peers:
        for message in waiting:
            pair.b.send_reliable(A_ID, message)
        waiting.clear()


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(link=faulty_links, up=sizes, down=sizes, seed=st.integers(0, 2**32 - 1))
def test_everything_arrives_once_and_in_order_both_ways(
    code: str, link: LinkFaults, up: list[int], down: list[int], seed: int
) -> None:
    pair, sent_up, sent_down = exchange(code, link, up, down, seed)
    assert pair.delivered("b") == sent_up
    assert pair.delivered("a") == sent_down
    assert pair.gone("a") == [] and pair.gone("b") == []


def test_a_thousand_lossy_links_take_seconds(code: str) -> None:
    started = time.perf_counter()
    for seed in range(1000):
        rng = random.Random(seed)
        link = LinkFaults(
            loss=rng.uniform(0, 0.3),
            loss_correlation=rng.uniform(0, 0.5),
            delay=rng.uniform(0, 0.1),
            jitter=rng.uniform(0, 0.02),
            duplicate=rng.uniform(0, 0.2),
            reorder=rng.uniform(0, 0.2),
        )
        up = [rng.choice([4, 40, 400]) for _ in range(rng.randint(1, 8))]
        pair, sent_up, _ = exchange(code, link, up, [], seed, joined=True)
        assert pair.delivered("b") == sent_up, f"seed {seed}"
    assert time.perf_counter() - started < 30
