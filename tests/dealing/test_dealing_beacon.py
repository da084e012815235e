"""The beacon: t valid shares always give the same value, so nobody can bend it."""

from __future__ import annotations

import itertools

import pytest
from dealkit import table

from netcode.dealing import beacon
from netcode.dealing.proofs import Blame


def shares(k: int, table_id: str = "table-7") -> list[beacon.BeaconShare]:
    dealt = table(4)
    return [beacon.beacon_share(table_id, k, j, dealt.secrets[j - 1]) for j in (1, 2, 3, 4)]


def test_every_set_of_t_valid_shares_gives_the_same_value() -> None:
    dealt = table(4)
    all_shares = [beacon.BeaconShare.from_wire(s.to_wire()) for s in shares(1)]
    values = {
        beacon.combine_beacon("table-7", 1, list(subset), dealt.joint)
        for subset in itertools.combinations(all_shares, 3)
    }
    assert len(values) == 1  # withholding a share changes nothing
    value = values.pop()
    assert len(value) == 32
    assert beacon.combine_beacon("table-7", 2, shares(2)[:3], dealt.joint) != value
    assert beacon.combine_beacon("table-8", 1, shares(1, "table-8")[:3], dealt.joint) != value
    with pytest.raises(ValueError, match="3 are needed"):
        beacon.combine_beacon("table-7", 1, all_shares[:2], dealt.joint)


def test_a_wrong_beacon_share_is_refused_and_its_author_named() -> None:
    dealt = table(4)
    wrong = beacon.beacon_share("table-7", 1, 3, dealt.secrets[2] + 1)
    assert not beacon.verify_beacon_share("table-7", 1, wrong, dealt.joint)
    replayed = shares(2)[0]  # a right share for value 2, offered for value 1
    assert not beacon.verify_beacon_share("table-7", 1, replayed, dealt.joint)
    with pytest.raises(Blame) as caught:
        beacon.combine_beacon("table-7", 1, [*shares(1)[:2], wrong], dealt.joint)
    assert caught.value.culprit == 3
