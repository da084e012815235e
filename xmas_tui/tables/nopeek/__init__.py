"""No-peek tables: every program runs the rules on what everyone may know, the players
shuffle the encrypted cards together, and a face leaves its ciphertext only as the rules
open it, to everyone or to one seat.

Owns nothing itself; its modules, in the order a table uses them:

* ``replica``: one program's copy of a game on hidden faces, and what each game opens
  when (``OPENINGS``);
* ``machine``: one program at the table, driven only by what its host orders and relays
  (the joint key, the shuffles, the openings, the draws, the answers, the end's audit);
  its parts: ``openings`` (every share it gives and takes), ``choices`` (simultaneous
  choices), ``handing`` (a seat handed on), ``wire`` (its messages' form, ``Stopped``);
* ``seat`` and ``rules``: a player's program and the host's, as their sessions drive them;
* ``table``: a whole table in one process, for tests and the simulator.

Must not touch: sockets, clocks, asyncio, the UI.
"""

from .machine import Machine, Stopped
from .replica import AT_THE_END, OPENINGS, Replica
from .table import Figures, NoPeekTable, TableStopped

__all__ = ["AT_THE_END", "OPENINGS", "Figures", "Machine", "NoPeekTable", "Replica", "Stopped", "TableStopped"]
