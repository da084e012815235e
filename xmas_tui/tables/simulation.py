"""Whole tables in virtual time: every seat's session, bots at every seat, no clock, no socket.

Owns: ``simulate_network`` (``xmas-tui simulate GAME --network``): a host and
every peer, each a table session on its own channel endpoint, over the
seeded lossy in-memory network, bots at every seat taking ``pace`` virtual
seconds per move, spectators watching; optionally a seat that drops and
rejoins, a seat whose player never moves, the host's machine dying, or the
network split in two for a while. It returns the figures and whether every
peer ended with the same public digest and a passing audit.
And ``play_in_memory``: one table whose every seat sits at the host's own
node (no network), with the nonces given, for the fair-play tests.

The same seed gives the same run: table id, secret, nonces and peer ids all
come from it.

Must not touch: Textual, sockets, real clocks (the wall clock is read only to
report how long a run took).

And ``RoomWatch``: at a no-peek table of a real-time game, when each program could first
open each room (its machine held enough shares), against the instant the host named for
it; every clock here is the network's, so the figures are what the protocol allows, free
of any machine's own clock error.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from netcode.channel import Endpoint
from netcode.fairplay import Ledger, Signer, Voice, digest
from netcode.session.host import HostSession, TableSettings
from netcode.session.peer import TablePeer
from netcode.session.seat import SeatSession
from netcode.simulator.faults import CUT, LinkFaults
from netcode.simulator.network import SimNetwork, SimNode
from netcode.simulator.peer import SimPeer
from xmas_tui.games import Game, Rng
from xmas_tui.games.engine import public_digest

from .audit import audit_seat
from .network import INTERMISSION, takeover_host
from .nopeek.rules import rules_factory
from .nopeek.seat import SeatProgram
from .rules import GameRules
from .seatbot import SeatBot

CODE = "SIM-TABLE"
HOST_PEER = 1
#: seconds after a split heals between two looks for players whose game it ended: each
#: finds the table in the lobby and joins again, as a person would
COME_BACK = 2.0


def _bytes(seed: Any, *label: Any) -> bytes:
    return digest("simulation", str(seed), *map(str, label))


def signer_for(seed: Any, host: int = 0) -> Signer:
    """A host's signing key, from the run's seed (so a seed replays every byte)."""
    return Signer(Ed25519PrivateKey.from_private_bytes(_bytes(seed, "signer", host)))


@dataclass(frozen=True)
class Drop:
    """A seat's machine goes away at ``at`` (virtual seconds) and comes back ``back_after`` later
    (None: never); ``kept``: with its no-peek program's keys, as kept on its disk."""

    seat_index: int
    at: float
    back_after: float | None = 5.0
    kept: bool = False


class RoomWatch:
    """When each program at a no-peek table of a real-time game could first open each room."""

    def __init__(self, table: SimTable) -> None:
        self.table = table
        #: program -> the room its machine waits to open
        self._waiting: dict[str, int] = {}
        #: room -> the instant the host named (its clock: the network's), and who knew it when
        self.instants: dict[int, float] = {}
        self.known: dict[int, dict[str, float]] = {}

    def poll(self, now: float) -> None:
        table = self.table
        host = table.current_host
        if host.live.open and host.live.at is not None:
            self.instants.setdefault(host.live.race, host.live.at)
        programs = [(HOST_PROGRAM, getattr(host.rules, "machine", None))]
        programs += [(s.name, s.mental.machine) for s in table.sessions if isinstance(s.mental, SeatProgram)]
        for name, machine in programs:
            if machine is None:
                continue
            if machine.room_waiting:
                self._waiting[name] = machine.rooms
            elif name in self._waiting:
                self.known.setdefault(self._waiting.pop(name), {})[name] = now

    def figures(self) -> dict[str, Any]:
        """How soon after its instant (ms; below 0: before it) each room could be opened: by the
        best-placed program (the earliest of all, and the median room's), by the host's own
        program, and by the players' programs; and how many times any program could before."""
        rooms = [(self.instants[r], known) for r, known in sorted(self.known.items()) if r in self.instants]
        if not rooms:
            return {"rooms": 0}
        best = [min(known.values()) - at for at, known in rooms]
        host = [known[HOST_PROGRAM] - at for at, known in rooms if HOST_PROGRAM in known]
        players = [t - at for at, known in rooms for name, t in known.items() if name != HOST_PROGRAM]

        def ms(seconds: float) -> float:
            return round(seconds * 1000, 1)

        return {
            "rooms": len(rooms),
            "best_earliest_ms": ms(min(best)),
            "best_median_ms": ms(statistics.median(best)),
            "host_program_median_ms": ms(statistics.median(host)) if host else None,
            "players_median_ms": ms(statistics.median(players)) if players else None,
            "players_latest_ms": ms(max(players)) if players else None,
            "before_instant": sum(1 for at, known in rooms for t in known.values() if t < at),
        }


#: the host's own program, among the programs a ``RoomWatch`` follows
HOST_PROGRAM = "the host's program"


class SimTable:
    """A networked table in the simulated network: its host, seats and spectators."""

    def __init__(self, game: Game, players: int, *, spectators: int = 0, faults: LinkFaults | None = None,
                 pace: float = 1.0, seed: int = 1, bot: str = "smart", options: dict | None = None,
                 hold: float = 10.0, turn_time: float | None = None, stalled: Sequence[int] = (),
                 no_peek: bool = False, work_time: float = 0.0) -> None:
        """``stalled``: indices of joined seats (1 …) whose player never moves. ``no_peek``: the
        players' programs deal and open the cards (``xmas_tui.tables.nopeek``); ``work_time``:
        the virtual seconds each of their proofs takes, made or checked (``SimPeer``)."""
        self.work_time = work_time
        self.game, self.seed, self.bot, self.pace = game, seed, bot, pace
        self.table_id = _bytes(seed, "table")[:8]
        self.net = SimNetwork(seed, faults)
        options = dict(options or {})
        self.ledger = Ledger(game.id, self.table_id, _bytes(seed, "secret"), options=options)
        settings = TableSettings(game.id, game.title, players, "Host", options, hold=hold, turn_time=turn_time,
                                 auto_start=True, intermission=INTERMISSION, no_peek=no_peek)
        self.no_peek = no_peek
        self.host = HostSession(settings, rules_factory(game, bot=bot, options=options), self.ledger, signer_for(seed))
        self.hold, self.turn_time, self.options = hold, turn_time, options
        endpoint = Endpoint(CODE, self.table_id, HOST_PEER, max_peers=64)
        first = TablePeer.as_host(self.host, local_id=HOST_PEER, heard=endpoint.last_heard)
        self.host_peer = SimPeer(endpoint, first, self.net.now, work_time=work_time)
        self.host_node = self.net.add("host", self.host_peer)
        me = SeatSession("Host", self.table_id, self.ledger.commitment, game=game.id, nonce=_bytes(seed, "nonce", 0),
                         mental=SeatProgram() if no_peek else None)
        self.host_peer.sit(me, self._bot(0), self.net.now)
        self.sessions: list[SeatSession] = [me]
        self.nodes: dict[int, SimNode] = {}
        self.peers: dict[int, TablePeer] = {}
        #: every host session the table had, the first one's and each new host's
        self.hosts: list[HostSession] = [self.host]
        #: the sessions on machines that went away for good (their games are not compared)
        self.dead: set[int] = set()
        #: the record of play of each peer that goes on, when the host went (none may be lost)
        self.records_then: dict[int, list] = {}
        #: the machines cut off from the rest by a split (0: the host's)
        self.cut: set[int] = set()
        self._generation = 0
        self._healed = False  # a split healed: players whose game it ended come back
        for index in range(1, players):
            self._join(index, f"Elf {index}", player=index not in stalled)
        for index in range(spectators):
            self._join(players + index, f"Watcher {index + 1}", player=False, watch=True)
        #: a no-peek table of a real-time game: when each program could open each room
        self.rooms = RoomWatch(self) if no_peek and game.race_window is not None else None

    def _bot(self, index: int) -> SeatBot:
        return SeatBot(self.game, self.bot, Rng(_bytes(self.seed, "bot", index)), pace=self.pace)

    def _join(self, index: int, name: str, *, player: bool, watch: bool = False, token: bytes | None = None,
              generation: int = 0, kept: SeatSession | None = None) -> SeatSession:
        """``kept``: the session of an earlier sitting whose program's keys were kept (a player
        back with its program started again)."""
        program, voice = SeatProgram() if self.no_peek else None, None
        if self.no_peek and kept is not None and isinstance(kept.mental, SeatProgram) and kept.voice is not None:
            program, voice = SeatProgram.from_kept(kept.mental.kept()), Voice.from_kept(kept.voice.kept())
        session = SeatSession(name, self.table_id, self.ledger.commitment, game=self.game.id, watch=watch,
                              nonce=_bytes(self.seed, "nonce", index), token=token, mental=program, voice=voice)
        local_id = 1000 * (generation + 1) + index
        endpoint = Endpoint(CODE, self.table_id, local_id, accept_unknown=False)
        host_peer, host_address = self._current_host()
        peer = TablePeer.as_seat(session, host_peer, host_address, local_id,
                                 host_for=takeover_host(self.game, self.bot, self.hold),
                                 signer=signer_for(self.seed, 1 + index), heard=endpoint.last_heard)
        self.peers[index] = peer
        sim = SimPeer(endpoint, peer, self.net.now, work_time=self.work_time)
        if player:
            sim.play(0, self._bot(index))
        self.nodes[index] = self.net.add(self._address(index, generation), sim)
        if index < len(self.sessions):
            self.sessions[index] = session
        else:
            self.sessions.append(session)
        return session

    @staticmethod
    def _address(index: int, generation: int) -> str:
        return f"peer {index}.{generation}"

    def _current_host(self) -> tuple[int, str]:
        """The peer id and address of whoever hosts now (the first host, or who took over)."""
        for index, peer in self.peers.items():
            if peer.hosting and peer.local_id is not None:
                return peer.local_id, str(self.nodes[index].address)
        return HOST_PEER, "host"

    def kill_host(self, at: float) -> None:
        """The host's machine goes away for good at ``at`` (virtual seconds): its lid closed."""

        def dead() -> None:
            self.host_node.crash()
            self.dead.add(0)
            self.records_then = {i: list(map(list, s.actions)) for i, s in enumerate(self.sessions) if i != 0}

        self.net.call_at(at, dead)

    def hand_over(self, at: float, leave_after: float = 1.0) -> None:
        """The host's player leaves at ``at``, handing the table over; their machine goes
        ``leave_after`` later (once the handover is out)."""

        def leave() -> None:
            self.host_peer.hand_over(self.net.now)
            self.records_then = {i: list(map(list, s.actions)) for i, s in enumerate(self.sessions) if i != 0}
            self.dead.add(0)
            self.net.call_later(leave_after, self.host_node.crash)

        self.net.call_at(at, leave)

    def split(self, at: float, cut: Sequence[int], heal_after: float) -> None:
        """At ``at`` the machines of ``cut`` (0: the host's) and the others stop hearing each
        other, for ``heal_after`` seconds; then every player whose game the split ended finds
        the table in the lobby and joins again (``COME_BACK`` later), keeping their seat key."""

        def apart() -> None:
            self.cut = set(cut)
            self.records_then = {i: list(map(list, s.actions)) for i, s in enumerate(self.sessions)
                                 if i not in self.cut and i not in self.dead}
            self._links_across(CUT)
            self.net.call_later(heal_after, heal)

        def heal() -> None:
            self._links_across(self.net.default_faults)
            self._healed = True
            self.net.call_later(COME_BACK, come_back)

        def come_back() -> None:
            if self.host.stepped_down and not any(peer.hosting for peer in self.peers.values()):
                self.net.call_later(COME_BACK, come_back)  # still electing: no table in the lobby yet
                return
            gone = [i for i in self._gone() if self.sessions[i].welcome is not None]
            if gone:
                self._generation += 1
            for i in gone:
                session = self.sessions[i]
                self._join(i, session.name, player=not session.watch, watch=session.watch, token=session.token,
                           generation=self._generation, kept=session)  # (its seat file: token and keys)
            if not self.over:
                self.net.call_later(COME_BACK, come_back)

        self.net.call_at(at, apart)

    def _links_across(self, faults: LinkFaults) -> None:
        """Set the faults of every link between the cut machines and the others."""
        addresses = {0: self.host_node.address, **{i: node.address for i, node in self.nodes.items()}}
        for i, a in addresses.items():
            for j, b in addresses.items():
                if i in self.cut and j not in self.cut:
                    self.net.set_faults(a, b, faults)

    @property
    def current_host(self) -> HostSession:
        for peer in self.peers.values():
            if peer.host is not None:
                return peer.host
        return self.host

    def drop(self, drop: Drop) -> None:
        """Schedule a seat's machine going away (and coming back, as the same player)."""

        def away() -> None:
            self.nodes[drop.seat_index].crash()
            if drop.back_after is not None:
                self.net.call_later(drop.back_after, back)
            else:
                self.dead.add(drop.seat_index)

        def back() -> None:
            old = self.sessions[drop.seat_index]
            self._generation += 1
            self._join(drop.seat_index, old.name, player=True, token=old.token, generation=self._generation,
                       kept=old if drop.kept else None)

        self.net.call_at(drop.at, away)

    def _gone(self) -> list[int]:
        """The peers whose game ended without its end (their host gone), still at the table."""
        return [i for i, s in enumerate(self.sessions) if s.final is None and s.gone is not None and i not in self.dead]

    @property
    def over(self) -> bool:
        if self.rooms is not None:  # (asked after every event: when each program could open a room)
            self.rooms.poll(self.net.now)
        if not self.current_host.finished:  # the cheap test first: asked after every event
            return False
        if self.cut and (not self._healed or self._gone()):  # the split heals, and they come back
            return False
        return all(s.final is not None or s.gone is not None for i, s in enumerate(self.sessions) if i not in self.dead)

    def all_hosts(self) -> list[HostSession]:
        return [self.host, *(p.host for p in self.peers.values() if p.host is not None)]

    def run(self, limit: float = 4 * 3600.0) -> bool:
        """Run until every peer has the final message (True) or ``limit`` virtual seconds."""
        return self.net.run(limit, stop=lambda: self.over)

    def figures(self) -> dict:
        """Whether every peer ended alike and passed its audit, and what went over the wire."""
        sessions = [s for i, s in enumerate(self.sessions) if i not in self.dead]
        finals = [s.final for s in sessions]
        digests = {public_digest(f.public) for f in finals if f is not None}
        host = self.current_host
        host_digest = host.rules.digest() if host.rules is not None else None
        audits = [audit_seat(s) for s in sessions if s.final is not None]
        last = next((f for f in finals if f is not None), None)
        final_actions = [list(a) for a in last.fair["actions"]] if last is not None else []
        terms: dict[int, int] = {}
        for each in self.all_hosts():
            if each.acted:
                terms[each.term] = terms.get(each.term, 0) + 1
        return {
            "finished": all(f is not None for f in finals),
            "digests_equal": len(digests) == 1 and digests == {host_digest},
            "audits_ok": len(audits) == len(sessions) and all(a["ok"] for a in audits),
            "failures": [f for a in audits for f in a["failures"]][:5],
            "failovers": max((p.failovers for p in self.peers.values()), default=0),
            "split_brains": sum(1 for count in terms.values() if count > 1),
            "actions_lost": sum(1 for seen in self.records_then.values() if final_actions[: len(seen)] != seen),
            # moves the first host made while cut off, that the table went on without
            "actions_undone": (len(self.host.ledger.actions) - _common(self.host.ledger.actions, final_actions)
                               if self.cut else 0),
            "actions": len(host.ledger.actions),
            "virtual_seconds": round(self.net.now, 3),
            "datagrams": self.net.stats["datagrams_sent"],
            "lost": self.net.stats["datagrams_lost"],
            **({"room_known": self.rooms.figures()} if self.rooms is not None else {}),
        }


def _common(actions: Sequence[Sequence[Any]], final: Sequence[Sequence[Any]]) -> int:
    """How many actions ``actions`` and ``final`` share from the start."""
    n = 0
    for (seat, action), kept in zip(actions, final, strict=False):
        if [seat, action] != list(kept):
            break
        n += 1
    return n


def simulate_network(game: Game, players: int, *, spectators: int = 0, loss: float = 0.0, pace: float = 1.0,
                     seed: int = 1, bot: str = "smart", options: dict | None = None, no_peek: bool = False) -> dict:
    """One whole networked table in virtual time: the figures of ``simulate --network --json``
    (``no_peek``: the players' programs deal)."""
    faults = LinkFaults(loss=loss, delay=0.002, jitter=0.001)
    started = time.perf_counter()
    table = SimTable(game, players, spectators=spectators, faults=faults, pace=pace, seed=seed, bot=bot,
                     options=options, no_peek=no_peek)
    table.run()
    seconds = time.perf_counter() - started
    figures = table.figures()
    return {
        "game": game.id, "network": "simulated", "peers": players + spectators, "players": players,
        "spectators": spectators, "seed": seed, "loss": loss, "pace": pace,
        "virtual_seconds": figures["virtual_seconds"], "seconds": round(seconds, 3),
        "speed": round(figures["virtual_seconds"] / seconds, 1) if seconds else None,
        "digests_equal": figures["digests_equal"], "audits_ok": figures["audits_ok"],
        "finished": figures["finished"], "actions": figures["actions"],
        "datagrams": figures["datagrams"], "lost": figures["lost"], "no_peek": no_peek,
        **({"room_known": figures["room_known"]} if "room_known" in figures else {}),
    }  # fmt: skip


def play_in_memory(game: Game, players: int, *, nonces: Sequence[bytes | None], secret: bytes, seed: int = 0,
                   bot: str = "random", options: dict | None = None) -> list[SeatSession]:
    """One whole game between bots, every seat (and a spectator, last) a session at the host's own
    node, each seat contributing the nonce given (None: none). Returns the sessions after the end."""
    table_id = _bytes(seed, "memory table")[:8]
    ledger = Ledger(game.id, table_id, secret, options=dict(options or {}))
    settings = TableSettings(game.id, game.title, players, "Bot 1", dict(options or {}), auto_start=True)
    host = HostSession(settings, lambda names, s: GameRules(game, names, seed=s, bot=bot, options=options), ledger,
                       signer_for(seed))
    net = SimNetwork(seed)
    peer = SimPeer(Endpoint(CODE, table_id, HOST_PEER), TablePeer.as_host(host, local_id=HOST_PEER), net.now)
    net.add("host", peer)
    sessions = []
    for index in range(players):
        nonce = nonces[index]
        session = SeatSession(f"Bot {index + 1}", table_id, ledger.commitment, game=game.id,
                              nonce=nonce, contribute=nonce is not None)
        peer.sit(session, SeatBot(game, bot, Rng(_bytes(seed, "bot", index))), net.now)
        sessions.append(session)
    watcher = SeatSession("Watcher", table_id, ledger.commitment, game=game.id, watch=True)
    peer.sit(watcher, None, net.now)
    sessions.append(watcher)
    if not net.run(24 * 3600.0, stop=lambda: all(s.final is not None for s in sessions)):
        raise RuntimeError(f"{game.id} did not end (seed {seed})")
    return sessions
