"""A seat's part of a no-peek deal: its program, its voice, and what it checks. Sans-IO.

Owns ``NoPeekSeat`` (a part of ``SeatSession``, as the host's jobs are parts of its
session): at a no-peek table, every message of the deal goes to my program
(``MentalProgram``, ``xmas_tui.tables.nopeek``) and what it says goes to the host to relay,
numbered and signed by my program's voice; every move and message the host passes on in a
seat's name is checked against that seat's voice, in order (``netcode.session.voices``): a
forgery stops my game naming the host. A game stopped here (a forgery, a wrong proof, a
wait past ``MENTAL_STALL``) is told to every other player's machine straight (``tell``, a
``Halt``; ``TablePeer`` sends it), and their word stops mine (``halt``). A message waited
for ``MENTAL_ASK`` is asked of its author's machine straight (``asking``, ``Missing``): if it
comes and the host had it a while before, the host held it back. My own cards' faces and
legal moves come from my program (the host does not know them).

Must not touch: sockets, clocks, asyncio, any particular game.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from netcode.fairplay import Voice
from netcode.session.messages import (
    SEALED,
    Act,
    CatchUp,
    Halt,
    Keyed,
    Mental,
    Missing,
    Order,
    Relay,
    Sealed,
    SeatTaken,
    Welcome,
)
from netcode.session.seat_events import Updated
from netcode.session.step import HOST, Step, Work
from netcode.session.voices import Voices


class MentalProgram(Protocol):
    """A player's program at a no-peek table (``xmas_tui.tables.nopeek``), as the seat drives
    it: every message of the deal in, what it says back out (for the host to relay), and
    what it alone knows of its seat: its cards' faces and its legal moves (plain data)."""

    #: its personal key (sent in ``Hello``)
    key: bytes
    #: whether it hands its slow proofs out (``work``) rather than do them as it goes
    offload: bool

    def begin(self, keyed: Keyed, seat: int | None, game: str, options: dict[Any, Any]) -> list[bytes]:
        """The deal begins (``seat`` None: a watcher's program, which only checks)."""
    def order(self, seat: int, action: Any, silent: bool = False, heard: Any = None) -> list[bytes]:
        """The host orders ``seat``'s move (``silent``: the silent action of a real-time game,
        given a seat that said nothing in time, with what was ``heard`` of it)."""
    def sealed(self, seat: int, digest: bytes, heard: Any = None, bound: int | None = None) -> list[bytes]:
        """The host orders ``seat``'s simultaneous choice as its digest (in a real-time round,
        with what it heard of it and the bound on the rest)."""
    def room(self) -> tuple[int, bool]:
        """A real-time game: the rooms begun so far, and whether my shares of the last one wait
        for its instant."""
    def release_room(self) -> list[bytes]:
        """The room's instant has come: my shares of it, to send."""
    def replay(self) -> None:
        """The deal so far comes next (``CatchUp``), my own messages among them: take them as
        they were, and say nothing until ``caught_up``."""
    def caught_up(self) -> list[bytes]:
        """The deal so far is in: what it still owes, to send."""
    def in_deal(self) -> bool:
        """Whether it has taken part in a deal already."""
    def take(self, author: int, data: bytes) -> list[bytes]: ...
    def hand(self, seat: int, program: int, key: bytes) -> list[bytes]:
        """``seat`` is played by ``program`` (key ``key``) from now on (mine, if ``key`` is)."""
    def runs(self) -> list[int]:
        """The seats its bots play (a watcher's program that was handed seats)."""
    def choose(self, seat: int) -> Any:
        """Its bot's move for ``seat`` now (wire form)."""
    def moves(self) -> int:
        """Moves made so far (its bots move once each time it is their turn)."""
    def view(self, seat: int) -> dict[Any, Any] | None:
        """``seat``'s whole view as this program has it (its own cards' faces too: the host does
        not know them); None before the deal."""
    def legal(self, seat: int) -> list[Any]:
        """``seat``'s legal moves now (wire forms); none while a move is being made."""
    def outgoing(self, seat: int, action: Any) -> Any:
        """What to send for ``action``: itself, or a simultaneous choice's digest."""
    def stopped(self) -> str | None: ...
    def busy(self) -> bool:
        """Whether it waits for another program's message."""
    def waiting_for(self) -> list[str]:
        """Whose programs it waits for, by name."""
    def work(self) -> list[Work]:
        """The slow work it has handed out since last asked (``offload``)."""
    def worked(self, work: Work, result: Any) -> list[bytes] | None:
        """``work``'s result, if it is this program's: what it says then (else None)."""


#: seconds my program may wait for another's message of a no-peek deal before my screen
#: names whom it waits for (a share needs a moment; a program or a host holding one back, more)
MENTAL_STALL = 20.0
#: seconds my program waits for another's message before it asks that program's machine for
#: it straight (``Missing``); and how long ago a message must have gone to the host for its
#: author to answer so (one sent just now may still be on its way through the host)
MENTAL_ASK = 6.0
SENT_A_WHILE_AGO = 2.0


class NoPeekSeat:
    """The no-peek part of a ``SeatSession`` (see the module's docstring)."""

    if TYPE_CHECKING:  # (the session's own, read here)
        welcome: Welcome | None
        alarm: str | None
        final: Any
        result: dict[Any, Any] | None
        view: dict[Any, Any] | None
        legal: list[Any]
        to_act: list[int]
        drops: Counter[str]
        index: int
        _ids: Iterator[int]

        @property
        def seat(self) -> int | None: ...
        @property
        def term(self) -> int: ...
        @property
        def the_host(self) -> str: ...
        @property
        def no_peek(self) -> bool: ...
        def _alarm(self, alarms: list[str], *, keep: bool = False) -> None: ...
        def act(self, action: Any, seat: int | None = None) -> Act: ...

    def _init_no_peek(self, mental: MentalProgram | None, voice: Voice | None = None) -> None:
        self.mental = mental
        #: my program hands its slow proofs out in the steps (``Step.work``), for whoever runs
        #: this session to do off its loop (the asyncio runner sets it)
        self.offload = False
        #: my program's voice at a no-peek table (it signs my moves and its messages; kept on
        #: this machine with the program's key, to take the seat back), and every seat's, once
        #: the deal begins, with what each has said
        self.voice = (voice or Voice()) if mental is not None else None
        self.voices: Voices | None = None
        self._sayings = itertools.count()
        #: why my game stopped here at a no-peek table (the host passed on what no seat's program
        #: said, or a message never came), and the word to send every other player's machine
        #: straight (once, by ``TablePeer``)
        self.halted: str | None = None
        self.tell: Halt | None = None
        #: my program's messages as sent (when, and what), and, when it has waited a while, the
        #: messages to ask other machines for straight: ``(seat, n)`` (sent by ``TablePeer``)
        self._said: list[tuple[float, Mental]] = []
        self.asking: list[tuple[int, int]] = []
        self._asked_straight = False
        #: since when my program waits for another's message of a no-peek deal
        self._mental_since: float | None = None
        #: a watcher's program handed seats whose players left: its id among the programs, the
        #: pace of its bots, since when they could move, and the move each last moved at
        self.program_id: int | None = None
        self.bot_pace = 0.0
        self._bots_since: float | None = None
        self._bots_moved: dict[int, int] = {}
        #: a real-time game: each room's instant (my clock), by its round's number (``Opens``):
        #: my program's shares of a room wait for it, so no program can open the room sooner
        self._room_opens: dict[int, float] = {}
        #: the deal so far, coming (``CatchUp``): how many messages of it are still to come, and
        #: whether my program takes them (else it has them already: they are passed over)
        self._replay_left = 0
        self._replay_skip = False

    def _mental(self, message: Keyed | Order | Sealed | Relay | SeatTaken, out: Step, now: float) -> None:
        """A message of the no-peek deal: to my program; what it says, to the host to relay."""
        program, seat = self.mental, self.seat
        if program is None or not self.no_peek or self.welcome is None:
            self.drops["unasked_mental"] += 1
            return
        if self.halted is not None:  # (the game stopped here)
            return
        if self._replay_left and self._replay_skip:  # (the deal so far, which my program has)
            self._replay_left -= 1
            return
        program.offload = self.offload
        if isinstance(message, Keyed):
            self._keyed(message, seat, out)
            if self.halted is not None:
                return
            said = program.begin(message, seat, self.welcome.game, dict(self.welcome.options))
        elif isinstance(message, SeatTaken):
            again = message.program == message.seat  # (its player's program started again: the same seat)
            if message.seat == seat and not again:  # (my program is here: it says so to every machine)
                self._halt(f"{self.the_host} handed my seat to its own program while I am here: the game stops "
                           "here", out, cheat=True)
                return
            if self.voices is not None and not again:
                self.voices.hand(message.seat, message.program, message.voice)
            if seat is None and message.voice is not None and self.voice is not None \
                    and message.voice == self.voice.public:  # (a watcher: my program plays it now)
                self.program_id, self.bot_pace = message.program, message.pace
            said = program.hand(message.seat, message.program, message.key)
        elif (wrong := self._unvoiced(message)) is not None:
            self._halt(f"{self.the_host} passed on {wrong}: the game stops here", out, cheat=True)
            return
        elif isinstance(message, Order):
            said = program.order(message.seat, message.action, message.silent, message.heard)
        elif isinstance(message, Sealed):
            said = program.sealed(message.seat, message.digest, message.heard, message.bound)
        else:
            said = program.take(message.author, message.data)
        said += self._room_due(now)
        if self._replay_left:
            said += self._replayed(message, now)
        self._said_then(said, out, now)

    def worked(self, work: Work, result: Any, now: float) -> Step | None:
        """The result of slow work my program handed out (``Step.work``), if it is its own."""
        program = self.mental
        said = program.worked(work, result) if program is not None and self.halted is None else None
        if said is None:
            return None
        out = Step()
        self._said_then(said + self._room_due(now), out, now)
        return out

    def _said_then(self, said: list[bytes], out: Step, now: float) -> None:
        """What my program said (to the host, to relay), and what follows from where it is now."""
        program = self.mental
        assert program is not None
        self._say(said, out, now)
        self._mine_in_view()
        self._bots_wake(now)
        stopped = program.stopped()
        if stopped is not None and self.halted is None:  # (a wrong message: every machine hears it from mine)
            self._halt(stopped, out)
        if not program.busy():
            self._mental_since = None
        elif self._mental_since is None or said:  # (waiting afresh, or it answered: the clock restarts)
            self._mental_since, self._asked_straight = now, False
        out.seats.append((self.index, Updated()))

    def catch_up(self, message: CatchUp) -> None:
        """The next ``count`` messages are the deal so far (a watcher come late, or my program
        started again with its keys kept): my program takes them as they were, my own among
        them (one already in the deal passes them over)."""
        program = self.mental
        if program is None or not self.no_peek or self.halted is not None:
            self.drops["unasked_mental"] += 1
            return
        self._replay_left, self._replay_skip = message.count, program.in_deal()
        if not self._replay_skip:
            program.replay()

    def _replayed(self, message: Keyed | Order | Sealed | Relay | SeatTaken, now: float) -> list[bytes]:
        """One message of the deal so far taken: my own program's messages and moves in it set
        where my counts go on from; after the last, my program gives what it still owes."""
        mine = self.seat if self.seat is not None else self.program_id
        if isinstance(message, Relay) and message.author == mine:
            self._sayings = itertools.count(message.n + 1)
            self._said.append((now, Mental(message.data, message.n, message.signature)))
        elif isinstance(message, (Order, Sealed)) and message.seat == self.seat and message.id:
            self._ids = itertools.count(message.id + 1)
        self._replay_left -= 1
        if self._replay_left or self.mental is None:
            return []
        return self.mental.caught_up()

    def _keyed(self, keyed: Keyed, seat: int | None, out: Step) -> None:
        """Every seat's voice, from the deal's start; my own must be mine."""
        voices = list(keyed.voices) + [None] * (len(keyed.names) - len(keyed.voices))
        self.voices = Voices(keyed.table, voices[: len(keyed.names)], [str(n) for n in keyed.names])
        if seat is not None and self.voice is not None and self.voices.voice(seat) != self.voice.public:
            self._halt(f"{self.the_host} named another voice for my seat: it could speak in my name", out,
                       cheat=True)

    def _unvoiced(self, message: Order | Sealed | Relay) -> str | None:
        """What is wrong with a move or message the host passed on in a seat's name (None: it
        is that seat's program's own, in order). A real-time game's silent action is the
        host's own word (my program checks it is just the silent action)."""
        voices = self.voices
        if voices is None:
            return "a move before the deal began"
        if isinstance(message, Order) and message.silent:
            return None
        if isinstance(message, Order):
            return voices.move(message.seat, message.id, message.action, message.signature)
        if isinstance(message, Sealed):
            return voices.move(message.seat, message.id, [SEALED, message.digest], message.signature)
        return voices.saying(message.author, message.n, message.data, message.signature)

    def _halt(self, why: str, out: Step, *, cheat: bool = False) -> None:
        """My game stops here (``cheat``: the host was caught cheating), and every other player's
        machine hears why from mine, straight: the host may have sent what I caught to me alone,
        or held back from them what would have shown it."""
        self.halted = why
        if cheat:
            self._alarm([why], keep=True)
        elif self.alarm is None:
            self.alarm = why
        self.tell = Halt(self.term, why)
        out.seats.append((self.index, Updated()))

    def halt(self, message: Halt, by: str) -> Step:
        """Another player's machine (``by``: its player) says its program stopped the game: mine
        stops too, saying who stopped it and why (my own program may have seen nothing wrong)."""
        out = Step()
        if self.halted is None and message.term == self.term and self.final is None:
            self.halted = f"{by}'s program stopped the game: {message.why}"
            self.alarm = self.halted
            out.seats.append((self.index, Updated()))
        return out

    def _say(self, said: list[bytes], out: Step, now: float) -> bool:
        """My program's messages to the host, each numbered and signed (``_saying``), and the
        slow work it handed out meanwhile (``Step.work``); whether there were any messages."""
        if self.mental is not None:
            out.work += self.mental.work()
        for data in said:
            out.send(HOST, self._saying(data, now))
        return bool(said)

    def _saying(self, data: bytes, now: float) -> Mental:
        """My program's next message, signed by my voice (and kept, should another machine
        ask for it straight)."""
        n = next(self._sayings)
        seat = self.seat if self.seat is not None else self.program_id
        if self.voice is None or self.voices is None or seat is None:
            return Mental(data, n)
        said = Mental(data, n, self.voice.sign_saying(self.voices.table, seat, n, data))
        self._said.append((now, said))
        return said

    def answer_missing(self, message: Missing, now: float) -> Relay | None:
        """Another machine asks for my program's message ``n`` straight: it, as sent to the host,
        if that was a while ago (None: not said yet, or only just)."""
        n, seat = message.n, self.seat
        if seat is None or message.term != self.term or not 0 <= n < len(self._said):
            return None
        sent, said = self._said[n]
        return Relay(seat, said.data, said.n, said.signature) if now - sent >= SENT_A_WHILE_AGO else None

    def straight(self, relay: Relay, sender: int, now: float) -> Step:
        """A program's message that came from its own machine straight, as I asked: if it is the
        one my program waits for, the host held it back (it had it a while ago)."""
        out = Step()
        voices = self.voices
        if self.halted is not None or voices is None or relay.author != sender:
            self.drops["straight_unasked"] += 1
            return out
        due = voices.next_saying.get(sender, 0)
        if relay.n != due or voices.saying(sender, relay.n, relay.data, relay.signature) is not None:
            return out  # (it came through the host meanwhile, or it is not that program's: nothing to say)
        name = voices.names[sender]
        self._halt(f"{self.the_host} held back {name}'s message {relay.n + 1}: {name}'s machine sent it to me "
                   "straight, and had sent it to the host a while before: the game stops here", out, cheat=True)
        return out

    def _ask_for_missing(self, now: float) -> None:
        """My program has waited ``MENTAL_ASK`` for other programs' messages: ask each of their
        machines for its next one straight (the host may be holding it back)."""
        voices, program = self.voices, self.mental
        if voices is None or program is None:
            return
        waited = set(program.waiting_for())
        self.asking = [(seat, voices.next_saying.get(seat, 0)) for seat, name in enumerate(voices.names)
                       if name in waited and voices.voice(seat) is not None and seat != self.seat]

    def stall_deadline(self) -> float | None:
        """When my program will have waited long enough for another's message to ask for it
        straight, or too long (None: it waits for nothing, or that was said already)."""
        if self._mental_since is None or self.alarm is not None or self.final is not None:
            return None
        if not self._asked_straight:
            return self._mental_since + MENTAL_ASK
        return self._mental_since + MENTAL_STALL

    def stalled(self, now: float) -> Step:
        """Time passes: a deal stuck past ``MENTAL_ASK`` asks the machines it waits for
        straight (``asking``); past ``MENTAL_STALL`` it says whom it waits for, in red."""
        out = Step()
        due = self.stall_deadline()
        if due is None or now < due or self.mental is None:
            return out
        if not self._asked_straight:
            self._asked_straight = True
            self._ask_for_missing(now)
            return out
        names = self.mental.waiting_for()
        who = " and ".join(f"{name}'s program" for name in names) if names else "another program"
        self._halt(f"The deal waited {MENTAL_STALL:.0f} s for {who}: it held the table up, or {self.the_host} "
                   "did not pass its message on. The game stops here.", out)
        return out

    # ------------------------------------------------------------ a real-time room
    def room_opens(self, race: int, at: float, out: Step, now: float) -> None:
        """The host says round ``race``'s room opens at ``at`` (my clock): my program's shares
        of it go then, not before."""
        if self.mental is None or not self.no_peek or self.halted is not None:
            return
        self._room_opens = {r: t for r, t in self._room_opens.items() if r >= race - 1}
        self._room_opens[race] = at
        self._say(self._room_due(now), out, now)

    def room_deadline(self) -> float | None:
        """When my program's held shares of a room go out (None: it holds none)."""
        program = self.mental
        if program is None or self.halted is not None:
            return None
        number, holding = program.room()
        return self._room_opens.get(number) if holding else None

    def _room_due(self, now: float) -> list[bytes]:
        due = self.room_deadline()
        if due is None or now < due or self.mental is None:
            return []
        return self.mental.release_room()

    def release_room(self, now: float) -> Step:
        """Time passes: the room's instant has come, my program's shares of it go to the host."""
        out = Step()
        if self._say(self._room_due(now), out, now):
            out.seats.append((self.index, Updated()))
        return out

    # ------------------------------------------------------------ a watcher's bots
    def _bots_to_move(self) -> list[int]:
        """The seats my program's bots may move now (each once per move of the game)."""
        program = self.mental
        if program is None or self.program_id is None or self.halted is not None or self.final is not None:
            return []
        made = program.moves()
        return [s for s in program.runs() if self._bots_moved.get(s) != made and program.legal(s)]

    def bots_deadline(self) -> float | None:
        """When my program's bots move next (None: they have nothing to do)."""
        if self._bots_since is None:
            return None
        return self._bots_since + self.bot_pace

    def play_bots(self, now: float) -> Step:
        """My program's bots move, if it is their time: each an ``Act`` signed by my voice."""
        out = Step()
        due = self.bots_deadline()
        if due is None or now < due or self.mental is None:
            return out
        self._bots_since = None
        made = self.mental.moves()
        for seat in self._bots_to_move():
            self._bots_moved[seat] = made
            out.send(HOST, self.act(self.mental.choose(seat), seat))
        return out

    def _bots_wake(self, now: float) -> None:
        if self._bots_since is None and self._bots_to_move():
            self._bots_since = now

    def _mine_in_view(self) -> None:
        """At a no-peek table: my own cards' faces (the host does not know them) and my legal
        moves come from my program."""
        program, seat = self.mental, self.seat
        if program is None or seat is None or not self.no_peek:
            return
        mine = program.view(seat)
        if mine is not None:
            self.view = mine
        self.legal = program.legal(seat) if self.result is None and seat in self.to_act else []
