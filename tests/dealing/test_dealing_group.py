"""The group: rbcl's ristretto255 behaves as a prime-order group, identities never crash,
and only canonical encodings get in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netcode.dealing.group import (
    IDENTITY,
    ORDER,
    G,
    Point,
    add,
    base,
    frame,
    hash_to_point,
    hash_to_scalar,
    inverse,
    lincomb,
    mul,
    neg,
    random_scalar,
    scalar_bytes,
    scalar_from_bytes,
    sub,
    sum_of,
)

scalars = st.integers(min_value=0, max_value=ORDER - 1)
P = base(123456789)


@settings(max_examples=25, deadline=None)
@given(scalars, scalars)
def test_multiplication_is_linear_and_unclamped(a: int, b: int) -> None:
    # rbcl documents its scalar multiplication as "clamped": it must not be, or nothing adds up
    assert add(mul(P, a), mul(P, b)) == mul(P, a + b)
    assert mul(mul(P, a), b) == mul(P, a * b)
    assert mul(G, a) == base(a)
    assert sub(base(a), base(b)) == base(a - b)


def test_a_legitimate_identity_never_raises() -> None:
    # libsodium refuses to return the identity from a multiplication; we answer it ourselves
    assert mul(P, 0) is IDENTITY and mul(P, ORDER) is IDENTITY
    assert mul(IDENTITY, 5) == IDENTITY
    assert base(0) == IDENTITY and base(ORDER) == IDENTITY
    assert add(P, neg(P)) == IDENTITY and sub(P, P) == IDENTITY
    assert add(IDENTITY, P) == P and add(P, IDENTITY) == P
    assert sum_of([]) == IDENTITY and lincomb([P, G], [0, 0]) == IDENTITY
    assert lincomb([P, P], [1, ORDER - 1]) == IDENTITY
    assert mul(P, ORDER - 1) == neg(P)
    assert IDENTITY.is_identity and not P.is_identity


def test_decode_accepts_exactly_the_canonical_encodings() -> None:
    assert Point.decode(G.encode()) == G
    assert Point.decode(P.encode()) == P
    assert Point.decode(bytes(32), allow_identity=True) == IDENTITY
    with pytest.raises(ValueError, match="identity"):
        Point.decode(bytes(32))
    for bad in (b"", bytes(31), bytes(33), G.encode() + b"\0"):
        with pytest.raises(ValueError):
            Point.decode(bad)


def test_decode_refuses_the_high_bit_alias_libsodium_1_0_18_lets_through() -> None:
    aliased = bytearray(G.encode())
    aliased[31] |= 0x80
    with pytest.raises(ValueError, match="canonical"):
        Point.decode(bytes(aliased))


def test_decode_refuses_field_elements_out_of_range_and_negative() -> None:
    p = 2**255 - 19
    s = int.from_bytes(G.encode(), "little")
    with pytest.raises(ValueError):
        Point.decode((p + 2).to_bytes(32, "little"))  # ≥ p: not a reduced field element
    with pytest.raises(ValueError):
        Point.decode((p - s).to_bytes(32, "little"))  # −s is odd ("negative"): refused
    with pytest.raises(ValueError):
        Point.decode(bytes([1]) + bytes(31))


@settings(max_examples=50, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_decode_never_lets_an_invalid_encoding_in(data: bytes) -> None:
    try:
        point = Point.decode(data, allow_identity=True)
    except ValueError:
        return
    assert point.encode() == data
    assert add(point, IDENTITY).encode() == data  # libsodium re-encodes it to the same bytes


def test_a_point_is_immutable_and_only_made_by_decode_or_the_group() -> None:
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(AttributeError):
        P._data = bytes(32)  # type: ignore[misc]


def test_scalars_have_one_canonical_form() -> None:
    assert scalar_from_bytes(scalar_bytes(ORDER + 5)) == 5
    with pytest.raises(ValueError):
        scalar_from_bytes(ORDER.to_bytes(32, "little"))
    with pytest.raises(ValueError):
        scalar_from_bytes(bytes(31))
    assert inverse(7) * 7 % ORDER == 1
    with pytest.raises(ValueError):
        inverse(ORDER)


def test_random_scalars_are_nonzero_and_injectable() -> None:
    assert all(0 < random_scalar() < ORDER for _ in range(20))
    assert random_scalar(lambda: ORDER + 9) == 9
    with pytest.raises(ValueError):
        random_scalar(lambda: ORDER)


def test_hashing_is_domain_separated_and_unambiguous() -> None:
    assert frame("ab", "c") != frame("a", "bc")
    assert frame(b"1") != frame("1") != frame(1)
    assert frame(G) != frame(G.encode())
    with pytest.raises(ValueError):
        frame(-1)
    with pytest.raises(TypeError):
        frame(True)
    assert hash_to_point("x", "a") != hash_to_point("y", "a") != hash_to_point("x", "b")
    assert hash_to_scalar("x", 1) != hash_to_scalar("x", 2)
    point = hash_to_point("x", "a")
    assert Point.decode(point.encode()) == point and point == hash_to_point("x", "a")


def test_importing_the_group_leaves_no_copy_of_libsodium_behind(tmp_path) -> None:  # noqa: ANN001
    import os
    import subprocess
    import sys

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    code = "import netcode.dealing.group as g; print(g.base(2).encode().hex())"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.strip()) == 64
    assert list(tmp_path.iterdir()) == []
