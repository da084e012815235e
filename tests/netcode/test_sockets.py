"""Real sockets on loopback: two endpoints over asyncio-dgram, directly and
through the fault proxy, and a door flooded from many loopback addresses.
Nothing here sends anywhere but 127.0.0.0/8 or ::1."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from netcode_helpers import TABLE

from netcode.aio import AioEndpoint
from netcode.channel import Config, Delivered, Endpoint, PeerGone
from netcode.simulator.faults import LinkFaults
from netcode.tools.faultproxy import FaultProxy, require_loopback
from netcode.tools.flood import Flood


async def until(condition, timeout: float = 10.0) -> None:  # noqa: ANN001
    """Poll `condition` under a deadline (no bare sleeps in tests)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.005)


async def echo_server(code: str, host: str = "127.0.0.1") -> AioEndpoint:
    server: AioEndpoint

    def on_event(event) -> None:  # noqa: ANN001
        if isinstance(event, Delivered):
            server.send_reliable_nowait(event.peer, event.payload)

    server = await AioEndpoint.bind(Endpoint(code, TABLE, 2), (host, 0), on_event=on_event)
    return server


async def round_trips(client: AioEndpoint, target, messages: list) -> list:  # noqa: ANN001
    await client.connect(2, target)
    for message in messages:
        await client.send_reliable(2, message)
    echoed = []
    while len(echoed) < len(messages):
        event = await asyncio.wait_for(client.next_event(), timeout=10)
        if isinstance(event, Delivered):
            echoed.append(event.payload)
    return echoed


async def test_two_endpoints_talk_over_loopback(code: str) -> None:
    server = await echo_server(code)
    client = await AioEndpoint.bind(Endpoint(code, TABLE, 1))
    try:
        messages = [{"turn": i, "card": b"\x07" * i} for i in range(40)] + [b"x" * 5000]
        assert await round_trips(client, server.address, messages) == messages
        assert client.endpoint.peers[2].srtt is not None
    finally:
        await client.close()
        await server.close()


async def test_through_the_fault_proxy_nothing_is_lost_doubled_or_reordered(code: str) -> None:
    server = await echo_server(code)
    faults = LinkFaults(loss=0.15, delay=0.004, jitter=0.003, duplicate=0.15, reorder=0.1)
    async with FaultProxy(server.address, faults, seed=4) as proxy:
        client = await AioEndpoint.bind(Endpoint(code, TABLE, 1))
        try:
            messages = list(range(150)) + [b"y" * 4000]
            assert await round_trips(client, proxy.address, messages) == messages
            assert proxy.stats["up_lost"] > 0 and proxy.stats["up_duplicated"] > 0
            assert client.endpoint.drops["replay"] + server.endpoint.drops["replay"] > 0
        finally:
            await client.close()
            await server.close()


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6")
async def test_ipv6_loopback_works_too(code: str) -> None:
    try:
        server = await echo_server(code, "::1")
    except OSError:
        pytest.skip("::1 is not configured")
    client = await AioEndpoint.bind(Endpoint(code, TABLE, 1), ("::1", 0))
    try:
        assert await round_trips(client, server.address, ["noel"]) == ["noel"]
    finally:
        await client.close()
        await server.close()


async def test_a_closed_peer_says_goodbye_and_a_dead_one_is_noticed(code: str) -> None:
    server = await echo_server(code)
    left = await AioEndpoint.bind(Endpoint(code, TABLE, 1))
    stays = await AioEndpoint.bind(Endpoint(code, TABLE, 3))
    seen: list = []
    server.on_event = seen.append
    try:
        await left.connect(2, server.address)
        await stays.connect(2, server.address)
        await until(lambda: {1, 3} <= set(server.endpoint.peers))
        await left.close()
        await until(lambda: any(isinstance(e, PeerGone) and e.peer == 1 for e in seen))
        assert [e.reason for e in seen if isinstance(e, PeerGone)] == ["closed"]
        # now the server vanishes without a word: 'stays' must notice within a second
        server.abort()
        started = time.monotonic()
        gone = []
        while not gone:
            event = await asyncio.wait_for(stays.next_event(), timeout=2)
            if isinstance(event, PeerGone):
                gone.append(event)
        assert gone[0].reason == "silent"
        assert time.monotonic() - started < 1.0
    finally:
        await stays.close()


async def test_garbage_on_the_socket_is_counted_and_harmless(code: str) -> None:
    server = await echo_server(code)
    client = await AioEndpoint.bind(Endpoint(code, TABLE, 1))
    noise = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for i in range(200):
            noise.sendto(bytes([i % 256]) * (i * 7 % 1400 + 1), server.address)
            if i % 20 == 0:
                await asyncio.sleep(0.001)
        assert await round_trips(client, server.address, ["still fine"]) == ["still fine"]
        await until(lambda: sum(server.endpoint.drops.values()) >= 200)
        # refused by size, by the type byte, or as addressed to nobody here
        assert set(server.endpoint.drops) <= {
            "truncated", "oversized", "version", "malformed", "not_for_us", "unknown_peer",
        }  # fmt: skip
    finally:
        noise.close()
        await client.close()
        await server.close()


async def test_a_flood_is_taken_as_it_arrives_and_nothing_queues_up(code: str) -> None:
    """Datagrams go straight from the socket to the endpoint: no receive queue can grow.

    What the loop has not read yet waits in the kernel's socket buffer, which is
    bounded (a flood beyond it is dropped by the kernel, unseen)."""
    server = await echo_server(code)
    client = await AioEndpoint.bind(Endpoint(code, TABLE, 1))
    noise = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for i in range(2000):
            noise.sendto(b"\x00" * 40, server.address)
            if i % 100 == 99:
                await asyncio.sleep(0.001)
                assert server._stream._recvq.qsize() == 0
        await until(lambda: sum(server.endpoint.drops.values()) >= 200)
        assert server._stream._recvq.qsize() == 0
        assert set(server.endpoint.drops) == {"version"}  # no datagram of ours starts with 0
        assert await round_trips(client, server.address, ["still fine"]) == ["still fine"]
    finally:
        noise.close()
        await client.close()
        await server.close()


async def test_the_event_queue_is_bounded_and_nothing_is_lost(code: str) -> None:
    server = await AioEndpoint.bind(Endpoint(code, TABLE, 2, Config(max_events=16)), max_events=4)
    client = await AioEndpoint.bind(Endpoint(code, TABLE, 1))
    try:
        await client.connect(2, server.address)
        for i in range(100):
            await client.send_reliable(2, i)
        await until(lambda: server._events.full())
        await asyncio.sleep(0.1)
        assert server._events.qsize() == 4
        got = []
        while len(got) < 100:
            event = await asyncio.wait_for(server.next_event(), timeout=10)
            if isinstance(event, Delivered):
                got.append(event.payload)
        assert got == list(range(100))
    finally:
        await client.close()
        await server.close()


def test_the_fault_proxy_refuses_anything_but_loopback() -> None:
    # Documentation-only addresses (RFC 5737): refused before anything could be sent.
    for address in [("192.0.2.20", 9), ("198.51.100.1", 9), ("203.0.113.255", 9), ("localhost", 9)]:
        with pytest.raises(ValueError):
            require_loopback(address)
        with pytest.raises(ValueError):
            FaultProxy(address, LinkFaults())
    assert require_loopback(("127.0.0.1", 9)) == ("127.0.0.1", 9)
    assert require_loopback(("::1", 9)) == ("::1", 9)


async def test_a_joiner_is_seated_while_a_hundred_forged_addresses_flood_the_door(code: str) -> None:
    """A hundred sockets on 127.0.0.2 to 127.0.0.101 send forged INITs and never answer the
    RETRYs: the door keeps nothing of them, and a joiner with the code is seated."""
    server = await echo_server(code)
    flood = Flood(server.address, 2, sources=100)
    stop = asyncio.Event()
    flooding = asyncio.create_task(flood.run_async(3000.0, stop))
    client = await AioEndpoint.bind(Endpoint(code, TABLE, 1))
    try:
        await until(lambda: server.endpoint.counters["retries_sent"] >= 300)
        assert await round_trips(client, server.address, ["seated"]) == ["seated"]
        assert list(server.endpoint.peers) == [1] and server.endpoint.admission.attempts == {}
        assert server.endpoint.failed_attempts == {}
        assert server.endpoint.counters["handshakes_started"] == 1
        assert server.endpoint.counters["retries_sent"] > 300 and flood.sent > 300
    finally:
        stop.set()
        await flooding
        flood.close()
        await client.close()
        await server.close()
