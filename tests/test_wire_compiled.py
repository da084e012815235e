"""Each message kind's checks written out as one function (``wire._compile``) decide exactly as
the checks run one by one: the same message, or the same error, for every input."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from netcode.session import messages  # noqa: F401  (declares every kind)
from netcode.session.wire import KINDS, MAX_DEPTH, BadMessage, Message, _decode_checked

KIND_NAMES = sorted(KINDS)


def _valid(check: Any, rng: random.Random, depth: int = 0) -> Any:
    """A value that (mostly) passes ``check``."""
    shape = getattr(check, "shape", None)
    if shape is None:  # a check that converts (a number, or a row or list with one)
        return rng.choice([0, 1, 2.5, 12, None, [1, 2.5], [[1, 2.5]], [[0, "A", "here", 3, None]],
                           [0, "A", "here", None, 1.5]])  # fmt: skip
    kind = shape[0]
    if kind == "whole":
        low, high = shape[1], shape[2]
        return rng.choice([low, high, rng.randint(low, min(high, low + 10))])
    if kind == "text":
        return "t" * rng.randint(0, min(5, shape[1]))
    if kind == "blob":
        size, longest = shape[1], shape[2]
        return b"b" * (size if size is not None else rng.randint(0, min(longest, 8)))
    if kind == "flag":
        return rng.random() < 0.5
    if kind == "one_of":
        return rng.choice(shape[1])
    if kind == "data":
        return _plain(rng, depth)
    if kind == "mapping":
        return {"a": _plain(rng, depth + 1), "b": 1}
    if kind == "maybe":
        return None if rng.random() < 0.3 else _valid(shape[1], rng, depth)
    if kind == "items":
        return [_valid(shape[1], rng, depth) for _ in range(rng.randint(0, 3))]
    if kind == "row":
        return [_valid(column, rng, depth) for column in shape[1]]
    raise AssertionError(kind)


def _plain(rng: random.Random, depth: int) -> Any:
    r = rng.random()
    if depth > 4 or r < 0.5:
        return rng.choice([1, "s", b"b", None, True, 2.5])
    if r < 0.8:
        return [_plain(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {f"k{i}": _plain(rng, depth + 1) for i in range(rng.randint(0, 3))}


class _Odd:
    pass


def _nested(depth: int) -> Any:
    value: Any = 1
    for i in range(depth):
        value = [value] if i % 2 else {"d": value}
    return value


def _junk(rng: random.Random) -> Any:
    return rng.choice([
        None, True, False, 0, -1, 63, 64, 2**53, 2**53 + 1, 1.5, "", "x" * 65, "x" * 5000, b"", b"x" * 31,
        b"x" * 32, b"x" * 33, b"x" * 64, b"x" * 65, [], [1], [1, 2], [1, 2, 3], {}, {"a": 1}, {1: "a"}, {b"k": 1},
        (1, 2), _Odd(), [_Odd()], {"a": _Odd()}, _nested(MAX_DEPTH), _nested(MAX_DEPTH + 1), "here", "bot",
        [0] * 65, [[0, 1.5]] * 65, [[1, b"x" * 32]], [[1, 1.5]], [0, "A", "here", 3, None],
    ])  # fmt: skip


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if type(value) is list:
        for i, item in enumerate(value):
            found += _paths(item, (*here, i))
    elif type(value) is dict:
        for key, item in value.items():
            found += _paths(item, (*here, key))
    return found


def _mutated(raw: list[Any], rng: random.Random) -> list[Any]:
    raw = copy.deepcopy(raw)
    for _ in range(rng.choice([1, 1, 2, 3])):
        paths = [p for p in _paths(raw) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent: Any = raw
        for step in path[:-1]:
            parent = parent[step]
        choice = rng.random()
        if choice < 0.8 or type(parent) is dict:
            parent[path[-1]] = _junk(rng)
        elif choice < 0.9:
            del parent[path[-1]]
        else:
            parent.insert(path[-1], _junk(rng))
    return raw


def _outcome(decode: Any, raw: list[Any]) -> tuple[Any, ...]:
    try:
        message: Message = decode(raw)
    except BadMessage as bad:
        return ("bad", bad.reason, str(bad))
    return ("ok", message, [type(field) for field in message.to_wire()])


@pytest.mark.parametrize("kind", KIND_NAMES)
def test_the_written_out_checks_decide_as_the_checks_one_by_one(kind: str) -> None:
    cls = KINDS[kind]
    rng = random.Random(kind)
    results = set()
    for _ in range(1500):
        raw = [kind, *(_valid(check, rng) for check in cls.CHECKS)]
        if rng.random() < 0.7:
            raw = _mutated(raw, rng)
        if rng.random() < 0.1:  # a field too many, or one too few
            raw = [*raw, _junk(rng)] if len(raw) == 1 or rng.random() < 0.5 else raw[:-1]
        if not raw or raw[0] != kind:
            continue
        expected = _outcome(lambda r: _decode_checked(cls, r), raw)
        assert _outcome(cls._decode, raw) == expected, raw
        results.add(expected[0])
    assert results == {"ok", "bad"}  # (both ways were tried)
