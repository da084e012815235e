"""Every message a table session sends, declared once.

Owns: the message kinds between a host and a seat, each with its fields and what each
field may hold (in the grammar of ``netcode.session.wire``, whose ``decode`` reads them
back strictly), which way each may travel (``parse_seat_message``,
``parse_host_message``), and ``VERSION``, the version of this set of messages (a
``Hello`` of another version is refused in words).

Changing a message, or adding one, bumps ``VERSION``.

Must not touch: sockets, clocks, games. A message says nothing of any
particular game: views, actions and results are plain data to it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from netcode.session.seats import SeatState
from netcode.session.wire import (
    MAX_COUNT,
    BadMessage,
    Message,
    blob,
    data,
    declare,
    decode,
    flag,
    items,
    mapping,
    maybe,
    number,
    one_of,
    row,
    text,
    whole,
)

__all__ = ["MAX_COUNT", "BadMessage", "Message", "decode"]  # (the grammar's names the sessions read here too)

#: The version of this set of messages; a peer of another version is refused at ``Hello``.
VERSION = 11
#: Seats at one table.
MAX_SEATS = 64
#: The ids of the programs at a no-peek table (seats, the host's own, watchers') are below this.
MAX_PROGRAM = 1 << 16


SEAT = whole(0, MAX_SEATS - 1)
TERM = whole(1, 1 << 31)
COUNT = whole(0, MAX_COUNT)
SECONDS = number(0.0, 86_400.0)
#: an instant on the host's own clock (monotonic seconds: any origin, never sent as a date)
INSTANT = number(-(2.0**40), 2.0**40)
#: a short span of seconds (a round trip, how long a ping waited to be answered)
SPAN = number(0.0, 60.0)
DIGEST = blob(32)
NAME = text(64)
#: one row of the roster: seat, name, state, ping in ms, seconds left of the hold
ROSTER_ROW = row(SEAT, maybe(NAME), one_of(*(s.value for s in SeatState)), maybe(whole(0, 100_000)), maybe(SECONDS))
#: one entry of the public log: kind, text, seat, structured data
LOG_ENTRY = row(text(64), text(), maybe(SEAT), maybe(mapping))
#: one action of the record of play: the seat, and the action's wire form
ACTION = row(SEAT, data)
#: the host's signature over the record of play: how many actions, their chain, the signature
SIGNED = row(COUNT, DIGEST, blob(64))
#: an Ed25519 signature
SIGNATURE = blob(64)
#: a seat's share of the host's secret: its index and the value there (a scalar's 32 bytes)
SHARE = row(whole(1, 255), blob(32))
#: the commitments every share is checked against (``netcode.shares.Commitments``)
SHARE_COMMITMENTS = items(blob(32), MAX_SEATS)


# -- a seat to its host


@declare("hello", whole(0, 1 << 16), NAME, maybe(DIGEST), maybe(blob(longest=64)), flag, maybe(blob(32)),
         maybe(blob(32)))  # fmt: skip
class Hello(Message):
    """Seat me: my name, the commitment to my nonce (fair play), my rejoin token, whether I
    only want to watch, and my program's personal key and voice (the key its moves and
    messages are signed with) for a no-peek deal (None: I have none; a watcher's program
    has them too, should a seat whose player left be handed to it)."""

    version: int
    name: str
    nonce_commit: bytes | None
    token: bytes | None
    watch: bool
    key: bytes | None = None
    voice: bytes | None = None


@declare("nonce", DIGEST)
class Nonce(Message):
    """My nonce, revealed for the deal."""

    nonce: bytes


@declare("act", COUNT, data, maybe(SEAT), maybe(SIGNATURE))
class Act(Message):
    """Play this action (wire form) for my seat; ``id`` comes back in the ``Verdict``. At a
    no-peek table my program's voice signs it (``Voice.sign_move``), and ``id`` only grows."""

    id: int
    action: Any
    seat: int | None
    signature: bytes | None = None


@declare("here")
class Here(Message):
    """The player is at the keyboard again (after being marked idle)."""


@declare("bye")
class Bye(Message):
    """I am leaving the table."""


@declare("pong", COUNT, SPAN)
class Pong(Message):
    """The answer to ``Ping`` number ``n``, sent as soon as it could be: ``held`` is how long
    it waited here between its arrival and this answer (seconds)."""

    n: int
    held: float


#: the largest message of a no-peek deal (a shuffle of the largest deck, with its proof)
MENTAL_BYTES = 192 * 1024


@declare("mental", blob(longest=MENTAL_BYTES), COUNT, maybe(SIGNATURE))
class Mental(Message):
    """My program's ``n``-th message (from 0) to every other program of a no-peek table (its
    share, shuffle, answer or choice revealed: ``xmas_tui.tables.nopeek``), signed by its
    voice, for the host to relay as it is."""

    data: bytes
    n: int = 0
    signature: bytes | None = None


@declare("press", COUNT, data)
class Press(Message):
    """One input of my seat's real-time round, the moment it is made (wire form): the host
    bounds it, and everyone hears it at once. ``id`` comes back in the ``Verdict``."""

    id: int
    action: Any


# -- a host to a seat


@declare("welcome", maybe(SEAT), text(64), text(128), whole(1, MAX_SEATS), NAME, flag, DIGEST,
         mapping, maybe(SECONDS), maybe(blob(longest=64)), TERM, DIGEST, flag)  # fmt: skip
class Welcome(Message):
    """You are seated (``seat``; None: you watch) at this table; ``token`` gets you back in.
    ``term`` counts the table's hosts (1: its creator); ``host_key`` signs the record of play."""

    seat: int | None
    game: str
    title: str
    seats: int
    host: str
    started: bool
    seed_commit: bytes
    options: dict[Any, Any]
    turn_time: float | None
    token: bytes | None
    term: int
    host_key: bytes
    #: a no-peek table: the players' programs deal and open the cards; the host sees no face
    no_peek: bool = False


@declare("refused", text())
class Refused(Message):
    """You cannot sit at this table, and why (for a person)."""

    why: str


@declare("nonce!")
class NonceTaken(Message):
    """Your nonce is in: it goes into the seed (the host can no longer leave it out unseen)."""


@declare("deal?", SPAN)
class AskNonce(Message):
    """The host deals: reveal your nonce now. It waits ``within`` seconds for every nonce
    (dealing sooner only once all are in: every program checks that it did)."""

    within: float


@declare("lobby", items(ROSTER_ROW, MAX_SEATS))
class Lobby(Message):
    """Who sits where while the table waits for the deal."""

    roster: list[Any]


@declare(
    "snap", maybe(SEAT), items(data), items(SEAT, MAX_SEATS), COUNT, items(LOG_ENTRY), maybe(mapping),
    maybe(mapping), maybe(mapping), maybe(items(ROSTER_ROW, MAX_SEATS)), items(row(COUNT, DIGEST)),
    items(row(COUNT, DIGEST)), items(row(SEAT, SECONDS), MAX_SEATS), COUNT, items(ACTION), maybe(SIGNED),
)
class Snap(Message):
    """My seat's news: legal actions, who acts, the log from ``log_at``, the result, my
    view whole (``view``) or what changed in it (``changes``), the roster if it changed,
    new card commitments, the salts of faces shown to me for the first time, and the
    seconds each seat to act has left (turn timers, race windows)."""

    seat: int | None
    legal: list[Any]
    to_act: list[Any]
    log_at: int
    log: list[Any]
    result: dict[Any, Any] | None
    view: dict[Any, Any] | None
    changes: dict[Any, Any] | None
    roster: list[Any] | None
    commits: list[Any]
    openings: list[Any]
    clocks: list[Any]
    #: the record of play: its actions from ``actions_at`` (an action is added once nobody's
    #: choice in it is still sealed), and the host's signature over the record so far
    actions_at: int
    actions: list[Any]
    signed: list[Any] | None


@declare("dealt", items(maybe(DIGEST), MAX_SEATS), items(maybe(DIGEST), MAX_SEATS), items(text(), MAX_SEATS),
         maybe(SHARE), whole(0, MAX_SEATS), SHARE_COMMITMENTS)  # fmt: skip
class Dealt(Message):
    """The deal is done: every seat's nonce and its commitment (the seed needs the host's
    secret too), the notes on seats left out, and my share of the host's secret (None: no
    share), one of ``holders``, so that a new host can take over if this one goes; with the
    commitments every holder's share is checked against (the same for every peer)."""

    nonce_commits: list[Any]
    nonces: list[Any]
    notes: list[Any]
    share: list[Any] | None
    holders: int
    share_commitments: list[Any]


@declare("keyed", text(64), items(NAME, MAX_SEATS), items(SEAT, MAX_SEATS), items(blob(32), MAX_SEATS),
         items(SEAT, MAX_SEATS), items(blob(32), MAX_SEATS), items(maybe(blob(32)), MAX_SEATS))  # fmt: skip
class Keyed(Message):
    """A no-peek deal begins: the table's id for every proof, every seat's name, the seats
    whose programs hold the joint key (in holder order) with their personal keys, for every
    seat the seat of the program that plays it and that program's key, and every seat's
    voice (None: the host's program plays it, a bot)."""

    table: str
    names: list[Any]
    holders: list[Any]
    keys: list[Any]
    runs: list[Any]
    recipients: list[Any]
    voices: list[Any] = dataclasses.field(default_factory=list)


@declare("order", SEAT, data, COUNT, maybe(SIGNATURE), flag, maybe(data))
class Order(Message):
    """The next move of a no-peek table, in order: ``seat`` plays ``action`` (wire form), with
    the ``id`` and signature its program's voice made it with (none for a bot's); ``silent``:
    the rules' silent action of a real-time game, which the host gives a seat that said
    nothing in time (unsigned: every program checks it is just that), with what the host
    heard it press as it went (``heard``: it stands)."""

    seat: int
    action: Any
    id: int = 0
    signature: bytes | None = None
    silent: bool = False
    heard: Any = None


#: the action a seat sends for a simultaneous choice at a no-peek table: ``[SEALED, digest]``
SEALED = "#sealed"


@declare("sealed", SEAT, DIGEST, COUNT, maybe(SIGNATURE), maybe(data), maybe(whole(0, 1 << 31)))
class Sealed(Message):
    """``seat``'s simultaneous choice at a no-peek table, as its digest only (revealed once
    every seat to choose has sent one), signed as an ``Order`` is. In a real-time round, the
    host's own measure goes with it (outside the signature): what it heard the seat press as
    it went (``heard``) and the least reaction time it can believe of the rest (``bound``,
    ms); every program merges the choice with them as it opens, by the game's rules."""

    seat: int
    digest: bytes
    id: int = 0
    signature: bytes | None = None
    heard: Any = None
    bound: int | None = None


@declare("relay", SEAT, blob(longest=MENTAL_BYTES), COUNT, maybe(SIGNATURE))
class Relay(Message):
    """The program of ``author``'s seat says ``data`` to every program (a no-peek deal): its
    ``n``-th message, as its voice signed it (the host's own program's: unsigned)."""

    author: int
    data: bytes
    n: int = 0
    signature: bytes | None = None


@declare("catch-up", COUNT)
class CatchUp(Message):
    """A no-peek deal under way: the next ``count`` messages are all of it so far, in the order
    every program had them, the ones my own program said among them (a watcher come late, or
    a player back with the program's keys kept): my program takes them as they were, says
    nothing of its own until the last, and then gives whatever it still owes."""

    count: int


@declare("seat-taken", SEAT, whole(0, MAX_PROGRAM), blob(32), maybe(blob(32)), SPAN)
class SeatTaken(Message):
    """A no-peek seat whose player's program left is played by another program from here on
    (its bot): ``program`` is the host's own (one past the last seat, no ``voice``: it speaks
    as the host) or a watcher's (a later id, with its voice), whose personal key is ``key``;
    its bot moves every ``pace`` seconds. Every program opens that seat's cards to it again,
    and passes the gone program's key share over (``Machine.hand``). Its place among the
    orders and relays is the same on every program."""

    seat: int
    program: int
    key: bytes
    voice: bytes | None = None
    pace: float = 0.0


@declare("verdict", COUNT, maybe(text()))
class Verdict(Message):
    """The answer to ``Act`` number ``id``: accepted (``refused`` None), or the rule it breaks."""

    id: int
    refused: str | None


@declare("final", mapping, text(64), mapping, mapping, blob(64))
class Final(Message):
    """The game is over: the public view, its digest, the result, and the fair-play
    record (the secret, the nonces, every action) for every peer's audit, with the host's
    signature over the record and the result (``netcode.fairplay.final_message``)."""

    public: dict[Any, Any]
    digest: str
    result: dict[Any, Any]
    fair: dict[Any, Any]
    signature: bytes


@declare("ping", COUNT, INSTANT, maybe(row(COUNT, SPAN)))
class Ping(Message):
    """Answer at once: the host times its round trip to you (the bound on race claims).
    ``at`` is when the host sent it, on its own clock; ``echo`` is ``[n, round trip]`` of an
    earlier ping, so that you can tell the host's clock from yours."""

    n: int
    at: float
    echo: list[Any] | None


#: one member of the table, as the host sees it: a player at another machine, their seat,
#: their connection's peer id and the address it comes from (whatever the transport uses)
MEMBER = row(SEAT, whole(0, (1 << 63) - 1), data)


@declare("members", TERM, maybe(SEAT), items(MEMBER, MAX_SEATS))
class Members(Message):
    """Who could take the table over if this host went away: the host's own seat, and every
    player at another machine with their peer id and address (they elect among themselves)."""

    term: int
    host_seat: int | None
    members: list[Any]


@declare("handover", TERM, flag)
class Handover(Message):
    """This host stops hosting the table now (its term ends): elect the next host at once,
    without waiting for its silence. ``deliberate``: its player chose to leave and hand the
    table over; otherwise it lost touch with most players and stepped down."""

    term: int
    deliberate: bool


@declare("ballot", TERM, maybe(SEAT), NAME, maybe(blob(longest=64)), items(ACTION), maybe(SIGNED), TERM,
         maybe(SHARE), flag)  # fmt: skip
class Ballot(Message):
    """To the seat I take for the next host, in ``term``: who I am (my seat and rejoin token,
    or a watcher), the record of play as I have it with the signature that covers it (made in
    ``signed_term``), and my share of the old host's secret."""

    term: int
    seat: int | None
    name: str
    token: bytes | None
    actions: list[Any]
    signed: list[Any] | None
    signed_term: int
    share: list[Any] | None
    watch: bool


@declare("forged", TERM, SEAT, NAME)
class Forged(Message):
    """From the candidate of ``term`` to those who voted for it: the ballot of ``seat``
    (``name``) carried a share of the old host's secret that fails its check, and was refused.
    If no new host can be chosen, everyone's last words name who spoiled it."""

    term: int
    seat: int
    name: str


@declare("missing", TERM, COUNT)
class Missing(Message):
    """From one player's machine to another's, straight, at a no-peek table: my program has
    waited a while for your program's message ``n`` (from 0); send it to me yourself, as a
    ``Relay`` of your own, signed as you sent it to the host (if you sent it a while ago)."""

    term: int
    n: int


@declare("halt", TERM, text())
class Halt(Message):
    """From one player's machine to every other's, straight (not through the host), at a
    no-peek table: my program stopped the game of host ``term`` here, for ``why`` (it caught
    the host passing on what no seat's program said, or waited too long for a message). The
    host cannot hold this back: it does not carry it."""

    term: int
    why: str


@declare("opens", COUNT, INSTANT, SPAN)
class Opens(Message):
    """Real-time round number ``race`` opens at ``at`` on the host's clock: draw its room then
    (the room itself follows; at a no-peek table, my program's shares of it go then). ``lead``:
    how long before ``at`` the host sent this (a program that cannot tell the host's clock yet
    waits that long from its arrival)."""

    race: int
    at: float
    lead: float = 0.0


@declare("shout", COUNT, SEAT, data, whole(0, 1 << 20))
class Shout(Message):
    """In round ``race``, ``seat`` pressed ``shout`` (an input, plain data) ``ms`` after the room
    opened, as the host counts it: heard by everyone at once."""

    race: int
    seat: int
    shout: Any
    ms: int


HOST_TO_SEAT = (Welcome, Refused, AskNonce, NonceTaken, Lobby, Dealt, Members, Handover, Snap, Verdict, Final,
                Ping, Opens, Shout, Keyed, Order, Sealed, Relay, SeatTaken, CatchUp)
SEAT_TO_HOST = (Hello, Ballot, Nonce, Act, Here, Bye, Pong, Press, Mental, Halt)


def parse_seat_message(raw: Any) -> Message:
    """A message a seat may send to its host, or ``BadMessage``."""
    return _parse(raw, SEAT_TO_HOST)


def parse_host_message(raw: Any) -> Message:
    """A message a host may send to a seat, or ``BadMessage``."""
    return _parse(raw, HOST_TO_SEAT)


def _parse(raw: Any, allowed: Sequence[type[Message]]) -> Message:
    message = decode(raw)
    if type(message) not in allowed:
        raise BadMessage("wrong_direction", message.KIND)
    return message
