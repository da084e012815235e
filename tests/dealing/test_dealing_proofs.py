"""Schnorr, Chaum–Pedersen and the recipient-share proof: honest proofs pass, and a wrong
statement, a tampered field, another context or another kind of proof does not."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from netcode.dealing.group import ORDER, G, add, base, hash_to_point, mul
from netcode.dealing.proofs import DleqProof, RecipientShareProof, SchnorrProof
from netcode.dealing.transcript import Transcript

CONTEXT = {"table": "t1", "purpose": "test", "round": 1, "seat": 1}
secrets = st.integers(min_value=1, max_value=ORDER - 1)


def transcript(**changes: object) -> Transcript:
    return Transcript("test-proofs", {**CONTEXT, **changes})


ELSEWHERE = [
    transcript(table="t2"),
    transcript(round=2),
    transcript(seat=2),
    transcript(purpose="x"),
]


@settings(max_examples=10, deadline=None)
@given(secrets, secrets)
def test_schnorr_proves_knowledge_of_a_discrete_log(x: int, other: int) -> None:
    assume(x != other)
    public = base(x)
    proof = SchnorrProof.prove(x, public, transcript())
    assert proof.verify(public, transcript())
    assert SchnorrProof.from_wire(proof.to_wire()) == proof
    assert len(proof.to_wire()) == SchnorrProof.WIRE_BYTES == 64
    assert not proof.verify(base(other), transcript())
    assert not SchnorrProof.prove(other, public, transcript()).verify(public, transcript())
    for elsewhere in ELSEWHERE:  # a proof replayed from another table, round, seat or purpose
        assert not proof.verify(public, elsewhere)
    assert not dataclasses.replace(proof, response=proof.response + 1).verify(public, transcript())
    assert not dataclasses.replace(proof, challenge=proof.challenge + 1).verify(
        public, transcript()
    )


@settings(max_examples=10, deadline=None)
@given(secrets, secrets)
def test_chaum_pedersen_proves_equal_discrete_logs(x: int, other: int) -> None:
    assume(x != other)
    h = hash_to_point("test", "h")
    statement = (base(x), h, mul(h, x))
    proof = DleqProof.prove(x, *statement, transcript())
    assert proof.verify(*statement, transcript())
    assert DleqProof.from_wire(proof.to_wire()) == proof
    # unequal logs: Y = x'·H with X = x·G cannot be proved, whatever the prover uses
    unequal = (base(x), h, mul(h, other))
    assert not DleqProof.prove(x, *unequal, transcript()).verify(*unequal, transcript())
    assert not DleqProof.prove(other, *unequal, transcript()).verify(*unequal, transcript())
    assert not proof.verify(base(x), hash_to_point("test", "h2"), mul(h, x), transcript())
    for elsewhere in ELSEWHERE:
        assert not proof.verify(*statement, elsewhere)
    assert not dataclasses.replace(proof, response=proof.response ^ 1).verify(
        *statement, transcript()
    )
    # a Schnorr proof's bytes are no Chaum–Pedersen proof of the same key
    schnorr = SchnorrProof.prove(x, base(x), transcript())
    assert not DleqProof.from_wire(schnorr.to_wire()).verify(*statement, transcript())


def test_chaum_pedersen_with_an_identity_base_still_checks_the_key() -> None:
    from netcode.dealing.group import IDENTITY

    proof = DleqProof.prove(5, base(5), IDENTITY, IDENTITY, transcript())
    assert proof.verify(base(5), IDENTITY, IDENTITY, transcript())
    assert not proof.verify(base(6), IDENTITY, IDENTITY, transcript())


@settings(max_examples=10, deadline=None)
@given(secrets, secrets, secrets)
def test_the_recipient_share_proof_binds_the_share_key_and_recipient(
    x: int, k: int, p: int
) -> None:
    assume(p + 1 < ORDER)
    c1 = hash_to_point("test", "c1")
    recipient = base(p)
    statement = (base(x), base(k), c1, recipient, add(mul(c1, x), mul(recipient, k)))
    proof = RecipientShareProof.prove(x, k, statement, transcript())
    assert proof.verify(statement, transcript())
    assert RecipientShareProof.from_wire(proof.to_wire()) == proof
    assert len(proof.to_wire()) == 96
    # a share made with another secret than the one behind X fails
    wrong_e = add(mul(c1, x + 1), mul(recipient, k))
    lie = (base(x), base(k), c1, recipient, wrong_e)
    assert not RecipientShareProof.prove(x, k, lie, transcript()).verify(lie, transcript())
    assert not RecipientShareProof.prove(x + 1, k, lie, transcript()).verify(lie, transcript())
    # redirected to another recipient: fails
    other = (base(x), base(k), c1, base(p + 1), statement[4])
    assert not proof.verify(other, transcript())
    for elsewhere in ELSEWHERE:
        assert not proof.verify(statement, elsewhere)
    for field in ("challenge", "response_x", "response_k"):
        bent = dataclasses.replace(proof, **{field: getattr(proof, field) + 1})
        assert not bent.verify(statement, transcript())


def test_wire_forms_are_strict() -> None:
    proof = SchnorrProof.prove(3, base(3), transcript())
    wire = proof.to_wire()
    for bad in (wire[:-1], wire + b"\0", ORDER.to_bytes(32, "little") + wire[32:]):
        with pytest.raises(ValueError):
            SchnorrProof.from_wire(bad)
    with pytest.raises(ValueError):
        RecipientShareProof.from_wire(bytes(64))
    assert SchnorrProof(ORDER + 1, 2) == SchnorrProof(1, 2)  # responses are kept reduced
    with pytest.raises(TypeError):
        SchnorrProof(G, 2)  # type: ignore[arg-type]
