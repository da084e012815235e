"""Dragons & Chickens — the real-time game: the rules, and our rulings where the book is silent.

Every round each player's top card is revealed at once; the first to name the
most abundant treasure takes the room, the chest settles ties, a dragon sends
everyone to the shield, and dark rooms can be stolen with a slap.

The engine never reads a clock. A round is: the cards are revealed (public),
then every seat submits one sealed ``Presses`` action carrying its timed
inputs for the round, in milliseconds since the reveal. When every seat has
submitted, the presses are opened together and the round is settled by the
pure function ``resolve_round`` (and ``dragon_offers`` for what a burned player
may give up). The last round's record, who pressed what and when and why the cards
went where they did, is the public field ``last_round``
(``RoundRecord.from_plain`` reads it back). Then comes the pause between
rounds: every seat says ``Ready`` (a table's host gives a seat that says
nothing in time its silent action), and the next room is revealed at once,
so nobody learns a room before the moment it opens. A player the dragon
burned whose loot holds a chicken says ``Feed`` instead: the chicken, or the
treasures the dragon wants (``dragon_offers``, the cheaper first; the silent
action gives the cheaper).

A claimed time is the seat's own word; whoever runs the table may know a
bound on it (a network host does: ``netcode.session.host.races``). ``clamp_presses``
raises every time below such a bound to the bound, purely, and says what it
raised.

Owns: this game's cards, state, actions, the round resolution, scoring and
rulings. Must not touch: the UI, the network, clocks; faces are read and shown
only through the card model (``Cards``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from .cards import EVERYONE, NOBODY
from .engine import (
    Action,
    BaseState,
    Event,
    Game,
    IllegalAction,
    InvalidAction,
    Result,
    Ruling,
    plain,
    rank_winners,
)
from .rng import Rng

# ---------------------------------------------------------------- the cards

TREASURES: tuple[str, ...] = ("ring", "pearl", "crown", "gold", "diamond", "chalice")
TREASURE_NAMES: tuple[str, ...] = ("Ring", "Pearl", "Crown", "Gold", "Diamond", "Chalice")
DRAGON_SIZES: tuple[str, ...] = ("", "small", "medium", "large")

#: The 15 pairs of two different treasures; every pair is printed 7 times...
PAIRS: tuple[tuple[str, str], ...] = tuple(
    (a, b) for i, a in enumerate(TREASURES) for b in TREASURES[i + 1 :]
)
#: ...and these four pairs once more, for 109 cards.
EXTRA_PAIRS: tuple[tuple[str, str], ...] = (
    ("ring", "pearl"), ("ring", "crown"), ("pearl", "gold"), ("diamond", "chalice"),
)
#: Every pair has one chicken card and one dark-room card (sometimes the same card).
#: Dragons sit on nine pairs, three per treasure (all pairs but the ring-pearl-crown-
#: gold-diamond-chalice ring of neighbours), one of each size per treasure:
#: pair -> dragon size (3, large, is the easiest to see).
DRAGONS: dict[tuple[str, str], int] = {
    ("ring", "diamond"): 3, ("pearl", "gold"): 3, ("crown", "chalice"): 3,
    ("ring", "crown"): 2, ("pearl", "diamond"): 2, ("gold", "chalice"): 2,
    ("ring", "gold"): 1, ("pearl", "chalice"): 1, ("crown", "diamond"): 1,
}
#: Pairs whose dark room also shows the pair's dragon (one per size), and whose
#: dark room also shows its chicken (the neighbours ring-pearl, crown-gold, diamond-chalice).
DRAGON_DARK_ROOMS = frozenset({("crown", "chalice"), ("pearl", "diamond"), ("ring", "gold")})
CHICKEN_DARK_ROOMS = frozenset({("ring", "pearl"), ("crown", "gold"), ("diamond", "chalice")})


class Card(NamedTuple):
    """What a face shows: two treasures (indices into ``TREASURES``) and its marks."""

    treasures: tuple[int, int]
    chicken: bool
    dragon: int  # 0: none; 1-3: small, medium, large (how easy it is to see)
    torch: bool  # an unlit torch: a dark room


def make_face(a: str, b: str, *, chicken: bool = False, dragon: int = 0, torch: bool = False) -> str:
    """A face string: ``"ring+pearl"``, with marks ``/chicken``, ``/dragon1-3``, ``/torch``."""
    marks = ["chicken"] * chicken + ([f"dragon{dragon}"] if dragon else []) + ["torch"] * torch
    return "/".join([f"{a}+{b}", *marks])


@cache
def card(face: str) -> Card:
    """``Card((0, 1), False, 3, True)`` from ``"ring+pearl/dragon3/torch"``."""
    pair, *marks = face.split("/")
    a, _, b = pair.partition("+")
    dragon = 0
    for mark in marks:
        if mark.startswith("dragon"):
            dragon = int(mark[len("dragon") :])
    return Card((TREASURES.index(a), TREASURES.index(b)), "chicken" in marks, dragon, "torch" in marks)


@cache
def face_name(face: str) -> str:
    """``"Ring & Pearl (large dragon, dark room)"``: a face as a person says it."""
    c = card(face)
    marks = ["chicken"] * c.chicken + [f"{DRAGON_SIZES[c.dragon]} dragon"] * bool(c.dragon)
    marks += ["dark room"] * c.torch
    text = f"{TREASURE_NAMES[c.treasures[0]]} & {TREASURE_NAMES[c.treasures[1]]}"
    return f"{text} ({', '.join(marks)})" if marks else text


def all_faces() -> list[str]:
    """The 109 treasure faces, in a fixed order (the composition table, our ruling)."""
    faces: list[str] = []
    for pair in PAIRS:
        a, b = pair
        copies = 7 + (pair in EXTRA_PAIRS)
        dragon = DRAGONS.get(pair, 0)
        specials = [make_face(a, b, chicken=True, torch=pair in CHICKEN_DARK_ROOMS)]
        if dragon:
            specials.append(make_face(a, b, dragon=dragon, torch=pair in DRAGON_DARK_ROOMS))
        if pair not in CHICKEN_DARK_ROOMS | DRAGON_DARK_ROOMS:
            specials.append(make_face(a, b, torch=True))
        faces += specials + [make_face(a, b)] * (copies - len(specials))
    return faces


def counts_of(faces: Iterable[str]) -> tuple[int, ...]:
    """How many of each treasure these faces show, in ``TREASURES`` order."""
    counts = [0] * len(TREASURES)
    for face in faces:
        for t in card(face).treasures:
            counts[t] += 1
    return tuple(counts)


def most_abundant(counts: Sequence[int]) -> tuple[int, ...]:
    """The treasures with the highest count (empty if nothing counts)."""
    top = max(counts)
    return tuple(t for t, n in enumerate(counts) if n == top) if top else ()


# ---------------------------------------------------------------- inputs and timing

#: Input kinds, the first of each triple in ``Presses``.
NAME, CHEST, SHIELD, SLAP = 0, 1, 2, 3
INPUT_NAMES = ("name", "chest", "shield", "slap")
#: A round's presses are timed from the reveal; the room closes after this.
WINDOW_MS = 5000
#: On screen, a player's presses are sealed this long after their first one
#: (after their hand on the shield when a dragon is out), our ruling.
LINGER_MS = 1500
#: Inputs racing for the same prize this close together are simultaneous.
TIE_MS = 10
#: What a networked host allows beyond a player's smallest round trip (``netcode.session.host.races``:
#: the spread of their round trips, at most this, and a frame), for the rulings' text.
NETWORK_JITTER_CAP_MS = 60
NETWORK_FRAME_MS = 15
NETWORK_CLOCK_SLACK_MS = 2
NETWORK_OPEN_MS = 25
#: The bots' reaction times to a room of two cards, about two standard deviations either
#: side of their mean (the bots' own ``SKILLS``), for the rulings' text.
BOT_REACTIONS = {"easy": (400, 1400), "sensible": (330, 970), "hard": (270, 630)}
BOT_PER_CARD = "40-90 ms"


def bot_range(level: str) -> str:
    low, high = BOT_REACTIONS[level]
    return f"{low}-{high} ms"


#: The times (ms) at which ``legal_actions`` lists its representative presses.
REPRESENTATIVE_MS = (400, 800, 1600)
#: At the same millisecond a hand (on a dark room, the shield, the chest) lands before a word is heard.
_SAME_MS_ORDER = {SLAP: 0, SHIELD: 1, CHEST: 1, NAME: 2}


class Input(NamedTuple):
    """One timed input of one seat: ``ms`` after the reveal."""

    seat: int
    kind: int
    target: int
    ms: int


def input_text(kind: int, target: int, names: Sequence[str] | None = None, seat: int | None = None) -> str:
    """``"shouts Diamond"``, ``"grabs the chest"``, ``"slaps Ivy's card"`` (``seat``: who slaps)."""
    if kind == NAME:
        return f"shouts {TREASURE_NAMES[target]}"
    if kind == CHEST:
        return "grabs the chest"
    if kind == SHIELD:
        return "puts a hand on the shield"
    if target == seat:
        return "slaps their own card"
    owner = names[target] if names else f"seat {target + 1}"
    return f"slaps {owner}'s card"


@dataclass(frozen=True)
class Presses(Action):
    """One seat's timed inputs for a round: flat (input, target, ms) triples.

    Inputs: ``0 t ms`` name treasure ``t`` (0-5), ``1 0 ms`` grab the chest,
    ``2 0 ms`` a hand on the shield, ``3 s ms`` slap the card in front of seat
    ``s``; ``ms`` counts from the reveal. ``presses`` alone: no input at all.
    """

    kind = "presses"
    codes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        codes = self.codes
        if len(codes) % 3:
            raise InvalidAction("presses are (input, target, ms) triples")
        if len(codes) > 3 * len(INPUT_NAMES):
            raise InvalidAction(f"presses carry at most {len(INPUT_NAMES)} inputs, one of each kind")
        for i in range(0, len(codes), 3):
            kind, target, ms = codes[i : i + 3]
            if not 0 <= kind < len(INPUT_NAMES):
                raise InvalidAction(f"presses: {kind} is not an input (0 name, 1 chest, 2 shield, 3 slap)")
            if kind == NAME and not 0 <= target < len(TREASURES):
                raise InvalidAction(f"presses: {target} is not a treasure (0-5)")
            if kind in (CHEST, SHIELD) and target != 0:
                raise InvalidAction(f"presses: the {INPUT_NAMES[kind]} takes no target (0)")
            if target < 0 or ms < 0:
                raise InvalidAction("presses: targets and times are not negative")

    @classmethod
    def of(cls, *inputs: tuple[int, int, int]) -> Presses:
        """``Presses.of((NAME, 4, 450), (SLAP, 2, 300))``."""
        return cls(tuple(x for triple in inputs for x in triple))

    def inputs(self, seat: int) -> list[Input]:
        codes = self.codes
        return [Input(seat, *codes[i : i + 3]) for i in range(0, len(codes), 3)]


@dataclass(frozen=True)
class Ready(Action):
    """Between rounds: I have seen the last round; the next room may open."""

    kind = "ready"


@dataclass(frozen=True)
class Feed(Action):
    """Between rounds, burned by the dragon with a chicken in my loot: give it the chicken
    (``chicken`` 1) or the treasures it wants (0); then I am ready for the next room."""

    kind = "feed"
    chicken: int

    def __post_init__(self) -> None:
        if self.chicken not in (0, 1):
            raise InvalidAction("feed 1 gives the dragon a chicken, feed 0 the treasures it wants")


class Clamp(NamedTuple):
    """One input whose claimed time was below the bound: what it claimed, what it counts as
    (``counted`` None: the input came after the room had closed, and is dropped)."""

    kind: int
    target: int
    claimed: int
    counted: int | None


def clamp_presses(presses: Presses, earliest_ms: int) -> tuple[Presses, tuple[Clamp, ...]]:
    """The presses with every time below ``earliest_ms`` raised to it, and what was raised.

    Pure: a claim no sooner than the bound stands as it is; one below it counts at
    the bound; one whose bound is past the window (it arrived after the room had
    closed) is dropped. Order is kept by time, as ``Presses`` are.
    """
    kept: list[tuple[int, int, int]] = []
    clamps: list[Clamp] = []
    for kind, target, ms in ((i.kind, i.target, i.ms) for i in presses.inputs(0)):
        if ms >= earliest_ms:
            kept.append((kind, target, ms))
        elif earliest_ms > WINDOW_MS:
            clamps.append(Clamp(kind, target, ms, None))
        else:
            clamps.append(Clamp(kind, target, ms, earliest_ms))
            kept.append((kind, target, earliest_ms))
    if not clamps:
        return presses, ()
    return Presses.of(*sorted(kept, key=lambda k: k[2])), tuple(clamps)


@cache
def representatives(dragon: bool, darks: tuple[int, ...]) -> tuple[Presses, ...]:
    """The presses ``legal_actions`` lists: nothing, or each sensible input at a few times.

    With a dragon out: the shield, the shield and a dark room, or a dark room
    alone; otherwise a shout of each treasure, the chest, or a dark room.
    """
    acts: list[Presses] = [Presses()]
    for ms in REPRESENTATIVE_MS:
        if dragon:
            acts.append(Presses.of((SHIELD, 0, ms)))
            acts += [Presses.of((SHIELD, 0, ms), (SLAP, d, ms + 60)) for d in darks]
        else:
            acts += [Presses.of((NAME, t, ms)) for t in range(len(TREASURES))]
            acts.append(Presses.of((CHEST, 0, ms)))
        acts += [Presses.of((SLAP, d, ms)) for d in darks]
    return tuple(acts)


# ---------------------------------------------------------------- the outcome of a round


@dataclass(frozen=True)
class PressVerdict:
    """What one input did. ``what``:

    won, lost-tie (as fast, within the tolerance, but lost the round's draw),
    late (the room was already won), wrong (a wrong shout or grab: out of the
    race), out (ignored after that player's wrong shout or grab), tied-kind
    (named one of the tied treasures: does not count), empty (no card counts),
    dragon (no naming or chest with a dragon out), stole, beaten (another hand
    was on the card first), missed (that card has no dark room or no card),
    safe (behind the shield), top (last on the shield: burned), no-dragon.
    """

    seat: int
    kind: int
    target: int
    ms: int
    what: str


@dataclass(frozen=True)
class Theft:
    thief: int
    owner: int  # the seat whose revealed card was stolen
    ms: int
    counted: bool  # True when the room had been won before the hand landed


@dataclass(frozen=True)
class Burn:
    seat: int
    dragon: int  # the seat whose revealed card holds the dragon that counts for them
    why: str  # "top" (last on the shield) or "outside" (no hand on the shield)


@dataclass(frozen=True)
class Outcome:
    """The race settled: who takes the room, who stole what, who the dragon burns."""

    how: str  # named | chest | dragon | nobody
    winner: int | None
    win_ms: int | None
    named: int | None  # the treasure the winner named
    counts: tuple[int, ...]  # the treasure counts that decided (at the winning claim, or at the end)
    counted: tuple[int, ...]  # seats whose cards counted in ``counts``
    thefts: tuple[Theft, ...]
    burns: tuple[Burn, ...]
    verdicts: tuple[PressVerdict, ...]  # every input, in the order they happened
    ties: tuple[tuple[str, tuple[int, ...], int], ...]  # (prize, seats within TIE_MS, who got it)


def _rank(priority: Sequence[int]) -> dict[int, int]:
    return {seat: i for i, seat in enumerate(priority)}


def _judge(kind: int, target: int, counts: Sequence[int]) -> str:
    leaders = most_abundant(counts)
    if not leaders:
        return "empty"
    tied = len(leaders) > 1
    if kind == CHEST:
        return "right" if tied else "wrong"
    if target not in leaders:
        return "wrong"
    return "tied-kind" if tied else "right"


def dragon_for(revealed: Mapping[int, str], seat: int, seats: int) -> int:
    """The seat whose dragon counts for ``seat``: the largest dragon, then the nearest.

    Among dragons of the same size, the one nearest the burned player is the
    easiest for them to see: their own card, then clockwise (seat order).
    """
    dragons = [(card(f).dragon, owner) for owner, f in revealed.items() if card(f).dragon]
    biggest = max(size for size, _ in dragons)
    return min((owner for size, owner in dragons if size == biggest), key=lambda o: (o - seat) % seats)


def resolve_round(
    revealed: Mapping[int, str], inputs: Iterable[Input], priority: Sequence[int]
) -> Outcome:
    """Settle one round. Pure: the revealed faces (seat -> face), every seat's timed
    inputs (any order, at most one of each kind per seat) and the round's tie-break
    order of all seats (``priority``: earlier wins a tie, and is lower on the shield).
    """
    rank = _rank(priority)
    seats = len(priority)
    order = sorted(inputs, key=lambda i: (i.ms, _SAME_MS_ORDER[i.kind], rank[i.seat], i.kind, i.target))
    what: list[str] = [""] * len(order)
    ties: list[tuple[str, tuple[int, ...], int]] = []

    def contest(indices: list[int], prize: str, *, last: bool = False) -> int:
        """The index that gets a prize among simultaneous inputs; the others lost the tie."""
        pick = (max if last else min)(indices, key=lambda i: rank[order[i].seat])
        if len(indices) > 1:
            ties.append((prize, tuple(order[i].seat for i in indices), order[pick].seat))
        return pick

    # Dark rooms: the first hand on a card with an unlit torch steals it.
    slaps: dict[int, list[int]] = {}
    for i, inp in enumerate(order):
        if inp.kind == SLAP:
            face = revealed.get(inp.target)
            if face is None or not card(face).torch:
                what[i] = "missed"
            else:
                slaps.setdefault(inp.target, []).append(i)
    hand_on: dict[int, int] = {}  # owner -> ms of the first hand on that card
    thieves: dict[int, int] = {}  # owner -> index of the winning slap
    for owner, indices in slaps.items():
        first = order[indices[0]].ms
        close = [i for i in indices if order[i].ms - first <= TIE_MS]
        pick = contest(close, f"dark room {owner}")
        hand_on[owner], thieves[owner] = first, pick
        for i in indices:
            what[i] = "stole" if i == pick else "lost-tie" if i in close else "beaten"

    def counted_at(ms: int) -> tuple[int, ...]:
        return tuple(s for s in sorted(revealed) if not (s in hand_on and hand_on[s] <= ms))

    dragon = any(card(f).dragon for f in revealed.values())
    claims = [i for i, inp in enumerate(order) if inp.kind in (NAME, CHEST)]
    shields = [i for i, inp in enumerate(order) if inp.kind == SHIELD]
    winner: int | None = None
    win_ms: int | None = None
    how = "nobody"
    burns: list[Burn] = []
    counted = counted_at(WINDOW_MS)
    if dragon:
        how = "dragon"
        for i in claims:
            what[i] = "dragon"
        on_shield = {order[i].seat for i in shields}
        outside = [s for s in range(seats) if s not in on_shield]
        for i in shields:
            what[i] = "safe"
        if outside:
            burns = [Burn(s, dragon_for(revealed, s, seats), "outside") for s in outside]
        elif shields:
            latest = order[shields[-1]].ms
            top = contest([i for i in shields if latest - order[i].ms <= TIE_MS], "top of the shield", last=True)
            what[top] = "top"
            seat = order[top].seat
            burns = [Burn(seat, dragon_for(revealed, seat, seats), "top")]
    else:
        for i in shields:
            what[i] = "no-dragon"
        out: set[int] = set()
        right: list[int] = []
        decided: tuple[int, ...] | None = None
        for i in claims:
            inp = order[i]
            if win_ms is not None and inp.ms - win_ms > TIE_MS:
                what[i] = "late"
                continue
            if inp.seat in out:
                what[i] = "out"
                continue
            if decided is None:
                now = counted_at(inp.ms)
            else:
                now = decided
            verdict = _judge(inp.kind, inp.target, counts_of(revealed[s] for s in now))
            if verdict == "right":
                if win_ms is None:
                    win_ms, decided = inp.ms, now
                right.append(i)
            elif verdict == "wrong":
                out.add(inp.seat)
            what[i] = verdict
        if right:
            pick = contest(right, "the room")
            for i in right:
                what[i] = "won" if i == pick else "lost-tie"
            winner = order[pick].seat
            how = "named" if order[pick].kind == NAME else "chest"
            assert decided is not None
            counted = decided
    thefts = tuple(
        Theft(order[i].seat, owner, order[i].ms, win_ms is not None and hand_on[owner] > win_ms)
        for owner, i in sorted(thieves.items())
    )
    named = order[[i for i, w in enumerate(what) if w == "won"][0]].target if how == "named" else None
    return Outcome(
        how=how,
        winner=winner,
        win_ms=win_ms,
        named=named,
        counts=counts_of(revealed[s] for s in counted),
        counted=counted,
        thefts=thefts,
        burns=tuple(burns),
        verdicts=tuple(PressVerdict(*inp, w) for inp, w in zip(order, what, strict=True)),
        ties=tuple(ties),
    )


class Offer(NamedTuple):
    """One thing a burned player may give the dragon: indices into their loot, and whether it
    is a chicken given instead of the treasures."""

    lost: tuple[int, ...]
    chicken: bool


def dragon_offers(loot: Sequence[str], dragon_face: str) -> tuple[Offer, ...]:
    """What a burned player may give up, the cheaper first: one offer when there is no choice.

    The dragon wants every loot card showing a treasure of its card. A player whose loot
    holds a chicken may give the most recently won chicken instead ("Just give away the
    chicken and the Dragon will be satisfied"). Cheaper means fewer cards, then fewer
    chickens (the tie-break); on a tie the treasures come first. There is no choice when
    the dragon wants nothing, or wants that very chicken alone.
    """
    wanted = set(card(dragon_face).treasures)
    treasures = Offer(tuple(i for i, f in enumerate(loot) if wanted & set(card(f).treasures)), False)
    chickens = [i for i, f in enumerate(loot) if card(f).chicken]
    if not treasures.lost or not chickens or treasures.lost == (chickens[-1],):
        return (treasures,)
    instead = Offer((chickens[-1],), True)

    def cost(offer: Offer) -> tuple[int, int]:
        return len(offer.lost), sum(card(loot[i]).chicken for i in offer.lost)

    return (instead, treasures) if cost(instead) < cost(treasures) else (treasures, instead)


# ---------------------------------------------------------------- the record of a round


@dataclass(frozen=True)
class Loss:
    seat: int
    dragon: int  # handle of the dragon card that counted
    cards: tuple[int, ...]  # handles that went under the Dragon card
    chicken: bool  # True when a chicken was given instead
    #: True while the player still chooses between a chicken and the treasures (``Choice``)
    choosing: bool = False


@dataclass(frozen=True)
class Choice:
    """A burned player's choice, between rounds: what each ``Feed`` gives the dragon (handles),
    the cheaper first. Public, like the loot it comes from."""

    seat: int
    dragon: int  # handle of the dragon card that counted
    offers: tuple[tuple[tuple[int, ...], bool], ...]  # (handles, a chicken instead), cheaper first

    def handles(self, chicken: bool) -> tuple[int, ...]:
        return next(lost for lost, instead in self.offers if instead == chicken)

    @classmethod
    def from_plain(cls, raw: Mapping[str, Any]) -> Choice:
        return cls(raw["seat"], raw["dragon"], tuple((tuple(lost), instead) for lost, instead in raw["offers"]))


@dataclass(frozen=True)
class RoundRecord:
    """The public account of the last round, for the log and the UI's replay.

    Stored in the state as plain data (``last_round``); rebuild it with ``from_plain``.
    """

    round: int
    revealed: tuple[tuple[int, int], ...]  # (seat, handle)
    priority: tuple[int, ...]  # the round's draw that breaks ties within TIE_MS
    outcome: Outcome
    taken: tuple[int, ...]  # handles the winner took (the room's earlier cards included)
    to_room: tuple[int, ...]  # handles that stay in the room
    losses: tuple[Loss, ...]
    lines: tuple[str, ...]

    @classmethod
    def from_plain(cls, raw: Mapping[str, Any]) -> RoundRecord:
        o = raw["outcome"]
        outcome = Outcome(
            how=o["how"],
            winner=o["winner"],
            win_ms=o["win_ms"],
            named=o["named"],
            counts=tuple(o["counts"]),
            counted=tuple(o["counted"]),
            thefts=tuple(Theft(**t) for t in o["thefts"]),
            burns=tuple(Burn(**b) for b in o["burns"]),
            verdicts=tuple(PressVerdict(**v) for v in o["verdicts"]),
            ties=tuple((p, tuple(s), w) for p, s, w in o["ties"]),
        )
        return cls(
            round=raw["round"],
            revealed=tuple((s, h) for s, h in raw["revealed"]),
            priority=tuple(raw["priority"]),
            outcome=outcome,
            taken=tuple(raw["taken"]),
            to_room=tuple(raw["to_room"]),
            losses=tuple(
                Loss(x["seat"], x["dragon"], tuple(x["cards"]), x["chicken"], x["choosing"]) for x in raw["losses"]
            ),
            lines=tuple(raw["lines"]),
        )


def choice_of(public: Mapping[str, Any], seat: int) -> Choice | None:
    """``seat``'s choice for the dragon from a view (or a state's public fields), while it is
    still to make."""
    for raw in public.get("choices", ()):
        if raw["seat"] == seat:
            return Choice.from_plain(raw)
    return None


def last_round(public: Mapping[str, Any]) -> RoundRecord | None:
    """The last round's record from a view (or a state's public fields), if any."""
    raw = public.get("last_round")
    return RoundRecord.from_plain(raw) if raw else None


# ---------------------------------------------------------------- state


@dataclass
class State(BaseState):
    #: race (every seat to submit its presses) | pause (every seat to say it is ready) | over
    phase: str = "race"
    round: int = 0
    #: the seats ready for the next room (in the pause)
    ready: list[int] = dataclasses.field(default_factory=list)
    #: burned players still choosing what the dragon gets (``Choice`` as plain data), in the pause
    choices: list[dict[Any, Any]] = dataclasses.field(default_factory=list)
    #: The last round's ``RoundRecord``, as plain data (empty before the first round ends).
    last_round: dict[Any, Any] | None = None


def pile_zone(seat: int) -> str:
    return f"pile.{seat}"


def table_zone(seat: int) -> str:
    """The card this seat revealed this round."""
    return f"table.{seat}"


def loot_zone(seat: int) -> str:
    return f"loot.{seat}"


ROOM = "room"
DRAGON = "dragon"


# ---------------------------------------------------------------- the game


class DragonsChickens(Game):
    id = "dragons-chickens"
    title = "Dragons & Chickens"
    min_players = 2
    max_players = 5
    actions = (Presses, Ready, Feed)
    max_actions = 1200
    open_actions = True
    race_window = WINDOW_MS / 1000
    how_to_play = """
The 109 Treasure cards are dealt equally into face-down piles; the leftovers go
under the Dragon card, out of the game. Each round every player's top card is
revealed at the same instant. Each card shows two treasures (ring, pearl,
crown, gold, diamond, chalice), and may show a chicken, a dragon or an unlit
torch (a dark room).

The first to name the most abundant treasure takes all the revealed cards into
their face-up loot. When two or more treasures tie for most, naming does not
count: the first to grab the treasure chest takes them.

A dragon on any revealed card: nobody wins cards by naming or by the chest.
Everyone races to put a hand on the shield; the last one loses every card in
their loot that shows a treasure of the dragon's card, unless they give up a
chicken instead. With several dragons, the easiest to see counts.

Anyone may slap a dark room (a card with an unlit torch) to steal it, their
own included. Slapped before the most abundant treasure is named, it no longer
counts; slapped after, the result stands. With a dragon out, one hand can be on
the shield and the other on a dark room.

When every pile is empty the game ends: most cards wins, then most chickens.
"""
    openings = (
        "Every pile is dealt face down to nobody; each room's cards open to everyone at the "
        "moment the room opens: every player's program holds its shares of the room until the "
        "instant the host names, and sends them then, so no program, the host's included, can "
        "open a room before its instant. The cards under the Dragon card stay closed."
    )
    rulings = (
        Ruling("Players", "2 to 5 players. 109 cards deal 54, 36, 27 or 21 each; the 1 or 4 left over go face down under the Dragon card."),
        Ruling("The 109 Treasure cards", "Every card shows two different treasures. Each of the 15 pairs is printed 7 times, and ring+pearl, ring+crown, pearl+gold and diamond+chalice once more (ring and pearl on 37 cards each, the others on 36). Each pair has one chicken card and one dark-room card: 15 chickens, 15 dark rooms. 9 cards show a dragon: large on ring+diamond, pearl+gold, crown+chalice; medium on ring+crown, pearl+diamond, gold+chalice; small on ring+gold, pearl+chalice, crown+diamond (each treasure once per size). The chickens of ring+pearl, crown+gold and diamond+chalice sit in dark rooms, and so do the dragons of crown+chalice, pearl+diamond and ring+gold; no card shows both a chicken and a dragon."),
        Ruling("Timed presses", f"After each reveal every player submits, sealed, their inputs for the round, timed in milliseconds from the reveal: at most one shout, one chest grab, one hand on the shield and one slap, all within {WINDOW_MS} ms. The presses are opened together and the round is settled in time order. On a screen the clock starts once the revealed cards have been drawn there, and each key counts from when it arrived; a key pressed before does not count. Your presses are sealed {LINGER_MS / 1000:g} s after your first one (with a dragon out, {LINGER_MS / 1000:g} s after your hand is on the shield), at the latest {WINDOW_MS / 1000:g} s after the reveal; a second press of the same kind does nothing. Every press is heard by the whole table the moment the one who runs it has it (“Pablo: Chalice!”), so anyone may answer a shout, as the rulebook's examples do; bots seal theirs as the room is revealed and are heard each at its own time; the round is still settled by the times. Between rounds the last round stays on screen for three times the pace (+/-), or until Enter. Up to three people may share one keyboard, each with their own keys (see Keys), counted in the order they arrive: everything a race shows is public, so one screen for all of them hides nothing."),
        Ruling("Between rounds", "The next room is revealed only when every player is ready: each has seen the last round (Enter, or its pause ran out). At a networked table the host makes a player who says nothing ready once its intermission has passed. So no program learns a room before the moment it opens."),
        Ruling("Claims over a network", f"Every terminal draws a new room at the same instant: the host names it on its own clock, each terminal reads the host's clock off its pings, and each is sent its room just in time for it (half its round trip and half their spread before the instant). Each terminal times its own player from the moment it drew the room, so a slow link costs nothing. The host believes no claim faster than what it saw itself: the time from the instant (or from sending the room, if it came late) to receiving the press, less half the smallest round trip it measured to that player, the spread of their recent round trips (at most {NETWORK_JITTER_CAP_MS} ms), half that spread and {NETWORK_CLOCK_SLACK_MS} ms for their reading of the host's clock, and {NETWORK_FRAME_MS} ms for drawing the frame. A faster claim counts at that bound, and the log says so. A modified program that lies about its times can still gain about twice its own link's jitter, a frame and 3 ms, no more (on a steady link, about 20 ms); an honest player is never clamped while their link stays within the jitter it has shown."),
        Ruling("At a no-peek table", f"Each room opens at its instant and no sooner: the players' programs hold their shares of its cards until the instant the host names, and send them together then. Every share passes through the host, so the host's program is the first that could open a room: about one link's way after the instant (2 ms on the simulated LAN), never before. The host allows each terminal a further {NETWORK_OPEN_MS} ms to check the room's shares and open it (a modified program may gain that much more). Your presses are heard as they are made, as at any table; your sealed presses go round as a digest first, with the host's bound on your times beside them, and every program merges the two by these rules. A player whose program says nothing in time is given the silent action by the host, and every program checks that it is exactly the silent action (no press, or ready): a host that passed off anything else as silence stops the game on every screen."),
        Ruling("Bot levels", f"Easy bots react in about {bot_range('easy')}, sensible ones in {bot_range('sensible')}, hard ones in {bot_range('hard')} to a room of two cards, {BOT_PER_CARD} more for each card beyond two, and see a dragon a tenth sooner; easy bots shout a wrong treasure or miss a tie in 15 rounds of 100, sensible ones in 7, hard ones in 2. Random bots press anything."),
        Ruling("Easiest to see", "Dragons are small, medium or large; the largest dragon is the easiest to see. Between dragons of the same size, the one nearest the burned player counts for them: their own card, then the next player's clockwise."),
        Ruling("A wrong shout or grab", "Shouting a treasure that is not the most abundant, or grabbing the chest when one treasure is the most abundant, puts you out of that round's race for the cards: your later shout or grab is ignored. Naming one of the tied treasures in a tie simply does not count and costs nothing. While a dragon is out, shouts and grabs do nothing."),
        Ruling("Within 10 ms", f"Inputs racing for the same prize (the room, one dark room, the top of the shield) less than {TIE_MS + 1} ms apart are simultaneous: a seat order drawn at random each round, shown with the round, breaks the tie (its first seat wins a tie, and its last is on top of the shield). A hand (on a dark room, the shield or the chest) and a shout at the very same millisecond: the hand landed first."),
        Ruling("Cards nobody wins", "When nobody names the right treasure or grabs the chest in time, or a dragon is out, the round's cards (but stolen dark rooms) stay face up in the room. They go, with the next room, to the next player who wins one by naming or by the chest; they never count toward abundance. Cards still in the room at the end go under the Dragon card."),
        Ruling("Out of reach of the shield", f"Everyone who has no hand on the shield within {WINDOW_MS} ms is burned. If every player made it, the last hand (top of the stack) is burned. The dragon takes from the loot as it was before the round's cards were shared out."),
        Ruling("Chickens", "A player the dragon burns, with a chicken in their loot, chooses between rounds: give the dragon their most recently won chicken, or every card it wants. The cheaper is offered first (fewer cards, then fewer chickens) and is what a player who says nothing in time gives. There is nothing to choose when the dragon wants no card, or wants that very chicken alone.", quote="you can still avoid giving part of your treasures to the dragon if one of your treasures is a chicken. Just give away the chicken and the Dragon will be satisfied."),
        Ruling("Dark rooms", "The first hand on a dark room steals that card alone into the thief's loot, whether it lands before or after the shout; only before does the card stop counting. A later hand on the same card gets nothing; a slap on a card without an unlit torch misses and costs nothing. A dragon on a stolen card still woke up. If every card has been stolen, there is nothing left to name."),
        Ruling("An empty pile", "A player whose pile is empty reveals nothing but still races: they may shout, grab, slap, and must reach the shield. (With an equal deal every pile empties in the same round.)"),
        Ruling("Ties", "Most cards in the loot wins; then most chickens; if still tied, the tied players share the win."),
    )
    keys = (
        ("1-6", "shout a treasure: 1 Ring, 2 Pearl, 3 Crown, 4 Gold, 5 Diamond, 6 Chalice"),
        ("7", "grab the treasure chest (two or more treasures tie for most)"),
        ("8", "put a hand on the shield (a dragon is out)"),
        ("9", "slap the dark room; with two or more out, 9 then the key shown on the one you want"),
        ("enter", "between rounds: reveal the next room now"),
        ("q-y u i o", "player 2 on a shared keyboard: q w e r t y treasures, u chest, i shield, o slap"),
        ("a-h j k l", "player 3 on a shared keyboard: a s d f g h treasures, j chest, k shield, l slap"),
    )

    # -------------------------------------------------------------- setup
    def setup(self, options: Mapping[str, Any], players: Sequence[str], rng: Rng) -> State:
        n = len(players)
        self.check_players(n)
        state = State(players=tuple(players))
        cards = state.cards
        # Shuffled face down beside the Dragon card; what is not dealt stays under it.
        deck = cards.new_deck(DRAGON, all_faces(), rng)
        each = len(deck) // n
        for seat in range(n):
            for _ in range(each):
                cards.draw(DRAGON, pile_zone(seat), visible=NOBODY)
            cards.declare_zone(table_zone(seat))
            cards.declare_zone(loot_zone(seat))
        cards.declare_zone(ROOM)
        dealt: list[Event] = []
        self.reveal(state, dealt)
        state.note_deal(dealt)
        return state

    # -------------------------------------------------------------- queries
    def to_act(self, state: State) -> frozenset[int]:
        if state.phase == "pause":
            return frozenset(s for s in range(len(state.players)) if s not in state.ready)
        if state.phase != "race":
            return frozenset()
        cards = state.cards
        return frozenset(s for s in range(len(state.players)) if cards.sealed(s) is None)

    def racing(self, state: State) -> bool:
        return state.phase == "race"

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Representatives of the open set of presses: nothing, or each sensible input at a few
        times; between rounds, ``Ready``."""
        if seat not in self.to_act(state):
            return []
        if state.phase == "pause":
            choice = self.choice(state, seat)
            if choice is None:
                return [Ready()]
            return [Feed(int(chicken)) for _, chicken in choice.offers]
        revealed = self.revealed(state)
        darks = tuple(s for s, f in sorted(revealed.items()) if card(f).torch)
        return list(representatives(any(card(f).dragon for f in revealed.values()), darks))

    def silent_action(self, state: State, seat: int) -> Action:
        """A seat that pressed nothing in the round: no input at all; between rounds: ready,
        giving the dragon the cheaper offer if it has a choice to make."""
        if state.phase != "pause":
            return Presses()
        return self.legal_actions(state, seat)[0] if self.choice(state, seat) is not None else Ready()

    def choice(self, state: State, seat: int) -> Choice | None:
        """``seat``'s choice between a chicken and the treasures, while it is still to make."""
        return choice_of({"choices": state.choices}, seat)

    def clamp(self, state: State, seat: int, action: Action, earliest_ms: int) -> tuple[Action, tuple[Clamp, ...]]:
        """Presses with no time below ``earliest_ms`` (see ``clamp_presses``)."""
        if not isinstance(action, Presses):
            return action, ()
        return clamp_presses(action, earliest_ms)

    def press(self, state: State, seat: int, so_far: Action | None, press: Action,
              earliest_ms: int | None = None) -> tuple[Presses, tuple[Clamp, ...]]:
        """The presses so far with one more, made as it happens, its time no sooner than
        ``earliest_ms`` (see ``Game.press``): one voice and two hands, within the window, a slap
        on a card that is there."""
        if not isinstance(press, Presses) or len(press.codes) != 3:
            raise IllegalAction("A press is one input: a shout, the chest, the shield or a slap.")
        earlier = list(so_far.codes) if isinstance(so_far, Presses) else []
        if press.codes[0] in earlier[0::3]:
            kind = INPUT_NAMES[press.codes[0]]
            raise IllegalAction(f"One voice and two hands: one of each a round, and '{kind}' is already in.")
        bounded, clamps = (press, ()) if earliest_ms is None else clamp_presses(press, earliest_ms)
        merged = self._in_time_order(earlier + list(bounded.codes))
        if not self.is_legal(state, seat, merged):
            raise IllegalAction(self.why_illegal(state, seat, merged))
        return merged, clamps

    def merge(self, state: State, seat: int, so_far: Action | None, action: Action,
              earliest_ms: int | None = None) -> tuple[Action, tuple[Clamp, ...]]:
        """What was pressed so far stands; ``action`` adds the inputs of kinds not pressed yet,
        each no sooner than ``earliest_ms``."""
        if not isinstance(action, Presses):
            return action, ()
        pressed = so_far.codes[0::3] if isinstance(so_far, Presses) else ()
        fresh = Presses.of(*((i.kind, i.target, i.ms) for i in action.inputs(seat) if i.kind not in pressed))
        bounded, clamps = (fresh, ()) if earliest_ms is None else clamp_presses(fresh, earliest_ms)
        earlier = list(so_far.codes) if isinstance(so_far, Presses) else []
        return self._in_time_order(earlier + list(bounded.codes)), clamps

    @staticmethod
    def _in_time_order(codes: Sequence[int]) -> Presses:
        triples = sorted(((codes[i], codes[i + 1], codes[i + 2]) for i in range(0, len(codes), 3)), key=lambda t: t[2])
        return Presses.of(*triples)

    def heard(self, action: Action) -> list[tuple[int, Any]]:
        """Each input of the presses: ``(ms, [input, target])``; nothing of a ready or a feed."""
        if not isinstance(action, Presses):
            return []
        return [(i.ms, [i.kind, i.target]) for i in sorted(action.inputs(0), key=lambda i: i.ms)]

    def is_legal(self, state: State, seat: int, action: Action) -> bool:
        if seat not in self.to_act(state):
            return False
        if state.phase == "pause":
            if isinstance(action, Feed):
                return self.choice(state, seat) is not None
            return isinstance(action, Ready) and self.choice(state, seat) is None
        return isinstance(action, Presses) and not self._broken(state, action)

    def why_illegal(self, state: State, seat: int, action: Action) -> str:
        if state.phase == "over":
            return "The game is over."
        if seat not in self.to_act(state):
            if state.phase == "pause":
                return "Between rounds: you are ready; the next room opens when everyone is."
            return "My Treasure: you have already made your moves this round."
        if state.phase == "pause":
            if isinstance(action, Feed):
                return "Chickens: only a player the dragon burned, with a chicken in their loot, feeds it."
            if isinstance(action, Ready):
                return ("Chickens: the dragon is waiting. Give it your chicken (feed 1) or the treasures "
                        "it wants (feed 0), then the next room can open.")
            return "Between rounds: the next room is not open yet."
        if isinstance(action, (Ready, Feed)):
            return "The room is open: press, or let the window close."
        if not isinstance(action, Presses):  # no action of this game's
            return "That is not a move in Dragons & Chickens."
        return self._broken(state, action) or "That is not a move in Dragons & Chickens."

    def _broken(self, state: State, action: Presses) -> str:
        """The rule these presses break, or "" when they are legal now."""
        seen: set[int] = set()
        tables = state.cards.zones
        codes = action.codes
        for i in range(0, len(codes), 3):
            kind, target, ms = codes[i : i + 3]
            if kind in seen:
                return (
                    f"One voice and two hands: at most one shout, one chest grab, one hand on the"
                    f" shield and one slap each round (two of '{INPUT_NAMES[kind]}')."
                )
            seen.add(kind)
            if ms > WINDOW_MS:
                return f"The room closes {WINDOW_MS} ms after the reveal; {ms} ms is too late."
            if kind == SLAP and not tables.get(table_zone(target)):
                return f"Dark rooms: there is no card in front of seat {target + 1} to put a hand on."
        return ""

    def result(self, state: State) -> Result | None:
        return self.standing(state) if state.phase == "over" else None

    def standing(self, state: State) -> Result:
        loots = [state.cards.faces(loot_zone(s)) for s in range(len(state.players))]
        totals = [len(loot) for loot in loots]
        chickens = [sum(card(f).chicken for f in loot) for loot in loots]
        winners, tiebreak = rank_winners(totals, [("most chickens", chickens)])
        details = tuple(
            f"{n} card{'s' * (n != 1)}, {c} chicken{'s' * (c != 1)}"
            for n, c in zip(totals, chickens, strict=True)
        )
        return Result(tuple(totals), winners, tiebreak, details)

    def revealed(self, state: State) -> dict[int, str]:
        """The faces revealed this round: seat -> face (seats with an empty pile are missing)."""
        cards = state.cards
        out = {}
        for seat in range(len(state.players)):
            handle = cards.top(table_zone(seat))
            if handle is not None:
                out[seat] = cards.face(handle)
        return out

    # -------------------------------------------------------------- apply
    def _apply(self, state: State, seat: int, action: Action, rng: Rng) -> list[Event]:
        if isinstance(action, (Ready, Feed)):
            log: list[Event] = []
            if isinstance(action, Feed):
                self._feed(state, seat, bool(action.chicken), log)
            state.ready.append(seat)
            if not self.to_act(state):
                self.reveal(state, log)
            return log
        assert isinstance(action, Presses)
        state.cards.seal(seat, action.text())
        log = [Event("pressed", f"{state.players[seat]} has made their moves.", seat)]
        if not self.to_act(state):
            self._settle(state, rng, log)
        return log

    def _settle(self, state: State, rng: Rng, log: list[Event]) -> None:
        cards = state.cards
        n = len(state.players)
        inputs: list[Input] = []
        for seat, text in sorted(cards.unseal_all().items()):
            presses = self.parse_action(text)
            assert isinstance(presses, Presses)
            inputs += presses.inputs(seat)
        priority = list(range(n))
        rng.shuffle(priority)
        revealed = self.revealed(state)
        handles = {s: cards.zone(table_zone(s))[-1] for s in revealed}
        outcome = resolve_round(revealed, inputs, priority)

        losses: list[Loss] = []
        choices: list[Choice] = []
        for burn in outcome.burns:  # from the loot as it was before this round's cards are shared
            loot = list(cards.zone(loot_zone(burn.seat)))
            dragon = handles[burn.dragon]
            offers = dragon_offers([cards.face(h) for h in loot], cards.face(dragon))
            if len(offers) > 1:  # the player chooses between rounds
                choices.append(Choice(burn.seat, dragon, tuple((tuple(loot[i] for i in o.lost), o.chicken) for o in offers)))
                losses.append(Loss(burn.seat, dragon, (), False, choosing=True))
                continue
            taken = tuple(loot[i] for i in offers[0].lost)
            for handle in taken:
                cards.move(handle, DRAGON, visible=EVERYONE)
            losses.append(Loss(burn.seat, dragon, taken, False))
        for theft in outcome.thefts:
            cards.move(handles[theft.owner], loot_zone(theft.thief), visible=EVERYONE)
        left = [h for s, h in sorted(handles.items()) if cards.where(h) == table_zone(s)]
        taken_room: tuple[int, ...] = ()
        to_room: tuple[int, ...] = ()
        if outcome.winner is not None:
            taken_room = (*cards.zone(ROOM), *left)
            for handle in taken_room:
                cards.move(handle, loot_zone(outcome.winner), visible=EVERYONE)
        else:
            to_room = tuple(left)
            for handle in to_room:
                cards.move(handle, ROOM, visible=EVERYONE)

        record = RoundRecord(
            round=state.round,
            revealed=tuple(sorted(handles.items())),
            priority=tuple(priority),
            outcome=outcome,
            taken=taken_room,
            to_room=to_room,
            losses=tuple(losses),
            lines=(),
        )
        lines = describe(record, state.players, cards.face)
        record = dataclasses.replace(record, lines=tuple(lines))
        state.last_round = plain(record)
        state.choices = [plain(choice) for choice in choices]
        log += [Event("round", line) for line in lines]
        if choices or any(cards.zone(pile_zone(s)) for s in range(n)):
            state.phase, state.ready = "pause", []  # the next room opens when everyone is ready
        else:
            self.reveal(state, log)

    def _feed(self, state: State, seat: int, chicken: bool, log: list[Event]) -> None:
        """``seat`` gives the dragon its chicken or the treasures; the round's record says which."""
        choice = self.choice(state, seat)
        assert choice is not None
        cards = state.cards
        taken = choice.handles(chicken)
        for handle in taken:
            cards.move(handle, DRAGON, visible=EVERYONE)
        state.choices = [raw for raw in state.choices if raw["seat"] != seat]
        record = last_round({"last_round": state.last_round})
        assert record is not None
        losses = tuple(Loss(seat, choice.dragon, taken, chicken) if loss.seat == seat else loss for loss in record.losses)
        record = dataclasses.replace(record, losses=losses)
        lines = describe(record, state.players, cards.face)
        state.last_round = plain(dataclasses.replace(record, lines=tuple(lines)))
        loss = next(loss for loss in losses if loss.seat == seat)
        log.append(Event("feed", _loss_text(state.players[seat], loss, cards.face), seat,
                         {"chicken": chicken, "cards": len(taken)}))

    def reveal(self, state: State, log: list[Event]) -> None:
        """Reveal every top card at once, or end the game when every pile is empty."""
        cards = state.cards
        n = len(state.players)
        if not any(cards.zone(pile_zone(s)) for s in range(n)):
            room = list(cards.zone(ROOM))
            for handle in room:
                cards.move(handle, DRAGON, visible=EVERYONE)
            state.phase = "over"
            end = "Every pile is empty: the adventurers leave the dungeon."
            if room:
                end += f" The {len(room)} card{'s' * (len(room) != 1)} left in the room go under the Dragon card."
            log.append(Event("end", end))
            return
        state.round += 1
        state.phase = "race"
        # every top card turns before any is read: at a no-peek table the whole room opens at once
        drawn = [(seat, cards.draw(pile_zone(seat), table_zone(seat), visible=EVERYONE)) for seat in range(n)]
        shown = [f"{state.players[seat]} {face_name(cards.face(handle))}" for seat, handle in drawn
                 if handle is not None]
        log.append(Event("reveal", f"Round {state.round} — My-trea-sure! " + "; ".join(shown) + "."))


# ---------------------------------------------------------------- the account of a round

_VERDICT_TEXT = {
    "lost-tie": "as fast, but lost the draw",
    "late": "too late",
    "wrong": "wrong! out of this race",
    "out": "ignored (already out of this race)",
    "tied-kind": "a tie: naming does not count",
    "empty": "no card counts any more",
    "dragon": "no treasure while a dragon is out",
    "beaten": "another hand was there first",
    "missed": "no dark room there",
    "safe": "safe",
    "top": "last on the shield",
    "no-dragon": "there is no dragon",
}


def describe(record: RoundRecord, names: Sequence[str], face_of: Any) -> list[str]:
    """The round told in time order, in plain lines for the log and the UI.

    ``face_of`` maps a handle to its face; only public faces (the revealed
    dragon cards) are read.
    """
    o = record.outcome
    lines: list[str] = []
    thefts = {(t.thief, t.owner): t for t in o.thefts}
    for v in o.verdicts:
        who = names[v.seat]
        if v.what == "stole":
            t = thefts[v.seat, v.target]
            if o.how == "dragon":
                when = "while the dragon is out"
            elif t.counted:
                when = "after the room was won: the result stands"
            else:
                when = "so it no longer counts"
            owner = "their own" if t.owner == t.thief else f"{names[t.owner]}'s"
            lines.append(f"{who} slaps {owner} dark room at {v.ms} ms and steals it, {when}.")
        elif v.what == "won" and o.how == "named":
            counts = ", ".join(f"{TREASURE_NAMES[t]} {n}" for t, n in enumerate(o.counts) if n)
            lines.append(f"{who} shouts {TREASURE_NAMES[v.target]} at {v.ms} ms ({counts}) and takes {_cards(len(record.taken))}.")
        elif v.what == "won":
            tied = " and ".join(TREASURE_NAMES[t] for t in most_abundant(o.counts))
            lines.append(f"{tied} tie: {who} grabs the chest at {v.ms} ms and takes {_cards(len(record.taken))}.")
        else:
            lines.append(f"{who} {input_text(v.kind, v.target, names, v.seat)} at {v.ms} ms: {_VERDICT_TEXT[v.what]}.")
    for prize, seats, got in o.ties:
        who = ", ".join(names[s] for s in seats)
        lines.append(f"{who} were within {TIE_MS} ms for {_prize_text(prize, names)}: the round's draw gives it to {names[got]}.")
    if o.how == "dragon":
        lines.append("A dragon was out: no treasure by naming or by the chest.")
        for burn, loss in zip(o.burns, record.losses, strict=True):
            who = names[burn.seat]
            where = "is last on the shield" if burn.why == "top" else "never reached the shield"
            kinds = " or ".join(TREASURE_NAMES[t] for t in card(face_of(loss.dragon)).treasures)
            seen = "their own card" if burn.dragon == burn.seat else f"{names[burn.dragon]}'s card"
            lines.append(f"{who} {where}; burned by the dragon on {seen}, {_loss_text(who, loss, face_of, kinds)}.")
    if o.how == "nobody" and (record.to_room or o.verdicts):
        lines.append("Nobody named the right treasure or grabbed the chest in time.")
    if record.to_room:
        n = len(record.to_room)
        lines.append(f"{_cards(n).capitalize()} stay{'s' * (n == 1)} in the room for the next winner.")
    return lines


def _loss_text(who: str, loss: Loss, face_of: Any, kinds: str | None = None) -> str:
    """``"Marta gives up a chicken instead of Ring or Diamond"``: what the dragon got."""
    kinds = kinds or " or ".join(TREASURE_NAMES[t] for t in card(face_of(loss.dragon)).treasures)
    if loss.choosing:
        return f"{who} chooses: a chicken, or the cards showing {kinds}"
    if loss.chicken:
        return f"{who} gives up a chicken instead of {kinds}"
    if loss.cards:
        return f"{who} loses {_cards(len(loss.cards))} showing {kinds}"
    return f"{who} has nothing showing {kinds} to lose"


def _cards(n: int) -> str:
    return f"{n} card{'s' * (n != 1)}"


def _prize_text(prize: str, names: Sequence[str]) -> str:
    if prize.startswith("dark room "):
        return f"{names[int(prize.split()[-1])]}'s dark room"
    return prize


GAME = DragonsChickens()
