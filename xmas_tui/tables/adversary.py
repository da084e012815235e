"""One bad program at a simulated table: scripted adversaries, and what the honest peers make of
them.

Owns: the strategies (``STRATEGIES``: each turns one player's program at a ``SimTable`` into an
adversary, from a moment on), one seeded table run under one of them (``run_adversary``), and
its verdict: whether the honest peers **hung** (neither finished nor stopped within the limit),
finished **wrong** (different results, or an audit that fails), **spun** (a timer that re-fired
without advancing: the simulator's own check), and whether the attack was **named** on every
honest screen (its public log, or the words its game ended with). Strategies that the table
makes provably harmless (a flood, a replay, a withheld ballot) need no naming: they change
nothing.

The strategies that attack a failover kill the host at ``KILL_AT`` so that a new one is elected.
The strategies of a **bad host** (``host``): the adversary is the host's program, and its victim
the program at the seat chosen. One drops a nonce at an ordinary table (the honest peers play on,
with the host named in red); the others run at a no-peek table (``no_peek``), where the host
passes every move and every program's message on: such a table stops with words rather than
finish, so a peer that shows a red line there counts as stopped.

Must not touch: sockets, clocks (virtual time only), the UI.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from netcode.dealing.group import random_scalar
from netcode.session.messages import Message, Order, Pong, Relay
from netcode.session.peer import TablePeer
from netcode.session.step import Step
from netcode.shares import Share
from netcode.simulator.faults import LinkFaults
from netcode.simulator.network import SimNetwork
from xmas_tui.games import Game

from .simulation import SimTable

#: virtual seconds into the game when a failover strategy's host dies (the deal is done by 5)
KILL_AT = 7.0
#: virtual seconds a table may take before it counts as hung
LIMIT = 1800.0
#: datagrams a flooding program sends each virtual second
FLOOD_RATE = 200
#: how many of its victim's messages a host that drops them passes on first (the deal's are the
#: first few; then the game's shares, beacon shares and answers)
DROPS_AFTER = 12
#: how late (virtual seconds) a lying program answers the host's pings
LATE_PONG = 0.2
#: virtual seconds at which a bad host takes a present player's seat (once the deal is done)
TAKES_AT = 12.0


@dataclass(frozen=True)
class Strategy:
    """One way a program can misbehave: ``arm(table, index)`` makes the program at peer
    ``index`` of ``table`` behave so; ``kills_host``: the host dies at ``KILL_AT`` (the attack is
    on the failover); ``harmless``: the table provably shrugs it off, so it need not be named;
    ``real_time``: see below."""

    name: str
    what: str
    arm: Callable[[SimTable, int], None]
    kills_host: bool = False
    harmless: bool = False
    #: it attacks real-time rounds only: at a game without them it changes nothing (harmless)
    real_time: bool = False
    #: the adversary is the host's program (``no_peek``: at a no-peek table)
    host: bool = False
    no_peek: bool = False


def _forge_shares(table: SimTable, index: int, *, stand: bool = True) -> None:
    peer = table.peers[index]
    honest = peer.session.ballot

    def forged(term: int):  # noqa: ANN202
        return dataclasses.replace(honest(term), share=Share(1, random_scalar()).to_wire())

    peer.session.ballot = forged  # type: ignore[method-assign]  # (the adversary's own program)
    if not stand:
        _never_stand(peer)


def _never_stand(peer: TablePeer) -> None:
    peer._stand = lambda now, step: None  # type: ignore[method-assign]  # (it stalls its own term)


def _withhold_ballot(table: SimTable, index: int) -> None:
    peer = table.peers[index]
    peer._vote = lambda now, step: None  # type: ignore[method-assign]  # (it never votes)
    _never_stand(peer)


def _forge_ballot(table: SimTable, index: int) -> None:
    peer = table.peers[index]
    honest = peer.session.ballot
    # (the adversary's own program)
    peer.session.ballot = lambda term: dataclasses.replace(honest(term), token=bytes(16))  # type: ignore[method-assign]


def _lie_in_pongs(table: SimTable, index: int, *, forge: bool) -> None:
    """Answers the host's pings ``LATE_PONG`` late saying it held them 0 s (its link looks slower,
    so its race claims would be believed more); ``forge``: and sends answers to pings never sent,
    with absurd holding times, at once."""
    sim, net = table.nodes[index].endpoint, table.net
    apply = sim.apply  # type: ignore[attr-defined]  # (a SimPeer)

    def lying(step: Step, now: float) -> None:
        pongs = [(peer, m) for peer, m in step.sends if isinstance(m, Pong)]
        if pongs:
            step.sends = [(peer, m) for peer, m in step.sends if not isinstance(m, Pong)]
            for peer, pong in pongs:
                net.call_later(LATE_PONG, _later(apply, Step(sends=[(peer, Pong(pong.n, 0.0))]), net))
                if forge:
                    step.sends += [(peer, Pong(pong.n + 7, 60.0)), (peer, Pong(-pong.n, -5.0))]
        apply(step, now)

    sim.apply = lying  # type: ignore[attr-defined]  # (the adversary's own program)


def _later(apply: Callable[[Step, float], None], step: Step, net: SimNetwork) -> Callable[[], None]:
    """Apply ``step`` when called, at the network's time then."""
    return lambda: apply(step, net.now)


def _flood(table: SimTable, index: int) -> None:
    """Sends the host junk datagrams, FLOOD_RATE a second, from its own address."""
    net, source = table.net, table.nodes[index].address

    def burst() -> None:
        host = next((table.nodes[i].address for i, p in table.peers.items() if p.hosting), "host")
        for n in range(FLOOD_RATE // 10):
            net._transmit(source, host, bytes([n % 256]) * 48)
        if not table.over:
            net.call_later(0.1, burst)

    net.call_later(1.0, burst)


def _replay(table: SimTable, index: int) -> None:
    """Sends again, later, every datagram it sent the host (the channel refuses a replay)."""
    net, source = table.net, table.nodes[index].address
    sent: list[tuple[str, bytes]] = []
    transmit = net._transmit

    def recording(src, dst, data):  # noqa: ANN001, ANN202
        if src == source and len(sent) < 2000:
            sent.append((dst, data))
        return transmit(src, dst, data)

    net._transmit = recording  # type: ignore[method-assign]  # (it records what it sends)

    def again() -> None:
        for dst, data in list(sent):
            transmit(source, dst, data)
        sent.clear()
        if not table.over:
            net.call_later(2.0, again)

    net.call_later(3.0, again)


def _host_passes_on(table: SimTable, change: Callable[[Message], list[Message]]) -> None:
    """The host's program changes what it passes on: each message it sends becomes
    ``change(message)`` (the same for every peer: a message sent to all is one object)."""
    sim = table.host_peer
    apply = sim.apply
    made: dict[int, tuple[Message, list[Message]]] = {}

    def bending(step: Step, now: float) -> None:
        sends = []
        for peer, message in step.sends:
            key = id(message)
            if key not in made or made[key][0] is not message:
                made[key] = (message, change(message))
            sends += [(peer, m) for m in made[key][1]]
        step.sends = sends
        apply(step, now)

    sim.apply = bending  # type: ignore[method-assign]  # (the adversary's own program)


def _victim(table: SimTable, index: int) -> Callable[[], int | None]:
    """The victim's seat, once it is dealt one (a bad host strikes from the start of the deal)."""
    return lambda: table.sessions[index].seat


def _forge_move(table: SimTable, index: int) -> None:
    """The host plays a move in the victim's name: the victim's last move again, as a new one."""
    victim = _victim(table, index)
    last: list[Order] = []

    def change(message: Message) -> list[Message]:
        if isinstance(message, Order) and message.seat == victim():
            if last:
                return [dataclasses.replace(last[0], id=message.id)]  # (its action, the signature of another)
            last.append(message)
        return [message]

    _host_passes_on(table, change)


def _frame(table: SimTable, index: int) -> None:
    """The host passes on a message of its own making as the victim's (a share that fails its
    proof would stop the table blaming the victim)."""
    victim, done = _victim(table, index), [False]

    def change(message: Message) -> list[Message]:
        if isinstance(message, Relay) and message.author == victim() and not done[0]:
            done[0] = True
            return [dataclasses.replace(message, data=message.data[:-1] + bytes([message.data[-1] ^ 1]))]
        return [message]

    _host_passes_on(table, change)


def _replay_saying(table: SimTable, index: int) -> None:
    """The host passes on one of the victim's messages a second time."""
    victim, seen = _victim(table, index), []

    def change(message: Message) -> list[Message]:
        if isinstance(message, Relay) and message.author == victim():
            seen.append(message)
            if len(seen) == 2:
                return [message, seen[0]]
        return [message]

    _host_passes_on(table, change)


def _hold_back(table: SimTable, index: int, *, for_good: bool, after: int = 0) -> None:
    """The host holds back the victim's message number ``after`` (``for_good``: and every one
    after it)."""
    victim = _victim(table, index)
    held: list[Relay] = []
    passed: list[Relay] = []

    def change(message: Message) -> list[Message]:
        if isinstance(message, Relay) and message.author == victim():
            if len(passed) >= after and (for_good or not held):
                held.append(message)
                return []
            passed.append(message)
        return [message]

    _host_passes_on(table, change)


def _drop_nonce(table: SimTable, index: int) -> None:
    """The host leaves the victim's nonce out ("not in time") and deals as soon as every
    other nonce is in: with k such victims it could choose among 2^k seeds."""
    host = table.host
    real = host._nonce
    victim = _victim(table, index)

    def dropping(peer, message, now):  # noqa: ANN001, ANN202
        guest = host.guests.get(peer)
        if guest is None or guest.seat != victim():
            real(peer, message, now)
        if host.dealing and host.ledger.waiting_for() <= {victim()}:
            host._deal(now)

    host._nonce = dropping  # type: ignore[method-assign]  # (the adversary's own program)


def _take_present_seat(table: SimTable, index: int) -> None:
    """The host says a player left and hands their seat to a bot of its own, while the player's
    program is still at the table (its cards would open to the host's program)."""
    victim = _victim(table, index)

    def take() -> None:
        seat = victim()
        if seat is not None and table.host.rules is not None and table.host.rules.dealt():
            table.host.take_seat(seat)
            table.host._dirty = True  # (every peer hears it at the host's next step)
        elif not table.over:
            table.net.call_later(1.0, take)

    table.net.call_at(TAKES_AT, take)


STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    Strategy("forge-share", "its ballot carries a forged share of the host's secret", _forge_shares,
             kills_host=True),
    Strategy("forge-share-stall", "a forged share, and it never stands when its term comes",
             lambda t, i: _forge_shares(t, i, stand=False), kills_host=True),
    Strategy("withhold-ballot", "it never votes nor stands in an election", _withhold_ballot,
             kills_host=True, harmless=True),
    Strategy("forge-ballot", "its ballot claims its seat with a forged rejoin key", _forge_ballot,
             kills_host=True, harmless=True),
    Strategy("flood", f"it sends the host {FLOOD_RATE} junk datagrams a second", _flood, harmless=True),
    Strategy("replay", "it sends the host every datagram it sent again, later", _replay, harmless=True),
    Strategy("late-pongs", f"it answers the host's pings {LATE_PONG * 1000:.0f} ms late, saying it held them 0 ms",
             lambda t, i: _lie_in_pongs(t, i, forge=False), real_time=True),
    Strategy("forged-pongs", "late answers to pings, and answers to pings never sent",
             lambda t, i: _lie_in_pongs(t, i, forge=True), real_time=True),
    Strategy("host-drops-nonce", "the host leaves a player's nonce out of the seed and deals at once",
             _drop_nonce, host=True),
    Strategy("host-forges-move", "the host plays a move in a player's name (its last move again)", _forge_move,
             host=True, no_peek=True),
    Strategy("host-frames", "the host passes on a message of its own making as a player's", _frame, host=True,
             no_peek=True),
    Strategy("host-repeats", "the host passes on a player's message a second time", _replay_saying, host=True,
             no_peek=True),
    Strategy("host-holds-back", "the host holds back one of a player's messages and passes on the next",
             lambda t, i: _hold_back(t, i, for_good=False), host=True, no_peek=True),
    Strategy("host-drops-reveals", "the host passes on none of a player's messages from a moment on",
             lambda t, i: _hold_back(t, i, for_good=True, after=DROPS_AFTER), host=True, no_peek=True),
    Strategy("host-takes-seat", "the host says a player left and plays their seat with its own bot",
             _take_present_seat, host=True, no_peek=True),
)}  # fmt: skip

#: what every honest peer must read when each harmful strategy is caught (a bad host's: any line
#: that names the host's program)
NAMED_BY = {"forge-share": "sent a forged share", "forge-share-stall": "sent a forged share",
            "late-pongs": "answers the host's pings", "forged-pongs": "answers the host's pings"}


def run_adversary(game: Game, players: int, strategy: str, *, seed: int = 1, seat: int = 2,
                  pace: float = 0.3) -> dict:
    """One seeded table with the program at ``seat`` (after the deal) playing ``strategy``;
    the verdict as a dict (see the module's docstring)."""
    plan = STRATEGIES[strategy]
    table = SimTable(game, players, faults=LinkFaults(delay=0.002, jitter=0.001), pace=pace, seed=seed,
                     bot="random", no_peek=plan.no_peek)
    if plan.host:  # (the adversary is the host's program, from the start; the program at peer ``seat``, its victim)
        plan.arm(table, min(seat, players - 1))
        index, arm_at = 0, 0.0
    else:
        table.net.run(5.0)  # (seats are drawn at the deal)
        by_seat = {peer.session.seat: index for index, peer in table.peers.items()}
        index, arm_at = by_seat.get(seat, max(by_seat.values())), 5.0
        plan.arm(table, index)
    in_play: list[bool] = []  # (whether the attack met a game still in play)
    if plan.kills_host:
        table.net.call_at(KILL_AT - 0.001, lambda: in_play.append(not table.host.finished))
        table.kill_host(KILL_AT)
    else:
        table.net.call_at(arm_at, lambda: in_play.append(not table.host.finished))
    table.dead.add(index)  # (the adversary's own game is not judged)
    spun = False

    def stopped(session) -> bool:  # noqa: ANN001  # (with words)
        return session.gone is not None or (plan.no_peek and session.alarm is not None)

    def settled() -> bool:  # every honest peer finished the game or stopped with words
        return all(s.final is not None or stopped(s) for i, s in enumerate(table.sessions) if i not in table.dead)

    try:
        ended = table.net.run(LIMIT, stop=settled)
    except RuntimeError:  # the simulator's check: a timer that re-fires without advancing
        ended, spun = False, True
    honest = [s for i, s in enumerate(table.sessions) if i not in table.dead]
    finished = [s for s in honest if s.final is not None]
    halted = [s for s in honest if s.final is None and stopped(s)]
    figures = table.figures() if finished else {"digests_equal": True, "audits_ok": True}
    # (a bad host's game fails its audit, rightly: it names the host; wrong is then a disagreement)
    wrong = bool(finished) and not (figures["digests_equal"] and (figures["audits_ok"] or plan.host))
    word = "" if plan.host else NAMED_BY.get(strategy)
    adversary = table.sessions[index].name

    def names(session) -> bool:  # noqa: ANN001
        said = [entry[1] for entry in session.log] + [session.gone or "", session.alarm or ""]
        return any(adversary in line and word in line for line in said)

    harmless = plan.harmless or (plan.real_time and game.race_window is None)
    if plan.host and finished and len(finished) == len(honest) and not wrong:
        harmless = True  # (what the host held back was not needed: every honest peer finished the same game)
    named = harmless or (word is not None and all(names(s) for s in honest))
    return {
        "strategy": strategy, "seed": seed, "game": game.id, "players": players, "adversary": adversary,
        "hung": not ended and not spun, "spun": spun, "wrong": wrong, "named": named,
        "finished": len(finished), "stopped": len(halted), "honest": len(honest),
        "attacked": bool(in_play and in_play[0]),
        "virtual_seconds": round(table.net.now, 1),
    }
