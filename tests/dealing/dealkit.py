"""Helpers for the dealing tests: a keyed table of n holders, scripted randomness."""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from functools import cache

from netcode.dealing import keys
from netcode.dealing.group import ORDER, Point, Rand

DKG = {"table": "table-7", "purpose": "dkg", "round": 0}
OPEN = {"table": "table-7", "purpose": "open", "round": 3}


def scripted(seed: int) -> Rand:
    """A reproducible source of scalars (so a failing example can be replayed)."""
    counter = itertools.count()
    return lambda: int.from_bytes(
        hashlib.sha512(b"%d/%d" % (seed, next(counter))).digest(), "little"
    )


def shuffle_context(seat: int, round_: int = 1, table: str = "table-7") -> dict[str, str | int]:
    return {"table": table, "purpose": "shuffle", "round": round_, "seat": seat}


@dataclass(frozen=True)
class Table:
    n: int
    t: int
    personal: tuple[keys.PersonalKey, ...]
    dealings: tuple[keys.Dealing, ...]
    joint: keys.JointKey
    secrets: tuple[int, ...]  # x_1 … x_n

    @property
    def publics(self) -> list[Point]:
        return [k.public for k in self.personal]

    def joint_secret(self) -> int:
        """x itself, from all n shares (only a test ever puts it together)."""
        holders = list(range(1, self.n + 1))
        lambdas = keys.lagrange_at_zero(holders)
        return sum(lam * x for lam, x in zip(lambdas, self.secrets, strict=True)) % ORDER


@cache
def table(n: int, t: int | None = None, seed: int = 1) -> Table:
    """An honest DKG among n holders (cached: many tests share one)."""
    t = keys.threshold(n) if t is None else t
    rand = scripted(seed)
    personal = tuple(keys.PersonalKey.generate(rand) for _ in range(n))
    publics = [k.public for k in personal]
    dealings = tuple(keys.deal(i + 1, personal[i], publics, t, DKG, rand) for i in range(n))
    for dealing in dealings:
        keys.check_dealing(dealing, publics, t, DKG)
    joint = keys.joint_key(dealings, n, t)
    secrets = tuple(
        keys.secret_share(
            joint,
            j,
            {d.dealer: keys.open_share(d, j, personal[j - 1], publics, DKG) for d in dealings},
        )
        for j in range(1, n + 1)
    )
    return Table(n, t, personal, dealings, joint, secrets)
