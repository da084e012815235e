"""How a person of a given reaction time fares against each level of Dragons & Chickens bots.

Owns: the measurement behind the bot levels' tuning: a scripted person who always
presses the right answer (the treasure, the chest on a tie, the shield on a
dragon) exactly ``ms`` after each reveal, at a table with bots of one level,
over many seeded games played through the engine alone. It prints, for each
level and each reaction time, the share of the rooms somebody won that the
person took (``rooms``), beside the fair share (one in as many players), and
how often the dragon burned the person; the last line is one JSON object.

Must not touch: the network, the UI, clocks.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from xmas_tui.bots import BotDriver
from xmas_tui.games import Rng, get_game
from xmas_tui.games.dragons_chickens import (
    CHEST,
    NAME,
    SHIELD,
    Presses,
    card,
    counts_of,
    last_round,
    most_abundant,
)
from xmas_tui.simulate import bot_names

DC = get_game("dragons-chickens")
LEVELS = ("easy", "sensible", "hard")
TIMES = (500, 700, 900)


def person(revealed: dict[int, str], ms: int) -> Presses:
    """The right press, ``ms`` after the reveal."""
    if not revealed:
        return Presses()
    if any(card(f).dragon for f in revealed.values()):
        return Presses.of((SHIELD, 0, ms))
    leaders = most_abundant(counts_of(revealed.values()))
    return Presses.of((CHEST, 0, ms) if len(leaders) > 1 else (NAME, leaders[0], ms))


def measure(level: str, ms: int, players: int, games: int, seed: int = 0) -> dict[str, Any]:
    won = rooms = dragons = burned = 0
    for g in range(games):
        rng = Rng(f"{seed}/{level}/{ms}/{g}")
        state = DC.setup({}, bot_names(players), rng)
        bots = BotDriver(DC.id, dict.fromkeys(range(1, players), level), lambda s, rng=rng: rng.fork(f"bot/{s}"))
        while DC.to_act(state):
            for seat in sorted(DC.to_act(state)):
                if state.phase == "pause":
                    action = DC.silent_action(state, seat)  # ready (the cheaper offer, if burned)
                elif seat == 0:
                    action = person(DC.revealed(state), ms)
                else:
                    action = bots.choose(seat, lambda s, state=state: DC.view(state, s), DC.legal_actions(state, seat))
                DC.apply(state, seat, action, rng)
            if state.phase == "race":
                continue
            record = last_round(DC.view(state, None).public)
            assert record is not None  # (a round just ended)
            outcome = record.outcome
            if outcome.how == "dragon":
                dragons += 1
                burned += any(b.seat == 0 for b in outcome.burns)
            elif outcome.winner is not None:
                rooms += 1
                won += outcome.winner == 0
            for seat in sorted(DC.to_act(state)):
                DC.apply(state, seat, DC.silent_action(state, seat), rng)
    return {"level": level, "ms": ms, "players": players, "games": games, "rooms": round(won / rooms, 3) if rooms else 0,
            "fair": round(1 / players, 3), "dragon_rounds": dragons, "burned": burned}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m xmas_tui.tools.reaction_levels", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)
    figures = [measure(level, ms, args.players, args.games) for level in LEVELS for ms in TIMES]
    for f in figures:
        print(f"{f['level']:>8} bots, a person at {f['ms']} ms: {f['rooms']:.0%} of the rooms won "
              f"(fair share {f['fair']:.0%}), burned in {f['burned']} of {f['dragon_rounds']} dragon rounds")
    print(json.dumps({"players": args.players, "games": args.games, "figures": figures}))


if __name__ == "__main__":
    main()
