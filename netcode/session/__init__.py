"""Table sessions: the logic of a table, as state machines with no I/O and no clock.

Owns nothing itself; its modules own, in order: ``messages`` (every message a
host and a seat exchange, declared once and decoded strictly), ``seats`` (the
seats and the roster), ``step`` (the one output shape: what one call produced),
``host`` (the host's session, a package with a module per job), ``seat`` (a
player's session: my view, my checks), ``election`` (choosing a new host) and
``peer`` (``TablePeer``: one machine at a table in whichever role it plays, a
host with the seats at its own machine linked in memory, a seat, a watcher, or
electing).

A table peer is driven by its channel's events, its seats' messages, the host's
commands and ``tick(now)`` when ``next_deadline()`` comes, and each call returns one
``Step``: the messages to send, the connections to open and the events for the
application, as aioquic's connection does. One asyncio runner
(``netcode.runners``) feeds it real time over real sockets, whatever its role; one
simulator runner (``netcode.simulator.peer``) feeds it virtual time over an
in-memory network, so a whole table runs deterministically in a test.

Must not touch: sockets, clocks, asyncio, randomness, games.
"""
