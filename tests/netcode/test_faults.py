"""The seeded fault models shared by the simulator and the fault proxy."""

from __future__ import annotations

import random
import statistics

import pytest

from netcode.simulator.faults import FaultyLink, GilbertElliott, LinkFaults


def losses(link: FaultyLink, n: int) -> list[bool]:
    return [not link.schedule(i * 0.001) for i in range(n)]


@pytest.mark.parametrize(("loss", "correlation"), [(0.05, 0.0), (0.10, 0.25), (0.25, 0.5)])
def test_mean_loss_and_burstiness_follow_the_parameters(loss: float, correlation: float) -> None:
    link = FaultyLink(LinkFaults(loss=loss, loss_correlation=correlation), random.Random(1))
    lost = losses(link, 200_000)
    assert statistics.fmean(lost) == pytest.approx(loss, rel=0.05)
    after_loss = [b for a, b in zip(lost, lost[1:], strict=False) if a]
    expected = correlation + (1 - correlation) * loss
    assert statistics.fmean(after_loss) == pytest.approx(expected, rel=0.06)


def test_gilbert_elliott_reports_its_mean_loss() -> None:
    chain = GilbertElliott(p=0.01, r=0.09, loss_good=0.0, loss_bad=0.5)
    assert chain.mean_loss == pytest.approx(0.05)
    with pytest.raises(ValueError):
        GilbertElliott.from_rate(1.0)


def test_the_same_seed_gives_the_same_schedule() -> None:
    faults = LinkFaults(loss=0.2, delay=0.05, jitter=0.02, duplicate=0.1, reorder=0.1)
    a = FaultyLink(faults, random.Random(7))
    b = FaultyLink(faults, random.Random(7))
    assert [a.schedule(t / 100) for t in range(500)] == [b.schedule(t / 100) for t in range(500)]


def test_delays_stay_in_their_range_and_duplicates_happen_at_their_rate() -> None:
    link = FaultyLink(LinkFaults(delay=0.03, delay_max=0.0625, duplicate=0.25), random.Random(2))
    fates = [link.schedule(1.0) for _ in range(20_000)]
    waits = [t - 1.0 for fate in fates for t in fate]
    assert min(waits) >= 0.03 and max(waits) <= 0.0625
    assert statistics.fmean(len(f) == 2 for f in fates) == pytest.approx(0.25, rel=0.05)


def test_jitter_reorders_but_fifo_never_does() -> None:
    faults = LinkFaults(delay=0.01, jitter=0.009)
    loose = FaultyLink(faults, random.Random(3))
    strict = FaultyLink(LinkFaults(delay=0.01, jitter=0.009, fifo=True), random.Random(3))
    loose_times = [loose.schedule(i * 0.001)[0] for i in range(1000)]
    strict_times = [strict.schedule(i * 0.001)[0] for i in range(1000)]
    assert loose_times != sorted(loose_times)
    assert strict_times == sorted(strict_times)
    assert len(set(strict_times)) == len(strict_times)


def test_a_clean_link_delivers_everything_at_once() -> None:
    link = FaultyLink(LinkFaults(), random.Random(0))
    assert all(link.schedule(t) == [t] for t in (0.0, 1.0, 2.5))
    assert LinkFaults().clean
