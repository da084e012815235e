"""What a LAN observer sees of a whole game: nothing readable.

A recording relay (the fault proxy with ``record``) sits on the loopback path
between every seat and the host for a whole game of each of the five games.
Every datagram it saw must be one of the documented layouts: a handshake
datagram (ids and SPAKE2 values only) or a sealed one (type, sender id,
packet number, then ciphertext that opens under exactly one pair's key, one
direction). No face, player name, game id or message key appears anywhere in
the bytes, and no datagram decodes as msgpack: what the seats were sent (the
positive control) does hold those faces, names and keys.
"""

from __future__ import annotations

import msgpack
import pytest

from netcode.channel import SessionKeys
from netcode.envelope import (
    COOKIE,
    HANDSHAKE_TYPES,
    HEADER,
    INIT,
    MIN_INIT,
    SEALED,
    Dropped,
    Opener,
)
from netcode.simulator.faults import LinkFaults
from xmas_tui.games import GAMES

from .netkit import run_table

PLAYERS = 3
#: kinds of the table protocol's messages and keys of its views (visible, were they in clear)
MESSAGE_KEYS = ["hello", "welcome", "lobby", "snap", "verdict", "final", "nonce", "faces",
                "public"]  # fmt: skip
#: shorter needles would turn up in random ciphertext by chance
MIN_NEEDLE = 5


def needles(values: set[str]) -> set[bytes]:
    """Each value as UTF-8 and as a msgpack string, where long enough to mean something."""
    found = set()
    for value in values:
        for form in (value.encode(), msgpack.packb(value)):
            if len(form) >= MIN_NEEDLE:
                found.add(form)
    return found


def every_face(hosted) -> set[str]:  # noqa: ANN001
    cards = hosted.host.rules.state.cards
    return {cards.face(handle) for zone in cards.zones.values() for handle in zone}


def opens_under(data: bytes, keys: list[tuple[bytes, int]]) -> int:
    """How many of the (key, sender) pairs open this sealed datagram."""
    opened = 0
    for key, sender in keys:
        try:
            Opener(key, sender).open(data)
        except Dropped:
            continue
        opened += 1
    return opened


@pytest.mark.parametrize("game_id", sorted(GAMES))
async def test_a_lan_observer_of_a_whole_game_sees_nothing_readable(game_id: str) -> None:
    wire: list[tuple[str, bytes]] = []
    keys: dict[int, SessionKeys] = {}  # the host's keys toward each joined seat, as they appear
    hosts: list = []

    def observe(direction: str, data: bytes) -> None:
        wire.append((direction, data))
        for peer, conn in hosts[0].runner.endpoint.peers.items():
            if conn.keys is not None:
                keys.setdefault(peer, conn.keys)

    joined: list = []
    outputs, host = await run_table(
        game_id, PLAYERS, through_proxy=LinkFaults(), record=hosts.append, bot="random",
        joined_out=joined, keep_received=True, on_datagram=observe,
    )  # fmt: skip
    joiners = PLAYERS - 1  # the host plays the first seat on its own machine
    assert len({o["digest"] for o in outputs}) == 1 and len(keys) == joiners
    host_id = host.runner.endpoint.local_id
    up_keys = [(k.receive, peer) for peer, k in keys.items()]  # seat -> host
    down_keys = [(k.send, host_id) for k in keys.values()]  # host -> seat

    secrets = needles(every_face(host) | {f"Elf {i}" for i in range(1, PLAYERS)} | {game_id})
    secrets |= needles(set(MESSAGE_KEYS))
    # the positive control: the seats were sent these, in the clear inside the channel
    received = b"".join(msgpack.packb(m.to_wire()) for t in joined for m in t.session.received)
    assert sum(n in received for n in secrets) >= 10, "the needles would be found if sent"

    kinds = {"handshake": 0, "sealed": 0}
    for direction, data in wire:
        assert data[0] == SEALED or data[0] in HANDSHAKE_TYPES, data[:1]
        assert not any(n in data for n in secrets), f"{game_id}: a needle in a {direction} datagram"
        with pytest.raises(ValueError):  # no msgpack value, let alone a map
            msgpack.unpackb(data)
        if data[0] == SEALED:
            kinds["sealed"] += 1
            candidates = up_keys if direction == "up" else down_keys
            # everything after the 17 bytes in the clear opens under one key of one pair
            assert opens_under(data, candidates) == 1
            assert opens_under(data, up_keys + down_keys) == 1
            assert len(data) > HEADER
        else:
            kinds["handshake"] += 1
            if data[0] == INIT:  # ids, SPAKE2, the host's cookie (its own MAC) or none, zeros
                assert len(data) >= MIN_INIT and data[50] in (0, COOKIE) and set(data[51 + data[50] :]) == {0}
    assert kinds["handshake"] >= 3 * joiners and kinds["sealed"] > 20  # a whole game went by
