"""The simulator: whole networks of sans-IO peers in virtual time, part of the product.

Owns nothing itself; its modules own: ``faults`` (a lossy link's description and the
seeded decisions it makes, shared with the UDP fault proxy in ``netcode.tools``),
``network`` (``SimNetwork``: a virtual clock, an event heap and faulty links between
sans-IO endpoints) and ``peer`` (``SimPeer``: one table peer on it, the asyncio
runner's twin). ``xmas-tui simulate GAME --network`` (``xmas_tui.tables.simulation``)
and the tests run whole tables on it; a seed replays a run exactly.

Must not touch: sockets, real clocks, asyncio, games, or ``netcode.tools`` (the tools
use the simulator, never the other way round).
"""
