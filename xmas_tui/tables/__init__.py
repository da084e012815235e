"""Tables: where the UI meets whoever runs the rules.

Owns the ``Table`` seam and every kind of table behind it, each a seat's
session at a table session (``netcode.session``): a game against bots in this
process (``local``), a table hosted on the LAN or joined there (``network``),
unfinished games kept on disk (``kept``), a bot at a seat (``seatbot``) and
headless play (``headless``), our engines behind the host's ``Rules``
protocol (``rules``), and the fair-play audit, the game log and the data
directory (``audit``). The UI imports these facades and nothing of
``netcode``.

Must not touch: Textual.
"""
