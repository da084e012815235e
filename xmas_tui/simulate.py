"""Headless bot games: one game played out, and many summed into figures.

Owns: the loop that drives an engine with bots (each fed only its own view),
and the figures ``xmas-tui simulate`` prints. Used by the CLI, the tests and
the benchmarks, so they all play exactly the same games.

Must not touch: the UI, the network. It reads the clock only to report
games per second, never to drive a game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .bots import BotDriver
from .games import Action, Event, Game, Result, Rng, View


def bot_names(n: int) -> list[str]:
    return ["Holly", "Noel", "Ivy", "Jasper", "Carol", "Rudy"][:n] + [f"Bot {i}" for i in range(6, n)]


def with_bots(people: Sequence[str], players: int) -> list[str]:
    """``people`` at the first seats, then bots up to ``players`` seats, every name different."""
    taken = {name.casefold() for name in people}
    bots = [b for b in bot_names(players + len(people)) if b.casefold() not in taken]
    return [*people, *bots[: players - len(people)]]


@dataclass
class Playout:
    """One finished game: its final state, its result and the actions taken."""

    state: object
    result: Result
    actions: list[tuple[int, Action]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


Hook = Callable[[Game, object, int, Action], None]


def play_game(
    game: Game,
    players: int,
    seed: int | str | bytes,
    bots: Sequence[str] | str = "random",
    *,
    options: dict | None = None,
    before_apply: Hook | None = None,
    keep_events: bool = False,
) -> Playout:
    """Play one whole game between bots. ``before_apply`` lets a test inspect each step."""
    kinds = [bots] * players if isinstance(bots, str) else list(bots)
    rng = Rng(seed)
    state = game.setup(options or {}, bot_names(players), rng)
    driver = BotDriver(game.id, dict(enumerate(kinds)), lambda seat: rng.fork(f"bot/{seat}"))
    actions: list[tuple[int, Action]] = []
    kept: list[Event] = []

    def view_of(seat: int) -> View:
        return game.view(state, seat)

    for _ in range(game.max_actions):
        acting = game.to_act(state)
        if not acting:
            break
        driver.follow(view_of)
        seat = min(acting)
        action = driver.choose(seat, view_of, game.legal_actions(state, seat))
        if before_apply is not None:
            before_apply(game, state, seat, action)
        events = game.apply(state, seat, action, rng)
        actions.append((seat, action))
        if keep_events:
            kept.extend(events)
    result = game.result(state)
    if result is None:
        raise RuntimeError(f"{game.id} did not end within {game.max_actions} actions (seed {seed!r})")
    return Playout(state, result, actions, kept)


def seated_levels(levels: Sequence[str], players: int, game_number: int) -> list[str]:
    """The bots' levels seat by seat in game ``game_number``: ``levels`` repeated to fill the
    table, turned one seat further each game, so every level sits everywhere in turn."""
    kinds = [levels[i % len(levels)] for i in range(players)]
    turn = game_number % players
    return kinds[turn:] + kinds[:turn]


def simulate(game: Game, games: int, players: int, seed: int, bot: str = "random", options: dict | None = None,
             levels: Sequence[str] = ()) -> dict:
    """Play ``games`` bot games and return the figures (the JSON of ``simulate --json``).
    ``levels``: mixed bots, seated by ``seated_levels`` (their wins by level in ``wins_by_level``)."""
    wins = [0] * players
    by_level: dict[str, float] = dict.fromkeys(levels, 0.0)
    ties = 0
    actions = 0
    longest = 0
    rounds: list[int] = []
    scores = [0] * players
    started = time.perf_counter()
    cpu_started = time.process_time()
    for i in range(games):
        kinds = seated_levels(levels, players, i) if levels else bot
        playout = play_game(game, players, f"{seed}/{i}", kinds, options=options)
        for w in playout.result.winners if levels else ():
            by_level[kinds[w]] += 1 / len(playout.result.winners)  # a shared win counts shared
        actions += len(playout.actions)
        longest = max(longest, len(playout.actions))
        if isinstance(getattr(playout.state, "round", None), int):  # a game played in rounds
            rounds.append(playout.state.round)
        if len(playout.result.winners) > 1:
            ties += 1
        for w in playout.result.winners:
            wins[w] += 1
        for s, points in enumerate(playout.result.scores):
            scores[s] += points
    seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu_started
    return {
        "game": game.id,
        "games": games,
        "players": players,
        "seed": seed,
        "bot": bot,
        "seconds": round(seconds, 4),
        "games_per_second": round(games / seconds, 1) if seconds else None,
        "cpu_seconds": round(cpu_seconds, 4),
        "games_per_cpu_second": round(games / cpu_seconds, 1) if cpu_seconds else None,
        "mean_actions": round(actions / games, 2),
        "longest_actions": longest,
        **({"most_rounds": max(rounds)} if rounds else {}),
        "mean_score": round(sum(scores) / (games * players), 2),
        "wins_by_seat": wins,
        "ties": ties,
        **({"levels": list(levels), "wins_by_level": {k: round(v, 2) for k, v in by_level.items()}} if levels else {}),
    }
