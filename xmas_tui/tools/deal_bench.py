"""Benchmark of the no-peek deal's cryptography: ``python -m xmas_tui.tools.deal_bench``.

Owns: simulating n key holders in one process through every step of a deal
(``netcode.dealing``), timing each step, reading every game's real decks, and the
figures it prints.

Steps, each timed on the wall clock (``time.perf_counter``) and on this process's CPU
clock (``time.process_time``; the machine is shared, so the two can differ):

* ``dkg_s``: one holder's part of the DKG: its dealing made, then all n dealings
  checked, its n shares opened and checked, the joint key and its secret share.
* ``shuffle_s``, ``prove_s``, ``verify_s``: per player (the mean), re-encrypting and
  permuting the deck, proving it, and checking one proof.
* ``shuffle_total_s``: the deal's wall time at a real table where each peer is its own
  machine, taken conservatively: the players shuffle and prove in turn (the sum over
  players of shuffle + prove), plus the n proofs checked one after another by one peer.
  ``all_peers_cpu_s`` is everything every peer does for the deal, summed as on one
  core: every shuffle and proof, and every peer checking the n − 1 proofs it did not make.
* ``open_card_ms``: opening one card to its owner: t − 1 recipient-bound shares made
  (one after another), the owner checking them all and combining. Every other peer
  checks them too, in parallel on its own machine: ``open_card_all_peers_cpu_ms`` counts
  that work, summed.
* ``open_public_ms``: t decryption shares made, one peer checking them and combining.
* ``beacon_ms``: t beacon shares made, one peer checking them and combining.

Baselines measured in the same run: one raw rbcl scalar multiplication
(``scalarmult_us``) and a plain re-encryption of the deck without any proof
(``reencrypt_deck_ms``). Goals (issue 29, 6 players, 100 cards): ``shuffle_total_s``
≤ 3 and ``open_card_ms`` ≤ 50.

Every game's real deck comes from its own ``setup`` at its largest table, set up as at
a no-peek table: the decks its card model hands the players to shuffle (a deck set out
face up is none of them). A game with several decks shuffles each: its figures are summed over them.

With ``--json`` the last line is one JSON object: the 6-player, 100-card case at the
top level (``players``, ``cards``, ``shuffle_total_s``, ``open_card_ms`` and the per-step
figures), the baselines, and ``games``, one entry per game.

Must not touch: sockets, files, the network. A check that fails (a proof that does not
verify, a card that opens to the wrong face) ends the run with one line and exit 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import rbcl

from netcode.dealing import beacon, cards, keys, opening
from netcode.dealing.elgamal import Ciphertext, reencrypt
from netcode.dealing.group import Point, random_scalar, scalar_bytes
from netcode.dealing.shuffle import ShuffleProof, prove_shuffle, random_permutation, verify_shuffle
from netcode.dealing.transcript import Context
from xmas_tui.games import GAMES, Rng
from xmas_tui.games.cards import FaceBook, FaceHidden
from xmas_tui.games.rng import RandomnessNeeded

T = TypeVar("T")
TABLE = "deal-bench"


class BenchFailure(Exception):
    """A check the deal depends on failed: the figures would mean nothing."""


@dataclass
class Clock:
    """Wall and CPU seconds spent in each named step."""

    wall: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)

    def time(self, step: str, fn: Callable[[], T]) -> T:
        w0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        self.wall.setdefault(step, []).append(time.perf_counter() - w0)
        self.cpu.setdefault(step, []).append(time.process_time() - c0)
        return result

    def total(self, step: str) -> float:
        return sum(self.wall.get(step, ()))

    def mean(self, step: str) -> float:
        return statistics.fmean(self.wall[step])


def check(condition: bool, what: str) -> None:
    if not condition:
        raise BenchFailure(what)


# ------------------------------------------------------------------ baselines
def baselines(n_cards: int, repeats: int = 200) -> dict[str, float]:
    k, point = (
        scalar_bytes(random_scalar()),
        rbcl.crypto_scalarmult_ristretto255_base(scalar_bytes(7)),
    )
    w0 = time.perf_counter()
    for _ in range(repeats):
        rbcl.crypto_scalarmult_ristretto255(k, point)
    scalarmult = (time.perf_counter() - w0) / repeats
    pk = keys.PersonalKey.generate().public
    deck = cards.initial_deck(pk, "bench", [f"c{i}" for i in range(n_cards)])
    w0 = time.perf_counter()
    for ct in deck:
        reencrypt(pk, ct, random_scalar())
    return {
        "scalarmult_us": round(scalarmult * 1e6, 1),
        "reencrypt_deck_ms": round((time.perf_counter() - w0) * 1000, 1),
    }


# ------------------------------------------------------------------ the steps
@dataclass
class Table:
    n: int
    t: int
    personal: list[keys.PersonalKey]
    joint: keys.JointKey
    secrets: list[int]


def run_dkg(n: int, clock: Clock) -> Table:
    t = keys.threshold(n)
    ctx: Context = {"table": TABLE, "purpose": "dkg", "round": 0}
    personal = [keys.PersonalKey.generate() for _ in range(n)]
    publics = [k.public for k in personal]
    dealings = [
        clock.time("dkg-deal", partial(keys.deal, i + 1, personal[i], publics, t, ctx))
        for i in range(n)
    ]

    def one_holder(j: int) -> tuple[keys.JointKey, int]:
        for dealing in dealings:
            keys.check_dealing(dealing, publics, t, ctx)
        shares = {d.dealer: keys.open_share(d, j, personal[j - 1], publics, ctx) for d in dealings}
        joint = keys.joint_key(dealings, n, t)
        return joint, keys.secret_share(joint, j, shares)

    received = [clock.time("dkg-receive", partial(one_holder, j)) for j in range(1, n + 1)]
    return Table(n, t, personal, received[0][0], [secret for _, secret in received])


def reencrypt_and_permute(
    pk: Point, deck: list[Ciphertext]
) -> tuple[list[int], list[int], list[Ciphertext]]:
    """The shuffle itself, without its proof (GenShuffle)."""
    permutation = random_permutation(len(deck))
    randomness = [random_scalar() for _ in deck]
    return permutation, randomness, [reencrypt(pk, deck[j], randomness[j]) for j in permutation]


def run_shuffles(table: Table, deck: list[Ciphertext], clock: Clock, tag: str) -> list[Ciphertext]:
    pk = table.joint.public
    for seat in range(1, table.n + 1):
        ctx: Context = {"table": TABLE, "purpose": f"shuffle {tag}", "round": 1, "seat": seat}
        permutation, randomness, new = clock.time(
            "shuffle", partial(reencrypt_and_permute, pk, deck)
        )
        proof = clock.time(
            "prove", partial(prove_shuffle, pk, deck, new, permutation, randomness, ctx)
        )
        wire = proof.to_wire()
        check(len(wire) == ShuffleProof.wire_bytes(len(deck)), "the proof's size")
        received = ShuffleProof.from_wire(wire, len(deck))
        ok = clock.time("verify", partial(verify_shuffle, pk, deck, new, received, ctx))
        check(ok, f"seat {seat}'s shuffle proof did not verify")
        deck = new
    return deck


def run_openings(table: Table, deck: list[Ciphertext], faces: cards.Faces, clock: Clock) -> None:
    joint, t, secrets = table.joint, table.t, table.secrets
    owner = table.n  # the last holder's seat is dealt card 0
    key = table.personal[owner - 1]
    ct = deck[0]
    ctx: Context = {"table": TABLE, "purpose": "open", "round": 1}
    others = [j for j in range(1, table.n + 1) if j != owner][: t - 1]
    shares = [
        clock.time(
            "open-make", partial(opening.recipient_share, ct, j, secrets[j - 1], key.public, ctx)
        )
        for j in others
    ]
    for share in shares:
        ok = clock.time(
            "open-check", partial(opening.verify_recipient_share, ct, share, joint, key.public, ctx)
        )
        check(ok, f"holder {share.holder}'s share for the owner did not verify")
    own = (owner, secrets[owner - 1])  # the owner is a holder: its own share counts
    point = clock.time(
        "open-combine",
        partial(opening.combine_private, ct, shares, joint, key, ctx, own=own, checked=True),
    )
    faces.decode(point)  # a ValueError here is a card that opened wrong
    # a public opening of card 1
    ct1 = deck[min(1, len(deck) - 1)]
    ctx1: Context = {"table": TABLE, "purpose": "open", "round": 2}
    public = [
        clock.time("public-make", partial(opening.decryption_share, ct1, j, secrets[j - 1], ctx1))
        for j in range(1, t + 1)
    ]
    for decryption in public:
        ok = clock.time(
            "public-check", partial(opening.verify_decryption_share, ct1, decryption, joint, ctx1)
        )
        check(ok, f"holder {decryption.holder}'s decryption share did not verify")
    faces.decode(
        clock.time(
            "public-combine",
            partial(opening.combine_public, ct1, public, joint, ctx1, checked=True),
        )
    )
    # one beacon value
    beacons = [
        clock.time("beacon-make", partial(beacon.beacon_share, TABLE, 1, j, secrets[j - 1]))
        for j in range(1, t + 1)
    ]
    for value_share in beacons:
        ok = clock.time(
            "beacon-check", partial(beacon.verify_beacon_share, TABLE, 1, value_share, joint)
        )
        check(ok, f"holder {value_share.holder}'s beacon share did not verify")
    clock.time(
        "beacon-combine", partial(beacon.combine_beacon, TABLE, 1, beacons, joint, checked=True)
    )


def figures(clock: Clock, n: int) -> dict[str, float]:
    """The reported figures from one table's clock."""
    shuffle_s = clock.total("shuffle") / n
    prove_s = clock.total("prove") / n
    verify_s = clock.total("verify") / n
    made_and_proved = clock.total("shuffle") + clock.total("prove")
    open_card = clock.total("open-make") + clock.total("open-check") + clock.total("open-combine")
    return {
        "dkg_s": round(statistics.fmean(clock.wall["dkg-deal"]) + clock.mean("dkg-receive"), 3),
        "shuffle_s": round(shuffle_s, 3),
        "prove_s": round(prove_s, 3),
        "verify_s": round(verify_s, 3),
        "shuffle_total_s": round(made_and_proved + clock.total("verify"), 3),
        "shuffle_total_cpu_s": round(
            sum(clock.cpu["shuffle"]) + sum(clock.cpu["prove"]) + sum(clock.cpu["verify"]), 3
        ),
        "all_peers_cpu_s": round(
            sum(clock.cpu["shuffle"])
            + sum(clock.cpu["prove"])
            + (n - 1) * sum(clock.cpu["verify"]),
            3,
        ),
        "open_card_ms": round(open_card * 1000, 1),
        "open_card_all_peers_cpu_ms": round(
            (
                sum(clock.cpu["open-make"])
                + n * sum(clock.cpu.get("open-check", ()))
                + sum(clock.cpu["open-combine"])
            )
            * 1000,
            1,
        ),
        "open_public_ms": round(
            (
                clock.total("public-make")
                + clock.total("public-check")
                + clock.total("public-combine")
            )
            * 1000,
            1,
        ),
        "beacon_ms": round(
            (
                clock.total("beacon-make")
                + clock.total("beacon-check")
                + clock.total("beacon-combine")
            )
            * 1000,
            1,
        ),
        "cpu_over_wall": round(
            sum(sum(v) for v in clock.cpu.values())
            / max(sum(sum(v) for v in clock.wall.values()), 1e-9),
            2,
        ),
    }


def bench_table(n: int, decks: dict[str, list[str]], game: str) -> dict[str, Any]:
    clock = Clock()
    table = run_dkg(n, clock)
    last: tuple[list[Ciphertext], cards.Faces] | None = None
    for zone, faces in decks.items():
        deck = cards.initial_deck(table.joint.public, game, faces)
        known = cards.Faces(game, faces)
        shuffled = run_shuffles(table, deck, clock, zone)
        if last is None or len(shuffled) > len(last[0]):
            last = (shuffled, known)
    assert last is not None
    run_openings(table, last[0], last[1], clock)
    size = sum(len(f) for f in decks.values())
    return {
        "players": n,
        "threshold": table.t,
        "cards": size,
        **figures(clock, n),
        "proof_bytes": sum(ShuffleProof.wire_bytes(len(f)) for f in decks.values()),
        "deck_bytes": 64 * size,
    }


# ------------------------------------------------------------ the games' decks
def game_decks(game_id: str) -> tuple[int, dict[str, list[str]]]:
    """The largest table of a game, and its hidden decks at the start (zone → faces)."""
    game = GAMES[game_id]
    players = [f"P{i + 1}" for i in range(game.max_players)]
    book = FaceBook()  # set up as at a no-peek table: the book names every hidden deck
    with contextlib.suppress(FaceHidden, RandomnessNeeded):  # it reads what it dealt: done
        game.setup({}, players, Rng(b"deal-bench", book))
    decks: dict[str, list[str]] = {}
    for first, faces in sorted(book.decks.items()):
        decks.setdefault(book.deck_zones[first], []).extend(faces)
    return game.max_players, decks


# ---------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.deal_bench")
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--cards", type=int, default=100)
    parser.add_argument("--no-games", action="store_true", help="only the main case")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.players <= 64 or not 1 <= args.cards <= 4096:
        print("xmas-tui: --players is 1-64 and --cards 1-4096", file=sys.stderr)
        return 2
    try:
        base = baselines(args.cards)
        main_case = bench_table(
            args.players, {"deck": [f"card {i}" for i in range(args.cards)]}, "deal-bench"
        )
        games = []
        if not args.no_games:
            for game_id in sorted(GAMES):
                players, decks = game_decks(game_id)
                entry = bench_table(players, decks, game_id)
                games.append(
                    {"game": game_id, "decks": {z: len(f) for z, f in decks.items()}, **entry}
                )
    except (BenchFailure, ValueError) as exc:
        print(f"xmas-tui: deal-bench: {exc}", file=sys.stderr)
        return 1
    report(main_case, base, games)
    if args.json:
        print(
            json.dumps(
                {
                    **main_case,
                    **base,
                    "goals": {"shuffle_total_s": 3.0, "open_card_ms": 50.0},
                    "games": games,
                }
            )
        )
    return 0


def report(main_case: dict[str, Any], base: dict[str, float], games: list[dict[str, Any]]) -> None:
    print(
        f"baseline: one rbcl scalar multiplication {base['scalarmult_us']} µs; "
        f"re-encrypting {main_case['cards']} cards without proof {base['reencrypt_deck_ms']} ms"
    )
    columns = (
        ("shuffle_s", "shuffle s"),
        ("prove_s", "prove s"),
        ("verify_s", "verify s"),
        ("shuffle_total_s", "total s"),
        ("all_peers_cpu_s", "all cpu s"),
        ("open_card_ms", "open ms"),
        ("open_public_ms", "public ms"),
        ("beacon_ms", "beacon ms"),
        ("dkg_s", "dkg s"),
    )
    header = f"{'table':<18} {'n':>2} {'t':>2} {'cards':>5} " + " ".join(
        f"{h:>10}" for _, h in columns
    )
    print(header)
    rows = [("main case", main_case)] + [(g["game"], g) for g in games]
    for name, row in rows:
        print(
            f"{name:<18} {row['players']:>2} {row['threshold']:>2} {row['cards']:>5} "
            + " ".join(f"{row[key]:>10}" for key, _ in columns)
        )
    print(
        f"goals for {main_case['players']} players, {main_case['cards']} cards: "
        f"shuffle_total_s {main_case['shuffle_total_s']} (≤ 3), "
        f"open_card_ms {main_case['open_card_ms']} (≤ 50); "
        f"proof {main_case['proof_bytes']} bytes beside a {main_case['deck_bytes']}-byte deck; "
        f"cpu/wall {main_case['cpu_over_wall']} (below 1: the machine was shared)"
    )


if __name__ == "__main__":
    sys.exit(main())
