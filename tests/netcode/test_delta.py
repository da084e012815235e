"""View deltas: the host sends each seat only what changed; the seat rebuilds the whole."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from netcode import delta

scalars = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=6) | st.binary(max_size=6)
plain = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)
views = st.dictionaries(st.text(max_size=4), plain, max_size=6)


@given(views, views)
def test_a_delta_rebuilds_the_new_view_and_leaves_the_old_one_alone(old: dict, new: dict) -> None:
    before = msgpack.packb(old)
    change = delta.diff(old, new)
    assert delta.apply(old, change) == new
    assert msgpack.packb(old) == before
    # it crosses the wire as msgpack with string keys only
    assert msgpack.unpackb(msgpack.packb(change), strict_map_key=True) == change
    for key in old.keys() | new.keys():
        assert delta.touches(change, key) == (old.get(key, change) != new.get(key, change))


@given(views, views, views)
def test_seats_sharing_parts_get_the_same_deltas_with_a_memo(old: dict, mine: dict, new: dict) -> None:
    """The host diffs every seat against views that share their public parts; the
    memo must give each seat exactly what a fresh diff would."""
    shared = {"public": new, "faces": []}
    memo: dict = {}
    for base in ({"public": old, "faces": [1]}, {"public": old, "faces": []}, {"public": mine}):
        assert delta.diff(base, shared, memo) == delta.diff(base, shared)


def test_only_what_changed_is_sent() -> None:
    old = {"game": "chip-n-dale", "public": {"round": 3, "phase": "flip"}, "zones": {"deck": [1, 2, 3], "tree": [4]}}
    new = {"game": "chip-n-dale", "public": {"round": 3, "phase": "pass"}, "zones": {"deck": [1, 2], "tree": [4, 3]}}
    assert delta.diff(old, new) == {"n": {"public": {"s": {"phase": "pass"}}, "zones": {"s": {"deck": [1, 2], "tree": [4, 3]}}}}
    assert delta.diff(old, old) == {}


@pytest.mark.parametrize(
    "bad",
    [{"x": 1}, {"d": ["nowhere"]}, {"n": {"game": {"s": {"a": 1}}}}, ["s"]],
)
def test_a_delta_that_does_not_fit_is_refused(bad) -> None:
    with pytest.raises(ValueError):
        delta.apply({"game": "chip-n-dale"}, bad)
