"""A Dragons & Chickens player with human reaction times and human mistakes.

Burned by the dragon with a chicken in its loot, it gives the dragon the cheaper
of the two (the first offered). It reads the revealed cards from its own view, works out the answer (a dragon:
the shield; a tie: the chest; else the most abundant treasure, counting its own
slap of a dark room first), and presses with a simulated reaction time: a mean
for its skill, a little longer for every extra card to read, and jitter. Now
and then it makes the mistakes people make: shouting the second most abundant
treasure, or naming one of the tied treasures before it sees the tie.

Its randomness comes only from its own ``rng``; it never sees another seat's
presses (they are sealed), nor any face its seat may not see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xmas_tui.games import Action, Rng, View
from xmas_tui.games.dragons_chickens import (
    CHEST,
    NAME,
    SHIELD,
    SLAP,
    TREASURES,
    WINDOW_MS,
    Presses,
    Ready,
    card,
    counts_of,
    most_abundant,
    table_zone,
)

from . import Bot, register_levels, register_smart


@dataclass(frozen=True)
class Skill:
    """How fast and how careful a bot is."""

    mean_ms: int  # reaction to a room of two cards
    spread_ms: int  # jitter, about one standard deviation
    per_card_ms: int  # extra reading time for each revealed card beyond two
    mistakes: int  # per cent of rounds with a wrong shout or a missed tie
    slaps: int  # per cent of dark rooms it goes for
    fastest_ms: int = 180  # nobody reacts faster than this


#: How much sooner than reading a room a bot sees a dragon in it.
DRAGON_SPEED = 0.9

SKILLS: dict[str, Skill] = {
    "easy": Skill(mean_ms=900, spread_ms=250, per_card_ms=90, mistakes=15, slaps=35),
    "normal": Skill(mean_ms=650, spread_ms=160, per_card_ms=60, mistakes=7, slaps=60),
    "hard": Skill(mean_ms=450, spread_ms=90, per_card_ms=40, mistakes=2, slaps=90),
}


class SmartBot(Bot):
    """Reacts like a person of the given skill ("easy", "normal", "hard")."""

    def __init__(self, seat: int, rng: Rng, skill: str | Skill = "normal") -> None:
        super().__init__(seat, rng)
        self.skill = SKILLS[skill] if isinstance(skill, str) else skill

    # -------------------------------------------------------------- timing
    def reaction(self, mean: float) -> int:
        """A reaction time around ``mean``: a sum of four uniforms, roughly normal."""
        spread = self.skill.spread_ms
        jitter = sum(self.rng.below(2001) - 1000 for _ in range(4)) / 1000 / 1.155
        return int(min(WINDOW_MS, max(self.skill.fastest_ms, mean + jitter * spread)))

    def chance(self, percent: int) -> bool:
        return self.rng.chance(percent, 100)

    # -------------------------------------------------------------- choosing
    def choose(self, view: View | None, legal: Sequence[Action]) -> Action:
        assert view is not None
        if view["phase"] == "pause":  # ready; or, burned with a chicken, the cheaper offer first
            return legal[0] if legal else Ready()
        revealed: dict[int, str] = {}
        for seat in range(len(view["players"])):
            for handle in view.zone(table_zone(seat))[-1:]:
                face = view.face(handle)
                if face is not None:
                    revealed[seat] = face
        if not revealed:
            return Presses()
        return Presses.of(*self.presses(revealed))

    def presses(self, revealed: dict[int, str]) -> list[tuple[int, int, int]]:
        """The timed inputs for a room: (input, target, ms) triples."""
        skill = self.skill
        darks = sorted(s for s, f in revealed.items() if card(f).torch)
        read = skill.mean_ms + skill.per_card_ms * max(0, len(revealed) - 2)
        if any(card(f).dragon for f in revealed.values()):
            shield = self.reaction(read * DRAGON_SPEED)  # a dragon, big and red, is seen a little sooner
            out = [(SHIELD, 0, shield)]
            if darks and self.chance(skill.slaps):
                other_hand = min(WINDOW_MS, shield + 40 + self.rng.below(100))
                out.append((SLAP, self.rng.choice(darks), other_hand))
            return out
        out = []
        room = dict(revealed)
        slap_ms = 0
        if darks and self.chance(skill.slaps):
            target = self.rng.choice(darks)
            slap_ms = self.reaction(skill.mean_ms * 0.6)
            out.append((SLAP, target, slap_ms))
            del room[target]  # it will not count when we shout after it
        if not room:
            return out
        shout = max(self.reaction(read), slap_ms + 30)
        if shout > WINDOW_MS:
            return out
        counts = counts_of(room.values())
        leaders = most_abundant(counts)
        if self.chance(skill.mistakes):
            if len(leaders) > 1:  # sees one treasure, misses the tie, then catches it
                out.append((NAME, leaders[0], shout))
                late = shout + 250 + self.rng.below(400)
                if late <= WINDOW_MS:
                    out.append((CHEST, 0, late))
            else:
                others = sorted(range(len(TREASURES)), key=lambda t: -counts[t])[1:]
                out.append((NAME, others[0], shout))
        elif len(leaders) > 1:
            out.append((CHEST, 0, shout))
        else:
            out.append((NAME, leaders[0], shout))
        return out


def easy(seat: int, rng: Rng) -> SmartBot:
    return SmartBot(seat, rng, "easy")


def hard(seat: int, rng: Rng) -> SmartBot:
    return SmartBot(seat, rng, "hard")


register_smart("dragons-chickens", SmartBot)
register_levels("dragons-chickens", {"easy": easy, "sensible": SmartBot, "hard": hard})
