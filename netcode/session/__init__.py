"""Table sessions: the logic of a table, as state machines with no I/O and no clock.

Owns nothing itself; its modules own, in order: ``messages`` (every message a
host and a seat exchange, declared once and decoded strictly), ``seats`` (the
seats and the roster), ``host`` (the host's session: seating, the deal, the
rules, every deadline), ``seat`` (a player's session: my view, my checks) and
``node`` (a host with the seats on its own machine, linked in memory).

A session is driven by ``receive(…, now)``, ``tick(now)`` when
``next_deadline()`` comes, and its owner's commands, and returns the messages
to send and the events for the application, as aioquic's connection does. The
asyncio shell (``netcode.runners``) feeds them real time over real sockets; the
simulator feeds them virtual time over an in-memory network, so a whole table
runs deterministically in a test.

Must not touch: sockets, clocks, asyncio, randomness, games.
"""
