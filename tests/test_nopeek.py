"""The no-peek table (``xmas_tui.tables.nopeek``): whole games where no program holds a
face the rules have not opened to it, and every wrong step stops the table naming its
author.

Issue 29: "A test drives a host session through whole games of every game (in the
simulator) and searches everything the host program holds or receives for any face of
another seat's card before the rules open it. The search finds nothing." And: "a wrong
shuffle, a swapped card, a wrong decryption share, a replayed proof from another round
[...]. Each is caught and its author named."
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netcode.dealing.cards import encode
from netcode.dealing.elgamal import deck_from_wire, deck_to_wire, encrypt, reencrypt
from xmas_tui.games import get_game
from xmas_tui.games.cards import EVERYONE
from xmas_tui.tables.nopeek import OPENINGS, Machine, NoPeekTable, TableStopped

from .nopeekkit import hidden_from, search

#: every game
NO_PEEK_GAMES = ("chip-n-dale", "christmas-carol", "christmas-game", "christmas-tree", "dragons-chickens")


def names(n: int) -> list[str]:
    return ["Noel", "Holly", "Ivy", "Robin", "Jolly", "Star"][:n]


def search_host(table: NoPeekTable) -> list[str]:
    """Everything the host program holds or was sent, searched (see ``nopeekkit.search``)."""
    return search([table.machines[table.host]], table.host)


# ------------------------------------------------------------------ whole games
@pytest.mark.parametrize("game_id", NO_PEEK_GAMES)
def test_a_whole_game_plays_and_every_program_ends_alike(game_id: str) -> None:
    game = get_game(game_id)
    table = NoPeekTable(game, names(3))
    result = table.play()
    assert result is not None, "the game did not end"
    digests = {game.public_digest(p.replica.state) for p in table.programs}
    assert len(digests) == 1, "the programs' public tables differ"
    assert table.figures.shuffles >= 1 and table.figures.openings_public >= 1
    assert not any(p.refused for p in table.programs)


@pytest.mark.parametrize("game_id", NO_PEEK_GAMES)
def test_a_curious_host_finds_no_face_it_was_not_shown(game_id: str) -> None:
    """The search runs after every move of a whole game; it finds nothing."""
    game = get_game(game_id)
    found: list[str] = []
    checked = 0

    def search(table: NoPeekTable) -> None:
        nonlocal checked
        found.extend(search_host(table))
        checked += 1

    table = NoPeekTable(game, names(4 if game.max_players >= 4 else 3), host=1)
    table.play(after=search)
    assert checked > 10
    assert found == []


def test_the_search_finds_a_face_a_host_was_sent() -> None:
    """The search can fail: a host sent enough public shares of a hidden card is caught."""
    table = NoPeekTable(get_game("christmas-carol"), names(3))
    host = table.programs[0]
    handle = table.programs[0].replica.state.cards.zone("bag")[-1]
    other = table.programs[1]
    assert other.ledger is not None
    share = other.ledger.public_share(handle)  # what an honest program would never make
    host.received.append(msgpack.packb(["public", handle, share.to_wire()]))  # as if relayed
    assert search_host(table) == [f"card {handle}: 2 shares that open it"]


@pytest.mark.parametrize("game_id", NO_PEEK_GAMES)
def test_a_host_asking_for_faces_the_rules_hide_gets_nothing(game_id: str) -> None:
    """A host that asks every other program for a share of every card it may not see
    gets none: each program makes shares only for what its own rules open."""
    table = NoPeekTable(get_game(game_id), names(3))
    table.play(max_moves=12)
    host = table.programs[table.host]
    asked = 0
    for handle in hidden_from(host, host.seat):
        if not host.ledger or not host.ledger.has(handle):
            continue
        for other in table.programs[1:]:
            asked += 1
            assert other.public_share(handle) is None
            assert other.private_share(handle, host.seat, host.personal.public) is None
    assert asked > 0
    assert all(len(p.refused) == 2 * sum(1 for h in hidden_from(host, host.seat) if host.ledger and host.ledger.has(h))
               for p in table.programs[1:])


def test_a_peek_opens_to_the_peeker_only() -> None:
    """Chip 'n' Dale: "peek at two different face-down Treasures" — the peeker alone
    learns them; the others learn only that it peeked."""
    game = get_game("chip-n-dale")
    table = NoPeekTable(game, names(3), seed="peek", scripted=True)
    leaks: list[str] = []

    def check(table: NoPeekTable) -> None:
        for peeker in table.programs:
            for handle in peeker.replica.book.private:
                for other in table.programs:
                    if other is peeker or handle in other.replica.book.public:
                        continue
                    if (handle, other.seat) in other.replica._shown:
                        continue  # it peeked at that card itself
                    if handle in other.replica.book.private or other.replica.state.cards._faces.get(handle):
                        leaks.append(f"{other.name} knows card {handle}, peeked at by {peeker.name}")

    table.play(after=check)
    assert table.figures.openings_private >= 2
    assert leaks == []


# ------------------------------------------------------------------ broken steps
def _retamper(kind: str, culprit: int, change: Callable[[list], list]) -> Callable:
    done = False

    def tamper(what: str, author: Machine, data: bytes) -> bytes:
        nonlocal done
        if done or what != kind or author.seat != culprit:
            return data
        done = True
        return msgpack.packb(change(msgpack.unpackb(data, raw=False)), use_bin_type=True)

    return tamper


def _swap_two(parts: list) -> list:
    deck = deck_from_wire(parts[2])
    deck[0], deck[1] = deck[1], deck[0]
    return [*parts[:2], deck_to_wire(deck), parts[3]]


def _stopped(tamper: Callable, game_id: str = "christmas-carol", n: int = 3) -> TableStopped:
    with pytest.raises(TableStopped) as stopped:
        NoPeekTable(get_game(game_id), names(n), tamper=tamper).play()
    return stopped.value


def test_a_wrong_shuffle_is_caught_and_named() -> None:
    stopped = _stopped(_retamper("shuffle", 1, _swap_two))
    assert stopped.culprit == 1
    assert str(stopped) == "Holly's shuffle proof failed: the game stops here"


def test_a_swapped_card_is_caught_and_named() -> None:
    """One card of the shuffled deck replaced by a card of the shuffler's choosing."""

    def swap_card(parts: list) -> list:
        deck = deck_from_wire(parts[2])
        table_key = holder_key[0]
        deck[0] = reencrypt(table_key, encrypt(table_key, encode("christmas-carol", "x"), 1), 5)
        return [*parts[:2], deck_to_wire(deck), parts[3]]

    holder_key: list = []
    game = get_game("christmas-carol")

    def tamper(kind: str, author: Machine, data: bytes) -> bytes:
        if kind == "shuffle" and author.seat == 2 and not holder_key:
            assert author.ledger is not None
            holder_key.append(author.ledger.joint.public)
            return msgpack.packb(swap_card(msgpack.unpackb(data, raw=False)), use_bin_type=True)
        return data

    with pytest.raises(TableStopped) as stopped:
        NoPeekTable(game, names(3), tamper=tamper)
    assert stopped.value.culprit == 2
    assert str(stopped.value) == "Ivy's shuffle proof failed: the game stops here"


def _bad_point(parts: list, index: int) -> list:
    wire = bytearray(parts[index])
    wire[2:34] = encode("christmas-carol", "not a share").encode()
    return [*parts[:index], bytes(wire), *parts[index + 1 :]]


def test_a_wrong_decryption_share_is_caught_and_named() -> None:
    stopped = _stopped(_retamper("public", 1, lambda parts: _bad_point(parts, len(parts) - 1)))
    assert stopped.culprit == 1
    assert str(stopped).startswith("Holly's share opening card ")
    assert str(stopped).endswith(" fails its proof: the game stops here")


def test_a_wrong_share_of_a_public_draw_is_caught_and_named() -> None:
    stopped = _stopped(_retamper("beacon", 0, lambda parts: _bad_point(parts, 2)), "christmas-game")
    assert stopped.culprit == 0
    assert str(stopped).startswith("Noel's share of public draw ")


def test_a_proof_replayed_from_another_round_is_caught_and_named() -> None:
    """Holly's share for the first card she opened, sent again for the next one."""
    kept: list[bytes] = []

    def tamper(kind: str, author: Machine, data: bytes) -> bytes:
        if kind != "public" or author.seat != 1:
            return data
        parts = msgpack.unpackb(data, raw=False)
        if not kept:
            kept.append(parts[-1])
            return data
        return msgpack.packb([*parts[:-1], kept[0]], use_bin_type=True)

    stopped = _stopped(tamper)
    assert stopped.culprit == 1
    assert str(stopped).startswith("Holly's share opening card ")


def test_a_message_that_does_not_parse_stops_the_table_naming_its_author() -> None:
    stopped = _stopped(_retamper("shuffle", 0, lambda parts: [*parts[:2], b"\x01\x02", parts[3]]))
    assert stopped.culprit == 0
    assert str(stopped).startswith("Noel sent a message that does not parse (")


# ------------------------------------------------------------------ claims
def test_christmas_tree_claims_are_asked_and_audited_at_the_end() -> None:
    """A hand is its owner's: the rules ask it (has a set, which card pays) and hold every
    answer to the cards once they are open, at the latest at the end."""
    table = NoPeekTable(get_game("christmas-tree"), names(3), seed="claims", scripted=True)
    assert table.play() is not None
    assert table.figures.claims > 20 and table.figures.openings_private > 10
    assert table.figures.audited


def _claims_of(kind: str, seat: int | None, question: str, change: Callable[[Machine, list], Any]) -> Callable:
    """A tamper that changes the first answer (by ``seat``, or anyone) to a question
    containing ``question``; ``change`` gets the author and the message and returns the
    false answer, or None to let this one pass."""
    lied: list[int] = []

    def tamper(what: str, author: Machine, data: bytes) -> bytes:
        if lied or what != kind or (seat is not None and author.seat != seat):
            return data
        parts = msgpack.unpackb(data, raw=False)
        if question not in parts[4]:
            return data
        false = change(author, parts)
        if false is None:
            return data
        lied.append(author.seat)
        return msgpack.packb([*parts[:5], false], use_bin_type=True)

    tamper.lied = lied  # type: ignore[attr-defined]
    return tamper


def test_a_card_paid_that_is_not_the_kind_claimed_is_caught_on_the_spot() -> None:
    """Pay with "a card from your hand": the card named opens as it is paid."""

    def other_card(author: Machine, parts: list) -> list[int] | None:
        item = parts[4].split()[1]
        book = author.replica.book
        wrong = [h for h in author.replica.state.cards.zone("hand.1") if book.lookup(h) not in (None, item)]
        return [wrong[0]] if wrong else None

    for seed in ("pay-1", "pay-2", "pay-3", "pay-4"):
        tamper = _claims_of("claim", 1, "pays", other_card)
        try:
            NoPeekTable(get_game("christmas-tree"), names(3), seed=seed, scripted=True, tamper=tamper).play()
        except TableStopped as stopped:
            assert stopped.culprit == 1
            assert str(stopped).startswith("Holly said something false of its cards (which ")
            assert str(stopped).endswith("pays): the game stops here")
            return
        assert not tamper.lied, "a lie went unseen"  # type: ignore[attr-defined]
    pytest.fail("no table met a payment to lie about")


def _lying(machine: Machine, question: str, change: Callable[[Any], Any]) -> list[str]:
    """Make ``machine`` answer its first ask containing ``question`` falsely (``change`` of
    the true answer; None: the truth), believing its own lie as a modified program would."""
    told: list[str] = []
    replica = machine.replica
    true_claim = replica.claim

    def claim(key: tuple[int, int]) -> Any:
        value = true_claim(key)
        need = replica.need
        if not told and need is not None and question in need.question:
            false = change(value)
            if false is not None:
                told.append(need.question)
                return false
        return value

    replica.claim = claim  # type: ignore[method-assign]
    return told


def test_a_surprise_hidden_from_is_caught_when_the_hands_open_at_the_end() -> None:
    """"Surprise! All other players must discard half of the cards of that type" — a
    program that discards fewer is found out by the replay at the end."""
    for seed in ("surprise-1", "surprise-2", "surprise-3", "surprise-4", "surprise-5"):
        table = NoPeekTable(get_game("christmas-tree"), names(3), seed=seed, scripted=True)
        told = _lying(table.machines[2], "surprise", lambda dropped: dropped[1:] if dropped else None)
        try:
            table.play()
        except TableStopped as stopped:
            assert told and stopped.culprit == 2
            assert str(stopped) == f"Ivy said something false of its cards ({told[0]}), as the cards opened at the end show: the game stops here"
            return
        assert not told, "a lie went unseen"
    pytest.fail("no table met a surprise to lie about")


# ------------------------------------------------------------------ properties
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_id=st.sampled_from(NO_PEEK_GAMES), n=st.integers(2, 4), seed=st.text(max_size=4))
def test_random_no_peek_games_end_alike_on_every_program(game_id: str, n: int, seed: str) -> None:
    game = get_game(game_id)
    n = max(game.min_players, min(n, game.max_players))
    table = NoPeekTable(game, names(n), seed=seed)
    result = table.play()
    assert result is not None
    assert len({game.public_digest(p.replica.state) for p in table.programs}) == 1
    assert search_host(table) == []


def test_every_game_says_what_it_opens_when() -> None:
    from xmas_tui.games import GAMES

    assert set(OPENINGS) == set(GAMES)
    assert all(EVERYONE == -1 and text.rstrip(")").endswith(".") for text in OPENINGS.values())
    assert all(get_game(g).openings in get_game(g).describe_rules() for g in OPENINGS)


def test_the_readme_says_what_each_game_opens_as_its_help_does() -> None:
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    for game_id in OPENINGS:
        assert get_game(game_id).openings in readme, f"the README's no-peek section is out of date for {game_id}"
