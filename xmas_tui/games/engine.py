"""The engine protocol every game implements, and the plain data it speaks.

Owns: ``Game`` (the protocol, as a base class), ``Action``, ``Event``,
``View``, ``Result``, ``Ruling``, the typed errors, the generic ``view()``, the
digest of a state, and ``and_list`` for the lists in event text. Every game is
driven through these names only: the tables (``xmas_tui/tables``: local,
networked, headless, simulated) find a game in the registry (``xmas_tui.games``)
and run it through this protocol, never through its module; the network
(``netcode``) knows no game at all. What knows one game does read its module,
for its card names, zones and helpers: that game's board (``xmas_tui/ui/boards``)
and bot (``xmas_tui/bots``); the lobby reads the Christmas Game's decks, and the
lobby, the command line and ``xmas_tui.files`` read a personal cards file with
``personal_cards``. The README's "How it is put together" places each layer.

Must not touch: Textual, asyncio, the network, clocks, files. An engine is a
pure function of (state, seat, action, rng).

The protocol:

* ``setup(options, players, rng) -> state``
* ``to_act(state) -> frozenset[int]``  (several seats for simultaneous choices)
* ``legal_actions(state, seat) -> list[Action]``
* ``apply(state, seat, action, rng) -> list[Event]``  (validates first)
* ``view(state, seat | None) -> View``  (generic: public fields + visible faces)
* ``result(state) -> Result | None``

A state is a dataclass with a ``cards: Cards`` field; every other field is
public structure and appears in every view. Secrets live only as card faces.
"""

from __future__ import annotations

import dataclasses
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

from .cards import Cards
from .rng import Rng

# ---------------------------------------------------------------- errors


class ActionError(Exception):
    """A player's action was refused; the state is unchanged."""


class InvalidAction(ActionError):
    """The action is malformed: unknown kind, wrong arity, wrong types."""


class IllegalAction(ActionError):
    """A well-formed action that the rules forbid now; ``rule`` names the rule broken."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


# ---------------------------------------------------------------- plain data


_SCALARS = (str, int, type(None), bool, float, bytes)


def plain(value: Any) -> Any:
    """Convert a public value to msgpack-ready plain data (lists, dicts, scalars)."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(plain(v) for v in value)
    if isinstance(value, Mapping):
        return {(k if isinstance(k, str) else str(k)): plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return _plain_fields(value)
    raise TypeError(f"{type(value).__name__} is not plain data")


def _plain_fields(record: Any) -> dict[str, Any]:
    """A dataclass instance's fields as plain data, by name (what ``plain`` makes of it)."""
    return {f.name: plain(getattr(record, f.name)) for f in dataclasses.fields(record)}


def pack(value: Any) -> bytes:
    import msgpack  # (loaded with the first table's digest, not with the lobby that lists the games)

    packed: bytes = msgpack.packb(plain(value), use_bin_type=True)  # (msgpack is untyped: packb makes bytes)
    return packed


def unpack(data: bytes) -> Any:
    import msgpack

    return msgpack.unpackb(data, raw=False, strict_map_key=True)


def public_digest(public_view: Mapping[str, Any]) -> str:
    """The hash of a public view's wire form: what every honest peer of a table computes alike."""
    return hashlib.sha256(pack(public_view)).hexdigest()


# ---------------------------------------------------------------- actions

_ARG_TYPES = (int, str)


@dataclass(frozen=True)
class Action:
    """A player's move: a frozen value with a text form and a wire form.

    Subclasses set ``kind`` and declare int or str fields (or ``tuple[int, ...]``
    as the last field). Text form: ``"flip 3"``; wire form: ``["flip", 3]``.
    """

    kind: ClassVar[str] = ""

    def args(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))

    def text(self) -> str:
        parts = [self.kind]
        for arg in self.args():
            parts.extend(str(a) for a in arg) if isinstance(arg, tuple) else parts.append(str(arg))
        return " ".join(parts)

    def to_wire(self) -> list[Any]:
        return [self.kind, *(list(a) if isinstance(a, tuple) else a for a in self.args())]

    def __str__(self) -> str:
        return self.text()


def _build(cls: type[Action], raw: Sequence[Any]) -> Action:
    fields = dataclasses.fields(cls)
    values: list[Any] = []
    rest = list(raw)
    for i, f in enumerate(fields):
        is_tuple = "tuple" in str(f.type)
        if is_tuple:
            if i != len(fields) - 1:
                raise InvalidAction(f"{cls.kind}: bad action definition")
            items = rest[0] if len(rest) == 1 and isinstance(rest[0], list) else rest
            try:  # the text form carries numbers as words
                items = [int(x) if isinstance(x, str) else x for x in items]
            except ValueError:
                raise InvalidAction(f"{cls.kind} takes whole numbers") from None
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in items):
                raise InvalidAction(f"{cls.kind} takes whole numbers")
            values.append(tuple(items))
            rest = []
            break
        if not rest:
            raise InvalidAction(f"{cls.kind} needs {len(fields)} argument(s)")
        v = rest.pop(0)
        want = int if "int" in str(f.type) else str
        if want is int and isinstance(v, str):
            try:
                v = int(v)
            except ValueError:
                raise InvalidAction(f"{cls.kind}: {v!r} is not a number") from None
        if not isinstance(v, want) or isinstance(v, bool):
            raise InvalidAction(f"{cls.kind}: {v!r} is not a {want.__name__}")
        values.append(v)
    if rest:
        raise InvalidAction(f"{cls.kind} takes {len(fields)} argument(s)")
    return cls(*values)


# ---------------------------------------------------------------- events, views, results


class Event(NamedTuple):
    """Something that happened, for the log. Events are public: never a hidden face.

    ``text`` says it for a person; ``data`` (plain data, or None) says it for a
    program, so that no screen has to read the text back (``{"cards": 2}``)."""

    kind: str
    text: str
    seat: int | None = None
    data: Mapping[str, Any] | None = None

    def to_wire(self) -> list[Any]:
        return [self.kind, self.text, self.seat, None if self.data is None else plain(self.data)]

    @classmethod
    def from_wire(cls, raw: Sequence[Any]) -> Event:
        kind, text, seat, data = raw
        return cls(kind, text, seat, data)


@dataclass(frozen=True)
class View:
    """What one seat (or a spectator, ``seat=None``) may see: plain data.

    ``zones`` holds every zone's handles (bottom to top); ``faces`` holds only
    the faces this seat may see now. A handle missing from ``faces`` is face down.
    """

    game: str
    seat: int | None
    public: Mapping[str, Any]
    zones: Mapping[str, tuple[int, ...]]
    faces: Mapping[int, str]

    def __getitem__(self, key: str) -> Any:
        return self.public[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.public.get(key, default)

    def zone(self, name: str) -> tuple[int, ...]:
        return self.zones.get(name, ())

    def face(self, handle: int) -> str | None:
        return self.faces.get(handle)

    def faces_in(self, name: str) -> list[str]:
        """The faces this seat may see in a zone (hidden cards left out)."""
        faces = self.faces
        return [faces[h] for h in self.zones.get(name, ()) if h in faces]

    def cards(self, name: str) -> list[tuple[int, str | None]]:
        """A zone as (handle, face or None), bottom to top."""
        faces = self.faces
        return [(h, faces.get(h)) for h in self.zones.get(name, ())]

    def to_wire(self, common: tuple[Any, Any] | None = None) -> dict[Any, Any]:
        """Plain data. ``common`` is `common_wire()` of any view of the same moment:
        the public fields and zones are the same for every seat, so a host making
        every seat's view converts them once."""
        return View.wire(self.game, self.seat, self.common_wire() if common is None else common, self.faces)

    @staticmethod
    def wire(game: str, seat: int | None, common: tuple[Any, Any], faces: Mapping[int, str]) -> dict[Any, Any]:
        """`to_wire()` of a view put together from ``common`` (see `common_wire`) and the
        faces ``seat`` may see (`Game.view_faces`), for a host making every seat's view."""
        public, zones = common
        return {
            "game": game,
            "seat": seat,
            "public": public,
            "zones": zones,
            "faces": sorted([h, f] for h, f in faces.items()),
        }

    def common_wire(self) -> tuple[Any, Any]:
        """The parts of `to_wire()` that every seat's view of this moment shares."""
        return plain(self.public), {name: list(cards) for name, cards in self.zones.items()}

    @classmethod
    def from_wire(cls, raw: Mapping[str, Any]) -> View:
        return cls(
            game=raw["game"],
            seat=raw["seat"],
            public=raw["public"],
            zones={name: tuple(cards) for name, cards in raw["zones"].items()},
            faces={h: f for h, f in raw["faces"]},
        )


@dataclass(frozen=True)
class Result:
    """The end of a game: scores, winners and how ties were broken."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    tiebreak: str = ""
    details: tuple[str, ...] = ()
    #: the table was closed before the game's end: these are the scores as they stood
    closed: bool = False

    def to_wire(self) -> dict[Any, Any]:
        return _plain_fields(self)

    @classmethod
    def from_wire(cls, raw: Mapping[str, Any]) -> Result:
        return cls(
            tuple(raw["scores"]), tuple(raw["winners"]), raw["tiebreak"], tuple(raw["details"]),
            bool(raw.get("closed", False)),
        )


@dataclass(frozen=True)
class TableOption:
    """A table option a game offers: ``--option NAME=VALUE``, or a choice in the lobby.

    ``choices`` are what the lobby offers, as (what it shows, value); the first
    is the game without the option (its value ``None`` leaves the option unset).
    An option with no choices is not a row of the lobby: its value comes from
    elsewhere (The Christmas Game's ``cards``, from a file).
    A seat number in a value means a seat, and seat 0 is the lobby's player."""

    name: str
    label: str
    choices: tuple[tuple[str, Any], ...]

    def options(self, shown: str) -> dict[str, Any]:
        """The table options for the choice the lobby shows as ``shown``."""
        value = dict(self.choices)[shown]
        return {} if value is None else {self.name: value}


#: The table option that names who takes the first turn.
FIRST = "first"
#: The table option that carries a party's own cards (The Christmas Game's; ``personal_cards``
#: checks them), named here so that asking whether a game takes them loads no other game.
CARDS_OPTION = "cards"


def first_seat_option(question: str) -> TableOption:
    """The table option ``first``, asked in the lobby the rulebook's way (``question``).

    Its value is a seat as people count them: 1 is the first seat, the lobby's player;
    "a bot" is seat 2, the first seat after them. Unset, the first player is drawn."""
    return TableOption(FIRST, question, (("nobody says (random)", None), ("you", 1), ("a bot", 2)))


def who_starts(who: str, quote: str) -> Ruling:
    """The ruling "Who starts" of a game whose rulebook asks ``who`` ("who is youngest") to
    start (``quote``, its sentence): the table says, else the first player is drawn."""
    return Ruling(
        "Who starts",
        f"The table says {who}: the lobby asks, and the option \"first\" names that seat (seats "
        "count from 1). When nobody says, the program cannot know, so the first player is drawn at "
        "random when the game is set up. Play goes clockwise (seat order) from the first player.",
        quote=quote,
    )


def first_seat(options: Mapping[str, Any], players: int, rng: Rng) -> int:
    """The seat (counted from 0) that takes the first turn: the one ``options["first"]`` names
    (counted from 1), or else one drawn at random. The draw is made either way, so one
    seed deals the same cards whoever starts."""
    drawn = rng.below(players)
    value = options.get(FIRST)
    if value is None:
        return drawn
    if isinstance(value, (list, tuple)) and len(value) == 1:  # ``--option first=2`` reads as [2]
        value = value[0]
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= players:
        raise ValueError(
            f"the option first names the seat that starts, 1-{players} (seats count from 1), not {value!r}"
        )
    return value - 1


@dataclass(frozen=True)
class Ruling:
    """Our decision where a rulebook is silent or cannot be followed: a title, the ruling, and why.

    ``quote`` is the rulebook's sentence a ruling departs from (word for word), when it
    does; the rules screen prints it beside the ruling, which says why."""

    topic: str
    ruling: str
    quote: str = ""


def count(n: int, one: str, many: str | None = None) -> str:
    """``n`` things in words, plural only when not one: ``1 point``, ``2 points``, ``0 cards``."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def and_list(words: Sequence[str]) -> str:
    """``"a, b and c"``: words listed in a sentence ("" for none)."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def rank_winners(
    scores: Sequence[int], tiebreaks: Sequence[tuple[str, Sequence[int]]]
) -> tuple[tuple[int, ...], str]:
    """Winners by highest score, then by each named tie-break in turn (higher wins).

    Returns the winning seats and the name of the tie-break that decided, or
    "" if none was needed, or "shared win" if every tie-break left a tie.
    """
    best = max(scores)
    leaders = [s for s, score in enumerate(scores) if score == best]
    if len(leaders) == 1:
        return tuple(leaders), ""
    for name, values in tiebreaks:
        top = max(values[s] for s in leaders)
        leaders = [s for s in leaders if values[s] == top]
        if len(leaders) == 1:
            return tuple(leaders), name
    return tuple(leaders), "shared win"


#: what every no-peek table does at a game's end (the help says it under each game's openings)
OPENINGS_AT_THE_END = (
    "At a no-peek table (host --no-peek) the players' programs deal and open the cards this "
    "way, and no program, the host's included, sees a face before the rules show it. When the "
    "game is over every card still closed opens to everyone, and each program plays the whole "
    "game again from the opened cards, holding every player's answers to them. A player who "
    "comes back within their hold takes the seat back, even with their program started again "
    "(it keeps its keys on their machine, and takes the deal so far as it was; a choice they had "
    "sent and not revealed is made again). A player who "
    "leaves for good (their hold runs out) is played on by a bot on a watcher's program, or else "
    "the host's: the other programs open that seat's cards to it and to nobody else. With too "
    "few programs left to open a card (one of two players gone), the game ends with the scores "
    "as they stood."
)


# ---------------------------------------------------------------- the protocol


@dataclass
class BaseState:
    """Fields every game's state has. Subclasses add public fields; faces live in ``cards``."""

    players: tuple[str, ...]
    cards: Cards = field(default_factory=Cards)

    def note_deal(self, events: Sequence[Event]) -> None:
        """Keep what ``setup`` did (the first Event flipped, what was collected) for the log.
        Kept beside the fields, not in them: it is no part of any view or digest."""
        self.__dict__["_deal_events"] = list(events)

    def deal_events(self) -> list[Event]:
        return list(self.__dict__.get("_deal_events", ()))


class Game(ABC):
    """One game's rules. Subclasses are stateless; the state is passed in."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: The action classes of this game.
    actions: ClassVar[tuple[type[Action], ...]]
    #: A short account of the rules, shown by ``xmas-tui rules`` and the help screen.
    how_to_play: ClassVar[str]
    #: Our rulings where the rulebook is silent.
    rulings: ClassVar[tuple[Ruling, ...]]
    #: which faces the rules open, when and to whom: what a no-peek table opens (its help)
    openings: ClassVar[str] = ""
    #: Keys for the help screen and README: (key, what it does).
    keys: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: A safe upper bound on actions in one game, for tests that every game ends.
    max_actions: ClassVar[int] = 10_000
    #: True for games whose actions carry free values (a reaction time in ms):
    #: ``legal_actions`` then lists representatives and ``is_legal`` decides.
    open_actions: ClassVar[bool] = False
    #: A real-time game: the seconds every seat has to act in a round (a host gives a
    #: seat that says nothing in time its ``silent_action``); None in a game of turns.
    race_window: ClassVar[float | None] = None
    #: the table options ``setup`` understands (``xmas-tui play GAME --option NAME=VALUE``,
    #: or a choice in the lobby)
    table_options: ClassVar[tuple[TableOption, ...]] = ()
    #: their names
    option_names: ClassVar[tuple[str, ...]] = ()
    #: True for games the players win or lose together: a lost game has no winners.
    cooperative: ClassVar[bool] = False

    _public_fields: ClassVar[dict[type, tuple[str, ...]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.option_names = tuple(option.name for option in cls.table_options)

    # -- to implement
    @abstractmethod
    def setup(self, options: Mapping[str, Any], players: Sequence[str], rng: Rng) -> Any: ...

    @abstractmethod
    def to_act(self, state: Any) -> frozenset[int]: ...

    @abstractmethod
    def legal_actions(self, state: Any, seat: int) -> list[Action]: ...

    @abstractmethod
    def why_illegal(self, state: Any, seat: int, action: Action) -> str:
        """The rule an action breaks (called only when it is not legal)."""

    @abstractmethod
    def _apply(self, state: Any, seat: int, action: Action, rng: Rng) -> list[Event]:
        """Carry out a legal action."""

    @abstractmethod
    def result(self, state: Any) -> Result | None: ...

    @abstractmethod
    def standing(self, state: Any) -> Result:
        """The result as the game stands now, scored and ranked as at its end (a cooperative
        game not yet won is not won): what a table closed before the end ends with."""

    def closed_result(self, state: Any) -> Result:
        """The result of a table its host closed before the end: the standing, marked closed."""
        return dataclasses.replace(self.standing(state), closed=True)

    # -- given
    def check_players(self, n: int) -> None:
        if not self.min_players <= n <= self.max_players:
            raise ValueError(
                f"{self.title} is for {self.min_players}-{self.max_players} players, not {n}"
            )

    def is_legal(self, state: Any, seat: int, action: Action) -> bool:
        """Whether ``action`` is among ``legal_actions``; games may answer faster.

        The conformance test holds every game's answer to its ``legal_actions``.
        """
        return action in self.legal_actions(state, seat)

    def apply(self, state: Any, seat: int, action: Action, rng: Rng) -> list[Event]:
        """Validate, then apply. Refused actions raise and change nothing."""
        if not isinstance(action, self.actions):
            raise InvalidAction(f"{action!r} is not a {self.title} action")
        if not isinstance(seat, int) or not 0 <= seat < len(state.players):
            raise InvalidAction(f"there is no seat {seat!r}")
        acting = self.to_act(state)
        if seat not in acting:
            raise IllegalAction(self.why_waiting(state, seat) if acting else "The game is over.")
        if not self.is_legal(state, seat, action):
            raise IllegalAction(self.why_illegal(state, seat, action))
        return self._apply(state, seat, action, rng)

    def silent_action(self, state: Any, seat: int) -> Action:
        """What a seat that said nothing within ``race_window`` plays (real-time games)."""
        raise NotImplementedError(f"{self.title} has no race window")

    def racing(self, state: Any) -> bool:
        """Whether a real-time round is open now (its actions claim times from its opening);
        False between rounds and in a game of turns."""
        return False

    def clamp(self, state: Any, seat: int, action: Action, earliest_ms: int) -> tuple[Action, tuple[Any, ...]]:
        """``action`` with no claimed time below ``earliest_ms`` (the earliest the one who runs
        the table can believe), and what was raised; pure. Games without timed claims
        return the action as it is."""
        return action, ()

    def press(self, state: Any, seat: int, so_far: Action | None, press: Action,
              earliest_ms: int | None = None) -> tuple[Action, tuple[Any, ...]]:
        """``seat``'s real-time action so far (None at first) with one more input, ``press``,
        made the moment it happens, no sooner than ``earliest_ms`` (see ``clamp``); and what was
        raised. Raises ``IllegalAction`` naming the rule it breaks; pure. Games without live
        inputs refuse it."""
        raise IllegalAction(f"{self.title} has no presses made as they happen.")

    def merge(self, state: Any, seat: int, so_far: Action | None, action: Action,
              earliest_ms: int | None = None) -> tuple[Action, tuple[Any, ...]]:
        """The action that closes ``seat``'s real-time round: the inputs pressed so far stand,
        ``action`` adds any it had not (no sooner than ``earliest_ms``); and what was raised;
        pure. Games without live inputs take ``action`` (clamped)."""
        if earliest_ms is None:
            return action, ()
        return self.clamp(state, seat, action, earliest_ms)

    def heard(self, action: Action) -> list[tuple[int, Any]]:
        """What the table hears of a real-time action as it happens: each input (plain data,
        never a face) with its time in ms from the room's opening, in time order; pure."""
        return []

    def why_waiting(self, state: Any, seat: int) -> str:
        """Why ``seat`` may not act now, while others may. Games may say more."""
        return "It is not your turn."

    def parse_action(self, raw: str | Sequence[Any]) -> Action:
        """An action from its text form (``"flip 3"``) or wire form (``["flip", 3]``)."""
        if isinstance(raw, str):
            parts: list[Any] = raw.split()
        elif isinstance(raw, (list, tuple)):
            parts = list(raw)
        else:
            raise InvalidAction(f"an action is text or a list, not {type(raw).__name__}")
        if not parts or not isinstance(parts[0], str):
            raise InvalidAction("an action starts with its kind")
        by_kind = {cls.kind: cls for cls in self.actions}
        cls = by_kind.get(parts[0])
        if cls is None:
            raise InvalidAction(
                f"{parts[0]!r} is not a {self.title} action (try: {', '.join(sorted(by_kind))})"
            )
        return _build(cls, parts[1:])

    def public_fields(self, state: Any) -> tuple[str, ...]:
        cls = type(state)
        names = Game._public_fields.get(cls)
        if names is None:
            names = tuple(f.name for f in dataclasses.fields(cls) if f.name != "cards")
            Game._public_fields[cls] = names
        return names

    def view(self, state: Any, seat: int | None) -> View:
        """What ``seat`` may see: every public field, and the faces visible to it. Generic."""
        public = {name: getattr(state, name) for name in self.public_fields(state)}
        zones, faces = state.cards.view(seat)
        return View(self.id, seat, public, zones, faces)

    def view_faces(self, state: BaseState, seat: int | None) -> dict[int, str]:
        """Only the faces of `view`: all that differs between seats' views of one moment."""
        return state.cards.visible(seat)

    def digest(self, state: Any) -> str:
        """A hash of the whole state, faces included (for tests and replays)."""
        public = {name: plain(getattr(state, name)) for name in self.public_fields(state)}
        return hashlib.sha256(pack([public, state.cards.snapshot()])).hexdigest()

    def public_digest(self, state: Any) -> str:
        """A hash of what a spectator sees: identical on every honest peer."""
        return public_digest(self.view(state, None).to_wire())

    def options_from(self, players: int, **extra: Any) -> dict[str, Any]:
        return {"players": players, **extra}

    def opening_events(self, state: BaseState) -> list[Event]:
        """What the deal itself did, in the public log's words (every table logs it first)."""
        return state.deal_events()

    def describe_rules(self) -> str:
        """The rules and our rulings, as text for ``xmas-tui rules`` and help."""
        lines = [self.title, "=" * len(self.title), "", self.how_to_play.strip(), "", "Our rulings", "-----------"]
        for r in self.rulings:
            lines.append(f"* {r.topic}: {r.ruling}")
            if r.quote:  # its own line (indented past a list item's continuation)
                lines.append(f"   The rulebook says: “{r.quote}”")
        if self.openings:
            lines += ["", "Who sees which card", "-------------------", self.openings, "", OPENINGS_AT_THE_END]
        if self.keys:
            lines += ["", "Keys", "----"]
            lines += [f"  {key:<12} {what}" for key, what in self.keys]
        return "\n".join(lines)


class TakingTurns(Game):
    """A game played one turn at a time: the player whose turn it is acts, nobody once it
    is over. Its state has ``turn`` (a seat) and ``phase`` (``"over"`` at the end)."""

    def to_act(self, state: Any) -> frozenset[int]:
        if state.phase == "over":
            return frozenset()
        return frozenset((state.turn,))
